/* pass_constant_propagation: folds deterministic side-effect-free nodes whose inputs are all
 * constants into constants (non-tensor results only), inlines prim::If on a constant
 * condition, removes loops that cannot run, decides __is__/__isnot__ on None statically.
 * pass_constant_propagation_immutable: the same for nodes of immutable types only (below). */
#include "passes/pass_util.h"
#include "passes/passes.h"

#include "runtime/kernels.h"

/* Algorithm: PyTorch's constant_propagation.cpp (2019). Nodes are visited in order, so a
 * folded value is a constant by the time its users are visited. A schema node runs its
 * op-table kernel on the constant inputs (omitted trailing arguments filled from their
 * defaults); a kernel error leaves the node alone (PyTorch catches and skips). Deviation,
 * deliberate: PyTorch also folds tensor-producing ops into tensor constants; we fold only
 * results that have a readable constant form (int, float, bool, str, int[], None) so that
 * optimized graphs stay readable and tensor work stays visible. A folded None keeps the
 * original output's type (e.g. `int[]?` from _size_if_not_equal), as PyTorch does.
 * prim::If with a constant condition: propagate into the taken block, move its nodes before
 * the If, replace the If's outputs by the block's outputs. prim::Loop whose trip count is a
 * constant <= 0 or whose start condition is constant false: its outputs become its initial
 * carried values and the loop goes. Other Ifs lose the outputs both branches give alike, other
 * loops the carried values their body passes through. ListConstruct of int constants ->
 * int[] constant; ListUnpack of an int[] constant -> int constants. */

/* immutable_only: PyTorch's ConstantPropagationImmutableTypes, which the script frontend runs
 * after emission as PyTorch's compiler does: only nodes whose inputs and outputs are all of
 * immutable types (no lists, dicts or tensors) fold, and None checks are left alone; Ifs on
 * constants still inline and loops that cannot run still go. */
static bool propagate_block(IrBlock *block, bool immutable_only);

static bool immutable_type(const IrType *t) {
  switch (t->kind) {
  case IR_TYPE_INT:
  case IR_TYPE_FLOAT:
  case IR_TYPE_BOOL:
  case IR_TYPE_NUMBER:
  case IR_TYPE_STR:
  case IR_TYPE_NONE: return true;
  case IR_TYPE_OPTIONAL: return immutable_type(t->elem);
  case IR_TYPE_TUPLE:
    for (guint i = 0; i < t->n_elems; i++)
      if (!immutable_type(t->elems[i]))
        return false;
    return true;
  default: return false;
  }
}

static bool all_values_immutable(const IrNode *node) {
  for (guint i = 0; i < ir_n_inputs(node); i++)
    if (!immutable_type(ir_input(node, i)->type))
      return false;
  for (guint i = 0; i < ir_n_outputs(node); i++)
    if (!immutable_type(ir_output(node, i)->type))
      return false;
  return true;
}

static bool all_inputs_constant(const IrNode *node) {
  for (guint i = 0; i < ir_n_inputs(node); i++) {
    if (!pu_is_constant(ir_input(node, i)))
      return false;
  }
  return true;
}

static bool default_to_rt(const IrArgument *arg, RtValue *out) {
  switch (arg->def.kind) {
  case IR_DEFAULT_NONE: *out = rt_none(); return true;
  case IR_DEFAULT_INT:
    *out = arg->type->kind == IR_TYPE_BOOL ? rt_bool(arg->def.i != 0) : rt_int(arg->def.i);
    return true;
  case IR_DEFAULT_FLOAT: *out = rt_double(arg->def.f); return true;
  case IR_DEFAULT_INT_LIST: *out = rt_int_list(arg->def.ints, arg->def.n_ints); return true;
  case IR_DEFAULT_STR: *out = rt_str(arg->def.s); return true;
  case IR_DEFAULT_NONE_GIVEN: break;
  }
  return false;
}

/* A result with a constant form: a scalar, a string, None or an int[] (maybe optional). */
static bool output_foldable(const IrValue *v) {
  const IrType *t = v->type->kind == IR_TYPE_OPTIONAL ? v->type->elem : v->type;
  if (t->kind == IR_TYPE_LIST)
    return t->elem->kind == IR_TYPE_INT;
  return t->kind != IR_TYPE_TUPLE && immutable_type(t);
}

/* Replaces each output by a constant made from outs[i]; false (and nothing changed) when
 * some result has no constant form. */
static bool replace_with_constants(IrNode *node, RtValue *outs) {
  guint n = ir_n_outputs(node);
  for (guint i = 0; i < n; i++) {
    RtValue v = outs[i];
    bool ok = v.tag == RT_NONE || v.tag == RT_INT || v.tag == RT_BOOL || v.tag == RT_DOUBLE ||
              v.tag == RT_STR;
    if (v.tag == RT_LIST) {
      ok = true;
      for (guint k = 0; k < v.u.seq->len; k++)
        ok &= v.u.seq->items[k].tag == RT_INT;
    }
    if (!ok)
      return false;
  }
  for (guint i = 0; i < n; i++) {
    IrValue *old = ir_output(node, i);
    IrValue *c = pu_insert_constant_before(node, outs[i], old->type);
    PASS_INVARIANT(c != NULL, "pass_constant_propagation", "a checked result has a constant form");
    ir_value_replace_all_uses_with(old, c);
  }
  ir_node_destroy(node);
  return true;
}

static bool fold_schema_node(IrNode *node) {
  const IrSchema *schema = node->schema;
  for (guint i = 0; i < ir_n_outputs(node); i++) {
    if (!output_foldable(ir_output(node, i)))
      return false;
  }
  RtKernelFn kernel = rt_op_kernel(schema);
  if (!kernel)
    return false;
  guint n_args = schema->n_args;
  RtValue *args = g_new0(RtValue, n_args ? n_args : 1);
  guint filled = 0;
  bool ok = true;
  for (; filled < n_args && ok; filled++) {
    if (filled < ir_n_inputs(node))
      ok = pu_constant_to_rt(ir_input(node, filled), &args[filled]);
    else
      ok = default_to_rt(&schema->args[filled], &args[filled]);
    if (!ok)
      break;
  }
  bool changed = false;
  if (ok) {
    guint n_outs = ir_n_outputs(node);
    RtValue *outs = g_new0(RtValue, n_outs ? n_outs : 1);
    GError *error = NULL;
    if (kernel(schema, node, args, n_args, outs, n_outs, &error)) {
      changed = replace_with_constants(node, outs);
      for (guint i = 0; i < n_outs; i++)
        rt_value_unref(outs[i]);
    } else {
      g_clear_error(&error);
    }
    g_free(outs);
  }
  for (guint i = 0; i < filled; i++)
    rt_value_unref(args[i]);
  g_free(args);
  return changed;
}

/* __is__ / __isnot__: None against None is decided, and None against a value whose type
 * cannot be None (PyTorch's mustBeNone / mustNotBeNone). */
static bool fold_is(IrNode *node) {
  IrValue *a = ir_input(node, 0), *b = ir_input(node, 1);
  bool is_result;
  if (pu_must_be_none(a) && pu_must_be_none(b))
    is_result = true;
  else if ((pu_must_be_none(a) && pu_must_not_be_none(b)) ||
           (pu_must_be_none(b) && pu_must_not_be_none(a)))
    is_result = false;
  else
    return false;
  bool value = node->kind == IR_ATEN___IS__ ? is_result : !is_result;
  ir_value_replace_all_uses_with(ir_output(node, 0), pu_insert_bool_before(node, value));
  ir_node_destroy(node);
  return true;
}

static bool fold_list_construct(IrNode *node) {
  guint n = ir_n_inputs(node);
  if (ir_output(node, 0)->type->kind != IR_TYPE_LIST ||
      ir_output(node, 0)->type->elem->kind != IR_TYPE_INT)
    return false;
  gint64 *items = g_new(gint64, n ? n : 1);
  for (guint i = 0; i < n; i++) {
    if (!pu_constant_int(ir_input(node, i), &items[i])) {
      g_free(items);
      return false;
    }
  }
  ir_value_replace_all_uses_with(ir_output(node, 0), pu_insert_int_list_before(node, items, n));
  ir_node_destroy(node);
  g_free(items);
  return true;
}

static bool fold_list_unpack(IrNode *node) {
  const gint64 *items;
  guint n;
  if (!pu_constant_int_list(ir_input(node, 0), &items, &n) || n != ir_n_outputs(node))
    return false;
  for (guint i = 0; i < n; i++)
    ir_value_replace_all_uses_with(ir_output(node, i), pu_insert_int_before(node, items[i]));
  ir_node_destroy(node);
  return true;
}

static bool inline_if(IrNode *node, bool immutable_only) {
  bool cond;
  if (!pu_constant_bool(ir_input(node, 0), &cond))
    return false;
  IrBlock *taken = ir_block(node, cond ? 0 : 1);
  propagate_block(taken, immutable_only);
  pu_move_block_nodes_before(taken, node);
  for (guint i = 0; i < ir_n_outputs(node); i++)
    ir_value_replace_all_uses_with(ir_output(node, i),
                                   g_ptr_array_index(ir_block_outputs(taken), i));
  ir_node_destroy(node);
  return true;
}

static bool remove_loop_that_cannot_run(IrNode *node) {
  gint64 trip;
  bool start;
  bool never = (pu_constant_int(ir_input(node, 0), &trip) && trip <= 0) ||
               (pu_constant_bool(ir_input(node, 1), &start) && !start);
  if (!never)
    return false;
  for (guint i = 0; i < ir_n_outputs(node); i++)
    ir_value_replace_all_uses_with(ir_output(node, i), ir_input(node, i + 2));
  ir_node_destroy(node);
  return true;
}

/* Outputs the If does not choose: the same value from both branches, or equal constants
 * (then a fresh copy before the If), read directly (PyTorch's removeExtraIfOutputs). */
static bool remove_extra_if_outputs(IrNode *node) {
  bool changed = false;
  IrBlock *then_block = ir_block(node, 0), *else_block = ir_block(node, 1);
  for (guint i = 0; i < ir_n_outputs(node);) {
    IrValue *tv = g_ptr_array_index(ir_block_outputs(then_block), i);
    IrValue *ev = g_ptr_array_index(ir_block_outputs(else_block), i);
    IrValue *same = NULL;
    if (tv == ev) {
      same = tv;
    } else if (tv->node->kind == IR_PRIM_CONSTANT && ev->node->kind == IR_PRIM_CONSTANT &&
               tv->type == ev->type && pu_attrs_equal(tv->node, ev->node)) {
      IrNode *copy = ir_node_create(ir_node_graph(node), IR_PRIM_CONSTANT, 1);
      ir_value_set_type(ir_output(copy, 0), tv->type);
      ir_node_copy_attrs(copy, tv->node);
      ir_node_insert_before(copy, node);
      same = ir_output(copy, 0);
    }
    if (same == NULL) {
      i++;
      continue;
    }
    ir_value_replace_all_uses_with(ir_output(node, i), same);
    ir_block_erase_output(then_block, i);
    ir_block_erase_output(else_block, i);
    ir_node_erase_output(node, i);
    changed = true;
  }
  return changed;
}

/* Carried values the body passes through unchanged are the loop's inputs (PyTorch's
 * removeExtraLoopOutputs). */
static bool remove_extra_loop_outputs(IrNode *node) {
  bool changed = false;
  IrBlock *body = ir_block(node, 0);
  for (guint i = ir_n_outputs(node); i-- > 0;) {
    IrValue *in = g_ptr_array_index(ir_block_inputs(body), i + 1);
    if (g_ptr_array_index(ir_block_outputs(body), i + 1) != in)
      continue;
    IrValue *initial = ir_input(node, i + 2);
    ir_value_replace_all_uses_with(ir_output(node, i), initial);
    ir_value_replace_all_uses_with(in, initial);
    pu_loop_remove_carried(node, i);
    changed = true;
  }
  return changed;
}

static bool propagate_node(IrNode *node, bool immutable_only) {
  switch (node->kind) {
  case IR_PRIM_IF:
    if (inline_if(node, immutable_only))
      return true;
    break;
  case IR_PRIM_LOOP:
    if (remove_loop_that_cannot_run(node))
      return true;
    break;
  case IR_ATEN___IS__:
  case IR_ATEN___ISNOT__:
    if (!immutable_only && fold_is(node))
      return true;
    break;
  default: break;
  }
  bool changed = false;
  for (guint b = 0; b < ir_n_blocks(node); b++)
    changed |= propagate_block(ir_block(node, b), immutable_only);
  if (node->kind == IR_PRIM_IF)
    changed |= remove_extra_if_outputs(node);
  if (node->kind == IR_PRIM_LOOP)
    changed |= remove_extra_loop_outputs(node);
  if (ir_n_blocks(node) > 0 || pu_node_has_side_effects(node) ||
      ir_node_is_nondeterministic(node) || !all_inputs_constant(node))
    return changed;
  if (immutable_only)
    return node->schema && ir_n_outputs(node) > 0 && all_values_immutable(node) &&
           fold_schema_node(node);
  /* A list some node may mutate is not a constant, nor is what is read from it. */
  if (pu_node_touches_list(node) && pu_graph_mutates_lists(ir_node_graph(node)))
    return changed;
  if (node->kind == IR_PRIM_LIST_CONSTRUCT)
    return fold_list_construct(node);
  if (node->kind == IR_PRIM_LIST_UNPACK)
    return fold_list_unpack(node);
  if (node->schema && ir_n_outputs(node) > 0)
    return fold_schema_node(node);
  return false;
}

static bool propagate_block(IrBlock *block, bool immutable_only) {
  bool changed = false;
  IR_FOR_EACH_NODE(n, block) {
    changed |= propagate_node(n, immutable_only);
  }
  return changed;
}

bool pass_constant_propagation(IrGraph *graph) {
  return propagate_block(graph->block, false);
}

bool pass_constant_propagation_immutable(IrGraph *graph) {
  return propagate_block(graph->block, true);
}
