/* Gradient builders of aten::pad in modes 'reflect', 'replicate' and 'circular' (see
 * formulas.h), as PyTorch 1.13's autograd computes them:
 * - reflect / replicate with 2, 4 or 6 pads: reflection_pad{1,2,3}d_backward /
 *   replication_pad{1,2,3}d_backward(g, self, pad) (derivatives.yaml);
 * - circular: _pad_circular is composite (PadNd.cpp): the kept part copied in, then per dim
 *   from the last the pad before and the pad after copied from the kept part's far ends. Its
 *   gradient undoes those copies in reverse order: each copy's destination slice of g is
 *   zeroed (constant_pad_nd of the rest) and added, through slice_backward, onto its source
 *   slice; finally constant_pad_nd with the pads negated crops the pads off and restores
 *   zeros where self was cropped (back_to_self). Node for node PyTorch's CopySlices / SliceBackward sums,
 *   so the gradient rounds as PyTorch's. It needs the pads as constants. */
#include "autodiff/formulas_internal.h"

const char *ad_pad_mode(const IrNode *node) {
  if (ir_n_inputs(node) < 3 || node->kind == IR_ATEN_CONSTANT_PAD_ND)
    return "constant";
  const IrValue *mode = ir_input(node, 2);
  const IrAttr *a =
      mode->node->kind == IR_PRIM_CONSTANT ? ir_node_attr(mode->node, IR_ATTR_VALUE) : NULL;
  return a && a->kind == IR_ATTR_S ? a->v.s : NULL;
}

bool ad_pad_mode_formula_exists(const IrNode *node, int pad_length) {
  const char *mode = ad_pad_mode(node);
  gint64 pads[IR_MAX_RANK];
  guint n;
  if (!mode)
    return false;
  if (strcmp(mode, "reflect") == 0 || strcmp(mode, "replicate") == 0)
    return pad_length == 2 || pad_length == 4 || pad_length == 6;
  return strcmp(mode, "circular") == 0 && constant_ints(ir_input(node, 1), pads, &n, 6) &&
         n % 2 == 0;
}

/* A constant int[] of 2 (pair + 1) zeros but before, after at pair's places: constant_pad_nd's
 * pads for the pair-th dim from the end. */
static IrValue *pads_of_pair(Ctx *c, int pair, gint64 before, gint64 after) {
  gint64 values[IR_MAX_RANK] = {0};
  values[2 * pair] = before;
  values[2 * pair + 1] = after;
  return ir_graph_insert_constant_int_list(c->g, values, (guint)(2 * pair + 2));
}

static IrValue *slice(Ctx *c, IrValue *t, gint64 dim, IrValue *start, IrValue *end) {
  return emit(c, IR_ATEN_SLICE, 5, (IrValue *const[]){t, cint(c, dim), start, end, cint(c, 1)});
}

/* g with the slice `moved` of the pair-th dim from the end added onto [to, to_end) (negative
 * from the end) and its own places zeroed: `rest` is the slice of g without the moved places,
 * which rest_pads put back as zeros. */
static IrValue *undo_copy(Ctx *c, IrValue *sizes, int pair, IrValue *moved, IrValue *rest,
                          IrValue *rest_pads, gint64 to, gint64 to_end) {
  gint64 dim = -(pair + 1);
  IrValue *kept = E3(ATEN_CONSTANT_PAD_ND, rest, rest_pads, cint(c, 0));
  IrValue *back = emit(
      c, IR_ATEN_SLICE_BACKWARD, 6,
      (IrValue *const[]){moved, sizes, cint(c, dim), cint(c, to), cint(c, to_end), cint(c, 1)});
  return E2(ATEN_ADD, kept, back);
}

/* The kept part of g with self's cropped places restored as zeros: constant_pad_nd with the
 * pads negated (|pad| <= the dim's size: no INT64_MIN). With negative pads, whose zeros
 * constant_pad_nd would refuse to add beside a padded dim that is empty, the positive pads
 * are cropped first and each dim is then filled alone, moved to the end. */
static IrValue *back_to_self(Ctx *c, IrValue *g, const gint64 *pads, guint n) {
  gint64 negated[IR_MAX_RANK], crop[IR_MAX_RANK];
  bool any_negative = false;
  for (guint k = 0; k < n; k++) {
    negated[k] = -pads[k];
    crop[k] = -MAX(pads[k], 0);
    any_negative |= pads[k] < 0;
  }
  if (!any_negative)
    return E3(ATEN_CONSTANT_PAD_ND, g, ir_graph_insert_constant_int_list(c->g, negated, n),
              cint(c, 0));
  g = E3(ATEN_CONSTANT_PAD_ND, g, ir_graph_insert_constant_int_list(c->g, crop, n), cint(c, 0));
  for (guint pair = 0; pair < n / 2; pair++) {
    gint64 fill[2] = {MAX(-pads[2 * pair], 0), MAX(-pads[2 * pair + 1], 0)};
    if (fill[0] == 0 && fill[1] == 0)
      continue;
    IrValue *last = cint(c, -1), *dim = cint(c, -(gint64)pair - 1);
    IrValue *t = pair ? E3(ATEN_TRANSPOSE, g, dim, last) : g;
    t = E3(ATEN_CONSTANT_PAD_ND, t, ir_graph_insert_constant_int_list(c->g, fill, 2), cint(c, 0));
    g = pair ? E3(ATEN_TRANSPOSE, t, dim, last) : t;
  }
  return g;
}

static void grad_circular(Ctx *c, IrValue *g) {
  gint64 pads[IR_MAX_RANK];
  guint n; /* the node's own list: c->in[1] may stand for it in another graph */
  if (!constant_ints(ir_input(c->node, 1), pads, &n, 6))
    g_error("autodiff invariant: circular pad's gradient built without constant pads");
  IrValue *sizes = size_of(c, g), *none = ir_graph_insert_constant_none(c->g);
  for (int pair = (int)n / 2 - 1; pair >= 0; pair--) {
    gint64 before = pads[2 * pair], after = pads[2 * pair + 1], dim = -(pair + 1);
    if (after > 0) { /* [out - after, out) was copied from [max(before, 0), + after) */
      IrValue *moved = slice(c, g, dim, cint(c, -after), none);
      IrValue *rest = slice(c, g, dim, cint(c, 0), cint(c, -after));
      gint64 to = MAX(before, 0);
      g = undo_copy(c, sizes, pair, moved, rest, pads_of_pair(c, pair, 0, after), to, to + after);
    }
    if (before > 0) { /* [0, before) from [out - before - max(after, 0), out - max(after, 0)) */
      IrValue *moved = slice(c, g, dim, cint(c, 0), cint(c, before));
      IrValue *rest = slice(c, g, dim, cint(c, before), none);
      gint64 tail = MAX(after, 0);
      g = undo_copy(c, sizes, pair, moved, rest, pads_of_pair(c, pair, before, 0), -(before + tail),
                    tail > 0 ? -tail : G_MAXINT64);
    }
  }
  c->gin[0] = back_to_self(c, g, pads, n);
}

void ad_grad_pad_by_mode(Ctx *c, IrValue *g, int pad_length) {
  const char *mode = ad_pad_mode(c->node);
  if (strcmp(mode, "circular") == 0) {
    grad_circular(c, g);
    return;
  }
  static const IrOpKind reflect[] = {IR_ATEN_REFLECTION_PAD1D_BACKWARD,
                                     IR_ATEN_REFLECTION_PAD2D_BACKWARD,
                                     IR_ATEN_REFLECTION_PAD3D_BACKWARD};
  static const IrOpKind replicate[] = {IR_ATEN_REPLICATION_PAD1D_BACKWARD,
                                       IR_ATEN_REPLICATION_PAD2D_BACKWARD,
                                       IR_ATEN_REPLICATION_PAD3D_BACKWARD};
  const IrOpKind *kinds = strcmp(mode, "reflect") == 0 ? reflect : replicate;
  c->gin[0] = emit(c, kinds[pad_length / 2 - 1], 3, (IrValue *const[]){g, c->in[0], c->in[1]});
}
