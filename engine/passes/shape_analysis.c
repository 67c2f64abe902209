/* pass_propagate_input_shapes: recomputes every tensor value's dtype, device, rank (and sizes
 * where they follow) forward from the graph's input types, through blocks, loops (to a
 * fixpoint), tuples, lists and chunks; requires_grad of each value is left as it was. */
#include "passes/pass_util.h"
#include "passes/passes.h"
#include "passes/shape_rules.h"

/* Algorithm: PyTorch's shape_analysis.cpp (PropagateInputShapes), 2019.
 * - Every node's tensor outputs are recomputed from its inputs (shape_rules.c); what no rule
 *   can tell becomes an unknown `Tensor` (PyTorch's setUnshapedType). Types that are already
 *   as known (Tensor[Undefined], constants, graph inputs) are not touched.
 * - _grad_sum_to_size with a size that is not a constant becomes `Tensor`, which is what
 *   PyTorch prints for it too (its rank depends on a run-time list).
 * - prim::If: both blocks, then each output is the merge of the two branch types.
 * - prim::Loop: the body's carried inputs start as the initial values' types; after each
 *   propagation of the body they are merged with the body's outputs until nothing moves;
 *   the loop's outputs get the final carried types. Merging keeps what both sides agree on
 *   (sizes per dimension, else dtype/device/rank, else Tensor).
 * - Tuples: TupleConstruct's type follows its inputs, TupleUnpack and TupleIndex (constant
 *   index) read the element types. ListUnpack reads the types of a ListConstruct's inputs
 *   or of an aten::chunk's pieces. ConstantChunk outputs are the pieces of its input;
 *   BroadcastingChunk's are the pieces of each input in turn.
 * - GradOf: its outputs follow its block's outputs. FusionGroup and DifferentiableGraph:
 *   the input types are copied onto the subgraph's inputs, the subgraph is propagated, and
 *   the node's outputs take the subgraph's output types (as PyTorch does for FusionGroup).
 * - requires_grad is never changed here (pass_propagate_requires_grad owns it). */

static void propagate_block(IrBlock *block, bool *changed);

static void set_type(IrValue *v, const IrType *t, bool *changed) {
  if (v->type != t) {
    ir_value_set_type(v, t);
    *changed = true;
  }
}

/* Sets a tensor output from `info`, keeping its requires_grad; non-tensor outputs and
 * known-undefined tensors are left alone. */
static void set_tensor_output(IrValue *v, const ShapeInfo *info, bool *changed) {
  if (!ir_type_is_tensor(v->type) || v->type->undefined)
    return;
  set_type(v, shape_info_to_type(info, v->type->requires_grad), changed);
}

/* The most specific type both a and b are instances of, for tensor types; for other types
 * a when equal, else `fallback`. requires_grad is taken from `keep_rg`. */
static const IrType *merge_types(const IrType *a, const IrType *b, const IrType *fallback) {
  if (!ir_type_is_tensor(a) || !ir_type_is_tensor(b))
    return a == b ? a : fallback;
  IrTristate rg = ir_type_is_tensor(fallback) ? fallback->requires_grad : IR_UNKNOWN;
  if (a->undefined && b->undefined)
    return ir_type_with_requires_grad(a, rg);
  ShapeInfo x, y, m = {0};
  shape_info_from_type(a, &x);
  shape_info_from_type(b, &y);
  if (x.known && y.known && x.dtype == y.dtype && x.device == y.device && x.rank == y.rank) {
    m = x;
    m.has_sizes = x.has_sizes && y.has_sizes;
    for (int d = 0; d < x.rank && m.has_sizes; d++)
      m.has_sizes = x.sizes[d] == y.sizes[d];
    m.has_strides = m.has_sizes && x.has_strides && y.has_strides;
    for (int d = 0; d < x.rank && m.has_strides; d++)
      m.has_strides = x.strides[d] == y.strides[d];
  }
  return shape_info_to_type(&m, rg);
}

static void if_node(IrNode *node, bool *changed) {
  IrBlock *t = ir_block(node, 0), *e = ir_block(node, 1);
  propagate_block(t, changed);
  propagate_block(e, changed);
  for (guint i = 0; i < ir_n_outputs(node); i++) {
    IrValue *out = ir_output(node, i);
    const IrType *m =
        merge_types(((IrValue *)g_ptr_array_index(ir_block_outputs(t), i))->type,
                    ((IrValue *)g_ptr_array_index(ir_block_outputs(e), i))->type, out->type);
    set_type(out, m, changed);
  }
}

/* Body types may be reset and refined again on the way to the fixpoint: whether the pass
 * changed the body is decided against a snapshot taken on entry. */
static void loop_node(IrNode *node, bool *changed) {
  IrBlock *body = ir_block(node, 0);
  guint n = ir_n_outputs(node);
  GArray *before = pu_snapshot_block_types(body);
  bool transient = false;
  for (guint i = 0; i < n; i++) {
    IrValue *in = g_ptr_array_index(ir_block_inputs(body), i + 1);
    const IrType *init = ir_input(node, i + 2)->type;
    if (ir_type_is_tensor(init))
      set_type(in, merge_types(init, init, in->type), &transient);
  }
  /* Each round can only lose information, and types form a finite lattice of depth 3 per
   * value (sizes, rank, unknown): the loop ends. */
  for (;;) {
    propagate_block(body, &transient);
    bool moved = false;
    for (guint i = 0; i < n; i++) {
      IrValue *in = g_ptr_array_index(ir_block_inputs(body), i + 1);
      IrValue *out = g_ptr_array_index(ir_block_outputs(body), i + 1);
      const IrType *m = merge_types(in->type, out->type, in->type);
      if (m != in->type) {
        ir_value_set_type(in, m);
        moved = true;
      }
    }
    if (!moved)
      break;
  }
  if (pu_snapshot_changed_free(before))
    *changed = true;
  for (guint i = 0; i < n; i++) {
    IrValue *in = g_ptr_array_index(ir_block_inputs(body), i + 1);
    IrValue *out = ir_output(node, i);
    if (ir_type_is_tensor(in->type) && ir_type_is_tensor(out->type))
      set_type(out, ir_type_with_requires_grad(in->type, out->type->requires_grad), changed);
  }
}

static void subgraph_node(IrNode *node, bool *changed) {
  IrGraph *sub = ir_node_attr_g(node, IR_ATTR_SUBGRAPH);
  GPtrArray *ins = ir_graph_inputs(sub), *outs = ir_graph_outputs(sub);
  /* A differentiated DifferentiableGraph's f returns its real outputs first, then the
   * temporaries df needs (reference section 4): the node's outputs are a prefix. */
  bool prefix = node->kind == IR_PRIM_DIFFERENTIABLE_GRAPH;
  PASS_INVARIANT(ins->len == ir_n_inputs(node) &&
                     (prefix ? outs->len >= ir_n_outputs(node) : outs->len == ir_n_outputs(node)),
                 "pass_propagate_input_shapes",
                 "a subgraph node's inputs and outputs match its Subgraph's");
  for (guint i = 0; i < ins->len; i++) {
    IrValue *in = g_ptr_array_index(ins, i);
    const IrType *t = ir_input(node, i)->type;
    if (ir_type_is_tensor(t) && ir_type_is_tensor(in->type))
      t = ir_type_with_requires_grad(t, in->type->requires_grad);
    set_type(in, t, changed);
  }
  propagate_block(sub->block, changed);
  for (guint i = 0; i < ir_n_outputs(node); i++) {
    const IrType *t = ((IrValue *)g_ptr_array_index(outs, i))->type;
    IrValue *out = ir_output(node, i);
    if (ir_type_is_tensor(t) && ir_type_is_tensor(out->type))
      t = ir_type_with_requires_grad(t, out->type->requires_grad);
    set_type(out, t, changed);
  }
}

static void chunk_outputs(IrNode *node, const IrValue *self, gint64 chunks, gint64 dim, guint first,
                          bool *changed) {
  ShapeInfo in, piece;
  shape_info_from_type(self->type, &in);
  for (guint k = 0; k < (guint)chunks && first + k < ir_n_outputs(node); k++) {
    if (!shape_rule_chunk_piece(&in, chunks, dim, k, &piece))
      memset(&piece, 0, sizeof piece);
    set_tensor_output(ir_output(node, first + k), &piece, changed);
  }
}

static void list_unpack(IrNode *node, bool *changed) {
  IrNode *src = ir_input(node, 0)->node;
  if (src->kind == IR_PRIM_LIST_CONSTRUCT && ir_n_inputs(src) == ir_n_outputs(node)) {
    for (guint i = 0; i < ir_n_outputs(node); i++) {
      ShapeInfo info;
      shape_info_from_type(ir_input(src, i)->type, &info);
      set_tensor_output(ir_output(node, i), &info, changed);
    }
    return;
  }
  gint64 chunks, dim;
  if (src->kind == IR_ATEN_CHUNK && pu_arg_int(src, "chunks", &chunks) &&
      pu_arg_int(src, "dim", &dim) && chunks == (gint64)ir_n_outputs(node)) {
    chunk_outputs(node, ir_input(src, 0), chunks, dim, 0, changed);
    return;
  }
  ShapeInfo unknown = {0};
  for (guint i = 0; i < ir_n_outputs(node); i++)
    set_tensor_output(ir_output(node, i), &unknown, changed);
}

static void tuple_node(IrNode *node, bool *changed) {
  if (node->kind == IR_PRIM_TUPLE_CONSTRUCT) {
    guint n = ir_n_inputs(node);
    const IrType **elems = g_new(const IrType *, n ? n : 1);
    for (guint i = 0; i < n; i++)
      elems[i] = ir_input(node, i)->type;
    set_type(ir_output(node, 0), ir_type_tuple(elems, n), changed);
    g_free(elems);
    return;
  }
  const IrType *tuple = ir_input(node, 0)->type;
  if (tuple->kind != IR_TYPE_TUPLE)
    return;
  if (node->kind == IR_PRIM_TUPLE_UNPACK) {
    for (guint i = 0; i < ir_n_outputs(node) && i < tuple->n_elems; i++)
      set_type(ir_output(node, i), tuple->elems[i], changed);
    return;
  }
  gint64 index;
  if (ir_node_has_attr(node, "index"))
    index = ir_node_attr_i(node, "index");
  else if (ir_n_inputs(node) < 2 || !pu_constant_int(ir_input(node, 1), &index))
    return;
  if (index < 0)
    index += tuple->n_elems;
  if (index >= 0 && index < (gint64)tuple->n_elems)
    set_type(ir_output(node, 0), tuple->elems[index], changed);
}

static void autograd_add(IrNode *node, bool *changed) {
  const IrType *a = ir_input(node, 0)->type, *b = ir_input(node, 1)->type;
  IrValue *out = ir_output(node, 0);
  const IrType *t = a->undefined ? b : b->undefined ? a : merge_types(a, b, out->type);
  if (ir_type_is_tensor(t) && !t->undefined)
    set_type(out, ir_type_with_requires_grad(t, out->type->requires_grad), changed);
}

static void propagate_node(IrNode *node, bool *changed) {
  switch (node->kind) {
  case IR_PRIM_CONSTANT:
  case IR_PRIM_AUTOGRAD_ZERO:
  case IR_PRIM_UNINITIALIZED:
  case IR_PRIM_LIST_CONSTRUCT: return;
  case IR_PRIM_IF: if_node(node, changed); return;
  case IR_PRIM_LOOP: loop_node(node, changed); return;
  case IR_PRIM_GRAD_OF: {
    IrBlock *body = ir_block(node, 0);
    propagate_block(body, changed);
    for (guint i = 0; i < ir_n_outputs(node) && i < ir_block_outputs(body)->len; i++) {
      ShapeInfo info;
      shape_info_from_type(((IrValue *)g_ptr_array_index(ir_block_outputs(body), i))->type, &info);
      set_tensor_output(ir_output(node, i), &info, changed);
    }
    return;
  }
  case IR_PRIM_FUSION_GROUP:
  case IR_PRIM_DIFFERENTIABLE_GRAPH: subgraph_node(node, changed); return;
  case IR_PRIM_TUPLE_CONSTRUCT:
  case IR_PRIM_TUPLE_UNPACK:
  case IR_PRIM_TUPLE_INDEX: tuple_node(node, changed); return;
  case IR_PRIM_LIST_UNPACK: list_unpack(node, changed); return;
  case IR_PRIM_CONSTANT_CHUNK:
    chunk_outputs(node, ir_input(node, 0), ir_node_attr_i(node, IR_ATTR_CHUNKS),
                  ir_node_attr_i(node, IR_ATTR_DIM), 0, changed);
    return;
  case IR_PRIM_BROADCASTING_CHUNK: {
    gint64 chunks = ir_node_attr_i(node, IR_ATTR_CHUNKS);
    for (guint i = 0; i < ir_n_inputs(node); i++)
      chunk_outputs(node, ir_input(node, i), chunks, ir_node_attr_i(node, IR_ATTR_DIM),
                    i * (guint)chunks, changed);
    return;
  }
  case IR_PRIM_AUTOGRAD_ADD: autograd_add(node, changed); return;
  default: break;
  }
  for (guint b = 0; b < ir_n_blocks(node); b++)
    propagate_block(ir_block(node, b), changed);
  ShapeInfo info;
  if (!node->schema && node->kind != IR_PRIM_FUSED_CONCAT) /* the one prim op with a rule */
    memset(&info, 0, sizeof info);
  else
    shape_rule_apply(node, &info);
  for (guint i = 0; i < ir_n_outputs(node); i++) {
    ShapeInfo unknown = {0};
    set_tensor_output(ir_output(node, i), i == 0 ? &info : &unknown, changed);
  }
}

static void propagate_block(IrBlock *block, bool *changed) {
  IR_FOR_EACH_NODE(n, block) {
    propagate_node(n, changed);
  }
}

bool pass_propagate_input_shapes(IrGraph *graph) {
  bool changed = false;
  propagate_block(graph->block, &changed);
  return changed;
}
