/* Loss kernels: rt_kernel_nll_loss (nll_loss, nll_loss_nd, nll_loss_forward,
 * cross_entropy_loss), rt_kernel_nll_loss_backward and rt_kernel_bce_with_logits
 * (binary_cross_entropy_with_logits).
 *
 * Contracts as PyTorch 1.13 (reduction 0 none, 1 mean, 2 sum):
 * - nll_loss(self, target, weight, reduction, ignore_index): self is [C] with a 0-dim target
 *   or [N, C, d1..dk] with an int64 target [N, d1..dk] (nll_loss itself takes 1-D or 2-D self
 *   only; nll_loss_nd any rank). Each element is -weight[t] * self[n, t, ...], 0 where t ==
 *   ignore_index; a t outside [0, C) is an error. The mean divides the sum by the total
 *   weight of the kept targets (NaN when every target is ignored, as PyTorch's 0 / 0).
 *   nll_loss_forward returns (loss, total_weight); like nll_loss_backward below it takes the
 *   ranks nll_loss_nd takes, since the engine's gradient of nll_loss_nd calls both directly.
 * - cross_entropy_loss: nll_loss of log_softmax(self) over the class dim (dim 1, or 0 for a
 *   1-D self); label_smoothing other than 0 and class-probability (float) targets are refused.
 * - nll_loss_backward(grad_output, self, target, weight, reduction, ignore_index,
 *   total_weight): zeros of self's shape with -weight[t] * grad at each kept target (grad per
 *   element for none, divided by total_weight for the mean).
 * - binary_cross_entropy_with_logits(self, target, weight, pos_weight, reduction):
 *   (1 - t) x + (1 + (pw - 1) t) * (log1p(exp(-|x|)) + max(-x, 0)), times weight; target has
 *   self's shape, weight and pos_weight broadcast to it.
 * Everything is computed in double and stored in self's dtype. */
#include "runtime/kernels.h"
#include "runtime/kernels_internal.h"

#include <math.h>

/* self viewed as [n, c, s] and target as [n, s], with their values as contiguous arrays. */
typedef struct {
  int64_t n, c, s;
  RtTensor *x;      /* float64, contiguous */
  RtTensor *target; /* int64, contiguous */
  RtTensor *weight; /* float64 [c], or NULL */
} NllArgs;

static void nll_args_clear(NllArgs *a) {
  if (a->x)
    rt_tensor_unref(a->x);
  if (a->target)
    rt_tensor_unref(a->target);
  if (a->weight)
    rt_tensor_unref(a->weight);
}

/* Checks self, target and weight against each other (PyTorch's messages) and fills a. */
static bool nll_args_read(const IrSchema *schema, RtTensor *self, RtTensor *target,
                          RtTensor *weight, bool any_rank, NllArgs *a, GError **error) {
  const char *name = k_op_short_name(schema);
  if (!k_dtype_is_float(self->dtype)) {
    K_ERR_DTYPE(error, "%s(): expected a floating point input, but got %s", name,
                k_dtype_c10_name(self->dtype));
    return false;
  }
  if (target->dtype == IR_DTYPE_FLOAT32 || target->dtype == IR_DTYPE_FLOAT64) {
    K_ERR_DTYPE(error,
                "%s(): class-probability (floating point) targets are not supported; "
                "pass int64 class indices",
                name);
    return false;
  }
  if (target->dtype != IR_DTYPE_INT64) {
    K_ERR_DTYPE(error, "expected scalar type Long but found %s", k_dtype_c10_name(target->dtype));
    return false;
  }
  if (self->ndim < 1 || (!any_rank && self->ndim > 2)) {
    K_ERR_SHAPE(error, "%s(): 1D or 2D input expected, got %dD", name, self->ndim);
    return false;
  }
  bool batched = self->ndim >= 2;
  a->n = batched ? self->sizes[0] : 1;
  a->c = self->sizes[batched ? 1 : 0];
  a->s = 1;
  bool shapes_match = target->ndim == (batched ? self->ndim - 1 : 0);
  for (int k = 2; k < self->ndim; k++) {
    a->s *= self->sizes[k];
    shapes_match = shapes_match && target->sizes[k - 1] == self->sizes[k];
  }
  if (batched && shapes_match)
    shapes_match = target->sizes[0] == a->n;
  if (!shapes_match) {
    char s[128], t[128];
    k_shape_text(s, sizeof s, self->ndim, self->sizes);
    k_shape_text(t, sizeof t, target->ndim, target->sizes);
    K_ERR_SHAPE(error, "%s(): size mismatch (got input: %s, target: %s)", name, s, t);
    return false;
  }
  if (weight && rt_tensor_numel(weight) != a->c) {
    char w[128];
    k_shape_text(w, sizeof w, weight->ndim, weight->sizes);
    K_ERR_SHAPE(error,
                "weight tensor should be defined either for all %" G_GINT64_FORMAT
                " classes or no classes but got weight tensor of shape: %s",
                a->c, w);
    return false;
  }
  a->x = rt_tensor_to_dtype(self, IR_DTYPE_FLOAT64);
  a->target = rt_tensor_contiguous(target);
  a->weight = weight ? rt_tensor_to_dtype(weight, IR_DTYPE_FLOAT64) : NULL;
  return true;
}

static bool read_reduction(RtValue *args, const IrSchema *schema, guint i, gint64 *out,
                           GError **error) {
  if (!k_arg_int(schema, args, i, out, error))
    return false;
  if (*out < 0 || *out > 2) {
    K_ERR(error, "%" G_GINT64_FORMAT " is not a valid value for reduction", *out);
    return false;
  }
  return true;
}

/* The optional weight at args[i]: NULL for None. */
static bool read_weight(const IrSchema *schema, RtValue *args, guint i, RtTensor **out,
                        GError **error) {
  *out = NULL;
  return k_arg_is_none(args, i) || (args[i].tag == RT_TENSOR && args[i].u.tensor == NULL) ||
         k_arg_tensor(schema, args, i, out, error);
}

/* Replaces x (as [n, c, s]) by its log_softmax over c. */
static void log_softmax_classes(NllArgs *a) {
  double *x = rt_tensor_data(a->x);
  for (int64_t i = 0; i < a->n; i++)
    for (int64_t k = 0; k < a->s; k++) {
      double *p = x + i * a->c * a->s + k;
      double max = -INFINITY, sum = 0;
      for (int64_t j = 0; j < a->c; j++)
        max = p[j * a->s] > max || isnan(p[j * a->s]) ? p[j * a->s] : max;
      for (int64_t j = 0; j < a->c; j++)
        sum += exp(p[j * a->s] - max);
      for (int64_t j = 0; j < a->c; j++)
        p[j * a->s] = p[j * a->s] - max - log(sum);
    }
}

/* The weight of each target (0 where ignored) into w[n * s]; their sum into *total. */
static bool target_weights(const NllArgs *a, gint64 ignore_index, double *w, double *total,
                           GError **error) {
  const gint64 *t = rt_tensor_data(a->target);
  const double *cw = a->weight ? rt_tensor_data(a->weight) : NULL;
  *total = 0;
  for (int64_t i = 0; i < a->n * a->s; i++) {
    if (t[i] == ignore_index) {
      w[i] = 0;
      continue;
    }
    if (t[i] < 0 || t[i] >= a->c) {
      K_ERR(error, "Target %" G_GINT64_FORMAT " is out of bounds.", t[i]);
      return false;
    }
    w[i] = cw ? cw[t[i]] : 1;
    *total += w[i];
  }
  return true;
}

bool rt_kernel_nll_loss(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                        RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  RtTensor *self, *target, *weight;
  gint64 reduction, ignore_index;
  if (!k_arg_tensor(schema, args, 0, &self, error) ||
      !k_arg_tensor(schema, args, 1, &target, error) ||
      !read_weight(schema, args, 2, &weight, error) ||
      !read_reduction(args, schema, 3, &reduction, error) ||
      !k_arg_int(schema, args, 4, &ignore_index, error))
    return false;
  bool cross_entropy = schema->kind == IR_ATEN_CROSS_ENTROPY_LOSS;
  if (cross_entropy) {
    KScalar smoothing;
    if (!k_arg_scalar(schema, args, 5, &smoothing, error))
      return false;
    if (smoothing.d != 0) {
      K_ERR(error, "cross_entropy_loss(): label_smoothing %g is not supported (only 0)",
            smoothing.d);
      return false;
    }
  }
  NllArgs a = {0};
  bool any_rank = schema->kind != IR_ATEN_NLL_LOSS;
  if (!nll_args_read(schema, self, target, weight, any_rank, &a, error)) {
    nll_args_clear(&a);
    return false;
  }
  if (cross_entropy)
    log_softmax_classes(&a);
  RtTensor *loss = rt_tensor_new(IR_DTYPE_FLOAT64, target->ndim, target->sizes);
  double *l = rt_tensor_data(loss), total;
  if (!target_weights(&a, ignore_index, l, &total, error)) {
    rt_tensor_unref(loss);
    nll_args_clear(&a);
    return false;
  }
  const double *x = rt_tensor_data(a.x);
  const gint64 *t = rt_tensor_data(a.target);
  double sum = 0;
  for (int64_t i = 0; i < a.n; i++)
    for (int64_t k = 0; k < a.s; k++) {
      int64_t e = i * a.s + k;
      if (t[e] != ignore_index)
        l[e] = -l[e] * x[(i * a.c + t[e]) * a.s + k];
      sum += l[e];
    }
  nll_args_clear(&a);
  if (reduction != 0) {
    rt_tensor_unref(loss);
    loss = rt_tensor_scalar(IR_DTYPE_FLOAT64, reduction == 1 ? sum / total : sum);
  }
  outs[0] = rt_tensor(k_to_dtype(loss, self->dtype));
  rt_tensor_unref(loss);
  if (n_outs > 1)
    outs[1] = rt_tensor(rt_tensor_scalar(self->dtype, total));
  return true;
}

bool rt_kernel_nll_loss_backward(const IrSchema *schema, const IrNode *node, RtValue *args,
                                 guint n_args, RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  RtTensor *grad, *self, *target, *weight, *total_weight;
  gint64 reduction, ignore_index;
  if (!k_arg_tensor(schema, args, 0, &grad, error) ||
      !k_arg_tensor(schema, args, 1, &self, error) ||
      !k_arg_tensor(schema, args, 2, &target, error) ||
      !read_weight(schema, args, 3, &weight, error) ||
      !read_reduction(args, schema, 4, &reduction, error) ||
      !k_arg_int(schema, args, 5, &ignore_index, error) ||
      !k_arg_tensor(schema, args, 6, &total_weight, error))
    return false;
  if (rt_tensor_numel(total_weight) != 1) {
    K_ERR_SHAPE(error, "nll_loss_backward(): expected total_weight to be a single element tensor");
    return false;
  }
  NllArgs a = {0};
  if (!nll_args_read(schema, self, target, weight, true, &a, error)) {
    nll_args_clear(&a);
    return false;
  }
  int64_t n_targets = a.n * a.s;
  if (rt_tensor_numel(grad) != (reduction == 0 ? n_targets : 1)) {
    K_ERR_SHAPE(error,
                "nll_loss_backward(): grad_output has %" G_GINT64_FORMAT
                " elements, expected %" G_GINT64_FORMAT,
                rt_tensor_numel(grad), reduction == 0 ? n_targets : (int64_t)1);
    nll_args_clear(&a);
    return false;
  }
  double *w = g_new(double, n_targets + 1), total;
  if (!target_weights(&a, ignore_index, w, &total, error)) {
    g_free(w);
    nll_args_clear(&a);
    return false;
  }
  RtTensor *g64 = rt_tensor_to_dtype(grad, IR_DTYPE_FLOAT64);
  const double *g = rt_tensor_data(g64);
  double scale = reduction == 1 ? 1 / rt_tensor_get(total_weight, 0) : 1;
  RtTensor *acc = rt_tensor_zeros(IR_DTYPE_FLOAT64, self->ndim, self->sizes);
  double *r = rt_tensor_data(acc);
  const gint64 *t = rt_tensor_data(a.target);
  for (int64_t i = 0; i < a.n; i++)
    for (int64_t k = 0; k < a.s; k++) {
      int64_t e = i * a.s + k;
      if (t[e] != ignore_index)
        r[(i * a.c + t[e]) * a.s + k] = -w[e] * g[reduction == 0 ? e : 0] * scale;
    }
  rt_tensor_unref(g64);
  g_free(w);
  nll_args_clear(&a);
  outs[0] = rt_tensor(k_to_dtype(acc, self->dtype));
  rt_tensor_unref(acc);
  return true;
}

/* An optional tensor of binary_cross_entropy_with_logits, as float64 broadcast to shape
 * (NULL for None). */
static bool bce_operand(const IrSchema *schema, RtValue *args, guint i, const RtTensor *self,
                        RtTensor **out, GError **error) {
  RtTensor *t;
  *out = NULL;
  if (!read_weight(schema, args, i, &t, error))
    return false;
  if (!t)
    return true;
  RtTensor *wide = rt_tensor_view_expand(t, self->ndim, self->sizes, NULL);
  if (!wide) {
    char a[128], b[128];
    k_shape_text(a, sizeof a, t->ndim, t->sizes);
    k_shape_text(b, sizeof b, self->ndim, self->sizes);
    K_ERR_SHAPE(error,
                "binary_cross_entropy_with_logits(): %s of shape %s does not broadcast "
                "to the input's shape %s",
                schema->args[i].name, a, b);
    return false;
  }
  *out = rt_tensor_to_dtype(wide, IR_DTYPE_FLOAT64);
  rt_tensor_unref(wide);
  return true;
}

bool rt_kernel_bce_with_logits(const IrSchema *schema, const IrNode *node, RtValue *args,
                               guint n_args, RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  RtTensor *self, *target, *weight = NULL, *pos_weight = NULL;
  gint64 reduction;
  if (!k_arg_tensor(schema, args, 0, &self, error) ||
      !k_arg_tensor(schema, args, 1, &target, error) ||
      !read_reduction(args, schema, 4, &reduction, error))
    return false;
  if (!k_dtype_is_float(self->dtype)) {
    K_ERR_DTYPE(error,
                "binary_cross_entropy_with_logits(): expected a floating point input, "
                "but got %s",
                k_dtype_c10_name(self->dtype));
    return false;
  }
  bool same = target->ndim == self->ndim;
  for (int k = 0; same && k < self->ndim; k++)
    same = target->sizes[k] == self->sizes[k];
  if (!same) {
    char a[128], b[128];
    k_shape_text(a, sizeof a, target->ndim, target->sizes);
    k_shape_text(b, sizeof b, self->ndim, self->sizes);
    K_ERR_SHAPE(error, "Target size (%s) must be the same as input size (%s)", a, b);
    return false;
  }
  if (!bce_operand(schema, args, 2, self, &weight, error) ||
      !bce_operand(schema, args, 3, self, &pos_weight, error)) {
    if (weight)
      rt_tensor_unref(weight);
    return false;
  }
  RtTensor *l = rt_tensor_to_dtype(self, IR_DTYPE_FLOAT64);
  RtTensor *t64 = rt_tensor_to_dtype(target, IR_DTYPE_FLOAT64);
  double *x = rt_tensor_data(l);
  const double *t = rt_tensor_data(t64);
  const double *w = weight ? rt_tensor_data(weight) : NULL;
  const double *pw = pos_weight ? rt_tensor_data(pos_weight) : NULL;
  int64_t n = rt_tensor_numel(l);
  double sum = 0;
  for (int64_t i = 0; i < n; i++) {
    /* log(1 + exp(-x)) written so that it never overflows, as PyTorch's formula */
    double log_sig = log1p(exp(-fabs(x[i]))) + fmax(-x[i], 0);
    double scale = pw ? 1 + (pw[i] - 1) * t[i] : 1;
    x[i] = ((1 - t[i]) * x[i] + scale * log_sig) * (w ? w[i] : 1);
    sum += x[i];
  }
  rt_tensor_unref(t64);
  if (weight)
    rt_tensor_unref(weight);
  if (pos_weight)
    rt_tensor_unref(pos_weight);
  if (reduction != 0) {
    rt_tensor_unref(l);
    l = rt_tensor_scalar(IR_DTYPE_FLOAT64, reduction == 1 ? sum / (double)n : sum);
  }
  outs[0] = rt_tensor(k_to_dtype(l, self->dtype));
  rt_tensor_unref(l);
  return true;
}
