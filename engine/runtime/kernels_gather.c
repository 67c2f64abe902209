/* Gathering rows by index: rt_kernel_index_select (index_select, embedding) and
 * rt_kernel_index_backward (index_select_backward, embedding_backward).
 *
 * Contracts as PyTorch 1.13:
 * - index_select(self, dim, index): index is a 0-D or 1-D int64 tensor whose entries lie in
 *   [0, size); the result has self's shape with dim's size replaced by index's length.
 * - embedding(weight, indices, ...): weight is 2-D; the rows weight[i] for every index i,
 *   shaped indices.shape + [embedding dim]. padding_idx only matters for the gradient.
 * - index_select_backward(grad, self_sizes, dim, index): zeros of self_sizes with grad's
 *   slices added at their indices (repeated indices accumulate).
 * - embedding_backward(grad, indices, num_weights, padding_idx, scale_grad_by_freq, sparse):
 *   the same into [num_weights, embedding dim], rows of padding_idx left 0, each row
 *   divided by its index's count when scale_grad_by_freq; sparse gradients are refused.
 * Sums are computed in double and stored in grad's dtype. */
#include "runtime/kernels.h"
#include "runtime/kernels_internal.h"

/* The int64 entries of an index tensor (a new array of *n), each checked against size. */
static gint64 *index_values(const IrSchema *schema, RtTensor *index, int64_t size, int64_t *n,
                            GError **error) {
  if (index->dtype != IR_DTYPE_INT64) {
    K_ERR_DTYPE(error, "%s(): Expected dtype int64 for index, but got %s", k_op_short_name(schema),
                k_dtype_c10_name(index->dtype));
    return NULL;
  }
  *n = rt_tensor_numel(index);
  RtTensor *flat = rt_tensor_contiguous(index);
  gint64 *v = g_new(gint64, *n + 1);
  for (int64_t i = 0; i < *n; i++) {
    v[i] = ((const gint64 *)rt_tensor_data(flat))[i];
    if (v[i] < 0 || v[i] >= size) {
      K_ERR(error, "index out of range in self");
      g_clear_pointer(&v, g_free);
      break;
    }
  }
  rt_tensor_unref(flat);
  return v;
}

/* dst[.., i, ..] (along d) = src[.., idx[i], ..] for every i < n. */
static void gather_rows(RtTensor *dst, RtTensor *src, int d, const gint64 *idx, int64_t n) {
  for (int64_t i = 0; i < n; i++) {
    RtTensor *to = rt_tensor_view_narrow(dst, d, i, 1);
    RtTensor *from = rt_tensor_view_narrow(src, d, idx[i], 1);
    k_copy_into(to, from);
    rt_tensor_unref(from);
    rt_tensor_unref(to);
  }
}

bool rt_kernel_index_select(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                            RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  bool embedding = schema->kind == IR_ATEN_EMBEDDING;
  RtTensor *self, *index;
  gint64 dim = 0;
  int d;
  if (!k_arg_tensor(schema, args, 0, &self, error) ||
      !k_arg_tensor(schema, args, embedding ? 1 : 2, &index, error) ||
      (!embedding && !k_arg_int(schema, args, 1, &dim, error)))
    return false;
  if (embedding && self->ndim != 2) {
    K_ERR_SHAPE(error, "'weight' must be 2-D");
    return false;
  }
  if (!embedding && index->ndim > 1) {
    K_ERR_SHAPE(error, "index_select(): Index is supposed to be a vector");
    return false;
  }
  RtTensor *src = self->ndim == 0 ? rt_tensor_view_unsqueeze(self, 0) : rt_tensor_ref(self);
  int64_t n;
  gint64 *idx = NULL;
  if (k_wrap_dim(dim, src->ndim, &d, error))
    idx = index_values(schema, index, src->sizes[d], &n, error);
  if (!idx) {
    rt_tensor_unref(src);
    return false;
  }
  int64_t shape[RT_MAX_DIMS];
  for (int k = 0; k < src->ndim; k++)
    shape[k] = k == d ? n : src->sizes[k];
  RtTensor *out = rt_tensor_new_checked(src->dtype, src->ndim, shape, error);
  if (out)
    gather_rows(out, src, d, idx, n);
  g_free(idx);
  rt_tensor_unref(src);
  if (!out)
    return false;
  if (embedding || self->ndim == 0) {
    int nd = 0;
    int64_t result[RT_MAX_DIMS];
    for (int k = 0; embedding && k < index->ndim; k++)
      result[nd++] = index->sizes[k];
    if (embedding)
      result[nd++] = self->sizes[1];
    else if (index->ndim == 1)
      result[nd++] = n;
    RtTensor *shaped = rt_tensor_reshape(out, nd, result, true, error);
    K_INVARIANT(shaped != NULL, "a contiguous gather views as its result shape");
    rt_tensor_unref(out);
    out = shaped;
  }
  outs[0] = rt_tensor(out);
  return true;
}

bool rt_kernel_index_backward(const IrSchema *schema, const IrNode *node, RtValue *args,
                              guint n_args, RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  bool embedding = schema->kind == IR_ATEN_EMBEDDING_BACKWARD;
  RtTensor *grad, *index;
  int64_t sizes[RT_MAX_DIMS];
  int nd, d = 0;
  gint64 dim = 0, num_weights, padding_idx = -1;
  bool scale = false, sparse = false;
  if (!k_arg_tensor(schema, args, 0, &grad, error))
    return false;
  if (embedding) {
    if (!k_arg_tensor(schema, args, 1, &index, error) ||
        !k_arg_int(schema, args, 2, &num_weights, error) ||
        !k_arg_int(schema, args, 3, &padding_idx, error) ||
        !k_arg_bool(schema, args, 4, &scale, error) || !k_arg_bool(schema, args, 5, &sparse, error))
      return false;
    if (sparse) {
      K_ERR(error, "embedding_backward(): sparse gradients are not supported");
      return false;
    }
    nd = 2;
    sizes[0] = num_weights;
    sizes[1] = grad->ndim > 0 ? grad->sizes[grad->ndim - 1] : 1;
  } else if (!k_arg_int_list(schema, args, 1, sizes, &nd, error) ||
             !k_arg_int(schema, args, 2, &dim, error) ||
             !k_arg_tensor(schema, args, 3, &index, error) || !k_wrap_dim(dim, nd, &d, error)) {
    return false;
  }
  int64_t n, rows = nd > 0 ? sizes[d] : 1;
  g_autofree gint64 *idx = index_values(schema, index, rows, &n, error);
  if (!idx)
    return false;
  int64_t outer = 1, inner = 1;
  for (int k = 0; k < nd; k++) {
    if (k < d)
      outer *= sizes[k];
    else if (k > d)
      inner *= sizes[k];
  }
  if (rt_tensor_numel(grad) != outer * n * inner) {
    K_ERR_SHAPE(error, "%s(): grad has %" G_GINT64_FORMAT " elements, expected %" G_GINT64_FORMAT,
                k_op_short_name(schema), rt_tensor_numel(grad), outer * n * inner);
    return false;
  }
  RtTensor *acc = rt_tensor_zeros_checked(IR_DTYPE_FLOAT64, nd, sizes, error);
  if (!acc)
    return false;
  g_autofree double *count = g_new0(double, rows + 1);
  for (int64_t i = 0; i < n; i++)
    count[idx[i]] += 1;
  RtTensor *g64 = rt_tensor_to_dtype(grad, IR_DTYPE_FLOAT64);
  const double *g = rt_tensor_data(g64);
  double *a = rt_tensor_data(acc);
  for (int64_t o = 0; o < outer; o++)
    for (int64_t i = 0; i < n; i++) {
      if (embedding && idx[i] == padding_idx)
        continue;
      double scale_by = scale ? count[idx[i]] : 1;
      for (int64_t k = 0; k < inner; k++)
        a[(o * rows + idx[i]) * inner + k] += g[(o * n + i) * inner + k] / scale_by;
    }
  rt_tensor_unref(g64);
  outs[0] = rt_tensor(k_to_dtype(acc, grad->dtype));
  rt_tensor_unref(acc);
  return true;
}
