/* shape_rules_conv: the result rules of conv1d / conv2d and of the 1-D and 2-D poolings (see
 * shape_rules.h): the input's rank and dtype, contiguous, with the window counts of the
 * kernels (runtime/kernel_args.h's k_window_count) when every size and argument is a
 * constant. Where the arguments give no window count the sizes stay unknown, and the kernel
 * reports what is wrong. */
#include "passes/pass_util.h"
#include "passes/shape_rules.h"
#include "runtime/kernel_args.h"

/* An int[] argument of `count` spatial entries, a single value repeated; false unless every
 * entry is a constant. */
static bool spatial_arg(const IrNode *node, const char *name, guint count, gint64 *out) {
  gint64 vals[IR_MAX_RANK];
  guint n;
  bool all_known;
  if (!shape_int_list_arg(node, name, vals, &n, &all_known) || !all_known || (n != 1 && n != count))
    return false;
  for (guint k = 0; k < count; k++)
    out[k] = vals[n == 1 ? 0 : k];
  return true;
}

/* The padding per spatial dim: the int[] argument, 0 for the .padding overloads' constant
 * 'valid', SAME_PADDING for their 'same'. */
#define SAME_PADDING (-1)
static bool conv_padding(const IrNode *node, guint sp, gint64 pad[2]) {
  if (!pu_node_is(node, node->kind, "padding"))
    return spatial_arg(node, "padding", sp, pad);
  const IrValue *mode = pu_named_input(node, "padding");
  const IrAttr *a =
      mode && mode->node->kind == IR_PRIM_CONSTANT ? ir_node_attr(mode->node, IR_ATTR_VALUE) : NULL;
  bool valid = !mode || (a && a->kind == IR_ATTR_S && strcmp(a->v.s, "valid") == 0);
  if (!valid && !(a && a->kind == IR_ATTR_S && strcmp(a->v.s, "same") == 0))
    return false;
  pad[0] = pad[1] = valid ? 0 : SAME_PADDING;
  return true;
}

/* A transposed convolution's output size along one dim: (in - 1) stride - 2 padding +
 * dilation (k - 1) + output_padding + 1, unknown when it overflows or is not positive. */
static gint64 transposed_size(gint64 in, gint64 k, gint64 stride, gint64 pad, gint64 dil,
                              gint64 out_pad) {
  gint64 size, span;
  if (in <= 0 || stride <= 0 || pad < 0 || dil <= 0 || out_pad < 0 ||
      (out_pad >= stride && out_pad >= dil) || __builtin_mul_overflow(in - 1, stride, &size) ||
      __builtin_mul_overflow(dil, k - 1, &span) ||
      __builtin_add_overflow(size, span + out_pad + 1, &size) ||
      __builtin_sub_overflow(size, 2 * pad, &size) || size <= 0)
    return IR_SIZE_UNKNOWN;
  return size;
}

/* input [N,] C, *spatial with weight [OC, C / groups, *kernel]: [N,] OC, *windows; transposed
 * (conv_transpose1d / 2d) with weight [C, OC / groups, *kernel]: [N,] OC, *transposed sizes
 * (_convolution: the spatial dims by the weight's rank, transposed or not). */
bool shape_rule_conv(const IrNode *node, ShapeInfo *out) {
  IrOpKind kind = node->kind;
  guint sp = kind == IR_ATEN_CONV1D || kind == IR_ATEN_CONV_TRANSPOSE1D ? 1 : 2;
  ShapeInfo weight;
  bool weight_known = shape_tensor_input(node, 1, &weight);
  bool transposed = kind == IR_ATEN_CONV_TRANSPOSE1D || kind == IR_ATEN_CONV_TRANSPOSE2D;
  if (kind == IR_ATEN__CONVOLUTION) {
    if (!weight_known || (weight.rank != 3 && weight.rank != 4) ||
        !pu_arg_bool(node, "transposed", &transposed))
      return false;
    sp = (guint)weight.rank - 2;
  }
  if (!shape_tensor_input(node, 0, out) || (out->rank != (int)sp + 1 && out->rank != (int)sp + 2))
    return false;
  gint64 stride[2], pad[2], dil[2], groups;
  bool sized = weight_known && weight.has_sizes && out->has_sizes && weight.rank == (int)sp + 2 &&
               spatial_arg(node, "stride", sp, stride) && conv_padding(node, sp, pad) &&
               spatial_arg(node, "dilation", sp, dil) && pu_arg_int(node, "groups", &groups) &&
               groups > 0 && weight.sizes[0] % groups == 0;
  int first = out->rank - (int)sp; /* the first spatial dim */
  gint64 out_pad[2];
  if (transposed) {
    sized = sized && spatial_arg(node, "output_padding", sp, out_pad);
    for (guint k = 0; sized && k < sp; k++) {
      gint64 size = transposed_size(out->sizes[first + (int)k], weight.sizes[2 + k], stride[k],
                                    pad[k], dil[k], out_pad[k]);
      sized = size != IR_SIZE_UNKNOWN;
      out->sizes[first + (int)k] = size;
    }
    if (sized)
      out->sizes[first - 1] = weight.sizes[1] * groups;
    out->has_sizes = sized;
    shape_info_contiguous(out);
    return true;
  }
  for (guint k = 0; sized && k < sp; k++) {
    gint64 windows = IR_SIZE_UNKNOWN;
    if (pad[k] == SAME_PADDING) { /* stride 1 keeps the input's size */
      sized = stride[k] == 1 && dil[k] > 0;
      continue;
    }
    sized = stride[k] > 0 && pad[k] >= 0 && dil[k] > 0 &&
            k_window_count(out->sizes[first + (int)k], weight.sizes[2 + k], stride[k], pad[k],
                           dil[k], false, &windows) &&
            windows > 0;
    out->sizes[first + (int)k] = windows;
  }
  if (sized)
    out->sizes[first - 1] = weight.sizes[0];
  out->has_sizes = sized;
  shape_info_contiguous(out);
  return true;
}

/* A pooling's stride: an empty list is the kernel size. */
static bool pool_stride(const IrNode *node, const gint64 kernel[2], gint64 stride[2]) {
  gint64 vals[IR_MAX_RANK];
  guint n;
  bool all_known;
  if (!shape_int_list_arg(node, "stride", vals, &n, &all_known) || !all_known)
    return false;
  if (n > 0)
    return spatial_arg(node, "stride", 2, stride);
  stride[0] = kernel[0];
  stride[1] = kernel[1];
  return true;
}

/* max_pool2d, avg_pool2d (output 0 of max_pool2d_with_indices): self's plane pooled into
 * windows; an empty stride is the kernel size. */
bool shape_rule_pool(const IrNode *node, ShapeInfo *out) {
  if (!shape_tensor_input(node, 0, out) || (out->rank != 3 && out->rank != 4))
    return false;
  bool dilated = node->kind != IR_ATEN_AVG_POOL2D;
  gint64 kernel[2], stride[2], pad[2], dil[2] = {1, 1};
  bool ceil_mode;
  bool sized = out->has_sizes && spatial_arg(node, "kernel_size", 2, kernel) &&
               pool_stride(node, kernel, stride) && spatial_arg(node, "padding", 2, pad) &&
               (!dilated || spatial_arg(node, "dilation", 2, dil)) &&
               pu_arg_bool(node, "ceil_mode", &ceil_mode);
  for (int k = 0; sized && k < 2; k++) {
    gint64 windows = IR_SIZE_UNKNOWN;
    sized = kernel[k] > 0 && stride[k] > 0 && dil[k] > 0 && pad[k] >= 0 &&
            pad[k] <= kernel[k] / 2 &&
            k_window_count(out->sizes[out->rank - 2 + k], kernel[k], stride[k], pad[k], dil[k],
                           ceil_mode, &windows) &&
            windows > 0;
    out->sizes[out->rank - 2 + k] = windows;
  }
  out->has_sizes = sized;
  shape_info_contiguous(out);
  return true;
}

/* adaptive_avg_pool2d, adaptive_max_pool2d: self's plane becomes output_size. */
bool shape_rule_adaptive_pool(const IrNode *node, ShapeInfo *out) {
  gint64 size[2];
  if (!shape_tensor_input(node, 0, out) || (out->rank != 3 && out->rank != 4))
    return false;
  bool sized =
      out->has_sizes && spatial_arg(node, "output_size", 2, size) && size[0] >= 0 && size[1] >= 0;
  for (int k = 0; sized && k < 2; k++)
    out->sizes[out->rank - 2 + k] = size[k];
  out->has_sizes = sized;
  shape_info_contiguous(out);
  return true;
}

/* max_pool1d, max_pool1d_with_indices, avg_pool1d: self's width pooled into windows as the
 * 2-D rule's with a height of 1 (an empty stride is the kernel size). */
bool shape_rule_pool1d(const IrNode *node, ShapeInfo *out) {
  if (!shape_tensor_input(node, 0, out) || (out->rank != 2 && out->rank != 3))
    return false;
  gint64 vals[IR_MAX_RANK], kernel, stride, pad, dil = 1;
  guint n;
  bool all_known, ceil_mode;
  bool sized = out->has_sizes && spatial_arg(node, "kernel_size", 1, &kernel) &&
               shape_int_list_arg(node, "stride", vals, &n, &all_known) && all_known &&
               (n == 0 || spatial_arg(node, "stride", 1, &stride)) &&
               spatial_arg(node, "padding", 1, &pad) &&
               (node->kind == IR_ATEN_AVG_POOL1D || spatial_arg(node, "dilation", 1, &dil)) &&
               pu_arg_bool(node, "ceil_mode", &ceil_mode);
  if (sized && n == 0)
    stride = kernel;
  gint64 windows = IR_SIZE_UNKNOWN;
  sized =
      sized && kernel > 0 && stride > 0 && dil > 0 && pad >= 0 && pad <= kernel / 2 &&
      k_window_count(out->sizes[out->rank - 1], kernel, stride, pad, dil, ceil_mode, &windows) &&
      windows > 0;
  out->sizes[out->rank - 1] = windows;
  out->has_sizes = sized;
  shape_info_contiguous(out);
  return true;
}

/* adaptive_avg_pool1d, adaptive_max_pool1d: self's width becomes output_size. */
bool shape_rule_adaptive_pool1d(const IrNode *node, ShapeInfo *out) {
  gint64 size;
  if (!shape_tensor_input(node, 0, out) || (out->rank != 2 && out->rank != 3))
    return false;
  bool sized = out->has_sizes && spatial_arg(node, "output_size", 1, &size) && size >= 0;
  out->sizes[out->rank - 1] = sized ? size : IR_SIZE_UNKNOWN;
  out->has_sizes = sized;
  shape_info_contiguous(out);
  return true;
}

/* upsample_nearest2d, upsample_bilinear2d: a 4-D input whose plane becomes output_size (sizes
 * unknown when the output comes from scale factors). */
bool shape_rule_upsample2d(const IrNode *node, ShapeInfo *out) {
  gint64 size[2];
  if (!shape_tensor_input(node, 0, out) || out->rank != 4)
    return false;
  bool sized = out->has_sizes && spatial_arg(node, "output_size", 2, size) && size[0] > 0 &&
               size[1] > 0;
  for (int k = 0; sized && k < 2; k++)
    out->sizes[2 + k] = size[k];
  out->has_sizes = sized;
  shape_info_contiguous(out);
  return true;
}

/* Their backward ops: the gradient of an input of input_size. */
bool shape_rule_upsample2d_backward(const IrNode *node, ShapeInfo *out) {
  gint64 size[IR_MAX_RANK];
  guint n;
  bool all_known;
  if (!shape_tensor_input(node, 0, out) || out->rank != 4)
    return false;
  out->has_sizes = shape_int_list_arg(node, "input_size", size, &n, &all_known) && all_known &&
                   n == 4;
  for (guint k = 0; out->has_sizes && k < 4; k++)
    out->sizes[k] = size[k];
  shape_info_contiguous(out);
  return true;
}
