/* Convolutions: rt_kernel_conv (conv1d, conv2d, _convolution) and rt_kernel_conv_backward
 * (convolution_backward), as im2col plus one BLAS GEMM per image and group.
 *
 * Contracts as PyTorch 1.13:
 * - conv2d(input [N, C, H, W] or unbatched [C, H, W], weight [OC, C / groups, KH, KW], bias
 *   [OC] or None, stride, padding, dilation, groups); conv1d the same with one spatial dim
 *   (run as a conv2d of height 1). int[] arguments take one value for every dim.
 * - conv2d.padding / conv1d.padding: padding 'valid' (none) or 'same' (stride 1 only; in all
 *   dilation * (k - 1) per dim, half of it before the input and the odd one after).
 * - _convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
 *   groups, benchmark, deterministic, cudnn_enabled[, allow_tf32]), what torch.jit.trace
 *   records: conv1d or conv2d by the weight's rank, transposed or not.
 * - conv_transpose2d.input / conv_transpose1d(input, weight [C, OC / groups, KH, KW], bias
 *   [OC], stride, padding, output_padding, groups, dilation): the adjoint of the convolution
 *   of weight, output size (in - 1) stride - 2 padding + dilation (k - 1) + output_padding + 1;
 *   output_padding smaller than stride or dilation.
 * - stride and dilation positive, padding non-negative, groups positive, C and OC divisible
 *   by groups, input and weight of one floating dtype, a kernel no larger than the padded
 *   input: PyTorch's errors otherwise. Output sizes are checked for int64 overflow.
 * - convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation,
 *   transposed, output_padding, groups, output_mask): the gradients of input, weight and
 *   bias where output_mask asks, undefined elsewhere; transposed or not.
 * float32 computes in float32 (cblas_sgemm), as PyTorch; float64 in float64 (cblas_dgemm);
 * float16 in float32, stored back as float16. */
#include "runtime/kernels.h"
#include "runtime/kernels_internal.h"

#include <cblas.h>
#include <limits.h>
#include <string.h>

/* One convolution as 2-D: n images of c channels h x w, oc filters kh x kw. */
typedef struct {
  bool batched;
  int spatial; /* 1 for conv1d, 2 for conv2d */
  int64_t n, c, h, w, oc, kh, kw, oh, ow, groups;
  int64_t stride[2], pad[2], dil[2];
  int64_t pad_hi[2];  /* the padding after the input: pad but for padding='same' */
  int64_t out_pad[2]; /* a transposed convolution's output_padding */
  bool same;          /* padding='same', resolved by conv_geometry once the kernel is known */
} ConvGeom;

/* The .padding overloads' str padding: 'valid' (none) or 'same' (g->same). */
static bool padding_mode(const IrSchema *schema, RtValue v, ConvGeom *g, GError **error) {
  g->same = v.tag == RT_STR && strcmp(v.u.s->text, "same") == 0;
  if (v.tag != RT_STR || (!g->same && strcmp(v.u.s->text, "valid") != 0)) {
    K_ERR(error, "Invalid padding string: '%s'", v.tag == RT_STR ? v.u.s->text : "(not a str)");
    return false;
  }
  return true;
}

/* The spatial int[] arguments at args[at[0]], args[at[1]], args[at[2]] (stride, padding,
 * dilation) into g, as [height, width] with height's identity for conv1d; the .padding
 * overloads' padding is a str. */
static bool conv_params(const IrSchema *schema, RtValue *args, const guint at[3], int spatial,
                        ConvGeom *g, GError **error) {
  int64_t vals[3][2] = {{0}};
  bool mode = strcmp(schema->overload, "padding") == 0;
  for (int k = 0; k < 3; k++) {
    bool ok = k == 1 && mode
                  ? padding_mode(schema, args[at[1]], g, error)
                  : k_arg_spatial_list(schema, args, at[k], spatial, NULL, vals[k], error);
    if (!ok)
      return false;
  }
  for (int d = 0; d < 2; d++) {
    int from = spatial == 2 ? d : 0;
    bool height_of_1d = spatial == 1 && d == 0;
    g->stride[d] = height_of_1d ? 1 : vals[0][from];
    g->pad[d] = height_of_1d ? 0 : vals[1][from];
    g->dil[d] = height_of_1d ? 1 : vals[2][from];
    if (g->stride[d] <= 0) {
      K_ERR(error, "%s(): non-positive stride is not supported", k_op_short_name(schema));
      return false;
    }
    if (g->pad[d] < 0) {
      K_ERR(error, "%s(): negative padding is not supported", k_op_short_name(schema));
      return false;
    }
    if (g->dil[d] <= 0) {
      K_ERR(error, "%s(): dilation should be greater than zero", k_op_short_name(schema));
      return false;
    }
    if (g->same && g->stride[d] != 1) {
      K_ERR(error, "padding='same' is not supported for strided convolutions");
      return false;
    }
    g->pad_hi[d] = g->pad[d];
  }
  return true;
}

/* The dtype a convolution of dtype d computes in: float64 for float64, float32 otherwise. */
static IrDtype conv_compute_dtype(IrDtype d) {
  return d == IR_DTYPE_FLOAT64 ? IR_DTYPE_FLOAT64 : IR_DTYPE_FLOAT32;
}

static bool conv_limits(const IrSchema *schema, IrDtype dtype, const ConvGeom *g,
                        const char *in_text, GError **error);

/* Checks the input's rank, the weight's and the dtypes. */
static bool conv_ranks(const IrSchema *schema, const RtTensor *input, const RtTensor *weight,
                       const RtTensor *bias, const ConvGeom *g, const char *in_text,
                       const char *w_text, GError **error) {
  int sp = g->spatial;
  if (input->ndim != sp + 1 && input->ndim != sp + 2) {
    K_ERR_SHAPE(error,
                "Expected %dD (unbatched) or %dD (batched) input to %s, but got input "
                "of size: %s",
                sp + 1, sp + 2, k_op_short_name(schema), in_text);
    return false;
  }
  if (weight->ndim != sp + 2) {
    K_ERR_SHAPE(error, "%s(): expected a %d-dimensional weight, but got weight of size %s",
                k_op_short_name(schema), sp + 2, w_text);
    return false;
  }
  if (g->groups <= 0) {
    K_ERR(error, "%s(): non-positive groups is not supported", k_op_short_name(schema));
    return false;
  }
  if (!k_dtype_is_float(input->dtype) || input->dtype != weight->dtype ||
      (bias && bias->dtype != input->dtype)) {
    K_ERR_DTYPE(error, "%s(): input (%s), weight (%s) and bias must have one floating dtype",
                k_op_short_name(schema), k_dtype_c10_name(input->dtype),
                k_dtype_c10_name(weight->dtype));
    return false;
  }
  return true;
}

#define SHAPE_TEXT 256

/* What a convolution and a transposed one read alike: the shapes as text for messages (each
 * SHAPE_TEXT bytes), the ranks checked, the batch and the kernel's sizes. */
static bool conv_common(const IrSchema *schema, const RtTensor *input, const RtTensor *weight,
                        const RtTensor *bias, ConvGeom *g, char *in_text, char *w_text,
                        GError **error) {
  int sp = g->spatial;
  k_shape_text(in_text, SHAPE_TEXT, input->ndim, input->sizes);
  k_shape_text(w_text, SHAPE_TEXT, weight->ndim, weight->sizes);
  if (!conv_ranks(schema, input, weight, bias, g, in_text, w_text, error))
    return false;
  g->batched = input->ndim == sp + 2;
  g->n = g->batched ? input->sizes[0] : 1;
  g->oc = weight->sizes[0];
  g->kh = sp == 2 ? weight->sizes[2] : 1;
  g->kw = weight->sizes[1 + sp];
  return true;
}

/* A transposed convolution as the adjoint of the convolution g: its input is g's output side
 * (n x oc x oh x ow, oc = weight.size(0)), its output g's input side (n x c x h x w, c =
 * weight.size(1) * groups, h = (oh - 1) stride - 2 padding + dilation (kh - 1) +
 * output_padding + 1). g holds stride, padding, dilation, output_padding and groups. */
static bool transposed_geometry(const IrSchema *schema, const RtTensor *input,
                                const RtTensor *weight, const RtTensor *bias, ConvGeom *g,
                                GError **error) {
  int sp = g->spatial;
  char in_text[SHAPE_TEXT], w_text[SHAPE_TEXT];
  if (!conv_common(schema, input, weight, bias, g, in_text, w_text, error))
    return false;
  int b = g->batched ? 1 : 0;
  g->oh = sp == 2 ? input->sizes[b + 1] : 1;
  g->ow = input->sizes[b + sp];
  if (input->sizes[b] != g->oc) {
    K_ERR_SHAPE(error,
                "Given transposed=1, weight of size %s, expected input%s to have %" G_GINT64_FORMAT
                " channels, but got %" G_GINT64_FORMAT " channels instead",
                w_text, in_text, g->oc, input->sizes[b]);
    return false;
  }
  if (g->oc % g->groups != 0 || g->oc == 0 ||
      __builtin_mul_overflow(weight->sizes[1], g->groups, &g->c)) {
    K_ERR_SHAPE(error,
                "Given groups=%" G_GINT64_FORMAT
                ", expected weight to be at least %" G_GINT64_FORMAT
                " at dimension 0 and divisible by it, but got weight of size %s instead",
                g->groups, g->groups, w_text);
    return false;
  }
  if (bias && (bias->ndim != 1 || bias->sizes[0] != g->c)) {
    char b_text[256];
    k_shape_text(b_text, sizeof b_text, bias->ndim, bias->sizes);
    K_ERR_SHAPE(error,
                "Given transposed=1, weight of size %s, expected bias to be 1-dimensional with "
                "%" G_GINT64_FORMAT " elements, but got bias of size %s instead",
                w_text, g->c, b_text);
    return false;
  }
  if (g->kh <= 0 || g->kw <= 0) {
    K_ERR_SHAPE(error, "%s(): kernel sizes must be positive, but got weight of size %s",
                k_op_short_name(schema), w_text);
    return false;
  }
  int64_t in[2] = {g->oh, g->ow}, k[2] = {g->kh, g->kw}, out[2];
  for (int d = 0; d < 2; d++) {
    if (g->out_pad[d] < 0) {
      K_ERR(error, "%s(): negative output_padding is not supported", k_op_short_name(schema));
      return false;
    }
    if (g->out_pad[d] >= g->stride[d] && g->out_pad[d] >= g->dil[d]) {
      K_ERR(error,
            "output padding must be smaller than either stride or dilation, but got "
            "output_padding: %" G_GINT64_FORMAT " stride: %" G_GINT64_FORMAT
            " dilation: %" G_GINT64_FORMAT,
            g->out_pad[d], g->stride[d], g->dil[d]);
      return false;
    }
    int64_t span, size;
    if (__builtin_mul_overflow(in[d] - 1, g->stride[d], &size) ||
        __builtin_mul_overflow(g->dil[d], k[d] - 1, &span) ||
        __builtin_add_overflow(size, span + g->out_pad[d] + 1, &size) ||
        __builtin_sub_overflow(size, 2 * g->pad[d], &out[d])) {
      K_ERR_SHAPE(error, "%s(): the output size of input %s overflows", k_op_short_name(schema),
                  in_text);
      return false;
    }
    if (out[d] <= 0 || in[d] <= 0) {
      K_ERR_SHAPE(error, "%s(): the output size of input %s, %" G_GINT64_FORMAT ", is not positive",
                  k_op_short_name(schema), in_text, out[d]);
      return false;
    }
  }
  g->h = out[0];
  g->w = out[1];
  return conv_limits(schema, input->dtype, g, in_text, error);
}

/* Checks input against weight (and bias) and computes the output size. */
static bool conv_geometry(const IrSchema *schema, const RtTensor *input, const RtTensor *weight,
                          const RtTensor *bias, ConvGeom *g, GError **error) {
  int sp = g->spatial;
  char in_text[SHAPE_TEXT], w_text[SHAPE_TEXT];
  if (!conv_common(schema, input, weight, bias, g, in_text, w_text, error))
    return false;
  int b = g->batched ? 1 : 0;
  g->c = input->sizes[b];
  g->h = sp == 2 ? input->sizes[b + 1] : 1;
  g->w = input->sizes[b + sp];
  if (g->oc % g->groups != 0 || g->oc == 0) {
    K_ERR_SHAPE(error,
                "Given groups=%" G_GINT64_FORMAT
                ", expected weight to be at least %" G_GINT64_FORMAT
                " at dimension 0 and divisible by it, but got weight of size %s "
                "instead",
                g->groups, g->groups, w_text);
    return false;
  }
  if (g->c != weight->sizes[1] * g->groups) {
    K_ERR_SHAPE(error,
                "Given groups=%" G_GINT64_FORMAT ", weight of size %s, expected input%s "
                "to have %" G_GINT64_FORMAT " channels, but got %" G_GINT64_FORMAT " channels "
                "instead",
                g->groups, w_text, in_text, weight->sizes[1] * g->groups, g->c);
    return false;
  }
  if (bias && (bias->ndim != 1 || bias->sizes[0] != g->oc)) {
    char b_text[256];
    k_shape_text(b_text, sizeof b_text, bias->ndim, bias->sizes);
    K_ERR_SHAPE(error,
                "Given weight of size %s, expected bias to be 1-dimensional with %" G_GINT64_FORMAT
                " elements, but got bias of size %s instead",
                w_text, g->oc, b_text);
    return false;
  }
  if (g->kh <= 0 || g->kw <= 0) {
    K_ERR_SHAPE(error, "%s(): kernel sizes must be positive, but got weight of size %s",
                k_op_short_name(schema), w_text);
    return false;
  }
  if (g->same) { /* PyTorch's: dilation * (k - 1) in all, the odd one after the input */
    int64_t k[2] = {g->kh, g->kw};
    for (int d = 0; d < 2; d++) {
      int64_t total;
      if (__builtin_mul_overflow(g->dil[d], k[d] - 1, &total)) {
        K_ERR_SHAPE(error, "%s(): the padding of kernel %s overflows", k_op_short_name(schema),
                    w_text);
        return false;
      }
      g->pad[d] = total / 2;
      g->pad_hi[d] = total - total / 2;
    }
  }
  /* an asymmetric padding counts windows as a symmetric one over an input longer by the
   * difference */
  if (!k_window_count(g->h + g->pad_hi[0] - g->pad[0], g->kh, g->stride[0], g->pad[0], g->dil[0],
                      false, &g->oh) ||
      !k_window_count(g->w + g->pad_hi[1] - g->pad[1], g->kw, g->stride[1], g->pad[1], g->dil[1],
                      false, &g->ow)) {
    K_ERR_SHAPE(error, "%s(): the output size of input %s overflows", k_op_short_name(schema),
                in_text);
    return false;
  }
  if (g->oh <= 0 || g->ow <= 0) {
    /* the kernel and dilation apart: their dilated extent may not fit int64 */
    K_ERR_SHAPE(error,
                "%s(): calculated padded input size per channel: (%" G_GINT64_FORMAT
                " x %" G_GINT64_FORMAT "). Kernel size: (%" G_GINT64_FORMAT " x %" G_GINT64_FORMAT
                ") with dilation (%" G_GINT64_FORMAT " x %" G_GINT64_FORMAT
                "). Kernel size can't be greater than actual input size",
                k_op_short_name(schema), g->h + g->pad[0] + g->pad_hi[0],
                g->w + g->pad[1] + g->pad_hi[1], g->kh, g->kw, g->dil[0], g->dil[1]);
    return false;
  }
  return conv_limits(schema, input->dtype, g, in_text, error);
}

/* One group's GEMM dims go to BLAS as int; the im2col buffer (which grows with the padding
 * the user chose) within the memory budget. */
static bool conv_limits(const IrSchema *schema, IrDtype dtype, const ConvGeom *g,
                        const char *in_text, GError **error) {
  int64_t cgk = g->c / g->groups * g->kh * g->kw;
  if (g->oh > INT_MAX / g->ow || cgk > INT_MAX || g->oc > INT_MAX) {
    K_ERR_SHAPE(error, "%s(): input %s is too large for one GEMM per image",
                k_op_short_name(schema), in_text);
    return false;
  }
  int64_t col_bytes;
  if (__builtin_mul_overflow(cgk, g->oh * g->ow, &col_bytes) ||
      __builtin_mul_overflow(col_bytes, (int64_t)ir_dtype_size(conv_compute_dtype(dtype)),
                             &col_bytes)) {
    K_ERR_SHAPE(error, "%s(): the unfolded input of %s overflows", k_op_short_name(schema),
                in_text);
    return false;
  }
  return rt_memory_check((guint64)col_bytes, error);
}

/* The convolution of a general op (_convolution, convolution_backward): 1-D or 2-D by the
 * weight's rank. */
static bool general_conv(const IrSchema *schema, const RtTensor *weight, int *spatial,
                         GError **error) {
  if (weight->ndim != 3 && weight->ndim != 4) {
    K_ERR_SHAPE(error,
                "%s(): only 1-D and 2-D convolutions are supported, but got a %d-D "
                "weight",
                k_op_short_name(schema), weight->ndim);
    return false;
  }
  *spatial = weight->ndim - 2;
  return true;
}

/* The output's (or grad_output's) sizes for g. */
static int conv_out_sizes(const ConvGeom *g, int64_t *sizes) {
  int nd = 0;
  if (g->batched)
    sizes[nd++] = g->n;
  sizes[nd++] = g->oc;
  if (g->spatial == 2)
    sizes[nd++] = g->oh;
  sizes[nd++] = g->ow;
  return nd;
}

/* im2col of one image's group: col[(c * kh + i) * kw + j][oh * ow] = the input under the
 * kernel tap (i, j), 0 in the padding. x points at the group's first channel. col2im_add is
 * its adjoint: it adds each column entry back to the input position it came from. Both for
 * each compute type T (suffix S). */
#define CONV_DEFINE_COLUMNS(T, S)                                                   \
  static void im2col_##S(const ConvGeom *g, const T *x, int64_t cg, T *col) {       \
    int64_t l = g->oh * g->ow;                                                      \
    for (int64_t c = 0; c < cg; c++)                                                \
      for (int64_t i = 0; i < g->kh; i++)                                           \
        for (int64_t j = 0; j < g->kw; j++) {                                       \
          T *row = col + ((c * g->kh + i) * g->kw + j) * l;                         \
          for (int64_t oy = 0; oy < g->oh; oy++) {                                  \
            int64_t y = oy * g->stride[0] - g->pad[0] + i * g->dil[0];              \
            for (int64_t ox = 0; ox < g->ow; ox++) {                                \
              int64_t xx = ox * g->stride[1] - g->pad[1] + j * g->dil[1];           \
              bool inside = y >= 0 && y < g->h && xx >= 0 && xx < g->w;             \
              row[oy * g->ow + ox] = inside ? x[(c * g->h + y) * g->w + xx] : (T)0; \
            }                                                                       \
          }                                                                         \
        }                                                                           \
  }                                                                                 \
  static void col2im_add_##S(const ConvGeom *g, const T *col, int64_t cg, T *dx) {  \
    int64_t l = g->oh * g->ow;                                                      \
    for (int64_t c = 0; c < cg; c++)                                                \
      for (int64_t i = 0; i < g->kh; i++)                                           \
        for (int64_t j = 0; j < g->kw; j++) {                                       \
          const T *row = col + ((c * g->kh + i) * g->kw + j) * l;                   \
          for (int64_t oy = 0; oy < g->oh; oy++) {                                  \
            int64_t y = oy * g->stride[0] - g->pad[0] + i * g->dil[0];              \
            if (y < 0 || y >= g->h)                                                 \
              continue;                                                             \
            for (int64_t ox = 0; ox < g->ow; ox++) {                                \
              int64_t xx = ox * g->stride[1] - g->pad[1] + j * g->dil[1];           \
              if (xx >= 0 && xx < g->w)                                             \
                dx[(c * g->h + y) * g->w + xx] += row[oy * g->ow + ox];             \
            }                                                                       \
          }                                                                         \
        }                                                                           \
  }

CONV_DEFINE_COLUMNS(float, f32)
CONV_DEFINE_COLUMNS(double, f64)

/* The compute-dtype dispatch: pointers are to elements of dtype (float32 or float64), offsets
 * in elements. */
static void *elem_at(IrDtype dtype, const void *base, int64_t offset) {
  return (char *)base + (size_t)offset * ir_dtype_size(dtype);
}

static void im2col(IrDtype dtype, const ConvGeom *g, const void *x, int64_t cg, void *col) {
  if (dtype == IR_DTYPE_FLOAT32)
    im2col_f32(g, x, cg, col);
  else
    im2col_f64(g, x, cg, col);
}

static void col2im_add(IrDtype dtype, const ConvGeom *g, const void *col, int64_t cg, void *dx) {
  if (dtype == IR_DTYPE_FLOAT32)
    col2im_add_f32(g, col, cg, dx);
  else
    col2im_add_f64(g, col, cg, dx);
}

/* c = a @ b + beta * c, row-major, a and b transposed as ta and tb say. */
static void conv_gemm(IrDtype dtype, CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int64_t m, int64_t n,
                      int64_t k, const void *a, int64_t lda, const void *b, int64_t ldb,
                      double beta, void *c, int64_t ldc) {
  if (dtype == IR_DTYPE_FLOAT32)
    cblas_sgemm(CblasRowMajor, ta, tb, (int)m, (int)n, (int)k, 1.0f, a, (int)lda, b, (int)ldb,
                (float)beta, c, (int)ldc);
  else
    cblas_dgemm(CblasRowMajor, ta, tb, (int)m, (int)n, (int)k, 1.0, a, (int)lda, b, (int)ldb, beta,
                c, (int)ldc);
}

static double elem_get(IrDtype dtype, const void *base, int64_t i) {
  return dtype == IR_DTYPE_FLOAT32 ? ((const float *)base)[i] : ((const double *)base)[i];
}

static void elem_set(IrDtype dtype, void *base, int64_t i, double v) {
  if (dtype == IR_DTYPE_FLOAT32)
    ((float *)base)[i] = (float)v;
  else
    ((double *)base)[i] = v;
}

/* An optional tensor argument: NULL for None or an undefined tensor. */
static bool optional_tensor(const IrSchema *schema, RtValue *args, guint i, RtTensor **out,
                            GError **error) {
  *out = NULL;
  return k_arg_is_none(args, i) || (args[i].tag == RT_TENSOR && args[i].u.tensor == NULL) ||
         k_arg_tensor(schema, args, i, out, error);
}

static void store_as(RtTensor *r, IrDtype dtype, RtValue *out) {
  RtTensor *cast = k_to_dtype(r, dtype);
  rt_tensor_unref(r);
  *out = rt_tensor(cast);
}

/* The sizes of g's input side (a transposed convolution's output). */
static int conv_in_sizes(const ConvGeom *g, int64_t *sizes) {
  int nd = 0;
  if (g->batched)
    sizes[nd++] = g->n;
  sizes[nd++] = g->c;
  if (g->spatial == 2)
    sizes[nd++] = g->h;
  sizes[nd++] = g->w;
  return nd;
}

/* The three products of the convolution g, per image and group, in the compute dtype ct; big
 * is g's input side (n x c x h x w), small its output side (n x oc x oh x ow), col room for
 * one group's unfolded input. */

/* small += conv(big, w) */
static void conv_forward(IrDtype ct, const ConvGeom *g, const void *big, const void *w, void *small,
                         void *col) {
  int64_t cg = g->c / g->groups, ocg = g->oc / g->groups, cgk = cg * g->kh * g->kw;
  int64_t l = g->oh * g->ow;
  if (cgk == 0 || l == 0)
    return;
  for (int64_t n = 0; n < g->n; n++)
    for (int64_t gi = 0; gi < g->groups; gi++) {
      im2col(ct, g, elem_at(ct, big, (n * g->c + gi * cg) * g->h * g->w), cg, col);
      conv_gemm(ct, CblasNoTrans, CblasNoTrans, ocg, l, cgk, elem_at(ct, w, gi * ocg * cgk), cgk,
                col, l, 1.0, elem_at(ct, small, (n * g->oc + gi * ocg) * l), l);
    }
}

/* big += the adjoint of conv(., w) applied to small: col = W_g^T @ small_g, scattered back by
 * col2im */
static void conv_adjoint(IrDtype ct, const ConvGeom *g, const void *small, const void *w, void *big,
                         void *col) {
  int64_t cg = g->c / g->groups, ocg = g->oc / g->groups, cgk = cg * g->kh * g->kw;
  int64_t l = g->oh * g->ow;
  if (cgk == 0 || l == 0)
    return;
  for (int64_t n = 0; n < g->n; n++)
    for (int64_t gi = 0; gi < g->groups; gi++) {
      conv_gemm(ct, CblasTrans, CblasNoTrans, cgk, l, ocg, elem_at(ct, w, gi * ocg * cgk), cgk,
                elem_at(ct, small, (n * g->oc + gi * ocg) * l), l, 0.0, col, l);
      col2im_add(ct, g, col, cg, elem_at(ct, big, (n * g->c + gi * cg) * g->h * g->w));
    }
}

/* dw += small_g @ im2col(big_g)^T, the weight's gradient */
static void conv_weight_grad(IrDtype ct, const ConvGeom *g, const void *big, const void *small,
                             void *dw, void *col) {
  int64_t cg = g->c / g->groups, ocg = g->oc / g->groups, cgk = cg * g->kh * g->kw;
  int64_t l = g->oh * g->ow;
  if (cgk == 0 || l == 0)
    return;
  for (int64_t n = 0; n < g->n; n++)
    for (int64_t gi = 0; gi < g->groups; gi++) {
      im2col(ct, g, elem_at(ct, big, (n * g->c + gi * cg) * g->h * g->w), cg, col);
      conv_gemm(ct, CblasNoTrans, CblasTrans, ocg, cgk, l,
                elem_at(ct, small, (n * g->oc + gi * ocg) * l), l, col, l, 1.0,
                elem_at(ct, dw, gi * ocg * cgk), cgk);
    }
}

/* The unfolded-input buffer of g in ct. */
static void *conv_col(IrDtype ct, const ConvGeom *g) {
  int64_t cgk = g->c / g->groups * g->kh * g->kw;
  return g_malloc((gsize)(cgk * g->oh * g->ow) * ir_dtype_size(ct) + 1);
}

/* out (n x channels x spatial, compute dtype) = bias per channel, or 0 */
static void fill_bias(IrDtype ct, void *out, const void *b, int64_t n, int64_t channels,
                      int64_t spatial) {
  for (int64_t i = 0; i < n; i++)
    for (int64_t k = 0; k < channels; k++)
      for (int64_t p = 0; p < spatial; p++)
        elem_set(ct, out, (i * channels + k) * spatial + p, b ? elem_get(ct, b, k) : 0.0);
}

/* A transposed convolution's output_padding at args[i] into g. */
static bool output_padding(const IrSchema *schema, RtValue *args, guint i, ConvGeom *g,
                           GError **error) {
  int64_t vals[2] = {0};
  if (!k_arg_spatial_list(schema, args, i, g->spatial, NULL, vals, error))
    return false;
  g->out_pad[0] = g->spatial == 2 ? vals[0] : 0;
  g->out_pad[1] = g->spatial == 2 ? vals[1] : vals[0];
  return true;
}

bool rt_kernel_conv(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                    RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  RtTensor *input, *weight, *bias;
  IrOpKind kind = schema->kind;
  ConvGeom g = {.spatial = kind == IR_ATEN_CONV1D || kind == IR_ATEN_CONV_TRANSPOSE1D ? 1 : 2};
  /* conv1d / conv2d(input, weight, bias, stride, padding, dilation, groups), padding an int[]
   * or (the .padding overloads) 'valid' or 'same';
   * conv_transpose1d / 2d(input, weight, bias, stride, padding, output_padding, groups,
   * dilation);
   * _convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
   * groups, ...) says its dims by the weight's rank */
  bool general = kind == IR_ATEN__CONVOLUTION;
  bool transposed = kind == IR_ATEN_CONV_TRANSPOSE1D || kind == IR_ATEN_CONV_TRANSPOSE2D;
  guint at[3] = {3, 4, transposed ? 7 : 5};
  if (!k_arg_tensor(schema, args, 0, &input, error) ||
      !k_arg_tensor(schema, args, 1, &weight, error) ||
      !optional_tensor(schema, args, 2, &bias, error) ||
      (general && (!k_arg_bool(schema, args, 6, &transposed, error) ||
                   !general_conv(schema, weight, &g.spatial, error))) ||
      !conv_params(schema, args, at, g.spatial, &g, error) ||
      !k_arg_int(schema, args, general ? 8 : 6, &g.groups, error) ||
      (transposed && !output_padding(schema, args, general ? 7 : 5, &g, error)) ||
      !(transposed ? transposed_geometry : conv_geometry)(schema, input, weight, bias, &g, error))
    return false;
  int64_t sizes[4];
  int nd = transposed ? conv_in_sizes(&g, sizes) : conv_out_sizes(&g, sizes);
  IrDtype ct = conv_compute_dtype(input->dtype);
  RtTensor *y = rt_tensor_new_checked(ct, nd, sizes, error);
  if (!y)
    return false;
  RtTensor *xh = rt_tensor_to_dtype(input, ct);
  RtTensor *wh = rt_tensor_to_dtype(weight, ct);
  RtTensor *bh = bias ? rt_tensor_to_dtype(bias, ct) : NULL;
  g_autofree void *col = conv_col(ct, &g);
  /* the bias first, so that the products add onto it */
  if (transposed) {
    fill_bias(ct, rt_tensor_data(y), bh ? rt_tensor_data(bh) : NULL, g.n, g.c, g.h * g.w);
    conv_adjoint(ct, &g, rt_tensor_data(xh), rt_tensor_data(wh), rt_tensor_data(y), col);
  } else {
    fill_bias(ct, rt_tensor_data(y), bh ? rt_tensor_data(bh) : NULL, g.n, g.oc, g.oh * g.ow);
    conv_forward(ct, &g, rt_tensor_data(xh), rt_tensor_data(wh), rt_tensor_data(y), col);
  }
  rt_tensor_unref(xh);
  rt_tensor_unref(wh);
  if (bh)
    rt_tensor_unref(bh);
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

bool rt_kernel_conv_backward(const IrSchema *schema, const IrNode *node, RtValue *args,
                             guint n_args, RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  RtTensor *grad, *input, *weight;
  bool transposed, mask[3];
  ConvGeom g = {0};
  static const guint at[3] = {4, 5, 6};
  if (!k_arg_tensor(schema, args, 0, &grad, error) ||
      !k_arg_tensor(schema, args, 1, &input, error) ||
      !k_arg_tensor(schema, args, 2, &weight, error))
    return false;
  if (!k_arg_bool(schema, args, 7, &transposed, error) ||
      !general_conv(schema, weight, &g.spatial, error) ||
      !conv_params(schema, args, at, g.spatial, &g, error) ||
      !k_arg_int(schema, args, 9, &g.groups, error) || !output_mask(schema, args[10], mask, error))
    return false;
  if (transposed ? !output_padding(schema, args, 8, &g, error) ||
                       !transposed_geometry(schema, input, weight, NULL, &g, error)
                 : !conv_geometry(schema, input, weight, NULL, &g, error))
    return false;
  int64_t sizes[4];
  int nd = transposed ? conv_in_sizes(&g, sizes) : conv_out_sizes(&g, sizes);
  if (grad->ndim != nd || memcmp(grad->sizes, sizes, sizeof(int64_t) * (size_t)nd) != 0) {
    char have[256], want[256];
    k_shape_text(have, sizeof have, grad->ndim, grad->sizes);
    k_shape_text(want, sizeof want, nd, sizes);
    K_ERR_SHAPE(error,
                "convolution_backward(): grad_output of size %s does not match the "
                "output size %s",
                have, want);
    return false;
  }
  IrDtype ct = conv_compute_dtype(input->dtype);
  RtTensor *gh = rt_tensor_to_dtype(grad, ct);
  RtTensor *xh = rt_tensor_to_dtype(input, ct);
  RtTensor *wh = rt_tensor_to_dtype(weight, ct);
  RtTensor *dx = rt_tensor_zeros(ct, input->ndim, input->sizes);
  RtTensor *dw = rt_tensor_zeros(ct, weight->ndim, weight->sizes);
  /* a plain convolution's output is g's small side, a transposed one's its big side */
  const void *go = rt_tensor_data(gh), *x = rt_tensor_data(xh), *w = rt_tensor_data(wh);
  const void *big = transposed ? go : x, *small = transposed ? x : go;
  g_autofree void *col = conv_col(ct, &g);
  if (mask[0]) {
    if (transposed)
      conv_forward(ct, &g, go, w, rt_tensor_data(dx), col);
    else
      conv_adjoint(ct, &g, go, w, rt_tensor_data(dx), col);
  }
  if (mask[1])
    conv_weight_grad(ct, &g, big, small, rt_tensor_data(dw), col);
  /* the bias sums the gradient per channel in float64 */
  int64_t channels = transposed ? g.c : g.oc, spatial = transposed ? g.h * g.w : g.oh * g.ow;
  RtTensor *db = rt_tensor_zeros(IR_DTYPE_FLOAT64, 1, &channels);
  double *pdb = rt_tensor_data(db);
  for (int64_t n = 0; mask[2] && n < g.n; n++)
    for (int64_t k = 0; k < channels; k++)
      for (int64_t p = 0; p < spatial; p++)
        pdb[k] += elem_get(ct, go, (n * channels + k) * spatial + p);
  rt_tensor_unref(gh);
  rt_tensor_unref(xh);
  rt_tensor_unref(wh);
  RtTensor *results[3] = {dx, dw, db};
  IrDtype dtypes[3] = {input->dtype, weight->dtype, weight->dtype};
  for (int i = 0; i < 3; i++) {
    if (mask[i]) {
      store_as(results[i], dtypes[i], &outs[i]);
    } else {
      rt_tensor_unref(results[i]);
      outs[i] = rt_tensor(NULL);
    }
  }
  return true;
}
