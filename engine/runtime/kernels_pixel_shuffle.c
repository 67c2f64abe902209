/* rt_kernel_pixel_shuffle: pixel_shuffle and pixel_unshuffle, each the other's inverse (and so
 * its gradient).
 *
 * Contracts, as PyTorch 1.13's (aten/src/ATen/native/PixelShuffle.cpp):
 * - pixel_shuffle(self [*, C r^2, H, W], r) is [*, C, H r, W r], output (c, h r + i, w r + j)
 *   being input (c r^2 + i r + j, h, w); pixel_unshuffle(self [*, C, H r, W r], r) moves the
 *   other way. r is positive; C r^2, H r and W r must divide as PyTorch's messages say.
 * - Any dtype: elements are moved, not computed. */
#include "runtime/kernels.h"
#include "runtime/kernels_internal.h"

#include <string.h>

/* self seen as [batch, channels, height, width] on the side of the fewer channels (the
 * shuffled result's; the unshuffled input's), r the factor. */
typedef struct {
  int64_t batch, channels, height, width, r;
} Shuffle;

static bool shuffle_geometry(const IrSchema *schema, const RtTensor *self, gint64 r, bool up,
                             Shuffle *s, GError **error) {
  const char *op = up ? "pixel_shuffle" : "pixel_unshuffle";
  if (self->ndim < 3) {
    K_ERR_SHAPE(error,
                "%s expects input to have at least 3 dimensions, but got input with %d "
                "dimension(s)",
                op, self->ndim);
    return false;
  }
  if (r <= 0) {
    K_ERR(error, "%s expects a positive %s, but got %" G_GINT64_FORMAT, op,
          up ? "upscale_factor" : "downscale_factor", r);
    return false;
  }
  int64_t c = self->sizes[self->ndim - 3], h = self->sizes[self->ndim - 2],
          w = self->sizes[self->ndim - 1];
  s->batch = 1;
  for (int d = 0; d < self->ndim - 3; d++)
    s->batch *= self->sizes[d];
  s->r = r;
  if (up) {
    int64_t square;
    if (__builtin_mul_overflow(r, r, &square) || c % square != 0) {
      K_ERR_SHAPE(error,
                  "pixel_shuffle expects its input's 'channel' dimension to be divisible by the "
                  "square of upscale_factor, but input.size(-3)=%" G_GINT64_FORMAT
                  " is not divisible by %" G_GINT64_FORMAT,
                  c, r <= G_MAXINT32 ? r * r : G_MAXINT64);
      return false;
    }
    s->channels = c / square;
    if (__builtin_mul_overflow(h, r, &s->height) || __builtin_mul_overflow(w, r, &s->width)) {
      K_ERR_SHAPE(error, "pixel_shuffle: upscale_factor %" G_GINT64_FORMAT " is too large", r);
      return false;
    }
    return true;
  }
  const char *which[2] = {"height", "width"};
  int64_t sides[2] = {h, w};
  for (int k = 0; k < 2; k++)
    if (sides[k] % r != 0) {
      K_ERR_SHAPE(error,
                  "pixel_unshuffle expects %s to be divisible by downscale_factor, but "
                  "input.size(%d)=%" G_GINT64_FORMAT " is not divisible by %" G_GINT64_FORMAT,
                  which[k], k - 2, sides[k], r);
      return false;
    }
  int64_t unused;
  if (__builtin_mul_overflow(c, r, &unused) || __builtin_mul_overflow(unused, r, &unused)) {
    K_ERR_SHAPE(error, "pixel_unshuffle: downscale_factor %" G_GINT64_FORMAT " is too large", r);
    return false;
  }
  s->channels = c;
  s->height = h;
  s->width = w;
  return true;
}

bool rt_kernel_pixel_shuffle(const IrSchema *schema, const IrNode *node, RtValue *args,
                             guint n_args, RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  bool up = schema->kind == IR_ATEN_PIXEL_SHUFFLE;
  RtTensor *self;
  gint64 r;
  Shuffle s;
  if (!k_arg_tensor(schema, args, 0, &self, error) || !k_arg_int(schema, args, 1, &r, error) ||
      !shuffle_geometry(schema, self, r, up, &s, error))
    return false;
  int64_t sizes[RT_MAX_DIMS];
  memcpy(sizes, self->sizes, sizeof(int64_t) * (size_t)self->ndim);
  int nd = self->ndim;
  if (up) {
    sizes[nd - 3] = s.channels;
    sizes[nd - 2] = s.height;
    sizes[nd - 1] = s.width;
  } else {
    sizes[nd - 3] = s.channels * r * r;
    sizes[nd - 2] = s.height / r;
    sizes[nd - 1] = s.width / r;
  }
  RtTensor *out = rt_tensor_new_checked(self->dtype, nd, sizes, error);
  if (!out)
    return false;
  RtTensor *in = rt_tensor_contiguous(self);
  size_t elsize = ir_dtype_size(self->dtype);
  const char *src = rt_tensor_data(in);
  char *dst = rt_tensor_data(out);
  /* The large side [batch, channels, height, width] against the small [.., c r^2, h / r ..]:
   * shuffling reads the small and writes the large, unshuffling the other way. */
  int64_t small_h = s.height / r, small_w = s.width / r;
  for (int64_t b = 0; b < s.batch; b++)
    for (int64_t c = 0; c < s.channels; c++)
      for (int64_t y = 0; y < s.height; y++)
        for (int64_t x = 0; x < s.width; x++) {
          int64_t large = ((b * s.channels + c) * s.height + y) * s.width + x;
          int64_t plane = (c * r + y % r) * r + x % r;
          int64_t small = ((b * s.channels * r * r + plane) * small_h + y / r) * small_w + x / r;
          if (up)
            memcpy(dst + (size_t)large * elsize, src + (size_t)small * elsize, elsize);
          else
            memcpy(dst + (size_t)small * elsize, src + (size_t)large * elsize, elsize);
        }
  rt_tensor_unref(in);
  outs[0] = rt_tensor(out);
  return true;
}
