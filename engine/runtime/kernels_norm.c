/* Normalization over channels: rt_kernel_batch_norm, rt_kernel_batch_norm_backward
 * (native_batch_norm_backward), rt_kernel_group_norm (group_norm, native_group_norm),
 * rt_kernel_group_norm_backward (native_group_norm_backward) and rt_kernel_instance_norm.
 *
 * Contracts as PyTorch 1.13:
 * - input is [N, C, *]; weight, bias, running_mean and running_var, when given, have C
 *   elements.
 * - batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
 *   cudnn_enabled): with training, each channel is normalized by its mean and biased
 *   variance over N and *, and running_mean / running_var (when given) are updated in place
 *   to (1 - momentum) * running + momentum * batch statistic (the variance unbiased), as
 *   PyTorch's; without training the running statistics normalize and must be given.
 * - native_batch_norm_backward(grad_out, input, weight, running_mean, running_var, save_mean,
 *   save_invstd, train, eps, output_mask): PyTorch's batch_norm_backward_cpu; save_mean and
 *   save_invstd may be None, and are then computed from input (train) as the forward did.
 * - group_norm(input, num_groups, weight, bias, eps): each sample's channels split into
 *   num_groups groups (C divisible by it), each normalized by its mean and biased variance,
 *   then per-channel weight and bias; native_group_norm(input, weight, bias, N, C, HxW, group,
 *   eps) also returns the mean and rstd = 1 / sqrt(var + eps), shaped [N, group].
 * - native_group_norm_backward(grad_out, input, mean, rstd, weight, N, C, HxW, group,
 *   output_mask): the gradients of input, weight and bias where output_mask asks.
 * - instance_norm: batch_norm of input seen as [1, N * C, *] (rt_kernel_instance_norm).
 * Statistics and results are computed in float64 and stored in input's dtype. */
#include "runtime/kernels.h"
#include "runtime/kernels_internal.h"

#include <math.h>
#include <string.h>

/* input seen as [n, c, s] (s the product of the dims after the channels). */
typedef struct {
  int64_t n, c, s;
} NormShape;

static bool norm_input(const IrSchema *schema, const RtTensor *input, NormShape *shape,
                       GError **error) {
  if (input->ndim < 2) {
    char have[256];
    k_shape_text(have, sizeof have, input->ndim, input->sizes);
    K_ERR_SHAPE(error,
                "%s(): expected an input with at least 2 dims [N, C, *], but got input "
                "of size %s",
                k_op_short_name(schema), have);
    return false;
  }
  if (!k_dtype_is_float(input->dtype)) {
    K_ERR_DTYPE(error, "\"%s\" not implemented for '%s'", k_op_short_name(schema),
                ir_dtype_type_name(input->dtype));
    return false;
  }
  shape->n = input->sizes[0];
  shape->c = input->sizes[1];
  shape->s = 1;
  for (int d = 2; d < input->ndim; d++)
    shape->s *= input->sizes[d];
  /* The kernels keep up to four doubles per channel: an input without elements does not
   * bound its channel count by what memory holds. */
  return rt_memory_check(4 * sizeof(double) * ((guint64)shape->c + 1), error);
}

/* An optional per-channel tensor argument (NULL for None or undefined) of c elements. */
static bool channel_arg(const IrSchema *schema, RtValue *args, guint i, int64_t c, RtTensor **out,
                        GError **error) {
  *out = NULL;
  if (k_arg_is_none(args, i) || (args[i].tag == RT_TENSOR && args[i].u.tensor == NULL))
    return true;
  if (!k_arg_tensor(schema, args, i, out, error))
    return false;
  if (rt_tensor_numel(*out) != c) {
    K_ERR_SHAPE(error,
                "%s(): %s should contain %" G_GINT64_FORMAT " elements, not %" G_GINT64_FORMAT,
                k_op_short_name(schema), schema->args[i].name, c, rt_tensor_numel(*out));
    return false;
  }
  return true;
}

/* A float64 copy of t's elements (NULL for NULL), freed with g_free. */
static double *f64_copy(const RtTensor *t) {
  if (!t)
    return NULL;
  RtTensor *h = rt_tensor_to_dtype(t, IR_DTYPE_FLOAT64);
  gsize n = (gsize)rt_tensor_numel(h);
  double *copy = g_new(double, n + 1); /* never NULL, even for no elements */
  memcpy(copy, rt_tensor_data(h), sizeof(double) * n);
  rt_tensor_unref(h);
  return copy;
}

static void store_as(RtTensor *r, IrDtype dtype, RtValue *out) {
  RtTensor *cast = k_to_dtype(r, dtype);
  rt_tensor_unref(r);
  *out = rt_tensor(cast);
}

/* Writes v (c values) into the 1-D float32 or float64 tensor t in place (running
 * statistics). */
static void store_in_place(RtTensor *t, const double *v, int64_t c) {
  char *base = rt_tensor_data(t);
  int64_t step = t->ndim > 0 ? t->strides[0] : 0;
  for (int64_t i = 0; i < c; i++) {
    char *at = base + (size_t)(i * step) * ir_dtype_size(t->dtype);
    if (t->dtype == IR_DTYPE_FLOAT32)
      *(float *)at = (float)v[i];
    else
      *(double *)at = v[i];
  }
}

/* Per channel of x ([n, c, s] contiguous): mean and biased variance. */
static void channel_stats(const double *x, NormShape sh, double *mean, double *var) {
  int64_t count = sh.n * sh.s;
  for (int64_t c = 0; c < sh.c; c++) {
    double sum = 0, sq = 0;
    for (int64_t n = 0; n < sh.n; n++)
      for (int64_t i = 0; i < sh.s; i++)
        sum += x[(n * sh.c + c) * sh.s + i];
    mean[c] = count > 0 ? sum / (double)count : NAN;
    for (int64_t n = 0; n < sh.n; n++)
      for (int64_t i = 0; i < sh.s; i++) {
        double d = x[(n * sh.c + c) * sh.s + i] - mean[c];
        sq += d * d;
      }
    var[c] = count > 0 ? sq / (double)count : NAN;
  }
}

/* The arguments batch_norm and instance_norm share, in one order: (input, weight, bias,
 * running_mean, running_var, training or use_input_stats, momentum, eps, cudnn_enabled). */
typedef struct {
  RtTensor *input, *weight, *bias, *running_mean, *running_var;
  NormShape sh;
  bool batch_stats; /* training / use_input_stats */
  KScalar momentum, eps;
} NormArgs;

static bool norm_args(const IrSchema *schema, RtValue *args, NormArgs *a, GError **error) {
  return k_arg_tensor(schema, args, 0, &a->input, error) &&
         norm_input(schema, a->input, &a->sh, error) &&
         channel_arg(schema, args, 1, a->sh.c, &a->weight, error) &&
         channel_arg(schema, args, 2, a->sh.c, &a->bias, error) &&
         channel_arg(schema, args, 3, a->sh.c, &a->running_mean, error) &&
         channel_arg(schema, args, 4, a->sh.c, &a->running_var, error) &&
         k_arg_bool(schema, args, 5, &a->batch_stats, error) &&
         k_arg_scalar(schema, args, 6, &a->momentum, error) &&
         k_arg_scalar(schema, args, 7, &a->eps, error);
}

bool rt_kernel_batch_norm(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                          RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  NormArgs a;
  if (!norm_args(schema, args, &a, error))
    return false;
  RtTensor *input = a.input, *weight = a.weight, *bias = a.bias;
  RtTensor *running_mean = a.running_mean, *running_var = a.running_var;
  NormShape sh = a.sh;
  bool training = a.batch_stats;
  KScalar momentum = a.momentum, eps = a.eps;
  if (!training && (!running_mean || !running_var)) {
    K_ERR(error, "batch_norm(): running_mean and running_var must be defined in evaluation "
                 "mode");
    return false;
  }
  RtTensor *stats[2] = {running_mean, running_var};
  for (int k = 0; training && k < 2; k++) {
    if (stats[k] && stats[k]->dtype != IR_DTYPE_FLOAT32 && stats[k]->dtype != IR_DTYPE_FLOAT64) {
      K_ERR_DTYPE(error,
                  "batch_norm(): training updates float or double running statistics, "
                  "not %s",
                  k_dtype_c10_name(stats[k]->dtype));
      return false;
    }
  }
  RtTensor *y = rt_tensor_to_dtype(input, IR_DTYPE_FLOAT64);
  double *x = rt_tensor_data(y);
  g_autofree double *mean = g_new(double, (gsize)sh.c + 1);
  g_autofree double *var = g_new(double, (gsize)sh.c + 1);
  g_autofree double *w = f64_copy(weight);
  g_autofree double *b = f64_copy(bias);
  if (training) {
    channel_stats(x, sh, mean, var);
    int64_t count = sh.n * sh.s;
    g_autofree double *rm = f64_copy(running_mean);
    g_autofree double *rv = f64_copy(running_var);
    for (int64_t c = 0; rm && c < sh.c; c++)
      rm[c] = (1 - momentum.d) * rm[c] + momentum.d * mean[c];
    for (int64_t c = 0; rv && c < sh.c; c++)
      rv[c] = (1 - momentum.d) * rv[c] + momentum.d * var[c] * (double)count / (double)(count - 1);
    if (rm)
      store_in_place(running_mean, rm, sh.c);
    if (rv)
      store_in_place(running_var, rv, sh.c);
  } else {
    g_autofree double *rm = f64_copy(running_mean);
    g_autofree double *rv = f64_copy(running_var);
    memcpy(mean, rm, sizeof(double) * (size_t)sh.c);
    memcpy(var, rv, sizeof(double) * (size_t)sh.c);
  }
  for (int64_t n = 0; n < sh.n; n++)
    for (int64_t c = 0; c < sh.c; c++) {
      double invstd = 1.0 / sqrt(var[c] + eps.d);
      double scale = invstd * (w ? w[c] : 1.0), shift = b ? b[c] : 0.0;
      double *v = x + (n * sh.c + c) * sh.s;
      for (int64_t i = 0; i < sh.s; i++)
        v[i] = (v[i] - mean[c]) * scale + shift;
    }
  store_as(y, input->dtype, &outs[0]);
  return true;
}

/* instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum,
 * eps, cudnn_enabled): PyTorch's batch_norm of input seen as [1, N * C, *]. With
 * use_input_stats each (sample, channel) plane is normalized by its own mean and biased
 * variance, and running statistics, when given, move toward the planes' (the variance
 * unbiased) averaged over the samples; without it they normalize, as batch_norm's evaluation
 * (the same arguments in the same order). */
bool rt_kernel_instance_norm(const IrSchema *schema, const IrNode *node, RtValue *args,
                             guint n_args, RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  NormArgs a;
  if (!norm_args(schema, args, &a, error))
    return false;
  RtTensor *input = a.input, *running_mean = a.running_mean, *running_var = a.running_var;
  NormShape sh = a.sh;
  bool use_input_stats = a.batch_stats;
  if (!use_input_stats) {
    if (!running_mean || !running_var) {
      K_ERR(error, "instance_norm(): Expected running_mean and running_var to be defined when "
                   "use_input_stats is false");
      return false;
    }
    return rt_kernel_batch_norm(schema, node, args, n_args, outs, n_outs, error);
  }
  if (sh.s <= 1 && sh.n * sh.c > 0) {
    char have[256];
    k_shape_text(have, sizeof have, input->ndim, input->sizes);
    K_ERR_SHAPE(error,
                "instance_norm(): Expected more than 1 spatial element when training, got input "
                "size %s",
                have);
    return false;
  }
  RtTensor *stats[2] = {running_mean, running_var};
  for (int k = 0; k < 2; k++)
    if (stats[k] && stats[k]->dtype != IR_DTYPE_FLOAT32 && stats[k]->dtype != IR_DTYPE_FLOAT64) {
      K_ERR_DTYPE(error, "instance_norm(): running statistics must be float or double, not %s",
                  k_dtype_c10_name(stats[k]->dtype));
      return false;
    }
  RtTensor *y = rt_tensor_to_dtype(input, IR_DTYPE_FLOAT64);
  double *x = rt_tensor_data(y);
  g_autofree double *w = f64_copy(a.weight);
  g_autofree double *b = f64_copy(a.bias);
  g_autofree double *mean_sum = g_new0(double, (gsize)sh.c + 1);
  g_autofree double *var_sum = g_new0(double, (gsize)sh.c + 1);
  for (int64_t n = 0; n < sh.n; n++)
    for (int64_t c = 0; c < sh.c; c++) {
      double *v = x + (n * sh.c + c) * sh.s, sum = 0, sq = 0;
      for (int64_t i = 0; i < sh.s; i++)
        sum += v[i];
      double mean = sh.s > 0 ? sum / (double)sh.s : NAN;
      for (int64_t i = 0; i < sh.s; i++)
        sq += (v[i] - mean) * (v[i] - mean);
      double var = sh.s > 0 ? sq / (double)sh.s : NAN;
      mean_sum[c] += mean;
      var_sum[c] += var * (double)sh.s / (double)(sh.s - 1);
      double scale = (w ? w[c] : 1.0) / sqrt(var + a.eps.d), shift = b ? b[c] : 0.0;
      for (int64_t i = 0; i < sh.s; i++)
        v[i] = (v[i] - mean) * scale + shift;
    }
  g_autofree double *rm = f64_copy(running_mean);
  g_autofree double *rv = f64_copy(running_var);
  for (int64_t c = 0; sh.n > 0 && c < sh.c; c++) {
    if (rm)
      rm[c] = (1 - a.momentum.d) * rm[c] + a.momentum.d * mean_sum[c] / (double)sh.n;
    if (rv)
      rv[c] = (1 - a.momentum.d) * rv[c] + a.momentum.d * var_sum[c] / (double)sh.n;
  }
  if (rm)
    store_in_place(running_mean, rm, sh.c);
  if (rv)
    store_in_place(running_var, rv, sh.c);
  store_as(y, input->dtype, &outs[0]);
  return true;
}

/* A bool[3] argument. */
static bool output_mask(const IrSchema *schema, RtValue v, bool mask[3], GError **error) {
  bool ok = (v.tag == RT_LIST || v.tag == RT_TUPLE) && v.u.seq->len == 3;
  for (guint i = 0; ok && i < 3; i++) {
    ok = v.u.seq->items[i].tag == RT_BOOL;
    mask[i] = ok && v.u.seq->items[i].u.b;
  }
  if (!ok)
    K_ERR(error, "%s(): output_mask must be a list of 3 bools", k_op_short_name(schema));
  return ok;
}

/* The three gradients into outs where mask asks (undefined elsewhere), in the given dtypes. */
static void store_grads(RtTensor *results[3], const IrDtype dtypes[3], const bool mask[3],
                        RtValue *outs) {
  for (int i = 0; i < 3; i++) {
    if (mask[i]) {
      store_as(results[i], dtypes[i], &outs[i]);
    } else {
      rt_tensor_unref(results[i]);
      outs[i] = rt_tensor(NULL);
    }
  }
}

bool rt_kernel_batch_norm_backward(const IrSchema *schema, const IrNode *node, RtValue *args,
                                   guint n_args, RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  RtTensor *grad, *input, *weight, *running_mean, *running_var, *save_mean, *save_invstd;
  NormShape sh;
  bool train, mask[3];
  KScalar eps;
  if (!k_arg_tensor(schema, args, 0, &grad, error) ||
      !k_arg_tensor(schema, args, 1, &input, error) || !norm_input(schema, input, &sh, error) ||
      !channel_arg(schema, args, 2, sh.c, &weight, error) ||
      !channel_arg(schema, args, 3, sh.c, &running_mean, error) ||
      !channel_arg(schema, args, 4, sh.c, &running_var, error) ||
      !channel_arg(schema, args, 5, sh.c, &save_mean, error) ||
      !channel_arg(schema, args, 6, sh.c, &save_invstd, error) ||
      !k_arg_bool(schema, args, 7, &train, error) || !k_arg_scalar(schema, args, 8, &eps, error) ||
      !output_mask(schema, args[9], mask, error))
    return false;
  if (grad->ndim != input->ndim ||
      memcmp(grad->sizes, input->sizes, sizeof(int64_t) * (size_t)input->ndim) != 0) {
    K_ERR_SHAPE(error, "native_batch_norm_backward(): grad_out and input must have the same "
                       "shape");
    return false;
  }
  if (!train && (!running_mean || !running_var)) {
    K_ERR(error, "native_batch_norm_backward(): running_mean and running_var must be defined "
                 "in evaluation mode");
    return false;
  }
  RtTensor *xh = rt_tensor_to_dtype(input, IR_DTYPE_FLOAT64);
  RtTensor *gh = rt_tensor_to_dtype(grad, IR_DTYPE_FLOAT64);
  const double *x = rt_tensor_data(xh), *go = rt_tensor_data(gh);
  g_autofree double *mean = g_new(double, (gsize)sh.c + 1);
  g_autofree double *invstd = g_new(double, (gsize)sh.c + 1);
  g_autofree double *w = f64_copy(weight);
  if (train && save_mean && save_invstd) {
    g_autofree double *m = f64_copy(save_mean), *s = f64_copy(save_invstd);
    memcpy(mean, m, sizeof(double) * (size_t)sh.c);
    memcpy(invstd, s, sizeof(double) * (size_t)sh.c);
  } else if (train) { /* the statistics the forward computed */
    channel_stats(x, sh, mean, invstd);
    for (int64_t c = 0; c < sh.c; c++)
      invstd[c] = 1.0 / sqrt(invstd[c] + eps.d);
  } else {
    g_autofree double *m = f64_copy(running_mean), *v = f64_copy(running_var);
    for (int64_t c = 0; c < sh.c; c++) {
      mean[c] = m[c];
      invstd[c] = 1.0 / sqrt(v[c] + eps.d);
    }
  }
  RtTensor *dx = rt_tensor_new(IR_DTYPE_FLOAT64, input->ndim, input->sizes);
  RtTensor *dw = rt_tensor_new(IR_DTYPE_FLOAT64, 1, &sh.c);
  RtTensor *db = rt_tensor_new(IR_DTYPE_FLOAT64, 1, &sh.c);
  double *pdx = rt_tensor_data(dx), *pdw = rt_tensor_data(dw), *pdb = rt_tensor_data(db);
  int64_t count = sh.n * sh.s;
  for (int64_t c = 0; c < sh.c; c++) {
    double sum = 0, dotp = 0;
    for (int64_t n = 0; n < sh.n; n++)
      for (int64_t i = 0; i < sh.s; i++) {
        int64_t at = (n * sh.c + c) * sh.s + i;
        sum += go[at];
        dotp += (x[at] - mean[c]) * go[at];
      }
    double wc = w ? w[c] : 1.0;
    pdw[c] = dotp * invstd[c];
    pdb[c] = sum;
    for (int64_t n = 0; n < sh.n; n++)
      for (int64_t i = 0; i < sh.s; i++) {
        int64_t at = (n * sh.c + c) * sh.s + i;
        if (train) {
          double proj = (x[at] - mean[c]) * dotp * invstd[c] * invstd[c] / (double)count;
          pdx[at] = (go[at] - proj - sum / (double)count) * invstd[c] * wc;
        } else {
          pdx[at] = go[at] * invstd[c] * wc;
        }
      }
  }
  rt_tensor_unref(xh);
  rt_tensor_unref(gh);
  RtTensor *results[3] = {dx, dw, db};
  IrDtype dtypes[3] = {input->dtype, weight ? weight->dtype : input->dtype,
                       weight ? weight->dtype : input->dtype};
  store_grads(results, dtypes, mask, outs);
  return true;
}

/* The groups of group_norm: sh's channels in `groups` groups of c / groups channels. */
static bool group_count(const IrSchema *schema, const RtTensor *input, NormShape sh, int64_t groups,
                        GError **error) {
  if (groups > 0 && sh.c % groups == 0)
    return true;
  char have[256];
  k_shape_text(have, sizeof have, input->ndim, input->sizes);
  K_ERR_SHAPE(error,
              "%s(): expected number of channels in input to be divisible by "
              "num_groups, but got input of shape %s and num_groups=%" G_GINT64_FORMAT,
              k_op_short_name(schema), have, groups);
  return false;
}

bool rt_kernel_group_norm(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                          RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  bool native = schema->kind == IR_ATEN_NATIVE_GROUP_NORM;
  RtTensor *input, *weight, *bias;
  NormShape sh;
  gint64 groups;
  KScalar eps;
  /* group_norm(input, num_groups, weight, bias, eps) or native_group_norm(input, weight, bias,
   * N, C, HxW, group, eps) */
  guint w_at = native ? 1 : 2, g_at = native ? 6 : 1, eps_at = native ? 7 : 4;
  if (!k_arg_tensor(schema, args, 0, &input, error) || !norm_input(schema, input, &sh, error) ||
      !k_arg_int(schema, args, g_at, &groups, error) ||
      !group_count(schema, input, sh, groups, error) ||
      !channel_arg(schema, args, w_at, sh.c, &weight, error) ||
      !channel_arg(schema, args, w_at + 1, sh.c, &bias, error) ||
      !k_arg_scalar(schema, args, eps_at, &eps, error))
    return false;
  /* num_groups is the user's: with no channels any count divides them */
  int64_t stat_sizes[2] = {sh.n, groups};
  RtTensor *mean_t = rt_tensor_new_checked(IR_DTYPE_FLOAT64, 2, stat_sizes, error);
  RtTensor *rstd_t = mean_t ? rt_tensor_new_checked(IR_DTYPE_FLOAT64, 2, stat_sizes, error) : NULL;
  if (!rstd_t) {
    if (mean_t)
      rt_tensor_unref(mean_t);
    return false;
  }
  RtTensor *y = rt_tensor_to_dtype(input, IR_DTYPE_FLOAT64);
  double *x = rt_tensor_data(y), *mean = rt_tensor_data(mean_t), *rstd = rt_tensor_data(rstd_t);
  g_autofree double *w = f64_copy(weight);
  g_autofree double *b = f64_copy(bias);
  int64_t per_group = sh.c / groups, len = per_group * sh.s;
  for (int64_t k = 0; k < sh.n * groups; k++) {
    double *v = x + k * len, sum = 0, sq = 0;
    for (int64_t i = 0; i < len; i++)
      sum += v[i];
    mean[k] = sum / (double)len;
    for (int64_t i = 0; i < len; i++)
      sq += (v[i] - mean[k]) * (v[i] - mean[k]);
    rstd[k] = 1.0 / sqrt(sq / (double)len + eps.d);
    for (int64_t i = 0; i < len; i++) {
      int64_t c = (k % groups) * per_group + i / sh.s;
      v[i] = (v[i] - mean[k]) * rstd[k] * (w ? w[c] : 1.0) + (b ? b[c] : 0.0);
    }
  }
  store_as(y, input->dtype, &outs[0]);
  if (native) {
    store_as(mean_t, input->dtype, &outs[1]);
    store_as(rstd_t, input->dtype, &outs[2]);
  } else {
    rt_tensor_unref(mean_t);
    rt_tensor_unref(rstd_t);
  }
  return true;
}

bool rt_kernel_group_norm_backward(const IrSchema *schema, const IrNode *node, RtValue *args,
                                   guint n_args, RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  RtTensor *grad, *input, *mean_t, *rstd_t, *weight;
  NormShape sh;
  gint64 n_arg, c_arg, hxw_arg, groups;
  bool mask[3];
  if (!k_arg_tensor(schema, args, 0, &grad, error) ||
      !k_arg_tensor(schema, args, 1, &input, error) || !norm_input(schema, input, &sh, error) ||
      !k_arg_tensor(schema, args, 2, &mean_t, error) ||
      !k_arg_tensor(schema, args, 3, &rstd_t, error) ||
      !channel_arg(schema, args, 4, sh.c, &weight, error) ||
      !k_arg_int(schema, args, 5, &n_arg, error) || !k_arg_int(schema, args, 6, &c_arg, error) ||
      !k_arg_int(schema, args, 7, &hxw_arg, error) || !k_arg_int(schema, args, 8, &groups, error) ||
      !group_count(schema, input, sh, groups, error) || !output_mask(schema, args[9], mask, error))
    return false;
  if (n_arg != sh.n || c_arg != sh.c || hxw_arg != sh.s ||
      rt_tensor_numel(grad) != rt_tensor_numel(input) || rt_tensor_numel(mean_t) != sh.n * groups ||
      rt_tensor_numel(rstd_t) != sh.n * groups) {
    K_ERR_SHAPE(error, "native_group_norm_backward(): N, C, HxW, grad_out, mean and rstd do "
                       "not match the input");
    return false;
  }
  g_autofree double *go = f64_copy(grad), *x = f64_copy(input), *w = f64_copy(weight);
  g_autofree double *mean = f64_copy(mean_t), *rstd = f64_copy(rstd_t);
  RtTensor *dx = rt_tensor_new(IR_DTYPE_FLOAT64, input->ndim, input->sizes);
  RtTensor *dw = rt_tensor_zeros(IR_DTYPE_FLOAT64, 1, &sh.c);
  RtTensor *db = rt_tensor_zeros(IR_DTYPE_FLOAT64, 1, &sh.c);
  double *pdx = rt_tensor_data(dx), *pdw = rt_tensor_data(dw), *pdb = rt_tensor_data(db);
  int64_t per_group = sh.c / groups, len = per_group * sh.s;
  for (int64_t k = 0; k < sh.n * groups; k++) {
    const double *gv = go + k * len, *xv = x + k * len;
    double sum_dy = 0, sum_dy_xhat = 0;
    for (int64_t i = 0; i < len; i++) {
      int64_t c = (k % groups) * per_group + i / sh.s;
      double xhat = (xv[i] - mean[k]) * rstd[k], dy = gv[i] * (w ? w[c] : 1.0);
      sum_dy += dy;
      sum_dy_xhat += dy * xhat;
      pdw[c] += gv[i] * xhat;
      pdb[c] += gv[i];
    }
    for (int64_t i = 0; i < len; i++) {
      int64_t c = (k % groups) * per_group + i / sh.s;
      double xhat = (xv[i] - mean[k]) * rstd[k], dy = gv[i] * (w ? w[c] : 1.0);
      pdx[k * len + i] = rstd[k] * (dy - sum_dy / (double)len - xhat * sum_dy_xhat / (double)len);
    }
  }
  RtTensor *results[3] = {dx, dw, db};
  IrDtype dtypes[3] = {input->dtype, weight ? weight->dtype : input->dtype,
                       weight ? weight->dtype : input->dtype};
  store_grads(results, dtypes, mask, outs);
  return true;
}
