/* Test helpers for the passes (see pass_test_util.h). */
#include "pass_test_util.h"

#include "ir/text.h"
#include "ir/verify.h"

IrGraph *pt_parse(const char *text) {
  GError *error = NULL;
  IrGraph *g = ir_graph_parse(text, strlen(text), "<test>", &error);
  if (!g)
    g_error("test graph does not parse: %s\n%s", error->message, text);
  return g;
}

char *pt_print(const IrGraph *graph) {
  return ir_graph_to_string(graph);
}

void pt_check_graph(PassFn pass, IrGraph *graph, const char *expected, bool expect_changed) {
  bool changed = pass(graph);
  ir_graph_assert_valid(graph, "the pass under test");
  char *got = pt_print(graph);
  if (g_strcmp0(got, expected) != 0) {
    g_printerr("--- expected ---\n%s\n--- got ---\n%s\n", expected, got);
    g_test_fail();
  }
  if (changed != expect_changed) {
    g_printerr("changed flag: expected %d, got %d\n%s\n", expect_changed, changed, got);
    g_test_fail();
  }
  g_free(got);
}

void pt_check(PassFn pass, const char *input, const char *expected, bool expect_changed) {
  IrGraph *g = pt_parse(input);
  pt_check_graph(pass, g, expected, expect_changed);
  ir_graph_free(g);
}
