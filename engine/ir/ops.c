/* The op table's schemas: every ops.def schema parsed once (thread-safe lazy init), grouped
 * into per-kind overload lists in table order, and overload resolution for nodes. Kernels
 * and elementwise expressions are looked up in op-defs.c, so that code that only builds and
 * resolves graphs does not link the CPU kernels. */
#include "ir/ops.h"

static const char *const schema_texts[] = {
#define OP(schema, kernel, pointwise) schema,
#include "ir/ops.def"
#undef OP
};

typedef struct {
  IrSchema **schemas;
  GPtrArray *per_kind[IR_KIND_COUNT]; /* of const IrSchema*, NULL for kinds without schemas */
} OpTable;

static const OpTable *
op_table(void)
{
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
        g_error("op table invariant: ops.def schema names %s, which opkinds.def lacks",
                s->name);
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

guint
ir_ops_count(void)
{
  return G_N_ELEMENTS(schema_texts);
}

const IrSchema *
ir_ops_schema(guint index)
{
  if (index >= ir_ops_count())
    g_error("op table invariant: schema index %u past %u entries", index, ir_ops_count());
  return op_table()->schemas[index];
}

const IrSchema *const *
ir_ops_overloads(IrOpKind kind, guint *n)
{
  if ((unsigned)kind >= IR_KIND_COUNT)
    g_error("op table invariant: node kind %d out of range", (int)kind);
  GPtrArray *list = op_table()->per_kind[kind];
  if (n)
    *n = list ? list->len : 0;
  return list ? (const IrSchema *const *)list->pdata : NULL;
}

const IrSchema *
ir_node_resolve_schema(IrNode *node)
{
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
