/* CUDA at run time (DESIGN.md, Fuser): the driver API (libcuda.so.1), nvrtc (libnvrtc.so)
 * and cuBLAS (libcublas.so) are opened with dlopen and their entry points looked up with
 * dlsym; nothing of CUDA is needed to build or to run jitscope.
 *
 * Contracts:
 * - cuda_loader_get() loads everything once per process (g_once; thread-safe) and returns
 *   the same immutable status afterwards. A library that does not load, a missing entry point,
 *   a failing cuInit or an absent device is recorded with its reason; nothing aborts.
 * - Search: when the environment variable JITSCOPE_CUDA_LIBDIR is set, only that folder is
 *   searched (for every library); otherwise the default dynamic-linker search path, then
 *   /usr/local/cuda/lib64 (versioned names like libnvrtc.so.13 found by listing the folder).
 *   The stub libcuda.so of the toolkit is never loaded.
 * - The types below are our own declarations of the few CUDA types used: no CUDA header is
 *   included at build time. Function pointers are NULL when their library did not load. */
#ifndef JITSCOPE_CUDA_LOADER_H
#define JITSCOPE_CUDA_LOADER_H

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>

#include "fuser/cuda_error.h"

/* The official typedefs name these very scalars, so they are checked as they are. */
typedef int CudaDevice;                   /* CUdevice */
typedef unsigned long long CudaDevicePtr; /* CUdeviceptr */

/* The ABI test (tests/fuser/test_cuda_abi.c) swaps in the official types to check ours. */
#ifdef JITSCOPE_CUDA_OFFICIAL_TYPES
typedef CUresult CudaResult;
typedef CUcontext CudaContext;
typedef CUmodule CudaModule;
typedef CUfunction CudaFunction;
typedef CUstream CudaStream;
typedef CUevent CudaEvent;
typedef CUmemoryPool CudaMemPool;
typedef CUdevice_attribute CudaDeviceAttribute;
typedef CUmemPool_attribute CudaMemPoolAttribute;
typedef nvrtcResult NvrtcResult;
typedef nvrtcProgram NvrtcProgram;
typedef cublasStatus_t CublasStatus;
typedef cublasHandle_t CublasHandle;
typedef cublasOperation_t CublasOperation;
#else
typedef int CudaResult; /* CUresult: 0 = CUDA_SUCCESS */
typedef struct CudaCtxOpaque *CudaContext;
typedef struct CudaModOpaque *CudaModule;
typedef struct CudaFuncOpaque *CudaFunction;
typedef struct CudaStreamOpaque *CudaStream;
typedef struct CudaEventOpaque *CudaEvent;
typedef struct CudaMemPoolOpaque *CudaMemPool;
typedef int CudaDeviceAttribute;  /* CUdevice_attribute */
typedef int CudaMemPoolAttribute; /* CUmemPool_attribute */
typedef int NvrtcResult;          /* 0 = NVRTC_SUCCESS */
typedef struct NvrtcProgramOpaque *NvrtcProgram;
typedef int CublasStatus; /* 0 = CUBLAS_STATUS_SUCCESS */
typedef struct CublasContextOpaque *CublasHandle;
typedef int CublasOperation; /* cublasOperation_t */
#endif

/* CUdevice_attribute values used here (stable across CUDA versions). */
enum {
  CUDA_ATTR_MAX_THREADS_PER_BLOCK = 1,
  CUDA_ATTR_MULTIPROCESSOR_COUNT = 16,
  CUDA_ATTR_COMPUTE_CAPABILITY_MAJOR = 75,
  CUDA_ATTR_COMPUTE_CAPABILITY_MINOR = 76,
  CUDA_ATTR_MEMORY_POOLS_SUPPORTED = 115,
};
/* CUmemPool_attribute: bytes the pool keeps when the stream synchronizes. */
enum { CUDA_MEMPOOL_ATTR_RELEASE_THRESHOLD = 4 };
/* cublasOperation_t */
enum { CUBLAS_OP_NO_TRANS = 0, CUBLAS_OP_TRANS = 1 };

typedef struct {
  CudaResult (*cuInit)(unsigned int flags);
  CudaResult (*cuDriverGetVersion)(int *version);
  CudaResult (*cuDeviceGetCount)(int *count);
  CudaResult (*cuDeviceGet)(CudaDevice *device, int ordinal);
  CudaResult (*cuDeviceGetName)(char *name, int len, CudaDevice device);
  CudaResult (*cuDeviceGetAttribute)(int *value, CudaDeviceAttribute attribute, CudaDevice device);
  CudaResult (*cuDeviceTotalMem)(size_t *bytes, CudaDevice device);
  CudaResult (*cuDevicePrimaryCtxRetain)(CudaContext *ctx, CudaDevice device);
  CudaResult (*cuCtxSetCurrent)(CudaContext ctx);
  CudaResult (*cuGetErrorName)(CudaResult error, const char **name);
  CudaResult (*cuGetErrorString)(CudaResult error, const char **text);
  CudaResult (*cuModuleLoadData)(CudaModule *module, const void *image);
  CudaResult (*cuModuleGetFunction)(CudaFunction *fn, CudaModule module, const char *name);
  CudaResult (*cuModuleUnload)(CudaModule module);
  CudaResult (*cuLaunchKernel)(CudaFunction fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                               unsigned by, unsigned bz, unsigned shared_bytes, CudaStream stream,
                               void **params, void **extra);
  CudaResult (*cuOccupancyMaxActiveBlocksPerMultiprocessor)(int *blocks, CudaFunction fn,
                                                            int block_size, size_t dyn_smem);
  CudaResult (*cuStreamCreate)(CudaStream *stream, unsigned int flags);
  CudaResult (*cuStreamDestroy)(CudaStream stream);
  CudaResult (*cuStreamSynchronize)(CudaStream stream);
  CudaResult (*cuMemAllocAsync)(CudaDevicePtr *ptr, size_t bytes, CudaStream stream);
  CudaResult (*cuMemFreeAsync)(CudaDevicePtr ptr, CudaStream stream);
  CudaResult (*cuMemcpyHtoDAsync)(CudaDevicePtr dst, const void *src, size_t bytes,
                                  CudaStream stream);
  CudaResult (*cuMemcpyDtoHAsync)(void *dst, CudaDevicePtr src, size_t bytes, CudaStream stream);
  CudaResult (*cuMemcpyDtoDAsync)(CudaDevicePtr dst, CudaDevicePtr src, size_t bytes,
                                  CudaStream stream);
  /* Optional (NULL when absent): the default pool's release threshold. */
  CudaResult (*cuDeviceGetDefaultMemPool)(CudaMemPool *pool, CudaDevice device);
  CudaResult (*cuMemPoolSetAttribute)(CudaMemPool pool, CudaMemPoolAttribute attribute,
                                      void *value);
  CudaResult (*cuEventCreate)(CudaEvent *event, unsigned int flags);
  CudaResult (*cuEventDestroy)(CudaEvent event);
  CudaResult (*cuEventRecord)(CudaEvent event, CudaStream stream);
  CudaResult (*cuEventSynchronize)(CudaEvent event);
  CudaResult (*cuEventElapsedTime)(float *ms, CudaEvent start, CudaEvent end);
} CudaDriverApi;

typedef struct {
  NvrtcResult (*nvrtcVersion)(int *major, int *minor);
  const char *(*nvrtcGetErrorString)(NvrtcResult result);
  NvrtcResult (*nvrtcCreateProgram)(NvrtcProgram *prog, const char *src, const char *name,
                                    int n_headers, const char *const *headers,
                                    const char *const *include_names);
  NvrtcResult (*nvrtcCompileProgram)(NvrtcProgram prog, int n_options, const char *const *options);
  NvrtcResult (*nvrtcGetPTXSize)(NvrtcProgram prog, size_t *size);
  NvrtcResult (*nvrtcGetPTX)(NvrtcProgram prog, char *ptx);
  NvrtcResult (*nvrtcGetProgramLogSize)(NvrtcProgram prog, size_t *size);
  NvrtcResult (*nvrtcGetProgramLog)(NvrtcProgram prog, char *log);
  NvrtcResult (*nvrtcDestroyProgram)(NvrtcProgram *prog);
  /* Optional (nvrtc 11.2+): NULL when absent. */
  NvrtcResult (*nvrtcGetNumSupportedArchs)(int *n);
  NvrtcResult (*nvrtcGetSupportedArchs)(int *archs);
} CudaNvrtcApi;

typedef struct {
  CublasStatus (*cublasCreate)(CublasHandle *handle);
  CublasStatus (*cublasDestroy)(CublasHandle handle);
  CublasStatus (*cublasSetStream)(CublasHandle handle, CudaStream stream);
  CublasStatus (*cublasGetVersion)(CublasHandle handle, int *version);
  CublasStatus (*cublasSgemm)(CublasHandle handle, CublasOperation transa, CublasOperation transb,
                              int m, int n, int k, const float *alpha, const float *a, int lda,
                              const float *b, int ldb, const float *beta, float *c, int ldc);
  CublasStatus (*cublasDgemm)(CublasHandle handle, CublasOperation transa, CublasOperation transb,
                              int m, int n, int k, const double *alpha, const double *a, int lda,
                              const double *b, int ldb, const double *beta, double *c, int ldc);
} CudaCublasApi;

/* One library: whether it loaded, from where, and why not. */
typedef struct {
  bool loaded;
  char *path;  /* the name or path dlopen accepted */
  char *error; /* why it did not load (NULL when loaded) */
} CudaLibStatus;

typedef struct {
  CudaLibStatus driver, nvrtc, cublas;
  CudaDriverApi cu;
  CudaNvrtcApi nvrtc_api;
  CudaCublasApi cublas_api;
  int driver_version; /* 13000 for 13.0; 0 unknown */
  int nvrtc_major, nvrtc_minor;
  GArray *nvrtc_archs; /* of int (75, 80, ...), ascending; empty when unknown */
  /* The device (ordinal 0), when the driver initialized and one exists. */
  bool device_present;
  char *device_error; /* why there is no usable device (NULL when present) */
  int device_count;
  CudaDevice device;
  CudaContext context; /* the primary context, retained */
  char device_name[256];
  int cc_major, cc_minor;
  int sm_count;
  size_t total_mem;
  bool memory_pools; /* cuMemAllocAsync usable */
} CudaStatus;

/* The process-wide status (loads on first call). Never NULL. */
const CudaStatus *cuda_loader_get(void);

/* Multi-line human description ("driver: ...\nnvrtc: ...\ncublas: ...\ndevice: ..."), for
 * `jitscope --version` and notes. */
void cuda_status_describe(GString *out, const CudaStatus *status);

/* One line saying what of CUDA is unavailable and why, or NULL when everything (driver,
 * nvrtc, a device) is usable. */
char *cuda_status_unavailable_reason(const CudaStatus *status);

/* The same line the first time it is asked for in this process (NULL afterwards, and NULL when
 * nothing is missing): callers print it so that the reason is said once. */
char *cuda_loader_take_unavailable_note(void);

/* "CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected" (or the number when the driver
 * does not know it). */
char *cuda_result_describe(const CudaStatus *status, CudaResult result);

/* Makes the primary context current on the calling thread; false with *error when there is
 * no device. */
bool cuda_loader_make_current(GError **error);

#endif
