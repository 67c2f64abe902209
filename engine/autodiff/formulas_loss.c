/* Gradient formulas of the losses (mse_loss, l1_loss, nll_loss, nll_loss_nd,
 * cross_entropy_loss, binary_cross_entropy_with_logits, smooth_l1_loss, huber_loss,
 * soft_margin_loss, binary_cross_entropy, kl_div), as PyTorch 1.13's derivatives.yaml.
 * The reduction need not be a constant: the functional losses compute it from their
 * reduction name, and graphs that are not optimized still hold that computation, so the mean's
 * division is then decided when the graph runs. Weights get no gradient. */
#include "autodiff/formulas_internal.h"

static IrValue *arg_or_none(Ctx *c, guint i) {
  return arg(c, i) ? c->in[i] : ir_graph_insert_constant_none(c->g);
}

/* grad over the element count n (an int) for the mean (reduction 1, the default): directly
 * for a constant reduction, else over 1 + (reduction == 1) (n - 1), decided at run time. */
static IrValue *mean_scaled(Ctx *c, IrValue *grad, guint reduction_index, IrValue *n) {
  IrValue *r = arg(c, reduction_index);
  double reduction = 1;
  if (!r || constant_number(r, &reduction))
    return reduction == 1 ? E2(ATEN_DIV, grad, n) : grad;
  IrValue *one = cint(c, 1);
  IrValue *is_mean = E1(ATEN_INT, E2(ATEN_EQ, r, one));
  return E2(ATEN_DIV, grad, E2(ATEN_ADD, one, E2(ATEN_MUL, is_mean, E2(ATEN_SUB, n, one))));
}

/* mse_loss as PyTorch's mse_loss_backward: 2 (self - target) g, over the element count for
 * the mean; each side summed to its size (they broadcast). */
void ad_grad_mse_loss(Ctx *c, IrValue *g) {
  IrValue *diff = E3(ATEN_SUB, c->in[0], c->in[1], cint(c, 1));
  IrValue *grad = mean_scaled(c, mul(c, mul(c, diff, cint(c, 2)), g), 2, E1(ATEN_NUMEL, diff));
  c->gin[0] = gsts(c, grad, 0);
  c->gin[1] = gsts(c, E1(ATEN_NEG, grad), 1);
}

/* l1_loss = |self - target| reduced: sign(self - target) g, over the element count for the
 * mean; each side summed to its size (they broadcast). */
void ad_grad_l1_loss(Ctx *c, IrValue *g) {
  IrValue *diff = E3(ATEN_SUB, c->in[0], c->in[1], cint(c, 1));
  IrValue *grad = mean_scaled(c, mul(c, E1(ATEN_SIGN, diff), g), 2, E1(ATEN_NUMEL, diff));
  c->gin[0] = gsts(c, grad, 0);
  c->gin[1] = gsts(c, neg(c, grad), 1);
}

/* The class dim of cross_entropy_loss: 0 for a 1-D self, else 1; from self's rank when it
 * is known, else 1 - (dim(self) == 1) when the graph runs. */
static IrValue *class_dim(Ctx *c) {
  int rank = is_tensor(c->in[0]) ? c->in[0]->type->rank : -1;
  if (rank >= 1)
    return cint(c, rank == 1 ? 0 : 1);
  IrValue *one = cint(c, 1);
  return E2(ATEN_SUB, one, E1(ATEN_INT, E2(ATEN_EQ, E1(ATEN_DIM, c->in[0]), one)));
}

/* nll_loss_backward needs the total weight of the kept targets, which only nll_loss_forward
 * returns: it runs again here (one pass over the targets). cross_entropy_loss also keeps
 * its log_softmax and self's dtype for _log_softmax_backward_data. */
void ad_fw_nll_loss(Ctx *c) {
  IrValue *scores = c->in[0];
  if (c->node->kind == IR_ATEN_CROSS_ENTROPY_LOSS) {
    scores = emit(c, IR_ATEN_LOG_SOFTMAX, 3,
                  (IrValue *const[]){c->in[0], class_dim(c), ir_graph_insert_constant_none(c->g)});
    save(c, scores);
    save(c, E1(PRIM_DTYPE, c->in[0]));
  }
  IrValue *args[] = {scores, c->in[1], arg_or_none(c, 2), arg(c, 3) ? c->in[3] : cint(c, 1),
                     arg(c, 4) ? c->in[4] : cint(c, -100)};
  IrNode *fw = ir_graph_insert_op(c->g, IR_ATEN_NLL_LOSS_FORWARD, args, G_N_ELEMENTS(args), 2);
  save(c, ir_output(fw, 1));
}

/* nll_loss, nll_loss_nd: nll_loss_backward for self; cross_entropy_loss: the same at the
 * log_softmax, then _log_softmax_backward_data. The target gets none. */
void ad_grad_nll_loss(Ctx *c, IrValue *g) {
  bool ce = c->node->kind == IR_ATEN_CROSS_ENTROPY_LOSS;
  IrValue *scores = ce ? c->saved[0] : c->in[0], *total_weight = c->saved[ce ? 2 : 0];
  IrValue *args[] = {g,
                     scores,
                     c->in[1],
                     arg_or_none(c, 2),
                     arg(c, 3) ? c->in[3] : cint(c, 1),
                     arg(c, 4) ? c->in[4] : cint(c, -100),
                     total_weight};
  IrValue *gx = emit(c, IR_ATEN_NLL_LOSS_BACKWARD, G_N_ELEMENTS(args), args);
  c->gin[0] = ce ? emit(c, IR_ATEN__LOG_SOFTMAX_BACKWARD_DATA, 4,
                        (IrValue *const[]){gx, scores, class_dim(c), c->saved[1]})
                 : gx;
}

/* binary_cross_entropy_with_logits as binary_cross_entropy_with_logits_backward and
 * _target_backward: self (sigmoid(x) - t) g, or ((pw t + 1 - t) sigmoid(x) - pw t) g with a
 * pos_weight; target -x g, or (pw softplus(-x) - softplus(x)) g (log_sigmoid(x) is
 * -softplus(-x)); both times weight, over the element count for the mean. */
void ad_grad_bce_with_logits(Ctx *c, IrValue *g) {
  IrValue *x = c->in[0], *t = c->in[1], *one = cint(c, 1);
  IrValue *w = is_tensor(arg(c, 2)) ? c->in[2] : NULL, *pw = is_tensor(arg(c, 3)) ? c->in[3] : NULL;
  IrValue *gx, *gt;
  if (pw) {
    IrValue *pt = mul(c, pw, t);
    IrValue *scale = E3(ATEN_SUB, E3(ATEN_ADD, pt, one, one), t, one);
    gx = E3(ATEN_SUB, mul(c, scale, E1(ATEN_SIGMOID, x)), pt, one);
    IrValue *twenty = cint(c, 20);
    gt = E3(ATEN_SUB, mul(c, pw, E3(ATEN_SOFTPLUS, neg(c, x), one, twenty)),
            E3(ATEN_SOFTPLUS, x, one, twenty), one);
  } else {
    gx = E3(ATEN_SUB, E1(ATEN_SIGMOID, x), t, one);
    gt = neg(c, x);
  }
  gx = mul(c, gx, g);
  gt = mul(c, gt, g);
  if (w) {
    gx = mul(c, gx, w);
    gt = mul(c, gt, w);
  }
  IrValue *n = E1(ATEN_NUMEL, x);
  c->gin[0] = mean_scaled(c, gx, 4, n);
  c->gin[1] = mean_scaled(c, gt, 4, n);
}

/* The slope of smooth_l1_loss / huber_loss at differences d as their backward op: -1 where
 * d <= -bound, 1 where d >= bound, d / bound between (huber_loss: -bound, bound and d). A NaN
 * d passes through; beta 0 at d == 0 takes the first branch (-1), as there. */
static IrValue *robust_slope(Ctx *c, IrValue *d, IrValue *bound, bool huber) {
  IrValue *ones = E1(ATEN_ONES_LIKE, d);
  IrValue *high = huber ? mul(c, ones, bound) : ones;
  IrValue *inside = huber ? d : E2(ATEN_DIV, d, bound);
  IrValue *upper = E3(ATEN_WHERE, E2(ATEN_GE, d, bound), high, inside);
  return E3(ATEN_WHERE, E2(ATEN_LE, d, E1(ATEN_NEG, bound)), neg(c, high), upper);
}

/* smooth_l1_loss and huber_loss as PyTorch 1.13's derivatives.yaml: self the backward op at
 * self - target, target the backward op with the operands swapped (not the negation: at a
 * zero difference with beta 0 both get -1), times g, over the element count for the mean. */
void ad_grad_smooth_l1_loss(Ctx *c, IrValue *g) {
  bool huber = c->node->kind == IR_ATEN_HUBER_LOSS;
  IrValue *one = cint(c, 1), *bound = arg(c, 3) ? c->in[3] : cfloat(c, 1.0);
  IrValue *d = E3(ATEN_SUB, c->in[0], c->in[1], one);
  IrValue *swapped = E3(ATEN_SUB, c->in[1], c->in[0], one);
  IrValue *n = E1(ATEN_NUMEL, d);
  c->gin[0] = gsts(c, mean_scaled(c, mul(c, robust_slope(c, d, bound, huber), g), 2, n), 0);
  c->gin[1] = gsts(c, mean_scaled(c, mul(c, robust_slope(c, swapped, bound, huber), g), 2, n), 1);
}

/* soft_margin_loss as soft_margin_loss_backward: -target z / (1 + z) g with z = exp(-target
 * self) (NaN where z overflows, as there), over the element count for the mean. PyTorch
 * refuses a gradient for target: it gets none. */
void ad_grad_soft_margin_loss(Ctx *c, IrValue *g) {
  IrValue *one = cint(c, 1), *minus_target = neg(c, c->in[1]);
  IrValue *z = E1(ATEN_EXP, mul(c, minus_target, c->in[0]));
  IrValue *slope = E2(ATEN_DIV, mul(c, minus_target, z), E3(ATEN_ADD, z, one, one));
  c->gin[0] = gsts(c, mean_scaled(c, mul(c, slope, g), 2, E1(ATEN_NUMEL, z)), 0);
}

/* binary_cross_entropy as binary_cross_entropy_backward and _target_backward: self (self -
 * target) / max((1 - self) self, 1e-12) g, target -logit(self) g = -log(self / (1 - self)) g,
 * both times weight, over the element count for the mean. The weight gets none. */
void ad_grad_binary_cross_entropy(Ctx *c, IrValue *g) {
  IrValue *x = c->in[0], *t = c->in[1], *one = cint(c, 1);
  IrValue *w = is_tensor(arg(c, 2)) ? c->in[2] : NULL;
  IrValue *complement = E3(ATEN_RSUB, x, one, one);
  IrValue *den = E2(ATEN_CLAMP_MIN, mul(c, complement, x), cfloat(c, 1e-12));
  IrValue *diff = E3(ATEN_SUB, x, t, one);
  IrValue *gx = mul(c, E2(ATEN_DIV, diff, den), g);
  IrValue *gt = mul(c, neg(c, E1(ATEN_LOG, E2(ATEN_DIV, x, complement))), g);
  if (w) {
    gx = mul(c, gx, w);
    gt = mul(c, gt, w);
  }
  IrValue *n = E1(ATEN_NUMEL, diff);
  c->gin[0] = gsts(c, mean_scaled(c, gx, 3, n), 0);
  c->gin[1] = gsts(c, mean_scaled(c, gt, 3, n), 1);
}

/* kl_div, a composite in PyTorch 1.13 (xlogy(target, target) - target self, or exp(target)
 * (target - self) with log_target): the gradients its parts give, with g over the element count
 * for the mean. Without log_target, target's is xlogy(g, target) (0 where target is 0) +
 * g target / target - g self: NaN at a zero target, as there. */
void ad_grad_kl_div(Ctx *c, IrValue *g) {
  IrValue *x = c->in[0], *t = c->in[1], *one = cint(c, 1);
  double log_target = 0;
  if (arg(c, 3) && !constant_number(c->in[3], &log_target))
    g_error("autodiff invariant: kl_div's formula needs a constant log_target");
  IrValue *gx, *gt;
  if (log_target != 0) {
    IrValue *e = E1(ATEN_EXP, t), *diff = E3(ATEN_SUB, t, x, one);
    IrValue *gs = mean_scaled(c, g, 2, E1(ATEN_NUMEL, diff));
    gx = neg(c, mul(c, gs, e));
    gt = E3(ATEN_ADD, mul(c, mul(c, gs, diff), e), mul(c, gs, e), one);
  } else {
    IrValue *tx = mul(c, t, x);
    IrValue *gs = mean_scaled(c, g, 2, E1(ATEN_NUMEL, tx));
    gx = neg(c, mul(c, gs, t));
    IrValue *log_part =
        E3(ATEN_MASKED_FILL, E2(ATEN_XLOGY, gs, t), E2(ATEN_EQ, t, cint(c, 0)), cint(c, 0));
    IrValue *ratio_part = E2(ATEN_DIV, mul(c, gs, t), t);
    gt = E3(ATEN_SUB, E3(ATEN_ADD, log_part, ratio_part, one), mul(c, gs, x), one);
  }
  c->gin[0] = gsts(c, gx, 0);
  c->gin[1] = gsts(c, gt, 1);
}
