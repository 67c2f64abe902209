/* Our CUDA declarations (cuda/cuda_loader.h, cuda/cuda_entry_points.def) against the toolkit's
 * headers, since no GPU machine ever calls through them in CI: a field whose type differs from
 * the official prototype, a struct field the loader does not fill, or a constant that differs
 * fails the build; a name the loader looks up first that is not the one the headers bind
 * (cuDeviceTotalMem is cuDeviceTotalMem_v2) fails at run time. Exit 77 without the headers. */
#include <stdio.h>
#include <string.h>

#if defined(__has_include)
#if __has_include(<cuda.h>) && __has_include(<nvrtc.h>) && __has_include(<cublas_v2.h>)
#define HAVE_CUDA_HEADERS 1
#endif
#endif

#ifdef HAVE_CUDA_HEADERS

#include <cublas_v2.h>
#include <cuda.h>
#include <nvrtc.h>

#define JITSCOPE_CUDA_OFFICIAL_TYPES
#include "cuda/cuda_loader.h"

/* The headers #define names such as cuDeviceTotalMem to the versioned function, so `field`
 * (expanded) names what a program built against them calls. */
#define CHECK_TYPE(api, field)                                                                    \
  _Static_assert(__builtin_types_compatible_p(__typeof__(((api *)0)->field), __typeof__(&field)), \
                 "cuda_loader.h declares " #field " unlike the official headers");

#define DRIVER(field) CHECK_TYPE(CudaDriverApi, field)
#define DRIVER_V2(field) CHECK_TYPE(CudaDriverApi, field)
#define DRIVER_OPTIONAL(field) CHECK_TYPE(CudaDriverApi, field)
#define NVRTC(field) CHECK_TYPE(CudaNvrtcApi, field)
#define NVRTC_OPTIONAL(field) CHECK_TYPE(CudaNvrtcApi, field)
#define CUBLAS_V2(field) CHECK_TYPE(CudaCublasApi, field)
#include "cuda/cuda_entry_points.def"

/* A struct field missing from the .def would stay NULL and escape the checks above. */
enum {
  N_DRIVER = 0
#define DRIVER(field) +1
#define DRIVER_V2(field) +1
#define DRIVER_OPTIONAL(field) +1
#include "cuda/cuda_entry_points.def"
};
enum {
  N_NVRTC = 0
#define NVRTC(field) +1
#define NVRTC_OPTIONAL(field) +1
#include "cuda/cuda_entry_points.def"
};
enum {
  N_CUBLAS = 0
#define CUBLAS_V2(field) +1
#include "cuda/cuda_entry_points.def"
};
typedef void (*AnyFunction)(void);
_Static_assert(sizeof(CudaDriverApi) == N_DRIVER * sizeof(AnyFunction),
               "a CudaDriverApi field is not in cuda_entry_points.def");
_Static_assert(sizeof(CudaNvrtcApi) == N_NVRTC * sizeof(AnyFunction),
               "a CudaNvrtcApi field is not in cuda_entry_points.def");
_Static_assert(sizeof(CudaCublasApi) == N_CUBLAS * sizeof(AnyFunction),
               "a CudaCublasApi field is not in cuda_entry_points.def");

/* Ints on both sides, as the enums differ (-Wenum-compare). */
#define SAME_VALUE(ours, official) \
  _Static_assert((int)(ours) == (int)(official), #ours " is not " #official);
SAME_VALUE(CUDA_ATTR_MAX_THREADS_PER_BLOCK, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)
SAME_VALUE(CUDA_ATTR_MULTIPROCESSOR_COUNT, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
SAME_VALUE(CUDA_ATTR_COMPUTE_CAPABILITY_MAJOR, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)
SAME_VALUE(CUDA_ATTR_COMPUTE_CAPABILITY_MINOR, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)
SAME_VALUE(CUDA_ATTR_MEMORY_POOLS_SUPPORTED, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED)
SAME_VALUE(CUDA_MEMPOOL_ATTR_RELEASE_THRESHOLD, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD)
SAME_VALUE(CUBLAS_OP_NO_TRANS, CUBLAS_OP_N)
SAME_VALUE(CUBLAS_OP_TRANS, CUBLAS_OP_T)

_Static_assert(__builtin_types_compatible_p(CudaDevice, CUdevice), "CudaDevice");
_Static_assert(__builtin_types_compatible_p(CudaDevicePtr, CUdeviceptr), "CudaDevicePtr");
_Static_assert(sizeof(CudaDevicePtr) == sizeof(CUdeviceptr), "CudaDevicePtr");
/* The normal build declares these enums as int: the same size keeps calls compatible. */
_Static_assert(sizeof(CUresult) == sizeof(int), "CUresult");
_Static_assert(sizeof(CUdevice_attribute) == sizeof(int), "CUdevice_attribute");
_Static_assert(sizeof(CUmemPool_attribute) == sizeof(int), "CUmemPool_attribute");
_Static_assert(sizeof(nvrtcResult) == sizeof(int), "nvrtcResult");
_Static_assert(sizeof(cublasStatus_t) == sizeof(int), "cublasStatus_t");
_Static_assert(sizeof(cublasOperation_t) == sizeof(int), "cublasOperation_t");

typedef struct {
  const char *field;     /* as spelled in the .def */
  const char *looked_up; /* the first name cuda_loader.c's macro of that kind passes to dlsym */
  const char *official;  /* the function the headers bind the name to */
} EntryPoint;

#define CUDA_MAJOR (CUDA_VERSION / 1000)
#define CUDA_MINOR (CUDA_VERSION % 1000 / 10)
#define STRINGIFY(x) #x
#define EXPANDED(x) STRINGIFY(x)

static const EntryPoint entry_points[] = {
#define DRIVER(field) {#field, #field, EXPANDED(field)},
#define DRIVER_V2(field) {#field, #field "_v2", EXPANDED(field)},
#define DRIVER_OPTIONAL(field) {#field, #field, EXPANDED(field)},
#define NVRTC(field) {#field, #field, EXPANDED(field)},
#define NVRTC_OPTIONAL(field) {#field, #field, EXPANDED(field)},
#define CUBLAS_V2(field) {#field, #field "_v2", EXPANDED(field)},
#include "cuda/cuda_entry_points.def"
};

int main(void) {
  unsigned n = sizeof entry_points / sizeof entry_points[0];
  int failed = 0;
  for (unsigned i = 0; i < n; i++) {
    const EntryPoint *e = &entry_points[i];
    if (strcmp(e->looked_up, e->official) != 0) {
      printf("%s: the loader looks up %s first, the CUDA %d.%d headers call %s\n", e->field,
             e->looked_up, CUDA_MAJOR, CUDA_MINOR, e->official);
      failed = 1;
    }
  }
  if (failed)
    return 1;
  printf("%u entry points checked against the CUDA %d.%d headers\n", n, CUDA_MAJOR, CUDA_MINOR);
  return 0;
}

#else

int main(void) {
  printf("skipped: cuda.h, nvrtc.h or cublas_v2.h not found (the CUDA toolkit's headers)\n");
  return 77;
}

#endif
