/* Copies and clones: ir_graph_copy keeps names, ids, origins, schemas, sources, attributes
 * (subgraphs deeply, tensors by reference) and the insertion point; ir_node_clone_into keeps
 * origins, maps inputs, copies nested blocks and takes names by the renaming rule. */
#include "ir_test_util.h"
#include "tensor/tensor.h"

/* x, y -> add(x, y, 1) named "s"; If(c) { neg(s) } { s } -> "r"; FusionGroup with a Subgraph
 * holding mul; a tensor-valued constant. */
static IrGraph *sample_graph(RtTensor *t) {
  IrGraph *g = ir_graph_new();
  IrValue *x = ir_graph_add_input(g, ir_type_tensor(), "x");
  IrValue *y = ir_graph_add_input(g, ir_type_tensor(), "y.1");
  IrValue *c = ir_graph_add_input(g, ir_type_bool(), NULL);
  IrValue *one = ir_graph_insert_constant_int(g, 1);
  IrValue *in[] = {x, y, one};
  IrNode *add = ir_graph_insert_op(g, IR_ATEN_ADD, in, 3, 1);
  add->source = g_string_chunk_insert_const(add->graph->strings, "prog.py:3:12");
  ir_value_set_name(ir_output(add, 0), "s");

  IrNode *ifn = ir_graph_insert(g, ir_node_create(g, IR_PRIM_IF, 1));
  ir_node_add_input(ifn, c);
  IrBlock *then_b = ir_node_add_block(ifn);
  IrBlock *else_b = ir_node_add_block(ifn);
  IrNode *neg = ir_node_create(g, IR_ATEN_NEG, 1);
  ir_node_add_input(neg, ir_output(add, 0));
  ir_node_append_to(neg, then_b);
  ir_node_resolve_schema(neg);
  ir_value_set_name(ir_output(neg, 0), "n");
  ir_block_add_output(then_b, ir_output(neg, 0));
  ir_block_add_output(else_b, ir_output(add, 0));
  ir_value_set_name(ir_output(ifn, 0), "r");

  IrGraph *sub = ir_graph_new();
  IrValue *a = ir_graph_add_input(sub, ir_type_tensor(), "a");
  IrValue *min[] = {a, a};
  ir_graph_add_output(sub, ir_output(ir_graph_insert_op(sub, IR_ATEN_MUL, min, 2, 1), 0));
  IrNode *fg = ir_graph_insert(g, ir_node_create(g, IR_PRIM_FUSION_GROUP, 1));
  ir_node_add_input(fg, ir_output(ifn, 0));
  ir_node_set_attr_g(fg, IR_ATTR_SUBGRAPH, sub);

  IrNode *tc = ir_graph_insert(g, ir_node_create(g, IR_PRIM_CONSTANT, 1));
  ir_node_set_attr_t(tc, IR_ATTR_VALUE, t);

  ir_graph_add_output(g, ir_output(fg, 0));
  ir_graph_add_output(g, ir_output(tc, 0));
  return g;
}

static void assert_same_structure(const IrBlock *a, const IrBlock *b) {
  g_assert_cmpuint(ir_block_inputs(a)->len, ==, ir_block_inputs(b)->len);
  for (guint i = 0; i < ir_block_inputs(a)->len; i++) {
    IrValue *va = g_ptr_array_index(ir_block_inputs(a), i);
    IrValue *vb = g_ptr_array_index(ir_block_inputs(b), i);
    g_assert_cmpuint(va->id, ==, vb->id);
    g_assert_cmpstr(va->name, ==, vb->name);
    g_assert_true(va->type == vb->type);
  }
  const IrNode *nb = b->param->next;
  IR_FOR_EACH_NODE(na, a) {
    g_assert_true(nb != b->ret);
    g_assert_true(na != nb);
    g_assert_cmpint(na->kind, ==, nb->kind);
    g_assert_cmpuint(na->origin, ==, nb->origin);
    g_assert_true(na->schema == nb->schema);
    g_assert_cmpstr(na->source, ==, nb->source);
    g_assert_cmpuint(ir_n_inputs(na), ==, ir_n_inputs(nb));
    for (guint i = 0; i < ir_n_inputs(na); i++)
      g_assert_cmpuint(ir_input(na, i)->id, ==, ir_input(nb, i)->id);
    g_assert_cmpuint(ir_n_outputs(na), ==, ir_n_outputs(nb));
    for (guint i = 0; i < ir_n_outputs(na); i++) {
      g_assert_cmpuint(ir_output(na, i)->id, ==, ir_output(nb, i)->id);
      g_assert_cmpstr(ir_output(na, i)->name, ==, ir_output(nb, i)->name);
      g_assert_true(ir_output(na, i)->type == ir_output(nb, i)->type);
    }
    g_assert_cmpuint(ir_n_attrs(na), ==, ir_n_attrs(nb));
    g_assert_cmpuint(ir_n_blocks(na), ==, ir_n_blocks(nb));
    for (guint i = 0; i < ir_n_blocks(na); i++)
      assert_same_structure(ir_block(na, i), ir_block(nb, i));
    nb = nb->next;
  }
  g_assert_true(nb == b->ret);
  g_assert_cmpuint(ir_block_outputs(a)->len, ==, ir_block_outputs(b)->len);
  for (guint i = 0; i < ir_block_outputs(a)->len; i++)
    g_assert_cmpuint(((IrValue *)g_ptr_array_index(ir_block_outputs(a), i))->id, ==,
                     ((IrValue *)g_ptr_array_index(ir_block_outputs(b), i))->id);
}

static void test_graph_copy(void) {
  int64_t sizes[] = {2};
  RtTensor *t = rt_tensor_zeros(IR_DTYPE_FLOAT32, 1, sizes);
  IrGraph *g = sample_graph(t);
  ir_test_check_graph(g);
  IrGraph *copy = ir_graph_copy(g);
  ir_test_check_graph(copy);
  assert_same_structure(g->block, copy->block);
  g_assert_cmpuint(copy->next_value_id, ==, g->next_value_id);
  g_assert_cmpuint(copy->next_origin, ==, g->next_origin);
  g_assert_true(copy->insert_before == copy->block->ret);

  /* The subgraph is a deep copy; the tensor is shared by reference. */
  IrNode *fg = copy->block->ret->prev->prev;
  IrNode *fg_src = g->block->ret->prev->prev;
  g_assert_cmpint(fg->kind, ==, IR_PRIM_FUSION_GROUP);
  IrGraph *sub = ir_node_attr_g(fg, IR_ATTR_SUBGRAPH);
  g_assert_true(sub != ir_node_attr_g(fg_src, IR_ATTR_SUBGRAPH));
  assert_same_structure(ir_node_attr_g(fg_src, IR_ATTR_SUBGRAPH)->block, sub->block);
  g_assert_true(ir_node_attr(copy->block->ret->prev, IR_ATTR_VALUE)->v.t == t);
  g_assert_cmpint(t->refcount, ==, 3);

  /* Fresh values and renames in the copy continue the source's counters and suffixes. */
  IrValue *fresh = ir_graph_add_input(copy, ir_type_tensor(), "y");
  g_assert_cmpuint(fresh->id, ==, g->next_value_id);
  IrValue *y2 = ir_graph_add_input(copy, ir_type_tensor(), NULL);
  ir_value_set_name(y2, "y");
  g_assert_cmpstr(fresh->name, ==, "y.2");
  IrNode *n = ir_node_create(copy, IR_PRIM_CONSTANT, 1);
  g_assert_cmpuint(n->origin, >=, g->next_origin);

  /* Freeing either leaves the other intact. */
  ir_graph_free(g);
  ir_test_check_graph(copy);
  g_assert_cmpint(t->refcount, ==, 2);
  ir_graph_free(copy);
  g_assert_cmpint(t->refcount, ==, 1);
  rt_tensor_unref(t);
}

static void test_copy_insert_point(void) {
  IrGraph *g = ir_graph_new();
  IrValue *x = ir_graph_add_input(g, ir_type_tensor(), "x");
  IrValue *in[] = {x};
  IrNode *a = ir_graph_insert_op(g, IR_ATEN_RELU, in, 1, 1);
  ir_graph_insert_op(g, IR_ATEN_TANH, in, 1, 1);
  ir_graph_set_insert_point(g, a);
  IrGraph *copy = ir_graph_copy(g);
  g_assert_cmpint(copy->insert_before->kind, ==, IR_ATEN_RELU);
  g_assert_true(copy->insert_before->graph == copy);
  g_assert_true(copy->insert_before == copy->block->param->next);
  ir_graph_free(copy);
  ir_graph_free(g);
}

typedef struct {
  GHashTable *map;
} Mapping;

static IrValue *map_value(IrValue *src, gpointer data) {
  return g_hash_table_lookup(((Mapping *)data)->map, src);
}

static void test_clone_into_other_graph(void) {
  int64_t sizes[] = {1};
  RtTensor *t = rt_tensor_zeros(IR_DTYPE_FLOAT32, 1, sizes);
  IrGraph *src = sample_graph(t);
  IrGraph *dst = ir_graph_new();
  Mapping m = {g_hash_table_new(NULL, NULL)};
  /* Every input of src becomes an input of dst, and every node is cloned in order. */
  for (guint i = 0; i < ir_graph_inputs(src)->len; i++) {
    IrValue *v = g_ptr_array_index(ir_graph_inputs(src), i);
    g_hash_table_insert(m.map, v, ir_graph_add_input(dst, v->type, "taken"));
  }
  IR_FOR_EACH_NODE(n, src->block) {
    IrNode *c = ir_node_clone_into(dst, n, map_value, &m);
    g_assert_null(c->owning_block);
    ir_graph_insert(dst, c);
    g_assert_cmpuint(c->origin, ==, n->origin);
    g_assert_true(c->schema == n->schema);
    for (guint i = 0; i < ir_n_outputs(n); i++)
      g_hash_table_insert(m.map, ir_output(n, i), ir_output(c, i));
  }
  for (guint i = 0; i < ir_graph_outputs(src)->len; i++)
    ir_graph_add_output(dst,
                        g_hash_table_lookup(m.map, g_ptr_array_index(ir_graph_outputs(src), i)));
  ir_test_check_graph(dst);
  g_assert_cmpuint(ir_graph_count_nodes(dst), ==, ir_graph_count_nodes(src));

  /* The If's nested block was copied, its inner node keeps its origin and reads the clone
   * of "s", and the block output is the clone of "n". */
  IrNode *ifn = NULL;
  IR_FOR_EACH_NODE(n, dst->block) {
    if (n->kind == IR_PRIM_IF)
      ifn = n;
  }
  g_assert_nonnull(ifn);
  IrNode *neg = ir_block(ifn, 0)->param->next;
  g_assert_cmpint(neg->kind, ==, IR_ATEN_NEG);
  g_assert_cmpstr(ir_input(neg, 0)->name, ==, "s");
  g_assert_true(ir_input(neg, 0)->node->graph == dst);
  g_assert_cmpstr(ir_output(neg, 0)->name, ==, "n");
  g_assert_true(ir_input(ir_block(ifn, 0)->ret, 0) == ir_output(neg, 0));
  g_assert_true(ir_input(ir_block(ifn, 1)->ret, 0) == ir_input(neg, 0));
  IrNode *src_if = NULL;
  IR_FOR_EACH_NODE(n, src->block) {
    if (n->kind == IR_PRIM_IF)
      src_if = n;
  }
  g_assert_cmpuint(neg->origin, ==, ir_block(src_if, 0)->param->next->origin);
  /* Names were free in dst except "taken": the inputs keep theirs, renamed by the rule. */
  g_assert_nonnull(g_hash_table_lookup(dst->names, "taken"));
  g_assert_nonnull(g_hash_table_lookup(dst->names, "taken.1"));

  g_hash_table_destroy(m.map);
  ir_graph_free(src);
  ir_graph_free(dst);
  rt_tensor_unref(t);
}

static IrValue *identity_map(IrValue *src, gpointer data) {
  return src;
}

static void test_clone_within_graph(void) {
  IrGraph *g = ir_graph_new();
  IrValue *x = ir_graph_add_input(g, ir_type_tensor(), "x");
  IrValue *in[] = {x};
  IrNode *a = ir_graph_insert_op(g, IR_ATEN_RELU, in, 1, 1);
  ir_value_set_name(ir_output(a, 0), "h");
  ir_node_set_attr_i(a, "k", 3);
  IrNode *c = ir_node_clone_into(g, a, identity_map, NULL);
  ir_node_insert_after(c, a);
  ir_test_check_graph(g);
  /* Beside its live source the copy cannot keep the origin: two nodes of one graph would be
   * drawn as one. */
  g_assert_cmpuint(c->origin, !=, a->origin);
  g_assert_cmpuint(ir_output(c, 0)->id, !=, ir_output(a, 0)->id);
  /* The clone takes the name; the original moves to h.1 (PyTorch's copyMetadata). */
  g_assert_cmpstr(ir_output(c, 0)->name, ==, "h");
  g_assert_cmpstr(ir_output(a, 0)->name, ==, "h.1");
  g_assert_cmpint(ir_node_attr_i(c, "k"), ==, 3);
  g_assert_cmpuint(x->uses->len, ==, 2);
  /* Origins carried in from another graph push that graph's counter past them. */
  IrGraph *other = ir_graph_new();
  for (int i = 0; i < 50; i++)
    ir_node_create(other, IR_PRIM_CONSTANT, 1);
  IrNode *far = ir_graph_insert(other, ir_node_create(other, IR_PRIM_CONSTANT, 1));
  IrNode *carried = ir_graph_insert(g, ir_node_clone_into(g, far, identity_map, NULL));
  g_assert_cmpuint(carried->origin, ==, far->origin);
  /* A second copy from there finds the origin taken. */
  IrNode *twice = ir_graph_insert(g, ir_node_clone_into(g, far, identity_map, NULL));
  g_assert_cmpuint(twice->origin, !=, far->origin);
  /* ir_node_copy_into never carries one. */
  IrNode *copied = ir_graph_insert(g, ir_node_copy_into(g, a, identity_map, NULL));
  g_assert_cmpuint(copied->origin, !=, a->origin);
  g_assert_cmpuint(ir_node_create(g, IR_PRIM_CONSTANT, 1)->origin, >, far->origin);
  ir_graph_free(other);
  /* A new node gets a fresh origin. */
  IrNode *fresh = ir_graph_insert_op(g, IR_ATEN_TANH, in, 1, 1);
  g_assert_cmpuint(fresh->origin, !=, a->origin);
  ir_graph_free(g);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/ir/copy/graph-copy", test_graph_copy);
  g_test_add_func("/ir/copy/insert-point", test_copy_insert_point);
  g_test_add_func("/ir/copy/clone-into-other-graph", test_clone_into_other_graph);
  g_test_add_func("/ir/copy/clone-within-graph", test_clone_within_graph);
  return g_test_run();
}
