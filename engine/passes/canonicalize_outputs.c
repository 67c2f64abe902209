/* pass_canonicalize_outputs: orders the outputs of every prim::If, and the carried values
 * of every prim::Loop, by where each is first used.
 *
 * Requires: nothing beyond a valid graph.
 * Guarantees: the graph computes the same values; an If's outputs (with its blocks' outputs)
 * and a Loop's carried values (its inputs after the first two, its outputs, its body's inputs
 * after the counter and outputs after the condition) are permuted together so that output i
 * is first used no later than output i + 1; unused outputs keep their order, after the used
 * ones. The result does not depend on the order in which a frontend added those outputs.
 *
 * Algorithm: PyTorch 1.13's CanonicalizeOutputs (canonicalize.cpp), which its compiler runs
 * after emitting: nodes visited last to first, a node's outputs before its blocks; the first
 * use of a value is found scanning its uses in order, in PyTorch's canonical node order
 * (node_before); the sort is stable (PyTorch's std::sort of so few elements is an insertion
 * sort). */
#include "passes/pass_util.h"
#include "passes/passes.h"

static guint depth(const IrNode *n) {
  guint d = 0;
  for (const IrBlock *b = n->owning_block; b->owning_node; b = b->owning_node->owning_block)
    d++;
  return d;
}

static guint block_index(const IrBlock *block) {
  const IrNode *owner = block->owning_node;
  guint i = 0;
  while (ir_block(owner, i) != block)
    i++;
  return i;
}

/* PyTorch's canonical order of two different nodes (not topological): a node before the
 * nodes it contains; in one block by position; in different blocks of one node, the earlier
 * block's first. */
static bool node_before(const IrNode *a, const IrNode *b) {
  guint da = depth(a), db = depth(b);
  for (; da > db; da--) {
    a = a->owning_block->owning_node;
    if (a == b)
      return false;
  }
  for (; db > da; db--) {
    b = b->owning_block->owning_node;
    if (b == a)
      return true;
  }
  for (;;) {
    if (a->owning_block == b->owning_block)
      return ir_node_is_before(a, b);
    const IrNode *pa = a->owning_block->owning_node, *pb = b->owning_block->owning_node;
    if (pa == pb)
      return block_index(a->owning_block) < block_index(b->owning_block);
    a = pa;
    b = pb;
  }
}

/* Whether use a comes before use b: the same user by input position, else by the users. */
static bool use_before(const IrUse *a, const IrUse *b) {
  if (a->user == b->user)
    return a->index < b->index;
  return node_before(a->user, b->user);
}

static const IrUse *first_use(const IrValue *v) {
  if (v->uses->len == 0)
    return NULL;
  const IrUse *first = &g_array_index(v->uses, IrUse, 0);
  for (guint i = 1; i < v->uses->len; i++) {
    const IrUse *u = &g_array_index(v->uses, IrUse, i);
    if (!use_before(first, u))
      first = u;
  }
  return first;
}

typedef struct {
  guint index;
  const IrUse *first;
} OutputOrder;

static gint compare_first_uses(gconstpointer pa, gconstpointer pb) {
  const OutputOrder *a = pa, *b = pb;
  if (a->first == NULL || b->first == NULL)
    return (a->first == NULL) - (b->first == NULL);
  if (use_before(a->first, b->first))
    return -1;
  if (use_before(b->first, a->first))
    return 1;
  return 0;
}

/* The permutation that sorts the node's outputs, or NULL when they are in order. */
static guint *sorted_order(const IrNode *node) {
  guint n = ir_n_outputs(node);
  g_autoptr(GArray) entries = g_array_sized_new(FALSE, FALSE, sizeof(OutputOrder), n);
  for (guint i = 0; i < n; i++) {
    OutputOrder e = {i, first_use(ir_output(node, i))};
    g_array_append_val(entries, e);
  }
  g_array_sort(entries, compare_first_uses); /* stable (GLib >= 2.32) */
  guint *order = g_new(guint, n);
  bool moved = false;
  for (guint i = 0; i < n; i++) {
    order[i] = g_array_index(entries, OutputOrder, i).index;
    moved |= order[i] != i;
  }
  if (!moved)
    g_clear_pointer(&order, g_free);
  return order;
}

/* Inputs from..from+n of `node` permuted by order. */
static void permute_inputs(IrNode *node, guint from, const guint *order, guint n) {
  g_autofree IrValue **old = g_new(IrValue *, n);
  for (guint i = 0; i < n; i++)
    old[i] = ir_input(node, from + i);
  for (guint i = 0; i < n; i++)
    ir_node_replace_input(node, from + i, old[order[i]]);
}

static bool canonicalize_node(IrNode *node) {
  if (node->kind != IR_PRIM_IF && node->kind != IR_PRIM_LOOP)
    return false;
  g_autofree guint *order = sorted_order(node);
  if (order == NULL)
    return false;
  guint n = ir_n_outputs(node);
  if (node->kind == IR_PRIM_IF) {
    for (guint b = 0; b < ir_n_blocks(node); b++)
      permute_inputs(ir_block(node, b)->ret, 0, order, n);
  } else {
    IrBlock *body = ir_block(node, 0);
    permute_inputs(node, 2, order, n);
    permute_inputs(body->ret, 1, order, n);
    /* the body's inputs after its counter */
    g_autofree guint *shifted = g_new(guint, n + 1);
    shifted[0] = 0;
    for (guint i = 0; i < n; i++)
      shifted[i + 1] = order[i] + 1;
    ir_node_permute_outputs(body->param, shifted);
  }
  ir_node_permute_outputs(node, order);
  return true;
}

static bool canonicalize_block(IrBlock *block) {
  bool changed = false;
  IR_FOR_EACH_NODE_REVERSE(n, block) {
    changed |= canonicalize_node(n);
    for (guint b = 0; b < ir_n_blocks(n); b++)
      changed |= canonicalize_block(ir_block(n, b));
  }
  return changed;
}

bool pass_canonicalize_outputs(IrGraph *graph) {
  return canonicalize_block(graph->block);
}
