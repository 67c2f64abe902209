/* Conversion kernels: rt_kernel_convert (aten::Bool/Int/Float of one-element tensors and of
 * scalars), rt_kernel_type_as, rt_kernel_fill_like (ones_like/zeros_like), rt_kernel_dtype
 * (prim::dtype: a tensor's c10::ScalarType code, 4 long, 5 half, 6 float, 7 double, 11 bool)
 * rt_kernel_to (to.dtype, .device, .other, .prim_Device, .prim_dtype), rt_kernel_num_to_tensor
 * (prim::NumToTensor) and rt_kernel_detach.
 *
 * Contracts as PyTorch 1.13: converting a tensor needs exactly one element; Int of a float
 * truncates toward zero and refuses NaN, infinities and values outside int64; type_as returns
 * self itself when the dtypes already agree; *_like give a new contiguous tensor of self's
 * shape with self's dtype unless `dtype` is given; to() converts to the given dtype (other's
 * for to.other) and returns self itself when the dtype already agrees and copy is false; its
 * device may only be cpu (None keeps self's); NumToTensor gives a 0-dim int64, float64 or
 * bool tensor; detach a view of self without autograd history. */
#include "runtime/autograd.h"
#include "runtime/kernels.h"
#include "runtime/kernels_internal.h"

#include <math.h>

static bool one_element(const IrSchema *schema, RtTensor *t, double *out, GError **error) {
  int64_t n = rt_tensor_numel(t);
  if (n == 1) {
    *out = rt_tensor_get(t, 0);
    return true;
  }
  if (schema->kind == IR_ATEN_BOOL)
    K_ERR(error, "Boolean value of Tensor with %s is ambiguous",
          n == 0 ? "no values" : "more than one value");
  else
    K_ERR(error, "a Tensor with %" G_GINT64_FORMAT " elements cannot be converted to Scalar", n);
  return false;
}

/* Float -> int as TorchScript's checked conversions: error instead of undefined behaviour. */
static bool float_to_int(double d, bool from_tensor, gint64 *out, GError **error) {
  if (isnan(d) || isinf(d) || d < -9223372036854775808.0 || d >= 9223372036854775808.0) {
    if (from_tensor)
      K_ERR(error, "value cannot be converted to type int64_t without overflow");
    else if (isnan(d))
      K_ERR(error, "cannot convert float NaN to integer");
    else if (isinf(d))
      K_ERR(error, "cannot convert float infinity to integer");
    else
      K_ERR(error, "float %g is out of the range of int", d);
    return false;
  }
  *out = (gint64)d;
  return true;
}

bool rt_kernel_convert(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                       RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  IrOpKind kind = (IrOpKind)schema->kind;
  K_INVARIANT(kind == IR_ATEN_BOOL || kind == IR_ATEN_INT || kind == IR_ATEN_FLOAT,
              "rt_kernel_convert serves aten::Bool, aten::Int and aten::Float");
  double d;
  bool is_float_source;
  bool from_tensor = k_overload_is(schema, "Tensor");
  if (k_overload_is(schema, "str")) {
    /* float("nan"), float("-inf"), float("1e-3"): the whole string one number, as PyTorch's
     * c10::stod (C-locale strtod: nan, inf, infinity, hexadecimal; leading spaces). */
    K_INVARIANT(args[0].tag == RT_STR, "Float.str gets a string");
    const char *text = args[0].u.s->text;
    char *end = NULL;
    d = g_ascii_strtod(text, &end);
    if (end == text || *end != '\0') {
      K_ERR(error, "could not convert string to float: '%s'", text);
      return false;
    }
    outs[0] = rt_double(d);
    return true;
  }
  if (from_tensor) {
    RtTensor *t;
    if (!k_arg_tensor(schema, args, 0, &t, error) || !one_element(schema, t, &d, error))
      return false;
    is_float_source = k_dtype_is_float(t->dtype);
  } else {
    KScalar s;
    if (!k_arg_scalar(schema, args, 0, &s, error))
      return false;
    if (s.kind != K_SCALAR_FLOAT) {
      /* ints stay exact past 2^53 */
      if (kind == IR_ATEN_INT) {
        outs[0] = rt_int(s.i);
        return true;
      }
      if (kind == IR_ATEN_BOOL) {
        outs[0] = rt_bool(s.i != 0);
        return true;
      }
    }
    d = s.d;
    is_float_source = s.kind == K_SCALAR_FLOAT;
  }
  switch (kind) {
  case IR_ATEN_BOOL: outs[0] = rt_bool(d != 0); return true;
  case IR_ATEN_FLOAT: outs[0] = rt_double(d); return true;
  default: {
    gint64 i;
    if (from_tensor && !is_float_source) {
      /* int64 tensors: read the element exactly, not through a double */
      RtTensor *t = args[0].u.tensor;
      RtTensor *c = rt_tensor_contiguous(t);
      i = t->dtype == IR_DTYPE_INT64 ? *(const int64_t *)rt_tensor_data(c) : (gint64)(d != 0);
      rt_tensor_unref(c);
    } else if (!float_to_int(d, from_tensor, &i, error)) {
      return false;
    }
    outs[0] = rt_int(i);
    return true;
  }
  }
}

bool rt_kernel_type_as(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                       RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  RtTensor *self, *other;
  if (!k_arg_tensor(schema, args, 0, &self, error) || !k_arg_tensor(schema, args, 1, &other, error))
    return false;
  outs[0] = rt_tensor(k_to_dtype(self, other->dtype));
  return true;
}

bool rt_kernel_fill_like(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                         RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  K_INVARIANT(schema->kind == IR_ATEN_ONES_LIKE || schema->kind == IR_ATEN_ZEROS_LIKE ||
                  schema->kind == IR_ATEN_FULL_LIKE,
              "rt_kernel_fill_like serves ones_like, zeros_like and full_like");
  RtTensor *self;
  if (!k_arg_tensor(schema, args, 0, &self, error))
    return false;
  /* full_like's fill value comes before the keyword arguments the three share */
  bool full = schema->kind == IR_ATEN_FULL_LIKE;
  guint kw = full ? 2 : 1;
  KScalar fill = {.d = schema->kind == IR_ATEN_ONES_LIKE ? 1.0 : 0.0};
  if (full && !k_arg_scalar(schema, args, 1, &fill, error))
    return false;
  IrDtype dtype = self->dtype;
  bool has_dtype;
  IrDtype given;
  if (!k_arg_dtype(schema, args, kw, &has_dtype, &given, error))
    return false;
  if (has_dtype)
    dtype = given;
  if (args[kw + 2].tag == RT_DEVICE && args[kw + 2].u.device != IR_DEVICE_CPU) {
    K_ERR(error, "%s(): the CPU kernel cannot create a tensor on device %s",
          k_op_short_name(schema), ir_device_name(args[kw + 2].u.device));
    return false;
  }
  double value = fill.d;
  RtTensor *filled = rt_tensor_full_checked(dtype, self->ndim, self->sizes, value, error);
  if (!filled)
    return false;
  outs[0] = rt_tensor(filled);
  return true;
}

bool rt_kernel_dtype(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                     RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  RtTensor *t;
  if (!k_arg_tensor(schema, args, 0, &t, error))
    return false;
  static const gint64 codes[] = {4, 5, 6, 7, 11};
  for (guint i = 0; i < G_N_ELEMENTS(codes); i++) {
    IrDtype d;
    if (k_dtype_from_scalar_type(codes[i], &d) && d == t->dtype) {
      outs[0] = rt_int(codes[i]);
      return true;
    }
  }
  g_error("kernel invariant violated: dtype %s has no ScalarType code",
          ir_dtype_type_name(t->dtype));
}

/* The device argument of to(): None or cpu; other devices have their own backends. */
static bool to_device_ok(const IrSchema *schema, RtValue *args, guint i, GError **error) {
  if (args[i].tag != RT_DEVICE || args[i].u.device == IR_DEVICE_CPU)
    return true;
  K_ERR(error, "%s(): the CPU kernel cannot move a tensor to device %s", k_op_short_name(schema),
        ir_device_name(args[i].u.device));
  return false;
}

bool rt_kernel_to(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                  RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  RtTensor *self, *other;
  if (!k_arg_tensor(schema, args, 0, &self, error))
    return false;
  IrDtype dtype = self->dtype;
  bool has_dtype = false, copy;
  guint copy_at;
  if (k_overload_is(schema, "other")) {
    if (!k_arg_tensor(schema, args, 1, &other, error))
      return false;
    dtype = other->dtype;
    copy_at = 3;
  } else {
    bool with_device = k_overload_is(schema, "device") || k_overload_is(schema, "prim_Device");
    guint dtype_at = with_device ? 2 : 1;
    if ((with_device && !to_device_ok(schema, args, 1, error)) ||
        !k_arg_dtype(schema, args, dtype_at, &has_dtype, &dtype, error))
      return false;
    if (!has_dtype)
      dtype = self->dtype;
    copy_at = dtype_at + 2;
  }
  if (!k_arg_bool(schema, args, copy_at, &copy, error))
    return false;
  if (dtype == self->dtype && !copy) { /* PyTorch returns self itself */
    outs[0] = rt_tensor(rt_tensor_ref(self));
    return true;
  }
  outs[0] =
      rt_tensor(dtype == self->dtype ? rt_tensor_clone(self) : rt_tensor_to_dtype(self, dtype));
  return true;
}

bool rt_kernel_num_to_tensor(const IrSchema *schema, const IrNode *node, RtValue *args,
                             guint n_args, RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  KScalar a;
  if (!k_arg_scalar(schema, args, 0, &a, error))
    return false;
  if (a.kind == K_SCALAR_FLOAT) {
    outs[0] = rt_tensor(rt_tensor_scalar(IR_DTYPE_FLOAT64, a.d));
    return true;
  }
  /* ints keep all 64 bits: written as int64, not through a double */
  RtTensor *t = rt_tensor_new(a.kind == K_SCALAR_BOOL ? IR_DTYPE_BOOL : IR_DTYPE_INT64, 0, NULL);
  if (a.kind == K_SCALAR_BOOL)
    *(bool *)rt_tensor_data(t) = a.i != 0;
  else
    *(gint64 *)rt_tensor_data(t) = a.i;
  outs[0] = rt_tensor(t);
  return true;
}

bool rt_kernel_detach(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                      RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  RtTensor *self;
  if (!k_arg_tensor(schema, args, 0, &self, error))
    return false;
  outs[0] = rt_tensor(rt_autograd_detach(self));
  return true;
}
