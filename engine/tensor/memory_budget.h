/* The host memory budget: an upper bound on the bytes of tensor storage a process holds, so
 * that input of hostile size (a spec of 40 GB, an expand to 10^10 elements, a loop that
 * doubles a tensor) ends in a located error instead of the kernel's OOM killer or an abort.
 *
 * Contracts:
 * - Every host storage (rt_storage_new_host) is counted while it lives; device memory is not.
 * - Allocations whose size the user controls go through the checked constructors below (or
 *   rt_memory_check first); they fail with RT_ERROR_MEMORY when the storage would exceed the
 *   budget, or RT_ERROR_SHAPE when the sizes are negative or their product overflows.
 *   Internal temporaries no larger than tensors that already exist are not checked.
 * - The budget is process-wide (one atomic counter), set once by the command line
 *   (--max-memory) or left at its default: half the physical memory. */
#ifndef JITSCOPE_TENSOR_MEMORY_BUDGET_H
#define JITSCOPE_TENSOR_MEMORY_BUDGET_H

#include "tensor/tensor.h"

/* Sets the budget in bytes; 0 restores the default. */
void rt_memory_budget_set(guint64 bytes);
/* Called by the storage allocator only. */
void rt_memory_note_alloc(size_t nbytes);
void rt_memory_note_free(size_t nbytes);

/* Whether nbytes more fit the budget; RT_ERROR_MEMORY saying how much was asked, the budget
 * and what is in use otherwise. */
bool rt_memory_check(guint64 nbytes, GError **error);

/* Element count of a shape, checked: no negative size, and the product of the sizes (with
 * 0 counted as 1, so that contiguous strides cannot overflow either) fits int64, and the
 * bytes of dtype fit size_t. RT_ERROR_SHAPE naming the shape otherwise. */
bool rt_shape_checked_bytes(IrDtype dtype, int ndim, const int64_t *sizes, guint64 *nbytes,
                            GError **error);

/* rt_tensor_new / rt_tensor_zeros / rt_tensor_full with the shape and the budget checked
 * first: NULL with *error set when they fail. */
RtTensor *rt_tensor_new_checked(IrDtype dtype, int ndim, const int64_t *sizes, GError **error);
RtTensor *rt_tensor_zeros_checked(IrDtype dtype, int ndim, const int64_t *sizes, GError **error);
RtTensor *rt_tensor_full_checked(IrDtype dtype, int ndim, const int64_t *sizes, double value,
                                 GError **error);

#endif
