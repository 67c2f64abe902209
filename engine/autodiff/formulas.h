/* Gradient formulas (reference sections 3 and 6), written once as functions that build IR, so
 * that symbolic autodiff (differentiate.c) and the eager autograd tape use the same ones.
 *
 * A formula has two parts:
 * - a forward part, inserted right after the forward node, computing what backward needs
 *   beyond the node's inputs and outputs: for broadcasting ops `%s = aten::size(input)`,
 *   `%r = aten::size(result)`, `%k : int[]? = aten::_size_if_not_equal(%s, %r)` per tensor
 *   input (PyTorch 1.13's AD_sizes_if_not_equal_multi), for view-like ops the input's size;
 * - a backward part that, given one gradient per forward output (possibly AutogradZero),
 *   emits the nodes computing one gradient per forward input (NULL where there is none),
 *   using the optional `aten::_grad_sum_to_size(g, %k)` for broadcasting inputs.
 * The node shapes follow PyTorch 1.13's symbolic_script (e.g. tanh: g * (1 - r * r) emitted
 * as mul / neg / add; sigmoid: (1 - r) * r * g). */
#ifndef JITSCOPE_AUTODIFF_FORMULAS_H
#define JITSCOPE_AUTODIFF_FORMULAS_H

#include "ir/ir.h"

/* Is there a gradient formula for this node (its kind, overload and, where the formula
 * needs them, constant arguments or known ranks)? Nodes with blocks never have one. */
bool ad_formula_exists(const IrNode *node);

/* Forward part. Inserts at `graph`'s insertion point (differentiate puts it right after
 * `node`) the values the backward part needs and appends them, in order, to `saved` (a
 * GPtrArray of IrValue*). `inputs` / `outputs` stand for node's inputs and outputs in
 * `graph` (node's own values when node lives in graph). Aborts when no formula exists. */
void ad_formula_forward(IrGraph *graph, const IrNode *node, IrValue *const *inputs,
                        IrValue *const *outputs, GPtrArray *saved);

/* Backward part. Inserts at `graph`'s insertion point the nodes computing the gradients of
 * node's inputs. `inputs` / `outputs` / `saved` stand for node's inputs, outputs and the
 * values ad_formula_forward appended (all usable from the insertion point); `grads` holds
 * one gradient per output of node. Writes one value per input of node into `grad_inputs`,
 * NULL where the input gets no gradient. Aborts when no formula exists. */
void ad_formula_backward(IrGraph *graph, const IrNode *node, IrValue *const *inputs,
                         IrValue *const *outputs, IrValue *const *saved, IrValue *const *grads,
                         IrValue **grad_inputs);

/* For the eager tape: a standalone graph computing node's input gradients.
 * Inputs: every input of `node` that is not produced by a prim::Constant (in order; the
 * constants are copied in), then node's outputs, then one gradient per output of node.
 * Outputs: one per input of node, `prim::AutogradZero` where there is none. The formula sits
 * in a lowered GradOf (AutogradAnyNonZero + prim::If), so undefined incoming gradients
 * (all of them undefined) give undefined results. Where PyTorch's eager autograd formula
 * differs from its DifferentiableGraph one (relu and threshold at NaN), the eager one. Aborts
 * when no formula exists. */
IrGraph *ad_formula_backward_graph(const IrNode *node);

/* For DERIV rows (formulas_deriv.c): inserts at `graph`'s insertion point the IR computing the
 * derivative of node's result with respect to its k-th Tensor argument, from the row's
 * DERIV text; `inputs` / `result` stand for node's inputs and result. */
IrValue *ad_deriv_value(IrGraph *graph, const IrNode *node, guint k, IrValue *const *inputs,
                        IrValue *result);

/* aten::dropout with a constant true train: its gradient needs the mask it drew, which only
 * aten::native_dropout returns. differentiate replaces such a node by native_dropout before
 * differentiating it (as PyTorch 1.13's symbolic_script does: same inputs, the result is
 * output 0); the eager tape, which runs the node as it is, has no gradient for it. */
bool ad_dropout_needs_native(const IrNode *node);
/* Is the dropout's train a constant? With one known only at run time, dropout stays out of
 * DifferentiableGraphs; its formula is the identity, which the eager tape uses only for a
 * run whose train is false (or p 0). */
bool ad_dropout_train_is_constant(const IrNode *node);
/* conv1d/conv2d .padding: the padding string is a constant 'valid' or 'same' (with constant
 * dilations): the gradient formula needs to know which; otherwise there is none. */
bool ad_conv_padding_known(const IrNode *node);
/* The replacement: a native_dropout inserted before node, node's uses moved to its output 0,
 * node destroyed. Returns the new node. */
IrNode *ad_dropout_to_native(IrNode *node);

#endif
