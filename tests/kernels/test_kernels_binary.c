/* rt_kernel_binary: values computed by hand, broadcasting, type promotion, errors. */
#include <float.h>
#include <math.h>

#include "kernels_test_util.h"

#define F32 IR_DTYPE_FLOAT32
#define F64 IR_DTYPE_FLOAT64
#define I64 IR_DTYPE_INT64
#define BOOL IR_DTYPE_BOOL
#define F16 IR_DTYPE_FLOAT16

static RtValue vec(IrDtype d, int64_t n, const double *v) {
  return rt_tensor(kt_tensor(d, 1, &n, v));
}

static void check(const char *op, RtValue *args, guint n, IrDtype dtype, int ndim,
                  const int64_t *sizes, const double *want, double tol) {
  RtTensor *r = kt_run(op, args, n);
  kt_assert_tensor(r, dtype, ndim, sizes, want, tol);
  g_assert_true(rt_tensor_is_contiguous(r));
  rt_tensor_unref(r);
}

static void test_add_sub_alpha(void) {
  RtValue a[3] = {vec(F32, 3, KT_VALUES(1, 2, 3)), vec(F32, 3, KT_VALUES(10, 20, 30)), rt_int(2)};
  check("aten::add.Tensor(", a, 3, F32, 1, KT_SIZES(3), KT_VALUES(21, 42, 63), 0);
  check("aten::add.Tensor(", a, 2, F32, 1, KT_SIZES(3), KT_VALUES(11, 22, 33), 0);
  check("aten::sub.Tensor(", a, 3, F32, 1, KT_SIZES(3), KT_VALUES(-19, -38, -57), 0);
  /* rsub(self, other, alpha) = other - alpha * self */
  check("aten::rsub.Tensor(", a, 3, F32, 1, KT_SIZES(3), KT_VALUES(8, 16, 24), 0);
  kt_unref_args(a, 3);

  RtValue s[3] = {vec(F64, 2, KT_VALUES(1, 2)), rt_double(0.5), rt_double(4)};
  check("aten::add.Scalar(", s, 3, F64, 1, KT_SIZES(2), KT_VALUES(3, 4), 0);
  check("aten::sub.Scalar(", s, 3, F64, 1, KT_SIZES(2), KT_VALUES(-1, 0), 0);
  check("aten::rsub.Scalar(", s, 2, F64, 1, KT_SIZES(2), KT_VALUES(-0.5, -1.5), 0);
  kt_unref_args(s, 3);
}

static void test_broadcast(void) {
  /* [2, 1] + [3] -> [2, 3] */
  RtValue a[2] = {rt_tensor(kt_tensor(F32, 2, KT_SIZES(2, 1), KT_VALUES(1, 2))),
                  vec(F32, 3, KT_VALUES(10, 20, 30))};
  check("aten::add.Tensor(", a, 2, F32, 2, KT_SIZES(2, 3), KT_VALUES(11, 21, 31, 12, 22, 32), 0);
  /* the other way round: [3] * [2, 1] */
  RtValue b[2] = {rt_value_ref(a[1]), rt_value_ref(a[0])};
  check("aten::mul.Tensor(", b, 2, F32, 2, KT_SIZES(2, 3), KT_VALUES(10, 20, 30, 20, 40, 60), 0);
  kt_unref_args(b, 2);
  kt_unref_args(a, 2);

  /* a transposed (non-contiguous) operand: [[1, 3], [2, 4]] + [[10, 20], [30, 40]] */
  RtTensor *m = kt_tensor(F64, 2, KT_SIZES(2, 2), KT_VALUES(1, 2, 3, 4));
  RtValue c[2] = {rt_tensor(rt_tensor_view_transpose(m, 0, 1)),
                  rt_tensor(kt_tensor(F64, 2, KT_SIZES(2, 2), KT_VALUES(10, 20, 30, 40)))};
  rt_tensor_unref(m);
  check("aten::add.Tensor(", c, 2, F64, 2, KT_SIZES(2, 2), KT_VALUES(11, 23, 32, 44), 0);
  kt_unref_args(c, 2);

  /* 0-dim with 3-D, and an expanded (stride 0) operand */
  RtTensor *base = kt_tensor(F32, 1, KT_SIZES(2), KT_VALUES(5, 7));
  GError *error = NULL;
  RtValue d[2] = {rt_tensor(rt_tensor_view_expand(base, 3, KT_SIZES(2, 1, 2), &error)),
                  rt_tensor(rt_tensor_scalar(F32, 3))};
  g_assert_no_error(error);
  rt_tensor_unref(base);
  check("aten::sub.Tensor(", d, 2, F32, 3, KT_SIZES(2, 1, 2), KT_VALUES(2, 4, 2, 4), 0);
  kt_unref_args(d, 2);

  /* an empty dim broadcasts to an empty result */
  RtValue e[2] = {rt_tensor(rt_tensor_zeros(F32, 2, KT_SIZES(0, 3))),
                  vec(F32, 3, KT_VALUES(1, 2, 3))};
  RtTensor *r = kt_run("aten::add.Tensor(", e, 2);
  g_assert_cmpint(r->ndim, ==, 2);
  g_assert_cmpint(r->sizes[0], ==, 0);
  g_assert_cmpint(r->sizes[1], ==, 3);
  rt_tensor_unref(r);
  kt_unref_args(e, 2);

  /* a long contiguous run and a run with a remainder exercise the vector loops */
  int64_t n = 1003;
  RtTensor *x = rt_tensor_new(F32, 1, &n), *y = rt_tensor_new(F32, 1, &n);
  for (int64_t i = 0; i < n; i++) {
    rt_tensor_set(x, i, (double)i);
    rt_tensor_set(y, i, 2.0 * (double)i);
  }
  RtValue f[2] = {rt_tensor(x), rt_tensor(y)};
  r = kt_run("aten::mul.Tensor(", f, 2);
  for (int64_t i = 0; i < n; i++)
    g_assert_cmpfloat(rt_tensor_get(r, i), ==, 2.0 * (double)i * (double)i);
  rt_tensor_unref(r);
  kt_unref_args(f, 2);
}

static void test_broadcast_errors(void) {
  RtValue a[2] = {vec(F32, 3, KT_VALUES(1, 2, 3)), vec(F32, 4, KT_VALUES(1, 2, 3, 4))};
  kt_expect_error("aten::add.Tensor(", a, 2,
                  "The size of tensor a (3) must match the size of tensor b (4) at "
                  "non-singleton dimension 0");
  kt_unref_args(a, 2);
  RtValue b[2] = {rt_tensor(rt_tensor_zeros(F32, 2, KT_SIZES(2, 3))),
                  rt_tensor(rt_tensor_zeros(F32, 2, KT_SIZES(2, 4)))};
  kt_expect_error("aten::mul.Tensor(", b, 2,
                  "The size of tensor a (3) must match the size of tensor b (4) at "
                  "non-singleton dimension 1");
  kt_unref_args(b, 2);
  RtValue c[2] = {rt_tensor(NULL), vec(F32, 1, KT_VALUES(1))};
  kt_expect_error("aten::mul.Tensor(", c, 2, "undefined tensor");
  kt_unref_args(c, 2);
}

static void test_promotion(void) {
  /* int64 tensor + float Scalar -> float32 (the default dtype) */
  RtValue a[2] = {vec(I64, 2, KT_VALUES(1, 2)), rt_double(2.5)};
  check("aten::add.Scalar(", a, 2, F32, 1, KT_SIZES(2), KT_VALUES(3.5, 4.5), 0);
  kt_unref_args(a, 2);
  /* int64 tensor + int Scalar stays int64 */
  RtValue b[2] = {vec(I64, 2, KT_VALUES(1, 2)), rt_int(3)};
  check("aten::mul.Scalar(", b, 2, I64, 1, KT_SIZES(2), KT_VALUES(3, 6), 0);
  kt_unref_args(b, 2);
  /* a float Scalar does not raise float16 or float32 */
  RtValue c[2] = {vec(F16, 2, KT_VALUES(1.5, 2.25)), rt_double(1.25)};
  check("aten::add.Scalar(", c, 2, F16, 1, KT_SIZES(2), KT_VALUES(2.75, 3.5), 0);
  kt_unref_args(c, 2);
  /* int64 tensor + float32 tensor -> float32 */
  RtValue d[2] = {vec(I64, 2, KT_VALUES(1, 2)), vec(F32, 2, KT_VALUES(0.5, 0.25))};
  check("aten::add.Tensor(", d, 2, F32, 1, KT_SIZES(2), KT_VALUES(1.5, 2.25), 0);
  kt_unref_args(d, 2);
  /* float32 [2] with a float64 0-dim tensor stays float32 ... */
  RtValue e[2] = {vec(F32, 2, KT_VALUES(1, 2)), rt_tensor(rt_tensor_scalar(F64, 0.5))};
  check("aten::mul.Tensor(", e, 2, F32, 1, KT_SIZES(2), KT_VALUES(0.5, 1), 0);
  kt_unref_args(e, 2);
  /* ... but an int64 [2] with a float64 0-dim tensor is float64 */
  RtValue f[2] = {vec(I64, 2, KT_VALUES(1, 2)), rt_tensor(rt_tensor_scalar(F64, 0.5))};
  check("aten::mul.Tensor(", f, 2, F64, 1, KT_SIZES(2), KT_VALUES(0.5, 1), 0);
  kt_unref_args(f, 2);
  /* float32 + float64 tensors of rank > 0 -> float64 */
  RtValue g[2] = {vec(F32, 1, KT_VALUES(0.5)), vec(F64, 1, KT_VALUES(0.25))};
  check("aten::add.Tensor(", g, 2, F64, 1, KT_SIZES(1), KT_VALUES(0.75), 0);
  kt_unref_args(g, 2);
  /* bool + bool stays bool (logical or); bool + int64 is int64 */
  RtValue h[2] = {vec(BOOL, 3, KT_VALUES(1, 0, 0)), vec(BOOL, 3, KT_VALUES(1, 1, 0))};
  check("aten::add.Tensor(", h, 2, BOOL, 1, KT_SIZES(3), KT_VALUES(1, 1, 0), 0);
  check("aten::mul.Tensor(", h, 2, BOOL, 1, KT_SIZES(3), KT_VALUES(1, 0, 0), 0);
  kt_unref_args(h, 2);
  RtValue i[2] = {vec(BOOL, 2, KT_VALUES(1, 0)), vec(I64, 2, KT_VALUES(5, 6))};
  check("aten::add.Tensor(", i, 2, I64, 1, KT_SIZES(2), KT_VALUES(6, 6), 0);
  kt_unref_args(i, 2);
  /* int64 arithmetic wraps: 2^62 * 4 = 2^64 = 0 (mod 2^64) */
  RtValue j[2] = {vec(I64, 1, KT_VALUES(4611686018427387904.0)), rt_int(4)};
  check("aten::mul.Scalar(", j, 2, I64, 1, KT_SIZES(1), KT_VALUES(0), 0);
  kt_unref_args(j, 2);
}

static void test_alpha_and_bool_errors(void) {
  RtValue a[3] = {vec(I64, 1, KT_VALUES(1)), vec(I64, 1, KT_VALUES(1)), rt_double(0.5)};
  kt_expect_error("aten::add.Tensor(", a, 3, "argument alpha must not be a floating point");
  kt_unref_args(a, 3);
  RtValue b[2] = {vec(BOOL, 1, KT_VALUES(1)), vec(BOOL, 1, KT_VALUES(1))};
  kt_expect_error("aten::sub.Tensor(", b, 2, "with two bool tensors is not supported");
  kt_unref_args(b, 2);
  RtValue c[2] = {vec(F32, 1, KT_VALUES(1)), vec(BOOL, 1, KT_VALUES(1))};
  kt_expect_error("aten::sub.Tensor(", c, 2, "with a bool tensor is not supported");
  kt_unref_args(c, 2);
  RtValue d[3] = {vec(F32, 1, KT_VALUES(1)), vec(F32, 1, KT_VALUES(1)), rt_bool(true)};
  kt_expect_error("aten::add.Tensor(", d, 3, "Boolean alpha only supported");
  kt_unref_args(d, 3);
}

static void test_div(void) {
  /* integer operands divide truly into float32 */
  RtValue a[2] = {vec(I64, 3, KT_VALUES(1, 3, -7)), vec(I64, 3, KT_VALUES(2, 2, 2))};
  check("aten::div.Tensor(", a, 2, F32, 1, KT_SIZES(3), KT_VALUES(0.5, 1.5, -3.5), 0);
  kt_unref_args(a, 2);
  RtValue b[2] = {vec(F64, 3, KT_VALUES(1, -1, 0)), rt_int(0)};
  check("aten::div.Scalar(", b, 2, F64, 1, KT_SIZES(3), KT_VALUES(INFINITY, -INFINITY, NAN), 0);
  kt_unref_args(b, 2);
  RtValue c[2] = {vec(BOOL, 2, KT_VALUES(1, 0)), rt_int(4)};
  check("aten::div.Scalar(", c, 2, F32, 1, KT_SIZES(2), KT_VALUES(0.25, 0), 0);
  kt_unref_args(c, 2);
}

static void test_threshold_atan2_pow(void) {
  RtValue a[3] = {vec(F32, 3, KT_VALUES(0.5, 1, 1.5)), rt_int(1), rt_int(20)};
  check("aten::threshold(", a, 3, F32, 1, KT_SIZES(3), KT_VALUES(20, 20, 1.5), 0);
  kt_unref_args(a, 3);
  /* threshold keeps self's dtype: 1.5 becomes 1 for an int64 tensor */
  RtValue b[3] = {vec(I64, 3, KT_VALUES(0, 1, 2)), rt_double(1.5), rt_int(7)};
  check("aten::threshold(", b, 3, I64, 1, KT_SIZES(3), KT_VALUES(7, 7, 2), 0);
  kt_unref_args(b, 3);

  RtValue c[2] = {vec(F64, 3, KT_VALUES(1, -1, 0)), vec(F64, 3, KT_VALUES(1, -1, -1))};
  check("aten::atan2(", c, 2, F64, 1, KT_SIZES(3), KT_VALUES(M_PI / 4, -3 * M_PI / 4, M_PI), 1e-15);
  kt_unref_args(c, 2);
  RtValue d[2] = {vec(I64, 1, KT_VALUES(1)), vec(I64, 1, KT_VALUES(0))};
  check("aten::atan2(", d, 2, F32, 1, KT_SIZES(1), KT_VALUES(M_PI / 2), 1e-7);
  kt_unref_args(d, 2);

  RtValue e[2] = {vec(F32, 3, KT_VALUES(2, 3, -2)), rt_int(2)};
  check("aten::pow.Tensor_Scalar(", e, 2, F32, 1, KT_SIZES(3), KT_VALUES(4, 9, 4), 0);
  kt_unref_args(e, 2);
  RtValue f[2] = {vec(I64, 3, KT_VALUES(2, 3, -2)), vec(I64, 3, KT_VALUES(3, 2, 3))};
  check("aten::pow.Tensor_Tensor(", f, 2, I64, 1, KT_SIZES(3), KT_VALUES(8, 9, -8), 0);
  kt_unref_args(f, 2);
  /* integer powi with negative exponents: 1, -1 alternating, else 0 */
  RtValue g[2] = {vec(I64, 4, KT_VALUES(1, -1, -1, 2)), vec(I64, 4, KT_VALUES(-5, -3, -2, -1))};
  check("aten::pow.Tensor_Tensor(", g, 2, I64, 1, KT_SIZES(4), KT_VALUES(1, -1, 1, 0), 0);
  kt_unref_args(g, 2);
  RtValue h[2] = {vec(I64, 1, KT_VALUES(2)), rt_int(-1)};
  kt_expect_error("aten::pow.Tensor_Scalar(", h, 2, "Integers to negative integer powers");
  kt_unref_args(h, 2);
  RtValue i[2] = {vec(I64, 2, KT_VALUES(4, 9)), rt_double(0.5)};
  check("aten::pow.Tensor_Scalar(", i, 2, F32, 1, KT_SIZES(2), KT_VALUES(2, 3), 0);
  kt_unref_args(i, 2);
}

static void test_fmod_remainder(void) {
  RtValue a[2] = {vec(F64, 4, KT_VALUES(5, -5, 5.5, -5.5)), rt_int(3)};
  check("aten::fmod.Scalar(", a, 2, F64, 1, KT_SIZES(4), KT_VALUES(2, -2, 2.5, -2.5), 0);
  check("aten::remainder.Scalar(", a, 2, F64, 1, KT_SIZES(4), KT_VALUES(2, 1, 2.5, 0.5), 0);
  kt_unref_args(a, 2);
  RtValue b[2] = {vec(I64, 4, KT_VALUES(5, -5, 5, -5)), vec(I64, 4, KT_VALUES(3, 3, -3, -3))};
  check("aten::fmod.Tensor(", b, 2, I64, 1, KT_SIZES(4), KT_VALUES(2, -2, 2, -2), 0);
  check("aten::remainder.Tensor(", b, 2, I64, 1, KT_SIZES(4), KT_VALUES(2, 1, -1, -2), 0);
  kt_unref_args(b, 2);
  RtValue c[2] = {vec(I64, 2, KT_VALUES(5, 6)), vec(I64, 2, KT_VALUES(1, 0))};
  kt_expect_error("aten::fmod.Tensor(", c, 2, "ZeroDivisionError");
  kt_expect_error("aten::remainder.Tensor(", c, 2, "ZeroDivisionError");
  kt_unref_args(c, 2);
  /* float division by zero is NaN, not an error */
  RtValue d[2] = {vec(F32, 1, KT_VALUES(1)), rt_double(0)};
  check("aten::fmod.Scalar(", d, 2, F32, 1, KT_SIZES(1), KT_VALUES(NAN), 0);
  kt_unref_args(d, 2);
}

/* floor_divide, nan_to_num and logit on values and errors PyTorch 1.13 gave. */
static void test_floor_divide(void) {
  RtValue a[2] = {vec(I64, 5, KT_VALUES(7, -7, 7, -7, 0)), vec(I64, 5, KT_VALUES(2, 2, -2, -2, 3))};
  check("aten::floor_divide(", a, 2, I64, 1, KT_SIZES(5), KT_VALUES(3, -4, -4, 3, 0), 0);
  rt_value_unref(a[1]);
  a[1] = rt_int(2);
  check("aten::floor_divide.Scalar(", a, 2, I64, 1, KT_SIZES(5), KT_VALUES(3, -4, 3, -4, 0), 0);
  rt_value_unref(a[1]);
  a[1] = rt_double(2.5);
  check("aten::floor_divide.Scalar(", a, 2, F32, 1, KT_SIZES(5), KT_VALUES(2, -3, 2, -3, 0), 0);
  rt_value_unref(a[1]);
  a[1] = rt_int(0);
  kt_expect_error("aten::floor_divide.Scalar(", a, 2, "ZeroDivisionError");
  rt_value_unref(a[1]);
  a[1] = vec(I64, 5, KT_VALUES(0, 1, 1, 1, 1));
  kt_expect_error("aten::floor_divide(", a, 2, "ZeroDivisionError");
  kt_unref_args(a, 2);
  RtValue b[2] = {vec(IR_DTYPE_BOOL, 2, KT_VALUES(1, 0)), vec(IR_DTYPE_BOOL, 2, KT_VALUES(1, 1))};
  kt_expect_error("aten::floor_divide(", b, 2, "\"div_floor_cpu\" not implemented for 'Bool'");
  kt_unref_args(b, 2);
  /* PyTorch's CPU kernel traps on INT64_MIN // -1 (SIGFPE); jitscope wraps around, as its
   * other int64 arithmetic does, instead of crashing */
  RtValue m[2] = {vec(I64, 1, KT_VALUES(-9223372036854775808.0)), rt_int(-1)};
  check("aten::floor_divide.Scalar(", m, 2, I64, 1, KT_SIZES(1), KT_VALUES(-9223372036854775808.0),
        0);
  kt_unref_args(m, 2);
}

static void test_nan_to_num_logit(void) {
  double nan = NAN, inf = INFINITY;
  RtValue a[4] = {vec(F32, 4, KT_VALUES(nan, inf, -inf, 1)), rt_none(), rt_none(), rt_none()};
  check("aten::nan_to_num(", a, 4, F32, 1, KT_SIZES(4), KT_VALUES(0, FLT_MAX, -FLT_MAX, 1), 0);
  /* a posinf past float32's range is inf there */
  a[1] = rt_double(1.5);
  a[2] = rt_double(1e300);
  a[3] = rt_double(-2);
  check("aten::nan_to_num(", a, 4, F32, 1, KT_SIZES(4), KT_VALUES(1.5, inf, -2, 1), 0);
  kt_unref_args(a, 4);
  RtValue d[4] = {vec(F64, 4, KT_VALUES(nan, inf, -inf, 1)), rt_none(), rt_none(), rt_none()};
  check("aten::nan_to_num(", d, 4, F64, 1, KT_SIZES(4), KT_VALUES(0, DBL_MAX, -DBL_MAX, 1), 0);
  kt_unref_args(d, 4);
  /* integers and bools are copied unchanged */
  RtValue i[4] = {vec(I64, 2, KT_VALUES(3, 4)), rt_double(1.5), rt_double(1e300), rt_double(-2)};
  check("aten::nan_to_num(", i, 4, I64, 1, KT_SIZES(2), KT_VALUES(3, 4), 0);
  kt_unref_args(i, 4);
  /* logit of integers and bools is float32; eps clamps */
  RtValue l[2] = {vec(I64, 2, KT_VALUES(1, 0)), rt_none()};
  check("aten::logit(", l, 2, F32, 1, KT_SIZES(2), KT_VALUES(inf, -inf), 0);
  l[1] = rt_double(0.1);
  check("aten::logit(", l, 2, F32, 1, KT_SIZES(2), KT_VALUES(2.1972246, -2.1972246), 1e-6);
  kt_unref_args(l, 2);
  RtValue t[2] = {vec(IR_DTYPE_BOOL, 1, KT_VALUES(1)), rt_none()};
  check("aten::logit(", t, 2, F32, 1, KT_SIZES(1), KT_VALUES(inf), 0);
  kt_unref_args(t, 2);
}

static void test_clamp_max_min(void) {
  RtValue a[3] = {vec(F32, 4, KT_VALUES(-2, 0.5, 3, NAN)), rt_int(0), rt_int(1)};
  check("aten::clamp(", a, 3, F32, 1, KT_SIZES(4), KT_VALUES(0, 0.5, 1, NAN), 0);
  rt_value_unref(a[2]);
  a[2] = rt_none();
  check("aten::clamp(", a, 3, F32, 1, KT_SIZES(4), KT_VALUES(0, 0.5, 3, NAN), 0);
  rt_value_unref(a[1]);
  a[1] = rt_none();
  kt_expect_error("aten::clamp(", a, 3, "At least one of 'min' or 'max' must not be None");
  a[2] = rt_double(-1);
  check("aten::clamp(", a, 3, F32, 1, KT_SIZES(4), KT_VALUES(-2, -1, -1, NAN), 0);
  kt_unref_args(a, 3);
  /* int64 tensor with float bounds promotes to float32 */
  RtValue b[3] = {vec(I64, 3, KT_VALUES(-2, 1, 3)), rt_double(0.5), rt_double(2.5)};
  check("aten::clamp(", b, 3, F32, 1, KT_SIZES(3), KT_VALUES(0.5, 1, 2.5), 0);
  kt_unref_args(b, 3);
  RtValue c[3] = {vec(I64, 3, KT_VALUES(-2, 1, 3)), rt_int(0), rt_int(2)};
  check("aten::clamp(", c, 3, I64, 1, KT_SIZES(3), KT_VALUES(0, 1, 2), 0);
  kt_unref_args(c, 3);

  /* max/min propagate NaN from either side */
  RtValue d[2] = {vec(F64, 4, KT_VALUES(1, NAN, 3, 5)), vec(F64, 4, KT_VALUES(2, 2, NAN, 4))};
  check("aten::max.other(", d, 2, F64, 1, KT_SIZES(4), KT_VALUES(2, NAN, NAN, 5), 0);
  check("aten::min.other(", d, 2, F64, 1, KT_SIZES(4), KT_VALUES(1, NAN, NAN, 4), 0);
  kt_unref_args(d, 2);
  RtValue e[2] = {rt_tensor(kt_tensor(I64, 2, KT_SIZES(2, 1), KT_VALUES(1, 5))),
                  vec(I64, 2, KT_VALUES(3, 4))};
  check("aten::max.other(", e, 2, I64, 2, KT_SIZES(2, 2), KT_VALUES(3, 4, 5, 5), 0);
  check("aten::min.other(", e, 2, I64, 2, KT_SIZES(2, 2), KT_VALUES(1, 1, 3, 4), 0);
  kt_unref_args(e, 2);
}

static void test_lerp_addcmul_where(void) {
  RtValue a[3] = {vec(F32, 2, KT_VALUES(0, 10)), vec(F32, 2, KT_VALUES(10, 20)), rt_double(0.25)};
  check("aten::lerp.Scalar(", a, 3, F32, 1, KT_SIZES(2), KT_VALUES(2.5, 12.5), 0);
  rt_value_unref(a[2]);
  a[2] = rt_double(0.75);
  check("aten::lerp.Scalar(", a, 3, F32, 1, KT_SIZES(2), KT_VALUES(7.5, 17.5), 0);
  rt_value_unref(a[2]);
  a[2] = vec(F32, 2, KT_VALUES(0, 1));
  check("aten::lerp.Tensor(", a, 3, F32, 1, KT_SIZES(2), KT_VALUES(0, 20), 0);
  rt_value_unref(a[2]);
  a[2] = vec(F64, 2, KT_VALUES(0, 1));
  kt_expect_error("aten::lerp.Tensor(", a, 3,
                  "expected dtype float for `weight` but got "
                  "dtype double");
  kt_unref_args(a, 3);

  RtValue b[4] = {vec(F64, 2, KT_VALUES(1, 1)), vec(F64, 2, KT_VALUES(2, 4)),
                  vec(F64, 2, KT_VALUES(3, 3)), rt_double(0.5)};
  check("aten::addcmul(", b, 4, F64, 1, KT_SIZES(2), KT_VALUES(4, 7), 0);
  check("aten::addcmul(", b, 3, F64, 1, KT_SIZES(2), KT_VALUES(7, 13), 0);
  kt_unref_args(b, 4);
  /* three operands broadcast: [2, 1] + [3] * [1] */
  RtValue c[3] = {rt_tensor(kt_tensor(F32, 2, KT_SIZES(2, 1), KT_VALUES(0, 100))),
                  vec(F32, 3, KT_VALUES(1, 2, 3)), vec(F32, 1, KT_VALUES(2))};
  check("aten::addcmul(", c, 3, F32, 2, KT_SIZES(2, 3), KT_VALUES(2, 4, 6, 102, 104, 106), 0);
  kt_unref_args(c, 3);

  RtValue d[3] = {vec(BOOL, 3, KT_VALUES(1, 0, 1)), vec(I64, 3, KT_VALUES(1, 2, 3)),
                  vec(F32, 1, KT_VALUES(0.5))};
  check("aten::where.self(", d, 3, F32, 1, KT_SIZES(3), KT_VALUES(1, 0.5, 3), 0);
  rt_value_unref(d[0]);
  d[0] = vec(F32, 3, KT_VALUES(1, 0, 1));
  kt_expect_error("aten::where.self(", d, 3, "where expected condition to be a boolean tensor");
  kt_unref_args(d, 3);
  /* the condition broadcasts too */
  RtValue e[3] = {rt_tensor(kt_tensor(BOOL, 2, KT_SIZES(2, 1), KT_VALUES(1, 0))),
                  vec(F64, 2, KT_VALUES(1, 2)), vec(F64, 2, KT_VALUES(3, 4))};
  check("aten::where.self(", e, 3, F64, 2, KT_SIZES(2, 2), KT_VALUES(1, 2, 3, 4), 0);
  kt_unref_args(e, 3);
}

static void test_comparisons(void) {
  RtValue a[2] = {vec(F32, 4, KT_VALUES(1, 2, 3, NAN)), vec(I64, 4, KT_VALUES(2, 2, 2, 2))};
  check("aten::gt.Tensor(", a, 2, BOOL, 1, KT_SIZES(4), KT_VALUES(0, 0, 1, 0), 0);
  check("aten::lt.Tensor(", a, 2, BOOL, 1, KT_SIZES(4), KT_VALUES(1, 0, 0, 0), 0);
  check("aten::ge.Tensor(", a, 2, BOOL, 1, KT_SIZES(4), KT_VALUES(0, 1, 1, 0), 0);
  check("aten::le.Tensor(", a, 2, BOOL, 1, KT_SIZES(4), KT_VALUES(1, 1, 0, 0), 0);
  check("aten::eq.Tensor(", a, 2, BOOL, 1, KT_SIZES(4), KT_VALUES(0, 1, 0, 0), 0);
  check("aten::ne.Tensor(", a, 2, BOOL, 1, KT_SIZES(4), KT_VALUES(1, 0, 1, 1), 0);
  kt_unref_args(a, 2);
  /* an int tensor against a float Scalar compares in float: 1 > 1.5 is false */
  RtValue b[2] = {vec(I64, 3, KT_VALUES(1, 2, 3)), rt_double(1.5)};
  check("aten::gt.Scalar(", b, 2, BOOL, 1, KT_SIZES(3), KT_VALUES(0, 1, 1), 0);
  check("aten::eq.Scalar(", b, 2, BOOL, 1, KT_SIZES(3), KT_VALUES(0, 0, 0), 0);
  kt_unref_args(b, 2);
  RtValue c[2] = {vec(BOOL, 2, KT_VALUES(1, 0)), rt_bool(true)};
  check("aten::eq.Scalar(", c, 2, BOOL, 1, KT_SIZES(2), KT_VALUES(1, 0), 0);
  check("aten::ne.Scalar(", c, 2, BOOL, 1, KT_SIZES(2), KT_VALUES(0, 1), 0);
  kt_unref_args(c, 2);
  /* logical_or: nonzero (NaN included) is true, as PyTorch's */
  RtValue d[2] = {vec(F32, 4, KT_VALUES(0, 1, 0, NAN)), vec(BOOL, 4, KT_VALUES(0, 0, 1, 0))};
  check("aten::logical_or(", d, 2, BOOL, 1, KT_SIZES(4), KT_VALUES(0, 1, 1, 1), 0);
  kt_unref_args(d, 2);
}

/* Bitwise and logical ops against PyTorch 1.13's answers (python3-torch): int64 bits with
 * broadcasting, bools staying bool (~ of a bool is its negation), a bool tensor with an int
 * Scalar promoting to int64, nonzero and NaN as true for the logical ops; floating point
 * operands of a bitwise op are PyTorch's error. */
static void test_bitwise_logical(void) {
  RtValue a[2] = {rt_tensor(kt_tensor(I64, 2, KT_SIZES(2, 1), KT_VALUES(5, -6))),
                  vec(I64, 4, KT_VALUES(3, -1, 0, 1099511627777.0))};
  check("aten::__or__.Tensor(", a, 2, I64, 2, KT_SIZES(2, 4),
        KT_VALUES(7, -1, 5, 1099511627781.0, -5, -1, -6, -5), 0);
  check("aten::__and__.Tensor(", a, 2, I64, 2, KT_SIZES(2, 4),
        KT_VALUES(1, 5, 0, 1, 2, -6, 0, 1099511627776.0), 0);
  check("aten::bitwise_xor.Tensor(", a, 2, I64, 2, KT_SIZES(2, 4),
        KT_VALUES(6, -6, 5, 1099511627780.0, -7, 5, -6, -1099511627781.0), 0);
  check("aten::bitwise_not(", &a[1], 1, I64, 1, KT_SIZES(4), KT_VALUES(-4, 0, -1, -1099511627778.0),
        0);
  RtValue m[2] = {vec(BOOL, 4, KT_VALUES(1, 0, 1, 0)), vec(BOOL, 4, KT_VALUES(1, 1, 0, 0))};
  check("aten::bitwise_or.Tensor(", m, 2, BOOL, 1, KT_SIZES(4), KT_VALUES(1, 1, 1, 0), 0);
  check("aten::bitwise_and.Tensor(", m, 2, BOOL, 1, KT_SIZES(4), KT_VALUES(1, 0, 0, 0), 0);
  check("aten::__xor__.Tensor(", m, 2, BOOL, 1, KT_SIZES(4), KT_VALUES(0, 1, 1, 0), 0);
  check("aten::bitwise_not(", m, 1, BOOL, 1, KT_SIZES(4), KT_VALUES(0, 1, 0, 1), 0);
  RtValue ms[2] = {rt_value_ref(m[0]), rt_int(3)};
  check("aten::__or__.Scalar(", ms, 2, I64, 1, KT_SIZES(4), KT_VALUES(3, 3, 3, 3), 0);
  RtValue mt[2] = {rt_value_ref(m[0]), rt_bool(true)};
  check("aten::__and__.Scalar(", mt, 2, BOOL, 1, KT_SIZES(4), KT_VALUES(1, 0, 1, 0), 0);
  RtValue bm[2] = {rt_value_ref(a[1]), rt_value_ref(m[0])};
  check("aten::__xor__.Tensor(", bm, 2, I64, 1, KT_SIZES(4), KT_VALUES(2, -1, 1, 1099511627777.0),
        0);
  RtValue bs[2] = {rt_value_ref(a[1]), rt_int(-2)};
  check("aten::bitwise_and.Scalar(", bs, 2, I64, 1, KT_SIZES(4),
        KT_VALUES(2, -2, 0, 1099511627776.0), 0);
  RtValue fm[2] = {vec(F32, 4, KT_VALUES(0, NAN, -0.0, 2.5)), rt_value_ref(m[0])};
  check("aten::logical_and(", fm, 2, BOOL, 1, KT_SIZES(4), KT_VALUES(0, 0, 0, 0), 0);
  RtValue fn[2] = {rt_value_ref(fm[0]), rt_value_ref(m[1])};
  check("aten::logical_xor(", fn, 2, BOOL, 1, KT_SIZES(4), KT_VALUES(1, 0, 0, 1), 0);
  check("aten::logical_not(", fm, 1, BOOL, 1, KT_SIZES(4), KT_VALUES(1, 0, 1, 0), 0);
  check("aten::logical_not(", &a[1], 1, BOOL, 1, KT_SIZES(4), KT_VALUES(0, 0, 1, 0), 0);
  kt_expect_error("aten::__or__.Tensor(", fm, 2, "\"bitwise_or_cpu\" not implemented for 'Float'");
  RtValue fs[2] = {rt_value_ref(a[1]), rt_double(2.5)};
  kt_expect_error("aten::bitwise_and.Scalar(", fs, 2,
                  "\"bitwise_and_cpu\" not implemented for 'Float'");
  kt_expect_error("aten::bitwise_not(", fm, 1, "\"bitwise_not_cpu\" not implemented for 'Float'");
  kt_unref_args(a, 2);
  kt_unref_args(m, 2);
  kt_unref_args(ms, 2);
  kt_unref_args(mt, 2);
  kt_unref_args(bm, 2);
  kt_unref_args(bs, 2);
  kt_unref_args(fm, 2);
  kt_unref_args(fn, 2);
  kt_unref_args(fs, 2);
}

/* The same-shape fast path (contiguous float operands of one shape, or a tensor and a number)
 * gives bit for bit what the general path gives: the same op on transposed views, which are
 * not contiguous, takes the general path. NaN, infinities, -0 and rounding cases included. */
static void test_fast_path_matches_general(void) {
  static const char *const ops[] = {"aten::add.Tensor(", "aten::sub.Tensor(", "aten::mul.Tensor(",
                                    "aten::div.Tensor(", "aten::add.Scalar(", "aten::sub.Scalar(",
                                    "aten::mul.Scalar(", "aten::div.Scalar("};
  const RtValue numbers[] = {rt_double(0.2), rt_int(3), rt_double(-0.0), rt_double(1e300)};
  const RtValue alphas[] = {rt_int(1), rt_double(2.5), rt_int(-3)};
  IrDtype dtypes[] = {F32, F64};
  int64_t sizes[2] = {2, 3};
  for (guint t = 0; t < G_N_ELEMENTS(dtypes); t++) {
    RtTensor *x = kt_tensor(dtypes[t], 2, sizes, KT_VALUES(0.1, NAN, -0.0, INFINITY, 1e30, -7));
    RtTensor *y = kt_tensor(dtypes[t], 2, sizes, KT_VALUES(0.2, 1, 0, -INFINITY, 3e-30, 0));
    RtTensor *xt = rt_tensor_view_transpose(x, 0, 1), *yt = rt_tensor_view_transpose(y, 0, 1);
    RtTensor *xc = rt_tensor_contiguous(xt), *yc = rt_tensor_contiguous(yt);
    for (guint o = 0; o < G_N_ELEMENTS(ops); o++) {
      bool scalar = g_str_has_suffix(ops[o], "Scalar(");
      bool alpha = g_str_has_prefix(ops[o], "aten::add") || g_str_has_prefix(ops[o], "aten::sub");
      for (guint k = 0; k < (scalar ? G_N_ELEMENTS(numbers) : 1); k++) {
        for (guint a = 0; a < (alpha ? G_N_ELEMENTS(alphas) : 1); a++) {
          RtValue slow[3] = {rt_tensor(xt), scalar ? numbers[k] : rt_tensor(yt), alphas[a]};
          RtValue fast[3] = {rt_tensor(xc), scalar ? numbers[k] : rt_tensor(yc), alphas[a]};
          RtTensor *want = kt_run(ops[o], slow, alpha ? 3 : 2);
          RtTensor *got = kt_run(ops[o], fast, alpha ? 3 : 2);
          g_assert_cmpint(got->dtype, ==, want->dtype);
          g_assert_cmpint(got->ndim, ==, 2);
          g_assert_cmpint(got->sizes[0], ==, 3);
          g_assert_true(rt_tensor_is_contiguous(want));
          size_t bytes = (size_t)rt_tensor_numel(want) * rt_dtype_size(want->dtype);
          g_assert_cmpmem(rt_tensor_data(got), bytes, rt_tensor_data(want), bytes);
          rt_tensor_unref(want);
          rt_tensor_unref(got);
        }
      }
    }
    rt_tensor_unref(xt);
    rt_tensor_unref(yt);
    rt_tensor_unref(xc);
    rt_tensor_unref(yc);
    rt_tensor_unref(x);
    rt_tensor_unref(y);
  }
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/kernels/binary/add-sub-alpha", test_add_sub_alpha);
  g_test_add_func("/kernels/binary/broadcast", test_broadcast);
  g_test_add_func("/kernels/binary/broadcast-errors", test_broadcast_errors);
  g_test_add_func("/kernels/binary/promotion", test_promotion);
  g_test_add_func("/kernels/binary/alpha-bool-errors", test_alpha_and_bool_errors);
  g_test_add_func("/kernels/binary/div", test_div);
  g_test_add_func("/kernels/binary/threshold-atan2-pow", test_threshold_atan2_pow);
  g_test_add_func("/kernels/binary/fmod-remainder", test_fmod_remainder);
  g_test_add_func("/kernels/binary/clamp-max-min", test_clamp_max_min);
  g_test_add_func("/kernels/binary/lerp-addcmul-where", test_lerp_addcmul_where);
  g_test_add_func("/kernels/binary/comparisons", test_comparisons);
  g_test_add_func("/kernels/binary/floor_divide", test_floor_divide);
  g_test_add_func("/kernels/binary/nan_to_num-logit", test_nan_to_num_logit);
  g_test_add_func("/kernels/binary/bitwise-logical", test_bitwise_logical);
  g_test_add_func("/kernels/binary/fast-path-matches-general", test_fast_path_matches_general);
  return g_test_run();
}
