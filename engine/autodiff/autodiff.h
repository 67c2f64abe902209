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
void ad_gradient_free(AdGradient *gradient);

bool pass_specialize_autograd_zero(IrGraph *graph);
bool pass_lower_grad_of(IrGraph *graph);
bool pass_create_autodiff_subgraphs(IrGraph *graph, guint threshold);
bool pass_inline_autodiff_subgraphs(IrGraph *graph, guint threshold);

#endif
