/* Subgraph nodes: create, merge into, unmerge (PyTorch's SubgraphUtils). */
#include "autodiff/subgraph_utils.h"

IrGraph *ad_subgraph_body(const IrNode *subgraph_node) {
  const IrAttr *a = ir_node_attr(subgraph_node, IR_ATTR_SUBGRAPH);
  if (!a || a->kind != IR_ATTR_G)
    g_error("autodiff invariant: %s node without a Subgraph attribute",
            ir_kind_name(subgraph_node->kind));
  return a->v.g;
}

static bool has_subgraph(const IrNode *node) {
  const IrAttr *a = ir_node_attr(node, IR_ATTR_SUBGRAPH);
  return a && a->kind == IR_ATTR_G;
}

IrNode *ad_subgraph_create_singleton(IrNode *node, IrOpKind kind) {
  IrNode *group = ir_node_create(ir_node_graph(node), kind, 0);
  ir_node_set_attr_g(group, IR_ATTR_SUBGRAPH, ir_graph_new());
  ir_node_insert_before(group, node);
  ad_subgraph_merge_node(node, group);
  return group;
}

typedef struct {
  GHashTable *map;
} ValueMap;

static IrValue *map_lookup(IrValue *src, gpointer data) {
  IrValue *v = g_hash_table_lookup(((ValueMap *)data)->map, src);
  if (!v)
    g_error("autodiff invariant: subgraph merge met a value with no mapping");
  return v;
}

static void merge_subgraph(IrNode *merge_to, IrNode *merge_from) {
  IrNode *before = merge_from->prev;
  IrNode *after = merge_from->next;
  ad_subgraph_unmerge(merge_from);
  for (IrNode *n = after->prev; n != before;) {
    IrNode *prev = n->prev;
    ad_subgraph_merge_node(n, merge_to);
    n = prev;
  }
}

/* The body value each outer value read by the node being merged stands for: the group's
 * inputs and the pairs added for this merge, searched linearly. A node reads a few values,
 * and a hash table of the group's inputs, built per merge, cost more than the search (merges
 * are most of fuse_graph's time). */
typedef struct {
  const IrNode *group;
  GPtrArray *body_inputs; /* the group's inputs inside the body, in the same order */
  GPtrArray *outer, *body;
} MergeMap;

static IrValue *merge_map_find(const MergeMap *m, const IrValue *outer) {
  for (guint i = 0; i < m->outer->len; i++)
    if (g_ptr_array_index(m->outer, i) == outer)
      return g_ptr_array_index(m->body, i);
  for (guint p = 0; p < ir_n_inputs(m->group); p++)
    if (ir_input(m->group, p) == outer)
      return g_ptr_array_index(m->body_inputs, p);
  return NULL;
}

static IrValue *merge_map_lookup(IrValue *src, gpointer data) {
  IrValue *v = merge_map_find(data, src);
  if (!v)
    g_error("autodiff invariant: subgraph merge met a value with no mapping");
  return v;
}

static bool constant_list(const IrValue *v) {
  if (v->node->kind != IR_PRIM_LIST_CONSTRUCT)
    return false;
  for (guint i = 0; i < ir_n_inputs(v->node); i++)
    if (ir_input(v->node, i)->node->kind != IR_PRIM_CONSTANT)
      return false;
  return true;
}

/* A constant list's item inside the group: its constant copied in before the group's first
 * node. */
static IrValue *constant_list_item(IrValue *src, gpointer data) {
  MergeMap *map = data;
  IrGraph *body = ad_subgraph_body(map->group);
  IrNode *k = ir_node_clone_into(body, src->node, NULL, NULL);
  ir_value_set_name(ir_output(k, 0), NULL);
  ir_node_insert_before(k, body->block->param->next);
  return ir_output(k, 0);
}

/* ad_subgraph_merge_node and ad_subgraph_merge_copy: with keep_original, to_merge stays
 * where it is for its other users and none of its outputs leaves the group. */
static void merge_node(IrNode *to_merge, IrNode *group, bool keep_original) {
  IrGraph *body = ad_subgraph_body(group);
  GPtrArray *body_inputs = ir_graph_inputs(body);
  if (body_inputs->len != ir_n_inputs(group))
    g_error("autodiff invariant: subgraph node and body disagree on their inputs");
  g_autoptr(GPtrArray) outer = g_ptr_array_sized_new(ir_n_inputs(to_merge));
  g_autoptr(GPtrArray) inner = g_ptr_array_sized_new(ir_n_inputs(to_merge));
  MergeMap map = {group, body_inputs, outer, inner};

  /* Constants are copied in rather than read from outside, as PyTorch does. */
  IrNode *first = body->block->param->next;
  for (guint i = 0; i < ir_n_inputs(to_merge); i++) {
    IrValue *in = ir_input(to_merge, i);
    if (merge_map_find(&map, in))
      continue;
    if (in->node->kind == IR_PRIM_CONSTANT) {
      IrNode *k = ir_node_clone_into(body, in->node, NULL, NULL);
      ir_value_set_name(ir_output(k, 0), NULL); /* as PyTorch's insertConstant: unnamed */
      ir_node_insert_before(k, first);
      g_ptr_array_add(outer, in);
      g_ptr_array_add(inner, ir_output(k, 0));
    } else if (group->kind == IR_PRIM_DIFFERENTIABLE_GRAPH && constant_list(in)) {
      /* A list of constants constant propagation left as it is (an element typed int?) is
       * copied in too: formulas need a reduction's dims as constants inside the group, and
       * another reader outside keeps the list from moving in. */
      IrNode *list = ir_node_clone_into(body, in->node, constant_list_item, &map);
      ir_node_insert_before(list, first);
      g_ptr_array_add(outer, in);
      g_ptr_array_add(inner, ir_output(list, 0));
    } else {
      ir_node_add_input(group, in); /* body_inputs (the same array) grows with it */
      ir_graph_add_input(body, in->type, in->name);
    }
  }
  IrNode *merged = ir_node_clone_into(body, to_merge, merge_map_lookup, &map);
  ir_node_insert_before(merged, first);

  for (guint i = 0; i < ir_n_outputs(to_merge); i++) {
    IrValue *old = ir_output(to_merge, i);
    for (guint p = 0; p < ir_n_inputs(group); p++) {
      if (ir_input(group, p) != old)
        continue;
      ir_node_remove_input(group, p);
      ir_value_replace_all_uses_with(g_ptr_array_index(ir_graph_inputs(body), p),
                                     ir_output(merged, i));
      ir_graph_erase_input(body, p);
      break;
    }
  }
  if (keep_original) {
    for (guint i = 0; i < ir_n_outputs(to_merge); i++)
      if (ir_value_has_uses(ir_output(to_merge, i)))
        return;
    ir_node_destroy(to_merge);
    return;
  }
  for (guint i = 0; i < ir_n_outputs(to_merge); i++) {
    IrValue *old = ir_output(to_merge, i);
    bool used_after = false;
    for (guint u = 0; u < old->uses->len; u++)
      if (ir_node_is_after(g_array_index(old->uses, IrUse, u).user, group))
        used_after = true;
    if (!used_after)
      continue;
    ir_graph_add_output(body, ir_output(merged, i));
    IrValue *out = ir_node_add_output(group, old->type);
    ir_value_replace_all_uses_with(old, out);
    if (old->name) {
      const char *name = old->name;
      ir_value_set_name(old, NULL);
      ir_value_set_name(out, name);
    }
  }
  ir_node_destroy(to_merge);
}

void ad_subgraph_merge_node(IrNode *to_merge, IrNode *group) {
  if (!has_subgraph(group) || to_merge == group)
    g_error("autodiff invariant: merge target must be another subgraph node");
  if (has_subgraph(to_merge)) {
    merge_subgraph(group, to_merge);
    return;
  }
  merge_node(to_merge, group, false);
}

void ad_subgraph_merge_copy(IrNode *to_copy, IrNode *group) {
  if (!has_subgraph(group) || has_subgraph(to_copy))
    g_error("autodiff invariant: merge_copy needs a plain node and a subgraph node");
  merge_node(to_copy, group, true);
}

void ad_subgraph_unmerge(IrNode *group) {
  IrGraph *body = ad_subgraph_body(group);
  IrGraph *outer = ir_node_graph(group);
  GPtrArray *body_inputs = ir_graph_inputs(body);
  if (body_inputs->len != ir_n_inputs(group))
    g_error("autodiff invariant: subgraph node and body disagree on their inputs");
  GPtrArray *body_outputs = ir_graph_outputs(body);
  if (body_outputs->len < ir_n_outputs(group))
    g_error("autodiff invariant: subgraph body has fewer outputs than its node");
  ValueMap vm = {g_hash_table_new(NULL, NULL)};
  for (guint i = 0; i < ir_n_inputs(group); i++)
    g_hash_table_insert(vm.map, g_ptr_array_index(body_inputs, i), ir_input(group, i));
  IR_FOR_EACH_NODE(n, body->block) {
    IrNode *copy = ir_node_clone_into(outer, n, map_lookup, &vm);
    ir_node_insert_before(copy, group);
    for (guint i = 0; i < ir_n_outputs(n); i++)
      g_hash_table_insert(vm.map, ir_output(n, i), ir_output(copy, i));
  }
  for (guint i = 0; i < ir_n_outputs(group); i++) {
    IrValue *out = ir_output(group, i);
    IrValue *inner = map_lookup(g_ptr_array_index(body_outputs, i), &vm);
    ir_value_replace_all_uses_with(out, inner);
  }
  g_hash_table_destroy(vm.map);
  ir_node_destroy(group);
}

guint ad_subgraph_size(const IrNode *subgraph_node) {
  guint n = 0;
  IR_FOR_EACH_NODE(m, ad_subgraph_body(subgraph_node)->block) {
    if (m->kind != IR_PRIM_CONSTANT)
      n++;
  }
  return n;
}

static IrValue *map_inserted(IrValue *src, gpointer map) {
  IrValue *v = g_hash_table_lookup(map, src);
  if (v == NULL)
    g_error("autodiff invariant: inserted graph reads a value it does not define");
  return v;
}

GPtrArray *ad_insert_graph(IrGraph *graph, const IrGraph *body, IrValue *const *inputs) {
  g_autoptr(GHashTable) map = g_hash_table_new(NULL, NULL);
  GPtrArray *body_inputs = ir_graph_inputs(body);
  for (guint i = 0; i < body_inputs->len; i++)
    g_hash_table_insert(map, g_ptr_array_index(body_inputs, i), inputs[i]);
  IR_FOR_EACH_NODE(n, body->block) {
    IrNode *copy = ir_graph_insert(graph, ir_node_copy_into(graph, n, map_inserted, map));
    for (guint i = 0; i < ir_n_outputs(n); i++)
      g_hash_table_insert(map, ir_output(n, i), ir_output(copy, i));
  }
  GPtrArray *outputs = g_ptr_array_new();
  GPtrArray *body_outputs = ir_graph_outputs(body);
  for (guint i = 0; i < body_outputs->len; i++)
    g_ptr_array_add(outputs, map_inserted(g_ptr_array_index(body_outputs, i), map));
  return outputs;
}
