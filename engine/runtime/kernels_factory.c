/* Tensor factories: rt_kernel_factory (zeros, ones, full, arange in its three forms).
 *
 * Contracts as PyTorch 1.13:
 * - The options dtype, layout, device and pin_memory may be None. dtype None means float32
 *   for zeros and ones, the fill value's kind for full (bool, int64 for an int, float32 for a
 *   float) and, for arange, int64 when start, end and step are all ints, else float32.
 *   Only the strided layout (0) on the cpu device is made here; pin_memory is ignored.
 * - arange(start=0, end, step=1): ceil((end - start) / step) values start + i * step; a zero
 *   step, a step whose sign does not lead from start to end and non-finite bounds are
 *   errors.
 * - Every size is checked against overflow and the memory budget before allocating. */
#include "runtime/kernels.h"
#include "runtime/kernels_internal.h"

#include <math.h>

/* dtype, layout, device and pin_memory from args[first..first + 3]. */
static bool read_options(const IrSchema *schema, RtValue *args, guint first, bool *has_dtype,
                         IrDtype *dtype, GError **error) {
  if (!k_arg_dtype(schema, args, first, has_dtype, dtype, error))
    return false;
  if (!k_arg_is_none(args, first + 1)) {
    gint64 layout;
    if (!k_arg_int(schema, args, first + 1, &layout, error))
      return false;
    if (layout != 0) {
      K_ERR(error, "%s(): only the strided layout is supported, got layout %" G_GINT64_FORMAT,
            k_op_short_name(schema), layout);
      return false;
    }
  }
  if (args[first + 2].tag == RT_DEVICE && args[first + 2].u.device != IR_DEVICE_CPU) {
    K_ERR(error, "%s(): the CPU kernel cannot create a tensor on device %s",
          k_op_short_name(schema), ir_device_name(args[first + 2].u.device));
    return false;
  }
  return true;
}

static IrDtype kind_dtype(KScalar s) {
  switch (s.kind) {
  case K_SCALAR_BOOL: return IR_DTYPE_BOOL;
  case K_SCALAR_INT: return IR_DTYPE_INT64;
  default: return IR_DTYPE_FLOAT32;
  }
}

static bool arange(const IrSchema *schema, RtValue *args, RtValue *outs, GError **error) {
  KScalar start = {K_SCALAR_INT, 0, 0}, end, step = {K_SCALAR_INT, 1, 1};
  guint n_bounds = k_overload_is(schema, "") ? 1 : k_overload_is(schema, "start") ? 2 : 3;
  if ((n_bounds == 1 && !k_arg_scalar(schema, args, 0, &end, error)) ||
      (n_bounds >= 2 && (!k_arg_scalar(schema, args, 0, &start, error) ||
                         !k_arg_scalar(schema, args, 1, &end, error))) ||
      (n_bounds == 3 && !k_arg_scalar(schema, args, 2, &step, error)))
    return false;
  bool has_dtype;
  IrDtype dtype;
  if (!read_options(schema, args, n_bounds, &has_dtype, &dtype, error))
    return false;
  bool all_int =
      start.kind != K_SCALAR_FLOAT && end.kind != K_SCALAR_FLOAT && step.kind != K_SCALAR_FLOAT;
  if (!has_dtype)
    dtype = all_int ? IR_DTYPE_INT64 : IR_DTYPE_FLOAT32;
  if (!isfinite(start.d) || !isfinite(end.d)) {
    K_ERR(error, "unsupported range: %g -> %g", start.d, end.d);
    return false;
  }
  if (step.d == 0) {
    K_ERR(error, "step must be nonzero");
    return false;
  }
  if ((step.d > 0 && end.d < start.d) || (step.d < 0 && end.d > start.d)) {
    K_ERR(error, "upper bound and larger bound inconsistent with step sign");
    return false;
  }
  double size = ceil((end.d - start.d) / step.d);
  if (!(size < 9.2e18)) {
    K_ERR(error, "arange(): the range %g -> %g by %g has too many elements", start.d, end.d,
          step.d);
    return false;
  }
  int64_t n = (int64_t)size;
  RtTensor *out = rt_tensor_new_checked(dtype, 1, &n, error);
  if (!out)
    return false;
  for (int64_t i = 0; i < n; i++)
    rt_tensor_set(out, i, all_int ? (double)(start.i + i * step.i) : start.d + (double)i * step.d);
  outs[0] = rt_tensor(out);
  return true;
}

bool rt_kernel_factory(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                       RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  if (schema->kind == IR_ATEN_ARANGE)
    return arange(schema, args, outs, error);
  int64_t sizes[RT_MAX_DIMS];
  int nd;
  bool full = schema->kind == IR_ATEN_FULL;
  KScalar fill = {K_SCALAR_FLOAT, 0, schema->kind == IR_ATEN_ONES ? 1.0 : 0.0};
  bool has_dtype;
  IrDtype dtype;
  if (!k_arg_int_list(schema, args, 0, sizes, &nd, error) ||
      (full && !k_arg_scalar(schema, args, 1, &fill, error)) ||
      !read_options(schema, args, full ? 2 : 1, &has_dtype, &dtype, error))
    return false;
  if (!has_dtype)
    dtype = full ? kind_dtype(fill) : IR_DTYPE_FLOAT32;
  RtTensor *out = rt_tensor_full_checked(dtype, nd, sizes, fill.d, error);
  if (!out)
    return false;
  outs[0] = rt_tensor(out);
  return true;
}
