/* pass_lower_simple_tuples: prim::TupleUnpack / prim::TupleIndex (constant index) reading a
 * prim::TupleConstruct directly are short-circuited to the construct's inputs. */
#include "passes/pass_util.h"
#include "passes/passes.h"

/* Algorithm: PyTorch's passes/lower_tuples.cpp, LowerSimpleTuples (the non-forcing variant):
 * only construct/unpack pairs are removed; tuples that cross blocks, graph inputs or outputs
 * stay. The unpack/index node is destroyed once its outputs have no uses, and a construct
 * left without uses goes with it (the reference leaves both to the next DCE; doing it here
 * keeps each stage's drawing honest about what the pass achieved). A negative index counts
 * from the end; an index out of range is left alone (the interpreter reports it). */

static bool remove_construct_if_dead(IrNode *construct) {
  if (ir_value_has_uses(ir_output(construct, 0)))
    return false;
  ir_node_destroy(construct);
  return true;
}

static bool lower_node(IrNode *node) {
  if (node->kind != IR_PRIM_TUPLE_UNPACK && node->kind != IR_PRIM_TUPLE_INDEX)
    return false;
  IrNode *construct = ir_input(node, 0)->node;
  if (construct->kind != IR_PRIM_TUPLE_CONSTRUCT)
    return false;
  guint arity = ir_n_inputs(construct);
  if (node->kind == IR_PRIM_TUPLE_UNPACK) {
    PASS_INVARIANT(ir_n_outputs(node) == arity, "pass_lower_simple_tuples",
                   "TupleUnpack has one output per element of its tuple");
    for (guint i = 0; i < arity; i++)
      ir_value_replace_all_uses_with(ir_output(node, i), ir_input(construct, i));
  } else {
    gint64 index;
    if (ir_node_has_attr(node, "index"))
      index = ir_node_attr_i(node, "index");
    else if (ir_n_inputs(node) < 2 || !pu_constant_int(ir_input(node, 1), &index))
      return false;
    if (index < 0)
      index += arity;
    if (index < 0 || index >= (gint64)arity)
      return false;
    ir_value_replace_all_uses_with(ir_output(node, 0), ir_input(construct, (guint)index));
  }
  ir_node_destroy(node);
  remove_construct_if_dead(construct);
  return true;
}

static bool lower_block(IrBlock *block) {
  bool changed = false;
  IR_FOR_EACH_NODE(n, block) {
    changed |= lower_node(n);
    if (n->destroyed)
      continue;
    for (guint b = 0; b < ir_n_blocks(n); b++)
      changed |= lower_block(ir_block(n, b));
  }
  return changed;
}

bool pass_lower_simple_tuples(IrGraph *graph) {
  return lower_block(graph->block);
}
