/* CUDA device tensors: stream, memory, copies (contract in cuda_tensor.h). */
#include "cuda/cuda_tensor.h"

#include <string.h>

#include "cuda/cuda_ops.h"

static GRecMutex runtime_lock;
static CudaStream runtime_stream;

bool cuda_check(CudaResult r, const char *call, GError **error) {
  if (r == 0)
    return true;
  char *why = cuda_result_describe(cuda_loader_get(), r);
  g_set_error(error, JITSCOPE_CUDA_ERROR, CUDA_ERROR_DRIVER, "%s: %s", call, why);
  g_free(why);
  return false;
}

/* Keeps freed blocks in the default pool across synchronizations (the pool's default
 * threshold of 0 returns them to the OS at every cuStreamSynchronize). */
static void keep_pool_memory(const CudaStatus *s) {
  CudaMemPool pool = NULL;
  if (s->cu.cuDeviceGetDefaultMemPool == NULL || s->cu.cuMemPoolSetAttribute == NULL ||
      s->cu.cuDeviceGetDefaultMemPool(&pool, s->device) != 0)
    return;
  guint64 threshold = G_MAXUINT64;
  s->cu.cuMemPoolSetAttribute(pool, CUDA_MEMPOOL_ATTR_RELEASE_THRESHOLD, &threshold);
}

bool cuda_runtime_begin(GError **error) {
  const CudaStatus *s = cuda_loader_get();
  if (!s->device_present) {
    g_set_error(error, JITSCOPE_CUDA_ERROR, CUDA_ERROR_UNAVAILABLE, "no CUDA device: %s",
                s->device_error);
    return false;
  }
  if (!s->memory_pools) {
    g_set_error(error, JITSCOPE_CUDA_ERROR, CUDA_ERROR_UNAVAILABLE,
                "the device does not support stream-ordered allocation (cuMemAllocAsync)");
    return false;
  }
  g_rec_mutex_lock(&runtime_lock);
  if (!cuda_loader_make_current(error)) {
    g_rec_mutex_unlock(&runtime_lock);
    return false;
  }
  if (runtime_stream == NULL) {
    if (!cuda_check(s->cu.cuStreamCreate(&runtime_stream, 0), "cuStreamCreate", error)) {
      runtime_stream = NULL;
      g_rec_mutex_unlock(&runtime_lock);
      return false;
    }
    keep_pool_memory(s);
    /* Device memory exists from here on: the runtime must know how to run ops on it. */
    cuda_ops_register();
  }
  return true;
}

void cuda_runtime_end(void) {
  g_rec_mutex_unlock(&runtime_lock);
}

CudaStream cuda_runtime_stream(void) {
  return runtime_stream;
}

bool cuda_device_alloc(size_t bytes, CudaDevicePtr *ptr, GError **error) {
  if (!cuda_runtime_begin(error))
    return false;
  const CudaStatus *s = cuda_loader_get();
  /* Zero-byte tensors still get a distinct address. */
  bool ok = cuda_check(s->cu.cuMemAllocAsync(ptr, bytes ? bytes : 16, runtime_stream),
                       "cuMemAllocAsync", error);
  cuda_runtime_end();
  return ok;
}

void cuda_device_free(CudaDevicePtr ptr) {
  if (!cuda_runtime_begin(NULL))
    return;
  cuda_loader_get()->cu.cuMemFreeAsync(ptr, runtime_stream);
  cuda_runtime_end();
}

static void storage_free(void *data, void *ctx) {
  (void)ctx;
  cuda_device_free((CudaDevicePtr)(guintptr)data);
}

RtStorage *cuda_storage_wrap(CudaDevicePtr ptr, size_t nbytes) {
  RtStorage *storage = g_new0(RtStorage, 1);
  storage->refcount = 1;
  storage->device = IR_DEVICE_CUDA;
  storage->nbytes = nbytes;
  storage->data = (void *)(guintptr)ptr;
  storage->free_fn = storage_free;
  return storage;
}

CudaDevicePtr cuda_tensor_ptr(const RtTensor *t) {
  return (CudaDevicePtr)(guintptr)t->storage->data +
         (CudaDevicePtr)(t->offset * (int64_t)rt_dtype_size(t->dtype));
}

RtTensor *cuda_tensor_empty(IrDtype dtype, int ndim, const int64_t *sizes, GError **error) {
  int64_t numel = 1;
  for (int d = 0; d < ndim; d++)
    numel *= sizes[d];
  size_t bytes = (size_t)numel * rt_dtype_size(dtype);
  CudaDevicePtr ptr;
  if (!cuda_device_alloc(bytes, &ptr, error))
    return NULL;
  RtStorage *storage = cuda_storage_wrap(ptr, bytes);
  int64_t strides[RT_MAX_DIMS];
  rt_contiguous_strides(ndim, sizes, strides);
  RtTensor *t = rt_tensor_new_strided(storage, dtype, ndim, sizes, strides, 0);
  rt_storage_unref(storage);
  return t;
}

RtTensor *cuda_tensor_from_host(const RtTensor *host, GError **error) {
  if (host->storage->device != IR_DEVICE_CPU) {
    g_set_error(error, JITSCOPE_CUDA_ERROR, CUDA_ERROR_ARGUMENT,
                "cuda_tensor_from_host: the tensor is not in host memory");
    return NULL;
  }
  RtTensor *src = rt_tensor_contiguous((RtTensor *)host);
  RtTensor *d = cuda_tensor_empty(src->dtype, src->ndim, src->sizes, error);
  size_t bytes = (size_t)rt_tensor_numel(src) * rt_dtype_size(src->dtype);
  if (d && bytes) {
    bool ok = cuda_runtime_begin(error);
    if (ok) {
      /* Pageable source: the call returns once the bytes are staged, so src may go. */
      ok = cuda_check(cuda_loader_get()->cu.cuMemcpyHtoDAsync(
                          cuda_tensor_ptr(d), rt_tensor_data(src), bytes, runtime_stream),
                      "cuMemcpyHtoDAsync", error);
      cuda_runtime_end();
    }
    if (!ok)
      g_clear_pointer(&d, rt_tensor_unref);
  }
  rt_tensor_unref(src);
  return d;
}

RtTensor *cuda_tensor_to_host(const RtTensor *t, GError **error) {
  if (!(t->storage->device == IR_DEVICE_CUDA && t->storage->free_fn != NULL)) {
    g_set_error(error, JITSCOPE_CUDA_ERROR, CUDA_ERROR_ARGUMENT,
                "cuda_tensor_to_host: the tensor is not in CUDA memory");
    return NULL;
  }
  /* The span of elements the view covers (strides are never negative here). */
  int64_t numel = rt_tensor_numel(t), span = 1;
  for (int d = 0; d < t->ndim; d++) {
    if (t->strides[d] < 0) {
      g_set_error(error, JITSCOPE_CUDA_ERROR, CUDA_ERROR_ARGUMENT,
                  "cuda_tensor_to_host: negative strides are not supported");
      return NULL;
    }
    span += (t->sizes[d] - 1) * t->strides[d];
  }
  if (numel == 0)
    return rt_tensor_new(t->dtype, t->ndim, t->sizes);
  size_t es = rt_dtype_size(t->dtype);
  RtStorage *storage = rt_storage_new_host((size_t)span * es);
  bool ok = cuda_runtime_begin(error);
  if (ok) {
    const CudaStatus *s = cuda_loader_get();
    ok = cuda_check(s->cu.cuMemcpyDtoHAsync(storage->data, cuda_tensor_ptr(t), (size_t)span * es,
                                            runtime_stream),
                    "cuMemcpyDtoHAsync", error) &&
         cuda_check(s->cu.cuStreamSynchronize(runtime_stream), "cuStreamSynchronize", error);
    cuda_runtime_end();
  }
  if (!ok) {
    rt_storage_unref(storage);
    return NULL;
  }
  RtTensor *view = rt_tensor_new_strided(storage, t->dtype, t->ndim, t->sizes, t->strides, 0);
  rt_storage_unref(storage);
  RtTensor *host = rt_tensor_contiguous(view);
  rt_tensor_unref(view);
  return host;
}

bool cuda_runtime_launch(CudaFunction fn, guint grid, guint block, guint shared_bytes,
                         void **params, GError **error) {
  return cuda_check(cuda_loader_get()->cu.cuLaunchKernel(fn, grid, 1, 1, block, 1, 1, shared_bytes,
                                                         runtime_stream, params, NULL),
                    "cuLaunchKernel", error);
}

bool cuda_runtime_synchronize(GError **error) {
  if (!cuda_runtime_begin(error))
    return false;
  bool ok = cuda_check(cuda_loader_get()->cu.cuStreamSynchronize(runtime_stream),
                       "cuStreamSynchronize", error);
  cuda_runtime_end();
  return ok;
}
