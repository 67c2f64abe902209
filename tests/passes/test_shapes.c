/* Tests: shape propagation (pass_propagate_input_shapes) and requires_grad propagation. */
#include "pass_test_util.h"

#include "lstm_cell.h"

static const char lstm_out[] = LSTM_HEADER
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

static void test_shapes_lstm(void) {
  IrGraph *g = pt_parse(lstm_in);
  pt_check_graph(pass_propagate_input_shapes, g, lstm_out, true);
  pt_check_graph(pass_propagate_input_shapes, g, lstm_out, false);
  ir_graph_free(g);
}

#define COMPLETE_X "Float(2, 3, strides=[3, 1], device=cpu)"

static const char rules_in[] = "graph(%x : " COMPLETE_X ",\n"
                               "      %y : Double(*, device=cpu),\n"
                               "      %c : bool):\n"
                               "  %1 : int = prim::Constant[value=1]()\n"
                               "  %2 : int = prim::Constant[value=4]()\n"
                               "  %n : NoneType = prim::Constant()\n"
                               "  %k : bool = prim::Constant[value=1]()\n"
                               "  %3 : Tensor = aten::sigmoid(%x)\n"
                               "  %4 : Tensor = aten::add(%x, %y, %1)\n"
                               "  %5 : Tensor = aten::gt(%x, %1)\n"
                               "  %17 : Tensor = aten::square(%5)\n"
                               "  %18 : Tensor = aten::cumprod(%5, %1, %n)\n"
                               "  %19 : Tensor = aten::prod(%5, %n)\n"
                               "  %20 : Tensor = aten::prod(%x, %1, %k, %n)\n"
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
                               "  return (%4, %5, %6, %8, %9, %10, %11, %13, %15, %17, %18, %19, "
                               "%20)\n";

static const char rules_out[] =
    "graph(%x : " COMPLETE_X ",\n"
    "      %y : Double(*, device=cpu),\n"
    "      %c : bool):\n"
    "  %1 : int = prim::Constant[value=1]()\n"
    "  %2 : int = prim::Constant[value=4]()\n"
    "  %n : NoneType = prim::Constant()\n"
    "  %k : bool = prim::Constant[value=1]()\n"
    "  %3 : " COMPLETE_X " = aten::sigmoid(%x)\n"
    "  %4 : Double(*, *, device=cpu) = aten::add(%x, %y, %1)\n"
    "  %5 : Bool(2, 3, strides=[3, 1], device=cpu) = aten::gt(%x, %1)\n"
    "  %17 : Long(2, 3, strides=[3, 1], device=cpu) = aten::square(%5)\n"
    "  %18 : Long(2, 3, strides=[3, 1], device=cpu) = aten::cumprod(%5, %1, %n)\n"
    "  %19 : Long(device=cpu) = aten::prod(%5, %n)\n"
    "  %20 : Float(2, 1, strides=[1, 1], device=cpu) = aten::prod(%x, %1, %k, %n)\n"
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
    "  return (%4, %5, %6, %8, %9, %10, %11, %13, %15, %17, %18, %19, "
    "%20)\n";

static void test_shapes_rules_and_blocks(void) {
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

static void test_shapes_conv_pool(void) {
  IrGraph *g = pt_parse(conv_pool_in);
  pt_check_graph(pass_propagate_input_shapes, g, conv_pool_out, true);
  ir_graph_free(g);
}

/* The 1-D poolings on [N, C, W] and [C, W]: an empty stride, ceil_mode, dilation, adaptive
 * sizes (sizes from PyTorch 1.13); a width unknown keeps the rank and dtype. */
static const char pool1d_in[] =
    "graph(%x : Float(2, 3, 7, strides=[21, 7, 1], device=cpu),\n"
    "      %y : Double(3, 7, strides=[7, 1], device=cpu),\n"
    "      %u : Float(2, 3, *, device=cpu)):\n"
    "  %t : bool = prim::Constant[value=1]()\n"
    "  %f : bool = prim::Constant[value=0]()\n"
    "  %k3 : int[] = prim::Constant[value=[3]]()\n"
    "  %k2 : int[] = prim::Constant[value=[2]]()\n"
    "  %one : int[] = prim::Constant[value=[1]]()\n"
    "  %zero : int[] = prim::Constant[value=[0]]()\n"
    "  %four : int[] = prim::Constant[value=[4]]()\n"
    "  %five : int[] = prim::Constant[value=[5]]()\n"
    "  %empty : int[] = prim::Constant[value=[]]()\n"
    "  %m : Tensor = aten::max_pool1d(%x, %k3, %empty, %one, %one, %t)\n"
    "  %a : Tensor = aten::avg_pool1d(%x, %k2, %k2, %zero, %f, %t)\n"
    "  %aa : Tensor = aten::adaptive_avg_pool1d(%x, %four)\n"
    "  %am : Tensor, %ai : Tensor = aten::adaptive_max_pool1d(%y, %five)\n"
    "  %mi : Tensor, %ii : Tensor = aten::max_pool1d_with_indices(%y, %k2, %one, %one, %k2, %f)\n"
    "  %mu : Tensor = aten::max_pool1d(%u, %k3, %empty, %one, %one, %t)\n"
    "  return (%m, %a, %aa, %am, %mi, %mu)\n";

static const char pool1d_out[] =
    "graph(%x : Float(2, 3, 7, strides=[21, 7, 1], device=cpu),\n"
    "      %y : Double(3, 7, strides=[7, 1], device=cpu),\n"
    "      %u : Float(2, 3, *, device=cpu)):\n"
    "  %t : bool = prim::Constant[value=1]()\n"
    "  %f : bool = prim::Constant[value=0]()\n"
    "  %k3 : int[] = prim::Constant[value=[3]]()\n"
    "  %k2 : int[] = prim::Constant[value=[2]]()\n"
    "  %one : int[] = prim::Constant[value=[1]]()\n"
    "  %zero : int[] = prim::Constant[value=[0]]()\n"
    "  %four : int[] = prim::Constant[value=[4]]()\n"
    "  %five : int[] = prim::Constant[value=[5]]()\n"
    "  %empty : int[] = prim::Constant[value=[]]()\n"
    "  %m : Float(2, 3, 3, strides=[9, 3, 1], device=cpu) = "
    "aten::max_pool1d(%x, %k3, %empty, %one, %one, %t)\n"
    "  %a : Float(2, 3, 3, strides=[9, 3, 1], device=cpu) = "
    "aten::avg_pool1d(%x, %k2, %k2, %zero, %f, %t)\n"
    "  %aa : Float(2, 3, 4, strides=[12, 4, 1], device=cpu) = "
    "aten::adaptive_avg_pool1d(%x, %four)\n"
    "  %am : Double(3, 5, strides=[5, 1], device=cpu), %ai : Tensor = "
    "aten::adaptive_max_pool1d(%y, %five)\n"
    "  %mi : Double(3, 7, strides=[7, 1], device=cpu), %ii : Tensor = "
    "aten::max_pool1d_with_indices(%y, %k2, %one, %one, %k2, %f)\n"
    "  %mu : Float(*, *, *, device=cpu) = aten::max_pool1d(%u, %k3, %empty, %one, %one, %t)\n"
    "  return (%m, %a, %aa, %am, %mi, %mu)\n";

static void test_shapes_pool1d(void) {
  IrGraph *g = pt_parse(pool1d_in);
  pt_check_graph(pass_propagate_input_shapes, g, pool1d_out, true);
  ir_graph_free(g);
}

/* conv2d.padding: 'same' keeps the input's sizes (even with an even kernel), 'valid' pads
 * nothing; a strided 'same' (an error at run time) keeps only the rank and dtype. */
static void test_shapes_conv_padding_mode(void) {
  IrGraph *g = pt_parse("graph(%x : Float(2, 3, 7, 6, strides=[126, 42, 6, 1], device=cpu),\n"
                        "      %w : Float(4, 3, 2, 3, strides=[18, 6, 3, 1], device=cpu)):\n"
                        "  %none : NoneType = prim::Constant()\n"
                        "  %1 : int = prim::Constant[value=1]()\n"
                        "  %same : str = prim::Constant[value=\"same\"]()\n"
                        "  %valid : str = prim::Constant[value=\"valid\"]()\n"
                        "  %ones : int[] = prim::Constant[value=[1, 1]]()\n"
                        "  %s : int[] = prim::Constant[value=[1, 2]]()\n"
                        "  %a : Tensor = aten::conv2d(%x, %w, %none, %ones, %same, %ones, %1)\n"
                        "  %b : Tensor = aten::conv2d(%x, %w, %none, %ones, %valid, %ones, %1)\n"
                        "  %c : Tensor = aten::conv2d(%x, %w, %none, %s, %same, %ones, %1)\n"
                        "  return (%a, %b, %c)\n");
  pt_check_graph(pass_propagate_input_shapes, g,
                 "graph(%x : Float(2, 3, 7, 6, strides=[126, 42, 6, 1], device=cpu),\n"
                 "      %w : Float(4, 3, 2, 3, strides=[18, 6, 3, 1], device=cpu)):\n"
                 "  %none : NoneType = prim::Constant()\n"
                 "  %1 : int = prim::Constant[value=1]()\n"
                 "  %same : str = prim::Constant[value=\"same\"]()\n"
                 "  %valid : str = prim::Constant[value=\"valid\"]()\n"
                 "  %ones : int[] = prim::Constant[value=[1, 1]]()\n"
                 "  %s : int[] = prim::Constant[value=[1, 2]]()\n"
                 "  %a : Float(2, 4, 7, 6, strides=[168, 42, 6, 1], device=cpu) = "
                 "aten::conv2d(%x, %w, %none, %ones, %same, %ones, %1)\n"
                 "  %b : Float(2, 4, 6, 4, strides=[96, 24, 4, 1], device=cpu) = "
                 "aten::conv2d(%x, %w, %none, %ones, %valid, %ones, %1)\n"
                 "  %c : Float(*, *, *, *, device=cpu) = "
                 "aten::conv2d(%x, %w, %none, %s, %same, %ones, %1)\n"
                 "  return (%a, %b, %c)\n",
                 true);
  ir_graph_free(g);
}

/* conv_transpose2d: (in - 1) stride - 2 padding + dilation (k - 1) + output_padding + 1, the
 * weight's dim 1 times groups channels (PyTorch's sizes for these arguments). */
static void test_shapes_conv_transpose(void) {
  IrGraph *g =
      pt_parse("graph(%x : Float(2, 4, 3, 4, strides=[48, 12, 4, 1], device=cpu),\n"
               "      %w : Float(4, 3, 3, 2, strides=[18, 6, 2, 1], device=cpu)):\n"
               "  %none : NoneType = prim::Constant()\n"
               "  %2 : int = prim::Constant[value=2]()\n"
               "  %s : int[] = prim::Constant[value=[2, 3]]()\n"
               "  %p : int[] = prim::Constant[value=[1, 0]]()\n"
               "  %o : int[] = prim::Constant[value=[1, 2]]()\n"
               "  %y : Tensor = aten::conv_transpose2d(%x, %w, %none, %s, %p, %o, %2, %o)\n"
               "  return (%y)\n");
  pt_check_graph(pass_propagate_input_shapes, g,
                 "graph(%x : Float(2, 4, 3, 4, strides=[48, 12, 4, 1], device=cpu),\n"
                 "      %w : Float(4, 3, 3, 2, strides=[18, 6, 2, 1], device=cpu)):\n"
                 "  %none : NoneType = prim::Constant()\n"
                 "  %2 : int = prim::Constant[value=2]()\n"
                 "  %s : int[] = prim::Constant[value=[2, 3]]()\n"
                 "  %p : int[] = prim::Constant[value=[1, 0]]()\n"
                 "  %o : int[] = prim::Constant[value=[1, 2]]()\n"
                 "  %y : Float(2, 6, 6, 14, strides=[504, 84, 14, 1], device=cpu) = "
                 "aten::conv_transpose2d(%x, %w, %none, %s, %p, %o, %2, %o)\n"
                 "  return (%y)\n",
                 true);
  ir_graph_free(g);
}

/* requires_grad is the other pass's business: shape propagation keeps it; an unknown
 * _grad_sum_to_size size gives Tensor; a None size keeps the input's type. */
static void test_shapes_keep_requires_grad(void) {
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

/* The rules of the issue-11 ops: losses (per target for reduction none, 0-dim otherwise),
 * gather / masked_fill / baddbmm, factories (constant sizes, PyTorch's default dtypes), to,
 * NumToTensor, and clamp_min's promotion by a float bound. */
static void test_shapes_issue_11_rules(void) {
  pt_check(pass_propagate_input_shapes,
           "graph(%x : Float(4, 3, strides=[3, 1], device=cpu),\n"
           "      %t : Long(4, strides=[1], device=cpu),\n"
           "      %i : Long(4, 2, strides=[2, 1], device=cpu),\n"
           "      %b : Bool(1, 3, strides=[3, 1], device=cpu),\n"
           "      %m : Float(2, 4, 3, strides=[12, 3, 1], device=cpu),\n"
           "      %k : Long(2, device=cpu),\n"
           "      %n : Float(2, 3, 5, strides=[15, 5, 1], device=cpu),\n"
           "      %s : Float(4, 5, strides=[5, 1], device=cpu)):\n"
           "  %none : NoneType = prim::Constant()\n"
           "  %0 : int = prim::Constant[value=0]()\n"
           "  %1 : int = prim::Constant[value=1]()\n"
           "  %ii : int = prim::Constant[value=-100]()\n"
           "  %h : float = prim::Constant[value=0.5]()\n"
           "  %f64 : int = prim::Constant[value=7]()\n"
           "  %no : bool = prim::Constant[value=0]()\n"
           "  %l1 : Tensor = aten::nll_loss_nd(%x, %t, %none, %0, %ii)\n"
           "  %l2 : Tensor = aten::cross_entropy_loss(%x, %t, %none, %1, %ii, %h)\n"
           "  %l3 : Tensor = aten::binary_cross_entropy_with_logits(%x, %x, %none, %none, %0)\n"
           "  %g : Tensor = aten::gather(%x, %1, %i, %no)\n"
           "  %mf : Tensor = aten::masked_fill(%x, %b, %h)\n"
           "  %bb : Tensor = aten::baddbmm(%s, %m, %n, %1, %1)\n"
           "  %sz : int[] = prim::ListConstruct(%1, %1)\n"
           "  %z : Tensor = aten::zeros(%sz, %none, %none, %none, %none)\n"
           "  %fl : Tensor = aten::full(%sz, %1, %none, %none, %none, %none)\n"
           "  %ar : Tensor = aten::arange(%ii, %1, %1, %none, %none, %none, %none)\n"
           "  %to : Tensor = aten::to(%x, %f64, %no, %no, %none)\n"
           "  %nt : Tensor = prim::NumToTensor(%h)\n"
           "  %cm : Tensor = aten::clamp_min(%k, %h)\n"
           "  return (%l1, %l2, %l3, %g, %mf, %bb, %z, %fl, %ar, %to, %nt, %cm)\n",
           "graph(%x : Float(4, 3, strides=[3, 1], device=cpu),\n"
           "      %t : Long(4, strides=[1], device=cpu),\n"
           "      %i : Long(4, 2, strides=[2, 1], device=cpu),\n"
           "      %b : Bool(1, 3, strides=[3, 1], device=cpu),\n"
           "      %m : Float(2, 4, 3, strides=[12, 3, 1], device=cpu),\n"
           "      %k : Long(2, device=cpu),\n"
           "      %n : Float(2, 3, 5, strides=[15, 5, 1], device=cpu),\n"
           "      %s : Float(4, 5, strides=[5, 1], device=cpu)):\n"
           "  %none : NoneType = prim::Constant()\n"
           "  %0 : int = prim::Constant[value=0]()\n"
           "  %1 : int = prim::Constant[value=1]()\n"
           "  %ii : int = prim::Constant[value=-100]()\n"
           "  %h : float = prim::Constant[value=0.5]()\n"
           "  %f64 : int = prim::Constant[value=7]()\n"
           "  %no : bool = prim::Constant[value=0]()\n"
           "  %l1 : Float(4, strides=[1], device=cpu) = "
           "aten::nll_loss_nd(%x, %t, %none, %0, %ii)\n"
           "  %l2 : Float(device=cpu) = "
           "aten::cross_entropy_loss(%x, %t, %none, %1, %ii, %h)\n"
           "  %l3 : Float(4, 3, strides=[3, 1], device=cpu) = "
           "aten::binary_cross_entropy_with_logits(%x, %x, %none, %none, %0)\n"
           "  %g : Float(4, 2, strides=[2, 1], device=cpu) = "
           "aten::gather(%x, %1, %i, %no)\n"
           "  %mf : Float(4, 3, strides=[3, 1], device=cpu) = "
           "aten::masked_fill(%x, %b, %h)\n"
           "  %bb : Float(2, 4, 5, strides=[20, 5, 1], device=cpu) = "
           "aten::baddbmm(%s, %m, %n, %1, %1)\n"
           "  %sz : int[] = prim::ListConstruct(%1, %1)\n"
           "  %z : Float(1, 1, strides=[1, 1], device=cpu) = "
           "aten::zeros(%sz, %none, %none, %none, %none)\n"
           "  %fl : Long(1, 1, strides=[1, 1], device=cpu) = "
           "aten::full(%sz, %1, %none, %none, %none, %none)\n"
           "  %ar : Long(101, strides=[1], device=cpu) = "
           "aten::arange(%ii, %1, %1, %none, %none, %none, %none)\n"
           "  %to : Double(4, 3, strides=[3, 1], device=cpu) = "
           "aten::to(%x, %f64, %no, %no, %none)\n"
           "  %nt : Double(device=cpu) = prim::NumToTensor(%h)\n"
           "  %cm : Float(2, strides=[1], device=cpu) = aten::clamp_min(%k, %h)\n"
           "  return (%l1, %l2, %l3, %g, %mf, %bb, %z, %fl, %ar, %to, %nt, %cm)\n",
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

static void test_requires_grad(void) {
  IrGraph *g = pt_parse("graph(%x : Float(*, *, requires_grad=0),\n"
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

/* prim::FusedConcat, in a fusion group's body and as the group's output, is sized as aten::cat
 * of its own inputs (it was left a bare Tensor: the backward plans' memory plans counted the
 * LSTM gates' gradient and the products after it as unsized, their peak as 0). */
static const char fused_concat_in[] = "graph(%x : Float(4, 3, strides=[3, 1], device=cpu),\n"
                                      "      %y : Float(4, 5, strides=[5, 1], device=cpu)):\n"
                                      "  %g : Tensor = prim::FusionGroup_0(%x, %y)\n"
                                      "  return (%g)\n"
                                      "with prim::FusionGroup_0 = graph(%a : Float(*, *),\n"
                                      "      %b : Float(*, *)):\n"
                                      "  %s : Tensor = aten::sigmoid(%a)\n"
                                      "  %c : Tensor = prim::FusedConcat[dim=1](%s, %b)\n"
                                      "  return (%c)\n";

static const char fused_concat_out[] =
    "graph(%x : Float(4, 3, strides=[3, 1], device=cpu),\n"
    "      %y : Float(4, 5, strides=[5, 1], device=cpu)):\n"
    "  %g : Float(4, 8, strides=[8, 1], device=cpu) = prim::FusionGroup_0(%x, %y)\n"
    "  return (%g)\n"
    "with prim::FusionGroup_0 = graph(%a : Float(4, 3, strides=[3, 1], device=cpu),\n"
    "      %b : Float(4, 5, strides=[5, 1], device=cpu)):\n"
    "  %s : Float(4, 3, strides=[3, 1], device=cpu) = aten::sigmoid(%a)\n"
    "  %c : Float(4, 8, strides=[8, 1], device=cpu) = prim::FusedConcat[dim=1](%s, %b)\n"
    "  return (%c)\n";

static void test_shapes_fused_concat(void) {
  IrGraph *g = pt_parse(fused_concat_in);
  pt_check_graph(pass_propagate_input_shapes, g, fused_concat_out, true);
  ir_graph_free(g);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/passes/shapes/lstm", test_shapes_lstm);
  g_test_add_func("/passes/shapes/rules-and-blocks", test_shapes_rules_and_blocks);
  g_test_add_func("/passes/shapes/keep-requires-grad", test_shapes_keep_requires_grad);
  g_test_add_func("/passes/shapes/issue-11-rules", test_shapes_issue_11_rules);
  g_test_add_func("/passes/shapes/conv-and-pool", test_shapes_conv_pool);
  g_test_add_func("/passes/shapes/pool1d", test_shapes_pool1d);
  g_test_add_func("/passes/shapes/fused-concat", test_shapes_fused_concat);
  g_test_add_func("/passes/shapes/conv-padding-mode", test_shapes_conv_padding_mode);
  g_test_add_func("/passes/shapes/conv-transpose", test_shapes_conv_transpose);
  g_test_add_func("/passes/requires-grad/blocks-and-loops", test_requires_grad);
  return g_test_run();
}
