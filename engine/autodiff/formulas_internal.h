/* What the gradient builders of autodiff/formulas*.c share: the builder context and small
 * IR-building helpers. Private to engine/autodiff. */
#ifndef JITSCOPE_AUTODIFF_FORMULAS_INTERNAL_H
#define JITSCOPE_AUTODIFF_FORMULAS_INTERNAL_H

#include <string.h>

#include "ir/ir.h"
#include "ir/ops.h"

typedef struct {
  IrGraph *g;
  const IrNode *node;
  IrValue *const *in;
  IrValue *const *out;
  IrValue *const *saved;
  IrValue *const *grads;
  IrValue **gin;
  GPtrArray *saved_out;
  /* for the eager tape: where PyTorch's autograd formula (derivatives.yaml) and its
   * DifferentiableGraph formula (symbolic_script) differ, the former */
  bool eager;
} Ctx;

static inline IrValue *emit(Ctx *c, IrOpKind kind, guint n, IrValue *const *args) {
  IrNode *node = ir_graph_insert_op(c->g, kind, args, n, 1);
  return ir_output(node, 0);
}

#define E1(k, a) emit(c, IR_##k, 1, (IrValue *const[]){(a)})
#define E2(k, a, b) emit(c, IR_##k, 2, (IrValue *const[]){(a), (b)})
#define E3(k, a, b, d) emit(c, IR_##k, 3, (IrValue *const[]){(a), (b), (d)})

static inline IrValue *cint(Ctx *c, gint64 v) {
  return ir_graph_insert_constant_int(c->g, v);
}
static inline IrValue *cfloat(Ctx *c, double v) {
  return ir_graph_insert_constant_float(c->g, v);
}

/* x * y */
static inline IrValue *mul(Ctx *c, IrValue *x, IrValue *y) {
  return E2(ATEN_MUL, x, y);
}
static inline IrValue *neg(Ctx *c, IrValue *x) {
  return E1(ATEN_NEG, x);
}
static inline IrValue *gsts(Ctx *c, IrValue *v, guint k) {
  return E2(ATEN_GRAD_SUM_TO_SIZE, v, c->saved[k]);
}
static inline IrValue *size_of(Ctx *c, IrValue *v) {
  return E1(ATEN_SIZE, v);
}

static inline IrValue *arg(const Ctx *c, guint i) {
  return i < ir_n_inputs(c->node) ? c->in[i] : NULL;
}

static inline bool overload_is(const IrNode *node, const char *name) {
  return node->schema && strcmp(node->schema->overload, name) == 0;
}

static inline bool value_is_none(const IrValue *v) {
  return v == NULL || v->type->kind == IR_TYPE_NONE;
}

static inline bool constant_number(const IrValue *v, double *out) {
  if (v->node->kind != IR_PRIM_CONSTANT)
    return false;
  const IrAttr *a = ir_node_attr(v->node, IR_ATTR_VALUE);
  if (!a)
    return false;
  if (a->kind == IR_ATTR_I)
    *out = (double)a->v.i;
  else if (a->kind == IR_ATTR_F)
    *out = a->v.f;
  else
    return false;
  return true;
}

static inline const GArray *constant_int_list(const IrValue *v) {
  if (v->node->kind != IR_PRIM_CONSTANT)
    return NULL;
  const IrAttr *a = ir_node_attr(v->node, IR_ATTR_VALUE);
  return a && a->kind == IR_ATTR_IS ? a->v.is : NULL;
}

/* The values of a constant int[] or of a ListConstruct of int constants (at most max). */
static inline bool constant_ints(const IrValue *v, gint64 *out, guint *n, guint max) {
  const GArray *list = constant_int_list(v);
  if (list) {
    if (list->len > max)
      return false;
    *n = list->len;
    for (guint i = 0; i < list->len; i++)
      out[i] = g_array_index(list, gint64, i);
    return true;
  }
  if (v->node->kind != IR_PRIM_LIST_CONSTRUCT || ir_n_inputs(v->node) > max)
    return false;
  *n = ir_n_inputs(v->node);
  for (guint i = 0; i < *n; i++) {
    double d;
    if (!constant_number(ir_input(v->node, i), &d))
      return false;
    out[i] = (gint64)d;
  }
  return true;
}

/* The length of a constant list or of a ListConstruct's list (whose elements may be computed
 * at run time, as layer_norm's [x.size(-1)]); false for other lists. */
static inline bool list_length(const IrValue *v, guint *n) {
  if (v->node->kind == IR_PRIM_LIST_CONSTRUCT) {
    *n = ir_n_inputs(v->node);
    return true;
  }
  const GArray *list = constant_int_list(v);
  if (list)
    *n = list->len;
  return list != NULL;
}

/* A ListConstruct of one int that is not a constant (a reduction over [x.dim() - 1]). */
static inline bool ad_single_dim_list(const IrValue *v) {
  return v->node->kind == IR_PRIM_LIST_CONSTRUCT && ir_n_inputs(v->node) == 1 &&
         ir_input(v->node, 0)->type->kind == IR_TYPE_INT;
}

static inline bool is_tensor(const IrValue *v) {
  return v && ir_type_is_tensor(v->type);
}

static inline bool rank_is(const IrValue *v, int rank) {
  return is_tensor(v) && v->type->rank == rank;
}

static inline void save(Ctx *c, IrValue *v) {
  g_ptr_array_add(c->saved_out, v);
}

/* The bool[3] output_mask of the native_*_backward ops, a ListConstruct of constants. */
static inline IrValue *output_mask_of(Ctx *c, const bool asks[3]) {
  IrNode *mask = ir_node_create(c->g, IR_PRIM_LIST_CONSTRUCT, 1);
  for (int i = 0; i < 3; i++)
    ir_node_add_input(mask, ir_graph_insert_constant_bool(c->g, asks[i]));
  ir_value_set_type(ir_output(mask, 0), ir_type_list(ir_type_bool()));
  ir_graph_insert(c->g, mask);
  return ir_output(mask, 0);
}

/* The n tensors of the list in[0], built by a prim::ListConstruct of n values in the node's
 * graph: that node's inputs where in[0] is still its output (a DifferentiableGraph), else a
 * prim::ListUnpack of in[0] (the eager tape's formula graph takes the list as an input). */
IrValue **ad_list_elements(Ctx *c, guint *n);

/* self @ mat2's gradients (times alpha when given) into gin[0..1] (gin[1..2] for addmm). */
void ad_bw_mm_like(Ctx *c, IrValue *g, IrValue *self, IrValue *mat2, IrValue *alpha);

/* layer_norm's forward part (formulas_nn.c): saves native_layer_norm's mean and rstd. */
void ad_fw_layer_norm(Ctx *c);

/* Builders of formulas_reduce.c (the op table's AD(...) column). */
void ad_grad_sum(Ctx *c, IrValue *g);
void ad_grad_amax(Ctx *c, IrValue *g);
void ad_grad_max_all(Ctx *c, IrValue *g);
void ad_grad_max_dim(Ctx *c, IrValue *g);
void ad_grad_sort(Ctx *c, IrValue *g);
void ad_grad_logsumexp(Ctx *c, IrValue *g);
void ad_grad_var(Ctx *c, IrValue *g);
void ad_grad_prod(Ctx *c, IrValue *g);
void ad_grad_vector_norm(Ctx *c, IrValue *g);
void ad_grad_frobenius_norm(Ctx *c, IrValue *g);
/* x's exclusive running products along dim (>= 0): [1, x0, x0 x1, ...], the values cumprod(x)
 * has one place earlier (cumprod rolled by one, its first place set to 1: no padding, which
 * PyTorch's constant_pad_nd refuses where another dim is empty). */
IrValue *ad_exclusive_cumprod(Ctx *c, IrValue *x, gint64 dim);

/* Builders of formulas_nn.c. */
void ad_grad_matmul(Ctx *c, IrValue *g);
void ad_grad_bmm(Ctx *c, IrValue *g);
void ad_grad_softmax(Ctx *c, IrValue *g);
void ad_grad_linear(Ctx *c, IrValue *g);
void ad_grad_permute(Ctx *c, IrValue *g);
void ad_grad_identity(Ctx *c, IrValue *g);
void ad_grad_gelu(Ctx *c, IrValue *g);
void ad_grad_prelu(Ctx *c, IrValue *g);
void ad_grad_glu(Ctx *c, IrValue *g);
void ad_grad_stack(Ctx *c, IrValue *g);
void ad_grad_unbind(Ctx *c, IrValue *g);
void ad_grad_index_select(Ctx *c, IrValue *g);
void ad_grad_cumsum(Ctx *c, IrValue *g);
void ad_grad_cumprod(Ctx *c, IrValue *g);
void ad_grad_tril(Ctx *c, IrValue *g);
void ad_grad_flip(Ctx *c, IrValue *g);
void ad_grad_slice(Ctx *c, IrValue *g);
void ad_grad_layer_norm(Ctx *c, IrValue *g);
void ad_grad_dropout(Ctx *c, IrValue *g);
void ad_grad_native_dropout(Ctx *c, IrValue *g);
/* dropout: a train that is not a constant true, or a constant p; native_dropout: a constant
 * train and p. */
bool ad_dropout_formula_exists(const IrNode *node);
void ad_fw_broadcast_tensors(Ctx *c);
void ad_grad_broadcast_tensors(Ctx *c, IrValue *g);

/* Builders of formulas_loss.c; ad_fw_nll_loss is the forward part of nll_loss's. */
void ad_fw_nll_loss(Ctx *c);
void ad_grad_mse_loss(Ctx *c, IrValue *g);
void ad_grad_l1_loss(Ctx *c, IrValue *g);
void ad_grad_nll_loss(Ctx *c, IrValue *g);
void ad_grad_bce_with_logits(Ctx *c, IrValue *g);
void ad_grad_smooth_l1_loss(Ctx *c, IrValue *g);
void ad_grad_soft_margin_loss(Ctx *c, IrValue *g);
void ad_grad_binary_cross_entropy(Ctx *c, IrValue *g);
void ad_grad_kl_div(Ctx *c, IrValue *g);

/* Builders of formulas_index.c. */
void ad_grad_masked_fill(Ctx *c, IrValue *g);
void ad_grad_gather(Ctx *c, IrValue *g);
void ad_grad_index(Ctx *c, IrValue *g);
void ad_fw_index_put(Ctx *c);
void ad_grad_index_put(Ctx *c, IrValue *g);
void ad_grad_baddbmm(Ctx *c, IrValue *g);

/* Builders of formulas_distance.c. */
void ad_grad_cosine_similarity(Ctx *c, IrValue *g);
void ad_grad_pairwise_distance(Ctx *c, IrValue *g);

/* Builders of formulas_conv.c. */
void ad_grad_conv(Ctx *c, IrValue *g);
void ad_fw_max_pool2d(Ctx *c);
void ad_grad_max_pool2d(Ctx *c, IrValue *g);
void ad_grad_avg_pool2d(Ctx *c, IrValue *g);
void ad_grad_adaptive_avg_pool2d(Ctx *c, IrValue *g);
void ad_fw_max_pool1d(Ctx *c);
void ad_grad_max_pool1d(Ctx *c, IrValue *g);
void ad_grad_avg_pool1d(Ctx *c, IrValue *g);
void ad_grad_adaptive_avg_pool1d(Ctx *c, IrValue *g);
void ad_grad_adaptive_max_pool(Ctx *c, IrValue *g);
void ad_grad_upsample2d(Ctx *c, IrValue *g);
void ad_grad_pixel_shuffle(Ctx *c, IrValue *g);

/* Builders of formulas_layout.c; roll's, pad's and repeat's need int[] arguments of a
 * length the graph fixes (ad_layout_formula_exists). */
bool ad_layout_formula_exists(const IrNode *node);
void ad_grad_roll(Ctx *c, IrValue *g);
void ad_grad_repeat(Ctx *c, IrValue *g);
void ad_grad_narrow(Ctx *c, IrValue *g);
void ad_grad_pad(Ctx *c, IrValue *g);

/* formulas_pad_modes.c: aten::pad's mode, "constant" when the node has none (constant_pad_nd
 * too), NULL when it is not a constant string; whether a formula exists for a mode other than
 * 'constant' (pad_length: the fixed length of the pad list, -1 when not fixed); its builder. */
const char *ad_pad_mode(const IrNode *node);
bool ad_pad_mode_formula_exists(const IrNode *node, int pad_length);
void ad_grad_pad_by_mode(Ctx *c, IrValue *g, int pad_length);

/* Builders of formulas_norm.c. */
void ad_grad_batch_norm(Ctx *c, IrValue *g);
void ad_fw_group_norm(Ctx *c);
void ad_grad_group_norm(Ctx *c, IrValue *g);
void ad_fw_instance_norm(Ctx *c);
void ad_grad_instance_norm(Ctx *c, IrValue *g);

#endif
