/* cosine_similarity and pairwise_distance: dtypes and errors as PyTorch 1.13 gave them
 * (tests/corpus-real distances has its values and gradients). */
#include <math.h>

#include "kernels_test_util.h"

#define F32 IR_DTYPE_FLOAT32
#define F64 IR_DTYPE_FLOAT64
#define I64 IR_DTYPE_INT64

static RtValue row(IrDtype dtype, double a, double b) {
  return rt_tensor(kt_tensor(dtype, 2, KT_SIZES(1, 2), KT_VALUES(a, b)));
}

static void test_cosine_similarity(void) {
  /* integral inputs take the floating common dtype; float32 with float64 is float64 */
  RtValue a[4] = {row(I64, 1, 2), row(F32, 3, 4), rt_int(1), rt_double(1e-8)};
  RtTensor *r = kt_run("aten::cosine_similarity(", a, 4);
  kt_assert_tensor(r, F32, 1, KT_SIZES(1), KT_VALUES(0.98386991024017334), 0);
  rt_tensor_unref(r);
  rt_value_unref(a[0]);
  a[0] = row(F64, 1, 2);
  r = kt_run("aten::cosine_similarity(", a, 4);
  g_assert_cmpint(r->dtype, ==, F64);
  rt_tensor_unref(r);
  rt_value_unref(a[1]);
  a[1] = row(I64, 3, 4);
  rt_value_unref(a[0]);
  a[0] = row(I64, 1, 2);
  kt_expect_error("aten::cosine_similarity(", a, 4,
                  "expected common dtype to be floating point, yet common dtype is Long");
  rt_value_unref(a[0]);
  a[0] = row(IR_DTYPE_BOOL, 1, 0);
  rt_value_unref(a[1]);
  a[1] = row(IR_DTYPE_BOOL, 0, 0);
  kt_expect_error("aten::cosine_similarity(", a, 4,
                  "expected common dtype to be floating point, yet common dtype is Bool");
  /* a zero row with eps 0 is 0 / 0 */
  rt_value_unref(a[0]);
  a[0] = row(F32, 0, 0);
  rt_value_unref(a[1]);
  a[1] = row(F32, 1, 1);
  a[3] = rt_double(0);
  r = kt_run("aten::cosine_similarity(", a, 4);
  kt_assert_tensor(r, F32, 1, KT_SIZES(1), KT_VALUES(NAN), 0);
  rt_tensor_unref(r);
  a[2] = rt_int(2);
  kt_expect_error("aten::cosine_similarity(", a, 4,
                  "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  kt_unref_args(a, 4);
  RtValue b[4] = {rt_tensor(rt_tensor_zeros(F32, 2, KT_SIZES(2, 3))),
                  rt_tensor(rt_tensor_zeros(F32, 2, KT_SIZES(3, 3))), rt_int(1), rt_double(1e-8)};
  kt_expect_error("aten::cosine_similarity(", b, 4,
                  "The size of tensor a (2) must match the size of tensor b (3) at non-singleton "
                  "dimension 0");
  kt_unref_args(b, 4);
}

static void test_pairwise_distance(void) {
  RtValue a[5] = {row(I64, 1, 2), row(I64, 3, 4), rt_double(2), rt_double(1e-6), rt_bool(false)};
  RtTensor *r = kt_run("aten::pairwise_distance(", a, 5);
  kt_assert_tensor(r, F32, 1, KT_SIZES(1), KT_VALUES(2.828425884246826), 0);
  rt_tensor_unref(r);
  rt_value_unref(a[0]);
  a[0] = row(IR_DTYPE_BOOL, 1, 0);
  rt_value_unref(a[1]);
  a[1] = row(IR_DTYPE_BOOL, 0, 0);
  kt_expect_error("aten::pairwise_distance(", a, 5,
                  "Subtraction, the `-` operator, with two bool tensors is not supported.");
  kt_unref_args(a, 5);
  /* 0-dim inputs reduce their innermost (-1) dim too */
  RtValue z[5] = {rt_tensor(rt_tensor_scalar(F32, 1)), rt_tensor(rt_tensor_scalar(F32, 2)),
                  rt_double(2), rt_double(1e-6), rt_bool(false)};
  r = kt_run("aten::pairwise_distance(", z, 5);
  kt_assert_tensor(r, F32, 0, NULL, KT_VALUES(0.9999989867210388), 0);
  rt_tensor_unref(r);
  kt_unref_args(z, 5);
  RtValue b[5] = {rt_tensor(rt_tensor_zeros(F32, 2, KT_SIZES(2, 3))),
                  rt_tensor(rt_tensor_zeros(F32, 2, KT_SIZES(3, 3))), rt_double(2), rt_double(1e-6),
                  rt_bool(false)};
  kt_expect_error("aten::pairwise_distance(", b, 5,
                  "The size of tensor a (2) must match the size of tensor b (3) at non-singleton "
                  "dimension 0");
  kt_unref_args(b, 5);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/kernels/distance/cosine_similarity", test_cosine_similarity);
  g_test_add_func("/kernels/distance/pairwise_distance", test_pairwise_distance);
  return g_test_run();
}
