/* Element-wise indexed reads and writes: rt_kernel_masked_fill (masked_fill.Scalar, .Tensor)
 * and rt_kernel_gather (gather, scatter_add).
 *
 * Contracts as PyTorch 1.13:
 * - masked_fill(self, mask, value): self and the bool mask broadcast; the result (self's
 *   dtype) holds value where mask is set, self elsewhere. A Tensor value must be 0-dim.
 * - gather(self, dim, index): index is int64 with self's rank and sizes no larger than
 *   self's outside dim; out[..., i, ...] = self[..., index[..., i, ...], ...] along dim, in
 *   index's shape. Every index must lie in [0, self.size(dim)).
 * - scatter_add(self, dim, index, src): a copy of self with src[p] added at index's position
 *   p moved along dim to index[p]; index no larger than src anywhere and than self outside
 *   dim; src has self's dtype. Sums are computed in double.
 * Bad masks, ranks, sizes and indices are errors with PyTorch's messages. */
#include "runtime/kernels.h"
#include "runtime/kernels_internal.h"

#include <string.h>

bool rt_kernel_masked_fill(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                           RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  RtTensor *self, *mask;
  KScalar value;
  if (!k_arg_tensor(schema, args, 0, &self, error) || !k_arg_tensor(schema, args, 1, &mask, error))
    return false;
  if (args[2].tag == RT_TENSOR) {
    RtTensor *v;
    if (!k_arg_tensor(schema, args, 2, &v, error))
      return false;
    if (v->ndim != 0) {
      K_ERR_SHAPE(error,
                  "masked_fill_ only supports a 0-dimensional value tensor, but got "
                  "tensor with %d dimension(s).",
                  v->ndim);
      return false;
    }
  }
  if (!k_arg_scalar(schema, args, 2, &value, error))
    return false;
  if (mask->dtype != IR_DTYPE_BOOL) {
    K_ERR_DTYPE(error, "masked_fill_ only supports boolean masks, but got mask with dtype %s",
                k_dtype_c10_name(mask->dtype));
    return false;
  }
  int nd;
  int64_t shape[RT_MAX_DIMS];
  if (!k_broadcast(self->ndim, self->sizes, mask->ndim, mask->sizes, &nd, shape, error))
    return false;
  RtTensor *out = rt_tensor_new_checked(self->dtype, nd, shape, error);
  if (!out)
    return false;
  RtTensor *wide_self = rt_tensor_view_expand(self, nd, shape, NULL);
  RtTensor *wide_mask = rt_tensor_view_expand(mask, nd, shape, NULL);
  K_INVARIANT(wide_self && wide_mask, "operands broadcast to their broadcast shape");
  k_copy_into(out, wide_self);
  RtTensor *m = rt_tensor_contiguous(wide_mask);
  const bool *set = rt_tensor_data(m);
  for (int64_t i = 0; i < rt_tensor_numel(out); i++)
    if (set[i])
      rt_tensor_set(out, i, value.kind == K_SCALAR_FLOAT ? value.d : (double)value.i);
  rt_tensor_unref(m);
  rt_tensor_unref(wide_mask);
  rt_tensor_unref(wide_self);
  outs[0] = rt_tensor(out);
  return true;
}

/* PyTorch's gather/scatter shape checks: index has self's rank, and no dim of index is larger
 * than self's outside dim, nor than src's anywhere (src NULL for gather). */
static bool index_shape_ok(const char *op, const RtTensor *self, int dim, const RtTensor *index,
                           const RtTensor *src, GError **error) {
  int rank = self->ndim > 0 ? self->ndim : 1, index_rank = index->ndim > 0 ? index->ndim : 1;
  if (index->dtype != IR_DTYPE_INT64) {
    K_ERR_DTYPE(error, "%s(): Expected dtype int64 for index", op);
    return false;
  }
  if (index_rank != rank) {
    K_ERR_SHAPE(error, "Index tensor must have the same number of dimensions as %s tensor",
                src ? "self" : "input");
    return false;
  }
  for (int d = 0; d < index->ndim; d++) {
    if (d != dim && index->sizes[d] > self->sizes[d]) {
      char a[128], b[128];
      k_shape_text(a, sizeof a, index->ndim, index->sizes);
      k_shape_text(b, sizeof b, self->ndim, self->sizes);
      K_ERR_SHAPE(error,
                  "Size does not match at dimension %d expected index %s to be smaller "
                  "than self %s apart from dimension %d",
                  d, a, b, dim);
      return false;
    }
    if (src && index->sizes[d] > src->sizes[d]) {
      char a[128], b[128];
      k_shape_text(a, sizeof a, index->ndim, index->sizes);
      k_shape_text(b, sizeof b, src->ndim, src->sizes);
      K_ERR_SHAPE(error,
                  "Size does not match at dimension %d expected index %s to be smaller "
                  "than src %s",
                  d, a, b);
      return false;
    }
  }
  return true;
}

/* Element offsets of index position `pos` (row-major over index's shape) in a tensor with
 * `strides`, without dim's contribution. */
static int64_t offset_except(const RtTensor *index, const int64_t *strides, int dim, int64_t pos) {
  int64_t off = 0;
  for (int d = index->ndim - 1; d >= 0; d--) {
    int64_t coord = pos % index->sizes[d];
    pos /= index->sizes[d];
    if (d != dim)
      off += coord * strides[d];
  }
  return off;
}

bool rt_kernel_gather(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                      RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  bool scatter = schema->kind == IR_ATEN_SCATTER_ADD;
  const char *op = k_op_short_name(schema);
  RtTensor *self, *index, *src = NULL;
  gint64 dim64;
  int dim;
  if (!k_arg_tensor(schema, args, 0, &self, error) || !k_arg_int(schema, args, 1, &dim64, error) ||
      !k_arg_tensor(schema, args, 2, &index, error) ||
      (scatter && !k_arg_tensor(schema, args, 3, &src, error)) ||
      !k_wrap_dim(dim64, self->ndim, &dim, error) ||
      !index_shape_ok(op, self, dim, index, src, error))
    return false;
  if (src && src->dtype != self->dtype) {
    K_ERR_DTYPE(error, "scatter(): Expected self.dtype to be equal to src.dtype");
    return false;
  }
  RtTensor *idx = rt_tensor_contiguous(index);
  const gint64 *iv = rt_tensor_data(idx);
  int64_t n = rt_tensor_numel(idx), limit = self->ndim > 0 ? self->sizes[dim] : 1;
  for (int64_t p = 0; p < n; p++)
    if (iv[p] < 0 || iv[p] >= limit) {
      K_ERR(error,
            "index %" G_GINT64_FORMAT
            " is out of bounds for dimension %d with size %" G_GINT64_FORMAT,
            iv[p], dim, limit);
      rt_tensor_unref(idx);
      return false;
    }
  /* Contiguous strides of self's shape address the result (scatter) or self's copy. */
  int64_t strides[RT_MAX_DIMS], step = 1;
  for (int d = self->ndim - 1; d >= 0; d--) {
    strides[d] = step;
    step *= self->sizes[d];
  }
  int64_t stride_dim = self->ndim > 0 ? strides[dim] : 0;
  RtTensor *base = rt_tensor_contiguous(self);
  RtTensor *out;
  if (scatter) {
    RtTensor *acc = rt_tensor_to_dtype(base, IR_DTYPE_FLOAT64);
    RtTensor *s64 = rt_tensor_to_dtype(src, IR_DTYPE_FLOAT64);
    double *a = rt_tensor_data(acc);
    const double *sv = rt_tensor_data(s64);
    int64_t src_strides[RT_MAX_DIMS], src_step = 1;
    for (int d = src->ndim - 1; d >= 0; d--) {
      src_strides[d] = src_step;
      src_step *= src->sizes[d];
    }
    for (int64_t p = 0; p < n; p++) {
      int64_t at = offset_except(idx, src_strides, -1, p);
      a[offset_except(idx, strides, dim, p) + iv[p] * stride_dim] += sv[at];
    }
    rt_tensor_unref(s64);
    out = k_to_dtype(acc, self->dtype);
    rt_tensor_unref(acc);
  } else {
    out = rt_tensor_new_checked(self->dtype, index->ndim, index->sizes, error);
    if (out) {
      size_t elsize = ir_dtype_size(self->dtype);
      const char *from = rt_tensor_data(base);
      char *to = rt_tensor_data(out);
      for (int64_t p = 0; p < n; p++)
        memcpy(to + (size_t)p * elsize,
               from + (size_t)(offset_except(idx, strides, dim, p) + iv[p] * stride_dim) * elsize,
               elsize);
    }
  }
  rt_tensor_unref(base);
  rt_tensor_unref(idx);
  if (!out)
    return false;
  outs[0] = rt_tensor(out);
  return true;
}
