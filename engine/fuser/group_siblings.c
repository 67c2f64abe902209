/* Horizontal merges of sibling fusion groups (contract in group_siblings.h). */
#include "fuser/group_siblings.h"

#include <limits.h>

#include "autodiff/subgraph_utils.h"
#include "fuser/fusible.h"
#include "passes/passes.h"

/* A merge saves a pass over the shared tensors, which matters for small kernels; it stops
 * where a group would grow past half of what the C backend compiles (cpu_backend.c, 512
 * nodes), so that merging never sends a kernel to the slower evaluator. */
#define SIBLINGS_MAX_NODES 256

/* What a merge asks of a group, worked out once per group and kept up to date as its run
 * grows. */
typedef struct {
  guint n_nodes; /* in its body */
  int max_rank;  /* the highest rank of its tensor inputs; INT_MAX when one is unknown */
} Sibling;

static int max_input_rank(const IrNode *g) {
  int rank = -1;
  for (guint i = 0; i < ir_n_inputs(g); i++) {
    const IrType *t = ir_input(g, i)->type;
    if (ir_type_is_tensor(t))
      rank = t->rank < 0 ? INT_MAX : MAX(rank, t->rank);
  }
  return rank;
}

/* The block's groups whose map is the broadcast of their inputs (no chunk, no concatenation
 * inside, which make the map a piece; such a group reads every input whole): node ->
 * Sibling. */
static GHashTable *siblings_of(IrBlock *block) {
  GHashTable *siblings = g_hash_table_new_full(NULL, NULL, NULL, g_free);
  IR_FOR_EACH_NODE(g, block) {
    if (g->kind != IR_PRIM_FUSION_GROUP || fusible_body_has(g, IR_PRIM_CONSTANT_CHUNK) ||
        fusible_body_has(g, IR_PRIM_FUSED_CONCAT))
      continue;
    Sibling *s = g_new(Sibling, 1);
    s->n_nodes = ir_graph_count_nodes(ad_subgraph_body(g));
    s->max_rank = max_input_rank(g);
    g_hash_table_insert(siblings, g, s);
  }
  return siblings;
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

/* The run of siblings a tensor `g` reads has open (the latest group that read it, holding the
 * earlier readers it took in) when g may join it; NULL when none. The tensor's rank bounds
 * every input's of both: then both maps are its shape unless it has dimensions of size 1
 * (see the contract). */
static IrNode *run_to_join(GHashTable *siblings, GHashTable *open_runs, IrNode *g,
                           const Sibling *sg) {
  for (guint i = 0; i < ir_n_inputs(g); i++) {
    IrValue *x = ir_input(g, i);
    IrNode *run = fusible_is_tensor(x) ? g_hash_table_lookup(open_runs, x) : NULL;
    const Sibling *sr = run && run != g ? g_hash_table_lookup(siblings, run) : NULL;
    if (sr && x->type->rank >= MAX(sg->max_rank, sr->max_rank) &&
        sr->n_nodes + sg->n_nodes <= SIBLINGS_MAX_NODES && make_adjacent(run, g))
      return run;
  }
  return NULL;
}

bool group_siblings_merge(IrBlock *block) {
  GHashTable *siblings = siblings_of(block);
  /* tensor -> the group that last read it: each group is offered the runs of its tensors
   * only, not every earlier reader (thousands of siblings stay linear). */
  GHashTable *open_runs = g_hash_table_new(NULL, NULL);
  GHashTable *merged = g_hash_table_new(NULL, NULL);
  for (IrNode *g = block->param->next; g != block->ret; g = g->next) {
    Sibling *sg = g_hash_table_lookup(siblings, g);
    if (!sg)
      continue;
    /* g joins the earlier group, which may hold a whole run already: the merge copies g's
     * body only. */
    for (IrNode *run; (run = run_to_join(siblings, open_runs, g, sg));) {
      Sibling *sr = g_hash_table_lookup(siblings, run);
      sr->max_rank = MAX(sr->max_rank, sg->max_rank);
      sr->n_nodes += sg->n_nodes;       /* at most: the clean-up below may share constants */
      g_hash_table_remove(siblings, g); /* before the merge destroys it */
      ad_subgraph_merge_node(g, run);
      g_hash_table_add(merged, run);
      g = run;
      sg = sr;
    }
    for (guint i = 0; i < ir_n_inputs(g); i++)
      if (fusible_is_tensor(ir_input(g, i)))
        g_hash_table_insert(open_runs, ir_input(g, i), g);
  }
  /* Shared constants and any computation two siblings both did become one. */
  GHashTableIter it;
  gpointer group;
  g_hash_table_iter_init(&it, merged);
  while (g_hash_table_iter_next(&it, &group, NULL)) {
    IrGraph *body = ad_subgraph_body(group);
    pass_constant_pooling(body);
    pass_eliminate_common_subexpression(body);
  }
  bool changed = g_hash_table_size(merged) > 0;
  g_hash_table_destroy(merged);
  g_hash_table_destroy(open_runs);
  g_hash_table_destroy(siblings);
  return changed;
}
