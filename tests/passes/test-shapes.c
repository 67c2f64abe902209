/* Tests: shape propagation (pass_propagate_input_shapes) and requires_grad propagation. */
#include "pass-test-util.h"

#include "lstm-cell.h"

static const char lstm_out[] =
  LSTM_HEADER
  "  %9 : Float(*, *) = aten::t(%w_ih.1)\n"
  "  %10 : Float(*, *) = aten::mm(%x.1, %9)\n"
  "  %13 : Float(*, *) = aten::t(%w_hh.1)\n"
  "  %14 : Float(*, *) = aten::mm(%hx.1, %13)\n"
  "  %16 : Float(*, *) = aten::add(%10, %14, %25)\n"
  "  %19 : Float(*, *) = aten::add(%16, %b_ih.1, %25)\n"
  "  %gates.1 : Float(*, *) = aten::add(%19, %b_hh.1, %25)\n"
  "  %26 : Tensor[] = aten::chunk(%gates.1, %24, %25)\n"
  "  %ingate.1 : Float(*, *), %forgetgate.1 : Float(*, *), %cellgate.1 : Float(*, *), "
  "%outgate.1 : Float(*, *) = prim::ListUnpack(%26)\n"
  "  %ingate.5 : Float(*, *) = aten::sigmoid(%ingate.1)\n"
  "  %forgetgate.5 : Float(*, *) = aten::sigmoid(%forgetgate.1)\n"
  "  %cellgate.5 : Float(*, *) = aten::tanh(%cellgate.1)\n"
  "  %outgate.5 : Float(*, *) = aten::sigmoid(%outgate.1)\n"
  "  %41 : Float(*, *) = aten::mul(%forgetgate.5, %cx.1)\n"
  "  %44 : Float(*, *) = aten::mul(%ingate.5, %cellgate.5)\n"
  "  %cy.1 : Float(*, *) = aten::add(%41, %44, %25)\n"
  "  %49 : Float(*, *) = aten::tanh(%cy.1)\n"
  "  %hy.1 : Float(*, *) = aten::mul(%outgate.5, %49)\n"
  "  %53 : (Float(*, *), Float(*, *)) = prim::TupleConstruct(%hy.1, %cy.1)\n"
  "  return (%53)\n";

static void
test_shapes_lstm(void)
{
  IrGraph *g = pt_parse(lstm_in);
  pt_check_graph(pass_propagate_input_shapes, g, lstm_out, true);
  pt_check_graph(pass_propagate_input_shapes, g, lstm_out, false);
  ir_graph_free(g);
}

#define COMPLETE_X "Float(2, 3, strides=[3, 1], device=cpu)"

static const char rules_in[] =
  "graph(%x : " COMPLETE_X ",\n"
  "      %y : Double(*, device=cpu),\n"
  "      %c : bool):\n"
  "  %1 : int = prim::Constant[value=1]()\n"
  "  %2 : int = prim::Constant[value=4]()\n"
  "  %3 : Tensor = aten::sigmoid(%x)\n"
  "  %4 : Tensor = aten::add(%x, %y, %1)\n"
  "  %5 : Tensor = aten::gt(%x, %1)\n"
  "  %6 : Tensor = aten::sum(%x)\n"
  "  %7 : Tensor = aten::t(%x)\n"
  "  %8 : Tensor = aten::mm(%7, %x)\n"
  "  %9 : Tensor = aten::unsqueeze(%x, %1)\n"
  "  %10 : Tensor = aten::type_as(%x, %y)\n"
  "  %11 : Tensor = prim::If(%c)\n"
  "    block0():\n"
  "      -> (%3)\n"
  "    block1():\n"
  "      %12 : Tensor = aten::neg(%x)\n"
  "      -> (%12)\n"
  "  %13 : Tensor = prim::Loop(%2, %c, %x)\n"
  "    block0(%i : int, %a : Tensor):\n"
  "      %14 : Tensor = aten::unsqueeze(%a, %1)\n"
  "      -> (%c, %14)\n"
  "  %15 : Tensor = prim::Loop(%2, %c, %x)\n"
  "    block0(%j : int, %b : Tensor):\n"
  "      %16 : Tensor = aten::mul(%b, %1)\n"
  "      -> (%c, %16)\n"
  "  return (%4, %5, %6, %8, %9, %10, %11, %13, %15)\n";

static const char rules_out[] =
  "graph(%x : " COMPLETE_X ",\n"
  "      %y : Double(*, device=cpu),\n"
  "      %c : bool):\n"
  "  %1 : int = prim::Constant[value=1]()\n"
  "  %2 : int = prim::Constant[value=4]()\n"
  "  %3 : " COMPLETE_X " = aten::sigmoid(%x)\n"
  "  %4 : Double(*, *, device=cpu) = aten::add(%x, %y, %1)\n"
  "  %5 : Bool(2, 3, strides=[3, 1], device=cpu) = aten::gt(%x, %1)\n"
  "  %6 : Float(device=cpu) = aten::sum(%x)\n"
  "  %7 : Float(3, 2, strides=[1, 3], device=cpu) = aten::t(%x)\n"
  "  %8 : Float(3, 3, strides=[3, 1], device=cpu) = aten::mm(%7, %x)\n"
  "  %9 : Float(2, 1, 3, strides=[3, 3, 1], device=cpu) = aten::unsqueeze(%x, %1)\n"
  "  %10 : Double(2, 3, strides=[3, 1], device=cpu) = aten::type_as(%x, %y)\n"
  "  %11 : " COMPLETE_X " = prim::If(%c)\n"
  "    block0():\n"
  "      -> (%3)\n"
  "    block1():\n"
  "      %12 : " COMPLETE_X " = aten::neg(%x)\n"
  "      -> (%12)\n"
  "  %13 : Tensor = prim::Loop(%2, %c, %x)\n"
  "    block0(%i : int, %a : Tensor):\n"
  "      %14 : Tensor = aten::unsqueeze(%a, %1)\n"
  "      -> (%c, %14)\n"
  "  %15 : " COMPLETE_X " = prim::Loop(%2, %c, %x)\n"
  "    block0(%j : int, %b : " COMPLETE_X "):\n"
  "      %16 : " COMPLETE_X " = aten::mul(%b, %1)\n"
  "      -> (%c, %16)\n"
  "  return (%4, %5, %6, %8, %9, %10, %11, %13, %15)\n";

static void
test_shapes_rules_and_blocks(void)
{
  IrGraph *g = pt_parse(rules_in);
  pt_check_graph(pass_propagate_input_shapes, g, rules_out, true);
  pt_check_graph(pass_propagate_input_shapes, g, rules_out, false);
  ir_graph_free(g);
}

/* conv2d, max_pool2d (an empty stride, ceil_mode), adaptive_avg_pool2d and group_norm on
 * complete inputs; conv1d on sizes unknown keeps the rank and dtype. */
static const char conv_pool_in[] =
  "graph(%x : Float(2, 3, 7, 6, strides=[126, 42, 6, 1], device=cpu),\n"
  "      %w : Float(4, 3, 3, 3, strides=[27, 9, 3, 1], device=cpu),\n"
  "      %u : Double(*, *, *, device=cpu),\n"
  "      %v : Double(*, *, *, device=cpu)):\n"
  "  %none : NoneType = prim::Constant()\n"
  "  %t : bool = prim::Constant[value=1]()\n"
  "  %1 : int = prim::Constant[value=1]()\n"
  "  %2 : int = prim::Constant[value=2]()\n"
  "  %eps : float = prim::Constant[value=0.10000000000000001]()\n"
  "  %ones : int[] = prim::Constant[value=[1, 1]]()\n"
  "  %zeros : int[] = prim::Constant[value=[0, 0]]()\n"
  "  %empty : int[] = prim::Constant[value=annotate(List[int], [])]()\n"
  "  %s : int[] = prim::ListConstruct(%2, %2)\n"
  "  %p : int[] = prim::ListConstruct(%1)\n"
  "  %c : Tensor = aten::conv2d(%x, %w, %none, %s, %p, %ones, %1)\n"
  "  %m : Tensor = aten::max_pool2d(%x, %s, %empty, %zeros, %ones, %t)\n"
  "  %a : Tensor = aten::adaptive_avg_pool2d(%x, %ones)\n"
  "  %g : Tensor = aten::group_norm(%x, %1, %none, %none, %eps, %t)\n"
  "  %d : Tensor = aten::conv1d(%u, %v, %none, %p, %p, %p, %1)\n"
  "  return (%c, %m, %a, %g, %d)\n";

static const char conv_pool_out[] =
  "graph(%x : Float(2, 3, 7, 6, strides=[126, 42, 6, 1], device=cpu),\n"
  "      %w : Float(4, 3, 3, 3, strides=[27, 9, 3, 1], device=cpu),\n"
  "      %u : Double(*, *, *, device=cpu),\n"
  "      %v : Double(*, *, *, device=cpu)):\n"
  "  %none : NoneType = prim::Constant()\n"
  "  %t : bool = prim::Constant[value=1]()\n"
  "  %1 : int = prim::Constant[value=1]()\n"
  "  %2 : int = prim::Constant[value=2]()\n"
  "  %eps : float = prim::Constant[value=0.10000000000000001]()\n"
  "  %ones : int[] = prim::Constant[value=[1, 1]]()\n"
  "  %zeros : int[] = prim::Constant[value=[0, 0]]()\n"
  "  %empty : int[] = prim::Constant[value=[]]()\n"
  "  %s : int[] = prim::ListConstruct(%2, %2)\n"
  "  %p : int[] = prim::ListConstruct(%1)\n"
  "  %c : Float(2, 4, 4, 3, strides=[48, 12, 3, 1], device=cpu) = "
  "aten::conv2d(%x, %w, %none, %s, %p, %ones, %1)\n"
  "  %m : Float(2, 3, 4, 3, strides=[36, 12, 3, 1], device=cpu) = "
  "aten::max_pool2d(%x, %s, %empty, %zeros, %ones, %t)\n"
  "  %a : Float(2, 3, 1, 1, strides=[3, 1, 1, 1], device=cpu) = "
  "aten::adaptive_avg_pool2d(%x, %ones)\n"
  "  %g : Float(2, 3, 7, 6, strides=[126, 42, 6, 1], device=cpu) = "
  "aten::group_norm(%x, %1, %none, %none, %eps, %t)\n"
  "  %d : Double(*, *, *, device=cpu) = aten::conv1d(%u, %v, %none, %p, %p, %p, %1)\n"
  "  return (%c, %m, %a, %g, %d)\n";

static void
test_shapes_conv_pool(void)
{
  IrGraph *g = pt_parse(conv_pool_in);
  pt_check_graph(pass_propagate_input_shapes, g, conv_pool_out, true);
  ir_graph_free(g);
}

/* requires_grad is the other pass's business: shape propagation keeps it; an unknown
 * _grad_sum_to_size size gives Tensor; a None size keeps the input's type. */
static void
test_shapes_keep_requires_grad(void)
{
  pt_check(pass_propagate_input_shapes,
           "graph(%x : Float(*, *, requires_grad=1),\n"
           "      %s : int[]?):\n"
           "  %1 : NoneType = prim::Constant()\n"
           "  %2 : Tensor(requires_grad=0) = aten::neg(%x)\n"
           "  %3 : Tensor = aten::_grad_sum_to_size(%2, %s)\n"
           "  %4 : Tensor = aten::_grad_sum_to_size(%2, %1)\n"
           "  return (%3, %4)\n",
           "graph(%x : Float(*, *, requires_grad=1),\n"
           "      %s : int[]?):\n"
           "  %1 : NoneType = prim::Constant()\n"
           "  %2 : Float(*, *, requires_grad=0) = aten::neg(%x)\n"
           "  %3 : Tensor = aten::_grad_sum_to_size(%2, %s)\n"
           "  %4 : Float(*, *) = aten::_grad_sum_to_size(%2, %1)\n"
           "  return (%3, %4)\n",
           true);
}

static const char rg_out[] =
  "graph(%x : Float(*, *, requires_grad=0),\n"
  "      %w : Float(*, *, requires_grad=1),\n"
  "      %c : bool):\n"
  "  %1 : int = prim::Constant[value=1]()\n"
  "  %2 : int = prim::Constant[value=3]()\n"
  "  %3 : Float(*, *, requires_grad=1) = aten::mm(%x, %w)\n"
  "  %4 : Bool(*, *, requires_grad=0) = aten::gt(%3, %1)\n"
  "  %5 : Float(*, *, requires_grad=0) = aten::type_as(%4, %3)\n"
  "  %6 : Float(*, *, requires_grad=0) = aten::mul(%x, %x)\n"
  "  %7 : Float(*, *, requires_grad=1) = prim::If(%c)\n"
  "    block0():\n"
  "      -> (%x)\n"
  "    block1():\n"
  "      -> (%3)\n"
  "  %8 : Float(*, *, requires_grad=1), %9 : Float(*, *, requires_grad=1) = "
  "prim::Loop(%2, %c, %x, %x)\n"
  "    block0(%i : int, %a : Float(*, *, requires_grad=1), %b : Float(*, *, requires_grad=1)):\n"
  "      %10 : Float(*, *, requires_grad=1) = aten::mul(%b, %w)\n"
  "      -> (%c, %10, %a)\n"
  "  return (%4, %5, %6, %7, %8, %9)\n";

static void
test_requires_grad(void)
{
  IrGraph *g = pt_parse(
    "graph(%x : Float(*, *, requires_grad=0),\n"
    "      %w : Float(*, *, requires_grad=1),\n"
    "      %c : bool):\n"
    "  %1 : int = prim::Constant[value=1]()\n"
    "  %2 : int = prim::Constant[value=3]()\n"
    "  %3 : Float(*, *) = aten::mm(%x, %w)\n"
    "  %4 : Bool(*, *) = aten::gt(%3, %1)\n"
    "  %5 : Float(*, *) = aten::type_as(%4, %3)\n"
    "  %6 : Float(*, *) = aten::mul(%x, %x)\n"
    "  %7 : Float(*, *) = prim::If(%c)\n"
    "    block0():\n"
    "      -> (%x)\n"
    "    block1():\n"
    "      -> (%3)\n"
    "  %8 : Float(*, *), %9 : Float(*, *) = prim::Loop(%2, %c, %x, %x)\n"
    "    block0(%i : int, %a : Float(*, *), %b : Float(*, *)):\n"
    "      %10 : Float(*, *) = aten::mul(%b, %w)\n"
    "      -> (%c, %10, %a)\n"
    "  return (%4, %5, %6, %7, %8, %9)\n");
  pt_check_graph(pass_propagate_requires_grad, g, rg_out, true);
  pt_check_graph(pass_propagate_requires_grad, g, rg_out, false);
  ir_graph_free(g);
}

int
main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/passes/shapes/lstm", test_shapes_lstm);
  g_test_add_func("/passes/shapes/rules-and-blocks", test_shapes_rules_and_blocks);
  g_test_add_func("/passes/shapes/keep-requires-grad", test_shapes_keep_requires_grad);
  g_test_add_func("/passes/shapes/conv-and-pool", test_shapes_conv_pool);
  g_test_add_func("/passes/requires-grad/blocks-and-loops", test_requires_grad);
  return g_test_run();
}
