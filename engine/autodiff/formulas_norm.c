/* Gradient formulas of batch_norm, group_norm and instance_norm through PyTorch 1.13's
 * native_batch_norm_backward and native_group_norm_backward. */
#include "autodiff/formulas_internal.h"

/* batch_norm: native_batch_norm_backward with no saved statistics (the kernel computes them
 * from input again when training, and reads the running ones otherwise); the running
 * statistics get no gradient, as PyTorch's. */
void ad_grad_batch_norm(Ctx *c, IrValue *g) {
  bool has_weight = is_tensor(arg(c, 1)), has_bias = is_tensor(arg(c, 2));
  bool asks[3] = {true, has_weight, has_bias};
  IrValue *none = ir_graph_insert_constant_none(c->g);
  IrValue *args[] = {
      g,        c->in[0], has_weight ? c->in[1] : none, c->in[3], c->in[4], none, none,
      c->in[5], c->in[7], output_mask_of(c, asks)};
  IrNode *bw =
      ir_graph_insert_op(c->g, IR_ATEN_NATIVE_BATCH_NORM_BACKWARD, args, G_N_ELEMENTS(args), 3);
  c->gin[0] = ir_output(bw, 0);
  if (has_weight)
    c->gin[1] = ir_output(bw, 1);
  if (has_bias)
    c->gin[2] = ir_output(bw, 2);
}

/* native_group_norm's mean and rstd of x in `groups` groups, and N, C and HxW (the product of
 * the dims after the channels; the rank is known), saved in that order. */
static void save_group_stats(Ctx *c, IrValue *x, IrValue *weight, IrValue *bias, IrValue *groups,
                             IrValue *eps) {
  int rank = x->type->rank;
  IrValue *n = E2(ATEN_SIZE, x, cint(c, 0)), *channels = E2(ATEN_SIZE, x, cint(c, 1));
  IrValue *hxw = cint(c, 1);
  for (int d = 2; d < rank; d++)
    hxw = E2(ATEN_MUL, hxw, E2(ATEN_SIZE, x, cint(c, d)));
  IrValue *args[] = {x, weight, bias, n, channels, hxw, groups ? groups : channels, eps};
  IrNode *native = ir_graph_insert_op(c->g, IR_ATEN_NATIVE_GROUP_NORM, args, G_N_ELEMENTS(args), 3);
  save(c, ir_output(native, 1));
  save(c, ir_output(native, 2));
  save(c, n);
  save(c, channels);
  save(c, hxw);
}

/* The optional tensor argument i, or None. */
static IrValue *tensor_or_none(Ctx *c, guint i) {
  return is_tensor(arg(c, i)) ? c->in[i] : ir_graph_insert_constant_none(c->g);
}

/* group_norm's forward part: its statistics (save_group_stats). */
void ad_fw_group_norm(Ctx *c) {
  save_group_stats(c, c->in[0], tensor_or_none(c, 2), tensor_or_none(c, 3), c->in[1],
                   arg(c, 4) ? c->in[4] : cfloat(c, 1e-5));
}

/* native_group_norm_backward from the saved statistics, weight (a tensor or None) at
 * argument w_at, bias at w_at + 1, `groups` groups. */
static void group_norm_backward(Ctx *c, IrValue *g, guint w_at, IrValue *groups) {
  bool has_weight = is_tensor(arg(c, w_at)), has_bias = is_tensor(arg(c, w_at + 1));
  bool asks[3] = {true, has_weight, has_bias};
  IrValue *args[] = {g,           c->in[0],    c->saved[0], c->saved[1], tensor_or_none(c, w_at),
                     c->saved[2], c->saved[3], c->saved[4], groups,      output_mask_of(c, asks)};
  IrNode *bw =
      ir_graph_insert_op(c->g, IR_ATEN_NATIVE_GROUP_NORM_BACKWARD, args, G_N_ELEMENTS(args), 3);
  c->gin[0] = ir_output(bw, 0);
  if (has_weight)
    c->gin[w_at] = ir_output(bw, 1);
  if (has_bias)
    c->gin[w_at + 1] = ir_output(bw, 2);
}

/* Is instance_norm's use_input_stats a constant true (else a constant false: the formula
 * exists for constants only)? */
static bool uses_input_stats(const IrNode *node) {
  double d;
  return constant_number(ir_input(node, 5), &d) && d != 0;
}

/* instance_norm's forward part: with use_input_stats, group statistics with a group per
 * channel (an instance norm is a group norm of C groups, whose weight and bias are also per
 * channel); without, nothing (batch_norm's evaluation). */
void ad_fw_instance_norm(Ctx *c) {
  if (uses_input_stats(c->node))
    save_group_stats(c, c->in[0], tensor_or_none(c, 1), tensor_or_none(c, 2), NULL, c->in[7]);
}

/* instance_norm: native_group_norm_backward with a group per channel, or batch_norm's
 * evaluation gradient through the running statistics. */
void ad_grad_instance_norm(Ctx *c, IrValue *g) {
  if (uses_input_stats(c->node)) {
    group_norm_backward(c, g, 1, c->saved[3]);
    return;
  }
  ad_grad_batch_norm(c, g);
}

void ad_grad_group_norm(Ctx *c, IrValue *g) {
  group_norm_backward(c, g, 2, c->in[1]);
}
