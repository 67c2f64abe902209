/* Gradient formulas of the convolutions and poolings through their backward ops, as PyTorch
 * 1.13's derivatives.yaml: conv1d / conv2d / _convolution through convolution_backward,
 * max_pool2d through max_pool2d_with_indices_backward (the indices from a
 * max_pool2d_with_indices in the forward part), avg_pool2d through avg_pool2d_backward,
 * adaptive_avg_pool2d through _adaptive_avg_pool2d_backward. */
#include "autodiff/formulas_internal.h"

/* Argument i, or the constant int[] `fill` (the schema's default) when the node omits it. */
static IrValue *int_list_arg(Ctx *c, guint i, gint64 fill) {
  return arg(c, i) ? c->in[i] : ir_graph_insert_constant_int_list(c->g, &fill, 1);
}

/* conv1d, conv2d, _convolution: the gradients of input, weight and (when given) bias from one
 * convolution_backward, as PyTorch's; _convolution passes its own transposed (which the
 * kernels refuse) and groups. */
void ad_grad_conv(Ctx *c, IrValue *g) {
  bool general = c->node->kind == IR_ATEN__CONVOLUTION;
  guint groups_at = general ? 8 : 6;
  bool has_bias = is_tensor(arg(c, 2));
  bool asks[3] = {true, true, has_bias};
  gint64 zero = 0;
  IrValue *args[] = {
      g,
      c->in[0],
      c->in[1],
      has_bias ? size_of(c, c->in[2]) : ir_graph_insert_constant_none(c->g),
      int_list_arg(c, 3, 1),
      int_list_arg(c, 4, 0),
      int_list_arg(c, 5, 1),
      general ? c->in[6] : ir_graph_insert_constant_bool(c->g, false),
      ir_graph_insert_constant_int_list(c->g, &zero, 1),
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

void ad_grad_max_pool2d(Ctx *c, IrValue *g) {
  IrValue *args[] = {g, c->in[0], c->in[1], c->in[2], c->in[3], c->in[4], c->in[5], c->saved[0]};
  c->gin[0] = emit(c, IR_ATEN_MAX_POOL2D_WITH_INDICES_BACKWARD, G_N_ELEMENTS(args), args);
}

void ad_grad_avg_pool2d(Ctx *c, IrValue *g) {
  IrValue *args[] = {g, c->in[0], c->in[1], c->in[2], c->in[3], c->in[4], c->in[5], c->in[6]};
  c->gin[0] = emit(c, IR_ATEN_AVG_POOL2D_BACKWARD, G_N_ELEMENTS(args), args);
}

void ad_grad_adaptive_avg_pool2d(Ctx *c, IrValue *g) {
  c->gin[0] = E2(ATEN__ADAPTIVE_AVG_POOL2D_BACKWARD, g, c->in[0]);
}
