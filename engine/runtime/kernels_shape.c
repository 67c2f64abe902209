/* Shape and view kernels: t, transpose, unsqueeze, squeeze (all / dim), expand (-1 keeps a
 * size), expand_as, view, reshape, size, size.int, numel, dim, _size_if_not_equal and
 * broadcast_tensors (every tensor expanded to their common shape), the tensor facts of
 * rt_kernel_tensor_info, and tril / triu (copies).
 *
 * Every tensor result is a view sharing self's storage (PyTorch semantics), except reshape
 * when the strides do not allow a view (then a contiguous copy, as PyTorch's reshape). User
 * dims are validated here (PyTorch's "Dimension out of range" message) before the view
 * helpers of tensor.h, which abort on bad dims, see them. */
#include <string.h>

#include "runtime/kernels.h"
#include "runtime/kernels_internal.h"
#include "runtime/run_control.h"

bool rt_kernel_t(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                 RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  RtTensor *self;
  if (!k_arg_tensor(schema, args, 0, &self, error))
    return false;
  if (self->ndim > 2) {
    K_ERR_SHAPE(error, "t() expects a tensor with <= 2 dimensions, but self is %dD", self->ndim);
    return false;
  }
  int last = self->ndim == 2 ? 1 : 0;
  outs[0] = rt_tensor(rt_tensor_view_transpose(self, 0, last));
  return true;
}

bool rt_kernel_transpose(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                         RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  RtTensor *self;
  gint64 d0, d1;
  int w0, w1;
  if (!k_arg_tensor(schema, args, 0, &self, error) || !k_arg_int(schema, args, 1, &d0, error) ||
      !k_arg_int(schema, args, 2, &d1, error) || !k_wrap_dim(d0, self->ndim, &w0, error) ||
      !k_wrap_dim(d1, self->ndim, &w1, error))
    return false;
  outs[0] = rt_tensor(rt_tensor_view_transpose(self, w0, w1));
  return true;
}

bool rt_kernel_unsqueeze(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                         RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  RtTensor *self;
  gint64 dim;
  int w;
  if (!k_arg_tensor(schema, args, 0, &self, error) || !k_arg_int(schema, args, 1, &dim, error) ||
      !k_wrap_dim(dim, self->ndim + 1, &w, error))
    return false;
  if (self->ndim >= RT_MAX_DIMS) {
    K_ERR_SHAPE(error, "unsqueeze: a tensor of rank %d cannot gain a dimension (at most %d)",
                self->ndim, RT_MAX_DIMS);
    return false;
  }
  outs[0] = rt_tensor(rt_tensor_view_unsqueeze(self, w));
  return true;
}

bool rt_kernel_squeeze(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                       RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  RtTensor *self;
  if (!k_arg_tensor(schema, args, 0, &self, error))
    return false;
  int w = -1;
  if (k_overload_is(schema, "dim")) {
    gint64 dim;
    if (!k_arg_int(schema, args, 1, &dim, error) || !k_wrap_dim(dim, self->ndim, &w, error))
      return false;
  }
  /* A dim whose size is not 1 is kept: the result is then an alias of self. */
  outs[0] = rt_tensor(rt_tensor_view_squeeze(self, w));
  return true;
}

static bool expand_to(RtTensor *self, int n, const int64_t *sizes, RtValue *outs, GError **error) {
  if (n < self->ndim) {
    char have[256], want[256];
    k_shape_text(have, sizeof have, self->ndim, self->sizes);
    k_shape_text(want, sizeof want, n, sizes);
    K_ERR_SHAPE(error,
                "expand(torch.FloatTensor{%s}, size=%s): the number of sizes provided "
                "(%d) must be greater or equal to the number of dimensions in the tensor (%d)",
                have, want, n, self->ndim);
    return false;
  }
  RtTensor *v = rt_tensor_view_expand(self, n, sizes, error);
  if (!v)
    return false;
  outs[0] = rt_tensor(v);
  return true;
}

bool rt_kernel_expand(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                      RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  RtTensor *self;
  int64_t sizes[RT_MAX_DIMS];
  int n;
  if (!k_arg_tensor(schema, args, 0, &self, error) ||
      !k_arg_int_list(schema, args, 1, sizes, &n, error))
    return false;
  return expand_to(self, n, sizes, outs, error);
}

bool rt_kernel_expand_as(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                         RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  RtTensor *self, *other;
  if (!k_arg_tensor(schema, args, 0, &self, error) || !k_arg_tensor(schema, args, 1, &other, error))
    return false;
  return expand_to(self, other->ndim, other->sizes, outs, error);
}

static bool reshape(const IrSchema *schema, RtValue *args, RtValue *outs, bool must_view,
                    GError **error) {
  RtTensor *self;
  int64_t sizes[RT_MAX_DIMS];
  int n;
  if (!k_arg_tensor(schema, args, 0, &self, error) ||
      !k_arg_int_list(schema, args, 1, sizes, &n, error))
    return false;
  RtTensor *v = rt_tensor_reshape(self, n, sizes, must_view, error);
  if (!v)
    return false;
  outs[0] = rt_tensor(v);
  return true;
}

bool rt_kernel_view(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                    RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  return reshape(schema, args, outs, true, error);
}

bool rt_kernel_reshape(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                       RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  return reshape(schema, args, outs, false, error);
}

bool rt_kernel_size(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                    RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  RtTensor *self;
  if (!k_arg_tensor(schema, args, 0, &self, error))
    return false;
  if (schema->kind == IR_ATEN_NUMEL) {
    outs[0] = rt_int(rt_tensor_numel(self));
    return true;
  }
  if (schema->kind == IR_ATEN_DIM) {
    outs[0] = rt_int(self->ndim);
    return true;
  }
  if (k_overload_is(schema, "int")) {
    gint64 dim;
    int w;
    if (!k_arg_int(schema, args, 1, &dim, error))
      return false;
    if (self->ndim == 0) {
      K_ERR_SHAPE(error,
                  "Dimension specified as %" G_GINT64_FORMAT " but tensor has no "
                  "dimensions",
                  dim);
      return false;
    }
    if (!k_wrap_dim(dim, self->ndim, &w, error))
      return false;
    outs[0] = rt_int(self->sizes[w]);
    return true;
  }
  gint64 sizes[RT_MAX_DIMS];
  for (int d = 0; d < self->ndim; d++)
    sizes[d] = self->sizes[d];
  outs[0] = rt_int_list(sizes, (guint)self->ndim);
  return true;
}

/* aten::_size_if_not_equal(self_size, other_size): None when the lists are equal, else
 * self_size (the size a gradient must be summed back to). */
bool rt_kernel_size_if_not_equal(const IrSchema *schema, const IrNode *node, RtValue *args,
                                 guint n_args, RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  int64_t a[RT_MAX_DIMS], b[RT_MAX_DIMS];
  int na, nb;
  if (!k_arg_int_list(schema, args, 0, a, &na, error) ||
      !k_arg_int_list(schema, args, 1, b, &nb, error))
    return false;
  bool equal = na == nb;
  for (int k = 0; equal && k < na; k++)
    equal = a[k] == b[k];
  if (equal) {
    outs[0] = rt_none();
    return true;
  }
  outs[0] = args[0].tag == RT_INT ? rt_int_list(a, (guint)na) : rt_value_ref(args[0]);
  return true;
}

bool rt_kernel_broadcast_tensors(const IrSchema *schema, const IrNode *node, RtValue *args,
                                 guint n_args, RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  RtValue list = args[0];
  if (list.tag != RT_LIST && list.tag != RT_TUPLE) {
    K_ERR(error, "broadcast_tensors(): argument 'tensors' (position 1) must be a list of tensors");
    return false;
  }
  guint n = list.u.seq->len;
  int nd = 0;
  int64_t shape[RT_MAX_DIMS];
  for (guint k = 0; k < n; k++) {
    RtValue item = list.u.seq->items[k];
    if (item.tag != RT_TENSOR || item.u.tensor == NULL) {
      K_ERR(error, "broadcast_tensors(): expected a list of defined Tensors, item %u is not one",
            k);
      return false;
    }
    if (!k_broadcast(nd, shape, item.u.tensor->ndim, item.u.tensor->sizes, &nd, shape, error))
      return false;
  }
  RtValue *items = g_new(RtValue, n + 1);
  for (guint k = 0; k < n; k++) {
    RtTensor *wide = rt_tensor_view_expand(list.u.seq->items[k].u.tensor, nd, shape, NULL);
    K_INVARIANT(wide != NULL, "every tensor expands to the broadcast shape");
    items[k] = rt_tensor(wide);
  }
  outs[0] = rt_list(items, n);
  g_free(items);
  return true;
}

/* Facts about a tensor (is_floating_point, requires_grad, is_cuda, device, is_nested) and
 * this thread's grad mode (is_grad_enabled). */
bool rt_kernel_tensor_info(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                           RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  if (schema->kind == IR_ATEN_IS_GRAD_ENABLED) {
    outs[0] = rt_bool(rt_run_grad_mode());
    return true;
  }
  RtTensor *self;
  if (!k_arg_tensor(schema, args, 0, &self, error))
    return false;
  int device = self->storage ? self->storage->device : IR_DEVICE_CPU; /* no storage: host */
  switch (schema->kind) {
  case IR_ATEN_IS_FLOATING_POINT: outs[0] = rt_bool(k_dtype_is_float(self->dtype)); return true;
  case IR_PRIM_REQUIRES_GRAD: outs[0] = rt_bool(self->requires_grad); return true;
  case IR_PRIM_IS_CUDA: outs[0] = rt_bool(device == IR_DEVICE_CUDA); return true;
  case IR_PRIM_DEVICE: outs[0] = rt_device(device); return true;
  case IR_PRIM_IS_NESTED: outs[0] = rt_bool(false); return true;
  default: break;
  }
  K_INVARIANT(false, "rt_kernel_tensor_info serves only its rows of ops.def");
  return false;
}

/* tril / triu: a contiguous copy whose elements outside the lower (upper) triangle of the
 * last two dims are zeroed; diagonal k keeps j - i <= k (>= k for triu), any int64. */
bool rt_kernel_tril(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                    RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  bool upper = schema->kind == IR_ATEN_TRIU;
  RtTensor *self;
  gint64 diagonal;
  if (!k_arg_tensor(schema, args, 0, &self, error) || !k_arg_int(schema, args, 1, &diagonal, error))
    return false;
  if (self->ndim < 2) {
    K_ERR_SHAPE(error, "%s: input tensor must have at least 2 dimensions", k_op_short_name(schema));
    return false;
  }
  RtTensor *out = rt_tensor_clone(self);
  int64_t rows = self->sizes[self->ndim - 2], cols = self->sizes[self->ndim - 1];
  int64_t planes = rows * cols > 0 ? rt_tensor_numel(self) / (rows * cols) : 0;
  /* j - i lies in [-rows, cols]: a diagonal beyond acts as that bound (no overflow) */
  int64_t k = diagonal > cols ? cols : diagonal < -rows ? -rows : diagonal;
  size_t size = rt_dtype_size(out->dtype);
  char *data = rt_tensor_data(out);
  for (int64_t p = 0; p < planes; p++)
    for (int64_t i = 0; i < rows; i++)
      for (int64_t j = 0; j < cols; j++)
        if (upper ? j - i < k : j - i > k)
          memset(data + (size_t)((p * rows + i) * cols + j) * size, 0, size);
  outs[0] = rt_tensor(out);
  return true;
}
