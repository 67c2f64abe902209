/* NumPy .npy files: versions 1, 2 and 3, little-endian, C and Fortran order, dtypes
 * float32/float64/float16/int64/bool (int32 read as int64). Anything else is a clear error
 * naming the file and what was wrong.
 * Also (runtime engineer): uint8 ('|u1') reads as int64 too; loaded tensors are always
 * C-contiguous (Fortran-order data is reordered); errors use JITSCOPE_RUNTIME_ERROR with
 * RT_ERROR_FORMAT (bad contents) or RT_ERROR_IO (unreadable file); rt_npy_to_bytes writes
 * exactly what numpy.save writes (version 1.0, 2.0 only for headers over 64 KiB). */
#ifndef JITSCOPE_RUNTIME_NPY_H
#define JITSCOPE_RUNTIME_NPY_H

#include "tensor/tensor.h"

RtTensor *rt_npy_load(const char *path, GError **error);
RtTensor *rt_npy_load_bytes(const guint8 *bytes, gsize length, const char *name, GError **error);
bool rt_npy_save(const char *path, const RtTensor *t, GError **error);
GBytes *rt_npy_to_bytes(const RtTensor *t);

#endif
