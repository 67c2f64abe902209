/* Sorting kernels (aten::sort, sort.stable, argsort, topk) on what the corpus cannot carry:
 * PyTorch 1.13's errors, k = 0, empty and 0-dim tensors, int64 keys past 2^53, bool keys,
 * ties beyond 16 elements under stable=True, a transposed self; every expected value as
 * torch.sort / torch.topk / torch.argsort gave it. Values and gradients on a program with
 * NaN and infinities are in tests/corpus-real (sort_topk). */
#include "kernels_test_util.h"

#define F32 IR_DTYPE_FLOAT32
#define I64 IR_DTYPE_INT64

#define SORT "aten::sort("
#define SORT_STABLE "aten::sort.stable("
#define TOPK "aten::topk("

/* [[1, 2, 3], [4, 5, 6]] */
static RtTensor *small(void) {
  return kt_tensor(F32, 2, KT_SIZES(2, 3), KT_VALUES(1, 2, 3, 4, 5, 6));
}

/* Runs a two-output op and checks both outputs' shape; returns them in outs. */
static void run2(const char *op, RtValue *args, guint n, RtValue *outs, int ndim,
                 const int64_t *sizes) {
  GError *error = NULL;
  g_assert_true(kt_call_outputs(op, args, n, outs, 2, &error));
  g_assert_no_error(error);
  for (int k = 0; k < 2; k++) {
    g_assert_cmpint(outs[k].u.tensor->ndim, ==, ndim);
    for (int d = 0; d < ndim; d++)
      g_assert_cmpint(outs[k].u.tensor->sizes[d], ==, sizes[d]);
  }
}

static void test_topk_errors(void) {
  RtValue a[5] = {rt_tensor(small()), rt_int(4), rt_int(-1), rt_bool(true), rt_bool(true)};
  kt_expect_error(TOPK, a, 5, "selected index k out of range");
  a[1] = rt_int(-1);
  kt_expect_error(TOPK, a, 5, "selected index k out of range");
  a[1] = rt_int(1);
  a[2] = rt_int(2);
  kt_expect_error(TOPK, a, 5,
                  "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  kt_unref_args(a, 5);
  RtValue b[5] = {rt_tensor(kt_tensor(IR_DTYPE_BOOL, 1, KT_SIZES(2), KT_VALUES(1, 0))), rt_int(1),
                  rt_int(-1), rt_bool(true), rt_bool(true)};
  kt_expect_error(TOPK, b, 5, "\"topk_cpu\" not implemented for 'Bool'");
  kt_unref_args(b, 5);
}

static void test_sort_shapes(void) {
  RtValue outs[2];
  /* k = 0, and a dim given from the end. */
  RtValue a[5] = {rt_tensor(small()), rt_int(0), rt_int(-1), rt_bool(true), rt_bool(true)};
  run2(TOPK, a, 5, outs, 2, KT_SIZES(2, 0));
  kt_unref_args(outs, 2);
  a[1] = rt_int(2);
  a[2] = rt_int(-2);
  run2(TOPK, a, 5, outs, 2, KT_SIZES(2, 3));
  kt_assert_tensor(outs[0].u.tensor, F32, 2, KT_SIZES(2, 3), KT_VALUES(4, 5, 6, 1, 2, 3), 0);
  kt_assert_tensor(outs[1].u.tensor, I64, 2, KT_SIZES(2, 3), KT_VALUES(1, 1, 1, 0, 0, 0), 0);
  kt_unref_args(outs, 2);
  kt_unref_args(a, 5);
  /* An empty dim. */
  RtValue b[3] = {rt_tensor(rt_tensor_zeros(F32, 2, KT_SIZES(2, 0))), rt_int(1), rt_bool(false)};
  run2(SORT, b, 3, outs, 2, KT_SIZES(2, 0));
  kt_unref_args(outs, 2);
  kt_unref_args(b, 3);
  /* No slices along a long dim: its length is no allocation's (2^40 positions aborted). */
  RtValue e[3] = {rt_tensor(rt_tensor_zeros(F32, 2, KT_SIZES(0, (int64_t)1 << 40))), rt_int(1),
                  rt_bool(false)};
  run2(SORT, e, 3, outs, 2, KT_SIZES(0, (int64_t)1 << 40));
  kt_unref_args(outs, 2);
  kt_unref_args(e, 3);
  /* A 0-dim tensor is its one element, index 0. */
  RtValue c[5] = {rt_tensor(rt_tensor_scalar(F32, 2.5)), rt_int(1), rt_int(-1), rt_bool(true),
                  rt_bool(true)};
  run2(TOPK, c, 5, outs, 0, NULL);
  kt_assert_tensor(outs[0].u.tensor, F32, 0, NULL, KT_VALUES(2.5), 0);
  kt_assert_tensor(outs[1].u.tensor, I64, 0, NULL, KT_VALUES(0), 0);
  kt_unref_args(outs, 2);
  kt_unref_args(c, 5);
  /* A transposed self, sorted descending along dim 0. */
  RtTensor *base = small();
  RtValue d[3] = {rt_tensor(rt_tensor_view_transpose(base, 0, 1)), rt_int(0), rt_bool(true)};
  run2(SORT, d, 3, outs, 2, KT_SIZES(3, 2));
  kt_assert_tensor(outs[0].u.tensor, F32, 2, KT_SIZES(3, 2), KT_VALUES(3, 6, 2, 5, 1, 4), 0);
  kt_assert_tensor(outs[1].u.tensor, I64, 2, KT_SIZES(3, 2), KT_VALUES(2, 2, 1, 1, 0, 0), 0);
  kt_unref_args(outs, 2);
  kt_unref_args(d, 3);
  rt_tensor_unref(base);
}

static void test_sort_keys(void) {
  RtValue outs[2];
  /* int64 keys one apart past 2^53, compared as integers. */
  const gint64 big = G_GINT64_CONSTANT(1) << 53;
  RtTensor *longs = rt_tensor_new(I64, 1, KT_SIZES(4));
  gint64 *v = rt_tensor_data(longs);
  v[0] = big + 1;
  v[1] = big;
  v[2] = -big - 1;
  v[3] = -big;
  RtValue a[3] = {rt_tensor(longs), rt_int(-1), rt_bool(false)};
  run2(SORT, a, 3, outs, 1, KT_SIZES(4));
  const gint64 *sorted = rt_tensor_data(outs[0].u.tensor);
  g_assert_true(sorted[0] == -big - 1 && sorted[1] == -big && sorted[2] == big &&
                sorted[3] == big + 1);
  kt_assert_tensor(outs[1].u.tensor, I64, 1, KT_SIZES(4), KT_VALUES(2, 3, 1, 0), 0);
  kt_unref_args(outs, 2);
  kt_unref_args(a, 3);
  /* bool keys. */
  RtValue b[3] = {rt_tensor(kt_tensor(IR_DTYPE_BOOL, 1, KT_SIZES(4), KT_VALUES(1, 0, 1, 0))),
                  rt_int(-1), rt_bool(false)};
  run2(SORT, b, 3, outs, 1, KT_SIZES(4));
  kt_assert_tensor(outs[0].u.tensor, IR_DTYPE_BOOL, 1, KT_SIZES(4), KT_VALUES(0, 0, 1, 1), 0);
  kt_assert_tensor(outs[1].u.tensor, I64, 1, KT_SIZES(4), KT_VALUES(1, 3, 0, 2), 0);
  kt_unref_args(outs, 2);
  kt_unref_args(b, 3);
  /* 20 elements in two tied groups, descending with stable=True: each group in order. */
  double ties[20];
  for (int k = 0; k < 20; k++)
    ties[k] = 1 + k % 2;
  RtValue c[4] = {rt_tensor(kt_tensor(F32, 1, KT_SIZES(20), ties)), rt_bool(true), rt_int(-1),
                  rt_bool(true)};
  run2(SORT_STABLE, c, 4, outs, 1, KT_SIZES(20));
  kt_assert_tensor(outs[1].u.tensor, I64, 1, KT_SIZES(20),
                   KT_VALUES(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18),
                   0);
  kt_unref_args(outs, 2);
  kt_unref_args(c, 4);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/kernels/sort/topk-errors", test_topk_errors);
  g_test_add_func("/kernels/sort/shapes", test_sort_shapes);
  g_test_add_func("/kernels/sort/keys", test_sort_keys);
  return g_test_run();
}
