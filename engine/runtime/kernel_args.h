/* Reading a kernel call's arguments and the dtype rules of the CPU kernels: for kernels_*.c
 * and for every device backend's kernels (runtime/device.h), so that a device kernel takes
 * and rejects exactly the arguments its CPU twin does.
 *
 * Contracts:
 * - Argument readers never take references: what they return is borrowed from args.
 * - Readers of user data set a GError (domain JITSCOPE_RUNTIME_ERROR) and return false;
 *   k_check_call aborts for conditions only a bug in the engine can cause (a kernel called
 *   with too few arguments, or without its schema). */
#ifndef JITSCOPE_RUNTIME_KERNEL_ARGS_H
#define JITSCOPE_RUNTIME_KERNEL_ARGS_H

#include <stdbool.h>
#include <stdint.h>

#include "ir/ops.h"
#include "runtime/value.h"
#include "tensor/tensor.h"

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
/* An int[N] argument of a convolution or pooling op as `count` entries: a single entry is
 * repeated (PyTorch's int[2] taking one int), an empty list gives `empty` when that is not
 * NULL (pooling's stride=[] means the kernel size); other lengths are an error. */
bool k_arg_spatial_list(const IrSchema *schema, RtValue *args, guint i, int count,
                        const int64_t *empty, int64_t *out, GError **error);
/* The number of windows along one dim, as PyTorch's pooling_output_shape (convolutions are
 * the ceil_mode = false case): floor((in + 2 pad - dilation (kernel - 1) - 1 [+ stride - 1
 * with ceil_mode]) / stride) + 1, less the last window when ceil_mode starts it in the right
 * padding. Positive stride and dilation, non-negative pad; false where int64 overflows (the
 * result may be <= 0: the caller's error). */
bool k_window_count(int64_t in, int64_t kernel, int64_t stride, int64_t pad, int64_t dilation,
                    bool ceil_mode, int64_t *out);
/* Optional ScalarType argument (PyTorch's numbering: 5 Half, 6 Float, 7 Double, 4 Long,
 * 11 Bool): *has = false for None. */
bool k_arg_dtype(const IrSchema *schema, RtValue *args, guint i, bool *has, IrDtype *out,
                 GError **error);
/* The dtype of a ScalarType code (the numbering above); false for codes we do not run. */
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
/* Category order bool < integral < floating. */
int k_dtype_category(IrDtype d);
/* Pairwise promotion (PyTorch's promoteTypes restricted to our dtypes); K_DTYPE_NONE is the
 * identity. */
IrDtype k_promote(IrDtype a, IrDtype b);
/* PyTorch's lower-case dtype names for messages ("float", "double", "long", "bool", "half"). */
const char *k_dtype_c10_name(IrDtype d);

#endif
