/* Graphs as JSON (contract in graph_json.h). */
#include "graph_json.h"

#include "json_out.h"

static JsonNode *block_to_json(const IrBlock *block);
static JsonNode *graph_node(const IrGraph *graph);

static char *value_ref(const IrValue *v) {
  char buf[32];
  return g_strdup_printf("%%%s", ir_value_display_name(v, buf));
}

static JsonNode *value_to_json(const IrValue *v) {
  JsonObject *obj = json_object_new();
  g_autofree char *name = value_ref(v);
  g_autofree char *type = ir_type_to_string(v->type);
  json_object_set_string_member(obj, "name", name);
  json_object_set_string_member(obj, "type", type);
  JsonNode *node = json_node_alloc();
  json_node_init_object(node, obj);
  json_object_unref(obj);
  return node;
}

static JsonArray *refs_to_json(const GPtrArray *values) {
  JsonArray *arr = json_array_sized_new(values->len);
  for (guint i = 0; i < values->len; i++) {
    g_autofree char *name = value_ref(g_ptr_array_index(values, i));
    json_array_add_string_element(arr, name);
  }
  return arr;
}

static JsonNode *attr_to_json(const IrAttr *a) {
  JsonNode *node = json_node_alloc();
  JsonArray *arr;
  switch (a->kind) {
  case IR_ATTR_I: return json_node_init_int(node, a->v.i);
  case IR_ATTR_F: json_node_unref(node); return json_out_double(a->v.f);
  case IR_ATTR_S:
  case IR_ATTR_RAW: return json_node_init_string(node, a->v.s);
  case IR_ATTR_T: json_node_unref(node); return json_out_tensor(a->v.t);
  case IR_ATTR_G: json_node_unref(node); return graph_node(a->v.g);
  case IR_ATTR_IS:
    arr = json_array_sized_new(a->v.is->len);
    for (guint k = 0; k < a->v.is->len; k++)
      json_array_add_int_element(arr, g_array_index(a->v.is, gint64, k));
    break;
  case IR_ATTR_FS:
    arr = json_array_sized_new(a->v.fs->len);
    for (guint k = 0; k < a->v.fs->len; k++)
      json_array_add_element(arr, json_out_double(g_array_index(a->v.fs, double, k)));
    break;
  case IR_ATTR_SS:
    arr = json_array_sized_new(a->v.ss->len);
    for (guint k = 0; k < a->v.ss->len; k++)
      json_array_add_string_element(arr, g_ptr_array_index(a->v.ss, k));
    break;
  case IR_ATTR_TS:
    arr = json_array_sized_new(a->v.ts->len);
    for (guint k = 0; k < a->v.ts->len; k++)
      json_array_add_element(arr, json_out_tensor(g_ptr_array_index(a->v.ts, k)));
    break;
  case IR_ATTR_GS:
    arr = json_array_sized_new(a->v.gs->len);
    for (guint k = 0; k < a->v.gs->len; k++)
      json_array_add_element(arr, graph_node(g_ptr_array_index(a->v.gs, k)));
    break;
  default: g_assert_not_reached();
  }
  json_node_init_array(node, arr);
  json_array_unref(arr);
  return node;
}

static JsonNode *node_to_json(const IrNode *n) {
  JsonObject *obj = json_object_new();
  json_object_set_string_member(obj, "kind", ir_node_kind_name(n));
  json_object_set_int_member(obj, "origin", (gint64)n->origin);
  if (n->schema)
    json_object_set_string_member(obj, "schema", n->schema->text);
  json_object_set_array_member(obj, "inputs", refs_to_json(n->inputs));
  JsonArray *outs = json_array_sized_new(ir_n_outputs(n));
  for (guint i = 0; i < ir_n_outputs(n); i++)
    json_array_add_element(outs, value_to_json(ir_output(n, i)));
  json_object_set_array_member(obj, "outputs", outs);
  JsonObject *attrs = json_object_new();
  for (guint i = 0; i < ir_n_attrs(n); i++) {
    const IrAttr *a = ir_attr_at(n, i);
    json_object_set_member(attrs, a->name, attr_to_json(a));
  }
  json_object_set_object_member(obj, "attributes", attrs);
  JsonArray *blocks = json_array_sized_new(ir_n_blocks(n));
  for (guint i = 0; i < ir_n_blocks(n); i++)
    json_array_add_element(blocks, block_to_json(ir_block(n, i)));
  json_object_set_array_member(obj, "blocks", blocks);
  if (n->source)
    json_object_set_string_member(obj, "source", n->source);
  JsonNode *node = json_node_alloc();
  json_node_init_object(node, obj);
  json_object_unref(obj);
  return node;
}

static JsonNode *block_to_json(const IrBlock *block) {
  JsonObject *obj = json_object_new();
  JsonArray *inputs = json_array_new();
  const GPtrArray *in = ir_block_inputs(block);
  for (guint i = 0; i < in->len; i++)
    json_array_add_element(inputs, value_to_json(g_ptr_array_index(in, i)));
  json_object_set_array_member(obj, "inputs", inputs);
  JsonArray *nodes = json_array_new();
  IR_FOR_EACH_NODE(n, block) {
    json_array_add_element(nodes, node_to_json(n));
  }
  json_object_set_array_member(obj, "nodes", nodes);
  json_object_set_array_member(obj, "outputs", refs_to_json(ir_block_outputs(block)));
  JsonNode *node = json_node_alloc();
  json_node_init_object(node, obj);
  json_object_unref(obj);
  return node;
}

static JsonNode *graph_node(const IrGraph *graph) {
  return block_to_json(graph->block);
}

JsonNode *app_graph_to_json(const IrGraph *graph) {
  return graph_node(graph);
}
