/* Tests: constant propagation and the peephole optimizer. */
#include "pass_test_util.h"

#include <string.h>

static void test_propagation_fold_and_inline(void) {
  pt_check(pass_constant_propagation,
           "graph(%x : Tensor):\n"
           "  %1 : int = prim::Constant[value=2]()\n"
           "  %2 : int = prim::Constant[value=3]()\n"
           "  %3 : int = aten::add(%1, %2)\n"
           "  %4 : int = aten::mul(%3, %2)\n"
           "  %5 : bool = aten::gt(%4, %1)\n"
           "  %6 : int[] = prim::ListConstruct(%3, %4)\n"
           "  %7 : int[] = prim::ListConstruct(%3, %4)\n"
           "  %8 : int[]? = aten::_size_if_not_equal(%6, %7)\n"
           "  %9 : Tensor = aten::mul(%x, %4)\n"
           "  %10 : Tensor = prim::If(%5)\n"
           "    block0():\n"
           "      %11 : Tensor = aten::add(%9, %3, %1)\n"
           "      -> (%11)\n"
           "    block1():\n"
           "      -> (%x)\n"
           "  %12 : Tensor = aten::_grad_sum_to_size(%10, %8)\n"
           "  return (%12)\n",
           "graph(%x : Tensor):\n"
           "  %1 : int = prim::Constant[value=2]()\n"
           "  %2 : int = prim::Constant[value=3]()\n"
           "  %14 : int = prim::Constant[value=5]()\n"
           "  %15 : int = prim::Constant[value=15]()\n"
           "  %16 : bool = prim::Constant[value=1]()\n"
           "  %17 : int[] = prim::Constant[value=[5, 15]]()\n"
           "  %18 : int[] = prim::Constant[value=[5, 15]]()\n"
           "  %19 : int[]? = prim::Constant()\n"
           "  %9 : Tensor = aten::mul(%x, %15)\n"
           "  %11 : Tensor = aten::add(%9, %14, %1)\n"
           "  %12 : Tensor = aten::_grad_sum_to_size(%11, %19)\n"
           "  return (%12)\n",
           true);
}

static void test_propagation_loop_and_is(void) {
  pt_check(pass_constant_propagation,
           "graph(%x : Tensor,\n"
           "      %o : int[]?):\n"
           "  %1 : int = prim::Constant[value=0]()\n"
           "  %2 : bool = prim::Constant[value=1]()\n"
           "  %3 : Tensor = prim::Loop(%1, %2, %x)\n"
           "    block0(%i : int, %a : Tensor):\n"
           "      %4 : Tensor = aten::neg(%a)\n"
           "      -> (%2, %4)\n"
           "  %5 : NoneType = prim::Constant()\n"
           "  %6 : bool = aten::__is__(%5, %5)\n"
           "  %7 : bool = aten::__isnot__(%x, %5)\n"
           "  %8 : bool = aten::__is__(%o, %5)\n"
           "  return (%3, %6, %7, %8)\n",
           "graph(%x : Tensor,\n"
           "      %o : int[]?):\n"
           "  %1 : int = prim::Constant[value=0]()\n"
           "  %2 : bool = prim::Constant[value=1]()\n"
           "  %5 : NoneType = prim::Constant()\n"
           "  %13 : bool = prim::Constant[value=1]()\n"
           "  %14 : bool = prim::Constant[value=1]()\n"
           "  %8 : bool = aten::__is__(%o, %5)\n"
           "  return (%x, %13, %14, %8)\n",
           true);
}

/* Tensor results are never folded (documented deviation); nothing else to do here. */
static void test_propagation_keeps_tensors(void) {
  static const char text[] = "graph(%x : Tensor):\n"
                             "  %1 : int = prim::Constant[value=2]()\n"
                             "  %2 : Tensor = aten::mul(%x, %1)\n"
                             "  return (%2)\n";
  pt_check(pass_constant_propagation, text, text, false);
}

/* #18697: the spec made the size None; the peephole drops the _grad_sum_to_size. */
/* rand with constant arguments is no constant: each run draws new numbers. */
static void test_propagation_keeps_random(void) {
  static const char text[] = "graph():\n"
                             "  %n : NoneType = prim::Constant()\n"
                             "  %1 : int = prim::Constant[value=3]()\n"
                             "  %2 : int[] = prim::ListConstruct(%1)\n"
                             "  %3 : Tensor = aten::rand(%2, %n, %n, %n, %n)\n"
                             "  return (%3)\n";
  IrGraph *graph = pt_parse(text);
  pass_constant_propagation(graph);
  g_autofree char *printed = pt_print(graph);
  g_assert_nonnull(strstr(printed, "aten::rand("));
  ir_graph_free(graph);
}

static void test_peephole_grad_sum_to_size_none(void) {
  pt_check(pass_peephole,
           "graph(%x : Float(*, *)):\n"
           "  %1 : NoneType = prim::Constant()\n"
           "  %2 : Tensor = aten::_grad_sum_to_size(%x, %1)\n"
           "  %3 : Tensor = aten::mul(%2, %2)\n"
           "  return (%3)\n",
           "graph(%x : Float(*, *)):\n"
           "  %1 : NoneType = prim::Constant()\n"
           "  %2 : Tensor = aten::_grad_sum_to_size(%x, %1)\n"
           "  %3 : Tensor = aten::mul(%x, %x)\n"
           "  return (%3)\n",
           true);
}

/* Nested: the outer size wins only when it is a concrete int[] (not int[]?). */
static void test_peephole_grad_sum_to_size_nested(void) {
  pt_check(pass_peephole,
           "graph(%x : Float(*, *),\n"
           "      %s1 : int[]?,\n"
           "      %s2 : int[],\n"
           "      %s3 : int[]?):\n"
           "  %1 : Tensor = aten::_grad_sum_to_size(%x, %s1)\n"
           "  %2 : Tensor = aten::_grad_sum_to_size(%1, %s2)\n"
           "  %3 : Tensor = aten::_grad_sum_to_size(%1, %s3)\n"
           "  return (%2, %3)\n",
           "graph(%x : Float(*, *),\n"
           "      %s1 : int[]?,\n"
           "      %s2 : int[],\n"
           "      %s3 : int[]?):\n"
           "  %1 : Tensor = aten::_grad_sum_to_size(%x, %s1)\n"
           "  %2 : Tensor = aten::_grad_sum_to_size(%x, %s2)\n"
           "  %3 : Tensor = aten::_grad_sum_to_size(%1, %s3)\n"
           "  return (%2, %3)\n",
           true);
}

static void test_peephole_algebra(void) {
  pt_check(pass_peephole,
           "graph(%x : Float(2, 3, strides=[3, 1], device=cpu),\n"
           "      %y : Double(*, *, device=cpu)):\n"
           "  %1 : int = prim::Constant[value=0]()\n"
           "  %2 : int = prim::Constant[value=1]()\n"
           "  %3 : int[] = prim::Constant[value=[2, 3]]()\n"
           "  %4 : bool = prim::Constant[value=0]()\n"
           "  %5 : Float(2, 3, strides=[3, 1], device=cpu) = aten::expand(%x, %3, %4)\n"
           "  %6 : Tensor = aten::t(%5)\n"
           "  %7 : Tensor = aten::t(%6)\n"
           "  %8 : Float(2, 3, strides=[3, 1], device=cpu) = aten::add(%7, %1, %2)\n"
           "  %9 : Float(2, 3, strides=[3, 1], device=cpu) = aten::mul(%x, %2)\n"
           "  %10 : Double(*, *, device=cpu) = aten::div(%y, %2)\n"
           "  %11 : Float(2, 3, strides=[3, 1], device=cpu) = aten::type_as(%9, %x)\n"
           "  %12 : int[] = aten::size(%x)\n"
           "  %13 : Double(*, *, device=cpu) = aten::sub(%y, %1, %2)\n"
           "  return (%8, %10, %11, %12, %13)\n",
           "graph(%x : Float(2, 3, strides=[3, 1], device=cpu),\n"
           "      %y : Double(*, *, device=cpu)):\n"
           "  %1 : int = prim::Constant[value=0]()\n"
           "  %2 : int = prim::Constant[value=1]()\n"
           "  %3 : int[] = prim::Constant[value=[2, 3]]()\n"
           "  %4 : bool = prim::Constant[value=0]()\n"
           "  %5 : Float(2, 3, strides=[3, 1], device=cpu) = aten::expand(%x, %3, %4)\n"
           "  %6 : Tensor = aten::t(%x)\n"
           "  %7 : Tensor = aten::t(%6)\n"
           "  %8 : Float(2, 3, strides=[3, 1], device=cpu) = aten::add(%x, %1, %2)\n"
           "  %9 : Float(2, 3, strides=[3, 1], device=cpu) = aten::mul(%x, %2)\n"
           "  %10 : Double(*, *, device=cpu) = aten::div(%y, %2)\n"
           "  %11 : Float(2, 3, strides=[3, 1], device=cpu) = aten::type_as(%x, %x)\n"
           "  %16 : int[] = prim::Constant[value=[2, 3]]()\n"
           "  %12 : int[] = aten::size(%x)\n"
           "  %13 : Double(*, *, device=cpu) = aten::sub(%y, %1, %2)\n"
           "  return (%x, %y, %x, %16, %y)\n",
           true);
}

/* The identities need known, identical types; alpha != 1 or a non-neutral constant stays. */
static void test_peephole_algebra_keeps(void) {
  /* alpha != 1, a factor other than 1, and an integral tensor (whose dtype a scalar could
   * promote) stay; add(x, 0, 1) of an unknown tensor goes, as in PyTorch's peephole. */
  pt_check(pass_peephole,
           "graph(%x : Tensor,\n"
           "      %y : Float(*, *),\n"
           "      %z : Long(*)):\n"
           "  %1 : int = prim::Constant[value=0]()\n"
           "  %2 : int = prim::Constant[value=1]()\n"
           "  %3 : int = prim::Constant[value=2]()\n"
           "  %4 : Tensor = aten::add(%x, %1, %2)\n"
           "  %5 : Float(*, *) = aten::add(%y, %1, %3)\n"
           "  %6 : Float(*, *) = aten::mul(%y, %3)\n"
           "  %7 : Long(*) = aten::mul(%z, %2)\n"
           "  %8 : int[] = aten::size(%y)\n"
           "  return (%4, %5, %6, %7, %8)\n",
           "graph(%x : Tensor,\n"
           "      %y : Float(*, *),\n"
           "      %z : Long(*)):\n"
           "  %1 : int = prim::Constant[value=0]()\n"
           "  %2 : int = prim::Constant[value=1]()\n"
           "  %3 : int = prim::Constant[value=2]()\n"
           "  %4 : Tensor = aten::add(%x, %1, %2)\n"
           "  %5 : Float(*, *) = aten::add(%y, %1, %3)\n"
           "  %6 : Float(*, *) = aten::mul(%y, %3)\n"
           "  %7 : Long(*) = aten::mul(%z, %2)\n"
           "  %8 : int[] = aten::size(%y)\n"
           "  return (%x, %5, %6, %7, %8)\n",
           true);
}

static void test_peephole_if_and_is(void) {
  pt_check(pass_peephole,
           "graph(%c : bool,\n"
           "      %x : Tensor):\n"
           "  %1 : bool = prim::Constant[value=1]()\n"
           "  %2 : bool = prim::Constant[value=0]()\n"
           "  %3 : Tensor, %4 : bool = prim::If(%c)\n"
           "    block0():\n"
           "      -> (%x, %1)\n"
           "    block1():\n"
           "      -> (%x, %2)\n"
           "  %5 : NoneType = prim::Constant()\n"
           "  %6 : bool = aten::__is__(%x, %5)\n"
           "  %7 : bool = aten::__isnot__(%5, %x)\n"
           "  return (%3, %4, %6, %7)\n",
           "graph(%c : bool,\n"
           "      %x : Tensor):\n"
           "  %1 : bool = prim::Constant[value=1]()\n"
           "  %2 : bool = prim::Constant[value=0]()\n"
           "  %3 : Tensor, %4 : bool = prim::If(%c)\n"
           "    block0():\n"
           "      -> (%x, %1)\n"
           "    block1():\n"
           "      -> (%x, %2)\n"
           "  %5 : NoneType = prim::Constant()\n"
           "  %10 : bool = prim::Constant[value=0]()\n"
           "  %6 : bool = aten::__is__(%x, %5)\n"
           "  %11 : bool = prim::Constant[value=1]()\n"
           "  %7 : bool = aten::__isnot__(%5, %x)\n"
           "  return (%x, %c, %10, %11)\n",
           true);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/passes/constant-propagation/fold-and-inline", test_propagation_fold_and_inline);
  g_test_add_func("/passes/constant-propagation/loop-and-is", test_propagation_loop_and_is);
  g_test_add_func("/passes/constant-propagation/keeps-tensors", test_propagation_keeps_tensors);
  g_test_add_func("/passes/constant-propagation/keeps-random", test_propagation_keeps_random);
  g_test_add_func("/passes/peephole/grad-sum-to-size-none", test_peephole_grad_sum_to_size_none);
  g_test_add_func("/passes/peephole/grad-sum-to-size-nested",
                  test_peephole_grad_sum_to_size_nested);
  g_test_add_func("/passes/peephole/algebra", test_peephole_algebra);
  g_test_add_func("/passes/peephole/algebra-keeps", test_peephole_algebra_keeps);
  g_test_add_func("/passes/peephole/if-and-is", test_peephole_if_and_is);
  return g_test_run();
}
