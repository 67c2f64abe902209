/* NumPy .npy files: versions 1, 2 and 3, little-endian, C and Fortran order, dtypes
 * float32/float64/float16/int64/bool (int32 read as int64). Anything else is a clear error
 * naming the file and what was wrong. */
#ifndef JITSCOPE_RUNTIME_NPY_H
#define JITSCOPE_RUNTIME_NPY_H

#include "runtime/tensor.h"

RtTensor *rt_npy_load(const char *path, GError **error);
RtTensor *rt_npy_load_bytes(const guint8 *bytes, gsize length, const char *name, GError **error);
bool rt_npy_save(const char *path, const RtTensor *t, GError **error);
GBytes *rt_npy_to_bytes(const RtTensor *t);

#endif
