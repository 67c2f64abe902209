/* float16 conversions at the edges of the format, and the randn generator. Half bit patterns
 * come from the IEEE 754 binary16 layout: sign(1) exponent(5, bias 15) mantissa(10). */
#include "tensor/tensor.h"

#include <math.h>
#include <string.h>

static void test_half_exact(void) {
  struct {
    double x;
    uint16_t h;
  } cases[] = {
      {0.0, 0x0000},
      {-0.0, 0x8000},
      {1.0, 0x3c00},
      {-2.0, 0xc000},
      {0.5, 0x3800},
      {65504.0, 0x7bff},               /* largest finite */
      {ldexp(1.0, -14), 0x0400},       /* smallest normal */
      {ldexp(1.0, -24), 0x0001},       /* smallest subnormal */
      {ldexp(1023.0, -24), 0x03ff},    /* largest subnormal */
      {1.0 + ldexp(1.0, -10), 0x3c01}, /* 1 + ulp */
  };
  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_assert_cmphex(rt_double_to_half(cases[i].x), ==, cases[i].h);
    g_assert_cmphex(rt_float_to_half((float)cases[i].x), ==, cases[i].h);
    g_assert_cmpfloat(rt_half_to_float(cases[i].h), ==, (float)cases[i].x);
  }
  g_assert_true(signbit(rt_half_to_float(0x8000)));
}

static void test_half_rounding(void) {
  /* Halfway between 1 and 1 + 2^-10: ties to even -> 1 (0x3c00). */
  g_assert_cmphex(rt_double_to_half(1.0 + ldexp(1.0, -11)), ==, 0x3c00);
  /* Halfway between 1 + 2^-10 (odd) and 1 + 2^-9 (even) -> 0x3c02. */
  g_assert_cmphex(rt_double_to_half(1.0 + 3 * ldexp(1.0, -11)), ==, 0x3c02);
  /* Just above the halfway point rounds up. */
  g_assert_cmphex(rt_double_to_half(1.0 + ldexp(1.0, -11) + ldexp(1.0, -30)), ==, 0x3c01);
  /* Mantissa carry into the exponent: 2 - 2^-12 rounds to 2.0 */
  g_assert_cmphex(rt_double_to_half(2.0 - ldexp(1.0, -12)), ==, 0x4000);
  /* Overflow: 65519 rounds down to 65504; 65520 (halfway, 65504 is odd) rounds to inf. */
  g_assert_cmphex(rt_double_to_half(65519.0), ==, 0x7bff);
  g_assert_cmphex(rt_double_to_half(65520.0), ==, 0x7c00);
  g_assert_cmphex(rt_double_to_half(-1e10), ==, 0xfc00);
  /* Subnormal rounding: 1.5 * 2^-24 is halfway between 1 and 2 units -> 2 (even). */
  g_assert_cmphex(rt_double_to_half(1.5 * ldexp(1.0, -24)), ==, 0x0002);
  g_assert_cmphex(rt_double_to_half(2.5 * ldexp(1.0, -24)), ==, 0x0002);
  /* Exactly half the smallest subnormal: tie to even 0; a bit more: 1 unit. */
  g_assert_cmphex(rt_double_to_half(ldexp(1.0, -25)), ==, 0x0000);
  g_assert_cmphex(rt_double_to_half(-ldexp(1.0, -25)), ==, 0x8000);
  g_assert_cmphex(rt_double_to_half(ldexp(1.0, -25) * 1.0001), ==, 0x0001);
  g_assert_cmphex(rt_double_to_half(ldexp(1.0, -40)), ==, 0x0000);
  /* Largest subnormal + half a unit rounds to the smallest normal (1023 odd -> 1024). */
  g_assert_cmphex(rt_double_to_half(1023.5 * ldexp(1.0, -24)), ==, 0x0400);
  /* A float whose float->half rounding differs from a double-rounded path:
   * 1 + 2^-11 + 2^-24 is above the tie, so rounds up to 0x3c01. */
  g_assert_cmphex(rt_float_to_half(1.0f + 0x1p-11f + 0x1p-23f), ==, 0x3c01);
}

static void test_half_special(void) {
  g_assert_cmphex(rt_double_to_half(INFINITY), ==, 0x7c00);
  g_assert_cmphex(rt_double_to_half(-INFINITY), ==, 0xfc00);
  g_assert_cmphex(rt_double_to_half(NAN), ==, 0x7e00);
  g_assert_cmphex(rt_double_to_half(-NAN) & 0x7fff, ==, 0x7e00);
  g_assert_true(isinf(rt_half_to_float(0x7c00)) && rt_half_to_float(0x7c00) > 0);
  g_assert_true(isinf(rt_half_to_float(0xfc00)) && rt_half_to_float(0xfc00) < 0);
  g_assert_true(isnan(rt_half_to_float(0x7e00)));
  g_assert_true(isnan(rt_half_to_float(0x7c01)));
  /* Every finite half survives half -> float -> half. */
  for (uint32_t h = 0; h < 0x10000; h++) {
    if ((h & 0x7c00) == 0x7c00)
      continue;
    g_assert_cmphex(rt_float_to_half(rt_half_to_float((uint16_t)h)), ==, h);
  }
}

static void test_randn(void) {
  int64_t s[1] = {100000};
  RtTensor *a = rt_tensor_randn(IR_DTYPE_FLOAT64, 1, s, 42);
  RtTensor *b = rt_tensor_randn(IR_DTYPE_FLOAT64, 1, s, 42);
  RtTensor *c = rt_tensor_randn(IR_DTYPE_FLOAT64, 1, s, 43);
  g_assert_cmpmem(rt_tensor_data(a), 800000, rt_tensor_data(b), 800000);
  g_assert_true(memcmp(rt_tensor_data(a), rt_tensor_data(c), 800000) != 0);
  /* Moments of N(0, 1): with n = 1e5 the standard error of the mean is ~0.0032 and of the
   * variance ~0.0045; bounds are > 6 standard errors. */
  double sum = 0, sq = 0, q4 = 0;
  const double *x = rt_tensor_data(a);
  int within1 = 0;
  for (int i = 0; i < 100000; i++) {
    sum += x[i];
    sq += x[i] * x[i];
    q4 += x[i] * x[i] * x[i] * x[i];
    within1 += fabs(x[i]) < 1.0;
    g_assert_true(isfinite(x[i]));
  }
  double mean = sum / 1e5, var = sq / 1e5 - mean * mean;
  g_assert_cmpfloat(fabs(mean), <, 0.02);
  g_assert_cmpfloat(fabs(var - 1.0), <, 0.03);
  g_assert_cmpfloat(fabs(q4 / 1e5 - 3.0), <, 0.15); /* kurtosis of a normal is 3 */
  /* P(|z| < 1) = 0.6827 */
  g_assert_cmpfloat(fabs(within1 / 1e5 - 0.6827), <, 0.01);
  /* Row-major order: a float32 [2, 50000] tensor with the same seed holds the same values
   * rounded to float, and a prefix of a shorter draw equals the longer one's prefix. */
  int64_t s2[2] = {2, 50000};
  RtTensor *f = rt_tensor_randn(IR_DTYPE_FLOAT32, 2, s2, 42);
  for (int i = 0; i < 100000; i += 997)
    g_assert_cmpfloat(rt_tensor_get(f, i), ==, (float)x[i]);
  int64_t s3[1] = {7};
  RtTensor *shortt = rt_tensor_randn(IR_DTYPE_FLOAT64, 1, s3, 42);
  for (int i = 0; i < 7; i++)
    g_assert_cmpfloat(rt_tensor_get(shortt, i), ==, x[i]);
  rt_tensor_unref(shortt);
  rt_tensor_unref(f);
  rt_tensor_unref(c);
  rt_tensor_unref(b);
  rt_tensor_unref(a);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/runtime/half/exact", test_half_exact);
  g_test_add_func("/runtime/half/rounding", test_half_rounding);
  g_test_add_func("/runtime/half/special", test_half_special);
  g_test_add_func("/runtime/random/randn", test_randn);
  return g_test_run();
}
