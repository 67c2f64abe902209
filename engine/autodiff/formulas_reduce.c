/* Gradient formulas of the reductions (sum, mean, var, std, amax, amin, max, min,
 * logsumexp), as
 * PyTorch 1.13's symbolic_script and derivatives.yaml: the gradient brought back to the
 * reduced dims, then the reduction's own factor. */
#include "autodiff/formulas_internal.h"

/* A reduction's gradient with the reduced dims back as size-1 dims when keepdim (input
 * keepdim_index) was false: dims (the node's input 1, constants) sorted and unsqueezed in
 * order. */
static IrValue *unsqueeze_reduced(Ctx *c, IrValue *g, guint keepdim_index) {
  if (ir_n_inputs(c->node) < 2 || c->in[1]->type->kind != IR_TYPE_LIST)
    return g; /* no dims: every dim reduced, a 0-dim result broadcasts as it is */
  double keepdim = 0;
  if (ir_n_inputs(c->node) > keepdim_index)
    constant_number(c->in[keepdim_index], &keepdim);
  if (keepdim != 0)
    return g;
  gint64 dims[IR_MAX_RANK];
  guint n;
  if (!constant_ints(ir_input(c->node, 1), dims, &n, IR_MAX_RANK))
    g_error("autodiff invariant: a reduction's formula needs constant dims");
  int rank = c->in[0]->type->rank;
  for (guint i = 0; i < n; i++)
    dims[i] += dims[i] < 0 ? rank : 0;
  for (guint i = 1; i < n; i++)
    for (guint j = i; j > 0 && dims[j - 1] > dims[j]; j--) {
      gint64 t = dims[j];
      dims[j] = dims[j - 1];
      dims[j - 1] = t;
    }
  for (guint i = 0; i < n; i++)
    g = E2(ATEN_UNSQUEEZE, g, cint(c, dims[i]));
  return g;
}

/* sum and mean: the gradient expanded back over the reduced dims (mean's divided by the
 * count it averages), in self's dtype when a dtype argument changed it. */
void ad_grad_sum(Ctx *c, IrValue *g) {
  IrValue *self_size = c->saved[0];
  g = unsqueeze_reduced(c, g, 2);
  c->gin[0] = E2(ATEN_EXPAND, g, self_size);
  if (c->node->kind == IR_ATEN_MEAN)
    c->gin[0] = E2(ATEN_DIV, c->gin[0], c->saved[1]);
  if (!value_is_none(arg(c, overload_is(c->node, "") ? 1 : 3)))
    c->gin[0] = E2(ATEN_TYPE_AS, c->gin[0], c->in[0]);
}

/* amax / amin as PyTorch 1.13's: the gradient shared evenly among the elements equal to the
 * result; logsumexp's: g * exp(self - result). */
void ad_grad_amax(Ctx *c, IrValue *g) {
  IrValue *self = c->in[0], *r = unsqueeze_reduced(c, c->out[0], 2);
  g = unsqueeze_reduced(c, g, 2);
  IrValue *mask = E2(ATEN_TYPE_AS, E2(ATEN_EQ, self, r), g);
  IrValue *count =
      emit(c, IR_ATEN_SUM, 4,
           (IrValue *const[]){mask, c->in[1], ir_graph_insert_constant_bool(c->g, true),
                              ir_graph_insert_constant_none(c->g)});
  c->gin[0] = mul(c, E2(ATEN_DIV, g, count), mask);
}

/* max() / min() of every element as PyTorch 1.13's evenly_distribute_backward: the gradient
 * shared evenly among the elements equal to the result, or among the NaNs when the result is
 * NaN (which equals nothing). */
void ad_grad_max_all(Ctx *c, IrValue *g) {
  IrValue *self = c->in[0], *r = c->out[0];
  IrValue *equal = E2(ATEN_TYPE_AS, E2(ATEN_EQ, self, r), g);
  IrValue *both_nan =
      mul(c, E2(ATEN_TYPE_AS, E2(ATEN_NE, self, self), g), E2(ATEN_TYPE_AS, E2(ATEN_NE, r, r), g));
  IrValue *mask = E3(ATEN_ADD, equal, both_nan, cint(c, 1));
  c->gin[0] = mul(c, E2(ATEN_DIV, g, E1(ATEN_SUM, mask)), mask);
}

/* max.dim / min.dim as PyTorch 1.13's value_selecting_reduction_backward: the values'
 * gradient goes to the index each was taken from (dim restored unless keepdim), zeros
 * elsewhere. The indices have none. */
void ad_grad_max_dim(Ctx *c, IrValue *g) {
  IrValue *index = c->out[1];
  double keepdim = 0;
  if (ir_n_inputs(c->node) > 2)
    constant_number(c->in[2], &keepdim);
  if (keepdim == 0) {
    g = E2(ATEN_UNSQUEEZE, g, c->in[1]);
    index = E2(ATEN_UNSQUEEZE, index, c->in[1]);
  }
  c->gin[0] = emit(c, IR_ATEN_SCATTER_ADD, 4,
                   (IrValue *const[]){E1(ATEN_ZEROS_LIKE, c->in[0]), c->in[1], index, g});
}

/* sort and topk, as PyTorch 1.13's value_selecting_reduction_backward: the values' gradient
 * goes to the places their indices name along dim, zeros elsewhere. */
void ad_grad_sort(Ctx *c, IrValue *g) {
  bool dim_second = c->node->kind == IR_ATEN_TOPK || overload_is(c->node, "stable");
  IrValue *dim = c->in[dim_second ? 2 : 1]; /* after topk's k, after sort's keyword stable */
  c->gin[0] = emit(c, IR_ATEN_SCATTER_ADD, 4,
                   (IrValue *const[]){E1(ATEN_ZEROS_LIKE, c->in[0]), dim, c->out[1], g});
}

void ad_grad_logsumexp(Ctx *c, IrValue *g) {
  IrValue *r = unsqueeze_reduced(c, c->out[0], 2);
  g = unsqueeze_reduced(c, g, 2);
  c->gin[0] = mul(c, g, E1(ATEN_EXP, E3(ATEN_SUB, c->in[0], r, cint(c, 1))));
}

/* var and std as PyTorch 1.13's var_backward: 2 / (N - correction) * g * (self - mean), the
 * mean over the reduced dims kept; std's g first becomes g / (2 * std), 0 where std is 0. */
void ad_grad_var(Ctx *c, IrValue *g) {
  IrValue *self = c->in[0], *result = c->out[0];
  bool all = overload_is(c->node, "") || value_is_none(arg(c, 1));
  double unbiased = 1; /* the default where the argument is left out */
  IrValue *unbiased_arg = arg(c, overload_is(c->node, "") ? 1 : 2);
  if (unbiased_arg)
    constant_number(unbiased_arg, &unbiased);
  if (c->node->kind == IR_ATEN_STD)
    g = E3(ATEN_WHERE, E2(ATEN_EQ, result, cint(c, 0)), E1(ATEN_ZEROS_LIKE, g),
           E2(ATEN_DIV, g, mul(c, result, cint(c, 2))));
  g = unsqueeze_reduced(c, g, 3);
  IrValue *mean =
      all ? E1(ATEN_MEAN, self)
          : emit(c, IR_ATEN_MEAN, 4,
                 (IrValue *const[]){self, c->in[1], ir_graph_insert_constant_bool(c->g, true),
                                    ir_graph_insert_constant_none(c->g)});
  IrValue *dof = E2(ATEN_SUB, c->saved[1], cfloat(c, unbiased != 0 ? 1.0 : 0.0));
  IrValue *factor = E2(ATEN_DIV, cfloat(c, 2.0), dof);
  c->gin[0] = mul(c, mul(c, g, E3(ATEN_SUB, self, mean, cint(c, 1))), factor);
}
