/* Views sharing storage: transpose, narrow, expand, unsqueeze, squeeze, reshape/view.
 * Views carry data only: requires_grad false and no grad_fn (the eager tape sets those).
 * Dims accept PyTorch's negative indexing; a dim out of range in transpose/narrow/unsqueeze/
 * squeeze is a caller bug (kernels validate user dims with rt_wrap_dim) and aborts. */
#include "tensor/memory_budget.h"
#include "tensor/tensor.h"

static RtTensor *make_view(RtTensor *t, int ndim, const int64_t *sizes, const int64_t *strides,
                           int64_t offset) {
  return rt_tensor_new_strided(t->storage, t->dtype, ndim, sizes, strides, offset);
}

static int wrap_or_abort(const char *what, int dim, int ndim) {
  int out;
  g_autoptr(GError) error = NULL;
  if (!rt_wrap_dim(dim, ndim, &out, &error))
    g_error("%s: %s", what, error->message);
  return out;
}

RtTensor *rt_tensor_view_transpose(RtTensor *t, int dim0, int dim1) {
  int a = wrap_or_abort("rt_tensor_view_transpose", dim0, t->ndim);
  int b = wrap_or_abort("rt_tensor_view_transpose", dim1, t->ndim);
  if (t->ndim == 0)
    return make_view(t, 0, t->sizes, t->strides, t->offset);
  int64_t sizes[RT_MAX_DIMS], strides[RT_MAX_DIMS];
  for (int d = 0; d < t->ndim; d++) {
    sizes[d] = t->sizes[d];
    strides[d] = t->strides[d];
  }
  sizes[a] = t->sizes[b];
  strides[a] = t->strides[b];
  sizes[b] = t->sizes[a];
  strides[b] = t->strides[a];
  return make_view(t, t->ndim, sizes, strides, t->offset);
}

RtTensor *rt_tensor_view_narrow(RtTensor *t, int dim, int64_t start, int64_t length) {
  if (t->ndim == 0)
    g_error("rt_tensor_view_narrow: narrow() cannot be applied to a 0-dim tensor");
  int d = wrap_or_abort("rt_tensor_view_narrow", dim, t->ndim);
  if (start < 0 || length < 0 || start > t->sizes[d] - length)
    g_error("rt_tensor_view_narrow: start %" G_GINT64_FORMAT " + length %" G_GINT64_FORMAT
            " exceeds dimension size %" G_GINT64_FORMAT,
            start, length, t->sizes[d]);
  int64_t sizes[RT_MAX_DIMS];
  for (int i = 0; i < t->ndim; i++)
    sizes[i] = t->sizes[i];
  sizes[d] = length;
  return make_view(t, t->ndim, sizes, t->strides, t->offset + start * t->strides[d]);
}

RtTensor *rt_tensor_view_expand(RtTensor *t, int ndim, const int64_t *sizes, GError **error) {
  if (ndim < t->ndim || ndim > RT_MAX_DIMS) {
    g_set_error(error, JITSCOPE_RUNTIME_ERROR, RT_ERROR_SHAPE,
                "expand: the number of sizes provided (%d) must be greater or equal to the "
                "number of dimensions in the tensor (%d)",
                ndim, t->ndim);
    return NULL;
  }
  int64_t out_sizes[RT_MAX_DIMS], out_strides[RT_MAX_DIMS];
  int lead = ndim - t->ndim;
  for (int i = 0; i < ndim; i++) {
    int64_t want = sizes[i];
    if (i < lead) {
      if (want < 0) {
        g_set_error(error, JITSCOPE_RUNTIME_ERROR, RT_ERROR_SHAPE,
                    "expand: the expanded size of the tensor (%" G_GINT64_FORMAT
                    ") isn't allowed in a leading, non-existing dimension %d",
                    want, i);
        return NULL;
      }
      out_sizes[i] = want;
      out_strides[i] = 0;
      continue;
    }
    int64_t have = t->sizes[i - lead];
    if (want == -1)
      want = have;
    if (want == have) {
      out_sizes[i] = have;
      out_strides[i] = t->strides[i - lead];
    } else if (have == 1 && want >= 0) {
      out_sizes[i] = want;
      out_strides[i] = 0;
    } else {
      g_autofree char *ts = rt_shape_to_string(ndim, sizes);
      g_autofree char *ss = rt_shape_to_string(t->ndim, t->sizes);
      g_set_error(error, JITSCOPE_RUNTIME_ERROR, RT_ERROR_SHAPE,
                  "The expanded size of the tensor (%" G_GINT64_FORMAT
                  ") must match the existing size (%" G_GINT64_FORMAT
                  ") at non-singleton dimension %d.  Target sizes: %s.  Tensor sizes: %s",
                  sizes[i], have, i, ts, ss);
      return NULL;
    }
  }
  /* A view takes no memory, but its element count must stay countable. */
  guint64 logical_bytes = 0;
  if (!rt_shape_checked_bytes(t->dtype, ndim, out_sizes, &logical_bytes, error))
    return NULL;
  return make_view(t, ndim, out_sizes, out_strides, t->offset);
}

RtTensor *rt_tensor_view_unsqueeze(RtTensor *t, int dim) {
  if (t->ndim >= RT_MAX_DIMS)
    g_error("rt_tensor_view_unsqueeze: rank would exceed RT_MAX_DIMS");
  int d = wrap_or_abort("rt_tensor_view_unsqueeze", dim, t->ndim + 1);
  int64_t sizes[RT_MAX_DIMS], strides[RT_MAX_DIMS];
  for (int i = 0, j = 0; i <= t->ndim; i++) {
    if (i == d) {
      sizes[i] = 1;
      strides[i] = d >= t->ndim ? 1 : t->sizes[d] * t->strides[d];
    } else {
      sizes[i] = t->sizes[j];
      strides[i] = t->strides[j];
      j++;
    }
  }
  return make_view(t, t->ndim + 1, sizes, strides, t->offset);
}

RtTensor *rt_tensor_view_squeeze(RtTensor *t, int dim) {
  int64_t sizes[RT_MAX_DIMS], strides[RT_MAX_DIMS];
  int n = 0;
  int only = dim < 0 ? -1 : wrap_or_abort("rt_tensor_view_squeeze", dim, t->ndim);
  for (int i = 0; i < t->ndim; i++) {
    bool drop = t->sizes[i] == 1 && (only < 0 || i == only);
    if (drop)
      continue;
    sizes[n] = t->sizes[i];
    strides[n] = t->strides[i];
    n++;
  }
  return make_view(t, n, sizes, strides, t->offset);
}

/* PyTorch's computeStride (ATen TensorUtils): walks the old dims from the inside, grouping
 * them into chunks that are contiguous among themselves; each chunk must be covered exactly by
 * a run of new dims. Returns false when the view would need a copy. */
static bool compute_view_strides(const RtTensor *t, int ndim, const int64_t *sizes,
                                 int64_t *strides) {
  if (t->ndim == 0) {
    for (int i = 0; i < ndim; i++)
      strides[i] = 1;
    return true;
  }
  int64_t numel = rt_tensor_numel(t);
  if (numel == 0) {
    rt_contiguous_strides(ndim, sizes, strides);
    return true;
  }
  int view_d = ndim - 1;
  int64_t chunk_base_stride = t->strides[t->ndim - 1];
  int64_t tensor_numel = 1, view_numel = 1;
  for (int td = t->ndim - 1; td >= 0; td--) {
    tensor_numel *= t->sizes[td];
    if (td == 0 ||
        (t->sizes[td - 1] != 1 && t->strides[td - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || sizes[view_d] == 1)) {
        strides[view_d] = view_numel * chunk_base_stride;
        view_numel *= sizes[view_d];
        view_d--;
      }
      if (view_numel != tensor_numel)
        return false;
      if (td > 0) {
        chunk_base_stride = t->strides[td - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  return view_d == -1;
}

RtTensor *rt_tensor_reshape(RtTensor *t, int ndim, const int64_t *sizes, bool must_view,
                            GError **error) {
  if (ndim < 0 || ndim > RT_MAX_DIMS) {
    g_set_error(error, JITSCOPE_RUNTIME_ERROR, RT_ERROR_SHAPE,
                "shape of rank %d is outside [0, %d]", ndim, RT_MAX_DIMS);
    return NULL;
  }
  int64_t numel = rt_tensor_numel(t);
  int64_t shape[RT_MAX_DIMS];
  int infer = -1;
  int64_t known = 1;
  bool bad = false;
  for (int i = 0; i < ndim; i++) {
    shape[i] = sizes[i];
    if (sizes[i] == -1) {
      if (infer >= 0) {
        g_set_error(error, JITSCOPE_RUNTIME_ERROR, RT_ERROR_SHAPE,
                    "only one dimension can be inferred");
        return NULL;
      }
      infer = i;
    } else if (sizes[i] < 0) {
      g_set_error(error, JITSCOPE_RUNTIME_ERROR, RT_ERROR_SHAPE,
                  "invalid shape dimension %" G_GINT64_FORMAT, sizes[i]);
      return NULL;
    } else if (sizes[i] != 0 && known > INT64_MAX / sizes[i]) {
      bad = true;
    } else {
      known *= sizes[i];
    }
  }
  if (!bad && infer >= 0) {
    /* As PyTorch: with a 0 among the known sizes the -1 cannot be inferred. */
    if (known == 0 || numel % known != 0)
      bad = true;
    else
      shape[infer] = numel / known;
  } else if (!bad && known != numel) {
    bad = true;
  }
  if (bad) {
    g_autofree char *s = rt_shape_to_string(ndim, sizes);
    g_set_error(error, JITSCOPE_RUNTIME_ERROR, RT_ERROR_SHAPE,
                "shape '%s' is invalid for input of size %" G_GINT64_FORMAT, s, numel);
    return NULL;
  }
  /* With a 0 among the sizes the others may still be so large that strides overflow. */
  guint64 logical_bytes = 0;
  if (!rt_shape_checked_bytes(t->dtype, ndim, shape, &logical_bytes, error))
    return NULL;
  int64_t strides[RT_MAX_DIMS];
  if (compute_view_strides(t, ndim, shape, strides))
    return make_view(t, ndim, shape, strides, t->offset);
  if (must_view) {
    g_set_error(error, JITSCOPE_RUNTIME_ERROR, RT_ERROR_SHAPE,
                "view size is not compatible with input tensor's size and stride (at least one "
                "dimension spans across two contiguous subspaces). Use .reshape(...) instead.");
    return NULL;
  }
  RtTensor *c = rt_tensor_clone(t);
  rt_contiguous_strides(ndim, shape, strides);
  RtTensor *v = make_view(c, ndim, shape, strides, 0);
  rt_tensor_unref(c);
  return v;
}
