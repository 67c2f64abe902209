/* Symbolic autodiff (reference sections 3, 4, 6). */
#ifndef JITSCOPE_AUTODIFF_AUTODIFF_H
#define JITSCOPE_AUTODIFF_AUTODIFF_H

#include "ir/ir.h"

/* The result of differentiate (reference section 3). Index lists are GArrays of guint. */
typedef struct {
  IrGraph *f;
  IrGraph *df;
  guint f_real_outputs;
  GArray *df_input_vjps;             /* f outputs whose gradient is a df input */
  GArray *df_input_captured_inputs;  /* f inputs saved for df */
  GArray *df_input_captured_outputs; /* f outputs saved for df */
  GArray *df_output_vjps;            /* f input whose gradient each df output is */
} AdGradient;

/* Does the op have a gradient formula (and no blocks)? */
bool ad_is_differentiable(const IrNode *node);
/* Differentiates `graph` (every tensor input's requires_grad known from its type). Takes
 * ownership of graph: it becomes (or is replaced by) gradient->f. df keeps its GradOf blocks,
 * AutogradAdd and AutogradZero: the backward executor specializes and lowers them. */
AdGradient *ad_differentiate(IrGraph *graph);

/* A gradient formula given as graphs (symbolic_script, reference section 6): `forward` takes
 * the node's inputs and returns the node's outputs followed by the values backward needs;
 * `backward` takes one gradient per node output followed by those values and returns one
 * gradient per node input, a None where the input gets none. */
typedef struct {
  const IrGraph *forward;
  const IrGraph *backward;
} AdGraphFormula;
typedef const AdGraphFormula *(*AdFormulaLookup)(const IrNode *node, gpointer data);
/* ad_differentiate with `lookup`'s formula for every node it has one for, the C formulas for
 * the others. A graph formula's forward is inlined after the node and takes over its uses;
 * its backward is inlined into the node's GradOf block (its nodes keep the formula file's
 * source comments, so a stage shows which formula made them). */
AdGradient *ad_differentiate_with(IrGraph *graph, AdFormulaLookup lookup, gpointer data);
void ad_gradient_free(AdGradient *gradient);

/* Inserts, at graph's insertion point, a prim::GradOf named after node's kind taking the n
 * gradients `grads`, with its (empty) block; returns it. */
IrNode *ad_insert_grad_of(IrGraph *graph, const IrNode *node, IrValue *const *grads, guint n);
/* Inserts the list of n gradients, a piece known to have none (prim::AutogradZero) as
 * zeros_like of its forward value in `pieces`: the Tensor[] gradient of a list of n pieces. */
IrValue *ad_insert_gradient_list(IrGraph *graph, IrValue *const *grads, IrValue *const *pieces,
                                 guint n);

bool pass_specialize_autograd_zero(IrGraph *graph);
bool pass_lower_grad_of(IrGraph *graph);
bool pass_create_autodiff_subgraphs(IrGraph *graph, guint threshold);
bool pass_inline_autodiff_subgraphs(IrGraph *graph, guint threshold);
bool pass_inline_given_subgraphs(IrGraph *graph);

#endif
