/* pass_lower_grad_of: every remaining prim::GradOf becomes
 * `%c = prim::AutogradAnyNonZero(inputs)` feeding a prim::If whose then-block is the GradOf's
 * body and whose else-block returns one AutogradZero per output (PyTorch's LowerGradOf).
 * Recurses into nested blocks. */
#include "autodiff/autodiff.h"

static bool lower_block(IrGraph *graph, IrBlock *block) {
  bool changed = false;
  IR_FOR_EACH_NODE(n, block) {
    for (guint b = 0; b < ir_n_blocks(n); b++)
      changed |= lower_block(graph, ir_block(n, b));
    if (n->kind != IR_PRIM_GRAD_OF)
      continue;
    IrNode *any = ir_node_create(graph, IR_PRIM_AUTOGRAD_ANY_NON_ZERO, 1);
    for (guint i = 0; i < ir_n_inputs(n); i++)
      ir_node_add_input(any, ir_input(n, i));
    ir_value_set_type(ir_output(any, 0), ir_type_bool());
    ir_node_insert_before(any, n);

    IrNode *if_node = ir_node_create(graph, IR_PRIM_IF, 0);
    ir_node_add_input(if_node, ir_output(any, 0));
    ir_node_insert_before(if_node, n);
    IrBlock *then_block = ir_node_add_block(if_node);
    IrBlock *else_block = ir_node_add_block(if_node);
    IrBlock *body = ir_block(n, 0);
    IR_FOR_EACH_NODE(m, body) {
      ir_node_move_before(m, then_block->ret);
    }
    IrNode *zero = ir_node_create(graph, IR_PRIM_AUTOGRAD_ZERO, 1);
    ir_node_append_to(zero, else_block);
    for (guint i = 0; i < ir_n_outputs(n); i++) {
      ir_block_add_output(then_block, ir_input(body->ret, i));
      ir_block_add_output(else_block, ir_output(zero, 0));
      IrValue *out = ir_node_add_output(if_node, ir_output(n, i)->type);
      ir_value_replace_all_uses_with(ir_output(n, i), out);
    }
    while (ir_n_inputs(body->ret) > 0)
      ir_block_erase_output(body, ir_n_inputs(body->ret) - 1);
    ir_node_destroy(n);
    changed = true;
  }
  return changed;
}

bool pass_lower_grad_of(IrGraph *graph) {
  return lower_block(graph, graph->block);
}
