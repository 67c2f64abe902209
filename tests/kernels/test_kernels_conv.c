/* conv2d, conv1d and convolution_backward: small products computed by hand (padding, stride,
 * groups, padding 'same' and 'valid'), the three gradients, and the errors for channels, groups, kernel sizes, strides,
 * paddings and sizes that overflow. */
#include "kernels_test_util.h"
#include "runtime/kernels.h"

#define F32 IR_DTYPE_FLOAT32
#define F64 IR_DTYPE_FLOAT64

/* 1 x 1 x 3 x 3 holding 1..9 */
static RtTensor *nine(IrDtype dtype) {
  return kt_tensor(dtype, 4, KT_SIZES(1, 1, 3, 3), KT_VALUES(1, 2, 3, 4, 5, 6, 7, 8, 9));
}

static RtTensor *ones(int ndim, const int64_t *sizes) {
  return rt_tensor_full(F64, ndim, sizes, 1.0);
}

static RtValue pair(gint64 a, gint64 b) {
  return rt_int_list((const gint64[]){a, b}, 2);
}

static void test_conv2d(void) {
  /* a 2 x 2 box filter plus bias 0.5, then with padding 1 and stride 2 */
  RtValue a[7] = {KT_T(nine(F32)),
                  KT_T(rt_tensor_full(F32, 4, KT_SIZES(1, 1, 2, 2), 1.0)),
                  KT_T(kt_tensor(F32, 1, KT_SIZES(1), KT_VALUES(0.5))),
                  pair(1, 1),
                  pair(0, 0),
                  pair(1, 1),
                  rt_int(1)};
  RtTensor *r = kt_run("aten::conv2d(", a, 7);
  kt_assert_tensor(r, F32, 4, KT_SIZES(1, 1, 2, 2), KT_VALUES(12.5, 16.5, 24.5, 28.5), 0);
  rt_tensor_unref(r);
  rt_value_unref(a[2]);
  a[2] = rt_none();
  rt_value_unref(a[3]);
  a[3] = rt_int_list((const gint64[]){2}, 1); /* one value for both dims */
  rt_value_unref(a[4]);
  a[4] = pair(1, 1);
  r = kt_run("aten::conv2d(", a, 7);
  kt_assert_tensor(r, F32, 4, KT_SIZES(1, 1, 2, 2), KT_VALUES(1, 5, 11, 28), 0);
  rt_tensor_unref(r);
  kt_unref_args(a, 7);
}

static void test_conv1d_groups(void) {
  /* two channels, two groups of one filter of ones each; unbatched input */
  RtValue a[7] = {KT_T(kt_tensor(F64, 2, KT_SIZES(2, 3), KT_VALUES(1, 2, 3, 4, 5, 6))),
                  KT_T(ones(3, KT_SIZES(2, 1, 2))),
                  rt_none(),
                  rt_int_list((const gint64[]){1}, 1),
                  rt_int_list((const gint64[]){0}, 1),
                  rt_int_list((const gint64[]){1}, 1),
                  rt_int(2)};
  RtTensor *r = kt_run("aten::conv1d(", a, 7);
  kt_assert_tensor(r, F64, 2, KT_SIZES(2, 2), KT_VALUES(3, 5, 9, 11), 0);
  rt_tensor_unref(r);
  kt_unref_args(a, 7);
}

static void test_convolution_backward(void) {
  /* the box filter of test_conv2d with a gradient of ones: each input position gets the
   * number of windows covering it, the weight the sum of each window, the bias 4 */
  RtValue mask[3] = {rt_bool(true), rt_bool(true), rt_bool(true)};
  RtValue a[11] = {KT_T(ones(4, KT_SIZES(1, 1, 2, 2))),
                   KT_T(nine(F64)),
                   KT_T(ones(4, KT_SIZES(1, 1, 2, 2))),
                   rt_int_list((const gint64[]){1}, 1),
                   pair(1, 1),
                   pair(0, 0),
                   pair(1, 1),
                   rt_bool(false),
                   rt_int_list((const gint64[]){0}, 1),
                   rt_int(1),
                   rt_list(mask, 3)};
  const IrSchema *schema = kt_schema("aten::convolution_backward(");
  RtValue outs[3];
  GError *error = NULL;
  g_assert_true(rt_op_kernel(schema)(schema, NULL, a, 11, outs, 3, &error));
  g_assert_no_error(error);
  kt_assert_tensor(outs[0].u.tensor, F64, 4, KT_SIZES(1, 1, 3, 3),
                   KT_VALUES(1, 2, 1, 2, 4, 2, 1, 2, 1), 0);
  kt_assert_tensor(outs[1].u.tensor, F64, 4, KT_SIZES(1, 1, 2, 2), KT_VALUES(12, 16, 24, 28),
                   1e-12);
  kt_assert_tensor(outs[2].u.tensor, F64, 1, KT_SIZES(1), KT_VALUES(4), 0);
  kt_unref_args(outs, 3);
  /* transposed: the 3 x 3 input spreads to 4 x 4, a gradient of ones gives each input
   * position the sum of its 4 taps, each weight tap the input's sum, the bias 16 */
  rt_value_unref(a[7]);
  a[7] = rt_bool(true);
  kt_expect_error("aten::convolution_backward(", a, 11,
                  "grad_output of size [1, 1, 2, 2] does not match the output size [1, 1, 4, 4]");
  rt_value_unref(a[0]);
  a[0] = KT_T(ones(4, KT_SIZES(1, 1, 4, 4)));
  g_assert_true(rt_op_kernel(schema)(schema, NULL, a, 11, outs, 3, &error));
  g_assert_no_error(error);
  kt_assert_tensor(outs[0].u.tensor, F64, 4, KT_SIZES(1, 1, 3, 3),
                   KT_VALUES(4, 4, 4, 4, 4, 4, 4, 4, 4), 0);
  kt_assert_tensor(outs[1].u.tensor, F64, 4, KT_SIZES(1, 1, 2, 2), KT_VALUES(45, 45, 45, 45), 0);
  kt_assert_tensor(outs[2].u.tensor, F64, 1, KT_SIZES(1), KT_VALUES(16), 0);
  kt_unref_args(outs, 3);
  kt_unref_args(a, 11);
}

static void test_convolution(void) {
  /* _convolution: conv1d by the weight's rank (the groups test's numbers), then transposed */
  RtValue a[12] = {KT_T(kt_tensor(F64, 3, KT_SIZES(1, 2, 3), KT_VALUES(1, 2, 3, 4, 5, 6))),
                   KT_T(ones(3, KT_SIZES(2, 1, 2))),
                   rt_none(),
                   rt_int_list((const gint64[]){1}, 1),
                   rt_int_list((const gint64[]){0}, 1),
                   rt_int_list((const gint64[]){1}, 1),
                   rt_bool(false),
                   rt_int_list((const gint64[]){0}, 1),
                   rt_int(2),
                   rt_bool(false),
                   rt_bool(false),
                   rt_bool(true)};
  RtTensor *r = kt_run("aten::_convolution.deprecated(", a, 12);
  kt_assert_tensor(r, F64, 3, KT_SIZES(1, 2, 2), KT_VALUES(3, 5, 9, 11), 0);
  rt_tensor_unref(r);
  rt_value_unref(a[6]);
  a[6] = rt_bool(true);
  r = kt_run("aten::_convolution.deprecated(", a, 12);
  kt_assert_tensor(r, F64, 3, KT_SIZES(1, 2, 4), KT_VALUES(1, 3, 5, 3, 4, 9, 11, 6), 0);
  rt_tensor_unref(r);
  rt_value_unref(a[7]);
  a[7] = rt_int_list((const gint64[]){1}, 1);
  kt_expect_error("aten::_convolution.deprecated(", a, 12,
                  "output padding must be smaller than either stride or dilation");
  rt_value_unref(a[7]);
  a[7] = rt_int_list((const gint64[]){0}, 1);
  rt_value_unref(a[6]);
  a[6] = rt_bool(false);
  rt_value_unref(a[1]);
  a[1] = KT_T(ones(5, KT_SIZES(2, 1, 1, 1, 1)));
  kt_expect_error("aten::_convolution.deprecated(", a, 12,
                  "only 1-D and 2-D convolutions are supported, but got a 5-D weight");
  kt_unref_args(a, 12);
}

static void test_conv_errors(void) {
  RtValue a[7] = {KT_T(nine(F64)), KT_T(ones(4, KT_SIZES(1, 2, 2, 2))),
                  rt_none(),       pair(1, 1),
                  pair(0, 0),      pair(1, 1),
                  rt_int(1)};
  kt_expect_error("aten::conv2d(", a, 7,
                  "expected input[1, 1, 3, 3] to have 2 channels, but got "
                  "1 channels instead");
  rt_value_unref(a[1]);
  a[1] = KT_T(ones(4, KT_SIZES(3, 1, 2, 2)));
  rt_value_unref(a[6]);
  a[6] = rt_int(2);
  kt_expect_error("aten::conv2d(", a, 7,
                  "Given groups=2, expected weight to be at least 2 at "
                  "dimension 0 and divisible by it");
  rt_value_unref(a[6]);
  a[6] = rt_int(0);
  kt_expect_error("aten::conv2d(", a, 7, "non-positive groups is not supported");
  rt_value_unref(a[6]);
  a[6] = rt_int(1);
  rt_value_unref(a[1]);
  a[1] = KT_T(ones(4, KT_SIZES(1, 1, 4, 4)));
  kt_expect_error("aten::conv2d(", a, 7, "Kernel size can't be greater than actual input size");
  rt_value_unref(a[1]);
  a[1] = KT_T(ones(4, KT_SIZES(1, 1, 1, 1)));
  rt_value_unref(a[3]);
  a[3] = pair(0, 1);
  kt_expect_error("aten::conv2d(", a, 7, "non-positive stride is not supported");
  rt_value_unref(a[3]);
  a[3] = pair(1, 1);
  rt_value_unref(a[4]);
  a[4] = pair(-1, 0);
  kt_expect_error("aten::conv2d(", a, 7, "negative padding is not supported");
  rt_value_unref(a[4]);
  a[4] = rt_int_list((const gint64[]){0, 0, 0}, 3);
  kt_expect_error("aten::conv2d(", a, 7,
                  "expected padding to be a single integer value or a "
                  "list of 2 values");
  rt_value_unref(a[4]);
  a[4] = pair(G_MAXINT64 / 2, 0);
  kt_expect_error("aten::conv2d(", a, 7, "overflows");
  rt_value_unref(a[4]);
  a[4] = pair(G_GINT64_CONSTANT(1) << 40, G_GINT64_CONSTANT(1) << 40);
  kt_expect_error("aten::conv2d(", a, 7, "too large");
  rt_value_unref(a[4]);
  a[4] = pair(0, 0);
  /* a 2-tap kernel dilated by INT64_MAX spans INT64_MAX + 1 elements */
  rt_value_unref(a[1]);
  a[1] = KT_T(ones(4, KT_SIZES(1, 1, 2, 1)));
  rt_value_unref(a[5]);
  a[5] = pair(G_MAXINT64, 1);
  kt_expect_error("aten::conv2d(", a, 7, "Kernel size can't be greater than actual input size");
  rt_value_unref(a[3]);
  a[3] = pair(G_MAXINT64, 1);
  kt_expect_error("aten::conv2d(", a, 7, "Kernel size can't be greater than actual input size");
  rt_value_unref(a[3]);
  a[3] = pair(1, 1);
  rt_value_unref(a[5]);
  a[5] = pair(1, 1);
  rt_value_unref(a[0]);
  a[0] = KT_T(ones(2, KT_SIZES(3, 3)));
  kt_expect_error("aten::conv2d(", a, 7,
                  "Expected 3D (unbatched) or 4D (batched) input to "
                  "conv2d");
  kt_unref_args(a, 7);
}

static void test_conv2d_padding_mode(void) {
  /* 'same' with a 2 x 2 kernel: the one row and column of padding after the input */
  RtValue a[7] = {KT_T(nine(F32)), KT_T(rt_tensor_full(F32, 4, KT_SIZES(1, 1, 2, 2), 1.0)),
                  rt_none(),       pair(1, 1),
                  rt_str("same"),  pair(1, 1),
                  rt_int(1)};
  RtTensor *r = kt_run("aten::conv2d.padding(", a, 7);
  kt_assert_tensor(r, F32, 4, KT_SIZES(1, 1, 3, 3), KT_VALUES(12, 16, 9, 24, 28, 15, 15, 17, 9), 0);
  rt_tensor_unref(r);
  rt_value_unref(a[4]);
  a[4] = rt_str("valid");
  r = kt_run("aten::conv2d.padding(", a, 7);
  kt_assert_tensor(r, F32, 4, KT_SIZES(1, 1, 2, 2), KT_VALUES(12, 16, 24, 28), 0);
  rt_tensor_unref(r);
  rt_value_unref(a[4]);
  a[4] = rt_str("full");
  kt_expect_error("aten::conv2d.padding(", a, 7, "Invalid padding string: 'full'");
  rt_value_unref(a[4]);
  a[4] = rt_str("same");
  rt_value_unref(a[3]);
  a[3] = pair(1, 2);
  kt_expect_error("aten::conv2d.padding(", a, 7,
                  "padding='same' is not supported for strided convolutions");
  kt_unref_args(a, 7);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/kernels/conv/conv2d", test_conv2d);
  g_test_add_func("/kernels/conv/conv1d-groups", test_conv1d_groups);
  g_test_add_func("/kernels/conv/backward", test_convolution_backward);
  g_test_add_func("/kernels/conv/_convolution", test_convolution);
  g_test_add_func("/kernels/conv/errors", test_conv_errors);
  g_test_add_func("/kernels/conv/conv2d-padding-mode", test_conv2d_padding_mode);
  return g_test_run();
}
