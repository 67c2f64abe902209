/* max_pool2d, avg_pool2d, adaptive_avg_pool2d and their backward ops on 3 x 3 planes
 * computed by hand (ceil_mode, NaN, padding counted or not, divisor_override, adaptive windows
 * that overlap), and the errors for kernel, padding and output sizes. */
#include <math.h>

#include "kernels_test_util.h"

#define F32 IR_DTYPE_FLOAT32
#define F64 IR_DTYPE_FLOAT64
#define I64 IR_DTYPE_INT64

/* 1 x 1 x 3 x 3 holding 1..9 */
static RtTensor *nine(void) {
  return kt_tensor(F32, 4, KT_SIZES(1, 1, 3, 3), KT_VALUES(1, 2, 3, 4, 5, 6, 7, 8, 9));
}

static RtValue pair(gint64 a, gint64 b) {
  return rt_int_list((const gint64[]){a, b}, 2);
}
static RtValue empty(void) {
  return rt_int_list(NULL, 0);
}

static void test_max_pool2d(void) {
  RtValue a[6] = {KT_T(nine()), pair(2, 2), empty(), pair(0, 0), pair(1, 1), rt_bool(false)};
  RtTensor *r = kt_run("aten::max_pool2d(", a, 6);
  kt_assert_tensor(r, F32, 4, KT_SIZES(1, 1, 1, 1), KT_VALUES(5), 0);
  rt_tensor_unref(r);
  /* ceil_mode keeps the windows that start inside the input */
  rt_value_unref(a[5]);
  a[5] = rt_bool(true);
  r = kt_run("aten::max_pool2d(", a, 6);
  kt_assert_tensor(r, F32, 4, KT_SIZES(1, 1, 2, 2), KT_VALUES(5, 6, 8, 9), 0);
  rt_tensor_unref(r);
  kt_unref_args(a, 6);
  /* a NaN wins */
  RtValue n[6] = {KT_T(kt_tensor(F64, 3, KT_SIZES(1, 2, 2), KT_VALUES(1, NAN, 3, -INFINITY))),
                  pair(2, 2),
                  empty(),
                  pair(0, 0),
                  pair(1, 1),
                  rt_bool(false)};
  r = kt_run("aten::max_pool2d(", n, 6);
  kt_assert_tensor(r, F64, 3, KT_SIZES(1, 1, 1), KT_VALUES(NAN), 0);
  rt_tensor_unref(r);
  kt_unref_args(n, 6);
  /* a window of 2^40 x 2^40 taps over a 1 x 1 plane walks only the one inside */
  gint64 big = G_GINT64_CONSTANT(1) << 40;
  RtValue w[6] = {KT_T(kt_tensor(F32, 3, KT_SIZES(1, 1, 1), KT_VALUES(7))),
                  pair(big, big),
                  empty(),
                  pair(big / 2, big / 2),
                  pair(1, 1),
                  rt_bool(false)};
  r = kt_run("aten::max_pool2d(", w, 6);
  kt_assert_tensor(r, F32, 3, KT_SIZES(1, 1, 1), KT_VALUES(7), 0);
  rt_tensor_unref(r);
  r = kt_run("aten::avg_pool2d(",
             (RtValue[]){w[0], w[1], w[2], w[3], rt_bool(false), rt_bool(false), rt_none()}, 7);
  kt_assert_tensor(r, F32, 3, KT_SIZES(1, 1, 1), KT_VALUES(7), 0);
  rt_tensor_unref(r);
  kt_unref_args(w, 6);
}

static void test_max_pool2d_backward(void) {
  /* the gradient goes to the element each index names; indices repeat across windows */
  RtValue a[8] = {KT_T(kt_tensor(F32, 4, KT_SIZES(1, 1, 2, 2), KT_VALUES(1, 2, 3, 4))),
                  KT_T(nine()),
                  pair(2, 2),
                  pair(1, 1),
                  pair(0, 0),
                  pair(1, 1),
                  rt_bool(false),
                  KT_T(kt_tensor(I64, 4, KT_SIZES(1, 1, 2, 2), KT_VALUES(4, 4, 8, 8)))};
  RtTensor *r = kt_run("aten::max_pool2d_with_indices_backward(", a, 8);
  kt_assert_tensor(r, F32, 4, KT_SIZES(1, 1, 3, 3), KT_VALUES(0, 0, 0, 0, 3, 0, 0, 0, 7), 0);
  rt_tensor_unref(r);
  rt_value_unref(a[7]);
  a[7] = KT_T(kt_tensor(I64, 4, KT_SIZES(1, 1, 2, 2), KT_VALUES(4, 4, 8, 9)));
  kt_expect_error("aten::max_pool2d_with_indices_backward(", a, 8,
                  "index 9 is outside a plane of 9 elements");
  kt_unref_args(a, 8);
  /* a window dilated over a 1 x 1 plane holds none of it: -inf forward, no gradient */
  RtValue m[6] = {KT_T(kt_tensor(F32, 3, KT_SIZES(1, 1, 1), KT_VALUES(5))),
                  pair(1, 2),
                  pair(1, 1),
                  pair(0, 1),
                  pair(1, 2),
                  rt_bool(false)};
  r = kt_run("aten::max_pool2d(", m, 6);
  kt_assert_tensor(r, F32, 3, KT_SIZES(1, 1, 1), KT_VALUES(-INFINITY), 0);
  rt_tensor_unref(r);
  RtValue b[8] = {KT_T(kt_tensor(F32, 3, KT_SIZES(1, 1, 1), KT_VALUES(1))),
                  rt_value_ref(m[0]),
                  pair(1, 2),
                  pair(1, 1),
                  pair(0, 1),
                  pair(1, 2),
                  rt_bool(false),
                  KT_T(kt_tensor(I64, 3, KT_SIZES(1, 1, 1), KT_VALUES(-1)))};
  r = kt_run("aten::max_pool2d_with_indices_backward(", b, 8);
  kt_assert_tensor(r, F32, 3, KT_SIZES(1, 1, 1), KT_VALUES(0), 0);
  rt_tensor_unref(r);
  kt_unref_args(b, 8);
  kt_unref_args(m, 6);
}

static void test_avg_pool2d(void) {
  /* one 3 x 3 window at (-1, -1): 1 + 2 + 4 + 5 = 12 over 9 with the padding, 4 without, or
   * the divisor given */
  RtValue a[7] = {KT_T(nine()),   pair(3, 3),    pair(3, 3), pair(1, 1),
                  rt_bool(false), rt_bool(true), rt_none()};
  RtTensor *r = kt_run("aten::avg_pool2d(", a, 7);
  kt_assert_tensor(r, F32, 4, KT_SIZES(1, 1, 1, 1), KT_VALUES(12.0 / 9), 1e-6);
  rt_tensor_unref(r);
  rt_value_unref(a[5]);
  a[5] = rt_bool(false);
  r = kt_run("aten::avg_pool2d(", a, 7);
  kt_assert_tensor(r, F32, 4, KT_SIZES(1, 1, 1, 1), KT_VALUES(3), 0);
  rt_tensor_unref(r);
  a[6] = rt_int(2);
  r = kt_run("aten::avg_pool2d(", a, 7);
  kt_assert_tensor(r, F32, 4, KT_SIZES(1, 1, 1, 1), KT_VALUES(6), 0);
  rt_tensor_unref(r);
  a[6] = rt_int(0);
  kt_expect_error("aten::avg_pool2d(", a, 7, "divisor must be not zero");
  /* the backward spreads each gradient over the window's in-bounds elements */
  RtValue b[8] = {KT_T(kt_tensor(F32, 4, KT_SIZES(1, 1, 1, 1), KT_VALUES(8))),
                  KT_T(nine()),
                  pair(3, 3),
                  pair(3, 3),
                  pair(1, 1),
                  rt_bool(false),
                  rt_bool(false),
                  rt_none()};
  r = kt_run("aten::avg_pool2d_backward(", b, 8);
  kt_assert_tensor(r, F32, 4, KT_SIZES(1, 1, 3, 3), KT_VALUES(2, 2, 0, 2, 2, 0, 0, 0, 0), 0);
  rt_tensor_unref(r);
  kt_unref_args(b, 8);
  kt_unref_args(a, 7);
}

static void test_adaptive_avg_pool2d(void) {
  /* 3 -> 2: windows [0, 2) and [1, 3) overlap in the middle */
  RtValue a[2] = {KT_T(nine()), pair(2, 2)};
  RtTensor *r = kt_run("aten::adaptive_avg_pool2d(", a, 2);
  kt_assert_tensor(r, F32, 4, KT_SIZES(1, 1, 2, 2), KT_VALUES(3, 4, 6, 7), 0);
  rt_value_unref(a[1]);
  a[1] = rt_int_list((const gint64[]){1}, 1);
  RtTensor *one = kt_run("aten::adaptive_avg_pool2d(", a, 2);
  kt_assert_tensor(one, F32, 4, KT_SIZES(1, 1, 1, 1), KT_VALUES(5), 0);
  rt_tensor_unref(one);
  rt_value_unref(a[1]);
  a[1] = pair(-1, 2);
  kt_expect_error("aten::adaptive_avg_pool2d(", a, 2, "greater than or equal to 0");
  /* each output's gradient over its window: the middle belongs to all four */
  RtValue b[2] = {KT_T(kt_tensor(F32, 4, KT_SIZES(1, 1, 2, 2), KT_VALUES(4, 4, 4, 4))),
                  rt_value_ref(a[0])};
  RtTensor *g = kt_run("aten::_adaptive_avg_pool2d_backward(", b, 2);
  kt_assert_tensor(g, F32, 4, KT_SIZES(1, 1, 3, 3), KT_VALUES(1, 2, 1, 2, 4, 2, 1, 2, 1), 0);
  rt_tensor_unref(g);
  rt_tensor_unref(r);
  kt_unref_args(b, 2);
  kt_unref_args(a, 2);
}

static void test_pool_errors(void) {
  RtValue a[6] = {KT_T(nine()), pair(2, 2), empty(), pair(2, 0), pair(1, 1), rt_bool(false)};
  kt_expect_error("aten::max_pool2d(", a, 6,
                  "pad should be at least 0 and at most half of kernel "
                  "size");
  rt_value_unref(a[3]);
  a[3] = pair(0, 0);
  rt_value_unref(a[1]);
  a[1] = pair(0, 2);
  kt_expect_error("aten::max_pool2d(", a, 6, "should be greater than zero");
  rt_value_unref(a[1]);
  a[1] = pair(4, 4);
  kt_expect_error("aten::max_pool2d(", a, 6, "Output size is too small");
  rt_value_unref(a[1]);
  a[1] = pair(2, 2);
  rt_value_unref(a[0]);
  a[0] = KT_T(kt_tensor(F32, 2, KT_SIZES(1, 1), KT_VALUES(1)));
  kt_expect_error("aten::max_pool2d(", a, 6, "expected a non-empty 3D or 4D (batch mode) tensor");
  kt_unref_args(a, 6);
  /* an output_size the memory cannot hold is an error, not an abort */
  RtValue b[2] = {KT_T(nine()), pair(G_MAXINT32, G_MAXINT32)};
  GError *error = NULL;
  RtValue out;
  g_assert_false(kt_call("aten::adaptive_avg_pool2d(", b, 2, &out, &error));
  g_assert_nonnull(error);
  g_error_free(error);
  kt_unref_args(b, 2);
}

static RtValue floats(double a, double b) {
  RtValue items[2] = {rt_double(a), rt_double(b)};
  return rt_list(items, 2);
}

static RtTensor *two_by_two(void) {
  return kt_tensor(F32, 4, KT_SIZES(1, 1, 2, 2), KT_VALUES(1, 2, 3, 4));
}

/* Values worked by hand from PyTorch 1.13's index rules (tests/corpus-real has its numbers
 * for larger cases), the backward's sums, and every argument error. */
static void test_upsample2d(void) {
  /* nearest by 1.5: source index floor(o * float(1 / 1.5)) = 0, 0, 1 */
  RtValue a[3] = {KT_T(two_by_two()), rt_none(), floats(1.5, 1.5)};
  RtTensor *r = kt_run("aten::upsample_nearest2d.vec(", a, 3);
  kt_assert_tensor(r, F32, 4, KT_SIZES(1, 1, 3, 3), KT_VALUES(1, 1, 2, 1, 1, 2, 3, 3, 4), 0);
  rt_tensor_unref(r);
  /* bilinear with align_corners: the corners stay, the middles average */
  RtValue b[4] = {KT_T(two_by_two()), pair(3, 3), rt_bool(true), rt_none()};
  r = kt_run("aten::upsample_bilinear2d.vec(", b, 4);
  kt_assert_tensor(r, F32, 4, KT_SIZES(1, 1, 3, 3), KT_VALUES(1, 1.5, 2, 2, 2.5, 3, 3, 3.5, 4),
                   0);
  rt_tensor_unref(r);
  kt_unref_args(b, 4);
  /* the gradient of nearest sums the outputs each input fed: 4, 2, 2, 1 */
  RtValue g[5] = {KT_T(kt_tensor(F32, 4, KT_SIZES(1, 1, 3, 3),
                                 KT_VALUES(1, 1, 1, 1, 1, 1, 1, 1, 1))),
                  pair(3, 3), rt_int_list((const gint64[]){1, 1, 2, 2}, 4), rt_none(), rt_none()};
  r = kt_run("aten::upsample_nearest2d_backward(", g, 5);
  kt_assert_tensor(r, F32, 4, KT_SIZES(1, 1, 2, 2), KT_VALUES(4, 2, 2, 1), 0);
  rt_tensor_unref(r);
  /* and of bilinear, PyTorch 1.13's numbers within a float ulp (its sums associate otherwise:
   * 2.25 here where it has 2.2499998) */
  RtValue gb[5] = {rt_value_ref(g[0]), rt_none(), rt_value_ref(g[2]), rt_bool(false),
                   floats(1.5, 1.5)};
  r = kt_run("aten::upsample_bilinear2d_backward.vec(", gb, 5);
  kt_assert_tensor(r, F32, 4, KT_SIZES(1, 1, 2, 2),
                   KT_VALUES(2.25, 2.249999761581421, 2.249999761581421, 2.25), 2.4e-7);
  rt_tensor_unref(r);
  kt_unref_args(gb, 5);

  rt_value_unref(a[1]);
  a[1] = pair(3, 3);
  kt_expect_error("aten::upsample_nearest2d.vec(", a, 3,
                  "Must specify exactly one of output_size and scale_factors");
  rt_value_unref(a[2]);
  a[2] = rt_none();
  rt_value_unref(a[1]);
  a[1] = rt_none();
  kt_expect_error("aten::upsample_nearest2d.vec(", a, 3, "Must specify exactly one");
  a[1] = pair(0, 3);
  kt_expect_error("aten::upsample_nearest2d.vec(", a, 3,
                  "Input and output sizes should be greater than 0, but got input (H: 2, W: 2) "
                  "output (H: 0, W: 3)");
  rt_value_unref(a[1]);
  a[1] = rt_none();
  a[2] = floats(1e300, 2);
  kt_expect_error("aten::upsample_nearest2d.vec(", a, 3, "too large");
  kt_unref_args(a, 3);
  /* the plain overload: a 3-D input, an integral one, one output size */
  RtValue c[4] = {KT_T(kt_tensor(F32, 3, KT_SIZES(1, 2, 2), KT_VALUES(1, 2, 3, 4))), pair(3, 3),
                  rt_none(), rt_none()};
  kt_expect_error("aten::upsample_nearest2d(", c, 4, "expected input_size equals to 4");
  rt_value_unref(c[0]);
  c[0] = KT_T(kt_tensor(IR_DTYPE_INT64, 4, KT_SIZES(1, 1, 2, 2), KT_VALUES(1, 2, 3, 4)));
  kt_expect_error("aten::upsample_nearest2d(", c, 4,
                  "\"compute_indices_weights_nearest\" not implemented for 'Long'");
  rt_value_unref(c[1]);
  c[1] = rt_int_list((const gint64[]){3}, 1);
  kt_expect_error("aten::upsample_nearest2d(", c, 4, "output_size equals to 2");
  kt_unref_args(c, 4);
  /* a gradient of another size than output_size says so */
  rt_value_unref(g[1]);
  g[1] = pair(3, 4);
  kt_expect_error("aten::upsample_nearest2d_backward(", g, 5,
                  "grad_output has size [1, 1, 3, 3], expected [1, 1, 3, 4]");
  kt_unref_args(g, 5);
  /* an empty batch: an empty result whatever the output size */
  RtValue e[3] = {KT_T(kt_tensor(F32, 4, KT_SIZES(0, 1, 2, 2), NULL)),
                  pair(1 << 20, 1 << 20), rt_none()};
  r = kt_run("aten::upsample_nearest2d.vec(", e, 3);
  g_assert_cmpint(r->ndim, ==, 4);
  g_assert_cmpint(r->sizes[0], ==, 0);
  rt_tensor_unref(r);
  kt_unref_args(e, 3);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/kernels/pool/max_pool2d", test_max_pool2d);
  g_test_add_func("/kernels/pool/max_pool2d-backward", test_max_pool2d_backward);
  g_test_add_func("/kernels/pool/avg_pool2d", test_avg_pool2d);
  g_test_add_func("/kernels/pool/adaptive_avg_pool2d", test_adaptive_avg_pool2d);
  g_test_add_func("/kernels/pool/errors", test_pool_errors);
  g_test_add_func("/kernels/pool/upsample2d", test_upsample2d);
  return g_test_run();
}
