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

#endif
