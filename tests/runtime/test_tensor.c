/* Tensors: construction, element access, views, contiguity, reshape/view, copies. Expected
 * numbers are worked out by hand from the row-major layout. */
#include "runtime/tensor_type.h"
#include "tensor/tensor.h"

#include <math.h>
#include <string.h>

/* 2x3 float32 tensor holding 0..5 row-major. */
static RtTensor *arange23(void) {
  int64_t sizes[2] = {2, 3};
  RtTensor *t = rt_tensor_new(IR_DTYPE_FLOAT32, 2, sizes);
  for (int i = 0; i < 6; i++)
    rt_tensor_set(t, i, i);
  return t;
}

static void test_new_and_strides(void) {
  int64_t sizes[3] = {2, 3, 4};
  RtTensor *t = rt_tensor_zeros(IR_DTYPE_FLOAT64, 3, sizes);
  g_assert_cmpint(t->strides[0], ==, 12);
  g_assert_cmpint(t->strides[1], ==, 4);
  g_assert_cmpint(t->strides[2], ==, 1);
  g_assert_cmpint(rt_tensor_numel(t), ==, 24);
  g_assert_true(rt_tensor_is_contiguous(t));
  g_assert_cmpuint((guintptr)t->storage->data % 64, ==, 0);
  for (int i = 0; i < 24; i++)
    g_assert_cmpfloat(rt_tensor_get(t, i), ==, 0.0);
  rt_tensor_unref(t);

  RtTensor *f = rt_tensor_full(IR_DTYPE_INT64, 3, sizes, 7.9);
  g_assert_cmpfloat(rt_tensor_get(f, 23), ==, 7.0); /* truncation toward zero */
  rt_tensor_unref(f);
  RtTensor *s = rt_tensor_scalar(IR_DTYPE_BOOL, 0.5);
  g_assert_cmpint(s->ndim, ==, 0);
  g_assert_cmpint(rt_tensor_numel(s), ==, 1);
  g_assert_cmpfloat(rt_tensor_get(s, 0), ==, 1.0);
  rt_tensor_unref(s);

  int64_t empty[2] = {0, 3};
  RtTensor *e = rt_tensor_new(IR_DTYPE_FLOAT32, 2, empty);
  g_assert_cmpint(rt_tensor_numel(e), ==, 0);
  g_assert_nonnull(e->storage->data);
  g_assert_true(rt_tensor_is_contiguous(e));
  rt_tensor_unref(e);
}

static void test_refcount(void) {
  RtTensor *t = arange23();
  RtTensor *v = rt_tensor_view_transpose(t, 0, 1);
  g_assert_true(v->storage == t->storage);
  g_assert_cmpint(t->storage->refcount, ==, 2);
  rt_tensor_unref(t);
  g_assert_cmpint(v->storage->refcount, ==, 1);
  g_assert_cmpfloat(rt_tensor_get(v, 1), ==, 3.0); /* v[0][1] = t[1][0] */
  RtTensor *r = rt_tensor_ref(v);
  g_assert_cmpint(v->refcount, ==, 2);
  rt_tensor_unref(r);
  rt_tensor_unref(v);
}

static void test_transpose_contiguous(void) {
  RtTensor *t = arange23();
  RtTensor *tt = rt_tensor_view_transpose(t, -1, 0);
  g_assert_cmpint(tt->sizes[0], ==, 3);
  g_assert_cmpint(tt->sizes[1], ==, 2);
  g_assert_cmpint(tt->strides[0], ==, 1);
  g_assert_cmpint(tt->strides[1], ==, 3);
  g_assert_false(rt_tensor_is_contiguous(tt));
  /* tt = [[0, 3], [1, 4], [2, 5]] */
  const double want[6] = {0, 3, 1, 4, 2, 5};
  RtTensor *c = rt_tensor_contiguous(tt);
  g_assert_true(c != tt);
  g_assert_true(rt_tensor_is_contiguous(c));
  g_assert_true(c->storage != t->storage);
  for (int i = 0; i < 6; i++) {
    g_assert_cmpfloat(rt_tensor_get(tt, i), ==, want[i]);
    g_assert_cmpfloat(((float *)rt_tensor_data(c))[i], ==, want[i]);
  }
  RtTensor *same = rt_tensor_contiguous(c);
  g_assert_true(same == c);
  rt_tensor_unref(same);
  rt_tensor_unref(c);
  rt_tensor_unref(tt);
  rt_tensor_unref(t);
}

static void test_narrow(void) {
  RtTensor *t = arange23();
  RtTensor *n = rt_tensor_view_narrow(t, 1, 1, 2); /* [[1, 2], [4, 5]] */
  g_assert_cmpint(n->offset, ==, 1);
  g_assert_false(rt_tensor_is_contiguous(n));
  const double want[4] = {1, 2, 4, 5};
  for (int i = 0; i < 4; i++)
    g_assert_cmpfloat(rt_tensor_get(n, i), ==, want[i]);
  rt_tensor_set(n, 3, 50);
  g_assert_cmpfloat(rt_tensor_get(t, 5), ==, 50.0);  /* shares storage */
  RtTensor *row = rt_tensor_view_narrow(t, 0, 1, 1); /* [[3, 4, 50]] contiguous */
  g_assert_true(rt_tensor_is_contiguous(row));
  g_assert_cmpfloat(*(float *)rt_tensor_data(row), ==, 3.0f);
  rt_tensor_unref(row);
  rt_tensor_unref(n);
  rt_tensor_unref(t);
}

static void test_expand(void) {
  int64_t s31[2] = {3, 1};
  RtTensor *t = rt_tensor_new(IR_DTYPE_FLOAT32, 2, s31);
  for (int i = 0; i < 3; i++)
    rt_tensor_set(t, i, 10 * (i + 1));
  int64_t target[3] = {2, 3, 4};
  GError *error = NULL;
  RtTensor *e = rt_tensor_view_expand(t, 3, target, &error);
  g_assert_no_error(error);
  g_assert_cmpint(e->strides[0], ==, 0);
  g_assert_cmpint(e->strides[1], ==, 1);
  g_assert_cmpint(e->strides[2], ==, 0);
  /* element (b, r, c) = 10 * (r + 1) */
  for (int i = 0; i < 24; i++)
    g_assert_cmpfloat(rt_tensor_get(e, i), ==, 10.0 * ((i / 4) % 3 + 1));
  rt_tensor_unref(e);

  int64_t keep[2] = {-1, 5};
  e = rt_tensor_view_expand(t, 2, keep, &error);
  g_assert_no_error(error);
  g_assert_cmpint(e->sizes[0], ==, 3);
  g_assert_cmpint(e->sizes[1], ==, 5);
  rt_tensor_unref(e);

  int64_t bad[2] = {4, 4};
  g_assert_null(rt_tensor_view_expand(t, 2, bad, &error));
  g_assert_error(error, JITSCOPE_RUNTIME_ERROR, RT_ERROR_SHAPE);
  g_assert_nonnull(strstr(error->message, "expanded size of the tensor (4) must match the "
                                          "existing size (3) at non-singleton dimension 0"));
  g_assert_nonnull(strstr(error->message, "[4, 4]"));
  g_assert_nonnull(strstr(error->message, "[3, 1]"));
  g_clear_error(&error);
  int64_t fewer[1] = {3};
  g_assert_null(rt_tensor_view_expand(t, 1, fewer, &error));
  g_assert_error(error, JITSCOPE_RUNTIME_ERROR, RT_ERROR_SHAPE);
  g_clear_error(&error);
  rt_tensor_unref(t);
}

static void test_squeeze_unsqueeze(void) {
  RtTensor *t = arange23();
  RtTensor *u = rt_tensor_view_unsqueeze(t, 1); /* [2, 1, 3], stride of new dim 3*1 */
  g_assert_cmpint(u->ndim, ==, 3);
  g_assert_cmpint(u->sizes[1], ==, 1);
  g_assert_cmpint(u->strides[1], ==, 3);
  RtTensor *u2 = rt_tensor_view_unsqueeze(u, -1); /* [2, 1, 3, 1], last stride 1 */
  g_assert_cmpint(u2->ndim, ==, 4);
  g_assert_cmpint(u2->sizes[3], ==, 1);
  g_assert_cmpint(u2->strides[3], ==, 1);
  RtTensor *s1 = rt_tensor_view_squeeze(u2, 1);
  g_assert_cmpint(s1->ndim, ==, 3);
  g_assert_cmpint(s1->sizes[2], ==, 1);
  RtTensor *s2 = rt_tensor_view_squeeze(s1, 0); /* size 2: unchanged */
  g_assert_cmpint(s2->ndim, ==, 3);
  RtTensor *all = rt_tensor_view_squeeze(u2, -1);
  g_assert_cmpint(all->ndim, ==, 2);
  g_assert_cmpint(all->sizes[0], ==, 2);
  g_assert_cmpint(all->sizes[1], ==, 3);
  for (int i = 0; i < 6; i++)
    g_assert_cmpfloat(rt_tensor_get(all, i), ==, i);
  rt_tensor_unref(all);
  rt_tensor_unref(s2);
  rt_tensor_unref(s1);
  rt_tensor_unref(u2);
  rt_tensor_unref(u);
  rt_tensor_unref(t);
}

static void test_reshape_view(void) {
  GError *error = NULL;
  RtTensor *t = arange23();
  int64_t s32[2] = {3, -1};
  RtTensor *v = rt_tensor_reshape(t, 2, s32, true, &error);
  g_assert_no_error(error);
  g_assert_true(v->storage == t->storage);
  g_assert_cmpint(v->sizes[1], ==, 2);
  g_assert_cmpint(v->strides[0], ==, 2);
  rt_tensor_unref(v);

  /* Transposed [3, 2] with strides [1, 3]: flattening needs a copy. */
  RtTensor *tt = rt_tensor_view_transpose(t, 0, 1);
  int64_t flat[1] = {6};
  g_assert_null(rt_tensor_reshape(tt, 1, flat, true, &error));
  g_assert_error(error, JITSCOPE_RUNTIME_ERROR, RT_ERROR_SHAPE);
  g_assert_nonnull(strstr(error->message, "view size is not compatible"));
  g_assert_nonnull(strstr(error->message, "Use .reshape(...) instead"));
  g_clear_error(&error);
  RtTensor *r = rt_tensor_reshape(tt, 1, flat, false, &error);
  g_assert_no_error(error);
  g_assert_true(r->storage != t->storage);
  const double want[6] = {0, 3, 1, 4, 2, 5};
  for (int i = 0; i < 6; i++)
    g_assert_cmpfloat(rt_tensor_get(r, i), ==, want[i]);
  rt_tensor_unref(r);

  /* Splitting a dim of the transposed tensor is a view: [3, 2] -> [3, 1, 2]. */
  int64_t s312[3] = {3, 1, 2};
  v = rt_tensor_reshape(tt, 3, s312, true, &error);
  g_assert_no_error(error);
  g_assert_cmpint(v->strides[0], ==, 1);
  g_assert_cmpint(v->strides[2], ==, 3);
  for (int i = 0; i < 6; i++)
    g_assert_cmpfloat(rt_tensor_get(v, i), ==, want[i]);
  rt_tensor_unref(v);

  /* Narrowed columns [2, 2] with strides [3, 1]: [4] needs a copy, [2, 1, 2] does not. */
  RtTensor *n = rt_tensor_view_narrow(t, 1, 0, 2);
  int64_t four[1] = {4};
  g_assert_null(rt_tensor_reshape(n, 1, four, true, &error));
  g_clear_error(&error);
  int64_t s212[3] = {2, 1, 2};
  v = rt_tensor_reshape(n, 3, s212, true, &error);
  g_assert_no_error(error);
  g_assert_cmpint(v->strides[0], ==, 3);
  g_assert_cmpint(v->strides[2], ==, 1);
  rt_tensor_unref(v);
  rt_tensor_unref(n);

  int64_t bad[2] = {4, -1};
  g_assert_null(rt_tensor_reshape(t, 2, bad, false, &error));
  g_assert_error(error, JITSCOPE_RUNTIME_ERROR, RT_ERROR_SHAPE);
  g_assert_cmpstr(error->message, ==, "shape '[4, -1]' is invalid for input of size 6");
  g_clear_error(&error);
  int64_t two[2] = {-1, -1};
  g_assert_null(rt_tensor_reshape(t, 2, two, false, &error));
  g_assert_cmpstr(error->message, ==, "only one dimension can be inferred");
  g_clear_error(&error);

  /* 0-dim <-> [1, 1] */
  RtTensor *s = rt_tensor_scalar(IR_DTYPE_FLOAT64, 2.5);
  int64_t ones[2] = {1, 1};
  v = rt_tensor_reshape(s, 2, ones, true, &error);
  g_assert_no_error(error);
  g_assert_cmpfloat(rt_tensor_get(v, 0), ==, 2.5);
  RtTensor *back = rt_tensor_reshape(v, 0, NULL, true, &error);
  g_assert_no_error(error);
  g_assert_cmpint(back->ndim, ==, 0);
  rt_tensor_unref(back);
  rt_tensor_unref(v);
  rt_tensor_unref(s);
  rt_tensor_unref(tt);
  rt_tensor_unref(t);
}

static void test_to_dtype_and_copy(void) {
  int64_t s[1] = {6};
  RtTensor *t = rt_tensor_new(IR_DTYPE_FLOAT64, 1, s);
  const double in[6] = {-2.7, -0.5, 0.0, 0.5, 2.7, NAN};
  for (int i = 0; i < 6; i++)
    rt_tensor_set(t, i, in[i]);
  RtTensor *l = rt_tensor_to_dtype(t, IR_DTYPE_INT64);
  const int64_t li[6] = {-2, 0, 0, 0, 2, INT64_MIN};
  for (int i = 0; i < 6; i++)
    g_assert_cmpint(((int64_t *)rt_tensor_data(l))[i], ==, li[i]);
  RtTensor *b = rt_tensor_to_dtype(t, IR_DTYPE_BOOL);
  const uint8_t bi[6] = {1, 1, 0, 1, 1, 1};
  for (int i = 0; i < 6; i++)
    g_assert_cmpint(((uint8_t *)rt_tensor_data(b))[i], ==, bi[i]);
  RtTensor *h = rt_tensor_to_dtype(t, IR_DTYPE_FLOAT16);
  /* -2.7 -> nearest half: 2.7 = 1.35 * 2; mantissa 0.35 * 1024 = 358.4 -> 358: 0x4166 */
  g_assert_cmpint(((uint16_t *)rt_tensor_data(h))[0], ==, 0xc166);
  g_assert_cmpint(((uint16_t *)rt_tensor_data(h))[3], ==, 0x3800);
  RtTensor *f = rt_tensor_to_dtype(h, IR_DTYPE_FLOAT32);
  g_assert_cmpfloat(((float *)rt_tensor_data(f))[0], ==, -(1.0f + 358.0f / 1024.0f) * 2.0f);
  g_assert_true(isnan(((float *)rt_tensor_data(f))[5]));
  rt_tensor_unref(f);
  rt_tensor_unref(h);
  rt_tensor_unref(b);

  /* Exact int64 beyond 2^53 survives int64 -> int64 clone. */
  rt_tensor_set(l, 0, 0);
  ((int64_t *)rt_tensor_data(l))[0] = (INT64_C(1) << 60) + 1;
  RtTensor *lc = rt_tensor_clone(l);
  g_assert_cmpint(((int64_t *)rt_tensor_data(lc))[0], ==, (INT64_C(1) << 60) + 1);
  rt_tensor_unref(lc);
  rt_tensor_unref(l);

  /* Broadcasting copy of a [3] row into a transposed [2, 3] destination. */
  int64_t s23[2] = {3, 2};
  RtTensor *dst0 = rt_tensor_zeros(IR_DTYPE_FLOAT32, 2, s23);
  RtTensor *dst = rt_tensor_view_transpose(dst0, 0, 1); /* [2, 3] strides [1, 2] */
  int64_t s3[1] = {3};
  RtTensor *row = rt_tensor_new(IR_DTYPE_INT64, 1, s3);
  for (int i = 0; i < 3; i++)
    rt_tensor_set(row, i, i + 1);
  GError *error = NULL;
  g_assert_true(rt_tensor_copy_into(dst, row, &error));
  g_assert_no_error(error);
  for (int i = 0; i < 6; i++)
    g_assert_cmpfloat(rt_tensor_get(dst, i), ==, i % 3 + 1);
  /* dst0 (the [3, 2] base) = [[1, 1], [2, 2], [3, 3]] */
  for (int i = 0; i < 6; i++)
    g_assert_cmpfloat(((float *)rt_tensor_data(dst0))[i], ==, i / 2 + 1);
  int64_t s4[1] = {4};
  RtTensor *wrong = rt_tensor_zeros(IR_DTYPE_FLOAT32, 1, s4);
  g_assert_false(rt_tensor_copy_into(dst, wrong, &error));
  g_assert_error(error, JITSCOPE_RUNTIME_ERROR, RT_ERROR_SHAPE);
  g_clear_error(&error);
  /* src larger than dst: broadcastable but not into dst */
  int64_t s13[2] = {1, 3};
  RtTensor *small = rt_tensor_zeros(IR_DTYPE_FLOAT32, 2, s13);
  g_assert_false(rt_tensor_copy_into(small, dst, &error));
  g_assert_error(error, JITSCOPE_RUNTIME_ERROR, RT_ERROR_SHAPE);
  g_clear_error(&error);
  rt_tensor_unref(small);
  rt_tensor_unref(wrong);
  rt_tensor_unref(row);
  rt_tensor_unref(dst);
  rt_tensor_unref(dst0);
  rt_tensor_unref(t);
}

static void test_wrap_dim(void) {
  GError *error = NULL;
  int d;
  g_assert_true(rt_wrap_dim(-1, 3, &d, NULL));
  g_assert_cmpint(d, ==, 2);
  g_assert_true(rt_wrap_dim(0, 0, &d, NULL));
  g_assert_true(rt_wrap_dim(-1, 0, &d, NULL));
  g_assert_cmpint(d, ==, 0);
  g_assert_false(rt_wrap_dim(2, 2, &d, &error));
  g_assert_cmpstr(error->message, ==,
                  "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  g_clear_error(&error);
}

static void test_type(void) {
  RtTensor *t = arange23();
  RtTensor *tt = rt_tensor_view_transpose(t, 0, 1);
  tt->requires_grad = true;
  const IrType *ty = rt_tensor_type(tt);
  g_assert_cmpint(ty->kind, ==, IR_TYPE_TENSOR);
  g_assert_true(ty->has_dtype);
  g_assert_cmpint(ty->dtype, ==, IR_DTYPE_FLOAT32);
  g_assert_cmpint(ty->rank, ==, 2);
  g_assert_cmpint(ty->sizes[0], ==, 3);
  g_assert_cmpint(ty->sizes[1], ==, 2);
  g_assert_cmpint(ty->strides[0], ==, 1);
  g_assert_cmpint(ty->strides[1], ==, 3);
  g_assert_cmpint(ty->requires_grad, ==, IR_YES);
  g_assert_cmpint(ty->device, ==, IR_DEVICE_CPU);
  g_assert_false(ty->undefined);
  /* Interned: an equal tensor gives the same pointer, a different one another. */
  RtTensor *c = rt_tensor_view_transpose(t, 0, 1);
  c->requires_grad = true;
  g_assert_true(rt_tensor_type(c) == ty);
  c->requires_grad = false;
  g_assert_true(rt_tensor_type(c) != ty);
  g_assert_cmpint(rt_tensor_type(c)->requires_grad, ==, IR_NO);
  rt_tensor_unref(c);
  rt_tensor_unref(tt);
  rt_tensor_unref(t);
}

static int released;
static void count_release(struct RtGradNode *node) {
  g_assert_true(node == (struct RtGradNode *)&released);
  released++;
}

static void test_storage_and_grad_hook(void) {
  RtStorage *s = rt_storage_new_host(10 * sizeof(double));
  g_assert_cmpuint((guintptr)s->data % 64, ==, 0);
  for (int i = 0; i < 10; i++)
    ((double *)s->data)[i] = i;
  int64_t sizes[2] = {2, 2}, strides[2] = {4, 2};
  RtTensor *t = rt_tensor_new_strided(s, IR_DTYPE_FLOAT64, 2, sizes, strides, 1);
  g_assert_cmpint(s->refcount, ==, 2);
  rt_storage_unref(s);
  /* elements at offsets 1, 3, 5, 7 */
  for (int i = 0; i < 4; i++)
    g_assert_cmpfloat(rt_tensor_get(t, i), ==, 2 * i + 1);
  rt_tensor_set_grad_fn_release(count_release);
  t->grad_fn = (struct RtGradNode *)&released;
  rt_tensor_unref(t);
  g_assert_cmpint(released, ==, 1);
  rt_tensor_set_grad_fn_release(NULL);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/runtime/tensor/new", test_new_and_strides);
  g_test_add_func("/runtime/tensor/refcount", test_refcount);
  g_test_add_func("/runtime/tensor/transpose-contiguous", test_transpose_contiguous);
  g_test_add_func("/runtime/tensor/narrow", test_narrow);
  g_test_add_func("/runtime/tensor/expand", test_expand);
  g_test_add_func("/runtime/tensor/squeeze-unsqueeze", test_squeeze_unsqueeze);
  g_test_add_func("/runtime/tensor/reshape-view", test_reshape_view);
  g_test_add_func("/runtime/tensor/to-dtype-copy", test_to_dtype_and_copy);
  g_test_add_func("/runtime/tensor/wrap-dim", test_wrap_dim);
  g_test_add_func("/runtime/tensor/type", test_type);
  g_test_add_func("/runtime/tensor/storage-grad-hook", test_storage_and_grad_hook);
  return g_test_run();
}
