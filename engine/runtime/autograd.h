/* The eager autograd graph: grad nodes linked from tensors (RtTensor.grad_fn), and the
 * backward engine that runs them in reverse topological order.
 *
 * Contracts:
 * - A tensor holds a reference to its grad_fn; a grad node holds references to the nodes its
 *   edges point at, so the graph lives as long as some output tensor does.
 * - Saved tensors must not point back at the node that saves them: save outputs through
 *   rt_autograd_detach (a view without grad_fn), or the graph leaks through a cycle.
 * - An undefined gradient is a NULL tensor all the way through; apply functions receive
 *   NULL for outputs that got no gradient and may return NULL for inputs.
 * - A gradient has its input's dtype: the engine casts each one to the dtype its edge
 *   recorded before accumulating it (PyTorch's validate_outputs), at every node, so a float64
 *   intermediate that float32 tensors read sums its gradients in float64. CPU tensors only:
 *   a CUDA gradient keeps the dtype its formula gave. */
#ifndef JITSCOPE_RUNTIME_AUTOGRAD_H
#define JITSCOPE_RUNTIME_AUTOGRAD_H

#include "tensor/tensor.h"

typedef struct RtGradNode RtGradNode;

typedef struct {
  RtGradNode *fn; /* the node producing this input's gradient, or NULL */
  guint index;    /* which of fn's forward outputs */
  RtTensor *leaf; /* a leaf tensor that accumulates the gradient (fn == NULL), or NULL */
  IrDtype dtype;  /* the input's dtype: its gradient is cast to it before it is delivered */
} RtGradEdge;

/* Computes gradients of the forward inputs (n_inputs, new references or NULL) from the
 * gradients of the forward outputs (n_outputs, borrowed, NULL = undefined). */
typedef bool (*RtGradApplyFn)(RtGradNode *node, RtTensor **grad_outputs, RtTensor **grad_inputs,
                              GError **error);

struct RtGradNode {
  gint refcount;
  char *name; /* "aten::mul", "DifferentiableGraph_0" */
  guint n_outputs;
  guint n_inputs;
  RtGradEdge *edges; /* n_inputs */
  RtGradApplyFn apply;
  void *ctx;
  void (*ctx_free)(void *ctx);
};

RtGradNode *rt_grad_node_new(const char *name, guint n_outputs, guint n_inputs, RtGradApplyFn apply,
                             void *ctx, void (*ctx_free)(void *));
void rt_grad_node_unref(RtGradNode *node);
/* Points edge i at the autograd history of `input`: its grad_fn, or itself as a leaf when it
 * requires grad, or nothing. */
void rt_grad_node_set_edge(RtGradNode *node, guint i, RtTensor *input);
/* Makes `output` the index-th output of node (takes a reference to node) and marks it as
 * requiring grad. */
void rt_autograd_attach(RtTensor *output, RtGradNode *node, guint index);
/* A new tensor sharing t's storage and layout with no autograd history. */
RtTensor *rt_autograd_detach(RtTensor *t);
/* Does this tensor take part in autograd (requires grad, leaf or not)? */
bool rt_autograd_tracked(const RtTensor *t);

/* Runs backward from roots[i] with seeds[i] (borrowed; NULL means ones of the root's shape)
 * and returns, for each of the n_leaves `leaves`, its accumulated gradient (new reference,
 * NULL when none reached it). */
bool rt_autograd_backward(RtTensor **roots, RtTensor **seeds, guint n_roots, RtTensor **leaves,
                          guint n_leaves, RtTensor **leaf_grads, GError **error);

#endif
