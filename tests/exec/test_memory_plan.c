/* Static memory plans: buffers are reused once a value is dead, views share their base's
 * buffer, escaping values never share, no two values live at once share a buffer, and the
 * sizes come from the spec's inputs (also through a DifferentiableGraph's forward). */
#include "exec/executor.h"
#include "exec/memory_plan.h"
#include "ir/text.h"

#include <string.h>

#include "../passes/lstm_cell.h"

/* A chain where each intermediate dies one node after it is made: a [1,2], b [2,3],
 * c and its view d [3,5], e [5,6], f (returned) [6,end]; every tensor is 64x32 float32. */
static const char chain[] =
    "graph(%x : Float(64, 32, strides=[32, 1]), %w : Float(32, 32, strides=[32, 1])):\n"
    "  %one : int = prim::Constant[value=1]()\n"
    "  %a : Tensor = aten::mm(%x, %w)\n"
    "  %b : Tensor = aten::relu(%a)\n"
    "  %c : Tensor = aten::mm(%b, %w)\n"
    "  %d : Tensor = aten::t(%c)\n"
    "  %e : Tensor = aten::relu(%d)\n"
    "  %f : Tensor = aten::add(%e, %e, %one)\n"
    "  return (%f)\n";

#define TENSOR_BYTES (64 * 32 * 4)

static IrGraph *parse(const char *text) {
  GError *error = NULL;
  IrGraph *g = ir_graph_parse(text, strlen(text), "test.ir", &error);
  g_assert_no_error(error);
  return g;
}

/* The plan's invariants: groups sharing a buffer are never live at once, each buffer is as
 * large as its largest group, escaping groups are alone, and peak is the sum of buffers. */
static void check_invariants(const ExecMemoryPlan *plan) {
  size_t sum = 0;
  for (guint b = 0; b < plan->buffer_bytes->len; b++)
    sum += g_array_index(plan->buffer_bytes, size_t, b);
  g_assert_cmpuint(sum, ==, plan->peak_bytes);
  g_assert_cmpuint(plan->peak_bytes, <=, plan->unshared_bytes);
  for (guint i = 0; i < plan->groups->len; i++) {
    const ExecPlannedGroup *x = &g_array_index(plan->groups, ExecPlannedGroup, i);
    g_assert_cmpuint(x->buffer, <, plan->buffer_bytes->len);
    g_assert_cmpuint(x->bytes, <=, g_array_index(plan->buffer_bytes, size_t, x->buffer));
    for (guint j = i + 1; j < plan->groups->len; j++) {
      const ExecPlannedGroup *y = &g_array_index(plan->groups, ExecPlannedGroup, j);
      if (x->buffer != y->buffer)
        continue;
      g_assert_false(x->escapes || y->escapes);
      g_assert_true(x->last < y->first || y->last < x->first);
    }
  }
}

static void test_chain_reuses_buffers(void) {
  IrGraph *g = parse(chain);
  g_autoptr(ExecMemoryPlan) plan = exec_memory_plan_of_typed_graph(g);
  check_invariants(plan);
  /* Nothing sized yet: the intermediates are `Tensor`. */
  g_assert_cmpuint(plan->n_values, ==, 5);
  g_assert_cmpuint(plan->n_unsized, ==, 5);

  int64_t sx[2] = {64, 32}, sw[2] = {32, 32};
  RtValue in[2] = {rt_tensor(rt_tensor_randn(IR_DTYPE_FLOAT32, 2, sx, 1)),
                   rt_tensor(rt_tensor_randn(IR_DTYPE_FLOAT32, 2, sw, 2))};
  g_autoptr(ExecMemoryPlan) sized = exec_memory_plan_new(g, in, 2);
  check_invariants(sized);
  g_assert_cmpuint(sized->n_values, ==, 5);
  g_assert_cmpuint(sized->n_unsized, ==, 0);
  /* a, b, c (with its view d), e, f: five groups, and d adds no bytes. */
  g_assert_cmpuint(sized->groups->len, ==, 5);
  g_assert_cmpuint(sized->unshared_bytes, ==, 5 * TENSOR_BYTES);
  /* a and c share, b and e share, f (returned) is alone. */
  g_assert_cmpuint(sized->buffer_bytes->len, ==, 3);
  g_assert_cmpuint(sized->peak_bytes, ==, 3 * TENSOR_BYTES);
  guint escaping = 0;
  for (guint i = 0; i < sized->groups->len; i++)
    escaping += g_array_index(sized->groups, ExecPlannedGroup, i).escapes;
  g_assert_cmpuint(escaping, ==, 1);
  rt_value_unref(in[0]);
  rt_value_unref(in[1]);
  ir_graph_free(g);
}

/* Through the executor: the plan carries its memory plan, and with inputs that require grad
 * the DifferentiableGraph's forward is planned inside. */
static void test_executor_plans(void) {
  IrGraph *g = parse(chain);
  ExecSession *session = exec_session_new();
  ExecExecutor *ex = exec_executor_new(session, g, "chain", EXEC_PLAN_FORWARD);
  int64_t sx[2] = {64, 32}, sw[2] = {32, 32};
  RtTensor *x = rt_tensor_randn(IR_DTYPE_FLOAT32, 2, sx, 1);
  RtTensor *w = rt_tensor_randn(IR_DTYPE_FLOAT32, 2, sw, 2);
  for (int grad = 0; grad < 2; grad++) {
    w->requires_grad = grad;
    RtValue in[2] = {rt_tensor(rt_tensor_ref(x)), rt_tensor(rt_tensor_ref(w))};
    RtValue *outs = NULL;
    guint n_outs = 0;
    GError *error = NULL;
    g_assert_true(exec_executor_run(ex, in, 2, &outs, &n_outs, &error));
    g_assert_no_error(error);
    const ExecPlan *plan = exec_executor_last_plan(ex);
    const ExecMemoryPlan *memory = exec_plan_memory(plan);
    g_assert_nonnull(memory);
    check_invariants(memory);
    g_assert_cmpuint(memory->n_unsized, ==, 0);
    g_assert_cmpuint(memory->n_values, >=, 3);
    g_assert_cmpuint(memory->peak_bytes, >=, 2 * TENSOR_BYTES);
    /* Made after the run from what the compile kept: as made from the inputs themselves. */
    g_autoptr(ExecMemoryPlan) direct = exec_memory_plan_new(plan->graph, in, 2);
    g_assert_cmpuint(direct->peak_bytes, ==, memory->peak_bytes);
    g_assert_cmpuint(direct->unshared_bytes, ==, memory->unshared_bytes);
    g_assert_cmpuint(direct->buffer_bytes->len, ==, memory->buffer_bytes->len);
    g_assert_true(exec_plan_memory(plan) == memory); /* made once */
    if (grad) {
      RtTensor *out = outs[0].u.tensor, *grads[1] = {NULL};
      g_assert_true(exec_session_backward(session, &out, NULL, 1, &w, 1, grads, &error));
      g_assert_no_error(error);
      rt_tensor_unref(grads[0]);
    }
    for (guint i = 0; i < n_outs; i++)
      rt_value_unref(outs[i]);
    g_free(outs);
    rt_value_unref(in[0]);
    rt_value_unref(in[1]);
  }
  rt_tensor_unref(x);
  rt_tensor_unref(w);
  exec_session_free(session);
  ir_graph_free(g);
}

/* The LSTM cell fused, forward and backward: every plan's values are sized, the backward's
 * too (its fusion group writes the gates' gradient as a prim::FusedConcat, which shape
 * propagation used to leave unsized: a peak of 0), and the backward's peak holds at least
 * that gradient [B, 4H] and the two weight gradients [4H, H]. */
static void test_lstm_plans_sized(void) {
  IrGraph *g = parse(lstm_in);
  ExecSession *session = exec_session_new();
  session->fuse = true;
  ExecExecutor *ex = exec_executor_new(session, g, "lstm", EXEC_PLAN_FORWARD);
  enum { B = 4, H = 8 };
  int64_t s_x[2] = {B, H}, s_w[2] = {4 * H, H}, s_b[1] = {4 * H};
  RtTensor *t[7];
  RtValue in[7];
  for (guint i = 0; i < 7; i++) {
    t[i] = rt_tensor_randn(IR_DTYPE_FLOAT32, i < 5 ? 2 : 1, i < 3 ? s_x : i < 5 ? s_w : s_b, i);
    t[i]->requires_grad = i >= 3;
    in[i] = rt_tensor(t[i]);
  }
  RtValue *outs = NULL;
  guint n_outs = 0;
  GError *error = NULL;
  g_assert_true(exec_executor_run(ex, in, 7, &outs, &n_outs, &error));
  g_assert_no_error(error);
  RtTensor *flat[2] = {outs[0].u.seq->items[0].u.tensor, outs[0].u.seq->items[1].u.tensor};
  RtTensor *grads[7] = {NULL};
  g_assert_true(exec_session_backward(session, flat, NULL, 2, t, 7, grads, &error));
  g_assert_no_error(error);
  guint backward = 0;
  for (guint p = 0; p < session->plans->len; p++) {
    const ExecPlan *plan = g_ptr_array_index(session->plans, p);
    const ExecMemoryPlan *memory = exec_plan_memory(plan);
    check_invariants(memory);
    g_assert_cmpuint(memory->n_unsized, ==, 0);
    if (plan->kind == EXEC_PLAN_BACKWARD) {
      g_assert_cmpuint(memory->peak_bytes, >=, (B * 4 * H + 2 * 4 * H * H) * sizeof(float));
      backward++;
    }
  }
  g_assert_cmpuint(backward, ==, 1);
  for (guint i = 0; i < 7; i++) {
    if (grads[i])
      rt_tensor_unref(grads[i]);
    rt_value_unref(in[i]);
  }
  rt_value_unref(outs[0]);
  g_free(outs);
  exec_session_free(session);
  ir_graph_free(g);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/exec/memory-plan/chain-reuses-buffers", test_chain_reuses_buffers);
  g_test_add_func("/exec/memory-plan/executor-plans", test_executor_plans);
  g_test_add_func("/exec/memory-plan/lstm-plans-sized", test_lstm_plans_sized);
  return g_test_run();
}
