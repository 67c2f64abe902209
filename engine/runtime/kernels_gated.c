/* Activations gated by a second operand along one dim: rt_kernel_prelu (prelu, prelu_backward)
 * and rt_kernel_glu (glu, glu_backward).
 *
 * Contracts, as PyTorch 1.13's CPU kernels:
 * - prelu(self, weight): self where it is > 0, else weight * self, weight holding one value
 *   or one per channel (dim 1 of self; a 1-D self has one channel); weight at most 1-D.
 *   prelu_backward(grad, self, weight) gives (grad where self > 0 else weight * grad, and
 *   for weight the sum of self * grad where self <= 0 over everything but the channel). A
 *   NaN in self is not > 0: its results are NaN as PyTorch's.
 * - glu(self, dim): self's halves a and b along dim (its size even), a * sigmoid(b);
 *   glu_backward(grad, self, dim): (grad sigmoid(b), grad a sigmoid(b) (1 - sigmoid(b)))
 *   concatenated along dim.
 * - Floating dtypes only; computed in float64 and stored in self's dtype. */
#include "runtime/kernels.h"
#include "runtime/kernels_internal.h"

#include <math.h>
#include <string.h>

/* self's dtype must be floating (PyTorch names its kernel in the error). */
static bool floating(const RtTensor *t, const char *kernel, GError **error) {
  if (k_dtype_is_float(t->dtype))
    return true;
  K_ERR_DTYPE(error, "\"%s\" not implemented for '%s'", kernel, ir_dtype_type_name(t->dtype));
  return false;
}

/* A float64 contiguous copy of t, in a new tensor the caller drops. */
static RtTensor *as_doubles(const RtTensor *t, const double **data) {
  RtTensor *d = rt_tensor_to_dtype(t, IR_DTYPE_FLOAT64);
  *data = rt_tensor_data(d);
  return d;
}

/* r (float64) stored into *out in dtype; r's reference is taken. */
static void store_as(RtTensor *r, IrDtype dtype, RtValue *out) {
  *out = rt_tensor(k_to_dtype(r, dtype));
  rt_tensor_unref(r);
}

/* ---- prelu ---- */

/* The channel of each element: self viewed as [outer, channels, inner]. */
typedef struct {
  int64_t outer, channels, inner;
} PreluGeom;

static bool prelu_geometry(const IrSchema *schema, const RtTensor *self, const RtTensor *weight,
                           PreluGeom *g, GError **error) {
  const char *op = k_op_short_name(schema);
  if (weight->ndim > 1) {
    K_ERR_SHAPE(error, "%s: Expected `weight` to be a scalar or 1D tensor, but got ndim = %d",
                op, weight->ndim);
    return false;
  }
  int64_t weights = rt_tensor_numel(weight);
  g->channels = self->ndim > 1 ? self->sizes[1] : 1;
  if (weights != 1) {
    if (self->ndim == 0) {
      K_ERR_SHAPE(error, "%s: Not allow zero-dim input tensor.", op);
      return false;
    }
    if (weights != g->channels) {
      K_ERR_SHAPE(error,
                  "%s: Mismatch of parameter numbers and input channel size. Found parameter "
                  "numbers = %" G_GINT64_FORMAT " and channel size = %" G_GINT64_FORMAT ".",
                  op, weights, g->channels);
      return false;
    }
  } else {
    g->channels = 1; /* one weight for every element */
  }
  g->outer = self->ndim > 1 && weights != 1 ? self->sizes[0] : 1;
  int64_t numel = rt_tensor_numel(self);
  g->inner = g->outer * g->channels > 0 ? numel / (g->outer * g->channels) : 0;
  return true;
}

static bool prelu_forward(const IrSchema *schema, RtValue *args, RtValue *outs, GError **error) {
  RtTensor *self, *weight;
  PreluGeom g;
  if (!k_arg_tensor(schema, args, 0, &self, error) ||
      !k_arg_tensor(schema, args, 1, &weight, error) || !floating(self, "prelu_cpu", error) ||
      !prelu_geometry(schema, self, weight, &g, error))
    return false;
  RtTensor *y = rt_tensor_new_checked(IR_DTYPE_FLOAT64, self->ndim, self->sizes, error);
  if (!y)
    return false;
  const double *x, *w;
  RtTensor *xd = as_doubles(self, &x), *wd = as_doubles(weight, &w);
  double *out = rt_tensor_data(y);
  for (int64_t o = 0; o < g.outer; o++)
    for (int64_t c = 0; c < g.channels; c++)
      for (int64_t i = 0; i < g.inner; i++) {
        int64_t at = (o * g.channels + c) * g.inner + i;
        out[at] = x[at] > 0 ? x[at] : w[c] * x[at];
      }
  rt_tensor_unref(xd);
  rt_tensor_unref(wd);
  store_as(y, self->dtype, &outs[0]);
  return true;
}

static bool prelu_backward(const IrSchema *schema, RtValue *args, RtValue *outs,
                           GError **error) {
  RtTensor *grad, *self, *weight;
  PreluGeom g;
  if (!k_arg_tensor(schema, args, 0, &grad, error) ||
      !k_arg_tensor(schema, args, 1, &self, error) ||
      !k_arg_tensor(schema, args, 2, &weight, error) || !floating(self, "prelu_cpu", error) ||
      !prelu_geometry(schema, self, weight, &g, error))
    return false;
  if (grad->ndim != self->ndim ||
      memcmp(grad->sizes, self->sizes, sizeof(int64_t) * (size_t)self->ndim) != 0) {
    K_ERR_SHAPE(error, "%s: grad_output and self must have the same size",
                k_op_short_name(schema));
    return false;
  }
  RtTensor *dx = rt_tensor_new_checked(IR_DTYPE_FLOAT64, self->ndim, self->sizes, error);
  if (!dx)
    return false;
  RtTensor *dw = rt_tensor_zeros(IR_DTYPE_FLOAT64, weight->ndim, weight->sizes);
  const double *x, *w, *go;
  RtTensor *xd = as_doubles(self, &x), *wd = as_doubles(weight, &w), *gd = as_doubles(grad, &go);
  double *pdx = rt_tensor_data(dx), *pdw = rt_tensor_data(dw);
  for (int64_t o = 0; o < g.outer; o++)
    for (int64_t c = 0; c < g.channels; c++)
      for (int64_t i = 0; i < g.inner; i++) {
        int64_t at = (o * g.channels + c) * g.inner + i;
        bool positive = x[at] > 0;
        pdx[at] = positive ? go[at] : w[c] * go[at];
        pdw[c] += positive ? 0 : x[at] * go[at];
      }
  rt_tensor_unref(xd);
  rt_tensor_unref(wd);
  rt_tensor_unref(gd);
  store_as(dx, self->dtype, &outs[0]);
  store_as(dw, weight->dtype, &outs[1]);
  return true;
}

bool rt_kernel_prelu(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                     RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  return schema->kind == IR_ATEN_PRELU ? prelu_forward(schema, args, outs, error)
                                       : prelu_backward(schema, args, outs, error);
}

/* ---- glu ---- */

/* self viewed as [outer, 2 half, inner] along the halved dim. */
typedef struct {
  int dim;
  int64_t outer, half, inner;
} GluGeom;

static bool glu_geometry(const IrSchema *schema, const RtTensor *self, gint64 dim, GluGeom *g,
                         GError **error) {
  if (self->ndim == 0) {
    K_ERR_SHAPE(error, "%s: glu does not support scalars because halving size must be even",
                k_op_short_name(schema));
    return false;
  }
  if (!k_wrap_dim(dim, self->ndim, &g->dim, error))
    return false;
  int64_t size = self->sizes[g->dim];
  if (size % 2 != 0) {
    K_ERR_SHAPE(error,
                "%s: Halving dimension must be even, but dimension %d is size %" G_GINT64_FORMAT,
                k_op_short_name(schema), g->dim, size);
    return false;
  }
  g->half = size / 2;
  g->outer = 1;
  g->inner = 1;
  for (int d = 0; d < g->dim; d++)
    g->outer *= self->sizes[d];
  for (int d = g->dim + 1; d < self->ndim; d++)
    g->inner *= self->sizes[d];
  return true;
}

static double sigmoid(double v) {
  return 1 / (1 + exp(-v));
}

bool rt_kernel_glu(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                   RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  bool backward = schema->kind == IR_ATEN_GLU_BACKWARD;
  RtTensor *self, *grad = NULL;
  gint64 dim;
  GluGeom g;
  guint at = backward ? 1 : 0;
  if ((backward && !k_arg_tensor(schema, args, 0, &grad, error)) ||
      !k_arg_tensor(schema, args, at, &self, error) ||
      !k_arg_int(schema, args, at + 1, &dim, error) || !floating(self, "glu", error) ||
      !glu_geometry(schema, self, dim, &g, error))
    return false;
  int64_t half_sizes[RT_MAX_DIMS]; /* glu's result's, and so its gradient's */
  memcpy(half_sizes, self->sizes, sizeof(int64_t) * (size_t)self->ndim);
  half_sizes[g.dim] = g.half;
  if (backward && (grad->ndim != self->ndim ||
                   memcmp(grad->sizes, half_sizes, sizeof(int64_t) * (size_t)self->ndim) != 0)) {
    K_ERR_SHAPE(error, "%s: grad_output must have the size of glu's result",
                k_op_short_name(schema));
    return false;
  }
  const int64_t *sizes = backward ? self->sizes : half_sizes;
  RtTensor *y = rt_tensor_new_checked(IR_DTYPE_FLOAT64, self->ndim, sizes, error);
  if (!y)
    return false;
  const double *x, *go = NULL;
  RtTensor *xd = as_doubles(self, &x), *gd = backward ? as_doubles(grad, &go) : NULL;
  double *out = rt_tensor_data(y);
  for (int64_t o = 0; o < g.outer; o++)
    for (int64_t h = 0; h < g.half; h++)
      for (int64_t i = 0; i < g.inner; i++) {
        int64_t a_at = (o * 2 * g.half + h) * g.inner + i, b_at = a_at + g.half * g.inner;
        int64_t r_at = (o * g.half + h) * g.inner + i;
        double s = sigmoid(x[b_at]);
        if (!backward) {
          out[r_at] = x[a_at] * s;
          continue;
        }
        out[a_at] = go[r_at] * s;
        out[b_at] = go[r_at] * x[a_at] * s * (1 - s);
      }
  rt_tensor_unref(xd);
  if (gd)
    rt_tensor_unref(gd);
  store_as(y, self->dtype, &outs[0]);
  return true;
}
