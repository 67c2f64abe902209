/* Control flow in compiled code: If (values from outside, constants, tensors), Loop (trip
 * count, condition computed in the body, the counter, loop-carried values permuted, zero trips,
 * nesting), GradOf, and errors inside loops. Expected values are computed by hand. */
#include <string.h>

#include "interp_test_util.h"

typedef struct {
  IrNode *node;
  IrBlock *body;
} Loop;

/* Loop(max_trip, cond, init...) with a body taking (i, carried...); insertion point moved into
 * the body. */
static Loop loop_begin(IrGraph *g, IrValue *max_trip, IrValue *cond, IrValue *const *init, guint n,
                       const IrType *carried_type) {
  IrValue **ins = g_newa(IrValue *, n + 2);
  ins[0] = max_trip;
  ins[1] = cond;
  for (guint i = 0; i < n; i++)
    ins[2 + i] = init[i];
  Loop l;
  l.node = it_prim(g, IR_PRIM_LOOP, ins, n + 2, n, carried_type);
  l.body = ir_node_add_block(l.node);
  ir_block_add_input(l.body, ir_type_int(), "i");
  for (guint i = 0; i < n; i++)
    ir_block_add_input(l.body, carried_type, NULL);
  ir_graph_set_insert_point(g, l.body->ret);
  return l;
}

static void loop_end(IrGraph *g, Loop *l, IrValue *cond, IrValue *const *outs, guint n,
                     IrNode *after) {
  ir_block_add_output(l->body, cond);
  for (guint i = 0; i < n; i++)
    ir_block_add_output(l->body, outs[i]);
  ir_graph_set_insert_point(g, after);
}

static IrValue *body_in(Loop *l, guint i) {
  return g_ptr_array_index(ir_block_inputs(l->body), i);
}

static IrValue *scalar_op(IrGraph *g, IrOpKind kind, IrValue *a, IrValue *b) {
  IrValue *ins[2] = {a, b};
  return it_op(g, kind, ins, 2);
}

static void test_if_selects_outer_values_and_constants(void) {
  IrGraph *g = ir_graph_new();
  IrValue *c = ir_graph_add_input(g, ir_type_bool(), "c");
  IrValue *x = ir_graph_add_input(g, ir_type_tensor(), "x");
  IrValue *y = ir_graph_add_input(g, ir_type_tensor(), "y");
  IrNode *ifn = it_prim(g, IR_PRIM_IF, &c, 1, 2, ir_type_tensor());
  ir_value_set_type(ir_output(ifn, 1), ir_type_int());
  IrBlock *b0 = ir_node_add_block(ifn), *b1 = ir_node_add_block(ifn);
  ir_graph_set_insert_point(g, b0->ret);
  ir_block_add_output(b0, x);
  ir_block_add_output(b0, ir_graph_insert_constant_int(g, 1));
  ir_graph_set_insert_point(g, b1->ret);
  ir_block_add_output(b1, y);
  ir_block_add_output(b1, ir_graph_insert_constant_int(g, 2));
  ir_graph_set_insert_point(g, g->block->ret);
  ir_graph_add_output(g, ir_output(ifn, 0));
  ir_graph_add_output(g, ir_output(ifn, 1));

  double v[1] = {0};
  RtTensor *tx = it_vector(1, v), *ty = it_vector(1, v);
  for (int pass = 0; pass < 2; pass++) {
    RtValue ins[3] = {rt_bool(pass == 0), rt_tensor(tx), rt_tensor(ty)};
    RtValue r[2];
    GError *error = NULL;
    g_assert_true(it_run(g, NULL, ins, 3, r, &error));
    g_assert_no_error(error);
    g_assert_true(r[0].u.tensor == (pass == 0 ? tx : ty));
    g_assert_cmpint(r[1].u.i, ==, pass == 0 ? 1 : 2);
    g_assert_cmpint(tx->refcount, ==, pass == 0 ? 2 : 1);
    rt_value_unref(r[0]);
  }
  rt_tensor_unref(tx);
  rt_tensor_unref(ty);
  ir_graph_free(g);
}

static void test_if_runs_kernels_in_the_taken_branch(void) {
  /* if c: z = x * 2.0 else: z = -x; return z + x */
  IrGraph *g = ir_graph_new();
  IrValue *x = ir_graph_add_input(g, ir_type_tensor(), "x");
  IrValue *c = ir_graph_add_input(g, ir_type_bool(), "c");
  IrNode *ifn = it_prim(g, IR_PRIM_IF, &c, 1, 1, ir_type_tensor());
  IrBlock *b0 = ir_node_add_block(ifn), *b1 = ir_node_add_block(ifn);
  ir_graph_set_insert_point(g, b0->ret);
  ir_block_add_output(b0, scalar_op(g, IR_ATEN_MUL, x, ir_graph_insert_constant_float(g, 2.0)));
  ir_graph_set_insert_point(g, b1->ret);
  ir_block_add_output(b1, it_op(g, IR_ATEN_NEG, &x, 1));
  ir_graph_set_insert_point(g, g->block->ret);
  IrValue *sum_in[2] = {ir_output(ifn, 0), x};
  ir_graph_add_output(g, it_op(g, IR_ATEN_ADD, sum_in, 2));

  double xv[3] = {1, -2, 3};
  RtValue ins[2] = {rt_tensor(it_vector(3, xv)), rt_bool(true)};
  RtValue r[1];
  GError *error = NULL;
  int64_t three = 3;
  g_assert_true(it_run(g, NULL, ins, 2, r, &error));
  g_assert_no_error(error);
  double e_then[3] = {3, -6, 9}; /* 2x + x */
  it_assert_tensor(r[0].u.tensor, 1, &three, e_then, 0);
  rt_value_unref(r[0]);
  ins[1] = rt_bool(false);
  g_assert_true(it_run(g, NULL, ins, 2, r, &error));
  double e_else[3] = {0, 0, 0}; /* -x + x */
  it_assert_tensor(r[0].u.tensor, 1, &three, e_else, 0);
  rt_value_unref(r[0]);
  rt_value_unref(ins[0]);
  ir_graph_free(g);
}

static void test_for_loop_sums_counter(void) {
  /* acc = 0; for i in range(n): acc = acc + i */
  IrGraph *g = ir_graph_new();
  IrValue *n = ir_graph_add_input(g, ir_type_int(), "n");
  IrValue *zero = ir_graph_insert_constant_int(g, 0);
  IrValue *t = ir_graph_insert_constant_bool(g, true);
  Loop l = loop_begin(g, n, t, &zero, 1, ir_type_int());
  IrValue *acc = scalar_op(g, IR_ATEN_ADD, body_in(&l, 1), body_in(&l, 0));
  loop_end(g, &l, t, &acc, 1, g->block->ret);
  ir_graph_add_output(g, ir_output(l.node, 0));
  gint64 cases[3][2] = {{5, 10}, {1, 0}, {0, 0}};
  for (guint k = 0; k < 3; k++) {
    RtValue ins[1] = {rt_int(cases[k][0])};
    RtValue r[1];
    GError *error = NULL;
    g_assert_true(it_run(g, NULL, ins, 1, r, &error));
    g_assert_no_error(error);
    g_assert_cmpint(r[0].tag, ==, RT_INT);
    g_assert_cmpint(r[0].u.i, ==, cases[k][1]);
  }
  ir_graph_free(g);
}

static void test_for_loop_carries_tensor(void) {
  /* for _ in range(3): z = z * 2 */
  IrGraph *g = ir_graph_new();
  IrValue *x = ir_graph_add_input(g, ir_type_tensor(), "x");
  IrValue *three = ir_graph_insert_constant_int(g, 3);
  IrValue *t = ir_graph_insert_constant_bool(g, true);
  Loop l = loop_begin(g, three, t, &x, 1, ir_type_tensor());
  IrValue *z = scalar_op(g, IR_ATEN_MUL, body_in(&l, 1), ir_graph_insert_constant_int(g, 2));
  loop_end(g, &l, t, &z, 1, g->block->ret);
  ir_graph_add_output(g, ir_output(l.node, 0));
  double xv[2] = {1, 2};
  RtValue ins[1] = {rt_tensor(it_vector(2, xv))};
  RtValue r[1];
  GError *error = NULL;
  g_assert_true(it_run(g, NULL, ins, 1, r, &error));
  g_assert_no_error(error);
  int64_t two = 2;
  double e[2] = {8, 16};
  it_assert_tensor(r[0].u.tensor, 1, &two, e, 0);
  g_assert_cmpint(r[0].u.tensor->refcount, ==, 1);
  rt_value_unref(r[0]);
  rt_value_unref(ins[0]);
  ir_graph_free(g);
}

static void test_while_loop_condition_from_body(void) {
  /* v = 0; k = 0; while v < 35 (checked after each step): v += 10; k += 1 -> v 40, k 4 */
  IrGraph *g = ir_graph_new();
  IrValue *max = ir_graph_insert_constant_int(g, G_MAXINT64);
  IrValue *t = ir_graph_insert_constant_bool(g, true);
  IrValue *zero = ir_graph_insert_constant_int(g, 0);
  IrValue *ten = ir_graph_insert_constant_int(g, 10);
  IrValue *one = ir_graph_insert_constant_int(g, 1);
  IrValue *lim = ir_graph_insert_constant_int(g, 35);
  IrValue *init[2] = {zero, zero};
  Loop l = loop_begin(g, max, t, init, 2, ir_type_int());
  IrValue *v = scalar_op(g, IR_ATEN_ADD, body_in(&l, 1), ten);
  IrValue *k = scalar_op(g, IR_ATEN_ADD, body_in(&l, 2), one);
  IrValue *c = scalar_op(g, IR_ATEN_LT, v, lim);
  IrValue *outs[2] = {v, k};
  loop_end(g, &l, c, outs, 2, g->block->ret);
  ir_graph_add_output(g, ir_output(l.node, 0));
  ir_graph_add_output(g, ir_output(l.node, 1));
  RtValue r[2];
  GError *error = NULL;
  g_assert_true(it_run(g, NULL, NULL, 0, r, &error));
  g_assert_no_error(error);
  g_assert_cmpint(r[0].u.i, ==, 40);
  g_assert_cmpint(r[1].u.i, ==, 4);
  ir_graph_free(g);
}

static void test_loop_initially_false_or_zero_trips(void) {
  IrGraph *g = ir_graph_new();
  IrValue *n = ir_graph_add_input(g, ir_type_int(), "n");
  IrValue *c = ir_graph_add_input(g, ir_type_bool(), "c");
  IrValue *x = ir_graph_add_input(g, ir_type_tensor(), "x");
  Loop l = loop_begin(g, n, c, &x, 1, ir_type_tensor());
  IrValue *z = it_op(g, IR_ATEN_NEG, &(IrValue *){body_in(&l, 1)}, 1);
  loop_end(g, &l, c, &z, 1, g->block->ret);
  ir_graph_add_output(g, ir_output(l.node, 0));
  double xv[1] = {4};
  RtTensor *tx = it_vector(1, xv);
  struct {
    gint64 n;
    bool c;
    double expect;
    bool same;
  } cases[4] = {{0, true, 4, true}, {5, false, 4, true}, {1, true, -4, false}, {2, true, 4, false}};
  for (guint k = 0; k < 4; k++) {
    RtValue ins[3] = {rt_int(cases[k].n), rt_bool(cases[k].c), rt_tensor(tx)};
    RtValue r[1];
    GError *error = NULL;
    g_assert_true(it_run(g, NULL, ins, 3, r, &error));
    g_assert_no_error(error);
    g_assert_cmpfloat(rt_tensor_get(r[0].u.tensor, 0), ==, cases[k].expect);
    g_assert_true((r[0].u.tensor == tx) == cases[k].same);
    rt_value_unref(r[0]);
  }
  g_assert_cmpint(tx->refcount, ==, 1);
  rt_tensor_unref(tx);
  ir_graph_free(g);
}

static void test_nested_loops(void) {
  /* count = 0; for i in range(3): for j in range(4): count += 1 */
  IrGraph *g = ir_graph_new();
  IrValue *t = ir_graph_insert_constant_bool(g, true);
  IrValue *zero = ir_graph_insert_constant_int(g, 0);
  IrValue *one = ir_graph_insert_constant_int(g, 1);
  IrValue *three = ir_graph_insert_constant_int(g, 3);
  IrValue *four = ir_graph_insert_constant_int(g, 4);
  Loop outer = loop_begin(g, three, t, &zero, 1, ir_type_int());
  Loop inner = loop_begin(g, four, t, &(IrValue *){body_in(&outer, 1)}, 1, ir_type_int());
  IrValue *next = scalar_op(g, IR_ATEN_ADD, body_in(&inner, 1), one);
  loop_end(g, &inner, t, &next, 1, outer.body->ret);
  loop_end(g, &outer, t, &(IrValue *){ir_output(inner.node, 0)}, 1, g->block->ret);
  ir_graph_add_output(g, ir_output(outer.node, 0));
  RtValue r[1];
  GError *error = NULL;
  g_assert_true(it_run(g, NULL, NULL, 0, r, &error));
  g_assert_no_error(error);
  g_assert_cmpint(r[0].u.i, ==, 12);
  ir_graph_free(g);
}

static void test_loop_permutes_carried_values(void) {
  /* (a, b, c) -> (b, a, c) three times, with a and b tensors: ends swapped, c untouched. */
  IrGraph *g = ir_graph_new();
  IrValue *a = ir_graph_add_input(g, ir_type_tensor(), "a");
  IrValue *b = ir_graph_add_input(g, ir_type_tensor(), "b");
  IrValue *c = ir_graph_add_input(g, ir_type_tensor(), "c");
  IrValue *three = ir_graph_insert_constant_int(g, 3);
  IrValue *t = ir_graph_insert_constant_bool(g, true);
  IrValue *init[3] = {a, b, c};
  Loop l = loop_begin(g, three, t, init, 3, ir_type_tensor());
  IrValue *outs[3] = {body_in(&l, 2), body_in(&l, 1), body_in(&l, 3)};
  loop_end(g, &l, t, outs, 3, g->block->ret);
  for (guint i = 0; i < 3; i++)
    ir_graph_add_output(g, ir_output(l.node, i));
  double v[1] = {0};
  RtTensor *ta = it_vector(1, v), *tb = it_vector(1, v), *tc = it_vector(1, v);
  RtValue ins[3] = {rt_tensor(ta), rt_tensor(tb), rt_tensor(tc)};
  RtValue r[3];
  GError *error = NULL;
  g_assert_true(it_run(g, NULL, ins, 3, r, &error));
  g_assert_no_error(error);
  g_assert_true(r[0].u.tensor == tb && r[1].u.tensor == ta && r[2].u.tensor == tc);
  for (guint i = 0; i < 3; i++)
    rt_value_unref(r[i]);
  for (guint i = 0; i < 3; i++) {
    g_assert_cmpint(ins[i].u.tensor->refcount, ==, 1);
    rt_value_unref(ins[i]);
  }
  ir_graph_free(g);
}

static void test_grad_of_runs_its_block(void) {
  IrGraph *g = ir_graph_new();
  IrValue *gr = ir_graph_add_input(g, ir_type_tensor(), "grad");
  IrNode *go = it_prim(g, IR_PRIM_GRAD_OF, &gr, 1, 1, ir_type_tensor());
  ir_node_set_attr_s(go, IR_ATTR_NAME, "aten::mul");
  IrBlock *body = ir_node_add_block(go);
  ir_graph_set_insert_point(g, body->ret);
  ir_block_add_output(body, scalar_op(g, IR_ATEN_MUL, gr, ir_graph_insert_constant_float(g, 3)));
  ir_graph_set_insert_point(g, g->block->ret);
  ir_graph_add_output(g, ir_output(go, 0));
  double v[2] = {1, 2};
  RtValue ins[1] = {rt_tensor(it_vector(2, v))};
  RtValue r[1];
  GError *error = NULL;
  g_assert_true(it_run(g, NULL, ins, 1, r, &error));
  g_assert_no_error(error);
  int64_t two = 2;
  double e[2] = {3, 6};
  it_assert_tensor(r[0].u.tensor, 1, &two, e, 0);
  rt_value_unref(r[0]);
  rt_value_unref(ins[0]);
  ir_graph_free(g);
}

static void test_error_inside_loop_names_node(void) {
  /* for _ in range(3): z = z + y, with y of a shape that does not broadcast with z. */
  IrGraph *g = ir_graph_new();
  IrValue *x = ir_graph_add_input(g, ir_type_tensor(), "x");
  IrValue *y = ir_graph_add_input(g, ir_type_tensor(), "y");
  IrValue *three = ir_graph_insert_constant_int(g, 3);
  IrValue *t = ir_graph_insert_constant_bool(g, true);
  Loop l = loop_begin(g, three, t, &x, 1, ir_type_tensor());
  IrValue *z = scalar_op(g, IR_ATEN_ADD, body_in(&l, 1), y);
  z->node->source = g_intern_string("gen_corpus.py:109:16");
  loop_end(g, &l, t, &z, 1, g->block->ret);
  ir_graph_add_output(g, ir_output(l.node, 0));
  double xv[3] = {1, 2, 3}, yv[2] = {1, 2};
  RtValue ins[2] = {rt_tensor(it_vector(3, xv)), rt_tensor(it_vector(2, yv))};
  RtValue r[1];
  GError *error = NULL;
  g_assert_false(it_run(g, NULL, ins, 2, r, &error));
  g_assert_nonnull(error);
  g_assert_true(g_str_has_prefix(error->message, "gen_corpus.py:109:16: aten::add: "));
  g_error_free(error);
  rt_value_unref(ins[0]);
  rt_value_unref(ins[1]);
  ir_graph_free(g);
}

static void test_malformed_loop_is_compile_error(void) {
  IrGraph *g = ir_graph_new();
  IrValue *n = ir_graph_add_input(g, ir_type_int(), "n");
  IrNode *loop = it_prim(g, IR_PRIM_LOOP, &n, 1, 0, ir_type_int());
  ir_node_add_block(loop);
  GError *error = NULL;
  g_assert_null(rt_code_compile(g, &error));
  g_assert_true(g_str_has_prefix(error->message, "prim::Loop: expected (max trip count"));
  g_error_free(error);
  ir_graph_free(g);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/interp/control/if-outer-values", test_if_selects_outer_values_and_constants);
  g_test_add_func("/interp/control/if-kernels", test_if_runs_kernels_in_the_taken_branch);
  g_test_add_func("/interp/control/for-counter", test_for_loop_sums_counter);
  g_test_add_func("/interp/control/for-tensor", test_for_loop_carries_tensor);
  g_test_add_func("/interp/control/while", test_while_loop_condition_from_body);
  g_test_add_func("/interp/control/zero-trips", test_loop_initially_false_or_zero_trips);
  g_test_add_func("/interp/control/nested-loops", test_nested_loops);
  g_test_add_func("/interp/control/permuted-carried", test_loop_permutes_carried_values);
  g_test_add_func("/interp/control/grad-of", test_grad_of_runs_its_block);
  g_test_add_func("/interp/control/error-in-loop", test_error_inside_loop_names_node);
  g_test_add_func("/interp/control/malformed-loop", test_malformed_loop_is_compile_error);
  return g_test_run();
}
