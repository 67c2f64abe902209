/* Dicts and the list ops beyond len/getitem/append (issue 11), as TorchScript's, each case run
 * through the executor both unoptimized and optimized (so CSE and constant propagation must
 * keep the meaning of mutating graphs): prim::DictConstruct, __getitem__, _set_item,
 * __contains__, len, keys/values/items in insertion order, get with and without default, pop,
 * update, clear, aten::dict(); list slice with Python's bounds (negative, clamped, step > 1,
 * negative step), add, list, mul, extend, insert, pop, reverse, clear, __contains__, index.
 * Expected values are worked out by hand and compared in their printed form. */
#include <string.h>

#include "exec/executor.h"
#include "ir/text.h"

/* Runs `ir` on `inputs` (borrowed); returns the outputs printed as one tuple, or NULL with
 * *error set. */
static char *run_printed(const char *ir, bool optimize, RtValue *inputs, guint n_inputs,
                         GError **error) {
  IrGraph *graph = ir_graph_parse(ir, strlen(ir), "dicts.ir", error);
  g_assert_nonnull(graph);
  ExecSession *session = exec_session_new();
  session->optimize = optimize;
  ExecExecutor *executor = exec_executor_new(session, graph, "main", EXEC_PLAN_FORWARD);
  RtValue *outs = NULL;
  guint n_outs = 0;
  bool ok = exec_executor_run(executor, inputs, n_inputs, &outs, &n_outs, error);
  exec_session_free(session);
  ir_graph_free(graph);
  if (!ok)
    return NULL;
  GString *text = g_string_new(NULL);
  for (guint i = 0; i < n_outs; i++) {
    if (i)
      g_string_append(text, " | ");
    rt_value_print(text, outs[i]);
    rt_value_unref(outs[i]);
  }
  g_free(outs);
  return g_string_free(text, FALSE);
}

static void check(const char *ir, RtValue *inputs, guint n_inputs, const char *expected) {
  for (int optimize = 0; optimize <= 1; optimize++) {
    GError *error = NULL;
    g_autofree char *got = run_printed(ir, optimize, inputs, n_inputs, &error);
    g_assert_no_error(error);
    g_assert_cmpstr(got, ==, expected);
  }
}

static void check_error(const char *ir, RtValue *inputs, guint n_inputs, const char *message) {
  for (int optimize = 0; optimize <= 1; optimize++) {
    GError *error = NULL;
    g_assert_null(run_printed(ir, optimize, inputs, n_inputs, &error));
    g_assert_nonnull(error);
    if (strstr(error->message, message) == NULL)
      g_error("expected '%s' in: %s", message, error->message);
    g_error_free(error);
  }
}

/* d = {"a": x, "b": 2}; d["c"] = 3; d["a"] = 5 (keeps its place); n = len(d);
 * "b" in d, "z" in d; d["c"]; d.get("z"), d.get("z", 7), d.get("b", 7); keys, values, items.
 * With x = 1: d = {"a": 5, "b": 2, "c": 3}. */
static const char dict_ir[] = "graph(%x : int):\n"
                              "  %a : str = prim::Constant[value=\"a\"]()\n"
                              "  %b : str = prim::Constant[value=\"b\"]()\n"
                              "  %c : str = prim::Constant[value=\"c\"]()\n"
                              "  %z : str = prim::Constant[value=\"z\"]()\n"
                              "  %2 : int = prim::Constant[value=2]()\n"
                              "  %3 : int = prim::Constant[value=3]()\n"
                              "  %5 : int = prim::Constant[value=5]()\n"
                              "  %7 : int = prim::Constant[value=7]()\n"
                              "  %d : Dict(str, int) = prim::DictConstruct(%a, %x, %b, %2)\n"
                              "  %first : int = aten::__getitem__(%d, %a)\n"
                              "  %n0 : int = aten::len(%d)\n"
                              "   = aten::_set_item(%d, %c, %3)\n"
                              "   = aten::_set_item(%d, %a, %5)\n"
                              "  %n : int = aten::len(%d)\n"
                              "  %hb : bool = aten::__contains__(%d, %b)\n"
                              "  %hz : bool = aten::__contains__(%d, %z)\n"
                              "  %vc : int = aten::__getitem__(%d, %c)\n"
                              "  %g0 : int? = aten::get(%d, %z)\n"
                              "  %g1 : int = aten::get(%d, %z, %7)\n"
                              "  %g2 : int = aten::get(%d, %b, %7)\n"
                              "  %ks : str[] = aten::keys(%d)\n"
                              "  %vs : int[] = aten::values(%d)\n"
                              "  %its : (str, int)[] = aten::items(%d)\n"
                              "  return (%first, %n0, %n, %hb, %hz, %vc, %g0, %g1, %g2, %ks, %vs, "
                              "%its, %d)\n";

static void test_dict_reads_and_set(void) {
  RtValue x = rt_int(1);
  check(dict_ir, &x, 1,
        "1 | 2 | 3 | True | False | 3 | None | 7 | 2 | [\"a\", \"b\", \"c\"] | [5, 2, 3] | "
        "[(\"a\", 5), (\"b\", 2), (\"c\", 3)] | {\"a\": 5, \"b\": 2, \"c\": 3}");
}

/* e = dict(); e[k] = 1 for the int keys 3 and 1; p = e.pop(3); q = e.pop(9, 0);
 * d = {"u": 1}; d.update({"v": 2, "u": 4}); m = len(d); d.clear(). */
static const char dict_mutation_ir[] =
    "graph(%k : int):\n"
    "  %1 : int = prim::Constant[value=1]()\n"
    "  %0 : int = prim::Constant[value=0]()\n"
    "  %9 : int = prim::Constant[value=9]()\n"
    "  %2 : int = prim::Constant[value=2]()\n"
    "  %4 : int = prim::Constant[value=4]()\n"
    "  %u : str = prim::Constant[value=\"u\"]()\n"
    "  %v : str = prim::Constant[value=\"v\"]()\n"
    "  %e : Dict(int, int) = prim::DictConstruct()\n"
    "   = aten::_set_item(%e, %k, %1)\n"
    "   = aten::_set_item(%e, %1, %1)\n"
    "  %p : int = aten::pop(%e, %k)\n"
    "  %q : int = aten::pop(%e, %9, %0)\n"
    "  %ek : int[] = aten::keys(%e)\n"
    "  %d : Dict(str, int) = prim::DictConstruct(%u, %1)\n"
    "  %other : Dict(str, int) = prim::DictConstruct(%v, %2, %u, %4)\n"
    "   = aten::update(%d, %other)\n"
    "  %m : int = aten::len(%d)\n"
    "   = aten::clear(%d)\n"
    "  %after : int = aten::len(%d)\n"
    "  %t : Dict(str, Tensor) = aten::dict()\n"
    "  %tn : int = aten::len(%t)\n"
    "  return (%p, %q, %ek, %m, %after, %tn, %d)\n";

static void test_dict_mutation(void) {
  RtValue k = rt_int(3);
  check(dict_mutation_ir, &k, 1, "1 | 0 | [1] | 2 | 0 | 0 | {}");
}

static const char missing_key_ir[] = "graph(%key : str):\n"
                                     "  %a : str = prim::Constant[value=\"a\"]()\n"
                                     "  %1 : int = prim::Constant[value=1]()\n"
                                     "  %d : Dict(str, int) = prim::DictConstruct(%a, %1)\n"
                                     "  %v : int = aten::__getitem__(%d, %key) # f.py:3:8\n"
                                     "  return (%v)\n";

static void test_missing_key(void) {
  RtValue key = rt_str("nope");
  check_error(missing_key_ir, &key, 1, "key \"nope\" is not in the dict");
  check_error(missing_key_ir, &key, 1, "f.py:3:8");
  rt_value_unref(key);
}

/* xs = [0, 1, 2, 3, 4] (from n = 5 appends): xs[1:], xs[::2], xs[-2:], xs[:-3], xs[10:],
 * xs[-10:2], xs[::-1], xs[3:0:-2]; xs[1:3] + xs[:1]; list(xs) then appended; [7] * 3. */
static const char slice_ir[] =
    "graph(%n : int):\n"
    "  %none : NoneType = prim::Constant()\n"
    "  %1 : int = prim::Constant[value=1]()\n"
    "  %2 : int = prim::Constant[value=2]()\n"
    "  %3 : int = prim::Constant[value=3]()\n"
    "  %m1 : int = prim::Constant[value=-1]()\n"
    "  %m2 : int = prim::Constant[value=-2]()\n"
    "  %m3 : int = prim::Constant[value=-3]()\n"
    "  %0 : int = prim::Constant[value=0]()\n"
    "  %7 : int = prim::Constant[value=7]()\n"
    "  %10 : int = prim::Constant[value=10]()\n"
    "  %m10 : int = prim::Constant[value=-10]()\n"
    "  %true : bool = prim::Constant[value=1]()\n"
    "  %xs : int[] = prim::ListConstruct()\n"
    "   = prim::Loop(%n, %true)\n"
    "    block0(%i : int):\n"
    "      %same : int[] = aten::append(%xs, %i)\n"
    "      -> (%true)\n"
    "  %a : int[] = aten::slice(%xs, %1, %none, %1)\n"
    "  %b : int[] = aten::slice(%xs, %none, %none, %2)\n"
    "  %c : int[] = aten::slice(%xs, %m2, %none, %1)\n"
    "  %d : int[] = aten::slice(%xs, %none, %m3, %1)\n"
    "  %e : int[] = aten::slice(%xs, %10, %none, %1)\n"
    "  %f : int[] = aten::slice(%xs, %m10, %2, %1)\n"
    "  %g : int[] = aten::slice(%xs, %none, %none, %m1)\n"
    "  %h : int[] = aten::slice(%xs, %3, %0, %m2)\n"
    "  %mid : int[] = aten::slice(%xs, %1, %3)\n"
    "  %head : int[] = aten::slice(%xs, %none, %1)\n"
    "  %sum : int[] = aten::add(%mid, %head)\n"
    "  %copy : int[] = aten::list(%xs)\n"
    "  %grown : int[] = aten::append(%copy, %7)\n"
    "  %sevens : int[] = prim::ListConstruct(%7)\n"
    "  %rep : int[] = aten::mul(%sevens, %3)\n"
    "  %rep2 : int[] = aten::mul(%2, %sevens)\n"
    "  %none_rep : int[] = aten::mul(%sevens, %m1)\n"
    "  return (%a, %b, %c, %d, %e, %f, %g, %h, %sum, %copy, %xs, %rep, %rep2, %none_rep)\n";

static void test_list_slice_add_copy(void) {
  RtValue n = rt_int(5);
  check(slice_ir, &n, 1,
        "[1, 2, 3, 4] | [0, 2, 4] | [3, 4] | [0, 1] | [] | [0, 1] | [4, 3, 2, 1, 0] | [3, 1] | "
        "[1, 2, 0] | [0, 1, 2, 3, 4, 7] | [0, 1, 2, 3, 4] | [7, 7, 7] | [7, 7] | []");
}

/* xs = [1, 2]: extend with [3, 4] and with itself (the items it had), insert 0 at 0, 9 at -1,
 * 8 past the end; p = pop(), q = pop(0); reverse; contains and index; then clear. */
static const char list_mutation_ir[] = "graph(%one : int):\n"
                                       "  %2 : int = prim::Constant[value=2]()\n"
                                       "  %3 : int = prim::Constant[value=3]()\n"
                                       "  %4 : int = prim::Constant[value=4]()\n"
                                       "  %0 : int = prim::Constant[value=0]()\n"
                                       "  %9 : int = prim::Constant[value=9]()\n"
                                       "  %8 : int = prim::Constant[value=8]()\n"
                                       "  %m1 : int = prim::Constant[value=-1]()\n"
                                       "  %100 : int = prim::Constant[value=100]()\n"
                                       "  %xs : int[] = prim::ListConstruct(%one, %2)\n"
                                       "  %more : int[] = prim::ListConstruct(%3, %4)\n"
                                       "   = aten::extend(%xs, %more)\n"
                                       "   = aten::extend(%xs, %xs)\n"
                                       "  %n0 : int = aten::len(%xs)\n"
                                       "   = aten::insert(%xs, %0, %0)\n"
                                       "   = aten::insert(%xs, %m1, %9)\n"
                                       "   = aten::insert(%xs, %100, %8)\n"
                                       "  %p : int = aten::pop(%xs)\n"
                                       "  %q : int = aten::pop(%xs, %0)\n"
                                       "   = aten::reverse(%xs)\n"
                                       "  %has : bool = aten::__contains__(%xs, %9)\n"
                                       "  %at : int = aten::index(%xs, %9)\n"
                                       "  %rev : int[] = aten::list(%xs)\n"
                                       "   = aten::clear(%xs)\n"
                                       "  %hasnt : bool = aten::__contains__(%xs, %9)\n"
                                       "  %n : int = aten::len(%xs)\n"
                                       "  return (%n0, %p, %q, %rev, %has, %at, %hasnt, %n)\n";

static void test_list_mutation(void) {
  /* after extends: [1, 2, 3, 4, 1, 2, 3, 4]; inserts: [0, 1, 2, 3, 4, 1, 2, 3, 9, 4, 8];
   * pop() = 8, pop(0) = 0: [1, 2, 3, 4, 1, 2, 3, 9, 4]; reversed [4, 9, 3, 2, 1, 4, 3, 2, 1]. */
  RtValue one = rt_int(1);
  check(list_mutation_ir, &one, 1,
        "8 | 8 | 0 | [4, 9, 3, 2, 1, 4, 3, 2, 1] | True | 1 | False | 0");
}

static const char list_errors_ir[] = "graph(%k : int):\n"
                                     "  %0 : int = prim::Constant[value=0]()\n"
                                     "  %xs : int[] = prim::ListConstruct(%0)\n"
                                     "  %at : int = aten::index(%xs, %k) # g.py:2:4\n"
                                     "  %p : int = aten::pop(%xs)\n"
                                     "  %q : int = aten::pop(%xs) # g.py:4:4\n"
                                     "  return (%at, %p, %q)\n";

static void test_list_errors(void) {
  RtValue k = rt_int(5);
  check_error(list_errors_ir, &k, 1, "5 is not in list");
  k = rt_int(0);
  check_error(list_errors_ir, &k, 1, "pop from empty list");
  check_error(list_errors_ir, &k, 1, "g.py:4:4");
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/interp/dicts/reads-and-set", test_dict_reads_and_set);
  g_test_add_func("/interp/dicts/mutation", test_dict_mutation);
  g_test_add_func("/interp/dicts/missing-key", test_missing_key);
  g_test_add_func("/interp/lists/slice-add-copy", test_list_slice_add_copy);
  g_test_add_func("/interp/lists/mutation-ops", test_list_mutation);
  g_test_add_func("/interp/lists/errors", test_list_errors);
  return g_test_run();
}
