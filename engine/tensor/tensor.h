/* CPU tensors: reference-counted strided views over reference-counted storage.
 *
 * Contracts:
 * - rt_tensor_* constructors return a new reference; rt_tensor_unref releases one.
 * - A view (rt_tensor_view_*) shares storage with its base.
 * - Element offsets and strides are in elements, not bytes.
 * - Every function that can fail on user data (shapes, dtypes) takes a GError. */
#ifndef JITSCOPE_TENSOR_TENSOR_H
#define JITSCOPE_TENSOR_TENSOR_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "tensor/dtype.h"

#define RT_MAX_DIMS IR_MAX_RANK

#define JITSCOPE_RUNTIME_ERROR (jitscope_runtime_error_quark())
GQuark jitscope_runtime_error_quark(void);

/* Error codes in the JITSCOPE_RUNTIME_ERROR domain. */
typedef enum {
  RT_ERROR_SHAPE,     /* sizes not broadcastable / not viewable / out of range */
  RT_ERROR_DTYPE,     /* unsupported or mismatched dtype */
  RT_ERROR_VALUE,     /* bad argument value */
  RT_ERROR_IO,        /* file could not be read or written */
  RT_ERROR_FORMAT,    /* malformed file contents (.npy) */
  RT_ERROR_MEMORY,    /* the memory budget (memory_budget.h) would be exceeded */
  RT_ERROR_CANCELLED, /* the run was cancelled or ran past its step budget (run_control.h) */
} RtErrorCode;

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

/* ---- Additions beyond the first interface (runtime engineer) ---- */

/* Bytes per element of dtype (same as ir_dtype_size; the tensor layer has no IR library).
 * Inline, as rt_tensor_data: every kernel call asks several times. */
G_NORETURN void rt_dtype_size_invalid(IrDtype dtype);
static inline size_t rt_dtype_size(IrDtype dtype) {
  switch (dtype) {
  case IR_DTYPE_FLOAT32: return 4;
  case IR_DTYPE_FLOAT64: return 8;
  case IR_DTYPE_FLOAT16: return 2;
  case IR_DTYPE_INT64: return 8;
  case IR_DTYPE_BOOL: return 1;
  default: break;
  }
  rt_dtype_size_invalid(dtype);
}

/* Pointer to the first element (storage data + offset). */
static inline void *rt_tensor_data(const RtTensor *t) {
  return (char *)t->storage->data + t->offset * (int64_t)rt_dtype_size(t->dtype);
}

/* Storage: host memory here is 64-byte aligned and zero-filled padding up to a multiple of
 * 64 bytes. A device backend builds its own RtStorage with free_fn set. */
RtStorage *rt_storage_new_host(size_t nbytes);
RtStorage *rt_storage_ref(RtStorage *s);
void rt_storage_unref(RtStorage *s);
/* A tensor over existing storage (takes a new reference to storage itself). */
RtTensor *rt_tensor_new_strided(RtStorage *storage, IrDtype dtype, int ndim, const int64_t *sizes,
                                const int64_t *strides, int64_t offset);
/* Contiguous row-major strides for sizes. */
void rt_contiguous_strides(int ndim, const int64_t *sizes, int64_t *strides);

/* The eager autograd tape owns grad_fn; it installs how a tensor releases it. Without a
 * hook, freeing a tensor whose grad_fn is set aborts (invariant: only the tape sets it). */
void rt_tensor_set_grad_fn_release(void (*release)(struct RtGradNode *node));

/* Copies src into dst (src broadcast to dst's shape), converting dtypes as PyTorch's copy_
 * does (float -> int64 truncates toward zero; NaN and out-of-range values become INT64_MIN,
 * as x86 does; any nonzero -> true). Error when src does not broadcast to dst. */
bool rt_tensor_copy_into(RtTensor *dst, const RtTensor *src, GError **error);

/* PyTorch's dim wrapping: dim in [-ndim, ndim) (a 0-dim tensor accepts -1 and 0), written
 * back as [0, ndim). Error "Dimension out of range (expected to be in range of [-2, 1], but
 * got 2)". */
bool rt_wrap_dim(int dim, int ndim, int *out, GError **error);

/* Scalar element access by dtype (p points at one element), for generic slow paths. */
double rt_load_element(const void *p, IrDtype dtype);
void rt_store_element(void *p, IrDtype dtype, double value);
/* Float -> int64 as C's cast where defined; NaN and out-of-range give INT64_MIN (x86's
 * answer, which PyTorch shows), instead of undefined behaviour. */
static inline int64_t rt_double_to_int64(double x) {
  if (!(x >= -9223372036854775808.0 && x < 9223372036854775808.0))
    return INT64_MIN;
  return (int64_t)x;
}

/* IEEE 754 binary16 conversions, round to nearest even, subnormals, infinities and NaN kept
 * (NaN becomes the quiet NaN 0x7e00 with the sign kept). */
uint16_t rt_double_to_half(double x);
uint16_t rt_float_to_half(float x);
float rt_half_to_float(uint16_t h);

/* PyTorch's result_type over operands of three priority classes: tensors of dim > 0, 0-dim
 * tensors, and wrapped Python numbers. A lower class only matters when it is of a higher
 * category (bool < integer < floating): Float(5) + Double(0-dim) is float32, Long(5) +
 * Double(0-dim) is float64, Long(5) + 2.5 is float32 (a float number takes the default
 * dtype float32), Half(5) + 2.5 is float16. For RT_OPERAND_NUMBER pass IR_DTYPE_FLOAT64 for
 * a float, IR_DTYPE_INT64 for an int, IR_DTYPE_BOOL for a bool. */
typedef enum { RT_OPERAND_TENSOR, RT_OPERAND_DIM0, RT_OPERAND_NUMBER } RtOperandClass;
IrDtype rt_result_type(guint n, const IrDtype *dtypes, const RtOperandClass *classes);

/* ---- RtIter: N-d strided iteration over several operands (for elementwise kernels) ----
 *
 * Kernels engineer: this is the loop driver for elementwise ops. Every operand is viewed
 * at the iteration shape (its own shape right-aligned and broadcast: missing leading dims and
 * size-1 dims get stride 0). Dimensions that are contiguous across ALL operands are coalesced,
 * size-1 dims dropped, so a contiguous tensor of any rank becomes one run of numel elements.
 * Each call of rt_iter_next yields one innermost run: a pointer per operand and a per-operand
 * BYTE stride (operands may differ in dtype). Typical loop:
 *
 *   RtIter it;
 *   RtTensor *ops[3] = {out, a, b};
 *   rt_iter_init(&it, out->ndim, out->sizes, 3, ops);
 *   char *p[RT_ITER_MAX_OPERANDS]; int64_t n;
 *   while (rt_iter_next(&it, p, &n)) {
 *     const int64_t *s = it.inner_strides;
 *     if (s[0] == 4 && s[1] == 4 && s[2] == 4) {  // all contiguous: vectorizable
 *       float *o = (float *)p[0]; const float *x = (float *)p[1], *y = (float *)p[2];
 *       for (int64_t i = 0; i < n; i++) o[i] = x[i] + y[i];
 *     } else {
 *       for (int64_t i = 0; i < n; i++)
 *         *(float *)(p[0] + i * s[0]) = *(float *)(p[1] + i * s[1]) + *(float *)(p[2] + i * s[2]);
 *     }
 *   }
 *
 * A 0-dim iteration yields one run of 1 element; an iteration with a size-0 dim yields none.
 * Operands not broadcastable to the iteration shape are an invariant failure (abort): callers
 * compute the shape with rt_broadcast_shapes first. The iterator borrows the operands. */
#define RT_ITER_MAX_OPERANDS 8
typedef struct {
  int n_ops;
  int ndim;      /* coalesced rank, >= 1; dim ndim-1 is the inner run */
  int64_t numel; /* elements in the iteration space */
  int64_t sizes[RT_MAX_DIMS];
  int64_t strides[RT_ITER_MAX_OPERANDS][RT_MAX_DIMS]; /* bytes */
  int64_t inner_strides[RT_ITER_MAX_OPERANDS];        /* bytes; = strides[k][ndim-1] */
  char *base[RT_ITER_MAX_OPERANDS];
  /* iteration state */
  int64_t counter[RT_MAX_DIMS];
  int64_t runs_left;
} RtIter;

void rt_iter_init(RtIter *it, int ndim, const int64_t *sizes, int n_ops, RtTensor *const *ops);
/* Stores the run's operand pointers into ptrs[0..n_ops) and its length into *n; false when
 * done. */
bool rt_iter_next(RtIter *it, char **ptrs, int64_t *n);

#endif
