/* CPU tensors: reference-counted strided views over reference-counted storage.
 *
 * Contracts:
 * - rt_tensor_* constructors return a new reference; rt_tensor_unref releases one.
 * - A view (rt_tensor_view_*) shares storage with its base.
 * - Element offsets and strides are in elements, not bytes.
 * - Every function that can fail on user data (shapes, dtypes) takes a GError. */
#ifndef JITSCOPE_RUNTIME_TENSOR_H
#define JITSCOPE_RUNTIME_TENSOR_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "ir/type.h"

#define RT_MAX_DIMS IR_MAX_RANK

#define JITSCOPE_RUNTIME_ERROR (jitscope_runtime_error_quark())
GQuark jitscope_runtime_error_quark(void);

typedef struct RtStorage {
  gint refcount;
  int device; /* IrDevice */
  size_t nbytes;
  void *data;
  /* For device memory the backend frees it; NULL for host memory allocated here. */
  void (*free_fn)(void *data, void *ctx);
  void *free_ctx;
} RtStorage;

typedef struct RtTensor {
  gint refcount;
  RtStorage *storage;
  IrDtype dtype;
  int ndim;
  int64_t sizes[RT_MAX_DIMS];
  int64_t strides[RT_MAX_DIMS];
  int64_t offset;
  bool requires_grad;
  /* Eager autograd (issue: executor/autodiff); NULL when not recording. */
  struct RtGradNode *grad_fn;
  guint grad_output_index;
} RtTensor;

RtTensor *rt_tensor_new(IrDtype dtype, int ndim, const int64_t *sizes); /* contiguous, uninit */
RtTensor *rt_tensor_zeros(IrDtype dtype, int ndim, const int64_t *sizes);
RtTensor *rt_tensor_full(IrDtype dtype, int ndim, const int64_t *sizes, double value);
RtTensor *rt_tensor_scalar(IrDtype dtype, double value); /* 0-dim */
/* Normal(0, 1) values from a deterministic generator seeded with `seed`. */
RtTensor *rt_tensor_randn(IrDtype dtype, int ndim, const int64_t *sizes, guint64 seed);
RtTensor *rt_tensor_ref(RtTensor *t);
void rt_tensor_unref(RtTensor *t);

int64_t rt_tensor_numel(const RtTensor *t);
bool rt_tensor_is_contiguous(const RtTensor *t);
RtTensor *rt_tensor_contiguous(RtTensor *t); /* new reference; t itself when contiguous */
RtTensor *rt_tensor_clone(const RtTensor *t);
RtTensor *rt_tensor_to_dtype(const RtTensor *t, IrDtype dtype);
/* Pointer to the first element (storage data + offset). */
void *rt_tensor_data(const RtTensor *t);
/* Element at a linear (row-major logical) index, converted to double: for tests/printing. */
double rt_tensor_get(const RtTensor *t, int64_t linear_index);
void rt_tensor_set(RtTensor *t, int64_t linear_index, double value);

/* Views. */
RtTensor *rt_tensor_view_transpose(RtTensor *t, int dim0, int dim1);
RtTensor *rt_tensor_view_narrow(RtTensor *t, int dim, int64_t start, int64_t length);
RtTensor *rt_tensor_view_expand(RtTensor *t, int ndim, const int64_t *sizes, GError **error);
RtTensor *rt_tensor_view_unsqueeze(RtTensor *t, int dim);
RtTensor *rt_tensor_view_squeeze(RtTensor *t, int dim); /* dim < 0: all size-1 dims */
/* Reshape as a view when strides allow, else a copy (PyTorch's reshape). view requires the
 * view to be possible. -1 infers one size. */
RtTensor *rt_tensor_reshape(RtTensor *t, int ndim, const int64_t *sizes, bool must_view,
                            GError **error);

/* Broadcasting: the broadcast shape of two shapes, or an error naming both. */
bool rt_broadcast_shapes(int ndim_a, const int64_t *a, int ndim_b, const int64_t *b, int *ndim_out,
                         int64_t *out, GError **error);
/* Sums `t` down to `sizes` (PyTorch's sum_to / _grad_sum_to_size): leading dims summed away,
 * dims where sizes has 1 summed with keepdim. */
RtTensor *rt_tensor_sum_to(RtTensor *t, int ndim, const int64_t *sizes, GError **error);
/* PyTorch's type promotion for two operands (dim-0 tensors and scalars rank lower). */
IrDtype rt_promote_types(IrDtype a, IrDtype b);

/* Shape text "[5, 1]" for messages. */
char *rt_shape_to_string(int ndim, const int64_t *sizes);

/* The IR type that exactly describes t (complete: sizes and strides). */
const IrType *rt_tensor_type(const RtTensor *t);

#endif
