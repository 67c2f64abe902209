/* Spec lines in a graph file's header comments: directives read in order, prose comments and
 * the graph ignored, every bundled example carries specs, and malformed directives as a table
 * of (header, expected FILE:LINE:COL error). */
#include <string.h>

#include "app_error.h"
#include "ir/text.h"
#include "spec_header.h"

static void test_directives_in_order(void) {
  const char *text = "# An LSTM cell, printed by PyTorch.\n"
                     "\n"
                     "  # jitscope: --spec 'Float(3, 10); Float(3, 20, requires_grad=1)'\n"
                     "#jitscope:--spec \"Double(2, 4);  none ; 2.5\"   \r\n"
                     "# jitscope: not read: the header ends at the graph\n"
                     "graph(%x : Tensor):\n"
                     "  # jitscope: --spec 'Float(1)'\n"
                     "  return (%x)\n";
  g_autoptr(GError) error = NULL;
  /* the third comment is prose: "not" is read as a directive only after "jitscope:" */
  GPtrArray *lines = app_spec_header_read(text, -1, "f.ir", &error);
  g_assert_null(lines);
  g_assert_error(error, JITSCOPE_APP_ERROR, APP_ERROR_LOCATED);
  g_assert_cmpstr(error->message, ==,
                  "f.ir:5:13: error: expected --spec 'SPEC; SPEC; ...' after 'jitscope:', "
                  "found 'not'");
  g_clear_error(&error);
  /* without that line: two spec lines, trimmed, in order; the body's comment is not read */
  g_autofree char *valid = g_strdup(text);
  char *bad = strstr(valid, "# jitscope: not");
  memset(bad, ' ', strcspn(bad, "\n"));
  lines = app_spec_header_read(valid, -1, "f.ir", &error);
  g_assert_no_error(error);
  g_assert_cmpuint(lines->len, ==, 2);
  g_assert_cmpstr(g_ptr_array_index(lines, 0), ==, "Float(3, 10); Float(3, 20, requires_grad=1)");
  g_assert_cmpstr(g_ptr_array_index(lines, 1), ==, "Double(2, 4);  none ; 2.5");
  g_ptr_array_unref(lines);
}

static void test_no_header(void) {
  const char *texts[] = {"", "graph(%x : Tensor):\n  return (%x)\n",
                         "# just a comment\n# jitscope? no\ngraph():\n  return ()\n",
                         "def f(x):\n  # jitscope: --spec 'Float(1)'\n  return x\n"};
  for (guint i = 0; i < G_N_ELEMENTS(texts); i++) {
    g_autoptr(GError) error = NULL;
    GPtrArray *lines = app_spec_header_read(texts[i], -1, "f.ir", &error);
    g_assert_no_error(error);
    g_assert_cmpuint(lines->len, ==, 0);
    g_ptr_array_unref(lines);
  }
  /* length bounds the text: the directive past it is not read */
  const char *text = "# x\n# jitscope: --spec 'Float(1)'\n";
  g_autoptr(GError) error = NULL;
  GPtrArray *lines = app_spec_header_read(text, 4, "f.ir", &error);
  g_assert_cmpuint(lines->len, ==, 0);
  g_ptr_array_unref(lines);
}

static void test_malformed(void) {
  static const struct {
    const char *header, *error;
  } cases[] = {
      {"# jitscope: --input 'Float(1)'\n",
       "m.ir:1:13: error: expected --spec 'SPEC; SPEC; ...' after 'jitscope:', found '--input'"},
      {"# jitscope: --specs 'Float(1)'\n",
       "m.ir:1:13: error: expected --spec 'SPEC; SPEC; ...' after 'jitscope:', found '--specs'"},
      {"# jitscope:\n", "m.ir:1:12: error: expected --spec 'SPEC; SPEC; ...' after 'jitscope:', "
                        "found ''"},
      {"# ok\n# jitscope: --spec Float(1)\n",
       "m.ir:2:20: error: expected a quoted spec list after --spec: --spec 'SPEC; SPEC; ...'"},
      {"# jitscope: --spec\n",
       "m.ir:1:19: error: expected a quoted spec list after --spec: --spec 'SPEC; SPEC; ...'"},
      {"# jitscope: --spec 'Float(1); Float(2)\n",
       "m.ir:1:20: error: unterminated quote: the spec list ends at the end of the line"},
      {"# jitscope: --spec \"Float(1)'\n",
       "m.ir:1:20: error: unterminated quote: the spec list ends at the end of the line"},
      {"# jitscope: --spec 'Float(1)' --spec 'Float(2)'\n",
       "m.ir:1:31: error: unexpected text after the spec list (one --spec per line)"},
      {"# jitscope: --spec ' ; '\n",
       "m.ir:1:20: error: empty spec list: write --spec 'SPEC; SPEC; ...'"},
      {"\n\n# jitscope: --spec 'Float(3, 10); Flaot(3); none'\n",
       "m.ir:3:35: error: spec 2 'Flaot(3)': "},
      {"# jitscope: --spec 'Float(3, 10);   Float(3, *)'\n",
       "m.ir:1:37: error: spec 2 'Float(3, *)': "},
  };
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autofree char *text = g_strconcat(cases[i].header, "graph():\n  return ()\n", NULL);
    g_autoptr(GError) error = NULL;
    GPtrArray *lines = app_spec_header_read(text, -1, "m.ir", &error);
    g_test_message("case %u: %s", i, error ? error->message : "(no error)");
    g_assert_null(lines);
    g_assert_error(error, JITSCOPE_APP_ERROR, APP_ERROR_LOCATED);
    /* Spec errors end with input_spec_parse's own message: the prefix is ours. */
    g_assert_true(g_str_has_prefix(error->message, cases[i].error));
    if (!g_str_has_suffix(cases[i].error, ": "))
      g_assert_cmpstr(error->message, ==, cases[i].error);
  }
}

/* Every bundled example opens ready: its header has at least one valid spec line. */
static void test_examples_carry_specs(void) {
  const char *examples[] = {"lstm_cell.ir", "broadcast_cell.ir"};
  for (guint i = 0; i < G_N_ELEMENTS(examples); i++) {
    g_autofree char *path = g_build_filename(g_getenv("JITSCOPE_SOURCE_DIR"), "resources",
                                             "examples", examples[i], NULL);
    g_autoptr(GError) error = NULL;
    GPtrArray *lines = app_spec_header_read_file(path, &error);
    g_assert_no_error(error);
    g_assert_cmpuint(lines->len, >=, 1);
    g_ptr_array_unref(lines);
  }
  g_autoptr(GError) error = NULL;
  g_assert_null(app_spec_header_read_file("/nonexistent/x.ir", &error));
  g_assert_error(error, JITSCOPE_APP_ERROR, APP_ERROR_INPUT);
}

static void test_declared_types(void) {
  static const struct {
    const char *graph, *line; /* line NULL: the types are not complete */
  } cases[] = {
      {"graph(%x : Float(3, 10), %w : Double(2, strides=[1], requires_grad=1, device=cpu)):\n"
       "  return (%x)\n",
       "Float(3, 10); Double(2, strides=[1], requires_grad=1, device=cpu)"},
      {"graph(%x : Float(3, 10), %y : Tensor):\n  return (%x)\n", NULL},
      {"graph(%x : Float(3, *)):\n  return (%x)\n", NULL},
      {"graph(%x : Float(3, 10), %n : int):\n  return (%x)\n", NULL},
      {"graph():\n  %c : int = prim::Constant[value=1]()\n  return (%c)\n", NULL},
  };
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autoptr(GError) error = NULL;
    IrGraph *graph = ir_graph_parse(cases[i].graph, strlen(cases[i].graph), "d.ir", &error);
    g_assert_no_error(error);
    g_autofree char *line = app_spec_line_from_declared_types(graph);
    g_assert_cmpstr(line, ==, cases[i].line);
    ir_graph_free(graph);
  }
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/spec-header/directives-in-order", test_directives_in_order);
  g_test_add_func("/spec-header/no-header", test_no_header);
  g_test_add_func("/spec-header/malformed", test_malformed);
  g_test_add_func("/spec-header/examples-carry-specs", test_examples_carry_specs);
  g_test_add_func("/spec-header/declared-types", test_declared_types);
  return g_test_run();
}
