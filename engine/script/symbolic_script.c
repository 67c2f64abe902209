/* symbolic_script (contract in symbolic_script.h). Algorithm: PyTorch's symbolic_script.cpp
 * of seed 003: compile each formula def, take the closure's body as the backward graph with
 * its context tuple unpacked into inputs, and rewrite the forward to return (outputs...,
 * context values...) instead of (outputs..., closure). */
#include "script/symbolic_script.h"

#include <stdarg.h>
#include <string.h>

#include "ir/ops.h"
#include "ir/text.h"
#include "passes/passes.h"
#include "script/parser.h"
#include "script/script.h"

struct ScriptFormulas {
  GHashTable *by_schema; /* const IrSchema* -> AdGraphFormula* */
};

/* Generated from resources/symbolic_script.py at build time (scripts/embed_text.py). */
extern const char script_symbolic_source[];

static void formula_free(gpointer p) {
  AdGraphFormula *f = p;
  ir_graph_free((IrGraph *)f->forward);
  ir_graph_free((IrGraph *)f->backward);
  g_free(f);
}

static gboolean fail(GError **error, const char *filename, const char *def, const char *fmt, ...)
    G_GNUC_PRINTF(4, 5);

static gboolean fail(GError **error, const char *filename, const char *def, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  g_autofree char *message = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  g_set_error(error, JITSCOPE_PARSE_ERROR, 0, "%s: error: formula '%s': %s", filename, def,
              message);
  return FALSE;
}

/* The overload of aten::NAME whose arguments the graph's inputs match one to one. */
static const IrSchema *schema_for(const char *name, const IrGraph *graph) {
  g_autofree char *qualified = g_strdup_printf("aten::%s", name);
  IrOpKind kind;
  guint n = 0;
  if (!ir_kind_from_name(qualified, &kind))
    return NULL;
  const IrSchema *const *overloads = ir_ops_overloads(kind, &n);
  GPtrArray *inputs = ir_graph_inputs(graph);
  for (guint i = 0; i < n; i++) {
    if (overloads[i]->n_args != inputs->len)
      continue;
    bool match = true;
    for (guint a = 0; a < inputs->len && match; a++)
      match = ir_type_is_subtype(((IrValue *)g_ptr_array_index(inputs, a))->type,
                                 overloads[i]->args[a].type);
    if (match)
      return overloads[i];
  }
  return NULL;
}

/* The closure body as the backward graph: context tuple unpacked into trailing inputs, the
 * returned tuple flattened into outputs. Takes ownership of body. */
static IrGraph *closure_to_backward(IrGraph *body) {
  IrValue *context = g_ptr_array_index(ir_graph_inputs(body), 0);
  if (ir_value_has_uses(context)) {
    IrNode *unpack = g_array_index(context->uses, IrUse, 0).user;
    for (guint i = 0; i < ir_n_outputs(unpack); i++) {
      IrValue *saved = ir_output(unpack, i);
      IrValue *in = ir_graph_add_input(body, saved->type, NULL);
      ir_value_replace_all_uses_with(saved, in);
      ir_value_set_name(in, saved->name);
    }
    ir_node_destroy(unpack);
  }
  ir_graph_erase_input(body, 0);
  IrValue *result = g_ptr_array_index(ir_graph_outputs(body), 0);
  if (result->node->kind == IR_PRIM_TUPLE_CONSTRUCT) {
    IrNode *tuple = result->node;
    ir_graph_erase_output(body, 0);
    for (guint i = 0; i < ir_n_inputs(tuple); i++)
      ir_graph_add_output(body, ir_input(tuple, i));
    if (!ir_value_has_uses(result))
      ir_node_destroy(tuple);
  }
  pass_eliminate_dead_code(body);
  return body;
}

/* Splits a compiled formula def into its forward/backward pair; NULL with *error when the def
 * does not return (results..., closure). Takes ownership of graph. */
static AdGraphFormula *split_formula(IrGraph *graph, const char *filename, const char *name,
                                     GError **error) {
  g_autoptr(GPtrArray) owned = g_ptr_array_new_with_free_func((GDestroyNotify)ir_graph_free);
  g_ptr_array_add(owned, graph);
  IrValue *returned = g_ptr_array_index(ir_graph_outputs(graph), 0);
  IrNode *pack = returned->node;
  IrNode *closure = pack->kind == IR_PRIM_TUPLE_CONSTRUCT && ir_n_inputs(pack) >= 2
                        ? ir_input(pack, ir_n_inputs(pack) - 1)->node
                        : NULL;
  if (closure == NULL || closure->kind != IR_PRIM_TUPLE_CONSTRUCT || ir_n_inputs(closure) != 2 ||
      ir_input(closure, 0)->node->kind != IR_PRIM_FUNCTION) {
    fail(error, filename, name, "must return (result, backward) with backward a nested def");
    return NULL;
  }
  IrNode *function = ir_input(closure, 0)->node, *context = ir_input(closure, 1)->node;
  IrGraph *body = ir_graph_copy(ir_node_attr_g(function, IR_ATTR_SUBGRAPH));
  ir_graph_erase_output(graph, 0);
  for (guint i = 0; i + 1 < ir_n_inputs(pack); i++)
    ir_graph_add_output(graph, ir_input(pack, i));
  for (guint i = 0; i < ir_n_inputs(context); i++)
    ir_graph_add_output(graph, ir_input(context, i));
  pass_eliminate_dead_code(graph); /* the tuples and the prim::Function go */
  AdGraphFormula *formula = g_new0(AdGraphFormula, 1);
  formula->forward = g_ptr_array_steal_index(owned, 0);
  formula->backward = closure_to_backward(body);
  return formula;
}

ScriptFormulas *script_formulas_compile(const char *text, gsize length, const char *filename,
                                        GError **error) {
  ScriptSource src = {.filename = filename, .text = text, .length = length};
  g_autoptr(ScriptTree) tree = script_parse(&src, error);
  if (tree == NULL)
    return NULL;
  ScriptFormulas *formulas = g_new0(ScriptFormulas, 1);
  formulas->by_schema = g_hash_table_new_full(NULL, NULL, NULL, formula_free);
  for (guint i = 0; i < tree->defs->len; i++) {
    const ScriptDef *def = g_ptr_array_index(tree->defs, i);
    if (g_str_has_prefix(def->name, "AD_"))
      continue;
    IrGraph *graph = script_compile_def(&src, tree, def, error);
    const IrSchema *schema = graph ? schema_for(def->name, graph) : NULL;
    if (graph && schema == NULL)
      fail(error, filename, def->name, "its parameters match no overload of aten::%s", def->name);
    guint n_params = graph ? ir_graph_inputs(graph)->len : 0;
    AdGraphFormula *formula = schema ? split_formula(graph, filename, def->name, error) : NULL;
    if (schema == NULL && graph)
      ir_graph_free(graph);
    if (formula && (ir_graph_outputs(formula->backward)->len != n_params ||
                    ir_graph_outputs(formula->forward)->len < schema->n_returns)) {
      fail(error, filename, def->name, "backward returns %u gradients for %u parameters",
           ir_graph_outputs(formula->backward)->len, n_params);
      formula_free(formula);
      formula = NULL;
    }
    if (formula == NULL) {
      script_formulas_free(formulas);
      return NULL;
    }
    g_hash_table_replace(formulas->by_schema, (gpointer)schema, formula);
  }
  return formulas;
}

void script_formulas_free(ScriptFormulas *formulas) {
  if (formulas == NULL)
    return;
  g_hash_table_unref(formulas->by_schema);
  g_free(formulas);
}

const ScriptFormulas *script_formulas_builtin(void) {
  static gsize once = 0;
  static ScriptFormulas *builtin;
  if (g_once_init_enter(&once)) {
    GError *error = NULL;
    builtin = script_formulas_compile(script_symbolic_source, strlen(script_symbolic_source),
                                      "symbolic_script.py", &error);
    if (builtin == NULL)
      g_error("symbolic_script invariant: the bundled formulas do not compile: %s", error->message);
    g_once_init_leave(&once, 1);
  }
  return builtin;
}

/* prim::ConstantChunk (chunk with its chunks and dim as attributes, one output per piece)
 * takes aten::chunk's formula: differentiate.c passes the attributes as constants and adapts
 * the Tensor[] result and gradient to the pieces. */
static const IrSchema *chunk_schema(void) {
  guint n = 0;
  return ir_ops_overloads(IR_ATEN_CHUNK, &n)[0];
}

const AdGraphFormula *script_formulas_lookup(const IrNode *node, gpointer formulas) {
  const ScriptFormulas *table = formulas;
  bool constant_chunk = node->kind == IR_PRIM_CONSTANT_CHUNK;
  const IrSchema *schema = constant_chunk ? chunk_schema() : node->schema;
  if (schema == NULL)
    return NULL;
  const AdGraphFormula *formula = g_hash_table_lookup(table->by_schema, schema);
  guint n_args = ir_n_inputs(node) + (constant_chunk ? 2 : 0);
  if (formula == NULL || ir_graph_inputs(formula->forward)->len != n_args)
    return NULL;
  /* A formula written for a float exponent does not serve an int one (its `exponent - 1.0`
   * would be a float op on an int): such nodes take the C formulas. */
  GPtrArray *params = ir_graph_inputs(formula->forward);
  for (guint i = 0; i < ir_n_inputs(node) && !constant_chunk; i++)
    if (!ir_type_is_subtype(ir_input(node, i)->type, ((IrValue *)params->pdata[i])->type))
      return NULL;
  return formula;
}

guint script_formulas_count(const ScriptFormulas *formulas) {
  return g_hash_table_size(formulas->by_schema);
}
