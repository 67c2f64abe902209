/* Every gradient formula against float64 central finite differences: one small graph per op
 * (and per overload / broadcasting case), differentiated, run as f then df, raw and after
 * specialize-autograd-zero + lower-GradOf. */
#include "ad_test_util.h"

#define RG "requires_grad=1"
#define X23 "%x : Double(2, 3, " RG ")"
#define Y23 "%y : Double(2, 3, " RG ")"

typedef struct {
  const char *name;
  const char *text;
  double lo, hi;
} Case;

#define UNARY(op, lo, hi) \
  { op, "graph(" X23 "):\n  %z : Tensor = " op "(%x)\n  return (%z)\n", lo, hi }

static const Case cases[] = {
    /* binary arithmetic, same shapes and broadcasting both ways */
    {"add",
     "graph(" X23 ", " Y23 "):\n  %a : int = prim::Constant[value=2]()\n"
     "  %z : Tensor = aten::add(%x, %y, %a)\n  return (%z)\n",
     -2, 2},
    {"add-bcast",
     "graph(" X23 ", %y : Double(3, " RG ")):\n  %a : float = prim::Constant[value=0.5]()\n"
     "  %z : Tensor = aten::add(%x, %y, %a)\n  return (%z)\n",
     -2, 2},
    {"add-bcast-self",
     "graph(%x : Double(2, 1, " RG "), " Y23 "):\n  %a : int = prim::Constant[value=1]()\n"
     "  %z : Tensor = aten::add(%x, %y, %a)\n  return (%z)\n",
     -2, 2},
    {"add-scalar",
     "graph(" X23
     "):\n  %s : float = prim::Constant[value=1.5]()\n  %a : int = prim::Constant[value=1]()\n"
     "  %z : Tensor = aten::add(%x, %s, %a)\n  return (%z)\n",
     -2, 2},
    {"sub",
     "graph(%x : Double(1, 3, " RG "), " Y23 "):\n  %a : int = prim::Constant[value=3]()\n"
     "  %z : Tensor = aten::sub(%x, %y, %a)\n  return (%z)\n",
     -2, 2},
    {"sub-scalar",
     "graph(" X23
     "):\n  %s : int = prim::Constant[value=2]()\n  %a : int = prim::Constant[value=1]()\n"
     "  %z : Tensor = aten::sub(%x, %s, %a)\n  return (%z)\n",
     -2, 2},
    {"rsub",
     "graph(" X23 ", %y : Double(2, 1, " RG ")):\n  %a : int = prim::Constant[value=2]()\n"
     "  %z : Tensor = aten::rsub(%x, %y, %a)\n  return (%z)\n",
     -2, 2},
    {"rsub-scalar",
     "graph(" X23
     "):\n  %s : float = prim::Constant[value=1.0]()\n  %a : int = prim::Constant[value=3]()\n"
     "  %z : Tensor = aten::rsub(%x, %s, %a)\n  return (%z)\n",
     -2, 2},
    {"mul", "graph(" X23 ", " Y23 "):\n  %z : Tensor = aten::mul(%x, %y)\n  return (%z)\n", -2, 2},
    {"mul-bcast",
     "graph(" X23 ", %y : Double(" RG ")):\n  %z : Tensor = aten::mul(%x, %y)\n  return (%z)\n", -2,
     2},
    {"mul-scalar",
     "graph(" X23 "):\n  %s : float = prim::Constant[value=-1.5]()\n  %z : Tensor = aten::mul(%x, "
     "%s)\n  return (%z)\n",
     -2, 2},
    {"div",
     "graph(" X23 ", %y : Double(3, " RG ")):\n  %z : Tensor = aten::div(%x, %y)\n  return (%z)\n",
     0.5, 2},
    {"div-scalar",
     "graph(" X23 "):\n  %s : float = prim::Constant[value=4.0]()\n  %z : Tensor = aten::div(%x, "
     "%s)\n  return (%z)\n",
     -2, 2},
    {"fmod-scalar",
     "graph(" X23 "):\n  %s : float = prim::Constant[value=0.7]()\n  %z : Tensor = aten::fmod(%x, "
     "%s)\n  return (%z)\n",
     0.1, 0.6},
    {"fmod", "graph(" X23 ", " Y23 "):\n  %z : Tensor = aten::fmod(%x, %y)\n  return (%z)\n", 1.1,
     1.9},
    {"remainder",
     "graph(" X23 ", %y : Double(1, 3, " RG
     ")):\n  %z : Tensor = aten::remainder(%x, %y)\n  return (%z)\n",
     1.1, 1.9},
    {"remainder-scalar",
     "graph(" X23 "):\n  %s : int = prim::Constant[value=3]()\n  %z : Tensor = aten::remainder(%x, "
     "%s)\n  return (%z)\n",
     0.2, 2.8},
    {"atan2",
     "graph(" X23 ", %y : Double(3, " RG
     ")):\n  %z : Tensor = aten::atan2(%x, %y)\n  return (%z)\n",
     0.5, 2},
    {"pow-scalar",
     "graph(" X23 "):\n  %e : float = prim::Constant[value=2.5]()\n  %z : Tensor = aten::pow(%x, "
     "%e)\n  return (%z)\n",
     0.5, 2},
    {"pow-int",
     "graph(" X23 "):\n  %e : int = prim::Constant[value=3]()\n  %z : Tensor = aten::pow(%x, %e)\n "
     " return (%z)\n",
     -2, 2},
    {"pow-zero",
     "graph(" X23 "):\n  %e : int = prim::Constant[value=0]()\n  %z : Tensor = aten::pow(%x, %e)\n "
     " return (%z)\n",
     -2, 2},
    {"pow-tensor",
     "graph(" X23 ", %y : Double(2, 1, " RG
     ")):\n  %z : Tensor = aten::pow(%x, %y)\n  return (%z)\n",
     0.5, 2},
    {"max", "graph(" X23 ", " Y23 "):\n  %z : Tensor = aten::max(%x, %y)\n  return (%z)\n", -2, 2},
    {"min-bcast",
     "graph(" X23 ", %y : Double(3, " RG ")):\n  %z : Tensor = aten::min(%x, %y)\n  return (%z)\n",
     -2, 2},
    {"lerp-scalar",
     "graph(" X23 ", %y : Double(3, " RG ")):\n  %w : float = prim::Constant[value=0.3]()\n"
     "  %z : Tensor = aten::lerp(%x, %y, %w)\n  return (%z)\n",
     -2, 2},
    {"lerp-tensor",
     "graph(" X23 ", " Y23 ", %w : Double(2, 1, " RG ")):\n"
     "  %z : Tensor = aten::lerp(%x, %y, %w)\n  return (%z)\n",
     -2, 2},
    {"addcmul",
     "graph(%s : Double(3, " RG "), " X23 ", %y : Double(2, 1, " RG
     ")):\n  %v : float = prim::Constant[value=0.5]()\n"
     "  %z : Tensor = aten::addcmul(%s, %x, %y, %v)\n  return (%z)\n",
     -2, 2},
    {"where",
     "graph(%c : Bool(2, 3), " X23 ", %y : Double(3, " RG ")):\n"
     "  %z : Tensor = aten::where(%c, %x, %y)\n  return (%z)\n",
     -2, 2},
    {"clamp",
     "graph(" X23 "):\n  %lo : float = prim::Constant[value=-0.5]()\n  %hi : float = "
     "prim::Constant[value=0.7]()\n"
     "  %z : Tensor = aten::clamp(%x, %lo, %hi)\n  return (%z)\n",
     -2, 2},
    {"clamp-min",
     "graph(" X23
     "):\n  %lo : float = prim::Constant[value=-0.5]()\n  %hi : NoneType = prim::Constant()\n"
     "  %z : Tensor = aten::clamp(%x, %lo, %hi)\n  return (%z)\n",
     -2, 2},
    {"threshold",
     "graph(" X23
     "):\n  %t : float = prim::Constant[value=0.1]()\n  %v : float = prim::Constant[value=20.0]()\n"
     "  %z : Tensor = aten::threshold(%x, %t, %v)\n  return (%z)\n",
     -2, 2},
    {"type_as",
     "graph(" X23 ", %y : Double(2, 3)):\n  %z : Tensor = aten::type_as(%x, %y)\n  return (%z)\n",
     -2, 2},
    UNARY("aten::neg", -2, 2),
    UNARY("aten::abs", -2, 2),
    UNARY("aten::sigmoid", -2, 2),
    UNARY("aten::tanh", -2, 2),
    UNARY("aten::relu", -2, 2),
    UNARY("aten::exp", -2, 2),
    UNARY("aten::expm1", -2, 2),
    UNARY("aten::log", 0.5, 2),
    UNARY("aten::log10", 0.5, 2),
    UNARY("aten::log2", 0.5, 2),
    UNARY("aten::log1p", -0.5, 2),
    UNARY("aten::sqrt", 0.5, 2),
    UNARY("aten::rsqrt", 0.5, 2),
    UNARY("aten::reciprocal", 0.5, 2),
    UNARY("aten::erf", -2, 2),
    UNARY("aten::erfc", -2, 2),
    UNARY("aten::sin", -2, 2),
    UNARY("aten::cos", -2, 2),
    UNARY("aten::tan", -1, 1),
    UNARY("aten::asin", -0.9, 0.9),
    UNARY("aten::acos", -0.9, 0.9),
    UNARY("aten::atan", -2, 2),
    UNARY("aten::sinh", -2, 2),
    UNARY("aten::cosh", -2, 2),
    UNARY("aten::ceil", 0.1, 0.9),
    UNARY("aten::floor", 0.1, 0.9),
    UNARY("aten::round", 0.1, 0.4),
    UNARY("aten::trunc", 0.1, 0.9),
    UNARY("aten::frac", 0.1, 0.9),
    UNARY("aten::t", -2, 2),
    /* shapes */
    {"unsqueeze",
     "graph(" X23 "):\n  %d : int = prim::Constant[value=1]()\n  %z : Tensor = aten::unsqueeze(%x, "
     "%d)\n  return (%z)\n",
     -2, 2},
    {"squeeze",
     "graph(%x : Double(2, 1, 3, " RG ")):\n  %z : Tensor = aten::squeeze(%x)\n  return (%z)\n", -2,
     2},
    {"squeeze-dim",
     "graph(%x : Double(2, 1, 3, " RG ")):\n  %d : int = prim::Constant[value=1]()\n  %z : Tensor "
     "= aten::squeeze(%x, %d)\n  return (%z)\n",
     -2, 2},
    {"expand",
     "graph(%x : Double(2, 1, " RG ")):\n  %s : int[] = prim::Constant[value=[3, 2, 4]]()\n"
     "  %z : Tensor = aten::expand(%x, %s)\n  return (%z)\n",
     -2, 2},
    {"expand_as",
     "graph(%x : Double(3, " RG
     "), %y : Double(2, 3)):\n  %z : Tensor = aten::expand_as(%x, %y)\n  return (%z)\n",
     -2, 2},
    {"view",
     "graph(" X23 "):\n  %s : int[] = prim::Constant[value=[3, 2]]()\n  %z : Tensor = "
     "aten::view(%x, %s)\n  return (%z)\n",
     -2, 2},
    {"reshape",
     "graph(" X23 "):\n  %s : int[] = prim::Constant[value=[6]]()\n  %z : Tensor = "
     "aten::reshape(%x, %s)\n  return (%z)\n",
     -2, 2},
    {"transpose",
     "graph(%x : Double(2, 3, 4, " RG
     ")):\n  %a : int = prim::Constant[value=0]()\n  %b : int = prim::Constant[value=2]()\n"
     "  %z : Tensor = aten::transpose(%x, %a, %b)\n  return (%z)\n",
     -2, 2},
    {"sum",
     "graph(" X23
     "):\n  %n : NoneType = prim::Constant()\n  %z : Tensor = aten::sum(%x, %n)\n  return (%z)\n",
     -2, 2},
    {"sum-dims",
     "graph(%x : Double(2, 3, 4, " RG ")):\n  %d : int[] = prim::Constant[value=[-1, 0]]()\n  %k : "
     "bool = prim::Constant[value=0]()\n"
     "  %n : NoneType = prim::Constant()\n  %z : Tensor = aten::sum(%x, %d, %k, %n)\n  return "
     "(%z)\n",
     -2, 2},
    {"sum-keepdim",
     "graph(%x : Double(2, 3, 4, " RG
     ")):\n  %d : int[] = prim::Constant[value=[1]]()\n  %k : bool = prim::Constant[value=1]()\n"
     "  %n : NoneType = prim::Constant()\n  %z : Tensor = aten::sum(%x, %d, %k, %n)\n  return "
     "(%z)\n",
     -2, 2},
    {"grad_sum_to_size",
     "graph(" X23 "):\n  %s : int[] = prim::Constant[value=[1, 3]]()\n"
     "  %z : Tensor = aten::_grad_sum_to_size(%x, %s)\n  return (%z)\n",
     -2, 2},
    {"grad_sum_to_size-none",
     "graph(" X23 "):\n  %s : NoneType = prim::Constant()\n"
     "  %z : Tensor = aten::_grad_sum_to_size(%x, %s)\n  return (%z)\n",
     -2, 2},
    /* matrix products */
    {"mm",
     "graph(" X23 ", %y : Double(3, 4, " RG
     ")):\n  %z : Tensor = aten::mm(%x, %y)\n  return (%z)\n",
     -2, 2},
    {"matmul",
     "graph(" X23 ", %y : Double(3, 4, " RG
     ")):\n  %z : Tensor = aten::matmul(%x, %y)\n  return (%z)\n",
     -2, 2},
    {"addmm",
     "graph(%b : Double(4, " RG "), " X23 ", %y : Double(3, 4, " RG ")):\n"
     "  %be : float = prim::Constant[value=0.5]()\n  %al : int = prim::Constant[value=2]()\n"
     "  %z : Tensor = aten::addmm(%b, %x, %y, %be, %al)\n  return (%z)\n",
     -2, 2},
    /* chunks: all pieces used, and one piece unused (its gradient is zeros) */
    {"constant-chunk",
     "graph(%x : Double(2, 6, " RG ")):\n"
     "  %a : Tensor, %b : Tensor, %c : Tensor = prim::ConstantChunk[chunks=3, dim=1](%x)\n"
     "  %k : int = prim::Constant[value=1]()\n  %d : Tensor = aten::mul(%a, %b)\n  %e : Tensor = "
     "aten::sub(%d, %c, %k)\n  return (%e)\n",
     -2, 2},
    {"constant-chunk-unused",
     "graph(%x : Double(4, 3, " RG ")):\n"
     "  %a : Tensor, %b : Tensor = prim::ConstantChunk[chunks=2, dim=0](%x)\n"
     "  %d : Tensor = aten::tanh(%b)\n  return (%d)\n",
     -2, 2},
    /* issue 11: losses with a reduction only known when the graph runs (as the functional
   * losses compute it), targets and weights built in the graph (they take no gradient) */
    {"mse-loss-runtime-mean",
     "graph(" X23 ", " Y23 "):\n  %one : int = prim::Constant[value=1]()\n"
     "  %two : int = prim::Constant[value=2]()\n  %r : int = aten::sub(%two, %one)\n"
     "  %z : Tensor = aten::mse_loss(%x, %y, %r)\n  return (%z)\n",
     -2, 2},
    {"l1-loss-sum",
     "graph(" X23 ", %y : Double(3, " RG ")):\n  %r : int = prim::Constant[value=2]()\n"
     "  %z : Tensor = aten::l1_loss(%x, %y, %r)\n  return (%z)\n",
     -2, 2},
    {"bce-logits-pos-weight",
     "graph(" X23 ", " Y23 "):\n  %none : NoneType = prim::Constant()\n"
     "  %one : int = prim::Constant[value=1]()\n  %three : int = prim::Constant[value=3]()\n"
     "  %pw : float = prim::Constant[value=1.5]()\n  %f64 : int = prim::Constant[value=7]()\n"
     "  %sz : int[] = prim::ListConstruct(%three)\n"
     "  %p : Tensor = aten::full(%sz, %pw, %f64, %none, %none, %none)\n"
     "  %r : int = aten::mul(%one, %one)\n"
     "  %z : Tensor = aten::binary_cross_entropy_with_logits(%x, %y, %p, %p, %r)\n"
     "  return (%z)\n",
     -2, 2},
    {"cross-entropy-weighted-ignore",
     "graph(%x : Double(3, 3, " RG ")):\n  %none : NoneType = prim::Constant()\n"
     "  %one : int = prim::Constant[value=1]()\n  %three : int = prim::Constant[value=3]()\n"
     "  %four : int = prim::Constant[value=4]()\n  %f64 : int = prim::Constant[value=7]()\n"
     "  %ls : float = prim::Constant[value=0.]()\n"
     "  %t : Tensor = aten::arange(%three, %none, %none, %none, %none)\n"
     "  %w : Tensor = aten::arange(%one, %four, %one, %f64, %none, %none, %none)\n"
     "  %r : int = aten::mul(%one, %one)\n"
     "  %z : Tensor = aten::cross_entropy_loss(%x, %t, %w, %r, %one, %ls)\n  return (%z)\n",
     -2, 2},
    {"nll-loss-nd-none",
     "graph(" X23 "):\n  %none : NoneType = prim::Constant()\n"
     "  %zero : int = prim::Constant[value=0]()\n  %two : int = prim::Constant[value=2]()\n"
     "  %ii : int = prim::Constant[value=-100]()\n"
     "  %t : Tensor = aten::arange(%two, %none, %none, %none, %none)\n"
     "  %z : Tensor = aten::nll_loss_nd(%x, %t, %none, %zero, %ii)\n  return (%z)\n",
     -2, 2},
    {"gather-scatter-add",
     "graph(%x : Double(3, 4, " RG "), %s : Double(3, 2, " RG ")):\n"
     "  %none : NoneType = prim::Constant()\n  %no : bool = prim::Constant[value=0]()\n"
     "  %one : int = prim::Constant[value=1]()\n  %two : int = prim::Constant[value=2]()\n"
     "  %three : int = prim::Constant[value=3]()\n  %four : int = prim::Constant[value=4]()\n"
     "  %six : int = prim::Constant[value=6]()\n"
     "  %a : Tensor = aten::arange(%six, %none, %none, %none, %none)\n"
     "  %sz : int[] = prim::ListConstruct(%three, %two)\n"
     "  %v : Tensor = aten::view(%a, %sz)\n  %i : Tensor = aten::remainder(%v, %four)\n"
     "  %g : Tensor = aten::gather(%x, %one, %i, %no)\n"
     "  %c : Tensor = aten::scatter_add(%x, %one, %i, %s)\n"
     "  %z : Tensor = aten::mul(%g, %s)\n  return (%z, %c)\n",
     -2, 2},
    {"masked-fill-tensor",
     "graph(%c : Bool(2, 3), %x : Double(1, 3, " RG "), %v : Double(" RG ")):\n"
     "  %z : Tensor = aten::masked_fill(%x, %c, %v)\n  return (%z)\n",
     -2, 2},
    {"baddbmm",
     "graph(%s : Double(1, 4, " RG "), %a : Double(2, 2, 3, " RG "), %b : Double(2, 3, 4, " RG
     ")):\n"
     "  %be : float = prim::Constant[value=0.5]()\n  %al : int = prim::Constant[value=2]()\n"
     "  %z : Tensor = aten::baddbmm(%s, %a, %b, %be, %al)\n  return (%z)\n",
     -2, 2},
    {"clamp-min-max",
     "graph(" X23 "):\n  %lo : float = prim::Constant[value=-0.5]()\n"
     "  %hi : float = prim::Constant[value=0.7]()\n  %m : Tensor = aten::clamp_min(%x, %lo)\n"
     "  %z : Tensor = aten::clamp_max(%m, %hi)\n  return (%z)\n",
     -2, 2},
    {"to-copy",
     "graph(" X23 "):\n  %none : NoneType = prim::Constant()\n"
     "  %f64 : int = prim::Constant[value=7]()\n  %no : bool = prim::Constant[value=0]()\n"
     "  %yes : bool = prim::Constant[value=1]()\n"
     "  %t : Tensor = aten::to(%x, %f64, %no, %yes, %none)\n  %z : Tensor = aten::mul(%t, %x)\n"
     "  return (%z)\n",
     -2, 2},
    {"broadcast-tensors",
     "graph(%x : Double(2, 1, " RG "), %y : Double(1, 3, " RG ")):\n"
     "  %l : Tensor[] = prim::ListConstruct(%x, %y)\n"
     "  %b : Tensor[] = aten::broadcast_tensors(%l)\n"
     "  %p : Tensor, %q : Tensor = prim::ListUnpack(%b)\n"
     "  %z : Tensor = aten::mul(%p, %q)\n  return (%z)\n",
     -2, 2},
    /* native_dropout with train=False: p is not needed, so a p known only at run time is
     * fine (the formula used to abort on it) */
    {"native-dropout-eval-variable-p",
     "graph(%x : Double(2, 3, " RG ")):\n"
     "  %ten : int = prim::Constant[value=10]()\n"
     "  %no : bool = prim::Constant[value=0]()\n"
     "  %d : int = aten::dim(%x)\n"
     "  %p : float = aten::div(%d, %ten)\n"
     "  %t : Tensor = aten::tanh(%x)\n"
     "  %y : Tensor, %m : Tensor = aten::native_dropout(%t, %p, %no)\n"
     "  %z : Tensor = aten::sigmoid(%y)\n  return (%z)\n",
     -2, 2},
    /* a list an op made, unpacked: the pieces' gradients (zeros for the unused %q) become
     * the list's gradient for split's formula */
    {"split-unpack-partial",
     "graph(%x : Double(2, 5, " RG "), %y : Double(2, 2, " RG ")):\n"
     "  %one : int = prim::Constant[value=1]()\n"
     "  %two : int = prim::Constant[value=2]()\n"
     "  %a : Tensor = aten::tanh(%x)\n"
     "  %l : Tensor[] = aten::split(%a, %two, %one)\n"
     "  %p : Tensor, %q : Tensor, %r : Tensor = prim::ListUnpack(%l)\n"
     "  %s : Tensor = aten::sum(%r)\n"
     "  %z : Tensor = aten::mul(%p, %y)\n"
     "  %w : Tensor = aten::mul(%z, %s)\n  return (%w)\n",
     -2, 2},
    /* the same with the unused piece declared Tensor? (PyTorch's inliner prints such
     * outputs): its zero gradient is built from it refined to Tensor (found by fuzz-run) */
    {"split-unpack-declared-optional",
     "graph(%x : Double(2, 5, " RG "), %y : Double(2, 2, " RG ")):\n"
     "  %one : int = prim::Constant[value=1]()\n"
     "  %two : int = prim::Constant[value=2]()\n"
     "  %a : Tensor = aten::tanh(%x)\n"
     "  %l : Tensor[] = aten::split(%a, %two, %one)\n"
     "  %p : Tensor, %q : Tensor?, %r : Tensor = prim::ListUnpack(%l)\n"
     "  %s : Tensor = aten::sum(%r)\n"
     "  %z : Tensor = aten::mul(%p, %y)\n"
     "  %w : Tensor = aten::mul(%z, %s)\n  return (%w)\n",
     -2, 2},
    /* padding='same' with an even kernel and one dilation for both dims */
    {"conv2d-same-one-dilation",
     "graph(%x : Double(1, 2, 5, 6, " RG "), %w : Double(3, 2, 2, 3, " RG ")):\n"
     "  %none : NoneType = prim::Constant()\n"
     "  %s : int[] = prim::Constant[value=[1, 1]]()\n"
     "  %p : str = prim::Constant[value=\"same\"]()\n"
     "  %d : int[] = prim::Constant[value=[2]]()\n"
     "  %g : int = prim::Constant[value=1]()\n"
     "  %z : Tensor = aten::conv2d(%x, %w, %none, %s, %p, %d, %g)\n  return (%z)\n",
     -1, 1},
    /* two outputs, one gradient each; a temporary reused twice */
    {"two-outputs",
     "graph(" X23 ", " Y23 "):\n  %a : int = prim::Constant[value=1]()\n"
     "  %m : Tensor = aten::mul(%x, %y)\n  %s : Tensor = aten::sigmoid(%m)\n"
     "  %t : Tensor = aten::add(%m, %s, %a)\n  return (%s, %t)\n",
     -2, 2},
};

static void run_case(gconstpointer data) {
  const Case *c = data;
  ad_test_gradcheck(c->text, c->lo, c->hi, AD_RUN_RAW, 1e-6);
  ad_test_gradcheck(c->text, c->lo, c->hi, AD_RUN_SPECIALIZED, 1e-6);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    char *path = g_strdup_printf("/autodiff/formulas/%s", cases[i].name);
    g_test_add_data_func(path, &cases[i], run_case);
    g_free(path);
  }
  return g_test_run();
}
