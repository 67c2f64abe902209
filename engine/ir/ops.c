/* The op table's IR columns (ops.def): each row's schema parsed once (thread-safe lazy
 * init), grouped into per-kind overload lists in table order; flags, expression, gradient
 * kind and dtype rule per row; overload resolution for nodes. */
#include "ir/ops.h"

#include <string.h>

#define EXPR_TEXT_E(...) #__VA_ARGS__
#define EXPR_TEXT_NOEXPR NULL
#define GRAD_KIND_AD(builder) IR_GRAD_FORMULA
#define GRAD_KIND_DERIV(...) IR_GRAD_DERIV
#define GRAD_KIND_AD_NONE IR_GRAD_NONE
#define GRAD_KIND_NOT_DIFFERENTIABLE IR_GRAD_NOT_DIFFERENTIABLE
#define DERIV_TEXT_AD(builder) NULL
#define DERIV_TEXT_DERIV(...) #__VA_ARGS__
#define DERIV_TEXT_AD_NONE NULL
#define DERIV_TEXT_NOT_DIFFERENTIABLE NULL
#define ROW(kind, schema, family, shape, grad, flags, expr) \
  {schema, EXPR_TEXT_##expr, IR_OPF_##flags, GRAD_KIND_##grad, DERIV_TEXT_##grad, #shape},

static const IrOpDef op_defs[] = {
#define OP ROW
#define OVERLOAD ROW
#include "ir/ops.def"
#undef OP
#undef OVERLOAD
};

static const char *const schema_texts[] = {
#define OP(kind, schema, family, shape, grad, flags, expr) schema,
#define OVERLOAD OP
#include "ir/ops.def"
#undef OP
#undef OVERLOAD
};

/* Each kind's rows in one run, the first an OP row: OVERLOAD rows belong to the kind above. */
static const int row_kinds[] = {
#define OP(kind, schema, family, shape, grad, flags, expr) IR_##kind,
#define OVERLOAD OP
#include "ir/ops.def"
#undef OP
#undef OVERLOAD
};

typedef struct {
  IrSchema **schemas;
  GPtrArray *per_kind[IR_KIND_COUNT]; /* of const IrSchema*, NULL for kinds without schemas */
} OpTable;

static const OpTable *op_table(void) {
  static gsize once;
  if (g_once_init_enter(&once)) {
    OpTable *t = g_new0(OpTable, 1);
    guint n = G_N_ELEMENTS(schema_texts);
    t->schemas = g_new0(IrSchema *, n);
    for (guint i = 0; i < n; i++) {
      GError *error = NULL;
      IrSchema *s = ir_schema_parse(schema_texts[i], &error);
      if (!s)
        g_error("op table invariant: ops.def schema does not parse: %s", error->message);
      if (s->kind < 0)
        g_error("op table invariant: ops.def schema names %s, which opkinds.def lacks", s->name);
      if (s->kind != row_kinds[i])
        g_error("op table invariant: ops.def row %u names kind %s but its schema is %s", i,
                ir_kind_name((IrOpKind)row_kinds[i]), s->name);
      s->index = i;
      t->schemas[i] = s;
      if (!t->per_kind[s->kind])
        t->per_kind[s->kind] = g_ptr_array_new();
      g_ptr_array_add(t->per_kind[s->kind], s);
    }
    g_once_init_leave(&once, (gsize)t);
  }
  return (const OpTable *)once;
}

const IrOpDef *ir_ops_def(guint index) {
  if (index >= G_N_ELEMENTS(op_defs))
    g_error("op table invariant: op index %u past %u entries", index, (guint)G_N_ELEMENTS(op_defs));
  return &op_defs[index];
}

const IrOpDef *ir_node_op_def(const IrNode *node) {
  return node->schema ? ir_ops_def(node->schema->index) : NULL;
}

IrDtypeRule ir_op_def_dtype_rule(const IrOpDef *def) {
  if (!def->pointwise)
    return IR_DTYPE_RULE_NONE;
  if (strcmp(def->shape_rule, "pointwise_float") == 0)
    return IR_DTYPE_RULE_FLOAT;
  if (strcmp(def->shape_rule, "pointwise_bool") == 0)
    return IR_DTYPE_RULE_BOOL;
  if (strcmp(def->shape_rule, "pointwise_long") == 0)
    return IR_DTYPE_RULE_LONG;
  return IR_DTYPE_RULE_PROMOTE;
}

/* Is the node a pointwise op (a schema whose row has an expression)? */
static bool ir_node_is_pointwise(const IrNode *node) {
  return node->schema && ir_ops_def(node->schema->index)->pointwise != NULL;
}

bool ir_node_is_fusible(const IrNode *node) {
  return ir_node_is_pointwise(node) &&
         (ir_ops_def(node->schema->index)->flags & IR_OPF_FUSIBLE_BIT) != 0;
}

bool ir_node_is_nondeterministic(const IrNode *node) {
  if (!node->schema || !(ir_ops_def(node->schema->index)->flags & IR_OPF_RANDOM))
    return false;
  if (node->kind != IR_ATEN_DROPOUT && node->kind != IR_ATEN_NATIVE_DROPOUT)
    return true;
  const IrValue *train = ir_input(node, 2);
  const IrAttr *value = train->node->kind == IR_PRIM_CONSTANT && train->type->kind == IR_TYPE_BOOL
                            ? ir_node_attr(train->node, IR_ATTR_VALUE)
                            : NULL;
  return !(value && value->kind == IR_ATTR_I && value->v.i == 0);
}

guint ir_ops_count(void) {
  return G_N_ELEMENTS(schema_texts);
}

const IrSchema *ir_ops_schema(guint index) {
  if (index >= ir_ops_count())
    g_error("op table invariant: schema index %u past %u entries", index, ir_ops_count());
  return op_table()->schemas[index];
}

const IrSchema *const *ir_ops_overloads(IrOpKind kind, guint *n) {
  if ((unsigned)kind >= IR_KIND_COUNT)
    g_error("op table invariant: node kind %d out of range", (int)kind);
  GPtrArray *list = op_table()->per_kind[kind];
  if (n)
    *n = list ? list->len : 0;
  return list ? (const IrSchema *const *)list->pdata : NULL;
}

const IrSchema *ir_node_resolve_schema(IrNode *node) {
  guint n = 0;
  const IrSchema *const *overloads = ir_ops_overloads(node->kind, &n);
  const IrType *stack_types[16];
  const IrType **types = ir_n_inputs(node) <= G_N_ELEMENTS(stack_types)
                             ? stack_types
                             : g_new(const IrType *, ir_n_inputs(node));
  for (guint i = 0; i < ir_n_inputs(node); i++)
    types[i] = ir_input(node, i)->type;
  node->schema = NULL;
  for (guint k = 0; k < n; k++) {
    if (ir_schema_matches(overloads[k], types, ir_n_inputs(node))) {
      node->schema = overloads[k];
      break;
    }
  }
  if (types != stack_types)
    g_free(types);
  return node->schema;
}
