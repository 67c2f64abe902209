/* Placement of nodes in blocks and O(1) topological order (the reference's scheme: sentinels
 * at INT64_MIN/INT64_MAX, appends 2^40 after their predecessor, inserts at the midpoint of
 * their neighbours, and the whole block re-indexed when no integer is left between them). */
#include "ir/ir-internal.h"

static void reindex_block(IrBlock *block) {
  gint64 pos = IR_TOPO_LOWER;
  IR_FOR_EACH_NODE(n, block) {
    if (pos >= IR_TOPO_UPPER - IR_TOPO_INTERVAL)
      g_error("ir invariant: block holds too many nodes for topological positions");
    pos += IR_TOPO_INTERVAL;
    n->topo = pos;
  }
}

static void assign_topo(IrNode *node) {
  IrBlock *b = node->owning_block;
  bool is_first = node->prev == b->param;
  bool is_last = node->next == b->ret;
  gint64 prev = node->prev->topo, next = node->next->topo;
  if (is_last) {
    if (is_first) {
      node->topo = IR_TOPO_MID;
      return;
    }
    if (prev >= IR_TOPO_UPPER - IR_TOPO_INTERVAL) {
      reindex_block(b);
      return;
    }
    node->topo = prev + IR_TOPO_INTERVAL;
  } else if (is_first) {
    if (next <= IR_TOPO_LOWER + IR_TOPO_INTERVAL) {
      reindex_block(b);
      return;
    }
    node->topo = next - IR_TOPO_INTERVAL;
  } else {
    guint64 room = (guint64)next - (guint64)prev; /* next > prev; may exceed INT64_MAX */
    if (room <= 1) {
      reindex_block(b);
      return;
    }
    node->topo = (gint64)((guint64)prev + room / 2);
  }
}

static void link_before(IrNode *node, IrNode *anchor, const char *what) {
  if (node->destroyed || anchor->destroyed)
    g_error("ir invariant: %s with a destroyed node", what);
  if (node->owning_block)
    g_error("ir invariant: %s of a node already in a block (move it instead)", what);
  if (!anchor->owning_block)
    g_error("ir invariant: %s relative to a detached node", what);
  if (anchor->kind == IR_PRIM_PARAM && anchor == anchor->owning_block->param)
    g_error("ir invariant: %s before a block's prim::Param sentinel", what);
  if (node->graph != anchor->graph)
    g_error("ir invariant: %s across graphs", what);
  IrNode *prev = anchor->prev;
  node->prev = prev;
  node->next = anchor;
  prev->next = node;
  anchor->prev = node;
  node->owning_block = anchor->owning_block;
  assign_topo(node);
}

void ir_node_insert_before(IrNode *node, IrNode *anchor) {
  link_before(node, anchor, "insert_before");
}

void ir_node_insert_after(IrNode *node, IrNode *anchor) {
  if (anchor->owning_block && anchor == anchor->owning_block->ret)
    g_error("ir invariant: insert_after a block's prim::Return sentinel");
  if (!anchor->owning_block)
    g_error("ir invariant: insert_after relative to a detached node");
  link_before(node, anchor->next, "insert_after");
}

void ir_node_append_to(IrNode *node, IrBlock *block) {
  link_before(node, block->ret, "append_to");
}

void ir_node_move_before(IrNode *node, IrNode *anchor) {
  if (node == anchor)
    return;
  ir_internal_node_unlink(node);
  link_before(node, anchor, "move_before");
}

void ir_node_move_after(IrNode *node, IrNode *anchor) {
  if (node == anchor)
    return;
  ir_internal_node_unlink(node);
  ir_node_insert_after(node, anchor);
}

IrNode *ir_node_ancestor_in(IrNode *node, const IrBlock *block) {
  while (node) {
    if (!node->owning_block)
      return NULL;
    if (node->owning_block == block)
      return node;
    node = node->owning_block->owning_node;
  }
  return NULL;
}

/* Brings a and b to ancestors sharing one block; false when the two have none (different
 * graphs or detached). */
static bool common_block_ancestors(const IrNode **a, const IrNode **b) {
  for (const IrNode *l = *a; l && l->owning_block; l = l->owning_block->owning_node) {
    for (const IrNode *r = *b; r && r->owning_block; r = r->owning_block->owning_node) {
      if (l->owning_block == r->owning_block) {
        *a = l;
        *b = r;
        return true;
      }
    }
  }
  return false;
}

bool ir_node_is_before(const IrNode *a, const IrNode *b) {
  if (a->owning_block && a->owning_block == b->owning_block)
    return a->topo < b->topo;
  if (!common_block_ancestors(&a, &b))
    g_error("ir invariant: is_before between nodes that share no block");
  return a->topo < b->topo;
}

bool ir_node_is_after(const IrNode *a, const IrNode *b) {
  if (a->owning_block && a->owning_block == b->owning_block)
    return a->topo > b->topo;
  if (!common_block_ancestors(&a, &b))
    g_error("ir invariant: is_after between nodes that share no block");
  return a->topo > b->topo;
}

bool ir_node_can_move_before(const IrNode *node, const IrNode *anchor) {
  IrBlock *block = node->owning_block;
  if (!block || anchor->owning_block != block)
    return false;
  if (node == anchor)
    return true;
  if (anchor == block->param)
    return false;
  if (anchor->topo < node->topo) {
    /* Moving up: every input (of the node or of its nested blocks) must be defined before
     * the anchor. Values from outside the block, and block inputs, always are. */
    GPtrArray *stack = g_ptr_array_new();
    g_ptr_array_add(stack, (gpointer)node);
    bool ok = true;
    while (ok && stack->len > 0) {
      const IrNode *n = g_ptr_array_steal_index_fast(stack, stack->len - 1);
      for (guint i = 0; ok && i < ir_n_inputs(n); i++) {
        IrNode *def = ir_node_ancestor_in(ir_input(n, i)->node, block);
        if (def && def != block->param && def != node && def->topo >= anchor->topo)
          ok = false;
      }
      for (guint bi = 0; bi < ir_n_blocks(n); bi++) {
        IrBlock *inner = ir_block(n, bi);
        g_ptr_array_add(stack, inner->ret);
        IR_FOR_EACH_NODE(m, inner) {
          g_ptr_array_add(stack, m);
        }
      }
    }
    g_ptr_array_free(stack, TRUE);
    return ok;
  }
  /* Moving down: no use of an output may sit between the node and the anchor. */
  for (guint i = 0; i < ir_n_outputs(node); i++) {
    IrValue *v = ir_output(node, i);
    for (guint u = 0; u < v->uses->len; u++) {
      IrNode *user = ir_node_ancestor_in(g_array_index(v->uses, IrUse, u).user, block);
      if (user && user->topo < anchor->topo)
        return false;
    }
  }
  return true;
}
