/* CLI tests: top-level --help/--version/dispatch, and `print` in all three formats on every
 * corpus graph, plus its error messages and exit statuses.
 * Usage: test-cli-print JITSCOPE_BINARY (the corpus folder from $JITSCOPE_CORPUS_DIR). */
#include <json-glib/json-glib.h>
#include <stdbool.h>
#include <string.h>

#include "cli_run.h"
#include "jitscope-config.h"

static char *jitscope;
static char *tmpdir;

static char *write_tmp(const char *name, const char *text) {
  char *path = g_build_filename(tmpdir, name, NULL);
  g_assert_true(g_file_set_contents(path, text, -1, NULL));
  return path;
}

static const char *corpus_dir(void) {
  const char *dir = g_getenv("JITSCOPE_CORPUS_DIR");
  return dir && g_file_test(dir, G_FILE_TEST_IS_DIR) ? dir : NULL;
}

/* Corpus program folders (those holding graph.ir), sorted. */
static GPtrArray *corpus_programs(void) {
  GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
  const char *dir = corpus_dir();
  if (dir == NULL)
    return names;
  GDir *d = g_dir_open(dir, 0, NULL);
  g_assert_nonnull(d);
  for (const char *name; (name = g_dir_read_name(d));) {
    char *ir = g_build_filename(dir, name, "graph.ir", NULL);
    if (g_file_test(ir, G_FILE_TEST_EXISTS))
      g_ptr_array_add(names, g_strdup(name));
    g_free(ir);
  }
  g_dir_close(d);
  g_ptr_array_sort(names, (GCompareFunc)g_strcmp0);
  return names;
}

static void test_help(void) {
  CliRun r = cli_run(jitscope, NULL, (const char *[]){"--help", NULL});
  g_assert_cmpint(r.status, ==, 0);
  g_assert_nonnull(strstr(r.out, "Usage: jitscope"));
  g_assert_nonnull(strstr(r.out, "\n  print "));
  g_assert_nonnull(strstr(r.out, "\n  run "));
  g_assert_nonnull(strstr(r.out, "--version"));
  g_assert_cmpstr(r.err, ==, "");
  cli_run_clear(&r);
}

static void test_version(void) {
  CliRun r = cli_run(jitscope, NULL, (const char *[]){"--version", NULL});
  g_assert_cmpint(r.status, ==, 0);
  char *first = g_strdup_printf("jitscope %s\n", JITSCOPE_VERSION);
  g_assert_true(g_str_has_prefix(r.out, first));
  g_assert_nonnull(strstr(r.out, "buildtype="));
  g_free(first);
  cli_run_clear(&r);
}

static void test_command_help(void) {
  const struct {
    const char *command;
    const char *options[4];
  } cases[] = {
      {"print", {"--format", "ir|dot|json", "--json", NULL}},
      {"run", {"--input SPEC...", "--seed N", "--json", NULL}},
  };
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    CliRun r = cli_run(jitscope, NULL, (const char *[]){cases[i].command, "--help", NULL});
    g_assert_cmpint(r.status, ==, 0);
    char *usage = g_strdup_printf("Usage: jitscope %s ", cases[i].command);
    g_assert_true(g_str_has_prefix(r.out, usage));
    g_free(usage);
    for (const char *const *o = cases[i].options; *o; o++)
      g_assert_nonnull(strstr(r.out, *o));
    g_assert_nonnull(strstr(r.out, "-h, --help"));
    cli_run_clear(&r);
  }
}

/* Without a command: the window where it is built (not started here: tests have no
 * display), else a message pointing at the commands, exit 2. */
static void test_no_command(void) {
  CliRun help = cli_run(jitscope, NULL, (const char *[]){"--help", NULL});
  bool has_window = strstr(help.out, "this build has no window") == NULL;
  cli_run_clear(&help);
  if (has_window) {
    g_test_skip("this build has the window");
    return;
  }
  CliRun r = cli_run(jitscope, NULL, (const char *[]){NULL});
  g_assert_cmpint(r.status, ==, 2);
  g_assert_nonnull(strstr(r.err, "window is not built"));
  g_assert_nonnull(strstr(r.err, "jitscope run"));
  cli_run_clear(&r);

  char *path = write_tmp("some.ir", "graph():\n  return ()\n");
  r = cli_run(jitscope, NULL, (const char *[]){path, NULL});
  g_assert_cmpint(r.status, ==, 2);
  g_assert_nonnull(strstr(r.err, "window is not built"));
  g_assert_nonnull(strstr(r.err, path));
  cli_run_clear(&r);
  g_free(path);
}

static void test_unknown_command(void) {
  CliRun r = cli_run(jitscope, NULL, (const char *[]){"frobnicate", "x", NULL});
  g_assert_cmpint(r.status, ==, 2);
  g_assert_cmpstr(r.err, ==,
                  "jitscope: error: unknown command 'frobnicate' (see 'jitscope --help')\n");
  g_assert_cmpstr(r.out, ==, "");
  cli_run_clear(&r);
  r = cli_run(jitscope, NULL, (const char *[]){"--frobnicate", NULL});
  g_assert_cmpint(r.status, ==, 2);
  g_assert_true(g_str_has_prefix(r.err, "jitscope: error: unknown option '--frobnicate'"));
  cli_run_clear(&r);
}

/* print FILE reproduces PyTorch's own print byte for byte; on a difference says what
 * differed (and goes on, so that one run lists every failing file). */
static bool print_reproduces(const char *path, const char *expected) {
  CliRun r = cli_run(jitscope, NULL, (const char *[]){"print", path, NULL});
  bool ok = r.status == 0 && strcmp(r.out, expected) == 0 && r.err[0] == '\0';
  if (!ok) {
    g_printerr("print %s: exit status %d\nstderr: %s", path, r.status, r.err);
    if (r.status == 0)
      g_printerr("--- expected\n%s--- got\n%s", expected, r.out);
  }
  cli_run_clear(&r);
  return ok;
}

static void test_print_corpus_graphs(void) {
  if (corpus_dir() == NULL) {
    g_test_skip("JITSCOPE_CORPUS_DIR not set or missing");
    return;
  }
  GPtrArray *programs = corpus_programs();
  g_assert_cmpuint(programs->len, >, 0);
  guint failed = 0;
  for (guint i = 0; i < programs->len; i++) {
    char *path = g_build_filename(corpus_dir(), g_ptr_array_index(programs, i), "graph.ir", NULL);
    char *text = NULL;
    g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
    failed += !print_reproduces(path, text);
    g_free(text);
    g_free(path);
  }
  g_test_message("printed %u corpus graphs, %u differ", programs->len, failed);
  g_assert_cmpuint(failed, ==, 0);
  g_ptr_array_unref(programs);
}

/* The forward graphs and backward plans PyTorch printed (case.json) print unchanged. */
static void test_print_pytorch_plans(void) {
  if (corpus_dir() == NULL) {
    g_test_skip("JITSCOPE_CORPUS_DIR not set or missing");
    return;
  }
  char *index_path = g_build_filename(corpus_dir(), "INDEX", NULL);
  char *index = NULL;
  g_assert_true(g_file_get_contents(index_path, &index, NULL, NULL));
  char **cases = g_strsplit(index, "\n", -1);
  guint n = 0, failed = 0;
  for (char **c = cases; *c; c++) {
    if (**c == '\0')
      continue;
    char *json_path = g_build_filename(corpus_dir(), *c, "case.json", NULL);
    JsonParser *parser = json_parser_new();
    g_assert_true(json_parser_load_from_file(parser, json_path, NULL));
    JsonObject *pytorch = json_object_get_object_member(
        json_node_get_object(json_parser_get_root(parser)), "pytorch");
    GPtrArray *texts = g_ptr_array_new();
    g_ptr_array_add(texts, (gpointer)json_object_get_string_member(pytorch, "forward_graph"));
    JsonArray *backward = json_object_get_array_member(pytorch, "backward_plans");
    for (guint k = 0; k < json_array_get_length(backward); k++)
      g_ptr_array_add(texts, (gpointer)json_array_get_string_element(backward, k));
    for (guint k = 0; k < texts->len; k++) {
      char *name = g_strdelimit(g_strdup_printf("%s-%u.ir", *c, k), "/", '_');
      char *path = write_tmp(name, g_ptr_array_index(texts, k));
      failed += !print_reproduces(path, g_ptr_array_index(texts, k));
      n++;
      g_free(path);
      g_free(name);
    }
    g_ptr_array_unref(texts);
    g_object_unref(parser);
    g_free(json_path);
  }
  g_test_message("printed %u PyTorch forward graphs and backward plans, %u differ", n, failed);
  g_assert_cmpuint(n, >, 0);
  g_assert_cmpuint(failed, ==, 0);
  g_strfreev(cases);
  g_free(index);
  g_free(index_path);
}

static guint count_occurrences(const char *text, const char *needle) {
  guint n = 0;
  for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
    n++;
  return n;
}

/* Nodes that are not constants, counted in the IR text itself. */
static guint count_non_constant_nodes(const char *ir) {
  guint n = 0;
  char **lines = g_strsplit(ir, "\n", -1);
  for (char **l = lines; *l; l++)
    if ((strstr(*l, " = aten::") || strstr(*l, " = prim::")) && !strstr(*l, "prim::Constant"))
      n++;
  g_strfreev(lines);
  return n;
}

static void test_print_dot(void) {
  if (corpus_dir() == NULL) {
    g_test_skip("JITSCOPE_CORPUS_DIR not set or missing");
    return;
  }
  char *dot_program = g_find_program_in_path("dot");
  GPtrArray *programs = corpus_programs();
  for (guint i = 0; i < programs->len; i++) {
    const char *program = g_ptr_array_index(programs, i);
    char *path = g_build_filename(corpus_dir(), program, "graph.ir", NULL);
    char *ir = NULL;
    g_assert_true(g_file_get_contents(path, &ir, NULL, NULL));
    CliRun r = cli_run(jitscope, NULL, (const char *[]){"print", path, "--format", "dot", NULL});
    g_assert_cmpint(r.status, ==, 0);
    g_assert_true(g_str_has_prefix(r.out, "digraph "));
    g_assert_true(g_str_has_suffix(r.out, "}\n"));
    g_assert_cmpuint(count_occurrences(r.out, "{"), ==, count_occurrences(r.out, "}"));
    /* One box per non-constant node; constants are inlined, never drawn. */
    g_assert_cmpuint(count_occurrences(r.out, "[shape=box"), ==, count_non_constant_nodes(ir));
    g_assert_null(strstr(r.out, "prim::Constant"));
    /* Blocks are clusters: one per "blockN(" line of the IR. */
    g_assert_cmpuint(count_occurrences(r.out, "subgraph cluster_"), ==,
                     count_occurrences(ir, "    block"));
    /* Edges come after every cluster: DOT would pull an edge's ends into the cluster that
     * mentions it. */
    const char *last_cluster_end = g_strrstr(r.out, "\n  }\n");
    const char *first_edge = strstr(r.out, " -> ");
    if (last_cluster_end && first_edge)
      g_assert_true(first_edge > last_cluster_end);
    if (dot_program) {
      /* Graphviz itself accepts the text. */
      char *dot_path = write_tmp("graph.dot", r.out);
      char *argv[] = {dot_program, "-Tsvg", "-o", "/dev/null", dot_path, NULL};
      int wait_status = 0;
      char *err = NULL;
      g_assert_true(g_spawn_sync(NULL, argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL,
                                 &err, &wait_status, NULL));
      if (!g_spawn_check_wait_status(wait_status, NULL))
        g_printerr("dot rejected the output for %s: %s\n", program, err);
      g_assert_true(g_spawn_check_wait_status(wait_status, NULL));
      g_free(err);
      g_free(dot_path);
    }
    cli_run_clear(&r);
    g_free(ir);
    g_free(path);
  }
  /* Constants appear in their users' labels under the schema's argument name. */
  char *path = g_build_filename(corpus_dir(), "broadcast_cell", "graph.ir", NULL);
  CliRun r = cli_run(jitscope, NULL, (const char *[]){"print", path, "--format=dot", NULL});
  g_assert_cmpint(r.status, ==, 0);
  g_assert_cmpuint(count_occurrences(r.out, "alpha=1"), ==, 2);
  g_assert_nonnull(strstr(r.out, "%a.1 : Tensor"));
  cli_run_clear(&r);
  g_free(path);
  g_free(dot_program);
  g_ptr_array_unref(programs);
}

static JsonNode *parse_json(const char *text) {
  JsonParser *parser = json_parser_new();
  GError *error = NULL;
  if (!json_parser_load_from_data(parser, text, -1, &error))
    g_error("not JSON (%s): %s", error->message, text);
  JsonNode *root = json_node_copy(json_parser_get_root(parser));
  g_object_unref(parser);
  return root;
}

static void assert_strings(JsonArray *arr, const char *member, const char *const *expected) {
  guint n = 0;
  for (; expected[n]; n++) {
    g_assert_cmpuint(n, <, json_array_get_length(arr));
    JsonNode *e = json_array_get_element(arr, n);
    const char *got = member ? json_object_get_string_member(json_node_get_object(e), member)
                             : json_node_get_string(e);
    g_assert_cmpstr(got, ==, expected[n]);
  }
  g_assert_cmpuint(json_array_get_length(arr), ==, n);
}

static void test_print_json(void) {
  char *path = write_tmp("bc.ir", "graph(%a.1 : Tensor,\n"
                                  "      %b.1 : Float(2, 3)):\n"
                                  "  %5 : int = prim::Constant[value=1]()\n"
                                  "  %6 : Tensor = aten::add(%a.1, %b.1, %5) # f.py:42:16\n"
                                  "  %z : Tensor = prim::If(%5)\n"
                                  "    block0():\n"
                                  "      -> (%6)\n"
                                  "    block1():\n"
                                  "      -> (%a.1)\n"
                                  "  return (%z)\n");
  CliRun r = cli_run(jitscope, NULL, (const char *[]){"print", path, "--format", "json", NULL});
  g_assert_cmpint(r.status, ==, 0);
  JsonNode *root = parse_json(r.out);
  JsonObject *g = json_node_get_object(root);
  assert_strings(json_object_get_array_member(g, "inputs"), "name",
                 (const char *[]){"%a.1", "%b.1", NULL});
  assert_strings(json_object_get_array_member(g, "inputs"), "type",
                 (const char *[]){"Tensor", "Float(2, 3)", NULL});
  JsonArray *nodes = json_object_get_array_member(g, "nodes");
  g_assert_cmpuint(json_array_get_length(nodes), ==, 3);
  JsonObject *constant = json_array_get_object_element(nodes, 0);
  g_assert_cmpstr(json_object_get_string_member(constant, "kind"), ==, "prim::Constant");
  g_assert_cmpint(
      json_object_get_int_member(json_object_get_object_member(constant, "attributes"), "value"),
      ==, 1);
  JsonObject *add = json_array_get_object_element(nodes, 1);
  g_assert_cmpstr(json_object_get_string_member(add, "kind"), ==, "aten::add");
  g_assert_cmpstr(json_object_get_string_member(add, "source"), ==, "f.py:42:16");
  g_assert_true(json_object_has_member(add, "schema"));
  assert_strings(json_object_get_array_member(add, "inputs"), NULL,
                 (const char *[]){"%a.1", "%b.1", "%5", NULL});
  assert_strings(json_object_get_array_member(add, "outputs"), "name",
                 (const char *[]){"%6", NULL});
  JsonObject *if_node = json_array_get_object_element(nodes, 2);
  JsonArray *blocks = json_object_get_array_member(if_node, "blocks");
  g_assert_cmpuint(json_array_get_length(blocks), ==, 2);
  assert_strings(json_object_get_array_member(json_array_get_object_element(blocks, 1), "outputs"),
                 NULL, (const char *[]){"%a.1", NULL});
  assert_strings(json_object_get_array_member(g, "outputs"), NULL, (const char *[]){"%z", NULL});
  json_node_unref(root);
  cli_run_clear(&r);

  /* --json is the same as --format json. */
  CliRun r2 = cli_run(jitscope, NULL, (const char *[]){"print", "--json", path, NULL});
  CliRun r3 = cli_run(jitscope, NULL, (const char *[]){"print", path, "-f", "json", NULL});
  g_assert_cmpint(r2.status, ==, 0);
  g_assert_cmpstr(r2.out, ==, r3.out);
  cli_run_clear(&r2);
  cli_run_clear(&r3);
  g_free(path);
}

static void test_print_errors(void) {
  /* A syntax error: the parser's FILE:LINE:COL passes through. */
  char *bad = write_tmp("bad.ir", "graph(%x : Tensor):\n"
                                  "  %y : Tensor = aten::neg(%undefined)\n"
                                  "  return (%y)\n");
  CliRun r = cli_run(jitscope, NULL, (const char *[]){"print", bad, NULL});
  g_assert_cmpint(r.status, ==, 2);
  char *escaped = g_regex_escape_string(bad, -1);
  char *pattern = g_strdup_printf("^jitscope: %s:2:[0-9]+: error: .+\n$", escaped);
  g_free(escaped);
  if (!g_regex_match_simple(pattern, r.err, 0, 0))
    g_printerr("stderr was: %s", r.err);
  g_assert_true(g_regex_match_simple(pattern, r.err, 0, 0));
  g_assert_cmpstr(r.out, ==, "");
  g_free(pattern);
  cli_run_clear(&r);

  /* A missing file. */
  char *missing = g_build_filename(tmpdir, "missing.ir", NULL);
  r = cli_run(jitscope, NULL, (const char *[]){"print", missing, NULL});
  g_assert_cmpint(r.status, ==, 2);
  char *expected = g_strdup_printf("jitscope: error: cannot read %s: ", missing);
  g_assert_true(g_str_has_prefix(r.err, expected));
  g_free(expected);
  cli_run_clear(&r);

  /* Usage errors. */
  const struct {
    const char *args[5];
    const char *message;
  } usage[] = {
      {{"print", NULL}, "jitscope: error: 'print' needs an argument"},
      {{"print", bad, bad, NULL}, "jitscope: error: unexpected argument"},
      {{"print", bad, "--format", "svg", NULL},
       "jitscope: error: unknown format 'svg' (expected ir, dot or json)\n"},
      {{"print", bad, "--format", NULL}, "jitscope: error: --format needs a value"},
      {{"print", bad, "--frob", NULL}, "jitscope: error: unknown option '--frob' for 'print'"},
      {{"print", bad, "--json", "--format=dot", NULL},
       "jitscope: error: --json contradicts --format dot\n"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(usage); i++) {
    r = cli_run(jitscope, NULL, usage[i].args);
    g_assert_cmpint(r.status, ==, 2);
    if (!g_str_has_prefix(r.err, usage[i].message))
      g_printerr("case %u: stderr was: %s", i, r.err);
    g_assert_true(g_str_has_prefix(r.err, usage[i].message));
    cli_run_clear(&r);
  }
  g_free(missing);
  g_free(bad);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  if (argc < 2) {
    g_printerr("usage: %s JITSCOPE_BINARY\n", argv[0]);
    return 2;
  }
  /* Absolute: the binary is also started from other folders. */
  jitscope = g_canonicalize_filename(argv[1], NULL);
  tmpdir = g_dir_make_tmp("jitscope-cli-XXXXXX", NULL);
  g_assert_nonnull(tmpdir);
  g_test_add_func("/cli/help", test_help);
  g_test_add_func("/cli/version", test_version);
  g_test_add_func("/cli/command-help", test_command_help);
  g_test_add_func("/cli/no-command", test_no_command);
  g_test_add_func("/cli/unknown-command", test_unknown_command);
  g_test_add_func("/cli/print/corpus-graphs", test_print_corpus_graphs);
  g_test_add_func("/cli/print/pytorch-plans", test_print_pytorch_plans);
  g_test_add_func("/cli/print/dot", test_print_dot);
  g_test_add_func("/cli/print/json", test_print_json);
  g_test_add_func("/cli/print/errors", test_print_errors);
  int status = g_test_run();
  char *rm[] = {"rm", "-rf", tmpdir, NULL};
  g_spawn_sync(NULL, rm, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, NULL);
  g_free(tmpdir);
  return status;
}
