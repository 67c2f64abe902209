/* lower_module_attributes: `%self` attribute chains into named graph inputs (contract in
 * module_lowering.h; PyTorch: passes/lower_graph.cpp, which appends the parameters after the
 * inputs in the same way). */
#include <string.h>

#include "passes/module_lowering.h"

typedef struct {
  IrGraph *graph;
  GHashTable *paths;       /* IrValue* (module-typed) -> char* path (owned) */
  GHashTable *inputs;      /* char* path -> IrValue* graph input (keys owned) */
  GPtrArray *module_reads; /* module-typed GetAttr nodes, in order */
  GPtrArray *added;        /* may be NULL */
} Lowering;

static IrValue *input_for_path(Lowering *l, const char *path, const IrType *type) {
  IrValue *input = g_hash_table_lookup(l->inputs, path);
  if (input != NULL)
    return input;
  input = ir_graph_add_input(l->graph, type, NULL);
  ir_value_set_name(input, path);
  g_hash_table_insert(l->inputs, g_strdup(path), input);
  if (l->added)
    g_ptr_array_add(l->added, g_strdup(path));
  return input;
}

static bool is_unreadable_constant(const IrNode *node) {
  const IrAttr *a = ir_node_attr(node, IR_ATTR_VALUE);
  return node->kind == IR_PRIM_CONSTANT && a != NULL && a->kind == IR_ATTR_RAW;
}

/* Nodes in program order (nested blocks included), so that inputs come in the order of first
 * read. */
static void lower_block(Lowering *l, IrBlock *block) {
  IR_FOR_EACH_NODE(node, block) {
    for (guint b = 0; b < ir_n_blocks(node); b++)
      lower_block(l, ir_block(node, b));
    if (is_unreadable_constant(node)) {
      char buf[32];
      IrValue *out = ir_output(node, 0);
      const char *shown = ir_value_display_name(out, buf);
      /* A numbered value (%4) is named after its number: constant.4. */
      g_autofree char *name = g_ascii_isdigit(shown[0]) ? g_strdup_printf("constant.%s", shown)
                                                         : g_strdup(shown);
      ir_value_set_name(out, NULL);
      ir_value_replace_all_uses_with(out, input_for_path(l, name, out->type));
      ir_node_destroy(node);
      continue;
    }
    if (node->kind != IR_PRIM_GET_ATTR || ir_n_inputs(node) != 1 || ir_n_outputs(node) != 1)
      continue;
    const char *parent = g_hash_table_lookup(l->paths, ir_input(node, 0));
    const IrAttr *name = ir_node_attr(node, IR_ATTR_NAME);
    if (parent == NULL || name == NULL || name->kind != IR_ATTR_S)
      continue;
    char *path = g_strdup_printf("%s.%s", parent, name->v.s);
    IrValue *out = ir_output(node, 0);
    if (out->type->kind == IR_TYPE_CLASS) {
      g_hash_table_insert(l->paths, out, path);
      g_ptr_array_add(l->module_reads, node);
      continue;
    }
    ir_value_set_name(out, NULL);
    ir_value_replace_all_uses_with(out, input_for_path(l, path, out->type));
    ir_node_destroy(node);
    g_free(path);
  }
}

/* The first user of `value`: its kind, name attribute and source comment. */
static char *describe_user(const IrValue *value) {
  const IrNode *user = g_array_index(value->uses, IrUse, 0).user;
  for (guint i = 0; i < value->uses->len && user->kind == IR_PRIM_GET_ATTR; i++)
    user = g_array_index(value->uses, IrUse, i).user;
  const IrAttr *name = ir_node_attr(user, IR_ATTR_NAME);
  GString *s = g_string_new(ir_node_kind_name(user));
  if (name != NULL && name->kind == IR_ATTR_S)
    g_string_append_printf(s, "[name=\"%s\"]", name->v.s);
  if (user->source != NULL)
    g_string_append_printf(s, " (%s)", user->source);
  return g_string_free(s, FALSE);
}

bool pass_lower_module_attributes(IrGraph *graph, GPtrArray *added, GError **error) {
  GPtrArray *inputs = ir_graph_inputs(graph);
  IrValue *self = inputs->len > 0 ? g_ptr_array_index(inputs, 0) : NULL;
  bool module = self != NULL && self->type->kind == IR_TYPE_CLASS;
  Lowering l = {graph, g_hash_table_new_full(NULL, NULL, NULL, g_free),
                g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL), g_ptr_array_new(),
                added};
  if (module)
    g_hash_table_insert(l.paths, self, g_strdup("self"));
  lower_block(&l, graph->block);
  for (guint i = l.module_reads->len; i-- > 0;) {
    IrNode *read = g_ptr_array_index(l.module_reads, i);
    if (!ir_value_has_uses(ir_output(read, 0)))
      ir_node_destroy(read);
  }
  bool ok = true;
  if (module) {
    if (ir_value_has_uses(self)) {
      /* Name a user that is not itself a read of a submodule. */
      IrValue *used = self;
      for (guint i = 0; i < l.module_reads->len; i++) {
        IrNode *read = g_ptr_array_index(l.module_reads, i);
        if (!read->destroyed && ir_value_has_uses(ir_output(read, 0)) &&
            g_array_index(ir_output(read, 0)->uses, IrUse, 0).user->kind != IR_PRIM_GET_ATTR) {
          used = ir_output(read, 0);
          break;
        }
      }
      g_autofree char *user = describe_user(used);
      const char *path = g_hash_table_lookup(l.paths, used);
      g_set_error(error, g_quark_from_static_string("jitscope-module-lowering"), 0,
                  "cannot turn the module graph into a function: %s is used by %s, which "
                  "jitscope has no definition for",
                  path ? path : "self", user);
      ok = false;
    } else {
      ir_graph_erase_input(graph, 0);
    }
  }
  g_hash_table_destroy(l.paths);
  g_hash_table_destroy(l.inputs);
  g_ptr_array_free(l.module_reads, TRUE);
  return ok;
}
