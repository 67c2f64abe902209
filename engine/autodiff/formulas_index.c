/* Gradient formulas of masked_fill, gather, scatter_add, index, index_put and baddbmm, as
 * PyTorch 1.13's derivatives.yaml. Masks and indices get none. */
#include "autodiff/formulas_internal.h"

/* masked_fill: self's gradient is g with the filled places zeroed, summed to self's size
 * (self broadcasts with the mask); a Tensor value gets the sum of g over the filled places. */
void ad_grad_masked_fill(Ctx *c, IrValue *g) {
  IrValue *mask = c->in[1];
  c->gin[0] = gsts(c, emit(c, IR_ATEN_MASKED_FILL, 3, (IrValue *const[]){g, mask, cint(c, 0)}), 0);
  if (is_tensor(c->in[2]))
    c->gin[2] = E1(ATEN_SUM, mul(c, g, mask));
}

/* gather: g scattered back with scatter_add into zeros of self's shape (repeated indices
 * accumulate); scatter_add: g itself for self, g gathered at the indices for src. */
void ad_grad_gather(Ctx *c, IrValue *g) {
  IrValue *dim = c->in[1], *index = c->in[2];
  if (c->node->kind == IR_ATEN_GATHER) {
    c->gin[0] = emit(c, IR_ATEN_SCATTER_ADD, 4,
                     (IrValue *const[]){E1(ATEN_ZEROS_LIKE, c->in[0]), dim, index, g});
    return;
  }
  c->gin[0] = g;
  c->gin[3] = emit(c, IR_ATEN_GATHER, 3, (IrValue *const[]){g, dim, index});
}

/* index: g accumulated into zeros of self's shape at the places index read (duplicates add
 * up), as PyTorch's index_backward. */
void ad_grad_index(Ctx *c, IrValue *g) {
  IrValue *yes = ir_graph_insert_constant_bool(c->g, true);
  c->gin[0] = emit(c, IR_ATEN_INDEX_PUT, 4,
                   (IrValue *const[]){E1(ATEN_ZEROS_LIKE, c->in[0]), c->in[1], g, yes});
}

/* index_put: self's gradient is g (accumulate) or g with the written places zeroed; values'
 * is g read at those places (a duplicate written once still reads g twice, as PyTorch's),
 * summed to values' size (values broadcast). The forward part saves that size. */
void ad_fw_index_put(Ctx *c) {
  save(c, size_of(c, c->in[2]));
}

void ad_grad_index_put(Ctx *c, IrValue *g) {
  double accumulate = 0;
  if (arg(c, 3))
    constant_number(c->in[3], &accumulate);
  IrValue *no = ir_graph_insert_constant_bool(c->g, false);
  c->gin[0] = accumulate != 0
                  ? g
                  : emit(c, IR_ATEN_INDEX_PUT, 4,
                         (IrValue *const[]){g, c->in[1], E1(ATEN_ZEROS_LIKE, c->in[2]), no});
  c->gin[2] = gsts(c, E2(ATEN_INDEX, g, c->in[1]), 0);
}

/* baddbmm = beta self + alpha batch1 @ batch2: beta g summed to self's size, alpha g @
 * batch2^T and alpha batch1^T @ g. */
void ad_grad_baddbmm(Ctx *c, IrValue *g) {
  IrValue *beta = arg(c, 3) ? c->in[3] : cint(c, 1), *alpha = arg(c, 4) ? c->in[4] : cint(c, 1);
  IrValue *one = cint(c, 1), *two = cint(c, 2);
  c->gin[0] = gsts(c, mul(c, g, beta), 0);
  c->gin[1] = mul(c, E2(ATEN_BMM, g, E3(ATEN_TRANSPOSE, c->in[2], one, two)), alpha);
  c->gin[2] = mul(c, E2(ATEN_BMM, E3(ATEN_TRANSPOSE, c->in[1], one, two), g), alpha);
}
