/* Reference-counted storage and the runtime error domain.
 * Host memory is 64-byte aligned (cache line / AVX-512 width) and rounded up to a multiple of
 * 64 bytes so vector loops may read a full last line; the padding is zeroed. It comes from the
 * caching host allocator (host_allocator.h), which keeps freed blocks for reuse; headers come
 * from per-thread caches (header_cache.h), and a storage of one 64-byte block keeps its block
 * there (rt_storage_small_give), so that small results skip the allocator. */
#include "tensor/header_cache.h"
#include "tensor/host_allocator.h"
#include "tensor/memory_budget.h"
#include "tensor/tensor.h"

#include <string.h>

G_DEFINE_QUARK(jitscope - runtime - error - quark, jitscope_runtime_error)

#define RT_HOST_ALIGN 64

RtStorage *rt_storage_new_host(size_t nbytes) {
  size_t padded = (nbytes + RT_HOST_ALIGN - 1) / RT_HOST_ALIGN * RT_HOST_ALIGN;
  if (padded < nbytes)
    g_error("rt_storage_new_host: size overflow (%zu bytes)", nbytes);
  if (padded == 0)
    padded = RT_HOST_ALIGN; /* data is never NULL, even for empty tensors */
  if (padded == RT_SMALL_BLOCK) {
    RtStorage *s = rt_storage_small_take();
    if (s != NULL) {
      /* The whole block (fixed size: a few stores): the padding must be zero. */
      memset(s->data, 0, RT_SMALL_BLOCK);
      *s = (RtStorage){.refcount = 1, .device = IR_DEVICE_CPU, .nbytes = nbytes, .data = s->data};
      rt_memory_note_alloc(nbytes);
      return s;
    }
  }
  void *data = rt_host_alloc(padded);
  if (data == NULL)
    g_error("rt_storage_new_host: out of memory allocating %zu bytes", padded);
  if (padded > nbytes)
    memset((char *)data + nbytes, 0, padded - nbytes);
  RtStorage *s = rt_storage_header_take();
  *s = (RtStorage){.refcount = 1, .device = IR_DEVICE_CPU, .nbytes = nbytes, .data = data};
  rt_memory_note_alloc(nbytes);
  return s;
}

RtStorage *rt_storage_ref(RtStorage *s) {
  g_atomic_int_inc(&s->refcount);
  return s;
}

void rt_storage_unref(RtStorage *s) {
  /* A sole owner frees without the locked decrement, as rt_tensor_unref. */
  if (s == NULL ||
      (g_atomic_int_get(&s->refcount) != 1 && !g_atomic_int_dec_and_test(&s->refcount)))
    return;
  if (s->free_fn != NULL) {
    s->free_fn(s->data, s->free_ctx);
  } else if (s->nbytes <= RT_SMALL_BLOCK) {
    rt_memory_note_free(s->nbytes);
    rt_storage_small_give(s); /* keeps its block */
    return;
  } else {
    rt_memory_note_free(s->nbytes);
    rt_host_free(s->data, s->nbytes);
  }
  rt_storage_header_give(s);
}
