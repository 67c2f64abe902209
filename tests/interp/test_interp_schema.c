/* Schema ops through compiled code: omitted trailing defaults filled from the schema, explicit
 * arguments, Tensor[] results, scalar ops, and errors (shape mismatch names the node and its
 * source; missing arguments and unmatched overloads fail at compile time). */
#include <string.h>

#include "interp_test_util.h"
#include "ir/ops.h"

static void test_defaults_and_explicit_arguments(void) {
  /* s = sum(x) (dtype omitted); d = sub(x, y, 2); n = size(x, 1) */
  IrGraph *g = ir_graph_new();
  IrValue *x = ir_graph_add_input(g, ir_type_tensor(), "x");
  IrValue *y = ir_graph_add_input(g, ir_type_tensor(), "y");
  ir_graph_add_output(g, it_op(g, IR_ATEN_SUM, &x, 1));
  IrValue *sub_in[3] = {x, y, ir_graph_insert_constant_int(g, 2)};
  ir_graph_add_output(g, it_op(g, IR_ATEN_SUB, sub_in, 3));
  IrValue *size_in[2] = {x, ir_graph_insert_constant_int(g, 1)};
  ir_graph_add_output(g, it_op(g, IR_ATEN_SIZE, size_in, 2));
  int64_t s[2] = {2, 2};
  double xv[4] = {1, 2, 3, 4}, yv[4] = {0.5, 1, -1, 2};
  RtValue ins[2] = {rt_tensor(it_tensor(2, s, xv)), rt_tensor(it_tensor(2, s, yv))};
  RtValue r[3];
  GError *error = NULL;
  g_assert_true(it_run(g, NULL, ins, 2, r, &error));
  g_assert_no_error(error);
  g_assert_cmpint(r[0].u.tensor->ndim, ==, 0);
  g_assert_cmpfloat(rt_tensor_get(r[0].u.tensor, 0), ==, 10);
  double d[4] = {0, 0, 5, 0};
  it_assert_tensor(r[1].u.tensor, 2, s, d, 0);
  g_assert_cmpint(r[2].tag, ==, RT_INT);
  g_assert_cmpint(r[2].u.i, ==, 2);
  for (guint i = 0; i < 3; i++)
    rt_value_unref(r[i]);
  rt_value_unref(ins[0]);
  rt_value_unref(ins[1]);
  ir_graph_free(g);
}

static void test_tensor_list_result(void) {
  /* a, b = chunk(x, 2, 1); return relu(a) * sigmoid(b)-free: a - b */
  IrGraph *g = ir_graph_new();
  IrValue *x = ir_graph_add_input(g, ir_type_tensor(), "x");
  IrValue *ch_in[3] = {x, ir_graph_insert_constant_int(g, 2), ir_graph_insert_constant_int(g, 1)};
  IrValue *l = it_op(g, IR_ATEN_CHUNK, ch_in, 3);
  IrNode *u = it_prim(g, IR_PRIM_LIST_UNPACK, &l, 1, 2, ir_type_tensor());
  IrValue *ab[2] = {ir_output(u, 0), ir_output(u, 1)};
  ir_graph_add_output(g, it_op(g, IR_ATEN_SUB, ab, 2));
  int64_t s[2] = {2, 4};
  double xv[8] = {1, 2, 10, 20, 3, 4, 30, 40};
  RtValue ins[1] = {rt_tensor(it_tensor(2, s, xv))}, r[1];
  GError *error = NULL;
  g_assert_true(it_run(g, NULL, ins, 1, r, &error));
  g_assert_no_error(error);
  int64_t rs[2] = {2, 2};
  double e[4] = {-9, -18, -27, -36};
  it_assert_tensor(r[0].u.tensor, 2, rs, e, 0);
  rt_value_unref(r[0]);
  rt_value_unref(ins[0]);
  ir_graph_free(g);
}

static void test_shape_mismatch_names_node(void) {
  IrGraph *g = ir_graph_new();
  IrValue *x = ir_graph_add_input(g, ir_type_tensor(), "x");
  IrValue *y = ir_graph_add_input(g, ir_type_tensor(), "y");
  IrValue *n = it_op(g, IR_ATEN_NEG, &x, 1);
  IrValue *ny[2] = {n, y};
  IrValue *z = it_op(g, IR_ATEN_MUL, ny, 2);
  z->node->source = g_intern_string("model.py:3:7");
  ir_graph_add_output(g, z);
  double xv[3] = {1, 2, 3}, yv[2] = {1, 2};
  RtValue ins[2] = {rt_tensor(it_vector(3, xv)), rt_tensor(it_vector(2, yv))}, r[1];
  GError *error = NULL;
  g_assert_false(it_run(g, NULL, ins, 2, r, &error));
  g_assert_true(g_str_has_prefix(error->message, "model.py:3:7: aten::mul: "));
  g_assert_cmpuint(strlen(error->message), >, strlen("model.py:3:7: aten::mul: "));
  g_error_free(error);
  rt_value_unref(ins[0]);
  rt_value_unref(ins[1]);
  ir_graph_free(g);
}

static void test_scalar_ops(void) {
  /* (a + b) * 3 > 20 with a = 4, b = 3 -> 21 > 20 -> True; Float(a) / 8 = 0.5 */
  IrGraph *g = ir_graph_new();
  IrValue *a = ir_graph_add_input(g, ir_type_int(), "a");
  IrValue *b = ir_graph_add_input(g, ir_type_int(), "b");
  IrValue *ab[2] = {a, b};
  IrValue *s = it_op(g, IR_ATEN_ADD, ab, 2);
  IrValue *m_in[2] = {s, ir_graph_insert_constant_int(g, 3)};
  IrValue *m = it_op(g, IR_ATEN_MUL, m_in, 2);
  IrValue *c_in[2] = {m, ir_graph_insert_constant_int(g, 20)};
  ir_graph_add_output(g, it_op(g, IR_ATEN_GT, c_in, 2));
  IrValue *f = it_op(g, IR_ATEN_FLOAT, &a, 1);
  IrValue *d_in[2] = {f, ir_graph_insert_constant_float(g, 8)};
  ir_graph_add_output(g, it_op(g, IR_ATEN_DIV, d_in, 2));
  RtValue ins[2] = {rt_int(4), rt_int(3)}, r[2];
  GError *error = NULL;
  g_assert_true(it_run(g, NULL, ins, 2, r, &error));
  g_assert_no_error(error);
  g_assert_true(r[0].tag == RT_BOOL && r[0].u.b);
  g_assert_true(r[1].tag == RT_DOUBLE);
  g_assert_cmpfloat(r[1].u.d, ==, 0.5);
  ir_graph_free(g);
}

static void test_compile_errors(void) {
  guint n = 0;
  const IrSchema *const *mm = ir_ops_overloads(IR_ATEN_MM, &n);
  g_assert_cmpuint(n, ==, 1);
  /* A required argument missing. */
  IrGraph *g = ir_graph_new();
  IrValue *x = ir_graph_add_input(g, ir_type_tensor(), "x");
  IrNode *node = ir_node_create(g, IR_ATEN_MM, 1);
  ir_node_add_input(node, x);
  node->schema = mm[0];
  ir_graph_insert(g, node);
  ir_graph_add_output(g, ir_output(node, 0));
  GError *error = NULL;
  g_assert_null(rt_code_compile(g, &error));
  g_assert_cmpstr(error->message, ==,
                  "aten::mm: argument 'mat2' of aten::mm(Tensor self, "
                  "Tensor mat2) -> Tensor is missing and has no default");
  g_clear_error(&error);
  ir_graph_free(g);
  /* No overload for these input types (schema left unresolved). */
  g = ir_graph_new();
  IrValue *i = ir_graph_add_input(g, ir_type_int(), "i");
  node = ir_node_create(g, IR_ATEN_MM, 1);
  ir_node_add_input(node, i);
  ir_node_add_input(node, i);
  node->source = g_intern_string("f.py:1:1");
  ir_graph_insert(g, node);
  ir_graph_add_output(g, ir_output(node, 0));
  g_assert_null(rt_code_compile(g, &error));
  g_assert_cmpstr(error->message, ==, "f.py:1:1: aten::mm: no overload matches the input types");
  g_clear_error(&error);
  ir_graph_free(g);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/interp/schema/defaults", test_defaults_and_explicit_arguments);
  g_test_add_func("/interp/schema/tensor-list", test_tensor_list_result);
  g_test_add_func("/interp/schema/shape-mismatch", test_shape_mismatch_names_node);
  g_test_add_func("/interp/schema/scalars", test_scalar_ops);
  g_test_add_func("/interp/schema/compile-errors", test_compile_errors);
  return g_test_run();
}
