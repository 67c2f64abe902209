/* Broadcasting, sum_to, promotion and RtIter; expected values worked out by hand. */
#include "tensor/tensor.h"

#include <math.h>
#include <string.h>

static void test_broadcast_shapes(void) {
  int n;
  int64_t out[RT_MAX_DIMS];
  GError *error = NULL;
  int64_t a[2] = {5, 1}, b[3] = {2, 1, 4};
  g_assert_true(rt_broadcast_shapes(2, a, 3, b, &n, out, &error));
  g_assert_no_error(error);
  g_assert_cmpint(n, ==, 3);
  g_assert_cmpint(out[0], ==, 2);
  g_assert_cmpint(out[1], ==, 5);
  g_assert_cmpint(out[2], ==, 4);
  g_assert_true(rt_broadcast_shapes(0, NULL, 2, a, &n, out, &error));
  g_assert_cmpint(n, ==, 2);
  g_assert_cmpint(out[0], ==, 5);
  g_assert_cmpint(out[1], ==, 1);
  int64_t z[1] = {0}, one[1] = {1};
  g_assert_true(rt_broadcast_shapes(1, z, 1, one, &n, out, &error));
  g_assert_cmpint(out[0], ==, 0);

  int64_t c[2] = {2, 3}, d[2] = {2, 4};
  g_assert_false(rt_broadcast_shapes(2, c, 2, d, &n, out, &error));
  g_assert_error(error, JITSCOPE_RUNTIME_ERROR, RT_ERROR_SHAPE);
  g_assert_cmpstr(error->message, ==,
                  "shapes [2, 3] and [2, 4] are not broadcastable: the size of tensor a (3) must "
                  "match the size of tensor b (4) at non-singleton dimension 1");
  g_clear_error(&error);
}

/* 2x3x4 float32 with element (i, j, k) = 100 i + 10 j + k. */
static RtTensor *grid234(IrDtype dtype) {
  int64_t s[3] = {2, 3, 4};
  RtTensor *t = rt_tensor_new(dtype, 3, s);
  for (int i = 0; i < 24; i++)
    rt_tensor_set(t, i, 100 * (i / 12) + 10 * ((i / 4) % 3) + i % 4);
  return t;
}

static void test_sum_to(void) {
  GError *error = NULL;
  RtTensor *t = grid234(IR_DTYPE_FLOAT32);
  /* to [3, 1]: sum over i and k: for j: sum_i sum_k (100 i + 10 j + k)
   * = 4*(0+100) + 2*4*10 j + 2*(0+1+2+3) = 400 + 80 j + 12 */
  int64_t s31[2] = {3, 1};
  RtTensor *r = rt_tensor_sum_to(t, 2, s31, &error);
  g_assert_no_error(error);
  g_assert_cmpint(r->dtype, ==, IR_DTYPE_FLOAT32);
  g_assert_cmpint(r->ndim, ==, 2);
  g_assert_cmpint(r->sizes[0], ==, 3);
  g_assert_cmpint(r->sizes[1], ==, 1);
  for (int j = 0; j < 3; j++)
    g_assert_cmpfloat(rt_tensor_get(r, j), ==, 412 + 80 * j);
  rt_tensor_unref(r);
  /* to [4]: sum over i, j: 3*100 + 2*(0+10+20) + 6 k = 360 + 6 k */
  int64_t s4[1] = {4};
  r = rt_tensor_sum_to(t, 1, s4, &error);
  g_assert_no_error(error);
  for (int k = 0; k < 4; k++)
    g_assert_cmpfloat(rt_tensor_get(r, k), ==, 360 + 6 * k);
  rt_tensor_unref(r);
  /* [5, 37] to [37], a row wider than a vector and not a multiple of one (the contiguous-row
   * loop and its tail): sum_r (10 r + c) = 100 + 5 c */
  int64_t s5x37[2] = {5, 37}, s37[1] = {37};
  RtTensor *rows = rt_tensor_new(IR_DTYPE_FLOAT32, 2, s5x37);
  for (int i = 0; i < 5 * 37; i++)
    rt_tensor_set(rows, i, 10 * (i / 37) + i % 37);
  RtTensor *cols = rt_tensor_sum_to(rows, 1, s37, &error);
  g_assert_no_error(error);
  for (int c = 0; c < 37; c++)
    g_assert_cmpfloat(rt_tensor_get(cols, c), ==, 100 + 5 * c);
  rt_tensor_unref(cols);
  rt_tensor_unref(rows);
  /* to [2, 1, 1]: for i: 12 * 100 i + 4 * 30 + 3 * 6 = 1200 i + 138 */
  int64_t s211[3] = {2, 1, 1};
  r = rt_tensor_sum_to(t, 3, s211, &error);
  g_assert_no_error(error);
  g_assert_cmpfloat(rt_tensor_get(r, 0), ==, 138);
  g_assert_cmpfloat(rt_tensor_get(r, 1), ==, 1338);
  rt_tensor_unref(r);
  /* to []: total = 138 + 1338 */
  r = rt_tensor_sum_to(t, 0, NULL, &error);
  g_assert_no_error(error);
  g_assert_cmpint(r->ndim, ==, 0);
  g_assert_cmpfloat(rt_tensor_get(r, 0), ==, 1476);
  rt_tensor_unref(r);
  /* same shape: the tensor itself */
  r = rt_tensor_sum_to(t, 3, t->sizes, &error);
  g_assert_true(r == t);
  rt_tensor_unref(r);
  /* errors */
  int64_t bad[2] = {2, 4};
  g_assert_null(rt_tensor_sum_to(t, 2, bad, &error));
  g_assert_error(error, JITSCOPE_RUNTIME_ERROR, RT_ERROR_SHAPE);
  g_assert_nonnull(strstr(error->message, "size [2, 4] is not expandable to size [2, 3, 4]"));
  g_clear_error(&error);
  int64_t longer[4] = {1, 2, 3, 4};
  g_assert_null(rt_tensor_sum_to(t, 4, longer, &error));
  g_assert_error(error, JITSCOPE_RUNTIME_ERROR, RT_ERROR_SHAPE);
  g_clear_error(&error);

  /* Strided input: the transpose [4, 3, 2] of t summed to [4, 1, 1] = 360 + 6 k as above. */
  RtTensor *tt = rt_tensor_view_transpose(t, 0, 2);
  int64_t s411[3] = {4, 1, 1};
  r = rt_tensor_sum_to(tt, 3, s411, &error);
  g_assert_no_error(error);
  for (int k = 0; k < 4; k++)
    g_assert_cmpfloat(rt_tensor_get(r, k), ==, 360 + 6 * k);
  rt_tensor_unref(r);
  /* Expanded input (stride 0): [3] expanded to [5, 3] summed to [3] is 5 x. */
  int64_t s3[1] = {3}, s53[2] = {5, 3};
  RtTensor *x = rt_tensor_new(IR_DTYPE_FLOAT64, 1, s3);
  for (int i = 0; i < 3; i++)
    rt_tensor_set(x, i, 0.25 * (i + 1));
  RtTensor *e = rt_tensor_view_expand(x, 2, s53, &error);
  r = rt_tensor_sum_to(e, 1, s3, &error);
  g_assert_no_error(error);
  g_assert_cmpint(r->dtype, ==, IR_DTYPE_FLOAT64);
  for (int i = 0; i < 3; i++)
    g_assert_cmpfloat(rt_tensor_get(r, i), ==, 1.25 * (i + 1));
  rt_tensor_unref(r);
  rt_tensor_unref(e);
  rt_tensor_unref(x);
  rt_tensor_unref(tt);
  rt_tensor_unref(t);

  /* int64 is summed exactly; bool sums are int64 counts. */
  int64_t s2[1] = {2};
  RtTensor *big = rt_tensor_new(IR_DTYPE_INT64, 1, s2);
  ((int64_t *)rt_tensor_data(big))[0] = (INT64_C(1) << 60) + 1;
  ((int64_t *)rt_tensor_data(big))[1] = 2;
  r = rt_tensor_sum_to(big, 0, NULL, &error);
  g_assert_cmpint(r->dtype, ==, IR_DTYPE_INT64);
  g_assert_cmpint(*(int64_t *)rt_tensor_data(r), ==, (INT64_C(1) << 60) + 3);
  rt_tensor_unref(r);
  rt_tensor_unref(big);
  RtTensor *b = rt_tensor_new(IR_DTYPE_BOOL, 1, s3);
  rt_tensor_set(b, 0, 1);
  rt_tensor_set(b, 1, 0);
  rt_tensor_set(b, 2, 1);
  int64_t s1[1] = {1};
  r = rt_tensor_sum_to(b, 1, s1, &error);
  g_assert_cmpint(r->dtype, ==, IR_DTYPE_INT64);
  g_assert_cmpfloat(rt_tensor_get(r, 0), ==, 2);
  rt_tensor_unref(r);
  rt_tensor_unref(b);
  /* 7 contiguous floats 1..7 summed to []: 28 (an inner run with a remainder past 4). */
  int64_t s7[1] = {7};
  RtTensor *seven = rt_tensor_new(IR_DTYPE_FLOAT32, 1, s7);
  for (int i = 0; i < 7; i++)
    rt_tensor_set(seven, i, i + 1);
  r = rt_tensor_sum_to(seven, 0, NULL, &error);
  g_assert_cmpfloat(rt_tensor_get(r, 0), ==, 28);
  rt_tensor_unref(r);
  rt_tensor_unref(seven);
  /* empty dim summed to 1 gives zeros */
  int64_t s03[2] = {0, 3}, s13[2] = {1, 3};
  RtTensor *em = rt_tensor_new(IR_DTYPE_FLOAT32, 2, s03);
  r = rt_tensor_sum_to(em, 2, s13, &error);
  g_assert_no_error(error);
  for (int i = 0; i < 3; i++)
    g_assert_cmpfloat(rt_tensor_get(r, i), ==, 0);
  rt_tensor_unref(r);
  rt_tensor_unref(em);
}

static void test_sum_to_half(void) {
  /* 1000 halves of 0.1 (0x2e66 = 0.0999755859375): the double accumulator sums exactly to
   * 99.9755859375, which rounds to half 99.9375 or 100.0: the nearer is 100.0 (ulp 0.0625). */
  int64_t s[1] = {1000};
  RtTensor *h = rt_tensor_full(IR_DTYPE_FLOAT16, 1, s, 0.1);
  g_assert_cmpint(((uint16_t *)rt_tensor_data(h))[0], ==, 0x2e66);
  GError *error = NULL;
  RtTensor *r = rt_tensor_sum_to(h, 0, NULL, &error);
  g_assert_no_error(error);
  g_assert_cmpint(r->dtype, ==, IR_DTYPE_FLOAT16);
  g_assert_cmpfloat(rt_tensor_get(r, 0), ==, 100.0);
  rt_tensor_unref(r);
  rt_tensor_unref(h);
}

static void test_promotion(void) {
  const IrDtype B = IR_DTYPE_BOOL, L = IR_DTYPE_INT64, H = IR_DTYPE_FLOAT16, F = IR_DTYPE_FLOAT32,
                D = IR_DTYPE_FLOAT64;
  /* PyTorch's promote_types table restricted to these dtypes (rows a, columns b, order
   * B L H F D). */
  const IrDtype all[5] = {B, L, H, F, D};
  const IrDtype table[5][5] = {
      {B, L, H, F, D}, {L, L, H, F, D}, {H, H, H, F, D}, {F, F, F, F, D}, {D, D, D, D, D},
  };
  for (int i = 0; i < 5; i++)
    for (int j = 0; j < 5; j++)
      g_assert_cmpint(rt_promote_types(all[i], all[j]), ==, table[i][j]);

  RtOperandClass cls[2];
  IrDtype d[2];
  /* Float(5) + Double(0-dim) = Float */
  d[0] = F;
  cls[0] = RT_OPERAND_TENSOR;
  d[1] = D;
  cls[1] = RT_OPERAND_DIM0;
  g_assert_cmpint(rt_result_type(2, d, cls), ==, F);
  /* Long(5) + Double(0-dim) = Double */
  d[0] = L;
  g_assert_cmpint(rt_result_type(2, d, cls), ==, D);
  /* Long(5) + 2.5 = Float (default dtype) */
  cls[1] = RT_OPERAND_NUMBER;
  g_assert_cmpint(rt_result_type(2, d, cls), ==, F);
  /* Half(5) + 2.5 = Half */
  d[0] = H;
  g_assert_cmpint(rt_result_type(2, d, cls), ==, H);
  /* Bool(5) + 3 = Long; Bool(5) + True = Bool */
  d[0] = B;
  d[1] = L;
  g_assert_cmpint(rt_result_type(2, d, cls), ==, L);
  d[1] = B;
  g_assert_cmpint(rt_result_type(2, d, cls), ==, B);
  /* Long(5) + Long(0-dim)... Long(5) + Bool(0-dim) stays Long; Int 0-dim + 2.5 = Float */
  d[0] = L;
  d[1] = B;
  cls[1] = RT_OPERAND_DIM0;
  g_assert_cmpint(rt_result_type(2, d, cls), ==, L);
  d[0] = L;
  cls[0] = RT_OPERAND_DIM0;
  d[1] = D;
  cls[1] = RT_OPERAND_NUMBER;
  g_assert_cmpint(rt_result_type(2, d, cls), ==, F);
  /* Double(0-dim) + Float(0-dim) = Double: same class promotes normally */
  d[0] = D;
  d[1] = F;
  cls[1] = RT_OPERAND_DIM0;
  g_assert_cmpint(rt_result_type(2, d, cls), ==, D);
  /* only numbers: 2 + 2.5 = Float */
  d[0] = L;
  cls[0] = RT_OPERAND_NUMBER;
  d[1] = D;
  cls[1] = RT_OPERAND_NUMBER;
  g_assert_cmpint(rt_result_type(2, d, cls), ==, F);
}

/* Counts runs and checks every element position of a 3-operand iteration. */
static void test_iter(void) {
  /* Contiguous [2, 3, 4] with a broadcast [3, 1] operand: inner dim keeps stride 0 on the
   * broadcast operand, so no coalescing across it. */
  int64_t s234[3] = {2, 3, 4};
  RtTensor *out = rt_tensor_zeros(IR_DTYPE_FLOAT64, 3, s234);
  RtTensor *a = rt_tensor_new(IR_DTYPE_FLOAT32, 3, s234);
  for (int i = 0; i < 24; i++)
    rt_tensor_set(a, i, i);
  int64_t s31[2] = {3, 1};
  RtTensor *b = rt_tensor_new(IR_DTYPE_INT64, 2, s31);
  for (int i = 0; i < 3; i++)
    rt_tensor_set(b, i, 1000 * (i + 1));
  RtIter it;
  RtTensor *ops[3] = {out, a, b};
  rt_iter_init(&it, 3, s234, 3, ops);
  /* b has byte strides [0, 8, 0]: neither pair of neighbours merges, so 3 dims stay. */
  g_assert_cmpint(it.ndim, ==, 3);
  g_assert_cmpint(it.sizes[it.ndim - 1], ==, 4);
  g_assert_cmpint(it.inner_strides[0], ==, 8);
  g_assert_cmpint(it.inner_strides[1], ==, 4);
  g_assert_cmpint(it.inner_strides[2], ==, 0);
  char *p[RT_ITER_MAX_OPERANDS];
  int64_t n;
  int runs = 0;
  while (rt_iter_next(&it, p, &n)) {
    for (int64_t i = 0; i < n; i++)
      *(double *)(p[0] + i * it.inner_strides[0]) =
          *(float *)(p[1] + i * it.inner_strides[1]) + *(int64_t *)(p[2] + i * it.inner_strides[2]);
    runs++;
  }
  g_assert_cmpint(runs, ==, 6);
  for (int i = 0; i < 24; i++)
    g_assert_cmpfloat(rt_tensor_get(out, i), ==, i + 1000 * ((i / 4) % 3 + 1));

  /* All contiguous: one run of 24. */
  RtTensor *ops2[2] = {out, a};
  rt_iter_init(&it, 3, s234, 2, ops2);
  g_assert_cmpint(it.ndim, ==, 1);
  g_assert_true(rt_iter_next(&it, p, &n));
  g_assert_cmpint(n, ==, 24);
  g_assert_false(rt_iter_next(&it, p, &n));

  /* Transposed operand: runs of 2 (the transposed inner stride is 12 floats). */
  RtTensor *at = rt_tensor_view_transpose(a, 0, 2); /* [4, 3, 2] */
  int64_t s432[3] = {4, 3, 2};
  RtTensor *o2 = rt_tensor_zeros(IR_DTYPE_FLOAT32, 3, s432);
  RtTensor *ops3[2] = {o2, at};
  rt_iter_init(&it, 3, s432, 2, ops3);
  runs = 0;
  while (rt_iter_next(&it, p, &n)) {
    g_assert_cmpint(n, ==, 2);
    g_assert_cmpint(it.inner_strides[1], ==, 48);
    for (int64_t i = 0; i < n; i++)
      *(float *)(p[0] + i * 4) = *(float *)(p[1] + i * 48);
    runs++;
  }
  g_assert_cmpint(runs, ==, 12);
  /* o2[k][j][i] = a[i][j][k] = 12 i + 4 j + k */
  for (int q = 0; q < 24; q++) {
    int k = q / 6, j = (q / 2) % 3, i = q % 2;
    g_assert_cmpfloat(rt_tensor_get(o2, q), ==, 12 * i + 4 * j + k);
  }

  /* 0-dim: one run of one; empty: none. */
  RtTensor *s = rt_tensor_scalar(IR_DTYPE_FLOAT32, 1);
  RtTensor *ops4[1] = {s};
  rt_iter_init(&it, 0, NULL, 1, ops4);
  g_assert_true(rt_iter_next(&it, p, &n));
  g_assert_cmpint(n, ==, 1);
  g_assert_false(rt_iter_next(&it, p, &n));
  int64_t s30[2] = {3, 0};
  RtTensor *em = rt_tensor_new(IR_DTYPE_FLOAT32, 2, s30);
  RtTensor *ops5[1] = {em};
  rt_iter_init(&it, 2, s30, 1, ops5);
  g_assert_false(rt_iter_next(&it, p, &n));
  rt_tensor_unref(em);
  rt_tensor_unref(s);
  rt_tensor_unref(o2);
  rt_tensor_unref(at);
  rt_tensor_unref(b);
  rt_tensor_unref(a);
  rt_tensor_unref(out);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/runtime/broadcast/shapes", test_broadcast_shapes);
  g_test_add_func("/runtime/broadcast/sum-to", test_sum_to);
  g_test_add_func("/runtime/broadcast/sum-to-half", test_sum_to_half);
  g_test_add_func("/runtime/broadcast/promotion", test_promotion);
  g_test_add_func("/runtime/broadcast/iter", test_iter);
  return g_test_run();
}
