/* The early-2019 expected graphs of seed 001 (#8641) parse; a 100,000-node graph parses and
 * prints back exactly (its speed: bench/text_bench.c); printing is iterative (deeply nested
 * blocks print fine). */
#include <string.h>

#include "ir/text.h"
#include "ir/verify.h"
#include "text_test_util.h"

/* testDifferentiate's expected graph as the seed shows it (the diff's context and '+' lines;
 * %1, elided from the hunk's context, restored). */
static const char *seed_differentiate =
    "graph(%0 : Float(2, 3, 4)\n"
    "      %1 : Float(2, 3, 4)\n"
    "      %2 : Float(2, 3, 4)\n"
    "      %3 : Float(2, 3, 4)\n"
    "      %4 : Float(2, 3, 4)) {\n"
    "  %5 : Float(2, 3, 4), %6 : Float(2, 3, 4) = prim::GradOf[name=aten::add](%0)\n"
    "  block0() {\n"
    "    -> (%0, %0)\n"
    "  }\n"
    "  %7 : Float(2, 3, 4), %8 : Float(2, 3, 4) = prim::GradOf[name=aten::mul](%5)\n"
    "  block0() {\n"
    "    %9 : Float(2, 3, 4) = aten::mul(%5, %2)\n"
    "    %10 : Float(2, 3, 4) = aten::mul(%5, %4)\n"
    "    -> (%9, %10)\n"
    "  }\n"
    "  %11 : Dynamic = prim::AutogradAdd(%1, %7)\n"
    "  %12 : Float(2, 3, 4), %13 : Float(2, 3, 4) = prim::GradOf[name=aten::mul](%11)\n"
    "  block0() {\n"
    "    %14 : Float(2, 3, 4) = aten::mul(%11, %3)\n"
    "    %15 : Float(2, 3, 4) = aten::mul(%11, %2)\n"
    "    -> (%14, %15)\n"
    "  }\n"
    "  %16 : Dynamic = prim::AutogradAdd(%8, %12)\n"
    "  %17 : Dynamic = prim::AutogradAdd(%6, %13)\n"
    "  return (%16, %17);\n"
    "}\n";

/* The same graph in PyTorch 1.x form, written by hand from the printing rules. */
static const char *seed_differentiate_printed =
    "graph(%0 : Float(2, 3, 4),\n"
    "      %1 : Float(2, 3, 4),\n"
    "      %2 : Float(2, 3, 4),\n"
    "      %3 : Float(2, 3, 4),\n"
    "      %4 : Float(2, 3, 4)):\n"
    "  %5 : Float(2, 3, 4), %6 : Float(2, 3, 4) = prim::GradOf[name=\"aten::add\"](%0)\n"
    "    block0():\n"
    "      -> (%0, %0)\n"
    "  %7 : Float(2, 3, 4), %8 : Float(2, 3, 4) = prim::GradOf[name=\"aten::mul\"](%5)\n"
    "    block0():\n"
    "      %9 : Float(2, 3, 4) = aten::mul(%5, %2)\n"
    "      %10 : Float(2, 3, 4) = aten::mul(%5, %4)\n"
    "      -> (%9, %10)\n"
    "  %11 : Tensor = prim::AutogradAdd(%1, %7)\n"
    "  %12 : Float(2, 3, 4), %13 : Float(2, 3, 4) = prim::GradOf[name=\"aten::mul\"](%11)\n"
    "    block0():\n"
    "      %14 : Float(2, 3, 4) = aten::mul(%11, %3)\n"
    "      %15 : Float(2, 3, 4) = aten::mul(%11, %2)\n"
    "      -> (%14, %15)\n"
    "  %16 : Tensor = prim::AutogradAdd(%8, %12)\n"
    "  %17 : Tensor = prim::AutogradAdd(%6, %13)\n"
    "  return (%16, %17)\n";

static const char *seed_requires_grad =
    "graph(%0 : Float(2, 3, 4)\n"
    "      %1 : Float(2, 3, 4)\n"
    "      %2 : Float(2, 3, 4)\n"
    "      %3 : Float(2, 3, 4)) {\n"
    "  %4 : Float(2, 3, 4), %5 : Float(2, 3, 4) = prim::GradOf[name=aten::add](%0)\n"
    "  block0() {\n"
    "    -> (%0, %0)\n"
    "  }\n"
    "  %6 : Float(2, 3, 4), %7 : Float(2, 3, 4) = prim::GradOf[name=aten::mul](%4)\n"
    "  block0() {\n"
    "    %8 : Float(2, 3, 4) = aten::mul(%4, %2)\n"
    "    %9 : Float(2, 3, 4) = aten::mul(%4, %3)\n"
    "    -> (%8, %9)\n"
    "  }\n"
    "  %10 : Dynamic = prim::AutogradAdd(%1, %6)\n"
    "  %11 : Float(2, 3, 4), %12 : Float(2, 3, 4) = prim::GradOf[name=aten::add](%10)\n"
    "  block0() {\n"
    "    -> (%10, %10)\n"
    "  }\n"
    "  %13 : Dynamic = prim::AutogradAdd(%7, %12)\n"
    "  return (%13);\n"
    "}\n";

static void test_seed_001(void) {
  IrGraph *g = text_test_parse_ok(seed_differentiate, "seed001");
  ir_graph_assert_valid(g, "parsing seed 001");
  g_assert_cmpuint(ir_graph_inputs(g)->len, ==, 5);
  g_assert_cmpuint(ir_graph_outputs(g)->len, ==, 2);
  const IrType *t = ((IrValue *)g_ptr_array_index(ir_graph_inputs(g), 0))->type;
  g_assert_true(t->has_dtype && t->dtype == IR_DTYPE_FLOAT32 && t->rank == 3);
  g_assert_cmpint(t->sizes[0], ==, 2);
  IrNode *grad_of = g->block->param->next;
  g_assert_cmpint(grad_of->kind, ==, IR_PRIM_GRAD_OF);
  g_assert_cmpstr(ir_node_attr_s(grad_of, "name"), ==, "aten::add");
  g_assert_cmpuint(ir_n_blocks(grad_of), ==, 1);
  guint grad_ofs = 0, adds = 0;
  IR_FOR_EACH_NODE(n, g->block) {
    grad_ofs += n->kind == IR_PRIM_GRAD_OF;
    adds += n->kind == IR_PRIM_AUTOGRAD_ADD;
  }
  g_assert_cmpuint(grad_ofs, ==, 3);
  g_assert_cmpuint(adds, ==, 3);
  char *out = ir_graph_to_string(g);
  g_assert_cmpstr(out, ==, seed_differentiate_printed);
  g_free(out);
  ir_graph_free(g);

  g = text_test_parse_ok(seed_requires_grad, "seed001-requires-grad");
  ir_graph_assert_valid(g, "parsing seed 001");
  g_assert_cmpuint(ir_graph_count_nodes(g), ==, 7);
  ir_graph_free(g);
}

static void test_large_graph(void) {
  const int n = 100000;
  GString *s = g_string_new("graph(%x : Float(*, *),\n      %y : Float(*, *)):\n");
  g_string_append(s, "  %one : int = prim::Constant[value=1]()\n");
  g_string_append(s, "  %v0 : Tensor = aten::add(%x, %y, %one) # big.py:1:1\n");
  for (int i = 1; i < n - 1; i++)
    g_string_append_printf(s, "  %%v%d : Tensor = aten::mul(%%v%d, %%%s) # big.py:%d:5\n", i, i - 1,
                           i % 2 ? "x" : "y", i + 1);
  g_string_append_printf(s, "  return (%%v%d)\n", n - 2);
  IrGraph *g = text_test_parse_ok(s->str, "big");
  char *out = ir_graph_to_string(g);
  g_assert_cmpuint(ir_graph_count_nodes(g), ==, (guint)n);
  g_assert_cmpstr(out, ==, s->str);
  ir_graph_assert_valid(g, "parsing the large graph");
  g_free(out);
  ir_graph_free(g);
  g_string_free(s, TRUE);
}

/* 200 nested prim::If: the parser accepts it (under the nesting cap) and the printer, which
 * does not recurse, reproduces it. */
static void test_deep_print(void) {
  GString *s = g_string_new("graph(%c : bool):\n");
  int depth = 200;
  for (int i = 0; i < depth; i++) {
    for (int k = 0; k < 2 * i + 1; k++)
      g_string_append(s, "  ");
    g_string_append_printf(s, "%%v%d : bool = prim::If(%%c)\n", i);
    for (int k = 0; k < 2 * i + 2; k++)
      g_string_append(s, "  ");
    g_string_append(s, "block0():\n");
  }
  for (int i = depth - 1; i >= 0; i--) {
    for (int k = 0; k < 2 * i + 3; k++)
      g_string_append(s, "  ");
    if (i == depth - 1)
      g_string_append(s, "-> (%c)\n");
    else
      g_string_append_printf(s, "-> (%%v%d)\n", i + 1);
    for (int k = 0; k < 2 * i + 2; k++)
      g_string_append(s, "  ");
    g_string_append(s, "block1():\n");
    for (int k = 0; k < 2 * i + 3; k++)
      g_string_append(s, "  ");
    g_string_append(s, "-> (%c)\n");
  }
  g_string_append(s, "  return (%v0)\n");
  IrGraph *g = text_test_parse_ok(s->str, "deep");
  ir_graph_assert_valid(g, "parsing the deep graph");
  char *out = ir_graph_to_string(g);
  g_assert_cmpstr(out, ==, s->str);
  g_free(out);
  ir_graph_free(g);
  g_string_free(s, TRUE);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/text/seeds/001", test_seed_001);
  g_test_add_func("/text/large/100k-nodes", test_large_graph);
  g_test_add_func("/text/large/deep-print", test_deep_print);
  return g_test_run();
}
