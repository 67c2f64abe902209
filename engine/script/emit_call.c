/* Operator calls from script: overload resolution through the op table (contract in emit.h).
 * Algorithm: PyTorch's schema matching (script/schema_matching.cpp): overloads tried in
 * table order; positional arguments fill the schema's leading non-keyword-only arguments,
 * keywords fill by name, the rest take their defaults (materialized as constants without a
 * source range, as PyTorch prints them); the first overload whose argument types all accept
 * the given values wins. */
#include <string.h>

#include "ir/ops.h"
#include "script/emit.h"

static bool accepts(const IrType *arg_type, const IrType *value_type) {
  return ir_type_is_subtype(value_type, arg_type);
}

/* Fills slots[0..schema->n_args) from the call; false when the call does not fit. */
static bool fit_call(const IrSchema *schema, IrValue *const *args, guint n_args,
                     GPtrArray *kw_names, IrValue *const *kw_values, IrValue **slots) {
  if (n_args > schema->n_args)
    return false;
  for (guint i = 0; i < schema->n_args; i++)
    slots[i] = NULL;
  for (guint i = 0; i < n_args; i++) {
    if (schema->args[i].kwarg_only)
      return false;
    slots[i] = args[i];
  }
  for (guint k = 0; kw_names && k < kw_names->len; k++) {
    const char *name = g_ptr_array_index(kw_names, k);
    guint j = 0;
    while (j < schema->n_args && strcmp(schema->args[j].name, name) != 0)
      j++;
    if (j == schema->n_args || slots[j] != NULL)
      return false;
    slots[j] = kw_values[k];
  }
  for (guint i = 0; i < schema->n_args; i++) {
    if (slots[i] == NULL) {
      if (schema->args[i].def.kind == IR_DEFAULT_NONE_GIVEN)
        return false;
    } else if (!accepts(schema->args[i].type, slots[i]->type)) {
      return false;
    }
  }
  return true;
}

static IrValue *default_constant(Emitter *em, const IrArgument *arg) {
  const IrType *t = arg->type->kind == IR_TYPE_OPTIONAL ? arg->type->elem : arg->type;
  switch (arg->def.kind) {
  case IR_DEFAULT_NONE: return emit_constant_none(em, NULL);
  case IR_DEFAULT_INT:
    if (t->kind == IR_TYPE_BOOL)
      return emit_constant_bool(em, arg->def.i != 0, NULL);
    if (t->kind == IR_TYPE_FLOAT)
      return emit_constant_float(em, (double)arg->def.i, NULL);
    return emit_constant_int(em, arg->def.i, NULL);
  case IR_DEFAULT_FLOAT: return emit_constant_float(em, arg->def.f, NULL);
  case IR_DEFAULT_STR: return emit_constant_str(em, arg->def.s, NULL);
  case IR_DEFAULT_INT_LIST: {
    IrNode *n = ir_node_create(em->graph, IR_PRIM_CONSTANT, 1);
    ir_value_set_type(ir_output(n, 0), ir_type_list(ir_type_int()));
    ir_node_set_attr_is(n, IR_ATTR_VALUE, arg->def.ints, arg->def.n_ints);
    emit_append(em, n);
    return ir_output(n, 0);
  }
  case IR_DEFAULT_NONE_GIVEN: break;
  }
  g_error("script invariant: default of argument %s has no value", arg->name);
}

/* "(Tensor, int, alpha=float)" for the error message. */
static char *describe_call(IrValue *const *args, guint n_args, GPtrArray *kw_names,
                           IrValue *const *kw_values) {
  GString *s = g_string_new("(");
  for (guint i = 0; i < n_args; i++) {
    if (i)
      g_string_append(s, ", ");
    ir_type_print(s, args[i]->type);
  }
  for (guint k = 0; kw_names && k < kw_names->len; k++) {
    if (n_args || k)
      g_string_append(s, ", ");
    g_string_append_printf(s, "%s=", (const char *)g_ptr_array_index(kw_names, k));
    ir_type_print(s, kw_values[k]->type);
  }
  g_string_append_c(s, ')');
  return g_string_free(s, FALSE);
}

IrValue *emit_builtin_call(Emitter *em, const char *qualified_name, ScriptLoc loc,
                           IrValue *const *args, guint n_args, GPtrArray *kw_names,
                           IrValue *const *kw_values) {
  IrOpKind kind;
  guint n_overloads = 0;
  const IrSchema *const *overloads = NULL;
  if (ir_kind_from_name(qualified_name, &kind))
    overloads = ir_ops_overloads(kind, &n_overloads);
  if (n_overloads == 0)
    return emit_fail(em, loc, "unknown operator '%s'", qualified_name);
  const IrSchema *chosen = NULL;
  guint max_args = 0;
  for (guint i = 0; i < n_overloads; i++)
    max_args = MAX(max_args, overloads[i]->n_args);
  g_autofree IrValue **slots = g_new0(IrValue *, max_args + 1);
  for (guint i = 0; i < n_overloads && !chosen; i++)
    if (fit_call(overloads[i], args, n_args, kw_names, kw_values, slots))
      chosen = overloads[i];
  if (chosen == NULL) {
    g_autofree char *call = describe_call(args, n_args, kw_names, kw_values);
    GString *candidates = g_string_new(NULL);
    for (guint i = 0; i < n_overloads; i++)
      g_string_append_printf(candidates, "%s%s", i ? " | " : "", overloads[i]->text);
    IrValue *r = emit_fail(em, loc, "no overload of %s accepts %s; candidates: %s", qualified_name,
                           call, candidates->str);
    g_string_free(candidates, TRUE);
    return r;
  }
  for (guint i = 0; i < chosen->n_args; i++)
    if (slots[i] == NULL)
      slots[i] = default_constant(em, &chosen->args[i]);
  IrNode *node = ir_node_create(em->graph, kind, chosen->n_returns);
  for (guint i = 0; i < chosen->n_args; i++)
    ir_node_add_input(node, slots[i]);
  for (guint i = 0; i < chosen->n_returns; i++)
    ir_value_set_type(ir_output(node, i), chosen->returns[i]);
  node->schema = chosen;
  emit_set_source(em, node, loc);
  emit_append(em, node);
  if (chosen->n_returns == 1)
    return ir_output(node, 0);
  if (chosen->n_returns == 0)
    return emit_constant_none(em, NULL);
  IrNode *tuple = ir_node_create(em->graph, IR_PRIM_TUPLE_CONSTRUCT, 1);
  g_autofree const IrType **types = g_new(const IrType *, chosen->n_returns);
  for (guint i = 0; i < chosen->n_returns; i++) {
    ir_node_add_input(tuple, ir_output(node, i));
    types[i] = chosen->returns[i];
  }
  ir_value_set_type(ir_output(tuple, 0), ir_type_tuple(types, chosen->n_returns));
  emit_append(em, tuple);
  return ir_output(tuple, 0);
}
