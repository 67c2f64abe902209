/* The interpreter's own prim ops: constants of every attribute kind, lists, tuples, chunks,
 * size arithmetic, RaiseException, Uninitialized and the autograd helpers. Expected values are
 * worked out by hand from PyTorch's semantics (torch.chunk, broadcasting). */
#include <string.h>

#include "interp_test_util.h"

static IrValue *constant(IrGraph *g, const IrType *t) {
  return ir_output(it_prim(g, IR_PRIM_CONSTANT, NULL, 0, 1, t), 0);
}

static IrNode *last_node_in(IrBlock *b) {
  return b->ret->prev;
}
static IrNode *last_node(IrGraph *g) {
  return last_node_in(g->block);
}

static void test_constants(void) {
  IrGraph *g = ir_graph_new();
  IrValue *outs[12];
  outs[0] = ir_graph_insert_constant_int(g, -7);
  outs[1] = ir_graph_insert_constant_float(g, 2.5);
  outs[2] = ir_graph_insert_constant_bool(g, true);
  outs[3] = ir_graph_insert_constant_none(g);
  outs[4] = constant(g, ir_type_str());
  ir_node_set_attr_s(last_node(g), IR_ATTR_VALUE, "hello");
  outs[5] = constant(g, ir_type_device());
  ir_node_set_attr_s(last_node(g), IR_ATTR_VALUE, "cuda:0");
  gint64 ints[3] = {3, 1, 4};
  outs[6] = ir_graph_insert_constant_int_list(g, ints, 3);
  double fs[2] = {0.5, -1};
  outs[7] = constant(g, ir_type_list(ir_type_float()));
  ir_node_set_attr_fs(last_node(g), IR_ATTR_VALUE, fs, 2);
  const char *ss[2] = {"a", "bc"};
  outs[8] = constant(g, ir_type_list(ir_type_str()));
  ir_node_set_attr_ss(last_node(g), IR_ATTR_VALUE, ss, 2);
  double tv[2] = {1, 2};
  RtTensor *t = it_vector(2, tv);
  outs[9] = constant(g, ir_type_tensor());
  ir_node_set_attr_t(last_node(g), IR_ATTR_VALUE, t);
  RtTensor *ts[2] = {t, t};
  outs[10] = constant(g, ir_type_list(ir_type_tensor()));
  ir_node_set_attr_ts(last_node(g), IR_ATTR_VALUE, ts, 2);
  outs[11] = constant(g, ir_type_list(ir_type_bool()));
  gint64 bools[2] = {1, 0};
  ir_node_set_attr_is(last_node(g), IR_ATTR_VALUE, bools, 2);
  for (guint i = 0; i < 12; i++)
    ir_graph_add_output(g, outs[i]);

  RtValue r[12];
  GError *error = NULL;
  g_assert_true(it_run(g, NULL, NULL, 0, r, &error));
  g_assert_no_error(error);
  const char *expect[12] = {"-7",
                            "2.5",
                            "True",
                            "None",
                            "\"hello\"",
                            "cuda",
                            "[3, 1, 4]",
                            "[0.5, -1.0]",
                            "[\"a\", \"bc\"]",
                            "Float(2)",
                            "[Float(2), Float(2)]",
                            "[True, False]"};
  for (guint i = 0; i < 12; i++) {
    char *p = it_print(r[i]);
    g_assert_cmpstr(p, ==, expect[i]);
    g_free(p);
  }
  g_assert_true(r[2].tag == RT_BOOL);
  g_assert_true(r[5].tag == RT_DEVICE && r[5].u.device == IR_DEVICE_CUDA);
  /* The tensor constant is shared, not copied. */
  g_assert_true(r[9].u.tensor == t);
  for (guint i = 0; i < 12; i++)
    rt_value_unref(r[i]);
  rt_tensor_unref(t);
  ir_graph_free(g);
}

static void test_lists_and_tuples(void) {
  IrGraph *g = ir_graph_new();
  IrValue *a = ir_graph_add_input(g, ir_type_int(), "a");
  IrValue *b = ir_graph_add_input(g, ir_type_tensor(), "b");
  IrValue *items[3] = {a, a, b};
  IrValue *tup = ir_output(it_prim(g, IR_PRIM_TUPLE_CONSTRUCT, items, 3, 1, ir_type_any()), 0);
  IrNode *unpack = it_prim(g, IR_PRIM_TUPLE_UNPACK, &tup, 1, 3, ir_type_any());
  IrValue *lst_items[2] = {ir_output(unpack, 0), ir_output(unpack, 1)};
  IrValue *lst = ir_output(
      it_prim(g, IR_PRIM_LIST_CONSTRUCT, lst_items, 2, 1, ir_type_list(ir_type_int())), 0);
  IrNode *lunpack = it_prim(g, IR_PRIM_LIST_UNPACK, &lst, 1, 2, ir_type_int());
  IrNode *idx_attr = it_prim(g, IR_PRIM_TUPLE_INDEX, &tup, 1, 1, ir_type_tensor());
  ir_node_set_attr_i(idx_attr, "index", 2);
  IrValue *minus3 = ir_graph_insert_constant_int(g, -3);
  IrValue *idx_in[2] = {tup, minus3};
  IrNode *idx_input = it_prim(g, IR_PRIM_TUPLE_INDEX, idx_in, 2, 1, ir_type_int());
  ir_graph_add_output(g, lst);
  ir_graph_add_output(g, ir_output(lunpack, 1));
  ir_graph_add_output(g, ir_output(idx_attr, 0));
  ir_graph_add_output(g, ir_output(idx_input, 0));
  ir_graph_add_output(g, tup);

  double v[1] = {5};
  RtTensor *t = it_vector(1, v);
  RtValue ins[2] = {rt_int(9), rt_tensor(t)};
  RtValue r[5];
  GError *error = NULL;
  g_assert_true(it_run(g, NULL, ins, 2, r, &error));
  g_assert_no_error(error);
  char *p = it_print(r[0]);
  g_assert_cmpstr(p, ==, "[9, 9]");
  g_free(p);
  g_assert_cmpint(r[1].u.i, ==, 9);
  g_assert_true(r[2].tag == RT_TENSOR && r[2].u.tensor == t);
  g_assert_cmpint(r[3].u.i, ==, 9); /* index -3 of a 3-tuple is element 0 */
  g_assert_true(r[4].tag == RT_TUPLE && r[4].u.seq->len == 3);
  for (guint i = 0; i < 5; i++)
    rt_value_unref(r[i]);
  /* t: ours, plus nothing left over from the run. */
  g_assert_cmpint(t->refcount, ==, 1);
  rt_value_unref(ins[1]);
  ir_graph_free(g);
}

static void test_list_unpack_mismatch(void) {
  IrGraph *g = ir_graph_new();
  IrValue *l = ir_graph_add_input(g, ir_type_list(ir_type_int()), "l");
  IrNode *u = it_prim(g, IR_PRIM_LIST_UNPACK, &l, 1, 3, ir_type_int());
  u->source = g_intern_string("model.py:4:2");
  ir_graph_add_output(g, ir_output(u, 0));
  gint64 two[2] = {1, 2};
  RtValue ins[1] = {rt_int_list(two, 2)};
  RtValue r[1];
  GError *error = NULL;
  g_assert_false(it_run(g, NULL, ins, 1, r, &error));
  g_assert_error(error, JITSCOPE_RUNTIME_ERROR, 0);
  g_assert_cmpstr(error->message, ==,
                  "model.py:4:2: prim::ListUnpack: expected a list of 3 elements, got 2");
  g_error_free(error);
  rt_value_unref(ins[0]);
  ir_graph_free(g);
}

static void test_tuple_index_out_of_range(void) {
  IrGraph *g = ir_graph_new();
  IrValue *a = ir_graph_add_input(g, ir_type_int(), "a");
  IrValue *tup = ir_output(it_prim(g, IR_PRIM_TUPLE_CONSTRUCT, &a, 1, 1, ir_type_any()), 0);
  IrValue *two = ir_graph_insert_constant_int(g, 2);
  IrValue *in[2] = {tup, two};
  ir_graph_add_output(g, ir_output(it_prim(g, IR_PRIM_TUPLE_INDEX, in, 2, 1, ir_type_int()), 0));
  RtValue ins[1] = {rt_int(1)};
  RtValue r[1];
  GError *error = NULL;
  g_assert_false(it_run(g, NULL, ins, 1, r, &error));
  g_assert_nonnull(strstr(error->message, "prim::TupleIndex: tuple index 2 out of range"));
  g_error_free(error);
  ir_graph_free(g);
}

static IrNode *chunk_node(IrGraph *g, IrOpKind kind, IrValue *const *ins, guint n_in, gint64 chunks,
                          gint64 dim) {
  guint n_out = kind == IR_PRIM_CHUNK_SIZES ? 2 : (guint)(n_in * chunks);
  IrNode *n = it_prim(g, kind, ins, n_in, n_out,
                      kind == IR_PRIM_CHUNK_SIZES ? ir_type_list(ir_type_int()) : ir_type_tensor());
  ir_node_set_attr_i(n, IR_ATTR_CHUNKS, chunks);
  ir_node_set_attr_i(n, IR_ATTR_DIM, dim);
  return n;
}

static void test_constant_chunk(void) {
  IrGraph *g = ir_graph_new();
  IrValue *x = ir_graph_add_input(g, ir_type_tensor(), "x");
  IrValue *v = ir_graph_add_input(g, ir_type_tensor(), "v");
  IrNode *c3 = chunk_node(g, IR_PRIM_CONSTANT_CHUNK, &x, 1, 3, -1);
  IrNode *c4 = chunk_node(g, IR_PRIM_CONSTANT_CHUNK, &v, 1, 4, 0);
  for (guint i = 0; i < 3; i++)
    ir_graph_add_output(g, ir_output(c3, i));
  for (guint i = 0; i < 4; i++)
    ir_graph_add_output(g, ir_output(c4, i));

  int64_t s[2] = {2, 6};
  double xv[12] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  double vv[5] = {10, 11, 12, 13, 14};
  RtValue ins[2] = {rt_tensor(it_tensor(2, s, xv)), rt_tensor(it_vector(5, vv))};
  RtValue r[7];
  GError *error = NULL;
  g_assert_true(it_run(g, NULL, ins, 2, r, &error));
  g_assert_no_error(error);
  int64_t ps[2] = {2, 2};
  double p0[4] = {0, 1, 6, 7}, p1[4] = {2, 3, 8, 9}, p2[4] = {4, 5, 10, 11};
  it_assert_tensor(r[0].u.tensor, 2, ps, p0, 0);
  it_assert_tensor(r[1].u.tensor, 2, ps, p1, 0);
  it_assert_tensor(r[2].u.tensor, 2, ps, p2, 0);
  /* 5 elements in 4 chunks: pieces of ceil(5/4) = 2 -> [10, 11], [12, 13], [14], undefined. */
  int64_t two = 2, one = 1;
  double q0[2] = {10, 11}, q1[2] = {12, 13}, q2[1] = {14};
  it_assert_tensor(r[3].u.tensor, 1, &two, q0, 0);
  it_assert_tensor(r[4].u.tensor, 1, &two, q1, 0);
  it_assert_tensor(r[5].u.tensor, 1, &one, q2, 0);
  g_assert_true(r[6].tag == RT_TENSOR && r[6].u.tensor == NULL);
  /* Pieces are views of the input. */
  g_assert_true(r[0].u.tensor->storage == ins[0].u.tensor->storage);
  for (guint i = 0; i < 7; i++)
    rt_value_unref(r[i]);
  rt_value_unref(ins[0]);
  rt_value_unref(ins[1]);
  ir_graph_free(g);
}

static void test_broadcasting_chunk_and_sizes(void) {
  IrGraph *g = ir_graph_new();
  IrValue *a = ir_graph_add_input(g, ir_type_tensor(), "a");
  IrValue *b = ir_graph_add_input(g, ir_type_tensor(), "b");
  IrValue *ab[2] = {a, b};
  IrNode *bc = chunk_node(g, IR_PRIM_BROADCASTING_CHUNK, ab, 2, 2, 1);
  gint64 s1[2] = {5, 1}, s2[2] = {1, 5}, s3[1] = {5};
  IrValue *sizes[3] = {ir_graph_insert_constant_int_list(g, s1, 2),
                       ir_graph_insert_constant_int_list(g, s2, 2),
                       ir_graph_insert_constant_int_list(g, s3, 1)};
  IrNode *bs = it_prim(g, IR_PRIM_BROADCAST_SIZES, sizes, 3, 1, ir_type_list(ir_type_int()));
  gint64 s4[2] = {2, 10}, s5[2] = {2, 12};
  IrValue *l4 = ir_graph_insert_constant_int_list(g, s4, 2);
  IrValue *l5 = ir_graph_insert_constant_int_list(g, s5, 2);
  IrNode *cs1 = chunk_node(g, IR_PRIM_CHUNK_SIZES, &l4, 1, 3, 1);
  IrNode *cs2 = chunk_node(g, IR_PRIM_CHUNK_SIZES, &l5, 1, 3, -1);
  for (guint i = 0; i < 4; i++)
    ir_graph_add_output(g, ir_output(bc, i));
  ir_graph_add_output(g, ir_output(bs, 0));
  for (guint i = 0; i < 2; i++)
    ir_graph_add_output(g, ir_output(cs1, i));
  for (guint i = 0; i < 2; i++)
    ir_graph_add_output(g, ir_output(cs2, i));

  int64_t sa[2] = {2, 4};
  double av[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  double bv[4] = {10, 20, 30, 40};
  RtValue ins[2] = {rt_tensor(it_tensor(2, sa, av)), rt_tensor(it_vector(4, bv))};
  RtValue r[9];
  GError *error = NULL;
  g_assert_true(it_run(g, NULL, ins, 2, r, &error));
  g_assert_no_error(error);
  int64_t ps[2] = {2, 2};
  double a0[4] = {1, 2, 5, 6}, a1[4] = {3, 4, 7, 8};
  double b0[4] = {10, 20, 10, 20}, b1[4] = {30, 40, 30, 40};
  it_assert_tensor(r[0].u.tensor, 2, ps, a0, 0);
  it_assert_tensor(r[1].u.tensor, 2, ps, a1, 0);
  it_assert_tensor(r[2].u.tensor, 2, ps, b0, 0);
  it_assert_tensor(r[3].u.tensor, 2, ps, b1, 0);
  const char *expect[5] = {"[5, 5]", "[2, 4]", "[2, 2]", "[2, 4]", "[2, 4]"};
  for (guint i = 0; i < 5; i++) {
    char *p = it_print(r[4 + i]);
    g_assert_cmpstr(p, ==, expect[i]);
    g_free(p);
  }
  for (guint i = 0; i < 9; i++)
    rt_value_unref(r[i]);
  rt_value_unref(ins[0]);
  rt_value_unref(ins[1]);
  ir_graph_free(g);
}

static void test_broadcast_sizes_mismatch(void) {
  IrGraph *g = ir_graph_new();
  gint64 s1[1] = {3}, s2[1] = {4};
  IrValue *sizes[2] = {ir_graph_insert_constant_int_list(g, s1, 1),
                       ir_graph_insert_constant_int_list(g, s2, 1)};
  IrNode *bs = it_prim(g, IR_PRIM_BROADCAST_SIZES, sizes, 2, 1, ir_type_list(ir_type_int()));
  ir_graph_add_output(g, ir_output(bs, 0));
  RtValue r[1];
  GError *error = NULL;
  g_assert_false(it_run(g, NULL, NULL, 0, r, &error));
  g_assert_true(g_str_has_prefix(error->message, "prim::BroadcastSizes: "));
  g_error_free(error);
  ir_graph_free(g);
}

static void test_raise_and_uninitialized(void) {
  IrGraph *g = ir_graph_new();
  IrValue *flag = ir_graph_add_input(g, ir_type_bool(), "flag");
  IrNode *ifn = it_prim(g, IR_PRIM_IF, &flag, 1, 1, ir_type_int());
  IrBlock *then_b = ir_node_add_block(ifn);
  IrBlock *else_b = ir_node_add_block(ifn);
  ir_graph_set_insert_point(g, then_b->ret);
  IrValue *msg = constant(g, ir_type_str());
  ir_node_set_attr_s(last_node_in(then_b), IR_ATTR_VALUE, "Exception: x must be positive");
  IrNode *raise = it_prim(g, IR_PRIM_RAISE_EXCEPTION, &msg, 1, 0, ir_type_none());
  raise->source = g_intern_string("model.py:7:8");
  IrValue *un = ir_output(it_prim(g, IR_PRIM_UNINITIALIZED, NULL, 0, 1, ir_type_int()), 0);
  ir_block_add_output(then_b, un);
  ir_graph_set_insert_point(g, else_b->ret);
  ir_block_add_output(else_b, ir_graph_insert_constant_int(g, 3));
  ir_graph_set_insert_point(g, g->block->ret);
  ir_graph_add_output(g, ir_output(ifn, 0));

  RtValue r[1];
  GError *error = NULL;
  RtValue no[1] = {rt_bool(false)};
  g_assert_true(it_run(g, NULL, no, 1, r, &error));
  g_assert_cmpint(r[0].u.i, ==, 3);
  RtValue yes[1] = {rt_bool(true)};
  g_assert_false(it_run(g, NULL, yes, 1, r, &error));
  g_assert_cmpstr(error->message, ==,
                  "model.py:7:8: prim::RaiseException: Exception: x must be positive");
  g_error_free(error);
  ir_graph_free(g);
}

static void test_autograd_helpers(void) {
  IrGraph *g = ir_graph_new();
  IrValue *x = ir_graph_add_input(g, ir_type_tensor(), "x");
  IrValue *y = ir_graph_add_input(g, ir_type_tensor(), "y");
  IrValue *zero = ir_output(it_prim(g, IR_PRIM_AUTOGRAD_ZERO, NULL, 0, 1, ir_type_tensor()), 0);
  IrValue *zx[2] = {zero, x}, *xz[2] = {x, zero}, *zz[2] = {zero, zero}, *xy[2] = {x, y};
  IrValue *o[7];
  o[0] = ir_output(it_prim(g, IR_PRIM_AUTOGRAD_ADD, zx, 2, 1, ir_type_tensor()), 0);
  o[1] = ir_output(it_prim(g, IR_PRIM_AUTOGRAD_ADD, xz, 2, 1, ir_type_tensor()), 0);
  o[2] = ir_output(it_prim(g, IR_PRIM_AUTOGRAD_ADD, zz, 2, 1, ir_type_tensor()), 0);
  o[3] = ir_output(it_prim(g, IR_PRIM_AUTOGRAD_ADD, xy, 2, 1, ir_type_tensor()), 0);
  o[4] = ir_output(it_prim(g, IR_PRIM_AUTOGRAD_ANY_NON_ZERO, zx, 2, 1, ir_type_bool()), 0);
  o[5] = ir_output(it_prim(g, IR_PRIM_AUTOGRAD_ANY_NON_ZERO, zz, 2, 1, ir_type_bool()), 0);
  IrValue *lst =
      ir_output(it_prim(g, IR_PRIM_LIST_CONSTRUCT, zx, 2, 1, ir_type_list(ir_type_tensor())), 0);
  o[6] = ir_output(it_prim(g, IR_PRIM_AUTOGRAD_ANY_NON_ZERO, &lst, 1, 1, ir_type_bool()), 0);
  for (guint i = 0; i < 7; i++)
    ir_graph_add_output(g, o[i]);

  double xv[2] = {1, 2}, yv[2] = {10, 20};
  RtValue ins[2] = {rt_tensor(it_vector(2, xv)), rt_tensor(it_vector(2, yv))};
  RtValue r[7];
  GError *error = NULL;
  g_assert_true(it_run(g, NULL, ins, 2, r, &error));
  g_assert_no_error(error);
  g_assert_true(r[0].u.tensor == ins[0].u.tensor); /* undefined side: the other, not a copy */
  g_assert_true(r[1].u.tensor == ins[0].u.tensor);
  g_assert_true(r[2].tag == RT_TENSOR && r[2].u.tensor == NULL);
  int64_t two = 2;
  double sum[2] = {11, 22};
  it_assert_tensor(r[3].u.tensor, 1, &two, sum, 0);
  g_assert_true(r[4].tag == RT_BOOL && r[4].u.b);
  g_assert_true(r[5].tag == RT_BOOL && !r[5].u.b);
  g_assert_true(r[6].u.b);
  for (guint i = 0; i < 7; i++)
    rt_value_unref(r[i]);
  rt_value_unref(ins[0]);
  rt_value_unref(ins[1]);
  ir_graph_free(g);
}

static void test_fused_concat(void) {
  IrGraph *g = ir_graph_new();
  IrValue *x = ir_graph_add_input(g, ir_type_tensor(), "x");
  IrValue *y = ir_graph_add_input(g, ir_type_tensor(), "y");
  IrValue *xy[2] = {x, y};
  IrNode *cat = it_prim(g, IR_PRIM_FUSED_CONCAT, xy, 2, 1, ir_type_tensor());
  ir_node_set_attr_i(cat, IR_ATTR_DIM, 0);
  ir_graph_add_output(g, ir_output(cat, 0));
  double xv[2] = {1, 2}, yv[1] = {3};
  RtValue ins[2] = {rt_tensor(it_vector(2, xv)), rt_tensor(it_vector(1, yv))};
  RtValue r[1];
  GError *error = NULL;
  g_assert_true(it_run(g, NULL, ins, 2, r, &error));
  g_assert_no_error(error);
  int64_t three = 3;
  double all[3] = {1, 2, 3};
  it_assert_tensor(r[0].u.tensor, 1, &three, all, 0);
  rt_value_unref(r[0]);
  rt_value_unref(ins[0]);
  rt_value_unref(ins[1]);
  ir_graph_free(g);
}

static void test_malformed_prim_is_compile_error(void) {
  IrGraph *g = ir_graph_new();
  IrValue *x = ir_graph_add_input(g, ir_type_tensor(), "x");
  IrNode *c = it_prim(g, IR_PRIM_CONSTANT_CHUNK, &x, 1, 2, ir_type_tensor());
  ir_node_set_attr_i(c, IR_ATTR_CHUNKS, 2); /* no dim */
  ir_graph_add_output(g, ir_output(c, 0));
  GError *error = NULL;
  g_assert_null(rt_code_compile(g, &error));
  g_assert_cmpstr(error->message, ==, "prim::ConstantChunk: missing int attribute 'dim'");
  g_error_free(error);
  ir_graph_free(g);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/interp/prims/constants", test_constants);
  g_test_add_func("/interp/prims/lists-and-tuples", test_lists_and_tuples);
  g_test_add_func("/interp/prims/list-unpack-mismatch", test_list_unpack_mismatch);
  g_test_add_func("/interp/prims/tuple-index-out-of-range", test_tuple_index_out_of_range);
  g_test_add_func("/interp/prims/constant-chunk", test_constant_chunk);
  g_test_add_func("/interp/prims/broadcasting-chunk-and-sizes", test_broadcasting_chunk_and_sizes);
  g_test_add_func("/interp/prims/broadcast-sizes-mismatch", test_broadcast_sizes_mismatch);
  g_test_add_func("/interp/prims/raise-and-uninitialized", test_raise_and_uninitialized);
  g_test_add_func("/interp/prims/autograd-helpers", test_autograd_helpers);
  g_test_add_func("/interp/prims/fused-concat", test_fused_concat);
  g_test_add_func("/interp/prims/malformed-prim", test_malformed_prim_is_compile_error);
  return g_test_run();
}
