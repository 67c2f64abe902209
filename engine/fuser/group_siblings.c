/* Horizontal merges of sibling fusion groups (contract in group_siblings.h). */
#include "fuser/group_siblings.h"

#include "autodiff/subgraph_utils.h"
#include "fuser/fusible.h"
#include "passes/passes.h"

/* A group whose map is the broadcast of its inputs. */
static bool whole_map(const IrNode *g) {
  return g->kind == IR_PRIM_FUSION_GROUP && !fusible_body_has(g, IR_PRIM_CONSTANT_CHUNK) &&
         !fusible_body_has(g, IR_PRIM_FUSED_CONCAT);
}

static bool reads_output_of(const IrNode *reader, const IrNode *writer) {
  for (guint i = 0; i < ir_n_inputs(reader); i++)
    if (ir_input(reader, i)->node == writer)
      return true;
  return false;
}

/* Places `earlier` just before `later` (moving either), when the block's order allows it. */
static bool make_adjacent(IrNode *earlier, IrNode *later) {
  if (reads_output_of(later, earlier))
    return false;
  if (ir_node_can_move_before(earlier, later)) {
    ir_node_move_before(earlier, later);
    return true;
  }
  if (ir_node_can_move_before(later, earlier->next)) {
    ir_node_move_after(later, earlier);
    return true;
  }
  return false;
}

/* Is every tensor input of `g` of a known rank no higher than `rank`? */
static bool ranks_at_most(const IrNode *g, int rank) {
  for (guint i = 0; i < ir_n_inputs(g); i++) {
    const IrType *t = ir_input(g, i)->type;
    if (ir_type_is_tensor(t) && (t->rank < 0 || t->rank > rank))
      return false;
  }
  return true;
}

/* A merge saves a pass over the shared tensors, which matters for small kernels; it stops
 * where a group would grow past half of what the C backend compiles (cpu_backend.c, 512
 * nodes), so that merging never sends a kernel to the slower evaluator. */
#define SIBLINGS_MAX_NODES 256

static bool small_enough(const IrNode *a, const IrNode *b) {
  return ir_graph_count_nodes(ad_subgraph_body(a)) + ir_graph_count_nodes(ad_subgraph_body(b)) <=
         SIBLINGS_MAX_NODES;
}

/* An earlier group of `block` that reads a tensor `g` reads whole, reads it whole too and
 * may sit beside g; NULL when none. The tensor's rank bounds every input's of both: then
 * both maps are its shape unless it has dimensions of size 1 (see the contract). */
static IrNode *sibling_before(IrNode *g) {
  for (guint i = 0; i < ir_n_inputs(g); i++) {
    IrValue *x = ir_input(g, i);
    if (!fusible_is_tensor(x) || !fusible_reads_whole(g, x) || !ranks_at_most(g, x->type->rank))
      continue;
    for (guint u = 0; u < x->uses->len; u++) {
      IrNode *other = g_array_index(x->uses, IrUse, u).user;
      if (other != g && other->owning_block == g->owning_block && whole_map(other) &&
          ir_node_is_before(other, g) && fusible_reads_whole(other, x) &&
          ranks_at_most(other, x->type->rank) && small_enough(other, g) && make_adjacent(other, g))
        return other;
    }
  }
  return NULL;
}

bool group_siblings_merge(IrBlock *block) {
  bool changed = false;
  for (IrNode *g = block->param->next; g != block->ret; g = g->next) {
    if (!whole_map(g))
      continue;
    bool merged = false;
    for (IrNode *other; (other = sibling_before(g));) {
      ad_subgraph_merge_node(other, g);
      merged = true;
    }
    if (merged) {
      /* Shared constants and any computation both siblings did become one. */
      IrGraph *body = ad_subgraph_body(g);
      pass_constant_pooling(body);
      pass_eliminate_common_subexpression(body);
      changed = true;
    }
  }
  return changed;
}
