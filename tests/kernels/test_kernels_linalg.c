/* mm, addmm and matmul through CBLAS: products computed by hand, transposed and
 * non-BLAS layouts, int64/half paths, batches, shape and dtype errors. */
#include <math.h>

#include "kernels_test_util.h"

#define F32 IR_DTYPE_FLOAT32
#define F64 IR_DTYPE_FLOAT64
#define F16 IR_DTYPE_FLOAT16
#define I64 IR_DTYPE_INT64
#define BOOL IR_DTYPE_BOOL

/* A = [[1, 2, 3], [4, 5, 6]], B = [[7, 8], [9, 10], [11, 12]], A @ B = [[58, 64], [139, 154]] */
#define A_VALUES KT_VALUES(1, 2, 3, 4, 5, 6)
#define B_VALUES KT_VALUES(7, 8, 9, 10, 11, 12)
#define AB_VALUES KT_VALUES(58, 64, 139, 154)

static RtTensor *mat(IrDtype d, int64_t r, int64_t c, const double *v) {
  return kt_tensor(d, 2, KT_SIZES(r, c), v);
}

static void test_mm(void) {
  IrDtype dtypes[] = {F32, F64, I64};
  for (int k = 0; k < 3; k++) {
    RtValue a[2] = {rt_tensor(mat(dtypes[k], 2, 3, A_VALUES)),
                    rt_tensor(mat(dtypes[k], 3, 2, B_VALUES))};
    RtTensor *r = kt_run("aten::mm(", a, 2);
    kt_assert_tensor(r, dtypes[k], 2, KT_SIZES(2, 2), AB_VALUES, 0);
    rt_tensor_unref(r);
    r = kt_run("aten::matmul(", a, 2);
    kt_assert_tensor(r, dtypes[k], 2, KT_SIZES(2, 2), AB_VALUES, 0);
    rt_tensor_unref(r);
    kt_unref_args(a, 2);
  }
  /* half: small integers are exact */
  RtValue h[2] = {rt_tensor(mat(F16, 2, 3, A_VALUES)), rt_tensor(mat(F16, 3, 2, B_VALUES))};
  RtTensor *r = kt_run("aten::mm(", h, 2);
  kt_assert_tensor(r, F16, 2, KT_SIZES(2, 2), AB_VALUES, 0);
  rt_tensor_unref(r);
  kt_unref_args(h, 2);
}

static void test_mm_layouts(void) {
  /* transposed views (what t() gives) go to BLAS without a copy */
  RtTensor *at = mat(F32, 3, 2, KT_VALUES(1, 4, 2, 5, 3, 6));
  RtTensor *bt = mat(F32, 2, 3, KT_VALUES(7, 9, 11, 8, 10, 12));
  RtValue a[2] = {rt_tensor(rt_tensor_view_transpose(at, 0, 1)),
                  rt_tensor(rt_tensor_view_transpose(bt, 0, 1))};
  rt_tensor_unref(at);
  rt_tensor_unref(bt);
  RtTensor *r = kt_run("aten::mm(", a, 2);
  kt_assert_tensor(r, F32, 2, KT_SIZES(2, 2), AB_VALUES, 0);
  rt_tensor_unref(r);
  kt_unref_args(a, 2);

  /* a column slice (row stride 4) and an expanded row (stride 0, packed) */
  RtTensor *wide = mat(F64, 2, 4, KT_VALUES(0, 1, 2, 3, 0, 4, 5, 6));
  RtTensor *row = kt_tensor(F64, 1, KT_SIZES(3), KT_VALUES(1, 2, 3));
  GError *error = NULL;
  RtValue b[2] = {rt_tensor(rt_tensor_view_narrow(wide, 1, 1, 3)),
                  rt_tensor(mat(F64, 3, 2, B_VALUES))};
  r = kt_run("aten::mm(", b, 2);
  kt_assert_tensor(r, F64, 2, KT_SIZES(2, 2), AB_VALUES, 0);
  rt_tensor_unref(r);
  rt_value_unref(b[0]);
  b[0] = rt_tensor(rt_tensor_view_expand(row, 2, KT_SIZES(2, 3), &error));
  g_assert_no_error(error);
  r = kt_run("aten::mm(", b, 2);
  kt_assert_tensor(r, F64, 2, KT_SIZES(2, 2), KT_VALUES(58, 64, 58, 64), 0);
  rt_tensor_unref(r);
  kt_unref_args(b, 2);
  rt_tensor_unref(wide);
  rt_tensor_unref(row);

  /* an empty inner dim gives zeros */
  RtValue e[2] = {rt_tensor(rt_tensor_new(F32, 2, KT_SIZES(2, 0))),
                  rt_tensor(rt_tensor_new(F32, 2, KT_SIZES(0, 3)))};
  r = kt_run("aten::mm(", e, 2);
  kt_assert_tensor(r, F32, 2, KT_SIZES(2, 3), KT_VALUES(0, 0, 0, 0, 0, 0), 0);
  rt_tensor_unref(r);
  kt_unref_args(e, 2);
}

static void test_mm_errors(void) {
  RtValue a[2] = {rt_tensor(mat(F32, 2, 3, A_VALUES)), rt_tensor(mat(F32, 2, 2, AB_VALUES))};
  kt_expect_error("aten::mm(", a, 2, "mat1 and mat2 shapes cannot be multiplied (2x3 and 2x2)");
  kt_expect_error("aten::matmul(", a, 2, "mat1 and mat2 shapes cannot be multiplied (2x3 and 2x2)");
  rt_value_unref(a[1]);
  a[1] = rt_tensor(mat(F64, 3, 2, B_VALUES));
  kt_expect_error("aten::mm(", a, 2,
                  "expected mat1 and mat2 to have the same dtype, but got: float != double");
  rt_value_unref(a[1]);
  a[1] = rt_tensor(kt_tensor(F32, 1, KT_SIZES(3), KT_VALUES(1, 2, 3)));
  kt_expect_error("aten::mm(", a, 2, "mat2 must be a matrix");
  kt_unref_args(a, 2);
  RtValue b[2] = {rt_tensor(mat(BOOL, 1, 1, KT_VALUES(1))),
                  rt_tensor(mat(BOOL, 1, 1, KT_VALUES(1)))};
  kt_expect_error("aten::mm(", b, 2, "not implemented for 'Bool'");
  kt_unref_args(b, 2);
}

static void test_addmm(void) {
  RtValue a[5] = {rt_tensor(kt_tensor(F32, 1, KT_SIZES(2), KT_VALUES(1, -1))),
                  rt_tensor(mat(F32, 2, 3, A_VALUES)), rt_tensor(mat(F32, 3, 2, B_VALUES)),
                  rt_int(2), rt_double(0.5)};
  /* 0.5 * A @ B + 2 * [1, -1] */
  RtTensor *r = kt_run("aten::addmm(", a, 5);
  kt_assert_tensor(r, F32, 2, KT_SIZES(2, 2), KT_VALUES(31, 30, 71.5, 75), 0);
  rt_tensor_unref(r);
  /* defaults beta = alpha = 1 */
  r = kt_run("aten::addmm(", a, 3);
  kt_assert_tensor(r, F32, 2, KT_SIZES(2, 2), KT_VALUES(59, 63, 140, 153), 0);
  rt_tensor_unref(r);
  /* beta = 0 ignores self, NaN included */
  rt_value_unref(a[0]);
  a[0] = rt_tensor(kt_tensor(F32, 1, KT_SIZES(1), KT_VALUES(NAN)));
  rt_value_unref(a[3]);
  a[3] = rt_int(0);
  r = kt_run("aten::addmm(", a, 5);
  kt_assert_tensor(r, F32, 2, KT_SIZES(2, 2), KT_VALUES(29, 32, 69.5, 77), 0);
  rt_tensor_unref(r);
  rt_value_unref(a[0]);
  a[0] = rt_tensor(kt_tensor(F32, 1, KT_SIZES(3), KT_VALUES(1, 2, 3)));
  rt_value_unref(a[3]);
  a[3] = rt_int(1);
  kt_expect_error("aten::addmm(", a, 5, "must match the existing size (3)");
  kt_unref_args(a, 5);
}

static void test_matmul_vectors(void) {
  RtValue a[2] = {rt_tensor(kt_tensor(F64, 1, KT_SIZES(3), KT_VALUES(1, 2, 3))),
                  rt_tensor(kt_tensor(F64, 1, KT_SIZES(3), KT_VALUES(4, 5, 6)))};
  RtTensor *r = kt_run("aten::matmul(", a, 2);
  kt_assert_tensor(r, F64, 0, NULL, KT_VALUES(32), 0);
  rt_tensor_unref(r);
  kt_unref_args(a, 2);

  RtValue b[2] = {rt_tensor(mat(F32, 2, 3, A_VALUES)),
                  rt_tensor(kt_tensor(F32, 1, KT_SIZES(3), KT_VALUES(1, 0, -1)))};
  r = kt_run("aten::matmul(", b, 2);
  kt_assert_tensor(r, F32, 1, KT_SIZES(2), KT_VALUES(-2, -2), 0);
  rt_tensor_unref(r);
  kt_unref_args(b, 2);

  RtValue c[2] = {rt_tensor(kt_tensor(F32, 1, KT_SIZES(2), KT_VALUES(1, 1))),
                  rt_tensor(mat(F32, 2, 3, A_VALUES))};
  r = kt_run("aten::matmul(", c, 2);
  kt_assert_tensor(r, F32, 1, KT_SIZES(3), KT_VALUES(5, 7, 9), 0);
  rt_tensor_unref(r);
  kt_unref_args(c, 2);

  RtValue d[2] = {rt_tensor(kt_tensor(F32, 1, KT_SIZES(3), KT_VALUES(1, 2, 3))),
                  rt_tensor(kt_tensor(F32, 1, KT_SIZES(4), KT_VALUES(1, 2, 3, 4)))};
  kt_expect_error("aten::matmul(", d, 2,
                  "inconsistent tensor size, expected tensor [3] and "
                  "src [4] to have the same number of elements");
  rt_value_unref(d[0]);
  d[0] = rt_tensor(mat(F32, 2, 3, A_VALUES));
  kt_expect_error("aten::matmul(", d, 2, "size mismatch, got input (2), mat (2x3), vec (4)");
  rt_value_unref(d[1]);
  d[1] = rt_tensor(rt_tensor_scalar(F32, 1));
  kt_expect_error("aten::matmul(", d, 2, "need to be at least 1D, but they are 2D and 0D");
  kt_unref_args(d, 2);
}

static void test_matmul_batched(void) {
  /* [I, 2I] @ [[1, 2], [3, 4]] */
  RtValue a[2] = {
      rt_tensor(kt_tensor(F64, 3, KT_SIZES(2, 2, 2), KT_VALUES(1, 0, 0, 1, 2, 0, 0, 2))),
      rt_tensor(mat(F64, 2, 2, KT_VALUES(1, 2, 3, 4)))};
  RtTensor *r = kt_run("aten::matmul(", a, 2);
  kt_assert_tensor(r, F64, 3, KT_SIZES(2, 2, 2), KT_VALUES(1, 2, 3, 4, 2, 4, 6, 8), 0);
  rt_tensor_unref(r);
  rt_value_unref(a[1]);
  a[1] = rt_tensor(kt_tensor(F64, 1, KT_SIZES(2), KT_VALUES(1, 1)));
  r = kt_run("aten::matmul(", a, 2);
  kt_assert_tensor(r, F64, 2, KT_SIZES(2, 2), KT_VALUES(1, 1, 2, 2), 0);
  rt_tensor_unref(r);
  kt_unref_args(a, 2);

  /* batch dims broadcast: [2, 1, 1, 2] @ [3, 2, 1] -> [2, 3, 1, 1];
   * lhs batches [1, 1] and [1, -1], rhs batches [1, 0], [0, 1], [1, 1] */
  RtValue b[2] = {rt_tensor(kt_tensor(F32, 4, KT_SIZES(2, 1, 1, 2), KT_VALUES(1, 1, 1, -1))),
                  rt_tensor(kt_tensor(F32, 3, KT_SIZES(3, 2, 1), KT_VALUES(1, 0, 0, 1, 1, 1)))};
  r = kt_run("aten::matmul(", b, 2);
  kt_assert_tensor(r, F32, 4, KT_SIZES(2, 3, 1, 1), KT_VALUES(1, 1, 2, 1, -1, 0), 0);
  rt_tensor_unref(r);
  kt_unref_args(b, 2);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/kernels/linalg/mm", test_mm);
  g_test_add_func("/kernels/linalg/mm-layouts", test_mm_layouts);
  g_test_add_func("/kernels/linalg/mm-errors", test_mm_errors);
  g_test_add_func("/kernels/linalg/addmm", test_addmm);
  g_test_add_func("/kernels/linalg/matmul-vectors", test_matmul_vectors);
  g_test_add_func("/kernels/linalg/matmul-batched", test_matmul_batched);
  return g_test_run();
}
