/* inline_calls: prim::CallFunction / prim::CallMethod with known definitions replaced by the
 * definition's body (contract in module_lowering.h; PyTorch: passes/inliner.cpp). */
#include <string.h>

#include "ir/text.h"
#include "passes/module_lowering.h"

/* Nested definitions are shallow (a module's forward calls a functional); this bounds a
 * definition table that would call itself. */
#define INLINE_MAX_ROUNDS 8

typedef struct {
  GHashTable *map; /* definition value -> value in the graph */
} InlineMap;

static IrValue *map_value(IrValue *src, gpointer data) {
  return g_hash_table_lookup(((InlineMap *)data)->map, src);
}

static const char *attr_string(const IrNode *node, const char *name) {
  const IrAttr *a = ir_node_attr(node, name);
  return a != NULL && a->kind == IR_ATTR_S ? a->v.s : NULL;
}

/* The callee's definition text number `index` (functions may have several forms) and the
 * name its inlined nodes are grouped under, or NULL. */
static const char *call_definition(const IrNode *call, guint index, char **call_name,
                                   guint *first_arg) {
  if (call->kind == IR_PRIM_CALL_FUNCTION && ir_n_inputs(call) >= 1) {
    const IrNode *fn = ir_input(call, 0)->node;
    const char *name = fn->kind == IR_PRIM_CONSTANT ? attr_string(fn, IR_ATTR_NAME) : NULL;
    const char *text = name ? functional_definition(name, index) : NULL;
    if (text) {
      *call_name = g_strdup_printf("F.%s", name);
      *first_arg = 1;
    }
    return text;
  }
  if (call->kind == IR_PRIM_CALL_METHOD && ir_n_inputs(call) >= 1) {
    const IrValue *module = ir_input(call, 0);
    const char *method = attr_string(call, IR_ATTR_NAME);
    if (module->type->kind != IR_TYPE_CLASS || method == NULL || index > 0)
      return NULL;
    const char *text = module_method_definition(module->type->name, method);
    if (text) {
      char buf[32];
      *call_name = g_strdup_printf("%s.%s", ir_value_display_name(module, buf), method);
      *first_arg = 0;
    }
    return text;
  }
  return NULL;
}

/* Do the call's arguments fit the definition's parameters? A module parameter (class type)
 * fits any module: PyTorch mangles class names per instance. */
static bool arguments_fit(const IrNode *call, guint first_arg, const IrGraph *def) {
  const GPtrArray *params = ir_graph_inputs(def);
  if (ir_n_inputs(call) - first_arg != params->len)
    return false;
  for (guint i = 0; i < params->len; i++) {
    const IrType *want = ((IrValue *)g_ptr_array_index(params, i))->type;
    const IrType *have = ir_input(call, first_arg + i)->type;
    if (want->kind == IR_TYPE_CLASS ? have->kind != IR_TYPE_CLASS : !ir_type_is_subtype(have, want))
      return false;
  }
  return true;
}

/* The graph's own definition of a prim::CallFunction's callee (a def of the same script
 * file), or NULL. */
static const IrGraph *own_definition(const IrNode *call, char **call_name) {
  if (call->kind != IR_PRIM_CALL_FUNCTION || ir_n_inputs(call) < 1)
    return NULL;
  const IrNode *fn = ir_input(call, 0)->node;
  const char *name = fn->kind == IR_PRIM_CONSTANT ? attr_string(fn, IR_ATTR_NAME) : NULL;
  const IrGraph *def = name ? ir_graph_function(call->graph, name) : NULL;
  if (def)
    *call_name = g_strdup(name);
  return def;
}

/* Inlines definition `index` of call's callee when the call fits it; *none_left when there
 * is no such definition. The graph's own definition comes first (one form), then the
 * functional and module definitions. */
static bool inline_definition(IrNode *call, guint index, bool *none_left) {
  char *call_name = NULL;
  guint first_arg = 1;
  const IrGraph *def = own_definition(call, &call_name);
  IrGraph *parsed = NULL;
  if (def != NULL) {
    *none_left = index > 0;
    if (index > 0) {
      g_free(call_name);
      return false;
    }
  } else {
    const char *text = call_definition(call, index, &call_name, &first_arg);
    *none_left = text == NULL;
    if (text == NULL)
      return false;
    def = parsed = ir_graph_parse(text, strlen(text), call_name, NULL);
    if (def == NULL)
      g_error("inline_calls invariant: the definition of %s does not parse", call_name);
  }
  bool fits =
      arguments_fit(call, first_arg, def) && ir_graph_outputs(def)->len == ir_n_outputs(call);
  if (fits) {
    IrGraph *graph = call->graph;
    InlineMap m = {g_hash_table_new(NULL, NULL)};
    for (guint i = 0; i < ir_graph_inputs(def)->len; i++)
      g_hash_table_insert(m.map, g_ptr_array_index(ir_graph_inputs(def), i),
                          ir_input(call, first_arg + i));
    /* Nested calls keep their path: `_sa_block/self_attn.forward`. */
    g_autofree char *path =
        call->scope ? g_strdup_printf("%s/%s", call->scope, call_name) : g_strdup(call_name);
    const char *scope = g_string_chunk_insert_const(graph->strings, path);
    IR_FOR_EACH_NODE(n, def->block) {
      IrNode *copy = ir_node_copy_into(graph, n, map_value, &m);
      /* A def of the same file keeps its own lines; a library definition has none worth
       * showing: the call's. */
      if (parsed || copy->source == NULL)
        copy->source = call->source;
      copy->scope = scope;
      ir_node_insert_before(copy, call);
      for (guint o = 0; o < ir_n_outputs(n); o++)
        g_hash_table_insert(m.map, ir_output(n, o), ir_output(copy, o));
    }
    for (guint o = 0; o < ir_n_outputs(call); o++) {
      IrValue *result = g_hash_table_lookup(m.map, g_ptr_array_index(ir_graph_outputs(def), o));
      ir_value_replace_all_uses_with(ir_output(call, o), result);
    }
    IrValue *callee = first_arg == 1 ? ir_input(call, 0) : NULL;
    ir_node_destroy(call);
    if (callee && !ir_value_has_uses(callee))
      ir_node_destroy(callee->node);
    g_hash_table_destroy(m.map);
  }
  ir_graph_free(parsed);
  g_free(call_name);
  return fits;
}

static bool inline_call(IrNode *call) {
  bool none_left = false;
  for (guint index = 0; !none_left; index++)
    if (inline_definition(call, index, &none_left))
      return true;
  return false;
}

static guint inline_block(IrBlock *block) {
  guint n = 0;
  IR_FOR_EACH_NODE(node, block) {
    for (guint b = 0; b < ir_n_blocks(node); b++)
      n += inline_block(ir_block(node, b));
    if ((node->kind == IR_PRIM_CALL_FUNCTION || node->kind == IR_PRIM_CALL_METHOD) &&
        inline_call(node))
      n++;
  }
  return n;
}

bool pass_inline_calls(IrGraph *graph, guint *n_inlined) {
  guint total = 0;
  for (int round = 0; round < INLINE_MAX_ROUNDS; round++) {
    guint n = inline_block(graph->block);
    if (n == 0)
      break;
    total += n;
  }
  if (n_inlined)
    *n_inlined = total;
  return total > 0;
}
