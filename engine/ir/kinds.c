/* Node kind names: opkinds.def's, and for op kinds the name of their OP row's schema
 * (ops.def), plus the reverse lookup the parser uses. */
#include <string.h>

#include "ir/ir.h"

static const char *const schema_kind_names[IR_KIND_COUNT] = {
#define K(id, name) [IR_##id] = name,
#include "ir/opkinds.def"
#undef K
#define OP(kind, schema, family, shape, grad, flags, expr) [IR_##kind] = schema,
#define OVERLOAD(kind, schema, family, shape, grad, flags, expr)
#include "ir/ops.def"
#undef OP
#undef OVERLOAD
};

/* "aten::add.Tensor(Tensor self, ...)" -> "aten::add" (interned); prim names as they are. */
static const char *kind_name_of(const char *text) {
  const char *colons = strstr(text, "::");
  const char *end = colons ? colons + 2 : text;
  while (*end && *end != '.' && *end != '(')
    end++;
  g_autofree char *name = g_strndup(text, (gsize)(end - text));
  return g_intern_string(name);
}

typedef struct {
  const char *names[IR_KIND_COUNT];
  GHashTable *by_name; /* name -> kind + 1 */
} KindTable;

static const KindTable *kind_table(void) {
  static gsize once;
  if (g_once_init_enter(&once)) {
    KindTable *t = g_new0(KindTable, 1);
    t->by_name = g_hash_table_new(g_str_hash, g_str_equal);
    for (int k = 0; k < IR_KIND_COUNT; k++) {
      t->names[k] = kind_name_of(schema_kind_names[k]);
      g_hash_table_insert(t->by_name, (gpointer)t->names[k], GINT_TO_POINTER(k + 1));
    }
    g_once_init_leave(&once, (gsize)t);
  }
  return (const KindTable *)once;
}

const char *ir_kind_name(IrOpKind kind) {
  if ((unsigned)kind >= IR_KIND_COUNT)
    g_error("ir invariant: node kind %d out of range", (int)kind);
  return kind_table()->names[kind];
}

bool ir_kind_from_name(const char *name, IrOpKind *out) {
  gpointer v = g_hash_table_lookup(kind_table()->by_name, name);
  if (!v)
    return false;
  if (out)
    *out = (IrOpKind)(GPOINTER_TO_INT(v) - 1);
  return true;
}
