/* Views and shapes: t, transpose, unsqueeze, squeeze, expand(_as), view, reshape, size,
 * _size_if_not_equal, chunk, cat. Views must share self's storage. */
#include "kernels_test_util.h"

#define F32 IR_DTYPE_FLOAT32
#define F64 IR_DTYPE_FLOAT64
#define I64 IR_DTYPE_INT64

/* A = [[1, 2, 3], [4, 5, 6]] */
static RtValue A(void) {
  return rt_tensor(kt_tensor(F32, 2, KT_SIZES(2, 3), KT_VALUES(1, 2, 3, 4, 5, 6)));
}

static RtTensor *view_of(const char *op, RtValue *args, guint n, RtValue self) {
  RtTensor *r = kt_run(op, args, n);
  g_assert_true(r->storage == self.u.tensor->storage);
  return r;
}

static void test_t_transpose(void) {
  RtValue a[3] = {A(), rt_int(0), rt_int(-1)};
  RtTensor *r = view_of("aten::t(", a, 1, a[0]);
  kt_assert_tensor(r, F32, 2, KT_SIZES(3, 2), KT_VALUES(1, 4, 2, 5, 3, 6), 0);
  rt_tensor_unref(r);
  r = view_of("aten::transpose.int(", a, 3, a[0]);
  kt_assert_tensor(r, F32, 2, KT_SIZES(3, 2), KT_VALUES(1, 4, 2, 5, 3, 6), 0);
  rt_tensor_unref(r);
  rt_value_unref(a[2]);
  a[2] = rt_int(2);
  kt_expect_error("aten::transpose.int(", a, 3,
                  "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  kt_unref_args(a, 3);
  RtValue v[1] = {rt_tensor(kt_tensor(F32, 1, KT_SIZES(3), KT_VALUES(1, 2, 3)))};
  r = view_of("aten::t(", v, 1, v[0]);
  kt_assert_tensor(r, F32, 1, KT_SIZES(3), KT_VALUES(1, 2, 3), 0);
  rt_tensor_unref(r);
  kt_unref_args(v, 1);
  RtValue c[1] = {rt_tensor(rt_tensor_zeros(F32, 3, KT_SIZES(1, 1, 1)))};
  kt_expect_error("aten::t(", c, 1, "t() expects a tensor with <= 2 dimensions, but self is 3D");
  kt_unref_args(c, 1);
}

static void test_squeeze_unsqueeze(void) {
  RtValue a[2] = {A(), rt_int(-1)};
  RtTensor *r = view_of("aten::unsqueeze(", a, 2, a[0]);
  kt_assert_tensor(r, F32, 3, KT_SIZES(2, 3, 1), KT_VALUES(1, 2, 3, 4, 5, 6), 0);
  rt_tensor_unref(r);
  rt_value_unref(a[1]);
  a[1] = rt_int(0);
  r = view_of("aten::unsqueeze(", a, 2, a[0]);
  kt_assert_tensor(r, F32, 3, KT_SIZES(1, 2, 3), KT_VALUES(1, 2, 3, 4, 5, 6), 0);
  rt_tensor_unref(r);
  a[1] = rt_int(3);
  kt_expect_error("aten::unsqueeze(", a, 2, "expected to be in range of [-3, 2], but got 3");
  kt_unref_args(a, 2);

  RtValue s[2] = {rt_tensor(kt_tensor(F64, 3, KT_SIZES(1, 2, 1), KT_VALUES(7, 8))), rt_int(0)};
  r = view_of("aten::squeeze(", s, 1, s[0]);
  kt_assert_tensor(r, F64, 1, KT_SIZES(2), KT_VALUES(7, 8), 0);
  rt_tensor_unref(r);
  r = view_of("aten::squeeze.dim(", s, 2, s[0]);
  kt_assert_tensor(r, F64, 2, KT_SIZES(2, 1), KT_VALUES(7, 8), 0);
  rt_tensor_unref(r);
  /* a dim of size 2 stays */
  s[1] = rt_int(1);
  r = view_of("aten::squeeze.dim(", s, 2, s[0]);
  kt_assert_tensor(r, F64, 3, KT_SIZES(1, 2, 1), KT_VALUES(7, 8), 0);
  rt_tensor_unref(r);
  s[1] = rt_int(-4);
  kt_expect_error("aten::squeeze.dim(", s, 2, "but got -4");
  kt_unref_args(s, 2);
}

static void test_expand(void) {
  RtValue a[2] = {rt_tensor(kt_tensor(F32, 2, KT_SIZES(3, 1), KT_VALUES(1, 2, 3))),
                  rt_int_list(KT_SIZES(2, -1, 2), 3)};
  RtTensor *r = view_of("aten::expand(", a, 2, a[0]);
  kt_assert_tensor(r, F32, 3, KT_SIZES(2, 3, 2), KT_VALUES(1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3), 0);
  g_assert_cmpint(r->strides[0], ==, 0);
  g_assert_cmpint(r->strides[2], ==, 0);
  rt_tensor_unref(r);
  rt_value_unref(a[1]);
  a[1] = rt_int_list(KT_SIZES(3), 1);
  kt_expect_error("aten::expand(", a, 2,
                  "the number of sizes provided (1) must be greater or "
                  "equal to the number of dimensions in the tensor (2)");
  rt_value_unref(a[1]);
  a[1] = rt_int_list(KT_SIZES(5, 1), 2);
  kt_expect_error("aten::expand(", a, 2,
                  "The expanded size of the tensor (5) must match the "
                  "existing size (3) at non-singleton dimension 0");
  rt_value_unref(a[1]);
  a[1] = rt_int_list(KT_SIZES(-1, 3, 1), 3);
  kt_expect_error("aten::expand(", a, 2, "isn't allowed in a leading, non-existing dimension 0");
  rt_value_unref(a[1]);
  a[1] = rt_tensor(rt_tensor_zeros(I64, 2, KT_SIZES(3, 4)));
  r = view_of("aten::expand_as(", a, 2, a[0]);
  kt_assert_tensor(r, F32, 2, KT_SIZES(3, 4), KT_VALUES(1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3), 0);
  rt_tensor_unref(r);
  kt_unref_args(a, 2);
}

static void test_view_reshape(void) {
  RtValue a[2] = {A(), rt_int_list(KT_SIZES(3, 2), 2)};
  RtTensor *r = view_of("aten::view(", a, 2, a[0]);
  kt_assert_tensor(r, F32, 2, KT_SIZES(3, 2), KT_VALUES(1, 2, 3, 4, 5, 6), 0);
  rt_tensor_unref(r);
  rt_value_unref(a[1]);
  a[1] = rt_int_list(KT_SIZES(-1), 1);
  r = view_of("aten::reshape(", a, 2, a[0]);
  kt_assert_tensor(r, F32, 1, KT_SIZES(6), KT_VALUES(1, 2, 3, 4, 5, 6), 0);
  rt_tensor_unref(r);
  rt_value_unref(a[1]);
  a[1] = rt_int_list(KT_SIZES(4), 1);
  kt_expect_error("aten::view(", a, 2, "shape '[4]' is invalid for input of size 6");
  kt_unref_args(a, 2);

  /* the transpose cannot be viewed flat; reshape copies it */
  RtTensor *base = kt_tensor(F32, 2, KT_SIZES(2, 3), KT_VALUES(1, 2, 3, 4, 5, 6));
  RtValue b[2] = {rt_tensor(rt_tensor_view_transpose(base, 0, 1)), rt_int_list(KT_SIZES(6), 1)};
  rt_tensor_unref(base);
  kt_expect_error("aten::view(", b, 2, "view size is not compatible with input tensor's size");
  r = kt_run("aten::reshape(", b, 2);
  kt_assert_tensor(r, F32, 1, KT_SIZES(6), KT_VALUES(1, 4, 2, 5, 3, 6), 0);
  rt_tensor_unref(r);
  kt_unref_args(b, 2);
}

static void test_sizes(void) {
  RtValue a[2] = {A(), rt_int(-1)};
  GError *error = NULL;
  RtValue out;
  g_assert_true(kt_call("aten::size(", a, 1, &out, &error));
  g_assert_cmpint(out.tag, ==, RT_LIST);
  g_assert_cmpuint(out.u.seq->len, ==, 2);
  g_assert_cmpint(out.u.seq->items[0].u.i, ==, 2);
  g_assert_cmpint(out.u.seq->items[1].u.i, ==, 3);
  rt_value_unref(out);
  g_assert_true(kt_call("aten::size.int(", a, 2, &out, &error));
  g_assert_cmpint(out.tag, ==, RT_INT);
  g_assert_cmpint(out.u.i, ==, 3);
  a[1] = rt_int(2);
  kt_expect_error("aten::size.int(", a, 2, "Dimension out of range");
  kt_unref_args(a, 2);

  RtValue s[2] = {rt_int_list(KT_SIZES(2, 3), 2), rt_int_list(KT_SIZES(2, 3), 2)};
  g_assert_true(kt_call("aten::_size_if_not_equal(", s, 2, &out, &error));
  g_assert_cmpint(out.tag, ==, RT_NONE);
  rt_value_unref(s[1]);
  s[1] = rt_int_list(KT_SIZES(3), 1);
  g_assert_true(kt_call("aten::_size_if_not_equal(", s, 2, &out, &error));
  g_assert_cmpint(out.tag, ==, RT_LIST);
  g_assert_cmpuint(out.u.seq->len, ==, 2);
  g_assert_cmpint(out.u.seq->items[0].u.i, ==, 2);
  g_assert_cmpint(out.u.seq->items[1].u.i, ==, 3);
  rt_value_unref(out);
  kt_unref_args(s, 2);
}

/* Runs chunk and checks the pieces' sizes along `dim` and that they view self. */
static RtValue chunk(RtValue self, gint64 chunks, gint64 dim, guint n_want,
                     const int64_t *piece_sizes) {
  RtValue args[3] = {self, rt_int(chunks), rt_int(dim)};
  GError *error = NULL;
  RtValue out;
  g_assert_true(kt_call("aten::chunk(", args, 3, &out, &error));
  g_assert_no_error(error);
  g_assert_cmpint(out.tag, ==, RT_LIST);
  g_assert_cmpuint(out.u.seq->len, ==, n_want);
  for (guint k = 0; k < n_want; k++) {
    RtTensor *p = out.u.seq->items[k].u.tensor;
    g_assert_true(p->storage == self.u.tensor->storage);
    g_assert_cmpint(p->sizes[dim < 0 ? dim + p->ndim : dim], ==, piece_sizes[k]);
  }
  return out;
}

static void test_chunk(void) {
  RtValue v = rt_tensor(kt_tensor(F32, 1, KT_SIZES(5), KT_VALUES(1, 2, 3, 4, 5)));
  RtValue out = chunk(v, 3, 0, 3, KT_SIZES(2, 2, 1));
  kt_assert_tensor(out.u.seq->items[2].u.tensor, F32, 1, KT_SIZES(1), KT_VALUES(5), 0);
  kt_assert_tensor(out.u.seq->items[1].u.tensor, F32, 1, KT_SIZES(2), KT_VALUES(3, 4), 0);
  rt_value_unref(out);
  rt_value_unref(chunk(v, 5, 0, 5, KT_SIZES(1, 1, 1, 1, 1)));
  rt_value_unref(chunk(v, 8, -1, 5, KT_SIZES(1, 1, 1, 1, 1)));
  rt_value_unref(v);
  /* 4 in 3 chunks gives 2 pieces of 2 */
  RtValue w = rt_tensor(rt_tensor_zeros(F32, 1, KT_SIZES(4)));
  rt_value_unref(chunk(w, 3, 0, 2, KT_SIZES(2, 2)));
  rt_value_unref(w);
  /* along dim 1 of [2, 4]: the LSTM gate split */
  RtValue m = rt_tensor(kt_tensor(F64, 2, KT_SIZES(2, 4), KT_VALUES(1, 2, 3, 4, 5, 6, 7, 8)));
  out = chunk(m, 2, 1, 2, KT_SIZES(2, 2));
  kt_assert_tensor(out.u.seq->items[1].u.tensor, F64, 2, KT_SIZES(2, 2), KT_VALUES(3, 4, 7, 8), 0);
  rt_value_unref(out);
  rt_value_unref(m);
  /* an empty dim gives `chunks` empty pieces */
  RtValue e = rt_tensor(rt_tensor_zeros(F32, 2, KT_SIZES(0, 2)));
  rt_value_unref(chunk(e, 3, 0, 3, KT_SIZES(0, 0, 0)));
  RtValue bad[3] = {e, rt_int(0), rt_int(0)};
  kt_expect_error("aten::chunk(", bad, 3, "chunk expects `chunks` to be greater than 0, got: 0");
  bad[1] = rt_int(2);
  bad[2] = rt_int(2);
  kt_expect_error("aten::chunk(", bad, 3, "Dimension out of range");
  rt_value_unref(e);
  RtValue z[3] = {rt_tensor(rt_tensor_scalar(F32, 1)), rt_int(2), rt_int(0)};
  kt_expect_error("aten::chunk(", z, 3, "chunk expects at least a 1-dimensional tensor");
  kt_unref_args(z, 3);
}

/* split with an int[] (split.sizes, nn.MultiheadAttention's q, k, v): split_with_sizes's
 * pieces, views of self. */
static void test_split_sizes(void) {
  RtValue args[3] = {rt_tensor(kt_tensor(F32, 1, KT_SIZES(5), KT_VALUES(1, 2, 3, 4, 5))),
                     rt_int_list((const gint64[]){2, 3}, 2), rt_int(0)};
  RtValue out;
  GError *error = NULL;
  g_assert_true(kt_call("aten::split.sizes(", args, 3, &out, &error));
  g_assert_no_error(error);
  g_assert_cmpuint(out.u.seq->len, ==, 2);
  g_assert_true(out.u.seq->items[1].u.tensor->storage == args[0].u.tensor->storage);
  kt_assert_tensor(out.u.seq->items[1].u.tensor, F32, 1, KT_SIZES(3), KT_VALUES(3, 4, 5), 0);
  rt_value_unref(out);
  rt_value_unref(args[1]);
  args[1] = rt_int_list((const gint64[]){2, 2}, 2);
  kt_expect_error("aten::split.sizes(", args, 3, "split_sizes to sum exactly to 5");
  kt_unref_args(args, 3);
}

static RtValue list2(RtTensor *a, RtTensor *b) {
  RtValue items[2] = {rt_tensor(a), rt_tensor(b)};
  return rt_list(items, 2);
}

static void test_cat(void) {
  RtValue a[2] = {list2(kt_tensor(F32, 1, KT_SIZES(2), KT_VALUES(1, 2)),
                        kt_tensor(F32, 1, KT_SIZES(3), KT_VALUES(3, 4, 5))),
                  rt_int(0)};
  RtTensor *r = kt_run("aten::cat(", a, 1);
  kt_assert_tensor(r, F32, 1, KT_SIZES(5), KT_VALUES(1, 2, 3, 4, 5), 0);
  rt_tensor_unref(r);
  kt_unref_args(a, 2);
  /* along dim -1 with promotion int64 + float64 -> float64 */
  RtValue b[2] = {list2(kt_tensor(I64, 2, KT_SIZES(2, 1), KT_VALUES(1, 2)),
                        kt_tensor(F64, 2, KT_SIZES(2, 2), KT_VALUES(0.5, 0.25, 3, 4))),
                  rt_int(-1)};
  r = kt_run("aten::cat(", b, 2);
  kt_assert_tensor(r, F64, 2, KT_SIZES(2, 3), KT_VALUES(1, 0.5, 0.25, 2, 3, 4), 0);
  rt_tensor_unref(r);
  rt_value_unref(b[1]);
  b[1] = rt_int(0);
  kt_expect_error("aten::cat(", b, 2,
                  "Sizes of tensors must match except in dimension 0. "
                  "Expected size 1 but got size 2 for tensor number 1 in the list.");
  kt_unref_args(b, 2);
  /* a 1-D empty tensor is skipped (legacy rule) */
  RtValue c[2] = {list2(rt_tensor_zeros(F32, 1, KT_SIZES(0)),
                        kt_tensor(F32, 2, KT_SIZES(1, 2), KT_VALUES(7, 8))),
                  rt_int(1)};
  r = kt_run("aten::cat(", c, 2);
  kt_assert_tensor(r, F32, 2, KT_SIZES(1, 2), KT_VALUES(7, 8), 0);
  rt_tensor_unref(r);
  kt_unref_args(c, 2);
  /* a transposed input is read through its strides */
  RtTensor *base = kt_tensor(F32, 2, KT_SIZES(2, 2), KT_VALUES(1, 2, 3, 4));
  RtValue d[2] = {list2(rt_tensor_view_transpose(base, 0, 1),
                        kt_tensor(F32, 2, KT_SIZES(1, 2), KT_VALUES(9, 9))),
                  rt_int(0)};
  rt_tensor_unref(base);
  r = kt_run("aten::cat(", d, 2);
  kt_assert_tensor(r, F32, 2, KT_SIZES(3, 2), KT_VALUES(1, 3, 2, 4, 9, 9), 0);
  rt_tensor_unref(r);
  kt_unref_args(d, 2);

  RtValue e[2] = {rt_list(NULL, 0), rt_int(0)};
  kt_expect_error("aten::cat(", e, 2, "expected a non-empty list of Tensors");
  kt_unref_args(e, 2);
  RtValue f[2] = {list2(rt_tensor_scalar(F32, 1), rt_tensor_scalar(F32, 2)), rt_int(0)};
  kt_expect_error("aten::cat(", f, 2,
                  "zero-dimensional tensor (at position 0) cannot be "
                  "concatenated");
  kt_unref_args(f, 2);
  RtValue g[2] = {
      list2(rt_tensor_zeros(F32, 2, KT_SIZES(1, 2)), rt_tensor_zeros(F32, 3, KT_SIZES(1, 1, 2))),
      rt_int(0)};
  kt_expect_error("aten::cat(", g, 2, "Tensors must have same number of dimensions");
  kt_unref_args(g, 2);
}

/* flip: PyTorch 1.13's answers on arange(6).reshape(2, 3) */
static void test_flip(void) {
  RtValue a[2] = {rt_tensor(kt_tensor(F32, 2, KT_SIZES(2, 3), KT_VALUES(0, 1, 2, 3, 4, 5))),
                  rt_int_list((const gint64[]){0, 1}, 2)};
  RtTensor *r = kt_run("aten::flip(", a, 2);
  kt_assert_tensor(r, F32, 2, KT_SIZES(2, 3), KT_VALUES(5, 4, 3, 2, 1, 0), 0);
  rt_tensor_unref(r);
  rt_value_unref(a[1]);
  a[1] = rt_int_list((const gint64[]){-1}, 1);
  r = kt_run("aten::flip(", a, 2);
  kt_assert_tensor(r, F32, 2, KT_SIZES(2, 3), KT_VALUES(2, 1, 0, 5, 4, 3), 0);
  rt_tensor_unref(r);
  rt_value_unref(a[1]);
  a[1] = rt_int_list((const gint64[]){0, 0}, 2);
  kt_expect_error("aten::flip(", a, 2, "appears multiple times");
  kt_unref_args(a, 2);
}

/* clone: a new storage with self's values, also when self is contiguous (contiguous then
 * returns self) */
static void test_clone(void) {
  RtValue a[1] = {rt_tensor(kt_tensor(IR_DTYPE_INT64, 2, KT_SIZES(2, 2), KT_VALUES(1, 2, 3, 4)))};
  RtTensor *r = kt_run("aten::clone(", a, 1);
  kt_assert_tensor(r, IR_DTYPE_INT64, 2, KT_SIZES(2, 2), KT_VALUES(1, 2, 3, 4), 0);
  g_assert_true(r->storage != a[0].u.tensor->storage);
  rt_tensor_unref(r);
  r = kt_run("aten::contiguous(", a, 1);
  g_assert_true(r->storage == a[0].u.tensor->storage);
  rt_tensor_unref(r);
  kt_unref_args(a, 1);
}

/* tril / triu: PyTorch 1.13's answers on arange(1, 13).reshape(3, 4) and a bool batch */
static void test_tril_triu(void) {
  RtValue a[2] = {rt_tensor(kt_tensor(F32, 2, KT_SIZES(3, 4),
                                      KT_VALUES(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12))),
                  rt_int(0)};
  RtTensor *r = kt_run("aten::tril(", a, 2);
  kt_assert_tensor(r, F32, 2, KT_SIZES(3, 4), KT_VALUES(1, 0, 0, 0, 5, 6, 0, 0, 9, 10, 11, 0), 0);
  rt_tensor_unref(r);
  a[1] = rt_int(1);
  r = kt_run("aten::triu(", a, 2);
  kt_assert_tensor(r, F32, 2, KT_SIZES(3, 4), KT_VALUES(0, 2, 3, 4, 0, 0, 7, 8, 0, 0, 0, 12), 0);
  rt_tensor_unref(r);
  a[1] = rt_int(-1);
  r = kt_run("aten::tril(", a, 2);
  kt_assert_tensor(r, F32, 2, KT_SIZES(3, 4), KT_VALUES(0, 0, 0, 0, 5, 0, 0, 0, 9, 10, 0, 0), 0);
  rt_tensor_unref(r);
  a[1] = rt_int(G_MININT64); /* beyond every diagonal: triu keeps all */
  r = kt_run("aten::triu(", a, 2);
  kt_assert_tensor(r, F32, 2, KT_SIZES(3, 4), KT_VALUES(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12), 0);
  rt_tensor_unref(r);
  kt_unref_args(a, 2);
  RtValue b[2] = {rt_tensor(kt_tensor(IR_DTYPE_BOOL, 3, KT_SIZES(2, 2, 3),
                                      KT_VALUES(1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1))),
                  rt_int(0)};
  r = kt_run("aten::triu(", b, 2);
  kt_assert_tensor(r, IR_DTYPE_BOOL, 3, KT_SIZES(2, 2, 3),
                   KT_VALUES(1, 1, 1, 0, 1, 1, 1, 1, 1, 0, 1, 1), 0);
  rt_tensor_unref(r);
  kt_unref_args(b, 2);
  RtValue v[2] = {rt_tensor(kt_tensor(F32, 1, KT_SIZES(3), KT_VALUES(1, 2, 3))), rt_int(0)};
  kt_expect_error("aten::tril(", v, 2, "at least 2 dimensions");
  kt_unref_args(v, 2);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/kernels/shape/t-transpose", test_t_transpose);
  g_test_add_func("/kernels/shape/squeeze-unsqueeze", test_squeeze_unsqueeze);
  g_test_add_func("/kernels/shape/expand", test_expand);
  g_test_add_func("/kernels/shape/view-reshape", test_view_reshape);
  g_test_add_func("/kernels/shape/sizes", test_sizes);
  g_test_add_func("/kernels/shape/chunk", test_chunk);
  g_test_add_func("/kernels/shape/split-sizes", test_split_sizes);
  g_test_add_func("/kernels/shape/cat", test_cat);
  g_test_add_func("/kernels/shape/tril-triu", test_tril_triu);
  g_test_add_func("/kernels/shape/clone", test_clone);
  g_test_add_func("/kernels/shape/flip", test_flip);
  return g_test_run();
}
