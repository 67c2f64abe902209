/* Tests: canonicalize ops, remove expands, lower simple tuples, unroll loops, decompose ops,
 * check inplace. */
#include "pass_test_util.h"

#include <string.h>

#include "lstm_cell.h"

/* chunk + ListUnpack on the LSTM cell -> ConstantChunk, as the corpus forward graph shows:
 * the unpacked names move to the ConstantChunk's outputs. */
static void test_canonicalize_lstm_chunk(void) {
  static const char unpack[] =
      "  %26 : Tensor[] = aten::chunk(%gates.1, %24, %25)\n"
      "  %ingate.1 : Tensor, %forgetgate.1 : Tensor, %cellgate.1 : Tensor, %outgate.1 : Tensor = "
      "prim::ListUnpack(%26)\n";
  static const char chunk[] =
      "  %ingate.1 : Tensor, %forgetgate.1 : Tensor, %cellgate.1 : Tensor, %outgate.1 : Tensor = "
      "prim::ConstantChunk[chunks=4, dim=1](%gates.1)\n";
  const char *at = strstr(lstm_in, unpack);
  g_assert_nonnull(at);
  GString *expected = g_string_new_len(lstm_in, at - lstm_in);
  g_string_append(expected, chunk);
  g_string_append(expected, at + strlen(unpack));
  pt_check(pass_canonicalize_ops, lstm_in, expected->str, true);
  g_string_free(expected, TRUE);
}

/* A chunk whose list is read by something other than a full ListUnpack stays. */
static void test_canonicalize_chunk_kept(void) {
  static const char text[] = "graph(%x : Tensor):\n"
                             "  %1 : int = prim::Constant[value=2]()\n"
                             "  %2 : int = prim::Constant[value=0]()\n"
                             "  %3 : Tensor[] = aten::chunk(%x, %1, %2)\n"
                             "  %4 : Tensor = aten::cat(%3, %2)\n"
                             "  %5 : int = prim::Constant[value=3]()\n"
                             "  %6 : Tensor[] = aten::chunk(%x, %5, %2)\n"
                             "  %7 : Tensor, %8 : Tensor = prim::ListUnpack(%6)\n"
                             "  return (%4, %7, %8)\n";
  pt_check(pass_canonicalize_ops, text, text, false);
}

/* Trailing arguments left to their defaults become constants of the schema's defaults
 * (std.dim's unbiased=True and keepdim=False, gelu's approximate="none", sum's dtype=None,
 * chunk's dim=0): formulas read every argument; a std(x, dims) aborted autodiff before. */
static void test_canonicalize_explicit_defaults(void) {
  pt_check(pass_canonicalize_ops,
           "graph(%x : Tensor):\n"
           "  %1 : int = prim::Constant[value=1]()\n"
           "  %d : int[] = prim::ListConstruct(%1)\n"
           "  %s : Tensor = aten::std(%x, %d)\n"
           "  %g : Tensor = aten::gelu(%x)\n"
           "  %t : Tensor = aten::sum(%g)\n"
           "  %c : Tensor[] = aten::chunk(%s, %1)\n"
           "  return (%t, %c)\n",
           "graph(%x : Tensor):\n"
           "  %1 : int = prim::Constant[value=1]()\n"
           "  %d : int[] = prim::ListConstruct(%1)\n"
           "  %8 : bool = prim::Constant[value=1]()\n"
           "  %9 : bool = prim::Constant[value=0]()\n"
           "  %s : Tensor = aten::std(%x, %d, %8, %9)\n"
           "  %10 : str = prim::Constant[value=\"none\"]()\n"
           "  %g : Tensor = aten::gelu(%x, %10)\n"
           "  %11 : NoneType = prim::Constant()\n"
           "  %t : Tensor = aten::sum(%g, %11)\n"
           "  %12 : int = prim::Constant[value=0]()\n"
           "  %c : Tensor[] = aten::chunk(%s, %1, %12)\n"
           "  return (%t, %c)\n",
           true);
}

static void test_canonicalize_scalar_other(void) {
  pt_check(pass_canonicalize_ops,
           "graph(%x : Tensor):\n"
           "  %1 : Tensor = prim::Constant[value={2.5}]()\n"
           "  %2 : Tensor = aten::mul(%x, %1)\n"
           "  return (%2)\n",
           "graph(%x : Tensor):\n"
           "  %1 : Tensor = prim::Constant[value={2.5}]()\n"
           "  %4 : float = prim::Constant[value=2.5]()\n"
           "  %5 : Tensor = aten::mul(%x, %4)\n"
           "  return (%5)\n",
           true);
}

static void test_remove_expands(void) {
  pt_check(pass_remove_expands,
           "graph(%x : Tensor):\n"
           "  %1 : int[] = prim::Constant[value=[2, 3]]()\n"
           "  %2 : bool = prim::Constant[value=1]()\n"
           "  %3 : bool = prim::Constant[value=0]()\n"
           "  %4 : Tensor = aten::expand(%x, %1, %2)\n"
           "  %5 : Tensor = aten::expand(%x, %1, %3)\n"
           "  %6 : Tensor = aten::expand(%x, %1)\n"
           "  return (%4, %5, %6)\n",
           "graph(%x : Tensor):\n"
           "  %1 : int[] = prim::Constant[value=[2, 3]]()\n"
           "  %2 : bool = prim::Constant[value=1]()\n"
           "  %3 : bool = prim::Constant[value=0]()\n"
           "  %5 : Tensor = aten::expand(%x, %1, %3)\n"
           "  %6 : Tensor = aten::expand(%x, %1)\n"
           "  return (%x, %5, %6)\n",
           true);
}

static void test_lower_tuples(void) {
  pt_check(pass_lower_simple_tuples,
           "graph(%x : Tensor,\n"
           "      %y : Tensor):\n"
           "  %1 : (Tensor, Tensor) = prim::TupleConstruct(%x, %y)\n"
           "  %a : Tensor, %b : Tensor = prim::TupleUnpack(%1)\n"
           "  %2 : int = prim::Constant[value=-1]()\n"
           "  %3 : (Tensor, Tensor) = prim::TupleConstruct(%y, %x)\n"
           "  %4 : Tensor = prim::TupleIndex(%3, %2)\n"
           "  %5 : (Tensor, Tensor) = prim::TupleConstruct(%a, %4)\n"
           "  %6 : Tensor = aten::mul(%a, %b)\n"
           "  return (%5, %6)\n",
           "graph(%x : Tensor,\n"
           "      %y : Tensor):\n"
           "  %2 : int = prim::Constant[value=-1]()\n"
           "  %5 : (Tensor, Tensor) = prim::TupleConstruct(%x, %x)\n"
           "  %6 : Tensor = aten::mul(%x, %y)\n"
           "  return (%5, %6)\n",
           true);
}

/* A tuple from a graph input is not lowered (LowerSimpleTuples only removes pairs). */
static void test_lower_tuples_input_kept(void) {
  static const char text[] = "graph(%t : (Tensor, Tensor)):\n"
                             "  %a : Tensor, %b : Tensor = prim::TupleUnpack(%t)\n"
                             "  return (%a)\n";
  pt_check(pass_lower_simple_tuples, text, text, false);
}

/* The corpus if_loop: `for _ in range(3): z = z + 1` unrolls to three adds (as PyTorch's
 * forward graph shows). Each copy is cloned from the body and takes the body value's current
 * name, the renaming rule moving the body value on: copy 1 takes z.15 (body -> z.16), copy 2
 * takes z.16 (body -> z.18, the rule skipping one past the last suffix handed out), copy 3
 * takes z.18. PyTorch's own names (z.15, z.26, z.28) come from its counter rewrite. */
static void test_unroll_if_loop(void) {
  pt_check(pass_unroll_loops,
           "graph(%x.1 : Tensor,\n"
           "      %y.1 : float):\n"
           "  %24 : bool = prim::Constant[value=1]()\n"
           "  %3 : NoneType = prim::Constant()\n"
           "  %5 : int = prim::Constant[value=0]()\n"
           "  %21 : int = prim::Constant[value=3]()\n"
           "  %27 : int = prim::Constant[value=1]()\n"
           "  %4 : Tensor = aten::sum(%x.1, %3)\n"
           "  %6 : Tensor = aten::gt(%4, %5)\n"
           "  %8 : bool = aten::Bool(%6)\n"
           "  %z.21 : Tensor = prim::If(%8)\n"
           "    block0():\n"
           "      %z.1 : Tensor = aten::mul(%x.1, %y.1)\n"
           "      -> (%z.1)\n"
           "    block1():\n"
           "      %z.3 : Tensor = aten::sub(%x.1, %y.1, %27)\n"
           "      -> (%z.3)\n"
           "  %z : Tensor = prim::Loop(%21, %24, %z.21)\n"
           "    block0(%i : int, %z.23 : Tensor):\n"
           "      %z.15 : Tensor = aten::add(%z.23, %27, %27)\n"
           "      -> (%24, %z.15)\n"
           "  return (%z)\n",
           "graph(%x.1 : Tensor,\n"
           "      %y.1 : float):\n"
           "  %24 : bool = prim::Constant[value=1]()\n"
           "  %3 : NoneType = prim::Constant()\n"
           "  %5 : int = prim::Constant[value=0]()\n"
           "  %21 : int = prim::Constant[value=3]()\n"
           "  %27 : int = prim::Constant[value=1]()\n"
           "  %4 : Tensor = aten::sum(%x.1, %3)\n"
           "  %6 : Tensor = aten::gt(%4, %5)\n"
           "  %8 : bool = aten::Bool(%6)\n"
           "  %z.21 : Tensor = prim::If(%8)\n"
           "    block0():\n"
           "      %z.1 : Tensor = aten::mul(%x.1, %y.1)\n"
           "      -> (%z.1)\n"
           "    block1():\n"
           "      %z.3 : Tensor = aten::sub(%x.1, %y.1, %27)\n"
           "      -> (%z.3)\n"
           "  %z.15 : Tensor = aten::add(%z.21, %27, %27)\n"
           "  %z.16 : Tensor = aten::add(%z.15, %27, %27)\n"
           "  %z.18 : Tensor = aten::add(%z.16, %27, %27)\n"
           "  return (%z.18)\n",
           true);
}

/* The counter becomes a constant per copy; trip counts of 8 or more and unknown trip counts
 * are left alone. */
static void test_unroll_counter_and_limits(void) {
  pt_check(pass_unroll_loops,
           "graph(%x : Tensor,\n"
           "      %n : int):\n"
           "  %1 : bool = prim::Constant[value=1]()\n"
           "  %2 : int = prim::Constant[value=2]()\n"
           "  %3 : int = prim::Constant[value=8]()\n"
           "  %4 : Tensor = prim::Loop(%2, %1, %x)\n"
           "    block0(%5 : int, %6 : Tensor):\n"
           "      %7 : Tensor = aten::add(%6, %5, %5)\n"
           "      -> (%1, %7)\n"
           "  %8 : Tensor = prim::Loop(%3, %1, %4)\n"
           "    block0(%9 : int, %10 : Tensor):\n"
           "      %11 : Tensor = aten::neg(%10)\n"
           "      -> (%1, %11)\n"
           "  %12 : Tensor = prim::Loop(%n, %1, %8)\n"
           "    block0(%13 : int, %14 : Tensor):\n"
           "      %15 : Tensor = aten::neg(%14)\n"
           "      -> (%1, %15)\n"
           "  return (%12)\n",
           "graph(%x : Tensor,\n"
           "      %n : int):\n"
           "  %1 : bool = prim::Constant[value=1]()\n"
           "  %2 : int = prim::Constant[value=2]()\n"
           "  %3 : int = prim::Constant[value=8]()\n"
           "  %18 : int = prim::Constant[value=0]()\n"
           "  %19 : Tensor = aten::add(%x, %18, %18)\n"
           "  %20 : int = prim::Constant[value=1]()\n"
           "  %21 : Tensor = aten::add(%19, %20, %20)\n"
           "  %8 : Tensor = prim::Loop(%3, %1, %21)\n"
           "    block0(%9 : int, %10 : Tensor):\n"
           "      %11 : Tensor = aten::neg(%10)\n"
           "      -> (%1, %11)\n"
           "  %12 : Tensor = prim::Loop(%n, %1, %8)\n"
           "    block0(%13 : int, %14 : Tensor):\n"
           "      %15 : Tensor = aten::neg(%14)\n"
           "      -> (%1, %15)\n"
           "  return (%12)\n",
           true);
}

static void test_decompose_addmm(void) {
  pt_check(pass_decompose_ops,
           "graph(%b : Float(*, device=cpu),\n"
           "      %x : Float(*, *, device=cpu),\n"
           "      %w : Float(*, *, device=cpu)):\n"
           "  %1 : int = prim::Constant[value=1]()\n"
           "  %2 : int = prim::Constant[value=2]()\n"
           "  %out : Float(*, *, device=cpu) = aten::addmm(%b, %x, %w, %1, %1)\n"
           "  %3 : Float(*, *, device=cpu) = aten::addmm(%b, %x, %w, %2, %1)\n"
           "  %4 : Float(*, *, device=cpu) = aten::addmm(%b, %x, %w)\n"
           "  return (%out, %3, %4)\n",
           "graph(%b : Float(*, device=cpu),\n"
           "      %x : Float(*, *, device=cpu),\n"
           "      %w : Float(*, *, device=cpu)):\n"
           "  %1 : int = prim::Constant[value=1]()\n"
           "  %2 : int = prim::Constant[value=2]()\n"
           "  %9 : Float(*, *, device=cpu) = aten::mm(%x, %w)\n"
           "  %10 : int = prim::Constant[value=1]()\n"
           "  %out : Float(*, *, device=cpu) = aten::add(%9, %b, %10)\n"
           "  %3 : Float(*, *, device=cpu) = aten::addmm(%b, %x, %w, %2, %1)\n"
           "  %12 : Float(*, *, device=cpu) = aten::mm(%x, %w)\n"
           "  %13 : int = prim::Constant[value=1]()\n"
           "  %14 : Float(*, *, device=cpu) = aten::add(%12, %b, %13)\n"
           "  return (%out, %3, %14)\n",
           true);
}

static void test_check_inplace(void) {
  pt_check(pass_check_inplace, lstm_in, lstm_in, false);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/passes/canonicalize/lstm-chunk", test_canonicalize_lstm_chunk);
  g_test_add_func("/passes/canonicalize/chunk-kept", test_canonicalize_chunk_kept);
  g_test_add_func("/passes/canonicalize/scalar-other", test_canonicalize_scalar_other);
  g_test_add_func("/passes/canonicalize/explicit-defaults", test_canonicalize_explicit_defaults);
  g_test_add_func("/passes/remove-expands/implicit", test_remove_expands);
  g_test_add_func("/passes/lower-tuples/pairs", test_lower_tuples);
  g_test_add_func("/passes/lower-tuples/input-kept", test_lower_tuples_input_kept);
  g_test_add_func("/passes/unroll/if-loop", test_unroll_if_loop);
  g_test_add_func("/passes/unroll/counter-and-limits", test_unroll_counter_and_limits);
  g_test_add_func("/passes/decompose/addmm", test_decompose_addmm);
  g_test_add_func("/passes/check-inplace/none", test_check_inplace);
  return g_test_run();
}
