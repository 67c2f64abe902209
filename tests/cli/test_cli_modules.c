/* CLI tests for graphs as PyTorch prints them for modules and with ops jitscope lacks: module
 * lowering (inlined calls, attributes as named inputs), NAME=SPEC, --graph N, opaque ops
 * (printed with a located warning; running them is a located error), and a scripted
 * nn.Module's inlined graph against PyTorch's output (tests/cli/data, made by its gen.py).
 * Usage: test-cli-modules JITSCOPE_BINARY */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli_run.h"
#include "runtime/npy.h"

static char *jitscope;
static char *tmpdir;

static char *write_tmp(const char *name, const char *text) {
  char *path = g_build_filename(tmpdir, name, NULL);
  g_assert_true(g_file_set_contents(path, text, -1, NULL));
  return path;
}

static const char module_text[] =
    "graph(%self : __torch__.Net,\n"
    "      %x.1 : Tensor):\n"
    "  %false : bool = prim::Constant[value=0]()\n"
    "  %one : int = prim::Constant[value=1]()\n"
    "  %relu : Function = prim::Constant[name=\"relu\"]()\n"
    "  %act : __torch__.torch.nn.modules.activation.___torch_mangle_4.ReLU = "
    "prim::GetAttr[name=\"act\"](%self)\n"
    "  %inner : __torch__.Inner = prim::GetAttr[name=\"inner\"](%self)\n"
    "  %scale : Tensor = prim::GetAttr[name=\"scale\"](%self)\n"
    "  %bias : Tensor = prim::GetAttr[name=\"bias\"](%inner)\n"
    "  %1 : Tensor = aten::mul(%x.1, %scale)\n"
    "  %2 : Tensor = prim::CallMethod[name=\"forward\"](%act, %1) # net.py:3:4\n"
    "  %3 : Tensor = aten::add(%2, %bias, %one)\n"
    "  %4 : Tensor = prim::CallFunction(%relu, %3, %false) # net.py:4:4\n"
    "  %scale.2 : Tensor = prim::GetAttr[name=\"scale\"](%self)\n"
    "  %5 : Tensor = aten::mul(%4, %scale.2)\n"
    "  return (%5)\n";

/* The same computation written as a function of (x, scale, bias). */
static const char function_text[] = "graph(%x : Tensor,\n"
                                    "      %s : Tensor,\n"
                                    "      %b : Tensor):\n"
                                    "  %one : int = prim::Constant[value=1]()\n"
                                    "  %1 : Tensor = aten::mul(%x, %s)\n"
                                    "  %2 : Tensor = aten::relu(%1)\n"
                                    "  %3 : Tensor = aten::add(%2, %b, %one)\n"
                                    "  %4 : Tensor = aten::relu(%3)\n"
                                    "  %5 : Tensor = aten::mul(%4, %s)\n"
                                    "  return (%5)\n";

static CliRun run(const char *const *args) {
  return cli_run(jitscope, tmpdir, args);
}

static CliRun run_in(const char *cwd, const char *const *args) {
  return cli_run(jitscope, cwd, args);
}

/* Tensor constants PyTorch printed without their values (2018: the values themselves, 2019 and
 * later: <Tensor>) each become an input of their own, named after the constant's number. */
static void test_unreadable_constants_become_inputs(void) {
  char *consts = write_tmp("consts.ir", "graph(%x : Float(2)) {\n"
                                        "  %4 : Float(2) = prim::Constant[value= 4  4 [ "
                                        "CPUFloatType{2} ]]()\n"
                                        "  %5 : Float(2) = prim::Constant[value=<Tensor>]()\n"
                                        "  %6 : int = prim::Constant[value=1]()\n"
                                        "  %7 : Float(2) = aten::add(%x, %4, %6)\n"
                                        "  %8 : Float(2) = aten::sub(%7, %5, %6)\n"
                                        "  return (%8);\n"
                                        "}\n");
  char *function = write_tmp("consts_fn.ir", "graph(%x : Float(2), %a : Float(2), %b : Float(2)):\n"
                                             "  %6 : int = prim::Constant[value=1]()\n"
                                             "  %7 : Float(2) = aten::add(%x, %a, %6)\n"
                                             "  %8 : Float(2) = aten::sub(%7, %b, %6)\n"
                                             "  return (%8)\n");
  const char *inputs[] = {"Float(2)", "Float(2)", "Float(2)"};
  CliRun want = run((const char *[]){"run", function, "--input", inputs[0], inputs[1], inputs[2],
                                     "--json", NULL});
  CliRun got = run((const char *[]){"run", consts, "--input", inputs[0], inputs[1], inputs[2],
                                    "--json", NULL});
  g_assert_cmpint(want.status, ==, 0);
  g_assert_cmpint(got.status, ==, 0);
  g_assert_cmpstr(got.out, ==, want.out);
  g_assert_nonnull(
      strstr(got.err, "2 module attributes became inputs: constant.4, constant.5"));
  cli_run_clear(&want);
  cli_run_clear(&got);
  g_free(consts);
  g_free(function);
}

/* Optimized graphs as PyTorch printed them (graph_for, the fuser's tests): a FusionGroup whose
 * body concatenates (prim::FusedConcat), a DifferentiableGraph whose body returns a saved
 * value besides its output and holds a FusionGroup. The plan takes them apart and makes its
 * own: outputs and gradients are the plain program's, with and without grad (a given
 * DifferentiableGraph used to abort a run without grad; a given FusionGroup's inputs got no
 * gradient, silently). */
static const char given_fusion_text[] = "graph(%x : Float(2, 3),\n"
                                        "      %y : Float(2, 3)):\n"
                                        "  %2 : Float(4, 3) = prim::FusionGroup_0(%x, %y)\n"
                                        "  return (%2)\n"
                                        "with prim::FusionGroup_0 = graph(%0 : Float(2, 3),\n"
                                        "      %1 : Float(2, 3)):\n"
                                        "  %2 : int = prim::Constant[value=1]()\n"
                                        "  %3 : Float(2, 3) = aten::add(%0, %1, %2)\n"
                                        "  %4 : Float(2, 3) = aten::mul(%0, %1)\n"
                                        "  %5 : Float(4, 3) = prim::FusedConcat[dim=0](%3, %4)\n"
                                        "  return (%5)\n";
static const char plain_fusion_text[] = "graph(%x : Float(2, 3),\n"
                                        "      %y : Float(2, 3)):\n"
                                        "  %2 : int = prim::Constant[value=1]()\n"
                                        "  %d : int = prim::Constant[value=0]()\n"
                                        "  %3 : Float(2, 3) = aten::add(%x, %y, %2)\n"
                                        "  %4 : Float(2, 3) = aten::mul(%x, %y)\n"
                                        "  %l : Tensor[] = prim::ListConstruct(%3, %4)\n"
                                        "  %5 : Float(4, 3) = aten::cat(%l, %d)\n"
                                        "  return (%5)\n";
static const char given_diff_text[] =
    "graph(%x : Float(2, 3),\n"
    "      %y : Float(2, 3)):\n"
    "  %z : Float(2, 3) = prim::DifferentiableGraph_0(%x, %y)\n"
    "  return (%z)\n"
    "with prim::DifferentiableGraph_0 = graph(%0 : Float(2, 3),\n"
    "      %1 : Float(2, 3)):\n"
    "  %s : Float(2, 3), %m : Float(2, 3) = prim::FusionGroup_0(%0, %1)\n"
    "  return (%m, %s)\n"
    "with prim::FusionGroup_0 = graph(%0 : Float(2, 3),\n"
    "      %1 : Float(2, 3)):\n"
    "  %s : Float(2, 3) = aten::sigmoid(%0)\n"
    "  %m : Float(2, 3) = aten::mul(%s, %1)\n"
    "  return (%s, %m)\n";
static const char plain_diff_text[] = "graph(%x : Float(2, 3),\n"
                                      "      %y : Float(2, 3)):\n"
                                      "  %s : Float(2, 3) = aten::sigmoid(%x)\n"
                                      "  %m : Float(2, 3) = aten::mul(%s, %y)\n"
                                      "  return (%m)\n";

/* PyTorch until mid-2018 wrote arguments as attributes, chunk's pieces as its outputs, a
 * device as the list [type, index] and an int list as a tensor. */
static const char attr_args_2018_text[] =
    "graph(%a : Float(2, 3), %b : Float(2, 3)) {\n"
    "  %2 : Float(2, 3) = aten::add[alpha={2}](%a, %b)\n"
    "  %3 : Float(2, 3) = aten::add[other={1.5}, alpha={1}](%a)\n"
    "  %4 : Float(1, 3), %5 : Float(1, 3) = aten::chunk[chunks=2, dim=0](%2)\n"
    "  %6 : Float(2, 1, 3) = aten::stack[dim=0](%4, %5)\n"
    "  %7 : Float(1, 3) = aten::sum[dim=[0], keepdim=0](%6)\n"
    "  %8 : Float(3, 2, 3) = aten::expand[size=[3, 2, 3]](%3)\n"
    "  %9 : Float(2, 3) = aten::select[dim=0, index=1](%8)\n"
    "  %10 : Float(2, 3) = aten::mul(%7, %9)\n"
    "  %dl : int[] = prim::Constant[value= 0 -1 [ CPULongTensor{2} ]]()\n"
    "  %sz : int[] = prim::Constant[value=[2, 3]]()\n"
    "  %dt : int = prim::Constant[value={6}]()\n"
    "  %ly : int = prim::Constant[value={0}]()\n"
    "  %z : Float(2, 3) = aten::ones(%sz, %dt, %ly, %dl)\n"
    "  %11 : Float(2, 3) = aten::add[alpha={3}](%10, %z)\n"
    "  return (%11);\n"
    "}\n";
static const char attr_args_plain_text[] =
    "graph(%a : Float(2, 3), %b : Float(2, 3)):\n"
    "  %two : int = prim::Constant[value=2]()\n"
    "  %one : int = prim::Constant[value=1]()\n"
    "  %zero : int = prim::Constant[value=0]()\n"
    "  %c : float = prim::Constant[value=1.5]()\n"
    "  %2 : Tensor = aten::add(%a, %b, %two)\n"
    "  %3 : Tensor = aten::add(%a, %c, %one)\n"
    "  %4 : Tensor, %5 : Tensor = prim::ConstantChunk[chunks=2, dim=0](%2)\n"
    "  %l : Tensor[] = prim::ListConstruct(%4, %5)\n"
    "  %6 : Tensor = aten::stack(%l, %zero)\n"
    "  %d : int[] = prim::ListConstruct(%zero)\n"
    "  %f : bool = prim::Constant[value=0]()\n"
    "  %7 : Tensor = aten::sum(%6, %d, %f)\n"
    "  %s : int[] = prim::Constant[value=[3, 2, 3]]()\n"
    "  %8 : Tensor = aten::expand(%3, %s)\n"
    "  %9 : Tensor = aten::select(%8, %zero, %one)\n"
    "  %10 : Tensor = aten::mul(%7, %9)\n"
    "  %sz : int[] = prim::Constant[value=[2, 3]]()\n"
    "  %dt : int = prim::Constant[value=6]()\n"
    "  %dev : Device = prim::Constant[value=\"cpu\"]()\n"
    "  %three : int = prim::Constant[value=3]()\n"
    "  %z : Tensor = aten::ones(%sz, %dt, %zero, %dev)\n"
    "  %11 : Tensor = aten::add(%10, %z, %three)\n"
    "  return (%11)\n";

static void expect_runs_as(const char *given_text, const char *plain_text) {
  char *given = write_tmp("given.ir", given_text);
  char *plain = write_tmp("plain.ir", plain_text);
  for (int grad = 0; grad < 2; grad++) {
    const char *spec = grad ? "Float(2, 3, requires_grad=1)" : "Float(2, 3)";
    CliRun want = run((const char *[]){"run", plain, "--input", spec, spec, "--json", NULL});
    CliRun got = run((const char *[]){"run", given, "--input", spec, spec, "--json", NULL});
    g_assert_cmpint(want.status, ==, 0);
    if (got.status != 0)
      g_printerr("%s", got.err);
    g_assert_cmpint(got.status, ==, 0);
    g_assert_cmpstr(got.out, ==, want.out);
    cli_run_clear(&want);
    cli_run_clear(&got);
  }
  CliRun check = run((const char *[]){"check", given, "--input", "Float(2, 3, requires_grad=1)",
                                      "Float(2, 3, requires_grad=1)", NULL});
  g_assert_cmpint(check.status, ==, 0);
  g_assert_nonnull(strstr(check.out, "check passed"));
  cli_run_clear(&check);
  g_free(given);
  g_free(plain);
}

/* A given group whose sum reaches no output as a kernel's sum can (its size a constant of the
 * body): FuseGraph keeps the sum in the body and the group is interpreted. It aborted ("fuser
 * invariant"). */
static const char given_sum_text[] =
    "graph(%x : Float(2, 3),\n"
    "      %y : Float(2, 3)):\n"
    "  %2 : Float(1, 3) = prim::FusionGroup_0(%x, %y)\n"
    "  return (%2)\n"
    "with prim::FusionGroup_0 = graph(%0 : Float(2, 3),\n"
    "      %1 : Float(2, 3)):\n"
    "  %2 : int[] = prim::Constant[value=[1, 3]]()\n"
    "  %3 : Float(2, 3) = aten::mul(%0, %1)\n"
    "  %4 : Float(1, 3) = aten::_grad_sum_to_size(%3, %2)\n"
    "  return (%4)\n";
static const char plain_sum_text[] = "graph(%x : Float(2, 3),\n"
                                     "      %y : Float(2, 3)):\n"
                                     "  %2 : int[] = prim::Constant[value=[1, 3]]()\n"
                                     "  %3 : Float(2, 3) = aten::mul(%x, %y)\n"
                                     "  %4 : Float(1, 3) = aten::_grad_sum_to_size(%3, %2)\n"
                                     "  return (%4)\n";

static void test_given_groups(void) {
  expect_runs_as(given_fusion_text, plain_fusion_text);
  expect_runs_as(given_diff_text, plain_diff_text);
  expect_runs_as(given_sum_text, plain_sum_text);
}

static void test_attr_args_2018(void) {
  expect_runs_as(attr_args_2018_text, attr_args_plain_text);
  /* An attribute no overload takes would change the computation if ignored: the node is
   * opaque, and running it is an error naming it. */
  char *path = write_tmp("beta.ir", "graph(%a : Float(2, 3), %b : Float(2, 3)) {\n"
                                    "  %2 : Float(2, 3) = aten::add[beta={2}](%a, %b)\n"
                                    "  return (%2);\n"
                                    "}\n");
  CliRun r = run((const char *[]){"run", path, "--input", "Float(2, 3)", "Float(2, 3)", NULL});
  g_assert_cmpint(r.status, ==, 2);
  g_assert_nonnull(strstr(r.err, "beta.ir:2:22: warning: arguments written as attributes "
                                 "(PyTorch 2018) that no overload takes, in 'aten::add'"));
  g_assert_nonnull(strstr(r.err, "cannot run op 'aten::add'"));
  cli_run_clear(&r);
  g_free(path);
}

static void test_module_runs_with_named_inputs(void) {
  char *module = write_tmp("net.ir", module_text);
  char *function = write_tmp("net_fn.ir", function_text);
  CliRun want = run((const char *[]){"run", function, "--input", "Float(2, 3)", "Float(3)",
                                     "Float(2, 3)", "--seed", "7", "--json", NULL});
  g_assert_cmpint(want.status, ==, 0);
  /* Positional, in the lowered order: x, then the attributes as first read. */
  CliRun positional = run((const char *[]){"run", module, "--input", "Float(2, 3)", "Float(3)",
                                           "Float(2, 3)", "--seed", "7", "--json", NULL});
  if (positional.status != 0)
    g_printerr("%s", positional.err);
  g_assert_cmpint(positional.status, ==, 0);
  g_assert_cmpstr(positional.out, ==, want.out);
  g_assert_nonnull(strstr(positional.err, "net.ir: inlined 2 calls; 2 module attributes became "
                                          "inputs: self.scale, self.inner.bias"));
  /* Named, in another order: the same values land in the same inputs. */
  CliRun named =
      run((const char *[]){"run", module, "--input", "self.inner.bias=Float(2, 3)", "x=Float(2, 3)",
                           "self.scale=Float(3)", "--seed", "7", "--json", NULL});
  g_assert_cmpint(named.status, ==, 0);
  g_assert_cmpstr(named.out, ==, want.out);
  /* `print` shows the module graph as written. */
  CliRun printed = run((const char *[]){"print", module, NULL});
  g_assert_cmpint(printed.status, ==, 0);
  g_assert_cmpstr(printed.out, ==, module_text);
  cli_run_clear(&want);
  cli_run_clear(&positional);
  cli_run_clear(&named);
  cli_run_clear(&printed);
  g_free(module);
  g_free(function);
}

static void test_named_input_errors(void) {
  char *function = write_tmp("net_fn.ir", function_text);
  CliRun unknown =
      run((const char *[]){"run", function, "--input", "y=Float(3)", "Float(3)", "Float(3)", NULL});
  g_assert_cmpint(unknown.status, ==, 2);
  g_assert_cmpstr(unknown.err, ==,
                  "jitscope: error: --input 1: the graph has no input named 'y' (its inputs: "
                  "x, s, b)\n");
  CliRun twice = run(
      (const char *[]){"run", function, "--input", "s=Float(3)", "s=Float(3)", "Float(3)", NULL});
  g_assert_cmpint(twice.status, ==, 2);
  g_assert_cmpstr(twice.err, ==, "jitscope: error: --input 2: input 's' is given twice\n");
  cli_run_clear(&unknown);
  cli_run_clear(&twice);
  g_free(function);
}

static void test_module_call_without_definition(void) {
  char *path = write_tmp("blk.ir",
                         "graph(%self : __torch__.Net,\n"
                         "      %x : Tensor):\n"
                         "  %blk : __torch__.Block = prim::GetAttr[name=\"blk\"](%self)\n"
                         "  %1 : Tensor = prim::CallMethod[name=\"forward\"](%blk, %x) # n.py:9:8\n"
                         "  return (%1)\n");
  CliRun r = run((const char *[]){"run", path, "--input", "Float(2)", NULL});
  g_assert_cmpint(r.status, ==, 2);
  g_autofree char *want = g_strdup_printf(
      "jitscope: %s: error: cannot turn the module graph into a function: self.blk is used by "
      "prim::CallMethod[name=\"forward\"] (n.py:9:8), which jitscope has no definition for\n",
      path);
  g_assert_cmpstr(r.err, ==, want);
  cli_run_clear(&r);
  g_free(path);
}

/* F.interpolate in a mode jitscope does not run, or with align_corners where PyTorch refuses
 * it: the run stops with an error that says so (the supported forms run in tests/corpus-real's
 * interpolate_forms). */
static void test_interpolate_refusals(void) {
  static const char *const modes[][2] = {
      {"bicubic", "NotImplementedError: jitscope runs F.interpolate in modes 'nearest' and "
                  "'bilinear' (without antialias) on 4-D inputs only"},
      {"nearest", "ValueError: align_corners option can only be set with the interpolating "
                  "modes"}};
  for (guint m = 0; m < G_N_ELEMENTS(modes); m++) {
    g_autofree char *text = g_strdup_printf(
        "graph(%%x : Tensor):\n"
        "  %%f : Function = prim::Constant[name=\"interpolate\"]()\n"
        "  %%false : bool = prim::Constant[value=0]()\n"
        "  %%none : NoneType = prim::Constant()\n"
        "  %%mode : str = prim::Constant[value=\"%s\"]()\n"
        "  %%two : float = prim::Constant[value=2.]()\n"
        "  %%y : Tensor = prim::CallFunction(%%f, %%x, %%none, %%two, %%mode, %%false, %%none, "
        "%%false) # up.py:3:11\n"
        "  return (%%y)\n",
        modes[m][0]);
    char *path = write_tmp("up.ir", text);
    CliRun r = run((const char *[]){"run", path, "--input", "Float(1, 2, 3, 3)", NULL});
    g_assert_cmpint(r.status, ==, 2);
    g_assert_nonnull(strstr(r.err, modes[m][1]));
    cli_run_clear(&r);
    g_free(path);
  }
}

/* torch.norm with p a string (the graph PyTorch 1.13 prints: a prim::CallFunction of its
 * first overload): PyTorch's errors for a dtype and an unknown string, and p='nuc', whose
 * nuclear_norm jitscope does not run, stops the run saying so (the forms that run are in
 * tests/corpus-real's torch_norms). */
static void test_norm_refusals(void) {
  static const char *const cases[][3] = {
      {"nuc", "none",
       "NotImplementedError: jitscope does not run torch.norm with p='nuc': "
       "aten::nuclear_norm needs a singular value decomposition"},
      {"nuc", "seven", "ValueError: dtype argument is not supported in nuclear norm"},
      {"fro", "seven", "ValueError: dtype argument is not supported in frobenius norm"},
      {"abc", "none", "RuntimeError: only valid string values are 'fro' and 'nuc', found abc"}};
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autofree char *text = g_strdup_printf(
        "graph(%%x.1 : Tensor):\n"
        "  %%7 : Function = prim::Constant[name=\"norm\"]()\n"
        "  %%false : bool = prim::Constant[value=0]()\n"
        "  %%none : NoneType = prim::Constant()\n"
        "  %%seven : int = prim::Constant[value=7]()\n"
        "  %%p : str = prim::Constant[value=\"%s\"]()\n"
        "  %%8 : Tensor = prim::CallFunction(%%7, %%x.1, %%p, %%none, %%false, %%none, %%%s) # "
        "n.py:6:11\n"
        "  return (%%8)\n",
        cases[i][0], cases[i][1]);
    char *path = write_tmp("norm.ir", text);
    CliRun r = run((const char *[]){"run", path, "--input", "Float(3, 4)", NULL});
    g_assert_cmpint(r.status, ==, 2);
    g_assert_nonnull(strstr(r.err, cases[i][2]));
    cli_run_clear(&r);
    g_free(path);
  }
}

/* F.celu with alpha 0 and F.rrelu in training or with crossed bounds stop with PyTorch's
 * error, or say that training's random slopes are not run. */
static void test_activation_refusals(void) {
  static const char *const calls[][2] = {
      {"%f : Function = prim::Constant[name=\"celu\"]()\n"
       "  %a : float = prim::Constant[value=0.]()\n"
       "  %y : Tensor = prim::CallFunction(%f, %x, %a, %false) # a.py:3:11\n",
       "ZeroDivisionError: alpha cannot be 0 for CELU"},
      {"%f : Function = prim::Constant[name=\"rrelu\"]()\n"
       "  %lo : float = prim::Constant[value=0.125]()\n"
       "  %hi : float = prim::Constant[value=0.25]()\n"
       "  %true : bool = prim::Constant[value=1]()\n"
       "  %y : Tensor = prim::CallFunction(%f, %x, %lo, %hi, %true, %false) # a.py:3:11\n",
       "NotImplementedError: jitscope runs F.rrelu with training=False only"},
      {"%f : Function = prim::Constant[name=\"rrelu\"]()\n"
       "  %lo : float = prim::Constant[value=0.5]()\n"
       "  %hi : float = prim::Constant[value=0.25]()\n"
       "  %y : Tensor = prim::CallFunction(%f, %x, %lo, %hi, %false, %false) # a.py:3:11\n",
       "Lower bound should be less than or equal to the upper bound"}};
  for (guint k = 0; k < G_N_ELEMENTS(calls); k++) {
    g_autofree char *text = g_strdup_printf("graph(%%x : Tensor):\n"
                                            "  %%false : bool = prim::Constant[value=0]()\n"
                                            "  %s"
                                            "  return (%%y)\n",
                                            calls[k][0]);
    char *path = write_tmp("act.ir", text);
    CliRun r = run((const char *[]){"run", path, "--input", "Float(2, 3)", NULL});
    g_assert_cmpint(r.status, ==, 2);
    g_assert_nonnull(strstr(r.err, calls[k][1]));
    cli_run_clear(&r);
    g_free(path);
  }
}

static void test_opaque_ops(void) {
  const char *text = "graph(%x : Tensor):\n"
                     "  %y : Tensor = aten::frobnicate(%x)\n"
                     "  %z : Tensor = aten::frobnicate(%y)\n"
                     "  return (%z)\n";
  char *path = write_tmp("opaque.ir", text);
  g_autofree char *warning = g_strdup_printf(
      "jitscope: %s:2:17: warning: unknown op 'aten::frobnicate': parsed as an opaque node (it "
      "can be printed and drawn, not run)\n",
      path);
  CliRun printed = run((const char *[]){"print", path, NULL});
  g_assert_cmpint(printed.status, ==, 0);
  g_assert_cmpstr(printed.out, ==, text);
  g_assert_cmpstr(printed.err, ==, warning); /* once per op */
  CliRun json = run((const char *[]){"print", path, "--json", NULL});
  g_assert_cmpint(json.status, ==, 0);
  g_assert_nonnull(strstr(json.out, "{\"kind\":\"aten::frobnicate\","));
  CliRun ran = run((const char *[]){"run", path, "--input", "Float(2)", NULL});
  g_assert_cmpint(ran.status, ==, 2);
  g_autofree char *error = g_strdup_printf(
      "%sjitscope: %s: error: running the graph failed: aten::frobnicate: cannot run op "
      "'aten::frobnicate': jitscope does not know it (it was read as an opaque node at %s:2:17)\n",
      warning, path, path);
  g_assert_cmpstr(ran.err, ==, error);
  cli_run_clear(&printed);
  cli_run_clear(&json);
  cli_run_clear(&ran);
  g_free(path);
}

/* Module graphs keep ops we do not know in the branches that raise or warn: a run that never
 * reaches one is not stopped by it; one that does names the op and where it was read. */
static void test_opaque_op_in_branch_not_taken(void) {
  const char *text = "graph(%x : Tensor,\n"
                     "      %flag : bool):\n"
                     "  %y : Tensor = prim::If(%flag)\n"
                     "    block0():\n"
                     "      %w : Tensor = aten::frobnicate(%x)\n"
                     "      -> (%w)\n"
                     "    block1():\n"
                     "      %v : Tensor = aten::neg(%x)\n"
                     "      -> (%v)\n"
                     "  return (%y)\n";
  char *path = write_tmp("branch.ir", text);
  CliRun skipped = run((const char *[]){"run", path, "--input", "Float(2)", "False", NULL});
  g_assert_cmpint(skipped.status, ==, 0);
  CliRun reached = run((const char *[]){"run", path, "--input", "Float(2)", "True", NULL});
  g_assert_cmpint(reached.status, ==, 2);
  g_autofree char *where = g_strdup_printf("(it was read as an opaque node at %s:5:21)", path);
  g_assert_nonnull(strstr(reached.err, where));
  cli_run_clear(&skipped);
  cli_run_clear(&reached);
  g_free(path);
}

static void test_graph_option(void) {
  char *path = write_tmp("two.ir", "graph(%a : Tensor) {\n"
                                   "  %1 : Tensor = aten::neg(%a)\n"
                                   "  return (%1);\n"
                                   "}\n"
                                   "graph(%a : Tensor,\n"
                                   "      %b : Tensor) {\n"
                                   "  %2 : Tensor = aten::mul(%a, %b)\n"
                                   "  return (%2);\n"
                                   "}\n");
  CliRun first = run((const char *[]){"run", path, "--input", "2.5", "--json", NULL});
  CliRun second =
      run((const char *[]){"run", path, "--graph", "1", "--input", "Float(1)", "Float(1)", NULL});
  CliRun past = run((const char *[]){"print", path, "--graph", "2", NULL});
  /* Graph 0 takes one tensor: a float does not fit it. */
  g_assert_cmpint(first.status, ==, 2);
  g_assert_nonnull(strstr(first.err, "does not fit the graph's input %a : Tensor"));
  g_assert_cmpint(second.status, ==, 0);
  g_assert_cmpint(past.status, ==, 2);
  g_autofree char *want =
      g_strdup_printf("jitscope: error: --graph 2: %s holds 2 graphs (--graph 0 to 1)\n", path);
  g_assert_cmpstr(past.err, ==, want);
  /* export writes the chosen graph as the bundle's program. */
  g_autofree char *bundle = g_build_filename(tmpdir, "bundle", NULL);
  CliRun exported = run((const char *[]){"export", path, "--graph", "1", "--input", "Float(1)",
                                         "Float(1)", "-o", bundle, NULL});
  g_assert_cmpint(exported.status, ==, 0);
  g_autofree char *program_path = g_build_filename(bundle, "program.ir", NULL);
  g_autofree char *program = NULL;
  g_assert_true(g_file_get_contents(program_path, &program, NULL, NULL));
  g_assert_cmpstr(program, ==,
                  "graph(%a : Tensor,\n      %b : Tensor):\n"
                  "  %2 : Tensor = aten::mul(%a, %b)\n  return (%2)\n");
  cli_run_clear(&exported);
  cli_run_clear(&first);
  cli_run_clear(&second);
  cli_run_clear(&past);
  g_free(path);
}

/* Runs `args` in tests/cli/data/NAME (made by its gen.py with PyTorch 1.13) and checks that
 * the one float32 output is PyTorch's, expected.npy there, within 1e-5. */
static void check_matches_pytorch(const char *name, const char *const *args) {
  const char *source = g_getenv("JITSCOPE_SOURCE_DIR");
  g_assert_nonnull(source);
  g_autofree char *dir = g_build_filename(source, "tests", "cli", "data", name, NULL);
  CliRun r = run_in(dir, args);
  if (r.status != 0)
    g_printerr("%s", r.err);
  g_assert_cmpint(r.status, ==, 0);
  g_autofree char *expected_path = g_build_filename(dir, "expected.npy", NULL);
  GError *error = NULL;
  RtTensor *expected = rt_npy_load(expected_path, &error);
  g_assert_no_error(error);
  g_assert_cmpint(expected->dtype, ==, IR_DTYPE_FLOAT32);
  const char *p = strstr(r.out, "\"data\":[");
  g_assert_nonnull(p);
  p += strlen("\"data\":[");
  const float *want =
      (const float *)((const char *)expected->storage->data + expected->offset * sizeof(float));
  gint64 n = rt_tensor_numel(expected);
  for (gint64 i = 0; i < n; i++) {
    char *end;
    double got = strtod(p, &end);
    g_assert_true(end != p);
    if (fabs(got - want[i]) > 1e-5 + 1e-5 * fabs(want[i]))
      g_error("%s: output[%" G_GINT64_FORMAT "] = %.9g, PyTorch gives %.9g", name, i, got, want[i]);
    p = end + (*end == ',');
  }
  g_assert_cmpint(*p, ==, ']');
  rt_tensor_unref(expected);
  cli_run_clear(&r);
}

/* nn.Sequential(Linear(4, 8), ReLU(), LayerNorm(8)).eval(), scripted: its .inlined_graph run
 * with the parameters as named inputs. */
static void test_scripted_sequential_matches_pytorch(void) {
  check_matches_pytorch("seq_layernorm",
                        (const char *[]){"run", "graph.ir", "--input", "input.1=x.npy",
                                         "self.0.weight=0_weight.npy", "self.0.bias=0_bias.npy",
                                         "self.2.weight=2_weight.npy", "self.2.bias=2_bias.npy",
                                         "--json", NULL});
}

/* nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16, dropout=0.0).eval(),
 * scripted: the slow path (batch_first=False) through nn.MultiheadAttention, with the module's
 * flags and sizes as named scalar inputs. */
static void test_scripted_transformer_layer_matches_pytorch(void) {
  check_matches_pytorch(
      "transformer_layer",
      (const char *[]){"run",
                       "graph.ir",
                       "--input",
                       "src.1=x.npy",
                       "src_mask.1=none",
                       "src_key_padding_mask.1=none",
                       "self.training=false",
                       "self.self_attn.in_proj_weight=self_attn_in_proj_weight.npy",
                       "self.self_attn.in_proj_bias=self_attn_in_proj_bias.npy",
                       "self.self_attn.out_proj.weight=self_attn_out_proj_weight.npy",
                       "self.self_attn.out_proj.bias=self_attn_out_proj_bias.npy",
                       "self.norm1.weight=norm1_weight.npy",
                       "self.norm1.bias=norm1_bias.npy",
                       "self.norm2.weight=norm2_weight.npy",
                       "self.norm2.bias=norm2_bias.npy",
                       "self.linear1.weight=linear1_weight.npy",
                       "self.linear1.bias=linear1_bias.npy",
                       "self.linear2.weight=linear2_weight.npy",
                       "self.linear2.bias=linear2_bias.npy",
                       "self.self_attn.embed_dim=8",
                       "self.self_attn.num_heads=2",
                       "self.activation_relu_or_gelu=1",
                       "self.self_attn.training=false",
                       "self.self_attn._qkv_same_embed_dim=true",
                       "self.self_attn.bias_k=none",
                       "self.self_attn.bias_v=none",
                       "self.self_attn.add_zero_attn=false",
                       "self.self_attn.dropout=0.0",
                       "self.dropout1.training=false",
                       "self.dropout.training=false",
                       "self.dropout2.training=false",
                       "--json",
                       NULL});
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  if (argc < 2) {
    g_printerr("usage: %s JITSCOPE_BINARY\n", argv[0]);
    return 2;
  }
  jitscope = g_canonicalize_filename(argv[1], NULL);
  tmpdir = g_dir_make_tmp("jitscope-cli-modules-XXXXXX", NULL);
  g_assert_nonnull(tmpdir);
  g_test_add_func("/cli/modules/named-inputs", test_module_runs_with_named_inputs);
  g_test_add_func("/cli/modules/named-input-errors", test_named_input_errors);
  g_test_add_func("/cli/modules/unreadable-constants", test_unreadable_constants_become_inputs);
  g_test_add_func("/cli/modules/given-groups", test_given_groups);
  g_test_add_func("/cli/modules/attr-args-2018", test_attr_args_2018);
  g_test_add_func("/cli/modules/call-without-definition", test_module_call_without_definition);
  g_test_add_func("/cli/modules/opaque-ops", test_opaque_ops);
  g_test_add_func("/cli/modules/interpolate-refusals", test_interpolate_refusals);
  g_test_add_func("/cli/modules/norm-refusals", test_norm_refusals);
  g_test_add_func("/cli/modules/activation-refusals", test_activation_refusals);
  g_test_add_func("/cli/modules/opaque-op-in-branch-not-taken", test_opaque_op_in_branch_not_taken);
  g_test_add_func("/cli/modules/graph-option", test_graph_option);
  g_test_add_func("/cli/modules/scripted-sequential-matches-pytorch",
                  test_scripted_sequential_matches_pytorch);
  g_test_add_func("/cli/modules/scripted-transformer-layer-matches-pytorch",
                  test_scripted_transformer_layer_matches_pytorch);
  int status = g_test_run();
  char *rm[] = {"rm", "-rf", tmpdir, NULL};
  g_spawn_sync(NULL, rm, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, NULL);
  g_free(tmpdir);
  g_free(jitscope);
  return status;
}
