/* Sorting along a dim: rt_kernel_sort serves aten::sort (and sort.stable), aten::argsort (and
 * argsort.stable) and aten::topk.
 *
 * Contracts as PyTorch 1.13's CPU kernels:
 * - NaN counts as larger than every number (last ascending, first descending; topk's
 *   largest takes NaNs first, its smallest last); -inf and inf are ordinary numbers.
 * - sort(self, dim=-1, descending) gives the sorted values and their int64 indices along dim
 *   (a 0-dim self is its own one element, index 0); argsort gives the indices alone.
 * - topk(self, k, dim=-1, largest, sorted) gives the k largest (smallest) values and their
 *   indices, 0 <= k <= size along dim ("selected index k out of range" otherwise); bool
 *   tensors are refused as PyTorch's.
 * Equal elements keep their order (a stable sort). PyTorch's stable=True sort does the same;
 * its default sort of more than 16 elements (std::sort) and its topk (std::partial_sort or
 * std::nth_element) may order ties otherwise, and its topk with sorted=False leaves the k
 * values in an unspecified order, where ours are sorted: the same values, and gradients, in
 * another order. */
#include "runtime/kernels.h"
#include "runtime/kernels_internal.h"

#include <math.h>
#include <string.h>

/* The keys of one slice along dim, compared as PyTorch's KeyValueCompAsc / Desc. */
typedef struct {
  const char *base; /* element 0 of the slice */
  int64_t stride;   /* elements */
  IrDtype dtype;
  bool descending;
} SortKeys;

static double key_at(const SortKeys *k, gint64 j) {
  return rt_load_element(k->base + (size_t)(j * k->stride) * rt_dtype_size(k->dtype), k->dtype);
}

/* Whether element a goes strictly before element b. int64 keys are compared as integers
 * (doubles would merge neighbours past 2^53). */
static bool goes_before(const SortKeys *k, gint64 a, gint64 b) {
  if (k->dtype == IR_DTYPE_INT64) {
    const gint64 *v = (const gint64 *)k->base;
    gint64 x = v[a * k->stride], y = v[b * k->stride];
    return k->descending ? x > y : x < y;
  }
  double x = key_at(k, a), y = key_at(k, b);
  if (k->descending)
    return (isnan(x) && !isnan(y)) || x > y;
  return (!isnan(x) && isnan(y)) || x < y;
}

/* Sorts order[0..n) (positions along the slice) stably by their keys: a bottom-up merge sort
 * through scratch. */
static void stable_sort(const SortKeys *k, gint64 *order, gint64 *scratch, gint64 n) {
  gint64 *from = order, *to = scratch;
  for (gint64 width = 1; width < n; width *= 2) {
    for (gint64 lo = 0; lo < n; lo += 2 * width) {
      gint64 mid = MIN(lo + width, n), hi = MIN(lo + 2 * width, n), a = lo, b = mid, out = lo;
      while (a < mid && b < hi)
        to[out++] = goes_before(k, from[b], from[a]) ? from[b++] : from[a++];
      while (a < mid)
        to[out++] = from[a++];
      while (b < hi)
        to[out++] = from[b++];
    }
    gint64 *t = from;
    from = to;
    to = t;
  }
  if (from != order)
    memcpy(order, from, sizeof(gint64) * (size_t)n);
}

/* The arguments of the overload that runs: which dim, which way, how many to keep (every
 * element but for topk) and which outputs it gives. */
typedef struct {
  gint64 dim;
  bool descending;
  bool topk;
  gint64 k;
  bool values, indices;
} SortArgs;

static bool sort_args(const IrSchema *schema, RtValue *args, SortArgs *a, GError **error) {
  memset(a, 0, sizeof *a);
  a->topk = schema->kind == IR_ATEN_TOPK;
  a->values = schema->kind != IR_ATEN_ARGSORT;
  a->indices = true;
  if (a->topk)
    return k_arg_int(schema, args, 1, &a->k, error) && k_arg_int(schema, args, 2, &a->dim, error) &&
           k_arg_bool(schema, args, 3, &a->descending, error);
  guint dim_at = k_overload_is(schema, "stable") ? 2 : 1; /* after the keyword `stable` */
  return k_arg_int(schema, args, dim_at, &a->dim, error) &&
         k_arg_bool(schema, args, dim_at + 1, &a->descending, error);
}

bool rt_kernel_sort(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                    RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  RtTensor *self;
  SortArgs a;
  int d;
  if (!k_arg_tensor(schema, args, 0, &self, error) || !sort_args(schema, args, &a, error) ||
      !k_wrap_dim(a.dim, self->ndim, &d, error))
    return false;
  int64_t n = self->ndim > 0 ? self->sizes[d] : 1, outer = 1, inner = 1;
  for (int k = 0; k < self->ndim; k++) {
    if (k < d)
      outer *= self->sizes[k];
    else if (k > d)
      inner *= self->sizes[k];
  }
  if (a.topk && self->dtype == IR_DTYPE_BOOL) {
    K_ERR_DTYPE(error, "\"topk_cpu\" not implemented for 'Bool'");
    return false;
  }
  if (a.topk && (a.k < 0 || a.k > n)) {
    K_ERR_SHAPE(error, "selected index k out of range");
    return false;
  }
  int64_t m = a.topk ? a.k : n, shape[RT_MAX_DIMS];
  memcpy(shape, self->sizes, sizeof(int64_t) * (size_t)self->ndim);
  if (self->ndim > 0)
    shape[d] = m;
  RtTensor *values = a.values ? rt_tensor_new_checked(self->dtype, self->ndim, shape, error) : NULL;
  RtTensor *indices =
      a.values && !values ? NULL : rt_tensor_new_checked(IR_DTYPE_INT64, self->ndim, shape, error);
  if (!indices) {
    g_clear_pointer(&values, rt_tensor_unref);
    return false;
  }
  RtTensor *src = rt_tensor_contiguous(self);
  size_t es = rt_dtype_size(self->dtype);
  /* No slices (another dim is 0): n is then not bounded by what memory holds. */
  gint64 slice_len = outer * inner > 0 ? n : 0;
  g_autofree gint64 *order = g_new(gint64, slice_len + 1);
  g_autofree gint64 *scratch = g_new(gint64, slice_len + 1);
  SortKeys keys = {.stride = inner, .dtype = self->dtype, .descending = a.descending};
  gint64 *index_out = rt_tensor_data(indices);
  for (int64_t o = 0; o < outer; o++)
    for (int64_t i = 0; i < inner; i++) {
      keys.base = (const char *)rt_tensor_data(src) + (size_t)(o * n * inner + i) * es;
      for (gint64 j = 0; j < n; j++)
        order[j] = j;
      stable_sort(&keys, order, scratch, n);
      for (gint64 j = 0; j < m; j++) {
        int64_t at = (o * m + j) * inner + i;
        index_out[at] = order[j];
        if (values)
          memcpy((char *)rt_tensor_data(values) + (size_t)at * es,
                 keys.base + (size_t)(order[j] * inner) * es, es);
      }
    }
  rt_tensor_unref(src);
  if (values)
    outs[0] = rt_tensor(values);
  outs[values ? 1 : 0] = rt_tensor(indices);
  return true;
}
