/* sum (all, dim lists, keepdim, negative dims, dtype), prod, cumprod, linalg_vector_norm,
 * norm, frobenius_norm and _grad_sum_to_size, by hand (prod's, cumprod's and the norms'
 * numbers and messages as PyTorch 1.13 printed them). */
#include <math.h>

#include "kernels_test_util.h"

#define F32 IR_DTYPE_FLOAT32
#define F64 IR_DTYPE_FLOAT64
#define F16 IR_DTYPE_FLOAT16
#define I64 IR_DTYPE_INT64
#define BOOL IR_DTYPE_BOOL

/* [[1, 2], [3, 4]] */
static RtValue M(IrDtype d) {
  return rt_tensor(kt_tensor(d, 2, KT_SIZES(2, 2), KT_VALUES(1, 2, 3, 4)));
}

static void test_sum_all(void) {
  RtValue a[2] = {M(F32), rt_none()};
  RtTensor *r = kt_run("aten::sum(", a, 1);
  kt_assert_tensor(r, F32, 0, NULL, KT_VALUES(10), 0);
  rt_tensor_unref(r);
  a[1] = rt_int(7); /* dtype=Double */
  r = kt_run("aten::sum(", a, 2);
  kt_assert_tensor(r, F64, 0, NULL, KT_VALUES(10), 0);
  rt_tensor_unref(r);
  kt_unref_args(a, 2);
  /* int64 and bool sums are int64 */
  RtValue b[1] = {M(I64)};
  r = kt_run("aten::sum(", b, 1);
  kt_assert_tensor(r, I64, 0, NULL, KT_VALUES(10), 0);
  rt_tensor_unref(r);
  kt_unref_args(b, 1);
  RtValue c[1] = {rt_tensor(kt_tensor(BOOL, 1, KT_SIZES(4), KT_VALUES(1, 0, 1, 1)))};
  r = kt_run("aten::sum(", c, 1);
  kt_assert_tensor(r, I64, 0, NULL, KT_VALUES(3), 0);
  rt_tensor_unref(r);
  kt_unref_args(c, 1);
  RtValue h[1] = {M(F16)};
  r = kt_run("aten::sum(", h, 1);
  kt_assert_tensor(r, F16, 0, NULL, KT_VALUES(10), 0);
  rt_tensor_unref(r);
  kt_unref_args(h, 1);
  /* float32 accumulates without losing the small terms: 2^24 + 1 + 1 = 2^24 + 2 */
  RtValue big[1] = {rt_tensor(kt_tensor(F32, 1, KT_SIZES(3), KT_VALUES(16777216, 1, 1)))};
  r = kt_run("aten::sum(", big, 1);
  kt_assert_tensor(r, F32, 0, NULL, KT_VALUES(16777218), 0);
  rt_tensor_unref(r);
  kt_unref_args(big, 1);
  /* an empty tensor sums to 0 */
  RtValue e[1] = {rt_tensor(rt_tensor_zeros(F64, 2, KT_SIZES(0, 3)))};
  r = kt_run("aten::sum(", e, 1);
  kt_assert_tensor(r, F64, 0, NULL, KT_VALUES(0), 0);
  rt_tensor_unref(r);
  kt_unref_args(e, 1);
}

/* max() / min() and max.dim / min.dim: PyTorch 1.13's answers (t13.py in the issue 12 notes
 * of 2026-11-29): NaN wins, ties give the first index, bool allowed, empty inputs refused. */
static void test_max_min(void) {
  const double nan = NAN;
  RtValue t[1] = {rt_tensor(kt_tensor(F32, 1, KT_SIZES(4), KT_VALUES(1, 3, 3, 2)))};
  RtTensor *r = kt_run("aten::max(", t, 1);
  kt_assert_tensor(r, F32, 0, NULL, KT_VALUES(3), 0);
  rt_tensor_unref(r);
  r = kt_run("aten::min(", t, 1);
  kt_assert_tensor(r, F32, 0, NULL, KT_VALUES(1), 0);
  rt_tensor_unref(r);
  kt_unref_args(t, 1);
  RtValue n[1] = {rt_tensor(kt_tensor(F64, 1, KT_SIZES(4), KT_VALUES(1, nan, 3, nan)))};
  r = kt_run("aten::min(", n, 1);
  kt_assert_tensor(r, F64, 0, NULL, KT_VALUES(nan), 0);
  rt_tensor_unref(r);
  kt_unref_args(n, 1);
  RtValue b[1] = {rt_tensor(kt_tensor(BOOL, 1, KT_SIZES(2), KT_VALUES(1, 0)))};
  r = kt_run("aten::max(", b, 1);
  kt_assert_tensor(r, BOOL, 0, NULL, KT_VALUES(1), 0);
  rt_tensor_unref(r);
  kt_unref_args(b, 1);
  RtValue e[1] = {rt_tensor(rt_tensor_zeros(F32, 1, KT_SIZES(0)))};
  kt_expect_error("aten::max(", e, 1, "Expected reduction dim to be specified");
  kt_unref_args(e, 1);
  /* [[1, 3, 3], [nan, 2, nan], [5, 5, 1]] along dim 1: values [3, nan, 5], indices [1, 0, 0];
   * min along dim 0 kept: [[nan, 2, nan]], [[1, 1, 1]] */
  RtValue m[3] = {
      rt_tensor(kt_tensor(F32, 2, KT_SIZES(3, 3), KT_VALUES(1, 3, 3, nan, 2, nan, 5, 5, 1))),
      rt_int(1), rt_bool(false)};
  RtValue outs[2];
  GError *error = NULL;
  g_assert_true(kt_call_outputs("aten::max.dim(", m, 3, outs, 2, &error));
  kt_assert_tensor(outs[0].u.tensor, F32, 1, KT_SIZES(3), KT_VALUES(3, nan, 5), 0);
  kt_assert_tensor(outs[1].u.tensor, I64, 1, KT_SIZES(3), KT_VALUES(1, 0, 0), 0);
  kt_unref_args(outs, 2);
  m[1] = rt_int(0);
  m[2] = rt_bool(true);
  g_assert_true(kt_call_outputs("aten::min.dim(", m, 3, outs, 2, &error));
  kt_assert_tensor(outs[0].u.tensor, F32, 2, KT_SIZES(1, 3), KT_VALUES(nan, 2, nan), 0);
  kt_assert_tensor(outs[1].u.tensor, I64, 2, KT_SIZES(1, 3), KT_VALUES(1, 1, 1), 0);
  kt_unref_args(outs, 2);
  kt_unref_args(m, 3);
  /* argmin: the first minimum, NaN counting as one; flattened without dim (PyTorch 1.13:
   * [[3, 1, 1], [2, nan, 0]] -> 4, along dim 1 [1, 1]; [[3, 1, 1], [2, 5, 0]] -> 5, [1, 2],
   * along dim 0 kept [[1, 0, 1]]) */
  RtValue a[3] = {rt_tensor(kt_tensor(F32, 2, KT_SIZES(2, 3), KT_VALUES(3, 1, 1, 2, nan, 0))),
                  rt_none(), rt_bool(false)};
  r = kt_run("aten::argmin(", a, 3);
  kt_assert_tensor(r, I64, 0, NULL, KT_VALUES(4), 0);
  rt_tensor_unref(r);
  a[1] = rt_int(1);
  r = kt_run("aten::argmin(", a, 3);
  kt_assert_tensor(r, I64, 1, KT_SIZES(2), KT_VALUES(1, 1), 0);
  rt_tensor_unref(r);
  kt_unref_args(a, 3);
  RtValue c[3] = {rt_tensor(kt_tensor(F32, 2, KT_SIZES(2, 3), KT_VALUES(3, 1, 1, 2, 5, 0))),
                  rt_none(), rt_bool(false)};
  r = kt_run("aten::argmin(", c, 3);
  kt_assert_tensor(r, I64, 0, NULL, KT_VALUES(5), 0);
  rt_tensor_unref(r);
  c[1] = rt_int(0);
  c[2] = rt_bool(true);
  r = kt_run("aten::argmin(", c, 3);
  kt_assert_tensor(r, I64, 2, KT_SIZES(1, 3), KT_VALUES(1, 0, 1), 0);
  rt_tensor_unref(r);
  kt_unref_args(c, 3);
  /* a reduced dim of size 0 is refused; other empty dims give empty results */
  RtValue z[3] = {rt_tensor(rt_tensor_zeros(F32, 2, KT_SIZES(2, 0))), rt_int(1), rt_bool(false)};
  kt_expect_error("aten::max.dim(", z, 3, "non-zero size");
  kt_unref_args(z, 3);
  RtValue w[3] = {rt_tensor(rt_tensor_zeros(F32, 2, KT_SIZES(0, 2))), rt_int(1), rt_bool(false)};
  g_assert_true(kt_call_outputs("aten::max.dim(", w, 3, outs, 2, &error));
  kt_assert_tensor(outs[0].u.tensor, F32, 1, KT_SIZES(0), NULL, 0);
  kt_assert_tensor(outs[1].u.tensor, I64, 1, KT_SIZES(0), NULL, 0);
  kt_unref_args(outs, 2);
  kt_unref_args(w, 3);
}

static void check_dims(RtValue self, RtValue dims, bool keepdim, IrDtype dtype, int ndim,
                       const int64_t *sizes, const double *want) {
  RtValue a[3] = {self, dims, rt_bool(keepdim)};
  RtTensor *r = kt_run("aten::sum.dim_IntList(", a, 3);
  kt_assert_tensor(r, dtype, ndim, sizes, want, 0);
  rt_tensor_unref(r);
  rt_value_unref(dims);
}

static void test_sum_dims(void) {
  RtValue m = M(F64);
  check_dims(m, rt_int_list(KT_SIZES(0), 1), false, F64, 1, KT_SIZES(2), KT_VALUES(4, 6));
  check_dims(m, rt_int_list(KT_SIZES(1), 1), true, F64, 2, KT_SIZES(2, 1), KT_VALUES(3, 7));
  check_dims(m, rt_int_list(KT_SIZES(-1), 1), false, F64, 1, KT_SIZES(2), KT_VALUES(3, 7));
  check_dims(m, rt_int_list(KT_SIZES(0, -1), 2), false, F64, 0, NULL, KT_VALUES(10));
  check_dims(m, rt_int_list(KT_SIZES(1, 0), 2), true, F64, 2, KT_SIZES(1, 1), KT_VALUES(10));
  check_dims(m, rt_none(), false, F64, 0, NULL, KT_VALUES(10));
  check_dims(m, rt_int_list(NULL, 0), false, F64, 0, NULL, KT_VALUES(10));
  RtValue bad[3] = {m, rt_int_list(KT_SIZES(0, -2), 2), rt_bool(false)};
  kt_expect_error("aten::sum.dim_IntList(", bad, 3,
                  "dim 0 appears multiple times in the list "
                  "of dims");
  rt_value_unref(bad[1]);
  bad[1] = rt_int_list(KT_SIZES(2), 1);
  kt_expect_error("aten::sum.dim_IntList(", bad, 3, "Dimension out of range");
  rt_value_unref(bad[1]);
  /* with a dtype, the input is cast first */
  RtValue d[4] = {m, rt_int_list(KT_SIZES(1), 1), rt_bool(false), rt_int(6)};
  RtTensor *r = kt_run("aten::sum.dim_IntList(", d, 4);
  kt_assert_tensor(r, F32, 1, KT_SIZES(2), KT_VALUES(3, 7), 0);
  rt_tensor_unref(r);
  rt_value_unref(d[1]);
  rt_value_unref(m);

  /* a transposed view and a 3-D middle dim */
  RtTensor *base = kt_tensor(I64, 2, KT_SIZES(2, 3), KT_VALUES(1, 2, 3, 4, 5, 6));
  RtValue t = rt_tensor(rt_tensor_view_transpose(base, 0, 1));
  rt_tensor_unref(base);
  check_dims(t, rt_int_list(KT_SIZES(0), 1), false, I64, 1, KT_SIZES(2), KT_VALUES(6, 15));
  check_dims(t, rt_int_list(KT_SIZES(1), 1), false, I64, 1, KT_SIZES(3), KT_VALUES(5, 7, 9));
  rt_value_unref(t);
  RtValue c = rt_tensor(kt_tensor(F32, 3, KT_SIZES(2, 2, 2), KT_VALUES(1, 2, 3, 4, 5, 6, 7, 8)));
  check_dims(c, rt_int_list(KT_SIZES(1), 1), false, F32, 2, KT_SIZES(2, 2),
             KT_VALUES(4, 6, 12, 14));
  check_dims(c, rt_int_list(KT_SIZES(0, 2), 2), true, F32, 3, KT_SIZES(1, 2, 1), KT_VALUES(14, 22));
  rt_value_unref(c);
  /* summing an empty dim gives zeros */
  RtValue e = rt_tensor(rt_tensor_zeros(F32, 2, KT_SIZES(3, 0)));
  check_dims(e, rt_int_list(KT_SIZES(1), 1), false, F32, 1, KT_SIZES(3), KT_VALUES(0, 0, 0));
  rt_value_unref(e);
}

static void check_prod(const char *prefix, RtValue *args, guint n, IrDtype dtype, int ndim,
                       const int64_t *sizes, const double *want, double tol) {
  RtTensor *r = kt_run(prefix, args, n);
  kt_assert_tensor(r, dtype, ndim, sizes, want, tol);
  rt_tensor_unref(r);
}

static void test_prod(void) {
  RtValue m[4] = {M(F32), rt_none()};
  check_prod("aten::prod(", m, 1, F32, 0, NULL, KT_VALUES(24), 0);
  m[1] = rt_int(7); /* dtype=torch.float64 */
  check_prod("aten::prod(", m, 2, F64, 0, NULL, KT_VALUES(24), 0);
  m[1] = rt_int(1);
  m[2] = rt_bool(false);
  m[3] = rt_none();
  check_prod("aten::prod.dim_int(", m, 4, F32, 1, KT_SIZES(2), KT_VALUES(2, 12), 0);
  m[1] = rt_int(-1);
  m[2] = rt_bool(true);
  check_prod("aten::prod.dim_int(", m, 4, F32, 2, KT_SIZES(2, 1), KT_VALUES(2, 12), 0);
  m[1] = rt_int(2);
  kt_expect_error("aten::prod.dim_int(", m, 4,
                  "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  rt_value_unref(m[0]);
  /* bool and int64 multiply in int64, wrapping: 3 * 2^62 * 3 is 2^62 */
  RtValue b[1] = {rt_tensor(kt_tensor(BOOL, 1, KT_SIZES(4), KT_VALUES(1, 0, 1, 1)))};
  check_prod("aten::prod(", b, 1, I64, 0, NULL, KT_VALUES(0), 0);
  kt_unref_args(b, 1);
  RtValue w[1] = {rt_tensor(kt_tensor(I64, 1, KT_SIZES(3), KT_VALUES(3, 0x1p62, 3)))};
  check_prod("aten::prod(", w, 1, I64, 0, NULL, KT_VALUES(0x1p62), 0);
  kt_unref_args(w, 1);
  /* float32 multiplies in float32: 1e30 * 1e30 is already inf */
  RtValue f[1] = {rt_tensor(kt_tensor(F32, 1, KT_SIZES(3), KT_VALUES(1e30, 1e30, 1e-30)))};
  check_prod("aten::prod(", f, 1, F32, 0, NULL, KT_VALUES(INFINITY), 0);
  kt_unref_args(f, 1);
  /* empty products are 1; a 0-dim self takes dim 0 and -1 only */
  RtValue e[4] = {rt_tensor(rt_tensor_zeros(F64, 2, KT_SIZES(0, 3))), rt_none()};
  check_prod("aten::prod(", e, 1, F64, 0, NULL, KT_VALUES(1), 0);
  e[1] = rt_int(0);
  e[2] = rt_bool(false);
  e[3] = rt_none();
  check_prod("aten::prod.dim_int(", e, 4, F64, 1, KT_SIZES(3), KT_VALUES(1, 1, 1), 0);
  rt_value_unref(e[0]);
  e[0] = rt_tensor(kt_tensor(F64, 0, NULL, KT_VALUES(2.5)));
  e[2] = rt_bool(true);
  check_prod("aten::prod.dim_int(", e, 4, F64, 0, NULL, KT_VALUES(2.5), 0);
  e[1] = rt_int(1);
  kt_expect_error("aten::prod.dim_int(", e, 4,
                  "Dimension out of range (expected to be in range of [-1, 0], but got 1)");
  rt_value_unref(e[0]);
}

static void test_cumprod(void) {
  RtValue m[3] = {M(F64), rt_int(1), rt_none()};
  check_prod("aten::cumprod(", m, 3, F64, 2, KT_SIZES(2, 2), KT_VALUES(1, 2, 3, 12), 0);
  m[1] = rt_int(-2);
  check_prod("aten::cumprod(", m, 3, F64, 2, KT_SIZES(2, 2), KT_VALUES(1, 2, 3, 8), 0);
  m[1] = rt_int(2);
  kt_expect_error("aten::cumprod(", m, 3,
                  "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  rt_value_unref(m[0]);
  RtValue w[3] = {rt_tensor(kt_tensor(I64, 1, KT_SIZES(3), KT_VALUES(3, 0x1p62, 3))), rt_int(0),
                  rt_none()};
  check_prod("aten::cumprod(", w, 3, I64, 1, KT_SIZES(3), KT_VALUES(3, -0x1p62, 0x1p62), 0);
  rt_value_unref(w[0]);
  w[0] = rt_tensor(kt_tensor(BOOL, 1, KT_SIZES(2), KT_VALUES(1, 0)));
  check_prod("aten::cumprod(", w, 3, I64, 1, KT_SIZES(2), KT_VALUES(1, 0), 0);
  rt_value_unref(w[0]);
  /* float32 runs in double, as PyTorch's CPU accumulation: 1e30 * 1e30 * 1e-30 is 1e30 again */
  w[0] = rt_tensor(kt_tensor(F32, 1, KT_SIZES(3), KT_VALUES(1e30, 1e30, 1e-30)));
  check_prod("aten::cumprod(", w, 3, F32, 1, KT_SIZES(3), KT_VALUES(1e30, INFINITY, 1e30), 1e23);
  rt_value_unref(w[0]);
  /* a dtype casts first: 1.5 becomes 1 */
  w[0] = rt_tensor(kt_tensor(F64, 1, KT_SIZES(3), KT_VALUES(1.5, 2, 4)));
  w[2] = rt_int(4); /* torch.int64 */
  check_prod("aten::cumprod(", w, 3, I64, 1, KT_SIZES(3), KT_VALUES(1, 2, 8), 0);
  rt_value_unref(w[0]);
  w[0] = rt_tensor(rt_tensor_zeros(F32, 2, KT_SIZES(2, 0)));
  w[1] = rt_int(1);
  w[2] = rt_none();
  check_prod("aten::cumprod(", w, 3, F32, 2, KT_SIZES(2, 0), NULL, 0);
  w[1] = rt_int(-1);
  check_prod("aten::cumprod(", w, 3, F32, 2, KT_SIZES(2, 0), NULL, 0);
  rt_value_unref(w[0]);
}

/* [[3, -4, NaN], [0, 0, -inf]] along dim 1, each ord once */
static void test_vector_norm(void) {
  const struct {
    double ord, want[2];
  } rows[] = {
      {2, {NAN, INFINITY}},        {1, {NAN, INFINITY}},  {0, {3, 1}},
      {INFINITY, {NAN, INFINITY}}, {-INFINITY, {NAN, 0}}, {-1, {NAN, 0}},
  };
  RtValue a[5] = {
      rt_tensor(kt_tensor(F32, 2, KT_SIZES(2, 3), KT_VALUES(3, -4, NAN, 0, 0, -INFINITY))),
      rt_none(), rt_int_list(KT_SIZES(1), 1), rt_bool(false), rt_none()};
  for (guint i = 0; i < G_N_ELEMENTS(rows); i++) {
    a[1] = rt_double(rows[i].ord);
    check_prod("aten::linalg_vector_norm(", a, 5, F32, 1, KT_SIZES(2), rows[i].want, 0);
  }
  /* every element, in a dtype that widens */
  rt_value_unref(a[0]);
  a[0] = rt_tensor(kt_tensor(F32, 1, KT_SIZES(2), KT_VALUES(3, -4)));
  a[1] = rt_int(2);
  a[4] = rt_int(7);
  rt_value_unref(a[2]);
  a[2] = rt_none();
  check_prod("aten::linalg_vector_norm(", a, 5, F64, 0, NULL, KT_VALUES(5), 0);
  a[4] = rt_int(5);
  kt_expect_error("aten::linalg_vector_norm(", a, 5,
                  "linalg.vector_norm: the dtype of the input (Float) should be convertible "
                  "without narrowing to the specified dtype (Half)");
  a[4] = rt_none();
  a[2] = rt_int_list(KT_SIZES(0, -1), 2);
  kt_expect_error("aten::linalg_vector_norm(", a, 5,
                  "dim 0 appears multiple times in the list of dims");
  rt_value_unref(a[2]);
  a[2] = rt_int_list(KT_SIZES(1), 1);
  kt_expect_error("aten::linalg_vector_norm(", a, 5,
                  "Dimension out of range (expected to be in range of [-1, 0], but got 1)");
  rt_value_unref(a[2]);
  rt_value_unref(a[0]);
  a[0] = rt_tensor(kt_tensor(I64, 1, KT_SIZES(2), KT_VALUES(3, 4)));
  a[2] = rt_none();
  kt_expect_error("aten::linalg_vector_norm(", a, 5,
                  "linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                  "Long");
  rt_value_unref(a[0]);
  /* empty: 0 for ord >= 0, no identity for the others */
  a[0] = rt_tensor(rt_tensor_zeros(F32, 3, KT_SIZES(2, 0, 3)));
  check_prod("aten::linalg_vector_norm(", a, 5, F32, 0, NULL, KT_VALUES(0), 0);
  a[1] = rt_double(INFINITY);
  kt_expect_error("aten::linalg_vector_norm(", a, 5,
                  "linalg.vector_norm cannot compute the inf norm on an empty tensor because the "
                  "operation does not have an identity");
  a[1] = rt_double(-1.5);
  a[2] = rt_int_list(KT_SIZES(-2), 1);
  kt_expect_error("aten::linalg_vector_norm(", a, 5,
                  "linalg.vector_norm cannot compute the -1.5 norm on the dimension -2because this "
                  "dimension is empty and the operation does not have an identity");
  rt_value_unref(a[2]);
  a[2] = rt_int_list(KT_SIZES(2), 1); /* a dim that is not empty: an empty result */
  check_prod("aten::linalg_vector_norm(", a, 5, F32, 2, KT_SIZES(2, 0), NULL, 0);
  kt_unref_args(a, 3);
}

/* norm.Scalar and norm.ScalarOpt_dim: linalg_vector_norm's norms (p None is 2), an empty
 * reduction 0 for every p, their own message for integral inputs */
static void test_tensor_norm(void) {
  RtValue a[4] = {rt_tensor(kt_tensor(F64, 2, KT_SIZES(2, 2), KT_VALUES(3, -4, 0, NAN))), rt_none(),
                  rt_int_list(KT_SIZES(-1), 1), rt_bool(true)};
  check_prod("aten::norm.ScalarOpt_dim(", a, 4, F64, 2, KT_SIZES(2, 1), KT_VALUES(5, NAN), 0);
  a[1] = rt_double(-INFINITY);
  check_prod("aten::norm.ScalarOpt_dim(", a, 4, F64, 2, KT_SIZES(2, 1), KT_VALUES(3, NAN), 0);
  a[1] = rt_int(1);
  check_prod("aten::norm.Scalar(", a, 2, F64, 0, NULL, KT_VALUES(NAN), 0);
  rt_value_unref(a[0]);
  a[0] = rt_tensor(rt_tensor_zeros(F32, 3, KT_SIZES(2, 0, 3)));
  const double ps[] = {-1.5, INFINITY, -INFINITY, 0, 2};
  for (guint i = 0; i < G_N_ELEMENTS(ps); i++) {
    a[1] = rt_double(ps[i]);
    check_prod("aten::norm.Scalar(", a, 2, F32, 0, NULL, KT_VALUES(0), 0);
    rt_value_unref(a[2]);
    a[2] = rt_int_list(KT_SIZES(1), 1);
    a[3] = rt_bool(false);
    check_prod("aten::norm.ScalarOpt_dim(", a, 4, F32, 2, KT_SIZES(2, 3),
               KT_VALUES(0, 0, 0, 0, 0, 0), 0);
  }
  rt_value_unref(a[0]);
  a[0] = rt_tensor(kt_tensor(I64, 1, KT_SIZES(2), KT_VALUES(3, 4)));
  kt_expect_error("aten::norm.Scalar(", a, 2,
                  "norm(): input dtype should be either floating point or complex. Got Long "
                  "instead.");
  kt_unref_args(a, 3);
}

/* norm.ScalarOpt_dim_dtype (torch.norm with a dtype): computed in the dtype whatever self's,
 * which must be floating */
static void test_tensor_norm_dtype(void) {
  RtValue a[5] = {M(F32), rt_int(2), rt_int_list(KT_SIZES(1), 1), rt_bool(false), rt_int(7)};
  check_prod("aten::norm.ScalarOpt_dim_dtype(", a, 5, F64, 1, KT_SIZES(2),
             KT_VALUES(2.23606797749979, 5), 1e-15);
  rt_value_unref(a[0]);
  a[0] = M(I64);
  a[4] = rt_int(6);
  check_prod("aten::norm.ScalarOpt_dim_dtype(", a, 5, F32, 1, KT_SIZES(2),
             KT_VALUES(2.2360680103302, 5), 1e-7);
  a[4] = rt_int(4);
  kt_expect_error("aten::norm.ScalarOpt_dim_dtype(", a, 5,
                  "norm(): the desired output dtype should be either floating point or complex. "
                  "Got Long instead.");
  kt_unref_args(a, 5);
}

/* frobenius_norm: norm() over every element, the 2-norm over 0 or 1 dims, sqrt(sum(x * x))
 * over 2 (PyTorch 1.13's numbers and messages, its internal assertion's for integral selves) */
static void test_frobenius_norm(void) {
  RtValue a[3] = {M(F32), rt_int_list(KT_SIZES(0, 1), 2), rt_bool(false)};
  check_prod("aten::frobenius_norm(", a, 1, F32, 0, NULL, KT_VALUES(5.4772257804870605), 0);
  check_prod("aten::frobenius_norm.dim(", a, 3, F32, 0, NULL, KT_VALUES(5.4772257804870605), 0);
  rt_value_unref(a[1]);
  a[1] = rt_int_list(KT_SIZES(-1), 1);
  a[2] = rt_bool(true);
  check_prod("aten::frobenius_norm.dim(", a, 3, F32, 2, KT_SIZES(2, 1),
             KT_VALUES(2.2360680103302, 5), 1e-7);
  rt_value_unref(a[1]);
  a[1] = rt_int_list(KT_SIZES(0, 1, 1), 3);
  kt_expect_error("aten::frobenius_norm.dim(", a, 3,
                  "Expected at most 2 dimensions, but got 3 dimensions instead.");
  rt_value_unref(a[1]);
  a[1] = rt_int_list(KT_SIZES(1, -1), 2);
  kt_expect_error("aten::frobenius_norm.dim(", a, 3,
                  "Expected dims to be different, got [1, -1] instead");
  rt_value_unref(a[1]);
  a[1] = rt_int_list(KT_SIZES(0, 2), 2);
  kt_expect_error("aten::frobenius_norm.dim(", a, 3,
                  "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  rt_value_unref(a[0]);
  rt_value_unref(a[1]);
  a[0] = M(I64);
  a[1] = rt_int_list(KT_SIZES(0, 1), 2);
  kt_expect_error("aten::frobenius_norm.dim(", a, 3,
                  "result.scalar_type() == toRealValueType(self.scalar_type()) INTERNAL ASSERT "
                  "FAILED at \"./aten/src/ATen/native/LinearAlgebra.cpp\":2694, please report a "
                  "bug to PyTorch. ");
  rt_value_unref(a[1]);
  a[1] = rt_int_list(KT_SIZES(0), 1);
  kt_expect_error("aten::frobenius_norm.dim(", a, 3,
                  "norm(): input dtype should be either floating point or complex. Got Long "
                  "instead.");
  /* squares overflow float32 before the sum; empty and 0-dim selves */
  rt_value_unref(a[0]);
  rt_value_unref(a[1]);
  a[0] = rt_tensor(kt_tensor(F32, 2, KT_SIZES(1, 2), KT_VALUES(1e30, 1e30)));
  a[1] = rt_int_list(KT_SIZES(0, 1), 2);
  a[2] = rt_bool(false);
  check_prod("aten::frobenius_norm.dim(", a, 3, F32, 0, NULL, KT_VALUES(INFINITY), 0);
  rt_value_unref(a[0]);
  a[0] = rt_tensor(rt_tensor_zeros(F32, 2, KT_SIZES(2, 0)));
  check_prod("aten::frobenius_norm.dim(", a, 3, F32, 0, NULL, KT_VALUES(0), 0);
  rt_value_unref(a[0]);
  rt_value_unref(a[1]);
  a[0] = rt_tensor(kt_tensor(F64, 0, NULL, KT_VALUES(-3)));
  a[1] = rt_int_list(NULL, 0);
  check_prod("aten::frobenius_norm.dim(", a, 3, F64, 0, NULL, KT_VALUES(3), 0);
  rt_value_unref(a[1]);
  a[1] = rt_int_list(KT_SIZES(0, -1), 2);
  kt_expect_error("aten::frobenius_norm.dim(", a, 3,
                  "Expected dims to be different, got [0, -1] instead");
  kt_unref_args(a, 3);
}

static void test_grad_sum_to_size(void) {
  RtValue a[2] = {rt_tensor(kt_tensor(F32, 2, KT_SIZES(2, 3), KT_VALUES(1, 2, 3, 4, 5, 6))),
                  rt_none()};
  RtTensor *r = kt_run("aten::_grad_sum_to_size(", a, 2);
  g_assert_true(r == a[0].u.tensor);
  rt_tensor_unref(r);
  a[1] = rt_int_list(KT_SIZES(1, 3), 2);
  r = kt_run("aten::_grad_sum_to_size(", a, 2);
  kt_assert_tensor(r, F32, 2, KT_SIZES(1, 3), KT_VALUES(5, 7, 9), 0);
  rt_tensor_unref(r);
  rt_value_unref(a[1]);
  a[1] = rt_int_list(KT_SIZES(2, 1), 2);
  r = kt_run("aten::_grad_sum_to_size(", a, 2);
  kt_assert_tensor(r, F32, 2, KT_SIZES(2, 1), KT_VALUES(6, 15), 0);
  rt_tensor_unref(r);
  rt_value_unref(a[1]);
  a[1] = rt_int_list(KT_SIZES(3), 1);
  r = kt_run("aten::_grad_sum_to_size(", a, 2);
  kt_assert_tensor(r, F32, 1, KT_SIZES(3), KT_VALUES(5, 7, 9), 0);
  rt_tensor_unref(r);
  rt_value_unref(a[1]);
  a[1] = rt_int_list(KT_SIZES(2), 1);
  kt_expect_error("aten::_grad_sum_to_size(", a, 2, "is not expandable to size");
  kt_unref_args(a, 2);
  /* an undefined gradient stays undefined */
  RtValue u[2] = {rt_tensor(NULL), rt_int_list(KT_SIZES(3), 1)};
  GError *error = NULL;
  RtValue out;
  g_assert_true(kt_call("aten::_grad_sum_to_size(", u, 2, &out, &error));
  g_assert_cmpint(out.tag, ==, RT_TENSOR);
  g_assert_null(out.u.tensor);
  kt_unref_args(u, 2);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/kernels/reduce/sum-all", test_sum_all);
  g_test_add_func("/kernels/reduce/max-min", test_max_min);
  g_test_add_func("/kernels/reduce/sum-dims", test_sum_dims);
  g_test_add_func("/kernels/reduce/prod", test_prod);
  g_test_add_func("/kernels/reduce/cumprod", test_cumprod);
  g_test_add_func("/kernels/reduce/vector-norm", test_vector_norm);
  g_test_add_func("/kernels/reduce/tensor-norm", test_tensor_norm);
  g_test_add_func("/kernels/reduce/tensor-norm-dtype", test_tensor_norm_dtype);
  g_test_add_func("/kernels/reduce/frobenius-norm", test_frobenius_norm);
  g_test_add_func("/kernels/reduce/grad-sum-to-size", test_grad_sum_to_size);
  return g_test_run();
}
