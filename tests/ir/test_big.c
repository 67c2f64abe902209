/* Scale: a 100,000-node graph (a long chain plus a constant with 100,000 uses) is built,
 * edited, copied and freed within a time budget far above what the arena needs. */
#include "ir_test_util.h"

#define N_NODES 100000

static void test_big_graph(void) {
  gint64 start = g_get_monotonic_time();
  IrGraph *g = ir_graph_new();
  IrValue *x = ir_graph_add_input(g, ir_type_tensor(), "x");
  IrValue *alpha = ir_graph_insert_constant_int(g, 1);
  IrValue *cur = x;
  for (int i = 0; i < N_NODES; i++) {
    IrValue *in[] = {cur, x, alpha};
    cur = ir_output(ir_graph_insert_op(g, IR_ATEN_ADD, in, 3, 1), 0);
  }
  ir_graph_add_output(g, cur);
  g_assert_cmpuint(ir_graph_count_nodes(g), ==, N_NODES + 1);
  g_assert_cmpuint(alpha->uses->len, ==, N_NODES);

  /* Insert in the middle of the chain repeatedly (forces re-indexing of a big block). */
  IrNode *mid = g->block->param->next;
  for (int i = 0; i < N_NODES / 2; i++)
    mid = mid->next;
  for (int i = 0; i < 100; i++)
    ir_node_insert_after(ir_node_create(g, IR_PRIM_CONSTANT, 1), mid);
  g_assert_true(ir_node_is_before(g->block->param->next, g->block->ret->prev));

  IrGraph *copy = ir_graph_copy(g);
  g_assert_cmpuint(ir_graph_count_nodes(copy), ==, N_NODES + 101);
  ir_test_check_graph(copy);
  ir_graph_free(copy);
  ir_graph_free(g);
  double seconds = (double)(g_get_monotonic_time() - start) / G_USEC_PER_SEC;
  g_test_message("100k-node build, edit, copy, check and free: %.3f s", seconds);
  /* Generous for sanitizer builds; the plain build takes a fraction of this. */
  g_assert_cmpfloat(seconds, <, 20.0);
}

static void test_big_free_fast(void) {
  gint64 start = g_get_monotonic_time();
  IrGraph *g = ir_graph_new();
  IrValue *x = ir_graph_add_input(g, ir_type_tensor(), "x");
  IrValue *cur = x;
  for (int i = 0; i < N_NODES; i++) {
    IrValue *in[] = {cur};
    cur = ir_output(ir_graph_insert_op(g, IR_ATEN_RELU, in, 1, 1), 0);
  }
  ir_graph_free(g);
  double seconds = (double)(g_get_monotonic_time() - start) / G_USEC_PER_SEC;
  g_test_message("100k-node build and free: %.3f s", seconds);
  g_assert_cmpfloat(seconds, <, 5.0);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/ir/big/graph", test_big_graph);
  g_test_add_func("/ir/big/free-fast", test_big_free_fast);
  return g_test_run();
}
