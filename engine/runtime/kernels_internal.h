/* Shared helpers of the CPU kernels (kernels_*.c) beyond the argument readers and dtype rules
 * they share with device backends (kernel_args.h); not part of the engine's public API.
 *
 * Contracts:
 * - K_INVARIANT aborts for conditions only a bug in the engine can cause.
 * - The strided iterator (KIter) walks operands broadcast to one shape; operand 0 is by
 *   convention the output. Strides are in elements. */
#ifndef JITSCOPE_RUNTIME_KERNELS_INTERNAL_H
#define JITSCOPE_RUNTIME_KERNELS_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "ir/ops.h"
#include "runtime/kernel_args.h"
#include "runtime/value.h"
#include "tensor/memory_budget.h"
#include "tensor/tensor.h"

#define K_INVARIANT(cond, what)                                                     \
  do {                                                                              \
    if (G_UNLIKELY(!(cond)))                                                        \
      g_error("kernel invariant violated: %s (%s:%d)", (what), __FILE__, __LINE__); \
  } while (0)

/* Input errors in the JITSCOPE_RUNTIME_ERROR domain: bad values, shapes, dtypes. */
#define K_ERR(error, ...) g_set_error((error), JITSCOPE_RUNTIME_ERROR, RT_ERROR_VALUE, __VA_ARGS__)
#define K_ERR_SHAPE(error, ...) \
  g_set_error((error), JITSCOPE_RUNTIME_ERROR, RT_ERROR_SHAPE, __VA_ARGS__)
#define K_ERR_DTYPE(error, ...) \
  g_set_error((error), JITSCOPE_RUNTIME_ERROR, RT_ERROR_DTYPE, __VA_ARGS__)

/* PyTorch's result_type: tensors of rank > 0 lead, 0-dim tensors and then wrapped numbers
 * only raise the category (a float Scalar gives the default dtype float32). */
typedef struct {
  IrDtype dim_result;
  IrDtype zero_result;
  IrDtype wrapped_result;
} KResultType;
void k_result_init(KResultType *r);
void k_result_add_tensor(KResultType *r, const RtTensor *t);
void k_result_add_scalar(KResultType *r, KScalar s);
IrDtype k_result_get(const KResultType *r);

/* New reference to t converted to dtype (t itself, referenced, when it already has it). */
RtTensor *k_to_dtype(RtTensor *t, IrDtype dtype);

/* ---- strided iteration ---- */

#define K_MAX_OPERANDS 4

typedef struct {
  int ndim;
  int64_t sizes[RT_MAX_DIMS];
  int nops;
  char *base[K_MAX_OPERANDS];
  size_t elsize[K_MAX_OPERANDS];
  int64_t strides[K_MAX_OPERANDS][RT_MAX_DIMS]; /* elements */
} KIter;

/* Inner loop: n elements; ptrs[k] points at operand k's first element of the run and
 * strides[k] is its step in elements (0 for a broadcast operand). */
typedef void (*KInnerLoop)(int64_t n, char **ptrs, const int64_t *strides, void *ctx);

void k_iter_init(KIter *it, int ndim, const int64_t *sizes);
/* Adds t broadcast (right-aligned, size-1 dims get stride 0) to the iteration shape; the
 * caller has checked that the shapes broadcast. */
void k_iter_add_tensor(KIter *it, const RtTensor *t);
/* Adds one element that every position reads (stride 0 everywhere). */
void k_iter_add_broadcast_scalar(KIter *it, void *element, size_t elsize);
/* Runs loop over every position: dims are coalesced where every operand allows, so a
 * contiguous same-shape case is one call with unit strides. */
void k_iter_run(KIter *it, KInnerLoop loop, void *ctx);

/* Copies src into dst elementwise (same dtype; src broadcast to dst's shape). */
void k_copy_into(RtTensor *dst, const RtTensor *src);

/* ---- shapes ---- */

bool k_broadcast(int ndim_a, const int64_t *a, int ndim_b, const int64_t *b, int *ndim_out,
                 int64_t *out, GError **error);
/* k_wrap_dim for an int64 count: index in [-count, count) (a count of 0 accepts -1 and 0),
 * wrapped into [0, count); PyTorch's "Dimension out of range" error otherwise (PyTorch 1.13
 * wraps narrow's start the same way, with the same message). */
bool k_wrap_index(int64_t index, int64_t count, int64_t *out, GError **error);
/* narrow's bounds as PyTorch 1.13 checks them against a dim of `size` (kernels_layout.c):
 * start == size is the empty narrow at the end, any other start is wrapped by k_wrap_index;
 * then [start, start + length) must lie within the dim. constant_pad_nd crops through it. */
bool k_narrow_bounds(int64_t size, int64_t *start, int64_t length, GError **error);

/* aten::pad in mode 'reflect', 'replicate' or 'circular' after aten::pad's own checks
 * (kernels_pad_modes.c). */
bool k_pad_by_mode(const char *mode, RtTensor *self, const int64_t *pad, int n_pad, RtValue *out,
                   GError **error);

/* Runs the kernel of kind's overload named `overload` (an op-table row: its absence is a bug)
 * on n arguments into *out: for kernels written as PyTorch's composites of other ops. */
bool k_run_overload(IrOpKind kind, const char *overload, RtValue *args, guint n, RtValue *out,
                    GError **error);

/* "[2, 3]" appended to a fixed buffer for messages. */
void k_shape_text(char *buf, size_t len, int ndim, const int64_t *sizes);

#endif
