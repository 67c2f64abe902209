/* Neural-network kernels along one dim: rt_kernel_softmax (softmax, log_softmax) and
 * rt_kernel_softmax_backward (_softmax_backward_data, _log_softmax_backward_data).
 *
 * Contracts as PyTorch 1.13:
 * - softmax(self, dim, dtype): self cast to dtype when given, then exp(x - max) / sum exp(x -
 *   max) along dim; log_softmax: x - max - log(sum exp(x - max)). A slice of -inf only gives
 *   NaN, a NaN poisons its slice. Integral and bool inputs (without a float dtype) are an
 *   error. 0-dim tensors accept dim -1 and 0.
 * - _softmax_backward_data(grad, output, dim, input_dtype) = output * (grad - sum(grad *
 *   output)); _log_softmax_backward_data = grad - exp(output) * sum(grad); the result in
 *   input_dtype.
 * Every slice is computed in double and stored in the result dtype. */
#include "runtime/kernels.h"
#include "runtime/kernels_internal.h"

#include <math.h>
#include <string.h>

/* A fresh contiguous float64 copy of t viewed as [outer, n, inner] around dim. */
typedef struct {
  RtTensor *data;
  int64_t outer, n, inner;
} KSlices;

static void slices_of(RtTensor *t, int dim, KSlices *out) {
  out->data = rt_tensor_to_dtype(t, IR_DTYPE_FLOAT64);
  out->outer = 1;
  out->inner = 1;
  out->n = t->ndim > 0 ? t->sizes[dim] : 1;
  for (int k = 0; k < t->ndim; k++) {
    if (k < dim)
      out->outer *= t->sizes[k];
    else if (k > dim)
      out->inner *= t->sizes[k];
  }
}

static double *slices_at(const KSlices *s, int64_t o, int64_t i) {
  return (double *)rt_tensor_data(s->data) + o * s->n * s->inner + i;
}

/* Stores the float64 tensor r as `dtype` into outs[0]. */
static void store_as(RtTensor *r, IrDtype dtype, RtValue *outs) {
  RtTensor *cast = k_to_dtype(r, dtype);
  rt_tensor_unref(r);
  outs[0] = rt_tensor(cast);
}

bool rt_kernel_softmax(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                       RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  RtTensor *self;
  gint64 dim;
  bool has_dtype;
  IrDtype dtype;
  int d;
  if (!k_arg_tensor(schema, args, 0, &self, error) || !k_arg_int(schema, args, 1, &dim, error) ||
      !k_arg_dtype(schema, args, 2, &has_dtype, &dtype, error) ||
      !k_wrap_dim(dim, self->ndim, &d, error))
    return false;
  IrDtype out_dtype = has_dtype ? dtype : self->dtype;
  if (!k_dtype_is_float(out_dtype)) {
    K_ERR_DTYPE(error, "\"%s\" not implemented for '%s'",
                d == self->ndim - 1 ? "softmax_lastdim_kernel_impl" : "softmax_kernel_impl",
                ir_dtype_type_name(out_dtype));
    return false;
  }
  bool log_form = schema->kind == IR_ATEN_LOG_SOFTMAX;
  KSlices s;
  slices_of(self, d, &s);
  for (int64_t o = 0; o < s.outer; o++) {
    for (int64_t i = 0; i < s.inner; i++) {
      double *x = slices_at(&s, o, i);
      double max = -INFINITY, sum = 0;
      for (int64_t k = 0; k < s.n; k++)
        max = x[k * s.inner] != x[k * s.inner] || x[k * s.inner] > max ? x[k * s.inner] : max;
      for (int64_t k = 0; k < s.n; k++)
        sum += exp(x[k * s.inner] - max);
      for (int64_t k = 0; k < s.n; k++) {
        double shifted = x[k * s.inner] - max;
        x[k * s.inner] = log_form ? shifted - log(sum) : exp(shifted) / sum;
      }
    }
  }
  store_as(s.data, out_dtype, outs);
  return true;
}

bool rt_kernel_softmax_backward(const IrSchema *schema, const IrNode *node, RtValue *args,
                                guint n_args, RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  RtTensor *grad, *output;
  gint64 dim;
  bool has_dtype;
  IrDtype input_dtype;
  int d;
  if (!k_arg_tensor(schema, args, 0, &grad, error) ||
      !k_arg_tensor(schema, args, 1, &output, error) ||
      !k_arg_int(schema, args, 2, &dim, error) ||
      !k_arg_dtype(schema, args, 3, &has_dtype, &input_dtype, error) ||
      !k_wrap_dim(dim, output->ndim, &d, error))
    return false;
  if (grad->ndim != output->ndim || memcmp(grad->sizes, output->sizes,
                                           sizeof(int64_t) * (size_t)grad->ndim) != 0) {
    char g[256], o[256];
    k_shape_text(g, sizeof g, grad->ndim, grad->sizes);
    k_shape_text(o, sizeof o, output->ndim, output->sizes);
    K_ERR_SHAPE(error, "%s(): grad_output %s and output %s must have the same shape",
                k_op_short_name(schema), g, o);
    return false;
  }
  bool log_form = schema->kind == IR_ATEN__LOG_SOFTMAX_BACKWARD_DATA;
  KSlices gs, ys;
  slices_of(grad, d, &gs);
  slices_of(output, d, &ys);
  for (int64_t o = 0; o < gs.outer; o++) {
    for (int64_t i = 0; i < gs.inner; i++) {
      double *g = slices_at(&gs, o, i);
      const double *y = slices_at(&ys, o, i);
      double sum = 0;
      for (int64_t k = 0; k < gs.n; k++)
        sum += log_form ? g[k * gs.inner] : g[k * gs.inner] * y[k * gs.inner];
      for (int64_t k = 0; k < gs.n; k++) {
        int64_t at = k * gs.inner;
        g[at] = log_form ? g[at] - exp(y[at]) * sum : y[at] * (g[at] - sum);
      }
    }
  }
  rt_tensor_unref(ys.data);
  store_as(gs.data, has_dtype ? input_dtype : grad->dtype, outs);
  return true;
}
