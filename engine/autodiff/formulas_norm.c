/* Gradient formulas of batch_norm and group_norm through PyTorch 1.13's
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

/* group_norm's forward part: native_group_norm's mean and rstd, and N, C and HxW (the
 * product of the dims after the channels; the rank is known). */
void ad_fw_group_norm(Ctx *c) {
  IrValue *x = c->in[0], *none = ir_graph_insert_constant_none(c->g);
  int rank = x->type->rank;
  IrValue *n = E2(ATEN_SIZE, x, cint(c, 0)), *channels = E2(ATEN_SIZE, x, cint(c, 1));
  IrValue *hxw = cint(c, 1);
  for (int d = 2; d < rank; d++)
    hxw = E2(ATEN_MUL, hxw, E2(ATEN_SIZE, x, cint(c, d)));
  IrValue *args[] = {x,
                     is_tensor(arg(c, 2)) ? c->in[2] : none,
                     is_tensor(arg(c, 3)) ? c->in[3] : none,
                     n,
                     channels,
                     hxw,
                     c->in[1],
                     arg(c, 4) ? c->in[4] : cfloat(c, 1e-5)};
  IrNode *native = ir_graph_insert_op(c->g, IR_ATEN_NATIVE_GROUP_NORM, args, G_N_ELEMENTS(args), 3);
  save(c, ir_output(native, 1));
  save(c, ir_output(native, 2));
  save(c, n);
  save(c, channels);
  save(c, hxw);
}

void ad_grad_group_norm(Ctx *c, IrValue *g) {
  bool has_weight = is_tensor(arg(c, 2)), has_bias = is_tensor(arg(c, 3));
  bool asks[3] = {true, has_weight, has_bias};
  IrValue *none = ir_graph_insert_constant_none(c->g);
  IrValue *args[] = {
      g,           c->in[0],    c->saved[0], c->saved[1], has_weight ? c->in[2] : none,
      c->saved[2], c->saved[3], c->saved[4], c->in[1],    output_mask_of(c, asks)};
  IrNode *bw =
      ir_graph_insert_op(c->g, IR_ATEN_NATIVE_GROUP_NORM_BACKWARD, args, G_N_ELEMENTS(args), 3);
  c->gin[0] = ir_output(bw, 0);
  if (has_weight)
    c->gin[2] = ir_output(bw, 1);
  if (has_bias)
    c->gin[3] = ir_output(bw, 2);
}
