/* pass_unroll_loops: fully unrolls for-loops (start and continue conditions constant true)
 * with a constant trip count below 8 and a body of at most 32 nodes; the loop counter becomes
 * a constant per copy. Other loops are left alone. */
#include "passes/pass_util.h"
#include "passes/passes.h"

/* Algorithm: PyTorch's passes/loop_unrolling.cpp. Its limits are kept: kUnrollFactor = 8
 * (constant trip counts below it are unrolled entirely) and kMaxBodySize = 32 nodes (nested
 * blocks counted). Where PyTorch replaces the counter by a carried `i + 1` chain that constant
 * propagation later folds, we substitute the constants 0..n-1 directly: the same graph after
 * constant propagation. Deviation, documented: loops with a non-constant (or >= 8) trip count
 * are not unrolled by 8 with an epilogue, because that needs integer floor division
 * (aten::__round_to_zero_floordiv), which our op table does not have. A constant trip count
 * of 0 or less removes the loop (its outputs are its initial values). Nested loops are
 * unrolled innermost first, so an outer body is measured after its inner loops unrolled. */

#define UNROLL_FACTOR 8
#define MAX_BODY_SIZE 32

static bool is_for_loop(const IrNode *node) {
  if (node->kind != IR_PRIM_LOOP)
    return false;
  bool start, cont;
  IrBlock *body = ir_block(node, 0);
  return pu_constant_bool(ir_input(node, 1), &start) && start &&
         pu_constant_bool(g_ptr_array_index(ir_block_outputs(body), 0), &cont) && cont;
}

static void unroll(IrNode *loop, gint64 trips) {
  IrBlock *body = ir_block(loop, 0);
  guint n_carried = ir_n_outputs(loop);
  guint n_in = ir_block_inputs(body)->len, n_out = ir_block_outputs(body)->len;
  PASS_INVARIANT(n_in == n_carried + 1 && n_out == n_carried + 1, "pass_unroll_loops",
                 "a loop body has the counter plus one input and one output per carried value");
  IrValue **current = g_new(IrValue *, n_carried + 1);
  IrValue **inputs = g_new(IrValue *, n_in);
  IrValue **outputs = g_new(IrValue *, n_out);
  for (guint i = 0; i < n_carried; i++)
    current[i] = ir_input(loop, i + 2);
  bool counter_used = ir_value_has_uses(g_ptr_array_index(ir_block_inputs(body), 0));
  for (gint64 it = 0; it < trips; it++) {
    inputs[0] =
        counter_used ? pu_insert_int_before(loop, it) : g_ptr_array_index(ir_block_inputs(body), 0);
    for (guint i = 0; i < n_carried; i++)
      inputs[i + 1] = current[i];
    pu_inline_block_copy(body, loop, inputs, outputs);
    for (guint i = 0; i < n_carried; i++)
      current[i] = outputs[i + 1];
  }
  for (guint i = 0; i < n_carried; i++)
    ir_value_replace_all_uses_with(ir_output(loop, i), current[i]);
  ir_node_destroy(loop);
  g_free(current);
  g_free(inputs);
  g_free(outputs);
}

static bool unroll_block(IrBlock *block) {
  bool changed = false;
  IR_FOR_EACH_NODE(n, block) {
    for (guint b = 0; b < ir_n_blocks(n); b++)
      changed |= unroll_block(ir_block(n, b));
    gint64 trips;
    if (!is_for_loop(n) || !pu_constant_int(ir_input(n, 0), &trips) || trips >= UNROLL_FACTOR)
      continue;
    if (pu_block_count_nodes(ir_block(n, 0)) > MAX_BODY_SIZE)
      continue;
    unroll(n, trips < 0 ? 0 : trips);
    changed = true;
  }
  return changed;
}

bool pass_unroll_loops(IrGraph *graph) {
  return unroll_block(graph->block);
}
