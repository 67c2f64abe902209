/* pass_remove_expands: drops aten::expand nodes whose `implicit` argument is the constant
 * true (broadcasts the tracer made explicit; the ops broadcast by themselves). */
#include "passes/pass_util.h"
#include "passes/passes.h"

/* Algorithm: PyTorch's passes/remove_expands.cpp: the output's uses read `self` instead and
 * the node is destroyed; an omitted `implicit` is its default, False, and stays. */

static bool remove_in_block(IrBlock *block) {
  bool changed = false;
  IR_FOR_EACH_NODE(n, block) {
    for (guint b = 0; b < ir_n_blocks(n); b++)
      changed |= remove_in_block(ir_block(n, b));
    bool implicit;
    if (n->kind != IR_ATEN_EXPAND || !pu_arg_bool(n, "implicit", &implicit) || !implicit)
      continue;
    ir_value_replace_all_uses_with(ir_output(n, 0), ir_input(n, 0));
    ir_node_destroy(n);
    changed = true;
  }
  return changed;
}

bool pass_remove_expands(IrGraph *graph) {
  return remove_in_block(graph->block);
}
