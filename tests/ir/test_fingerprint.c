/* ir_graph_fingerprint: equal for graphs that print alike (the same text parsed twice, a
 * copy), different after each kind of edit that changes the printed text, also inside a
 * nested block and a Subgraph body. (Every compile of a debug build checks, stage by stage,
 * that an unchanged fingerprint means unchanged text: pipeline.c's record_stage.) */
#include <string.h>

#include "ir/text.h"

static const char text[] = "graph(%x : Float(2, 3), %c : bool):\n"
                           "  %one : int = prim::Constant[value=1]()\n"
                           "  %h : float = prim::Constant[value=0.5]()\n"
                           "  %y : Tensor = aten::mul(%x, %h) # a.py:2:4\n"
                           "  %r : Tensor = prim::If(%c)\n"
                           "    block0():\n"
                           "      %t : Tensor = aten::tanh(%y)\n"
                           "      -> (%t)\n"
                           "    block1():\n"
                           "      %s : Tensor = aten::sigmoid(%y)\n"
                           "      -> (%s)\n"
                           "  %z : Tensor = prim::DifferentiableGraph_0(%r)\n"
                           "  return (%z)\n"
                           "with prim::DifferentiableGraph_0 = graph(%a : Tensor):\n"
                           "  %k : int = prim::Constant[value=1]()\n"
                           "  %b : Tensor = aten::add(%a, %a, %k)\n"
                           "  return (%b)\n";

static IrGraph *parse(void) {
  GError *error = NULL;
  IrGraph *g = ir_graph_parse(text, strlen(text), "f.ir", &error);
  g_assert_no_error(error);
  return g;
}

static IrNode *find(const IrBlock *block, IrOpKind kind) {
  IR_FOR_EACH_NODE(n, block) {
    if (n->kind == kind)
      return n;
    for (guint b = 0; b < ir_n_blocks(n); b++) {
      IrNode *m = find(ir_block(n, b), kind);
      if (m)
        return m;
    }
  }
  return NULL;
}

static void test_equal_when_printed_alike(void) {
  IrGraph *a = parse(), *b = parse(), *c = ir_graph_copy(a);
  g_assert_cmpuint(ir_graph_fingerprint(a), ==, ir_graph_fingerprint(b));
  g_autofree char *ta = ir_graph_to_string(a), *tc = ir_graph_to_string(c);
  if (strcmp(ta, tc) == 0)
    g_assert_cmpuint(ir_graph_fingerprint(a), ==, ir_graph_fingerprint(c));
  ir_graph_free(a);
  ir_graph_free(b);
  ir_graph_free(c);
}

typedef void (*Edit)(IrGraph *g);

static void rename_value(IrGraph *g) {
  ir_value_set_name(ir_output(find(g->block, IR_ATEN_MUL), 0), "renamed");
}
static void retype_value(IrGraph *g) {
  ir_value_set_type(ir_output(find(g->block, IR_ATEN_MUL), 0), ir_type_float());
}
static void change_int_attr(IrGraph *g) {
  ir_node_set_attr_i(find(g->block, IR_PRIM_CONSTANT), IR_ATTR_VALUE, 2);
}
static void change_source(IrGraph *g) {
  find(g->block, IR_ATEN_MUL)->source = "b.py:9:9";
}
static void edit_nested_block(IrGraph *g) {
  IrNode *tanh = find(g->block, IR_ATEN_TANH);
  IrNode *sigmoid = find(g->block, IR_ATEN_SIGMOID);
  ir_node_replace_input(sigmoid, 0, ir_output(find(g->block, IR_ATEN_MUL), 0));
  ir_value_set_name(ir_output(tanh, 0), "tanh_out");
}
static void edit_subgraph(IrGraph *g) {
  IrGraph *body = ir_node_attr_g(find(g->block, IR_PRIM_DIFFERENTIABLE_GRAPH), IR_ATTR_SUBGRAPH);
  ir_node_set_attr_i(find(body->block, IR_PRIM_CONSTANT), IR_ATTR_VALUE, 3);
}
static void reorder_inputs(IrGraph *g) {
  IrNode *mul = find(g->block, IR_ATEN_MUL);
  IrValue *x = ir_input(mul, 0), *h = ir_input(mul, 1);
  ir_node_replace_input(mul, 0, h);
  ir_node_replace_input(mul, 1, x);
}

static void test_different_after_each_edit(void) {
  static const struct {
    const char *what;
    Edit edit;
  } edits[] = {
      {"rename a value", rename_value},
      {"change a type", retype_value},
      {"change an int attribute", change_int_attr},
      {"change a source comment", change_source},
      {"edit a nested block", edit_nested_block},
      {"edit a Subgraph body", edit_subgraph},
      {"swap a node's inputs", reorder_inputs},
  };
  IrGraph *base = parse();
  guint64 before = ir_graph_fingerprint(base);
  g_autofree char *base_text = ir_graph_to_string(base);
  for (guint i = 0; i < G_N_ELEMENTS(edits); i++) {
    IrGraph *g = parse();
    edits[i].edit(g);
    g_autofree char *edited = ir_graph_to_string(g);
    g_assert_cmpstr(edited, !=, base_text); /* the edit shows in the text */
    if (ir_graph_fingerprint(g) == before)
      g_error("the fingerprint missed: %s", edits[i].what);
    ir_graph_free(g);
  }
  ir_graph_free(base);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/ir/fingerprint/equal-when-printed-alike", test_equal_when_printed_alike);
  g_test_add_func("/ir/fingerprint/different-after-each-edit", test_different_after_each_edit);
  return g_test_run();
}
