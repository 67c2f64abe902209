/* Per-thread header caches (contract in header_cache.h): three bounded stacks per thread,
 * reached through a _Thread_local pointer (a few instructions, where g_private_get costs
 * tens) and also set in a GPrivate, whose destructor frees them at thread exit. */
#include "tensor/header_cache.h"

#include "tensor/asan_poison.h"
#include "tensor/host_allocator.h"

/* Enough for the live results of a long chain of small ops and their views. */
#define CACHED_PER_THREAD 64

typedef struct {
  guint n_tensors, n_storages, n_small;
  RtTensor *tensors[CACHED_PER_THREAD];
  RtStorage *storages[CACHED_PER_THREAD];
  RtStorage *small[CACHED_PER_THREAD]; /* each with its block in data */
  /* The blocks of `small` again: LeakSanitizer does not follow pointers in poisoned memory
   * (the cached headers), so without them it would report the blocks as leaked. */
  void *small_data[CACHED_PER_THREAD];
} HeaderCache;

static _Thread_local HeaderCache *this_thread;

/* Runs on the exiting thread: a header given back after it starts a new cache, which the
 * GPrivate's next destructor round frees. */
static void cache_free(gpointer data) {
  HeaderCache *cache = data;
  this_thread = NULL;
  for (guint i = 0; i < cache->n_tensors; i++) {
    ASAN_UNPOISON_MEMORY_REGION(cache->tensors[i], sizeof(RtTensor));
    g_free(cache->tensors[i]);
  }
  for (guint i = 0; i < cache->n_storages; i++) {
    ASAN_UNPOISON_MEMORY_REGION(cache->storages[i], sizeof(RtStorage));
    g_free(cache->storages[i]);
  }
  for (guint i = 0; i < cache->n_small; i++) {
    ASAN_UNPOISON_MEMORY_REGION(cache->small[i], sizeof(RtStorage));
    ASAN_UNPOISON_MEMORY_REGION(cache->small_data[i], RT_SMALL_BLOCK);
    rt_host_free(cache->small_data[i], RT_SMALL_BLOCK);
    g_free(cache->small[i]);
  }
  g_free(cache);
}

static GPrivate thread_cache = G_PRIVATE_INIT(cache_free);

static HeaderCache *cache_here(void) {
  if (G_UNLIKELY(this_thread == NULL)) {
    this_thread = g_new0(HeaderCache, 1);
    g_private_set(&thread_cache, this_thread);
  }
  return this_thread;
}

RtTensor *rt_tensor_header_take(void) {
  HeaderCache *cache = cache_here();
  if (cache->n_tensors == 0)
    return g_new(RtTensor, 1);
  RtTensor *t = cache->tensors[--cache->n_tensors];
  ASAN_UNPOISON_MEMORY_REGION(t, sizeof *t);
  return t;
}

void rt_tensor_header_give(RtTensor *t) {
  HeaderCache *cache = cache_here();
  if (cache->n_tensors == CACHED_PER_THREAD) {
    g_free(t);
    return;
  }
  ASAN_POISON_MEMORY_REGION(t, sizeof *t);
  cache->tensors[cache->n_tensors++] = t;
}

RtStorage *rt_storage_header_take(void) {
  HeaderCache *cache = cache_here();
  if (cache->n_storages == 0)
    return g_new(RtStorage, 1);
  RtStorage *s = cache->storages[--cache->n_storages];
  ASAN_UNPOISON_MEMORY_REGION(s, sizeof *s);
  return s;
}

void rt_storage_header_give(RtStorage *s) {
  HeaderCache *cache = cache_here();
  if (cache->n_storages == CACHED_PER_THREAD) {
    g_free(s);
    return;
  }
  ASAN_POISON_MEMORY_REGION(s, sizeof *s);
  cache->storages[cache->n_storages++] = s;
}

RtStorage *rt_storage_small_take(void) {
  HeaderCache *cache = cache_here();
  if (cache->n_small == 0)
    return NULL;
  RtStorage *s = cache->small[--cache->n_small];
  ASAN_UNPOISON_MEMORY_REGION(s, sizeof *s);
  ASAN_UNPOISON_MEMORY_REGION(cache->small_data[cache->n_small], RT_SMALL_BLOCK);
  s->data = cache->small_data[cache->n_small];
  return s;
}

void rt_storage_small_give(RtStorage *s) {
  HeaderCache *cache = cache_here();
  if (cache->n_small == CACHED_PER_THREAD) {
    rt_host_free(s->data, RT_SMALL_BLOCK);
    rt_storage_header_give(s);
    return;
  }
  cache->small_data[cache->n_small] = s->data;
  ASAN_POISON_MEMORY_REGION(s->data, RT_SMALL_BLOCK);
  ASAN_POISON_MEMORY_REGION(s, sizeof *s);
  cache->small[cache->n_small++] = s;
}
