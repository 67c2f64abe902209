/* Gradient formulas for every differentiable op of ops.def, as IR builders (see formulas.h).
 * Shapes follow PyTorch 1.13's symbolic_script and autodiff.cpp. */
#include "autodiff/formulas.h"
#include "autodiff/formulas_internal.h"

#include <math.h>
#include <string.h>

#include "autodiff/autodiff.h"
#include "ir/ops.h"

/* 1 - x, written as PyTorch 1.13 prints it: add(neg(x), 1, 1) */
static IrValue *one_minus(Ctx *c, IrValue *x) {
  IrValue *one = cint(c, 1);
  return E3(ATEN_ADD, neg(c, x), one, one);
}
/* x + 1 */
static IrValue *plus_one(Ctx *c, IrValue *x) {
  IrValue *one = cint(c, 1);
  return E3(ATEN_ADD, x, one, one);
}
/* comparison as a tensor of g's dtype */
static IrValue *mask_as(Ctx *c, IrValue *cmp, IrValue *like) {
  return E2(ATEN_TYPE_AS, cmp, like);
}

/* A Scalar argument we can compute 1 - w or w - 1 of: a constant, an int or a float. */
static bool scalar_usable(const IrValue *v) {
  double d;
  return constant_number(v, &d) || v->type->kind == IR_TYPE_INT || v->type->kind == IR_TYPE_FLOAT;
}

/* a - b for scalars where one side is a constant number: folded when both are constants. */
static IrValue *scalar_sub(Ctx *c, double a_const, IrValue *a, IrValue *b, double b_const) {
  double av = a_const, bv = b_const;
  bool a_known = a == NULL || constant_number(a, &av);
  bool b_known = b == NULL || constant_number(b, &bv);
  if (a_known && b_known)
    return cfloat(c, av - bv);
  IrValue *x = a ? a : (b->type->kind == IR_TYPE_INT ? cint(c, (gint64)av) : cfloat(c, av));
  IrValue *y = b ? b : (a->type->kind == IR_TYPE_INT ? cint(c, (gint64)bv) : cfloat(c, bv));
  if (x->type->kind == IR_TYPE_INT && y->type->kind == IR_TYPE_FLOAT)
    x = E1(ATEN_FLOAT, x);
  if (x->type->kind == IR_TYPE_FLOAT && y->type->kind == IR_TYPE_INT)
    y = E1(ATEN_FLOAT, y);
  return E2(ATEN_SUB, x, y);
}

/* --- forward parts --- */

/* _size_if_not_equal(size(in[i]), size(result)) for each listed input. */
static void fw_broadcast_sizes(Ctx *c, const guint *idx, guint n) {
  IrValue *result_size = NULL;
  for (guint i = 0; i < n; i++) {
    IrValue *s = size_of(c, c->in[idx[i]]);
    if (!result_size)
      result_size = size_of(c, c->out[0]);
    save(c, E2(ATEN_SIZE_IF_NOT_EQUAL, s, result_size));
  }
}

static void fw_self_size(Ctx *c) {
  save(c, size_of(c, c->in[0]));
}

/* The sizes along dim of the tensors of `list`, a list whose length is known only at run
 * time (a slice, a dict's values): an int[] built by a prim::Loop that appends
 * aten::size(list[i], dim). */
static IrValue *list_sizes_loop(Ctx *c, IrValue *list, IrValue *dim) {
  IrNode *sizes = ir_node_create(c->g, IR_PRIM_LIST_CONSTRUCT, 1);
  ir_value_set_type(ir_output(sizes, 0), ir_type_list(ir_type_int()));
  ir_graph_insert(c->g, sizes);
  IrValue *n = E1(ATEN_LEN, list);
  IrNode *loop = ir_node_create(c->g, IR_PRIM_LOOP, 0);
  ir_node_add_input(loop, n);
  ir_node_add_input(loop, ir_graph_insert_constant_bool(c->g, true));
  ir_graph_insert(c->g, loop);
  IrBlock *body = ir_node_add_block(loop);
  IrValue *i = ir_block_add_input(body, ir_type_int(), NULL);
  IrNode *after = c->g->insert_before;
  ir_graph_set_insert_point(c->g, body->ret);
  IrValue *item = E2(ATEN_GETITEM, list, i);
  ir_value_set_type(item, ir_type_tensor());
  IrNode *append =
      ir_graph_insert_op(c->g, IR_ATEN_APPEND,
                         (IrValue *const[]){ir_output(sizes, 0), E2(ATEN_SIZE, item, dim)}, 2, 1);
  ir_value_set_type(ir_output(append, 0), ir_type_list(ir_type_int()));
  ir_block_add_output(body, ir_graph_insert_constant_bool(c->g, true));
  ir_graph_set_insert_point(c->g, after);
  return ir_output(sizes, 0);
}

/* cat's forward part: the inputs' sizes along dim, from the pieces of a list built in the
 * same graph, else from a loop over the list at run time. */
static void fw_cat(Ctx *c) {
  IrValue *dim = ir_n_inputs(c->node) >= 2 ? c->in[1] : cint(c, 0);
  if (ir_input(c->node, 0)->node->kind != IR_PRIM_LIST_CONSTRUCT) {
    save(c, list_sizes_loop(c, c->in[0], dim));
    return;
  }
  guint n;
  g_autofree IrValue **elements = ad_list_elements(c, &n);
  IrNode *sizes = ir_node_create(c->g, IR_PRIM_LIST_CONSTRUCT, 1);
  for (guint i = 0; i < n; i++)
    ir_node_add_input(sizes, E2(ATEN_SIZE, elements[i], dim));
  ir_value_set_type(ir_output(sizes, 0), ir_type_list(ir_type_int()));
  ir_graph_insert(c->g, sizes);
  save(c, ir_output(sizes, 0));
}

/* Which inputs of a broadcasting op get _size_if_not_equal sizes (NULL: none). */
static const guint *broadcast_inputs(const IrNode *node, guint *n) {
  static const guint self_other[] = {0, 1};
  static const guint three[] = {0, 1, 2};
  static const guint where_inputs[] = {1, 2};
  static const guint self_only[] = {0};
  switch (node->kind) {
  case IR_ATEN_ADD:
  case IR_ATEN_SUB:
  case IR_ATEN_MUL:
  case IR_ATEN_DIV:
  case IR_ATEN_RSUB:
  case IR_ATEN_FMOD:
  case IR_ATEN_REMAINDER:
  case IR_ATEN_POW:
    if (overload_is(node, "Tensor") || overload_is(node, "Tensor_Tensor")) {
      *n = 2;
      return self_other;
    }
    return NULL;
  case IR_ATEN_MAX: /* max.other broadcasts; the reductions do not */
  case IR_ATEN_MIN:
    if (!overload_is(node, "other"))
      return NULL;
    *n = 2;
    return self_other;
  case IR_ATEN_MAXIMUM:
  case IR_ATEN_MINIMUM: *n = 2; return self_other;
  case IR_ATEN_XLOGY: /* the Scalar overloads have one tensor, g's shape */
    if (!overload_is(node, "Tensor"))
      return NULL;
    *n = 2;
    return self_other;
  case IR_ATEN_ATAN2:
  case IR_ATEN_COSINE_SIMILARITY:
  case IR_ATEN_PAIRWISE_DISTANCE:
  case IR_ATEN_MSE_LOSS:
  case IR_ATEN_L1_LOSS:
  case IR_ATEN_SMOOTH_L1_LOSS:
  case IR_ATEN_HUBER_LOSS:
  case IR_ATEN_SOFT_MARGIN_LOSS:
  case IR_ATEN_BINARY_CROSS_ENTROPY:
  case IR_ATEN_KL_DIV: *n = 2; return self_other;
  case IR_ATEN_LERP:
    *n = overload_is(node, "Tensor") ? 3 : 2;
    return overload_is(node, "Tensor") ? three : self_other;
  case IR_ATEN_ADDCMUL: *n = 3; return three;
  case IR_ATEN_WHERE: *n = 2; return where_inputs;
  case IR_ATEN_ADDMM:
  case IR_ATEN_BADDBMM:
  case IR_ATEN_MASKED_FILL:
  case IR_ATEN_EXPAND:
  case IR_ATEN_EXPAND_AS: *n = 1; return self_only;
  default: return NULL;
  }
}

/* --- existence --- */

bool ad_formula_exists(const IrNode *node) {
  if (ir_n_blocks(node) > 0)
    return false;
  if (node->kind == IR_PRIM_CONSTANT_CHUNK)
    return true;
  const IrOpDef *def = ir_node_op_def(node);
  if (!def || (def->grad != IR_GRAD_FORMULA && def->grad != IR_GRAD_DERIV))
    return false;
  /* Builders that need constant arguments or known ranks. */
  double d;
  switch (node->kind) {
  case IR_ATEN_POW: return !overload_is(node, "Tensor_Scalar") || scalar_usable(ir_input(node, 1));
  case IR_ATEN_LERP: return overload_is(node, "Tensor") || scalar_usable(ir_input(node, 2));
  case IR_ATEN_MATMUL: /* the formula's shape depends on both ranks */
    return is_tensor(ir_input(node, 0)) && is_tensor(ir_input(node, 1)) &&
           ir_input(node, 0)->type->rank >= 1 && ir_input(node, 1)->type->rank >= 1;
  case IR_ATEN_LINEAR:
    return is_tensor(ir_input(node, 0)) && ir_input(node, 0)->type->rank >= 1 &&
           rank_is(ir_input(node, 1), 2) &&
           (ir_n_inputs(node) < 3 || value_is_none(ir_input(node, 2)) ||
            is_tensor(ir_input(node, 2)));
  case IR_ATEN_MAX: /* max.dim: whether dim is kept decides the formula's shape */
  case IR_ATEN_MIN:
    return !overload_is(node, "dim") || ir_n_inputs(node) < 3 ||
           constant_number(ir_input(node, 2), &d);
  case IR_ATEN_AMAX: /* dims and keepdim constants, as a listed sum's */
  case IR_ATEN_AMIN:
  case IR_ATEN_LOGSUMEXP: {
    gint64 vals[IR_MAX_RANK];
    guint n = 0;
    if (ir_n_inputs(node) < 3 || !constant_number(ir_input(node, 2), &d))
      return false;
    if (!constant_ints(ir_input(node, 1), vals, &n, IR_MAX_RANK)) {
      if (!ad_single_dim_list(ir_input(node, 1)))
        return false;
      n = 0; /* one computed dim: unsqueeze needs no rank */
    }
    for (guint i = 0; i < n; i++)
      if (vals[i] < 0 && ir_input(node, 0)->type->rank < 0 && d == 0)
        return false;
    return true;
  }
  case IR_ATEN_VAR: /* unbiased is a constant (or left to its default) */
  case IR_ATEN_STD: {
    guint unbiased = overload_is(node, "") ? 1 : 2;
    if (ir_n_inputs(node) > unbiased && !constant_number(ir_input(node, unbiased), &d))
      return false;
  }
    G_GNUC_FALLTHROUGH; /* the dims as sum's */
  case IR_ATEN_MEAN:
  case IR_ATEN_SUM:
    if (overload_is(node, ""))
      return true;
    {
      IrValue *dims = ir_input(node, 1);
      if (value_is_none(dims))
        return true;
      gint64 vals[IR_MAX_RANK];
      guint n = 0;
      if (!constant_ints(dims, vals, &n, IR_MAX_RANK)) {
        if (!ad_single_dim_list(dims))
          return false;
        n = 0; /* a computed dim: unsqueeze needs no rank */
      }
      guint k = node->kind == IR_ATEN_VAR || node->kind == IR_ATEN_STD ? 3 : 2;
      bool keepdim_known = ir_n_inputs(node) <= k || constant_number(ir_input(node, k), &d);
      if (!keepdim_known)
        return false;
      if (ir_n_inputs(node) > k && d != 0)
        return true;
      for (guint i = 0; i < n; i++)
        if (vals[i] < 0 && ir_input(node, 0)->type->rank < 0)
          return false;
      return true;
    }
  case IR_ATEN_PROD: /* the rank; for prod.dim_int a constant dim and keepdim */
    if (!is_tensor(ir_input(node, 0)) || ir_input(node, 0)->type->rank < 0)
      return false;
    return overload_is(node, "") ||
           (constant_number(ir_input(node, 1), &d) &&
            (ir_n_inputs(node) < 3 || constant_number(ir_input(node, 2), &d)));
  case IR_ATEN_FROBENIUS_NORM: { /* constant dims and keepdim; the rank for negative dims */
    gint64 vals[IR_MAX_RANK];
    guint n = 0;
    double keepdim = 0;
    if (overload_is(node, ""))
      return true;
    if (!constant_ints(ir_input(node, 1), vals, &n, IR_MAX_RANK) ||
        (ir_n_inputs(node) > 2 && !constant_number(ir_input(node, 2), &keepdim)))
      return false;
    for (guint i = 0; i < n; i++)
      if (vals[i] < 0 && ir_input(node, 0)->type->rank < 0 && keepdim == 0)
        return false;
    return true;
  }
  case IR_ATEN_NORM:
  case IR_ATEN_LINALG_VECTOR_NORM: { /* a constant ord (its branch; None: 2), dims, keepdim */
    gint64 vals[IR_MAX_RANK];
    guint n = 0;
    double keepdim = 0;
    IrValue *dims = ir_n_inputs(node) > 2 ? ir_input(node, 2) : NULL;
    IrValue *ord = ir_n_inputs(node) > 1 ? ir_input(node, 1) : NULL;
    if ((!value_is_none(ord) && !constant_number(ord, &d)) ||
        (ir_n_inputs(node) > 3 && !constant_number(ir_input(node, 3), &keepdim)) ||
        (!value_is_none(dims) && !constant_ints(dims, vals, &n, IR_MAX_RANK)))
      return false;
    for (guint i = 0; i < n; i++) /* negative dims unsqueeze back through the rank */
      if (vals[i] < 0 && ir_input(node, 0)->type->rank < 0 && keepdim == 0)
        return false;
    return true;
  }
  case IR_ATEN_CUMPROD: /* the rank and a constant dim */
    return is_tensor(ir_input(node, 0)) && ir_input(node, 0)->type->rank >= 0 &&
           constant_number(ir_input(node, 1), &d);
  case IR_ATEN_CHUNK: return ir_n_inputs(node) < 3 || constant_number(ir_input(node, 2), &d);
  case IR_ATEN_INDEX_PUT: /* whether self's gradient is g or g with the places zeroed */
    return ir_n_inputs(node) < 4 || constant_number(ir_input(node, 3), &d);
  case IR_ATEN_CONV1D:
  case IR_ATEN_CONV2D: return !overload_is(node, "padding") || ad_conv_padding_known(node);
  case IR_ATEN_DROPOUT:
  case IR_ATEN_NATIVE_DROPOUT: return ad_dropout_formula_exists(node);
  case IR_ATEN_KL_DIV: /* which composite */
    return ir_n_inputs(node) < 4 || constant_number(ir_input(node, 3), &d);
  case IR_ATEN_ROLL:
  case IR_ATEN_REPEAT:
  case IR_ATEN_CONSTANT_PAD_ND:
  case IR_ATEN_PAD: return ad_layout_formula_exists(node);

  case IR_ATEN_PERMUTE: { /* constant dims naming every dim once */
    gint64 dims[IR_MAX_RANK];
    guint n, seen = 0;
    if (!constant_ints(ir_input(node, 1), dims, &n, IR_MAX_RANK))
      return false;
    for (guint i = 0; i < n; i++) {
      gint64 w = dims[i] < 0 ? dims[i] + (gint64)n : dims[i];
      if (w < 0 || w >= (gint64)n || (seen & (1u << w)))
        return false;
      seen |= 1u << w;
    }
    return true;
  }
  case IR_ATEN_LAYER_NORM: /* eps, for native_layer_norm when normalized_shape is computed */
    return ir_n_inputs(node) >= 5;
  case IR_ATEN_BATCH_NORM: /* every argument, passed on to the backward op */
    return ir_n_inputs(node) == node->schema->n_args;
  case IR_ATEN_GROUP_NORM: /* the rank, for HxW */ return ir_input(node, 0)->type->rank >= 2;
  case IR_ATEN_INSTANCE_NORM: /* and which statistics normalize */
    return ir_input(node, 0)->type->rank >= 2 && constant_number(ir_input(node, 5), &d);
  case IR_ATEN_PAIRWISE_DISTANCE: /* every argument; a constant p and keepdim, as norm's */
    return ir_n_inputs(node) == node->schema->n_args && constant_number(ir_input(node, 2), &d) &&
           constant_number(ir_input(node, 4), &d);
  case IR_ATEN_COSINE_SIMILARITY: return ir_n_inputs(node) == node->schema->n_args;
  case IR_ATEN_MAX_POOL2D: /* every argument, passed on to the backward op */
  case IR_ATEN_MAX_POOL2D_WITH_INDICES:
  case IR_ATEN_AVG_POOL2D:
  case IR_ATEN_MAX_POOL1D:
  case IR_ATEN_MAX_POOL1D_WITH_INDICES:
  case IR_ATEN_AVG_POOL1D: return ir_n_inputs(node) == node->schema->n_args;
  case IR_ATEN_SLICE: /* slice_backward takes ints: None or int bounds, not int? values */
    for (guint i = 2; i < 4 && i < ir_n_inputs(node); i++)
      if (!value_is_none(ir_input(node, i)) && ir_input(node, i)->type->kind != IR_TYPE_INT)
        return false;
    return true;
  case IR_ATEN_BROADCAST_TENSORS: /* the pieces' count: the list is built in the same graph */
    return ir_input(node, 0)->node->kind == IR_PRIM_LIST_CONSTRUCT;
  default: return true;
  }
}

/* --- forward --- */

void ad_formula_forward(IrGraph *graph, const IrNode *node, IrValue *const *inputs,
                        IrValue *const *outputs, GPtrArray *saved) {
  if (!ad_formula_exists(node))
    g_error("autodiff invariant: ad_formula_forward called for %s, which has no formula",
            ir_kind_name(node->kind));
  Ctx ctx = {.g = graph, .node = node, .in = inputs, .out = outputs, .saved_out = saved};
  Ctx *c = &ctx;
  const IrOpDef *def = ir_node_op_def(node);
  if (def && def->grad == IR_GRAD_DERIV) {
    guint tensors[16], n_tensor = 0;
    for (guint i = 0; i < node->schema->n_args && n_tensor < G_N_ELEMENTS(tensors); i++)
      if (ir_type_is_tensor(node->schema->args[i].type))
        tensors[n_tensor++] = i;
    if (n_tensor > 1)
      fw_broadcast_sizes(c, tensors, n_tensor);
    return;
  }
  guint n = 0;
  const guint *idx = broadcast_inputs(node, &n);
  if (idx) {
    fw_broadcast_sizes(c, idx, n);
    return;
  }
  switch (node->kind) {
  case IR_ATEN_MATMUL:
    if (!rank_is(c->in[0], 2) || !rank_is(c->in[1], 2)) {
      save(c, size_of(c, c->in[0]));
      save(c, size_of(c, c->in[1]));
    }
    break;
  case IR_ATEN_SOFTMAX:
  case IR_ATEN_LOG_SOFTMAX: save(c, E1(PRIM_DTYPE, c->in[0])); break;
  case IR_ATEN_LAYER_NORM: ad_fw_layer_norm(c); break;
  case IR_ATEN_NLL_LOSS:
  case IR_ATEN_NLL_LOSS_ND:
  case IR_ATEN_CROSS_ENTROPY_LOSS: ad_fw_nll_loss(c); break;
  case IR_ATEN_MAX_POOL2D: ad_fw_max_pool2d(c); break;
  case IR_ATEN_MAX_POOL1D: ad_fw_max_pool1d(c); break;
  case IR_ATEN_GROUP_NORM: ad_fw_group_norm(c); break;
  case IR_ATEN_INSTANCE_NORM: ad_fw_instance_norm(c); break;
  case IR_ATEN_INDEX_SELECT:
  case IR_ATEN_UPSAMPLE_NEAREST2D:
  case IR_ATEN_UPSAMPLE_BILINEAR2D: fw_self_size(c); break;
  case IR_ATEN_INDEX_PUT: ad_fw_index_put(c); break;
  case IR_ATEN_EMBEDDING: /* num_weights */ save(c, E2(ATEN_SIZE, c->in[0], cint(c, 0))); break;
  case IR_ATEN_LINEAR:
    save(c, size_of(c, c->in[1]));
    if (is_tensor(arg(c, 2)))
      fw_broadcast_sizes(c, (const guint[]){2}, 1);
    break;
  case IR_ATEN_SQUEEZE:
  case IR_ATEN_VIEW:
  case IR_ATEN_RESHAPE:
  case IR_ATEN_FLATTEN:
  case IR_ATEN_SLICE:
  case IR_ATEN_SELECT:
  case IR_ATEN_NARROW:
  case IR_ATEN_REPEAT:
  case IR_ATEN_SUM: fw_self_size(c); break;
  case IR_ATEN_CAT: fw_cat(c); break;
  case IR_ATEN_BROADCAST_TENSORS: ad_fw_broadcast_tensors(c); break;
  case IR_ATEN_MEAN: /* and how many elements each result element averages */
  case IR_ATEN_VAR:
  case IR_ATEN_STD:
    fw_self_size(c);
    save(c, E2(ATEN_DIV, E1(ATEN_NUMEL, c->in[0]), E1(ATEN_NUMEL, c->out[0])));
    break;
  case IR_ATEN_GRAD_SUM_TO_SIZE:
    if (!value_is_none(arg(c, 1)))
      fw_self_size(c);
    break;
  default: break;
  }
}

/* --- backward --- */

static void ad_grad_binary_arith(Ctx *c, IrValue *g) {
  bool tensor = overload_is(c->node, "Tensor");
  IrValue *self = c->in[0], *other = c->in[1], *alpha = arg(c, 2);
  IrValue *g_self = NULL, *g_other = NULL;
  switch (c->node->kind) {
  case IR_ATEN_ADD:
    g_self = g;
    if (tensor)
      g_other = alpha ? mul(c, g, alpha) : g;
    break;
  case IR_ATEN_SUB:
    g_self = g;
    if (tensor)
      g_other = alpha ? mul(c, neg(c, g), alpha) : neg(c, g);
    break;
  case IR_ATEN_RSUB:
    g_self = alpha ? mul(c, neg(c, g), alpha) : neg(c, g);
    if (tensor)
      g_other = g;
    break;
  case IR_ATEN_MUL:
    g_self = mul(c, g, other);
    if (tensor)
      g_other = mul(c, g, self);
    break;
  case IR_ATEN_DIV:
    g_self = E2(ATEN_DIV, g, other);
    if (tensor)
      g_other = E2(ATEN_DIV, mul(c, neg(c, g), self), mul(c, other, other));
    break;
  case IR_ATEN_FMOD:
  case IR_ATEN_REMAINDER:
    g_self = g;
    if (tensor) {
      /* PyTorch's self.div(other, rounding_mode="trunc" / "floor"): floor_divide is its
       * div_floor (NaN for an infinite self, where floor(self / other) is infinite) */
      IrValue *q = c->node->kind == IR_ATEN_FMOD ? E1(ATEN_TRUNC, E2(ATEN_DIV, self, other))
                                                 : E2(ATEN_FLOOR_DIVIDE, self, other);
      g_other = mul(c, neg(c, g), q);
    }
    break;
  default:
    g_error("autodiff invariant: ad_grad_binary_arith called for %s", ir_kind_name(c->node->kind));
  }
  if (tensor) {
    c->gin[0] = gsts(c, g_self, 0);
    c->gin[1] = gsts(c, g_other, 1);
  } else {
    c->gin[0] = g_self;
  }
}

/* sign(x) as (x > 0) - (x < 0) in g's dtype */
static IrValue *sign_as(Ctx *c, IrValue *x, IrValue *like) {
  IrValue *zero = cint(c, 0);
  IrValue *pos = mask_as(c, E2(ATEN_GT, x, zero), like);
  IrValue *negv = mask_as(c, E2(ATEN_LT, x, zero), like);
  return E3(ATEN_SUB, pos, negv, cint(c, 1));
}

static void ad_grad_unary(Ctx *c, IrValue *g) {
  IrValue *x = c->in[0], *r = c->out[0];
  IrValue **gi = &c->gin[0];
  switch (c->node->kind) {
  case IR_ATEN_NEG: *gi = neg(c, g); break;
  case IR_ATEN_ABS: *gi = mul(c, g, sign_as(c, x, g)); break;
  case IR_ATEN_SIGMOID: *gi = mul(c, mul(c, one_minus(c, r), r), g); break;
  case IR_ATEN_TANH: *gi = mul(c, g, one_minus(c, mul(c, r, r))); break;
  case IR_ATEN_RELU: /* symbolic_script's g * (r > 0); eager threshold_backward passes a NaN */
    *gi = c->eager ? mul(c, g, mask_as(c, E1(ATEN_LOGICAL_NOT, E2(ATEN_LE, r, cint(c, 0))), r))
                   : mul(c, g, mask_as(c, E2(ATEN_GT, r, cint(c, 0)), r));
    break;
  case IR_ATEN_THRESHOLD: /* as relu's: symbolic_script's g * (x > threshold), 0 at a NaN x;
                            * eager threshold_backward's 0 only where x <= threshold */
    *gi = c->eager ? mul(c, g, mask_as(c, E1(ATEN_LOGICAL_NOT, E2(ATEN_LE, x, c->in[1])), g))
                   : mul(c, g, mask_as(c, E2(ATEN_GT, x, c->in[1]), g));
    break;
  case IR_ATEN_EXPM1: *gi = mul(c, g, plus_one(c, r)); break;
  case IR_ATEN_LOG: *gi = E2(ATEN_DIV, g, x); break;
  case IR_ATEN_LOG10: *gi = E2(ATEN_DIV, g, mul(c, x, cfloat(c, M_LN10))); break;
  case IR_ATEN_LOG2: *gi = E2(ATEN_DIV, g, mul(c, x, cfloat(c, M_LN2))); break;
  case IR_ATEN_LOG1P: *gi = E2(ATEN_DIV, g, plus_one(c, x)); break;
  case IR_ATEN_SQRT: *gi = E2(ATEN_DIV, g, mul(c, r, cint(c, 2))); break;
  case IR_ATEN_RSQRT:
    *gi = mul(c, mul(c, neg(c, g), E2(ATEN_POW, r, cint(c, 3))), cfloat(c, 0.5));
    break;
  case IR_ATEN_RECIPROCAL: *gi = mul(c, mul(c, neg(c, g), r), r); break;
  case IR_ATEN_ERF:
  case IR_ATEN_ERFC: {
    double k = 2.0 / sqrt(M_PI) * (c->node->kind == IR_ATEN_ERF ? 1.0 : -1.0);
    IrValue *e = E1(ATEN_EXP, neg(c, E2(ATEN_POW, x, cint(c, 2))));
    *gi = mul(c, mul(c, e, cfloat(c, k)), g);
    break;
  }
  case IR_ATEN_TAN: *gi = mul(c, g, plus_one(c, mul(c, r, r))); break;
  case IR_ATEN_ASIN: *gi = E2(ATEN_DIV, g, E1(ATEN_SQRT, one_minus(c, mul(c, x, x)))); break;
  case IR_ATEN_ACOS:
    *gi = E2(ATEN_DIV, neg(c, g), E1(ATEN_SQRT, one_minus(c, mul(c, x, x))));
    break;
  case IR_ATEN_ATAN: *gi = E2(ATEN_DIV, g, plus_one(c, mul(c, x, x))); break;
  case IR_ATEN_SIGN:
  case IR_ATEN_CEIL:
  case IR_ATEN_FLOOR:
  case IR_ATEN_ROUND:
  case IR_ATEN_TRUNC: *gi = E1(ATEN_ZEROS_LIKE, g); break;
  case IR_ATEN_FRAC: *gi = g; break;
  default: g_error("autodiff invariant: ad_grad_unary called for %s", ir_kind_name(c->node->kind));
  }
}

static void ad_grad_pow(Ctx *c, IrValue *g) {
  IrValue *self = c->in[0], *e = c->in[1];
  if (overload_is(c->node, "Tensor_Tensor")) {
    /* PyTorch 1.13: no gradient for self where exponent == 0, none for exponent where
     * self == 0 and exponent >= 0 (0 * log(0) would be NaN). */
    IrValue *one = cint(c, 1), *zero = cint(c, 0);
    IrValue *em1 = E3(ATEN_SUB, e, one, one);
    IrValue *g_self = mul(c, mul(c, g, e), E2(ATEN_POW, self, em1));
    g_self = E3(ATEN_WHERE, E2(ATEN_EQ, e, zero), E1(ATEN_ZEROS_LIKE, g_self), g_self);
    IrValue *g_e = mul(c, mul(c, g, c->out[0]), E1(ATEN_LOG, self));
    IrValue *self_zero = E2(ATEN_EQ, self, zero);
    IrValue *no_e = E3(ATEN_WHERE, self_zero, E2(ATEN_GE, e, zero), self_zero);
    g_e = E3(ATEN_WHERE, no_e, E1(ATEN_ZEROS_LIKE, g_e), g_e);
    c->gin[0] = gsts(c, g_self, 0);
    c->gin[1] = gsts(c, g_e, 1);
    return;
  }
  double ev;
  if (constant_number(e, &ev) && ev == 0.0) {
    c->gin[0] = E1(ATEN_ZEROS_LIKE, self);
    return;
  }
  IrValue *em1 = scalar_sub(c, 0, e, NULL, 1.0);
  c->gin[0] = mul(c, mul(c, g, e), E2(ATEN_POW, self, em1));
}

static void ad_grad_clamp(Ctx *c, IrValue *g) {
  IrValue *x = c->in[0], *lo = arg(c, 1), *hi = arg(c, 2);
  IrValue *mask = NULL;
  if (!value_is_none(lo))
    mask = mask_as(c, E2(ATEN_GE, x, lo), g);
  if (!value_is_none(hi)) {
    IrValue *m = mask_as(c, E2(ATEN_LE, x, hi), g);
    mask = mask ? mul(c, mask, m) : m;
  }
  c->gin[0] = mask ? mul(c, g, mask) : g;
}

static void ad_grad_lerp(Ctx *c, IrValue *g) {
  IrValue *self = c->in[0], *end = c->in[1], *w = c->in[2];
  if (overload_is(c->node, "Tensor")) {
    c->gin[0] = gsts(c, mul(c, g, one_minus(c, w)), 0);
    c->gin[1] = gsts(c, mul(c, g, w), 1);
    c->gin[2] = gsts(c, mul(c, g, E3(ATEN_SUB, end, self, cint(c, 1))), 2);
    return;
  }
  c->gin[0] = gsts(c, mul(c, g, scalar_sub(c, 1.0, NULL, w, 0)), 0);
  c->gin[1] = gsts(c, mul(c, g, w), 1);
}

void ad_bw_mm_like(Ctx *c, IrValue *g, IrValue *self, IrValue *mat2, IrValue *alpha) {
  IrValue *g_self = E2(ATEN_MM, g, E1(ATEN_T, mat2));
  IrValue *g_mat2 = E2(ATEN_MM, E1(ATEN_T, self), g);
  if (alpha) {
    g_self = mul(c, g_self, alpha);
    g_mat2 = mul(c, g_mat2, alpha);
  }
  guint off = c->node->kind == IR_ATEN_ADDMM ? 1 : 0;
  c->gin[off] = g_self;
  c->gin[off + 1] = g_mat2;
}

/* cat of the output gradients along dim; pieces known to be AutogradZero become zeros. */
static void bw_constant_chunk(Ctx *c) {
  IrValue *list = ad_insert_gradient_list(c->g, c->grads, c->out, ir_n_outputs(c->node));
  IrValue *dim = cint(c, ir_node_attr_i(c->node, IR_ATTR_DIM));
  c->gin[0] = E2(ATEN_CAT, list, dim);
}

static void ad_grad_atan2(Ctx *c, IrValue *g) {
  IrValue *self = c->in[0], *other = c->in[1];
  IrValue *den = E3(ATEN_ADD, mul(c, self, self), mul(c, other, other), cint(c, 1));
  c->gin[0] = gsts(c, E2(ATEN_DIV, mul(c, g, other), den), 0);
  c->gin[1] = gsts(c, E2(ATEN_DIV, mul(c, neg(c, g), self), den), 1);
}

/* PyTorch 1.13's maximum / minimum backward: where(self == other, g / 2, g) masked to 0
 * where the other side wins; NaN on either side gives g to both. As masks: g * (1 - loses -
 * 0.5 * ties), loses = self < other for max (self > other for min). */
static void ad_grad_max_min(Ctx *c, IrValue *g) {
  bool max = c->node->kind == IR_ATEN_MAX || c->node->kind == IR_ATEN_MAXIMUM;
  IrOpKind loses = max ? IR_ATEN_LT : IR_ATEN_GT;
  IrValue *self = c->in[0], *other = c->in[1];
  IrValue *half_tie = mul(c, mask_as(c, E2(ATEN_EQ, self, other), g), cfloat(c, 0.5));
  IrValue *self_loses = mask_as(c, emit(c, loses, 2, (IrValue *const[]){self, other}), g);
  IrValue *other_loses = mask_as(c, emit(c, loses, 2, (IrValue *const[]){other, self}), g);
  IrValue *one = cint(c, 1);
  IrValue *m_self = E3(ATEN_SUB, one_minus(c, self_loses), half_tie, one);
  IrValue *m_other = E3(ATEN_SUB, one_minus(c, other_loses), half_tie, one);
  c->gin[0] = gsts(c, mul(c, g, m_self), 0);
  c->gin[1] = gsts(c, mul(c, g, m_other), 1);
}

static void ad_grad_addcmul(Ctx *c, IrValue *g) {
  IrValue *value = arg(c, 3);
  IrValue *g1 = mul(c, g, c->in[2]), *g2 = mul(c, g, c->in[1]);
  if (value) {
    g1 = mul(c, g1, value);
    g2 = mul(c, g2, value);
  }
  c->gin[0] = gsts(c, g, 0);
  c->gin[1] = gsts(c, g1, 1);
  c->gin[2] = gsts(c, g2, 2);
}

static void ad_grad_where(Ctx *c, IrValue *g) {
  IrValue *cond = mask_as(c, c->in[0], g);
  c->gin[1] = gsts(c, mul(c, g, cond), 0);
  c->gin[2] = gsts(c, mul(c, g, one_minus(c, cond)), 1);
}

/* xlogy as PyTorch 1.13's derivatives.yaml: self's gradient xlogy(g, other), 0 where self is
 * 0 and other <= 0; other's g * self / other (the Scalar overloads: their tensor's only). */
static void ad_grad_xlogy(Ctx *c, IrValue *g) {
  IrValue *self = c->in[0], *other = c->in[1];
  bool both = overload_is(c->node, "Tensor");
  if (is_tensor(self)) {
    IrValue *zero_self = E2(ATEN_EQ, self, cint(c, 0));
    IrValue *other_nonpositive = E2(ATEN_LE, other, cint(c, 0));
    IrValue *mask = both ? E2(ATEN_LOGICAL_AND, zero_self, other_nonpositive)
                         : mul(c, zero_self, other_nonpositive);
    IrValue *gs = E3(ATEN_MASKED_FILL, E2(ATEN_XLOGY, g, other), mask, cint(c, 0));
    c->gin[0] = both ? gsts(c, gs, 0) : gs;
  }
  if (is_tensor(other)) {
    IrValue *go = E2(ATEN_DIV, mul(c, g, self), other);
    c->gin[1] = both ? gsts(c, go, 1) : go;
  }
}

/* logit: PyTorch's own backward op, logit_backward(grad, self, eps). */
static void ad_grad_logit(Ctx *c, IrValue *g) {
  IrValue *eps = arg(c, 1) ? c->in[1] : ir_graph_insert_constant_none(c->g);
  c->gin[0] = E3(ATEN_LOGIT_BACKWARD, g, c->in[0], eps);
}

static void ad_grad_type_as(Ctx *c, IrValue *g) {
  c->gin[0] = E2(ATEN_TYPE_AS, g, c->in[0]);
}

static void ad_grad_mm(Ctx *c, IrValue *g) {
  ad_bw_mm_like(c, g, c->in[0], c->in[1], NULL);
}

static void ad_grad_addmm(Ctx *c, IrValue *g) {
  IrValue *beta = arg(c, 3), *alpha = arg(c, 4);
  c->gin[0] = gsts(c, beta ? mul(c, g, beta) : g, 0);
  ad_bw_mm_like(c, g, c->in[1], c->in[2], alpha);
}

static void ad_grad_t(Ctx *c, IrValue *g) {
  c->gin[0] = E1(ATEN_T, g);
}

static void ad_grad_transpose(Ctx *c, IrValue *g) {
  c->gin[0] = E3(ATEN_TRANSPOSE, g, c->in[1], c->in[2]);
}

static void ad_grad_unsqueeze(Ctx *c, IrValue *g) {
  c->gin[0] = E2(ATEN_SQUEEZE, g, c->in[1]);
}

/* squeeze, view, reshape: back to the saved input size */
static void ad_grad_reshape(Ctx *c, IrValue *g) {
  c->gin[0] = E2(ATEN_RESHAPE, g, c->saved[0]);
}

/* expand, expand_as */
static void ad_grad_expand(Ctx *c, IrValue *g) {
  c->gin[0] = gsts(c, g, 0);
}

static void ad_grad_grad_sum_to_size(Ctx *c, IrValue *g) {
  c->gin[0] = value_is_none(arg(c, 1)) ? g : E2(ATEN_EXPAND, g, c->saved[0]);
}

static void ad_grad_chunk(Ctx *c, IrValue *g) {
  IrValue *dim = ir_n_inputs(c->node) >= 3 ? c->in[2] : cint(c, 0);
  c->gin[0] = E2(ATEN_CAT, g, dim);
}

/* cat: the gradient split back into pieces of the inputs' sizes along dim (a Tensor[]
 * gradient for the list input). */
static void ad_grad_cat(Ctx *c, IrValue *g) {
  IrValue *dim = ir_n_inputs(c->node) >= 2 ? c->in[1] : cint(c, 0);
  c->gin[0] = E3(ATEN_SPLIT_WITH_SIZES, g, c->saved[0], dim);
}

/* DERIV(d0, d1, ...): G * d_k for the k-th Tensor argument, summed to its size when the op
 * broadcasts (more than one Tensor argument). */
static void ad_grad_deriv(Ctx *c, IrValue *g) {
  const IrSchema *s = c->node->schema;
  guint n_tensor = 0;
  for (guint i = 0; i < s->n_args; i++)
    n_tensor += ir_type_is_tensor(s->args[i].type);
  guint k = 0;
  for (guint i = 0; i < s->n_args && i < ir_n_inputs(c->node); i++) {
    if (!ir_type_is_tensor(s->args[i].type))
      continue;
    IrValue *d = ad_deriv_value(c->g, c->node, k, c->in, c->out[0]);
    IrValue *gi = mul(c, g, d);
    c->gin[i] = n_tensor > 1 ? gsts(c, gi, k) : gi;
    k++;
  }
}

typedef void (*GradBuilder)(Ctx *c, IrValue *g);

/* The op table's `grad` column: the builder of every ops.def row (NULL: none). */
#define GRAD_BUILDER_AD(builder) ad_grad_##builder
#define GRAD_BUILDER_DERIV(...) ad_grad_deriv
#define GRAD_BUILDER_AD_NONE NULL
#define GRAD_BUILDER_NOT_DIFFERENTIABLE NULL
static const GradBuilder row_builders[] = {
#define OP(kind, schema, family, shape, grad, flags, expr) GRAD_BUILDER_##grad,
#define OVERLOAD OP
#include "ir/ops.def"
#undef OP
#undef OVERLOAD
};

static void formula_backward(IrGraph *graph, const IrNode *node, IrValue *const *inputs,
                             IrValue *const *outputs, IrValue *const *saved,
                             IrValue *const *grads, IrValue **grad_inputs, bool eager) {
  if (!ad_formula_exists(node))
    g_error("autodiff invariant: ad_formula_backward called for %s, which has no formula",
            ir_kind_name(node->kind));
  for (guint i = 0; i < ir_n_inputs(node); i++)
    grad_inputs[i] = NULL;
  Ctx ctx = {.g = graph,
             .node = node,
             .in = inputs,
             .out = outputs,
             .saved = saved,
             .grads = grads,
             .gin = grad_inputs,
             .eager = eager};
  if (node->kind == IR_PRIM_CONSTANT_CHUNK)
    bw_constant_chunk(&ctx);
  else
    row_builders[node->schema->index](&ctx, grads[0]);
}

void ad_formula_backward(IrGraph *graph, const IrNode *node, IrValue *const *inputs,
                         IrValue *const *outputs, IrValue *const *saved, IrValue *const *grads,
                         IrValue **grad_inputs) {
  formula_backward(graph, node, inputs, outputs, saved, grads, grad_inputs, false);
}

/* --- the eager tape's standalone graph --- */

typedef struct {
  GHashTable *map;
} CloneMap;

static IrValue *map_value(IrValue *src, gpointer user_data) {
  IrValue *v = g_hash_table_lookup(((CloneMap *)user_data)->map, src);
  if (!v)
    g_error("autodiff invariant: ad_formula_backward_graph met an unmapped value");
  return v;
}

IrGraph *ad_formula_backward_graph(const IrNode *node) {
  if (!ad_formula_exists(node))
    g_error("autodiff invariant: ad_formula_backward_graph called for %s, which has no formula",
            ir_kind_name(node->kind));
  IrGraph *graph = ir_graph_new();
  guint n_in = ir_n_inputs(node), n_out = ir_n_outputs(node);
  IrValue **inputs = g_new0(IrValue *, n_in);
  IrValue **outputs = g_new0(IrValue *, n_out);
  IrValue **grads = g_new0(IrValue *, n_out);
  IrValue **grad_inputs = g_new0(IrValue *, n_in);
  CloneMap cm = {g_hash_table_new(NULL, NULL)};
  for (guint i = 0; i < n_in; i++) {
    IrValue *src = ir_input(node, i);
    if (src->node->kind == IR_PRIM_CONSTANT) {
      IrNode *k = ir_node_clone_into(graph, src->node, map_value, &cm);
      ir_graph_insert(graph, k);
      inputs[i] = ir_output(k, 0);
    } else {
      inputs[i] = ir_graph_add_input(graph, src->type, NULL);
    }
    g_hash_table_insert(cm.map, src, inputs[i]);
  }
  for (guint i = 0; i < n_out; i++)
    outputs[i] = ir_graph_add_input(graph, ir_output(node, i)->type, NULL);
  for (guint i = 0; i < n_out; i++)
    grads[i] = ir_graph_add_input(graph, ir_output(node, i)->type, NULL);

  GPtrArray *saved = g_ptr_array_new();
  ad_formula_forward(graph, node, inputs, outputs, saved);

  IrNode *grad_of = ad_insert_grad_of(graph, node, grads, n_out);
  IrBlock *body = ir_block(grad_of, 0);
  IrNode *saved_point = graph->insert_before;
  ir_graph_set_insert_point(graph, body->ret);
  formula_backward(graph, node, inputs, outputs, (IrValue *const *)saved->pdata, grads,
                   grad_inputs, true);
  ir_graph_set_insert_point(graph, saved_point);
  guint *which = g_new0(guint, n_in);
  for (guint i = 0; i < n_in; i++) {
    if (!grad_inputs[i])
      continue;
    ir_block_add_output(body, grad_inputs[i]);
    which[i] = ir_n_outputs(grad_of);
    ir_node_add_output(grad_of, grad_inputs[i]->type);
  }
  IrValue *zero = NULL;
  for (guint i = 0; i < n_in; i++) {
    if (grad_inputs[i]) {
      ir_graph_add_output(graph, ir_output(grad_of, which[i]));
    } else {
      if (!zero) {
        IrNode *z = ir_node_create(graph, IR_PRIM_AUTOGRAD_ZERO, 1);
        ir_graph_insert(graph, z);
        zero = ir_output(z, 0);
      }
      ir_graph_add_output(graph, zero);
    }
  }
  pass_lower_grad_of(graph);
  g_free(which);
  g_ptr_array_free(saved, TRUE);
  g_hash_table_destroy(cm.map);
  g_free(inputs);
  g_free(outputs);
  g_free(grads);
  g_free(grad_inputs);
  return graph;
}
