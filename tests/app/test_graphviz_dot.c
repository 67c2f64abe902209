/* IR -> DOT for the canvas: inlined constants, None diamonds, int[]? edges, GradOf/If
 * clusters, Subgraph bodies and folding, scope clusters, stable ids and change highlighting. */
#include <string.h>

#include "graphviz_dot.h"
#include "ir/text.h"
#include "jitscope-config.h"
#include "passes/module_lowering.h"

static IrGraph *parse(const char *text) {
  GError *error = NULL;
  IrGraph *graph = ir_graph_parse(text, strlen(text), "test.ir", &error);
  g_assert_no_error(error);
  return graph;
}

static guint count(const char *haystack, const char *needle) {
  guint n = 0;
  for (const char *p = haystack; (p = strstr(p, needle)); p++)
    n++;
  return n;
}

static const char add_text[] = "graph(%a : Tensor, %b : Tensor):\n"
                               "  %one : int = prim::Constant[value=1]()\n"
                               "  %s : Tensor = aten::add(%a, %b, %one)\n"
                               "  %t : Tensor = aten::mul(%s, %s)\n"
                               "  return (%t)\n";

static void test_constants_inlined(void) {
  IrGraph *g = parse(add_text);
  AppDotStats stats;
  char *dot = app_graphviz_dot(g, NULL, &stats);
  g_assert_nonnull(strstr(dot, "aten::add\\nalpha=1\\n%s : Tensor"));
  g_assert_null(strstr(dot, "prim::Constant"));
  g_assert_cmpuint(stats.nodes, ==, 2);
  /* inputs i0, i1 and the return r; edges a->add, b->add, add->mul twice, mul->return */
  g_assert_nonnull(strstr(dot, "i0 [shape=ellipse"));
  g_assert_nonnull(strstr(dot, "r [shape=invhouse"));
  g_assert_cmpuint(count(dot, " -> "), ==, 5);
  g_free(dot);
  ir_graph_free(g);
}

static void test_stable_ids_and_find(void) {
  IrGraph *g = parse(add_text);
  IrGraph *copy = ir_graph_copy(g);
  char *a = app_graphviz_dot(g, NULL, NULL);
  char *b = app_graphviz_dot(copy, NULL, NULL);
  g_assert_cmpstr(a, ==, b);
  IR_FOR_EACH_NODE(node, g->block) {
    if (node->kind == IR_PRIM_CONSTANT)
      continue;
    char *id = g_strdup_printf("n%" G_GUINT64_FORMAT, node->origin);
    g_assert_nonnull(strstr(a, id));
    const IrNode *found = app_graphviz_dot_find_node(copy, id);
    g_assert_nonnull(found);
    g_assert_cmpint(found->kind, ==, node->kind);
    g_free(id);
  }
  g_assert_null(app_graphviz_dot_find_node(g, "i0"));
  g_assert_null(app_graphviz_dot_find_node(g, "n999999"));
  g_free(a);
  g_free(b);
  ir_graph_free(copy);
  ir_graph_free(g);
}

static void test_highlight_changes(void) {
  IrGraph *before = parse(add_text);
  IrGraph *after = ir_graph_copy(before);
  /* Change mul into a new node: insert a relu after it (added) and rename mul's output type. */
  IrNode *mul = NULL;
  IR_FOR_EACH_NODE(node, after->block) {
    if (node->kind == IR_ATEN_MUL)
      mul = node;
  }
  g_assert_nonnull(mul);
  ir_graph_set_insert_point(after, after->block->ret);
  IrValue *in = ir_output(mul, 0);
  IrNode *relu = ir_graph_insert_op(after, IR_ATEN_RELU, &in, 1, 1);
  g_assert_nonnull(relu);
  ir_node_replace_input(after->block->ret, 0, ir_output(relu, 0));
  ir_value_set_type(ir_output(mul, 0), ir_type_float());
  AppDotOptions options = {.previous = before};
  AppDotStats stats;
  char *dot = app_graphviz_dot(after, &options, &stats);
  g_assert_cmpuint(stats.added, ==, 1);
  g_assert_cmpuint(stats.changed, ==, 1);
  g_assert_cmpuint(stats.removed, ==, 0);
  g_assert_cmpuint(count(dot, "penwidth=2.5"), ==, 2);
  g_free(dot);
  /* Against itself nothing is highlighted; against `after` the relu is removed. */
  options.previous = after;
  dot = app_graphviz_dot(after, &options, &stats);
  g_assert_cmpuint(stats.added + stats.changed, ==, 0);
  g_assert_null(strstr(dot, "penwidth=2.5"));
  g_free(dot);
  options.previous = after;
  dot = app_graphviz_dot(before, &options, &stats);
  g_assert_cmpuint(stats.removed, ==, 1);
  g_free(dot);
  ir_graph_free(after);
  ir_graph_free(before);
}

/* show_removed: a node the stage deleted is drawn faded, with its edges from its input and
 * to the return that are still drawn; only with the option, only against a previous stage. */
static void test_removed_drawn_faded(void) {
  IrGraph *before = parse("graph(%a : Tensor, %b : Tensor):\n"
                          "  %s : Tensor = aten::mul(%a, %b)\n"
                          "  %t : Tensor = aten::relu(%s)\n"
                          "  return (%t)\n");
  IrGraph *after = ir_graph_copy(before);
  IrNode *mul = NULL, *relu = NULL;
  IR_FOR_EACH_NODE(node, after->block) {
    if (node->kind == IR_ATEN_MUL)
      mul = node;
    else if (node->kind == IR_ATEN_RELU)
      relu = node;
  }
  ir_node_replace_input(after->block->ret, 0, ir_output(mul, 0));
  guint64 gone = relu->origin;
  ir_node_destroy(relu);
  char *ghost = g_strdup_printf("x%" G_GUINT64_FORMAT " [", gone);
  char *in_edge = g_strdup_printf("n%" G_GUINT64_FORMAT " -> x%" G_GUINT64_FORMAT " [style=dashed",
                                  mul->origin, gone);
  char *out_edge = g_strdup_printf("x%" G_GUINT64_FORMAT " -> r [style=dashed", gone);
  AppDotOptions options = {.previous = before, .show_removed = true};
  AppDotStats stats;
  char *dot = app_graphviz_dot(after, &options, &stats);
  g_assert_cmpuint(stats.removed, ==, 1);
  g_assert_cmpuint(stats.removed_shown, ==, 1);
  g_assert_nonnull(strstr(dot, ghost));
  g_assert_nonnull(strstr(dot, "label=\"removed: aten::relu\\n%t : Tensor\""));
  g_assert_nonnull(strstr(dot, "rounded,dashed,filled"));
  g_assert_nonnull(strstr(dot, in_edge));
  g_assert_nonnull(strstr(dot, out_edge));
  g_free(dot);
  /* without the option the count stays, nothing is drawn */
  options.show_removed = false;
  dot = app_graphviz_dot(after, &options, &stats);
  g_assert_cmpuint(stats.removed, ==, 1);
  g_assert_cmpuint(stats.removed_shown, ==, 0);
  g_assert_null(strstr(dot, "removed:"));
  g_free(dot);
  /* nothing removed against itself */
  options = (AppDotOptions){.previous = after, .show_removed = true};
  dot = app_graphviz_dot(after, &options, &stats);
  g_assert_cmpuint(stats.removed_shown, ==, 0);
  g_assert_null(strstr(dot, "removed:"));
  g_free(dot);
  g_free(ghost);
  g_free(in_edge);
  g_free(out_edge);
  ir_graph_free(after);
  ir_graph_free(before);
}

static const char blocks_text[] = "graph(%x : Tensor, %c : bool, %sz : int[]?):\n"
                                  "  %none : NoneType = prim::Constant()\n"
                                  "  %y : Tensor = prim::If(%c)\n"
                                  "    block0():\n"
                                  "      %z : Tensor = aten::neg(%x)\n"
                                  "      -> (%z)\n"
                                  "    block1():\n"
                                  "      -> (%x)\n"
                                  "  %g : Tensor = prim::GradOf[name=\"aten::mul\"](%y)\n"
                                  "    block0():\n"
                                  "      %w : Tensor = aten::_grad_sum_to_size(%y, %sz)\n"
                                  "      -> (%w)\n"
                                  "  %v : Tensor = aten::_grad_sum_to_size(%g, %none)\n"
                                  "  return (%v)\n";

static void test_blocks_none_and_optional(void) {
  IrGraph *g = parse(blocks_text);
  char *dot = app_graphviz_dot(g, NULL, NULL);
  g_assert_nonnull(strstr(dot, "label=\"If then\""));
  g_assert_nonnull(strstr(dot, "label=\"If else\""));
  g_assert_nonnull(strstr(dot, "label=\"GradOf aten::mul\""));
  g_assert_cmpuint(count(dot, "subgraph cluster_"), ==, 3);
  /* The None constant is a diamond next to its user, the int[]? input a purple edge. */
  g_assert_cmpuint(count(dot, "shape=diamond, label=\"None\""), ==, 1);
  g_assert_cmpuint(count(dot, "label=\"int[]?\""), ==, 1);
  g_free(dot);
  ir_graph_free(g);
}

static const char diff_text[] =
    "graph(%a : Tensor, %b : Tensor):\n"
    "  %r : Tensor = prim::DifferentiableGraph_0(%a, %b)\n"
    "  return (%r)\n"
    "with prim::DifferentiableGraph_0 = graph(%x : Tensor, %y : Tensor):\n"
    "  %m : Tensor = aten::mul(%x, %y)\n"
    "  %n : Tensor = aten::sigmoid(%m)\n"
    "  return (%n)\n";

static void test_subgraph_cluster_and_folding(void) {
  IrGraph *g = parse(diff_text);
  AppDotStats stats;
  char *dot = app_graphviz_dot(g, NULL, &stats);
  g_assert_nonnull(strstr(dot, "prim::DifferentiableGraph body"));
  g_assert_cmpuint(stats.collapsed, ==, 0);
  g_assert_cmpuint(stats.nodes, ==, 3);
  /* Inner ids are prefixed by their owner's and map back. */
  const IrNode *owner = NULL;
  IR_FOR_EACH_NODE(node, g->block) {
    owner = node;
  }
  IrGraph *body = ir_node_attr_g(owner, IR_ATTR_SUBGRAPH);
  const IrNode *inner = body->block->param->next;
  char *id =
      g_strdup_printf("n%" G_GUINT64_FORMAT "_n%" G_GUINT64_FORMAT, owner->origin, inner->origin);
  g_assert_nonnull(strstr(dot, id));
  g_assert_true(app_graphviz_dot_find_node(g, id) == inner);
  g_free(dot);

  AppDotOptions folded = {.collapse = APP_DOT_COLLAPSE_ALL};
  dot = app_graphviz_dot(g, &folded, &stats);
  g_assert_cmpuint(stats.collapsed, ==, 1);
  g_assert_null(strstr(dot, "body"));
  g_assert_nonnull(strstr(dot, "(2 nodes folded)"));
  g_free(dot);

  /* Toggling one owner unfolds it again. */
  GHashTable *toggled = g_hash_table_new(g_str_hash, g_str_equal);
  char *owner_id = g_strdup_printf("n%" G_GUINT64_FORMAT, owner->origin);
  g_hash_table_add(toggled, owner_id);
  folded.toggled = toggled;
  dot = app_graphviz_dot(g, &folded, &stats);
  g_assert_cmpuint(stats.collapsed, ==, 0);
  g_free(dot);
  g_hash_table_destroy(toggled);
  g_free(owner_id);
  g_free(id);
  ir_graph_free(g);
}

static void test_large_graph_options(void) {
  GString *text = g_string_new("graph(%x : Tensor):\n");
  g_string_append(text, "  %v0 : Tensor = aten::neg(%x)\n");
  for (int i = 1; i < 400; i++)
    g_string_append_printf(text, "  %%v%d : Tensor = aten::neg(%%v%d)\n", i, i - 1);
  g_string_append(text, "  return (%v399)\n");
  IrGraph *g = parse(text->str);
  char *dot = app_graphviz_dot(g, NULL, NULL);
  g_assert_nonnull(strstr(dot, "splines=line"));
  g_assert_nonnull(strstr(dot, "nslimit="));
  g_free(dot);
  ir_graph_free(g);
  g_string_free(text, TRUE);
}

/* Above collapse_above nodes, If/Loop/GradOf blocks fold into summary nodes by default; an
 * owner's inside alone has only the edges between its own nodes; `separate` draws the owner
 * as a fixed-size box without its inside. */
static void test_blocks_fold_and_cluster_alone(void) {
  IrGraph *g = parse(blocks_text);
  AppDotStats stats;
  AppDotOptions small = {.collapse_above = 2};
  char *dot = app_graphviz_dot(g, &small, &stats);
  g_assert_cmpuint(stats.collapsed, ==, 2);
  g_assert_cmpuint(count(dot, "subgraph cluster_"), ==, 0);
  g_assert_nonnull(strstr(dot, "(2 blocks, 1 nodes folded)"));
  g_assert_nonnull(strstr(dot, "(1 block, 1 nodes folded)"));
  g_assert_null(strstr(dot, "aten::neg"));
  g_free(dot);
  dot = app_graphviz_dot(g, NULL, &stats); /* small graph: expanded */
  g_assert_cmpuint(stats.collapsed, ==, 0);
  g_assert_nonnull(strstr(dot, "aten::neg"));
  g_free(dot);

  const IrNode *if_node = NULL;
  IR_FOR_EACH_NODE(node, g->block) {
    if (node->kind == IR_PRIM_IF)
      if_node = node;
  }
  char *id = g_strdup_printf("n%" G_GUINT64_FORMAT, if_node->origin);
  char *inside = app_graphviz_dot_cluster(g, id, NULL, NULL);
  g_assert_nonnull(inside);
  g_assert_cmpuint(count(inside, "subgraph cluster_"), ==, 2);
  g_assert_nonnull(strstr(inside, "aten::neg"));
  g_assert_null(strstr(inside, "prim::If")); /* the owner itself is not inside */
  g_assert_null(strstr(inside, " i0 ->"));   /* nor edges from outside */
  char *block_edge = g_strdup_printf("%s_b0i ->", id);
  g_assert_null(strstr(inside, block_edge)); /* the block input has no uses inside */
  g_free(block_edge);
  g_free(inside);
  g_assert_null(app_graphviz_dot_cluster(g, "i0", NULL, NULL));
  g_assert_null(app_graphviz_dot_cluster(g, "n999999", NULL, NULL));

  GHashTable *separate = g_hash_table_new(g_str_hash, g_str_equal);
  g_hash_table_insert(separate, id, (gpointer) "144,72");
  AppDotOptions options = {.separate = separate};
  dot = app_graphviz_dot(g, &options, &stats);
  g_assert_nonnull(strstr(dot, "fixedsize=true, labelloc=t, width=2.000"));
  g_assert_cmpuint(count(dot, "subgraph cluster_"), ==, 1); /* the GradOf only */
  g_assert_null(strstr(dot, "aten::neg"));
  g_free(dot);
  g_hash_table_destroy(separate);
  g_free(id);
  ir_graph_free(g);
}

static guint64 origin_of(const IrGraph *g, IrOpKind kind) {
  IR_FOR_EACH_NODE(node, g->block) {
    if (node->kind == kind)
      return node->origin;
  }
  g_assert_not_reached();
  return 0;
}

/* Every value edge has an id naming its value and use; labels with the types on demand. */
static void test_edge_ids_and_types(void) {
  IrGraph *g = parse(add_text);
  guint64 add = origin_of(g, IR_ATEN_ADD), mul = origin_of(g, IR_ATEN_MUL);
  char *dot = app_graphviz_dot(g, NULL, NULL);
  g_assert_cmpuint(count(dot, " [id=\""), ==, 5);
  char *ids[] = {
      g_strdup_printf("i0:0->n%" G_GUINT64_FORMAT ":0", add),
      g_strdup_printf("i1:0->n%" G_GUINT64_FORMAT ":1", add),
      g_strdup_printf("n%" G_GUINT64_FORMAT ":0->n%" G_GUINT64_FORMAT ":0", add, mul),
      g_strdup_printf("n%" G_GUINT64_FORMAT ":0->n%" G_GUINT64_FORMAT ":1", add, mul),
      g_strdup_printf("n%" G_GUINT64_FORMAT ":0->r:0", mul),
  };
  for (guint i = 0; i < G_N_ELEMENTS(ids); i++) {
    char *attr = g_strdup_printf("[id=\"%s\"", ids[i]);
    g_assert_nonnull(strstr(dot, attr));
    g_free(attr);
  }
  /* off by default: no edge labels */
  g_assert_null(strstr(dot, "label=\"Tensor\""));
  AppDotOptions typed = {.edge_types = true};
  char *labelled = app_graphviz_dot(g, &typed, NULL);
  g_assert_cmpuint(count(labelled, "label=\"Tensor\", fontsize=8"), ==, 5);
  g_assert_cmpstr(dot, !=, labelled); /* layouts are cached by the text: apart */
  g_free(labelled);

  /* ids back to values: edge ids and value ids */
  const IrValue *a = g_ptr_array_index(ir_graph_inputs(g), 0);
  const IrValue *b = g_ptr_array_index(ir_graph_inputs(g), 1);
  g_assert_true(app_graphviz_dot_find_value(g, ids[0]) == a);
  g_assert_true(app_graphviz_dot_find_value(g, ids[1]) == b);
  g_assert_true(app_graphviz_dot_find_value(g, "i1:0") == b);
  const IrNode *add_node = app_graphviz_dot_find_node(g, strstr(ids[2], "n"));
  g_assert_null(add_node); /* an edge id is no node id */
  const IrValue *s = app_graphviz_dot_find_value(g, ids[2]);
  g_assert_nonnull(s);
  g_assert_cmpint(s->node->kind, ==, IR_ATEN_ADD);
  g_assert_true(app_graphviz_dot_find_value(g, ids[3]) == s);
  g_assert_cmpint(app_graphviz_dot_find_value(g, ids[4])->node->kind, ==, IR_ATEN_MUL);
  char *bad_output = g_strdup_printf("n%" G_GUINT64_FORMAT ":1", add);
  char *no_index = g_strdup_printf("n%" G_GUINT64_FORMAT, add);
  g_assert_null(app_graphviz_dot_find_value(g, bad_output));
  g_assert_null(app_graphviz_dot_find_value(g, no_index));
  g_assert_null(app_graphviz_dot_find_value(g, "i2:0"));
  g_assert_null(app_graphviz_dot_find_value(g, "i0:1"));
  g_assert_null(app_graphviz_dot_find_value(g, "r:0"));
  g_assert_null(app_graphviz_dot_find_value(g, "x"));
  g_free(bad_output);
  g_free(no_index);
  /* stable across stages: a copy has the same ids for the same values */
  IrGraph *copy = ir_graph_copy(g);
  char *again = app_graphviz_dot(copy, NULL, NULL);
  g_assert_cmpstr(again, ==, dot);
  g_assert_cmpint(app_graphviz_dot_find_value(copy, ids[2])->node->kind, ==, IR_ATEN_ADD);
  g_free(again);
  ir_graph_free(copy);
  for (guint i = 0; i < G_N_ELEMENTS(ids); i++)
    g_free(ids[i]);
  g_free(dot);
  ir_graph_free(g);
}

/* Block inputs, Subgraph inputs, None constants and int[]? values have ids too. */
static void test_edge_ids_inside(void) {
  IrGraph *g = parse(blocks_text);
  char *dot = app_graphviz_dot(g, NULL, NULL);
  /* %sz : int[]? into the GradOf block's _grad_sum_to_size: labelled even with types off */
  g_assert_cmpuint(count(dot, "label=\"int[]?\""), ==, 1);
  const char *opt = strstr(dot, "label=\"int[]?\"");
  const char *line = opt;
  while (line > dot && line[-1] != '\n')
    line--;
  g_assert_nonnull(g_strstr_len(line, opt - line, "[id=\"i2:0->n"));
  const IrValue *szv = app_graphviz_dot_find_value(g, "i2:0");
  g_assert_nonnull(szv);
  g_assert_cmpint(szv->type->kind, ==, IR_TYPE_OPTIONAL);
  /* the None diamond's edge names the constant's value */
  const char *none = strstr(dot, "none0 -> ");
  g_assert_nonnull(none);
  const char *vid = strstr(none, "[id=\"") + 5;
  char *none_id = g_strndup(vid, strcspn(vid, "\""));
  const IrValue *nv = app_graphviz_dot_find_value(g, none_id);
  g_assert_nonnull(nv);
  g_assert_cmpint(nv->node->kind, ==, IR_PRIM_CONSTANT);
  g_free(none_id);
  AppDotOptions typed = {.edge_types = true};
  char *labelled = app_graphviz_dot(g, &typed, NULL);
  g_assert_cmpuint(count(labelled, "label=\"int[]?\""), ==, 1);
  g_assert_cmpuint(count(labelled, "label=\"bool\""), ==, 1);
  g_assert_cmpuint(count(labelled, "label=\"None\""), ==, 1); /* the diamond only */
  g_free(labelled);
  g_free(dot);
  /* a value made inside a block */
  IrNode *if_node = NULL;
  IR_FOR_EACH_NODE(node, g->block) {
    if (node->kind == IR_PRIM_IF)
      if_node = node;
  }
  const IrNode *neg = ir_block(if_node, 0)->param->next;
  char *neg_id = g_strdup_printf("n%" G_GUINT64_FORMAT ":0", neg->origin);
  g_assert_true(app_graphviz_dot_find_value(g, neg_id) == ir_output(neg, 0));
  g_free(neg_id);
  ir_graph_free(g);

  /* Subgraph inputs "<owner>_i<k>:0" and values inside "<owner>_n<origin>:<k>" */
  g = parse(diff_text);
  IrNode *owner = NULL;
  IR_FOR_EACH_NODE(node, g->block) {
    owner = node;
  }
  IrGraph *body = ir_node_attr_g(owner, IR_ATTR_SUBGRAPH);
  dot = app_graphviz_dot(g, NULL, NULL);
  char *input_id = g_strdup_printf("n%" G_GUINT64_FORMAT "_i1:0", owner->origin);
  char *attr = g_strdup_printf("[id=\"%s->", input_id);
  g_assert_nonnull(strstr(dot, attr));
  g_assert_true(app_graphviz_dot_find_value(g, input_id) ==
                g_ptr_array_index(ir_graph_inputs(body), 1));
  const IrNode *m = body->block->param->next;
  char *m_id =
      g_strdup_printf("n%" G_GUINT64_FORMAT "_n%" G_GUINT64_FORMAT ":0", owner->origin, m->origin);
  g_assert_true(app_graphviz_dot_find_value(g, m_id) == ir_output(m, 0));
  char *bad = g_strdup_printf("n%" G_GUINT64_FORMAT "_i2:0", owner->origin);
  g_assert_null(app_graphviz_dot_find_value(g, bad));
  g_free(bad);
  g_free(m_id);
  g_free(attr);
  g_free(input_id);
  g_free(dot);
  ir_graph_free(g);
}

/* Loop and If block inputs "<owner>_b<k>i:<index>". */
static void test_block_input_ids(void) {
  IrGraph *g = parse("graph(%x : Tensor, %n : int):\n"
                     "  %t : bool = prim::Constant[value=1]()\n"
                     "  %y : Tensor = prim::Loop(%n, %t, %x)\n"
                     "    block0(%i : int, %acc : Tensor):\n"
                     "      %z : Tensor = aten::neg(%acc)\n"
                     "      -> (%t, %z)\n"
                     "  return (%y)\n");
  guint64 loop = origin_of(g, IR_PRIM_LOOP);
  char *dot = app_graphviz_dot(g, NULL, NULL);
  char *acc = g_strdup_printf("n%" G_GUINT64_FORMAT "_b0i:1", loop);
  char *attr = g_strdup_printf("[id=\"%s->", acc);
  g_assert_nonnull(strstr(dot, attr));
  const IrValue *v = app_graphviz_dot_find_value(g, acc);
  g_assert_nonnull(v);
  g_assert_cmpstr(v->name, ==, "acc");
  char *beyond = g_strdup_printf("n%" G_GUINT64_FORMAT "_b0i:2", loop);
  char *no_block = g_strdup_printf("n%" G_GUINT64_FORMAT "_b1i:0", loop);
  g_assert_null(app_graphviz_dot_find_value(g, beyond));
  g_assert_null(app_graphviz_dot_find_value(g, no_block));
  g_free(beyond);
  g_free(no_block);
  g_free(attr);
  g_free(acc);
  g_free(dot);
  ir_graph_free(g);
}

/* An early trace's scopes: Net holds relu and the Linear[fc] cluster; sigmoid has none. */
static const char scoped_text[] =
    "graph(%0 : Float(2, 3),\n"
    "      %1 : Float(4, 3),\n"
    "      %2 : Float(4)) {\n"
    "  %3 : Float(3, 4) = aten::t(%1), scope: Net/Linear[fc]\n"
    "  %4 : Float(2, 4) = aten::mm(%0, %3), scope: Net/Linear[fc]\n"
    "  %5 : int = prim::Constant[value=1](), scope: Net/Linear[fc]\n"
    "  %6 : Float(2, 4) = aten::add(%4, %2, %5), scope: Net/Linear[fc]\n"
    "  %7 : Float(2, 4) = aten::relu(%6), scope: Net\n"
    "  %8 : Float(2, 4) = aten::sigmoid(%7)\n"
    "  return (%8);\n"
    "}\n";

static void test_scope_clusters(void) {
  IrGraph *g = parse(scoped_text);
  char *dot = app_graphviz_dot(g, NULL, NULL);
  g_assert_cmpuint(count(dot, "subgraph cluster_"), ==, 2);
  const char *net = strstr(dot, "label=\"Net\"");
  const char *fc = strstr(dot, "label=\"Linear[fc]\"");
  g_assert_nonnull(net);
  g_assert_nonnull(fc);
  /* Nested: Net opens, relu is declared in it, then Linear[fc] with t, mm and add; sigmoid
   * stays outside, before both. */
  const char *relu = strstr(dot, "n7 [");
  const char *sigmoid = strstr(dot, "n8 [");
  g_assert_true(sigmoid < net && net < relu && relu < fc);
  g_assert_true(fc < strstr(dot, "n3 [") && fc < strstr(dot, "n4 [") && fc < strstr(dot, "n6 ["));
  /* The constant reads as alpha=1, not as the rest of its line with the scope. */
  g_assert_nonnull(strstr(dot, "aten::add\\nalpha=1\\n%6"));
  g_assert_null(strstr(dot, "scope:"));
  g_free(dot);
  ir_graph_free(g);
}

/* A scripted module's graph as PyTorch printed it, its calls inlined: F.log_softmax's nodes
 * are drawn in a cluster named after the call. */
static void test_inlined_calls_are_clusters(void) {
  g_autofree char *path =
      g_build_filename(JITSCOPE_SOURCE_DIR, "tests", "realgraphs", "mod_mlp_module.ir", NULL);
  g_autofree char *text = NULL;
  g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
  IrGraph *g = parse(text);
  guint inlined = 0;
  pass_inline_calls(g, &inlined);
  g_assert_cmpuint(inlined, >, 0);
  char *dot = app_graphviz_dot(g, NULL, NULL);
  g_assert_cmpuint(count(dot, "label=\"F.log_softmax\""), ==, 1);
  g_assert_cmpuint(count(dot, "subgraph cluster_"), >=, 1);
  g_free(dot);
  ir_graph_free(g);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/graphviz-dot/constants-inlined", test_constants_inlined);
  g_test_add_func("/graphviz-dot/stable-ids-and-find", test_stable_ids_and_find);
  g_test_add_func("/graphviz-dot/highlight-changes", test_highlight_changes);
  g_test_add_func("/graphviz-dot/removed-drawn-faded", test_removed_drawn_faded);
  g_test_add_func("/graphviz-dot/blocks-none-and-optional", test_blocks_none_and_optional);
  g_test_add_func("/graphviz-dot/subgraph-cluster-and-folding", test_subgraph_cluster_and_folding);
  g_test_add_func("/graphviz-dot/large-graph-options", test_large_graph_options);
  g_test_add_func("/graphviz-dot/blocks-fold-and-cluster-alone",
                  test_blocks_fold_and_cluster_alone);
  g_test_add_func("/graphviz-dot/edge-ids-and-types", test_edge_ids_and_types);
  g_test_add_func("/graphviz-dot/edge-ids-inside", test_edge_ids_inside);
  g_test_add_func("/graphviz-dot/block-input-ids", test_block_input_ids);
  g_test_add_func("/graphviz-dot/scope-clusters", test_scope_clusters);
  g_test_add_func("/graphviz-dot/inlined-calls-are-clusters", test_inlined_calls_are_clusters);
  return g_test_run();
}
