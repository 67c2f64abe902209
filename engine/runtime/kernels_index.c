/* Advanced indexing by a Tensor?[]: rt_kernel_advanced_index (aten::index.Tensor and
 * aten::index_put).
 *
 * Contracts as PyTorch 1.13 (ATen's make_info and its CPU index kernels):
 * - indices has at most self.dim() entries. None leaves its dim alone; an int64 tensor
 *   indexes its dim (negative entries count from the end); a bool mask of k dims stands for
 *   k int64 tensors, the columns of its nonzero(), and its sizes must be those of the k dims
 *   it covers. The int64 tensors broadcast together to one shape B; at least one is given.
 * - index(self, indices): self's dims before the first indexed dim, then B, then the dims
 *   after the last indexed dim. When the indexed dims are not adjacent they all move to the
 *   front first, so the result is B followed by every other dim in order.
 * - index_put(self, indices, values, accumulate): a copy of self in which every place that
 *   index() reads takes the matching element of values (self's dtype, broadcast to the shape
 *   index() would give), or has it added when accumulate (duplicate places add up; without
 *   accumulate the last duplicate wins, as PyTorch's serial CPU loop).
 * Index entries are checked where they are read: an index out of range is PyTorch's
 * "index 5 is out of bounds for dimension 0 with size 3" (dimension counts the index
 * tensors), and every size a user controls goes through the memory budget. */
#include "runtime/kernels.h"
#include "runtime/kernels_internal.h"

#include <string.h>

/* self seen as PyTorch indexes it: `src` (self, or a view with the indexed dims moved to the
 * front) whose dims [first, first + count) take the int64 tensors `index`, each a view
 * broadcast to index_shape. */
typedef struct {
  RtTensor *src;
  int perm[RT_MAX_DIMS]; /* src dim k is self dim perm[k] */
  int first, count;
  RtTensor *index[RT_MAX_DIMS];
  int index_ndim;
  int64_t index_shape[RT_MAX_DIMS];
  int result_ndim;
  int64_t result_shape[RT_MAX_DIMS];
} KAdvancedIndex;

static void advanced_index_clear(KAdvancedIndex *ai) {
  g_clear_pointer(&ai->src, rt_tensor_unref);
  for (int j = 0; j < RT_MAX_DIMS; j++)
    g_clear_pointer(&ai->index[j], rt_tensor_unref);
}

/* The nonzero() columns of a bool mask whose sizes match self's dims [at, at + mask->ndim):
 * one int64 tensor per mask dim stored into per_dim[at + j]. */
static bool expand_mask(const RtTensor *self, RtTensor *mask, int at, RtTensor **per_dim,
                        GError **error) {
  for (int j = 0; j < mask->ndim; j++) {
    int src_dim;
    if (!k_wrap_dim(at + j, self->ndim, &src_dim, error))
      return false;
    if (mask->sizes[j] != self->sizes[src_dim]) {
      char m[128], s[128];
      k_shape_text(m, sizeof m, mask->ndim, mask->sizes);
      k_shape_text(s, sizeof s, self->ndim, self->sizes);
      K_ERR_SHAPE(error,
                  "The shape of the mask %s at index %d does not match the shape of the "
                  "indexed tensor %s at index %d",
                  m, j, s, src_dim);
      return false;
    }
  }
  RtTensor *flat = rt_tensor_contiguous(mask);
  const bool *set = rt_tensor_data(flat);
  int64_t numel = rt_tensor_numel(flat), found = 0;
  for (int64_t i = 0; i < numel; i++)
    found += set[i];
  for (int j = 0; j < mask->ndim; j++)
    per_dim[at + j] = rt_tensor_new(IR_DTYPE_INT64, 1, &found);
  for (int64_t i = 0, k = 0; i < numel; i++) {
    if (!set[i])
      continue;
    int64_t rest = i;
    for (int j = mask->ndim - 1; j >= 0; j--) {
      ((gint64 *)rt_tensor_data(per_dim[at + j]))[k] = rest % mask->sizes[j];
      rest /= mask->sizes[j];
    }
    k++;
  }
  rt_tensor_unref(flat);
  return true;
}

/* The indexed dims' int64 tensors, one per dim of self (NULL where none), from the list. */
static bool index_per_dim(const RtTensor *self, RtValue list, RtTensor **per_dim, GError **error) {
  guint n = list.u.seq->len;
  int64_t covered = 0; /* dims the entries index: a mask covers as many as it has */
  for (guint i = 0; i < n; i++) {
    RtValue item = list.u.seq->items[i];
    const RtTensor *t = item.tag == RT_TENSOR ? item.u.tensor : NULL;
    if (t && t->dtype != IR_DTYPE_INT64 && t->dtype != IR_DTYPE_BOOL) {
      K_ERR_DTYPE(error, "tensors used as indices must be long, byte or bool tensors");
      return false;
    }
    covered += t && t->dtype == IR_DTYPE_BOOL ? t->ndim : 1;
  }
  if (covered > self->ndim) {
    K_ERR_SHAPE(error,
                "too many indices for tensor of dimension %d (got %" G_GINT64_FORMAT ")",
                self->ndim, covered);
    return false;
  }
  int at = 0;
  for (guint i = 0; i < n; i++) {
    RtValue item = list.u.seq->items[i];
    RtTensor *t = item.tag == RT_TENSOR ? item.u.tensor : NULL;
    if (t && t->dtype == IR_DTYPE_BOOL) {
      if (!expand_mask(self, t, at, per_dim, error))
        return false;
      at += t->ndim;
    } else {
      per_dim[at++] = t ? rt_tensor_ref(t) : NULL;
    }
  }
  return true;
}

/* Broadcasts the given index tensors together into ai->index_shape, with PyTorch's message
 * naming every shape when they do not. */
static bool broadcast_indices(RtTensor *const *per_dim, int ndim, KAdvancedIndex *ai,
                              GError **error) {
  ai->index_ndim = 0;
  bool ok = true;
  for (int d = 0; d < ndim && ok; d++)
    if (per_dim[d])
      ok = k_broadcast(ai->index_ndim, ai->index_shape, per_dim[d]->ndim, per_dim[d]->sizes,
                       &ai->index_ndim, ai->index_shape, NULL);
  if (ok)
    return true;
  g_autoptr(GString) shapes = g_string_new(NULL);
  for (int d = 0; d < ndim; d++) {
    if (!per_dim[d])
      continue;
    char s[128];
    k_shape_text(s, sizeof s, per_dim[d]->ndim, per_dim[d]->sizes);
    g_string_append_printf(shapes, "%s%s", shapes->len ? ", " : "", s);
  }
  K_ERR_SHAPE(error,
              "shape mismatch: indexing tensors could not be broadcast together with "
              "shapes %s",
              shapes->str);
  return false;
}

static bool advanced_index_init(const IrSchema *schema, RtTensor *self, RtValue list,
                                KAdvancedIndex *ai, GError **error) {
  memset(ai, 0, sizeof *ai);
  if (list.tag != RT_LIST) {
    K_ERR(error, "%s(): argument 'indices' (position 2) must be a list of optional tensors",
          k_op_short_name(schema));
    return false;
  }
  RtTensor *per_dim[RT_MAX_DIMS] = {NULL};
  bool ok = index_per_dim(self, list, per_dim, error) &&
            broadcast_indices(per_dim, self->ndim, ai, error);
  /* PyTorch moves the indexed dims to the front unless they are adjacent. */
  int first = -1, last = -1, count = 0;
  for (int d = 0; d < self->ndim; d++)
    if (per_dim[d]) {
      first = first < 0 ? d : first;
      last = d;
      count++;
    }
  if (ok && count == 0) {
    K_ERR(error, "%s(): no index tensor given (every index is None)", k_op_short_name(schema));
    ok = false;
  }
  bool adjacent = last - first + 1 == count;
  int64_t sizes[RT_MAX_DIMS], strides[RT_MAX_DIMS];
  for (int pass = 0, k = 0, j = 0; pass < 2; pass++)
    for (int d = 0; d < self->ndim; d++)
      if (adjacent ? pass == 0 : (per_dim[d] != NULL) == (pass == 0)) {
        ai->perm[k] = d;
        sizes[k] = self->sizes[d];
        strides[k++] = self->strides[d];
        if (per_dim[d] && ok) {
          ai->index[j] = rt_tensor_view_expand(per_dim[d], ai->index_ndim, ai->index_shape, NULL);
          K_INVARIANT(ai->index[j++], "index tensors expand to their broadcast shape");
        }
      }
  for (int d = 0; d < self->ndim; d++)
    g_clear_pointer(&per_dim[d], rt_tensor_unref);
  if (!ok)
    return false;
  ai->first = adjacent ? first : 0;
  ai->count = count;
  ai->src =
      rt_tensor_new_strided(self->storage, self->dtype, self->ndim, sizes, strides, self->offset);
  int after = self->ndim - ai->first - count;
  ai->result_ndim = ai->first + ai->index_ndim + after;
  if (ai->result_ndim > RT_MAX_DIMS) {
    K_ERR_SHAPE(error, "%s(): the result would have %d dims, more than %d", k_op_short_name(schema),
                ai->result_ndim, RT_MAX_DIMS);
    advanced_index_clear(ai);
    return false;
  }
  memcpy(ai->result_shape, sizes, sizeof(int64_t) * (size_t)ai->first);
  memcpy(ai->result_shape + ai->first, ai->index_shape, sizeof(int64_t) * (size_t)ai->index_ndim);
  memcpy(ai->result_shape + ai->first + ai->index_ndim, sizes + ai->first + count,
         sizeof(int64_t) * (size_t)after);
  return true;
}

/* Sizes of the [outer, indexed..., inner] blocks of a contiguous src. */
static void block_sizes(const KAdvancedIndex *ai, int64_t *outer, int64_t *indexed,
                        int64_t *inner) {
  *outer = *indexed = *inner = 1;
  for (int d = 0; d < ai->src->ndim; d++) {
    int64_t s = ai->src->sizes[d];
    if (d < ai->first)
      *outer *= s;
    else if (d < ai->first + ai->count)
      *indexed *= s;
    else
      *inner *= s;
  }
}

/* For every position of the broadcast index shape, the element offset its indices select in
 * a contiguous src's [indexed..., inner] block: an int64 tensor of index_shape (checked
 * against the budget), or NULL with PyTorch's out-of-bounds error. */
static RtTensor *index_offsets(const KAdvancedIndex *ai, GError **error) {
  RtTensor *offsets = rt_tensor_new_checked(IR_DTYPE_INT64, ai->index_ndim, ai->index_shape, error);
  if (!offsets)
    return NULL;
  int64_t n = rt_tensor_numel(offsets), step[RT_MAX_DIMS], coord[RT_MAX_DIMS] = {0};
  int64_t outer, indexed, inner;
  block_sizes(ai, &outer, &indexed, &inner);
  for (int j = ai->count - 1; j >= 0; j--) {
    if (ai->src->sizes[ai->first + j] == 0 && n > 0) {
      K_ERR_SHAPE(error, "index is out of bounds for dimension with size 0");
      rt_tensor_unref(offsets);
      return NULL;
    }
    step[j] = j == ai->count - 1 ? inner : step[j + 1] * ai->src->sizes[ai->first + j + 1];
  }
  gint64 *out = rt_tensor_data(offsets);
  for (int64_t p = 0; p < n; p++) {
    int64_t off = 0;
    for (int j = 0; j < ai->count; j++) {
      const RtTensor *index = ai->index[j];
      int64_t at = 0, size = ai->src->sizes[ai->first + j];
      for (int d = 0; d < ai->index_ndim; d++)
        at += coord[d] * index->strides[d];
      gint64 v = ((const gint64 *)rt_tensor_data(index))[at];
      if (v < -size || v >= size) {
        K_ERR_SHAPE(error,
                    "index %" G_GINT64_FORMAT " is out of bounds for dimension %d with size "
                    "%" G_GINT64_FORMAT,
                    v, j, size);
        rt_tensor_unref(offsets);
        return NULL;
      }
      off += (v < 0 ? v + size : v) * step[j];
    }
    out[p] = off;
    for (int d = ai->index_ndim - 1; d >= 0 && ++coord[d] == ai->index_shape[d]; d--)
      coord[d] = 0;
  }
  return offsets;
}

/* *dst += *src for one element of dtype: float32 in float, int64 wrapping around, bool as or,
 * float64 and float16 through double (their sum is exact there before it is stored). */
static void add_element(char *dst, const char *src, IrDtype dtype) {
  switch (dtype) {
  case IR_DTYPE_FLOAT32: *(float *)dst += *(const float *)src; break;
  case IR_DTYPE_INT64:
    *(gint64 *)dst = (gint64)((guint64) * (gint64 *)dst + (guint64) * (const gint64 *)src);
    break;
  case IR_DTYPE_BOOL: *(bool *)dst = *(bool *)dst || *(const bool *)src; break;
  default: rt_store_element(dst, dtype, rt_load_element(dst, dtype) + rt_load_element(src, dtype));
  }
}

/* values broadcast to the shape index() gives, as a new contiguous tensor. */
static RtTensor *values_at_index_shape(const KAdvancedIndex *ai, RtTensor *values, GError **error) {
  RtTensor *wide = rt_tensor_view_expand(values, ai->result_ndim, ai->result_shape, NULL);
  if (!wide) {
    char v[128], r[128];
    k_shape_text(v, sizeof v, values->ndim, values->sizes);
    k_shape_text(r, sizeof r, ai->result_ndim, ai->result_shape);
    K_ERR_SHAPE(error,
                "shape mismatch: value tensor of shape %s cannot be broadcast to "
                "indexing result of shape %s",
                v, r);
    return NULL;
  }
  RtTensor *out = rt_tensor_new_checked(values->dtype, ai->result_ndim, ai->result_shape, error);
  if (out)
    k_copy_into(out, wide);
  rt_tensor_unref(wide);
  return out;
}

/* A copy of src (contiguous, in src's dim order) with values written or added at offsets,
 * given back in self's dim order. */
static RtTensor *put_values(const KAdvancedIndex *ai, const RtTensor *offsets,
                            const RtTensor *values, bool accumulate) {
  int64_t outer, indexed, inner, n = rt_tensor_numel(offsets);
  block_sizes(ai, &outer, &indexed, &inner);
  IrDtype dtype = ai->src->dtype;
  size_t es = rt_dtype_size(dtype);
  RtTensor *work = rt_tensor_clone(ai->src);
  char *dst = rt_tensor_data(work);
  const char *from = rt_tensor_data(values);
  const gint64 *off = rt_tensor_data(offsets);
  for (int64_t o = 0; o < outer; o++)
    for (int64_t p = 0; p < n; p++) {
      char *to = dst + (size_t)(o * indexed * inner + off[p]) * es;
      const char *v = from + (size_t)((o * n + p) * inner) * es;
      if (!accumulate) {
        memcpy(to, v, (size_t)inner * es);
        continue;
      }
      for (int64_t k = 0; k < inner; k++)
        add_element(to + (size_t)k * es, v + (size_t)k * es, dtype);
    }
  int64_t sizes[RT_MAX_DIMS], strides[RT_MAX_DIMS];
  for (int k = 0; k < work->ndim; k++) {
    sizes[ai->perm[k]] = work->sizes[k];
    strides[ai->perm[k]] = work->strides[k];
  }
  RtTensor *in_self_order =
      rt_tensor_new_strided(work->storage, dtype, work->ndim, sizes, strides, work->offset);
  RtTensor *out = rt_tensor_contiguous(in_self_order);
  rt_tensor_unref(in_self_order);
  rt_tensor_unref(work);
  return out;
}

/* src's elements at offsets, in the result's [outer, index shape, inner] order. */
static RtTensor *take_values(const KAdvancedIndex *ai, const RtTensor *offsets, GError **error) {
  RtTensor *out = rt_tensor_new_checked(ai->src->dtype, ai->result_ndim, ai->result_shape, error);
  if (!out)
    return NULL;
  int64_t outer, indexed, inner, n = rt_tensor_numel(offsets);
  block_sizes(ai, &outer, &indexed, &inner);
  size_t es = rt_dtype_size(ai->src->dtype);
  RtTensor *src = rt_tensor_contiguous(ai->src);
  const char *from = rt_tensor_data(src);
  char *to = rt_tensor_data(out);
  const gint64 *off = rt_tensor_data(offsets);
  for (int64_t o = 0; o < outer; o++)
    for (int64_t p = 0; p < n; p++)
      memcpy(to + (size_t)((o * n + p) * inner) * es,
             from + (size_t)(o * indexed * inner + off[p]) * es, (size_t)inner * es);
  rt_tensor_unref(src);
  return out;
}

bool rt_kernel_advanced_index(const IrSchema *schema, const IrNode *node, RtValue *args,
                              guint n_args, RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  bool put = schema->kind == IR_ATEN_INDEX_PUT, accumulate = false;
  RtTensor *self, *values = NULL;
  if (!k_arg_tensor(schema, args, 0, &self, error) ||
      (put && (!k_arg_tensor(schema, args, 2, &values, error) ||
               !k_arg_bool(schema, args, 3, &accumulate, error))))
    return false;
  KAdvancedIndex ai;
  if (!advanced_index_init(schema, self, args[1], &ai, error))
    return false;
  /* PyTorch's order of checks: the indices, values' shape, its dtype, then each index. */
  RtTensor *out = NULL, *wide = put ? values_at_index_shape(&ai, values, error) : NULL;
  if (wide && wide->dtype != self->dtype) {
    K_ERR_DTYPE(error,
                "Index put requires the source and destination dtypes match, got %s for the "
                "destination and %s for the source.",
                ir_dtype_type_name(self->dtype), ir_dtype_type_name(wide->dtype));
    g_clear_pointer(&wide, rt_tensor_unref);
  }
  RtTensor *offsets = put && !wide ? NULL : index_offsets(&ai, error);
  if (offsets)
    out = put ? put_values(&ai, offsets, wide, accumulate) : take_values(&ai, offsets, error);
  g_clear_pointer(&offsets, rt_tensor_unref);
  g_clear_pointer(&wide, rt_tensor_unref);
  advanced_index_clear(&ai);
  if (!out)
    return false;
  outs[0] = rt_tensor(out);
  return true;
}
