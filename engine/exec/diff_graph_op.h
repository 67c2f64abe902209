/* The DifferentiableGraph operator at run time (reference section 4). */
#ifndef JITSCOPE_EXEC_DIFF_GRAPH_OP_H
#define JITSCOPE_EXEC_DIFF_GRAPH_OP_H

#include "exec/executor.h"

/* Runs f on detached inputs and, when an input that df differentiates for is tracked by
 * autograd, links the real outputs to a grad node whose backward runs df through the
 * state's backward executor. Inputs borrowed; outputs new references. */
bool exec_diff_graph_run(ExecPlan *plan, ExecDiffState *state, const IrNode *node, RtValue *inputs,
                         guint n_inputs, RtValue *outputs, guint n_outputs, GError **error);

/* The interpreter hook of a plan (ctx = ExecPlan*): DifferentiableGraph and FusionGroup. */
bool exec_plan_run_special(void *ctx, const IrNode *node, RtValue *inputs, guint n_inputs,
                           RtValue *outputs, guint n_outputs, GError **error);

#endif
