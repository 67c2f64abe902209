/* The eager autograd graph and its backward engine: dependency counting from the roots, then
 * Kahn's algorithm in reverse topological order, summing gradients that meet (PyTorch's
 * engine, single-threaded). */
#include "runtime/autograd.h"

#include "runtime/device.h"
#include "runtime/kernels.h"

RtGradNode *rt_grad_node_new(const char *name, guint n_outputs, guint n_inputs, RtGradApplyFn apply,
                             void *ctx, void (*ctx_free)(void *)) {
  RtGradNode *node = g_new0(RtGradNode, 1);
  node->refcount = 1;
  node->name = g_strdup(name);
  node->n_outputs = n_outputs;
  node->n_inputs = n_inputs;
  node->edges = g_new0(RtGradEdge, n_inputs);
  node->apply = apply;
  node->ctx = ctx;
  node->ctx_free = ctx_free;
  return node;
}

static RtGradNode *rt_grad_node_ref(RtGradNode *node) {
  g_atomic_int_inc(&node->refcount);
  return node;
}

void rt_grad_node_unref(RtGradNode *node) {
  if (!node || !g_atomic_int_dec_and_test(&node->refcount))
    return;
  for (guint i = 0; i < node->n_inputs; i++) {
    if (node->edges[i].fn)
      rt_grad_node_unref(node->edges[i].fn);
    if (node->edges[i].leaf)
      rt_tensor_unref(node->edges[i].leaf);
  }
  if (node->ctx_free)
    node->ctx_free(node->ctx);
  g_free(node->edges);
  g_free(node->name);
  g_free(node);
}

bool rt_autograd_tracked(const RtTensor *t) {
  return t && (t->requires_grad || t->grad_fn);
}

void rt_grad_node_set_edge(RtGradNode *node, guint i, RtTensor *input) {
  g_assert(i < node->n_inputs);
  RtGradEdge *edge = &node->edges[i];
  g_assert(!edge->fn && !edge->leaf);
  if (!input)
    return;
  edge->dtype = input->dtype;
  if (input->grad_fn) {
    edge->fn = rt_grad_node_ref(input->grad_fn);
    edge->index = input->grad_output_index;
  } else if (input->requires_grad) {
    edge->leaf = rt_tensor_ref(input);
  }
}

static gpointer install_release_hook(gpointer unused) {
  rt_tensor_set_grad_fn_release(rt_grad_node_unref);
  return NULL;
}

void rt_autograd_attach(RtTensor *output, RtGradNode *node, guint index) {
  static GOnce once = G_ONCE_INIT;
  g_once(&once, install_release_hook, NULL);
  g_assert(index < node->n_outputs);
  if (output->grad_fn)
    rt_grad_node_unref(output->grad_fn);
  output->grad_fn = rt_grad_node_ref(node);
  output->grad_output_index = index;
  output->requires_grad = true;
}

RtTensor *rt_autograd_detach(RtTensor *t) {
  /* An alias of the same storage, sizes and strides (any rank, 0-dim included); a new
   * tensor has no grad_fn and does not require grad. */
  return rt_tensor_new_strided(t->storage, t->dtype, t->ndim, t->sizes, t->strides, t->offset);
}

/* a + b for two gradients of one value (same shape by construction, but broadcasting is
 * accepted). */
static RtTensor *grad_sum(RtTensor *a, RtTensor *b, GError **error) {
  guint n = 0;
  const IrSchema *const *overloads = ir_ops_overloads(IR_ATEN_ADD, &n);
  const IrSchema *add = NULL;
  for (guint i = 0; i < n && !add; i++)
    if (g_str_equal(overloads[i]->overload, "Tensor"))
      add = overloads[i];
  g_assert(add && "aten::add.Tensor is in the op table");
  RtValue args[3] = {rt_tensor(a), rt_tensor(b), rt_int(1)};
  RtValue out = rt_none();
  if (!rt_kernel_call(rt_op_kernel(add), add, NULL, args, 3, &out, 1, error))
    return NULL;
  return out.u.tensor;
}

/* The gradient in its input's dtype (takes the reference of g). */
static RtTensor *as_input_dtype(RtTensor *g, const RtGradEdge *edge) {
  if (!g || g->dtype == edge->dtype || g->storage->device != IR_DEVICE_CPU)
    return g;
  RtTensor *cast = rt_tensor_to_dtype(g, edge->dtype);
  rt_tensor_unref(g);
  return cast;
}

typedef struct {
  guint pending; /* edges still to deliver into this node */
  guint n_outputs;
  RtTensor **buffer; /* n_outputs accumulated incoming gradients */
} NodeState;

static void state_free(gpointer p) {
  NodeState *s = p;
  for (guint o = 0; o < s->n_outputs; o++)
    if (s->buffer[o])
      rt_tensor_unref(s->buffer[o]);
  g_free(s->buffer);
  g_free(s);
}

static NodeState *state_for(GHashTable *states, RtGradNode *node) {
  NodeState *s = g_hash_table_lookup(states, node);
  if (!s) {
    s = g_new0(NodeState, 1);
    s->n_outputs = node->n_outputs;
    s->buffer = g_new0(RtTensor *, node->n_outputs);
    g_hash_table_insert(states, node, s);
  }
  return s;
}

/* Accumulates *slot += grad (takes the reference of grad). */
static bool accumulate(RtTensor **slot, RtTensor *grad, GError **error) {
  if (!grad)
    return true;
  if (!*slot) {
    *slot = grad;
    return true;
  }
  RtTensor *sum = grad_sum(*slot, grad, error);
  rt_tensor_unref(grad);
  if (!sum)
    return false;
  rt_tensor_unref(*slot);
  *slot = sum;
  return true;
}

bool rt_autograd_backward(RtTensor **roots, RtTensor **seeds, guint n_roots, RtTensor **leaves,
                          guint n_leaves, RtTensor **leaf_grads, GError **error) {
  GHashTable *states = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, state_free);
  GHashTable *leaf_acc = g_hash_table_new(g_direct_hash, g_direct_equal); /* leaf -> grad */
  bool ok = true;

  /* Count, for every reachable node, how many edges lead into it. */
  GPtrArray *stack = g_ptr_array_new();
  for (guint r = 0; r < n_roots; r++)
    if (roots[r] && roots[r]->grad_fn && !g_hash_table_contains(states, roots[r]->grad_fn)) {
      state_for(states, roots[r]->grad_fn);
      g_ptr_array_add(stack, roots[r]->grad_fn);
    }
  while (stack->len) {
    RtGradNode *node = g_ptr_array_steal_index(stack, stack->len - 1);
    for (guint i = 0; i < node->n_inputs; i++) {
      RtGradNode *next = node->edges[i].fn;
      if (!next)
        continue;
      bool seen = g_hash_table_contains(states, next);
      state_for(states, next)->pending++;
      if (!seen)
        g_ptr_array_add(stack, next);
    }
  }

  /* Seed the roots. */
  for (guint r = 0; r < n_roots && ok; r++) {
    RtTensor *root = roots[r];
    if (!rt_autograd_tracked(root))
      continue;
    RtTensor *seed = seeds && seeds[r] ? rt_tensor_ref(seeds[r])
                                       : rt_tensor_full_like_device(root, root->dtype, root->ndim,
                                                                    root->sizes, 1.0, error);
    if (seed == NULL) {
      ok = false;
      break;
    }
    if (root->grad_fn)
      ok = accumulate(&state_for(states, root->grad_fn)->buffer[root->grad_output_index], seed,
                      error);
    else {
      RtTensor *slot = g_hash_table_lookup(leaf_acc, root);
      ok = accumulate(&slot, seed, error);
      g_hash_table_insert(leaf_acc, root, slot);
    }
  }

  /* Ready queue: reachable nodes with no pending edges. */
  GHashTableIter it;
  gpointer key, value;
  g_hash_table_iter_init(&it, states);
  while (g_hash_table_iter_next(&it, &key, &value))
    if (((NodeState *)value)->pending == 0)
      g_ptr_array_add(stack, key);

  while (ok && stack->len) {
    RtGradNode *node = g_ptr_array_steal_index(stack, stack->len - 1);
    NodeState *s = g_hash_table_lookup(states, node);
    RtTensor **grad_inputs = g_new0(RtTensor *, node->n_inputs);
    bool any = false;
    for (guint o = 0; o < node->n_outputs; o++)
      any |= s->buffer[o] != NULL;
    if (any)
      ok = node->apply(node, s->buffer, grad_inputs, error);
    for (guint o = 0; o < node->n_outputs; o++)
      if (s->buffer[o]) {
        rt_tensor_unref(s->buffer[o]);
        s->buffer[o] = NULL;
      }
    for (guint i = 0; i < node->n_inputs; i++) {
      RtGradEdge *edge = &node->edges[i];
      RtTensor *g = grad_inputs[i];
      grad_inputs[i] = NULL;
      if (!ok) {
        if (g)
          rt_tensor_unref(g);
        continue;
      }
      if (edge->fn || edge->leaf)
        g = as_input_dtype(g, edge);
      if (edge->fn) {
        NodeState *ns = g_hash_table_lookup(states, edge->fn);
        ok = accumulate(&ns->buffer[edge->index], g, error);
        if (--ns->pending == 0)
          g_ptr_array_add(stack, edge->fn);
      } else if (edge->leaf) {
        RtTensor *slot = g_hash_table_lookup(leaf_acc, edge->leaf);
        ok = accumulate(&slot, g, error);
        g_hash_table_insert(leaf_acc, edge->leaf, slot);
      } else if (g) {
        rt_tensor_unref(g);
      }
    }
    g_free(grad_inputs);
  }

  for (guint l = 0; l < n_leaves; l++) {
    RtTensor *g = ok && leaves[l] ? g_hash_table_lookup(leaf_acc, leaves[l]) : NULL;
    leaf_grads[l] = g ? rt_tensor_ref(g) : NULL;
  }
  g_hash_table_iter_init(&it, leaf_acc);
  while (g_hash_table_iter_next(&it, &key, &value))
    if (value)
      rt_tensor_unref(value);
  g_hash_table_destroy(leaf_acc);
  g_hash_table_destroy(states);
  g_ptr_array_free(stack, TRUE);
  return ok;
}
