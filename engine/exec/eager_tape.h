/* The eager autograd tape: schema ops that run outside DifferentiableGraphs record grad
 * nodes whose backward is the same gradient formula symbolic autodiff uses (the node is
 * differentiated on its own, once per plan node and pattern of tracked inputs). */
#ifndef JITSCOPE_EXEC_EAGER_TAPE_H
#define JITSCOPE_EXEC_EAGER_TAPE_H

#include "exec/executor.h"

/* RtInterpreterHooks.after_node for forward runs with grad mode on (ctx = ExecPlan*). */
bool exec_eager_tape_record(void *ctx, const IrNode *node, RtValue *inputs, guint n_inputs,
                            RtValue *outputs, guint n_outputs, GError **error);

#endif
