/* Tests: dead code elimination, common subexpression elimination, constant pooling. */
#include "pass_test_util.h"

static void test_dce_basic(void) {
  pt_check(pass_eliminate_dead_code,
           "graph(%x : Tensor,\n"
           "      %y : Tensor):\n"
           "  %2 : int = prim::Constant[value=1]()\n"
           "  %3 : Tensor = aten::add(%x, %y, %2)\n"
           "  %4 : Tensor = aten::mul(%x, %y)\n"
           "  %5 : str = prim::Constant[value=\"boom\"]()\n"
           "   = prim::RaiseException(%5)\n"
           "  return (%4)\n",
           "graph(%x : Tensor,\n"
           "      %y : Tensor):\n"
           "  %4 : Tensor = aten::mul(%x, %y)\n"
           "  %5 : str = prim::Constant[value=\"boom\"]()\n"
           "   = prim::RaiseException(%5)\n"
           "  return (%4)\n",
           true);
}

static const char dce_blocks_in[] = "graph(%x : Tensor,\n"
                                    "      %c : bool):\n"
                                    "  %10 : int = prim::Constant[value=1]()\n"
                                    "  %11 : int = prim::Constant[value=3]()\n"
                                    "  %12 : bool = prim::Constant[value=1]()\n"
                                    "  %13 : Tensor, %14 : Tensor = prim::If(%c)\n"
                                    "    block0():\n"
                                    "      %15 : Tensor = aten::neg(%x)\n"
                                    "      -> (%x, %15)\n"
                                    "    block1():\n"
                                    "      %16 : Tensor = aten::exp(%x)\n"
                                    "      -> (%16, %x)\n"
                                    "  %17 : Tensor, %18 : Tensor = prim::Loop(%11, %12, %13, %x)\n"
                                    "    block0(%i : int, %a : Tensor, %b : Tensor):\n"
                                    "      %19 : Tensor = aten::add(%a, %x, %10)\n"
                                    "      %20 : Tensor = aten::mul(%x, %x)\n"
                                    "      -> (%12, %19, %20)\n"
                                    "  return (%17)\n";

static const char dce_blocks_out[] = "graph(%x : Tensor,\n"
                                     "      %c : bool):\n"
                                     "  %10 : int = prim::Constant[value=1]()\n"
                                     "  %11 : int = prim::Constant[value=3]()\n"
                                     "  %12 : bool = prim::Constant[value=1]()\n"
                                     "  %13 : Tensor = prim::If(%c)\n"
                                     "    block0():\n"
                                     "      -> (%x)\n"
                                     "    block1():\n"
                                     "      %16 : Tensor = aten::exp(%x)\n"
                                     "      -> (%16)\n"
                                     "  %17 : Tensor = prim::Loop(%11, %12, %13)\n"
                                     "    block0(%i : int, %a : Tensor):\n"
                                     "      %19 : Tensor = aten::add(%a, %x, %10)\n"
                                     "      -> (%12, %19)\n"
                                     "  return (%17)\n";

static void test_dce_blocks(void) {
  IrGraph *g = pt_parse(dce_blocks_in);
  pt_check_graph(pass_eliminate_dead_code, g, dce_blocks_out, true);
  /* A second run finds nothing: the flag is exact. */
  pt_check_graph(pass_eliminate_dead_code, g, dce_blocks_out, false);
  ir_graph_free(g);
}

/* A carried value whose body input is read is live even when the loop output is unused. */
static void test_dce_loop_carried_read(void) {
  static const char text[] = "graph(%x : Tensor):\n"
                             "  %1 : int = prim::Constant[value=2]()\n"
                             "  %2 : bool = prim::Constant[value=1]()\n"
                             "  %3 : Tensor, %4 : Tensor = prim::Loop(%1, %2, %x, %x)\n"
                             "    block0(%i : int, %a : Tensor, %b : Tensor):\n"
                             "      %5 : Tensor = aten::mul(%a, %b)\n"
                             "      -> (%2, %5, %a)\n"
                             "  return (%3)\n";
  pt_check(pass_eliminate_dead_code, text, text, false);
}

static void test_cse(void) {
  pt_check(pass_eliminate_common_subexpression,
           "graph(%x : Tensor,\n"
           "      %c : bool):\n"
           "  %2 : int = prim::Constant[value=1]()\n"
           "  %3 : bool = prim::Constant[value=1]()\n"
           "  %4 : Tensor = aten::add(%x, %x, %2)\n"
           "  %5 : Tensor = aten::add(%x, %x, %2)\n"
           "  %6 : Tensor = aten::add(%x, %x, %3)\n"
           "  %7 : Tensor = prim::If(%c)\n"
           "    block0():\n"
           "      %8 : Tensor = aten::add(%x, %x, %2)\n"
           "      %9 : Tensor = aten::mul(%8, %5)\n"
           "      -> (%9)\n"
           "    block1():\n"
           "      %10 : Tensor = aten::mul(%4, %4)\n"
           "      -> (%10)\n"
           "  %11 : Tensor = aten::mul(%4, %4)\n"
           "  %12 : int = prim::Constant[value=1]()\n"
           "  %13 : Tensor = aten::add(%11, %6, %12)\n"
           "  return (%13, %7)\n",
           "graph(%x : Tensor,\n"
           "      %c : bool):\n"
           "  %2 : int = prim::Constant[value=1]()\n"
           "  %3 : bool = prim::Constant[value=1]()\n"
           "  %4 : Tensor = aten::add(%x, %x, %2)\n"
           "  %6 : Tensor = aten::add(%x, %x, %3)\n"
           "  %7 : Tensor = prim::If(%c)\n"
           "    block0():\n"
           "      %9 : Tensor = aten::mul(%4, %4)\n"
           "      -> (%9)\n"
           "    block1():\n"
           "      %10 : Tensor = aten::mul(%4, %4)\n"
           "      -> (%10)\n"
           "  %11 : Tensor = aten::mul(%4, %4)\n"
           "  %13 : Tensor = aten::add(%11, %6, %2)\n"
           "  return (%13, %7)\n",
           true);
}

/* Equal inputs but different output types are different computations; RaiseException is
 * never merged. */
static void test_cse_keeps(void) {
  static const char text[] = "graph(%x : Tensor):\n"
                             "  %1 : Float(*, *) = aten::neg(%x)\n"
                             "  %2 : Double(*, *) = aten::neg(%x)\n"
                             "  %3 : str = prim::Constant[value=\"a\"]()\n"
                             "   = prim::RaiseException(%3)\n"
                             "   = prim::RaiseException(%3)\n"
                             "  return (%1, %2)\n";
  pt_check(pass_eliminate_common_subexpression, text, text, false);
}

/* Random ops draw new numbers each time: two rand_like(x), or two dropouts with train=True,
 * stay apart; dropouts with a constant train=False are deterministic and merge. */
static void test_cse_random(void) {
  pt_check(pass_eliminate_common_subexpression,
           "graph(%x : Tensor):\n"
           "  %n : NoneType = prim::Constant()\n"
           "  %p : float = prim::Constant[value=0.5]()\n"
           "  %t : bool = prim::Constant[value=1]()\n"
           "  %f : bool = prim::Constant[value=0]()\n"
           "  %1 : Tensor = aten::rand_like(%x, %n, %n, %n, %n, %n)\n"
           "  %2 : Tensor = aten::rand_like(%x, %n, %n, %n, %n, %n)\n"
           "  %3 : Tensor = aten::dropout(%x, %p, %t)\n"
           "  %4 : Tensor = aten::dropout(%x, %p, %t)\n"
           "  %5 : Tensor = aten::dropout(%x, %p, %f)\n"
           "  %6 : Tensor = aten::dropout(%x, %p, %f)\n"
           "  return (%1, %2, %3, %4, %5, %6)\n",
           "graph(%x : Tensor):\n"
           "  %n : NoneType = prim::Constant()\n"
           "  %p : float = prim::Constant[value=0.5]()\n"
           "  %t : bool = prim::Constant[value=1]()\n"
           "  %f : bool = prim::Constant[value=0]()\n"
           "  %1 : Tensor = aten::rand_like(%x, %n, %n, %n, %n, %n)\n"
           "  %2 : Tensor = aten::rand_like(%x, %n, %n, %n, %n, %n)\n"
           "  %3 : Tensor = aten::dropout(%x, %p, %t)\n"
           "  %4 : Tensor = aten::dropout(%x, %p, %t)\n"
           "  %5 : Tensor = aten::dropout(%x, %p, %f)\n"
           "  return (%1, %2, %3, %4, %5, %5)\n",
           true);
}

static void test_constant_pooling(void) {
  pt_check(pass_constant_pooling,
           "graph(%x : Tensor,\n"
           "      %c : bool):\n"
           "  %2 : int = prim::Constant[value=1]()\n"
           "  %3 : Tensor = aten::add(%x, %x, %2)\n"
           "  %4 : bool = prim::Constant[value=1]()\n"
           "  %5 : Tensor = prim::If(%c)\n"
           "    block0():\n"
           "      %6 : int = prim::Constant[value=1]()\n"
           "      %7 : Tensor = aten::mul(%3, %6)\n"
           "      -> (%7)\n"
           "    block1():\n"
           "      %8 : float = prim::Constant[value=2.5]()\n"
           "      %9 : Tensor = aten::mul(%3, %8)\n"
           "      -> (%9)\n"
           "  %10 : NoneType = prim::Constant()\n"
           "  %11 : int = prim::Constant[value=1]()\n"
           "  %12 : Tensor = aten::sub(%5, %x, %11)\n"
           "  return (%12, %10, %4)\n",
           "graph(%x : Tensor,\n"
           "      %c : bool):\n"
           "  %10 : NoneType = prim::Constant()\n"
           "  %8 : float = prim::Constant[value=2.5]()\n"
           "  %4 : bool = prim::Constant[value=1]()\n"
           "  %2 : int = prim::Constant[value=1]()\n"
           "  %3 : Tensor = aten::add(%x, %x, %2)\n"
           "  %5 : Tensor = prim::If(%c)\n"
           "    block0():\n"
           "      %7 : Tensor = aten::mul(%3, %2)\n"
           "      -> (%7)\n"
           "    block1():\n"
           "      %9 : Tensor = aten::mul(%3, %8)\n"
           "      -> (%9)\n"
           "  %12 : Tensor = aten::sub(%5, %x, %2)\n"
           "  return (%12, %10, %4)\n",
           true);
}

static void test_constant_pooling_nothing(void) {
  static const char text[] = "graph(%x : Tensor):\n"
                             "  %1 : int = prim::Constant[value=1]()\n"
                             "  %2 : Tensor = aten::add(%x, %x, %1)\n"
                             "  return (%2)\n";
  pt_check(pass_constant_pooling, text, text, false);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/passes/dce/basic", test_dce_basic);
  g_test_add_func("/passes/dce/blocks", test_dce_blocks);
  g_test_add_func("/passes/dce/loop-carried-read", test_dce_loop_carried_read);
  g_test_add_func("/passes/cse/scoped", test_cse);
  g_test_add_func("/passes/cse/keeps", test_cse_keeps);
  g_test_add_func("/passes/cse/random", test_cse_random);
  g_test_add_func("/passes/constant-pooling/hoist", test_constant_pooling);
  g_test_add_func("/passes/constant-pooling/nothing", test_constant_pooling_nothing);
  return g_test_run();
}
