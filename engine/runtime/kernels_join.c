/* Splitting and joining: rt_kernel_chunk, rt_kernel_split, rt_kernel_cat, rt_kernel_stack and
 * rt_kernel_unbind.
 *
 * chunk (PyTorch 1.13): chunk size ceil(size / chunks); the last chunk may be smaller and
 * there may be fewer than `chunks` pieces (size 5 in 3 chunks gives 2, 2, 1; size 4 in 3
 * chunks gives 2, 2); a size-0 dim gives `chunks` empty pieces. The result is one list value
 * of views sharing self's storage.
 *
 * cat: tensors promoted to their result_type; sizes must agree except along dim; 1-D empty
 * tensors (shape [0]) are skipped, as PyTorch's legacy rule; 0-dim tensors are refused.
 *
 * stack: tensors of one shape, promoted like cat's, joined along a new dim (in [0, rank]);
 * unbind: the views select(dim, i) for every i, as one list value. */
#include "runtime/kernels.h"
#include "runtime/kernels_internal.h"

#include <string.h>

bool rt_kernel_chunk(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                     RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  RtTensor *self;
  gint64 chunks, dim;
  if (!k_arg_tensor(schema, args, 0, &self, error) || !k_arg_int(schema, args, 1, &chunks, error) ||
      !k_arg_int(schema, args, 2, &dim, error))
    return false;
  if (self->ndim == 0) {
    K_ERR_SHAPE(error, "chunk expects at least a 1-dimensional tensor");
    return false;
  }
  if (chunks <= 0) {
    K_ERR(error, "chunk expects `chunks` to be greater than 0, got: %" G_GINT64_FORMAT, chunks);
    return false;
  }
  int w;
  if (!k_wrap_dim(dim, self->ndim, &w, error))
    return false;
  int64_t size = self->sizes[w];
  int64_t split = (size + chunks - 1) / chunks;
  int64_t pieces = size == 0 ? chunks : (size + split - 1) / split;
  RtValue *items = g_new(RtValue, pieces);
  for (int64_t k = 0; k < pieces; k++) {
    int64_t start = k * split;
    int64_t length = size == 0 ? 0 : MIN(split, size - start);
    items[k] = rt_tensor(rt_tensor_view_narrow(self, w, size == 0 ? 0 : start, length));
  }
  outs[0] = rt_list(items, (guint)pieces);
  g_free(items);
  return true;
}

static bool skipped(const RtTensor *t) {
  return t->ndim == 1 && t->sizes[0] == 0;
}

/* The Tensor[] argument args[0] of cat / stack: a non-empty list of defined tensors (*n of
 * them) and the dtype they promote to (all as tensors of rank > 0). */
static bool tensor_list(const IrSchema *schema, RtValue *args, const char *empty_message, guint *n,
                        IrDtype *dtype, GError **error) {
  RtValue list = args[0];
  const char *op = k_op_short_name(schema);
  if (list.tag != RT_LIST && list.tag != RT_TUPLE) {
    K_ERR(error, "%s(): argument 'tensors' (position 1) must be a list of tensors", op);
    return false;
  }
  *n = list.u.seq->len;
  if (*n == 0) {
    K_ERR(error, "%s", empty_message);
    return false;
  }
  KResultType rt;
  k_result_init(&rt);
  for (guint k = 0; k < *n; k++) {
    RtValue item = list.u.seq->items[k];
    if (item.tag != RT_TENSOR || item.u.tensor == NULL) {
      K_ERR(error, "%s(): expected a list of defined Tensors, item %u is not one", op, k);
      return false;
    }
    rt.dim_result = k_promote(rt.dim_result, item.u.tensor->dtype);
  }
  *dtype = k_result_get(&rt);
  return true;
}

bool rt_kernel_cat(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                   RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  gint64 dim;
  guint n;
  IrDtype dtype;
  if (!k_arg_int(schema, args, 1, &dim, error) ||
      !tensor_list(schema, args, "torch.cat(): expected a non-empty list of Tensors", &n, &dtype,
                   error))
    return false;
  RtValue list = args[0];
  const RtTensor *ref = NULL; /* the first tensor that is not skipped */
  for (guint k = 0; k < n; k++) {
    const RtTensor *t = list.u.seq->items[k].u.tensor;
    if (t->storage != NULL && t->storage->device != IR_DEVICE_CPU) {
      K_ERR(error, "cat(): item %u is not a cpu tensor", k);
      return false;
    }
    if (t->ndim == 0) {
      K_ERR_SHAPE(error, "zero-dimensional tensor (at position %u) cannot be concatenated", k);
      return false;
    }
    if (!ref && !skipped(t))
      ref = t;
  }
  if (!ref) { /* every input is an empty 1-D tensor */
    int64_t zero = 0;
    outs[0] = rt_tensor(rt_tensor_new(dtype, 1, &zero));
    return true;
  }
  int w;
  if (!k_wrap_dim(dim, ref->ndim, &w, error))
    return false;
  int64_t shape[RT_MAX_DIMS];
  for (int d = 0; d < ref->ndim; d++)
    shape[d] = ref->sizes[d];
  shape[w] = 0;
  for (guint k = 0; k < n; k++) {
    const RtTensor *t = list.u.seq->items[k].u.tensor;
    if (skipped(t))
      continue;
    if (t->ndim != ref->ndim) {
      K_ERR_SHAPE(error, "Tensors must have same number of dimensions: got %d and %d", ref->ndim,
                  t->ndim);
      return false;
    }
    for (int d = 0; d < t->ndim; d++) {
      if (d != w && t->sizes[d] != ref->sizes[d]) {
        K_ERR_SHAPE(error,
                    "Sizes of tensors must match except in dimension %d. Expected size "
                    "%" G_GINT64_FORMAT " but got size %" G_GINT64_FORMAT " for tensor number "
                    "%u in the list.",
                    w, ref->sizes[d], t->sizes[d], k);
        return false;
      }
    }
    if (shape[w] > INT64_MAX - t->sizes[w]) {
      K_ERR_SHAPE(error, "the concatenated size in dimension %d overflows int64", w);
      return false;
    }
    shape[w] += t->sizes[w];
  }
  RtTensor *out = rt_tensor_new_checked(dtype, ref->ndim, shape, error);
  if (!out)
    return false;
  int64_t offset = 0;
  for (guint k = 0; k < n; k++) {
    RtTensor *t = list.u.seq->items[k].u.tensor;
    if (skipped(t))
      continue;
    RtTensor *slot = rt_tensor_view_narrow(out, w, offset, t->sizes[w]);
    RtTensor *src = k_to_dtype(t, dtype);
    k_copy_into(slot, src);
    rt_tensor_unref(src);
    rt_tensor_unref(slot);
    offset += t->sizes[w];
  }
  outs[0] = rt_tensor(out);
  return true;
}

/* split (pieces of split_size along dim, the last one smaller; one empty piece for a size-0
 * dim) and split_with_sizes and split.sizes (pieces of the given sizes, which must add up to
 * the dim's size):
 * like chunk, one list value of views sharing self's storage. */
bool rt_kernel_split(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                     RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  RtTensor *self;
  gint64 dim;
  if (!k_arg_tensor(schema, args, 0, &self, error) || !k_arg_int(schema, args, 2, &dim, error))
    return false;
  if (self->ndim == 0) {
    K_ERR_SHAPE(error, "split expects at least a 1-dimensional tensor");
    return false;
  }
  int w;
  if (!k_wrap_dim(dim, self->ndim, &w, error))
    return false;
  int64_t size = self->sizes[w];
  g_autoptr(GArray) lengths = g_array_new(FALSE, FALSE, sizeof(gint64));
  if (k_overload_is(schema, "Tensor")) {
    gint64 split_size;
    if (!k_arg_int(schema, args, 1, &split_size, error))
      return false;
    if (split_size < 0 || (split_size == 0 && size != 0)) {
      K_ERR(error,
            "split_size can only be 0 if dimension size is 0, but got dimension size "
            "of %" G_GINT64_FORMAT,
            (gint64)size);
      return false;
    }
    int64_t pieces = size == 0 ? 1 : (size + split_size - 1) / split_size;
    for (int64_t k = 0; k < pieces; k++) {
      gint64 length = size == 0 ? 0 : MIN(split_size, size - k * split_size);
      g_array_append_val(lengths, length);
    }
  } else {
    RtValue sizes = args[1];
    guint n = sizes.tag == RT_LIST ? sizes.u.seq->len : 0;
    g_array_set_size(lengths, n);
    guint got = 0;
    if (sizes.tag != RT_LIST ||
        !rt_value_to_int_list(sizes, (gint64 *)(void *)lengths->data, n, &got) || got != n) {
      K_ERR(error, "split_with_sizes(): argument 'split_sizes' must be a list of ints");
      return false;
    }
    int64_t total = 0;
    for (guint k = 0; k < n; k++) {
      gint64 length = g_array_index(lengths, gint64, k);
      if (length < 0) {
        K_ERR(error,
              "split_with_sizes expects split_sizes have only non-negative entries, but "
              "got split_sizes=%" G_GINT64_FORMAT,
              length);
        return false;
      }
      total += length;
    }
    if (total != size) {
      K_ERR(error,
            "split_with_sizes expects split_sizes to sum exactly to %" G_GINT64_FORMAT
            " (input tensor's size at dimension %d), but got a sum of %" G_GINT64_FORMAT,
            (gint64)size, w, (gint64)total);
      return false;
    }
  }
  RtValue *items = g_new(RtValue, lengths->len);
  int64_t start = 0;
  for (guint k = 0; k < lengths->len; k++) {
    gint64 length = g_array_index(lengths, gint64, k);
    items[k] = rt_tensor(rt_tensor_view_narrow(self, w, start, length));
    start += length;
  }
  outs[0] = rt_list(items, lengths->len);
  g_free(items);
  return true;
}

bool rt_kernel_stack(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                     RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  gint64 dim;
  guint n;
  IrDtype dtype;
  if (!k_arg_int(schema, args, 1, &dim, error) ||
      !tensor_list(schema, args, "stack expects a non-empty TensorList", &n, &dtype, error))
    return false;
  RtValue list = args[0];
  const RtTensor *ref = list.u.seq->items[0].u.tensor;
  for (guint k = 1; k < n; k++) {
    const RtTensor *t = list.u.seq->items[k].u.tensor;
    if (t->ndim != ref->ndim ||
        memcmp(t->sizes, ref->sizes, sizeof(int64_t) * (size_t)t->ndim) != 0) {
      char a[256], b[256];
      k_shape_text(a, sizeof a, ref->ndim, ref->sizes);
      k_shape_text(b, sizeof b, t->ndim, t->sizes);
      K_ERR_SHAPE(error,
                  "stack expects each tensor to be equal size, but got %s at entry 0 "
                  "and %s at entry %u",
                  a, b, k);
      return false;
    }
  }
  int w;
  if (!k_wrap_dim(dim, ref->ndim + 1, &w, error))
    return false;
  if (ref->ndim >= RT_MAX_DIMS) {
    K_ERR_SHAPE(error, "stack: tensors of rank %d cannot gain a dimension (at most %d)", ref->ndim,
                RT_MAX_DIMS);
    return false;
  }
  int64_t shape[RT_MAX_DIMS];
  for (int d = 0, s = 0; d <= ref->ndim; d++)
    shape[d] = d == w ? (int64_t)n : ref->sizes[s++];
  RtTensor *out = rt_tensor_new_checked(dtype, ref->ndim + 1, shape, error);
  if (!out)
    return false;
  for (guint k = 0; k < n; k++) {
    RtTensor *slot = rt_tensor_view_narrow(out, w, k, 1);
    RtTensor *src = k_to_dtype(list.u.seq->items[k].u.tensor, dtype);
    RtTensor *piece = rt_tensor_view_unsqueeze(src, w);
    k_copy_into(slot, piece);
    rt_tensor_unref(piece);
    rt_tensor_unref(src);
    rt_tensor_unref(slot);
  }
  outs[0] = rt_tensor(out);
  return true;
}

bool rt_kernel_unbind(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                      RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  RtTensor *self;
  gint64 dim;
  int w;
  if (!k_arg_tensor(schema, args, 0, &self, error) || !k_arg_int(schema, args, 1, &dim, error))
    return false;
  if (self->ndim == 0) {
    K_ERR_SHAPE(error,
                "Dimension specified as %" G_GINT64_FORMAT " but tensor has no "
                "dimensions",
                dim);
    return false;
  }
  if (!k_wrap_dim(dim, self->ndim, &w, error))
    return false;
  guint n = (guint)self->sizes[w];
  RtValue *items = g_new(RtValue, n + 1);
  for (guint k = 0; k < n; k++) {
    RtTensor *one = rt_tensor_view_narrow(self, w, k, 1);
    items[k] = rt_tensor(rt_tensor_view_squeeze(one, w));
    rt_tensor_unref(one);
  }
  outs[0] = rt_list(items, n);
  g_free(items);
  return true;
}
