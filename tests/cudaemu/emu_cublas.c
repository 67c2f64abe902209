/* cuBLAS for tests without a GPU (libcublas.so of the CUDA emulator, see emu_driver.c): the v2
 * API's handle, stream and GEMM calls, computed with the host's CBLAS on the emulated device
 * memory. Matrices must lie in device allocations, as with the real library. */
#include <cblas.h>
#include <glib.h>

typedef int cublasStatus_t;
enum {
  CUBLAS_STATUS_SUCCESS = 0,
  CUBLAS_STATUS_NOT_INITIALIZED = 1,
  CUBLAS_STATUS_INVALID_VALUE = 7,
};
enum { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1 };

#define HANDLE_MAGIC 0x424c4153u

typedef struct {
  guint32 magic;
  void *stream;
} Handle;

/* From emu_driver.c (libcuda.so.1 of the emulator). */
gboolean cudaemu_is_device_span(unsigned long long ptr, size_t bytes);
void cudaemu_device_memory_begin(void);
void cudaemu_device_memory_end(void);

cublasStatus_t cublasCreate_v2(Handle **handle) {
  if (handle == NULL)
    return CUBLAS_STATUS_INVALID_VALUE;
  *handle = g_new0(Handle, 1);
  (*handle)->magic = HANDLE_MAGIC;
  return CUBLAS_STATUS_SUCCESS;
}

static gboolean handle_ok(const Handle *h) {
  return h && h->magic == HANDLE_MAGIC;
}

cublasStatus_t cublasDestroy_v2(Handle *handle) {
  if (!handle_ok(handle))
    return CUBLAS_STATUS_NOT_INITIALIZED;
  handle->magic = 0;
  g_free(handle);
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetStream_v2(Handle *handle, void *stream) {
  if (!handle_ok(handle))
    return CUBLAS_STATUS_NOT_INITIALIZED;
  handle->stream = stream;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetVersion_v2(Handle *handle, int *version) {
  if (!handle_ok(handle))
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if (version == NULL)
    return CUBLAS_STATUS_INVALID_VALUE;
  *version = 130000;
  return CUBLAS_STATUS_SUCCESS;
}

/* Whether a column-major rows x cols matrix with leading dimension ld lies in device memory. */
static gboolean matrix_ok(const void *p, int rows, int cols, int ld, size_t elem) {
  if (rows == 0 || cols == 0)
    return TRUE;
  size_t bytes = ((size_t)ld * (size_t)(cols - 1) + (size_t)rows) * elem;
  return ld >= MAX(1, rows) && cudaemu_is_device_span((unsigned long long)(guintptr)p, bytes);
}

/* The checks of ?gemm (column-major): op(A) is m x k, op(B) k x n, C m x n. */
static cublasStatus_t gemm_check(const Handle *h, int ta, int tb, int m, int n, int k,
                                 const void *a, int lda, const void *b, int ldb, const void *c,
                                 int ldc, size_t elem) {
  if (!handle_ok(h))
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if ((ta != CUBLAS_OP_N && ta != CUBLAS_OP_T) || (tb != CUBLAS_OP_N && tb != CUBLAS_OP_T) ||
      m < 0 || n < 0 || k < 0)
    return CUBLAS_STATUS_INVALID_VALUE;
  gboolean ok = matrix_ok(c, m, n, ldc, elem);
  if (k > 0) {
    ok = ok && (ta == CUBLAS_OP_N ? matrix_ok(a, m, k, lda, elem) : matrix_ok(a, k, m, lda, elem));
    ok = ok && (tb == CUBLAS_OP_N ? matrix_ok(b, k, n, ldb, elem) : matrix_ok(b, n, k, ldb, elem));
  }
  return ok ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_INVALID_VALUE;
}

static enum CBLAS_TRANSPOSE trans(int op) {
  return op == CUBLAS_OP_T ? CblasTrans : CblasNoTrans;
}

cublasStatus_t cublasSgemm_v2(Handle *h, int ta, int tb, int m, int n, int k, const float *alpha,
                              const float *a, int lda, const float *b, int ldb, const float *beta,
                              float *c, int ldc) {
  cublasStatus_t st = gemm_check(h, ta, tb, m, n, k, a, lda, b, ldb, c, ldc, sizeof(float));
  if (st != CUBLAS_STATUS_SUCCESS || m == 0 || n == 0)
    return st;
  cudaemu_device_memory_begin();
  cblas_sgemm(CblasColMajor, trans(ta), trans(tb), m, n, k, *alpha, a, MAX(1, lda), b, MAX(1, ldb),
              *beta, c, ldc);
  cudaemu_device_memory_end();
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasDgemm_v2(Handle *h, int ta, int tb, int m, int n, int k, const double *alpha,
                              const double *a, int lda, const double *b, int ldb,
                              const double *beta, double *c, int ldc) {
  cublasStatus_t st = gemm_check(h, ta, tb, m, n, k, a, lda, b, ldb, c, ldc, sizeof(double));
  if (st != CUBLAS_STATUS_SUCCESS || m == 0 || n == 0)
    return st;
  cudaemu_device_memory_begin();
  cblas_dgemm(CblasColMajor, trans(ta), trans(tb), m, n, k, *alpha, a, MAX(1, lda), b, MAX(1, ldb),
              *beta, c, ldc);
  cudaemu_device_memory_end();
  return CUBLAS_STATUS_SUCCESS;
}
