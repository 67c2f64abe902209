/* pass_constant_pooling: one prim::Constant per (value, type), every constant hoisted into
 * the top block, each moved to the front of the graph as it is first met (PyTorch's order). */
#include "passes/pass_util.h"
#include "passes/passes.h"

/* Algorithm: PyTorch's constant_pooling.cpp. Walk the graph in order (into nested blocks);
 * a constant equal to one already kept (same type, same value attribute) has its uses
 * redirected and is destroyed; any other constant is moved before the graph's current first
 * node. Constants therefore end up at the top in reverse order of first appearance, as
 * PyTorch prints them; consequently a second run reverses that order again and reports a
 * change, exactly like the reference (the executor runs the pass twice in one pipeline). */

static guint constant_hash(gconstpointer p) {
  const IrNode *n = p;
  return g_direct_hash(ir_output(n, 0)->type) ^ pu_attrs_hash(n);
}

static gboolean constant_equal(gconstpointer pa, gconstpointer pb) {
  const IrNode *a = pa, *b = pb;
  return ir_output(a, 0)->type == ir_output(b, 0)->type && pu_attrs_equal(a, b);
}

static bool pool_block(IrGraph *graph, IrBlock *block, GHashTable *kept) {
  bool changed = false;
  IR_FOR_EACH_NODE(n, block) {
    if (ir_n_blocks(n) > 0) {
      for (guint b = 0; b < ir_n_blocks(n); b++)
        changed |= pool_block(graph, ir_block(n, b), kept);
      continue;
    }
    if (n->kind != IR_PRIM_CONSTANT)
      continue;
    PASS_INVARIANT(ir_n_outputs(n) == 1, "pass_constant_pooling",
                   "a prim::Constant has exactly one output");
    IrNode *existing = g_hash_table_lookup(kept, n);
    if (existing) {
      ir_node_replace_all_uses_with(n, existing);
      ir_node_destroy(n);
      changed = true;
      continue;
    }
    g_hash_table_add(kept, n);
    IrNode *first = graph->block->param->next;
    if (n != first) {
      ir_node_move_before(n, first);
      changed = true;
    }
  }
  return changed;
}

bool pass_constant_pooling(IrGraph *graph) {
  GHashTable *kept = g_hash_table_new(constant_hash, constant_equal);
  bool changed = pool_block(graph, graph->block, kept);
  g_hash_table_destroy(kept);
  return changed;
}
