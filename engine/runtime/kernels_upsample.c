/* 2-D upsampling: rt_kernel_upsample2d serves upsample_nearest2d, upsample_bilinear2d and
 * their _backward ops, each in its .vec overload (output_size or scale_factors, what
 * F.interpolate calls in 1.13) and its plain one (int[2] output_size, scales_h, scales_w: what
 * 2019's traces print, often without the scales).
 *
 * Contracts, as PyTorch 1.13's CPU kernels (aten/src/ATen/native/UpSample.h and
 * cpu/UpSampleKernel.cpp):
 * - The input is 4-D [N, C, H, W], float32 or float64, with C, H and W non-zero (N may be 0).
 *   .vec takes exactly one of output_size and scale_factors, each with one entry per spatial
 *   dim; scale factors give the output size trunc(in * scale). Output sizes must be positive.
 * - nearest: output index o reads input min(floor(o * s), in - 1) with s the float
 *   1 / scale when a positive scale is given, else in / out (in float, also for float64
 *   tensors); o itself when out == in, o >> 1 when out == 2 in.
 * - bilinear: the source coordinate of o is s * o (align_corners) or max(s (o + 0.5) - 0.5, 0),
 *   s being (in - 1) / (out - 1) (align_corners; 0 for out == 1), else as nearest's; it lies
 *   between input i0 = trunc(coordinate) (at most in - 1: PyTorch 1.13 reads past the plane
 *   when the plain overload's scales disagree with output_size) and i1 = i0 + 1 (i0 at the
 *   edge), weights 1 - l and l. Each output is h0 (w0 s00 + w1 s01) + h1 (w0 s10 + w1 s11).
 * - The backward ops add each output gradient into the inputs it was read from (bilinear:
 *   times the two weights), row by row of the output.
 * - Arithmetic is the tensor's dtype's: a float32 tensor's values are rounded to float after
 *   every operation, as PyTorch computes them in float, and a * b + c is rounded once where
 *   PyTorch's build contracts it to an FMA (the source coordinate, the backward's sums).
 *   Nearest's results are PyTorch's bit for bit; bilinear's differ from them by an ulp or two
 *   where its vectorized loops associate the four products otherwise. */
#include "runtime/kernels.h"
#include "runtime/kernels_internal.h"

#include <math.h>
#include <string.h>

typedef struct {
  bool bilinear, align_corners, single;
  int64_t batch, channels, ih, iw, oh, ow;
  bool has_scale[2];
  double scale[2]; /* as given: scales_h/scales_w or scale_factors */
} Upsample;

/* v rounded as the tensor's arithmetic rounds it. */
static inline double round_as(bool single, double v) {
  return single ? (double)(float)v : v;
}

/* a * b + c rounded once, as PyTorch's kernels compute it (compiled with FMA contraction). */
static inline double mul_add(bool single, double a, double b, double c) {
  return single ? (double)fmaf((float)a, (float)b, (float)c) : fma(a, b, c);
}

/* A float[]? argument: *n entries (at most `max`), or *n = -1 for None. */
static bool float_list_arg(const IrSchema *schema, RtValue *args, guint i, double *out, int max,
                           int *n, GError **error) {
  RtValue v = args[i];
  if (v.tag == RT_NONE) {
    *n = -1;
    return true;
  }
  if (v.tag != RT_LIST && v.tag != RT_TUPLE) {
    K_ERR(error, "%s(): argument '%s' (position %u) must be a list of floats",
          k_op_short_name(schema), schema->args[i].name, i + 1);
    return false;
  }
  if (v.u.seq->len > (guint)max) {
    K_ERR(error, "%s(): argument '%s' has %u entries, expected %d", k_op_short_name(schema),
          schema->args[i].name, v.u.seq->len, max);
    return false;
  }
  for (guint k = 0; k < v.u.seq->len; k++) {
    RtValue item = v.u.seq->items[k];
    if (item.tag != RT_DOUBLE && item.tag != RT_INT) {
      K_ERR(error, "%s(): argument '%s' item %u is not a float", k_op_short_name(schema),
            schema->args[i].name, k);
      return false;
    }
    out[k] = item.tag == RT_DOUBLE ? item.u.d : (double)item.u.i;
  }
  *n = (int)v.u.seq->len;
  return true;
}

/* A float? argument into u->scale[d]. */
static bool scale_arg(const IrSchema *schema, RtValue *args, guint i, Upsample *u, int d,
                      GError **error) {
  if (args[i].tag == RT_NONE)
    return true;
  KScalar s;
  if (!k_arg_scalar(schema, args, i, &s, error))
    return false;
  u->has_scale[d] = true;
  u->scale[d] = s.d;
  return true;
}

/* trunc(in * scale) as 1.13's compute_output_size, refused where int64 cannot hold it. */
static bool scaled_size(const IrSchema *schema, int64_t in, double scale, int64_t *out,
                        GError **error) {
  double size = (double)in * scale;
  if (isnan(scale)) {
    K_ERR(error, "%s(): scale factor nan gives no output size", k_op_short_name(schema));
    return false;
  }
  if (!(fabs(size) < 9.2e18)) {
    K_ERR(error, "%s(): scale factor %g makes an output size that is too large",
          k_op_short_name(schema), scale);
    return false;
  }
  *out = (int64_t)size;
  return true;
}

/* Reads every argument after the tensor: the sizes of input and output, align_corners and
 * the scales. `input` is the forward's input, or NULL for a backward op (its input_size). */
static bool upsample_args(const IrSchema *schema, RtValue *args, const RtTensor *input,
                          Upsample *u, GError **error) {
  const char *op = k_op_short_name(schema);
  bool backward = schema->kind == IR_ATEN_UPSAMPLE_NEAREST2D_BACKWARD ||
                  schema->kind == IR_ATEN_UPSAMPLE_BILINEAR2D_BACKWARD;
  bool vec = strcmp(schema->overload, "vec") == 0;
  memset(u, 0, sizeof *u);
  u->bilinear = schema->kind == IR_ATEN_UPSAMPLE_BILINEAR2D ||
                schema->kind == IR_ATEN_UPSAMPLE_BILINEAR2D_BACKWARD;
  int64_t in_sizes[RT_MAX_DIMS];
  int in_rank = 0;
  guint at = 2;
  if (backward) {
    if (!k_arg_int_list(schema, args, at++, in_sizes, &in_rank, error))
      return false;
  } else {
    in_rank = input->ndim;
    memcpy(in_sizes, input->sizes, sizeof(int64_t) * (size_t)input->ndim);
  }
  if (u->bilinear && !k_arg_bool(schema, args, at++, &u->align_corners, error))
    return false;
  int64_t out_size[RT_MAX_DIMS];
  int n_out = -1;
  if (!k_arg_is_none(args, 1) && !k_arg_int_list(schema, args, 1, out_size, &n_out, error))
    return false;
  int spatial = in_rank - 2;
  if (vec) {
    double factors[RT_MAX_DIMS];
    int n_factors;
    if (!float_list_arg(schema, args, at, factors, RT_MAX_DIMS, &n_factors, error))
      return false;
    if ((n_out >= 0) == (n_factors >= 0)) {
      K_ERR(error, "%s(): Must specify exactly one of output_size and scale_factors", op);
      return false;
    }
    int given = n_out >= 0 ? n_out : n_factors;
    if (given != spatial) {
      K_ERR_SHAPE(error, "%s(): %s has %d entries for an input of %d spatial dims", op,
                  n_out >= 0 ? "output_size" : "scale_factors", given, spatial);
      return false;
    }
    for (int d = 0; n_factors >= 0 && d < 2 && d < spatial; d++) {
      u->has_scale[d] = true;
      u->scale[d] = factors[d];
      if (!scaled_size(schema, in_sizes[d + 2], factors[d], &out_size[d], error))
        return false;
    }
  } else {
    if (n_out != 2) {
      K_ERR_SHAPE(error, "%s(): It is expected output_size equals to 2, but got size %d", op,
                  n_out);
      return false;
    }
    if (!scale_arg(schema, args, at, u, 0, error) || !scale_arg(schema, args, at + 1, u, 1, error))
      return false;
  }
  if (in_rank != 4) {
    K_ERR_SHAPE(error, "%s(): It is expected input_size equals to 4, but got size %d", op,
                in_rank);
    return false;
  }
  u->batch = in_sizes[0];
  u->channels = in_sizes[1];
  u->ih = in_sizes[2];
  u->iw = in_sizes[3];
  u->oh = out_size[0];
  u->ow = out_size[1];
  if (u->ih <= 0 || u->iw <= 0 || u->oh <= 0 || u->ow <= 0) {
    K_ERR_SHAPE(error,
                "%s(): Input and output sizes should be greater than 0, but got input (H: "
                "%" G_GINT64_FORMAT ", W: %" G_GINT64_FORMAT ") output (H: %" G_GINT64_FORMAT
                ", W: %" G_GINT64_FORMAT ")",
                op, u->ih, u->iw, u->oh, u->ow);
    return false;
  }
  if (u->channels <= 0 || u->batch < 0) {
    K_ERR_SHAPE(error, "%s(): Non-empty 4D data tensor expected, but it has %" G_GINT64_FORMAT
                " channels", op, u->channels);
    return false;
  }
  return true;
}

static bool float_dtype(const IrSchema *schema, const RtTensor *t, bool bilinear, GError **error) {
  if (t->dtype == IR_DTYPE_FLOAT32 || t->dtype == IR_DTYPE_FLOAT64)
    return true;
  K_ERR_DTYPE(error, "\"%s\" not implemented for '%s'",
              bilinear ? "compute_indices_weights_linear" : "compute_indices_weights_nearest",
              ir_dtype_type_name(t->dtype));
  return false;
}

/* 1.13's compute_scales_value: 1 / scale for a positive given scale, else in / out. */
static double scales_value(bool single, bool has, double scale, int64_t in, int64_t out) {
  if (has && scale > 0)
    return round_as(single, 1.0 / scale);
  return round_as(single, round_as(single, (double)in) / round_as(single, (double)out));
}

/* The input index nearest's output index o reads along one dim. */
static int64_t nearest_index(int64_t o, int64_t in, int64_t out, bool has, double scale) {
  if (out == in)
    return o;
  if (out == 2 * in)
    return o >> 1;
  float s = (float)scales_value(true, has, scale, in, out);
  int64_t i = (int64_t)floorf((float)o * s);
  return i < in - 1 ? i : in - 1;
}

/* Where bilinear's output index o reads along one dim: i0, i1 and their weights. */
typedef struct {
  int64_t i0, i1;
  double l0, l1;
} Tap;

static Tap linear_tap(const Upsample *u, int d, int64_t o) {
  int64_t in = d == 0 ? u->ih : u->iw, out = d == 0 ? u->oh : u->ow;
  bool single = u->single;
  if (out == in)
    return (Tap){o, o, 1, 0};
  double s;
  if (u->align_corners)
    s = out > 1 ? round_as(single, round_as(single, (double)(in - 1)) / (double)(out - 1)) : 0;
  else
    s = scales_value(single, u->has_scale[d], u->scale[d], in, out);
  double real;
  if (u->align_corners) {
    real = round_as(single, s * round_as(single, (double)o));
  } else {
    real = mul_add(single, s, round_as(single, (double)o + 0.5), -0.5);
    real = real < 0 ? 0 : real;
  }
  Tap t;
  t.i0 = (int64_t)real;
  if (t.i0 > in - 1)
    t.i0 = in - 1;
  t.i1 = t.i0 + (t.i0 < in - 1 ? 1 : 0);
  t.l1 = round_as(single, real - (double)t.i0);
  t.l1 = t.l1 < 0 ? 0 : t.l1 > 1 ? 1 : t.l1;
  t.l0 = round_as(single, 1.0 - t.l1);
  return t;
}

/* The taps of every output index along both dims (nearest: weight 1 on i0). */
static void taps(const Upsample *u, Tap *rows, Tap *cols) {
  for (int64_t o = 0; o < u->oh; o++)
    rows[o] = u->bilinear ? linear_tap(u, 0, o)
                          : (Tap){nearest_index(o, u->ih, u->oh, u->has_scale[0], u->scale[0]),
                                  0, 1, 0};
  for (int64_t o = 0; o < u->ow; o++)
    cols[o] = u->bilinear ? linear_tap(u, 1, o)
                          : (Tap){nearest_index(o, u->iw, u->ow, u->has_scale[1], u->scale[1]),
                                  0, 1, 0};
}

static void upsample_plane(const Upsample *u, const Tap *rows, const Tap *cols, const double *in,
                           double *out) {
  bool single = u->single;
  for (int64_t oy = 0; oy < u->oh; oy++) {
    const Tap *r = &rows[oy];
    const double *row0 = in + r->i0 * u->iw, *row1 = in + r->i1 * u->iw;
    for (int64_t ox = 0; ox < u->ow; ox++) {
      const Tap *c = &cols[ox];
      if (!u->bilinear) {
        out[oy * u->ow + ox] = row0[c->i0];
        continue;
      }
      double t0 = mul_add(single, row0[c->i1], c->l1, round_as(single, row0[c->i0] * c->l0));
      double t1 = mul_add(single, row1[c->i1], c->l1, round_as(single, row1[c->i0] * c->l0));
      out[oy * u->ow + ox] = mul_add(single, t1, r->l1, round_as(single, t0 * r->l0));
    }
  }
}

static void upsample_plane_backward(const Upsample *u, const Tap *rows, const Tap *cols,
                                    const double *grad, double *dx) {
  bool single = u->single;
  for (int64_t oy = 0; oy < u->oh; oy++) {
    const Tap *r = &rows[oy];
    for (int64_t ox = 0; ox < u->ow; ox++) {
      const Tap *c = &cols[ox];
      double g = grad[oy * u->ow + ox];
      if (!u->bilinear) {
        double *at = &dx[r->i0 * u->iw + c->i0];
        *at = round_as(single, *at + g);
        continue;
      }
      const int64_t ys[2] = {r->i0, r->i1}, xs[2] = {c->i0, c->i1};
      const double hs[2] = {r->l0, r->l1}, ws[2] = {c->l0, c->l1};
      for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++) {
          double *at = &dx[ys[a] * u->iw + xs[b]];
          *at = mul_add(single, round_as(single, hs[a] * ws[b]), g, *at);
        }
    }
  }
}

bool rt_kernel_upsample2d(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                          RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  bool backward = schema->kind == IR_ATEN_UPSAMPLE_NEAREST2D_BACKWARD ||
                  schema->kind == IR_ATEN_UPSAMPLE_BILINEAR2D_BACKWARD;
  RtTensor *x;
  Upsample u;
  if (!k_arg_tensor(schema, args, 0, &x, error) ||
      !upsample_args(schema, args, backward ? NULL : x, &u, error) ||
      !float_dtype(schema, x, u.bilinear, error))
    return false;
  u.single = x->dtype == IR_DTYPE_FLOAT32;
  int64_t in_sizes[4] = {u.batch, u.channels, u.ih, u.iw};
  int64_t out_sizes[4] = {u.batch, u.channels, u.oh, u.ow};
  if (backward && (x->ndim != 4 || memcmp(x->sizes, out_sizes, sizeof out_sizes) != 0)) {
    char have[256], want[256];
    k_shape_text(have, sizeof have, x->ndim, x->sizes);
    k_shape_text(want, sizeof want, 4, out_sizes);
    K_ERR_SHAPE(error, "%s(): grad_output has size %s, expected %s", k_op_short_name(schema),
                have, want);
    return false;
  }
  if (u.batch == 0) { /* nothing to compute, and output sizes need not fit in memory */
    RtTensor *empty = rt_tensor_new_checked(x->dtype, 4, backward ? in_sizes : out_sizes, error);
    if (empty)
      outs[0] = rt_tensor(empty);
    return empty != NULL;
  }
  RtTensor *y = backward ? rt_tensor_zeros_checked(IR_DTYPE_FLOAT64, 4, in_sizes, error)
                         : rt_tensor_new_checked(IR_DTYPE_FLOAT64, 4, out_sizes, error);
  if (!y)
    return false;
  g_autofree Tap *rows = g_new(Tap, u.oh);
  g_autofree Tap *cols = g_new(Tap, u.ow);
  taps(&u, rows, cols);
  RtTensor *xd = rt_tensor_to_dtype(x, IR_DTYPE_FLOAT64);
  const double *src = rt_tensor_data(xd);
  double *dst = rt_tensor_data(y);
  int64_t in_plane = u.ih * u.iw, out_plane = u.oh * u.ow;
  for (int64_t p = 0; p < u.batch * u.channels; p++) {
    if (backward)
      upsample_plane_backward(&u, rows, cols, src + p * out_plane, dst + p * in_plane);
    else
      upsample_plane(&u, rows, cols, src + p * in_plane, dst + p * out_plane);
  }
  rt_tensor_unref(xd);
  RtTensor *cast = k_to_dtype(y, x->dtype);
  rt_tensor_unref(y);
  outs[0] = rt_tensor(cast);
  return true;
}
