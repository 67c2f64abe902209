/* Lists as TorchScript's: len, __getitem__ (negative indices, out of range is an error),
 * append and _set_item in place, seen through every name of the list; and the passes keep
 * that meaning: in a graph that mutates lists, len() before and after an append is not merged
 * (CSE) nor folded (constant propagation), and an append whose result is unused is kept.
 * Expected values are worked out by hand in the comments. */
#include <string.h>

#include "exec/executor.h"
#include "ir/text.h"

/* xs = []; a = len(xs); for i in range(n): xs.append(i); b = len(xs); last = xs[-1];
 * xs[0] = 10; first = xs[0]; c = len(xs). With n = 4: a = 0, b = 4, last = 3, first = 10,
 * c = 4, xs = [10, 1, 2, 3]. */
static const char mutation_ir[] = "graph(%n : int):\n"
                                  "  %xs : int[] = prim::ListConstruct()\n"
                                  "  %a : int = aten::len(%xs)\n"
                                  "  %true : bool = prim::Constant[value=1]()\n"
                                  "   = prim::Loop(%n, %true)\n"
                                  "    block0(%i : int):\n"
                                  "      %same : int[] = aten::append(%xs, %i)\n"
                                  "      -> (%true)\n"
                                  "  %b : int = aten::len(%xs)\n"
                                  "  %minus_one : int = prim::Constant[value=-1]()\n"
                                  "  %last : int = aten::__getitem__(%xs, %minus_one)\n"
                                  "  %zero : int = prim::Constant[value=0]()\n"
                                  "  %ten : int = prim::Constant[value=10]()\n"
                                  "  %same2 : int[] = aten::_set_item(%xs, %zero, %ten)\n"
                                  "  %first : int = aten::__getitem__(%xs, %zero)\n"
                                  "  %c : int = aten::len(%xs)\n"
                                  "  return (%a, %b, %last, %first, %c, %xs)\n";

static const char out_of_range_ir[] = "graph(%x : Tensor, %k : int):\n"
                                      "  %xs : Tensor[] = prim::ListConstruct(%x, %x)\n"
                                      "  %n : int = aten::len(%x)\n"
                                      "  %y : Tensor = aten::__getitem__(%xs, %k)\n"
                                      "  return (%n, %y)\n";

static bool run(const char *ir, bool optimize, RtValue *inputs, guint n_inputs, RtValue **outputs,
                guint *n_outputs, GError **error) {
  IrGraph *graph = ir_graph_parse(ir, strlen(ir), "lists.ir", error);
  g_assert_nonnull(graph);
  ExecSession *session = exec_session_new();
  session->optimize = optimize;
  ExecExecutor *executor = exec_executor_new(session, graph, "main", EXEC_PLAN_FORWARD);
  bool ok = exec_executor_run(executor, inputs, n_inputs, outputs, n_outputs, error);
  exec_session_free(session);
  ir_graph_free(graph);
  return ok;
}

static void free_outputs(RtValue *outputs, guint n) {
  for (guint i = 0; i < n; i++)
    rt_value_unref(outputs[i]);
  g_free(outputs);
}

static void test_mutation(void) {
  for (int optimize = 0; optimize <= 1; optimize++) {
    RtValue n = rt_int(4), *outs = NULL;
    guint n_outs = 0;
    GError *error = NULL;
    g_assert_true(run(mutation_ir, optimize, &n, 1, &outs, &n_outs, &error));
    g_assert_no_error(error);
    g_assert_cmpuint(n_outs, ==, 6);
    const gint64 expected[] = {0, 4, 3, 10, 4};
    for (guint i = 0; i < G_N_ELEMENTS(expected); i++) {
      g_assert_cmpint(outs[i].tag, ==, RT_INT);
      g_assert_cmpint(outs[i].u.i, ==, expected[i]);
    }
    gint64 items[8];
    guint n_items = 0;
    g_assert_true(rt_value_to_int_list(outs[5], items, G_N_ELEMENTS(items), &n_items));
    g_assert_cmpuint(n_items, ==, 4);
    const gint64 expected_items[] = {10, 1, 2, 3};
    for (guint i = 0; i < 4; i++)
      g_assert_cmpint(items[i], ==, expected_items[i]);
    free_outputs(outs, n_outs);
  }
}

/* The list aliases the tensor (xs[k] is x itself); index 2 of two items fails, naming it. */
static void test_getitem_and_len_of_tensor(void) {
  const double values[] = {1, 2, 3};
  for (int optimize = 0; optimize <= 1; optimize++) {
    RtTensor *x = rt_tensor_new(IR_DTYPE_FLOAT32, 1, (int64_t[]){3});
    for (int64_t k = 0; k < 3; k++)
      rt_tensor_set(x, k, values[k]);
    RtValue inputs[2] = {rt_tensor(x), rt_int(-2)}, *outs = NULL;
    guint n_outs = 0;
    GError *error = NULL;
    g_assert_true(run(out_of_range_ir, optimize, inputs, 2, &outs, &n_outs, &error));
    g_assert_no_error(error);
    g_assert_cmpint(outs[0].u.i, ==, 3);
    g_assert_true(outs[1].tag == RT_TENSOR && outs[1].u.tensor == x);
    free_outputs(outs, n_outs);

    inputs[1] = rt_int(2);
    g_assert_false(run(out_of_range_ir, optimize, inputs, 2, &outs, &n_outs, &error));
    g_assert_nonnull(error);
    g_assert_nonnull(strstr(error->message, "list index out of range (index 2 of a list of 2)"));
    g_assert_nonnull(strstr(error->message, "aten::__getitem__"));
    g_error_free(error);
    rt_tensor_unref(x);
  }
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/interp/lists/mutation", test_mutation);
  g_test_add_func("/interp/lists/getitem-and-len-of-tensor", test_getitem_and_len_of_tensor);
  return g_test_run();
}
