/* Linking one run of a Gradient's f into the eager autograd graph (reference section 4): what
 * the DifferentiableGraph operator does after running f. How df runs is the caller's
 * (ExecRunDf: the group's own backward executor). */
#ifndef JITSCOPE_EXEC_GRADIENT_NODE_H
#define JITSCOPE_EXEC_GRADIENT_NODE_H

#include "autodiff/autodiff.h"
#include "runtime/value.h"

/* Runs df on `stack` (incoming gradients, then saved values; borrowed); results are new
 * references, either one per df output or a single tuple of them. */
typedef bool (*ExecRunDf)(void *ctx, RtValue *stack, guint n, RtValue **results, guint *n_results,
                          GError **error);

typedef struct {
  const AdGradient *gradient;
  const char *name;         /* the grad node's name: "DifferentiableGraph_0" */
  const RtValue *inputs;    /* f's inputs as the caller got them, with autograd history */
  const RtValue *f_inputs;  /* the same values as f ran on them (detached) */
  const RtValue *f_outputs; /* every f output: the real ones, then the temporaries */
  ExecRunDf run_df;
  void *run_df_ctx; /* must outlive the grad node (plans own it) */
} ExecGradientLink;

/* When an input df differentiates for (df_output_vjps) is tracked by autograd: makes the grad
 * node, saves the captured inputs and outputs (detached), and attaches the real outputs that
 * df_input_vjps lists (floating point only), replacing each such outputs[i] by a fresh alias
 * (a kernel may have returned one of its inputs as is). `outputs` are the caller's real
 * outputs (new references it owns). Otherwise does nothing. */
void exec_gradient_link(const ExecGradientLink *link, RtValue *outputs, guint n_outputs);

/* A tensor as a new alias without autograd history; other values referenced as they are. */
RtValue exec_detached(RtValue v);

#endif
