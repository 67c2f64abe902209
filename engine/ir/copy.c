/* Copying: whole graphs (names, ids and origins kept) and single nodes cloned into a graph
 * (origins kept, fresh ids, names taken with the renaming rule) or copied into it (fresh
 * origins too). Nested blocks are copied
 * deeply; values defined inside the copied region map to their copies, values from outside
 * go through the caller's map. */
#include "ir/ir-internal.h"

typedef struct {
  IrGraph *graph;
  GHashTable *local; /* source value -> copy, for values defined in the copied region;
                        NULL when copying one node without blocks (none can be read) */
  GHashTable *nodes; /* source node -> copy (NULL when not needed) */
  IrValueMap outer;  /* for values defined outside the region; NULL: none may be */
  gpointer outer_data;
  bool keep_ids;      /* whole-graph copy: ids and names verbatim */
  bool fresh_origins; /* ir_node_copy_into: every copied node keeps the fresh origin it got */
  guint64 max_origin; /* largest origin carried so far */
  guint64 id_bound;   /* one past the largest value id kept so far (keep_ids) */
} Cloner;

/* Carries an origin onto `n` unless a live node of the graph holds it (a copy beside its
 * source, or a node from another graph whose origin means another node here): then `n` keeps
 * its fresh one. Fresh origins handed out later must not collide with a carried one. */
static void carry_origin(Cloner *c, IrNode *n, guint64 origin) {
  GHashTable *taken = c->graph->origin_nodes;
  IrNode *holder = g_hash_table_lookup(taken, GSIZE_TO_POINTER(origin));
  if (c->fresh_origins || (holder && holder != n && !holder->destroyed))
    return;
  g_hash_table_remove(taken, GSIZE_TO_POINTER(n->origin));
  n->origin = origin;
  g_hash_table_insert(taken, GSIZE_TO_POINTER(origin), n);
  c->max_origin = MAX(c->max_origin, origin);
  if (c->graph->next_origin <= origin)
    c->graph->next_origin = origin + 1;
}

static IrValue *lookup(Cloner *c, IrValue *src) {
  IrValue *v = c->local ? g_hash_table_lookup(c->local, src) : NULL;
  if (v)
    return v;
  if (!c->outer)
    g_error("ir invariant: graph copy met a value used outside its definition's scope");
  v = c->outer(src, c->outer_data);
  if (!v)
    g_error("ir invariant: clone_into value map returned NULL for an input");
  return v;
}

/* Gives `copy` the id and name of `src`, as the cloner's mode says. */
static void copy_value_identity(Cloner *c, IrValue *copy, const IrValue *src) {
  if (c->keep_ids) {
    ir_value_set_id(copy, src->id);
    c->id_bound = MAX(c->id_bound, src->id + 1);
    if (src->name)
      ir_internal_value_set_unique_name(copy, src->name);
  } else if (src->name) {
    ir_value_set_name(copy, src->name);
  }
}

static IrNode *clone_node(Cloner *c, const IrNode *src);

static void clone_block(Cloner *c, IrBlock *dst, const IrBlock *src) {
  carry_origin(c, dst->param, src->param->origin);
  carry_origin(c, dst->ret, src->ret->origin);
  for (guint i = 0; i < ir_n_outputs(src->param); i++) {
    IrValue *s = ir_output(src->param, i);
    IrValue *v = ir_block_add_input(dst, s->type, NULL);
    copy_value_identity(c, v, s);
    g_hash_table_insert(c->local, s, v);
  }
  IR_FOR_EACH_NODE(m, src) {
    ir_node_append_to(clone_node(c, m), dst);
  }
  for (guint i = 0; i < ir_n_inputs(src->ret); i++)
    ir_block_add_output(dst, lookup(c, ir_input(src->ret, i)));
}

static IrNode *clone_node(Cloner *c, const IrNode *src) {
  IrNode *n = ir_internal_node_new(c->graph, src->kind);
  carry_origin(c, n, src->origin);
  n->schema = src->schema;
  n->source = src->source ? g_string_chunk_insert_const(n->graph->strings, src->source) : NULL;
  n->scope = src->scope ? g_string_chunk_insert_const(n->graph->strings, src->scope) : NULL;
  n->opaque_name =
      src->opaque_name ? g_string_chunk_insert_const(n->graph->strings, src->opaque_name) : NULL;
  n->opaque_at =
      src->opaque_at ? g_string_chunk_insert_const(n->graph->strings, src->opaque_at) : NULL;
  for (guint i = 0; i < ir_n_inputs(src); i++)
    ir_node_add_input(n, lookup(c, ir_input(src, i)));
  for (guint i = 0; i < ir_n_outputs(src); i++) {
    IrValue *s = ir_output(src, i);
    IrValue *v = ir_node_add_output(n, s->type);
    copy_value_identity(c, v, s);
    if (c->local)
      g_hash_table_insert(c->local, s, v);
  }
  for (guint b = 0; b < ir_n_blocks(src); b++)
    clone_block(c, ir_node_add_block(n), ir_block(src, b));
  ir_node_copy_attrs(n, src);
  if (c->nodes)
    g_hash_table_insert(c->nodes, (gpointer)src, n);
  return n;
}

static IrNode *clone_one(IrGraph *graph, const IrNode *src, IrValueMap value_map,
                         gpointer user_data, bool fresh_origins) {
  if (src->kind == IR_PRIM_PARAM || src->kind == IR_PRIM_RETURN)
    g_error("ir invariant: block sentinels are not cloned on their own");
  if (!value_map && ir_n_inputs(src) > 0)
    g_error("ir invariant: clone_into of a node with inputs needs a value map");
  /* A node without blocks reads only outer values: its outputs need no local map, and the
   * merges that clone nodes one at a time into groups are the compile's hottest caller. */
  Cloner c = {.graph = graph,
              .local = ir_n_blocks(src) > 0 ? g_hash_table_new(NULL, NULL) : NULL,
              .outer = value_map,
              .outer_data = user_data,
              .fresh_origins = fresh_origins};
  IrNode *n = clone_node(&c, src);
  if (c.local)
    g_hash_table_destroy(c.local);
  return n;
}

IrNode *ir_node_clone_into(IrGraph *graph, const IrNode *src, IrValueMap value_map,
                           gpointer user_data) {
  return clone_one(graph, src, value_map, user_data, false);
}

IrNode *ir_node_copy_into(IrGraph *graph, const IrNode *src, IrValueMap value_map,
                          gpointer user_data) {
  return clone_one(graph, src, value_map, user_data, true);
}

IrGraph *ir_graph_copy(const IrGraph *graph) {
  IrGraph *g = ir_graph_new();
  Cloner c = {.graph = g,
              .local = g_hash_table_new(NULL, NULL),
              .nodes = g_hash_table_new(NULL, NULL),
              .keep_ids = true};
  clone_block(&c, g->block, graph->block);
  /* The temporary ids the copies got before taking the source's are gone: continue from
   * the source's counter (above every kept id). */
  g->next_value_id = MAX(graph->next_value_id, c.id_bound);
  g->next_origin = MAX(graph->next_origin, c.max_origin + 1);

  GHashTableIter it;
  gpointer base, suffix;
  g_hash_table_iter_init(&it, graph->name_suffix);
  while (g_hash_table_iter_next(&it, &base, &suffix))
    g_hash_table_insert(g->name_suffix, g_string_chunk_insert_const(g->strings, base), suffix);

  IrNode *ip = graph->insert_before;
  if (ip == graph->block->ret)
    g->insert_before = g->block->ret;
  else if (ip && g_hash_table_contains(c.nodes, ip))
    g->insert_before = g_hash_table_lookup(c.nodes, ip);
  else if (ip && ip->owning_block && ip->owning_block->owning_node && ip == ip->owning_block->ret) {
    /* The insertion point is the end of a nested block: find the copied block. */
    IrNode *owner = g_hash_table_lookup(c.nodes, ip->owning_block->owning_node);
    for (guint b = 0; owner && b < ir_n_blocks(owner); b++)
      if (ir_block(ip->owning_block->owning_node, b) == ip->owning_block)
        g->insert_before = ir_block(owner, b)->ret;
  }
  g_hash_table_destroy(c.local);
  g_hash_table_destroy(c.nodes);
  if (graph->functions) {
    GHashTableIter fit;
    gpointer name, definition;
    g_hash_table_iter_init(&fit, graph->functions);
    while (g_hash_table_iter_next(&fit, &name, &definition))
      ir_graph_set_function(g, name, ir_graph_copy(definition));
  }
  return g;
}
