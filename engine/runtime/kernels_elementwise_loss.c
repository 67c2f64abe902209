/* rt_kernel_elementwise_loss: the losses that are one value per element of self and target
 * (broadcast together), then reduced: mse_loss, l1_loss, smooth_l1_loss, huber_loss,
 * soft_margin_loss, binary_cross_entropy, kl_div.
 *
 * Contracts as PyTorch 1.13 (reduction 0 none, 1 mean over the elements, 2 sum; the mean of no
 * elements is NaN):
 * - mse_loss (x - y)^2; l1_loss |x - y|.
 * - smooth_l1_loss(beta): z = |x - y|, z < beta ? 0.5 z^2 / beta : z - 0.5 beta; beta < 0 is an
 *   error. huber_loss(delta): z < delta ? 0.5 z^2 : delta (z - 0.5 delta); delta <= 0 is an
 *   error.
 * - soft_margin_loss: log1p(exp(-x y)), computed in self's precision as PyTorch's composite is
 *   (exp(-x y) overflows a float32 from 89 on: the loss is inf there, not x y).
 * - binary_cross_entropy(weight): (y - 1) max(log1p(-x), -100) - y max(log(x), -100), times the
 *   weight broadcast to it; every x must lie in [0, 1] (a NaN does not).
 * - kl_div(log_target): xlogy(y, y) - y x, or exp(y) (y - x) with log_target.
 * Floating point only; the result has the operands' promoted dtype (binary_cross_entropy:
 * self's). Elements are computed in double (soft_margin_loss excepted) and stored in that
 * dtype. */
#include "runtime/kernels.h"
#include "runtime/kernels_internal.h"

#include <math.h>

typedef enum { LOSS_MSE, LOSS_L1, LOSS_SMOOTH_L1, LOSS_HUBER, LOSS_SOFT_MARGIN, LOSS_BCE, LOSS_KL } LossKind;

typedef struct {
  LossKind kind;
  double param;     /* beta, delta */
  bool log_target;  /* kl_div */
  bool single;      /* soft_margin_loss on float32: computed in float */
} Loss;

/* The element's loss; false (with *error) for a binary_cross_entropy input outside [0, 1]. */
static bool element_loss(const Loss *l, double x, double y, double *out, GError **error) {
  switch (l->kind) {
  case LOSS_MSE: *out = (x - y) * (x - y); return true;
  case LOSS_L1: *out = fabs(x - y); return true;
  case LOSS_SMOOTH_L1: {
    double z = fabs(x - y);
    *out = z < l->param ? 0.5 * z * z / l->param : z - 0.5 * l->param;
    return true;
  }
  case LOSS_HUBER: {
    double z = fabs(x - y);
    *out = z < l->param ? 0.5 * z * z : l->param * (z - 0.5 * l->param);
    return true;
  }
  case LOSS_SOFT_MARGIN:
    *out = l->single ? (double)log1pf(expf(-(float)x * (float)y)) : log1p(exp(-x * y));
    return true;
  case LOSS_BCE:
    if (!(x >= 0 && x <= 1)) {
      K_ERR(error, "all elements of input should be between 0 and 1");
      return false;
    }
    *out = (y - 1) * fmax(log1p(-x), -100) - y * fmax(log(x), -100);
    return true;
  case LOSS_KL:
    if (l->log_target)
      *out = exp(y) * (y - x);
    else
      *out = (y != y ? y : (y == 0 ? 0 : y * log(y))) - y * x;
    return true;
  }
  return false;
}

/* The loss's own arguments after self and target (PyTorch's checks on them); its name. */
static bool read_loss(const IrSchema *schema, RtValue *args, Loss *l, guint *reduction_at,
                      RtTensor **weight, GError **error) {
  *l = (Loss){0};
  *reduction_at = 2;
  *weight = NULL;
  KScalar param = {0};
  switch ((IrOpKind)schema->kind) {
  case IR_ATEN_MSE_LOSS: l->kind = LOSS_MSE; return true;
  case IR_ATEN_L1_LOSS: l->kind = LOSS_L1; return true;
  case IR_ATEN_SOFT_MARGIN_LOSS: l->kind = LOSS_SOFT_MARGIN; return true;
  case IR_ATEN_SMOOTH_L1_LOSS:
  case IR_ATEN_HUBER_LOSS: {
    bool smooth = schema->kind == IR_ATEN_SMOOTH_L1_LOSS;
    l->kind = smooth ? LOSS_SMOOTH_L1 : LOSS_HUBER;
    if (!k_arg_scalar(schema, args, 3, &param, error))
      return false;
    l->param = param.d;
    if (smooth ? l->param < 0 : l->param <= 0) {
      K_ERR(error, smooth ? "smooth_l1_loss does not support negative values for beta."
                          : "huber_loss does not support non-positive values for delta.");
      return false;
    }
    return true;
  }
  case IR_ATEN_BINARY_CROSS_ENTROPY:
    l->kind = LOSS_BCE;
    *reduction_at = 3;
    return k_arg_is_none(args, 2) || (args[2].tag == RT_TENSOR && args[2].u.tensor == NULL) ||
           k_arg_tensor(schema, args, 2, weight, error);
  case IR_ATEN_KL_DIV: l->kind = LOSS_KL; return k_arg_bool(schema, args, 3, &l->log_target, error);
  default:
    K_INVARIANT(false, "rt_kernel_elementwise_loss serves only the elementwise losses");
    return false;
  }
}

/* PyTorch's dtype-check names. */
static const char *dtype_check_name(LossKind kind) {
  switch (kind) {
  case LOSS_MSE: return "mse_cpu";
  case LOSS_L1: return "abs_cpu";
  case LOSS_SMOOTH_L1: return "smooth_l1_cpu";
  case LOSS_HUBER: return "huber_cpu";
  case LOSS_BCE: return "binary_cross_entropy";
  case LOSS_SOFT_MARGIN:
  case LOSS_KL: break;
  }
  return "exp_vml_cpu";
}

bool rt_kernel_elementwise_loss(const IrSchema *schema, const IrNode *node, RtValue *args,
                                guint n_args, RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  RtTensor *self, *target, *weight;
  gint64 reduction;
  int nd;
  int64_t shape[RT_MAX_DIMS];
  Loss l;
  guint reduction_at;
  if (!k_arg_tensor(schema, args, 0, &self, error) ||
      !k_arg_tensor(schema, args, 1, &target, error) ||
      !read_loss(schema, args, &l, &reduction_at, &weight, error) ||
      !k_arg_int(schema, args, reduction_at, &reduction, error) ||
      !k_broadcast(self->ndim, self->sizes, target->ndim, target->sizes, &nd, shape, error) ||
      (weight && !k_broadcast(nd, shape, weight->ndim, weight->sizes, &nd, shape, error)))
    return false;
  if (reduction < 0 || reduction > 2) {
    K_ERR(error, "%" G_GINT64_FORMAT " is not a valid value for reduction", reduction);
    return false;
  }
  IrDtype dtype = l.kind == LOSS_BCE ? self->dtype : k_promote(self->dtype, target->dtype);
  if (!k_dtype_is_float(dtype)) {
    K_ERR_DTYPE(error, "\"%s\" not implemented for '%s'", dtype_check_name(l.kind),
                ir_dtype_type_name(dtype));
    return false;
  }
  l.single = dtype == IR_DTYPE_FLOAT32;
  RtTensor *operands[3] = {self, target, weight};
  RtTensor *values[3] = {NULL, NULL, NULL};
  for (int k = 0; k < 3 && operands[k]; k++) {
    RtTensor *expanded = rt_tensor_view_expand(operands[k], nd, shape, NULL);
    K_INVARIANT(expanded, "operands broadcast to their broadcast shape");
    values[k] = rt_tensor_to_dtype(expanded, IR_DTYPE_FLOAT64);
    rt_tensor_unref(expanded);
  }
  double *x = rt_tensor_data(values[0]);
  const double *y = rt_tensor_data(values[1]), *w = weight ? rt_tensor_data(values[2]) : NULL;
  int64_t n = rt_tensor_numel(values[0]);
  double total = 0;
  bool ok = true;
  for (int64_t i = 0; i < n && ok; i++) {
    ok = element_loss(&l, x[i], y[i], &x[i], error);
    if (w)
      x[i] *= w[i];
    total += x[i];
  }
  rt_tensor_unref(values[1]);
  if (values[2])
    rt_tensor_unref(values[2]);
  RtTensor *result = values[0];
  if (ok && reduction != 0) {
    rt_tensor_unref(result);
    result = rt_tensor_scalar(IR_DTYPE_FLOAT64, reduction == 1 ? total / (double)n : total);
  }
  if (ok)
    outs[0] = rt_tensor(k_to_dtype(result, dtype));
  rt_tensor_unref(result);
  return ok;
}
