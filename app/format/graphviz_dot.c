/* IR -> DOT for the canvas (contract in graphviz_dot.h). */
#include "graphviz_dot.h"

#include <stdio.h>
#include <string.h>

#include "ir/text.h"

#define MAX_LABEL 4000
#define DEFAULT_COLLAPSE_ABOVE 150
#define FAST_LAYOUT_ABOVE 300
#define FASTER_LAYOUT_ABOVE 2000
#define PROXY_USES 3

typedef struct {
  const char *fill, *pen, *font, *added_fill, *added_pen, *changed_fill, *changed_pen;
  const char *input_fill, *none_fill, *optional_edge, *edge;
  const char *gradof_bg, *block_bg, *diff_bg, *fusion_bg, *cluster_pen, *edge_label;
  const char *removed_fill, *removed_pen, *removed_font; /* faded: show_removed */
  const char *scope_bg;                                  /* an inlined call's or a module's scope */
} Palette;

static const Palette light = {"#ffffff", "#4a4a4a", "#1a1a1a", "#c8f7c5", "#1e7b45", "#ffe0b2",
                              "#d35400", "#e3f2fd", "#d0d0d0", "#8e24aa", "#555555", "#fff8e1",
                              "#f3e5f5", "#e8f5e9", "#e0f7fa", "#9e9e9e", "#546e7a", "#fbe9e7",
                              "#d7a9a0", "#a1887f", "#f5f5f5"};
static const Palette dark = {"#2b2b2b", "#b0b0b0", "#eeeeee", "#1f4d2c", "#6fdc8c", "#5a3b12",
                             "#ffb74d", "#1a3550", "#4a4a4a", "#ce93d8", "#aaaaaa", "#3a3320",
                             "#33263a", "#1f3324", "#173538", "#707070", "#b0bec5", "#33282a",
                             "#6d4c47", "#8d6e63", "#323232"};

typedef struct {
  const AppDotOptions *opt;
  const Palette *pal;
  GString *out;
  GString *edges;       /* written after every node so that no edge pulls a node into a cluster */
  GHashTable *previous; /* "prefix|origin" -> the node's line in the previous stage */
  GHashTable *current;  /* keys seen now */
  AppDotStats stats;
  bool collapse_default;
  bool proxy_inputs; /* large graph: widely used graph inputs get a copy per use */
  guint next_none;
  guint next_cluster;
  GHashTable *declared; /* ids declared so far, when only edges between them are wanted */
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
      g_string_append(out, "\\n");
    else
      g_string_append_c(out, c);
  }
  if (cut)
    g_string_append(out, "...");
}

static guint count_block(const IrBlock *block) {
  guint n = 0;
  IR_FOR_EACH_NODE(node, block) {
    n++;
    for (guint b = 0; b < ir_n_blocks(node); b++)
      n += count_block(ir_block(node, b));
    const IrAttr *sub = ir_node_attr(node, IR_ATTR_SUBGRAPH);
    if (sub && sub->kind == IR_ATTR_G)
      n += count_block(sub->v.g->block);
  }
  return n;
}

guint app_graphviz_count_nodes(const IrGraph *graph) {
  return count_block(graph->block);
}

static bool is_none_constant(const IrValue *v) {
  return v->node->kind == IR_PRIM_CONSTANT && ir_node_attr(v->node, IR_ATTR_VALUE) == NULL &&
         v->type->kind == IR_TYPE_NONE;
}

static bool is_optional_int_list(const IrType *t) {
  return t->kind == IR_TYPE_OPTIONAL && t->elem->kind == IR_TYPE_LIST &&
         t->elem->elem->kind == IR_TYPE_INT;
}

static char *node_id(const char *prefix, const IrNode *node) {
  return g_strdup_printf("%sn%" G_GUINT64_FORMAT, prefix, node->origin);
}

static guint block_index(const IrBlock *block) {
  const IrNode *owner = block->owning_node;
  for (guint b = 0; b < ir_n_blocks(owner); b++)
    if (ir_block(owner, b) == block)
      return b;
  return 0;
}

/* The DOT node a value comes from. */
static char *source_id(const char *prefix, const IrValue *v) {
  const IrNode *producer = v->node;
  if (producer->kind == IR_PRIM_PARAM) {
    const IrBlock *block = producer->owning_block;
    if (!block || !block->owning_node)
      return g_strdup_printf("%si%u", prefix, v->offset);
    g_autofree char *owner = node_id(prefix, block->owning_node);
    return g_strdup_printf("%s_b%ui", owner, block_index(block));
  }
  return node_id(prefix, producer);
}

/* A constant's value as inlined in labels. */
static void append_constant(GString *out, const IrValue *v) {
  g_autoptr(GString) line = g_string_new(NULL);
  ir_node_print_line(line, v->node);
  /* "%c : int = prim::Constant[value=1]()" -> "1"; the attribute list ends at the last "]()",
   * before a trailing ", scope: Net/Linear[fc]" */
  const char *value = strstr(line->str, "[value=");
  if (value) {
    const char *start = value + 7, *end = NULL;
    for (const char *at = strstr(start, "]()"); at; at = strstr(at + 1, "]()"))
      end = at;
    g_string_append_len(out, start, end ? end - start : (gssize)strlen(start));
  } else {
    g_string_append(out, "None");
  }
}

static void append_input_name(GString *out, const IrNode *node, guint index) {
  if (node->schema && index < node->schema->n_args)
    g_string_append(out, node->schema->args[index].name);
  else
    g_string_append_printf(out, "#%u", index);
}

static void append_attrs(GString *label, const IrNode *node) {
  g_autoptr(GString) line = g_string_new(NULL);
  ir_node_print_line(line, node);
  /* The printed line has the attributes as "kind[a=1, b=2](...)": show the bracket part. */
  const char *kind = ir_node_kind_name(node);
  const char *at = strstr(line->str, kind);
  g_string_append(label, kind);
  if (at && at[strlen(kind)] == '[') {
    const char *start = at + strlen(kind);
    int depth = 0;
    const char *p = start;
    for (; *p; p++) {
      if (*p == '[')
        depth++;
      else if (*p == ']' && --depth == 0)
        break;
    }
    if (*p == ']')
      g_string_append_len(label, start, p - start + 1);
  }
}

static void append_outputs(GString *label, const GPtrArray *outputs) {
  for (guint i = 0; i < outputs->len; i++) {
    const IrValue *v = g_ptr_array_index(outputs, i);
    char buf[32];
    g_autofree char *type = ir_type_to_string(v->type);
    g_string_append_printf(label, "\n%%%s : %s", ir_value_display_name(v, buf), type);
  }
}

static void append_inlined_constants(GString *label, const IrNode *node) {
  for (guint i = 0; i < node->inputs->len; i++) {
    const IrValue *v = g_ptr_array_index(node->inputs, i);
    if (v->node->kind != IR_PRIM_CONSTANT || is_none_constant(v))
      continue;
    g_string_append_c(label, '\n');
    append_input_name(label, node, i);
    g_string_append_c(label, '=');
    append_constant(label, v);
  }
}

/* The value's id (graphviz_dot.h): "<DOT node it comes from>:<output index>". */
static char *value_id(const char *prefix, const IrValue *v) {
  g_autofree char *src = source_id(prefix, v);
  const IrBlock *block = v->node->owning_block;
  bool own_node = v->node->kind == IR_PRIM_PARAM && !(block && block->owning_node);
  return g_strdup_printf("%s:%u", src, own_node ? 0 : v->offset);
}

/* ` [id="<value>-><user>:<input>"` and, with edge types on, the value's type as its label. */
static void append_edge_head(Dot *dot, const char *prefix, const IrValue *v, const char *user_id,
                             guint input, bool type_label, const char *color) {
  g_autofree char *vid = value_id(prefix, v);
  g_string_append_printf(dot->edges, " [id=\"%s->%s:%u\"", vid, user_id, input);
  if (type_label) {
    g_autofree char *type = ir_type_to_string(v->type);
    g_string_append(dot->edges, ", label=\"");
    append_escaped(dot->edges, type);
    g_string_append_printf(dot->edges, "\", fontsize=8, fontcolor=\"%s\"", color);
  }
}

/* Edges from the producers of `inputs` into `user_id`; None constants get a diamond each. */
static void emit_edges(Dot *dot, const char *prefix, const char *user_id, const GPtrArray *inputs) {
  for (guint i = 0; i < inputs->len; i++) {
    const IrValue *v = g_ptr_array_index(inputs, i);
    if (is_none_constant(v)) {
      g_autofree char *id = g_strdup_printf("%snone%u", prefix, dot->next_none++);
      if (dot->declared)
        g_hash_table_add(dot->declared, g_strdup(id));
      g_string_append_printf(dot->out,
                             "  %s [shape=diamond, label=\"None\", fontsize=8, style=filled, "
                             "fillcolor=\"%s\", color=\"%s\", fontcolor=\"%s\"];\n",
                             id, dot->pal->none_fill, dot->pal->pen, dot->pal->font);
      g_string_append_printf(dot->edges, "  %s -> %s", id, user_id);
      append_edge_head(dot, prefix, v, user_id, i, false, dot->pal->pen);
      g_string_append_printf(dot->edges, ", style=dotted, color=\"%s\"];\n", dot->pal->pen);
      continue;
    }
    if (v->node->kind == IR_PRIM_CONSTANT)
      continue;
    g_autofree char *src = source_id(prefix, v);
    /* An input of the top graph used many times would pull long edges across the whole
     * drawing (dot's cost follows edge span): give each use its own copy next to the user. */
    if (dot->proxy_inputs && *prefix == '\0' && v->node->kind == IR_PRIM_PARAM &&
        !v->node->owning_block->owning_node && v->uses->len > PROXY_USES) {
      char buf[32];
      g_free(src);
      src = g_strdup_printf("%snone%u", prefix, dot->next_none++);
      if (dot->declared)
        g_hash_table_add(dot->declared, g_strdup(src));
      g_string_append_printf(
          dot->out,
          "  %s [shape=ellipse, label=\"%%%s\", fontsize=8, style=\"dashed,filled\", "
          "fillcolor=\"%s\", color=\"%s\", fontcolor=\"%s\"];\n",
          src, ir_value_display_name(v, buf), dot->pal->input_fill, dot->pal->pen, dot->pal->font);
    }
    g_string_append_printf(dot->edges, "  %s -> %s", src, user_id);
    if (is_optional_int_list(v->type)) {
      /* always labelled: `int[]?` values are visibly different from plain `int[]` */
      append_edge_head(dot, prefix, v, user_id, i, true, dot->pal->optional_edge);
      g_string_append_printf(dot->edges, ", color=\"%s\", penwidth=2];\n", dot->pal->optional_edge);
    } else {
      append_edge_head(dot, prefix, v, user_id, i, dot->opt->edge_types, dot->pal->edge_label);
      g_string_append_printf(dot->edges, ", color=\"%s\"];\n", dot->pal->edge);
    }
  }
}

/* How a node compares with the previous stage: 0 same, 1 added, 2 changed. */
static int diff_state(Dot *dot, const char *prefix, const IrNode *node) {
  char *key = g_strdup_printf("%s|%" G_GUINT64_FORMAT, prefix, node->origin);
  g_hash_table_add(dot->current, key);
  if (!dot->previous)
    return 0;
  const char *before = g_hash_table_lookup(dot->previous, key);
  if (!before)
    return 1;
  g_autoptr(GString) line = g_string_new(NULL);
  ir_node_print_line(line, node);
  return strcmp(line->str, before) == 0 ? 0 : 2;
}

static void emit_decl(Dot *dot, const char *id, const char *shape, const char *label, int state,
                      const char *fill, const char *extra) {
  const Palette *p = dot->pal;
  const char *pen = p->pen;
  if (state == 1) {
    fill = p->added_fill;
    pen = p->added_pen;
    dot->stats.added++;
  } else if (state == 2) {
    fill = p->changed_fill;
    pen = p->changed_pen;
    dot->stats.changed++;
  }
  if (dot->declared)
    g_hash_table_add(dot->declared, g_strdup(id));
  g_string_append_printf(dot->out,
                         "  %s [shape=%s, style=\"rounded,filled\", fillcolor=\"%s\", "
                         "color=\"%s\", fontcolor=\"%s\"%s%s, label=\"",
                         id, shape, fill, pen, p->font, state ? ", penwidth=2.5" : "",
                         extra ? extra : "");
  append_escaped(dot->out, label);
  g_string_append(dot->out, "\"];\n");
}

static void emit_block(Dot *dot, const char *prefix, const IrBlock *block);
static void emit_inside(Dot *dot, const char *prefix, const char *id, const IrNode *node);

static void open_cluster(Dot *dot, const char *label, const char *bg) {
  g_string_append_printf(dot->out, "subgraph cluster_%u {\n  label=\"", dot->next_cluster++);
  append_escaped(dot->out, label);
  g_string_append_printf(dot->out,
                         "\"; style=\"rounded,filled\"; fillcolor=\"%s\"; color=\"%s\"; "
                         "fontcolor=\"%s\"; fontsize=10;\n",
                         bg, dot->pal->cluster_pen, dot->pal->font);
}

static bool is_collapsed(Dot *dot, const char *id) {
  bool collapsed = dot->collapse_default;
  if (dot->opt->toggled && g_hash_table_contains(dot->opt->toggled, id))
    collapsed = !collapsed;
  return collapsed;
}

/* A Subgraph attribute's body: a cluster with its inputs, nodes and return. */
static void emit_subgraph(Dot *dot, const char *owner_id, const IrNode *owner, IrGraph *body) {
  g_autofree char *title = g_strdup_printf("%s body", ir_kind_name(owner->kind));
  open_cluster(dot, title,
               owner->kind == IR_PRIM_FUSION_GROUP ? dot->pal->fusion_bg : dot->pal->diff_bg);
  g_autofree char *prefix = g_strdup_printf("%s_", owner_id);
  GPtrArray *params = body->block->param->outputs;
  for (guint i = 0; i < params->len; i++) {
    const IrValue *v = g_ptr_array_index(params, i);
    char buf[32];
    g_autofree char *type = ir_type_to_string(v->type);
    g_autofree char *label = g_strdup_printf("%%%s : %s", ir_value_display_name(v, buf), type);
    g_autofree char *id = g_strdup_printf("%si%u", prefix, i);
    emit_decl(dot, id, "ellipse", label, 0, dot->pal->input_fill, NULL);
    g_string_append_printf(dot->edges, "  %s -> %s [style=dashed, color=\"%s\"];\n", owner_id, id,
                           dot->pal->cluster_pen);
  }
  emit_block(dot, prefix, body->block);
  g_string_append(dot->out, "}\n");
}

static void emit_node(Dot *dot, const char *prefix, const IrNode *node) {
  if (node->kind == IR_PRIM_CONSTANT)
    return;
  dot->stats.nodes++;
  g_autofree char *id = node_id(prefix, node);
  g_autoptr(GString) label = g_string_new(NULL);
  append_attrs(label, node);
  append_inlined_constants(label, node);
  const IrAttr *sub = ir_node_attr(node, IR_ATTR_SUBGRAPH);
  bool has_body = sub && sub->kind == IR_ATTR_G;
  bool owner = has_body || ir_n_blocks(node) > 0;
  bool collapsed = owner && is_collapsed(dot, id);
  /* Laid out on its own (app_graphviz_dot_cluster) and drawn into this node's box. */
  const char *separate = owner && !collapsed && dot->opt->separate
                             ? g_hash_table_lookup(dot->opt->separate, id)
                             : NULL;
  if (collapsed) {
    guint inner = has_body ? count_block(sub->v.g->block) : 0;
    for (guint b = 0; b < ir_n_blocks(node); b++)
      inner += count_block(ir_block(node, b));
    if (has_body)
      g_string_append_printf(label, "\n(%u nodes folded)", inner);
    else
      g_string_append_printf(label, "\n(%u block%s, %u nodes folded)", ir_n_blocks(node),
                             ir_n_blocks(node) == 1 ? "" : "s", inner);
    dot->stats.collapsed++;
  }
  append_outputs(label, node->outputs);
  int state = diff_state(dot, prefix, node);
  g_autofree char *extra = NULL;
  if (separate) {
    double w = 0, h = 0;
    sscanf(separate, "%lf,%lf", &w, &h);
    char wb[G_ASCII_DTOSTR_BUF_SIZE], hb[G_ASCII_DTOSTR_BUF_SIZE];
    /* the label on top, the body's layout below it (labelloc=t), sizes in inches */
    extra = g_strdup_printf(
        ", peripheries=2, fixedsize=true, labelloc=t, width=%s, height=%s",
        g_ascii_formatd(wb, sizeof wb, "%.3f", w / 72.0),
        g_ascii_formatd(hb, sizeof hb, "%.3f", (h + 14.0 * (1 + node->outputs->len)) / 72.0));
  }
  emit_decl(dot, id, "box", label->str, state, dot->pal->fill,
            extra   ? extra
            : owner ? ", peripheries=2"
                    : NULL);
  emit_edges(dot, prefix, id, node->inputs);
  if (!collapsed && !separate)
    emit_inside(dot, prefix, id, node);
}

/* An owner's blocks and subgraph body as clusters. */
static void emit_inside(Dot *dot, const char *prefix, const char *id, const IrNode *node) {
  for (guint b = 0; b < ir_n_blocks(node); b++) {
    const IrBlock *block = ir_block(node, b);
    g_autofree char *title = NULL;
    const char *bg = dot->pal->block_bg;
    if (node->kind == IR_PRIM_GRAD_OF) {
      const IrAttr *name = ir_node_attr(node, IR_ATTR_NAME);
      title = g_strdup_printf("GradOf %s", name && name->kind == IR_ATTR_S ? name->v.s : "?");
      bg = dot->pal->gradof_bg;
    } else if (node->kind == IR_PRIM_IF) {
      title = g_strdup(b == 0 ? "If then" : "If else");
    } else if (node->kind == IR_PRIM_LOOP) {
      title = g_strdup("Loop body");
    } else {
      title = g_strdup_printf("%s block %u", ir_kind_name(node->kind), b);
    }
    open_cluster(dot, title, bg);
    g_autofree char *in_id = g_strdup_printf("%s_b%ui", id, b);
    g_autoptr(GString) in_label = g_string_new(b == 0 ? "block 0" : NULL);
    if (b > 0)
      g_string_append_printf(in_label, "block %u", b);
    append_outputs(in_label, block->param->outputs);
    emit_decl(dot, in_id, "cds", in_label->str, 0, dot->pal->input_fill, NULL);
    g_string_append_printf(dot->edges, "  %s -> %s [style=dashed, color=\"%s\"];\n", id, in_id,
                           dot->pal->cluster_pen);
    emit_block(dot, prefix, block);
    g_string_append(dot->out, "}\n");
  }
  const IrAttr *sub = ir_node_attr(node, IR_ATTR_SUBGRAPH);
  if (sub && sub->kind == IR_ATTR_G)
    emit_subgraph(dot, id, node, sub->v.g);
}

/* The nodes of a block grouped by scope: one level of a scope path ("Model", then
 * "F.linear" under it), its nodes in block order and the next levels under it. */
typedef struct ScopeGroup ScopeGroup;
struct ScopeGroup {
  char *name;          /* this level's part of the path; NULL at the root */
  GPtrArray *nodes;    /* const IrNode*, in block order */
  GPtrArray *children; /* ScopeGroup*, in order of first appearance */
};

static ScopeGroup *scope_group_new(const char *name) {
  ScopeGroup *g = g_new0(ScopeGroup, 1);
  g->name = g_strdup(name);
  g->nodes = g_ptr_array_new();
  g->children = g_ptr_array_new();
  return g;
}

static void scope_group_free(ScopeGroup *g) {
  for (guint i = 0; i < g->children->len; i++)
    scope_group_free(g_ptr_array_index(g->children, i));
  g_ptr_array_unref(g->children);
  g_ptr_array_unref(g->nodes);
  g_free(g->name);
  g_free(g);
}

static ScopeGroup *scope_child(ScopeGroup *g, const char *name) {
  for (guint i = 0; i < g->children->len; i++) {
    ScopeGroup *child = g_ptr_array_index(g->children, i);
    if (strcmp(child->name, name) == 0)
      return child;
  }
  ScopeGroup *child = scope_group_new(name);
  g_ptr_array_add(g->children, child);
  return child;
}

static void emit_scope_group(Dot *dot, const char *prefix, const ScopeGroup *g) {
  for (guint i = 0; i < g->nodes->len; i++)
    emit_node(dot, prefix, g_ptr_array_index(g->nodes, i));
  for (guint i = 0; i < g->children->len; i++) {
    const ScopeGroup *child = g_ptr_array_index(g->children, i);
    open_cluster(dot, child->name, dot->pal->scope_bg);
    emit_scope_group(dot, prefix, child);
    g_string_append(dot->out, "}\n");
  }
}

/* The nodes of a block and its return ("r" for the top block of a graph, "<owner>_b<k>o").
 * Nodes with a scope (what the inliner or an early trace's `scope:` says they came from) are
 * drawn in nested clusters labelled by the scope path's parts, so an inlined call or a
 * module reads as one box; the rest stay at the block's level. */
static void emit_block(Dot *dot, const char *prefix, const IrBlock *block) {
  ScopeGroup *root = scope_group_new(NULL);
  IR_FOR_EACH_NODE(node, block) {
    ScopeGroup *group = root;
    if (node->scope && node->kind != IR_PRIM_CONSTANT) {
      g_auto(GStrv) parts = g_strsplit(node->scope, "/", -1);
      for (guint i = 0; parts[i]; i++)
        if (*parts[i])
          group = scope_child(group, parts[i]);
    }
    g_ptr_array_add(group->nodes, (gpointer)node);
  }
  emit_scope_group(dot, prefix, root);
  scope_group_free(root);
  g_autofree char *ret_id = NULL;
  if (block->owning_node) {
    g_autofree char *owner = node_id(prefix, block->owning_node);
    ret_id = g_strdup_printf("%s_b%uo", owner, block_index(block));
  } else {
    ret_id = g_strdup_printf("%sr", prefix);
  }
  g_autoptr(GString) label = g_string_new(block->owning_node ? "-> block outputs" : "return");
  for (guint i = 0; i < block->ret->inputs->len; i++) {
    const IrValue *v = g_ptr_array_index(block->ret->inputs, i);
    if (v->node->kind == IR_PRIM_CONSTANT) {
      g_string_append_printf(label, "\n#%u=", i);
      append_constant(label, v);
    }
  }
  emit_decl(dot, ret_id, "invhouse", label->str, 0, dot->pal->input_fill, NULL);
  emit_edges(dot, prefix, ret_id, block->ret->inputs);
}

/* Every node's line of `graph`, keyed as diff_state keys them. */
static void collect_lines(GHashTable *lines, const char *prefix, const IrBlock *block) {
  IR_FOR_EACH_NODE(node, block) {
    if (node->kind == IR_PRIM_CONSTANT)
      continue;
    GString *line = g_string_new(NULL);
    ir_node_print_line(line, node);
    g_hash_table_insert(lines, g_strdup_printf("%s|%" G_GUINT64_FORMAT, prefix, node->origin),
                        g_string_free(line, FALSE));
    for (guint b = 0; b < ir_n_blocks(node); b++)
      collect_lines(lines, prefix, ir_block(node, b));
    const IrAttr *sub = ir_node_attr(node, IR_ATTR_SUBGRAPH);
    if (sub && sub->kind == IR_ATTR_G) {
      g_autofree char *id = node_id(prefix, node);
      g_autofree char *inner = g_strdup_printf("%s_", id);
      collect_lines(lines, inner, sub->v.g->block);
    }
  }
}

static void dot_begin(Dot *dot, const AppDotOptions *options, guint total) {
  static const AppDotOptions defaults = {0};
  if (!options)
    options = &defaults;
  *dot = (Dot){.opt = options, .pal = options->dark ? &dark : &light};
  dot->out = g_string_new(NULL);
  dot->edges = g_string_new(NULL);
  dot->current = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  if (options->previous) {
    dot->previous = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    collect_lines(dot->previous, "", options->previous->block);
  }
  guint above = options->collapse_above ? options->collapse_above : DEFAULT_COLLAPSE_ABOVE;
  dot->proxy_inputs = total > FAST_LAYOUT_ABOVE;
  dot->collapse_default = options->collapse == APP_DOT_COLLAPSE_ALL ||
                          (options->collapse == APP_DOT_COLLAPSE_AUTO && total > above);

  g_string_append_printf(dot->out, "digraph G {\n  graph [rankdir=TB, ranksep=0.3, nodesep=0.25, "
                                   "fontname=\"Sans\", bgcolor=\"transparent\"");
  if (total > FASTER_LAYOUT_ABOVE)
    g_string_append(dot->out, ", nslimit=0.2, nslimit1=0.2, mclimit=0.1, splines=line, "
                              "searchsize=10, remincross=false");
  else if (total > FAST_LAYOUT_ABOVE)
    g_string_append(dot->out, ", nslimit=0.5, nslimit1=0.5, mclimit=0.3, splines=line");
  g_string_append(dot->out, "];\n  node [fontname=\"Sans\", fontsize=10, height=0.3];\n"
                            "  edge [arrowsize=0.6];\n");
}

/* The DOT id a value of the previous stage comes from, drawn now: a graph input, a node of
 * the top level that is still drawn, or another removed node; NULL for anything else. */
static char *removed_source(Dot *dot, const IrValue *v) {
  const IrNode *p = v->node;
  const IrBlock *top = dot->opt->previous->block;
  if (p->kind == IR_PRIM_PARAM)
    return p == top->param ? g_strdup_printf("i%u", v->offset) : NULL;
  if (p->kind == IR_PRIM_CONSTANT)
    return NULL;
  g_autofree char *key = g_strdup_printf("|%" G_GUINT64_FORMAT, p->origin);
  if (g_hash_table_contains(dot->current, key))
    return node_id("", p);
  return p->owning_block == top ? g_strdup_printf("x%" G_GUINT64_FORMAT, p->origin) : NULL;
}

/* show_removed: the top-level nodes of the previous stage that are drawn nowhere now, faded
 * ("x<origin>"), with their edges from and to what is still drawn. */
static void emit_removed(Dot *dot) {
  const IrBlock *top = dot->opt->previous->block;
  const Palette *p = dot->pal;
  IR_FOR_EACH_NODE(node, top) {
    if (node->kind == IR_PRIM_CONSTANT)
      continue;
    g_autofree char *key = g_strdup_printf("|%" G_GUINT64_FORMAT, node->origin);
    if (g_hash_table_contains(dot->current, key))
      continue;
    dot->stats.removed_shown++;
    g_autoptr(GString) label = g_string_new("removed: ");
    append_attrs(label, node);
    append_outputs(label, node->outputs);
    g_string_append_printf(dot->out,
                           "  x%" G_GUINT64_FORMAT " [shape=box, style=\"rounded,dashed,filled\", "
                           "fillcolor=\"%s\", color=\"%s\", fontcolor=\"%s\", label=\"",
                           node->origin, p->removed_fill, p->removed_pen, p->removed_font);
    append_escaped(dot->out, label->str);
    g_string_append(dot->out, "\"];\n");
    for (guint i = 0; i < node->inputs->len; i++) {
      g_autofree char *src = removed_source(dot, g_ptr_array_index(node->inputs, i));
      if (src)
        g_string_append_printf(dot->edges,
                               "  %s -> x%" G_GUINT64_FORMAT " [style=dashed, color=\"%s\"];\n",
                               src, node->origin, p->removed_pen);
    }
    /* to the users still drawn (removed users have the edge as their input) */
    for (guint o = 0; o < node->outputs->len; o++) {
      const IrValue *v = g_ptr_array_index(node->outputs, o);
      for (guint u = 0; u < v->uses->len; u++) {
        const IrNode *user = g_array_index(v->uses, IrUse, u).user;
        g_autofree char *user_key = g_strdup_printf("|%" G_GUINT64_FORMAT, user->origin);
        g_autofree char *target = user == top->ret ? g_strdup("r")
                                  : g_hash_table_contains(dot->current, user_key)
                                      ? node_id("", user)
                                      : NULL;
        if (target)
          g_string_append_printf(dot->edges,
                                 "  x%" G_GUINT64_FORMAT " -> %s [style=dashed, color=\"%s\"];\n",
                                 node->origin, target, p->removed_pen);
      }
    }
  }
}

/* Appends the edges (only those from a declared node when `declared` is set) and closes. */
static char *dot_end(Dot *dot, AppDotStats *stats) {
  if (dot->opt->show_removed && dot->previous && !dot->declared)
    emit_removed(dot);
  if (dot->declared) {
    g_auto(GStrv) lines = g_strsplit(dot->edges->str, "\n", -1);
    for (guint i = 0; lines[i]; i++) {
      g_autofree char *src = g_strstrip(g_strndup(lines[i], strcspn(lines[i], "-")));
      if (*src && g_hash_table_contains(dot->declared, src))
        g_string_append_printf(dot->out, "%s\n", lines[i]);
    }
    g_hash_table_destroy(dot->declared);
  } else {
    g_string_append(dot->out, dot->edges->str);
  }
  g_string_append(dot->out, "}\n");
  if (dot->previous) {
    GHashTableIter it;
    gpointer key;
    g_hash_table_iter_init(&it, dot->previous);
    while (g_hash_table_iter_next(&it, &key, NULL))
      dot->stats.removed += !g_hash_table_contains(dot->current, key);
    g_hash_table_destroy(dot->previous);
  }
  g_hash_table_destroy(dot->current);
  g_string_free(dot->edges, TRUE);
  if (stats)
    *stats = dot->stats;
  return g_string_free(dot->out, FALSE);
}

char *app_graphviz_dot(const IrGraph *graph, const AppDotOptions *options, AppDotStats *stats) {
  Dot dot;
  dot_begin(&dot, options, app_graphviz_count_nodes(graph));
  GPtrArray *inputs = graph->block->param->outputs;
  for (guint i = 0; i < inputs->len; i++) {
    const IrValue *v = g_ptr_array_index(inputs, i);
    char buf[32];
    g_autofree char *type = ir_type_to_string(v->type);
    g_autofree char *label = g_strdup_printf("%%%s : %s", ir_value_display_name(v, buf), type);
    g_autofree char *id = g_strdup_printf("i%u", i);
    emit_decl(&dot, id, "ellipse", label, 0, dot.pal->input_fill, NULL);
  }
  emit_block(&dot, "", graph->block);
  return dot_end(&dot, stats);
}

char *app_graphviz_dot_cluster(const IrGraph *graph, const char *owner_id,
                               const AppDotOptions *options, AppDotStats *stats) {
  const IrNode *node = app_graphviz_dot_find_node(graph, owner_id);
  const IrAttr *sub = node ? ir_node_attr(node, IR_ATTR_SUBGRAPH) : NULL;
  bool has_body = sub && sub->kind == IR_ATTR_G;
  if (!node || (!has_body && ir_n_blocks(node) == 0))
    return NULL;
  guint total = has_body ? count_block(sub->v.g->block) : 0;
  for (guint b = 0; b < ir_n_blocks(node); b++)
    total += count_block(ir_block(node, b));
  Dot dot;
  dot_begin(&dot, options, total);
  dot.declared = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  const char *cut = strrchr(owner_id, '_');
  g_autofree char *prefix = g_strndup(owner_id, cut ? (gsize)(cut - owner_id + 1) : 0);
  emit_inside(&dot, prefix, owner_id, node);
  return dot_end(&dot, stats);
}

/* ---- ids back to nodes ---- */

static const IrNode *find_in_block(const IrBlock *block, const char *id);

static const IrNode *find_in_graph(const IrGraph *graph, const char *id) {
  return find_in_block(graph->block, id);
}

/* `id` is "n<origin>" or "n<origin>_<rest>" relative to the graph of `block`. */
static const IrNode *find_in_block(const IrBlock *block, const char *id) {
  if (id[0] != 'n')
    return NULL;
  char *end = NULL;
  guint64 origin = g_ascii_strtoull(id + 1, &end, 10);
  if (end == id + 1)
    return NULL;
  IR_FOR_EACH_NODE(node, block) {
    if (node->origin == origin) {
      if (*end == '\0')
        return node;
      if (*end == '_' && end[1] == 'n') {
        const IrAttr *sub = ir_node_attr(node, IR_ATTR_SUBGRAPH);
        return sub && sub->kind == IR_ATTR_G ? find_in_graph(sub->v.g, end + 1) : NULL;
      }
      return NULL;
    }
    for (guint b = 0; b < ir_n_blocks(node); b++) {
      const IrNode *found = find_in_block(ir_block(node, b), id);
      if (found)
        return found;
    }
  }
  return NULL;
}

const IrNode *app_graphviz_dot_find_node(const IrGraph *graph, const char *id) {
  return find_in_graph(graph, id);
}

/* An owner node's block `index` param values, or the inputs of its Subgraph ("i<k>"). */
static const IrValue *find_owned_input(const IrNode *owner, const char *rest, guint offset) {
  char *end = NULL;
  if (rest[0] == 'i') { /* "i<k>": input k of the owner's Subgraph */
    guint64 k = g_ascii_strtoull(rest + 1, &end, 10);
    const IrAttr *sub = ir_node_attr(owner, IR_ATTR_SUBGRAPH);
    if (end == rest + 1 || *end || offset != 0 || !sub || sub->kind != IR_ATTR_G)
      return NULL;
    GPtrArray *inputs = ir_graph_inputs(sub->v.g);
    return k < inputs->len ? g_ptr_array_index(inputs, k) : NULL;
  }
  if (rest[0] != 'b') /* "b<k>i": the inputs of block k */
    return NULL;
  guint64 b = g_ascii_strtoull(rest + 1, &end, 10);
  if (end == rest + 1 || strcmp(end, "i") != 0 || b >= ir_n_blocks(owner))
    return NULL;
  GPtrArray *params = ((const IrBlock *)ir_block(owner, b))->param->outputs;
  return offset < params->len ? g_ptr_array_index(params, offset) : NULL;
}

const IrValue *app_graphviz_dot_find_value(const IrGraph *graph, const char *id) {
  const char *arrow = strstr(id, "->");
  g_autofree char *vid = g_strndup(id, arrow ? (gsize)(arrow - id) : strlen(id));
  char *colon = strrchr(vid, ':'), *end = NULL;
  guint64 offset = colon ? g_ascii_strtoull(colon + 1, &end, 10) : 0;
  if (!colon || end == colon + 1 || *end || offset > G_MAXUINT)
    return NULL;
  *colon = '\0';
  if (vid[0] == 'i') { /* an input of the top graph */
    guint64 k = g_ascii_strtoull(vid + 1, &end, 10);
    GPtrArray *inputs = ir_graph_inputs(graph);
    if (end != vid + 1 && !*end && offset == 0 && k < inputs->len)
      return g_ptr_array_index(inputs, k);
    return NULL;
  }
  const IrNode *node = app_graphviz_dot_find_node(graph, vid);
  if (node)
    return offset < node->outputs->len ? g_ptr_array_index(node->outputs, offset) : NULL;
  /* "<owner>_b<k>i" or "<owner>_i<k>" */
  char *cut = strrchr(vid, '_');
  if (cut) {
    *cut = '\0';
    const IrNode *owner = app_graphviz_dot_find_node(graph, vid);
    if (owner)
      return find_owned_input(owner, cut + 1, (guint)offset);
  }
  return NULL;
}
