/* script_canonicalize_modified_loops: a counted loop whose continue condition is no longer
 * always true (a break, a return inside it) becomes a while loop with its own counter.
 *
 * Requires: a graph after script_transform_exits.
 * Guarantees: every prim::Loop either has a trip count and conditions that are the constant
 * true (a for loop), or the trip count INT64_MAX (a while loop); a loop rewritten here runs
 * exactly the iterations it ran before: it starts when trips > 0 (and its start condition),
 * carries a counter from 0 that replaces the iteration number, and continues while
 * counter + 1 < trips and its body's condition.
 *
 * Algorithm: PyTorch 1.13's canonicalize_modified_loop.cpp, so that graphs print as PyTorch
 * prints them. */
#include "passes/pass_util.h"
#include "script/emit.h"

static bool always_true(const IrValue *v) {
  bool b;
  return pu_constant_bool(v, &b) && b;
}

static void canonicalize_loop(IrGraph *graph, IrNode *loop) {
  IrBlock *body = ir_block(loop, 0);
  IrValue *trips = ir_input(loop, 0), *start = ir_input(loop, 1);
  gint64 n;
  bool counted = !pu_constant_int(trips, &n) || n != G_MAXINT64;
  if (!counted || (always_true(start) && always_true(g_ptr_array_index(ir_block_outputs(body), 0))))
    return;

  ir_graph_set_insert_point(graph, loop);
  IrValue *zero = ir_graph_insert_constant_int(graph, 0);
  IrValue *one = ir_graph_insert_constant_int(graph, 1);
  IrValue *gt_args[2] = {trips, zero};
  IrValue *cond = ir_output(ir_graph_insert_op(graph, IR_ATEN_GT, gt_args, 2, 1), 0);
  ir_node_replace_input(loop, 0, ir_graph_insert_constant_int(graph, G_MAXINT64));
  bool start_value;
  if (!pu_constant_bool(start, &start_value) || !start_value) {
    IrValue *and_args[2] = {cond, start};
    cond = ir_output(ir_graph_insert_op(graph, IR_ATEN___AND__, and_args, 2, 1), 0);
  }
  ir_node_replace_input(loop, 1, cond);

  ir_node_add_output(loop, ir_type_int());
  ir_node_add_input(loop, zero);
  IrValue *counter = ir_block_add_input(body, ir_type_int(), NULL);
  IrValue *iteration = g_ptr_array_index(ir_block_inputs(body), 0);
  ir_value_set_name(iteration, NULL);
  ir_value_replace_all_uses_with(iteration, counter);

  ir_graph_set_insert_point(graph, body->ret);
  IrValue *add_args[2] = {counter, one};
  IrValue *next = ir_output(ir_graph_insert_op(graph, IR_ATEN_ADD, add_args, 2, 1), 0);
  ir_block_add_output(body, next);
  IrValue *lt_args[2] = {next, trips};
  IrValue *below = ir_output(ir_graph_insert_op(graph, IR_ATEN_LT, lt_args, 2, 1), 0);
  IrValue *and_args[2] = {below, g_ptr_array_index(ir_block_outputs(body), 0)};
  IrValue *go_on = ir_output(ir_graph_insert_op(graph, IR_ATEN___AND__, and_args, 2, 1), 0);
  ir_node_replace_input(body->ret, 0, go_on);
}

static void canonicalize_block(IrGraph *graph, IrBlock *block) {
  IR_FOR_EACH_NODE(n, block) {
    for (guint b = 0; b < ir_n_blocks(n); b++)
      canonicalize_block(graph, ir_block(n, b));
    if (n->kind == IR_PRIM_LOOP)
      canonicalize_loop(graph, n);
  }
}

void script_canonicalize_modified_loops(IrGraph *graph) {
  IrNode *saved = graph->insert_before;
  canonicalize_block(graph, graph->block);
  ir_graph_set_insert_point(graph, saved);
}
