/* Helpers for the kernel tests: call an op of the table by its schema text, build tensors
 * from literal values, compare results with hand-computed expectations. */
#ifndef JITSCOPE_TESTS_KERNELS_UTIL_H
#define JITSCOPE_TESTS_KERNELS_UTIL_H

#include <glib.h>

#include "ir/ops.h"
#include "runtime/value.h"
#include "tensor/tensor.h"

/* The op whose schema text starts with `prefix` ("aten::add.Tensor("); aborts when absent. */
const IrSchema *kt_schema(const char *prefix);

/* Runs the op's kernel on `n` arguments (trailing defaults filled in from the schema; the
 * arguments stay owned by the caller). Returns the first output (owned by the caller) or
 * fails with *error set, returning an RT_NONE. */
bool kt_call(const char *prefix, RtValue *args, guint n, RtValue *out, GError **error);
/* kt_call of an op with n_outs outputs, all returned in outs. */
bool kt_call_outputs(const char *prefix, RtValue *args, guint n, RtValue *outs, guint n_outs,
                     GError **error);
/* kt_call that must succeed and return a tensor: the tensor (owned by the caller). */
RtTensor *kt_run(const char *prefix, RtValue *args, guint n);
/* kt_call that must fail with a message containing `needle`. */
void kt_expect_error(const char *prefix, RtValue *args, guint n, const char *needle);

/* A contiguous tensor holding `values` (row-major). */
RtTensor *kt_tensor(IrDtype dtype, int ndim, const int64_t *sizes, const double *values);
/* A tensor value (takes ownership of t, for argument arrays). */
#define KT_T(t) rt_tensor(t)

/* Asserts dtype, shape and values (|got - want| <= tol, NaN equal to NaN). */
void kt_assert_tensor(const RtTensor *t, IrDtype dtype, int ndim, const int64_t *sizes,
                      const double *want, double tol);
void kt_unref_args(RtValue *args, guint n);

#define KT_SIZES(...) ((const int64_t[]){__VA_ARGS__})
#define KT_VALUES(...) ((const double[]){__VA_ARGS__})

#endif
