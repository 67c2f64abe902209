/* Export then replay for one corpus case: `jitscope export ../graph.ir --input ARGS... -o
 * TMP` in the case folder (args from case.json), then `jitscope replay TMP` must exit 0 with
 * everything matching, and the bundle must not contain the case folder's absolute path.
 * Usage: test-bundle-corpus JITSCOPE_BINARY CASE   (CASE as in the corpus INDEX). Exit 77
 * when the corpus is missing. */
#include <json-glib/json-glib.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli_run.h"

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: test-bundle-corpus JITSCOPE_BINARY CASE\n");
    return 2;
  }
  const char *corpus = g_getenv("JITSCOPE_CORPUS_DIR");
  char *case_dir = corpus ? g_build_filename(corpus, argv[2], NULL) : NULL;
  char *case_json = case_dir ? g_build_filename(case_dir, "case.json", NULL) : NULL;
  if (!case_json || !g_file_test(case_json, G_FILE_TEST_IS_REGULAR)) {
    printf("skip: no corpus case %s\n", argv[2]);
    return 77;
  }
  char *jitscope = g_canonicalize_filename(argv[1], NULL);
  JsonParser *parser = json_parser_new();
  GError *error = NULL;
  if (!json_parser_load_from_file(parser, case_json, &error)) {
    fprintf(stderr, "cannot read %s: %s\n", case_json, error->message);
    return 1;
  }
  JsonArray *args =
      json_object_get_array_member(json_node_get_object(json_parser_get_root(parser)), "args");
  char *tmp = g_dir_make_tmp("bundle-corpus-XXXXXX", NULL);
  char *bundle = g_build_filename(tmp, "bundle", NULL);
  GPtrArray *av = g_ptr_array_new();
  g_ptr_array_add(av, "export");
  g_ptr_array_add(av, "../graph.ir");
  g_ptr_array_add(av, "-o");
  g_ptr_array_add(av, bundle);
  g_ptr_array_add(av, "--input");
  for (guint i = 0; i < json_array_get_length(args); i++)
    g_ptr_array_add(av, (gpointer)json_array_get_string_element(args, i));
  g_ptr_array_add(av, NULL);
  int status = 1;
  CliRun r = cli_run(jitscope, case_dir, (const char *const *)av->pdata);
  if (r.status != 0) {
    fprintf(stderr, "%s: export exited with %d: %s", argv[2], r.status, r.err);
    goto out;
  }
  cli_run_clear(&r);
  char *manifest_path = g_build_filename(bundle, "manifest.json", NULL);
  char *report_path = g_build_filename(bundle, "REPORT.md", NULL);
  char *manifest = NULL, *report = NULL;
  g_file_get_contents(manifest_path, &manifest, NULL, NULL);
  g_file_get_contents(report_path, &report, NULL, NULL);
  bool leaks = !manifest || !report || strstr(manifest, case_dir) || strstr(report, case_dir);
  g_free(manifest);
  g_free(report);
  g_free(manifest_path);
  g_free(report_path);
  if (leaks) {
    fprintf(stderr, "%s: manifest.json or REPORT.md is missing or names %s\n", argv[2], case_dir);
    goto out;
  }
  const char *rargs[] = {"replay", bundle, NULL};
  r = cli_run(jitscope, tmp, rargs);
  if (r.status != 0 || !strstr(r.out, "replay: everything matches")) {
    fprintf(stderr, "%s: replay exited with %d:\n%s%s", argv[2], r.status, r.out, r.err);
    goto out;
  }
  printf("%s: export and replay match\n", argv[2]);
  status = 0;
out:
  cli_run_clear(&r);
  char *rm[] = {"rm", "-rf", tmp, NULL};
  g_spawn_sync(NULL, rm, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, NULL);
  g_ptr_array_unref(av);
  g_free(bundle);
  g_free(tmp);
  g_object_unref(parser);
  g_free(case_json);
  g_free(case_dir);
  g_free(jitscope);
  return status;
}
