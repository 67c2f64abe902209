/* The engine's run control (runtime/run_control.h): a run cancelled from a hook after N nodes
 * stops before the next node with RT_ERROR_CANCELLED naming it, stays stopped until the flag
 * is cleared, and then runs again; the loop step budget stops a loop on the iteration past
 * it, naming the loop. */
#include <string.h>

#include "ir/text.h"
#include "runtime/interpreter.h"
#include "runtime/run_control.h"

static const char loop_ir[] = "graph(%x : Tensor):\n"
                              "  %n : int = prim::Constant[value=1000000000000]()\n"
                              "  %t : bool = prim::Constant[value=1]()\n"
                              "  %one : int = prim::Constant[value=1]()\n"
                              "  %y : Tensor = prim::Loop(%n, %t, %x) # loop.py:3:4\n"
                              "    block0(%i : int, %acc : Tensor):\n"
                              "      %next : Tensor = aten::add(%acc, %x, %one) # loop.py:4:8\n"
                              "      -> (%t, %next)\n"
                              "  return (%y)\n";

static const char add_ir[] = "graph(%x : Tensor):\n"
                             "  %one : int = prim::Constant[value=1]()\n"
                             "  %y : Tensor = aten::add(%x, %x, %one)\n"
                             "  return (%y)\n";

typedef struct {
  guint nodes_seen;
  guint cancel_after;
} CancelAfter;

static bool count_and_cancel(void *ctx, const IrNode *node, RtValue *inputs, guint n_inputs,
                             RtValue *outputs, guint n_outputs, GError **error) {
  (void)node, (void)inputs, (void)n_inputs, (void)outputs, (void)n_outputs, (void)error;
  CancelAfter *c = ctx;
  if (++c->nodes_seen == c->cancel_after)
    rt_run_cancel();
  return true;
}

static IrGraph *parse(const char *text) {
  GError *error = NULL;
  IrGraph *g = ir_graph_parse(text, strlen(text), "test.ir", &error);
  g_assert_no_error(error);
  return g;
}

/* Runs graph on one Float(2) input; returns whether it ran, with *error set otherwise. */
static bool run_once(const IrGraph *graph, const RtInterpreterHooks *hooks, GError **error) {
  RtValue input = rt_tensor(rt_tensor_full(IR_DTYPE_FLOAT32, 1, (const int64_t[]){2}, 1.0));
  RtValue *outputs = NULL;
  guint n_outputs = 0;
  bool ok = rt_interpret(graph, hooks, &input, 1, &outputs, &n_outputs, error);
  for (guint i = 0; i < n_outputs; i++)
    rt_value_unref(outputs[i]);
  g_free(outputs);
  rt_value_unref(input);
  return ok;
}

static void test_cancel_between_nodes(void) {
  IrGraph *loop = parse(loop_ir);
  CancelAfter c = {0, 5};
  RtInterpreterHooks hooks = {.after_node = count_and_cancel, .ctx = &c};
  GError *error = NULL;
  g_assert_false(run_once(loop, &hooks, &error));
  g_assert_error(error, JITSCOPE_RUNTIME_ERROR, RT_ERROR_CANCELLED);
  g_assert_cmpuint(c.nodes_seen, ==, 5); /* no node ran after the cancel */
  g_assert_nonnull(strstr(error->message, "cancelled"));
  g_clear_error(&error);

  IrGraph *add = parse(add_ir);
  g_assert_false(run_once(add, NULL, &error)); /* still cancelled */
  g_assert_error(error, JITSCOPE_RUNTIME_ERROR, RT_ERROR_CANCELLED);
  g_clear_error(&error);
  rt_run_clear_cancel();
  g_assert_true(run_once(add, NULL, &error));
  g_assert_no_error(error);
  ir_graph_free(add);
  ir_graph_free(loop);
}

static void test_loop_step_budget(void) {
  IrGraph *loop = parse(loop_ir);
  CancelAfter never = {0, 0};
  RtInterpreterHooks hooks = {.after_node = count_and_cancel, .ctx = &never};
  rt_run_set_max_steps(100);
  GError *error = NULL;
  g_assert_false(run_once(loop, &hooks, &error));
  g_assert_error(error, JITSCOPE_RUNTIME_ERROR, RT_ERROR_CANCELLED);
  g_assert_nonnull(strstr(error->message, "loop.py:3:4: prim::Loop"));
  g_assert_nonnull(strstr(error->message, "--max-steps"));
  g_assert_cmpuint(never.nodes_seen, ==, 100); /* one add per iteration, exactly 100 ran */
  g_clear_error(&error);
  rt_run_set_max_steps(0);
  g_assert_cmpuint(rt_run_max_steps(), ==, RT_RUN_DEFAULT_MAX_STEPS);
  ir_graph_free(loop);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/run-control/cancel-between-nodes", test_cancel_between_nodes);
  g_test_add_func("/run-control/loop-step-budget", test_loop_step_budget);
  return g_test_run();
}
