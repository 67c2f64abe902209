/* pass_peephole: local algebraic rewrites of PyTorch's 2019 peephole (the _grad_sum_to_size
 * rules of #18697, expand/t/type_as/add/sub/mul/div identities, constant aten::size of
 * complete tensors, prim::If outputs that do not depend on the branch, __is__ on None). */
#include "passes/pass_util.h"
#include "passes/passes.h"

/* Algorithm: PyTorch's passes/peephole.cpp. One walk over every block; rewrites only
 * redirect uses (and insert constants); the nodes left without uses are removed by the next
 * dead code elimination, as in the reference. A rule that would redirect nothing (no uses)
 * does not count as a change.
 *  - _grad_sum_to_size(x, None) -> x (the size must be None: type NoneType or a None
 *    constant). Otherwise each user that is itself _grad_sum_to_size(this, s2) with s2 of
 *    type int[] (a concrete list, not int[]?) reads x instead (the outer size wins).
 *  - expand(x, size) with x complete and size a constant list equal to x's sizes -> x.
 *  - t(t(x)) -> x.
 *  - type_as(x, y) with dtype and device of both known and equal -> x.
 *  - add/sub(x, 0, alpha=1) (scalar overload), mul/div(x, 1) (scalar overload) -> x, as
 *    PyTorch's 2019 peephole does whatever x's type; except where x is known to be an
 *    integral or bool tensor, whose dtype the scalar could promote.
 *  - size(x) with every size of x known -> int[] constant.
 *  - prim::If output i whose two branch outputs are the same value -> that value; a bool
 *    output that is true in the then branch and false in the else branch -> the condition.
 *  - __is__/__isnot__ of None against a value that must (not) be None -> bool constant. */

static bool redirect(IrValue *from, IrValue *to) {
  if (from == to || !ir_value_has_uses(from))
    return false;
  ir_value_replace_all_uses_with(from, to);
  return true;
}

static bool grad_sum_to_size(IrNode *node) {
  IrValue *x = ir_input(node, 0), *size = ir_input(node, 1), *out = ir_output(node, 0);
  if (pu_must_be_none(size))
    return redirect(out, x);
  bool changed = false;
  GArray *uses = g_array_copy(out->uses);
  for (guint i = 0; i < uses->len; i++) {
    IrUse u = g_array_index(uses, IrUse, i);
    if (u.user->kind != IR_ATEN_GRAD_SUM_TO_SIZE || u.index != 0)
      continue;
    const IrType *s2 = ir_input(u.user, 1)->type;
    if (s2->kind == IR_TYPE_LIST && s2->elem->kind == IR_TYPE_INT) {
      ir_node_replace_input(u.user, 0, x);
      changed = true;
    }
  }
  g_array_unref(uses);
  return changed;
}

static bool complete_sizes(const IrType *t) {
  if (!ir_type_is_tensor(t) || t->undefined || t->rank < 0 || !t->sizes)
    return false;
  for (int d = 0; d < t->rank; d++) {
    if (t->sizes[d] == IR_SIZE_UNKNOWN)
      return false;
  }
  return true;
}

static bool expand_same_size(IrNode *node) {
  const IrType *t = ir_input(node, 0)->type;
  const gint64 *size;
  guint n;
  if (!complete_sizes(t) || !pu_constant_int_list(ir_input(node, 1), &size, &n) ||
      n != (guint)t->rank)
    return false;
  for (guint d = 0; d < n; d++) {
    if (size[d] != t->sizes[d])
      return false;
  }
  return redirect(ir_output(node, 0), ir_input(node, 0));
}

static bool type_as_same(IrNode *node) {
  const IrType *a = ir_input(node, 0)->type, *b = ir_input(node, 1)->type;
  if (!ir_type_is_tensor(a) || !ir_type_is_tensor(b) || !a->has_dtype || !b->has_dtype ||
      a->device < 0 || b->device < 0 || a->dtype != b->dtype || a->device != b->device)
    return false;
  return redirect(ir_output(node, 0), ir_input(node, 0));
}

static bool identity_op(IrNode *node, const char *arg, double neutral) {
  double v, alpha = 1;
  if (!pu_arg_number(node, arg, &v) || v != neutral)
    return false;
  if (pu_arg_index(node, "alpha") >= 0 && (!pu_arg_number(node, "alpha", &alpha) || alpha != 1))
    return false;
  IrValue *self = ir_input(node, 0), *out = ir_output(node, 0);
  if (self->type->kind == IR_TYPE_TENSOR && self->type->has_dtype &&
      !ir_type_is_float_dtype(self->type->dtype))
    return false;
  return redirect(out, self);
}

static bool constant_size(IrNode *node) {
  const IrType *t = ir_input(node, 0)->type;
  if (!complete_sizes(t) || !ir_value_has_uses(ir_output(node, 0)))
    return false;
  gint64 sizes[IR_MAX_RANK];
  for (int d = 0; d < t->rank; d++)
    sizes[d] = t->sizes[d];
  return redirect(ir_output(node, 0), pu_insert_int_list_before(node, sizes, (guint)t->rank));
}

static bool if_outputs(IrNode *node) {
  bool changed = false;
  IrBlock *then_b = ir_block(node, 0), *else_b = ir_block(node, 1);
  for (guint i = 0; i < ir_n_outputs(node); i++) {
    IrValue *out = ir_output(node, i);
    IrValue *t = g_ptr_array_index(ir_block_outputs(then_b), i);
    IrValue *e = g_ptr_array_index(ir_block_outputs(else_b), i);
    if (t == e) {
      changed |= redirect(out, t);
      continue;
    }
    bool tv, ev;
    if (out->type->kind == IR_TYPE_BOOL && pu_constant_bool(t, &tv) && tv &&
        pu_constant_bool(e, &ev) && !ev)
      changed |= redirect(out, ir_input(node, 0));
  }
  return changed;
}

static bool is_none_check(IrNode *node) {
  for (guint k = 0; k < 2; k++) {
    if (pu_must_be_none(ir_input(node, k)) && pu_must_not_be_none(ir_input(node, 1 - k))) {
      if (!ir_value_has_uses(ir_output(node, 0)))
        return false;
      bool v = node->kind == IR_ATEN___ISNOT__;
      return redirect(ir_output(node, 0), pu_insert_bool_before(node, v));
    }
  }
  return false;
}

static bool peephole_block(IrBlock *block);

static bool peephole_node(IrNode *node) {
  bool changed = false;
  for (guint b = 0; b < ir_n_blocks(node); b++)
    changed |= peephole_block(ir_block(node, b));
  switch (node->kind) {
  case IR_ATEN_GRAD_SUM_TO_SIZE: return changed | grad_sum_to_size(node);
  case IR_ATEN_EXPAND: return changed | expand_same_size(node);
  case IR_ATEN_T: {
    IrNode *inner = ir_input(node, 0)->node;
    if (inner->kind == IR_ATEN_T)
      changed |= redirect(ir_output(node, 0), ir_input(inner, 0));
    return changed;
  }
  case IR_ATEN_TYPE_AS: return changed | type_as_same(node);
  case IR_ATEN_ADD:
  case IR_ATEN_SUB:
    if (pu_node_is(node, node->kind, "Scalar"))
      changed |= identity_op(node, "other", 0);
    return changed;
  case IR_ATEN_MUL:
  case IR_ATEN_DIV:
    if (pu_node_is(node, node->kind, "Scalar"))
      changed |= identity_op(node, "other", 1);
    return changed;
  case IR_ATEN_SIZE:
    if (pu_node_is(node, IR_ATEN_SIZE, ""))
      changed |= constant_size(node);
    return changed;
  case IR_PRIM_IF: return changed | if_outputs(node);
  case IR_ATEN___IS__:
  case IR_ATEN___ISNOT__: return changed | is_none_check(node);
  default: return changed;
  }
}

static bool peephole_block(IrBlock *block) {
  bool changed = false;
  IR_FOR_EACH_NODE(n, block) {
    changed |= peephole_node(n);
  }
  return changed;
}

bool pass_peephole(IrGraph *graph) {
  return peephole_block(graph->block);
}
