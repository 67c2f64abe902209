/* Gradient formulas of the reductions (sum, mean, var, std, amax, amin, max, min,
 * logsumexp, prod, linalg_vector_norm, norm, frobenius_norm), as
 * PyTorch 1.13's symbolic_script and derivatives.yaml: the gradient brought back to the
 * reduced dims, then the reduction's own factor. */
#include "autodiff/formulas_internal.h"

#include <math.h>

/* A reduction's gradient with the reduced dims back as size-1 dims when keepdim (input
 * keepdim_index) was false: dims (the node's input dims_index, constants) sorted and
 * unsqueezed in order, or the one dim of a list built from a computed int. */
static IrValue *unsqueeze_reduced_at(Ctx *c, IrValue *g, guint dims_index, guint keepdim_index) {
  if (ir_n_inputs(c->node) <= dims_index || c->in[dims_index]->type->kind != IR_TYPE_LIST)
    return g; /* no dims: every dim reduced, a 0-dim result broadcasts as it is */
  double keepdim = 0;
  if (ir_n_inputs(c->node) > keepdim_index)
    constant_number(c->in[keepdim_index], &keepdim);
  if (keepdim != 0)
    return g;
  gint64 dims[IR_MAX_RANK];
  guint n;
  if (!constant_ints(ir_input(c->node, dims_index), dims, &n, IR_MAX_RANK)) {
    /* one dim computed at run time ([x.dim() - 1]): unsqueeze takes it as it is, a negative
     * one too (it counts from the end of the result, which has the input's rank) */
    if (!ad_single_dim_list(ir_input(c->node, dims_index)))
      g_error("autodiff invariant: a reduction's formula needs constant dims or one dim");
    IrValue *dim = E2(ATEN_GETITEM, c->in[dims_index], cint(c, 0));
    ir_value_set_type(dim, ir_type_int());
    return E2(ATEN_UNSQUEEZE, g, dim);
  }
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

/* unsqueeze_reduced_at with the dims at input 1 */
static IrValue *unsqueeze_reduced(Ctx *c, IrValue *g, guint keepdim_index) {
  return unsqueeze_reduced_at(c, g, 1, keepdim_index);
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

IrValue *ad_exclusive_cumprod(Ctx *c, IrValue *x, gint64 dim) {
  const gint64 one = 1;
  IrValue *d = cint(c, dim), *dims = ir_graph_insert_constant_int_list(c->g, &dim, 1);
  IrValue *shifted =
      E3(ATEN_ROLL, E2(ATEN_CUMPROD, x, d), ir_graph_insert_constant_int_list(c->g, &one, 1), dims);
  IrValue *first = E2(ATEN_EQ, E2(ATEN_CUMSUM, E1(ATEN_ONES_LIKE, x), d), cint(c, 1));
  return E3(ATEN_MASKED_FILL, shifted, first, cint(c, 1));
}

/* PyTorch 1.13's prod_safe_zeros_backward without g: along dim, the product of every other
 * element ([x1 x2, x0 x2, x0 x1]) as the exclusive running products from both ends
 * multiplied, which stays exact where x holds zeros. */
static IrValue *product_of_others(Ctx *c, IrValue *x, gint64 dim) {
  IrValue *dims = ir_graph_insert_constant_int_list(c->g, &dim, 1);
  IrValue *from_end = E2(ATEN_FLIP, ad_exclusive_cumprod(c, E2(ATEN_FLIP, x, dims), dim), dims);
  return mul(c, ad_exclusive_cumprod(c, x, dim), from_end);
}

/* prod as PyTorch 1.13's prod_backward: g * result / self where self holds no zero (for
 * prod.dim_int: no zero anywhere in self); otherwise g times the product of the others
 * (prod over every element: the flattened self's, and zeros once two elements are zero). A
 * 0-dim self's gradient is g. Both branches are built and where() picks one. */
void ad_grad_prod(Ctx *c, IrValue *g) {
  IrValue *self = c->in[0], *result = c->out[0];
  bool by_dim = overload_is(c->node, "dim_int");
  int rank = self->type->rank;
  if (rank > 0) {
    IrValue *zeros = E1(ATEN_SUM, E2(ATEN_EQ, self, cint(c, 0)));
    IrValue *none_zero = E2(ATEN_EQ, zeros, cint(c, 0));
    if (by_dim) {
      double d = 0, keepdim = 0;
      constant_number(c->in[1], &d);
      if (ir_n_inputs(c->node) > 2)
        constant_number(c->in[2], &keepdim);
      gint64 dim = (gint64)d + (d < 0 ? rank : 0);
      if (keepdim == 0) {
        g = E2(ATEN_UNSQUEEZE, g, cint(c, dim));
        result = E2(ATEN_UNSQUEEZE, result, cint(c, dim));
      }
      IrValue *safe = mul(c, g, product_of_others(c, self, dim));
      g = E3(ATEN_WHERE, none_zero, mul(c, g, E2(ATEN_DIV, result, self)), safe);
    } else {
      gint64 flat_shape = -1;
      IrValue *flat =
          E2(ATEN_RESHAPE, self, ir_graph_insert_constant_int_list(c->g, &flat_shape, 1));
      IrValue *others = product_of_others(c, flat, 0);
      IrValue *safe = E2(ATEN_RESHAPE, mul(c, g, others), size_of(c, self));
      IrValue *one_zero = E2(ATEN_EQ, zeros, cint(c, 1));
      g = E3(ATEN_WHERE, none_zero, mul(c, g, E2(ATEN_DIV, result, self)),
             E3(ATEN_WHERE, one_zero, safe, E1(ATEN_ZEROS_LIKE, self)));
    }
  }
  c->gin[0] = value_is_none(arg(c, by_dim ? 3 : 1)) ? g : E2(ATEN_TYPE_AS, g, self);
}

/* norm_backward for p = 2, g and the norm n at self's rank: g x / n, 0 where n is 0. */
static IrValue *two_norm_backward(Ctx *c, IrValue *g, IrValue *norm) {
  IrValue *zero = cint(c, 0);
  return mul(c, g,
             E3(ATEN_MASKED_FILL, E2(ATEN_DIV, c->in[0], norm), E2(ATEN_EQ, norm, zero), zero));
}

/* linalg_vector_norm and norm as PyTorch 1.13's norm_backward for the constant ord (None:
 * 2), with n the norm and both brought back to self's rank unless keepdim:
 *   0: zeros;  1: sgn(x) g;  2: g x / n, 0 where n is 0;
 *   +-inf: sgn(x) g / count * mask, mask the places equal to n in magnitude or NaN;
 *   below 1: sgn(x) |x|^(p-1) (0 where x is 0) g n^(1-p);
 *   below 2: sgn(x) |x|^(p-1) g / n^(p-1);  above 2: x |x|^(p-2) g / n^(p-1) (the last two 0
 *   where n is 0). */
void ad_grad_vector_norm(Ctx *c, IrValue *g) {
  IrValue *self = c->in[0], *norm = unsqueeze_reduced_at(c, c->out[0], 2, 3);
  double p = 2;
  if (!value_is_none(arg(c, 1)))
    constant_number(c->in[1], &p);
  g = unsqueeze_reduced_at(c, g, 2, 3);
  IrValue *zero = cint(c, 0), *sign = E1(ATEN_SIGN, self), *r;
  IrValue *norm_zero = E2(ATEN_EQ, norm, zero);
  if (p == 0) {
    r = E1(ATEN_ZEROS_LIKE, self);
  } else if (p == 1) {
    r = mul(c, sign, g);
  } else if (p == 2) {
    r = two_norm_backward(c, g, norm);
  } else if (isinf(p)) {
    IrValue *magnitude = E1(ATEN_ABS, self);
    IrValue *mask =
        E2(ATEN_LOGICAL_OR, E2(ATEN_EQ, magnitude, norm), E2(ATEN_NE, magnitude, magnitude));
    IrValue *dims = ir_n_inputs(c->node) > 2 && !value_is_none(c->in[2])
                        ? c->in[2]
                        : ir_graph_insert_constant_int_list(c->g, NULL, 0);
    IrValue *count = emit(c, IR_ATEN_SUM, 4,
                          (IrValue *const[]){mask, dims, ir_graph_insert_constant_bool(c->g, true),
                                             ir_graph_insert_constant_none(c->g)});
    r = mul(c, sign, mul(c, E2(ATEN_DIV, g, count), mask));
  } else {
    IrValue *magnitude = E1(ATEN_ABS, self);
    if (p < 1) {
      IrValue *scaled = mul(c, sign,
                            E3(ATEN_MASKED_FILL, E2(ATEN_POW, magnitude, cfloat(c, p - 1)),
                               E2(ATEN_EQ, self, zero), zero));
      r = mul(c, mul(c, scaled, g), E2(ATEN_POW, norm, cfloat(c, 1 - p)));
    } else {
      IrValue *scaled = p < 2 ? mul(c, sign, E2(ATEN_POW, magnitude, cfloat(c, p - 1)))
                              : mul(c, self, E2(ATEN_POW, magnitude, cfloat(c, p - 2)));
      IrValue *scale = E3(ATEN_MASKED_FILL, E2(ATEN_DIV, g, E2(ATEN_POW, norm, cfloat(c, p - 1))),
                          norm_zero, zero);
      r = mul(c, scaled, scale);
    }
  }
  c->gin[0] = value_is_none(arg(c, 4)) ? r : E2(ATEN_TYPE_AS, r, self);
}

/* frobenius_norm as PyTorch 1.13's autograd of what it computes: with 0 or 1 dims (or none
 * given) norm(self, 2, dim), so norm_backward for p = 2; with 2 dims sqrt(sum(self * self)):
 * sqrt's g / (2 r), expanded back over the dims, times self once for each factor of
 * self * self, the two added. */
void ad_grad_frobenius_norm(Ctx *c, IrValue *g) {
  gint64 dims[IR_MAX_RANK];
  guint n = 0;
  if (ir_n_inputs(c->node) > 1)
    constant_ints(ir_input(c->node, 1), dims, &n, IR_MAX_RANK);
  if (n < 2) {
    c->gin[0] = two_norm_backward(c, unsqueeze_reduced_at(c, g, 1, 2),
                                  unsqueeze_reduced_at(c, c->out[0], 1, 2));
    return;
  }
  IrValue *root = E2(ATEN_DIV, g, mul(c, c->out[0], cint(c, 2)));
  IrValue *factor = mul(c, unsqueeze_reduced_at(c, root, 1, 2), c->in[0]);
  c->gin[0] = E2(ATEN_ADD, factor, factor);
}
