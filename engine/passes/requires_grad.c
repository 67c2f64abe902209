/* pass_propagate_requires_grad: sets requires_grad on every tensor-typed value from the graph
 * inputs forward, through blocks, and around loops to a fixpoint. */
#include "passes/pass_util.h"
#include "passes/passes.h"

/* Algorithm: PyTorch's passes/requires_grad_analysis.cpp.
 * - A value "requires grad" when its type is a defined tensor whose requires_grad is not
 *   known to be false (unknown counts as true, as the reference's conservative default).
 * - Simple nodes: comparisons (gt/lt/ge/le/eq/ne) -> false; type_as -> as its self input;
 *   otherwise an output requires grad iff some input does and the output's dtype is
 *   floating point (unknown dtype: floating is possible, so it follows the inputs).
 * - prim::If: propagate into both branches; output i requires grad iff either branch's
 *   output i does.
 * - prim::Loop: carried body inputs start from the loop's initial values, are OR-ed with the
 *   body outputs, and the body is re-propagated until neither changes; loop outputs are the
 *   OR of both.
 * - prim::GradOf: its block is propagated; output i follows the block's output i.
 * - A Tensor[] value requires grad when one of its elements may: for a list made by a node
 *   without blocks (prim::ListConstruct, split, unbind) and only read, when one of that node's
 *   inputs does; for any other list (a graph or block input, one that is appended to),
 *   always, as the reference's Type::requires_grad of a list of tensors.
 * - A dict, tuple or optional requires grad when a tensor it holds may (a dict of tensors
 *   always: its values' types do not say).
 * Only tensor types are touched (ir_type_with_requires_grad); the pass reports a change iff
 * some value's type changed. */

static bool propagate_block(IrBlock *block, bool *changed);

/* The reference's Type::requires_grad for containers other than a Tensor[]: a dict, tuple or
 * optional holding a tensor that may require grad. A dict's values are plain Tensor (nothing
 * tracks what was stored), so a Dict(K, Tensor) always may. */
static bool type_may_require_grad(const IrType *t) {
  switch (t->kind) {
  case IR_TYPE_DICT: return type_may_require_grad(t->elems[1]);
  case IR_TYPE_TUPLE:
    for (guint i = 0; i < t->n_elems; i++)
      if (type_may_require_grad(t->elems[i]))
        return true;
    return false;
  case IR_TYPE_OPTIONAL:
  case IR_TYPE_LIST: return type_may_require_grad(t->elem);
  default: return ir_type_is_tensor(t) && !t->undefined && t->requires_grad != IR_NO;
  }
}

static bool requires_grad(const IrValue *v) {
  const IrType *t = v->type;
  if (ir_type_is_tensor_list(t)) {
    const IrNode *producer = v->node;
    if (producer->kind == IR_PRIM_PARAM || ir_n_blocks(producer) > 0 || !pu_list_is_read_only(v))
      return true;
    for (guint i = 0; i < ir_n_inputs(producer); i++)
      if (requires_grad(ir_input(producer, i)))
        return true;
    return false;
  }
  return type_may_require_grad(t);
}

static void set_requires_grad(IrValue *v, bool rg, bool *changed) {
  if (!ir_type_is_tensor(v->type))
    return;
  const IrType *t = ir_type_with_requires_grad(v->type, rg ? IR_YES : IR_NO);
  if (t != v->type) {
    ir_value_set_type(v, t);
    *changed = true;
  }
}

static bool is_comparison(IrOpKind k) {
  return k == IR_ATEN_GT || k == IR_ATEN_LT || k == IR_ATEN_GE || k == IR_ATEN_LE ||
         k == IR_ATEN_EQ || k == IR_ATEN_NE;
}

static void simple_node(IrNode *node, bool *changed) {
  if (is_comparison(node->kind)) {
    for (guint i = 0; i < ir_n_outputs(node); i++)
      set_requires_grad(ir_output(node, i), false, changed);
    return;
  }
  if (node->kind == IR_ATEN_TYPE_AS) {
    set_requires_grad(ir_output(node, 0), requires_grad(ir_input(node, 0)), changed);
    return;
  }
  bool any = false;
  for (guint i = 0; i < ir_n_inputs(node); i++)
    any |= requires_grad(ir_input(node, i));
  for (guint i = 0; i < ir_n_outputs(node); i++) {
    IrValue *out = ir_output(node, i);
    if (!ir_type_is_tensor(out->type) || out->type->undefined)
      continue;
    bool floating = !out->type->has_dtype || ir_type_is_float_dtype(out->type->dtype);
    set_requires_grad(out, any && floating, changed);
  }
}

static void if_node(IrNode *node, bool *changed) {
  propagate_block(ir_block(node, 0), changed);
  propagate_block(ir_block(node, 1), changed);
  for (guint i = 0; i < ir_n_outputs(node); i++) {
    bool rg = requires_grad(g_ptr_array_index(ir_block_outputs(ir_block(node, 0)), i)) ||
              requires_grad(g_ptr_array_index(ir_block_outputs(ir_block(node, 1)), i));
    set_requires_grad(ir_output(node, i), rg, changed);
  }
}

/* The iteration may flip a body type and flip it back: only the body's final types against
 * its types on entry say whether the pass changed it. */
static void loop_node(IrNode *node, bool *changed) {
  IrBlock *body = ir_block(node, 0);
  guint n = ir_n_outputs(node);
  GArray *before = pu_snapshot_block_types(body);
  bool transient = false;
  bool *in_rg = g_new0(bool, n + 1), *out_rg = g_new0(bool, n + 1);
  for (guint i = 0; i < n; i++)
    in_rg[i] = requires_grad(ir_input(node, i + 2));
  for (;;) {
    for (guint i = 0; i < n; i++)
      set_requires_grad(g_ptr_array_index(ir_block_inputs(body), i + 1), in_rg[i] || out_rg[i],
                        &transient);
    propagate_block(body, &transient);
    bool moved = false;
    for (guint i = 0; i < n; i++) {
      bool o = requires_grad(g_ptr_array_index(ir_block_outputs(body), i + 1));
      bool next_in = in_rg[i] || out_rg[i];
      moved |= o != out_rg[i] || next_in != in_rg[i];
      out_rg[i] = o;
      in_rg[i] = next_in;
    }
    if (!moved)
      break;
  }
  if (pu_snapshot_changed_free(before))
    *changed = true;
  for (guint i = 0; i < n; i++)
    set_requires_grad(ir_output(node, i), in_rg[i] || out_rg[i], changed);
  g_free(in_rg);
  g_free(out_rg);
}

static bool propagate_block(IrBlock *block, bool *changed) {
  IR_FOR_EACH_NODE(n, block) {
    if (n->kind == IR_PRIM_IF) {
      if_node(n, changed);
    } else if (n->kind == IR_PRIM_LOOP) {
      loop_node(n, changed);
    } else if (n->kind == IR_PRIM_GRAD_OF) {
      IrBlock *body = ir_block(n, 0);
      propagate_block(body, changed);
      for (guint i = 0; i < ir_n_outputs(n) && i < ir_block_outputs(body)->len; i++)
        set_requires_grad(ir_output(n, i),
                          requires_grad(g_ptr_array_index(ir_block_outputs(body), i)), changed);
    } else {
      for (guint b = 0; b < ir_n_blocks(n); b++)
        propagate_block(ir_block(n, b), changed);
      simple_node(n, changed);
    }
  }
  return *changed;
}

bool pass_propagate_requires_grad(IrGraph *graph) {
  bool changed = false;
  return propagate_block(graph->block, &changed);
}
