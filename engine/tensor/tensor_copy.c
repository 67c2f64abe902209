/* rt_tensor_copy_into: broadcasting copy with dtype conversion (PyTorch's copy_).
 * One specialized inner loop per (dst, src) dtype pair, driven by RtIter; same-dtype runs
 * that are contiguous on both sides become memcpy. */
#include "tensor/tensor.h"

#include <string.h>

/* Converters from a source element to each destination type. */
#define TO_F32(x) ((float)(x))
#define TO_F64(x) ((double)(x))
#define TO_F16(x) rt_double_to_half((double)(x))
#define TO_I64(x) rt_double_to_int64((double)(x))
#define TO_BOOL(x) ((uint8_t)((x) != 0))

/* Source element readers yielding a value the converters accept. */
#define RD_F32(p) (*(const float *)(p))
#define RD_F64(p) (*(const double *)(p))
#define RD_F16(p) rt_half_to_float(*(const uint16_t *)(p))
#define RD_I64(p) (*(const int64_t *)(p))
#define RD_BOOL(p) (*(const uint8_t *)(p))

#define COPY_LOOP(DT, CONV, RD)   \
  for (int64_t i = 0; i < n; i++) \
    *(DT *)(d + i * sd) = CONV(RD(s + i * ss));

/* int64 -> int64 and bool -> int64 must not pass through double (exactness above 2^53). */
#define I64_FROM_I64(x) (x)
#define I64_FROM_BOOL(x) ((int64_t)(x))

static void copy_run(char *d, int64_t sd, IrDtype dt, const char *s, int64_t ss, IrDtype st,
                     int64_t n) {
  switch (dt) {
  case IR_DTYPE_FLOAT32:
    switch (st) {
    case IR_DTYPE_FLOAT32: COPY_LOOP(float, TO_F32, RD_F32) return;
    case IR_DTYPE_FLOAT64: COPY_LOOP(float, TO_F32, RD_F64) return;
    case IR_DTYPE_FLOAT16: COPY_LOOP(float, TO_F32, RD_F16) return;
    case IR_DTYPE_INT64: COPY_LOOP(float, TO_F32, RD_I64) return;
    case IR_DTYPE_BOOL: COPY_LOOP(float, TO_F32, RD_BOOL) return;
    default: break;
    }
    break;
  case IR_DTYPE_FLOAT64:
    switch (st) {
    case IR_DTYPE_FLOAT32: COPY_LOOP(double, TO_F64, RD_F32) return;
    case IR_DTYPE_FLOAT64: COPY_LOOP(double, TO_F64, RD_F64) return;
    case IR_DTYPE_FLOAT16: COPY_LOOP(double, TO_F64, RD_F16) return;
    case IR_DTYPE_INT64: COPY_LOOP(double, TO_F64, RD_I64) return;
    case IR_DTYPE_BOOL: COPY_LOOP(double, TO_F64, RD_BOOL) return;
    default: break;
    }
    break;
  case IR_DTYPE_FLOAT16:
    switch (st) {
    case IR_DTYPE_FLOAT32: COPY_LOOP(uint16_t, TO_F16, RD_F32) return;
    case IR_DTYPE_FLOAT64: COPY_LOOP(uint16_t, TO_F16, RD_F64) return;
    case IR_DTYPE_FLOAT16: COPY_LOOP(uint16_t, (uint16_t), *(const uint16_t *)) return;
    case IR_DTYPE_INT64: COPY_LOOP(uint16_t, TO_F16, RD_I64) return;
    case IR_DTYPE_BOOL: COPY_LOOP(uint16_t, TO_F16, RD_BOOL) return;
    default: break;
    }
    break;
  case IR_DTYPE_INT64:
    switch (st) {
    case IR_DTYPE_FLOAT32: COPY_LOOP(int64_t, TO_I64, RD_F32) return;
    case IR_DTYPE_FLOAT64: COPY_LOOP(int64_t, TO_I64, RD_F64) return;
    case IR_DTYPE_FLOAT16: COPY_LOOP(int64_t, TO_I64, RD_F16) return;
    case IR_DTYPE_INT64: COPY_LOOP(int64_t, I64_FROM_I64, RD_I64) return;
    case IR_DTYPE_BOOL: COPY_LOOP(int64_t, I64_FROM_BOOL, RD_BOOL) return;
    default: break;
    }
    break;
  case IR_DTYPE_BOOL:
    switch (st) {
    case IR_DTYPE_FLOAT32: COPY_LOOP(uint8_t, TO_BOOL, RD_F32) return;
    case IR_DTYPE_FLOAT64: COPY_LOOP(uint8_t, TO_BOOL, RD_F64) return;
    case IR_DTYPE_FLOAT16: COPY_LOOP(uint8_t, TO_BOOL, RD_F16) return;
    case IR_DTYPE_INT64: COPY_LOOP(uint8_t, TO_BOOL, RD_I64) return;
    case IR_DTYPE_BOOL: COPY_LOOP(uint8_t, TO_BOOL, RD_BOOL) return;
    default: break;
    }
    break;
  default: break;
  }
  g_error("rt_tensor_copy_into: invalid dtype pair %d <- %d", (int)dt, (int)st);
}

bool rt_tensor_copy_into(RtTensor *dst, const RtTensor *src, GError **error) {
  int nd;
  int64_t shape[RT_MAX_DIMS];
  if (!rt_broadcast_shapes(dst->ndim, dst->sizes, src->ndim, src->sizes, &nd, shape, error))
    return false;
  bool same = nd == dst->ndim;
  for (int d = 0; same && d < nd; d++)
    same = shape[d] == dst->sizes[d];
  if (!same) {
    g_autofree char *a = rt_shape_to_string(src->ndim, src->sizes);
    g_autofree char *b = rt_shape_to_string(dst->ndim, dst->sizes);
    g_set_error(error, JITSCOPE_RUNTIME_ERROR, RT_ERROR_SHAPE,
                "cannot copy a tensor of shape %s into one of shape %s", a, b);
    return false;
  }
  if (dst->storage->device != IR_DEVICE_CPU || src->storage->device != IR_DEVICE_CPU)
    g_error("rt_tensor_copy_into: host-only copy called on device memory");
  RtIter it;
  RtTensor *ops[2] = {dst, (RtTensor *)src};
  rt_iter_init(&it, dst->ndim, dst->sizes, 2, ops);
  char *p[RT_ITER_MAX_OPERANDS];
  int64_t n;
  int64_t es = (int64_t)rt_dtype_size(dst->dtype);
  while (rt_iter_next(&it, p, &n)) {
    int64_t sd = it.inner_strides[0], ss = it.inner_strides[1];
    if (dst->dtype == src->dtype && sd == es && ss == es)
      memmove(p[0], p[1], (size_t)(n * es));
    else
      copy_run(p[0], sd, dst->dtype, p[1], ss, src->dtype, n);
  }
  return true;
}
