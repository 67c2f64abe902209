/* Argument readers, dtype promotion and shape helpers shared by the CPU kernels.
 * Type promotion follows PyTorch's c10::promoteTypes and at::native::result_type. */
#include "runtime/kernels.h"
#include "runtime/kernels_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void k_check_call(const IrSchema *schema, guint n_args, guint n_outs) {
  K_INVARIANT(schema != NULL, "a kernel is called with its schema");
  K_INVARIANT(n_args >= schema->n_args, "kernels get every schema argument (defaults filled)");
  K_INVARIANT(n_outs >= 1 || schema->n_returns == 0, "kernels get room for their outputs");
}

bool k_overload_is(const IrSchema *schema, const char *overload) {
  return g_strcmp0(schema->overload, overload) == 0;
}

const char *k_op_short_name(const IrSchema *schema) {
  const char *colon = strstr(schema->name, "::");
  return colon ? colon + 2 : schema->name;
}

static const char *arg_name(const IrSchema *schema, guint i) {
  return i < schema->n_args ? schema->args[i].name : "?";
}

bool k_arg_tensor(const IrSchema *schema, RtValue *args, guint i, RtTensor **out, GError **error) {
  RtValue v = args[i];
  if (v.tag != RT_TENSOR) {
    K_ERR(error, "%s(): argument '%s' (position %u) must be Tensor", k_op_short_name(schema),
          arg_name(schema, i), i + 1);
    return false;
  }
  if (v.u.tensor == NULL) {
    K_ERR(error, "%s(): argument '%s' (position %u) is an undefined tensor",
          k_op_short_name(schema), arg_name(schema, i), i + 1);
    return false;
  }
  if (v.u.tensor->storage != NULL && v.u.tensor->storage->device != IR_DEVICE_CPU) {
    K_ERR(error,
          "%s(): argument '%s' (position %u) is on device %s; the CPU kernels need a "
          "cpu tensor",
          k_op_short_name(schema), arg_name(schema, i), i + 1,
          ir_device_name(v.u.tensor->storage->device));
    return false;
  }
  *out = v.u.tensor;
  return true;
}

bool k_arg_scalar(const IrSchema *schema, RtValue *args, guint i, KScalar *out, GError **error) {
  RtValue v = args[i];
  switch (v.tag) {
  case RT_BOOL: *out = (KScalar){K_SCALAR_BOOL, v.u.b ? 1 : 0, v.u.b ? 1.0 : 0.0}; return true;
  case RT_INT: *out = (KScalar){K_SCALAR_INT, v.u.i, (double)v.u.i}; return true;
  case RT_DOUBLE: *out = (KScalar){K_SCALAR_FLOAT, 0, v.u.d}; return true;
  case RT_TENSOR:
    if (v.u.tensor != NULL && rt_tensor_numel(v.u.tensor) == 1) {
      double d = rt_tensor_get(v.u.tensor, 0);
      IrDtype dt = v.u.tensor->dtype;
      if (k_dtype_is_float(dt))
        *out = (KScalar){K_SCALAR_FLOAT, 0, d};
      else if (dt == IR_DTYPE_BOOL)
        *out = (KScalar){K_SCALAR_BOOL, d != 0, d != 0 ? 1.0 : 0.0};
      else
        *out = (KScalar){K_SCALAR_INT, rt_double_to_int64(d), d};
      return true;
    }
    break;
  default: break;
  }
  K_ERR(error, "%s(): argument '%s' (position %u) must be a number", k_op_short_name(schema),
        arg_name(schema, i), i + 1);
  return false;
}

bool k_arg_int(const IrSchema *schema, RtValue *args, guint i, gint64 *out, GError **error) {
  RtValue v = args[i];
  if (v.tag == RT_INT) {
    *out = v.u.i;
    return true;
  }
  if (v.tag == RT_BOOL) {
    *out = v.u.b ? 1 : 0;
    return true;
  }
  K_ERR(error, "%s(): argument '%s' (position %u) must be int", k_op_short_name(schema),
        arg_name(schema, i), i + 1);
  return false;
}

bool k_arg_bool(const IrSchema *schema, RtValue *args, guint i, bool *out, GError **error) {
  RtValue v = args[i];
  if (v.tag == RT_BOOL) {
    *out = v.u.b;
    return true;
  }
  if (v.tag == RT_INT) {
    *out = v.u.i != 0;
    return true;
  }
  K_ERR(error, "%s(): argument '%s' (position %u) must be bool", k_op_short_name(schema),
        arg_name(schema, i), i + 1);
  return false;
}

bool k_arg_is_none(RtValue *args, guint i) {
  return args[i].tag == RT_NONE;
}

bool k_arg_int_list(const IrSchema *schema, RtValue *args, guint i, int64_t *out, int *n,
                    GError **error) {
  RtValue v = args[i];
  if (v.tag == RT_INT) { /* int[1] accepts a bare int, as PyTorch does */
    out[0] = v.u.i;
    *n = 1;
    return true;
  }
  if (v.tag != RT_LIST && v.tag != RT_TUPLE) {
    K_ERR(error, "%s(): argument '%s' (position %u) must be a list of ints",
          k_op_short_name(schema), arg_name(schema, i), i + 1);
    return false;
  }
  if (v.u.seq->len > RT_MAX_DIMS) {
    K_ERR(error, "%s(): argument '%s' has %u entries; at most %d dimensions are supported",
          k_op_short_name(schema), arg_name(schema, i), v.u.seq->len, RT_MAX_DIMS);
    return false;
  }
  for (guint k = 0; k < v.u.seq->len; k++) {
    RtValue item = v.u.seq->items[k];
    if (item.tag != RT_INT) {
      K_ERR(error,
            "%s(): argument '%s' (position %u) must be a list of ints, but item %u "
            "is not an int",
            k_op_short_name(schema), arg_name(schema, i), i + 1, k);
      return false;
    }
    out[k] = item.u.i;
  }
  *n = (int)v.u.seq->len;
  return true;
}

bool k_arg_spatial_list(const IrSchema *schema, RtValue *args, guint i, int count,
                        const int64_t *empty, int64_t *out, GError **error) {
  int64_t vals[RT_MAX_DIMS];
  int n;
  if (!k_arg_int_list(schema, args, i, vals, &n, error))
    return false;
  if (n == 0 && empty) {
    memcpy(out, empty, sizeof(int64_t) * (size_t)count);
    return true;
  }
  if (n != 1 && n != count) {
    K_ERR(error,
          "%s(): expected %s to be a single integer value or a list of %d values, but "
          "got %d values",
          k_op_short_name(schema), arg_name(schema, i), count, n);
    return false;
  }
  for (int k = 0; k < count; k++)
    out[k] = vals[n == 1 ? 0 : k];
  return true;
}

bool k_window_count(int64_t in, int64_t kernel, int64_t stride, int64_t pad, int64_t dilation,
                    bool ceil_mode, int64_t *out) {
  int64_t span, padded, num;
  if (__builtin_mul_overflow(dilation, kernel - 1, &span) ||
      __builtin_mul_overflow(pad, 2, &padded) || __builtin_add_overflow(in, padded, &num) ||
      __builtin_sub_overflow(num, span, &num) || __builtin_sub_overflow(num, 1, &num) ||
      (ceil_mode && __builtin_add_overflow(num, stride - 1, &num)))
    return false;
  /* floor division (C's rounds toward 0): a negative numerator means no window fits */
  int64_t q = num / stride - (num % stride != 0 && num < 0 ? 1 : 0);
  *out = q + 1;
  /* the last window must start inside the input or the left padding */
  if (ceil_mode && (*out - 1) * stride >= in + pad)
    (*out)--;
  return true;
}

bool k_dtype_from_scalar_type(gint64 code, IrDtype *out) {
  switch (code) {
  case 4: *out = IR_DTYPE_INT64; return true;
  case 5: *out = IR_DTYPE_FLOAT16; return true;
  case 6: *out = IR_DTYPE_FLOAT32; return true;
  case 7: *out = IR_DTYPE_FLOAT64; return true;
  case 11: *out = IR_DTYPE_BOOL; return true;
  default: return false;
  }
}

bool k_arg_dtype(const IrSchema *schema, RtValue *args, guint i, bool *has, IrDtype *out,
                 GError **error) {
  if (args[i].tag == RT_NONE) {
    *has = false;
    return true;
  }
  gint64 code;
  if (!k_arg_int(schema, args, i, &code, error))
    return false;
  if (!k_dtype_from_scalar_type(code, out)) {
    K_ERR(error,
          "%s(): unsupported dtype code %" G_GINT64_FORMAT
          " (supported: 4 long, 5 half, 6 float, 7 double, 11 bool)",
          k_op_short_name(schema), code);
    return false;
  }
  *has = true;
  return true;
}

bool k_args_dim_dtype(const IrSchema *schema, RtValue *args, RtTensor **self, int *dim,
                      bool *has_dtype, IrDtype *dtype, GError **error) {
  gint64 d;
  return k_arg_tensor(schema, args, 0, self, error) && k_arg_int(schema, args, 1, &d, error) &&
         k_arg_dtype(schema, args, 2, has_dtype, dtype, error) &&
         k_wrap_dim(d, (*self)->ndim, dim, error);
}

bool k_wrap_index(int64_t index, int64_t count, int64_t *out, GError **error) {
  int64_t n = count > 0 ? count : 1;
  if (index < -n || index >= n) {
    K_ERR_SHAPE(error,
                "Dimension out of range (expected to be in range of [%" G_GINT64_FORMAT
                ", %" G_GINT64_FORMAT "], but got %" G_GINT64_FORMAT ")",
                -n, n - 1, index);
    return false;
  }
  *out = index < 0 ? index + n : index;
  return true;
}

bool k_wrap_dim(int64_t dim, int ndim, int *out, GError **error) {
  int64_t wrapped;
  if (!k_wrap_index(dim, ndim, &wrapped, error))
    return false;
  *out = (int)wrapped;
  return true;
}

bool k_dtype_is_float(IrDtype d) {
  return d == IR_DTYPE_FLOAT32 || d == IR_DTYPE_FLOAT64 || d == IR_DTYPE_FLOAT16;
}

int k_dtype_category(IrDtype d) {
  if (d == IR_DTYPE_BOOL)
    return 0;
  if (d == IR_DTYPE_INT64)
    return 1;
  return 2;
}

IrDtype k_promote(IrDtype a, IrDtype b) {
  if (a == K_DTYPE_NONE)
    return b;
  if (b == K_DTYPE_NONE || a == b)
    return a;
  if (a == IR_DTYPE_BOOL)
    return b;
  if (b == IR_DTYPE_BOOL)
    return a;
  if (a == IR_DTYPE_INT64)
    return b;
  if (b == IR_DTYPE_INT64)
    return a;
  /* Two different floating dtypes: the wider one. */
  if (a == IR_DTYPE_FLOAT64 || b == IR_DTYPE_FLOAT64)
    return IR_DTYPE_FLOAT64;
  return IR_DTYPE_FLOAT32;
}

const char *k_dtype_c10_name(IrDtype d) {
  switch (d) {
  case IR_DTYPE_FLOAT32: return "float";
  case IR_DTYPE_FLOAT64: return "double";
  case IR_DTYPE_FLOAT16: return "half";
  case IR_DTYPE_INT64: return "long";
  case IR_DTYPE_BOOL: return "bool";
  default: return "?";
  }
}

void k_result_init(KResultType *r) {
  r->dim_result = K_DTYPE_NONE;
  r->zero_result = K_DTYPE_NONE;
  r->wrapped_result = K_DTYPE_NONE;
}

void k_result_add_tensor(KResultType *r, const RtTensor *t) {
  if (t->ndim > 0)
    r->dim_result = k_promote(r->dim_result, t->dtype);
  else
    r->zero_result = k_promote(r->zero_result, t->dtype);
}

void k_result_add_scalar(KResultType *r, KScalar s) {
  IrDtype d = s.kind == K_SCALAR_FLOAT ? IR_DTYPE_FLOAT32 /* the default dtype */
              : s.kind == K_SCALAR_INT ? IR_DTYPE_INT64
                                       : IR_DTYPE_BOOL;
  r->wrapped_result = k_promote(r->wrapped_result, d);
}

/* at::native::combine_categories: the lower-priority group only matters when it is of a
 * higher category. */
static IrDtype combine_categories(IrDtype higher, IrDtype lower) {
  if (higher != K_DTYPE_NONE && k_dtype_is_float(higher))
    return higher;
  if (higher == IR_DTYPE_BOOL || (lower != K_DTYPE_NONE && k_dtype_is_float(lower)))
    return k_promote(higher, lower);
  if (higher != K_DTYPE_NONE)
    return higher;
  return lower;
}

IrDtype k_result_get(const KResultType *r) {
  return combine_categories(r->dim_result, combine_categories(r->zero_result, r->wrapped_result));
}

RtTensor *k_to_dtype(RtTensor *t, IrDtype dtype) {
  if (t->dtype == dtype)
    return rt_tensor_ref(t);
  return rt_tensor_to_dtype(t, dtype);
}

bool k_broadcast(int ndim_a, const int64_t *a, int ndim_b, const int64_t *b, int *ndim_out,
                 int64_t *out, GError **error) {
  int n = ndim_a > ndim_b ? ndim_a : ndim_b;
  for (int k = n - 1; k >= 0; k--) {
    int ia = k - (n - ndim_a), ib = k - (n - ndim_b);
    int64_t sa = ia >= 0 ? a[ia] : 1, sb = ib >= 0 ? b[ib] : 1;
    if (sa != sb && sa != 1 && sb != 1) {
      K_ERR_SHAPE(error,
                  "The size of tensor a (%" G_GINT64_FORMAT ") must match the size of tensor "
                  "b (%" G_GINT64_FORMAT ") at non-singleton dimension %d",
                  sa, sb, k);
      return false;
    }
    out[k] = sa == 1 ? sb : sa;
  }
  *ndim_out = n;
  return true;
}

void k_shape_text(char *buf, size_t len, int ndim, const int64_t *sizes) {
  size_t used = 0;
  used += (size_t)snprintf(buf, len, "[");
  for (int k = 0; k < ndim && used < len; k++)
    used +=
        (size_t)snprintf(buf + used, len - used, "%s%" G_GINT64_FORMAT, k ? ", " : "", sizes[k]);
  if (used < len)
    snprintf(buf + used, len - used, "]");
}

bool k_run_overload(IrOpKind kind, const char *overload, RtValue *args, guint n, RtValue *out,
                    GError **error) {
  guint count;
  const IrSchema *const *all = ir_ops_overloads(kind, &count);
  for (guint i = 0; i < count; i++)
    if (strcmp(all[i]->overload, overload) == 0)
      return rt_op_kernel(all[i])(all[i], NULL, args, n, out, 1, error);
  g_error("kernel invariant: %s has no overload '%s'", ir_kind_name(kind), overload);
}
