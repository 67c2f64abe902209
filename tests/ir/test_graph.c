/* Graph building and editing: use lists checked after every edit, blocks, destruction,
 * topological order (including re-indexing after many inserts), naming rules, attributes,
 * insertion point and the op/constant creators. */
#include "ir/ops.h"
#include "ir_test_util.h"

#include <string.h>

static IrValue *add_node(IrGraph *g, IrOpKind kind, IrValue *a, IrValue *b) {
  IrValue *in[] = {a, b};
  IrNode *n = ir_graph_insert_op(g, kind, in, b ? 2 : 1, 1);
  return ir_output(n, 0);
}

static guint n_uses(const IrValue *v) {
  return v->uses->len;
}

static void test_build(void) {
  IrGraph *g = ir_graph_new();
  IrValue *a = ir_graph_add_input(g, ir_type_tensor(), "a");
  IrValue *b = ir_graph_add_input(g, ir_type_tensor(), "b");
  IrValue *one = ir_graph_insert_constant_int(g, 1);
  IrValue *in[] = {a, b, one};
  IrNode *add = ir_graph_insert_op(g, IR_ATEN_ADD, in, 3, 1);
  g_assert_cmpstr(add->schema->overload, ==, "Tensor");
  g_assert_true(ir_output(add, 0)->type == ir_type_tensor());
  IrValue *m = add_node(g, IR_ATEN_MUL, ir_output(add, 0), a);
  g_assert_cmpuint(ir_graph_add_output(g, m), ==, 0);
  ir_test_check_graph(g);

  g_assert_cmpuint(ir_graph_count_nodes(g), ==, 3);
  g_assert_cmpuint(ir_graph_inputs(g)->len, ==, 2);
  g_assert_cmpuint(ir_graph_outputs(g)->len, ==, 1);
  g_assert_cmpuint(n_uses(a), ==, 2);
  g_assert_cmpuint(n_uses(b), ==, 1);
  g_assert_cmpuint(n_uses(m), ==, 1);
  g_assert_true(g_array_index(m->uses, IrUse, 0).user == g->block->ret);
  g_assert_true(a->node == g->block->param && a->offset == 0 && b->offset == 1);
  g_assert_cmpstr(a->name, ==, "a");
  g_assert_cmpint(ir_node_attr_i(one->node, IR_ATTR_VALUE), ==, 1);
  g_assert_true(one->type == ir_type_int());
  char *kinds = ir_test_block_kinds(g->block);
  g_assert_cmpstr(kinds, ==, "prim::Constant aten::add aten::mul");
  g_free(kinds);
  g_assert_true(ir_node_graph(add) == g);

  /* Ids are unique and printed for unnamed values. */
  char buf[32];
  g_assert_cmpstr(ir_value_display_name(a, buf), ==, "a");
  char *expect = g_strdup_printf("%" G_GUINT64_FORMAT, m->id);
  g_assert_cmpstr(ir_value_display_name(m, buf), ==, expect);
  g_free(expect);
  g_assert_cmpuint(one->id, !=, m->id);
  ir_graph_free(g);
}

static void test_edit_inputs(void) {
  IrGraph *g = ir_graph_new();
  IrValue *a = ir_graph_add_input(g, ir_type_tensor(), "a");
  IrValue *b = ir_graph_add_input(g, ir_type_tensor(), "b");
  IrValue *c = ir_graph_add_input(g, ir_type_tensor(), "c");
  IrNode *n = ir_graph_insert(g, ir_node_create(g, IR_PRIM_LIST_CONSTRUCT, 1));
  ir_node_add_input(n, a);
  ir_node_add_input(n, b);
  ir_node_add_input(n, a);
  ir_test_check_graph(g);
  g_assert_cmpuint(n_uses(a), ==, 2);

  ir_node_insert_input(n, 1, c); /* a c b a */
  ir_test_check_graph(g);
  g_assert_true(ir_input(n, 1) == c && ir_input(n, 2) == b && ir_input(n, 3) == a);

  ir_node_replace_input(n, 0, b); /* b c b a */
  ir_test_check_graph(g);
  g_assert_cmpuint(n_uses(a), ==, 1);
  g_assert_cmpuint(n_uses(b), ==, 2);

  ir_node_remove_input(n, 1); /* b b a */
  ir_test_check_graph(g);
  g_assert_cmpuint(ir_n_inputs(n), ==, 3);
  g_assert_cmpuint(n_uses(c), ==, 0);
  g_assert_true(ir_input(n, 2) == a);

  ir_value_replace_all_uses_with(b, c); /* c c a */
  ir_test_check_graph(g);
  g_assert_cmpuint(n_uses(b), ==, 0);
  g_assert_cmpuint(n_uses(c), ==, 2);
  g_assert_true(ir_input(n, 0) == c && ir_input(n, 1) == c);

  ir_graph_erase_input(g, 1); /* b had no uses */
  ir_test_check_graph(g);
  g_assert_cmpuint(ir_graph_inputs(g)->len, ==, 2);
  g_assert_true(c->offset == 1);
  g_assert_null(g_hash_table_lookup(g->names, "b"));

  ir_node_remove_all_inputs(n);
  ir_test_check_graph(g);
  g_assert_cmpuint(n_uses(a) + n_uses(c), ==, 0);
  g_assert_false(ir_value_has_uses(a));

  ir_graph_add_output(g, ir_output(n, 0));
  ir_graph_add_output(g, a);
  ir_graph_erase_output(g, 0);
  ir_test_check_graph(g);
  g_assert_cmpuint(ir_graph_outputs(g)->len, ==, 1);
  g_assert_false(ir_value_has_uses(ir_output(n, 0)));
  ir_graph_free(g);
}

static void test_outputs_and_destroy(void) {
  IrGraph *g = ir_graph_new();
  IrValue *x = ir_graph_add_input(g, ir_type_tensor(), "x");
  IrNode *chunk = ir_graph_insert(g, ir_node_create(g, IR_PRIM_CONSTANT_CHUNK, 3));
  ir_node_add_input(chunk, x);
  ir_value_set_name(ir_output(chunk, 2), "last");
  IrValue *r = add_node(g, IR_ATEN_RELU, ir_output(chunk, 2), NULL);
  ir_graph_add_output(g, r);
  ir_node_erase_output(chunk, 0);
  ir_test_check_graph(g);
  g_assert_cmpuint(ir_n_outputs(chunk), ==, 2);
  g_assert_cmpuint(ir_output(chunk, 1)->offset, ==, 1);
  g_assert_cmpstr(ir_output(chunk, 1)->name, ==, "last");

  /* Destroy in an order that keeps uses empty. */
  ir_graph_erase_output(g, 0);
  ir_node_destroy(r->node);
  ir_test_check_graph(g);
  g_assert_cmpuint(n_uses(ir_output(chunk, 1)), ==, 0);
  ir_node_destroy(chunk);
  ir_test_check_graph(g);
  g_assert_cmpuint(n_uses(x), ==, 0);
  g_assert_cmpuint(ir_graph_count_nodes(g), ==, 0);
  g_assert_true(chunk->destroyed);
  /* A destroyed value's name is free again, without renaming anything. */
  IrValue *y = ir_graph_add_input(g, ir_type_tensor(), "last");
  g_assert_cmpstr(y->name, ==, "last");
  ir_graph_free(g);
}

/* prim::If with two blocks, each returning a value computed inside. */
static IrNode *make_if(IrGraph *g, IrValue *cond, IrValue *x, IrNode **inner_then) {
  IrNode *ifn = ir_graph_insert(g, ir_node_create(g, IR_PRIM_IF, 1));
  ir_node_add_input(ifn, cond);
  IrBlock *t = ir_node_add_block(ifn);
  IrBlock *e = ir_node_add_block(ifn);
  IrNode *tn = ir_node_create(g, IR_ATEN_NEG, 1);
  ir_node_add_input(tn, x);
  ir_node_append_to(tn, t);
  ir_node_resolve_schema(tn);
  ir_block_add_output(t, ir_output(tn, 0));
  ir_block_add_output(e, x);
  *inner_then = tn;
  return ifn;
}

static void test_blocks(void) {
  IrGraph *g = ir_graph_new();
  IrValue *x = ir_graph_add_input(g, ir_type_tensor(), "x");
  IrValue *c = ir_graph_add_input(g, ir_type_bool(), "c");
  IrNode *first = add_node(g, IR_ATEN_RELU, x, NULL)->node;
  IrNode *tn;
  IrNode *ifn = make_if(g, c, x, &tn);
  IrNode *last = add_node(g, IR_ATEN_TANH, ir_output(ifn, 0), NULL)->node;
  ir_graph_add_output(g, ir_output(last, 0));
  ir_test_check_graph(g);
  g_assert_cmpuint(ir_graph_count_nodes(g), ==, 4);
  g_assert_cmpuint(n_uses(x), ==, 3);
  g_assert_true(ir_block(ifn, 0)->owning_node == ifn);

  /* Loop-carried block inputs. */
  IrNode *loop = ir_graph_insert(g, ir_node_create(g, IR_PRIM_LOOP, 0));
  IrBlock *body = ir_node_add_block(loop);
  IrValue *i = ir_block_add_input(body, ir_type_int(), "i");
  ir_block_add_input(body, ir_type_tensor(), "carried");
  g_assert_true(i->node == body->param && i->offset == 0);
  ir_block_erase_input(body, 1);
  ir_test_check_graph(g);
  g_assert_cmpuint(ir_block_inputs(body)->len, ==, 1);

  /* Order across blocks. */
  g_assert_true(ir_node_is_before(first, tn));
  g_assert_true(ir_node_is_after(last, tn));
  g_assert_false(ir_node_is_before(tn, first));
  g_assert_true(ir_node_ancestor_in(tn, g->block) == ifn);
  g_assert_true(ir_node_ancestor_in(tn, ir_block(ifn, 0)) == tn);
  g_assert_null(ir_node_ancestor_in(first, ir_block(ifn, 0)));

  /* Uses after a node: the use inside the If's block counts as at the If. */
  IrValue *r = ir_output(first, 0);
  IrNode *late = add_node(g, IR_ATEN_EXP, x, NULL)->node;
  ir_value_replace_uses_after(x, r, ifn);
  ir_test_check_graph(g);
  g_assert_true(ir_input(tn, 0) == r);
  g_assert_true(ir_input(ir_block(ifn, 1)->ret, 0) == r);
  g_assert_true(ir_input(late, 0) == r);
  g_assert_true(ir_input(first, 0) == x);
  g_assert_cmpuint(n_uses(x), ==, 1);

  /* Erasing a block destroys its nodes and releases their uses. */
  ir_node_erase_block(ifn, 0);
  ir_test_check_graph(g);
  g_assert_cmpuint(ir_n_blocks(ifn), ==, 1);
  g_assert_true(tn->destroyed);
  g_assert_cmpuint(n_uses(r), ==, 2);

  /* Destroying the If drops its remaining block's uses too. */
  IrValue *fresh = add_node(g, IR_ATEN_SIGMOID, x, NULL);
  ir_value_replace_all_uses_with(ir_output(ifn, 0), fresh);
  ir_node_destroy(ifn);
  ir_test_check_graph(g);
  g_assert_cmpuint(n_uses(r), ==, 1);
  ir_graph_free(g);
}

static void test_move_and_order(void) {
  IrGraph *g = ir_graph_new();
  IrValue *x = ir_graph_add_input(g, ir_type_tensor(), "x");
  IrNode *a = add_node(g, IR_ATEN_RELU, x, NULL)->node;
  IrNode *b = add_node(g, IR_ATEN_TANH, x, NULL)->node;
  IrNode *c = add_node(g, IR_ATEN_EXP, ir_output(a, 0), NULL)->node;
  g_assert_true(ir_node_is_before(a, b) && ir_node_is_before(b, c));
  g_assert_cmpint(b->topo - a->topo, ==, ((gint64)1) << 40);

  ir_node_move_before(c, b); /* a c b */
  ir_test_check_graph(g);
  g_assert_true(ir_node_is_before(c, b) && ir_node_is_after(c, a));
  ir_node_move_after(a, b); /* c b a: breaks def-use order, but moving is allowed */
  char *kinds = ir_test_block_kinds(g->block);
  g_assert_cmpstr(kinds, ==, "aten::exp aten::tanh aten::relu");
  g_free(kinds);
  ir_node_move_before(a, c); /* a c b */
  ir_test_check_graph(g);

  /* c uses a: a cannot move after c, c cannot move before a; b can go anywhere. */
  g_assert_false(ir_node_can_move_before(c, a));
  g_assert_false(ir_node_can_move_before(a, b));
  g_assert_true(ir_node_can_move_before(a, c));
  g_assert_true(ir_node_can_move_before(b, a));
  g_assert_true(ir_node_can_move_before(b, g->block->ret));
  g_assert_true(ir_node_can_move_before(c, g->block->ret));

  /* Insert after the same node many times: the midpoints run out and the block re-indexes. */
  IrNode *anchor = a;
  for (int i = 0; i < 200; i++) {
    IrNode *n = ir_node_create(g, IR_PRIM_CONSTANT, 1);
    ir_node_insert_after(n, anchor);
  }
  /* And many at the front. */
  for (int i = 0; i < 100; i++)
    ir_node_insert_before(ir_node_create(g, IR_PRIM_CONSTANT, 1), g->block->param->next);
  ir_test_check_graph(g);
  g_assert_cmpuint(ir_graph_count_nodes(g), ==, 303);
  guint idx = 0;
  IrNode *prev = NULL;
  IR_FOR_EACH_NODE(n, g->block) {
    if (prev)
      g_assert_true(ir_node_is_before(prev, n) && ir_node_is_after(n, prev));
    prev = n;
    idx++;
  }
  g_assert_cmpuint(idx, ==, 303);
  g_assert_true(ir_node_is_before(a, c) && ir_node_is_before(c, b));

  /* Appending to an empty block puts the node at the midpoint. */
  IrGraph *h = ir_graph_new();
  IrNode *only = ir_graph_insert(h, ir_node_create(h, IR_PRIM_CONSTANT, 1));
  g_assert_cmpint(only->topo, ==, 0);
  ir_graph_free(h);
  ir_graph_free(g);
}

static void test_insert_point(void) {
  IrGraph *g = ir_graph_new();
  IrValue *x = ir_graph_add_input(g, ir_type_tensor(), "x");
  IrNode *a = add_node(g, IR_ATEN_RELU, x, NULL)->node;
  ir_graph_set_insert_point(g, a);
  IrNode *before_a = add_node(g, IR_ATEN_TANH, x, NULL)->node;
  g_assert_true(before_a->next == a);
  /* Destroying the insertion point moves it to the following node. */
  ir_node_destroy(a);
  g_assert_true(g->insert_before == g->block->ret);
  IrNode *end = add_node(g, IR_ATEN_EXP, x, NULL)->node;
  g_assert_true(end->next == g->block->ret && end->prev == before_a);
  ir_graph_set_insert_point(g, NULL);
  g_assert_true(g->insert_before == g->block->ret);
  ir_test_check_graph(g);
  ir_graph_free(g);
}

static void test_names(void) {
  IrGraph *g = ir_graph_new();
  IrValue *v1 = ir_graph_add_input(g, ir_type_tensor(), "x");
  IrValue *v2 = ir_graph_add_input(g, ir_type_tensor(), NULL);
  IrValue *v3 = ir_graph_add_input(g, ir_type_tensor(), NULL);
  IrValue *v4 = ir_graph_add_input(g, ir_type_tensor(), NULL);
  g_assert_null(v2->name);

  /* The reference's rule: the old owner moves to base.N; the graph remembers one past the
   * last suffix per base and the next rename starts one past that. */
  ir_value_set_name(v2, "x");
  g_assert_cmpstr(v2->name, ==, "x");
  g_assert_cmpstr(v1->name, ==, "x.1");
  ir_value_set_name(v3, "x");
  g_assert_cmpstr(v3->name, ==, "x");
  g_assert_cmpstr(v2->name, ==, "x.3");
  ir_value_set_name(v4, "x.1"); /* taken by v1: base "x", suffix 1, bumped past the table */
  g_assert_cmpstr(v4->name, ==, "x.1");
  g_assert_cmpstr(v1->name, ==, "x.5");
  g_assert_true(g_hash_table_lookup(g->names, "x.5") == v1);

  /* A taken ".N" name on a fresh base starts from N. */
  IrValue *h1 = ir_graph_add_input(g, ir_type_tensor(), "h.7");
  IrValue *h2 = ir_graph_add_input(g, ir_type_tensor(), NULL);
  ir_value_set_name(h2, "h.7");
  g_assert_cmpstr(h1->name, ==, "h.8");
  /* Suffix search skips names in use. */
  IrValue *k1 = ir_graph_add_input(g, ir_type_tensor(), "k");
  IrValue *k2 = ir_graph_add_input(g, ir_type_tensor(), "k.1");
  IrValue *k3 = ir_graph_add_input(g, ir_type_tensor(), NULL);
  ir_value_set_name(k3, "k");
  g_assert_cmpstr(k1->name, ==, "k.2");
  g_assert_cmpstr(k2->name, ==, "k.1");
  /* Renaming to its own name changes nothing; a trailing dot is no suffix. */
  ir_value_set_name(k3, "k");
  g_assert_cmpstr(k3->name, ==, "k");
  g_assert_cmpstr(k1->name, ==, "k.2");
  IrValue *d1 = ir_graph_add_input(g, ir_type_tensor(), "d.");
  IrValue *d2 = ir_graph_add_input(g, ir_type_tensor(), NULL);
  ir_value_set_name(d2, "d.");
  g_assert_cmpstr(d1->name, ==, "d..1");

  /* All-digit names are not debug names; NULL clears. */
  IrValue *n = ir_graph_add_input(g, ir_type_tensor(), "12");
  g_assert_null(n->name);
  ir_value_set_name(k3, NULL);
  g_assert_null(k3->name);
  g_assert_null(g_hash_table_lookup(g->names, "k"));
  ir_value_set_name(k3, "007");
  g_assert_null(k3->name);

  /* Ids: set_id moves the counter past it. */
  ir_value_set_id(n, 12345);
  g_assert_cmpuint(n->id, ==, 12345);
  IrValue *after = ir_graph_add_input(g, ir_type_tensor(), NULL);
  g_assert_cmpuint(after->id, >, 12345);
  char buf[32];
  g_assert_cmpstr(ir_value_display_name(n, buf), ==, "12345");
  ir_test_check_graph(g);
  ir_graph_free(g);
}

static void test_attributes(void) {
  IrGraph *g = ir_graph_new();
  IrNode *n = ir_graph_insert(g, ir_node_create(g, IR_PRIM_CONSTANT_CHUNK, 2));
  ir_node_set_attr_i(n, IR_ATTR_CHUNKS, 2);
  ir_node_set_attr_i(n, IR_ATTR_DIM, 1);
  ir_node_set_attr_f(n, "scale", 0.5);
  ir_node_set_attr_s(n, IR_ATTR_NAME, "aten::mul");
  const gint64 is[] = {1, 2, 3};
  ir_node_set_attr_is(n, "sizes", is, 3);
  const double fs[] = {1.5, -2.0};
  ir_node_set_attr_fs(n, "fs", fs, 2);
  const char *ss[] = {"a", "bc"};
  ir_node_set_attr_ss(n, "ss", ss, 2);
  IrGraph *sub = ir_graph_new();
  ir_graph_add_input(sub, ir_type_tensor(), "s");
  ir_node_set_attr_g(n, IR_ATTR_SUBGRAPH, sub);
  IrGraph *gs[] = {ir_graph_new(), ir_graph_new()};
  ir_node_set_attr_gs(n, "gs", gs, 2);

  g_assert_cmpint(ir_node_attr_i(n, "chunks"), ==, 2);
  g_assert_cmpint(ir_node_attr_i(n, IR_ATTR_DIM), ==, 1);
  g_assert_cmpfloat(ir_node_attr_f(n, "scale"), ==, 0.5);
  g_assert_cmpstr(ir_node_attr_s(n, "name"), ==, "aten::mul");
  g_assert_true(ir_node_attr_g(n, "Subgraph") == sub);
  const IrAttr *a = ir_node_attr(n, "sizes");
  g_assert_nonnull(a);
  g_assert_true(a->kind == IR_ATTR_IS && a->v.is->len == 3);
  g_assert_cmpint(g_array_index(a->v.is, gint64, 2), ==, 3);
  g_assert_cmpstr(a->name, ==, "sizes");
  g_assert_cmpstr(g_ptr_array_index(ir_node_attr(n, "ss")->v.ss, 1), ==, "bc");
  g_assert_cmpfloat(g_array_index(ir_node_attr(n, "fs")->v.fs, double, 0), ==, 1.5);
  g_assert_false(ir_node_has_attr(n, "missing"));
  g_assert_null(ir_node_attr(n, "missing"));

  /* Replacing keeps the position and frees the old value (checked under ASan). */
  ir_node_set_attr_s(n, IR_ATTR_NAME, "aten::add");
  ir_node_set_attr_g(n, IR_ATTR_SUBGRAPH, ir_graph_new());
  ir_node_set_attr_i(n, "sizes", 4);
  g_assert_cmpstr(ir_node_attr_s(n, "name"), ==, "aten::add");
  g_assert_cmpint(ir_node_attr_i(n, "sizes"), ==, 4);
  g_assert_cmpstr(ir_attr_at(n, 4)->name, ==, "sizes");
  guint before = ir_n_attrs(n);
  ir_node_remove_attr(n, "scale");
  ir_node_remove_attr(n, "scale");
  g_assert_cmpuint(ir_n_attrs(n), ==, before - 1);
  g_assert_false(ir_node_has_attr(n, "scale"));

  IrNode *m = ir_graph_insert(g, ir_node_create(g, IR_PRIM_CONSTANT_CHUNK, 2));
  ir_node_set_attr_i(m, "stale", 9);
  ir_node_copy_attrs(m, n);
  g_assert_false(ir_node_has_attr(m, "stale"));
  g_assert_cmpuint(ir_n_attrs(m), ==, ir_n_attrs(n));
  g_assert_true(ir_node_attr_g(m, "Subgraph") != ir_node_attr_g(n, "Subgraph"));
  g_assert_cmpuint(ir_node_attr(m, "gs")->v.gs->len, ==, 2);
  g_assert_cmpstr(ir_node_attr_s(m, "name"), ==, "aten::add");
  ir_graph_free(g);
}

static void test_constants(void) {
  IrGraph *g = ir_graph_new();
  IrValue *f = ir_graph_insert_constant_float(g, 2.5);
  IrValue *b = ir_graph_insert_constant_bool(g, true);
  IrValue *none = ir_graph_insert_constant_none(g);
  const gint64 v[] = {2, 3};
  IrValue *l = ir_graph_insert_constant_int_list(g, v, 2);
  g_assert_true(f->type == ir_type_float());
  g_assert_cmpfloat(ir_node_attr_f(f->node, "value"), ==, 2.5);
  g_assert_true(b->type == ir_type_bool());
  g_assert_cmpint(ir_node_attr_i(b->node, "value"), ==, 1);
  g_assert_true(none->type == ir_type_none());
  g_assert_cmpuint(ir_n_attrs(none->node), ==, 0);
  g_assert_true(l->type == ir_type_list(ir_type_int()));
  g_assert_cmpint(g_array_index(ir_node_attr(l->node, "value")->v.is, gint64, 1), ==, 3);
  for (IrNode *n = g->block->param->next; n != g->block->ret; n = n->next)
    g_assert_true(n->kind == IR_PRIM_CONSTANT && n->schema == NULL);
  ir_graph_free(g);
}

static void test_insert_op_types(void) {
  IrGraph *g = ir_graph_new();
  IrValue *x = ir_graph_add_input(g, ir_type_tensor(), "x");
  IrValue *zero = ir_graph_insert_constant_int(g, 0);
  IrValue *four = ir_graph_insert_constant_int(g, 4);
  IrValue *in[] = {x, four, zero};
  IrNode *chunk = ir_graph_insert_op(g, IR_ATEN_CHUNK, in, 3, 1);
  g_assert_true(ir_output(chunk, 0)->type == ir_type_list(ir_type_tensor()));
  g_assert_true(chunk->schema->returns_list_of_tensors);
  IrValue *sz_in[] = {x};
  IrNode *size = ir_graph_insert_op(g, IR_ATEN_SIZE, sz_in, 1, 1);
  g_assert_true(ir_output(size, 0)->type == ir_type_list(ir_type_int()));
  IrValue *ne_in[] = {ir_output(size, 0), ir_output(size, 0)};
  IrNode *ne = ir_graph_insert_op(g, IR_ATEN_SIZE_IF_NOT_EQUAL, ne_in, 2, 1);
  g_assert_true(ir_output(ne, 0)->type == ir_type_optional(ir_type_list(ir_type_int())));
  IrValue *add_in[] = {zero, four};
  IrNode *add = ir_graph_insert_op(g, IR_ATEN_ADD, add_in, 2, 1);
  g_assert_cmpstr(add->schema->overload, ==, "int");
  g_assert_true(ir_output(add, 0)->type == ir_type_int());
  /* A prim kind without schemas keeps Tensor outputs and no schema. */
  IrNode *tc = ir_graph_insert_op(g, IR_PRIM_TUPLE_CONSTRUCT, in, 1, 1);
  g_assert_null(tc->schema);
  ir_test_check_graph(g);
  ir_graph_free(g);
}

static void test_kinds(void) {
  g_assert_cmpstr(ir_kind_name(IR_ATEN_ADD), ==, "aten::add");
  g_assert_cmpstr(ir_kind_name(IR_PRIM_FUSION_GROUP), ==, "prim::FusionGroup");
  g_assert_cmpstr(ir_kind_name(IR_ATEN_GRAD_SUM_TO_SIZE), ==, "aten::_grad_sum_to_size");
  for (int k = 0; k < IR_KIND_COUNT; k++) {
    IrOpKind back;
    g_assert_true(ir_kind_from_name(ir_kind_name((IrOpKind)k), &back));
    g_assert_cmpint(back, ==, k);
  }
  IrOpKind out = IR_ATEN_ADD;
  g_assert_false(ir_kind_from_name("aten::nonexistent", &out));
  g_assert_false(ir_kind_from_name("add", &out));
  g_assert_cmpint(out, ==, IR_ATEN_ADD);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/ir/graph/build", test_build);
  g_test_add_func("/ir/graph/edit-inputs", test_edit_inputs);
  g_test_add_func("/ir/graph/outputs-and-destroy", test_outputs_and_destroy);
  g_test_add_func("/ir/graph/blocks", test_blocks);
  g_test_add_func("/ir/graph/move-and-order", test_move_and_order);
  g_test_add_func("/ir/graph/insert-point", test_insert_point);
  g_test_add_func("/ir/graph/names", test_names);
  g_test_add_func("/ir/graph/attributes", test_attributes);
  g_test_add_func("/ir/graph/constants", test_constants);
  g_test_add_func("/ir/graph/insert-op-types", test_insert_op_types);
  g_test_add_func("/ir/graph/kinds", test_kinds);
  return g_test_run();
}
