/* Matrix products: rt_kernel_mm (mm, bmm), rt_kernel_addmm (addmm, baddbmm), rt_kernel_matmul,
 * rt_kernel_linear, all through CBLAS (sgemm for float32, dgemm for float64; never a
 * hand-written GEMM).
 *
 * Contracts as PyTorch 1.13:
 * - mm: two matrices of one dtype; "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)".
 * - bmm: two 3-D tensors with equal batch sizes (no broadcasting).
 * - addmm: beta * self + alpha * (mat1 @ mat2), self broadcast to the product's shape; with
 *   beta == 0 self is ignored (its NaNs do not propagate). baddbmm the same with bmm's
 *   batch1 and batch2.
 * - matmul: 1-D @ 1-D is a dot product (0-dim result), 2-D @ 1-D a matrix-vector product,
 *   1-D @ 2-D a vector-matrix product, and batched operands broadcast their batch dims.
 * - linear(input, weight, bias): matmul(input, weight.t()) + bias, the bias broadcast to the
 *   product's shape and added by the GEMM itself (beta = 1), as PyTorch's addmm path.
 * - Operands whose strides BLAS can describe (row-major, or transposed views such as t())
 *   are passed without a copy; others are packed. float16 computes in float32, int64 in
 *   float64 (exact while products and sums stay below 2^53); bool is not supported. */
#include "runtime/kernels.h"
#include "runtime/kernels_internal.h"

#include <cblas.h>
#include <limits.h>
#include <string.h>

/* A row-major matrix view: element (i, j) at data + (i * s0 + j * s1) elements. */
typedef struct {
  char *data;
  int64_t rows, cols, s0, s1;
} Mat;

/* How BLAS can read m without a copy: row-major (NoTrans, ld = s0) or column-major (Trans,
 * ld = s1). Size-1 dims have meaningless strides, so they do not constrain the choice. */
static bool blas_layout(const Mat *m, CBLAS_TRANSPOSE *trans, int *ld) {
  int64_t r = m->rows, c = m->cols;
  int64_t min_row_ld = c > 1 ? c : 1, min_col_ld = r > 1 ? r : 1;
  if ((m->s1 == 1 || c == 1) && (r == 1 || m->s0 >= min_row_ld)) {
    int64_t v = r == 1 ? min_row_ld : m->s0;
    if (v <= INT_MAX) {
      *trans = CblasNoTrans;
      *ld = (int)v;
      return true;
    }
  }
  if ((m->s0 == 1 || r == 1) && (c == 1 || m->s1 >= min_col_ld)) {
    int64_t v = c == 1 ? min_col_ld : m->s1;
    if (v <= INT_MAX) {
      *trans = CblasTrans;
      *ld = (int)v;
      return true;
    }
  }
  return false;
}

/* Packs m into a new contiguous buffer (freed by the caller). */
static char *pack(const Mat *m, size_t elsize) {
  char *buf = g_malloc((size_t)(m->rows * m->cols) * elsize + 1);
  for (int64_t i = 0; i < m->rows; i++)
    for (int64_t j = 0; j < m->cols; j++)
      memcpy(buf + (size_t)(i * m->cols + j) * elsize,
             m->data + (size_t)(i * m->s0 + j * m->s1) * elsize, elsize);
  return buf;
}

/* c (contiguous, rows x cols) = alpha * a @ b + beta * c, dtype float32 or float64. */
static void gemm(IrDtype dtype, Mat a, Mat b, char *c, double alpha, double beta) {
  int64_t m = a.rows, k = a.cols, n = b.cols;
  if (m == 0 || n == 0)
    return;
  size_t elsize = ir_dtype_size(dtype);
  if (k == 0) { /* BLAS would read no operand: c = beta * c */
    for (int64_t i = 0; i < m * n; i++) {
      if (dtype == IR_DTYPE_FLOAT32) {
        float *p = (float *)c + i;
        *p = beta == 0 ? 0.0f : (float)beta * *p;
      } else {
        double *p = (double *)c + i;
        *p = beta == 0 ? 0.0 : beta * *p;
      }
    }
    return;
  }
  K_INVARIANT(m <= INT_MAX && n <= INT_MAX && k <= INT_MAX, "matrix dims fit BLAS's int");
  CBLAS_TRANSPOSE ta, tb;
  int lda, ldb;
  char *pa = NULL, *pb = NULL;
  if (!blas_layout(&a, &ta, &lda)) {
    pa = pack(&a, elsize);
    a.data = pa;
    ta = CblasNoTrans;
    lda = (int)k;
  }
  if (!blas_layout(&b, &tb, &ldb)) {
    pb = pack(&b, elsize);
    b.data = pb;
    tb = CblasNoTrans;
    ldb = (int)n;
  }
  if (dtype == IR_DTYPE_FLOAT32)
    cblas_sgemm(CblasRowMajor, ta, tb, (int)m, (int)n, (int)k, (float)alpha, (const float *)a.data,
                lda, (const float *)b.data, ldb, (float)beta, (float *)c, (int)n);
  else
    cblas_dgemm(CblasRowMajor, ta, tb, (int)m, (int)n, (int)k, alpha, (const double *)a.data, lda,
                (const double *)b.data, ldb, beta, (double *)c, (int)n);
  g_free(pa);
  g_free(pb);
}

static bool compute_dtype(IrDtype d, IrDtype *compute, GError **error) {
  switch (d) {
  case IR_DTYPE_FLOAT32:
  case IR_DTYPE_FLOAT16: *compute = IR_DTYPE_FLOAT32; return true;
  case IR_DTYPE_FLOAT64:
  case IR_DTYPE_INT64: *compute = IR_DTYPE_FLOAT64; return true;
  default:
    K_ERR_DTYPE(error, "\"addmm_impl_cpu_\" not implemented for '%s'", ir_dtype_type_name(d));
    return false;
  }
}

static bool same_dtype(const RtTensor *a, const RtTensor *b, GError **error) {
  if (a->dtype == b->dtype)
    return true;
  K_ERR_DTYPE(error, "expected mat1 and mat2 to have the same dtype, but got: %s != %s",
              k_dtype_c10_name(a->dtype), k_dtype_c10_name(b->dtype));
  return false;
}

static Mat mat_at(const RtTensor *t, int64_t offset_elems) {
  int nd = t->ndim;
  return (Mat){(char *)rt_tensor_data(t) + (size_t)offset_elems * ir_dtype_size(t->dtype),
               t->sizes[nd - 2], t->sizes[nd - 1], t->strides[nd - 2], t->strides[nd - 1]};
}

/* out[..., m, n] = alpha * a[..., m, k] @ b[..., k, n] + beta * out (out contiguous, batch
 * dims of a and b broadcast to out's). All three in the compute dtype. */
static void batched_gemm(RtTensor *a, RtTensor *b, RtTensor *out, double alpha, double beta) {
  int nb = out->ndim - 2;
  int64_t m = out->sizes[nb], n = out->sizes[nb + 1];
  int64_t batches = 1;
  for (int d = 0; d < nb; d++)
    batches *= out->sizes[d];
  size_t elsize = ir_dtype_size(out->dtype);
  int64_t idx[RT_MAX_DIMS] = {0};
  for (int64_t bi = 0; bi < batches; bi++) {
    int64_t off_a = 0, off_b = 0;
    for (int d = 0; d < nb; d++) {
      int da = d - (nb - (a->ndim - 2)), db = d - (nb - (b->ndim - 2));
      if (da >= 0 && a->sizes[da] != 1)
        off_a += idx[d] * a->strides[da];
      if (db >= 0 && b->sizes[db] != 1)
        off_b += idx[d] * b->strides[db];
    }
    gemm(out->dtype, mat_at(a, off_a), mat_at(b, off_b),
         (char *)rt_tensor_data(out) + (size_t)(bi * m * n) * elsize, alpha, beta);
    for (int d = nb - 1; d >= 0; d--) {
      if (++idx[d] < out->sizes[d])
        break;
      idx[d] = 0;
    }
  }
}

/* a (>= 2-D) @ b (>= 2-D) with batch broadcasting; the operands are already in `compute`. */
static RtTensor *product(RtTensor *a, RtTensor *b, IrDtype compute, GError **error) {
  int nba = a->ndim - 2, nbb = b->ndim - 2, nb;
  int64_t shape[RT_MAX_DIMS];
  if (!k_broadcast(nba, a->sizes, nbb, b->sizes, &nb, shape, error))
    return NULL;
  shape[nb] = a->sizes[a->ndim - 2];
  shape[nb + 1] = b->sizes[b->ndim - 1];
  /* Left uninitialised: with beta 0 every element is written (BLAS never reads C, gemm
   * writes zeros when k is 0), and zeroing first cost a pass over the product. */
  RtTensor *out = rt_tensor_new_checked(compute, nb + 2, shape, error);
  if (!out)
    return NULL;
  batched_gemm(a, b, out, 1.0, 0.0);
  return out;
}

static void mat_shape_error(const RtTensor *a, const RtTensor *b, GError **error) {
  K_ERR_SHAPE(error,
              "mat1 and mat2 shapes cannot be multiplied (%" G_GINT64_FORMAT "x%" G_GINT64_FORMAT
              " and %" G_GINT64_FORMAT "x%" G_GINT64_FORMAT ")",
              a->sizes[a->ndim - 2], a->sizes[a->ndim - 1], b->sizes[b->ndim - 2],
              b->sizes[b->ndim - 1]);
}

/* Converts the product back to the operands' dtype and stores it. */
static void finish(RtTensor *result, IrDtype dtype, RtValue *outs) {
  if (result->dtype != dtype) {
    RtTensor *cast = rt_tensor_to_dtype(result, dtype);
    rt_tensor_unref(result);
    result = cast;
  }
  outs[0] = rt_tensor(result);
}

static bool bmm_shapes(const RtTensor *a, const RtTensor *b, GError **error) {
  if (a->ndim != 3 || b->ndim != 3) {
    K_ERR_SHAPE(error, "%s must be a 3D tensor", a->ndim != 3 ? "batch1" : "batch2");
    return false;
  }
  if (a->sizes[0] != b->sizes[0] || a->sizes[2] != b->sizes[1]) {
    K_ERR_SHAPE(error,
                "Expected size for first two dimensions of batch2 tensor to be: [%" G_GINT64_FORMAT
                ", %" G_GINT64_FORMAT "] but got: [%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT "].",
                a->sizes[0], a->sizes[2], b->sizes[0], b->sizes[1]);
    return false;
  }
  return true;
}

bool rt_kernel_mm(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                  RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  RtTensor *a, *b;
  if (!k_arg_tensor(schema, args, 0, &a, error) || !k_arg_tensor(schema, args, 1, &b, error))
    return false;
  if (schema->kind == IR_ATEN_BMM) {
    if (!bmm_shapes(a, b, error))
      return false;
  } else if (a->ndim != 2 || b->ndim != 2) {
    K_ERR_SHAPE(error, "%s must be a matrix", a->ndim != 2 ? "self" : "mat2");
    return false;
  } else if (a->sizes[1] != b->sizes[0]) {
    mat_shape_error(a, b, error);
    return false;
  }
  IrDtype compute;
  if (!same_dtype(a, b, error) || !compute_dtype(a->dtype, &compute, error))
    return false;
  RtTensor *ca = k_to_dtype(a, compute), *cb = k_to_dtype(b, compute);
  RtTensor *r = product(ca, cb, compute, error);
  rt_tensor_unref(ca);
  rt_tensor_unref(cb);
  K_INVARIANT(r != NULL, "mm and bmm operands have equal batch dims");
  finish(r, a->dtype, outs);
  return true;
}

bool rt_kernel_addmm(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                     RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  RtTensor *self, *a, *b;
  KScalar beta, alpha;
  if (!k_arg_tensor(schema, args, 0, &self, error) || !k_arg_tensor(schema, args, 1, &a, error) ||
      !k_arg_tensor(schema, args, 2, &b, error) || !k_arg_scalar(schema, args, 3, &beta, error) ||
      !k_arg_scalar(schema, args, 4, &alpha, error))
    return false;
  bool batched = schema->kind == IR_ATEN_BADDBMM;
  if (batched) {
    if (!bmm_shapes(a, b, error))
      return false;
  } else if (a->ndim != 2 || b->ndim != 2) {
    K_ERR_SHAPE(error, "%s must be a matrix, got %d-D tensor", a->ndim != 2 ? "mat1" : "mat2",
                a->ndim != 2 ? a->ndim : b->ndim);
    return false;
  } else if (a->sizes[1] != b->sizes[0]) {
    mat_shape_error(a, b, error);
    return false;
  }
  IrDtype compute;
  if (!same_dtype(a, b, error) || !compute_dtype(a->dtype, &compute, error))
    return false;
  if (self->dtype != a->dtype) {
    K_ERR_DTYPE(error, "self and mat2 must have the same dtype, but got %s and %s",
                k_dtype_c10_name(self->dtype), k_dtype_c10_name(a->dtype));
    return false;
  }
  int nd = batched ? 3 : 2;
  int64_t shape[3] = {a->sizes[0], b->sizes[1], 0};
  if (batched) {
    shape[1] = a->sizes[1];
    shape[2] = b->sizes[2];
  }
  RtTensor *out;
  if (beta.d == 0) { /* self is ignored, NaN and inf included (PyTorch's beta 0); the GEMM
                       * with beta 0 writes every element, as in product() */
    out = rt_tensor_new_checked(compute, nd, shape, error);
    if (!out)
      return false;
  } else {
    GError *expand_error = NULL;
    RtTensor *expanded = rt_tensor_view_expand(self, nd, shape, &expand_error);
    if (!expanded) {
      char want[64], have[256];
      k_shape_text(want, sizeof want, nd, shape);
      k_shape_text(have, sizeof have, self->ndim, self->sizes);
      K_ERR_SHAPE(error,
                  "The expanded size of self %s does not match the product's size %s "
                  "(%s)",
                  have, want, expand_error->message);
      g_error_free(expand_error);
      return false;
    }
    out = rt_tensor_new_checked(compute, nd, shape, error);
    if (!out) {
      rt_tensor_unref(expanded);
      return false;
    }
    RtTensor *conv = k_to_dtype(expanded, compute);
    k_copy_into(out, conv);
    rt_tensor_unref(conv);
    rt_tensor_unref(expanded);
  }
  RtTensor *ca = k_to_dtype(a, compute), *cb = k_to_dtype(b, compute);
  batched_gemm(ca, cb, out, alpha.d, beta.d);
  rt_tensor_unref(ca);
  rt_tensor_unref(cb);
  finish(out, a->dtype, outs);
  return true;
}

/* a @ b as matmul (vectors promoted to matrices, their unit dim dropped from the result),
 * plus bias broadcast to the result when bias is not NULL. A new tensor in a's dtype, or
 * NULL with *error set. */
static RtTensor *matmul_bias(RtTensor *a, RtTensor *b, RtTensor *bias, GError **error) {
  int d1 = a->ndim, d2 = b->ndim;
  if (d1 == 0 || d2 == 0) {
    K_ERR_SHAPE(error,
                "both arguments to matmul need to be at least 1D, but they are %dD and "
                "%dD",
                d1, d2);
    return NULL;
  }
  int64_t k1 = a->sizes[d1 - 1], k2 = d2 == 1 ? b->sizes[0] : b->sizes[d2 - 2];
  if (k1 != k2) {
    if (d1 == 1 && d2 == 1)
      K_ERR_SHAPE(error,
                  "inconsistent tensor size, expected tensor [%" G_GINT64_FORMAT
                  "] and src [%" G_GINT64_FORMAT "] to have the same number of elements, but "
                  "got %" G_GINT64_FORMAT " and %" G_GINT64_FORMAT " elements respectively",
                  k1, k2, k1, k2);
    else if (d2 == 1 && d1 == 2)
      K_ERR_SHAPE(error,
                  "size mismatch, got input (%" G_GINT64_FORMAT "), mat (%" G_GINT64_FORMAT
                  "x%" G_GINT64_FORMAT "), vec (%" G_GINT64_FORMAT ")",
                  a->sizes[0], a->sizes[0], k1, k2);
    else
      K_ERR_SHAPE(error,
                  "mat1 and mat2 shapes cannot be multiplied (%" G_GINT64_FORMAT
                  "x%" G_GINT64_FORMAT " and %" G_GINT64_FORMAT "x%" G_GINT64_FORMAT ")",
                  d1 == 1 ? 1 : a->sizes[d1 - 2], k1, k2, d2 == 1 ? 1 : b->sizes[d2 - 1]);
    return NULL;
  }
  IrDtype compute;
  if (!same_dtype(a, b, error) || !compute_dtype(a->dtype, &compute, error))
    return NULL;
  if (bias && bias->dtype != a->dtype) {
    K_ERR_DTYPE(error, "expected input and bias to have the same dtype, but got: %s != %s",
                k_dtype_c10_name(a->dtype), k_dtype_c10_name(bias->dtype));
    return NULL;
  }
  /* Vectors become matrices ([k] -> [1, k] on the left, [k, 1] on the right); their unit dim
   * is dropped from the result. */
  RtTensor *ca = k_to_dtype(a, compute), *cb = k_to_dtype(b, compute);
  RtTensor *ma = d1 == 1 ? rt_tensor_view_unsqueeze(ca, 0) : rt_tensor_ref(ca);
  RtTensor *mb = d2 == 1 ? rt_tensor_view_unsqueeze(cb, 1) : rt_tensor_ref(cb);
  rt_tensor_unref(ca);
  rt_tensor_unref(cb);
  int nb, nd = 0;
  int64_t shape[RT_MAX_DIMS], result_shape[RT_MAX_DIMS];
  RtTensor *r = NULL;
  if (k_broadcast(ma->ndim - 2, ma->sizes, mb->ndim - 2, mb->sizes, &nb, shape, error)) {
    shape[nb] = ma->sizes[ma->ndim - 2];
    shape[nb + 1] = mb->sizes[mb->ndim - 1];
    for (int d = 0; d < nb + 2; d++)
      if (!(d1 == 1 && d == nb) && !(d2 == 1 && d == nb + 1))
        result_shape[nd++] = shape[d];
    r = rt_tensor_new_checked(compute, nb + 2, shape, error);
    if (r && bias) {
      GError *expand_error = NULL;
      RtTensor *expanded = rt_tensor_view_expand(bias, nd, result_shape, &expand_error);
      if (!expanded) {
        char want[256], have[256];
        k_shape_text(want, sizeof want, nd, result_shape);
        k_shape_text(have, sizeof have, bias->ndim, bias->sizes);
        K_ERR_SHAPE(error,
                    "The expanded size of bias %s does not match the product's size %s "
                    "(%s)",
                    have, want, expand_error->message);
        g_error_free(expand_error);
        g_clear_pointer(&r, rt_tensor_unref);
      } else {
        RtTensor *conv = k_to_dtype(expanded, compute);
        RtTensor *target = rt_tensor_reshape(r, nd, result_shape, true, error);
        K_INVARIANT(target != NULL, "a contiguous product views without its unit dims");
        k_copy_into(target, conv);
        rt_tensor_unref(target);
        rt_tensor_unref(conv);
        rt_tensor_unref(expanded);
      }
    }
    if (r)
      batched_gemm(ma, mb, r, 1.0, bias ? 1.0 : 0.0);
  }
  rt_tensor_unref(ma);
  rt_tensor_unref(mb);
  if (!r)
    return NULL;
  RtTensor *squeezed = rt_tensor_reshape(r, nd, result_shape, true, error);
  K_INVARIANT(squeezed != NULL, "a contiguous product views without its unit dims");
  rt_tensor_unref(r);
  return squeezed;
}

/* The result of matmul_bias in the operands' dtype (products of float16 and int64 operands
 * are computed in float32 / float64). */
static bool store_product(RtTensor *r, IrDtype dtype, RtValue *outs) {
  if (!r)
    return false;
  finish(r, dtype, outs);
  return true;
}

bool rt_kernel_matmul(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                      RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  RtTensor *a, *b;
  if (!k_arg_tensor(schema, args, 0, &a, error) || !k_arg_tensor(schema, args, 1, &b, error))
    return false;
  return store_product(matmul_bias(a, b, NULL, error), a->dtype, outs);
}

bool rt_kernel_linear(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                      RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  RtTensor *input, *weight, *bias = NULL;
  if (!k_arg_tensor(schema, args, 0, &input, error) ||
      !k_arg_tensor(schema, args, 1, &weight, error) ||
      (!k_arg_is_none(args, 2) && !k_arg_tensor(schema, args, 2, &bias, error)))
    return false;
  if (weight->ndim > 2) {
    K_ERR_SHAPE(error, "t() expects a tensor with <= 2 dimensions, but self is %dD", weight->ndim);
    return false;
  }
  RtTensor *wt = weight->ndim == 2 ? rt_tensor_view_transpose(weight, 0, 1) : rt_tensor_ref(weight);
  RtTensor *r = matmul_bias(input, wt, bias, error);
  rt_tensor_unref(wt);
  return store_product(r, input->dtype, outs);
}
