/* rt_kernel_unary: identities computed by hand (sigmoid(ln 3) = 3/4, sinh(ln 2) = 3/4, ...),
 * dtype rules for int/bool inputs, float32 computed in float, half, strided input, errors. */
#include <math.h>

#include "kernels_test_util.h"

#define F32 IR_DTYPE_FLOAT32
#define F64 IR_DTYPE_FLOAT64
#define I64 IR_DTYPE_INT64
#define BOOL IR_DTYPE_BOOL
#define F16 IR_DTYPE_FLOAT16

static void check1(const char *op, IrDtype in, int64_t n, const double *x, IrDtype out,
                   const double *want, double tol) {
  RtValue a[1] = {rt_tensor(kt_tensor(in, 1, &n, x))};
  RtTensor *r = kt_run(op, a, 1);
  kt_assert_tensor(r, out, 1, &n, want, tol);
  rt_tensor_unref(r);
  kt_unref_args(a, 1);
}

/* Runs op on float32 and float64 inputs. */
static void check_f(const char *op, int64_t n, const double *x, const double *want) {
  check1(op, F32, n, x, F32, want, 2e-7 * 8);
  check1(op, F64, n, x, F64, want, 1e-15 * 8);
}

static void test_sign_ops(void) {
  check_f("aten::neg(", 3, KT_VALUES(1, -2, 0.5), KT_VALUES(-1, 2, -0.5));
  check1("aten::neg(", I64, 2, KT_VALUES(3, -4), I64, KT_VALUES(-3, 4), 0);
  check_f("aten::abs(", 3, KT_VALUES(-1.5, 2, -0.0), KT_VALUES(1.5, 2, 0));
  check1("aten::abs(", I64, 2, KT_VALUES(-3, 4), I64, KT_VALUES(3, 4), 0);
  check_f("aten::relu(", 4, KT_VALUES(-1, 0, 2, NAN), KT_VALUES(0, 0, 2, NAN));
  check1("aten::relu(", I64, 2, KT_VALUES(-3, 4), I64, KT_VALUES(0, 4), 0);
  int64_t n = 1;
  RtValue b[1] = {rt_tensor(kt_tensor(BOOL, 1, &n, KT_VALUES(1)))};
  kt_expect_error("aten::neg(", b, 1, "Negation, the `-` operator, on a bool tensor");
  kt_unref_args(b, 1);
}

static void test_exp_log(void) {
  double ln2 = log(2.0), ln3 = log(3.0), ln5 = log(5.0);
  check_f("aten::sigmoid(", 3, KT_VALUES(0, ln3, -ln3), KT_VALUES(0.5, 0.75, 0.25));
  check_f("aten::tanh(", 2, KT_VALUES(0, ln2), KT_VALUES(0, 0.6));
  check_f("aten::exp(", 2, KT_VALUES(0, ln5), KT_VALUES(1, 5));
  check_f("aten::expm1(", 2, KT_VALUES(0, ln2), KT_VALUES(0, 1));
  check_f("aten::log(", 4, KT_VALUES(1, M_E, 0, -1), KT_VALUES(0, 1, -INFINITY, NAN));
  check_f("aten::log10(", 2, KT_VALUES(1000, 0.01), KT_VALUES(3, -2));
  check_f("aten::log1p(", 2, KT_VALUES(0, M_E - 1), KT_VALUES(0, 1));
  check_f("aten::log2(", 2, KT_VALUES(8, 0.25), KT_VALUES(3, -2));
  check_f("aten::sqrt(", 3, KT_VALUES(4, 0.25, -1), KT_VALUES(2, 0.5, NAN));
  check_f("aten::rsqrt(", 2, KT_VALUES(4, 0.25), KT_VALUES(0.5, 2));
  check_f("aten::reciprocal(", 3, KT_VALUES(4, -0.5, 0), KT_VALUES(0.25, -2, INFINITY));
  check_f("aten::erf(", 3, KT_VALUES(0, INFINITY, -INFINITY), KT_VALUES(0, 1, -1));
  check_f("aten::erfc(", 2, KT_VALUES(0, INFINITY), KT_VALUES(1, 0));
  check_f("aten::lgamma(", 3, KT_VALUES(1, 3, 0.5), KT_VALUES(0, ln2, 0.5 * log(M_PI)));
}

static void test_trig(void) {
  double ln2 = log(2.0);
  check_f("aten::sin(", 2, KT_VALUES(0, M_PI / 2), KT_VALUES(0, 1));
  check_f("aten::cos(", 2, KT_VALUES(0, M_PI), KT_VALUES(1, -1));
  check_f("aten::tan(", 2, KT_VALUES(0, M_PI / 4), KT_VALUES(0, 1));
  check_f("aten::asin(", 3, KT_VALUES(0, 1, 2), KT_VALUES(0, M_PI / 2, NAN));
  check_f("aten::acos(", 2, KT_VALUES(1, -1), KT_VALUES(0, M_PI));
  check_f("aten::atan(", 2, KT_VALUES(0, 1), KT_VALUES(0, M_PI / 4));
  check_f("aten::sinh(", 2, KT_VALUES(0, ln2), KT_VALUES(0, 0.75));
  check_f("aten::cosh(", 2, KT_VALUES(0, ln2), KT_VALUES(1, 1.25));
}

static void test_rounding(void) {
  check_f("aten::ceil(", 3, KT_VALUES(1.5, -1.5, 2), KT_VALUES(2, -1, 2));
  check_f("aten::floor(", 3, KT_VALUES(1.5, -1.5, 2), KT_VALUES(1, -2, 2));
  /* half to even */
  check_f("aten::round(", 6, KT_VALUES(0.5, 1.5, 2.5, -0.5, -1.5, 2.6),
          KT_VALUES(0, 2, 2, 0, -2, 3));
  check_f("aten::trunc(", 2, KT_VALUES(1.75, -1.75), KT_VALUES(1, -1));
  check_f("aten::frac(", 3, KT_VALUES(1.75, -1.75, 3), KT_VALUES(0.75, -0.75, 0));
  /* integer inputs: rounding returns a copy, frac is not defined */
  check1("aten::floor(", I64, 2, KT_VALUES(3, -4), I64, KT_VALUES(3, -4), 0);
  check1("aten::round(", I64, 1, KT_VALUES(7), I64, KT_VALUES(7), 0);
  int64_t n = 1;
  RtValue a[1] = {rt_tensor(kt_tensor(I64, 1, &n, KT_VALUES(3)))};
  kt_expect_error("aten::frac(", a, 1, "not implemented for 'Long'");
  kt_unref_args(a, 1);
  RtValue b[1] = {rt_tensor(kt_tensor(BOOL, 1, &n, KT_VALUES(1)))};
  kt_expect_error("aten::ceil(", b, 1, "not implemented for 'Bool'");
  kt_unref_args(b, 1);
}

static void test_dtypes(void) {
  /* int64 and bool inputs of floating ops compute in float32 */
  check1("aten::exp(", I64, 2, KT_VALUES(0, 1), F32, KT_VALUES(1, M_E), 1e-6);
  check1("aten::sigmoid(", BOOL, 2, KT_VALUES(0, 1), F32, KT_VALUES(0.5, 1 / (1 + exp(-1.0))),
         1e-7);
  check1("aten::sqrt(", I64, 2, KT_VALUES(4, 9), F32, KT_VALUES(2, 3), 0);
  /* float16: computed in float, rounded to half (0.5 and 2 are exact) */
  check1("aten::sigmoid(", F16, 1, KT_VALUES(0), F16, KT_VALUES(0.5), 0);
  check1("aten::sqrt(", F16, 1, KT_VALUES(4), F16, KT_VALUES(2), 0);
  /* float32 computes in float: the result is expf/tanhf of the float input exactly */
  volatile float xv = 0.3f; /* volatile: the runtime libm, not the compiler's folding */
  float xf = xv;
  check1("aten::exp(", F32, 1, KT_VALUES(xf), F32, KT_VALUES((double)expf(xf)), 0);
  check1("aten::tanh(", F32, 1, KT_VALUES(xf), F32, KT_VALUES((double)tanhf(xf)), 0);
  check1("aten::exp(", F64, 1, KT_VALUES(0.3), F64, KT_VALUES(exp(0.3)), 0);
}

static void test_strided(void) {
  RtTensor *m = kt_tensor(F64, 2, KT_SIZES(2, 3), KT_VALUES(-1, 2, -3, 4, -5, 6));
  RtValue a[1] = {rt_tensor(rt_tensor_view_transpose(m, 0, 1))};
  rt_tensor_unref(m);
  RtTensor *r = kt_run("aten::abs(", a, 1);
  /* the transpose reads [[-1, 4], [2, -5], [-3, 6]] */
  kt_assert_tensor(r, F64, 2, KT_SIZES(3, 2), KT_VALUES(1, 4, 2, 5, 3, 6), 0);
  g_assert_true(rt_tensor_is_contiguous(r));
  rt_tensor_unref(r);
  kt_unref_args(a, 1);
  /* 0-dim and empty inputs */
  RtValue b[1] = {rt_tensor(rt_tensor_scalar(F32, -2))};
  r = kt_run("aten::neg(", b, 1);
  kt_assert_tensor(r, F32, 0, NULL, KT_VALUES(2), 0);
  rt_tensor_unref(r);
  kt_unref_args(b, 1);
  RtValue c[1] = {rt_tensor(rt_tensor_zeros(F32, 2, KT_SIZES(3, 0)))};
  r = kt_run("aten::exp(", c, 1);
  g_assert_cmpint(r->ndim, ==, 2);
  g_assert_cmpint(rt_tensor_numel(r), ==, 0);
  rt_tensor_unref(r);
  kt_unref_args(c, 1);
}

/* The contiguous fast path gives bit for bit what the iterator gives: the same op on a
 * transposed view, which is not contiguous, takes the general path; 0-dim inputs too. */
static void test_fast_path_matches_general(void) {
  static const char *const ops[] = {"aten::sigmoid(", "aten::tanh(", "aten::exp(",
                                    "aten::neg(",     "aten::relu(", "aten::abs("};
  IrDtype dtypes[] = {F32, F64, I64};
  int64_t sizes[2] = {2, 3};
  for (guint t = 0; t < G_N_ELEMENTS(dtypes); t++) {
    RtTensor *x = kt_tensor(dtypes[t], 2, sizes, KT_VALUES(0.1, -3, -0.0, 7, 1e3, -2));
    RtTensor *xt = rt_tensor_view_transpose(x, 0, 1);
    RtTensor *xc = rt_tensor_contiguous(xt);
    RtTensor *zero_dim = rt_tensor_scalar(dtypes[t], -2);
    for (guint o = 0; o < G_N_ELEMENTS(ops); o++) {
      if (dtypes[t] == I64 && o < 3)
        continue; /* int64 goes to float32 there: the general path */
      RtValue slow[1] = {rt_tensor(xt)}, fast[1] = {rt_tensor(xc)},
              scalar[1] = {rt_tensor(zero_dim)};
      RtTensor *want = kt_run(ops[o], slow, 1), *got = kt_run(ops[o], fast, 1);
      RtTensor *got0 = kt_run(ops[o], scalar, 1);
      g_assert_cmpint(got->dtype, ==, want->dtype);
      size_t bytes = (size_t)rt_tensor_numel(want) * rt_dtype_size(want->dtype);
      g_assert_cmpmem(rt_tensor_data(got), bytes, rt_tensor_data(want), bytes);
      g_assert_cmpint(got0->ndim, ==, 0);
      /* -2 is the last element of the transposed view's result */
      g_assert_cmpmem(rt_tensor_data(got0), rt_dtype_size(got0->dtype),
                      (char *)rt_tensor_data(want) + 5 * rt_dtype_size(want->dtype),
                      rt_dtype_size(want->dtype));
      rt_tensor_unref(want);
      rt_tensor_unref(got);
      rt_tensor_unref(got0);
    }
    rt_tensor_unref(zero_dim);
    rt_tensor_unref(xc);
    rt_tensor_unref(xt);
    rt_tensor_unref(x);
  }
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/kernels/unary/sign", test_sign_ops);
  g_test_add_func("/kernels/unary/exp-log", test_exp_log);
  g_test_add_func("/kernels/unary/trig", test_trig);
  g_test_add_func("/kernels/unary/rounding", test_rounding);
  g_test_add_func("/kernels/unary/dtypes", test_dtypes);
  g_test_add_func("/kernels/unary/strided", test_strided);
  g_test_add_func("/kernels/unary/fast-path-matches-general", test_fast_path_matches_general);
  return g_test_run();
}
