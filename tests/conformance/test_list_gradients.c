/* Gradients through Tensor[] values (cat, chunk, split_with_sizes, stack, unbind,
 * ListConstruct / ListUnpack) and tuples (TupleConstruct / TupleUnpack) on the eager tape, optimized and not, against values worked out by hand; and a
 * run through an op without a gradient formula fails naming it instead of giving zeros. */
#include <math.h>
#include <string.h>

#include "exec/executor.h"
#include "ir/text.h"

/* cat([x, y], 1) cut in two halves a = x, b = y: d sum(a * b) / dx = y, / dy = x. */
static const char cat_chunk_ir[] = "graph(%x : Float(2, 3), %y : Float(2, 3)):\n"
                                   "  %d : int = prim::Constant[value=1]()\n"
                                   "  %n : int = prim::Constant[value=2]()\n"
                                   "  %l : Tensor[] = prim::ListConstruct(%x, %y)\n"
                                   "  %c : Tensor = aten::cat(%l, %d)\n"
                                   "  %p : Tensor[] = aten::chunk(%c, %n, %d)\n"
                                   "  %a : Tensor, %b : Tensor = prim::ListUnpack(%p)\n"
                                   "  %r : Tensor = aten::mul(%a, %b)\n"
                                   "  return (%r)\n";

/* cat([x (2,3), y (2,2)], 1) split into widths 1 and 4: r = a * sum(b); d/dx[:, 0] = sum(b),
 * d/dx[:, 1:] = d/dy = sum(a). */
static const char split_ir[] = "graph(%x : Float(2, 3), %y : Float(2, 2)):\n"
                               "  %d : int = prim::Constant[value=1]()\n"
                               "  %l : Tensor[] = prim::ListConstruct(%x, %y)\n"
                               "  %c : Tensor = aten::cat(%l, %d)\n"
                               "  %s : int[] = prim::Constant[value=[1, 4]]()\n"
                               "  %p : Tensor[] = aten::split_with_sizes(%c, %s, %d)\n"
                               "  %a : Tensor, %b : Tensor = prim::ListUnpack(%p)\n"
                               "  %e : Tensor = aten::sum(%b)\n"
                               "  %r : Tensor = aten::mul(%a, %e)\n"
                               "  return (%r)\n";

/* stack([x, y]) (2, 2, 3) unbound along its last dim into u0, u1, u2 (2, 2); r = u0 * u2
 * passed through a tuple beside u1, whose gradient piece stays undefined (zeros):
 * r[0] = x[:, 0] * x[:, 2], r[1] = y[:, 0] * y[:, 2], so dx[:, 0] = x[:, 2],
 * dx[:, 2] = x[:, 0], dx[:, 1] = 0, and the same for y. */
static const char stack_unbind_ir[] =
    "graph(%x : Float(2, 3), %y : Float(2, 3)):\n"
    "  %zero : int = prim::Constant[value=0]()\n"
    "  %two : int = prim::Constant[value=2]()\n"
    "  %l : Tensor[] = prim::ListConstruct(%x, %y)\n"
    "  %s : Tensor = aten::stack(%l, %zero)\n"
    "  %u : Tensor[] = aten::unbind(%s, %two)\n"
    "  %u0 : Tensor, %u1 : Tensor, %u2 : Tensor = prim::ListUnpack(%u)\n"
    "  %r : Tensor = aten::mul(%u0, %u2)\n"
    "  %t : (Tensor, Tensor) = prim::TupleConstruct(%r, %u1)\n"
    "  %p : Tensor, %q : Tensor = prim::TupleUnpack(%t)\n"
    "  return (%p)\n";

static const char digamma_ir[] = "graph(%x : Float(3)):\n"
                                 "  %r : Tensor = aten::digamma(%x)\n"
                                 "  return (%r)\n";

static RtTensor *filled(int64_t rows, int64_t cols, double start) {
  RtTensor *t = rt_tensor_new(IR_DTYPE_FLOAT32, 2, (int64_t[]){rows, cols});
  for (int64_t k = 0; k < rows * cols; k++)
    rt_tensor_set(t, k, start + 0.5 * (double)k);
  t->requires_grad = true;
  return t;
}

/* Forward and backward of `ir` on the inputs; the gradients, or NULL with *error. */
static bool gradients(const char *ir, bool optimize, RtTensor **inputs, guint n, RtTensor **grads,
                      GError **error) {
  IrGraph *graph = ir_graph_parse(ir, strlen(ir), "list.ir", error);
  g_assert_nonnull(graph);
  ExecSession *session = exec_session_new();
  session->optimize = optimize;
  ExecExecutor *executor = exec_executor_new(session, graph, "main", EXEC_PLAN_FORWARD);
  RtValue values[4];
  for (guint i = 0; i < n; i++)
    values[i] = rt_tensor(inputs[i]);
  RtValue *outputs = NULL;
  guint n_out = 0;
  bool ok = exec_executor_run(executor, values, n, &outputs, &n_out, error) &&
            exec_session_backward(session, &outputs[0].u.tensor, NULL, 1, inputs, n, grads, error);
  for (guint i = 0; i < n_out; i++)
    rt_value_unref(outputs[i]);
  g_free(outputs);
  exec_session_free(session);
  ir_graph_free(graph);
  return ok;
}

static void test_cat_chunk(void) {
  for (int optimize = 0; optimize <= 1; optimize++) {
    RtTensor *in[2] = {filled(2, 3, 1), filled(2, 3, -2)}, *g[2] = {NULL, NULL};
    GError *error = NULL;
    g_assert_true(gradients(cat_chunk_ir, optimize, in, 2, g, &error));
    g_assert_no_error(error);
    for (int64_t k = 0; k < 6; k++) {
      g_assert_cmpfloat(rt_tensor_get(g[0], k), ==, rt_tensor_get(in[1], k));
      g_assert_cmpfloat(rt_tensor_get(g[1], k), ==, rt_tensor_get(in[0], k));
    }
    for (int i = 0; i < 2; i++) {
      rt_tensor_unref(g[i]);
      rt_tensor_unref(in[i]);
    }
  }
}

static void test_split(void) {
  for (int optimize = 0; optimize <= 1; optimize++) {
    RtTensor *in[2] = {filled(2, 3, 1), filled(2, 2, -2)}, *g[2] = {NULL, NULL};
    GError *error = NULL;
    g_assert_true(gradients(split_ir, optimize, in, 2, g, &error));
    g_assert_no_error(error);
    /* a = x[:, 0] = {1, 2.5}; b = x[:, 1:] and y: 1.5 + 2 + 3 + 3.5 - 2 - 1.5 - 1 - 0.5 */
    double sum_a = 3.5, sum_b = 5;
    for (int64_t r = 0; r < 2; r++) {
      g_assert_cmpfloat(rt_tensor_get(g[0], r * 3), ==, sum_b);
      for (int64_t col = 1; col < 3; col++)
        g_assert_cmpfloat(rt_tensor_get(g[0], r * 3 + col), ==, sum_a);
    }
    for (int64_t k = 0; k < 4; k++)
      g_assert_cmpfloat(rt_tensor_get(g[1], k), ==, sum_a);
    for (int i = 0; i < 2; i++) {
      rt_tensor_unref(g[i]);
      rt_tensor_unref(in[i]);
    }
  }
}

static void test_stack_unbind_tuple(void) {
  for (int optimize = 0; optimize <= 1; optimize++) {
    RtTensor *in[2] = {filled(2, 3, 1), filled(2, 3, -2)}, *g[2] = {NULL, NULL};
    GError *error = NULL;
    g_assert_true(gradients(stack_unbind_ir, optimize, in, 2, g, &error));
    g_assert_no_error(error);
    for (int i = 0; i < 2; i++) {
      for (int64_t r = 0; r < 2; r++) {
        g_assert_cmpfloat(rt_tensor_get(g[i], r * 3), ==, rt_tensor_get(in[i], r * 3 + 2));
        g_assert_cmpfloat(rt_tensor_get(g[i], r * 3 + 1), ==, 0);
        g_assert_cmpfloat(rt_tensor_get(g[i], r * 3 + 2), ==, rt_tensor_get(in[i], r * 3));
      }
      rt_tensor_unref(g[i]);
      rt_tensor_unref(in[i]);
    }
  }
}

static void test_no_formula_is_an_error(void) {
  for (int optimize = 0; optimize <= 1; optimize++) {
    RtTensor *x = rt_tensor_new(IR_DTYPE_FLOAT32, 1, (int64_t[]){3});
    for (int64_t k = 0; k < 3; k++)
      rt_tensor_set(x, k, 0.5 + (double)k);
    x->requires_grad = true;
    RtTensor *g = NULL;
    GError *error = NULL;
    g_assert_false(gradients(digamma_ir, optimize, &x, 1, &g, &error));
    g_assert_nonnull(error);
    g_assert_nonnull(strstr(error->message, "aten::digamma"));
    g_assert_nonnull(strstr(error->message, "NOT_DIFFERENTIABLE"));
    g_error_free(error);
    g_assert_null(g);
    rt_tensor_unref(x);
  }
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/conformance/lists/cat-chunk", test_cat_chunk);
  g_test_add_func("/conformance/lists/cat-split-with-sizes", test_split);
  g_test_add_func("/conformance/lists/stack-unbind-tuple", test_stack_unbind_tuple);
  g_test_add_func("/conformance/lists/no-formula-is-an-error", test_no_formula_is_an_error);
  return g_test_run();
}
