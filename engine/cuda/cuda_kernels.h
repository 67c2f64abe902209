/* The CUDA runtime's own kernels (besides the generated elementwise ones): a strided copy with
 * dtype conversion (contiguous copies, dtype casts, broadcasting, cat pieces, fills) and a sum
 * over a set of dims (sum, sum.dim_IntList, sum_to for _grad_sum_to_size and fusion-group
 * outputs).
 *
 * Contracts:
 * - Sources are generated per (source dtype, result dtype) from one template each, compiled by
 *   nvrtc once per process for the device's arch and cached (the PTX even without a device,
 *   for tests). 64-bit indexing, any rank up to RT_MAX_DIMS, any strides >= 0.
 * - Conversions as rt_tensor_copy_into: float -> int64 truncates toward zero, NaN and
 *   out-of-range values give INT64_MIN; nonzero -> true; half through float.
 * - Sums accumulate in double (floating dtypes) or int64 (int64, bool); when the reduced count
 *   is at most 32 one thread sums one output element, else one block of 256 threads does
 *   (shared-memory tree).
 * - Every function taking tensors wants device tensors (cuda_tensor.h) and returns device
 *   tensors; errors as GError (JITSCOPE_CUDA_ERROR or the runtime's shape errors). */
#ifndef JITSCOPE_CUDA_KERNELS_H
#define JITSCOPE_CUDA_KERNELS_H

#include "cuda/cuda_compile.h"
#include "tensor/tensor.h"

typedef enum { CUDA_RT_COPY, CUDA_RT_SUM } CudaRtKernelKind;

/* The source of one runtime kernel and the names of its entry points ("<name>" for copy;
 * "<name>_block" and "<name>_thread" for sum). */
char *cuda_rt_kernel_source(CudaRtKernelKind kind, IrDtype src, IrDtype dst, const char *name);

/* Compiles (cached) the kernel for this device or, without one, for `arch` (NULL: the lowest
 * arch nvrtc has): for tests. Returns the compile result (owned by the cache). */
const CudaCompileResult *cuda_rt_kernel_compile(CudaRtKernelKind kind, IrDtype src, IrDtype dst,
                                                GError **error);

/* dst[...] = src broadcast to dst's shape (dtypes converted). */
bool cuda_copy_into(RtTensor *dst, const RtTensor *src, GError **error);
/* t itself (new reference) when contiguous, else a contiguous device copy. */
RtTensor *cuda_contiguous(RtTensor *t, GError **error);
RtTensor *cuda_to_dtype(RtTensor *t, IrDtype dtype, GError **error);
/* A contiguous device tensor of `sizes` filled with value. */
RtTensor *cuda_full(IrDtype dtype, int ndim, const int64_t *sizes, double value, GError **error);

/* Sums the dims where reduce[d] (keepdim: they stay as 1) into `out_dtype`. */
RtTensor *cuda_sum_dims(RtTensor *t, const bool *reduce, bool keepdim, IrDtype out_dtype,
                        GError **error);
/* rt_tensor_sum_to on the device (t itself when it already has `sizes`). */
RtTensor *cuda_sum_to(RtTensor *t, int ndim, const int64_t *sizes, GError **error);

#endif
