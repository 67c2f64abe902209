/* rt_kernel_frobenius_norm: aten::frobenius_norm and frobenius_norm.dim, what torch.norm with
 * p='fro' (its default) computes, as PyTorch 1.13's LinearAlgebra.cpp, which composes other
 * ops; so does this kernel, through their kernels:
 * - frobenius_norm(self): norm(self) (the 2-norm of every element);
 * - frobenius_norm.dim(self, dim, keepdim): at most 2 dims ("Expected at most 2 dimensions,
 *   ..."); with 0 or 1 dims norm(self, 2, dim, keepdim) (0 dims: every element); with 2 dims,
 *   wrapped and different ("Expected dims to be different, got [..] instead"),
 *   sqrt(sum(self * self, dim, keepdim)). PyTorch checks only afterwards that the result has
 *   self's floating dtype: an integral or bool self fails there with its internal assertion's
 *   message. */
#include "runtime/kernels.h"
#include "runtime/kernels_internal.h"

/* sqrt(sum(self * self, dims, keepdim)) */
static bool sum_of_squares_root(RtValue self, RtValue dims, RtValue keepdim, RtValue *out,
                                GError **error) {
  RtValue square, sum;
  if (!k_run_overload(IR_ATEN_MUL, "Tensor", (RtValue[]){self, self}, 2, &square, error))
    return false;
  bool ok = k_run_overload(IR_ATEN_SUM, "dim_IntList",
                           (RtValue[]){square, dims, keepdim, rt_none()}, 4, &sum, error);
  rt_value_unref(square);
  if (!ok)
    return false;
  ok = k_run_overload(IR_ATEN_SQRT, "", (RtValue[]){sum}, 1, out, error);
  rt_value_unref(sum);
  return ok;
}

bool rt_kernel_frobenius_norm(const IrSchema *schema, const IrNode *node, RtValue *args,
                              guint n_args, RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  RtTensor *self;
  if (!k_arg_tensor(schema, args, 0, &self, error))
    return false;
  if (k_overload_is(schema, ""))
    return k_run_overload(IR_ATEN_NORM, "Scalar", (RtValue[]){args[0], rt_int(2)}, 2, &outs[0],
                          error);
  int64_t dims[RT_MAX_DIMS];
  int n;
  if (!k_arg_int_list(schema, args, 1, dims, &n, error))
    return false;
  if (n > 2) {
    K_ERR_SHAPE(error, "Expected at most 2 dimensions, but got %d dimensions instead.", n);
    return false;
  }
  if (n < 2)
    return k_run_overload(IR_ATEN_NORM, "ScalarOpt_dim",
                          (RtValue[]){args[0], rt_int(2), args[1], args[2]}, 4, &outs[0], error);
  int first, second;
  if (!k_wrap_dim(dims[0], self->ndim, &first, error) ||
      !k_wrap_dim(dims[1], self->ndim, &second, error))
    return false;
  if (first == second) {
    char text[64];
    k_shape_text(text, sizeof text, 2, dims);
    K_ERR_SHAPE(error, "Expected dims to be different, got %s instead", text);
    return false;
  }
  if (!k_dtype_is_float(self->dtype)) {
    K_ERR_DTYPE(error, "result.scalar_type() == toRealValueType(self.scalar_type()) INTERNAL "
                       "ASSERT FAILED at \"./aten/src/ATen/native/LinearAlgebra.cpp\":2694, "
                       "please report a bug to PyTorch. ");
    return false;
  }
  return sum_of_squares_root(args[0], args[1], args[2], &outs[0], error);
}
