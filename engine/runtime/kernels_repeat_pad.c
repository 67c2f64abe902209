/* Ops that write self into a larger result: rt_kernel_repeat (aten::repeat) and rt_kernel_pad
 * (aten::constant_pad_nd, and aten::pad, what F.pad scripts to, in mode 'constant').
 *
 * Contracts, as PyTorch 1.13's (TensorShape.cpp repeat, PadNd.cpp):
 * - repeat(self, repeats): len(repeats) >= self's rank; self is seen with leading 1s up to
 *   that rank and the result's dim d is self's times repeats[d], tile after tile. Negative
 *   products are PyTorch's error; a zero size makes an empty result.
 * - constant_pad_nd(self, pad, value): pad pairs (before, after) from the last dim backwards;
 *   negative pads first crop self as narrow() does (its errors), then the result has self's
 *   sizes plus both pads, each padded dim at least 1 unless no pad is positive (then the
 *   crop's copy), and value everywhere outside the copied self; value converts to self's
 *   dtype as fill_() does (an int exactly, a float out of an int64's or float32's range is
 *   an error, any nonzero is true).
 * - pad(self, pad, mode, value): PyTorch's checks of the mode and the pad's length, then
 *   constant_pad_nd(self, pad, value or 0) for mode 'constant'; the other modes refuse a
 *   value other than 0 and run in kernels_pad_modes.c.
 * - Any int64 overflow of a result size is an error, and results go through the memory
 *   budget. */
#include "runtime/kernels.h"
#include "runtime/kernels_internal.h"

#include <float.h>
#include <math.h>
#include <string.h>

bool rt_kernel_repeat(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                      RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  RtTensor *self;
  int64_t repeats[RT_MAX_DIMS];
  int n;
  if (!k_arg_tensor(schema, args, 0, &self, error) ||
      !k_arg_int_list(schema, args, 1, repeats, &n, error))
    return false;
  if (n < self->ndim) {
    K_ERR_SHAPE(error, "Number of dimensions of repeat dims can not be smaller than number of "
                       "dimensions of tensor");
    return false;
  }
  int lead = n - self->ndim;
  int64_t tile[RT_MAX_DIMS], sizes[RT_MAX_DIMS];
  int negative = -1;
  for (int d = 0; d < n; d++) {
    tile[d] = d < lead ? 1 : self->sizes[d - lead];
    if (__builtin_mul_overflow(tile[d], repeats[d], &sizes[d])) {
      K_ERR_SHAPE(error,
                  "repeat: %" G_GINT64_FORMAT " repeats of dimension %d (size %" G_GINT64_FORMAT
                  ") overflow int64",
                  repeats[d], d, tile[d]);
      return false;
    }
    if (sizes[d] < 0 && negative < 0)
      negative = d;
  }
  if (negative >= 0) {
    char shape[256];
    k_shape_text(shape, sizeof shape, n, sizes);
    K_ERR_SHAPE(error, "Trying to create tensor with negative dimension %" G_GINT64_FORMAT ": %s",
                sizes[negative], shape);
    return false;
  }
  RtTensor *out = rt_tensor_new_checked(self->dtype, n, sizes, error);
  if (!out)
    return false;
  size_t elsize = rt_dtype_size(self->dtype);
  const char *from = rt_tensor_data(self);
  char *to = rt_tensor_data(out);
  int64_t numel = rt_tensor_numel(out);
  for (int64_t i = 0; i < numel; i++) {
    int64_t rest = i, at = 0;
    for (int d = n - 1; d >= lead; d--) {
      at += (rest % sizes[d]) % tile[d] * self->strides[d - lead];
      rest /= sizes[d];
    }
    memcpy(to + (size_t)i * elsize, from + at * (int64_t)elsize, elsize);
  }
  outs[0] = rt_tensor(out);
  return true;
}

/* The padding value as a 0-dim tensor that rt_tensor_copy_into converts to dtype as
 * PyTorch's fill_ does; NULL with PyTorch's error when it cannot. */
static RtTensor *fill_value(KScalar value, IrDtype dtype, GError **error) {
  if (value.kind != K_SCALAR_FLOAT) {
    RtTensor *t = rt_tensor_new(IR_DTYPE_INT64, 0, NULL);
    *(int64_t *)rt_tensor_data(t) = value.i;
    return t;
  }
  double d = value.d;
  bool finite = isfinite(d);
  if (dtype == IR_DTYPE_INT64 &&
      (!finite || d < -9223372036854775808.0 || d >= 9223372036854775808.0)) {
    K_ERR(error, "value cannot be converted to type int64_t without overflow");
    return NULL;
  }
  if (dtype == IR_DTYPE_FLOAT32 && finite && fabs(d) > FLT_MAX) {
    K_ERR(error, "value cannot be converted to type float without overflow");
    return NULL;
  }
  return rt_tensor_scalar(IR_DTYPE_FLOAT64, d);
}

/* (-p) for a pad, INT64_MIN staying itself as in PyTorch's two's complement arithmetic. */
static int64_t negated(int64_t p) {
  return (int64_t)(0 - (uint64_t)p);
}

/* constant_pad_nd's body (PyTorch's algorithm and message order). */
static bool constant_pad(RtTensor *self, const int64_t *pad, int n_pad, KScalar value, RtValue *out,
                         GError **error) {
  int nd = self->ndim;
  if (n_pad % 2 != 0) {
    K_ERR_SHAPE(error, "Length of pad must be even but instead it equals %d", n_pad);
    return false;
  }
  if (n_pad / 2 > nd) {
    /* sic: PyTorch 1.13's message has no spaces around the numbers */
    K_ERR_SHAPE(error,
                "Length of pad should be no more than twice the number of dimensions of the "
                "input. Pad length is %dwhile the input has %ddimensions.",
                n_pad, nd);
    return false;
  }
  int first = nd - n_pad / 2;
  int64_t start[RT_MAX_DIMS] = {0}, length[RT_MAX_DIMS];
  memcpy(length, self->sizes, sizeof(int64_t) * (size_t)nd);
  bool any_positive = false;
  for (int d = first; d < nd; d++) {
    int64_t before = pad[2 * (nd - d - 1)], after = pad[2 * (nd - d - 1) + 1];
    if (before < 0) {
      int64_t crop = negated(before);
      if (!k_narrow_bounds(length[d], &crop, length[d] + before, error))
        return false;
      start[d] += crop;
      length[d] += before;
    }
    if (after < 0) {
      int64_t zero = 0;
      if (!k_narrow_bounds(length[d], &zero, length[d] + after, error))
        return false;
      length[d] += after;
    }
    any_positive |= before > 0 || after > 0;
  }
  int64_t strides[RT_MAX_DIMS];
  memcpy(strides, self->strides, sizeof(int64_t) * (size_t)nd);
  int64_t offset = self->offset;
  for (int d = first; d < nd; d++)
    offset += start[d] * strides[d];
  RtTensor *kept = rt_tensor_new_strided(self->storage, self->dtype, nd, length, strides, offset);
  if (!any_positive) {
    *out = rt_tensor(rt_tensor_clone(kept));
    rt_tensor_unref(kept);
    return true;
  }
  int64_t sizes[RT_MAX_DIMS];
  memcpy(sizes, self->sizes, sizeof(int64_t) * (size_t)nd);
  for (int d = first; d < nd; d++) {
    int64_t before = pad[2 * (nd - d - 1)], after = pad[2 * (nd - d - 1) + 1];
    bool overflow = __builtin_add_overflow(self->sizes[d], before, &sizes[d]) ||
                    __builtin_add_overflow(sizes[d], after, &sizes[d]);
    if (overflow) {
      K_ERR_SHAPE(error,
                  "constant_pad_nd: the input size %" G_GINT64_FORMAT
                  " plus padding %" G_GINT64_FORMAT " and %" G_GINT64_FORMAT
                  " overflows int64 (dimension %d)",
                  self->sizes[d], before, after, d);
    } else if (sizes[d] <= 0) {
      K_ERR_SHAPE(error,
                  "The input size %" G_GINT64_FORMAT ", plus negative padding %" G_GINT64_FORMAT
                  " and %" G_GINT64_FORMAT " resulted in a negative output size, which is "
                  "invalid. Check dimension %d of your input.",
                  self->sizes[d], before, after, d);
    }
    if (overflow || sizes[d] <= 0) {
      rt_tensor_unref(kept);
      return false;
    }
  }
  RtTensor *fill = fill_value(value, self->dtype, error);
  RtTensor *result = fill ? rt_tensor_new_checked(self->dtype, nd, sizes, error) : NULL;
  bool ok = result && rt_tensor_copy_into(result, fill, error);
  if (ok) {
    int64_t where = 0;
    for (int d = first; d < nd; d++)
      where += MAX(pad[2 * (nd - d - 1)], 0) * result->strides[d];
    RtTensor *inside =
        rt_tensor_new_strided(result->storage, result->dtype, nd, length, result->strides, where);
    ok = rt_tensor_copy_into(inside, kept, error);
    rt_tensor_unref(inside);
  }
  if (fill)
    rt_tensor_unref(fill);
  rt_tensor_unref(kept);
  if (!ok) {
    if (result)
      rt_tensor_unref(result);
    return false;
  }
  *out = rt_tensor(result);
  return true;
}

/* aten::pad's checks of its mode, pad and value, in PyTorch's order; *constant says whether
 * the mode is 'constant'. */
static bool pad_mode_checks(const RtTensor *self, const char *name, int n_pad, const KScalar *value,
                            bool *constant, GError **error) {
  static const char *const modes[] = {"constant", "reflect", "replicate", "circular"};
  bool known = false;
  for (guint i = 0; i < G_N_ELEMENTS(modes); i++)
    known |= strcmp(name, modes[i]) == 0;
  if (!known) {
    K_ERR(error, "Unrecognised padding mode %s", name);
    return false;
  }
  if (n_pad % 2 != 0) {
    K_ERR_SHAPE(error, "Padding length must be divisible by 2");
    return false;
  }
  if (n_pad > 2 * self->ndim) {
    K_ERR_SHAPE(error, "Padding length too large");
    return false;
  }
  *constant = strcmp(name, "constant") == 0;
  if (!*constant && value && value->d != 0) {
    K_ERR(error, "Padding mode \"%s\" doesn't take in value argument", name);
    return false;
  }
  return true;
}

bool rt_kernel_pad(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                   RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  RtTensor *self;
  int64_t pad[RT_MAX_DIMS];
  int n_pad;
  KScalar value = {K_SCALAR_FLOAT, 0, 0.0};
  if (!k_arg_tensor(schema, args, 0, &self, error) ||
      !k_arg_int_list(schema, args, 1, pad, &n_pad, error))
    return false;
  if (schema->kind == IR_ATEN_PAD) {
    bool has_value = !k_arg_is_none(args, 3), constant;
    const char *mode = args[2].tag == RT_STR ? args[2].u.s->text : "";
    if ((has_value && !k_arg_scalar(schema, args, 3, &value, error)) ||
        !pad_mode_checks(self, mode, n_pad, has_value ? &value : NULL, &constant, error))
      return false;
    if (!constant)
      return k_pad_by_mode(mode, self, pad, n_pad, &outs[0], error);
  } else if (!k_arg_scalar(schema, args, 2, &value, error)) {
    return false;
  }
  return constant_pad(self, pad, n_pad, value, &outs[0], error);
}
