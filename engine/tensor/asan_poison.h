/* ASAN_POISON_MEMORY_REGION / ASAN_UNPOISON_MEMORY_REGION for the runtime's caches: the
 * sanitizer's own under AddressSanitizer (a cached block stays a reported use after free),
 * nothing otherwise. Private to engine/runtime. */
#ifndef JITSCOPE_TENSOR_ASAN_POISON_H
#define JITSCOPE_TENSOR_ASAN_POISON_H

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#else
#define ASAN_POISON_MEMORY_REGION(addr, size) ((void)(addr), (void)(size))
#define ASAN_UNPOISON_MEMORY_REGION(addr, size) ((void)(addr), (void)(size))
#endif

#endif
