/* 1-D poolings: rt_kernel_max_pool1d (max_pool1d, max_pool1d_with_indices),
 * rt_kernel_avg_pool1d, rt_kernel_adaptive_avg_pool1d and rt_kernel_adaptive_max_pool1d.
 *
 * Contracts as PyTorch 1.13 (aten/src/ATen/native/Pooling.cpp, MaxPooling.cpp): self is
 * [C, W] or [N, C, W], pooled as the 2-D pool of [N,] C, 1, W planes with kernel (1, k),
 * stride (1, s; an empty stride is the kernel), padding (0, p), dilation (1, d) and output
 * size (1, o), the result squeezed back (the loops of kernels_pool.h). Each op checks in
 * PyTorch's order and words: its own rank and one-int lists first, then what the 2-D op it
 * calls checks on the unsqueezed input, then the dtype.
 * - max_pool1d runs MaxPooling.cpp's own checks (check_max_pool1d): a batch of 0 is allowed,
 *   an empty channel or width dim is not, and a window count of 0 gives an empty result;
 *   floating dtypes only. (PyTorch runs max_pool1d through max_pool1d_with_indices when self
 *   requires grad, whose checks are the 2-D ones below; jitscope always checks as without.)
 * - max_pool1d_with_indices and avg_pool1d run max_pool2d_with_indices' and avg_pool2d's
 *   checks; avg_pool1d also averages int64 (truncating, as PyTorch's integer division).
 * - adaptive_avg_pool1d: an output size of 1 is PyTorch's mean over the width (NaN for an
 *   empty width, floating dtypes only, mean's message); otherwise _adaptive_avg_pool2d.
 * - adaptive_max_pool1d: adaptive_max_pool2d's checks and kernel. */
#include "runtime/kernels.h"
#include "runtime/kernels_pool.h"

#include <string.h>

/* checkDimRange(op, self, 2, 4). */
static bool rank_2_or_3(const char *op, const RtTensor *self, GError **error) {
  if (self->ndim == 2 || self->ndim == 3)
    return true;
  K_ERR_SHAPE(error,
              "Expected 2 to 3 dimensions, but got %d-dimensional tensor for argument #1 'self' "
              "(while checking arguments for %s)",
              self->ndim, op);
  return false;
}

/* The int[1] argument args[i] (check1d's message otherwise); an empty list is *out unchanged
 * when empty_ok (stride: the kernel size). */
static bool one_int(const IrSchema *schema, RtValue *args, guint i, const char *op, bool empty_ok,
                    int64_t *out, GError **error) {
  int64_t vals[RT_MAX_DIMS];
  int n;
  if (!k_arg_int_list(schema, args, i, vals, &n, error))
    return false;
  if (n == 0 && empty_ok)
    return true;
  if (n != 1) {
    K_ERR(error, "%s() argument '%s' should contain one int (got %d)", op, schema->args[i].name, n);
    return false;
  }
  *out = vals[0];
  return true;
}

/* kernel_size, stride (empty: the kernel size), padding and, when `dilated`, dilation at
 * args[1..4], each one int. */
static bool window_args(const IrSchema *schema, RtValue *args, const char *op, bool dilated,
                        int64_t *k, int64_t *s, int64_t *p, int64_t *d, GError **error) {
  if (!one_int(schema, args, 1, op, false, k, error))
    return false;
  *s = *k;
  return one_int(schema, args, 2, op, true, s, error) &&
         one_int(schema, args, 3, op, false, p, error) &&
         (!dilated || one_int(schema, args, 4, op, false, d, error));
}

/* self's sizes with the width replaced by `width`. */
static void width_sizes(const RtTensor *self, int64_t width, int64_t *sizes) {
  memcpy(sizes, self->sizes, sizeof(int64_t) * (size_t)self->ndim);
  sizes[self->ndim - 1] = width;
}

/* A geometry of planes 1 x W (one per element of the dims before the width, even where the
 * width is 0) pooled by a window of k taps. */
static void geometry_1d(const RtTensor *self, int64_t k, int64_t s, int64_t p, int64_t d,
                        bool ceil_mode, PoolGeom *g) {
  *g = (PoolGeom){.planes = 1,
                  .h = 1,
                  .w = self->sizes[self->ndim - 1],
                  .oh = 1,
                  .kernel = {1, k},
                  .stride = {1, s},
                  .pad = {0, p},
                  .dil = {1, d},
                  .ceil_mode = ceil_mode};
  for (int i = 0; i < self->ndim - 1; i++)
    g->planes *= self->sizes[i];
}

static bool window_count(const PoolGeom *g, const char *op, int64_t *out, GError **error) {
  if (k_window_count(g->w, g->kernel[1], g->stride[1], g->pad[1], g->dil[1], g->ceil_mode, out))
    return true;
  K_ERR(error, "%s(): the output size of a width of %" G_GINT64_FORMAT " overflows", op, g->w);
  return false;
}

/* max_pool2d_with_indices' and avg_pool2d's checks of the unsqueezed input [N,] C, 1, W (the
 * window arguments of pooling_output_shape, then pool2d_shape_check's), and the window
 * count. */
static bool check_as_2d(const RtTensor *self, PoolGeom *g, const char *op, GError **error) {
  int64_t k = g->kernel[1], s = g->stride[1], p = g->pad[1], d = g->dil[1];
  if (s == 0) {
    K_ERR(error, "stride should not be zero");
    return false;
  }
  if (p < 0) {
    K_ERR(error, "pad must be non-negative, but got pad: %" G_GINT64_FORMAT, p);
    return false;
  }
  if (p > k / 2) {
    K_ERR(error,
          "pad should be at most half of kernel size, but got pad=%" G_GINT64_FORMAT
          " and kernel_size=%" G_GINT64_FORMAT,
          p, k);
    return false;
  }
  if (k <= 0) {
    K_ERR(error, "kernel size should be greater than zero, but got kH: 1 kW: %" G_GINT64_FORMAT, k);
    return false;
  }
  if (s < 0) {
    K_ERR(error, "stride should be greater than zero, but got dH: 1 dW: %" G_GINT64_FORMAT, s);
    return false;
  }
  if (d <= 0) {
    K_ERR(error,
          "dilation should be greater than zero, but got dilationH: 1 dilationW: %" G_GINT64_FORMAT,
          d);
    return false;
  }
  int64_t channels = self->sizes[self->ndim - 2];
  if (channels == 0 || g->w == 0) {
    int64_t sizes[RT_MAX_DIMS];
    char have[256];
    memcpy(sizes, self->sizes, sizeof(int64_t) * (size_t)self->ndim);
    sizes[self->ndim - 1] = 1;
    sizes[self->ndim] = g->w;
    k_shape_text(have, sizeof have, self->ndim + 1, sizes);
    K_ERR_SHAPE(error,
                "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, "
                "but got:%s",
                have);
    return false;
  }
  if (!window_count(g, op, &g->ow, error))
    return false;
  if (g->ow < 1) {
    K_ERR_SHAPE(error,
                "Given input size: (%" G_GINT64_FORMAT "x1x%" G_GINT64_FORMAT
                "). Calculated output size: (%" G_GINT64_FORMAT "x1x%" G_GINT64_FORMAT
                "). Output size is too small",
                channels, g->w, channels, g->ow);
    return false;
  }
  return true;
}

static bool not_implemented(const char *what, IrDtype dtype, GError **error) {
  K_ERR_DTYPE(error, "\"%s\" not implemented for '%s'", what, ir_dtype_type_name(dtype));
  return false;
}

/* max_pool1d's own checks (MaxPooling.cpp), after the window arguments were read. */
static bool check_max_pool1d(const RtTensor *self, PoolGeom *g, GError **error) {
  int64_t k = g->kernel[1], s = g->stride[1], p = g->pad[1], d = g->dil[1];
  if (k <= 0) {
    K_ERR(error, "max_pool1d() kernel_size must be greater than zero, but got %" G_GINT64_FORMAT,
          k);
    return false;
  }
  if (s <= 0) {
    K_ERR(error, "max_pool1d() stride must be greater than zero, but got %" G_GINT64_FORMAT, s);
    return false;
  }
  if (p < 0) {
    K_ERR(error, "max_pool1d() padding must be non-negative, but got %" G_GINT64_FORMAT, p);
    return false;
  }
  if (p > k / 2) {
    K_ERR(error,
          "max_pool1d() padding should be at most half of kernel size, but got "
          "padding=%" G_GINT64_FORMAT " and kernel_size=%" G_GINT64_FORMAT,
          p, k);
    return false;
  }
  if (d <= 0) {
    K_ERR(error, "max_pool1d() dilation must be greater than zero, but got %" G_GINT64_FORMAT, d);
    return false;
  }
  if (!window_count(g, "max_pool1d", &g->ow, error))
    return false;
  if (g->ow < 0) {
    K_ERR_SHAPE(error, "max_pool1d() Invalid computed output size: %" G_GINT64_FORMAT, g->ow);
    return false;
  }
  return k_dtype_is_float(self->dtype) || not_implemented("max_pool1d_impl", self->dtype, error);
}

/* max_pool1d's message for a rank or empty dim it refuses (a batch of 0 passes). */
static bool max_pool1d_input(const RtTensor *self, GError **error) {
  const int64_t *sz = self->sizes;
  if ((self->ndim == 2 && sz[0] != 0 && sz[1] != 0) ||
      (self->ndim == 3 && sz[1] != 0 && sz[2] != 0))
    return true;
  char have[256];
  k_shape_text(have, sizeof have, self->ndim, self->sizes);
  K_ERR_SHAPE(error,
              "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size "
              "for input, but got:%s",
              have);
  return false;
}

bool rt_kernel_max_pool1d(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                          RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  bool with_indices = schema->kind == IR_ATEN_MAX_POOL1D_WITH_INDICES;
  RtTensor *self;
  int64_t k = 0, s = 0, p = 0, d = 0;
  bool ceil_mode;
  if (!k_arg_tensor(schema, args, 0, &self, error))
    return false;
  if (!with_indices) {
    int64_t vals[RT_MAX_DIMS];
    int n[4];
    static const char *const expected[4] = {
        "kernel_size must be an int, list of ints or tuple of ints of size 1",
        "stride must be None, an int, list of ints, or tuple of ints of size 1",
        "padding must be an int, list of ints, or tuple of ints of size 1",
        "dilation must be an int, list of ints or tuple of ints of size 1"};
    int64_t *dest[4] = {&k, &s, &p, &d};
    if (!max_pool1d_input(self, error))
      return false;
    for (int i = 0; i < 4; i++) {
      if (!k_arg_int_list(schema, args, 1 + (guint)i, vals, &n[i], error))
        return false;
      if (n[i] != 1 && !(i == 1 && n[i] == 0)) {
        K_ERR(error, "max_pool1d() %s but got size %d", expected[i], n[i]);
        return false;
      }
      *dest[i] = n[i] ? vals[0] : k;
    }
  } else if (!rank_2_or_3("max_pool1d", self, error) ||
             !window_args(schema, args, "max_pool1d", true, &k, &s, &p, &d, error)) {
    return false;
  }
  if (!k_arg_bool(schema, args, 5, &ceil_mode, error))
    return false;
  PoolGeom g;
  geometry_1d(self, k, s, p, d, ceil_mode, &g);
  if (with_indices ? !check_as_2d(self, &g, "max_pool1d", error) ||
                         (!k_dtype_is_float(self->dtype) &&
                          !not_implemented("max_pool2d", self->dtype, error))
                   : !check_max_pool1d(self, &g, error))
    return false;
  int64_t sizes[RT_MAX_DIMS];
  width_sizes(self, g.ow, sizes);
  return pool_max_run(&g, self, self->ndim, sizes, &outs[0], with_indices ? &outs[1] : NULL, error);
}

bool rt_kernel_avg_pool1d(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                          RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  RtTensor *self;
  int64_t k = 0, s = 0, p = 0;
  bool ceil_mode, include_pad;
  if (!k_arg_tensor(schema, args, 0, &self, error) || !rank_2_or_3("avg_pool1d", self, error) ||
      !window_args(schema, args, "avg_pool1d", false, &k, &s, &p, NULL, error) ||
      !k_arg_bool(schema, args, 4, &ceil_mode, error) ||
      !k_arg_bool(schema, args, 5, &include_pad, error))
    return false;
  PoolGeom g;
  geometry_1d(self, k, s, p, 1, ceil_mode, &g);
  if (!check_as_2d(self, &g, "avg_pool1d", error))
    return false;
  if (!k_dtype_is_float(self->dtype) && self->dtype != IR_DTYPE_INT64)
    return not_implemented("avg_pool2d", self->dtype, error);
  int64_t sizes[RT_MAX_DIMS];
  width_sizes(self, g.ow, sizes);
  return pool_avg_run(&g, self, include_pad, 0, self->ndim, sizes, &outs[0], error);
}

bool rt_kernel_adaptive_avg_pool1d(const IrSchema *schema, const IrNode *node, RtValue *args,
                                   guint n_args, RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  RtTensor *self;
  int64_t out = 0;
  if (!k_arg_tensor(schema, args, 0, &self, error) ||
      !rank_2_or_3("adaptive_avg_pool1d", self, error) ||
      !one_int(schema, args, 1, "adaptive_avg_pool1d", false, &out, error))
    return false;
  if (out < 0) {
    K_ERR(error,
          "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but "
          "received {1, %" G_GINT64_FORMAT "}",
          out);
    return false;
  }
  PoolGeom g;
  geometry_1d(self, 1, 1, 0, 1, false, &g);
  g.ow = out;
  if (out == 1) { /* PyTorch's mean over the plane */
    if (!k_dtype_is_float(self->dtype)) {
      K_ERR_DTYPE(error,
                  "mean(): could not infer output dtype. Input dtype must be either a floating "
                  "point or complex dtype. Got: %s",
                  ir_dtype_type_name(self->dtype));
      return false;
    }
  } else if (g.w == 0) {
    int64_t sizes[RT_MAX_DIMS];
    char have[256];
    memcpy(sizes, self->sizes, sizeof(int64_t) * (size_t)self->ndim);
    sizes[self->ndim - 1] = 1;
    sizes[self->ndim] = 0;
    k_shape_text(have, sizeof have, self->ndim + 1, sizes);
    K_ERR_SHAPE(error,
                "adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch "
                "dimensions, but input has sizes %s with dimension %d being empty",
                have, self->ndim);
    return false;
  } else if (!k_dtype_is_float(self->dtype)) {
    return not_implemented("adaptive_avg_pool2d", self->dtype, error);
  }
  if (!pool_adaptive_fits(schema, &g, error))
    return false;
  int64_t sizes[RT_MAX_DIMS];
  width_sizes(self, out, sizes);
  return pool_adaptive_avg_run(&g, self, self->ndim, sizes, &outs[0], error);
}

bool rt_kernel_adaptive_max_pool1d(const IrSchema *schema, const IrNode *node, RtValue *args,
                                   guint n_args, RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  RtTensor *self;
  int64_t out = 0;
  if (!k_arg_tensor(schema, args, 0, &self, error) ||
      !rank_2_or_3("adaptive_max_pool1d", self, error) ||
      !one_int(schema, args, 1, "adaptive_max_pool1d", false, &out, error))
    return false;
  RtTensor *planes_2d = rt_tensor_view_unsqueeze(self, self->ndim - 1);
  PoolGeom g;
  bool ok = pool_adaptive_max_geometry(planes_2d, (const int64_t[2]){1, out}, &g, error);
  rt_tensor_unref(planes_2d);
  if (!ok || !pool_adaptive_fits(schema, &g, error))
    return false;
  int64_t sizes[RT_MAX_DIMS];
  width_sizes(self, out, sizes);
  return pool_adaptive_max_run(&g, self, self->ndim, sizes, &outs[0], &outs[1], error);
}
