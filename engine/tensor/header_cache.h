/* Per-thread caches of tensor and storage headers (RtTensor, RtStorage), so that an op on
 * small tensors, which makes one of each per result, takes them without malloc and free.
 *
 * Contracts:
 * - A header from here is uninitialized; the caller sets every field.
 * - A header may be given back on any thread (it joins that thread's cache); headers made
 *   with g_new elsewhere may be given back too. A thread's cache holds at most a fixed number
 *   of headers and is freed when the thread exits.
 * - Under AddressSanitizer a cached header is poisoned, so a use after free is still reported. */
#ifndef JITSCOPE_TENSOR_HEADER_CACHE_H
#define JITSCOPE_TENSOR_HEADER_CACHE_H

#include "tensor/tensor.h"

RtTensor *rt_tensor_header_take(void);
void rt_tensor_header_give(RtTensor *t);
RtStorage *rt_storage_header_take(void);
void rt_storage_header_give(RtStorage *s);

/* Storage headers that keep their host block of the smallest class (RT_SMALL_BLOCK bytes, from
 * rt_host_alloc), so that a 1-element result costs neither the host allocator's lock nor its
 * lists: rt_storage_small_take returns one with `data` set (its other fields and the block's
 * contents unspecified) or NULL when the thread has none; rt_storage_small_give keeps the
 * header and its block, or hands the block back to rt_host_free and the header to
 * rt_storage_header_give when the cache is full. At most a fixed number per thread; the host
 * allocator counts their blocks as in use (they are given back at thread exit). */
#define RT_SMALL_BLOCK 64
RtStorage *rt_storage_small_take(void);
void rt_storage_small_give(RtStorage *s);

#endif
