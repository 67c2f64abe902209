/* Gradient builders of the ops that move elements without computing (see formulas.h):
 * roll rolls back, constant_pad_nd and pad in mode 'constant' crop back (constant_pad_nd
 * with the pads negated), narrow writes into zeros through slice_backward, repeat sums its tiles. As
 * PyTorch 1.13's derivatives.yaml. The int[] arguments are read element by element
 * (aten::__getitem__), so that they need not be constants, only of a length the graph fixes:
 * the graph holds no list mutation, which the passes would have to keep in order. */
#include "autodiff/formulas_internal.h"

/* The length of the int[] v when the graph fixes it (a constant list, or a
 * prim::ListConstruct's element count), else -1. */
static int fixed_length(const IrValue *v) {
  const GArray *constant = constant_int_list(v);
  if (constant)
    return constant->len <= IR_MAX_RANK ? (int)constant->len : -1;
  if (v->node->kind == IR_PRIM_LIST_CONSTRUCT && ir_n_inputs(v->node) <= IR_MAX_RANK)
    return (int)ir_n_inputs(v->node);
  return -1;
}

bool ad_layout_formula_exists(const IrNode *node) {
  const IrValue *list = ir_input(node, 1);
  if (node->kind == IR_ATEN_REPEAT) /* g is seen with two dims per repeat */
    return fixed_length(list) >= 0 && fixed_length(list) <= IR_MAX_RANK / 2;
  if (node->kind == IR_ATEN_PAD) { /* and a constant mode */
    const char *mode = ad_pad_mode(node);
    return mode &&
           (strcmp(mode, "constant") == 0 ? fixed_length(list) >= 0
                                          : ad_pad_mode_formula_exists(node, fixed_length(list)));
  }
  return fixed_length(list) >= 0;
}

/* list[k] of an int[] */
static IrValue *int_item(Ctx *c, IrValue *list, gint64 k) {
  IrValue *item = E2(ATEN_GETITEM, list, cint(c, k));
  ir_value_set_type(item, ir_type_int());
  return item;
}

static IrValue *int_list(Ctx *c, IrValue *const *items, int n) {
  IrNode *list = ir_node_create(c->g, IR_PRIM_LIST_CONSTRUCT, 1);
  for (int k = 0; k < n; k++)
    ir_node_add_input(list, items[k]);
  ir_value_set_type(ir_output(list, 0), ir_type_list(ir_type_int()));
  ir_graph_insert(c->g, list);
  return ir_output(list, 0);
}

/* The node's int[] argument 1 with each int negated (a constant list when the ints are
 * constants). */
static IrValue *negated_ints(Ctx *c) {
  IrValue *list = c->in[1];
  gint64 values[IR_MAX_RANK];
  guint n;
  if (constant_ints(list, values, &n, IR_MAX_RANK)) {
    for (guint k = 0; k < n; k++)
      values[k] = (gint64)(0 - (guint64)values[k]); /* INT64_MIN stays itself, as at run time */
    return ir_graph_insert_constant_int_list(c->g, values, n);
  }
  int length = fixed_length(ir_input(c->node, 1));
  IrValue *items[IR_MAX_RANK];
  for (int k = 0; k < length; k++)
    items[k] = neg(c, int_item(c, list, k));
  return int_list(c, items, length);
}

void ad_grad_roll(Ctx *c, IrValue *g) {
  IrValue *dims = arg(c, 2) ? c->in[2] : ir_graph_insert_constant_int_list(c->g, NULL, 0);
  c->gin[0] = E3(ATEN_ROLL, g, negated_ints(c), dims);
}

/* constant_pad_nd, pad in mode 'constant': every pad negated crops what was added and
 * restores, as zeros, what was cropped. pad's other modes: formulas_pad_modes.c. */
void ad_grad_pad(Ctx *c, IrValue *g) {
  if (strcmp(ad_pad_mode(c->node), "constant") != 0) {
    ad_grad_pad_by_mode(c, g, fixed_length(ir_input(c->node, 1)));
    return;
  }
  c->gin[0] = E3(ATEN_CONSTANT_PAD_ND, g, negated_ints(c), cint(c, 0));
}

/* narrow: slice_backward over [start, start + length) with start wrapped first (narrow
 * counts a negative start from the end, where slice's end of 0 would mean the first place);
 * a constant start >= 0 needs no wrapping. */
void ad_grad_narrow(Ctx *c, IrValue *g) {
  IrValue *self_size = c->saved[0], *dim = c->in[1], *start = c->in[2];
  double constant_start;
  if (!constant_number(start, &constant_start) || constant_start < 0) {
    IrValue *negative = E1(ATEN_INT, E2(ATEN_LT, start, cint(c, 0)));
    IrValue *size = E2(ATEN_GETITEM, self_size, dim);
    ir_value_set_type(size, ir_type_int());
    start = E2(ATEN_ADD, start, mul(c, size, negative));
  }
  IrValue *end = E2(ATEN_ADD, start, c->in[3]);
  c->gin[0] = emit(c, IR_ATEN_SLICE_BACKWARD, 6,
                   (IrValue *const[]){g, self_size, dim, start, end, cint(c, 1)});
}

/* repeat: g seen as [repeats[0], sizes[0], repeats[1], sizes[1], ...] (self's sizes with
 * leading 1s up to len(repeats), built at run time so that self's rank need not be known),
 * summed over the repeats' dims and shaped as self: every tile's gradient added up, as
 * PyTorch's repeat_backward. */
void ad_grad_repeat(Ctx *c, IrValue *g) {
  IrValue *repeats = c->in[1], *self_size = c->saved[0];
  int n = fixed_length(ir_input(c->node, 1));
  IrValue *one = ir_graph_insert_constant_int_list(c->g, (const gint64[]){1}, 1);
  IrValue *leading = E2(ATEN_SUB, cint(c, n), E1(ATEN_LEN, self_size));
  IrValue *leading_ones = E2(ATEN_MUL, one, leading);
  ir_value_set_type(leading_ones, ir_type_list(ir_type_int()));
  IrValue *sizes = E2(ATEN_ADD, leading_ones, self_size);
  ir_value_set_type(sizes, ir_type_list(ir_type_int()));
  IrValue *tiled[2 * IR_MAX_RANK];
  gint64 tile_dims[IR_MAX_RANK];
  for (int k = 0; k < n; k++) {
    tiled[2 * k] = int_item(c, repeats, k);
    tiled[2 * k + 1] = int_item(c, sizes, k);
    tile_dims[k] = 2 * k;
  }
  IrValue *summed =
      emit(c, IR_ATEN_SUM, 4,
           (IrValue *const[]){E2(ATEN_RESHAPE, g, int_list(c, tiled, 2 * n)),
                              ir_graph_insert_constant_int_list(c->g, tile_dims, (guint)n),
                              ir_graph_insert_constant_bool(c->g, false),
                              ir_graph_insert_constant_none(c->g)});
  c->gin[0] = E2(ATEN_RESHAPE, summed, self_size);
}
