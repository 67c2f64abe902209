/* pass_eliminate_common_subexpression: a node equal to an earlier one that dominates it (same
 * kind, schema, inputs, attributes and output types) is replaced by it; blocks are scoped. */
#include "ir/ops.h"
#include "passes/pass_util.h"
#include "passes/passes.h"

/* Algorithm: PyTorch's common_subexpression_elimination.cpp. Walk each block in order with a
 * hash set of the nodes seen so far; a nested block starts a child scope whose lookups fall
 * back to the parent scopes (an outer node dominates every node inside a later node's
 * blocks). Nodes with blocks, with side effects, random ones (ir_node_is_nondeterministic:
 * two rand_like(x) differ), with subgraph attributes, the sentinels and
 * zero-output nodes are never merged, nor, in a graph that mutates lists, nodes with a list
 * input or output (the list may change between them: pu_node_touches_list). prim::Constant nodes compare by value and type, so an
 * int 1 and a bool true (both stored as int 1) stay apart. */

typedef struct Scope Scope;
struct Scope {
  GHashTable *seen; /* IrNode* set, hashed by node_hash / node_equal */
  const Scope *parent;
  bool lists_mutate; /* pu_graph_mutates_lists of the graph */
};

static guint node_hash(gconstpointer p) {
  const IrNode *n = p;
  guint h = (guint)n->kind * 1000003u;
  h ^= GPOINTER_TO_UINT(n->schema) * 31u;
  for (guint i = 0; i < ir_n_inputs(n); i++)
    h = h * 31u + (guint)ir_input(n, i)->id;
  for (guint i = 0; i < ir_n_outputs(n); i++)
    h = h * 17u + g_direct_hash(ir_output(n, i)->type);
  return h ^ pu_attrs_hash(n);
}

static gboolean node_equal(gconstpointer pa, gconstpointer pb) {
  const IrNode *a = pa, *b = pb;
  if (a->kind != b->kind || a->schema != b->schema || ir_n_inputs(a) != ir_n_inputs(b) ||
      ir_n_outputs(a) != ir_n_outputs(b))
    return FALSE;
  for (guint i = 0; i < ir_n_inputs(a); i++) {
    if (ir_input(a, i) != ir_input(b, i))
      return FALSE;
  }
  /* Types are interned: pointer equality is type equality. */
  for (guint i = 0; i < ir_n_outputs(a); i++) {
    if (ir_output(a, i)->type != ir_output(b, i)->type)
      return FALSE;
  }
  return pu_attrs_equal(a, b);
}

static bool has_subgraph_attr(const IrNode *node) {
  for (guint i = 0; i < ir_n_attrs(node); i++) {
    IrAttrKind k = ir_attr_at(node, i)->kind;
    if (k == IR_ATTR_G || k == IR_ATTR_GS)
      return true;
  }
  return false;
}

static bool candidate(const IrNode *node, bool lists_mutate) {
  return ir_n_blocks(node) == 0 && ir_n_outputs(node) > 0 && !pu_node_has_side_effects(node) &&
         !ir_node_is_nondeterministic(node) && !has_subgraph_attr(node) &&
         !(lists_mutate && pu_node_touches_list(node));
}

static IrNode *lookup(const Scope *scope, IrNode *node) {
  for (; scope; scope = scope->parent) {
    IrNode *found = g_hash_table_lookup(scope->seen, node);
    if (found)
      return found;
  }
  return NULL;
}

static bool cse_block(IrBlock *block, const Scope *parent, bool lists_mutate) {
  Scope scope = {g_hash_table_new(node_hash, node_equal), parent, lists_mutate};
  bool changed = false;
  IR_FOR_EACH_NODE(n, block) {
    for (guint b = 0; b < ir_n_blocks(n); b++)
      changed |= cse_block(ir_block(n, b), &scope, lists_mutate);
    if (!candidate(n, lists_mutate))
      continue;
    IrNode *existing = lookup(&scope, n);
    if (!existing) {
      g_hash_table_add(scope.seen, n);
      continue;
    }
    ir_node_replace_all_uses_with(n, existing);
    ir_node_destroy(n);
    changed = true;
  }
  g_hash_table_destroy(scope.seen);
  return changed;
}

bool pass_eliminate_common_subexpression(IrGraph *graph) {
  return cse_block(graph->block, NULL, pu_graph_mutates_lists(graph));
}
