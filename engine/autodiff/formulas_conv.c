/* Gradient formulas of the convolutions and poolings through their backward ops, as PyTorch
 * 1.13's derivatives.yaml: conv1d / conv2d (and their .padding overloads), conv_transpose1d /
 * conv_transpose2d and _convolution through convolution_backward, max_pool2d and
 * max_pool2d_with_indices through max_pool2d_with_indices_backward (max_pool2d's indices from
 * a max_pool2d_with_indices in the forward part), avg_pool2d through avg_pool2d_backward,
 * adaptive_avg_pool2d through _adaptive_avg_pool2d_backward, adaptive_max_pool2d through
 * adaptive_max_pool2d_backward, upsample_nearest2d and upsample_bilinear2d through their
 * _backward ops; pixel_shuffle and pixel_unshuffle through each other.
 *
 * The 1-D poolings as PyTorch 1.13 runs them, the 2-D op on self.unsqueeze(-2): the 2-D
 * backward op on g, self and the indices unsqueezed at -2, squeezed back, with the 2-D window
 * lists [1] + kernel_size, [1, (stride + kernel_size)[0]] (an empty stride is the kernel
 * size), [0] + padding and [1] + dilation: list arithmetic in the graph, so that the lists
 * need not be constants. */
#include "autodiff/formulas_internal.h"

/* Argument i, or the constant int[] `fill` (the schema's default) when the node omits it. */
static IrValue *int_list_arg(Ctx *c, guint i, gint64 fill) {
  return arg(c, i) ? c->in[i] : ir_graph_insert_constant_int_list(c->g, &fill, 1);
}

/* A new prim::ListConstruct of n values of element type elem. */
static IrValue *list_of(Ctx *c, IrValue *const *items, guint n, const IrType *elem) {
  IrNode *list = ir_node_create(c->g, IR_PRIM_LIST_CONSTRUCT, 1);
  for (guint i = 0; i < n; i++)
    ir_node_add_input(list, items[i]);
  ir_value_set_type(ir_output(list, 0), ir_type_list(elem));
  ir_graph_insert(c->g, list);
  return ir_output(list, 0);
}

/* The .padding overloads' padding as convolution_backward's int[], g adjusted to match: [0]
 * for a constant 'valid'. 'same' pads l = total // 2 before the input and r = total - l after
 * it (total = dilation[i] * (weight.size(2 + i) - 1), from the weight's runtime sizes): its
 * output is the one of a symmetric padding r without the first r - l (0 or 1) positions, so
 * convolution_backward takes padding r and g with r - l zeros in front (a cat with an empty
 * or one-wide zero slab of g along each spatial dim). */
static const char *constant_mode(const IrNode *node) {
  if (ir_n_inputs(node) <= 4)
    return "valid";
  const IrValue *mode = ir_input(node, 4);
  const IrAttr *a =
      mode->node->kind == IR_PRIM_CONSTANT ? ir_node_attr(mode->node, IR_ATTR_VALUE) : NULL;
  return a && a->kind == IR_ATTR_S ? a->v.s : NULL;
}

/* The dilations of a .padding overload: absent (1) or a constant list of one value or one per
 * spatial dim. */
static bool constant_dilation(const IrNode *node, guint spatial, gint64 *out) {
  for (guint i = 0; i < spatial; i++)
    out[i] = 1;
  if (ir_n_inputs(node) <= 5 || value_is_none(ir_input(node, 5)))
    return true;
  gint64 vals[IR_MAX_RANK];
  guint n;
  if (!constant_ints(ir_input(node, 5), vals, &n, IR_MAX_RANK) || (n != 1 && n != spatial))
    return false;
  for (guint i = 0; i < spatial; i++)
    out[i] = vals[n == 1 ? 0 : i];
  return true;
}

bool ad_conv_padding_known(const IrNode *node) {
  const char *mode = constant_mode(node);
  gint64 dilation[2];
  return mode && (strcmp(mode, "valid") == 0 ||
                  (strcmp(mode, "same") == 0 &&
                   constant_dilation(node, node->kind == IR_ATEN_CONV1D ? 1 : 2, dilation)));
}

static IrValue *padding_of_mode(Ctx *c, IrValue **g) {
  if (strcmp(constant_mode(c->node), "valid") == 0) {
    gint64 zero = 0;
    return ir_graph_insert_constant_int_list(c->g, &zero, 1);
  }
  guint sp = c->node->kind == IR_ATEN_CONV1D ? 1 : 2;
  gint64 dilation[2];
  constant_dilation(c->node, sp, dilation);
  IrValue *pads[2];
  for (guint i = 0; i < sp; i++) {
    IrValue *k = E2(ATEN_SIZE, c->in[1], cint(c, 2 + (gint64)i));
    IrValue *d = cint(c, dilation[i]);
    IrValue *total = E2(ATEN_MUL, d, E2(ATEN_SUB, k, cint(c, 1)));
    IrValue *l = E2(ATEN___ROUND_TO_ZERO_FLOORDIV, total, cint(c, 2));
    IrValue *extra = E2(ATEN_SUB, total, E2(ATEN_MUL, l, cint(c, 2)));
    pads[i] = E2(ATEN_ADD, l, extra);
    IrValue *dim = cint(c, (gint64)i - (gint64)sp);
    IrValue *slab_args[] = {*g, dim, cint(c, 0), extra, cint(c, 1)};
    IrValue *zeros = E1(ATEN_ZEROS_LIKE, emit(c, IR_ATEN_SLICE, 5, slab_args));
    IrValue *pieces[] = {zeros, *g};
    *g = E2(ATEN_CAT, list_of(c, pieces, 2, ir_type_tensor()), dim);
  }
  return list_of(c, pads, sp, ir_type_int());
}

/* conv1d, conv2d, _convolution: the gradients of input, weight and (when given) bias from one
 * convolution_backward, as PyTorch's; _convolution passes its own transposed and
 * output_padding, conv_transpose1d / 2d theirs (dilation last); the .padding overloads their
 * padding as ints. */
void ad_grad_conv(Ctx *c, IrValue *g) {
  IrOpKind kind = c->node->kind;
  bool general = kind == IR_ATEN__CONVOLUTION;
  bool transposed = kind == IR_ATEN_CONV_TRANSPOSE1D || kind == IR_ATEN_CONV_TRANSPOSE2D;
  guint groups_at = general ? 8 : 6, dilation_at = transposed ? 7 : 5;
  bool has_bias = is_tensor(arg(c, 2));
  IrValue *padding =
      overload_is(c->node, "padding") ? padding_of_mode(c, &g) : int_list_arg(c, 4, 0);
  bool asks[3] = {true, true, has_bias};
  IrValue *transposed_arg = general ? c->in[6] : ir_graph_insert_constant_bool(c->g, transposed);
  gint64 zero = 0;
  IrValue *output_padding = general      ? c->in[7]
                            : transposed ? int_list_arg(c, 5, 0)
                                         : ir_graph_insert_constant_int_list(c->g, &zero, 1);
  IrValue *args[] = {
      g,
      c->in[0],
      c->in[1],
      has_bias ? size_of(c, c->in[2]) : ir_graph_insert_constant_none(c->g),
      int_list_arg(c, 3, 1),
      padding,
      int_list_arg(c, dilation_at, 1),
      transposed_arg,
      output_padding,
      arg(c, groups_at) ? c->in[groups_at] : cint(c, 1),
      output_mask_of(c, asks),
  };
  IrNode *bw = ir_graph_insert_op(c->g, IR_ATEN_CONVOLUTION_BACKWARD, args, G_N_ELEMENTS(args), 3);
  c->gin[0] = ir_output(bw, 0);
  c->gin[1] = ir_output(bw, 1);
  if (has_bias)
    c->gin[2] = ir_output(bw, 2);
}

/* max_pool2d's forward part: the indices of the maxima, from max_pool2d_with_indices with the
 * same arguments (its output 0 is max_pool2d's result again). */
void ad_fw_max_pool2d(Ctx *c) {
  IrNode *with_indices = ir_graph_insert_op(c->g, IR_ATEN_MAX_POOL2D_WITH_INDICES, c->in, 6, 2);
  save(c, ir_output(with_indices, 1));
}

/* max_pool2d (the indices its forward part saved) and max_pool2d_with_indices (its own). */
void ad_grad_max_pool2d(Ctx *c, IrValue *g) {
  IrValue *indices = c->node->kind == IR_ATEN_MAX_POOL2D ? c->saved[0] : c->out[1];
  IrValue *args[] = {g, c->in[0], c->in[1], c->in[2], c->in[3], c->in[4], c->in[5], indices};
  c->gin[0] = emit(c, IR_ATEN_MAX_POOL2D_WITH_INDICES_BACKWARD, G_N_ELEMENTS(args), args);
}

void ad_grad_avg_pool2d(Ctx *c, IrValue *g) {
  IrValue *args[] = {g, c->in[0], c->in[1], c->in[2], c->in[3], c->in[4], c->in[5], c->in[6]};
  c->gin[0] = emit(c, IR_ATEN_AVG_POOL2D_BACKWARD, G_N_ELEMENTS(args), args);
}

void ad_grad_adaptive_avg_pool2d(Ctx *c, IrValue *g) {
  c->gin[0] = E2(ATEN__ADAPTIVE_AVG_POOL2D_BACKWARD, g, c->in[0]);
}

/* x.unsqueeze(-2): a 1-D pooling's tensor as the 2-D op's planes of height 1. */
static IrValue *planes_2d(Ctx *c, IrValue *x) {
  return E2(ATEN_UNSQUEEZE, x, cint(c, -2));
}

static IrValue *squeeze_planes(Ctx *c, IrValue *x) {
  return E2(ATEN_SQUEEZE, x, cint(c, -2));
}

/* a + b of two int[] (aten::add.t, typed int[]). */
static IrValue *int_list_cat(Ctx *c, IrValue *a, IrValue *b) {
  IrValue *r = E2(ATEN_ADD, a, b);
  ir_value_set_type(r, ir_type_list(ir_type_int()));
  return r;
}

/* [lead] + the int[1] argument i. */
static IrValue *window_list_2d(Ctx *c, guint i, gint64 lead) {
  return int_list_cat(c, ir_graph_insert_constant_int_list(c->g, &lead, 1), c->in[i]);
}

/* [1, (stride + kernel_size)[0]]: the stride, or the kernel size where the stride is empty. */
static IrValue *stride_list_2d(Ctx *c) {
  IrValue *first = E2(ATEN_GETITEM, int_list_cat(c, c->in[2], c->in[1]), cint(c, 0));
  ir_value_set_type(first, ir_type_int());
  IrValue *items[] = {cint(c, 1), first};
  return list_of(c, items, 2, ir_type_int());
}

/* max_pool1d's forward part: the indices of the maxima, from max_pool1d_with_indices. */
void ad_fw_max_pool1d(Ctx *c) {
  IrNode *with_indices = ir_graph_insert_op(c->g, IR_ATEN_MAX_POOL1D_WITH_INDICES, c->in, 6, 2);
  save(c, ir_output(with_indices, 1));
}

void ad_grad_max_pool1d(Ctx *c, IrValue *g) {
  IrValue *indices = c->node->kind == IR_ATEN_MAX_POOL1D ? c->saved[0] : c->out[1];
  IrValue *args[] = {planes_2d(c, g),   planes_2d(c, c->in[0]),  window_list_2d(c, 1, 1),
                     stride_list_2d(c), window_list_2d(c, 3, 0), window_list_2d(c, 4, 1),
                     c->in[5],          planes_2d(c, indices)};
  c->gin[0] = squeeze_planes(
      c, emit(c, IR_ATEN_MAX_POOL2D_WITH_INDICES_BACKWARD, G_N_ELEMENTS(args), args));
}

void ad_grad_avg_pool1d(Ctx *c, IrValue *g) {
  IrValue *args[] = {planes_2d(c, g),
                     planes_2d(c, c->in[0]),
                     window_list_2d(c, 1, 1),
                     stride_list_2d(c),
                     window_list_2d(c, 3, 0),
                     c->in[4],
                     c->in[5],
                     ir_graph_insert_constant_none(c->g)};
  c->gin[0] = squeeze_planes(c, emit(c, IR_ATEN_AVG_POOL2D_BACKWARD, G_N_ELEMENTS(args), args));
}

void ad_grad_adaptive_avg_pool1d(Ctx *c, IrValue *g) {
  c->gin[0] = squeeze_planes(
      c, E2(ATEN__ADAPTIVE_AVG_POOL2D_BACKWARD, planes_2d(c, g), planes_2d(c, c->in[0])));
}

/* adaptive_max_pool2d and adaptive_max_pool1d: g to the maxima their indices (output 1)
 * name. */
void ad_grad_adaptive_max_pool(Ctx *c, IrValue *g) {
  if (c->node->kind == IR_ATEN_ADAPTIVE_MAX_POOL2D) {
    c->gin[0] = E3(ATEN_ADAPTIVE_MAX_POOL2D_BACKWARD, g, c->in[0], c->out[1]);
    return;
  }
  c->gin[0] = squeeze_planes(c, E3(ATEN_ADAPTIVE_MAX_POOL2D_BACKWARD, planes_2d(c, g),
                                   planes_2d(c, c->in[0]), planes_2d(c, c->out[1])));
}

/* upsample_*2d(input, output_size, [align_corners,] scales...): its _backward op of the same
 * overload, (grad, output_size, input's size (saved), [align_corners,] scales...). */
void ad_grad_upsample2d(Ctx *c, IrValue *g) {
  bool bilinear = c->node->kind == IR_ATEN_UPSAMPLE_BILINEAR2D;
  guint n_args = c->node->schema->n_args;
  IrValue *args[8];
  guint n = 0;
  args[n++] = g;
  args[n++] = c->in[1];
  args[n++] = c->saved[0];
  for (guint i = 2; i < n_args; i++) /* [align_corners,] the scales */
    args[n++] = arg(c, i) ? c->in[i] : ir_graph_insert_constant_none(c->g);
  IrNode *grad = ir_graph_insert_op(c->g,
                                    bilinear ? IR_ATEN_UPSAMPLE_BILINEAR2D_BACKWARD
                                             : IR_ATEN_UPSAMPLE_NEAREST2D_BACKWARD,
                                    args, n, 1);
  c->gin[0] = ir_output(grad, 0);
}

/* pixel_shuffle's gradient unshuffles by the same factor, and the other way round. */
void ad_grad_pixel_shuffle(Ctx *c, IrValue *g) {
  bool up = c->node->kind == IR_ATEN_PIXEL_SHUFFLE;
  c->gin[0] = up ? E2(ATEN_PIXEL_UNSHUFFLE, g, c->in[1]) : E2(ATEN_PIXEL_SHUFFLE, g, c->in[1]);
}
