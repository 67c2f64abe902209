/* pass_canonicalize_ops: add/sub/mul/div whose `other` is a constant 0-dim tensor use the
 * Scalar overload instead; aten::chunk with constant chunks and dim whose list is only read by
 * prim::ListUnpack becomes prim::ConstantChunk[chunks=N, dim=D] with N outputs; a call that
 * leaves its trailing arguments to their defaults (text may; PyTorch's graphs never do) gets
 * them as constants, so that gradient formulas and the eager tape, which read every argument,
 * find them. */
#include "passes/pass_util.h"
#include "passes/passes.h"

#include "tensor/tensor.h"

/* Algorithm: PyTorch's passes/canonicalize_ops.cpp. The rewritten node takes over the old
 * output's type, debug name and source location; the old node is destroyed (the reference
 * leaves it to the next DCE). The chunk rewrite applies only when every use of the list is a
 * ListUnpack with exactly `chunks` outputs (an uneven split can give fewer pieces: those
 * stay aten::chunk); each unpacked output is replaced by the matching ConstantChunk output,
 * which takes over its type and name. */

static void take_over_value(IrValue *from, IrValue *to) {
  const char *name = from->name;
  ir_value_set_type(to, from->type);
  ir_value_replace_all_uses_with(from, to);
  if (name) {
    char *copy = g_strdup(name);
    ir_value_set_name(from, NULL);
    ir_value_set_name(to, copy);
    g_free(copy);
  }
}

static bool scalar_other(IrNode *node) {
  if (!pu_node_is(node, node->kind, "Tensor"))
    return false;
  IrValue *other = ir_input(node, 1);
  if (!pu_is_constant(other))
    return false;
  const IrAttr *a = ir_node_attr(other->node, IR_ATTR_VALUE);
  if (!a || a->kind != IR_ATTR_T || a->v.t->ndim != 0)
    return false;
  RtTensor *t = a->v.t;
  double item = rt_tensor_get(t, 0);
  IrValue *scalar;
  if (ir_type_is_float_dtype(t->dtype)) {
    RtValue v = rt_double(item);
    scalar = pu_insert_constant_before(node, v, NULL);
  } else if (t->dtype == IR_DTYPE_BOOL) {
    scalar = pu_insert_bool_before(node, item != 0);
  } else {
    scalar = pu_insert_int_before(node, (gint64)item);
  }
  IrNode *repl = ir_node_create(ir_node_graph(node), node->kind, 1);
  for (guint i = 0; i < ir_n_inputs(node); i++)
    ir_node_add_input(repl, i == 1 ? scalar : ir_input(node, i));
  ir_node_insert_before(repl, node);
  PASS_INVARIANT(ir_node_resolve_schema(repl) != NULL, "pass_canonicalize_ops",
                 "the Scalar overload exists for add/sub/mul/div");
  repl->source = node->source;
  take_over_value(ir_output(node, 0), ir_output(repl, 0));
  ir_node_destroy(node);
  return true;
}

static bool constant_chunk(IrNode *node) {
  gint64 chunks, dim;
  if (!pu_arg_int(node, "chunks", &chunks) || !pu_arg_int(node, "dim", &dim))
    return false;
  IrValue *list = ir_output(node, 0);
  GArray *uses = list->uses;
  if (uses->len == 0)
    return false;
  for (guint i = 0; i < uses->len; i++) {
    IrNode *user = g_array_index(uses, IrUse, i).user;
    if (user->kind != IR_PRIM_LIST_UNPACK || (gint64)ir_n_outputs(user) != chunks)
      return false;
  }
  IrNode *cc = ir_node_create(ir_node_graph(node), IR_PRIM_CONSTANT_CHUNK, (guint)chunks);
  ir_node_add_input(cc, ir_input(node, 0));
  ir_node_set_attr_i(cc, IR_ATTR_CHUNKS, chunks);
  ir_node_set_attr_i(cc, IR_ATTR_DIM, dim);
  cc->source = node->source;
  ir_node_insert_before(cc, node);
  while (list->uses->len > 0) {
    IrNode *unpack = g_array_index(list->uses, IrUse, 0).user;
    for (guint k = 0; k < (guint)chunks; k++)
      take_over_value(ir_output(unpack, k), ir_output(cc, k));
    ir_node_destroy(unpack);
  }
  ir_node_destroy(node);
  return true;
}

static bool explicit_defaults(IrNode *node) {
  const IrSchema *schema = node->schema;
  if (!schema || schema->varargs || ir_n_inputs(node) >= schema->n_args)
    return false;
  bool changed = false;
  for (guint k = ir_n_inputs(node); k < schema->n_args; k++) {
    IrNode *c = ir_default_constant_new(ir_node_graph(node), &schema->args[k]);
    if (!c)
      break; /* resolution never leaves out an argument without a default */
    ir_node_insert_before(c, node);
    ir_node_add_input(node, ir_output(c, 0));
    changed = true;
  }
  return changed;
}

/* Walks with the predecessor as anchor: the chunk rewrite destroys the ListUnpack nodes that
 * follow the current node, so the next node is read only after the rewrite (revisiting the
 * nodes a rewrite inserted is harmless: no rule applies to them). */
static bool canonicalize_block(IrBlock *block) {
  bool changed = false;
  for (IrNode *n = block->param->next; n != block->ret;) {
    IrNode *prev = n->prev;
    for (guint b = 0; b < ir_n_blocks(n); b++)
      changed |= canonicalize_block(ir_block(n, b));
    changed |= explicit_defaults(n);
    bool rewritten = false;
    switch (n->kind) {
    case IR_ATEN_ADD:
    case IR_ATEN_SUB:
    case IR_ATEN_MUL:
    case IR_ATEN_DIV: rewritten = scalar_other(n); break;
    case IR_ATEN_CHUNK: rewritten = constant_chunk(n); break;
    default: break;
    }
    changed |= rewritten;
    n = rewritten ? prev->next : n->next;
  }
  return changed;
}

bool pass_canonicalize_ops(IrGraph *graph) {
  return canonicalize_block(graph->block);
}
