/* Layout and indexing views: rt_kernel_permute, rt_kernel_contiguous (and clone),
 * rt_kernel_flip, rt_kernel_roll, rt_kernel_flatten,
 * rt_kernel_slice (slice, select, narrow), and the gradients of slice and select,
 * rt_kernel_slice_backward (slice_backward, select_backward).
 *
 * Contracts as PyTorch 1.13:
 * - permute: a view with dims reordered; dims must name every dim once.
 * - contiguous: self itself when already contiguous, else a contiguous copy; clone: always a
 *   copy; flip(dims): a copy with those dims reversed; roll(shifts, dims): a copy whose
 *   element c along dims[k] is self's (c - shifts[k]) mod size (shifts of one dim add up;
 *   with dims empty, one shift along the flattened tensor); an empty self is returned as a
 *   copy before its dims are looked at, as PyTorch 1.13's roll_cpu does.
 * - flatten(start_dim, end_dim): reshape merging dims start..end (a view when the strides
 *   allow, else a copy); a 0-dim tensor becomes [1].
 * - slice(dim, start, end, step): a view; None start/end are 0 / the size, negative ones
 *   count from the end, both are clamped into [0, size] and end < start gives an empty
 *   slice; step must be positive.
 * - select(dim, index): the view without dim at index (negative from the end); out of range
 *   is an error.
 * - narrow(dim, start, length): the view slice(dim, start, start + length) after
 *   k_narrow_bounds; a 0-dim self is an error.
 * - slice_backward / select_backward(grad, input_sizes, dim, ...): zeros of input_sizes with
 *   grad written where the forward view looked. */
#include <string.h>

#include "runtime/kernels.h"
#include "runtime/kernels_internal.h"

static RtTensor *view_of(RtTensor *t, int ndim, const int64_t *sizes, const int64_t *strides,
                         int64_t offset) {
  return rt_tensor_new_strided(t->storage, t->dtype, ndim, sizes, strides, offset);
}

bool rt_kernel_permute(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                       RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  RtTensor *self;
  int64_t dims[RT_MAX_DIMS];
  int n;
  if (!k_arg_tensor(schema, args, 0, &self, error) ||
      !k_arg_int_list(schema, args, 1, dims, &n, error))
    return false;
  if (n != self->ndim) {
    K_ERR_SHAPE(error,
                "permute(sparse_coo): number of dimensions in the tensor input does not "
                "match the length of the desired ordering of dimensions i.e. input.dim() = %d "
                "is not equal to len(dims) = %d",
                self->ndim, n);
    return false;
  }
  bool seen[RT_MAX_DIMS] = {false};
  int64_t sizes[RT_MAX_DIMS], strides[RT_MAX_DIMS];
  for (int i = 0; i < n; i++) {
    int d;
    if (!k_wrap_dim(dims[i], n, &d, error))
      return false;
    if (seen[d]) {
      K_ERR_SHAPE(error, "permute(): duplicate dims are not allowed.");
      return false;
    }
    seen[d] = true;
    sizes[i] = self->sizes[d];
    strides[i] = self->strides[d];
  }
  outs[0] = rt_tensor(view_of(self, n, sizes, strides, self->offset));
  return true;
}

bool rt_kernel_contiguous(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                          RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  RtTensor *self;
  if (!k_arg_tensor(schema, args, 0, &self, error))
    return false;
  /* contiguous may return self; clone never does */
  outs[0] =
      rt_tensor(schema->kind == IR_ATEN_CLONE ? rt_tensor_clone(self) : rt_tensor_contiguous(self));
  return true;
}

bool rt_kernel_flatten(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                       RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  RtTensor *self;
  gint64 start, end;
  int s, e;
  if (!k_arg_tensor(schema, args, 0, &self, error) || !k_arg_int(schema, args, 1, &start, error) ||
      !k_arg_int(schema, args, 2, &end, error) || !k_wrap_dim(start, self->ndim, &s, error) ||
      !k_wrap_dim(end, self->ndim, &e, error))
    return false;
  if (s > e) {
    K_ERR_SHAPE(error, "flatten() has invalid args: start_dim cannot come after end_dim");
    return false;
  }
  int64_t sizes[RT_MAX_DIMS];
  int n = 0;
  if (self->ndim == 0) {
    sizes[n++] = 1;
  } else {
    for (int d = 0; d < s; d++)
      sizes[n++] = self->sizes[d];
    int64_t merged = 1;
    for (int d = s; d <= e; d++)
      merged *= self->sizes[d];
    sizes[n++] = merged;
    for (int d = e + 1; d < self->ndim; d++)
      sizes[n++] = self->sizes[d];
  }
  RtTensor *r = rt_tensor_reshape(self, n, sizes, false, error);
  if (!r)
    return false;
  outs[0] = rt_tensor(r);
  return true;
}

/* PyTorch's clamping of a slice bound into [0, size]. */
static int64_t slice_bound(int64_t v, int64_t size) {
  if (v < 0)
    v += size;
  return v < 0 ? 0 : (v > size ? size : v);
}

/* The view slice(t, dim, start, end, step) with validated arguments. */
static RtTensor *slice_view(RtTensor *t, int d, int64_t start, int64_t end, int64_t step) {
  int64_t size = t->sizes[d];
  start = slice_bound(start, size);
  end = slice_bound(end, size);
  if (end < start)
    end = start;
  int64_t sizes[RT_MAX_DIMS], strides[RT_MAX_DIMS];
  for (int k = 0; k < t->ndim; k++) {
    sizes[k] = t->sizes[k];
    strides[k] = t->strides[k];
  }
  sizes[d] = (end - start + step - 1) / step;
  strides[d] = t->strides[d] * step;
  return view_of(t, t->ndim, sizes, strides, t->offset + start * t->strides[d]);
}

/* The optional int at args[i], `fallback` for None. */
static bool optional_int(const IrSchema *schema, RtValue *args, guint i, int64_t fallback,
                         int64_t *out, GError **error) {
  if (k_arg_is_none(args, i)) {
    *out = fallback;
    return true;
  }
  return k_arg_int(schema, args, i, out, error);
}

/* dim, start, end and step of slice (from args[first]) against a tensor of rank ndim. */
static bool slice_args(const IrSchema *schema, RtValue *args, guint first, int ndim, int *d,
                       int64_t *start, int64_t *end, int64_t *step, GError **error) {
  gint64 dim;
  if (ndim == 0) {
    K_ERR_SHAPE(error, "slice() cannot be applied to a 0-dim tensor.");
    return false;
  }
  if (!k_arg_int(schema, args, first, &dim, error) || !k_wrap_dim(dim, ndim, d, error) ||
      !optional_int(schema, args, first + 1, 0, start, error) ||
      !optional_int(schema, args, first + 2, INT64_MAX, end, error) ||
      !k_arg_int(schema, args, first + 3, step, error))
    return false;
  if (*step <= 0) {
    K_ERR(error, "slice step must be positive");
    return false;
  }
  return true;
}

/* dim and index of select (from args[first]) against sizes; the index wrapped. */
static bool select_args(const IrSchema *schema, RtValue *args, guint first, int ndim,
                        const int64_t *sizes, int *d, int64_t *index, GError **error) {
  gint64 dim;
  if (ndim == 0) {
    K_ERR_SHAPE(error, "select() cannot be applied to a 0-dim tensor.");
    return false;
  }
  if (!k_arg_int(schema, args, first, &dim, error) || !k_wrap_dim(dim, ndim, d, error) ||
      !k_arg_int(schema, args, first + 1, index, error))
    return false;
  if (*index < -sizes[*d] || *index >= sizes[*d]) {
    char shape[256];
    k_shape_text(shape, sizeof shape, ndim, sizes);
    K_ERR_SHAPE(error,
                "select(): index %" G_GINT64_FORMAT " out of range for tensor of size "
                "%s at dimension %d",
                *index, shape, *d);
    return false;
  }
  if (*index < 0)
    *index += sizes[*d];
  return true;
}

/* select as a view: the slice [index, index + 1) without its dim. */
static RtTensor *select_view(RtTensor *t, int d, int64_t index) {
  int64_t sizes[RT_MAX_DIMS], strides[RT_MAX_DIMS];
  int n = 0;
  for (int k = 0; k < t->ndim; k++) {
    if (k == d)
      continue;
    sizes[n] = t->sizes[k];
    strides[n++] = t->strides[k];
  }
  return view_of(t, n, sizes, strides, t->offset + index * t->strides[d]);
}

bool k_narrow_bounds(int64_t size, int64_t *start, int64_t length, GError **error) {
  if (*start != size && !k_wrap_index(*start, size, start, error))
    return false;
  if (length < 0 || *start > size - length) {
    K_ERR_SHAPE(error,
                "start (%" G_GINT64_FORMAT ") + length (%" G_GINT64_FORMAT
                ") exceeds dimension size (%" G_GINT64_FORMAT ").",
                *start, length, size);
    return false;
  }
  return true;
}

/* narrow's arguments (dim, start, length at args[1..3]) checked against self. */
static bool narrow_args(const IrSchema *schema, RtValue *args, const RtTensor *self, int *d,
                        int64_t *start, int64_t *length, GError **error) {
  gint64 dim;
  if (self->ndim == 0) {
    K_ERR_SHAPE(error, "narrow() cannot be applied to a 0-dim tensor.");
    return false;
  }
  return k_arg_int(schema, args, 1, &dim, error) && k_wrap_dim(dim, self->ndim, d, error) &&
         k_arg_int(schema, args, 2, start, error) && k_arg_int(schema, args, 3, length, error) &&
         k_narrow_bounds(self->sizes[*d], start, *length, error);
}

bool rt_kernel_slice(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                     RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  RtTensor *self;
  int d;
  int64_t start, end, step;
  if (!k_arg_tensor(schema, args, 0, &self, error))
    return false;
  if (schema->kind == IR_ATEN_NARROW) {
    int64_t length;
    if (!narrow_args(schema, args, self, &d, &start, &length, error))
      return false;
    outs[0] = rt_tensor(slice_view(self, d, start, start + length, 1));
    return true;
  }
  if (schema->kind == IR_ATEN_SELECT) {
    if (!select_args(schema, args, 1, self->ndim, self->sizes, &d, &start, error))
      return false;
    outs[0] = rt_tensor(select_view(self, d, start));
    return true;
  }
  if (!slice_args(schema, args, 1, self->ndim, &d, &start, &end, &step, error))
    return false;
  outs[0] = rt_tensor(slice_view(self, d, start, end, step));
  return true;
}

bool rt_kernel_slice_backward(const IrSchema *schema, const IrNode *node, RtValue *args,
                              guint n_args, RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  RtTensor *grad;
  int64_t sizes[RT_MAX_DIMS], start, end, step;
  int n, d;
  if (!k_arg_tensor(schema, args, 0, &grad, error) ||
      !k_arg_int_list(schema, args, 1, sizes, &n, error))
    return false;
  bool select = schema->kind == IR_ATEN_SELECT_BACKWARD;
  if (select ? !select_args(schema, args, 2, n, sizes, &d, &start, error)
             : !slice_args(schema, args, 2, n, &d, &start, &end, &step, error))
    return false;
  RtTensor *r = rt_tensor_zeros_checked(grad->dtype, n, sizes, error);
  if (!r)
    return false;
  RtTensor *target = select ? select_view(r, d, start) : slice_view(r, d, start, end, step);
  bool ok = rt_tensor_copy_into(target, grad, error);
  rt_tensor_unref(target);
  if (!ok) {
    rt_tensor_unref(r);
    return false;
  }
  outs[0] = rt_tensor(r);
  return true;
}

/* A contiguous tensor of sizes whose element at coordinates c is src's (contiguous, same
 * sizes) at c[d] reversed where flipped[d], else at (c[d] - shift[d]) mod sizes[d] with
 * shift[d] in [0, sizes[d]): flip's and roll's copies. */
static RtTensor *moved_copy(const RtTensor *src, int ndim, const int64_t *sizes,
                            const bool *flipped, const int64_t *shift) {
  RtTensor *out = rt_tensor_new(src->dtype, ndim, sizes);
  size_t size = rt_dtype_size(src->dtype);
  const char *from = rt_tensor_data(src);
  char *to = rt_tensor_data(out);
  int64_t numel = rt_tensor_numel(out);
  for (int64_t i = 0; i < numel; i++) {
    int64_t rest = i, at = 0, stride = 1;
    for (int d = ndim - 1; d >= 0; d--) {
      int64_t c = rest % sizes[d];
      rest /= sizes[d];
      int64_t moved = flipped[d] ? sizes[d] - 1 - c : (c + sizes[d] - shift[d]) % sizes[d];
      at += moved * stride;
      stride *= sizes[d];
    }
    memcpy(to + (size_t)i * size, from + (size_t)at * size, size);
  }
  return out;
}

/* flip: a contiguous copy with the listed dims reversed; a dim listed twice is an error, as
 * PyTorch's. */
bool rt_kernel_flip(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                    RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  RtTensor *self;
  int64_t dims[RT_MAX_DIMS];
  int n = 0;
  if (!k_arg_tensor(schema, args, 0, &self, error) ||
      !k_arg_int_list(schema, args, 1, dims, &n, error))
    return false;
  bool flipped[RT_MAX_DIMS] = {false};
  for (int k = 0; k < n; k++) {
    int d;
    if (!k_wrap_dim(dims[k], self->ndim, &d, error))
      return false;
    if (flipped[d]) {
      K_ERR_SHAPE(error, "dim %d appears multiple times in the list of dims", d);
      return false;
    }
    flipped[d] = true;
  }
  RtTensor *src = rt_tensor_clone(self);
  int64_t no_shift[RT_MAX_DIMS] = {0};
  outs[0] = rt_tensor(moved_copy(src, self->ndim, self->sizes, flipped, no_shift));
  rt_tensor_unref(src);
  return true;
}

/* A shift along a dim of `size` (> 0) as the equivalent one in [0, size), through PyTorch
 * 1.13's roll_cpu arithmetic: its start (size - shift) % size wraps around for a shift of
 * INT64_MIN, which then rolls as PyTorch's does. */
static int64_t shift_modulo(int64_t shift, int64_t size) {
  int64_t start = (int64_t)((uint64_t)size - (uint64_t)shift) % size;
  if (start < 0)
    start += size;
  return (size - start) % size;
}

/* roll: PyTorch 1.13's checks in its order (roll_common, then roll_cpu per dim). */
bool rt_kernel_roll(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                    RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  RtTensor *self;
  int64_t shifts[RT_MAX_DIMS], dims[RT_MAX_DIMS];
  int n_shifts, n_dims;
  if (!k_arg_tensor(schema, args, 0, &self, error) ||
      !k_arg_int_list(schema, args, 1, shifts, &n_shifts, error) ||
      !k_arg_int_list(schema, args, 2, dims, &n_dims, error))
    return false;
  if (n_shifts == 0) {
    K_ERR(error, "`shifts` required");
    return false;
  }
  bool flattened = n_dims == 0 && n_shifts == 1;
  if (!flattened && n_shifts != n_dims) {
    K_ERR(error, "shifts and dimensions must align. shifts: %d, dims:%d", n_shifts, n_dims);
    return false;
  }
  int64_t numel = rt_tensor_numel(self);
  if (numel == 0) {
    outs[0] = rt_tensor(rt_tensor_clone(self));
    return true;
  }
  bool flipped[RT_MAX_DIMS] = {false};
  int64_t shift[RT_MAX_DIMS] = {0};
  if (flattened) {
    shift[0] = shift_modulo(shifts[0], numel);
    RtTensor *src = rt_tensor_clone(self);
    RtTensor *flat = moved_copy(src, 1, &numel, flipped, shift);
    int64_t strides[RT_MAX_DIMS];
    rt_contiguous_strides(self->ndim, self->sizes, strides);
    outs[0] = rt_tensor(
        rt_tensor_new_strided(flat->storage, flat->dtype, self->ndim, self->sizes, strides, 0));
    rt_tensor_unref(flat);
    rt_tensor_unref(src);
    return true;
  }
  for (int k = 0; k < n_dims; k++) {
    int d;
    if (self->ndim == 0) {
      K_ERR_SHAPE(error, "Dimension specified as %" G_GINT64_FORMAT " but tensor has no dimensions",
                  dims[k]);
      return false;
    }
    if (!k_wrap_dim(dims[k], self->ndim, &d, error))
      return false;
    shift[d] = (shift[d] + shift_modulo(shifts[k], self->sizes[d])) % self->sizes[d];
  }
  RtTensor *src = rt_tensor_clone(self);
  outs[0] = rt_tensor(moved_copy(src, self->ndim, self->sizes, flipped, shift));
  rt_tensor_unref(src);
  return true;
}
