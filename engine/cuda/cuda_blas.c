/* cuBLAS matrix products on CUDA tensors (contract in cuda_blas.h). */
#include "cuda/cuda_blas.h"

#include <string.h>

#include "cuda/cuda_kernels.h"
#include "cuda/cuda_tensor.h"
#include "runtime/device.h"

static CublasHandle handle; /* under the runtime lock */

static bool decline(GError **error, const char *format, ...) G_GNUC_PRINTF(2, 3);
static bool decline(GError **error, const char *format, ...) {
  va_list ap;
  va_start(ap, format);
  char *msg = g_strdup_vprintf(format, ap);
  va_end(ap);
  g_set_error_literal(error, RT_DEVICE_DECLINED, 0, msg);
  g_free(msg);
  return false;
}

static bool blas_check(CublasStatus st, const char *call, GError **error) {
  if (st == 0)
    return true;
  g_set_error(error, JITSCOPE_CUDA_ERROR, CUDA_ERROR_DRIVER, "%s: cuBLAS status %d", call, st);
  return false;
}

/* Locks the runtime and makes sure of the handle; unlocked again on failure. */
static bool blas_begin(GError **error) {
  const CudaStatus *s = cuda_loader_get();
  if (!s->cublas.loaded)
    return decline(error, "cuBLAS did not load (%s)", s->cublas.error);
  if (!cuda_runtime_begin(error))
    return false;
  if (handle == NULL) {
    CublasHandle h = NULL;
    if (!blas_check(s->cublas_api.cublasCreate(&h), "cublasCreate", error) ||
        !blas_check(s->cublas_api.cublasSetStream(h, cuda_runtime_stream()), "cublasSetStream",
                    error)) {
      if (h)
        s->cublas_api.cublasDestroy(h);
      cuda_runtime_end();
      return false;
    }
    handle = h;
  }
  return true;
}

typedef struct {
  CudaDevicePtr ptr;
  int op;
  int ld;
} Operand;

/* How a [rows, cols] view is passed as the column-major transpose: row-major views as they
 * are, column-major views with CUBLAS_OP_T; false for other layouts. */
static bool operand_of(const RtTensor *t, Operand *o) {
  int64_t rows = t->sizes[0], cols = t->sizes[1], ld;
  if (t->strides[1] == 1 && (rows == 1 || t->strides[0] >= MAX(cols, 1))) {
    o->op = CUBLAS_OP_NO_TRANS;
    ld = rows == 1 ? MAX(cols, 1) : t->strides[0];
  } else if (t->strides[0] == 1 && (cols == 1 || t->strides[1] >= MAX(rows, 1))) {
    o->op = CUBLAS_OP_TRANS;
    ld = cols == 1 ? MAX(rows, 1) : t->strides[1];
  } else {
    return false;
  }
  if (ld > G_MAXINT)
    return false;
  o->ld = (int)ld;
  o->ptr = cuda_tensor_ptr(t);
  return true;
}

static bool fits_int(int64_t v) {
  return v >= 0 && v <= G_MAXINT;
}

/* C (contiguous [m, n] at c) = alpha a b + beta C, with a [m, k] and b [k, n] 2-d device
 * views; call between blas_begin and cuda_runtime_end. */
static bool gemm(IrDtype dtype, RtTensor *a, RtTensor *b, CudaDevicePtr c, double alpha,
                 double beta, GError **error) {
  const CudaCublasApi *api = &cuda_loader_get()->cublas_api;
  RtTensor *ac = NULL, *bc = NULL;
  Operand x, y; /* x = b^T, y = a^T in column-major terms */
  bool ok = true;
  if (!operand_of(b, &x)) {
    ok = (bc = cuda_contiguous(b, error)) != NULL && operand_of(bc, &x);
  }
  if (ok && !operand_of(a, &y))
    ok = (ac = cuda_contiguous(a, error)) != NULL && operand_of(ac, &y);
  int m = (int)a->sizes[0], k = (int)a->sizes[1], n = (int)b->sizes[1];
  if (ok && dtype == IR_DTYPE_FLOAT32) {
    float fa = (float)alpha, fb = (float)beta;
    ok = blas_check(api->cublasSgemm(
                        handle, x.op, y.op, n, m, k, &fa, (const float *)(guintptr)x.ptr, x.ld,
                        (const float *)(guintptr)y.ptr, y.ld, &fb, (float *)(guintptr)c, MAX(n, 1)),
                    "cublasSgemm", error);
  } else if (ok) {
    ok = blas_check(api->cublasDgemm(handle, x.op, y.op, n, m, k, &alpha,
                                     (const double *)(guintptr)x.ptr, x.ld,
                                     (const double *)(guintptr)y.ptr, y.ld, &beta,
                                     (double *)(guintptr)c, MAX(n, 1)),
                    "cublasDgemm", error);
  }
  /* Stream-ordered frees: the copies live until the product has read them. */
  if (ac)
    rt_tensor_unref(ac);
  if (bc)
    rt_tensor_unref(bc);
  return ok;
}

static bool float_pair(const RtTensor *a, const RtTensor *b, GError **error) {
  if (!a || !b || a->storage->device != IR_DEVICE_CUDA || b->storage->device != IR_DEVICE_CUDA)
    return decline(error, "an operand is not a CUDA tensor");
  if (a->dtype != b->dtype || (a->dtype != IR_DTYPE_FLOAT32 && a->dtype != IR_DTYPE_FLOAT64))
    return decline(error,
                   "cuBLAS products take float32 or float64 operands of one dtype, not "
                   "%s and %s",
                   ir_dtype_name(a->dtype), ir_dtype_name(b->dtype));
  return true;
}

static RtTensor *tensor_arg(RtValue *args, guint i) {
  return args[i].tag == RT_TENSOR ? args[i].u.tensor : NULL;
}

/* a [m, k] times b [k, n] into a fresh [m, n] device tensor (beta = 0), or NULL. */
static RtTensor *mm2d(RtTensor *a, RtTensor *b, GError **error) {
  int64_t m = a->sizes[0], k = a->sizes[1], n = b->sizes[1];
  if (b->sizes[0] != k) {
    decline(error, "sizes do not multiply");
    return NULL;
  }
  if (!fits_int(m) || !fits_int(n) || !fits_int(k)) {
    decline(error, "sizes beyond cuBLAS's int");
    return NULL;
  }
  int64_t sizes[2] = {m, n};
  if (k == 0)
    return cuda_full(a->dtype, 2, sizes, 0.0, error);
  RtTensor *out = cuda_tensor_empty(a->dtype, 2, sizes, error);
  if (out == NULL || m == 0 || n == 0)
    return out;
  if (!blas_begin(error)) {
    rt_tensor_unref(out);
    return NULL;
  }
  bool ok = gemm(a->dtype, a, b, cuda_tensor_ptr(out), 1.0, 0.0, error);
  cuda_runtime_end();
  if (!ok)
    g_clear_pointer(&out, rt_tensor_unref);
  return out;
}

/* A contiguous result viewed with other sizes (same element count). */
static RtTensor *reshaped(RtTensor *t, int ndim, const int64_t *sizes) {
  int64_t strides[RT_MAX_DIMS];
  rt_contiguous_strides(ndim, sizes, strides);
  RtTensor *v = rt_tensor_new_strided(t->storage, t->dtype, ndim, sizes, strides, t->offset);
  rt_tensor_unref(t);
  return v;
}

bool cuda_kernel_mm(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                    RtValue *outs, guint n_outs, GError **error) {
  (void)schema, (void)node, (void)n_args, (void)n_outs;
  RtTensor *a = tensor_arg(args, 0), *b = tensor_arg(args, 1);
  if (!float_pair(a, b, error))
    return false;
  if (a->ndim != 2 || b->ndim != 2)
    return decline(error, "mm of ranks %d and %d", a->ndim, b->ndim);
  RtTensor *c = mm2d(a, b, error);
  if (c == NULL)
    return false;
  outs[0] = rt_tensor(c);
  return true;
}

bool cuda_kernel_addmm(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                       RtValue *outs, guint n_outs, GError **error) {
  (void)schema, (void)node, (void)n_outs;
  RtTensor *self = tensor_arg(args, 0), *a = tensor_arg(args, 1), *b = tensor_arg(args, 2);
  double beta = 1.0, alpha = 1.0;
  if (!float_pair(a, b, error) || !float_pair(self, a, error))
    return false;
  if ((n_args > 3 && !rt_value_to_double(args[3], &beta)) ||
      (n_args > 4 && !rt_value_to_double(args[4], &alpha)))
    return decline(error, "beta or alpha is not a number");
  if (a->ndim != 2 || b->ndim != 2 || b->sizes[0] != a->sizes[1] || a->sizes[1] == 0)
    return decline(error, "addmm of these shapes");
  int64_t m = a->sizes[0], k = a->sizes[1], n = b->sizes[1];
  if (!fits_int(m) || !fits_int(n) || !fits_int(k))
    return decline(error, "sizes beyond cuBLAS's int");
  int64_t sizes[2] = {m, n};
  RtTensor *expanded = rt_tensor_view_expand(self, 2, sizes, NULL);
  if (expanded == NULL)
    return decline(error, "self does not broadcast to the product's shape");
  rt_tensor_unref(expanded);
  RtTensor *out = cuda_tensor_empty(a->dtype, 2, sizes, error);
  if (out == NULL)
    return false;
  bool ok = beta == 0.0 || cuda_copy_into(out, self, error);
  if (ok && m > 0 && n > 0) {
    ok = blas_begin(error);
    if (ok) {
      ok = gemm(a->dtype, a, b, cuda_tensor_ptr(out), alpha, beta, error);
      cuda_runtime_end();
    }
  }
  if (!ok) {
    rt_tensor_unref(out);
    return false;
  }
  outs[0] = rt_tensor(out);
  return true;
}

/* Batched: a [..., m, k] and b [..., k, n] with broadcast batch dims. */
static RtTensor *batched(RtTensor *a, RtTensor *b, int *batch_nd, int64_t *batch, GError **error) {
  int64_t m = a->sizes[a->ndim - 2], k = a->sizes[a->ndim - 1];
  int64_t n = b->sizes[b->ndim - 1];
  if (b->sizes[b->ndim - 2] != k ||
      !rt_broadcast_shapes(a->ndim - 2, a->sizes, b->ndim - 2, b->sizes, batch_nd, batch, NULL)) {
    decline(error, "matmul of these shapes");
    return NULL;
  }
  if (!fits_int(m) || !fits_int(n) || !fits_int(k)) {
    decline(error, "sizes beyond cuBLAS's int");
    return NULL;
  }
  int nd = *batch_nd;
  int64_t as[RT_MAX_DIMS], bs[RT_MAX_DIMS], cs[RT_MAX_DIMS], count = 1;
  for (int d = 0; d < nd; d++) {
    as[d] = bs[d] = cs[d] = batch[d];
    count *= batch[d];
  }
  as[nd] = m, as[nd + 1] = k, bs[nd] = k, bs[nd + 1] = n, cs[nd] = m, cs[nd + 1] = n;
  if (k == 0)
    return cuda_full(a->dtype, nd + 2, cs, 0.0, error);
  RtTensor *ae = rt_tensor_view_expand(a, nd + 2, as, NULL);
  RtTensor *be = rt_tensor_view_expand(b, nd + 2, bs, NULL);
  if (ae == NULL || be == NULL) {
    if (ae)
      rt_tensor_unref(ae);
    if (be)
      rt_tensor_unref(be);
    decline(error, "matmul batch dims do not broadcast");
    return NULL;
  }
  RtTensor *ac = cuda_contiguous(ae, error);
  RtTensor *bc = ac ? cuda_contiguous(be, error) : NULL;
  RtTensor *out = bc ? cuda_tensor_empty(a->dtype, nd + 2, cs, error) : NULL;
  bool ok = out != NULL;
  if (ok && count > 0 && m > 0 && n > 0) {
    ok = blas_begin(error);
    bool began = ok;
    size_t es = rt_dtype_size(a->dtype);
    int64_t a2[2] = {m, k}, b2[2] = {k, n};
    int64_t a2s[2] = {k, 1}, b2s[2] = {n, 1};
    for (int64_t i = 0; ok && i < count; i++) {
      RtTensor *ai =
          rt_tensor_new_strided(ac->storage, ac->dtype, 2, a2, a2s, ac->offset + i * m * k);
      RtTensor *bi =
          rt_tensor_new_strided(bc->storage, bc->dtype, 2, b2, b2s, bc->offset + i * k * n);
      CudaDevicePtr ci = cuda_tensor_ptr(out) + (CudaDevicePtr)(i * m * n * (int64_t)es);
      ok = gemm(a->dtype, ai, bi, ci, 1.0, 0.0, error);
      rt_tensor_unref(ai);
      rt_tensor_unref(bi);
    }
    if (began)
      cuda_runtime_end();
  }
  rt_tensor_unref(ae);
  rt_tensor_unref(be);
  if (ac)
    rt_tensor_unref(ac);
  if (bc)
    rt_tensor_unref(bc);
  if (!ok && out)
    g_clear_pointer(&out, rt_tensor_unref);
  return out;
}

bool cuda_kernel_matmul(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                        RtValue *outs, guint n_outs, GError **error) {
  (void)schema, (void)node, (void)n_args, (void)n_outs;
  RtTensor *a = tensor_arg(args, 0), *b = tensor_arg(args, 1);
  if (!float_pair(a, b, error))
    return false;
  int da = a->ndim, db = b->ndim;
  if (da == 0 || db == 0)
    return decline(error, "matmul of a 0-dim tensor");
  RtTensor *a2 = da == 1 ? rt_tensor_view_unsqueeze(a, 0) : rt_tensor_ref(a);
  RtTensor *b2 = db == 1 ? rt_tensor_view_unsqueeze(b, 1) : rt_tensor_ref(b);
  int64_t sizes[RT_MAX_DIMS];
  int nd = 0;
  RtTensor *c = NULL;
  if (da <= 2 && db <= 2) {
    c = mm2d(a2, b2, error);
    if (da == 2)
      sizes[nd++] = a2->sizes[0];
    if (db == 2)
      sizes[nd++] = b2->sizes[1];
  } else if (da >= 3 && db <= 2 && a2->sizes[da - 1] == b2->sizes[0]) {
    /* Fold the batch into the rows: [B..., m, k] -> [B*m, k]. */
    RtTensor *ac = cuda_contiguous(a2, error);
    if (ac) {
      int64_t rows = 1;
      for (int d = 0; d < da - 1; d++)
        rows *= ac->sizes[d];
      int64_t fold[2] = {rows, ac->sizes[da - 1]};
      RtTensor *flat = rt_tensor_reshape(ac, 2, fold, true, NULL);
      c = flat ? mm2d(flat, b2, error) : NULL;
      if (!flat)
        decline(error, "matmul of these shapes");
      if (flat)
        rt_tensor_unref(flat);
      rt_tensor_unref(ac);
    }
    for (int d = 0; d < da - 1; d++)
      sizes[nd++] = a->sizes[d];
    if (db == 2)
      sizes[nd++] = b2->sizes[1];
  } else {
    int bnd;
    int64_t batch[RT_MAX_DIMS];
    c = batched(a2, b2, &bnd, batch, error);
    for (int d = 0; d < bnd; d++)
      sizes[nd++] = batch[d];
    if (da > 1)
      sizes[nd++] = a2->sizes[a2->ndim - 2];
    if (db > 1)
      sizes[nd++] = b2->sizes[b2->ndim - 1];
  }
  rt_tensor_unref(a2);
  rt_tensor_unref(b2);
  if (c == NULL)
    return false;
  outs[0] = rt_tensor(reshaped(c, nd, sizes));
  return true;
}
