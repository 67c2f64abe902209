/* CUDA device tensors: the runtime's one stream, stream-ordered device memory, host<->device
 * copies (all driver calls through cuda_loader).
 *
 * Contracts:
 * - One process-wide stream carries every allocation, copy, kernel and free of the CUDA
 *   runtime and of the CUDA fusion backend, in order; a GRecMutex serializes their use
 *   (cuda_runtime_begin / cuda_runtime_end bracket it and make the primary context current).
 * - Device storage: device IR_DEVICE_CUDA, memory from cuMemAllocAsync on that stream (the
 *   device's default memory pool, kept by the pool rather than returned to the OS at every
 *   synchronization), free_fn = cuMemFreeAsync on that stream. Freed storage can be reused by
 *   later work on the stream only, so no synchronization is needed on free.
 * - to_host synchronizes the stream before the host reads; it copies only the span the view
 *   covers and returns a contiguous host tensor. to_device copies a host tensor (made
 *   contiguous first) into a fresh contiguous device tensor.
 * - Without a device every function fails with a GError (CUDA_ERROR_UNAVAILABLE) that names
 *   what is missing. */
#ifndef JITSCOPE_CUDA_TENSOR_H
#define JITSCOPE_CUDA_TENSOR_H

#include "cuda/cuda_loader.h"
#include "tensor/tensor.h"

/* Locks the runtime, makes the context current, creates the stream on first use. False with
 * *error (and not locked) when there is no usable device. Recursive. */
bool cuda_runtime_begin(GError **error);
void cuda_runtime_end(void);
/* The stream (valid between begin and end). */
CudaStream cuda_runtime_stream(void);

/* Stream-ordered device memory (between begin and end or not: these lock themselves). */
bool cuda_device_alloc(size_t bytes, CudaDevicePtr *ptr, GError **error);
void cuda_device_free(CudaDevicePtr ptr);
/* Storage owning `ptr` (freed with cuda_device_free when the last reference goes). */
RtStorage *cuda_storage_wrap(CudaDevicePtr ptr, size_t nbytes);
/* The device address of a device tensor's element 0. */
CudaDevicePtr cuda_tensor_ptr(const RtTensor *t);

/* A fresh contiguous device tensor (values undefined). */
RtTensor *cuda_tensor_empty(IrDtype dtype, int ndim, const int64_t *sizes, GError **error);
RtTensor *cuda_tensor_from_host(const RtTensor *host, GError **error);
RtTensor *cuda_tensor_to_host(const RtTensor *device, GError **error);

/* Checks a driver result; false with *error (CUDA_ERROR_DRIVER) naming `call`. */
bool cuda_check(CudaResult result, const char *call, GError **error);

/* Launches `fn` on the runtime stream (between begin and end). */
bool cuda_runtime_launch(CudaFunction fn, guint grid, guint block, guint shared_bytes,
                         void **params, GError **error);

/* Waits for everything queued on the stream. */
bool cuda_runtime_synchronize(GError **error);

#endif
