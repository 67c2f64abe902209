/* pass_eliminate_dead_code: removes side-effect-free nodes whose outputs are unused, unused
 * prim::If outputs, loop-carried values that nothing reads, and loops left with an empty body;
 * recurses into blocks. */
#include "passes/pass_util.h"
#include "passes/passes.h"

/* Algorithm (PyTorch's dead_code_elimination.cpp, simplified to our side-effect model):
 * one reverse sweep per block is exact, since every use of a node's output is a later node
 * of the same block, a node nested in a later node, or the block's Return. Before a node
 * with blocks is judged, its own dead outputs are dropped and its blocks swept. */

static bool sweep_block(IrBlock *block);

static bool any_output_used(const IrNode *node) {
  for (guint i = 0; i < ir_n_outputs(node); i++) {
    if (ir_value_has_uses(ir_output(node, i)))
      return true;
  }
  return false;
}

/* prim::If output i unused: drop it and the matching output of both branches. */
static bool remove_dead_if_outputs(IrNode *node) {
  bool changed = false;
  for (guint i = ir_n_outputs(node); i-- > 0;) {
    if (ir_value_has_uses(ir_output(node, i)))
      continue;
    for (guint b = 0; b < ir_n_blocks(node); b++)
      ir_block_erase_output(ir_block(node, b), i);
    ir_node_erase_output(node, i);
    changed = true;
  }
  return changed;
}

/* prim::Loop(trip, cond, carried...) with body(counter, carried...) -> (cond, carried...):
 * carried value i is dead when the loop output i and the body input i + 1 are both unused
 * (the body only writes it). Then the output, body input, body output and loop input go. */
static bool remove_dead_loop_outputs(IrNode *node) {
  IrBlock *body = ir_block(node, 0);
  bool changed = false;
  for (guint i = ir_n_outputs(node); i-- > 0;) {
    IrValue *body_in = g_ptr_array_index(ir_block_inputs(body), i + 1);
    if (ir_value_has_uses(ir_output(node, i)) || ir_value_has_uses(body_in))
      continue;
    pu_loop_remove_carried(node, i);
    changed = true;
  }
  return changed;
}

/* PyTorch keeps a loop whose body still computes something after the sweep (a value carried
 * into the next iteration, the continue condition), even when nothing reads its results: a
 * node containing a live node is live. Only a loop left empty goes. */
static bool loop_does_work(const IrNode *node) {
  if (node->kind != IR_PRIM_LOOP)
    return false;
  const IrBlock *body = ir_block(node, 0);
  return body->param->next != body->ret;
}

static bool sweep_node_blocks(IrNode *node) {
  bool changed = false;
  if (node->kind == IR_PRIM_IF)
    changed |= remove_dead_if_outputs(node);
  if (node->kind == IR_PRIM_LOOP) {
    /* Dropping a carried value can make body nodes dead, which can free another carried
     * value's body input: iterate to a fixpoint. */
    bool again = true;
    while (again) {
      again = sweep_block(ir_block(node, 0));
      again |= remove_dead_loop_outputs(node);
      changed |= again;
    }
    return changed;
  }
  for (guint b = 0; b < ir_n_blocks(node); b++)
    changed |= sweep_block(ir_block(node, b));
  return changed;
}

static bool sweep_block(IrBlock *block) {
  bool changed = false;
  IR_FOR_EACH_NODE_REVERSE(n, block) {
    if (ir_n_blocks(n) > 0)
      changed |= sweep_node_blocks(n);
    if (!any_output_used(n) && !pu_node_has_side_effects(n) && !loop_does_work(n)) {
      ir_node_destroy(n);
      changed = true;
    }
  }
  return changed;
}

bool pass_eliminate_dead_code(IrGraph *graph) {
  return sweep_block(graph->block);
}
