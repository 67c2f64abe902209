/* `jitscope export` and `jitscope replay` from the command line: round trip, tampered and
 * deleted files, the non-empty folder rule and --force, a failing export leaving nothing.
 * Usage: test-bundle-cli JITSCOPE_BINARY */
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <string.h>
#include <unistd.h>

#include "bundle.h"
#include "cli_run.h"

static char *jitscope;
static char *tmpdir;
static char *example; /* resources/examples/broadcast_cell.ir */

static const char *const broadcast_inputs[] = {"--input", "Float(5, 1, requires_grad=1)",
                                               "Float(5, 5, requires_grad=1)",
                                               "Float(5, 5, requires_grad=1)", NULL};

/* Runs `jitscope export EXAMPLE INPUTS... -o DIR EXTRA...`. */
static CliRun export_example(const char *dir, const char *const *extra) {
  GPtrArray *argv = g_ptr_array_new();
  g_ptr_array_add(argv, "export");
  g_ptr_array_add(argv, example);
  for (const char *const *a = broadcast_inputs; *a; a++)
    g_ptr_array_add(argv, (gpointer)*a);
  g_ptr_array_add(argv, "-o");
  g_ptr_array_add(argv, (gpointer)dir);
  for (const char *const *a = extra; a && *a; a++)
    g_ptr_array_add(argv, (gpointer)*a);
  g_ptr_array_add(argv, NULL);
  CliRun r = cli_run(jitscope, tmpdir, (const char *const *)argv->pdata);
  g_ptr_array_unref(argv);
  return r;
}

static char *fresh_bundle(const char *name) {
  char *dir = g_build_filename(tmpdir, name, NULL);
  CliRun r = export_example(dir, NULL);
  if (r.status != 0)
    g_printerr("export failed: %s", r.err);
  g_assert_cmpint(r.status, ==, 0);
  cli_run_clear(&r);
  return dir;
}

static CliRun replay(const char *dir, bool json) {
  const char *args[] = {"replay", dir, json ? "--json" : NULL, NULL};
  return cli_run(jitscope, tmpdir, args);
}

static char *read_text(const char *dir, const char *rel) {
  char *path = g_build_filename(dir, rel, NULL), *text = NULL;
  g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
  g_free(path);
  return text;
}

static void write_text(const char *dir, const char *rel, const char *text) {
  char *path = g_build_filename(dir, rel, NULL);
  g_assert_true(g_file_set_contents(path, text, -1, NULL));
  g_free(path);
}

/* Sets, in every object naming `rel` (files entries, stages, inputs, outputs), the hash that
 * goes with it. */
static void rehash_node(JsonNode *node, const char *rel, const char *hash) {
  if (JSON_NODE_HOLDS_ARRAY(node)) {
    JsonArray *a = json_node_get_array(node);
    for (guint i = 0; i < json_array_get_length(a); i++)
      rehash_node(json_array_get_element(a, i), rel, hash);
  } else if (JSON_NODE_HOLDS_OBJECT(node)) {
    JsonObject *o = json_node_get_object(node);
    /* Names copied: setting a member replaces its key string. */
    GList *members = json_object_get_members(o);
    for (GList *m = members; m; m = m->next)
      m->data = g_strdup(m->data);
    for (GList *m = members; m; m = m->next) {
      const char *name = m->data;
      JsonNode *v = json_object_get_member(o, name);
      if (JSON_NODE_HOLDS_VALUE(v) && json_node_get_value_type(v) == G_TYPE_STRING &&
          strcmp(json_node_get_string(v), rel) == 0) {
        bool plain = !strcmp(name, "ir") || !strcmp(name, "file") || !strcmp(name, "path");
        char *hash_member = plain ? g_strdup("sha256") : g_strdup_printf("%s_sha256", name);
        json_object_set_string_member(o, hash_member, hash);
        g_free(hash_member);
      } else {
        rehash_node(v, rel, hash);
      }
    }
    g_list_free_full(members, g_free);
  }
}

/* Replaces rel's content and, with `rehash`, its hashes in the manifest. */
static void tamper(const char *dir, const char *rel, const char *data, gsize length, bool rehash) {
  char *path = g_build_filename(dir, rel, NULL);
  g_assert_true(g_file_test(path, G_FILE_TEST_IS_REGULAR));
  g_assert_true(g_file_set_contents(path, data, (gssize)length, NULL));
  if (rehash) {
    char *new_hash = app_bundle_sha256(data, length);
    char *manifest = read_text(dir, "manifest.json");
    JsonNode *root = json_from_string(manifest, NULL);
    g_assert_nonnull(root);
    rehash_node(root, rel, new_hash);
    char *text = json_to_string(root, TRUE);
    write_text(dir, "manifest.json", text);
    g_free(text);
    json_node_unref(root);
    g_free(manifest);
    g_free(new_hash);
  }
  g_free(path);
}

static void test_round_trip(void) {
  char *dir = fresh_bundle("round-trip");
  const char *expected[] = {"REPORT.md",
                            "manifest.json",
                            "program.ir",
                            "inputs/in0.npy",
                            "inputs/in2.npy",
                            "outputs/out0.npy",
                            "grads/grad0.npy",
                            "plans/00-main/00-specialize_input_types.ir",
                            "plans/00-main/00-specialize_input_types.dot",
                            "plans/01-main.DifferentiableGraph_0.backward",
                            NULL};
  for (const char *const *e = expected; *e; e++) {
    char *path = g_build_filename(dir, *e, NULL);
    if (!g_file_test(path, G_FILE_TEST_EXISTS))
      g_error("the bundle lacks %s", *e);
    g_free(path);
  }
  /* No absolute path of this machine in the bundle's text files. */
  char *report = read_text(dir, "REPORT.md"), *manifest = read_text(dir, "manifest.json");
  g_assert_null(strstr(report, tmpdir));
  g_assert_null(strstr(manifest, tmpdir));
  g_assert_null(strstr(manifest, example));
  g_assert_nonnull(strstr(report, "## Environment"));
  g_assert_nonnull(strstr(report, "first stage whose results differ"));
  /* Every linked picture exists. */
  for (const char *p = strstr(report, ".svg)"); p; p = strstr(p + 1, ".svg)")) {
    const char *open = p;
    while (open > report && *open != '(')
      open--;
    char *rel = g_strndup(open + 1, p + 4 - (open + 1));
    char *path = g_build_filename(dir, rel, NULL);
    if (!g_file_test(path, G_FILE_TEST_IS_REGULAR))
      g_error("REPORT.md links %s, which is not in the bundle", rel);
    g_free(path);
    g_free(rel);
  }
  CliRun r = replay(dir, false);
  g_assert_cmpint(r.status, ==, 0);
  g_assert_nonnull(strstr(r.out, "plan 0 (forward main): all"));
  g_assert_nonnull(strstr(r.out, "replay: everything matches"));
  cli_run_clear(&r);
  r = replay(dir, true);
  g_assert_cmpint(r.status, ==, 0);
  JsonParser *parser = json_parser_new();
  g_assert_true(json_parser_load_from_data(parser, r.out, -1, NULL));
  JsonObject *root = json_node_get_object(json_parser_get_root(parser));
  g_assert_true(json_object_get_boolean_member(root, "ok"));
  g_assert_cmpuint(json_array_get_length(json_object_get_array_member(root, "plans")), >=, 2);
  g_object_unref(parser);
  cli_run_clear(&r);
  g_free(report);
  g_free(manifest);
  g_free(dir);
}

static const char *STAGE = "plans/00-main/14-peephole.ir";

/* A stage file changed behind the manifest's back: corruption, exit 2, the file named. */
static void test_tampered_stage_is_corruption(void) {
  char *dir = fresh_bundle("tampered-stage");
  char *text = read_text(dir, STAGE);
  char *changed = g_strconcat(text, "  # edited\n", NULL);
  tamper(dir, STAGE, changed, strlen(changed), false);
  CliRun r = replay(dir, false);
  g_assert_cmpint(r.status, ==, 2);
  g_assert_nonnull(strstr(r.err, STAGE));
  g_assert_nonnull(strstr(r.err, "corrupted"));
  cli_run_clear(&r);
  g_free(changed);
  g_free(text);
  g_free(dir);
}

/* A stage file changed with its hashes: a different expectation, exit 1, the stage named and
 * its diff shown. */
static void test_replanted_stage_differs(void) {
  char *dir = fresh_bundle("replanted-stage");
  char *text = read_text(dir, STAGE);
  gchar **lines = g_strsplit(text, "\n", -1);
  g_assert_nonnull(lines[1]);
  char *old_line = g_strdup(lines[1]);
  g_free(lines[1]);
  lines[1] = g_strdup("      %planted : Float(7) = aten::mul(%a.1, %a.1)");
  char *changed = g_strjoinv("\n", lines);
  tamper(dir, STAGE, changed, strlen(changed), true);
  CliRun r = replay(dir, false);
  g_assert_cmpint(r.status, ==, 1);
  g_assert_nonnull(strstr(r.out, "stage 14 peephole: DIFFERS"));
  g_assert_nonnull(strstr(r.out, "--- bundle/plans/00-main/14-peephole.ir"));
  g_assert_nonnull(strstr(r.out, "+++ replay/plans/00-main/14-peephole.ir"));
  g_assert_nonnull(strstr(r.out, "-      %planted"));
  char *added = g_strdup_printf("+%s", old_line);
  g_assert_nonnull(strstr(r.out, added));
  g_assert_nonnull(strstr(r.out, "plan 1 (backward main/DifferentiableGraph_0/backward): all"));
  cli_run_clear(&r);
  g_free(added);
  g_free(old_line);
  g_free(changed);
  g_strfreev(lines);
  g_free(text);
  g_free(dir);
}

static void test_tampered_input(void) {
  char *dir = fresh_bundle("tampered-input");
  char *path = g_build_filename(dir, "inputs/in1.npy", NULL);
  char *original = NULL;
  gsize n = 0;
  g_assert_true(g_file_get_contents(path, &original, &n, NULL));
  char *flipped = g_memdup2(original, n);
  /* Flip an exponent bit of the last element (the data follows the header). */
  flipped[n - 1] ^= 0x40;
  tamper(dir, "inputs/in1.npy", flipped, n, false);
  CliRun r = replay(dir, false);
  g_assert_cmpint(r.status, ==, 2);
  g_assert_nonnull(strstr(r.err, "inputs/in1.npy is corrupted"));
  cli_run_clear(&r);
  /* The same change with its hash: the inputs are now different, so the output differs. */
  g_assert_true(g_file_set_contents(path, original, (gssize)n, NULL));
  tamper(dir, "inputs/in1.npy", flipped, n, true);
  r = replay(dir, false);
  g_assert_cmpint(r.status, ==, 1);
  g_assert_nonnull(strstr(r.out, "output 0: DIFFERS from outputs/out0.npy"));
  cli_run_clear(&r);
  g_free(flipped);
  g_free(original);
  g_free(path);
  g_free(dir);
}

static void test_deleted_file(void) {
  char *dir = fresh_bundle("deleted-file");
  char *path = g_build_filename(dir, "grads/grad2.npy", NULL);
  g_assert_cmpint(g_unlink(path), ==, 0);
  CliRun r = replay(dir, false);
  g_assert_cmpint(r.status, ==, 2);
  g_assert_nonnull(strstr(r.err, "grads/grad2.npy is missing"));
  cli_run_clear(&r);
  char *manifest = g_build_filename(dir, "manifest.json", NULL);
  g_assert_cmpint(g_unlink(manifest), ==, 0);
  r = replay(dir, false);
  g_assert_cmpint(r.status, ==, 2);
  g_assert_nonnull(strstr(r.err, "manifest.json is missing"));
  cli_run_clear(&r);
  g_free(manifest);
  g_free(path);
  g_free(dir);
}

static void test_non_empty_dir_and_force(void) {
  char *dir = g_build_filename(tmpdir, "occupied", NULL);
  g_assert_cmpint(g_mkdir(dir, 0755), ==, 0);
  write_text(dir, "keep.txt", "mine");
  CliRun r = export_example(dir, NULL);
  g_assert_cmpint(r.status, ==, 2);
  g_assert_nonnull(strstr(r.err, "is not empty (use --force"));
  cli_run_clear(&r);
  char *kept = read_text(dir, "keep.txt");
  g_assert_cmpstr(kept, ==, "mine");
  g_free(kept);
  const char *force[] = {"--force", NULL};
  r = export_example(dir, force);
  g_assert_cmpint(r.status, ==, 0);
  cli_run_clear(&r);
  char *keep = g_build_filename(dir, "keep.txt", NULL);
  g_assert_false(g_file_test(keep, G_FILE_TEST_EXISTS));
  r = replay(dir, false);
  g_assert_cmpint(r.status, ==, 0);
  cli_run_clear(&r);
  /* An empty folder is fine without --force. */
  char *empty = g_build_filename(tmpdir, "empty", NULL);
  g_assert_cmpint(g_mkdir(empty, 0755), ==, 0);
  r = export_example(empty, NULL);
  g_assert_cmpint(r.status, ==, 0);
  cli_run_clear(&r);
  g_free(empty);
  g_free(keep);
  g_free(dir);
}

/* Nothing in `parent` but the names listed (no DIR, no temporary folder). */
static void assert_only(const char *parent, const char *const *names) {
  GDir *d = g_dir_open(parent, 0, NULL);
  g_assert_nonnull(d);
  const char *name;
  while ((name = g_dir_read_name(d))) {
    bool listed = false;
    for (const char *const *n = names; *n; n++)
      listed |= strcmp(*n, name) == 0;
    if (!listed)
      g_error("%s holds %s after a failed export", parent, name);
  }
  g_dir_close(d);
}

static void test_failed_export_leaves_nothing(void) {
  /* Parent is a regular file. */
  char *file = g_build_filename(tmpdir, "plain-file", NULL);
  write_text(tmpdir, "plain-file", "x");
  char *dir = g_build_filename(file, "bundle", NULL);
  CliRun r = export_example(dir, NULL);
  g_assert_cmpint(r.status, ==, 2);
  g_assert_nonnull(strstr(r.err, "plain-file"));
  cli_run_clear(&r);
  g_assert_false(g_file_test(dir, G_FILE_TEST_EXISTS));
  /* Unwritable parent (root may write anyway: then only check the export's consistency). */
  char *parent = g_build_filename(tmpdir, "readonly", NULL);
  g_assert_cmpint(g_mkdir(parent, 0555), ==, 0);
  char *dir2 = g_build_filename(parent, "bundle", NULL);
  r = export_example(dir2, NULL);
  if (geteuid() != 0) {
    g_assert_cmpint(r.status, ==, 2);
    const char *none[] = {NULL};
    assert_only(parent, none);
  }
  cli_run_clear(&r);
  /* A bad input fails before anything is written. */
  char *dir3 = g_build_filename(tmpdir, "bad-input", NULL);
  const char *args[] = {"export", example, "--input", "Float(5, 1)", "-o", dir3, NULL};
  r = cli_run(jitscope, tmpdir, args);
  g_assert_cmpint(r.status, ==, 2);
  g_assert_nonnull(strstr(r.err, "--input"));
  g_assert_false(g_file_test(dir3, G_FILE_TEST_EXISTS));
  cli_run_clear(&r);
  g_chmod(parent, 0755);
  g_free(dir3);
  g_free(dir2);
  g_free(parent);
  g_free(dir);
  g_free(file);
}

static void test_spec_calls(void) {
  char *dir = g_build_filename(tmpdir, "with-specs", NULL);
  const char *extra[] = {"--spec",
                         "Float(4, 4, requires_grad=1); Float(4, 4, requires_grad=1); "
                         "Float(4, 4, requires_grad=1)",
                         "--seed", "7", NULL};
  CliRun r = export_example(dir, extra);
  g_assert_cmpint(r.status, ==, 0);
  cli_run_clear(&r);
  char *p = g_build_filename(dir, "inputs/spec1/in2.npy", NULL);
  g_assert_true(g_file_test(p, G_FILE_TEST_IS_REGULAR));
  char *g = g_build_filename(dir, "grads/spec1/grad0.npy", NULL);
  g_assert_true(g_file_test(g, G_FILE_TEST_IS_REGULAR));
  r = replay(dir, false);
  g_assert_cmpint(r.status, ==, 0);
  g_assert_nonnull(strstr(r.out, "--spec 1 call: output 0: matches"));
  cli_run_clear(&r);
  g_free(g);
  g_free(p);
  g_free(dir);
}

/* Without Graphviz's dot on PATH: no .svg anywhere, REPORT.md says so, and replay matches. */
static void test_without_dot(void) {
  char *path = g_strdup(g_getenv("PATH"));
  g_setenv("PATH", "/nonexistent", TRUE);
  char *dir = g_build_filename(tmpdir, "no-dot", NULL);
  CliRun r = export_example(dir, NULL);
  g_setenv("PATH", path, TRUE);
  g_assert_cmpint(r.status, ==, 0);
  g_assert_nonnull(strstr(r.err, "pictures were not rendered"));
  cli_run_clear(&r);
  char *report = read_text(dir, "REPORT.md"), *manifest = read_text(dir, "manifest.json");
  g_assert_null(strstr(report, ".svg"));
  g_assert_null(strstr(manifest, ".svg"));
  g_assert_nonnull(strstr(report, "pictures were not rendered"));
  g_assert_nonnull(strstr(report, ".dot)"));
  r = replay(dir, false);
  g_assert_cmpint(r.status, ==, 0);
  cli_run_clear(&r);
  g_free(report);
  g_free(manifest);
  g_free(dir);
  g_free(path);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  if (argc < 2) {
    g_printerr("usage: test-bundle-cli JITSCOPE_BINARY\n");
    return 2;
  }
  jitscope = g_canonicalize_filename(argv[1], NULL);
  const char *src = g_getenv("JITSCOPE_SOURCE_DIR");
  g_assert_nonnull(src);
  example = g_build_filename(src, "resources", "examples", "broadcast_cell.ir", NULL);
  tmpdir = g_dir_make_tmp("bundle-cli-XXXXXX", NULL);
  g_test_add_func("/bundle/round-trip", test_round_trip);
  g_test_add_func("/bundle/tampered-stage-is-corruption", test_tampered_stage_is_corruption);
  g_test_add_func("/bundle/replanted-stage-differs", test_replanted_stage_differs);
  g_test_add_func("/bundle/tampered-input", test_tampered_input);
  g_test_add_func("/bundle/deleted-file", test_deleted_file);
  g_test_add_func("/bundle/non-empty-dir-and-force", test_non_empty_dir_and_force);
  g_test_add_func("/bundle/failed-export-leaves-nothing", test_failed_export_leaves_nothing);
  g_test_add_func("/bundle/spec-calls", test_spec_calls);
  g_test_add_func("/bundle/without-dot", test_without_dot);
  int status = g_test_run();
  const char *keep = g_getenv("JITSCOPE_KEEP_TMP");
  if (!keep || !*keep) {
    char *argv_rm[] = {"rm", "-rf", tmpdir, NULL};
    g_spawn_sync(NULL, argv_rm, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, NULL);
  }
  return status;
}
