/* Node kind names from opkinds.def, and the reverse lookup the parser uses. */
#include "ir/ir.h"

static const char *const kind_names[IR_KIND_COUNT] = {
#define K(id, name) [IR_##id] = name,
#include "ir/opkinds.def"
#undef K
};

const char *
ir_kind_name(IrOpKind kind)
{
  if ((unsigned)kind >= IR_KIND_COUNT)
    g_error("ir invariant: node kind %d out of range", (int)kind);
  return kind_names[kind];
}

static GHashTable *
kind_table(void)
{
  static gsize table;
  if (g_once_init_enter(&table)) {
    GHashTable *t = g_hash_table_new(g_str_hash, g_str_equal);
    for (int k = 0; k < IR_KIND_COUNT; k++)
      g_hash_table_insert(t, (gpointer)kind_names[k], GINT_TO_POINTER(k + 1));
    g_once_init_leave(&table, (gsize)t);
  }
  return (GHashTable *)table;
}

bool
ir_kind_from_name(const char *name, IrOpKind *out)
{
  gpointer v = g_hash_table_lookup(kind_table(), name);
  if (!v)
    return false;
  if (out)
    *out = (IrOpKind)(GPOINTER_TO_INT(v) - 1);
  return true;
}
