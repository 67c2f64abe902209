/* The caching host allocator (contract in host_allocator.h). Free blocks of one size class
 * form a LIFO list threaded through the blocks themselves (the most recently freed block,
 * likely still in the CPU's caches, is handed out first). Each cached block carries the trim
 * generation it was cached in, which is how rt_host_allocator_trim_idle tells idle blocks. */
#include "tensor/host_allocator.h"

#include "tensor/asan_poison.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#define ALIGNMENT 64
#define DEFAULT_LIMIT ((size_t)1 << 30)
/* Classes 64..256 (4), then 4 per power of two from 2^8 up to 2^63. */
#define N_CLASSES (4 + 4 * (64 - 8))

typedef struct CachedBlock {
  struct CachedBlock *next;
  guint64 generation;
} CachedBlock;

static GMutex lock;
static CachedBlock *free_lists[N_CLASSES];
static RtHostAllocatorStats stats;
static bool limit_read;
static guint64 generation;

static int floor_log2(size_t x) {
  return 63 - __builtin_clzll((unsigned long long)x);
}

size_t rt_host_size_class(size_t nbytes) {
  if (nbytes <= ALIGNMENT)
    return ALIGNMENT;
  if (nbytes > SIZE_MAX / 2)
    return 0; /* overflow: no class */
  size_t padded = (nbytes + ALIGNMENT - 1) / ALIGNMENT * ALIGNMENT;
  size_t step = (size_t)1 << (floor_log2(padded - 1) - 2);
  if (step < ALIGNMENT)
    step = ALIGNMENT;
  return (padded + step - 1) / step * step;
}

/* Index of a class size (a value rt_host_size_class returns). */
static int class_index(size_t class_bytes) {
  if (class_bytes <= 4 * ALIGNMENT)
    return (int)(class_bytes / ALIGNMENT) - 1;
  int e = floor_log2(class_bytes - 1);
  size_t step = (size_t)1 << (e - 2);
  return 4 + (e - 8) * 4 + (int)((class_bytes - ((size_t)1 << e)) / step) - 1;
}

/* With the lock held: the limit from the environment, once. */
static void read_limit_locked(void) {
  if (limit_read)
    return;
  limit_read = true;
  stats.cache_limit = DEFAULT_LIMIT;
  const char *mb = g_getenv("JITSCOPE_HOST_CACHE_MB");
  if (mb != NULL && *mb != '\0') {
    guint64 v = g_ascii_strtoull(mb, NULL, 10);
    stats.cache_limit = v > SIZE_MAX >> 20 ? SIZE_MAX : (size_t)v << 20;
  }
}

static void system_free_locked(CachedBlock *block, size_t class_bytes) {
  ASAN_UNPOISON_MEMORY_REGION(block, class_bytes);
  free(block);
  stats.system_frees++;
}

void *rt_host_alloc(size_t nbytes) {
  size_t class_bytes = rt_host_size_class(nbytes);
  if (class_bytes == 0)
    return NULL;
  int index = class_index(class_bytes);
  g_mutex_lock(&lock);
  read_limit_locked();
  stats.allocations++;
  CachedBlock *block = free_lists[index];
  if (block != NULL) {
    free_lists[index] = block->next;
    stats.cache_hits++;
    stats.bytes_cached -= class_bytes;
  } else {
    void *fresh = NULL;
    if (posix_memalign(&fresh, ALIGNMENT, class_bytes) != 0 || fresh == NULL) {
      g_mutex_unlock(&lock);
      return NULL;
    }
    block = fresh;
    stats.system_allocations++;
  }
  stats.bytes_in_use += class_bytes;
  if (stats.bytes_in_use > stats.peak_bytes_in_use)
    stats.peak_bytes_in_use = stats.bytes_in_use;
  g_mutex_unlock(&lock);
  ASAN_UNPOISON_MEMORY_REGION(block, class_bytes);
  return block;
}

void rt_host_free(void *ptr, size_t nbytes) {
  if (ptr == NULL)
    return;
  size_t class_bytes = rt_host_size_class(nbytes);
  int index = class_index(class_bytes);
  CachedBlock *block = ptr;
  g_mutex_lock(&lock);
  read_limit_locked();
  stats.bytes_in_use -= class_bytes;
  if (stats.bytes_cached + class_bytes > stats.cache_limit) {
    system_free_locked(block, class_bytes);
  } else {
    block->next = free_lists[index];
    block->generation = generation;
    free_lists[index] = block;
    stats.bytes_cached += class_bytes;
    /* The header stays readable: the lists are walked through it. */
    ASAN_POISON_MEMORY_REGION((char *)block + sizeof *block, class_bytes - sizeof *block);
  }
  g_mutex_unlock(&lock);
}

/* Class size of list `index` (the inverse of class_index). */
static size_t class_size(int index) {
  if (index < 4)
    return (size_t)(index + 1) * ALIGNMENT;
  int e = 8 + (index - 4) / 4;
  size_t step = (size_t)1 << (e - 2);
  return ((size_t)1 << e) + (size_t)((index - 4) % 4 + 1) * step;
}

/* With the lock held: gives back the cached blocks that `keep` rejects (all when NULL) until
 * bytes_cached <= bound; returns the bytes given back. */
static size_t release_locked(bool (*keep)(const CachedBlock *block), size_t bound) {
  size_t released = 0;
  for (int i = N_CLASSES - 1; i >= 0 && stats.bytes_cached > bound; i--) {
    size_t class_bytes = class_size(i);
    CachedBlock **link = &free_lists[i];
    while (*link != NULL && stats.bytes_cached > bound) {
      CachedBlock *block = *link;
      if (keep != NULL && keep(block)) {
        link = &block->next;
        continue;
      }
      *link = block->next;
      stats.bytes_cached -= class_bytes;
      released += class_bytes;
      system_free_locked(block, class_bytes);
    }
  }
  return released;
}

void rt_host_allocator_stats(RtHostAllocatorStats *out) {
  g_mutex_lock(&lock);
  read_limit_locked();
  *out = stats;
  g_mutex_unlock(&lock);
}

void rt_host_allocator_reset_peak(void) {
  g_mutex_lock(&lock);
  stats.peak_bytes_in_use = stats.bytes_in_use;
  g_mutex_unlock(&lock);
}

void rt_host_allocator_set_limit(size_t bytes) {
  g_mutex_lock(&lock);
  limit_read = true;
  stats.cache_limit = bytes;
  release_locked(NULL, bytes);
  g_mutex_unlock(&lock);
}

void rt_host_allocator_trim(void) {
  g_mutex_lock(&lock);
  release_locked(NULL, 0);
  g_mutex_unlock(&lock);
}

static bool cached_this_generation(const CachedBlock *block) {
  return block->generation == generation;
}

size_t rt_host_allocator_trim_idle(void) {
  g_mutex_lock(&lock);
  size_t released = release_locked(cached_this_generation, 0);
  generation++;
  g_mutex_unlock(&lock);
  return released;
}

static gboolean trim_idle_tick(gpointer data) {
  (void)data;
  rt_host_allocator_trim_idle();
  return G_SOURCE_CONTINUE;
}

void rt_host_allocator_trim_when_idle(guint interval_s) {
  static gsize started = 0;
  if (g_once_init_enter(&started)) {
    g_timeout_add_seconds(interval_s, trim_idle_tick, NULL);
    g_once_init_leave(&started, 1);
  }
}
