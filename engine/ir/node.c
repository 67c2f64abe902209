/* Nodes: creation, inputs and outputs with exact use lists, and destruction. Placement in
 * blocks and topological order live in order.c. */
#include "ir/ir-internal.h"

IrNode *ir_internal_node_new(IrGraph *graph, IrOpKind kind) {
  if ((unsigned)kind >= IR_KIND_COUNT)
    g_error("ir invariant: node kind %d out of range", (int)kind);
  IrNode *n = ir_internal_alloc0(graph, sizeof(IrNode));
  n->kind = kind;
  n->graph = graph;
  n->origin = graph->next_origin++;
  g_hash_table_insert(graph->origin_nodes, GSIZE_TO_POINTER(n->origin), n);
  n->inputs = g_ptr_array_new();
  n->outputs = g_ptr_array_new();
  g_ptr_array_add(graph->all_nodes, n);
  return n;
}

IrNode *ir_node_create(IrGraph *graph, IrOpKind kind, guint n_outputs) {
  if (kind == IR_PRIM_PARAM || kind == IR_PRIM_RETURN)
    g_error("ir invariant: prim::Param and prim::Return are only made as block sentinels");
  IrNode *n = ir_internal_node_new(graph, kind);
  for (guint i = 0; i < n_outputs; i++)
    ir_node_add_output(n, ir_type_tensor());
  return n;
}

IrGraph *ir_node_graph(const IrNode *node) {
  return node->graph;
}

const char *ir_node_kind_name(const IrNode *node) {
  if (node->kind == IR_PRIM_OPAQUE && node->opaque_name != NULL)
    return node->opaque_name;
  return ir_kind_name(node->kind);
}

static void check_live(const IrNode *node, const char *what) {
  if (node->destroyed)
    g_error("ir invariant: %s on a destroyed %s node", what, ir_kind_name(node->kind));
}

static void check_same_graph(const IrNode *node, const IrValue *value, const char *what) {
  if (!value)
    g_error("ir invariant: %s: NULL value", what);
  if (value->node->graph != node->graph)
    g_error("ir invariant: %s: value and node belong to different graphs", what);
}

static void use_add(IrValue *value, IrNode *user, guint index) {
  IrUse u = {user, index};
  g_array_append_val(value->uses, u);
}

static void use_remove(IrValue *value, IrNode *user, guint index) {
  for (guint i = 0; i < value->uses->len; i++) {
    IrUse *u = &g_array_index(value->uses, IrUse, i);
    if (u->user == user && u->index == index) {
      g_array_remove_index(value->uses, i);
      return;
    }
  }
  g_error("ir invariant: use list of value %" G_GUINT64_FORMAT " lacks input %u of %s", value->id,
          index, ir_kind_name(user->kind));
}

static void use_reindex(IrValue *value, IrNode *user, guint from, guint to) {
  for (guint i = 0; i < value->uses->len; i++) {
    IrUse *u = &g_array_index(value->uses, IrUse, i);
    if (u->user == user && u->index == from) {
      u->index = to;
      return;
    }
  }
  g_error("ir invariant: use list of value %" G_GUINT64_FORMAT " lacks input %u of %s", value->id,
          from, ir_kind_name(user->kind));
}

void ir_node_add_input(IrNode *node, IrValue *value) {
  check_live(node, "add_input");
  check_same_graph(node, value, "add_input");
  use_add(value, node, ir_n_inputs(node));
  g_ptr_array_add(node->inputs, value);
}

void ir_node_insert_input(IrNode *node, guint index, IrValue *value) {
  check_live(node, "insert_input");
  check_same_graph(node, value, "insert_input");
  guint n = ir_n_inputs(node);
  if (index > n)
    g_error("ir invariant: insert_input index %u past %u inputs", index, n);
  /* Shift the later inputs' use indices from the end so no two uses collide. */
  for (guint i = n; i > index; i--)
    use_reindex(ir_input(node, i - 1), node, i - 1, i);
  g_ptr_array_insert(node->inputs, (gint)index, value);
  use_add(value, node, index);
}

void ir_node_replace_input(IrNode *node, guint index, IrValue *value) {
  check_live(node, "replace_input");
  check_same_graph(node, value, "replace_input");
  if (index >= ir_n_inputs(node))
    g_error("ir invariant: replace_input index %u past %u inputs", index, ir_n_inputs(node));
  IrValue *old = ir_input(node, index);
  if (old == value)
    return;
  use_remove(old, node, index);
  g_ptr_array_index(node->inputs, index) = value;
  use_add(value, node, index);
}

void ir_node_remove_input(IrNode *node, guint index) {
  guint n = ir_n_inputs(node);
  if (index >= n)
    g_error("ir invariant: remove_input index %u past %u inputs", index, n);
  use_remove(ir_input(node, index), node, index);
  for (guint i = index + 1; i < n; i++)
    use_reindex(ir_input(node, i), node, i, i - 1);
  g_ptr_array_remove_index(node->inputs, index);
}

void ir_node_remove_all_inputs(IrNode *node) {
  for (guint i = 0; i < ir_n_inputs(node); i++)
    use_remove(ir_input(node, i), node, i);
  g_ptr_array_set_size(node->inputs, 0);
}

IrValue *ir_node_add_output(IrNode *node, const IrType *type) {
  check_live(node, "add_output");
  if (node->kind == IR_PRIM_RETURN)
    g_error("ir invariant: prim::Return has no outputs");
  IrValue *v = ir_internal_value_new(node->graph, node, ir_n_outputs(node), type);
  g_ptr_array_add(node->outputs, v);
  return v;
}

void ir_node_erase_output(IrNode *node, guint index) {
  guint n = ir_n_outputs(node);
  if (index >= n)
    g_error("ir invariant: erase_output index %u past %u outputs", index, n);
  IrValue *v = ir_output(node, index);
  if (ir_value_has_uses(v))
    g_error("ir invariant: erase_output of %s output %u that still has uses",
            ir_kind_name(node->kind), index);
  ir_internal_value_forget_name(v);
  g_ptr_array_remove_index(node->outputs, index);
  for (guint i = index; i < n - 1; i++)
    ir_output(node, i)->offset = i;
}

void ir_node_permute_outputs(IrNode *node, const guint *order) {
  guint n = ir_n_outputs(node);
  g_autofree IrValue **old = g_new(IrValue *, n);
  for (guint i = 0; i < n; i++)
    old[i] = ir_output(node, i);
  for (guint i = 0; i < n; i++) {
    if (order[i] >= n)
      g_error("ir invariant: permute_outputs index %u past %u outputs", order[i], n);
    node->outputs->pdata[i] = old[order[i]];
    old[order[i]]->offset = i;
  }
}

static void unlink_node(IrNode *node) {
  if (!node->owning_block)
    return;
  /* The insertion point stays where it was: at the node that followed. */
  if (node->graph->insert_before == node)
    node->graph->insert_before = node->next;
  node->prev->next = node->next;
  node->next->prev = node->prev;
  node->prev = node->next = NULL;
  node->owning_block = NULL;
}

void ir_internal_node_unlink(IrNode *node) {
  unlink_node(node);
}

void ir_node_destroy(IrNode *node) {
  check_live(node, "destroy");
  if (node->kind == IR_PRIM_PARAM || node->kind == IR_PRIM_RETURN)
    g_error("ir invariant: block sentinels are destroyed only with their block");
  for (guint i = 0; i < ir_n_outputs(node); i++)
    if (ir_value_has_uses(ir_output(node, i)))
      g_error("ir invariant: destroying a %s node whose output %u still has uses",
              ir_kind_name(node->kind), i);
  while (ir_n_blocks(node) > 0)
    ir_node_erase_block(node, ir_n_blocks(node) - 1);
  ir_node_remove_all_inputs(node);
  for (guint i = 0; i < ir_n_outputs(node); i++)
    ir_internal_value_forget_name(ir_output(node, i));
  unlink_node(node);
  node->destroyed = true;
}

void ir_node_replace_all_uses_with(IrNode *node, IrNode *other) {
  if (ir_n_outputs(node) != ir_n_outputs(other))
    g_error("ir invariant: replace_all_uses_with between nodes with %u and %u outputs",
            ir_n_outputs(node), ir_n_outputs(other));
  for (guint i = 0; i < ir_n_outputs(node); i++)
    ir_value_replace_all_uses_with(ir_output(node, i), ir_output(other, i));
}
