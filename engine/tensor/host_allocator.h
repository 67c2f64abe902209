/* A caching allocator for host tensor memory: freed blocks are kept in per-size-class free
 * lists and handed out again, so that steady-state iterations of a plan take no memory from
 * the kernel (glibc returns large blocks to the kernel on free(), and every fresh page then
 * costs a minor page fault on first touch). The design of PyTorch's CUDA caching allocator
 * and of size-class allocators such as jemalloc, reduced to one lock and exact classes.
 *
 * Contracts:
 * - Blocks are 64-byte aligned and at least rt_host_size_class(nbytes) bytes long (a multiple
 *   of 64); each is its own posix_memalign allocation, so free() of a block is valid (it then
 *   merely escapes the statistics).
 * - Size classes: multiples of 64 up to 256 bytes, then four classes per power of two
 *   (at most 25% rounding waste), as jemalloc's.
 * - Bounded: the bytes kept in the cache never exceed the limit (default 1 GiB, or
 *   $JITSCOPE_HOST_CACHE_MB read at the first allocation); a freed block that would exceed it
 *   goes back to the system.
 * - Trimmed on idle: rt_host_allocator_trim_idle returns every block that has sat unused in the
 *   cache since its previous call; rt_host_allocator_trim_when_idle calls it from a timeout on
 *   GLib's default main context (the window's main loop).
 * - Thread-safe (one mutex). Under AddressSanitizer cached blocks are poisoned, so a use after
 *   free is still reported.
 * - Blocks of the 64-byte class that the per-thread header caches keep with their storage
 *   headers (rt_storage_small_give, header_cache.h: at most 64 per thread) count as in use
 *   here until those caches give them back. */
#ifndef JITSCOPE_TENSOR_HOST_ALLOCATOR_H
#define JITSCOPE_TENSOR_HOST_ALLOCATOR_H

#include <glib.h>
#include <stddef.h>

typedef struct {
  guint64 allocations;        /* rt_host_alloc calls */
  guint64 cache_hits;         /* of those, served from the cache */
  guint64 system_allocations; /* blocks taken from the system (posix_memalign) */
  guint64 system_frees;       /* blocks given back to the system */
  size_t bytes_in_use;        /* class bytes handed out and not yet freed */
  size_t peak_bytes_in_use;   /* the maximum of bytes_in_use since the last reset */
  size_t bytes_cached;        /* class bytes of the free blocks kept for reuse */
  size_t cache_limit;         /* the bound on bytes_cached */
} RtHostAllocatorStats;

/* The class size a request of nbytes is served with: >= nbytes, a multiple of 64, >= 64. */
size_t rt_host_size_class(size_t nbytes);
/* A block of rt_host_size_class(nbytes) bytes, 64-byte aligned, contents unspecified; NULL
 * when the system has no memory (or the class size overflows). */
void *rt_host_alloc(size_t nbytes);
/* Returns a block from rt_host_alloc(nbytes) (the same nbytes) to the cache. NULL is a no-op. */
void rt_host_free(void *block, size_t nbytes);

void rt_host_allocator_stats(RtHostAllocatorStats *out);
/* Sets peak_bytes_in_use to bytes_in_use (to measure the peak of one piece of work). */
void rt_host_allocator_reset_peak(void);
/* Bounds the cache to `bytes`, giving back blocks over the new bound at once. */
void rt_host_allocator_set_limit(size_t bytes);
/* Gives every cached block back to the system. */
void rt_host_allocator_trim(void);
/* Gives back the blocks cached before the previous call of this function and not reused
 * since; returns the bytes given back. */
size_t rt_host_allocator_trim_idle(void);
/* From now on, calls rt_host_allocator_trim_idle every `interval_s` seconds from GLib's
 * default main context (so a block idle for two intervals is given back). Once per process;
 * later calls change nothing. */
void rt_host_allocator_trim_when_idle(guint interval_s);

#endif
