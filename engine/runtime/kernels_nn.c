/* Neural-network kernels: rt_kernel_softmax (softmax, log_softmax), rt_kernel_softmax_backward
 * (_softmax_backward_data, _log_softmax_backward_data), rt_kernel_layer_norm (layer_norm,
 * native_layer_norm), rt_kernel_layer_norm_backward (native_layer_norm_backward) and
 * rt_kernel_gelu (gelu, gelu_backward).
 *
 * Contracts as PyTorch 1.13:
 * - softmax(self, dim, dtype): self cast to dtype when given, then exp(x - max) / sum exp(x -
 *   max) along dim; log_softmax: x - max - log(sum exp(x - max)). A slice of -inf only gives
 *   NaN, a NaN poisons its slice. Integral and bool inputs (without a float dtype) are an
 *   error. 0-dim tensors accept dim -1 and 0.
 * - _softmax_backward_data(grad, output, dim, input_dtype) = output * (grad - sum(grad *
 *   output)); _log_softmax_backward_data = grad - exp(output) * sum(grad); the result in
 *   input_dtype.
 * - layer_norm(input, normalized_shape, weight, bias, eps): over the trailing dims named by
 *   normalized_shape, (x - mean) / sqrt(var + eps) (biased var) * weight + bias; weight and
 *   bias have normalized_shape's shape.
 * - native_layer_norm_backward(grad, input, normalized_shape, mean, rstd, weight, bias,
 *   output_mask): mean and rstd hold one number per normalized group (any shape); returns
 *   the gradients of input, weight and bias where output_mask asks, undefined elsewhere.
 * - gelu(self, approximate): x / 2 * (1 + erf(x / sqrt(2))) for 'none', x / 2 * (1 +
 *   tanh(sqrt(2 / pi) * (x + 0.044715 x^3))) for 'tanh'; gelu_backward their derivatives
 *   times grad_output (PyTorch's GeluBackwardKernel formulas).
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
  bool has_dtype;
  IrDtype dtype;
  int d;
  if (!k_args_dim_dtype(schema, args, &self, &d, &has_dtype, &dtype, error))
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
      !k_arg_tensor(schema, args, 1, &output, error) || !k_arg_int(schema, args, 2, &dim, error) ||
      !k_arg_dtype(schema, args, 3, &has_dtype, &input_dtype, error) ||
      !k_wrap_dim(dim, output->ndim, &d, error))
    return false;
  if (grad->ndim != output->ndim ||
      memcmp(grad->sizes, output->sizes, sizeof(int64_t) * (size_t)grad->ndim) != 0) {
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

/* The groups of layer_norm: input's trailing dims must equal normalized_shape; weight and
 * bias, when given, have its shape. *groups x *n elements. */
static bool layer_norm_shapes(const RtTensor *input, const int64_t *shape, int k,
                              const RtTensor *weight, const RtTensor *bias, int64_t *groups,
                              int64_t *n, GError **error) {
  bool ok = k >= 1 && k <= input->ndim;
  for (int i = 0; ok && i < k; i++)
    ok = input->sizes[input->ndim - k + i] == shape[i];
  char want[256], have[256];
  k_shape_text(want, sizeof want, k, shape);
  if (!ok) {
    k_shape_text(have, sizeof have, input->ndim, input->sizes);
    K_ERR_SHAPE(error,
                "Given normalized_shape=%s, expected input with shape [*, %.*s], but got "
                "input of size%s",
                want, (int)strlen(want) - 2, want + 1, have);
    return false;
  }
  const RtTensor *params[2] = {weight, bias};
  for (int p = 0; p < 2; p++) {
    const RtTensor *t = params[p];
    if (t && (t->ndim != k || memcmp(t->sizes, shape, sizeof(int64_t) * (size_t)k) != 0)) {
      k_shape_text(have, sizeof have, t->ndim, t->sizes);
      K_ERR_SHAPE(error,
                  "Expected %s to be of same shape as normalized_shape, but got %s of "
                  "shape %s and normalized_shape = %s",
                  p ? "bias" : "weight", p ? "bias" : "weight", have, want);
      return false;
    }
  }
  *n = 1;
  for (int i = 0; i < k; i++)
    *n *= shape[i];
  *groups = *n > 0 ? rt_tensor_numel(input) / *n : 0;
  return true;
}

/* A float64 copy of an optional tensor argument (NULL for None). */
static bool optional_tensor(const IrSchema *schema, RtValue *args, guint i, RtTensor **out,
                            GError **error) {
  *out = NULL;
  return k_arg_is_none(args, i) || (args[i].tag == RT_TENSOR && args[i].u.tensor == NULL) ||
         k_arg_tensor(schema, args, i, out, error);
}

static const double *f64_data(RtTensor *t, RtTensor **holder) {
  *holder = t ? rt_tensor_to_dtype(t, IR_DTYPE_FLOAT64) : NULL;
  return t ? rt_tensor_data(*holder) : NULL;
}

bool rt_kernel_layer_norm(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                          RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  RtTensor *input, *weight, *bias;
  int64_t shape[RT_MAX_DIMS], groups, n;
  int k;
  KScalar eps;
  if (!k_arg_tensor(schema, args, 0, &input, error) ||
      !k_arg_int_list(schema, args, 1, shape, &k, error) ||
      !optional_tensor(schema, args, 2, &weight, error) ||
      !optional_tensor(schema, args, 3, &bias, error) ||
      !k_arg_scalar(schema, args, 4, &eps, error) ||
      !layer_norm_shapes(input, shape, k, weight, bias, &groups, &n, error))
    return false;
  if (!k_dtype_is_float(input->dtype)) {
    K_ERR_DTYPE(error, "\"LayerNormKernelImpl\" not implemented for '%s'",
                ir_dtype_type_name(input->dtype));
    return false;
  }
  /* native_layer_norm also returns each group's mean and rstd, sized as input with the
   * normalized dims 1. */
  bool native = schema->kind == IR_ATEN_NATIVE_LAYER_NORM;
  int64_t stat_sizes[RT_MAX_DIMS];
  for (int i = 0; i < input->ndim; i++)
    stat_sizes[i] = i < input->ndim - k ? input->sizes[i] : 1;
  RtTensor *mean_t = native ? rt_tensor_new(IR_DTYPE_FLOAT64, input->ndim, stat_sizes) : NULL;
  RtTensor *rstd_t = native ? rt_tensor_new(IR_DTYPE_FLOAT64, input->ndim, stat_sizes) : NULL;
  RtTensor *y = rt_tensor_to_dtype(input, IR_DTYPE_FLOAT64), *wh, *bh;
  const double *w = f64_data(weight, &wh), *b = f64_data(bias, &bh);
  double *x = rt_tensor_data(y);
  for (int64_t gi = 0; gi < groups; gi++) {
    double *v = x + gi * n, mean = 0, var = 0;
    for (int64_t i = 0; i < n; i++)
      mean += v[i];
    mean /= (double)n;
    for (int64_t i = 0; i < n; i++)
      var += (v[i] - mean) * (v[i] - mean);
    double rstd = 1.0 / sqrt(var / (double)n + eps.d);
    for (int64_t i = 0; i < n; i++)
      v[i] = (v[i] - mean) * rstd * (w ? w[i] : 1.0) + (b ? b[i] : 0.0);
    if (native) {
      ((double *)rt_tensor_data(mean_t))[gi] = mean;
      ((double *)rt_tensor_data(rstd_t))[gi] = rstd;
    }
  }
  if (wh)
    rt_tensor_unref(wh);
  if (bh)
    rt_tensor_unref(bh);
  store_as(y, input->dtype, outs);
  if (native) {
    outs[1] = rt_tensor(k_to_dtype(mean_t, input->dtype));
    outs[2] = rt_tensor(k_to_dtype(rstd_t, input->dtype));
    rt_tensor_unref(mean_t);
    rt_tensor_unref(rstd_t);
  }
  return true;
}

bool rt_kernel_layer_norm_backward(const IrSchema *schema, const IrNode *node, RtValue *args,
                                   guint n_args, RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  RtTensor *grad, *input, *mean_t, *rstd_t, *weight, *bias;
  int64_t shape[RT_MAX_DIMS], groups, n;
  int k;
  if (!k_arg_tensor(schema, args, 0, &grad, error) ||
      !k_arg_tensor(schema, args, 1, &input, error) ||
      !k_arg_int_list(schema, args, 2, shape, &k, error) ||
      !k_arg_tensor(schema, args, 3, &mean_t, error) ||
      !k_arg_tensor(schema, args, 4, &rstd_t, error) ||
      !optional_tensor(schema, args, 5, &weight, error) ||
      !optional_tensor(schema, args, 6, &bias, error) ||
      !layer_norm_shapes(input, shape, k, weight, bias, &groups, &n, error))
    return false;
  bool mask[3];
  RtValue m = args[7];
  if ((m.tag != RT_LIST && m.tag != RT_TUPLE) || m.u.seq->len != 3) {
    K_ERR(error, "native_layer_norm_backward(): output_mask must be a list of 3 bools");
    return false;
  }
  for (int i = 0; i < 3; i++) {
    if (m.u.seq->items[i].tag != RT_BOOL) {
      K_ERR(error, "native_layer_norm_backward(): output_mask must be a list of 3 bools");
      return false;
    }
    mask[i] = m.u.seq->items[i].u.b;
  }
  if (rt_tensor_numel(grad) != rt_tensor_numel(input) || rt_tensor_numel(mean_t) != groups ||
      rt_tensor_numel(rstd_t) != groups) {
    K_ERR_SHAPE(error,
                "native_layer_norm_backward(): grad_out, mean and rstd do not match "
                "input's %" G_GINT64_FORMAT " groups of %" G_GINT64_FORMAT,
                groups, n);
    return false;
  }
  RtTensor *gh, *xh, *mh, *rh, *wh;
  const double *g = f64_data(grad, &gh), *x = f64_data(input, &xh), *mu = f64_data(mean_t, &mh);
  const double *rs = f64_data(rstd_t, &rh), *w = f64_data(weight, &wh);
  RtTensor *dx = rt_tensor_new(IR_DTYPE_FLOAT64, input->ndim, input->sizes);
  RtTensor *dw = rt_tensor_zeros(IR_DTYPE_FLOAT64, k, shape);
  RtTensor *db = rt_tensor_zeros(IR_DTYPE_FLOAT64, k, shape);
  double *pdx = rt_tensor_data(dx), *pdw = rt_tensor_data(dw), *pdb = rt_tensor_data(db);
  for (int64_t gi = 0; gi < groups; gi++) {
    const double *gv = g + gi * n, *xv = x + gi * n;
    double sum_dy = 0, sum_dy_xhat = 0;
    for (int64_t i = 0; i < n; i++) {
      double xhat = (xv[i] - mu[gi]) * rs[gi], dy = gv[i] * (w ? w[i] : 1.0);
      sum_dy += dy;
      sum_dy_xhat += dy * xhat;
      pdw[i] += gv[i] * xhat;
      pdb[i] += gv[i];
    }
    for (int64_t i = 0; i < n; i++) {
      double xhat = (xv[i] - mu[gi]) * rs[gi], dy = gv[i] * (w ? w[i] : 1.0);
      pdx[gi * n + i] = rs[gi] * (dy - sum_dy / (double)n - xhat * sum_dy_xhat / (double)n);
    }
  }
  RtTensor *holders[] = {gh, xh, mh, rh, wh};
  for (guint i = 0; i < G_N_ELEMENTS(holders); i++)
    if (holders[i])
      rt_tensor_unref(holders[i]);
  RtTensor *results[3] = {dx, dw, db};
  IrDtype dtypes[3] = {input->dtype, weight ? weight->dtype : input->dtype,
                       bias ? bias->dtype : input->dtype};
  for (int i = 0; i < 3; i++) {
    if (mask[i])
      store_as(results[i], dtypes[i], &outs[i]);
    else {
      rt_tensor_unref(results[i]);
      outs[i] = rt_tensor(NULL);
    }
  }
  return true;
}

bool rt_kernel_gelu(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                    RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  bool backward = schema->kind == IR_ATEN_GELU_BACKWARD;
  RtTensor *self, *grad = NULL;
  guint at = backward ? 1 : 0;
  if ((backward && !k_arg_tensor(schema, args, 0, &grad, error)) ||
      !k_arg_tensor(schema, args, at, &self, error))
    return false;
  RtValue approximate = args[at + 1];
  bool tanh_form = approximate.tag == RT_STR && strcmp(approximate.u.s->text, "tanh") == 0;
  if (approximate.tag != RT_STR || (!tanh_form && strcmp(approximate.u.s->text, "none") != 0)) {
    K_ERR(error, "approximate argument must be either none or tanh.");
    return false;
  }
  if (!k_dtype_is_float(self->dtype)) {
    K_ERR_DTYPE(error, "\"%s\" not implemented for '%s'",
                backward ? "GeluBackwardKernelImpl" : "GeluKernelImpl",
                ir_dtype_type_name(self->dtype));
    return false;
  }
  RtTensor *r = rt_tensor_to_dtype(self, IR_DTYPE_FLOAT64), *gh = NULL;
  if (backward) {
    GError *expand_error = NULL;
    RtTensor *g = rt_tensor_view_expand(grad, self->ndim, self->sizes, &expand_error);
    if (!g || g->ndim != grad->ndim) {
      char gs[256], xs[256];
      k_shape_text(gs, sizeof gs, grad->ndim, grad->sizes);
      k_shape_text(xs, sizeof xs, self->ndim, self->sizes);
      K_ERR_SHAPE(error, "gelu_backward(): grad_output %s and self %s must have the same shape", gs,
                  xs);
      g_clear_error(&expand_error);
      if (g)
        rt_tensor_unref(g);
      rt_tensor_unref(r);
      return false;
    }
    gh = rt_tensor_to_dtype(g, IR_DTYPE_FLOAT64);
    rt_tensor_unref(g);
  }
  double *x = rt_tensor_data(r);
  const double *dy = gh ? rt_tensor_data(gh) : NULL;
  const double beta = M_SQRT2 * M_2_SQRTPI * 0.5, kappa = 0.044715;
  for (int64_t i = 0, n = rt_tensor_numel(r); i < n; i++) {
    double v = x[i];
    if (tanh_form) {
      double t = tanh(beta * (v + kappa * v * v * v));
      x[i] = !backward
                 ? 0.5 * v * (1 + t)
                 : dy[i] * (0.5 * (1 + t) + 0.5 * v * (1 - t * t) * beta * (1 + 3 * kappa * v * v));
    } else {
      double cdf = 0.5 * (1 + erf(v * M_SQRT1_2));
      x[i] = !backward ? v * cdf
                       : dy[i] * (cdf + v * exp(-0.5 * v * v) * M_2_SQRTPI * M_SQRT1_2 * 0.5);
    }
  }
  if (gh)
    rt_tensor_unref(gh);
  store_as(r, self->dtype, outs);
  return true;
}
