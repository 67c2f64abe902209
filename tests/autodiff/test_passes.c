/* Exact text of create/inline autodiff subgraphs, specialize-autograd-zero and lower-GradOf
 * on small graphs. */
#include "ad_test_util.h"

#include "ir/text.h"
#include "ir/verify.h"

static void expect_text(const IrGraph *g, const char *expected) {
  ir_graph_assert_valid(g, "autodiff pass");
  char *got = ir_graph_to_string(g);
  if (g_strcmp0(got, expected) != 0) {
    g_printerr("--- expected ---\n%s--- got ---\n%s", expected, got);
    g_test_fail();
  }
  g_free(got);
}

static const char *const chain = "graph(%a : Float(*, *), %b : Float(*, *), %c : Float(*, *)):\n"
                                 "  %one : int = prim::Constant[value=1]()\n"
                                 "  %x : Tensor = aten::add(%a, %b, %one)\n"
                                 "  %y : Tensor = aten::mul(%x, %c)\n"
                                 "  %s : Tensor = aten::sum(%x)\n"
                                 "  %z : Tensor = aten::tanh(%y)\n"
                                 "  return (%z, %s)\n";

static const char *const chain_grouped =
    "graph(%a : Float(*, *),\n"
    "      %b : Float(*, *),\n"
    "      %c : Float(*, *)):\n"
    "  %one : int = prim::Constant[value=1]()\n"
    "  %z : Tensor, %s : Tensor = prim::DifferentiableGraph_0(%c, %a, %b)\n"
    "  return (%z, %s)\n"
    "with prim::DifferentiableGraph_0 = graph(%c : Float(*, *),\n"
    "      %a : Float(*, *),\n"
    "      %b : Float(*, *)):\n"
    "  %10 : int = prim::Constant[value=1]()\n"
    "  %x : Tensor = aten::add(%a, %b, %10)\n"
    "  %s : Tensor = aten::sum(%x)\n"
    "  %y : Tensor = aten::mul(%x, %c)\n"
    "  %z : Tensor = aten::tanh(%y)\n"
    "  return (%z, %s)\n";

/* Reverse visit: tanh takes mul; sum cannot move past... sum's group takes add, then the
 * tanh group swallows the sum group (its output feeds it) at the fixpoint. */
static void test_create_chain(void) {
  IrGraph *g = ad_test_parse(chain);
  g_assert_true(pass_create_autodiff_subgraphs(g, 2));
  expect_text(g, chain_grouped);
  /* 4 non-constant nodes: kept at threshold 4, dissolved at threshold 5. */
  g_assert_false(pass_inline_autodiff_subgraphs(g, 4));
  expect_text(g, chain_grouped);
  g_assert_true(pass_inline_autodiff_subgraphs(g, 5));
  expect_text(g, "graph(%a : Float(*, *),\n"
                 "      %b : Float(*, *),\n"
                 "      %c : Float(*, *)):\n"
                 "  %one : int = prim::Constant[value=1]()\n"
                 "  %16 : int = prim::Constant[value=1]()\n"
                 "  %x : Tensor = aten::add(%a, %b, %16)\n"
                 "  %s : Tensor = aten::sum(%x)\n"
                 "  %y : Tensor = aten::mul(%x, %c)\n"
                 "  %z : Tensor = aten::tanh(%y)\n"
                 "  return (%z, %s)\n");
  ir_graph_free(g);
}

/* Two unrelated single nodes make groups of one, below the threshold: dissolved again. */
static void test_create_dissolves_small(void) {
  IrGraph *g = ad_test_parse("graph(%a : Float(*, *), %b : Float(*, *)):\n"
                             "  %one : int = prim::Constant[value=1]()\n"
                             "  %x : Tensor = aten::add(%a, %b, %one)\n"
                             "  %y : Tensor = aten::relu(%a)\n"
                             "  return (%x, %y)\n");
  pass_create_autodiff_subgraphs(g, 2);
  expect_text(g, "graph(%a : Float(*, *),\n"
                 "      %b : Float(*, *)):\n"
                 "  %one : int = prim::Constant[value=1]()\n"
                 "  %8 : int = prim::Constant[value=1]()\n"
                 "  %x : Tensor = aten::add(%a, %b, %8)\n"
                 "  %y : Tensor = aten::relu(%a)\n"
                 "  return (%x, %y)\n");
  char *s = ir_graph_to_string(g);
  g_assert_cmpuint(ad_test_count(s, "DifferentiableGraph"), ==, 0);
  g_free(s);
  ir_graph_free(g);
}

/* Groups form inside blocks; the If itself (a node with blocks) is not differentiable. */
static void test_create_in_blocks(void) {
  IrGraph *g = ad_test_parse("graph(%a : Float(*, *), %c : bool):\n"
                             "  %r : Tensor = prim::If(%c)\n"
                             "    block0():\n"
                             "      %x : Tensor = aten::sigmoid(%a)\n"
                             "      %y : Tensor = aten::tanh(%x)\n"
                             "      -> (%y)\n"
                             "    block1():\n"
                             "      -> (%a)\n"
                             "  return (%r)\n");
  g_assert_true(pass_create_autodiff_subgraphs(g, 2));
  char *s = ir_graph_to_string(g);
  g_assert_cmpuint(ad_test_count(s, "prim::DifferentiableGraph_0(%a)"), ==, 1);
  g_assert_cmpuint(ad_test_count(s, "aten::sigmoid"), ==, 1);
  g_free(s);
  ir_graph_free(g);
}

/* A list built by prim::ListConstruct and read by cat is copied into cat's group (the tanh
 * and sigmoid follow it in), so the Tensor[] gradient can reach x and y; the original stays
 * for aten::len outside. */
static void test_create_copies_list(void) {
  IrGraph *g = ad_test_parse("graph(%x : Float(*, *), %y : Float(*, *)):\n"
                             "  %one : int = prim::Constant[value=1]()\n"
                             "  %a : Tensor = aten::tanh(%x)\n"
                             "  %b : Tensor = aten::sigmoid(%y)\n"
                             "  %l : Tensor[] = prim::ListConstruct(%a, %b)\n"
                             "  %c : Tensor = aten::cat(%l, %one)\n"
                             "  %n : int = aten::len(%l)\n"
                             "  return (%c, %n)\n");
  g_assert_true(pass_create_autodiff_subgraphs(g, 2));
  ir_graph_assert_valid(g, "create_autodiff_subgraphs");
  char *s = ir_graph_to_string(g);
  g_assert_cmpuint(ad_test_count(s, "prim::ListConstruct(%a, %b)"), ==, 2);
  g_assert_cmpuint(ad_test_count(s, "prim::DifferentiableGraph_0(%x, %y)"), ==, 0);
  g_assert_cmpuint(ad_test_count(s, "aten::cat("), ==, 1);
  g_assert_cmpuint(ad_test_count(s, "Tensor[] = prim::DifferentiableGraph"), ==, 0);
  g_assert_cmpuint(ad_test_count(s, "graph(%l : Tensor[]"), ==, 0);
  g_free(s);
  /* Without the outside reader the original goes: one ListConstruct, in the group. */
  ir_graph_free(g);
  g = ad_test_parse("graph(%x : Float(*, *), %y : Float(*, *)):\n"
                    "  %one : int = prim::Constant[value=1]()\n"
                    "  %a : Tensor = aten::tanh(%x)\n"
                    "  %b : Tensor = aten::sigmoid(%y)\n"
                    "  %l : Tensor[] = prim::ListConstruct(%a, %b)\n"
                    "  %c : Tensor = aten::cat(%l, %one)\n"
                    "  return (%c)\n");
  g_assert_true(pass_create_autodiff_subgraphs(g, 2));
  s = ir_graph_to_string(g);
  g_assert_cmpuint(ad_test_count(s, "prim::ListConstruct("), ==, 1);
  g_assert_cmpuint(ad_test_count(s, "= prim::DifferentiableGraph_0("), ==, 1);
  g_assert_cmpuint(ad_test_count(s, "aten::tanh"), ==, 1);
  g_free(s);
  ir_graph_free(g);
}

/* split's list is read by aten::len as well as by the unpack, so the unpack cannot join the
 * group and the list would leave it: no gradient crosses a Tensor[], so the group dissolves
 * (its nodes run under the eager tape) rather than drop split's gradient. */
static void test_create_dissolves_list_boundary(void) {
  IrGraph *g = ad_test_parse("graph(%x : Float(*, *), %y : Float(*, *)):\n"
                             "  %one : int = prim::Constant[value=1]()\n"
                             "  %two : int = prim::Constant[value=2]()\n"
                             "  %a : Tensor = aten::tanh(%x)\n"
                             "  %b : Tensor = aten::mul(%a, %y)\n"
                             "  %c : Tensor = aten::sigmoid(%b)\n"
                             "  %l : Tensor[] = aten::split(%c, %two, %one)\n"
                             "  %p : Tensor, %q : Tensor = prim::ListUnpack(%l)\n"
                             "  %n : int = aten::len(%l)\n"
                             "  %z : Tensor = aten::mul(%p, %q)\n"
                             "  return (%z, %n)\n");
  pass_create_autodiff_subgraphs(g, 2);
  char *s = ir_graph_to_string(g);
  g_assert_cmpuint(ad_test_count(s, "Tensor[] = prim::DifferentiableGraph"), ==, 0);
  g_assert_cmpuint(ad_test_count(s, "Tensor[], "), ==, 0);
  g_assert_cmpuint(ad_test_count(s, "%l : Tensor[] = aten::split("), ==, 1);
  g_free(s);
  ir_graph_free(g);
  /* With the unpack as the list's only reader, split and the unpack join one group. */
  g = ad_test_parse("graph(%x : Float(*, *), %y : Float(*, *)):\n"
                    "  %one : int = prim::Constant[value=1]()\n"
                    "  %two : int = prim::Constant[value=2]()\n"
                    "  %a : Tensor = aten::tanh(%x)\n"
                    "  %b : Tensor = aten::mul(%a, %y)\n"
                    "  %c : Tensor = aten::sigmoid(%b)\n"
                    "  %l : Tensor[] = aten::split(%c, %two, %one)\n"
                    "  %p : Tensor, %q : Tensor = prim::ListUnpack(%l)\n"
                    "  %z : Tensor = aten::mul(%p, %q)\n"
                    "  return (%z)\n");
  g_assert_true(pass_create_autodiff_subgraphs(g, 2));
  s = ir_graph_to_string(g);
  g_assert_cmpuint(ad_test_count(s, "= prim::DifferentiableGraph_0(%y, %x)"), ==, 1);
  g_assert_cmpuint(ad_test_count(s, "prim::ListUnpack"), ==, 1);
  g_assert_cmpuint(ad_test_count(s, "Tensor[] = prim::DifferentiableGraph"), ==, 0);
  g_free(s);
  ir_graph_free(g);
}

static const char *const grad_of_graph = "graph(%0 : Tensor[Undefined],\n"
                                         "      %1 : Float(2, 3),\n"
                                         "      %x : Float(2, 3)):\n"
                                         "  %2 : Tensor = prim::GradOf[name=\"aten::mul\"](%0)\n"
                                         "    block0():\n"
                                         "      %3 : Tensor = aten::mul(%0, %x)\n"
                                         "      -> (%3)\n"
                                         "  %4 : Tensor = prim::GradOf[name=\"aten::mul\"](%1)\n"
                                         "    block0():\n"
                                         "      %5 : Tensor = aten::mul(%1, %x)\n"
                                         "      -> (%5)\n"
                                         "  %6 : Tensor = prim::AutogradAdd(%2, %4)\n"
                                         "  %7 : Tensor = prim::AutogradAdd(%6, %x)\n"
                                         "  return (%7)\n";

static void test_specialize(void) {
  IrGraph *g = ad_test_parse(grad_of_graph);
  g_assert_true(pass_specialize_autograd_zero(g));
  expect_text(g, "graph(%0 : Tensor[Undefined],\n"
                 "      %1 : Float(2, 3),\n"
                 "      %x : Float(2, 3)):\n"
                 "  %9 : Tensor = prim::AutogradZero()\n"
                 "  %5 : Tensor = aten::mul(%1, %x)\n"
                 "  %10 : int = prim::Constant[value=1]()\n"
                 "  %11 : Tensor = aten::add(%5, %x, %10)\n"
                 "  return (%11)\n");
  g_assert_false(pass_specialize_autograd_zero(g));
  ir_graph_free(g);
}

static void test_lower(void) {
  IrGraph *g = ad_test_parse(grad_of_graph);
  g_assert_true(pass_lower_grad_of(g));
  expect_text(g, "graph(%0 : Tensor[Undefined],\n"
                 "      %1 : Float(2, 3),\n"
                 "      %x : Float(2, 3)):\n"
                 "  %9 : bool = prim::AutogradAnyNonZero(%0)\n"
                 "  %11 : Tensor = prim::If(%9)\n"
                 "    block0():\n"
                 "      %3 : Tensor = aten::mul(%0, %x)\n"
                 "      -> (%3)\n"
                 "    block1():\n"
                 "      %10 : Tensor = prim::AutogradZero()\n"
                 "      -> (%10)\n"
                 "  %12 : bool = prim::AutogradAnyNonZero(%1)\n"
                 "  %14 : Tensor = prim::If(%12)\n"
                 "    block0():\n"
                 "      %5 : Tensor = aten::mul(%1, %x)\n"
                 "      -> (%5)\n"
                 "    block1():\n"
                 "      %13 : Tensor = prim::AutogradZero()\n"
                 "      -> (%13)\n"
                 "  %6 : Tensor = prim::AutogradAdd(%11, %14)\n"
                 "  %7 : Tensor = prim::AutogradAdd(%6, %x)\n"
                 "  return (%7)\n");
  g_assert_false(pass_lower_grad_of(g));
  ir_graph_free(g);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/autodiff/passes/create-chain", test_create_chain);
  g_test_add_func("/autodiff/passes/create-dissolves-small", test_create_dissolves_small);
  g_test_add_func("/autodiff/passes/create-in-blocks", test_create_in_blocks);
  g_test_add_func("/autodiff/passes/create-copies-list", test_create_copies_list);
  g_test_add_func("/autodiff/passes/create-dissolves-list-boundary",
                  test_create_dissolves_list_boundary);
  g_test_add_func("/autodiff/passes/specialize", test_specialize);
  g_test_add_func("/autodiff/passes/lower", test_lower);
  return g_test_run();
}
