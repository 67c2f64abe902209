/* The kernels' strided N-d iterator: operands broadcast to one shape, dims coalesced where
 * every operand's strides allow (size-1 dims dropped; dim k merged into k+1 when
 * stride[k] == stride[k+1] * size[k+1] for all operands), the innermost dim handed to an
 * inner loop so that contiguous operands reach a unit-stride loop the compiler vectorizes. */
#include "runtime/kernels_internal.h"

#include <string.h>

void k_iter_init(KIter *it, int ndim, const int64_t *sizes) {
  K_INVARIANT(ndim >= 0 && ndim <= RT_MAX_DIMS, "iteration rank within RT_MAX_DIMS");
  memset(it, 0, sizeof *it);
  it->ndim = ndim;
  for (int k = 0; k < ndim; k++)
    it->sizes[k] = sizes[k];
}

/* Adds an operand with explicit strides (ndim entries, elements). */
static void k_iter_add_strided(KIter *it, void *base, size_t elsize, const int64_t *strides) {
  K_INVARIANT(it->nops < K_MAX_OPERANDS, "at most K_MAX_OPERANDS iterator operands");
  int op = it->nops++;
  it->base[op] = base;
  it->elsize[op] = elsize;
  for (int k = 0; k < it->ndim; k++)
    it->strides[op][k] = strides ? strides[k] : 0;
}

void k_iter_add_tensor(KIter *it, const RtTensor *t) {
  K_INVARIANT(t->ndim <= it->ndim, "iterator operand rank at most the iteration rank");
  int64_t strides[RT_MAX_DIMS];
  int lead = it->ndim - t->ndim;
  for (int k = 0; k < it->ndim; k++) {
    if (k < lead) {
      strides[k] = 0;
      continue;
    }
    int64_t size = t->sizes[k - lead];
    K_INVARIANT(size == it->sizes[k] || size == 1, "iterator operands broadcast to its shape");
    strides[k] = size == 1 ? 0 : t->strides[k - lead];
  }
  k_iter_add_strided(it, rt_tensor_data(t), ir_dtype_size(t->dtype), strides);
}

void k_iter_add_broadcast_scalar(KIter *it, void *element, size_t elsize) {
  k_iter_add_strided(it, element, elsize, NULL);
}

static void coalesce(KIter *it) {
  /* Drop size-1 dims. */
  int n = 0;
  for (int k = 0; k < it->ndim; k++) {
    if (it->sizes[k] == 1)
      continue;
    it->sizes[n] = it->sizes[k];
    for (int op = 0; op < it->nops; op++)
      it->strides[op][n] = it->strides[op][k];
    n++;
  }
  it->ndim = n;
  if (n <= 1)
    return;
  /* Merge from the innermost dim outwards; `cur` is the dim being grown. */
  int cur = n - 1;
  for (int k = n - 2; k >= 0; k--) {
    bool mergeable = true;
    for (int op = 0; op < it->nops && mergeable; op++)
      mergeable = it->strides[op][k] == it->strides[op][cur] * it->sizes[cur];
    if (mergeable) {
      it->sizes[cur] *= it->sizes[k];
    } else {
      cur--;
      it->sizes[cur] = it->sizes[k];
      for (int op = 0; op < it->nops; op++)
        it->strides[op][cur] = it->strides[op][k];
    }
  }
  /* Dims now live in [cur, n): move them to the front. */
  int m = n - cur;
  if (cur > 0) {
    memmove(it->sizes, it->sizes + cur, (size_t)m * sizeof it->sizes[0]);
    for (int op = 0; op < it->nops; op++)
      memmove(it->strides[op], it->strides[op] + cur, (size_t)m * sizeof it->strides[op][0]);
  }
  it->ndim = m;
}

void k_iter_run(KIter *it, KInnerLoop loop, void *ctx) {
  for (int k = 0; k < it->ndim; k++)
    if (it->sizes[k] == 0)
      return;
  coalesce(it);
  char *ptrs[K_MAX_OPERANDS];
  int64_t inner_strides[K_MAX_OPERANDS];
  if (it->ndim == 0) {
    for (int op = 0; op < it->nops; op++) {
      ptrs[op] = it->base[op];
      inner_strides[op] = 0;
    }
    loop(1, ptrs, inner_strides, ctx);
    return;
  }
  int inner = it->ndim - 1;
  int64_t n_inner = it->sizes[inner];
  for (int op = 0; op < it->nops; op++)
    inner_strides[op] = it->strides[op][inner];
  int64_t counter[RT_MAX_DIMS] = {0};
  int64_t offsets[K_MAX_OPERANDS] = {0}; /* bytes, for the outer position */
  for (;;) {
    for (int op = 0; op < it->nops; op++)
      ptrs[op] = it->base[op] + offsets[op];
    loop(n_inner, ptrs, inner_strides, ctx);
    /* Advance the outer odometer (dims 0 .. inner-1). */
    int k = inner - 1;
    for (; k >= 0; k--) {
      counter[k]++;
      for (int op = 0; op < it->nops; op++)
        offsets[op] += it->strides[op][k] * (int64_t)it->elsize[op];
      if (counter[k] < it->sizes[k])
        break;
      for (int op = 0; op < it->nops; op++)
        offsets[op] -= it->strides[op][k] * it->sizes[k] * (int64_t)it->elsize[op];
      counter[k] = 0;
    }
    if (k < 0)
      return;
  }
}

#define K_COPY_LOOP(NAME, T)                                           \
  static void NAME(int64_t n, char **p, const int64_t *s, void *ctx) { \
    (void)ctx;                                                         \
    T *o = (T *)p[0];                                                  \
    const T *a = (const T *)p[1];                                      \
    if (s[0] == 1 && s[1] == 1) {                                      \
      memcpy(o, a, (size_t)n * sizeof(T));                             \
    } else {                                                           \
      for (int64_t i = 0; i < n; i++)                                  \
        o[i * s[0]] = a[i * s[1]];                                     \
    }                                                                  \
  }
K_COPY_LOOP(copy_loop_1, uint8_t)
K_COPY_LOOP(copy_loop_2, uint16_t)
K_COPY_LOOP(copy_loop_4, uint32_t)
K_COPY_LOOP(copy_loop_8, uint64_t)

void k_copy_into(RtTensor *dst, const RtTensor *src) {
  K_INVARIANT(dst->dtype == src->dtype, "k_copy_into copies between equal dtypes");
  KIter it;
  k_iter_init(&it, dst->ndim, dst->sizes);
  k_iter_add_tensor(&it, dst);
  k_iter_add_tensor(&it, src);
  switch (ir_dtype_size(dst->dtype)) {
  case 1: k_iter_run(&it, copy_loop_1, NULL); break;
  case 2: k_iter_run(&it, copy_loop_2, NULL); break;
  case 4: k_iter_run(&it, copy_loop_4, NULL); break;
  case 8: k_iter_run(&it, copy_loop_8, NULL); break;
  default: K_INVARIANT(false, "element sizes are 1, 2, 4 or 8 bytes");
  }
}
