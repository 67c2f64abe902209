/* Graphs written in PyTorch's text format, parsed, verified and interpreted: a while loop with
 * an If inside and a tuple, RaiseException under an If, errors naming the node's source
 * location. Expected numbers are worked out by hand in the comments. */
#include <string.h>

#include "interp_test_util.h"
#include "ir/text.h"
#include "ir/verify.h"

static IrGraph *parse(const char *text) {
  GError *error = NULL;
  IrGraph *g = ir_graph_parse(text, strlen(text), "test.ir", &error);
  g_assert_no_error(error);
  g_assert_true(ir_graph_verify(g, &error));
  g_assert_no_error(error);
  return g;
}

/* cnt = 0; acc = x; while True: (acc = acc * 2 if i < 2 else acc + 1); cnt += 1; stop when
 * cnt >= n. x = [1, -1], n = 4: [2, -2], [4, -4], [5, -3], [6, -2]; cnt = 4. */
static const char *while_if_tuple = "graph(%x : Tensor,\n"
                                    "      %n : int):\n"
                                    "  %true : bool = prim::Constant[value=1]()\n"
                                    "  %zero : int = prim::Constant[value=0]()\n"
                                    "  %one : int = prim::Constant[value=1]()\n"
                                    "  %two : int = prim::Constant[value=2]()\n"
                                    "  %max : int = prim::Constant[value=9223372036854775807]()\n"
                                    "  %r : Tensor, %k : int = prim::Loop(%max, %true, %x, %zero)\n"
                                    "    block0(%i : int, %acc : Tensor, %cnt : int):\n"
                                    "      %early : bool = aten::lt(%i, %two)\n"
                                    "      %next : Tensor = prim::If(%early)\n"
                                    "        block0():\n"
                                    "          %d : Tensor = aten::mul(%acc, %two)\n"
                                    "          -> (%d)\n"
                                    "        block1():\n"
                                    "          %p : Tensor = aten::add(%acc, %one, %one)\n"
                                    "          -> (%p)\n"
                                    "      %cnt2 : int = aten::add(%cnt, %one)\n"
                                    "      %go : bool = aten::lt(%cnt2, %n)\n"
                                    "      -> (%go, %next, %cnt2)\n"
                                    "  %t : (Tensor, int) = prim::TupleConstruct(%r, %k)\n"
                                    "  %e : int = prim::TupleIndex(%t, %one)\n"
                                    "  return (%t, %e)\n";

static void test_while_if_tuple(void) {
  IrGraph *g = parse(while_if_tuple);
  double xv[2] = {1, -1};
  RtValue ins[2] = {rt_tensor(it_vector(2, xv)), rt_int(4)}, r[2];
  GError *error = NULL;
  g_assert_true(it_run(g, NULL, ins, 2, r, &error));
  g_assert_no_error(error);
  g_assert_true(r[0].tag == RT_TUPLE && r[0].u.seq->len == 2);
  int64_t two = 2;
  double e[2] = {6, -2};
  it_assert_tensor(r[0].u.seq->items[0].u.tensor, 1, &two, e, 0);
  g_assert_cmpint(r[0].u.seq->items[1].u.i, ==, 4);
  g_assert_cmpint(r[1].u.i, ==, 4);
  rt_value_unref(r[0]);
  /* n = 1: one iteration only, [2, -2]. */
  ins[1] = rt_int(1);
  g_assert_true(it_run(g, NULL, ins, 2, r, &error));
  double e1[2] = {2, -2};
  it_assert_tensor(r[0].u.seq->items[0].u.tensor, 1, &two, e1, 0);
  g_assert_cmpint(r[1].u.i, ==, 1);
  rt_value_unref(r[0]);
  rt_value_unref(ins[0]);
  ir_graph_free(g);
}

static const char *raise_text =
    "graph(%x : Tensor):\n"
    "  %msg : str = prim::Constant[value=\"Exception: sum must not be negative\"]()\n"
    "  %zero : int = prim::Constant[value=0]()\n"
    "  %none : NoneType = prim::Constant()\n"
    "  %s : Tensor = aten::sum(%x, %none) # check.py:2:7\n"
    "  %neg : Tensor = aten::lt(%s, %zero) # check.py:2:7\n"
    "  %c : bool = aten::Bool(%neg) # check.py:2:4\n"
    "   = prim::If(%c) # check.py:2:4\n"
    "    block0():\n"
    "       = prim::RaiseException(%msg) # check.py:3:8\n"
    "      -> ()\n"
    "    block1():\n"
    "      -> ()\n"
    "  return (%x)\n";

static void test_raise_exception_from_text(void) {
  IrGraph *g = parse(raise_text);
  double ok_v[2] = {1, -0.5}, bad_v[2] = {1, -1.5};
  RtValue ok_in[1] = {rt_tensor(it_vector(2, ok_v))}, bad_in[1] = {rt_tensor(it_vector(2, bad_v))};
  RtValue r[1];
  GError *error = NULL;
  g_assert_true(it_run(g, NULL, ok_in, 1, r, &error));
  g_assert_true(r[0].u.tensor == ok_in[0].u.tensor);
  rt_value_unref(r[0]);
  g_assert_false(it_run(g, NULL, bad_in, 1, r, &error));
  g_assert_cmpstr(error->message, ==,
                  "check.py:3:8: prim::RaiseException: Exception: sum must not be negative");
  g_error_free(error);
  rt_value_unref(ok_in[0]);
  rt_value_unref(bad_in[0]);
  ir_graph_free(g);
}

static void test_errors_name_source_locations(void) {
  IrGraph *g = parse("graph(%x : Tensor,\n"
                     "      %y : Tensor):\n"
                     "  %one : int = prim::Constant[value=1]()\n"
                     "  %three : int = prim::Constant[value=3]()\n"
                     "  %z : Tensor = aten::add(%x, %y, %one) # model.py:2:9\n"
                     "  %l : Tensor[] = aten::chunk(%z, %three, %one) # model.py:3:9\n"
                     "  %a : Tensor, %b : Tensor = prim::ListUnpack(%l)\n"
                     "  return (%a)\n");
  int64_t s23[2] = {2, 3}, s2[1] = {2};
  double v6[6] = {0, 1, 2, 3, 4, 5}, v2[2] = {1, 2};
  /* [2, 3] + [2]: trailing dims 3 and 2 do not broadcast. */
  RtValue bad[2] = {rt_tensor(it_tensor(2, s23, v6)), rt_tensor(it_tensor(1, s2, v2))}, r[1];
  GError *error = NULL;
  g_assert_false(it_run(g, NULL, bad, 2, r, &error));
  g_assert_true(g_str_has_prefix(error->message, "model.py:2:9: aten::add: "));
  g_clear_error(&error);
  /* [2, 3] + [3] chunks into 3 pieces along dim 1; unpacking them into two fails. */
  RtValue good[2] = {rt_value_ref(bad[0]), rt_tensor(it_vector(3, v6))};
  g_assert_false(it_run(g, NULL, good, 2, r, &error));
  g_assert_cmpstr(error->message, ==, "prim::ListUnpack: expected a list of 2 elements, got 3");
  g_clear_error(&error);
  for (guint i = 0; i < 2; i++) {
    rt_value_unref(bad[i]);
    rt_value_unref(good[i]);
  }
  ir_graph_free(g);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/interp/text/while-if-tuple", test_while_if_tuple);
  g_test_add_func("/interp/text/raise-exception", test_raise_exception_from_text);
  g_test_add_func("/interp/text/error-locations", test_errors_name_source_locations);
  return g_test_run();
}
