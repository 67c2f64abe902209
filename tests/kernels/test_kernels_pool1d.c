/* max_pool1d, max_pool1d_with_indices, avg_pool1d, adaptive_avg_pool1d, adaptive_max_pool1d
 * and adaptive_max_pool2d (with its backward): values and every error as PyTorch 1.13 gave
 * them (its messages verbatim: the 1-D ops' own checks, then those of the 2-D op they call on
 * the unsqueezed input). */
#include <math.h>

#include "kernels_test_util.h"

#define F32 IR_DTYPE_FLOAT32
#define I64 IR_DTYPE_INT64

static RtValue ints1(gint64 a) {
  return rt_int_list(&a, 1);
}
static RtValue ints2(gint64 a, gint64 b) {
  return rt_int_list((const gint64[]){a, b}, 2);
}
static RtValue none_list(void) {
  return rt_int_list(NULL, 0);
}

/* [2, 3, 5] of zeros, or a tensor of that rank with one size changed */
static RtTensor *input(IrDtype dtype, int ndim, const int64_t *sizes) {
  return rt_tensor_zeros(dtype, ndim, sizes);
}
static RtTensor *batch(void) {
  return input(F32, 3, KT_SIZES(2, 3, 5));
}

/* max_pool1d's own checks (MaxPooling.cpp) */
static void test_max_pool1d_errors(void) {
  RtValue a[6] = {KT_T(batch()), ints1(2), none_list(), ints1(0), ints1(1), rt_bool(false)};
  const char *msg = "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch "
                    "size for input, but got:";
  struct {
    int ndim;
    int64_t sizes[4];
    const char *shape;
  } bad[] = {{1, {5}, "[5]"},
             {4, {1, 2, 3, 5}, "[1, 2, 3, 5]"},
             {3, {2, 0, 5}, "[2, 0, 5]"},
             {3, {2, 3, 0}, "[2, 3, 0]"},
             {2, {0, 5}, "[0, 5]"}};
  for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
    rt_value_unref(a[0]);
    a[0] = KT_T(input(F32, bad[i].ndim, bad[i].sizes));
    g_autofree char *want = g_strconcat(msg, bad[i].shape, NULL);
    kt_expect_error("aten::max_pool1d(", a, 6, want);
  }
  rt_value_unref(a[0]);
  a[0] = KT_T(batch());
  struct {
    guint at;
    RtValue value;
    const char *message;
  } args[] = {
      {1, ints2(2, 2),
       "max_pool1d() kernel_size must be an int, list of ints or tuple of ints of size 1 but "
       "got size 2"},
      {2, ints2(1, 1),
       "max_pool1d() stride must be None, an int, list of ints, or tuple of ints of size 1 but "
       "got size 2"},
      {1, ints1(0), "max_pool1d() kernel_size must be greater than zero, but got 0"},
      {1, ints1(-1), "max_pool1d() kernel_size must be greater than zero, but got -1"},
      {2, ints1(0), "max_pool1d() stride must be greater than zero, but got 0"},
      {3, ints1(-1), "max_pool1d() padding must be non-negative, but got -1"},
      {3, ints1(2),
       "max_pool1d() padding should be at most half of kernel size, but got padding=2 and "
       "kernel_size=2"},
      {4, ints1(0), "max_pool1d() dilation must be greater than zero, but got 0"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(args); i++) {
    RtValue saved = a[args[i].at];
    a[args[i].at] = args[i].value;
    kt_expect_error("aten::max_pool1d(", a, 6, args[i].message);
    rt_value_unref(args[i].value);
    a[args[i].at] = saved;
  }
  /* kernel 3 dilated by 3 spans 7 of 5 elements */
  RtValue d[6] = {KT_T(batch()), ints1(3), ints1(1), ints1(0), ints1(3), rt_bool(false)};
  kt_expect_error("aten::max_pool1d(", d, 6, "max_pool1d() Invalid computed output size: -1");
  kt_unref_args(d, 6);
  rt_value_unref(a[0]);
  a[0] = KT_T(input(I64, 3, KT_SIZES(2, 3, 5)));
  kt_expect_error("aten::max_pool1d(", a, 6, "\"max_pool1d_impl\" not implemented for 'Long'");
  rt_value_unref(a[0]);
  a[0] = KT_T(input(IR_DTYPE_BOOL, 3, KT_SIZES(2, 3, 5)));
  kt_expect_error("aten::max_pool1d(", a, 6, "\"max_pool1d_impl\" not implemented for 'Bool'");
  /* a window count of 0 is an empty result, and so is an empty batch */
  rt_value_unref(a[0]);
  a[0] = KT_T(batch());
  rt_value_unref(a[1]);
  a[1] = ints1(6);
  RtTensor *r = kt_run("aten::max_pool1d(", a, 6);
  kt_assert_tensor(r, F32, 3, KT_SIZES(2, 3, 0), NULL, 0);
  rt_tensor_unref(r);
  rt_value_unref(a[0]);
  a[0] = KT_T(input(F32, 3, KT_SIZES(0, 3, 5)));
  r = kt_run("aten::max_pool1d(", a, 6);
  kt_assert_tensor(r, F32, 3, KT_SIZES(0, 3, 0), NULL, 0);
  rt_tensor_unref(r);
  kt_unref_args(a, 6);
}

/* max_pool1d_with_indices and avg_pool1d: Pooling.cpp's checks, then max_pool2d's and
 * avg_pool2d's on the unsqueezed input */
static void test_pool1d_as_2d_errors(void) {
  RtValue a[6] = {KT_T(batch()), ints1(2), none_list(), ints1(0), ints1(1), rt_bool(false)};
  const char *op = "aten::max_pool1d_with_indices(";
  struct {
    guint at;
    RtValue value;
    const char *message;
  } args[] = {
      {1, ints2(2, 2), "max_pool1d() argument 'kernel_size' should contain one int (got 2)"},
      {2, ints2(1, 1), "max_pool1d() argument 'stride' should contain one int (got 2)"},
      {1, ints1(0), "stride should not be zero"},
      {2, ints1(0), "stride should not be zero"},
      {3, ints1(-1), "pad must be non-negative, but got pad: -1"},
      {3, ints1(2), "pad should be at most half of kernel size, but got pad=2 and kernel_size=2"},
      {2, ints1(-1), "stride should be greater than zero, but got dH: 1 dW: -1"},
      {4, ints1(-1), "dilation should be greater than zero, but got dilationH: 1 dilationW: -1"},
      {1, ints1(6),
       "Given input size: (3x1x5). Calculated output size: (3x1x0). Output size is too small"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(args); i++) {
    RtValue saved = a[args[i].at];
    a[args[i].at] = args[i].value;
    kt_expect_error(op, a, 6, args[i].message);
    rt_value_unref(args[i].value);
    a[args[i].at] = saved;
  }
  /* a kernel of 0 or -2 with stride 1: the kernel message, or the padding one first */
  RtValue k[6] = {KT_T(batch()), ints1(0), ints1(1), ints1(0), ints1(1), rt_bool(false)};
  kt_expect_error(op, k, 6, "kernel size should be greater than zero, but got kH: 1 kW: 0");
  rt_value_unref(k[1]);
  k[1] = ints1(-2);
  kt_expect_error(op, k, 6,
                  "pad should be at most half of kernel size, but got pad=0 and kernel_size=-2");
  rt_value_unref(k[1]);
  k[1] = ints1(3);
  rt_value_unref(k[4]);
  k[4] = ints1(3);
  kt_expect_error(op, k, 6,
                  "Given input size: (3x1x5). Calculated output size: (3x1x-1). Output size is "
                  "too small");
  kt_unref_args(k, 6);
  rt_value_unref(a[0]);
  a[0] = KT_T(input(F32, 1, KT_SIZES(5)));
  kt_expect_error(op, a, 6,
                  "Expected 2 to 3 dimensions, but got 1-dimensional tensor for argument #1 "
                  "'self' (while checking arguments for max_pool1d)");
  rt_value_unref(a[0]);
  a[0] = KT_T(input(F32, 3, KT_SIZES(2, 3, 0)));
  kt_expect_error(op, a, 6,
                  "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for "
                  "input, but got:[2, 3, 1, 0]");
  rt_value_unref(a[0]);
  a[0] = KT_T(input(F32, 2, KT_SIZES(0, 5)));
  kt_expect_error(op, a, 6,
                  "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for "
                  "input, but got:[0, 1, 5]");
  rt_value_unref(a[0]);
  a[0] = KT_T(input(I64, 3, KT_SIZES(2, 3, 5)));
  kt_expect_error(op, a, 6, "\"max_pool2d\" not implemented for 'Long'");
  kt_unref_args(a, 6);

  RtValue v[6] = {KT_T(input(F32, 4, KT_SIZES(1, 2, 3, 5))),
                  ints1(2),
                  none_list(),
                  ints1(0),
                  rt_bool(false),
                  rt_bool(true)};
  kt_expect_error("aten::avg_pool1d(", v, 6,
                  "Expected 2 to 3 dimensions, but got 4-dimensional tensor for argument #1 "
                  "'self' (while checking arguments for avg_pool1d)");
  rt_value_unref(v[0]);
  v[0] = KT_T(batch());
  rt_value_unref(v[1]);
  v[1] = ints2(2, 2);
  kt_expect_error("aten::avg_pool1d(", v, 6,
                  "avg_pool1d() argument 'kernel_size' should contain one int (got 2)");
  rt_value_unref(v[1]);
  v[1] = ints1(6);
  kt_expect_error("aten::avg_pool1d(", v, 6,
                  "Given input size: (3x1x5). Calculated output size: (3x1x0). Output size is "
                  "too small");
  rt_value_unref(v[1]);
  v[1] = ints1(2);
  rt_value_unref(v[0]);
  v[0] = KT_T(input(IR_DTYPE_BOOL, 3, KT_SIZES(2, 3, 5)));
  kt_expect_error("aten::avg_pool1d(", v, 6, "\"avg_pool2d\" not implemented for 'Bool'");
  kt_unref_args(v, 6);
}

static void test_pool1d_values(void) {
  /* a NaN wins, ties go to the first, a window past the padding keeps its in-bounds element */
  double nan = NAN, inf = INFINITY;
  RtTensor *x = kt_tensor(F32, 2, KT_SIZES(1, 7), KT_VALUES(1, nan, 3, 3, -inf, -inf, 2));
  RtValue a[6] = {KT_T(x), ints1(2), ints1(2), ints1(1), ints1(1), rt_bool(true)};
  RtValue outs[2];
  GError *error = NULL;
  g_assert_true(kt_call_outputs("aten::max_pool1d_with_indices(", a, 6, outs, 2, &error));
  kt_assert_tensor(outs[0].u.tensor, F32, 2, KT_SIZES(1, 4), KT_VALUES(1, nan, 3, 2), 0);
  kt_assert_tensor(outs[1].u.tensor, I64, 2, KT_SIZES(1, 4), KT_VALUES(0, 1, 3, 6), 0);
  kt_unref_args(outs, 2);
  kt_unref_args(a, 6);
  /* dilation 2 with padding 1 */
  RtValue d[6] = {KT_T(kt_tensor(F32, 2, KT_SIZES(1, 5), KT_VALUES(5, 1, 7, 7, 2))),
                  ints1(3),
                  ints1(1),
                  ints1(1),
                  ints1(2),
                  rt_bool(false)};
  RtTensor *r = kt_run("aten::max_pool1d(", d, 6);
  kt_assert_tensor(r, F32, 2, KT_SIZES(1, 3), KT_VALUES(7, 7, 7), 0);
  rt_tensor_unref(r);
  kt_unref_args(d, 6);
  /* int64 averages truncate; the padding counted or not */
  RtValue v[6] = {KT_T(kt_tensor(I64, 3, KT_SIZES(1, 1, 5), KT_VALUES(-3, -4, 5, 7, 1))),
                  ints1(2),
                  ints1(2),
                  ints1(1),
                  rt_bool(true),
                  rt_bool(false)};
  r = kt_run("aten::avg_pool1d(", v, 6);
  kt_assert_tensor(r, I64, 3, KT_SIZES(1, 1, 3), KT_VALUES(-3, 0, 4), 0);
  rt_tensor_unref(r);
  rt_value_unref(v[0]);
  v[0] = KT_T(kt_tensor(F32, 3, KT_SIZES(1, 1, 5), KT_VALUES(-3, -4, 5, 7, 1)));
  rt_value_unref(v[5]);
  v[5] = rt_bool(true);
  r = kt_run("aten::avg_pool1d(", v, 6);
  kt_assert_tensor(r, F32, 3, KT_SIZES(1, 1, 3), KT_VALUES(-1.5, 0.5, 4), 0);
  rt_tensor_unref(r);
  kt_unref_args(v, 6);
}

static void test_adaptive_pool1d(void) {
  /* 5 -> 3: windows [0, 2), [1, 4), [3, 5) */
  RtValue a[2] = {KT_T(kt_tensor(F32, 2, KT_SIZES(1, 5), KT_VALUES(1, 2, 4, 8, 16))), ints1(3)};
  RtTensor *r = kt_run("aten::adaptive_avg_pool1d(", a, 2);
  kt_assert_tensor(r, F32, 2, KT_SIZES(1, 3), KT_VALUES(1.5, 14.0 / 3, 12), 1e-6);
  rt_tensor_unref(r);
  kt_unref_args(a, 2);
  /* one window is PyTorch's mean: NaN over an empty width, mean's message for integers */
  RtValue m[2] = {KT_T(input(F32, 3, KT_SIZES(1, 2, 0))), ints1(1)};
  r = kt_run("aten::adaptive_avg_pool1d(", m, 2);
  kt_assert_tensor(r, F32, 3, KT_SIZES(1, 2, 1), KT_VALUES(NAN, NAN), 0);
  rt_tensor_unref(r);
  rt_value_unref(m[1]);
  m[1] = ints1(2);
  kt_expect_error("aten::adaptive_avg_pool1d(", m, 2,
                  "adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch "
                  "dimensions, but input has sizes [1, 2, 1, 0] with dimension 3 being empty");
  rt_value_unref(m[0]);
  m[0] = KT_T(input(I64, 3, KT_SIZES(2, 3, 5)));
  kt_expect_error("aten::adaptive_avg_pool1d(", m, 2,
                  "\"adaptive_avg_pool2d\" not implemented for 'Long'");
  rt_value_unref(m[1]);
  m[1] = ints1(1);
  kt_expect_error("aten::adaptive_avg_pool1d(", m, 2,
                  "mean(): could not infer output dtype. Input dtype must be either a floating "
                  "point or complex dtype. Got: Long");
  rt_value_unref(m[1]);
  m[1] = ints1(-1);
  kt_expect_error("aten::adaptive_avg_pool1d(", m, 2,
                  "adaptive_avg_pool2d: elements of output_size must be greater than or equal to "
                  "0 but received {1, -1}");
  rt_value_unref(m[1]);
  m[1] = ints2(1, 1);
  kt_expect_error("aten::adaptive_avg_pool1d(", m, 2,
                  "adaptive_avg_pool1d() argument 'output_size' should contain one int (got 2)");
  /* an empty channel dim is an empty result */
  rt_value_unref(m[0]);
  m[0] = KT_T(input(F32, 3, KT_SIZES(2, 0, 5)));
  rt_value_unref(m[1]);
  m[1] = ints1(2);
  r = kt_run("aten::adaptive_avg_pool1d(", m, 2);
  kt_assert_tensor(r, F32, 3, KT_SIZES(2, 0, 2), NULL, 0);
  rt_tensor_unref(r);
  kt_unref_args(m, 2);

  /* max: a NaN wins, ties go to the first */
  double nan = NAN, inf = INFINITY;
  RtValue x[2] = {KT_T(kt_tensor(F32, 2, KT_SIZES(1, 7), KT_VALUES(1, nan, 3, 3, -inf, -inf, 2))),
                  ints1(3)};
  RtValue outs[2];
  GError *error = NULL;
  g_assert_true(kt_call_outputs("aten::adaptive_max_pool1d(", x, 2, outs, 2, &error));
  kt_assert_tensor(outs[0].u.tensor, F32, 2, KT_SIZES(1, 3), KT_VALUES(nan, 3, 2), 0);
  kt_assert_tensor(outs[1].u.tensor, I64, 2, KT_SIZES(1, 3), KT_VALUES(1, 2, 6), 0);
  kt_unref_args(outs, 2);
  kt_unref_args(x, 2);
  RtValue e[2] = {KT_T(batch()), ints1(-1)};
  kt_expect_error("aten::adaptive_max_pool1d(", e, 2,
                  "Trying to create tensor with negative dimension -1: [2, 3, 1, -1]");
  rt_value_unref(e[1]);
  e[1] = ints1(2);
  rt_value_unref(e[0]);
  e[0] = KT_T(input(F32, 3, KT_SIZES(2, 0, 5)));
  kt_expect_error("aten::adaptive_max_pool1d(", e, 2,
                  "adaptive_max_pool2d(): Expected input to have non-zero size for non-batch "
                  "dimensions, but input has sizes [2, 0, 1, 5] with dimension 1 being empty");
  rt_value_unref(e[0]);
  e[0] = KT_T(input(I64, 3, KT_SIZES(2, 3, 5)));
  kt_expect_error("aten::adaptive_max_pool1d(", e, 2,
                  "\"adaptive_max_pool2d\" not implemented for 'Long'");
  rt_value_unref(e[0]);
  e[0] = KT_T(input(F32, 1, KT_SIZES(5)));
  kt_expect_error("aten::adaptive_max_pool1d(", e, 2,
                  "Expected 2 to 3 dimensions, but got 1-dimensional tensor for argument #1 "
                  "'self' (while checking arguments for adaptive_max_pool1d)");
  /* [C, W] with no channels: an empty result (only the dims after the first are checked) */
  rt_value_unref(e[0]);
  e[0] = KT_T(input(F32, 2, KT_SIZES(0, 5)));
  g_assert_true(kt_call_outputs("aten::adaptive_max_pool1d(", e, 2, outs, 2, &error));
  kt_assert_tensor(outs[0].u.tensor, F32, 2, KT_SIZES(0, 2), NULL, 0);
  kt_unref_args(outs, 2);
  kt_unref_args(e, 2);
}

static void test_adaptive_max_pool2d_backward(void) {
  /* each gradient goes to the element its index names; repeated indices add up */
  RtValue b[3] = {KT_T(kt_tensor(F32, 3, KT_SIZES(1, 1, 3), KT_VALUES(1, 2, 3))),
                  KT_T(input(F32, 3, KT_SIZES(1, 2, 2))),
                  KT_T(kt_tensor(I64, 3, KT_SIZES(1, 1, 3), KT_VALUES(0, 3, 3)))};
  RtTensor *r = kt_run("aten::adaptive_max_pool2d_backward(", b, 3);
  kt_assert_tensor(r, F32, 3, KT_SIZES(1, 2, 2), KT_VALUES(1, 0, 0, 5), 0);
  rt_tensor_unref(r);
  rt_value_unref(b[2]);
  b[2] = KT_T(kt_tensor(I64, 3, KT_SIZES(1, 1, 3), KT_VALUES(0, 4, 3)));
  kt_expect_error("aten::adaptive_max_pool2d_backward(", b, 3,
                  "index 4 is outside a plane of 4 elements");
  rt_value_unref(b[2]);
  b[2] = KT_T(kt_tensor(I64, 3, KT_SIZES(1, 1, 2), KT_VALUES(0, 3)));
  kt_expect_error("aten::adaptive_max_pool2d_backward(", b, 3,
                  "indices of size [1, 1, 2] does not match the output size [1, 1, 3]");
  kt_unref_args(b, 3);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/kernels/pool1d/max_pool1d-errors", test_max_pool1d_errors);
  g_test_add_func("/kernels/pool1d/as-2d-errors", test_pool1d_as_2d_errors);
  g_test_add_func("/kernels/pool1d/values", test_pool1d_values);
  g_test_add_func("/kernels/pool1d/adaptive", test_adaptive_pool1d);
  g_test_add_func("/kernels/pool1d/adaptive_max_pool2d-backward",
                  test_adaptive_max_pool2d_backward);
  return g_test_run();
}
