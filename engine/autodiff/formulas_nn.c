/* Gradient formulas of the linear-algebra, layout and torch.nn ops (matmul of every rank,
 * bmm, linear, softmax, permute, contiguous, slice, select, layer_norm, gelu, prelu, glu,
 * dropout, stack, index_select, embedding, cumsum, cumprod, broadcast_tensors), as PyTorch
 * 1.13's symbolic_script and derivatives.yaml. */
#include "autodiff/formulas_internal.h"

static IrValue *transpose_last(Ctx *c, IrValue *x, int rank) {
  return rank < 2 ? x : E3(ATEN_TRANSPOSE, x, cint(c, -1), cint(c, -2));
}

/* PyTorch 1.13's AD_matmul_size (symbolic_script): m1 @ m2 (ranks r1, r2) brought to a
 * gradient of rank `target`, resolved here since the ranks are known. */
static IrValue *matmul_to_rank(Ctx *c, IrValue *m1, int r1, IrValue *m2, int r2, int target) {
  if (r1 == 0 || r2 == 0)
    return mul(c, m1, m2);
  if (r1 + r2 == target)
    return E2(ATEN_MATMUL, E2(ATEN_UNSQUEEZE, m1, cint(c, r1)),
              E2(ATEN_UNSQUEEZE, m2, cint(c, r2 == 1 ? 0 : -2)));
  if (target == r1 - r2)
    return E2(ATEN_SQUEEZE, E2(ATEN_MATMUL, m1, E2(ATEN_UNSQUEEZE, m2, cint(c, r2))), cint(c, -1));
  if (target == r2 - r1)
    return E2(ATEN_SQUEEZE, E2(ATEN_MATMUL, E2(ATEN_UNSQUEEZE, m1, cint(c, -2)), m2), cint(c, -2));
  return E2(ATEN_MATMUL, m1, m2);
}

static int matmul_rank(int ra, int rb) {
  if (ra == 1 || rb == 1)
    return ra + rb - 2;
  return ra > rb ? ra : rb;
}

/* matmul of any ranks as symbolic_script's: each side's gradient summed to its size (batch
 * broadcasting); two matrices keep the mm formula. */
void ad_grad_matmul(Ctx *c, IrValue *g) {
  IrValue *self = c->in[0], *other = c->in[1];
  int ra = self->type->rank, rb = other->type->rank, rg = matmul_rank(ra, rb);
  if (ra == 2 && rb == 2) {
    ad_bw_mm_like(c, g, self, other, NULL);
    return;
  }
  c->gin[0] = gsts(c, matmul_to_rank(c, g, rg, transpose_last(c, other, rb), rb, ra), 0);
  c->gin[1] = gsts(c, matmul_to_rank(c, transpose_last(c, self, ra), ra, g, rg, rb), 1);
}

void ad_grad_bmm(Ctx *c, IrValue *g) {
  IrValue *one = cint(c, 1), *two = cint(c, 2);
  c->gin[0] = E2(ATEN_BMM, g, E3(ATEN_TRANSPOSE, c->in[1], one, two));
  c->gin[1] = E2(ATEN_BMM, E3(ATEN_TRANSPOSE, c->in[0], one, two), g);
}

/* softmax / log_softmax: PyTorch's backward ops, back in the input's dtype (saved in the
 * forward as prim::dtype(self)). */
void ad_grad_softmax(Ctx *c, IrValue *g) {
  IrOpKind bw = c->node->kind == IR_ATEN_SOFTMAX ? IR_ATEN__SOFTMAX_BACKWARD_DATA
                                                 : IR_ATEN__LOG_SOFTMAX_BACKWARD_DATA;
  c->gin[0] = emit(c, bw, 4, (IrValue *const[]){g, c->out[0], c->in[1], c->saved[0]});
}

/* linear(input, weight, bias) = input @ weight.t() + bias: input's gradient g @ weight,
 * weight's g^T @ input summed over input's batch dims, bias's g summed to its size. */
void ad_grad_linear(Ctx *c, IrValue *g) {
  int ri = c->in[0]->type->rank, rg = ri; /* the output has input's rank */
  c->gin[0] = matmul_to_rank(c, g, rg, c->in[1], 2, ri);
  IrValue *gw = matmul_to_rank(c, transpose_last(c, g, rg), rg, c->in[0], ri, 2);
  c->gin[1] = ri > 2 ? gsts(c, gw, 0) : gw;
  if (is_tensor(arg(c, 2)))
    c->gin[2] = gsts(c, g, 1);
}

/* permute: the gradient permuted back by the inverse order (dims are constants of the node
 * itself: the eager tape's formula graph gets a ListConstruct as an input). */
void ad_grad_permute(Ctx *c, IrValue *g) {
  gint64 dims[IR_MAX_RANK], inverse[IR_MAX_RANK];
  guint n;
  if (!constant_ints(ir_input(c->node, 1), dims, &n, IR_MAX_RANK))
    g_error("autodiff invariant: permute's formula needs constant dims");
  for (guint i = 0; i < n; i++)
    inverse[dims[i] < 0 ? dims[i] + (gint64)n : dims[i]] = (gint64)i;
  c->gin[0] = E2(ATEN_PERMUTE, g, ir_graph_insert_constant_int_list(c->g, inverse, n));
}

/* contiguous. */
void ad_grad_identity(Ctx *c, IrValue *g) {
  c->gin[0] = g;
}

/* The constant train of a dropout (None counts as true, as native_dropout reads it). */
static bool constant_train(const IrNode *node, bool *train) {
  const IrValue *v = ir_input(node, 2);
  double d;
  if (v->type->kind == IR_TYPE_NONE) {
    *train = true;
    return true;
  }
  if (v->type->kind != IR_TYPE_BOOL || !constant_number(v, &d))
    return false;
  *train = d != 0;
  return true;
}

bool ad_dropout_formula_exists(const IrNode *node) {
  bool train;
  double p;
  if (!constant_train(node, &train))
    return node->kind == IR_ATEN_DROPOUT; /* the identity, for a run whose train is false */
  return !train || constant_number(ir_input(node, 1), &p);
}

bool ad_dropout_train_is_constant(const IrNode *node) {
  bool train;
  return constant_train(node, &train);
}

bool ad_dropout_needs_native(const IrNode *node) {
  bool train;
  return node->kind == IR_ATEN_DROPOUT && constant_train(node, &train) && train;
}

IrNode *ad_dropout_to_native(IrNode *node) {
  IrGraph *g = ir_node_graph(node);
  IrNode *native = ir_node_create(g, IR_ATEN_NATIVE_DROPOUT, 2);
  for (guint i = 0; i < 3; i++)
    ir_node_add_input(native, ir_input(node, i));
  ir_node_insert_before(native, node);
  if (!ir_node_resolve_schema(native))
    g_error("autodiff invariant: native_dropout does not take dropout's arguments");
  IrValue *out = ir_output(node, 0);
  ir_value_set_type(ir_output(native, 0), out->type);
  ir_value_replace_all_uses_with(out, ir_output(native, 0));
  ir_node_destroy(node);
  return native;
}

/* dropout with train=False: the identity (a constant train=True is rewritten into
 * native_dropout; with a train known only at run time the eager tape checks it first). */
void ad_grad_dropout(Ctx *c, IrValue *g) {
  if (ad_dropout_needs_native(c->node))
    g_error("autodiff invariant: dropout with train=True is differentiated as native_dropout");
  c->gin[0] = g;
}

/* native_dropout: native_dropout_backward(g, mask, scale) with PyTorch 1.13's symbolic_script
 * scale 1 / ((p1m == 0) + p1m), p1m = (1 - p) * train. */
void ad_grad_native_dropout(Ctx *c, IrValue *g) {
  bool train;
  double p = 0.;
  /* ad_dropout_formula_exists: train constant, and p constant where train is true */
  if (!constant_train(c->node, &train) || (train && !constant_number(c->in[1], &p)))
    g_error("autodiff invariant: native_dropout's formula needs a constant train, and p when "
            "training");
  double p1m = (1. - p) * (train ? 1. : 0.);
  double scale = 1. / ((p1m == 0. ? 1. : 0.) + p1m);
  c->gin[0] = E3(ATEN_NATIVE_DROPOUT_BACKWARD, g, c->out[1], cfloat(c, scale));
}

/* gelu: PyTorch's gelu_backward with the same approximate. */
void ad_grad_gelu(Ctx *c, IrValue *g) {
  IrValue *approximate = arg(c, 1);
  c->gin[0] = approximate ? E3(ATEN_GELU_BACKWARD, g, c->in[0], approximate)
                          : E2(ATEN_GELU_BACKWARD, g, c->in[0]);
}

/* prelu: prelu_backward(grad, self, weight), both gradients at once. */
void ad_grad_prelu(Ctx *c, IrValue *g) {
  IrNode *both = ir_graph_insert_op(c->g, IR_ATEN_PRELU_BACKWARD,
                                    (IrValue *const[]){g, c->in[0], c->in[1]}, 3, 2);
  c->gin[0] = ir_output(both, 0);
  c->gin[1] = ir_output(both, 1);
}

/* glu: glu_backward(grad, self, dim). */
void ad_grad_glu(Ctx *c, IrValue *g) {
  IrValue *dim = arg(c, 1) ? c->in[1] : cint(c, -1);
  c->gin[0] = E3(ATEN_GLU_BACKWARD, g, c->in[0], dim);
}

/* slice, select: PyTorch's slice_backward / select_backward into zeros of self's size (a
 * None start or end is 0 or INT64_MAX, as slice_backward_wrapper). */
void ad_grad_slice(Ctx *c, IrValue *g) {
  IrValue *self_size = c->saved[0], *dim = arg(c, 1) ? arg(c, 1) : cint(c, 0);
  if (c->node->kind == IR_ATEN_SELECT) {
    c->gin[0] =
        emit(c, IR_ATEN_SELECT_BACKWARD, 4, (IrValue *const[]){g, self_size, dim, c->in[2]});
    return;
  }
  IrValue *start = value_is_none(arg(c, 2)) ? cint(c, 0) : c->in[2];
  IrValue *end = value_is_none(arg(c, 3)) ? cint(c, G_MAXINT64) : c->in[3];
  IrValue *step = arg(c, 4) ? c->in[4] : cint(c, 1);
  c->gin[0] =
      emit(c, IR_ATEN_SLICE_BACKWARD, 6, (IrValue *const[]){g, self_size, dim, start, end, step});
}

/* What native_layer_norm returns besides the output, over the trailing normalized dims with
 * them kept: mean, and rstd = 1 / sqrt(biased var + eps). With normalized_shape's length
 * known, as mean and var over those dims; otherwise (a list the graph computes or reads from a
 * module attribute) from native_layer_norm itself. */
void ad_fw_layer_norm(Ctx *c) {
  gint64 dims[IR_MAX_RANK];
  guint n;
  if (!list_length(ir_input(c->node, 1), &n) || n == 0 || n > IR_MAX_RANK) {
    IrValue *none = ir_graph_insert_constant_none(c->g);
    IrValue *args[] = {c->in[0], c->in[1], is_tensor(arg(c, 2)) ? c->in[2] : none,
                       is_tensor(arg(c, 3)) ? c->in[3] : none, c->in[4]};
    IrNode *native = ir_graph_insert_op(c->g, IR_ATEN_NATIVE_LAYER_NORM, args, 5, 3);
    save(c, ir_output(native, 1));
    save(c, ir_output(native, 2));
    return;
  }
  for (guint i = 0; i < n; i++)
    dims[i] = (gint64)i - (gint64)n;
  IrValue *d = ir_graph_insert_constant_int_list(c->g, dims, n);
  IrValue *yes = ir_graph_insert_constant_bool(c->g, true);
  IrValue *no = ir_graph_insert_constant_bool(c->g, false);
  save(c, emit(c, IR_ATEN_MEAN, 4,
               (IrValue *const[]){c->in[0], d, yes, ir_graph_insert_constant_none(c->g)}));
  IrValue *var = emit(c, IR_ATEN_VAR, 4, (IrValue *const[]){c->in[0], d, no, yes});
  save(c, E1(ATEN_RSQRT, E3(ATEN_ADD, var, c->in[4], cint(c, 1))));
}

/* layer_norm: PyTorch's native_layer_norm_backward, asked for the gradients of the defined
 * weight and bias too. */
void ad_grad_layer_norm(Ctx *c, IrValue *g) {
  bool has_weight = is_tensor(arg(c, 2)), has_bias = is_tensor(arg(c, 3));
  bool asks[3] = {true, has_weight, has_bias};
  IrValue *none = ir_graph_insert_constant_none(c->g);
  IrValue *args[] = {g,
                     c->in[0],
                     c->in[1],
                     c->saved[0],
                     c->saved[1],
                     has_weight ? c->in[2] : none,
                     has_bias ? c->in[3] : none,
                     output_mask_of(c, asks)};
  IrNode *bw =
      ir_graph_insert_op(c->g, IR_ATEN_NATIVE_LAYER_NORM_BACKWARD, args, G_N_ELEMENTS(args), 3);
  c->gin[0] = ir_output(bw, 0);
  if (has_weight)
    c->gin[2] = ir_output(bw, 1);
  if (has_bias)
    c->gin[3] = ir_output(bw, 2);
}

/* stack: the gradient unbound along the stacking dim (a Tensor[] gradient for the list). */
void ad_grad_stack(Ctx *c, IrValue *g) {
  IrValue *dim = arg(c, 1) ? c->in[1] : cint(c, 0);
  IrNode *unbind = ir_graph_insert_op(c->g, IR_ATEN_UNBIND, (IrValue *const[]){g, dim}, 2, 1);
  ir_value_set_type(ir_output(unbind, 0), ir_type_list(ir_type_tensor()));
  c->gin[0] = ir_output(unbind, 0);
}

/* unbind: the pieces' gradients (a Tensor[] gradient, undefined pieces as zeros) stacked
 * back along dim. */
void ad_grad_unbind(Ctx *c, IrValue *g) {
  IrValue *dim = arg(c, 1) ? c->in[1] : cint(c, 0);
  c->gin[0] = E2(ATEN_STACK, g, dim);
}

/* index_select, embedding: PyTorch's index_select_backward / embedding_backward for self /
 * weight; the indices get none. */
void ad_grad_index_select(Ctx *c, IrValue *g) {
  if (c->node->kind == IR_ATEN_INDEX_SELECT) {
    c->gin[0] = emit(c, IR_ATEN_INDEX_SELECT_BACKWARD, 4,
                     (IrValue *const[]){g, c->saved[0], c->in[1], c->in[2]});
    return;
  }
  IrValue *padding = arg(c, 2) ? c->in[2] : cint(c, -1);
  IrValue *scale = arg(c, 3) ? c->in[3] : ir_graph_insert_constant_bool(c->g, false);
  IrValue *sparse = arg(c, 4) ? c->in[4] : ir_graph_insert_constant_bool(c->g, false);
  c->gin[0] = emit(c, IR_ATEN_EMBEDDING_BACKWARD, 6,
                   (IrValue *const[]){g, c->in[1], c->saved[0], padding, scale, sparse});
}

/* flip: the gradient flipped back. */
void ad_grad_flip(Ctx *c, IrValue *g) {
  c->gin[0] = E2(ATEN_FLIP, g, c->in[1]);
}

/* tril / triu: the same triangle of the gradient. */
void ad_grad_tril(Ctx *c, IrValue *g) {
  c->gin[0] = emit(c, c->node->kind, 2, (IrValue *const[]){g, c->in[1]});
}

/* cumsum: the gradient summed in reverse along dim, flip(cumsum(flip(g))) as PyTorch 1.13's
 * reversed_cumsum (sum(g) - cumsum(g) + g would give NaN beside an infinite gradient where
 * PyTorch's is inf), in self's dtype when a dtype argument changed it. */
void ad_grad_cumsum(Ctx *c, IrValue *g) {
  IrNode *dims = ir_node_create(c->g, IR_PRIM_LIST_CONSTRUCT, 1);
  ir_node_add_input(dims, c->in[1]);
  ir_value_set_type(ir_output(dims, 0), ir_type_list(ir_type_int()));
  ir_graph_insert(c->g, dims);
  IrValue *flipped = E2(ATEN_FLIP, g, ir_output(dims, 0));
  IrValue *r = E2(ATEN_FLIP, E2(ATEN_CUMSUM, flipped, c->in[1]), ir_output(dims, 0));
  c->gin[0] = value_is_none(arg(c, 2)) ? r : E2(ATEN_TYPE_AS, r, c->in[0]);
}

/* sum(x, dims, keepdim=True) */
static IrValue *sum_keeping_dims(Ctx *c, IrValue *x, IrValue *dims) {
  return emit(c, IR_ATEN_SUM, 4,
              (IrValue *const[]){x, dims, ir_graph_insert_constant_bool(c->g, true),
                                 ir_graph_insert_constant_none(c->g)});
}

/* cumprod as PyTorch 1.13's cumprod_backward (its O(n) form, without create_graph): with
 * out = cumprod(self), w = out * g and z1 the first zero along dim,
 *   before z1: reversed_cumsum(w masked to the places before z1) / self;
 *   at z1: out[z1 - 1] * sum over [z1, z2) of g * the running product of self after z1;
 *   after z1: 0;
 * which is reversed_cumsum(w) / self along a dim without zeros. A dim of size 1 (a 0-dim
 * self) passes g on. */
void ad_grad_cumprod(Ctx *c, IrValue *g) {
  IrValue *self = c->in[0], *out = c->out[0];
  bool converted = !value_is_none(arg(c, 2));
  int rank = self->type->rank;
  if (rank == 0) {
    c->gin[0] = converted ? E2(ATEN_TYPE_AS, g, self) : g;
    return;
  }
  double d = 0;
  constant_number(c->in[1], &d);
  gint64 dim = (gint64)d + (d < 0 ? rank : 0);
  if (converted) /* derivatives.yaml: grad.to(self.scalar_type()) */
    g = E2(ATEN_TYPE_AS, g, self);
  IrValue *dims = ir_graph_insert_constant_int_list(c->g, &dim, 1), *zero = cint(c, 0);
  IrValue *is_zero = E2(ATEN_EQ, self, zero);
  IrValue *zeros_so_far = E2(ATEN_CUMSUM, is_zero, cint(c, dim));
  IrValue *before = E2(ATEN_EQ, zeros_so_far, zero);
  IrValue *w_before = E3(ATEN_MASKED_FILL, mul(c, out, g), E1(ATEN_LOGICAL_NOT, before), zero);
  IrValue *reversed =
      E2(ATEN_FLIP, E2(ATEN_CUMSUM, E2(ATEN_FLIP, w_before, dims), cint(c, dim)), dims);
  IrValue *before_z1 = E2(ATEN_DIV, reversed, self);

  IrValue *up_to_z2 = E2(ATEN_EQ, zeros_so_far, cint(c, 1));
  IrValue *first_zero = E2(ATEN_LOGICAL_AND, is_zero, up_to_z2);
  IrValue *after_z1 = E2(ATEN_LOGICAL_AND, up_to_z2, E1(ATEN_LOGICAL_NOT, is_zero));
  IrValue *running =
      E2(ATEN_CUMPROD, E3(ATEN_MASKED_FILL, self, E1(ATEN_LOGICAL_NOT, after_z1), cint(c, 1)),
         cint(c, dim));
  IrValue *g_to_z2 = E3(ATEN_MASKED_FILL, g, E1(ATEN_LOGICAL_NOT, up_to_z2), zero);
  IrValue *sum = sum_keeping_dims(c, mul(c, running, g_to_z2), dims);
  IrValue *at_z1 = mul(c, sum, ad_exclusive_cumprod(c, self, dim));
  IrValue *general = E3(ATEN_WHERE, before, before_z1,
                        E3(ATEN_MASKED_FILL, at_z1, E1(ATEN_LOGICAL_NOT, first_zero), zero));

  IrValue *dim_size = sum_keeping_dims(c, E1(ATEN_ONES_LIKE, self), dims);
  IrValue *r = E3(ATEN_WHERE, E2(ATEN_EQ, dim_size, cint(c, 1)), g, general);
  c->gin[0] = converted ? E2(ATEN_TYPE_AS, r, self) : r;
}

IrValue **ad_list_elements(Ctx *c, guint *n) {
  *n = ir_n_inputs(ir_input(c->node, 0)->node);
  IrValue **elements = g_new(IrValue *, *n);
  IrNode *construct = c->in[0]->node;
  if (construct->kind == IR_PRIM_LIST_CONSTRUCT) {
    for (guint i = 0; i < *n; i++)
      elements[i] = ir_input(construct, i);
    return elements;
  }
  IrNode *unpack = ir_node_create(c->g, IR_PRIM_LIST_UNPACK, *n);
  ir_node_add_input(unpack, c->in[0]);
  for (guint i = 0; i < *n; i++) {
    ir_value_set_type(ir_output(unpack, i), ir_type_tensor());
    elements[i] = ir_output(unpack, i);
  }
  ir_graph_insert(c->g, unpack);
  return elements;
}

/* broadcast_tensors' forward part: each tensor's size (the backward then needs no Tensor[]
 * from the forward). */
void ad_fw_broadcast_tensors(Ctx *c) {
  guint n;
  g_autofree IrValue **elements = ad_list_elements(c, &n);
  for (guint i = 0; i < n; i++)
    save(c, size_of(c, elements[i]));
}

/* broadcast_tensors: each gradient summed back to its tensor's size (a Tensor[] gradient for
 * the list input, as stack's). */
void ad_grad_broadcast_tensors(Ctx *c, IrValue *g) {
  guint n = ir_n_inputs(ir_input(c->node, 0)->node);
  IrNode *grads = ir_node_create(c->g, IR_PRIM_LIST_UNPACK, n);
  ir_node_add_input(grads, g);
  for (guint i = 0; i < n; i++)
    ir_value_set_type(ir_output(grads, i), ir_type_tensor());
  ir_graph_insert(c->g, grads);
  IrNode *list = ir_node_create(c->g, IR_PRIM_LIST_CONSTRUCT, 1);
  for (guint i = 0; i < n; i++)
    ir_node_add_input(list, gsts(c, ir_output(grads, i), i));
  ir_value_set_type(ir_output(list, 0), ir_type_list(ir_type_tensor()));
  ir_graph_insert(c->g, list);
  c->gin[0] = ir_output(list, 0);
}
