/* Advanced indexing kernels (aten::index.Tensor, aten::index_put) on what the corpus cannot
 * carry: PyTorch 1.13's errors (each message as torch.ops.aten.index / index_put gave it),
 * empty indices, a transposed self, int64 sums past 2^63, and a broadcast too large for the
 * memory budget. Their values and gradients on real programs are in tests/corpus-real
 * (advanced_index, index_nonadjacent, index_put_values). */
#include "kernels_test_util.h"

#define F32 IR_DTYPE_FLOAT32
#define F64 IR_DTYPE_FLOAT64
#define I64 IR_DTYPE_INT64

#define INDEX "aten::index.Tensor("
#define INDEX_PUT "aten::index_put("

/* [[1, 2, 3], [4, 5, 6]] */
static RtValue scores(void) {
  return rt_tensor(kt_tensor(F32, 2, KT_SIZES(2, 3), KT_VALUES(1, 2, 3, 4, 5, 6)));
}

static RtValue longs(int n, const double *values) {
  return rt_tensor(kt_tensor(I64, 1, (const int64_t[]){n}, values));
}

/* A Tensor?[] of n items (taking their references). */
static RtValue indices(guint n, RtValue *items) {
  return rt_list(items, n);
}

static void expect_index_error(RtValue self, RtValue list, const char *needle) {
  RtValue args[2] = {self, list};
  kt_expect_error(INDEX, args, 2, needle);
  kt_unref_args(args, 2);
}

static void test_index_errors(void) {
  expect_index_error(scores(), indices(1, (RtValue[]){longs(2, KT_VALUES(0, 2))}),
                     "index 2 is out of bounds for dimension 0 with size 2");
  expect_index_error(scores(), indices(2, (RtValue[]){rt_none(), longs(1, KT_VALUES(-4))}),
                     "index -4 is out of bounds for dimension 0 with size 3");
  expect_index_error(scores(),
                     indices(3, (RtValue[]){longs(1, KT_VALUES(0)), longs(1, KT_VALUES(0)),
                                            longs(1, KT_VALUES(0))}),
                     "too many indices for tensor of dimension 2 (got 3)");
  /* a mask covers as many dims as it has: [2, 3] mask + one more index is three (this ran
   * and read past the dims, leaking the extra index) */
  expect_index_error(scores(),
                     indices(2, (RtValue[]){rt_tensor(kt_tensor(IR_DTYPE_BOOL, 2, KT_SIZES(2, 3),
                                                                KT_VALUES(1, 1, 1, 1, 1, 1))),
                                            longs(2, KT_VALUES(0, 1))}),
                     "too many indices for tensor of dimension 2 (got 3)");
  expect_index_error(scores(),
                     indices(1, (RtValue[]){rt_tensor(
                                    kt_tensor(IR_DTYPE_BOOL, 1, KT_SIZES(3), KT_VALUES(1, 0, 1)))}),
                     "The shape of the mask [3] at index 0 does not match the shape of the "
                     "indexed tensor [2, 3] at index 0");
  expect_index_error(
      scores(), indices(1, (RtValue[]){rt_tensor(kt_tensor(F32, 1, KT_SIZES(1), KT_VALUES(0)))}),
      "tensors used as indices must be long, byte or bool tensors");
  expect_index_error(
      scores(), indices(2, (RtValue[]){longs(2, KT_VALUES(0, 1)), longs(3, KT_VALUES(0, 1, 2))}),
      "shape mismatch: indexing tensors could not be broadcast together with "
      "shapes [2], [3]");
  expect_index_error(rt_tensor(rt_tensor_zeros(F32, 2, KT_SIZES(0, 3))),
                     indices(1, (RtValue[]){longs(1, KT_VALUES(0))}),
                     "index is out of bounds for dimension with size 0");
  /* PyTorch fails an internal assert here; ours names the problem. */
  expect_index_error(scores(), indices(1, (RtValue[]){rt_none()}),
                     "no index tensor given (every index is None)");
}

/* 10^6 x 10^6 positions from two index tensors of 10^6 entries: refused by the budget before
 * anything of that size is allocated. */
static void test_index_budget(void) {
  RtTensor *rows = rt_tensor_zeros(I64, 2, KT_SIZES(1000000, 1));
  RtTensor *cols = rt_tensor_zeros(I64, 2, KT_SIZES(1, 1000000));
  expect_index_error(scores(), indices(2, (RtValue[]){rt_tensor(rows), rt_tensor(cols)}), "budget");
}

static void test_index_values(void) {
  /* An empty index: no rows; one out of range broadcast with an empty one: nothing read. */
  RtValue a[2] = {scores(), indices(1, (RtValue[]){longs(0, NULL)})};
  RtTensor *r = kt_run(INDEX, a, 2);
  kt_assert_tensor(r, F32, 2, KT_SIZES(0, 3), NULL, 0);
  rt_tensor_unref(r);
  kt_unref_args(a, 2);
  RtValue b[2] = {scores(), indices(2, (RtValue[]){longs(1, KT_VALUES(5)), longs(0, NULL)})};
  r = kt_run(INDEX, b, 2);
  kt_assert_tensor(r, F32, 1, KT_SIZES(0), NULL, 0);
  rt_tensor_unref(r);
  kt_unref_args(b, 2);
  /* Negative indices in both dims. */
  RtValue c[2] = {scores(), indices(2, (RtValue[]){longs(3, KT_VALUES(-1, 0, -2)),
                                                   longs(3, KT_VALUES(2, -3, 1))})};
  r = kt_run(INDEX, c, 2);
  kt_assert_tensor(r, F32, 1, KT_SIZES(3), KT_VALUES(6, 1, 2), 0);
  rt_tensor_unref(r);
  kt_unref_args(c, 2);
  /* A transposed (non-contiguous) self. */
  RtTensor *base = kt_tensor(F32, 2, KT_SIZES(2, 3), KT_VALUES(1, 2, 3, 4, 5, 6));
  RtValue d[2] = {rt_tensor(rt_tensor_view_transpose(base, 0, 1)),
                  indices(1, (RtValue[]){longs(2, KT_VALUES(2, 0))})};
  r = kt_run(INDEX, d, 2);
  kt_assert_tensor(r, F32, 2, KT_SIZES(2, 2), KT_VALUES(3, 6, 1, 4), 0);
  rt_tensor_unref(r);
  kt_unref_args(d, 2);
  rt_tensor_unref(base);
}

static void test_index_put(void) {
  RtValue a[4] = {scores(), indices(1, (RtValue[]){longs(2, KT_VALUES(0, 1))}),
                  rt_tensor(kt_tensor(F64, 1, KT_SIZES(3), KT_VALUES(1, 2, 3))), rt_bool(false)};
  kt_expect_error(INDEX_PUT, a, 4,
                  "Index put requires the source and destination dtypes match, got Float for "
                  "the destination and Double for the source.");
  rt_value_unref(a[2]);
  a[2] = rt_tensor(kt_tensor(F32, 1, KT_SIZES(4), KT_VALUES(1, 2, 3, 4)));
  kt_expect_error(INDEX_PUT, a, 4,
                  "shape mismatch: value tensor of shape [4] cannot be broadcast to indexing "
                  "result of shape [2, 3]");
  kt_unref_args(a, 4);

  RtValue b[4] = {scores(), indices(2, (RtValue[]){rt_none(), longs(1, KT_VALUES(3))}),
                  rt_tensor(rt_tensor_scalar(F32, 1)), rt_bool(true)};
  kt_expect_error(INDEX_PUT, b, 4, "index 3 is out of bounds for dimension 0 with size 3");
  kt_unref_args(b, 4);

  /* Accumulating at a repeated place adds both values. */
  RtValue c[4] = {scores(),
                  indices(2, (RtValue[]){longs(2, KT_VALUES(1, 1)), longs(2, KT_VALUES(0, 0))}),
                  rt_tensor(kt_tensor(F32, 1, KT_SIZES(2), KT_VALUES(10, 20))), rt_bool(true)};
  RtTensor *r = kt_run(INDEX_PUT, c, 4);
  kt_assert_tensor(r, F32, 2, KT_SIZES(2, 3), KT_VALUES(1, 2, 3, 34, 5, 6), 0);
  rt_tensor_unref(r);
  kt_unref_args(c, 4);

  /* int64 sums wrap around as PyTorch's: 2 + 2^62 + 2^62. */
  RtValue d[4] = {rt_tensor(kt_tensor(I64, 1, KT_SIZES(2), KT_VALUES(1, 2))),
                  indices(1, (RtValue[]){longs(2, KT_VALUES(1, 1))}),
                  rt_tensor(kt_tensor(I64, 1, KT_SIZES(2), KT_VALUES(0, 0))), rt_bool(true)};
  for (int k = 0; k < 2; k++)
    ((gint64 *)rt_tensor_data(d[2].u.tensor))[k] = G_GINT64_CONSTANT(1) << 62;
  r = kt_run(INDEX_PUT, d, 4);
  g_assert_cmpint(((const gint64 *)rt_tensor_data(r))[1], ==, G_MININT64 + 2);
  rt_tensor_unref(r);
  kt_unref_args(d, 4);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/kernels/index/errors", test_index_errors);
  g_test_add_func("/kernels/index/budget", test_index_budget);
  g_test_add_func("/kernels/index/values", test_index_values);
  g_test_add_func("/kernels/index/index_put", test_index_put);
  return g_test_run();
}
