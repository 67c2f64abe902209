/* Runs any graph: schema ops through the op table's kernels; prim ops (If, Loop, lists,
 * tuples, constants, chunks, AutogradAdd/Zero, ...) here. Inputs are borrowed; outputs are
 * new references. Errors (shape mismatches, RaiseException) come back as GError naming the
 * node, with its source location when it has one. */
#ifndef JITSCOPE_RUNTIME_INTERPRETER_H
#define JITSCOPE_RUNTIME_INTERPRETER_H

#include "ir/ir.h"
#include "runtime/value.h"

/* Hook for nodes the interpreter does not run itself (DifferentiableGraph, FusionGroup):
 * the executor installs one. Return false with *error set on failure. */
typedef struct RtInterpreterHooks {
  bool (*run_special)(void *ctx, const IrNode *node, RtValue *inputs, guint n_inputs,
                      RtValue *outputs, guint n_outputs, GError **error);
  /* Called after every schema node ran (and prim::ConstantChunk, the one differentiable prim
   * op; other prim nodes not), when set: the executor records the
   * eager autograd tape here for ops outside DifferentiableGraphs. Inputs and outputs are
   * borrowed, except that the hook may replace outputs[i] by another value (it then owns the
   * old reference and gives the array a new one). Returning false aborts the run with *error. */
  bool (*after_node)(void *ctx, const IrNode *node, RtValue *inputs, guint n_inputs,
                     RtValue *outputs, guint n_outputs, GError **error);
  void *ctx;
} RtInterpreterHooks;

bool rt_interpret(const IrGraph *graph, const RtInterpreterHooks *hooks, RtValue *inputs,
                  guint n_inputs, RtValue **outputs, guint *n_outputs, GError **error);
/* Runs one block with the given block inputs; used for If/Loop bodies and by the fuser's
 * fallback. */
bool rt_interpret_block(const IrBlock *block, const RtInterpreterHooks *hooks, RtValue *inputs,
                        guint n_inputs, RtValue *outputs, GError **error);

#endif
