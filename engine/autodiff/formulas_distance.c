/* Gradient formulas of cosine_similarity and pairwise_distance, as PyTorch 1.13's autograd
 * differentiates their composite definitions (aten/src/ATen/native/Distance.cpp; the
 * kernels: runtime/kernels_distance.c), the intermediate values built again in the backward
 * graph:
 * - pairwise_distance = norm(d, p, [-1], keepdim), d = x1 - x2 + eps: norm's gradient
 *   (formulas_reduce.c, a constant p) with respect to d, summed to x1's size, and its
 *   negation to x2's.
 * - cosine_similarity = sum(u1 u2, dim), u = x / n with x1 and x2 broadcast and n =
 *   max(||x||_2 along dim (keepdim), eps): PyTorch clamps the norm in place under no_grad, so
 *   the gradient flows through n as through the norm, whose backward sees the clamped value:
 *   x's gradient is g u' / n (the quotient) plus s x / n masked to 0 where n = 0 (the norm's),
 *   s = -sum(g u' x / n^2, dim, keepdim), u' the other input's u and g unsqueezed at dim
 *   (checked against PyTorch 1.13 on a row whose norm is below eps). */
#include "autodiff/formulas_internal.h"

void ad_grad_pairwise_distance(Ctx *c, IrValue *g) {
  IrValue *one = cint(c, 1);
  IrValue *d = E3(ATEN_ADD, E3(ATEN_SUB, c->in[0], c->in[1], one), c->in[3], one);
  gint64 innermost = -1;
  double keepdim = 0;
  constant_number(c->in[4], &keepdim);
  IrValue *out = c->out[0];
  if (keepdim == 0) { /* the reduced dim is the last one: put it back there */
    g = E2(ATEN_UNSQUEEZE, g, cint(c, -1));
    out = E2(ATEN_UNSQUEEZE, out, cint(c, -1));
  }
  IrValue *norm_args[] = {d, c->in[2], ir_graph_insert_constant_int_list(c->g, &innermost, 1),
                          ir_graph_insert_constant_bool(c->g, true)};
  /* norm's formula reads its node: one with these inputs, removed once the formula is built */
  IrNode *norm = ir_graph_insert_op(c->g, IR_ATEN_NORM, norm_args, 4, 1);
  IrValue *norm_out[] = {out};
  IrValue *grad_d[4] = {NULL};
  Ctx sub = {.g = c->g, .node = norm, .in = norm_args, .out = norm_out, .gin = grad_d};
  ad_grad_vector_norm(&sub, g);
  ir_node_destroy(norm);
  c->gin[0] = gsts(c, grad_d[0], 0);
  c->gin[1] = gsts(c, neg(c, grad_d[0]), 1);
}

/* x1 and x2 broadcast to one shape: aten::broadcast_tensors and its prim::ListUnpack. */
static void broadcast_pair(Ctx *c, IrValue **x) {
  IrNode *list = ir_node_create(c->g, IR_PRIM_LIST_CONSTRUCT, 1);
  ir_node_add_input(list, c->in[0]);
  ir_node_add_input(list, c->in[1]);
  ir_value_set_type(ir_output(list, 0), ir_type_list(ir_type_tensor()));
  ir_graph_insert(c->g, list);
  IrValue *both = E1(ATEN_BROADCAST_TENSORS, ir_output(list, 0));
  IrNode *unpack = ir_node_create(c->g, IR_PRIM_LIST_UNPACK, 2);
  ir_node_add_input(unpack, both);
  ir_graph_insert(c->g, unpack);
  for (guint k = 0; k < 2; k++) {
    ir_value_set_type(ir_output(unpack, k), ir_type_tensor());
    x[k] = ir_output(unpack, k);
  }
}

void ad_grad_cosine_similarity(Ctx *c, IrValue *g) {
  IrValue *dim = c->in[2], *eps = c->in[3], *x[2], *n[2], *u[2];
  broadcast_pair(c, x);
  IrNode *dims = ir_node_create(c->g, IR_PRIM_LIST_CONSTRUCT, 1);
  ir_node_add_input(dims, dim);
  ir_value_set_type(ir_output(dims, 0), ir_type_list(ir_type_int()));
  ir_graph_insert(c->g, dims);
  IrValue *along = ir_output(dims, 0);
  IrValue *yes = ir_graph_insert_constant_bool(c->g, true);
  IrValue *none = ir_graph_insert_constant_none(c->g);
  for (guint k = 0; k < 2; k++) {
    IrValue *norm_args[] = {x[k], cint(c, 2), along, yes, none};
    n[k] = E2(ATEN_CLAMP_MIN, emit(c, IR_ATEN_LINALG_VECTOR_NORM, 5, norm_args), eps);
    u[k] = E2(ATEN_DIV, x[k], n[k]);
  }
  g = E2(ATEN_UNSQUEEZE, g, dim);
  for (guint k = 0; k < 2; k++) {
    IrValue *gu = mul(c, g, u[1 - k]);
    IrValue *quotient = E2(ATEN_DIV, gu, n[k]);
    IrValue *per_norm = E2(ATEN_DIV, mul(c, gu, x[k]), mul(c, n[k], n[k]));
    IrValue *sum_args[] = {per_norm, along, yes, none};
    IrValue *s = neg(c, emit(c, IR_ATEN_SUM, 4, sum_args));
    IrValue *zero = cint(c, 0);
    IrValue *direction =
        E3(ATEN_MASKED_FILL, E2(ATEN_DIV, x[k], n[k]), E2(ATEN_EQ, n[k], zero), zero);
    c->gin[k] = gsts(c, E3(ATEN_ADD, quotient, mul(c, s, direction), cint(c, 1)), k);
  }
}
