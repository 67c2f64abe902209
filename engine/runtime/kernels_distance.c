/* Distances: rt_kernel_cosine_similarity and rt_kernel_pairwise_distance, PyTorch 1.13's
 * composite definitions (aten/src/ATen/native/Distance.cpp) run through the kernels of the
 * ops they are made of, so that values, rounding and errors are those ops':
 * - cosine_similarity(x1, x2, dim, eps): a floating common dtype (integral inputs converted to
 *   it, "expected common dtype to be floating point" otherwise); x1 and x2 broadcast; each
 *   divided by its 2-norm along dim (keepdim), the norm clamped below at eps; the products
 *   summed along dim.
 * - pairwise_distance(x1, x2, p, eps, keepdim): norm(x1 - x2 + eps, p, -1, keepdim) (the
 *   innermost dim of the broadcast result, also for 0-dim inputs). */
#include "runtime/kernels.h"
#include "runtime/kernels_internal.h"

/* t divided by its 2-norm along dims (keepdim), the norm at least eps. */
static bool normalized(RtTensor *t, RtValue dims, double eps, RtValue *out, GError **error) {
  RtValue norm, clamped;
  RtValue self = rt_tensor(rt_tensor_ref(t));
  RtValue norm_args[] = {self, rt_int(2), dims, rt_bool(true), rt_none()};
  bool ok = k_run_overload(IR_ATEN_LINALG_VECTOR_NORM, "", norm_args, 5, &norm, error);
  if (ok) {
    RtValue clamp_args[] = {norm, rt_double(eps)};
    ok = k_run_overload(IR_ATEN_CLAMP_MIN, "", clamp_args, 2, &clamped, error);
    rt_value_unref(norm);
  }
  if (ok) {
    RtValue div_args[] = {self, clamped};
    ok = k_run_overload(IR_ATEN_DIV, "Tensor", div_args, 2, out, error);
    rt_value_unref(clamped);
  }
  rt_value_unref(self);
  return ok;
}

bool rt_kernel_cosine_similarity(const IrSchema *schema, const IrNode *node, RtValue *args,
                                 guint n_args, RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  RtTensor *x1, *x2;
  gint64 dim;
  double eps;
  if (!k_arg_tensor(schema, args, 0, &x1, error) || !k_arg_tensor(schema, args, 1, &x2, error) ||
      !k_arg_int(schema, args, 2, &dim, error))
    return false;
  KScalar eps_arg;
  if (!k_arg_scalar(schema, args, 3, &eps_arg, error))
    return false;
  eps = eps_arg.d;
  KResultType rt;
  k_result_init(&rt);
  k_result_add_tensor(&rt, x1);
  k_result_add_tensor(&rt, x2);
  IrDtype common = k_result_get(&rt);
  if (!k_dtype_is_float(common)) {
    K_ERR_DTYPE(error, "expected common dtype to be floating point, yet common dtype is %s",
                ir_dtype_type_name(common));
    return false;
  }
  int ndim;
  int64_t shape[RT_MAX_DIMS];
  if (!k_broadcast(x1->ndim, x1->sizes, x2->ndim, x2->sizes, &ndim, shape, error))
    return false;
  RtTensor *as_float[2] = {k_dtype_is_float(x1->dtype) ? rt_tensor_ref(x1) : k_to_dtype(x1, common),
                           k_dtype_is_float(x2->dtype) ? rt_tensor_ref(x2)
                                                       : k_to_dtype(x2, common)};
  RtValue units[2] = {rt_none(), rt_none()};
  RtValue dims = rt_int_list(&dim, 1);
  bool ok = true;
  for (int k = 0; k < 2 && ok; k++) {
    RtTensor *expanded = rt_tensor_view_expand(as_float[k], ndim, shape, error);
    ok = expanded && normalized(expanded, dims, eps, &units[k], error);
    if (expanded)
      rt_tensor_unref(expanded);
  }
  RtValue product = rt_none();
  if (ok)
    ok = k_run_overload(IR_ATEN_MUL, "Tensor", units, 2, &product, error);
  if (ok) {
    RtValue sum_args[] = {product, dims, rt_bool(false), rt_none()};
    ok = k_run_overload(IR_ATEN_SUM, "dim_IntList", sum_args, 4, &outs[0], error);
  }
  rt_value_unref(product);
  rt_value_unref(dims);
  for (int k = 0; k < 2; k++) {
    rt_value_unref(units[k]);
    rt_tensor_unref(as_float[k]);
  }
  return ok;
}

bool rt_kernel_pairwise_distance(const IrSchema *schema, const IrNode *node, RtValue *args,
                                 guint n_args, RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  RtValue diff, shifted;
  RtValue sub_args[] = {args[0], args[1], rt_int(1)};
  if (!k_run_overload(IR_ATEN_SUB, "Tensor", sub_args, 3, &diff, error))
    return false;
  RtValue add_args[] = {diff, args[3], rt_int(1)};
  bool ok = k_run_overload(IR_ATEN_ADD, "Scalar", add_args, 3, &shifted, error);
  rt_value_unref(diff);
  if (!ok)
    return false;
  gint64 innermost = -1;
  RtValue dims = rt_int_list(&innermost, 1);
  RtValue norm_args[] = {shifted, args[2], dims, args[4]};
  ok = k_run_overload(IR_ATEN_NORM, "ScalarOpt_dim", norm_args, 4, &outs[0], error);
  rt_value_unref(dims);
  rt_value_unref(shifted);
  return ok;
}
