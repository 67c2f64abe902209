/* roll, repeat, narrow, constant_pad_nd and pad on what the corpus cannot carry: int64 and
 * bool tensors, transposed selves, 0-dim and empty tensors, PyTorch 1.13's errors, sizes
 * that overflow int64 or the memory budget; every expected value and message as PyTorch 1.13
 * gave it. Values and gradients on float programs with NaN and infinities are in
 * tests/corpus-real (roll_repeat, narrow_pad). */
#include <math.h>

#include "kernels_test_util.h"

#define F32 IR_DTYPE_FLOAT32
#define F64 IR_DTYPE_FLOAT64
#define I64 IR_DTYPE_INT64
#define BOOL IR_DTYPE_BOOL

#define ROLL "aten::roll("
#define REPEAT "aten::repeat("
#define NARROW "aten::narrow("
#define PAD_ND "aten::constant_pad_nd("
#define PAD "aten::pad("

static RtValue ints(int n, const gint64 *v) {
  return rt_int_list(v, (guint)n);
}
#define INTS(...) \
  ints(sizeof((const gint64[]){__VA_ARGS__}) / sizeof(gint64), (const gint64[]){__VA_ARGS__})

/* [[0, 1, 2], [3, 4, 5]] in int64 */
static RtTensor *arange_2x3(void) {
  return kt_tensor(I64, 2, KT_SIZES(2, 3), KT_VALUES(0, 1, 2, 3, 4, 5));
}

static void test_roll(void) {
  RtValue a[3] = {rt_tensor(arange_2x3()), INTS(1, -1), INTS(1, 0)};
  RtTensor *r = kt_run(ROLL, a, 3);
  kt_assert_tensor(r, I64, 2, KT_SIZES(2, 3), KT_VALUES(5, 3, 4, 2, 0, 1), 0);
  rt_tensor_unref(r);
  kt_unref_args(a, 3);
  /* the flattened roll of a transposed self follows its logical order */
  RtTensor *base = arange_2x3();
  RtValue t[3] = {rt_tensor(rt_tensor_view_transpose(base, 0, 1)), INTS(1), INTS()};
  rt_tensor_unref(base);
  r = kt_run(ROLL, t, 3);
  kt_assert_tensor(r, I64, 2, KT_SIZES(3, 2), KT_VALUES(5, 0, 3, 1, 4, 2), 0);
  rt_tensor_unref(r);
  kt_unref_args(t, 3);
  /* shifts of any int64 size, and two shifts of one dim adding up */
  RtValue b[3] = {rt_tensor(kt_tensor(F32, 1, KT_SIZES(5), KT_VALUES(0, 1, 2, 3, 4))),
                  INTS(G_MININT64), INTS(0)};
  r = kt_run(ROLL, b, 3);
  kt_assert_tensor(r, F32, 1, KT_SIZES(5), KT_VALUES(2, 3, 4, 0, 1), 0);
  rt_tensor_unref(r);
  rt_value_unref(b[1]);
  rt_value_unref(b[2]);
  b[1] = INTS(1, 2);
  b[2] = INTS(0, 0);
  r = kt_run(ROLL, b, 3);
  kt_assert_tensor(r, F32, 1, KT_SIZES(5), KT_VALUES(2, 3, 4, 0, 1), 0);
  rt_tensor_unref(r);
  kt_unref_args(b, 3);
}

static void test_roll_edges(void) {
  RtValue a[3] = {rt_tensor(arange_2x3()), INTS(1, 2), INTS(0)};
  kt_expect_error(ROLL, a, 3, "shifts and dimensions must align. shifts: 2, dims:1");
  rt_value_unref(a[2]);
  a[2] = INTS();
  kt_expect_error(ROLL, a, 3, "shifts and dimensions must align. shifts: 2, dims:0");
  rt_value_unref(a[1]);
  a[1] = INTS();
  kt_expect_error(ROLL, a, 3, "`shifts` required");
  rt_value_unref(a[1]);
  rt_value_unref(a[2]);
  a[1] = INTS(1);
  a[2] = INTS(2);
  kt_expect_error(ROLL, a, 3,
                  "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  kt_unref_args(a, 3);
  /* an empty self comes back before its dims are looked at; a 0-dim one has no dim 0 */
  RtValue e[3] = {rt_tensor(kt_tensor(F32, 2, KT_SIZES(0, 3), NULL)), INTS(1), INTS(5)};
  RtTensor *r = kt_run(ROLL, e, 3);
  kt_assert_tensor(r, F32, 2, KT_SIZES(0, 3), NULL, 0);
  rt_tensor_unref(r);
  kt_unref_args(e, 3);
  RtValue z[3] = {rt_tensor(kt_tensor(F64, 0, NULL, KT_VALUES(5))), INTS(3), INTS()};
  r = kt_run(ROLL, z, 3);
  kt_assert_tensor(r, F64, 0, NULL, KT_VALUES(5), 0);
  rt_tensor_unref(r);
  rt_value_unref(z[2]);
  z[2] = INTS(0);
  kt_expect_error(ROLL, z, 3, "Dimension specified as 0 but tensor has no dimensions");
  kt_unref_args(z, 3);
}

static void test_repeat(void) {
  RtValue a[2] = {rt_tensor(kt_tensor(BOOL, 1, KT_SIZES(3), KT_VALUES(1, 0, 0))), INTS(2, 2)};
  RtTensor *r = kt_run(REPEAT, a, 2);
  kt_assert_tensor(r, BOOL, 2, KT_SIZES(2, 6), KT_VALUES(1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0), 0);
  rt_tensor_unref(r);
  kt_unref_args(a, 2);
  RtTensor *base = arange_2x3();
  RtValue t[2] = {rt_tensor(rt_tensor_view_transpose(base, 0, 1)), INTS(1, 2)};
  rt_tensor_unref(base);
  r = kt_run(REPEAT, t, 2);
  kt_assert_tensor(r, I64, 2, KT_SIZES(3, 4), KT_VALUES(0, 3, 0, 3, 1, 4, 1, 4, 2, 5, 2, 5), 0);
  rt_tensor_unref(r);
  kt_unref_args(t, 2);
  /* a 0-dim self: no repeats, or new dims */
  RtValue z[2] = {rt_tensor(kt_tensor(F32, 0, NULL, KT_VALUES(3))), INTS()};
  r = kt_run(REPEAT, z, 2);
  kt_assert_tensor(r, F32, 0, NULL, KT_VALUES(3), 0);
  rt_tensor_unref(r);
  rt_value_unref(z[1]);
  z[1] = INTS(2, 2);
  r = kt_run(REPEAT, z, 2);
  kt_assert_tensor(r, F32, 2, KT_SIZES(2, 2), KT_VALUES(3, 3, 3, 3), 0);
  rt_tensor_unref(r);
  kt_unref_args(z, 2);
}

static void test_repeat_errors(void) {
  RtValue a[2] = {rt_tensor(kt_tensor(F32, 2, KT_SIZES(2, 3), KT_VALUES(0, 1, 2, 3, 4, 5))),
                  INTS(2)};
  kt_expect_error(REPEAT, a, 2,
                  "Number of dimensions of repeat dims can not be smaller than number of "
                  "dimensions of tensor");
  rt_value_unref(a[1]);
  a[1] = INTS(-1, 1);
  kt_expect_error(REPEAT, a, 2, "Trying to create tensor with negative dimension -2: [-2, 3]");
  rt_value_unref(a[1]);
  a[1] = INTS(G_MAXINT64, 1);
  kt_expect_error(REPEAT, a, 2,
                  "repeat: 9223372036854775807 repeats of dimension 0 (size 2) "
                  "overflow int64");
  rt_value_unref(a[1]);
  a[1] = INTS(G_MAXINT64 / 2, 1);
  kt_expect_error(REPEAT, a, 2, "its element count overflows int64");
  rt_value_unref(a[1]);
  a[1] = INTS(1000000, 1000000); /* 6 * 10^12 floats */
  kt_expect_error(REPEAT, a, 2, "out of memory budget");
  rt_value_unref(a[1]);
  a[1] = INTS(0, 2);
  RtTensor *r = kt_run(REPEAT, a, 2);
  kt_assert_tensor(r, F32, 2, KT_SIZES(0, 6), NULL, 0);
  rt_tensor_unref(r);
  kt_unref_args(a, 2);
  /* a negative repeat of an empty dim is an empty dim, as in PyTorch */
  RtValue e[2] = {rt_tensor(kt_tensor(F32, 2, KT_SIZES(0, 3), NULL)), INTS(-1, 1)};
  r = kt_run(REPEAT, e, 2);
  kt_assert_tensor(r, F32, 2, KT_SIZES(0, 3), NULL, 0);
  rt_tensor_unref(r);
  kt_unref_args(e, 2);
}

static void test_narrow(void) {
  RtValue a[4] = {rt_tensor(arange_2x3()), rt_int(1), rt_int(-1), rt_int(1)};
  RtTensor *r = kt_run(NARROW, a, 4);
  kt_assert_tensor(r, I64, 2, KT_SIZES(2, 1), KT_VALUES(2, 5), 0);
  rt_tensor_unref(r);
  a[2] = rt_int(3); /* start at the end, length 0 */
  a[3] = rt_int(0);
  r = kt_run(NARROW, a, 4);
  kt_assert_tensor(r, I64, 2, KT_SIZES(2, 0), NULL, 0);
  rt_tensor_unref(r);
  a[2] = rt_int(2);
  a[3] = rt_int(2);
  kt_expect_error(NARROW, a, 4, "start (2) + length (2) exceeds dimension size (3).");
  a[2] = rt_int(0);
  a[3] = rt_int(G_MININT64);
  kt_expect_error(NARROW, a, 4,
                  "start (0) + length (-9223372036854775808) exceeds dimension size (3).");
  a[2] = rt_int(4);
  a[3] = rt_int(0);
  kt_expect_error(NARROW, a, 4,
                  "Dimension out of range (expected to be in range of [-3, 2], but got 4)");
  a[1] = rt_int(2);
  kt_expect_error(NARROW, a, 4,
                  "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  kt_unref_args(a, 4);
  RtValue z[4] = {rt_tensor(kt_tensor(F32, 0, NULL, KT_VALUES(3))), rt_int(0), rt_int(0),
                  rt_int(1)};
  kt_expect_error(NARROW, z, 4, "narrow() cannot be applied to a 0-dim tensor.");
  kt_unref_args(z, 4);
}

static void test_constant_pad(void) {
  RtValue a[3] = {rt_tensor(arange_2x3()), INTS(1, -1), rt_int(7)};
  RtTensor *r = kt_run(PAD_ND, a, 3);
  kt_assert_tensor(r, I64, 2, KT_SIZES(2, 3), KT_VALUES(7, 0, 1, 7, 3, 4), 0);
  rt_tensor_unref(r);
  kt_unref_args(a, 3);
  /* a float value into int64 truncates; a transposed self */
  RtTensor *base = arange_2x3();
  RtValue t[3] = {rt_tensor(rt_tensor_view_transpose(base, 0, 1)), INTS(0, 0, 1, 0),
                  rt_double(-2.9)};
  rt_tensor_unref(base);
  r = kt_run(PAD_ND, t, 3);
  kt_assert_tensor(r, I64, 2, KT_SIZES(4, 2), KT_VALUES(-2, -2, 0, 3, 1, 4, 2, 5), 0);
  rt_tensor_unref(r);
  kt_unref_args(t, 3);
  /* an int value stays exact in int64; NaN is true in bool */
  RtValue i[3] = {rt_tensor(kt_tensor(I64, 1, KT_SIZES(2), KT_VALUES(0, 0))), INTS(1, 0),
                  rt_int(((gint64)1 << 62) + 1)};
  r = kt_run(PAD_ND, i, 3);
  g_assert_cmpint(((const int64_t *)rt_tensor_data(r))[0], ==, ((gint64)1 << 62) + 1);
  rt_tensor_unref(r);
  kt_unref_args(i, 3);
  RtValue b[3] = {rt_tensor(kt_tensor(BOOL, 1, KT_SIZES(1), KT_VALUES(1))), INTS(1, 0),
                  rt_double(NAN)};
  r = kt_run(PAD_ND, b, 3);
  kt_assert_tensor(r, BOOL, 1, KT_SIZES(2), KT_VALUES(1, 1), 0);
  rt_tensor_unref(r);
  kt_unref_args(b, 3);
  /* cropped to nothing, then padded */
  RtValue c[3] = {rt_tensor(kt_tensor(F32, 1, KT_SIZES(4), KT_VALUES(0, 1, 2, 3))), INTS(-4, 1),
                  rt_int(0)};
  r = kt_run(PAD_ND, c, 3);
  kt_assert_tensor(r, F32, 1, KT_SIZES(1), KT_VALUES(0), 0);
  rt_tensor_unref(r);
  kt_unref_args(c, 3);
}

static void test_constant_pad_errors(void) {
  RtValue a[3] = {rt_tensor(kt_tensor(F32, 1, KT_SIZES(4), KT_VALUES(0, 1, 2, 3))), INTS(1, 2, 3),
                  rt_int(0)};
  kt_expect_error(PAD_ND, a, 3, "Length of pad must be even but instead it equals 3");
  rt_value_unref(a[1]);
  a[1] = INTS(1, 1, 1, 1);
  kt_expect_error(PAD_ND, a, 3,
                  "Length of pad should be no more than twice the number of dimensions of the "
                  "input. Pad length is 4while the input has 1dimensions.");
  rt_value_unref(a[1]);
  a[1] = INTS(0, -5);
  kt_expect_error(PAD_ND, a, 3, "start (0) + length (-1) exceeds dimension size (4).");
  rt_value_unref(a[1]);
  a[1] = INTS(G_MININT64, 0);
  kt_expect_error(PAD_ND, a, 3,
                  "Dimension out of range (expected to be in range of [-4, 3], but got "
                  "-9223372036854775808)");
  rt_value_unref(a[1]);
  a[1] = INTS(G_MAXINT64 / 2 + 1, G_MAXINT64 / 2 + 1);
  kt_expect_error(PAD_ND, a, 3, "overflows int64");
  rt_value_unref(a[1]);
  a[1] = INTS(1, 1);
  a[2] = rt_double(1e300);
  kt_expect_error(PAD_ND, a, 3, "value cannot be converted to type float without overflow");
  kt_unref_args(a, 3);
  RtValue i[3] = {rt_tensor(kt_tensor(I64, 1, KT_SIZES(1), KT_VALUES(0))), INTS(1, 1),
                  rt_double(INFINITY)};
  kt_expect_error(PAD_ND, i, 3, "value cannot be converted to type int64_t without overflow");
  kt_unref_args(i, 3);
  /* a padded dim may not come out empty; nor may a budget be exceeded */
  RtValue e[3] = {rt_tensor(kt_tensor(F32, 2, KT_SIZES(0, 3), NULL)), INTS(1, 1, 0, 0), rt_int(0)};
  kt_expect_error(PAD_ND, e, 3,
                  "The input size 0, plus negative padding 0 and 0 resulted in a negative "
                  "output size, which is invalid. Check dimension 0 of your input.");
  rt_value_unref(e[1]);
  e[1] = INTS(0, 0, 3, 3);
  RtTensor *r = kt_run(PAD_ND, e, 3);
  kt_assert_tensor(r, F32, 2, KT_SIZES(6, 3),
                   KT_VALUES(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), 0);
  rt_tensor_unref(r);
  rt_value_unref(e[1]);
  e[1] = INTS(1000000, 1000000, 1000000, 1000000);
  kt_expect_error(PAD_ND, e, 3, "out of memory budget");
  kt_unref_args(e, 3);
}

static void test_pad_modes(void) {
  RtValue a[4] = {rt_tensor(kt_tensor(F64, 2, KT_SIZES(2, 3), KT_VALUES(0, 1, 2, 3, 4, 5))),
                  INTS(1, 1), rt_str("constant"), rt_none()};
  RtTensor *r = kt_run(PAD, a, 4);
  kt_assert_tensor(r, F64, 2, KT_SIZES(2, 5), KT_VALUES(0, 0, 1, 2, 0, 0, 3, 4, 5, 0), 0);
  rt_tensor_unref(r);
  rt_value_unref(a[2]);
  a[2] = rt_str("foo");
  kt_expect_error(PAD, a, 4, "Unrecognised padding mode foo");
  rt_value_unref(a[2]);
  a[2] = rt_str("reflect");
  a[3] = rt_double(1.0);
  kt_expect_error(PAD, a, 4, "Padding mode \"reflect\" doesn't take in value argument");
  a[3] = rt_none();
  rt_value_unref(a[1]);
  a[1] = INTS(1, 1, 1);
  kt_expect_error(PAD, a, 4, "Padding length must be divisible by 2");
  rt_value_unref(a[1]);
  a[1] = INTS(1, 1, 1, 1, 1, 1);
  kt_expect_error(PAD, a, 4, "Padding length too large");
  kt_unref_args(a, 4);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/kernels/roll_pad/roll", test_roll);
  g_test_add_func("/kernels/roll_pad/roll_edges", test_roll_edges);
  g_test_add_func("/kernels/roll_pad/repeat", test_repeat);
  g_test_add_func("/kernels/roll_pad/repeat_errors", test_repeat_errors);
  g_test_add_func("/kernels/roll_pad/narrow", test_narrow);
  g_test_add_func("/kernels/roll_pad/constant_pad", test_constant_pad);
  g_test_add_func("/kernels/roll_pad/constant_pad_errors", test_constant_pad_errors);
  g_test_add_func("/kernels/roll_pad/pad_modes", test_pad_modes);
  return g_test_run();
}
