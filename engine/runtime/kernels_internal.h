/* Shared helpers of the CPU kernels (kernels_*.c); not part of the engine's public API.
 *
 * Contracts:
 * - Argument readers never take references: what they return is borrowed from args.
 * - Readers of user data set a GError (domain JITSCOPE_RUNTIME_ERROR) and return false;
 *   K_INVARIANT aborts for conditions only a bug in the engine can cause (a kernel called
 *   with too few arguments, or without its schema).
 * - The strided iterator (KIter) walks operands broadcast to one shape; operand 0 is by
 *   convention the output. Strides are in elements. */
#ifndef JITSCOPE_RUNTIME_KERNELS_INTERNAL_H
#define JITSCOPE_RUNTIME_KERNELS_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "ir/ops.h"
#include "runtime/memory_budget.h"
#include "runtime/tensor.h"
#include "runtime/value.h"

#define K_INVARIANT(cond, what)                                                                \
  do {                                                                                         \
    if (G_UNLIKELY(!(cond)))                                                                   \
      g_error("kernel invariant violated: %s (%s:%d)", (what), __FILE__, __LINE__);            \
  } while (0)

/* Input errors in the JITSCOPE_RUNTIME_ERROR domain: bad values, shapes, dtypes. */
#define K_ERR(error, ...) g_set_error((error), JITSCOPE_RUNTIME_ERROR, RT_ERROR_VALUE, __VA_ARGS__)
#define K_ERR_SHAPE(error, ...)                                                                \
  g_set_error((error), JITSCOPE_RUNTIME_ERROR, RT_ERROR_SHAPE, __VA_ARGS__)
#define K_ERR_DTYPE(error, ...)                                                                \
  g_set_error((error), JITSCOPE_RUNTIME_ERROR, RT_ERROR_DTYPE, __VA_ARGS__)

/* "Undefined" marker for dtype computations. */
#define K_DTYPE_NONE IR_DTYPE_COUNT

/* ---- schema and arguments ---- */

/* Aborts unless the kernel got its schema and every schema argument (defaults filled in). */
void k_check_call(const IrSchema *schema, guint n_args, guint n_outs);
bool k_overload_is(const IrSchema *schema, const char *overload);
/* "aten::add" without the namespace, for messages. */
const char *k_op_short_name(const IrSchema *schema);

/* A number passed as a Scalar/int/float/bool argument. */
typedef enum { K_SCALAR_BOOL, K_SCALAR_INT, K_SCALAR_FLOAT } KScalarKind;
typedef struct {
  KScalarKind kind;
  gint64 i; /* bools and ints */
  double d; /* every kind, as a double */
} KScalar;

/* Defined tensor at args[i]; error naming the argument otherwise. */
bool k_arg_tensor(const IrSchema *schema, RtValue *args, guint i, RtTensor **out, GError **error);
/* int, bool or float (or a one-element tensor) at args[i]. */
bool k_arg_scalar(const IrSchema *schema, RtValue *args, guint i, KScalar *out, GError **error);
bool k_arg_int(const IrSchema *schema, RtValue *args, guint i, gint64 *out, GError **error);
bool k_arg_bool(const IrSchema *schema, RtValue *args, guint i, bool *out, GError **error);
bool k_arg_is_none(RtValue *args, guint i);
/* An int[] argument (at most RT_MAX_DIMS entries). */
bool k_arg_int_list(const IrSchema *schema, RtValue *args, guint i, int64_t *out, int *n,
                    GError **error);
/* Optional ScalarType argument (PyTorch's numbering: 5 Half, 6 Float, 7 Double, 4 Long,
 * 11 Bool): *has = false for None. */
bool k_arg_dtype(const IrSchema *schema, RtValue *args, guint i, bool *has, IrDtype *out,
                 GError **error);
bool k_dtype_from_scalar_type(gint64 code, IrDtype *out);

/* Wraps dim into [0, ndim) (0-dim tensors accept -1 and 0, as PyTorch's "scalar" rule);
 * PyTorch's "Dimension out of range" error otherwise. */
bool k_wrap_dim(int64_t dim, int ndim, int *out, GError **error);

/* self (args[0]), a dim (args[1], wrapped into self's dims) and an optional ScalarType
 * (args[2]): the arguments of softmax, log_softmax and cumsum. */
bool k_args_dim_dtype(const IrSchema *schema, RtValue *args, RtTensor **self, int *dim,
                      bool *has_dtype, IrDtype *dtype, GError **error);

/* The arguments of aten::sum and sum.dim_IntList, read once for every device's kernel:
 * which dims to reduce (all of them when none are named), keepdim, the optional dtype, and
 * the result dtype (the given one; else floats keep theirs, integers and bools sum to
 * int64). */
typedef struct {
  bool reduce[RT_MAX_DIMS];
  bool keepdim;
  bool has_dtype;
  IrDtype given;
  IrDtype out_dtype;
} KSumArgs;

bool k_sum_args(const IrSchema *schema, RtValue *args, const RtTensor *self, KSumArgs *out,
                GError **error);

/* ---- dtypes ---- */

bool k_dtype_is_float(IrDtype d);
bool k_dtype_is_int(IrDtype d); /* int64 (bool excluded) */
/* Category order bool < integral < floating. */
int k_dtype_category(IrDtype d);
/* Pairwise promotion (PyTorch's promoteTypes restricted to our dtypes); K_DTYPE_NONE is the
 * identity. */
IrDtype k_promote(IrDtype a, IrDtype b);
/* PyTorch's lower-case dtype names for messages ("float", "double", "long", "bool", "half"). */
const char *k_dtype_c10_name(IrDtype d);

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
/* Adds an operand with explicit strides (ndim entries, elements). */
void k_iter_add_strided(KIter *it, void *base, size_t elsize, const int64_t *strides);
/* Runs loop over every position: dims are coalesced where every operand allows, so a
 * contiguous same-shape case is one call with unit strides. */
void k_iter_run(KIter *it, KInnerLoop loop, void *ctx);

/* Copies src into dst elementwise (same dtype; src broadcast to dst's shape). */
void k_copy_into(RtTensor *dst, const RtTensor *src);

/* ---- shapes ---- */

bool k_broadcast(int ndim_a, const int64_t *a, int ndim_b, const int64_t *b, int *ndim_out,
                 int64_t *out, GError **error);
/* "[2, 3]" appended to a fixed buffer for messages. */
void k_shape_text(char *buf, size_t len, int ndim, const int64_t *sizes);

#endif
