/* Argument errors of the issue-11 kernels (losses, gather/scatter, factories) and of prelu,
 * glu, instance_norm, pixel_shuffle, softshrink and the elementwise losses: each bad call
 * fails with PyTorch's message, never a crash. Their values are tested against PyTorch in
 * tests/corpus-real. */
#include <math.h>

#include "kernels_test_util.h"

#define F32 IR_DTYPE_FLOAT32
#define I64 IR_DTYPE_INT64

static RtValue scores(void) {
  return rt_tensor(kt_tensor(F32, 2, KT_SIZES(2, 3), KT_VALUES(1, 2, 3, 4, 5, 6)));
}

static RtValue targets(double a, double b) {
  return rt_tensor(kt_tensor(I64, 1, KT_SIZES(2), KT_VALUES(a, b)));
}

static void test_nll_loss_errors(void) {
  RtValue a[5] = {scores(), targets(0, 3), rt_none(), rt_int(1), rt_int(-100)};
  kt_expect_error("aten::nll_loss(", a, 5, "Target 3 is out of bounds.");
  kt_expect_error("aten::cross_entropy_loss(", a, 5, "Target 3 is out of bounds.");
  a[4] = rt_int(3); /* the ignored class may lie outside [0, C) */
  RtTensor *r = kt_run("aten::nll_loss(", a, 5);
  kt_assert_tensor(r, F32, 0, NULL, KT_VALUES(-1), 0);
  rt_tensor_unref(r);
  a[3] = rt_int(5);
  kt_expect_error("aten::nll_loss(", a, 5, "5 is not a valid value for reduction");
  kt_unref_args(a, 5);

  RtValue b[3] = {scores(), rt_tensor(kt_tensor(I64, 1, KT_SIZES(3), KT_VALUES(0, 1, 2))),
                  rt_tensor(kt_tensor(F32, 1, KT_SIZES(2), KT_VALUES(1, 1)))};
  kt_expect_error("aten::nll_loss(", b, 2, "size mismatch (got input: [2, 3], target: [3])");
  RtValue c[3] = {scores(), targets(0, 1), rt_tensor(rt_tensor_ref(b[2].u.tensor))};
  kt_expect_error("aten::nll_loss(", c, 3,
                  "weight tensor should be defined either for all 3 classes");
  kt_unref_args(b, 3);
  kt_unref_args(c, 3);

  RtValue d[2] = {scores(), rt_tensor(kt_tensor(F32, 1, KT_SIZES(2), KT_VALUES(0, 1)))};
  kt_expect_error("aten::cross_entropy_loss(", d, 2, "class-probability");
  kt_unref_args(d, 2);

  RtValue e[6] = {scores(), targets(0, 1), rt_none(), rt_int(1), rt_int(-100), rt_double(0.1)};
  kt_expect_error("aten::cross_entropy_loss(", e, 6, "label_smoothing 0.1 is not supported");
  kt_unref_args(e, 6);

  RtValue f[2] = {rt_tensor(kt_tensor(F32, 3, KT_SIZES(1, 2, 1), KT_VALUES(1, 2))), targets(0, 0)};
  kt_expect_error("aten::nll_loss(", f, 2, "1D or 2D input expected, got 3D");
  kt_unref_args(f, 2);
}

static void test_bce_with_logits_errors(void) {
  RtValue a[4] = {scores(), rt_tensor(kt_tensor(F32, 1, KT_SIZES(3), KT_VALUES(0, 1, 0))),
                  rt_none(), rt_none()};
  kt_expect_error("aten::binary_cross_entropy_with_logits(", a, 2,
                  "Target size ([3]) must be the same as input size ([2, 3])");
  RtValue b[3] = {scores(), scores(), rt_tensor(kt_tensor(F32, 1, KT_SIZES(2), KT_VALUES(1, 1)))};
  kt_expect_error("aten::binary_cross_entropy_with_logits(", b, 3, "does not broadcast");
  kt_unref_args(a, 4);
  kt_unref_args(b, 3);
}

static void test_gather_scatter_errors(void) {
  RtValue a[4] = {scores(), rt_int(1),
                  rt_tensor(kt_tensor(I64, 2, KT_SIZES(2, 1), KT_VALUES(0, 3))), scores()};
  kt_expect_error("aten::gather(", a, 3, "index 3 is out of bounds for dimension 1 with size 3");
  kt_expect_error("aten::scatter_add(", a, 4,
                  "index 3 is out of bounds for dimension 1 with size 3");
  a[1] = rt_int(2);
  kt_expect_error("aten::gather(", a, 3, "Dimension out of range");
  kt_unref_args(a, 4);

  RtValue b[4] = {scores(), rt_int(1), rt_tensor(kt_tensor(I64, 1, KT_SIZES(2), KT_VALUES(0, 1))),
                  scores()};
  kt_expect_error("aten::gather(", b, 3,
                  "Index tensor must have the same number of dimensions as input tensor");
  kt_unref_args(b, 4);

  RtValue c[4] = {scores(), rt_int(1),
                  rt_tensor(kt_tensor(I64, 2, KT_SIZES(3, 1), KT_VALUES(0, 1, 2))), scores()};
  kt_expect_error("aten::gather(", c, 3, "Size does not match at dimension 0");
  kt_expect_error("aten::scatter_add(", c, 4, "Size does not match at dimension 0");
  kt_unref_args(c, 4);

  RtValue d[4] = {scores(), rt_int(0), rt_tensor(kt_tensor(F32, 2, KT_SIZES(1, 1), KT_VALUES(0))),
                  scores()};
  kt_expect_error("aten::gather(", d, 3, "Expected dtype int64 for index");
  kt_unref_args(d, 4);
}

static void test_masked_fill_errors(void) {
  RtValue a[3] = {scores(), rt_tensor(kt_tensor(F32, 1, KT_SIZES(3), KT_VALUES(0, 1, 0))),
                  rt_double(2)};
  kt_expect_error("aten::masked_fill.Scalar(", a, 3, "only supports boolean masks");
  kt_unref_args(a, 3);
  RtValue b[3] = {scores(), rt_tensor(kt_tensor(IR_DTYPE_BOOL, 1, KT_SIZES(2), KT_VALUES(0, 1))),
                  rt_double(2)};
  kt_expect_error("aten::masked_fill.Scalar(", b, 3, "must match");
  kt_unref_args(b, 3);
  RtValue c[3] = {scores(), rt_tensor(kt_tensor(IR_DTYPE_BOOL, 1, KT_SIZES(3), KT_VALUES(0, 1, 0))),
                  rt_tensor(kt_tensor(F32, 1, KT_SIZES(1), KT_VALUES(2)))};
  kt_expect_error("aten::masked_fill.Tensor(", c, 3, "0-dimensional value tensor");
  kt_unref_args(c, 3);
}

static void test_baddbmm_errors(void) {
  RtValue a[3] = {rt_tensor(kt_tensor(F32, 3, KT_SIZES(1, 2, 3), KT_VALUES(1, 2, 3, 4, 5, 6))),
                  rt_tensor(kt_tensor(F32, 3, KT_SIZES(1, 2, 3), KT_VALUES(1, 2, 3, 4, 5, 6))),
                  rt_tensor(kt_tensor(F32, 3, KT_SIZES(1, 2, 3), KT_VALUES(1, 2, 3, 4, 5, 6)))};
  kt_expect_error("aten::baddbmm(", a, 3, "Expected size for first two dimensions of batch2");
  kt_unref_args(a, 3);
}

static void test_factory_errors(void) {
  RtValue sizes = rt_int_list((const gint64[]){2, -1}, 2);
  RtValue a[5] = {sizes, rt_none(), rt_none(), rt_none(), rt_none()};
  kt_expect_error("aten::zeros(", a, 5, "negative");
  rt_value_unref(sizes);
  RtValue huge = rt_int_list((const gint64[]){G_MAXINT64 / 2, 4}, 2);
  RtValue b[6] = {huge, rt_double(1), rt_none(), rt_none(), rt_none(), rt_none()};
  kt_expect_error("aten::full(", b, 6, "overflow");
  rt_value_unref(huge);
  RtValue big = rt_int_list((const gint64[]){1 << 20, 1 << 20, 1 << 10}, 3);
  RtValue c[5] = {big, rt_none(), rt_none(), rt_none(), rt_none()};
  kt_expect_error("aten::ones(", c, 5, "budget");
  c[1] = rt_int(6);
  c[2] = rt_int(1);
  kt_expect_error("aten::ones(", c, 5, "only the strided layout");
  rt_value_unref(big);

  RtValue d[7] = {rt_int(0), rt_int(5), rt_int(0), rt_none(), rt_none(), rt_none(), rt_none()};
  kt_expect_error("aten::arange.start_step(", d, 7, "step must be nonzero");
  d[2] = rt_int(-1);
  kt_expect_error("aten::arange.start_step(", d, 7, "inconsistent with step sign");
  d[1] = rt_double(INFINITY);
  kt_expect_error("aten::arange.start_step(", d, 7, "unsupported range");
  d[1] = rt_double(1e30);
  d[2] = rt_double(1e-30);
  kt_expect_error("aten::arange.start_step(", d, 7, "too many elements");
}

/* prelu: weights per channel or one, at most 1-D; glu: an even halved dim, floats only. */
static void test_prelu_glu_errors(void) {
  RtValue a[2] = {scores(), rt_tensor(kt_tensor(F32, 1, KT_SIZES(2), KT_VALUES(0.5, 0.5)))};
  kt_expect_error("aten::prelu(", a, 2,
                  "Mismatch of parameter numbers and input channel size. Found parameter "
                  "numbers = 2 and channel size = 3.");
  rt_value_unref(a[1]);
  a[1] = rt_tensor(kt_tensor(F32, 2, KT_SIZES(1, 3), KT_VALUES(1, 1, 1)));
  kt_expect_error("aten::prelu(", a, 2, "Expected `weight` to be a scalar or 1D tensor");
  rt_value_unref(a[1]);
  a[1] = rt_tensor(kt_tensor(F32, 1, KT_SIZES(3), KT_VALUES(0.5, -1, 2)));
  RtTensor *r = kt_run("aten::prelu(", a, 2);
  kt_assert_tensor(r, F32, 2, KT_SIZES(2, 3), KT_VALUES(1, 2, 3, 4, 5, 6), 0);
  rt_tensor_unref(r);
  kt_unref_args(a, 2);
  RtValue n[2] = {rt_tensor(kt_tensor(F32, 1, KT_SIZES(3), KT_VALUES(-2, NAN, 3))),
                  rt_tensor(kt_tensor(F32, 1, KT_SIZES(1), KT_VALUES(0.25)))};
  r = kt_run("aten::prelu(", n, 2); /* NaN is not > 0: weight * NaN */
  kt_assert_tensor(r, F32, 1, KT_SIZES(3), KT_VALUES(-0.5, NAN, 3), 0);
  rt_tensor_unref(r);
  kt_unref_args(n, 2);

  RtValue g[2] = {scores(), rt_int(1)};
  kt_expect_error("aten::glu(", g, 2, "Halving dimension must be even, but dimension 1 is size 3");
  rt_value_unref(g[1]);
  g[1] = rt_int(2);
  kt_expect_error("aten::glu(", g, 2, "Dimension out of range");
  rt_value_unref(g[0]);
  g[0] = rt_tensor(kt_tensor(F32, 0, NULL, KT_VALUES(1)));
  kt_expect_error("aten::glu(", g, 2, "glu does not support scalars");
  rt_value_unref(g[0]);
  g[0] = rt_tensor(kt_tensor(I64, 1, KT_SIZES(2), KT_VALUES(1, 2)));
  rt_value_unref(g[1]);
  g[1] = rt_int(0);
  kt_expect_error("aten::glu(", g, 2, "\"glu\" not implemented for 'Long'");
  kt_unref_args(g, 2);
}

/* instance_norm: one spatial element cannot be normalized; evaluation needs running
 * statistics. */
static void test_instance_norm_errors(void) {
  RtValue a[9] = {rt_tensor(kt_tensor(F32, 3, KT_SIZES(2, 3, 1), KT_VALUES(1, 2, 3, 4, 5, 6))),
                  rt_none(),
                  rt_none(),
                  rt_none(),
                  rt_none(),
                  rt_bool(true),
                  rt_double(0.1),
                  rt_double(1e-5),
                  rt_bool(false)};
  kt_expect_error("aten::instance_norm(", a, 9,
                  "Expected more than 1 spatial element when training, got input size [2, 3, 1]");
  a[5] = rt_bool(false);
  kt_expect_error("aten::instance_norm(", a, 9,
                  "Expected running_mean and running_var to be defined when use_input_stats is "
                  "false");
  /* no elements but 2^40 channels: their statistics do not fit (they aborted the allocator,
   * in batch_norm too) */
  rt_value_unref(a[0]);
  a[0] = rt_tensor(kt_tensor(F32, 3, KT_SIZES(0, (int64_t)1 << 40, 2), NULL));
  a[5] = rt_bool(true);
  kt_expect_error("aten::instance_norm(", a, 9, "out of memory budget");
  kt_expect_error("aten::batch_norm(", a, 9, "out of memory budget");
  kt_unref_args(a, 9);
}

/* pixel_shuffle moves any dtype (int64 here: 0..7 in two 2 x 2 planes, as PyTorch prints
 * them); its factor and the sizes it divides are checked, huge factors included. */
static void test_pixel_shuffle_errors(void) {
  RtValue a[2] = {rt_tensor(kt_tensor(I64, 4, KT_SIZES(1, 8, 1, 1), KT_VALUES(0, 1, 2, 3, 4, 5,
                                                                               6, 7))),
                  rt_int(2)};
  RtTensor *r = kt_run("aten::pixel_shuffle(", a, 2);
  kt_assert_tensor(r, I64, 4, KT_SIZES(1, 2, 2, 2), KT_VALUES(0, 1, 2, 3, 4, 5, 6, 7), 0);
  rt_tensor_unref(r);
  a[1] = rt_int(0);
  kt_expect_error("aten::pixel_shuffle(", a, 2,
                  "pixel_shuffle expects a positive upscale_factor, but got 0");
  a[1] = rt_int(3);
  kt_expect_error("aten::pixel_shuffle(", a, 2,
                  "input.size(-3)=8 is not divisible by 9");
  a[1] = rt_int(G_MAXINT64 / 2);
  kt_expect_error("aten::pixel_shuffle(", a, 2, "is not divisible");
  a[1] = rt_int(2);
  kt_expect_error("aten::pixel_unshuffle(", a, 2,
                  "pixel_unshuffle expects height to be divisible by downscale_factor, but "
                  "input.size(-2)=1 is not divisible by 2");
  kt_unref_args(a, 2);
  RtValue b[2] = {rt_tensor(kt_tensor(F32, 2, KT_SIZES(2, 2), KT_VALUES(1, 2, 3, 4))),
                  rt_int(2)};
  kt_expect_error("aten::pixel_unshuffle(", b, 2,
                  "pixel_unshuffle expects input to have at least 3 dimensions, but got input "
                  "with 2 dimension(s)");
  kt_unref_args(b, 2);
  /* no rows: any factor divides them, but the channels it makes must be countable */
  RtValue e[2] = {rt_tensor(kt_tensor(F32, 3, KT_SIZES(1, 0, 0), NULL)), rt_int(G_MAXINT64 / 4)};
  kt_expect_error("aten::pixel_unshuffle(", e, 2, "too large");
  kt_unref_args(e, 2);
}

/* softshrink refuses a negative lambd (PyTorch 1.13's message); 0 is a bound like any other. */
static void test_softshrink_errors(void) {
  RtValue a[2] = {rt_tensor(kt_tensor(F32, 1, KT_SIZES(3), KT_VALUES(-1, 0.25, 2))),
                  rt_double(-0.25)};
  kt_expect_error("aten::softshrink(", a, 2,
                  "lambda must be greater or equal to 0, but found to be -0.25.");
  a[1] = rt_double(0);
  RtTensor *r = kt_run("aten::softshrink(", a, 2);
  kt_assert_tensor(r, F32, 1, KT_SIZES(3), KT_VALUES(-1, 0.25, 2), 0);
  rt_tensor_unref(r);
  kt_unref_args(a, 2);
}

/* The elementwise losses' argument checks, in PyTorch 1.13's words. */
static void test_elementwise_loss_errors(void) {
  RtValue a[4] = {rt_tensor(kt_tensor(F32, 1, KT_SIZES(2), KT_VALUES(0.5, 1.5))),
                  rt_tensor(kt_tensor(F32, 1, KT_SIZES(2), KT_VALUES(1, 0))), rt_int(1),
                  rt_double(-0.5)};
  kt_expect_error("aten::smooth_l1_loss(", a, 4,
                  "smooth_l1_loss does not support negative values for beta.");
  a[3] = rt_double(0);
  kt_expect_error("aten::huber_loss(", a, 4,
                  "huber_loss does not support non-positive values for delta.");
  RtValue b[4] = {rt_tensor(rt_tensor_ref(a[0].u.tensor)), rt_tensor(rt_tensor_ref(a[1].u.tensor)),
                  rt_none(), rt_int(1)};
  kt_expect_error("aten::binary_cross_entropy(", b, 4,
                  "all elements of input should be between 0 and 1");
  b[3] = rt_int(3);
  kt_expect_error("aten::soft_margin_loss(", (RtValue[]){b[0], b[1], b[3]}, 3,
                  "3 is not a valid value for reduction");
  kt_unref_args(a, 2);
  kt_unref_args(b, 2);
  RtValue c[3] = {rt_tensor(kt_tensor(I64, 1, KT_SIZES(2), KT_VALUES(1, 0))),
                  rt_tensor(kt_tensor(I64, 1, KT_SIZES(2), KT_VALUES(1, 1))), rt_int(1)};
  kt_expect_error("aten::smooth_l1_loss(", c, 3, "\"smooth_l1_cpu\" not implemented for 'Long'");
  kt_unref_args(c, 2);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/kernels/errors/nll_loss", test_nll_loss_errors);
  g_test_add_func("/kernels/errors/bce_with_logits", test_bce_with_logits_errors);
  g_test_add_func("/kernels/errors/gather_scatter", test_gather_scatter_errors);
  g_test_add_func("/kernels/errors/masked_fill", test_masked_fill_errors);
  g_test_add_func("/kernels/errors/baddbmm", test_baddbmm_errors);
  g_test_add_func("/kernels/errors/factories", test_factory_errors);
  g_test_add_func("/kernels/errors/prelu_glu", test_prelu_glu_errors);
  g_test_add_func("/kernels/errors/instance_norm", test_instance_norm_errors);
  g_test_add_func("/kernels/errors/pixel_shuffle", test_pixel_shuffle_errors);
  g_test_add_func("/kernels/errors/softshrink", test_softshrink_errors);
  g_test_add_func("/kernels/errors/elementwise_losses", test_elementwise_loss_errors);
  return g_test_run();
}
