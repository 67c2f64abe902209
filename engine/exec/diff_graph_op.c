/* DifferentiableGraph at run time (reference section 4): f runs on detached inputs; the
 * Gradient's run is linked into the autograd graph by exec_gradient_link, whose backward runs
 * df through the group's own backward executor; temporaries are dropped. */
#include "exec/diff_graph_op.h"

#include "exec/gradient_node.h"
#include "runtime/code.h"

static bool run_df_through_executor(void *ctx, RtValue *stack, guint n, RtValue **results,
                                    guint *n_results, GError **error) {
  ExecDiffState *state = ctx;
  return exec_executor_run(state->backward, stack, n, results, n_results, error);
}

bool exec_diff_graph_run(ExecPlan *plan, ExecDiffState *state, const IrNode *node, RtValue *inputs,
                         guint n_inputs, RtValue *outputs, guint n_outputs, GError **error) {
  const AdGradient *gradient = state->gradient;
  IrGraph *f = ir_node_attr_g(node, IR_ATTR_SUBGRAPH);
  if (!state->f_code && !(state->f_code = rt_code_compile(f, error)))
    return false;
  RtValue *f_inputs = g_new(RtValue, n_inputs);
  for (guint i = 0; i < n_inputs; i++)
    f_inputs[i] = exec_detached(inputs[i]);
  RtInterpreterHooks hooks = {.run_special = exec_plan_run_special, .ctx = plan};
  guint n_results = rt_code_n_outputs(state->f_code);
  RtValue *results = g_new0(RtValue, n_results);
  bool ok = rt_code_run(state->f_code, &hooks, f_inputs, n_inputs, results, error);
  if (ok) {
    g_assert(n_outputs == gradient->f_real_outputs && n_results >= n_outputs);
    for (guint i = 0; i < n_outputs; i++)
      outputs[i] = rt_value_ref(results[i]);
    ExecGradientLink link = {
        .gradient = gradient,
        .name = state->name,
        .inputs = inputs,
        .f_inputs = f_inputs,
        .f_outputs = results,
        .run_df = run_df_through_executor,
        .run_df_ctx = state,
    };
    exec_gradient_link(&link, outputs, n_outputs);
    for (guint i = 0; i < n_results; i++)
      rt_value_unref(results[i]);
  }
  g_free(results);
  for (guint i = 0; i < n_inputs; i++)
    rt_value_unref(f_inputs[i]);
  g_free(f_inputs);
  return ok;
}
