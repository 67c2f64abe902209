/* Values: ids, debug names with PyTorch's `.N` renaming rule (Value::setDebugName), types,
 * and use replacement. */
#include "ir/ir-internal.h"

#include <stdlib.h>
#include <string.h>

IrValue *ir_internal_value_new(IrGraph *graph, IrNode *node, guint offset, const IrType *type) {
  if (!type)
    g_error("ir invariant: a value needs a type");
  IrValue *v = ir_internal_alloc0(graph, sizeof(IrValue));
  v->node = node;
  v->offset = offset;
  v->id = graph->next_value_id++;
  v->type = type;
  v->uses = g_array_new(FALSE, FALSE, sizeof(IrUse));
  g_ptr_array_add(graph->all_values, v);
  return v;
}

static IrGraph *value_graph(const IrValue *value) {
  return value->node->graph;
}

void ir_internal_value_forget_name(IrValue *value) {
  if (!value->name)
    return;
  GHashTable *names = value_graph(value)->names;
  if (g_hash_table_lookup(names, value->name) == value)
    g_hash_table_remove(names, value->name);
  value->name = NULL;
}

void ir_internal_value_set_unique_name(IrValue *value, const char *name) {
  IrGraph *g = value_graph(value);
  ir_internal_value_forget_name(value);
  if (g_hash_table_contains(g->names, name))
    g_error("ir invariant: copied name '%s' is already taken", name);
  value->name = g_string_chunk_insert_const(g->strings, name);
  g_hash_table_insert(g->names, (gpointer)value->name, value);
}

static bool all_digits(const char *s) {
  if (!*s)
    return false;
  for (; *s; s++)
    if (!g_ascii_isdigit(*s))
      return false;
  return true;
}

void ir_value_set_name(IrValue *value, const char *name) {
  IrGraph *g = value_graph(value);
  if (name && value->name && strcmp(name, value->name) == 0)
    return;
  ir_internal_value_forget_name(value);
  if (!name || !*name || all_digits(name))
    return;

  IrValue *old_owner = g_hash_table_lookup(g->names, name);
  if (old_owner) {
    /* "base.N" continues the numbering of "base"; other names start at base.1. */
    guint64 suffix = 1;
    g_autofree char *base = g_strdup(name);
    char *dot = strrchr(base, '.');
    if (dot && dot[1] && all_digits(dot + 1)) {
      suffix = g_ascii_strtoull(dot + 1, NULL, 10);
      *dot = '\0';
    }
    /* As the reference: the table keeps one past the last suffix handed out for this base,
     * and the next rename starts one past that. Stored +1 so that NULL means absent. */
    gpointer known = g_hash_table_lookup(g->name_suffix, base);
    if (known) {
      guint64 last_next = (guint64)GPOINTER_TO_SIZE(known) - 1;
      if (last_next + 1 > suffix)
        suffix = last_next + 1;
    }
    g_autofree char *replacement = NULL;
    do {
      g_free(replacement);
      replacement = g_strdup_printf("%s.%" G_GUINT64_FORMAT, base, suffix++);
    } while (g_hash_table_contains(g->names, replacement));
    g_hash_table_insert(g->name_suffix, g_string_chunk_insert_const(g->strings, base),
                        GSIZE_TO_POINTER((gsize)suffix + 1));
    ir_internal_value_forget_name(old_owner);
    old_owner->name = g_string_chunk_insert_const(g->strings, replacement);
    g_hash_table_insert(g->names, (gpointer)old_owner->name, old_owner);
  }
  value->name = g_string_chunk_insert_const(g->strings, name);
  g_hash_table_insert(g->names, (gpointer)value->name, value);
}

void ir_value_set_id(IrValue *value, guint64 id) {
  IrGraph *g = value_graph(value);
  value->id = id;
  if (g->next_value_id <= id)
    g->next_value_id = id + 1;
}

void ir_value_set_type(IrValue *value, const IrType *type) {
  if (!type)
    g_error("ir invariant: a value needs a type");
  value->type = type;
}

bool ir_value_has_uses(const IrValue *value) {
  return value->uses->len > 0;
}

void ir_value_replace_all_uses_with(IrValue *value, IrValue *replacement) {
  if (value == replacement)
    return;
  if (value_graph(value) != value_graph(replacement))
    g_error("ir invariant: replace_all_uses_with across graphs");
  for (guint i = 0; i < value->uses->len; i++) {
    IrUse u = g_array_index(value->uses, IrUse, i);
    g_ptr_array_index(u.user->inputs, u.index) = replacement;
    g_array_append_val(replacement->uses, u);
  }
  g_array_set_size(value->uses, 0);
}

/* Is `user` at or after `after`, where a user nested inside `after` counts as at it. */
static bool at_or_after(const IrNode *user, const IrNode *after) {
  IrNode *anc = ir_node_ancestor_in((IrNode *)user, after->owning_block);
  if (anc)
    return anc == after || anc->topo > after->topo;
  return ir_node_is_after(user, after);
}

void ir_value_replace_uses_after(IrValue *value, IrValue *replacement, const IrNode *after) {
  if (value == replacement)
    return;
  if (value_graph(value) != value_graph(replacement))
    g_error("ir invariant: replace_uses_after across graphs");
  if (!after->owning_block)
    g_error("ir invariant: replace_uses_after relative to a detached node");
  guint kept = 0;
  for (guint i = 0; i < value->uses->len; i++) {
    IrUse u = g_array_index(value->uses, IrUse, i);
    if (at_or_after(u.user, after)) {
      g_ptr_array_index(u.user->inputs, u.index) = replacement;
      g_array_append_val(replacement->uses, u);
    } else {
      g_array_index(value->uses, IrUse, kept++) = u;
    }
  }
  g_array_set_size(value->uses, kept);
}

const char *ir_value_display_name(const IrValue *value, char buf[32]) {
  if (value->name)
    return value->name;
  /* The digits by hand: every printed and fingerprinted unnamed value comes here, and
   * g_snprintf cost a tenth of a plan's compile. */
  char *p = buf + 31;
  *p = '\0';
  guint64 id = value->id;
  do {
    *--p = (char)('0' + id % 10);
    id /= 10;
  } while (id > 0);
  return p;
}
