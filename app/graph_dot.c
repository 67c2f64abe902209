/* IR -> DOT text (contract in graph_dot.h). */
#include "graph_dot.h"

#include <string.h>

#define MAX_LABEL 4000

typedef struct {
  GString *out;
  /* Edges are written after every node: DOT makes a node a member of each subgraph that
   * mentions it, so an edge written inside a cluster would pull its far end in. */
  GString *edges;
  guint next_id;
  guint next_cluster;
  GHashTable *producer; /* IrValue* -> dot node id (char*, owned) */
} Dot;

static void append_escaped(GString *out, const char *text) {
  gsize len = strlen(text);
  bool cut = len > MAX_LABEL;
  if (cut)
    len = MAX_LABEL;
  for (gsize i = 0; i < len; i++) {
    char c = text[i];
    if (c == '"' || c == '\\')
      g_string_append_c(out, '\\');
    if (c == '\n')
      g_string_append(out, "\\l");
    else
      g_string_append_c(out, c);
  }
  if (cut)
    g_string_append(out, "...");
}

static char *value_ref(const IrValue *v) {
  char buf[32];
  return g_strdup_printf("%%%s", ir_value_display_name(v, buf));
}

static void append_attr_value(GString *out, const IrAttr *a, const IrType *type) {
  switch (a->kind) {
  case IR_ATTR_I:
    if (type && type->kind == IR_TYPE_BOOL)
      g_string_append(out, a->v.i ? "True" : "False");
    else
      g_string_append_printf(out, "%" G_GINT64_FORMAT, a->v.i);
    return;
  case IR_ATTR_F: {
    char buf[G_ASCII_DTOSTR_BUF_SIZE];
    g_string_append(out, g_ascii_formatd(buf, sizeof buf, "%g", a->v.f));
    return;
  }
  case IR_ATTR_S:
    g_string_append_printf(out, "\"%s\"", a->v.s);
    return;
  case IR_ATTR_IS:
    g_string_append_c(out, '[');
    for (guint k = 0; k < a->v.is->len; k++)
      g_string_append_printf(out, "%s%" G_GINT64_FORMAT, k ? ", " : "",
                             g_array_index(a->v.is, gint64, k));
    g_string_append_c(out, ']');
    return;
  case IR_ATTR_FS:
    g_string_append_c(out, '[');
    for (guint k = 0; k < a->v.fs->len; k++)
      g_string_append_printf(out, "%s%g", k ? ", " : "", g_array_index(a->v.fs, double, k));
    g_string_append_c(out, ']');
    return;
  case IR_ATTR_SS:
    g_string_append_printf(out, "[%u strings]", a->v.ss->len);
    return;
  case IR_ATTR_T:
  case IR_ATTR_TS:
    g_string_append(out, "<Tensor>");
    return;
  case IR_ATTR_G:
  case IR_ATTR_GS:
    g_string_append(out, "<Graph>");
    return;
  }
}

static bool is_constant(const IrValue *v) {
  return v->node->kind == IR_PRIM_CONSTANT;
}

/* The constant's value as inlined in its users' labels. */
static void append_constant(GString *out, const IrValue *v) {
  const IrAttr *a = ir_node_attr(v->node, IR_ATTR_VALUE);
  if (a == NULL)
    g_string_append(out, "None");
  else
    append_attr_value(out, a, v->type);
}

/* Name of input `index` of `node` for labels: the schema argument name when known. */
static void append_input_name(GString *out, const IrNode *node, guint index) {
  if (node->schema && index < node->schema->n_args)
    g_string_append(out, node->schema->args[index].name);
  else if (node->kind == IR_PRIM_LOOP && index < 2)
    g_string_append(out, index == 0 ? "max_trip_count" : "cond");
  else
    g_string_append_printf(out, "#%u", index);
}

static void emit_node_decl(Dot *dot, const char *id, const char *shape, const char *style,
                           const char *label) {
  g_string_append_printf(dot->out, "  %s [shape=%s%s%s, label=\"", id, shape,
                         style ? ", style=" : "", style ? style : "");
  append_escaped(dot->out, label);
  g_string_append(dot->out, "\\l\"];\n");
}

/* Edges into `user_id` from the producers of `inputs` (constants skipped). */
static void emit_input_edges(Dot *dot, const char *user_id, const IrNode *user,
                             const GPtrArray *inputs) {
  guint non_constant = 0;
  for (guint i = 0; i < inputs->len; i++)
    non_constant += !is_constant(g_ptr_array_index(inputs, i));
  for (guint i = 0; i < inputs->len; i++) {
    const IrValue *v = g_ptr_array_index(inputs, i);
    if (is_constant(v))
      continue;
    const char *from = g_hash_table_lookup(dot->producer, v);
    if (from == NULL)
      continue; /* defined in a scope this drawing does not show */
    g_string_append_printf(dot->edges, "  %s -> %s", from, user_id);
    if (non_constant > 1) {
      GString *label = g_string_new(NULL);
      if (user)
        append_input_name(label, user, i);
      else
        g_string_append_printf(label, "%u", i);
      g_string_append(dot->edges, " [label=\"");
      append_escaped(dot->edges, label->str);
      g_string_append(dot->edges, "\"]");
      g_string_free(label, TRUE);
    }
    g_string_append(dot->edges, ";\n");
  }
}

static char *new_id(Dot *dot) {
  return g_strdup_printf("n%u", dot->next_id++);
}

/* A `return (...)` / `-> (...)` node listing the outputs, constants inlined. */
static void emit_return(Dot *dot, const char *title, const GPtrArray *outputs) {
  GString *label = g_string_new(title);
  g_string_append(label, " (");
  for (guint i = 0; i < outputs->len; i++) {
    const IrValue *v = g_ptr_array_index(outputs, i);
    if (i)
      g_string_append(label, ", ");
    if (is_constant(v)) {
      append_constant(label, v);
    } else {
      char *name = value_ref(v);
      g_string_append(label, name);
      g_free(name);
    }
  }
  g_string_append_c(label, ')');
  char *id = new_id(dot);
  emit_node_decl(dot, id, "invhouse", NULL, label->str);
  emit_input_edges(dot, id, NULL, outputs);
  g_free(id);
  g_string_free(label, TRUE);
}

static void emit_block(Dot *dot, const IrBlock *block, const char *entry_label, char **entry_id);

static void emit_subgraph_cluster(Dot *dot, const char *owner_id, const IrNode *owner,
                                  const IrAttr *a, const IrGraph *g) {
  guint cluster = dot->next_cluster++;
  GString *title = g_string_new(NULL);
  g_string_append_printf(title, "%s %s", ir_kind_name(owner->kind), a->name);
  g_string_append_printf(dot->out, "  subgraph cluster_%u {\n  label=\"", cluster);
  append_escaped(dot->out, title->str);
  g_string_append(dot->out, "\"; style=dashed;\n");
  char *entry = NULL;
  emit_block(dot, g->block, "graph", &entry);
  g_string_append(dot->out, "  }\n");
  g_string_append_printf(dot->edges, "  %s -> %s [style=dashed, label=\"%s\"];\n", owner_id, entry,
                         a->name);
  g_free(entry);
  g_string_free(title, TRUE);
}

static void emit_node(Dot *dot, const IrNode *n) {
  char *id = new_id(dot);
  GString *label = g_string_new(ir_kind_name(n->kind));
  bool any_attr = false;
  for (guint i = 0; i < n->attrs->len; i++) {
    const IrAttr *a = &g_array_index(n->attrs, IrAttr, i);
    if (a->kind == IR_ATTR_G || a->kind == IR_ATTR_GS)
      continue;
    g_string_append(label, any_attr ? ", " : "[");
    g_string_append_printf(label, "%s=", a->name);
    append_attr_value(label, a, NULL);
    any_attr = true;
  }
  if (any_attr)
    g_string_append_c(label, ']');
  bool any_constant = false;
  for (guint i = 0; i < ir_n_inputs(n); i++) {
    const IrValue *v = ir_input(n, i);
    if (!is_constant(v))
      continue;
    g_string_append(label, any_constant ? ", " : "\n");
    append_input_name(label, n, i);
    g_string_append_c(label, '=');
    append_constant(label, v);
    any_constant = true;
  }
  for (guint i = 0; i < ir_n_outputs(n); i++) {
    const IrValue *v = ir_output(n, i);
    char *name = value_ref(v);
    char *type = ir_type_to_string(v->type);
    g_string_append_printf(label, "\n%s : %s", name, type);
    g_free(name);
    g_free(type);
    g_hash_table_insert(dot->producer, (gpointer)v, g_strdup(id));
  }
  emit_node_decl(dot, id, "box", n->kind == IR_PRIM_GRAD_OF ? "\"rounded,bold\"" : NULL,
                 label->str);
  emit_input_edges(dot, id, n, n->inputs);
  g_string_free(label, TRUE);

  for (guint b = 0; b < ir_n_blocks(n); b++) {
    guint cluster = dot->next_cluster++;
    char *title = g_strdup_printf("%s block%u", ir_kind_name(n->kind), b);
    g_string_append_printf(dot->out, "  subgraph cluster_%u {\n  label=\"", cluster);
    append_escaped(dot->out, title);
    g_string_append(dot->out, "\"; style=rounded;\n");
    char *entry_label = g_strdup_printf("block%u", b);
    char *entry = NULL;
    emit_block(dot, ir_block(n, b), entry_label, &entry);
    g_string_append(dot->out, "  }\n");
    g_string_append_printf(dot->edges, "  %s -> %s [style=dashed];\n", id, entry);
    g_free(entry);
    g_free(entry_label);
    g_free(title);
  }
  for (guint i = 0; i < n->attrs->len; i++) {
    const IrAttr *a = &g_array_index(n->attrs, IrAttr, i);
    if (a->kind == IR_ATTR_G)
      emit_subgraph_cluster(dot, id, n, a, a->v.g);
    else if (a->kind == IR_ATTR_GS)
      for (guint k = 0; k < a->v.gs->len; k++)
        emit_subgraph_cluster(dot, id, n, a, g_ptr_array_index(a->v.gs, k));
  }
  g_free(id);
}

/* Emits a block: an entry node listing its inputs ("graph(...)" / "block0(...)"), its nodes
 * and its return node. *entry_id receives the entry node's id. */
static void emit_block(Dot *dot, const IrBlock *block, const char *entry_label,
                       char **entry_id) {
  const GPtrArray *inputs = ir_block_inputs(block);
  bool top = block->owning_node == NULL && strcmp(entry_label, "graph") == 0;
  *entry_id = NULL;
  if (top && inputs->len > 0) {
    /* Graph inputs: one ellipse each, the first one is the entry. */
    for (guint i = 0; i < inputs->len; i++) {
      const IrValue *v = g_ptr_array_index(inputs, i);
      char *id = new_id(dot);
      char *name = value_ref(v);
      char *type = ir_type_to_string(v->type);
      char *label = g_strdup_printf("%s : %s", name, type);
      emit_node_decl(dot, id, "ellipse", NULL, label);
      g_hash_table_insert(dot->producer, (gpointer)v, g_strdup(id));
      if (*entry_id == NULL)
        *entry_id = g_strdup(id);
      g_free(label);
      g_free(type);
      g_free(name);
      g_free(id);
    }
  } else {
    char *id = new_id(dot);
    GString *label = g_string_new(entry_label);
    g_string_append_c(label, '(');
    for (guint i = 0; i < inputs->len; i++) {
      const IrValue *v = g_ptr_array_index(inputs, i);
      char *name = value_ref(v);
      char *type = ir_type_to_string(v->type);
      g_string_append_printf(label, "%s%s : %s", i ? ", " : "", name, type);
      g_free(name);
      g_free(type);
      g_hash_table_insert(dot->producer, (gpointer)v, g_strdup(id));
    }
    g_string_append_c(label, ')');
    emit_node_decl(dot, id, top ? "ellipse" : "plaintext", NULL, label->str);
    *entry_id = id;
    g_string_free(label, TRUE);
  }
  IR_FOR_EACH_NODE(n, block) {
    if (n->kind != IR_PRIM_CONSTANT)
      emit_node(dot, n);
  }
  emit_return(dot, block->owning_node ? "->" : "return", ir_block_outputs(block));
}

char *app_graph_to_dot(const IrGraph *graph) {
  Dot dot = {
      .out = g_string_new(NULL),
      .edges = g_string_new(NULL),
      .producer = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free),
  };
  g_string_append(dot.out, "digraph jitscope {\n"
                           "  graph [fontname=\"monospace\", fontsize=10];\n"
                           "  node [fontname=\"monospace\", fontsize=10];\n"
                           "  edge [fontname=\"monospace\", fontsize=9];\n");
  char *entry = NULL;
  emit_block(&dot, graph->block, "graph", &entry);
  g_free(entry);
  g_string_append(dot.out, dot.edges->str);
  g_string_free(dot.edges, TRUE);
  g_string_append(dot.out, "}\n");
  g_hash_table_unref(dot.producer);
  return g_string_free(dot.out, FALSE);
}
