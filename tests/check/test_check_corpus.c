/* `check` on every corpus case (PyTorch's own inputs): optimized, unoptimized, finite
 * differences and every stage agree. The corpus folder comes from JITSCOPE_CORPUS_DIR. */
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "check.h"
#include "graph_file.h"

static void check_case(gconstpointer data) {
  const char *case_dir = data;
  char *json_path = g_build_filename(case_dir, "case.json", NULL);
  JsonParser *parser = json_parser_new();
  GError *error = NULL;
  g_assert_true(json_parser_load_from_file(parser, json_path, &error));
  JsonArray *args =
      json_object_get_array_member(json_node_get_object(json_parser_get_root(parser)), "args");
  GPtrArray *specs = g_ptr_array_new();
  for (guint i = 0; i < json_array_get_length(args); i++)
    g_ptr_array_add(specs, (gpointer)json_array_get_string_element(args, i));

  char *cwd = g_get_current_dir();
  g_assert_cmpint(g_chdir(case_dir), ==, 0);
  IrGraph *graph = app_graph_file_load("../graph.ir", (AppProgramChoice){0}, NULL, &error);
  g_assert_no_error(error);
  AppInputs *inputs = app_inputs_bind(graph, (char *const *)specs->pdata, specs->len, 0, &error);
  g_assert_no_error(error);
  AppCheckReport *report = app_check_run(graph, inputs, NULL, NULL, &error);
  g_assert_no_error(error);
  if (!report->ok)
    g_test_message("%s\n%s", case_dir, report->log->str);
  g_assert_true(report->ok);
  g_assert_null(report->first_bad_stage);
  g_assert_cmpint(g_chdir(cwd), ==, 0);

  app_check_report_free(report);
  app_inputs_free(inputs);
  ir_graph_free(graph);
  g_free(cwd);
  g_ptr_array_free(specs, TRUE);
  g_object_unref(parser);
  g_free(json_path);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  const char *corpus = g_getenv("JITSCOPE_CORPUS_DIR");
  char *index_path = corpus ? g_build_filename(corpus, "INDEX", NULL) : NULL;
  gchar *index = NULL;
  if (!index_path || !g_file_get_contents(index_path, &index, NULL, NULL)) {
    g_printerr("no corpus (JITSCOPE_CORPUS_DIR): skipped\n");
    return 77;
  }
  gchar **lines = g_strsplit(index, "\n", -1);
  for (gchar **l = lines; *l; l++) {
    g_strstrip(*l);
    if (!**l)
      continue;
    char *test_path = g_strdup_printf("/check/corpus/%s", *l);
    g_test_add_data_func_full(test_path, g_build_filename(corpus, *l, NULL), check_case, g_free);
    g_free(test_path);
  }
  int status = g_test_run();
  g_strfreev(lines);
  g_free(index);
  g_free(index_path);
  return status;
}
