/* RtIter: the elementwise loop driver (contract in tensor.h).
 * Like ATen's TensorIterator without dim reordering: broadcast strides, drop size-1 dims,
 * then coalesce neighbouring dims (outer i, inner i+1) when every operand satisfies
 * stride[i] == stride[i+1] * size[i+1], so the innermost run is as long as possible. */
#include "tensor/tensor.h"

void rt_iter_init(RtIter *it, int ndim, const int64_t *sizes, int n_ops, RtTensor *const *ops) {
  if (n_ops < 1 || n_ops > RT_ITER_MAX_OPERANDS)
    g_error("rt_iter_init: operand count %d outside [1, %d]", n_ops, RT_ITER_MAX_OPERANDS);
  if (ndim < 0 || ndim > RT_MAX_DIMS)
    g_error("rt_iter_init: rank %d outside [0, %d]", ndim, RT_MAX_DIMS);
  it->n_ops = n_ops;
  int64_t numel = 1;
  for (int d = 0; d < ndim; d++) {
    if (sizes[d] < 0)
      g_error("rt_iter_init: negative size %" G_GINT64_FORMAT, sizes[d]);
    numel *= sizes[d];
  }
  it->numel = numel;

  /* Broadcast each operand's strides (in bytes) to the iteration shape. */
  int64_t bstrides[RT_ITER_MAX_OPERANDS][RT_MAX_DIMS];
  for (int k = 0; k < n_ops; k++) {
    const RtTensor *t = ops[k];
    if (t->ndim > ndim)
      g_error("rt_iter_init: operand %d has rank %d above the iteration rank %d", k, t->ndim, ndim);
    int64_t es = (int64_t)rt_dtype_size(t->dtype);
    it->base[k] = (char *)rt_tensor_data(t);
    int lead = ndim - t->ndim;
    for (int d = 0; d < ndim; d++) {
      if (d < lead) {
        bstrides[k][d] = 0;
        continue;
      }
      int64_t ts = t->sizes[d - lead];
      if (ts == sizes[d])
        bstrides[k][d] = ts == 1 ? 0 : t->strides[d - lead] * es;
      else if (ts == 1)
        bstrides[k][d] = 0;
      else
        g_error("rt_iter_init: operand %d of size %" G_GINT64_FORMAT
                " at dim %d does not broadcast to %" G_GINT64_FORMAT,
                k, ts, d - lead, sizes[d]);
    }
  }

  /* Drop size-1 dims, then coalesce from the inside out. */
  int n = 0;
  int64_t csizes[RT_MAX_DIMS];
  int64_t cstrides[RT_ITER_MAX_OPERANDS][RT_MAX_DIMS];
  for (int d = 0; d < ndim; d++) {
    if (sizes[d] == 1)
      continue;
    csizes[n] = sizes[d];
    for (int k = 0; k < n_ops; k++)
      cstrides[k][n] = bstrides[k][d];
    n++;
  }
  int m = n - 1;
  int64_t msizes[RT_MAX_DIMS];
  int64_t mstrides[RT_ITER_MAX_OPERANDS][RT_MAX_DIMS];
  int out_n = 0;
  /* Build merged dims innermost first, then reverse. */
  while (m >= 0) {
    int64_t sz = csizes[m];
    int64_t st[RT_ITER_MAX_OPERANDS];
    for (int k = 0; k < n_ops; k++)
      st[k] = cstrides[k][m];
    int o = m - 1;
    while (o >= 0) {
      bool ok = true;
      for (int k = 0; k < n_ops && ok; k++)
        ok = cstrides[k][o] == st[k] * sz;
      if (!ok)
        break;
      sz *= csizes[o];
      o--;
    }
    msizes[out_n] = sz;
    for (int k = 0; k < n_ops; k++)
      mstrides[k][out_n] = st[k];
    out_n++;
    m = o;
  }
  if (out_n == 0) {
    /* 0-dim or all-ones iteration: a single run of one element. */
    it->ndim = 1;
    it->sizes[0] = 1;
    for (int k = 0; k < n_ops; k++)
      it->strides[k][0] = 0;
  } else {
    it->ndim = out_n;
    for (int d = 0; d < out_n; d++) {
      it->sizes[d] = msizes[out_n - 1 - d];
      for (int k = 0; k < n_ops; k++)
        it->strides[k][d] = mstrides[k][out_n - 1 - d];
    }
  }
  for (int k = 0; k < n_ops; k++)
    it->inner_strides[k] = it->strides[k][it->ndim - 1];
  for (int d = 0; d < it->ndim; d++)
    it->counter[d] = 0;
  it->runs_left = numel == 0 ? 0 : numel / it->sizes[it->ndim - 1];
}

bool rt_iter_next(RtIter *it, char **ptrs, int64_t *n) {
  if (it->runs_left <= 0)
    return false;
  int last = it->ndim - 1;
  for (int k = 0; k < it->n_ops; k++) {
    char *p = it->base[k];
    for (int d = 0; d < last; d++)
      p += it->counter[d] * it->strides[k][d];
    ptrs[k] = p;
  }
  *n = it->sizes[last];
  it->runs_left--;
  /* Advance the outer counters (odometer, innermost outer dim fastest). */
  for (int d = last - 1; d >= 0; d--) {
    if (++it->counter[d] < it->sizes[d])
      break;
    it->counter[d] = 0;
  }
  return true;
}
