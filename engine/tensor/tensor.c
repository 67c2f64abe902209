/* Tensor objects: construction, reference counting, element access and contiguity.
 * Views are in tensor_view.c, copies with dtype conversion in tensor_copy.c, broadcasting and
 * sum_to in broadcast.c, random numbers in random.c. */
#include "tensor/tensor.h"

#include "tensor/header_cache.h"

#include <math.h>
#include <string.h>

static void (*grad_fn_release)(struct RtGradNode *node);

void rt_tensor_set_grad_fn_release(void (*release)(struct RtGradNode *node)) {
  grad_fn_release = release;
}

void rt_dtype_size_invalid(IrDtype dtype) {
  g_error("rt_dtype_size: invalid dtype %d", (int)dtype);
}

void rt_contiguous_strides(int ndim, const int64_t *sizes, int64_t *strides) {
  int64_t s = 1;
  for (int d = ndim - 1; d >= 0; d--) {
    strides[d] = s;
    s *= sizes[d] > 1 ? sizes[d] : 1;
  }
}

static int64_t checked_numel(int ndim, const int64_t *sizes) {
  if (ndim < 0 || ndim > RT_MAX_DIMS)
    g_error("rt_tensor: rank %d outside [0, %d]", ndim, RT_MAX_DIMS);
  int64_t n = 1;
  for (int d = 0; d < ndim; d++) {
    if (sizes[d] < 0)
      g_error("rt_tensor: negative size %" G_GINT64_FORMAT " at dim %d", sizes[d], d);
    /* The builtin, not a division: a 64-bit idiv costs tens of cycles on some CPUs, and
     * every kernel result comes through here. */
    if (__builtin_mul_overflow(n, sizes[d], &n))
      g_error("rt_tensor: element count overflows int64");
  }
  return n;
}

/* A recycled header made new but for its first ndim sizes and strides, which the caller
 * writes. Field by field, and only the dims past ndim zeroed: a compound literal of the
 * 300-byte header, or fixed-size memsets of the arrays, compile to `rep stos` string stores
 * whose start-up costs more than the rest of a 1-element kernel on Intel CPUs. */
static inline void header_init(RtTensor *t, RtStorage *storage, IrDtype dtype, int ndim) {
  t->refcount = 1;
  t->storage = storage;
  t->dtype = dtype;
  t->ndim = ndim;
  for (int d = ndim; d < RT_MAX_DIMS; d++) {
    t->sizes[d] = 0;
    t->strides[d] = 0;
  }
  t->offset = 0;
  t->requires_grad = false;
  t->grad_fn = NULL;
  t->grad_output_index = 0;
}

RtTensor *rt_tensor_new_strided(RtStorage *storage, IrDtype dtype, int ndim, const int64_t *sizes,
                                const int64_t *strides, int64_t offset) {
  checked_numel(ndim, sizes);
  RtTensor *t = rt_tensor_header_take();
  header_init(t, rt_storage_ref(storage), dtype, ndim);
  for (int d = 0; d < ndim; d++) {
    t->sizes[d] = sizes[d];
    t->strides[d] = strides[d];
  }
  t->offset = offset;
  return t;
}

/* Every kernel result comes from here: one pass over the sizes, the storage's reference handed
 * to the tensor (no ref and unref), no calls but the two allocations. */
RtTensor *rt_tensor_new(IrDtype dtype, int ndim, const int64_t *sizes) {
  int64_t n = checked_numel(ndim, sizes);
  size_t es = rt_dtype_size(dtype);
  if ((uint64_t)n > SIZE_MAX / es)
    g_error("rt_tensor_new: byte size overflows");
  RtStorage *s = rt_storage_new_host((size_t)n * es);
  RtTensor *t = rt_tensor_header_take();
  header_init(t, s, dtype, ndim);
  int64_t stride = 1;
  for (int d = ndim - 1; d >= 0; d--) {
    t->sizes[d] = sizes[d];
    t->strides[d] = stride;
    stride *= sizes[d] > 1 ? sizes[d] : 1;
  }
  return t;
}

RtTensor *rt_tensor_zeros(IrDtype dtype, int ndim, const int64_t *sizes) {
  RtTensor *t = rt_tensor_new(dtype, ndim, sizes);
  /* All-zero bytes are 0 in every dtype (IEEE +0, int 0, false). */
  memset(t->storage->data, 0, t->storage->nbytes);
  return t;
}

/* Fills n contiguous elements at p with value converted to dtype. */
static void fill_contiguous(void *p, IrDtype dtype, int64_t n, double value) {
  switch (dtype) {
  case IR_DTYPE_FLOAT32: {
    float v = (float)value, *q = p;
    for (int64_t i = 0; i < n; i++)
      q[i] = v;
    break;
  }
  case IR_DTYPE_FLOAT64: {
    double *q = p;
    for (int64_t i = 0; i < n; i++)
      q[i] = value;
    break;
  }
  case IR_DTYPE_FLOAT16: {
    uint16_t v = rt_double_to_half(value), *q = p;
    for (int64_t i = 0; i < n; i++)
      q[i] = v;
    break;
  }
  case IR_DTYPE_INT64: {
    int64_t v = rt_double_to_int64(value), *q = p;
    for (int64_t i = 0; i < n; i++)
      q[i] = v;
    break;
  }
  case IR_DTYPE_BOOL: {
    memset(p, value != 0.0 ? 1 : 0, (size_t)n);
    break;
  }
  default: g_error("fill: invalid dtype %d", (int)dtype);
  }
}

RtTensor *rt_tensor_full(IrDtype dtype, int ndim, const int64_t *sizes, double value) {
  RtTensor *t = rt_tensor_new(dtype, ndim, sizes);
  fill_contiguous(t->storage->data, dtype, rt_tensor_numel(t), value);
  return t;
}

RtTensor *rt_tensor_scalar(IrDtype dtype, double value) {
  return rt_tensor_full(dtype, 0, NULL, value);
}

RtTensor *rt_tensor_ref(RtTensor *t) {
  g_atomic_int_inc(&t->refcount);
  return t;
}

void rt_tensor_unref(RtTensor *t) {
  /* A sole owner frees without the locked decrement: nobody else holds a reference that
   * could be taken or dropped meanwhile (a 1-element kernel result's header and storage were
   * two of the add node's 35 ns). */
  if (t == NULL ||
      (g_atomic_int_get(&t->refcount) != 1 && !g_atomic_int_dec_and_test(&t->refcount)))
    return;
  if (t->grad_fn != NULL) {
    if (grad_fn_release == NULL)
      g_error("rt_tensor_unref: tensor has a grad_fn but no release hook is installed");
    grad_fn_release(t->grad_fn);
  }
  rt_storage_unref(t->storage);
  rt_tensor_header_give(t);
}

int64_t rt_tensor_numel(const RtTensor *t) {
  int64_t n = 1;
  for (int d = 0; d < t->ndim; d++)
    n *= t->sizes[d];
  return n;
}

/* PyTorch's is_contiguous: size-1 dims may have any stride; empty tensors are contiguous. */
bool rt_tensor_is_contiguous(const RtTensor *t) {
  int64_t expected = 1;
  for (int d = t->ndim - 1; d >= 0; d--) {
    if (t->sizes[d] == 0)
      return true;
    if (t->sizes[d] != 1) {
      if (t->strides[d] != expected)
        return false;
      expected *= t->sizes[d];
    }
  }
  return true;
}

RtTensor *rt_tensor_contiguous(RtTensor *t) {
  if (rt_tensor_is_contiguous(t))
    return rt_tensor_ref(t);
  return rt_tensor_clone(t);
}

RtTensor *rt_tensor_clone(const RtTensor *t) {
  return rt_tensor_to_dtype(t, t->dtype);
}

RtTensor *rt_tensor_to_dtype(const RtTensor *t, IrDtype dtype) {
  RtTensor *out = rt_tensor_new(dtype, t->ndim, t->sizes);
  if (!rt_tensor_copy_into(out, t, NULL))
    g_error("rt_tensor_to_dtype: same-shape copy failed");
  return out;
}

/* Element offset (in elements, relative to rt_tensor_data) of a row-major linear index. */
static int64_t element_offset(const RtTensor *t, int64_t linear) {
  int64_t numel = rt_tensor_numel(t);
  if (linear < 0 || linear >= numel)
    g_error("rt_tensor_get/set: index %" G_GINT64_FORMAT " outside [0, %" G_GINT64_FORMAT ")",
            linear, numel);
  if (t->storage->device != IR_DEVICE_CPU)
    g_error("rt_tensor_get/set: tensor is not in host memory");
  int64_t off = 0;
  for (int d = t->ndim - 1; d >= 0; d--) {
    int64_t i = linear % t->sizes[d];
    linear /= t->sizes[d];
    off += i * t->strides[d];
  }
  return off;
}

double rt_load_element(const void *p, IrDtype dtype) {
  switch (dtype) {
  case IR_DTYPE_FLOAT32: return *(const float *)p;
  case IR_DTYPE_FLOAT64: return *(const double *)p;
  case IR_DTYPE_FLOAT16: return rt_half_to_float(*(const uint16_t *)p);
  case IR_DTYPE_INT64: return (double)*(const int64_t *)p;
  case IR_DTYPE_BOOL: return *(const uint8_t *)p ? 1.0 : 0.0;
  default: break;
  }
  g_error("rt_load_element: invalid dtype %d", (int)dtype);
}

void rt_store_element(void *p, IrDtype dtype, double value) {
  switch (dtype) {
  case IR_DTYPE_FLOAT32: *(float *)p = (float)value; return;
  case IR_DTYPE_FLOAT64: *(double *)p = value; return;
  case IR_DTYPE_FLOAT16: *(uint16_t *)p = rt_double_to_half(value); return;
  case IR_DTYPE_INT64: *(int64_t *)p = rt_double_to_int64(value); return;
  case IR_DTYPE_BOOL: *(uint8_t *)p = value != 0.0; return;
  default: break;
  }
  g_error("rt_store_element: invalid dtype %d", (int)dtype);
}

double rt_tensor_get(const RtTensor *t, int64_t linear_index) {
  int64_t off = element_offset(t, linear_index);
  return rt_load_element((char *)rt_tensor_data(t) + off * (int64_t)rt_dtype_size(t->dtype),
                         t->dtype);
}

void rt_tensor_set(RtTensor *t, int64_t linear_index, double value) {
  int64_t off = element_offset(t, linear_index);
  rt_store_element((char *)rt_tensor_data(t) + off * (int64_t)rt_dtype_size(t->dtype), t->dtype,
                   value);
}
