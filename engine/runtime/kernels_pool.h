/* The pooling loops that the 2-D kernels (kernels_pool.c) and the 1-D ones (kernels_pool1d.c)
 * share: a 1-D pool is the 2-D pool of planes with a height of 1, as PyTorch 1.13 runs it
 * (unsqueeze(-2), the 2-D op, squeeze(-2)). Private to engine/runtime.
 *
 * Contracts: the loops read self as `planes` contiguous h x w planes (in float64), write a
 * contiguous result of `ndim` dims and the given sizes (planes x oh x ow elements) in self's
 * dtype, and run on any geometry the callers checked: kernel, stride and dilation positive,
 * window counts >= 0 (an empty result when one is 0). Outputs are new references. */
#ifndef JITSCOPE_RUNTIME_KERNELS_POOL_H
#define JITSCOPE_RUNTIME_KERNELS_POOL_H

#include "runtime/kernels_internal.h"

/* A pooling over planes of h x w into oh x ow windows. */
typedef struct {
  int64_t planes, h, w, oh, ow;
  int64_t kernel[2], stride[2], pad[2], dil[2];
  bool ceil_mode;
} PoolGeom;

/* max: each window's largest value (a NaN wins, the last one; of equal maxima the first),
 * and in *indices (when not NULL) its index h * w + x in the plane; -inf and -1 for a
 * window that dilation keeps off the plane. */
bool pool_max_run(const PoolGeom *g, const RtTensor *self, int ndim, const int64_t *sizes,
                  RtValue *values, RtValue *indices, GError **error);
/* avg: the window's sum over divisor (when not 0), else over the window clipped to the padded
 * input (include_pad) or to the input; 0 for a window wholly in the padding. */
bool pool_avg_run(const PoolGeom *g, const RtTensor *self, bool include_pad, gint64 divisor,
                  int ndim, const int64_t *sizes, RtValue *out, GError **error);
/* Adaptive windows (oh x ow of them, h and w > 0 unless the plane count is 0): row i covers
 * [floor(i h / oh), ceil((i + 1) h / oh)), columns alike. avg averages each; max takes its
 * largest value and index as pool_max_run. oh, ow, h and w at most G_MAXINT32. */
/* Refuses (PyTorch has no such limit, but no tensor in memory reaches it) sizes past it. */
bool pool_adaptive_fits(const IrSchema *schema, const PoolGeom *g, GError **error);
bool pool_adaptive_avg_run(const PoolGeom *g, const RtTensor *self, int ndim, const int64_t *sizes,
                           RtValue *out, GError **error);
/* adaptive_max_pool2d's checks of a 3-D or 4-D self and output_size, in PyTorch 1.13's order
 * and words (no empty dim after the first, output sizes >= 0, a floating dtype), and the
 * geometry of its windows. */
bool pool_adaptive_max_geometry(const RtTensor *self, const int64_t out_size[2], PoolGeom *g,
                                GError **error);
bool pool_adaptive_max_run(const PoolGeom *g, const RtTensor *self, int ndim, const int64_t *sizes,
                           RtValue *values, RtValue *indices, GError **error);

#endif
