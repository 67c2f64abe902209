/* 2-D poolings: rt_kernel_max_pool2d (max_pool2d, max_pool2d_with_indices),
 * rt_kernel_max_pool2d_backward (max_pool2d_with_indices_backward), rt_kernel_avg_pool2d,
 * rt_kernel_avg_pool2d_backward, rt_kernel_adaptive_avg_pool2d,
 * rt_kernel_adaptive_avg_pool2d_backward (_adaptive_avg_pool2d_backward),
 * rt_kernel_adaptive_max_pool2d and rt_kernel_adaptive_max_pool2d_backward, and the loops
 * they share with the 1-D poolings (kernels_pool.h).
 *
 * Contracts as PyTorch 1.13 (its CPU pooling kernels in aten/src/ATen/native/cpu):
 * - self is [C, H, W] or [N, C, H, W]; each H x W plane pools on its own.
 * - kernel_size, stride (empty: the kernel size), padding and dilation take one value for
 *   both dims or two; kernel, stride and dilation positive, padding at most half the kernel;
 *   window counts as pooling_output_shape (runtime/kernel_args.h: k_window_count), each >= 1
 *   ("Output size is too small" otherwise).
 * - max_pool2d: the largest value of each window (a NaN wins, the last one; of equal maxima
 *   the first), its index h * W + w in the plane returned by max_pool2d_with_indices; the
 *   backward adds each gradient to the input element at its index. A dilated window may miss
 *   the plane entirely: -inf, index -1, and no gradient (PyTorch's is -inf and 0 too).
 * - avg_pool2d: the window's sum over its size: divisor_override when given, else the window
 *   clipped to the padded input (count_include_pad) or to the input itself.
 * - adaptive_avg_pool2d(self, output_size): output (i, j) averages rows [floor(i H / OH),
 *   ceil((i + 1) H / OH)) and the same for columns; output sizes >= 0.
 * - adaptive_max_pool2d: the largest value of the same windows and its index, as max_pool2d
 *   (PyTorch's messages: a 3-D or 4-D input without empty dims after the first, output
 *   sizes >= 0); its backward adds each gradient at its index, as max_pool2d's.
 * Sums are taken in float64 and stored in self's dtype; floating dtypes only. */
#include "runtime/kernels_pool.h"
#include "runtime/kernels.h"

#include <math.h>
#include <string.h>

/* self's planes and plane size: a 3-D or 4-D floating tensor. */
static bool pool_input(const IrSchema *schema, const RtTensor *self, PoolGeom *g, GError **error) {
  bool empty_plane =
      self->ndim >= 3 && (self->sizes[self->ndim - 3] == 0 || self->sizes[self->ndim - 2] == 0 ||
                          self->sizes[self->ndim - 1] == 0);
  if ((self->ndim != 3 && self->ndim != 4) || empty_plane) {
    char have[256];
    k_shape_text(have, sizeof have, self->ndim, self->sizes);
    K_ERR_SHAPE(error,
                "%s(): expected a non-empty 3D or 4D (batch mode) tensor, but got input "
                "of size %s",
                k_op_short_name(schema), have);
    return false;
  }
  if (!k_dtype_is_float(self->dtype)) {
    K_ERR_DTYPE(error, "\"%s\" not implemented for '%s'", k_op_short_name(schema),
                ir_dtype_type_name(self->dtype));
    return false;
  }
  g->h = self->sizes[self->ndim - 2];
  g->w = self->sizes[self->ndim - 1];
  g->planes = rt_tensor_numel(self) / (g->h * g->w);
  return true;
}

/* kernel_size, stride, padding (args[at..at+2]), dilation (args[at+3] when `dilated`) and
 * ceil_mode (the next one), checked, and the window counts. */
static bool pool_params(const IrSchema *schema, RtValue *args, guint at, bool dilated,
                        const RtTensor *self, PoolGeom *g, GError **error) {
  static const int64_t one[2] = {1, 1};
  const char *op = k_op_short_name(schema);
  if (!pool_input(schema, self, g, error) ||
      !k_arg_spatial_list(schema, args, at, 2, NULL, g->kernel, error) ||
      !k_arg_spatial_list(schema, args, at + 1, 2, g->kernel, g->stride, error) ||
      !k_arg_spatial_list(schema, args, at + 2, 2, NULL, g->pad, error) ||
      (dilated && !k_arg_spatial_list(schema, args, at + 3, 2, NULL, g->dil, error)) ||
      !k_arg_bool(schema, args, at + (dilated ? 4 : 3), &g->ceil_mode, error))
    return false;
  if (!dilated)
    memcpy(g->dil, one, sizeof one);
  for (int d = 0; d < 2; d++) {
    if (g->kernel[d] <= 0 || g->stride[d] <= 0 || g->dil[d] <= 0) {
      K_ERR(error,
            "%s(): kernel size (%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT
            "), stride (%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ") and dilation (%" G_GINT64_FORMAT
            ", %" G_GINT64_FORMAT ") should be greater than zero",
            op, g->kernel[0], g->kernel[1], g->stride[0], g->stride[1], g->dil[0], g->dil[1]);
      return false;
    }
    if (g->pad[d] < 0 || g->pad[d] > g->kernel[d] / 2) {
      K_ERR(error,
            "%s(): pad should be at least 0 and at most half of kernel size, but got "
            "pad = (%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT "), kernel_size = (%" G_GINT64_FORMAT
            ", %" G_GINT64_FORMAT ")",
            op, g->pad[0], g->pad[1], g->kernel[0], g->kernel[1]);
      return false;
    }
  }
  if (!k_window_count(g->h, g->kernel[0], g->stride[0], g->pad[0], g->dil[0], g->ceil_mode,
                      &g->oh) ||
      !k_window_count(g->w, g->kernel[1], g->stride[1], g->pad[1], g->dil[1], g->ceil_mode,
                      &g->ow)) {
    K_ERR(error,
          "%s(): the output size of a %" G_GINT64_FORMAT "x%" G_GINT64_FORMAT " input "
          "overflows",
          op, g->h, g->w);
    return false;
  }
  if (g->oh < 1 || g->ow < 1) {
    K_ERR_SHAPE(error,
                "%s(): given input size (%" G_GINT64_FORMAT "x%" G_GINT64_FORMAT "), "
                "calculated output size (%" G_GINT64_FORMAT "x%" G_GINT64_FORMAT "). Output "
                "size is too small",
                op, g->h, g->w, g->oh, g->ow);
    return false;
  }
  return true;
}

/* self's sizes with the plane replaced by oh x ow. */
static void pooled_sizes(const RtTensor *self, int64_t oh, int64_t ow, int64_t *sizes) {
  memcpy(sizes, self->sizes, sizeof(int64_t) * (size_t)self->ndim);
  sizes[self->ndim - 2] = oh;
  sizes[self->ndim - 1] = ow;
}

static void store_as(RtTensor *r, IrDtype dtype, RtValue *out) {
  RtTensor *cast = k_to_dtype(r, dtype);
  rt_tensor_unref(r);
  *out = rt_tensor(cast);
}

/* grad_output (or the indices, `what`) must have the pooled shape of self. */
static bool pooled_like(const IrSchema *schema, const char *what, const RtTensor *grad,
                        const RtTensor *self, int64_t oh, int64_t ow, GError **error) {
  int64_t want[RT_MAX_DIMS];
  pooled_sizes(self, oh, ow, want);
  if (grad->ndim == self->ndim &&
      memcmp(grad->sizes, want, sizeof(int64_t) * (size_t)self->ndim) == 0)
    return true;
  char have[256], expected[256];
  k_shape_text(have, sizeof have, grad->ndim, grad->sizes);
  k_shape_text(expected, sizeof expected, self->ndim, want);
  K_ERR_SHAPE(error, "%s(): %s of size %s does not match the output size %s",
              k_op_short_name(schema), what, have, expected);
  return false;
}

/* The taps [*lo, *hi) of a window starting at `start` (dilated by dil, kernel taps) that fall
 * inside [0, size): the window's size is the user's, so the taps outside are never walked. */
static void tap_range(int64_t start, int64_t dil, int64_t kernel, int64_t size, int64_t *lo,
                      int64_t *hi) {
  *lo = start >= 0 ? 0 : -start / dil + (-start % dil != 0);
  *hi = start > size - 1 ? 0 : MIN(kernel, (size - 1 - start) / dil + 1);
}

/* The float64 input, the values and the indices of a max pool's planes. */
typedef struct {
  RtTensor *xh, *y, *idx;
  const double *x;
  double *out;
  int64_t *at;
} MaxPoolBuffers;

static bool max_buffers_new(const RtTensor *self, int ndim, const int64_t *sizes,
                            MaxPoolBuffers *b, GError **error) {
  b->y = rt_tensor_new_checked(IR_DTYPE_FLOAT64, ndim, sizes, error);
  b->idx = b->y ? rt_tensor_new_checked(IR_DTYPE_INT64, ndim, sizes, error) : NULL;
  if (!b->idx) {
    if (b->y)
      rt_tensor_unref(b->y);
    return false;
  }
  b->xh = rt_tensor_to_dtype(self, IR_DTYPE_FLOAT64);
  b->x = rt_tensor_data(b->xh);
  b->out = rt_tensor_data(b->y);
  b->at = rt_tensor_data(b->idx);
  return true;
}

/* The values in dtype into *values, the indices into *indices (dropped when NULL). */
static void max_buffers_finish(MaxPoolBuffers *b, IrDtype dtype, RtValue *values,
                               RtValue *indices) {
  rt_tensor_unref(b->xh);
  store_as(b->y, dtype, values);
  if (indices)
    *indices = rt_tensor(b->idx);
  else
    rt_tensor_unref(b->idx);
}

bool pool_max_run(const PoolGeom *g, const RtTensor *self, int ndim, const int64_t *sizes,
                  RtValue *values, RtValue *indices, GError **error) {
  MaxPoolBuffers b;
  if (!max_buffers_new(self, ndim, sizes, &b, error))
    return false;
  const double *x = b.x;
  double *out = b.out;
  int64_t *at = b.at;
  for (int64_t p = 0; p < g->planes; p++) {
    const double *plane = x + p * g->h * g->w;
    for (int64_t oy = 0; oy < g->oh; oy++) {
      for (int64_t ox = 0; ox < g->ow; ox++) {
        int64_t y0 = oy * g->stride[0] - g->pad[0], x0 = ox * g->stride[1] - g->pad[1];
        int64_t i0, i1, j0, j1;
        tap_range(y0, g->dil[0], g->kernel[0], g->h, &i0, &i1);
        tap_range(x0, g->dil[1], g->kernel[1], g->w, &j0, &j1);
        double best = -INFINITY;
        int64_t best_at = -1;
        for (int64_t i = i0; i < i1; i++) {
          int64_t yy = y0 + i * g->dil[0];
          for (int64_t j = j0; j < j1; j++) {
            int64_t xx = x0 + j * g->dil[1];
            double v = plane[yy * g->w + xx];
            /* the first in-bounds element starts the search, so that a window of -inf
             * still names one; a later NaN replaces an earlier one, as PyTorch's */
            if (best_at < 0 || v > best || isnan(v)) {
              best = v;
              best_at = yy * g->w + xx;
            }
          }
        }
        int64_t o = (p * g->oh + oy) * g->ow + ox;
        out[o] = best;
        at[o] = best_at;
      }
    }
  }
  max_buffers_finish(&b, self->dtype, values, indices);
  return true;
}

bool rt_kernel_max_pool2d(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                          RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  RtTensor *self;
  PoolGeom g;
  if (!k_arg_tensor(schema, args, 0, &self, error) ||
      !pool_params(schema, args, 1, true, self, &g, error))
    return false;
  int64_t sizes[RT_MAX_DIMS];
  pooled_sizes(self, g.oh, g.ow, sizes);
  bool with_indices = schema->kind == IR_ATEN_MAX_POOL2D_WITH_INDICES;
  return pool_max_run(&g, self, self->ndim, sizes, &outs[0], with_indices ? &outs[1] : NULL, error);
}

/* The max poolings' backward: dx of self's shape with each gradient added at the plane index
 * its window's maximum had (-1: none). */
static bool scatter_at_indices(const IrSchema *schema, const RtTensor *grad,
                               const RtTensor *indices, const RtTensor *self, int64_t planes,
                               int64_t plane_size, RtValue *out, GError **error) {
  if (indices->dtype != IR_DTYPE_INT64) {
    K_ERR_DTYPE(error, "%s(): expected int64 indices, but got %s", k_op_short_name(schema),
                k_dtype_c10_name(indices->dtype));
    return false;
  }
  RtTensor *gh = rt_tensor_to_dtype(grad, IR_DTYPE_FLOAT64);
  RtTensor *ih = rt_tensor_contiguous((RtTensor *)indices);
  RtTensor *dx = rt_tensor_zeros(IR_DTYPE_FLOAT64, self->ndim, self->sizes);
  const double *go = rt_tensor_data(gh);
  const int64_t *at = rt_tensor_data(ih);
  double *pdx = rt_tensor_data(dx);
  int64_t per_plane = planes ? rt_tensor_numel(grad) / planes : 0;
  bool ok = true;
  for (int64_t p = 0; ok && p < planes; p++) {
    for (int64_t o = p * per_plane; o < (p + 1) * per_plane; o++) {
      if (at[o] == -1) /* a window with no element of the plane (dilated over it) */
        continue;
      if (at[o] < 0 || at[o] >= plane_size) {
        K_ERR(error,
              "%s(): index %" G_GINT64_FORMAT " is outside a plane of %" G_GINT64_FORMAT
              " elements",
              k_op_short_name(schema), at[o], plane_size);
        ok = false;
        break;
      }
      pdx[p * plane_size + at[o]] += go[o];
    }
  }
  rt_tensor_unref(gh);
  rt_tensor_unref(ih);
  if (!ok) {
    rt_tensor_unref(dx);
    return false;
  }
  store_as(dx, self->dtype, out);
  return true;
}

bool rt_kernel_max_pool2d_backward(const IrSchema *schema, const IrNode *node, RtValue *args,
                                   guint n_args, RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  RtTensor *grad, *self, *indices;
  PoolGeom g;
  if (!k_arg_tensor(schema, args, 0, &grad, error) ||
      !k_arg_tensor(schema, args, 1, &self, error) ||
      !pool_params(schema, args, 2, true, self, &g, error) ||
      !k_arg_tensor(schema, args, 7, &indices, error) ||
      !pooled_like(schema, "grad_output", grad, self, g.oh, g.ow, error) ||
      !pooled_like(schema, "indices", indices, self, g.oh, g.ow, error))
    return false;
  return scatter_at_indices(schema, grad, indices, self, g.planes, g.h * g.w, &outs[0], error);
}

/* avg_pool2d's ceil_mode, count_include_pad and divisor_override after the window arguments
 * at args[at..]: 0 when there is no override. */
static bool avg_params(const IrSchema *schema, RtValue *args, guint at, bool *include_pad,
                       gint64 *divisor, GError **error) {
  *divisor = 0;
  if (!k_arg_bool(schema, args, at + 4, include_pad, error) ||
      (!k_arg_is_none(args, at + 5) && !k_arg_int(schema, args, at + 5, divisor, error)))
    return false;
  if (!k_arg_is_none(args, at + 5) && *divisor == 0) {
    K_ERR(error, "%s(): divisor must be not zero", k_op_short_name(schema));
    return false;
  }
  return true;
}

/* The window of output (oy, ox) clipped to the input, and the number it is divided by. */
static void avg_window(const PoolGeom *g, int64_t oy, int64_t ox, bool include_pad, gint64 divisor,
                       int64_t win[4], double *count) {
  int64_t y0 = oy * g->stride[0] - g->pad[0], x0 = ox * g->stride[1] - g->pad[1];
  int64_t y1 = MIN(y0 + g->kernel[0], g->h + g->pad[0]);
  int64_t x1 = MIN(x0 + g->kernel[1], g->w + g->pad[1]);
  /* in double: a huge kernel's padded window may hold more than int64 counts */
  double padded = (double)(y1 - y0) * (double)(x1 - x0);
  win[0] = MAX(y0, 0);
  win[1] = MAX(x0, 0);
  win[2] = MIN(y1, g->h);
  win[3] = MIN(x1, g->w);
  double inside = (double)(win[2] - win[0]) * (double)(win[3] - win[1]);
  *count = divisor ? (double)divisor : include_pad ? padded : inside;
}

bool pool_avg_run(const PoolGeom *g, const RtTensor *self, bool include_pad, gint64 divisor,
                  int ndim, const int64_t *sizes, RtValue *out_value, GError **error) {
  RtTensor *y = rt_tensor_new_checked(IR_DTYPE_FLOAT64, ndim, sizes, error);
  if (!y)
    return false;
  RtTensor *xh = rt_tensor_to_dtype(self, IR_DTYPE_FLOAT64);
  const double *x = rt_tensor_data(xh);
  double *out = rt_tensor_data(y);
  for (int64_t p = 0; p < g->planes; p++) {
    const double *plane = x + p * g->h * g->w;
    for (int64_t oy = 0; oy < g->oh; oy++) {
      for (int64_t ox = 0; ox < g->ow; ox++) {
        int64_t win[4];
        double count, sum = 0;
        avg_window(g, oy, ox, include_pad, divisor, win, &count);
        for (int64_t yy = win[0]; yy < win[2]; yy++)
          for (int64_t xx = win[1]; xx < win[3]; xx++)
            sum += plane[yy * g->w + xx];
        /* a window wholly in the padding (ceil_mode) gives 0, as PyTorch's */
        out[(p * g->oh + oy) * g->ow + ox] = win[0] < win[2] && win[1] < win[3] ? sum / count : 0;
      }
    }
  }
  rt_tensor_unref(xh);
  store_as(y, self->dtype, out_value);
  return true;
}

bool rt_kernel_avg_pool2d(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                          RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  RtTensor *self;
  PoolGeom g;
  bool include_pad;
  gint64 divisor;
  if (!k_arg_tensor(schema, args, 0, &self, error) ||
      !pool_params(schema, args, 1, false, self, &g, error) ||
      !avg_params(schema, args, 1, &include_pad, &divisor, error))
    return false;
  int64_t sizes[RT_MAX_DIMS];
  pooled_sizes(self, g.oh, g.ow, sizes);
  return pool_avg_run(&g, self, include_pad, divisor, self->ndim, sizes, &outs[0], error);
}

bool rt_kernel_avg_pool2d_backward(const IrSchema *schema, const IrNode *node, RtValue *args,
                                   guint n_args, RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  RtTensor *grad, *self;
  PoolGeom g;
  bool include_pad;
  gint64 divisor;
  if (!k_arg_tensor(schema, args, 0, &grad, error) ||
      !k_arg_tensor(schema, args, 1, &self, error) ||
      !pool_params(schema, args, 2, false, self, &g, error) ||
      !avg_params(schema, args, 2, &include_pad, &divisor, error) ||
      !pooled_like(schema, "grad_output", grad, self, g.oh, g.ow, error))
    return false;
  RtTensor *gh = rt_tensor_to_dtype(grad, IR_DTYPE_FLOAT64);
  RtTensor *dx = rt_tensor_zeros(IR_DTYPE_FLOAT64, self->ndim, self->sizes);
  const double *go = rt_tensor_data(gh);
  double *pdx = rt_tensor_data(dx);
  for (int64_t p = 0; p < g.planes; p++) {
    double *plane = pdx + p * g.h * g.w;
    for (int64_t oy = 0; oy < g.oh; oy++) {
      for (int64_t ox = 0; ox < g.ow; ox++) {
        int64_t win[4];
        double count;
        avg_window(&g, oy, ox, include_pad, divisor, win, &count);
        double share = go[(p * g.oh + oy) * g.ow + ox] / count;
        for (int64_t yy = win[0]; yy < win[2]; yy++)
          for (int64_t xx = win[1]; xx < win[3]; xx++)
            plane[yy * g.w + xx] += share;
      }
    }
  }
  rt_tensor_unref(gh);
  store_as(dx, self->dtype, &outs[0]);
  return true;
}

/* Adaptive window k of n over a dim of `in`: [floor(k in / n), ceil((k + 1) in / n)). */
static int64_t adaptive_start(int64_t k, int64_t in, int64_t n) {
  return k * in / n;
}
static int64_t adaptive_end(int64_t k, int64_t in, int64_t n) {
  return ((k + 1) * in + n - 1) / n;
}

bool pool_adaptive_fits(const IrSchema *schema, const PoolGeom *g, GError **error) {
  /* (k + 1) * in must not overflow for k < out: out and in are sizes of tensors in memory */
  if (g->oh > G_MAXINT32 || g->ow > G_MAXINT32 || g->h > G_MAXINT32 || g->w > G_MAXINT32) {
    K_ERR(error, "%s(): output_size {%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT "} is too large",
          k_op_short_name(schema), g->oh, g->ow);
    return false;
  }
  return true;
}

/* self (args[0]) and output_size (args[1] for the forward; grad_output's plane for the
 * backward) as a PoolGeom with oh x ow adaptive windows. */
static bool adaptive_geometry(const IrSchema *schema, const RtTensor *self,
                              const int64_t out_size[2], PoolGeom *g, GError **error) {
  if (!pool_input(schema, self, g, error))
    return false;
  if (out_size[0] < 0 || out_size[1] < 0) {
    K_ERR(error,
          "%s(): elements of output_size must be greater than or equal to 0 but "
          "received {%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT "}",
          k_op_short_name(schema), out_size[0], out_size[1]);
    return false;
  }
  g->oh = out_size[0];
  g->ow = out_size[1];
  return pool_adaptive_fits(schema, g, error);
}

bool pool_adaptive_avg_run(const PoolGeom *g, const RtTensor *self, int ndim, const int64_t *sizes,
                           RtValue *out_value, GError **error) {
  RtTensor *y = rt_tensor_new_checked(IR_DTYPE_FLOAT64, ndim, sizes, error);
  if (!y)
    return false;
  RtTensor *xh = rt_tensor_to_dtype(self, IR_DTYPE_FLOAT64);
  const double *x = rt_tensor_data(xh);
  double *out = rt_tensor_data(y);
  for (int64_t p = 0; p < g->planes; p++) {
    const double *plane = x + p * g->h * g->w;
    for (int64_t oy = 0; oy < g->oh; oy++) {
      int64_t y0 = adaptive_start(oy, g->h, g->oh), y1 = adaptive_end(oy, g->h, g->oh);
      for (int64_t ox = 0; ox < g->ow; ox++) {
        int64_t x0 = adaptive_start(ox, g->w, g->ow), x1 = adaptive_end(ox, g->w, g->ow);
        double sum = 0;
        for (int64_t yy = y0; yy < y1; yy++)
          for (int64_t xx = x0; xx < x1; xx++)
            sum += plane[yy * g->w + xx];
        out[(p * g->oh + oy) * g->ow + ox] = sum / (double)((y1 - y0) * (x1 - x0));
      }
    }
  }
  rt_tensor_unref(xh);
  store_as(y, self->dtype, out_value);
  return true;
}

bool rt_kernel_adaptive_avg_pool2d(const IrSchema *schema, const IrNode *node, RtValue *args,
                                   guint n_args, RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  RtTensor *self;
  int64_t out_size[2];
  PoolGeom g;
  if (!k_arg_tensor(schema, args, 0, &self, error) ||
      !k_arg_spatial_list(schema, args, 1, 2, NULL, out_size, error) ||
      !adaptive_geometry(schema, self, out_size, &g, error))
    return false;
  int64_t sizes[RT_MAX_DIMS];
  pooled_sizes(self, g.oh, g.ow, sizes);
  return pool_adaptive_avg_run(&g, self, self->ndim, sizes, &outs[0], error);
}

bool rt_kernel_adaptive_avg_pool2d_backward(const IrSchema *schema, const IrNode *node,
                                            RtValue *args, guint n_args, RtValue *outs,
                                            guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  RtTensor *grad, *self;
  PoolGeom g;
  if (!k_arg_tensor(schema, args, 0, &grad, error) || !k_arg_tensor(schema, args, 1, &self, error))
    return false;
  if (grad->ndim != self->ndim) {
    K_ERR_SHAPE(error, "%s(): grad_output and self must have the same rank",
                k_op_short_name(schema));
    return false;
  }
  int64_t out_size[2] = {grad->sizes[grad->ndim - 2], grad->sizes[grad->ndim - 1]};
  if (!adaptive_geometry(schema, self, out_size, &g, error) ||
      !pooled_like(schema, "grad_output", grad, self, g.oh, g.ow, error))
    return false;
  RtTensor *gh = rt_tensor_to_dtype(grad, IR_DTYPE_FLOAT64);
  RtTensor *dx = rt_tensor_zeros(IR_DTYPE_FLOAT64, self->ndim, self->sizes);
  const double *go = rt_tensor_data(gh);
  double *pdx = rt_tensor_data(dx);
  for (int64_t p = 0; p < g.planes; p++) {
    double *plane = pdx + p * g.h * g.w;
    for (int64_t oy = 0; oy < g.oh; oy++) {
      int64_t y0 = adaptive_start(oy, g.h, g.oh), y1 = adaptive_end(oy, g.h, g.oh);
      for (int64_t ox = 0; ox < g.ow; ox++) {
        int64_t x0 = adaptive_start(ox, g.w, g.ow), x1 = adaptive_end(ox, g.w, g.ow);
        double share = go[(p * g.oh + oy) * g.ow + ox] / (double)((y1 - y0) * (x1 - x0));
        for (int64_t yy = y0; yy < y1; yy++)
          for (int64_t xx = x0; xx < x1; xx++)
            plane[yy * g.w + xx] += share;
      }
    }
  }
  rt_tensor_unref(gh);
  store_as(dx, self->dtype, &outs[0]);
  return true;
}

bool pool_adaptive_max_run(const PoolGeom *g, const RtTensor *self, int ndim, const int64_t *sizes,
                           RtValue *values, RtValue *indices, GError **error) {
  MaxPoolBuffers b;
  if (!max_buffers_new(self, ndim, sizes, &b, error))
    return false;
  const double *x = b.x;
  double *out = b.out;
  int64_t *at = b.at;
  for (int64_t p = 0; p < g->planes; p++) {
    const double *plane = x + p * g->h * g->w;
    for (int64_t oy = 0; oy < g->oh; oy++) {
      int64_t y0 = adaptive_start(oy, g->h, g->oh), y1 = adaptive_end(oy, g->h, g->oh);
      for (int64_t ox = 0; ox < g->ow; ox++) {
        int64_t x0 = adaptive_start(ox, g->w, g->ow), x1 = adaptive_end(ox, g->w, g->ow);
        /* PyTorch's adaptive_max_pool2d_kernel_impl: -inf at the window's first element,
         * then any larger value or NaN */
        double best = -INFINITY;
        int64_t best_at = y0 * g->w + x0;
        for (int64_t yy = y0; yy < y1; yy++)
          for (int64_t xx = x0; xx < x1; xx++) {
            double v = plane[yy * g->w + xx];
            if (v > best || isnan(v)) {
              best = v;
              best_at = yy * g->w + xx;
            }
          }
        int64_t o = (p * g->oh + oy) * g->ow + ox;
        out[o] = best;
        at[o] = best_at;
      }
    }
  }
  max_buffers_finish(&b, self->dtype, values, indices);
  return true;
}

bool pool_adaptive_max_geometry(const RtTensor *self, const int64_t out_size[2], PoolGeom *g,
                                GError **error) {
  char have[256];
  k_shape_text(have, sizeof have, self->ndim, self->sizes);
  if (self->ndim != 3 && self->ndim != 4) {
    K_ERR_SHAPE(error, "adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: %s", have);
    return false;
  }
  for (int i = 1; i < self->ndim; i++)
    if (self->sizes[i] == 0) {
      K_ERR_SHAPE(error,
                  "adaptive_max_pool2d(): Expected input to have non-zero size for non-batch "
                  "dimensions, but input has sizes %s with dimension %d being empty",
                  have, i);
      return false;
    }
  int64_t sizes[RT_MAX_DIMS];
  pooled_sizes(self, out_size[0], out_size[1], sizes);
  if (out_size[0] < 0 || out_size[1] < 0) {
    char want[256];
    k_shape_text(want, sizeof want, self->ndim, sizes);
    K_ERR_SHAPE(error, "Trying to create tensor with negative dimension %" G_GINT64_FORMAT ": %s",
                MIN(out_size[0], out_size[1]), want);
    return false;
  }
  if (!k_dtype_is_float(self->dtype)) {
    K_ERR_DTYPE(error, "\"adaptive_max_pool2d\" not implemented for '%s'",
                ir_dtype_type_name(self->dtype));
    return false;
  }
  *g = (PoolGeom){.h = self->sizes[self->ndim - 2],
                  .w = self->sizes[self->ndim - 1],
                  .oh = out_size[0],
                  .ow = out_size[1]};
  g->planes = rt_tensor_numel(self) / (g->h * g->w);
  return true;
}

bool rt_kernel_adaptive_max_pool2d(const IrSchema *schema, const IrNode *node, RtValue *args,
                                   guint n_args, RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  RtTensor *self;
  int64_t out_size[2];
  PoolGeom g;
  if (!k_arg_tensor(schema, args, 0, &self, error) ||
      !k_arg_spatial_list(schema, args, 1, 2, NULL, out_size, error) ||
      !pool_adaptive_max_geometry(self, out_size, &g, error) ||
      !pool_adaptive_fits(schema, &g, error))
    return false;
  int64_t sizes[RT_MAX_DIMS];
  pooled_sizes(self, g.oh, g.ow, sizes);
  return pool_adaptive_max_run(&g, self, self->ndim, sizes, &outs[0], &outs[1], error);
}

bool rt_kernel_adaptive_max_pool2d_backward(const IrSchema *schema, const IrNode *node,
                                            RtValue *args, guint n_args, RtValue *outs,
                                            guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  RtTensor *grad, *self, *indices;
  if (!k_arg_tensor(schema, args, 0, &grad, error) ||
      !k_arg_tensor(schema, args, 1, &self, error) ||
      !k_arg_tensor(schema, args, 2, &indices, error))
    return false;
  if (grad->ndim != self->ndim || grad->ndim < 2) {
    K_ERR_SHAPE(error, "%s(): grad_output and self must have the same rank",
                k_op_short_name(schema));
    return false;
  }
  int64_t out_size[2] = {grad->sizes[grad->ndim - 2], grad->sizes[grad->ndim - 1]};
  PoolGeom g;
  if (!pool_adaptive_max_geometry(self, out_size, &g, error) ||
      !pooled_like(schema, "grad_output", grad, self, g.oh, g.ow, error) ||
      !pooled_like(schema, "indices", indices, self, g.oh, g.ow, error))
    return false;
  return scatter_at_indices(schema, grad, indices, self, g.planes, g.h * g.w, &outs[0], error);
}
