/* The bundle library: the LCS diff, a failing export leaving nothing behind (planted write
 * failures), and the manifest reader against truncated, garbage and mutated manifests (never
 * a crash; a clear MALFORMED error or a report). */
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <stdlib.h>
#include <string.h>

#include "bundle_diff.h"
#include "bundle_replay.h"
#include "bundle_write.h"

static char *tmpdir;

static const char *PROGRAM = "graph(%x : Tensor,\n"
                             "      %a : float):\n"
                             "  %y : Tensor = aten::mul(%x, %a)\n"
                             "  return (%y, %a)\n";

static AppBundleSummary *export_small(const char *dir, bool force, guint fail_after,
                                      GError **error) {
  char *inputs[] = {"Double(3, 2)", "2.5", NULL};
  AppBundleRequest req = {.program_name = "/some/where/small.ir",
                          .program_text = PROGRAM,
                          .inputs = inputs,
                          .seed = 3,
                          .force = force,
                          .fail_after_files = fail_after};
  return app_bundle_export(&req, dir, error);
}

/* ---- diff ---- */

static void test_diff(void) {
  char *d = app_unified_diff("a\nb\nc\n", "a\nb\nc\n", "x", "y", 3);
  g_assert_cmpstr(d, ==, "");
  g_free(d);
  d = app_unified_diff("a\nb\nc\n", "a\nB\nc\n", "x", "y", 3);
  g_assert_cmpstr(d, ==, "--- x\n+++ y\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n");
  g_free(d);
  d = app_unified_diff("b\nc", "a\nb\nc\n", "x", "y", 0);
  g_assert_cmpstr(d, ==, "--- x\n+++ y\n@@ -0,0 +1 @@\n+a\n");
  g_free(d);
  d = app_unified_diff("a\nb\nc\n", "a\nb\n", "x", "y", 1);
  g_assert_cmpstr(d, ==, "--- x\n+++ y\n@@ -2,2 +2 @@\n b\n-c\n");
  g_free(d);
  /* Two changes far apart: two hunks; close together: one. */
  GString *a = g_string_new(NULL), *b = g_string_new(NULL);
  for (int i = 0; i < 30; i++) {
    g_string_append_printf(a, "line %d\n", i);
    g_string_append_printf(b, "line %d%s\n", i, i == 3 || i == 25 ? " changed" : "");
  }
  d = app_unified_diff(a->str, b->str, "x", "y", 3);
  g_assert_nonnull(strstr(d, "@@ -1,7 +1,7 @@\n"));
  g_assert_nonnull(strstr(d, "@@ -23,7 +23,7 @@\n"));
  g_free(d);
  g_string_truncate(b, 0);
  for (int i = 0; i < 30; i++)
    g_string_append_printf(b, "line %d%s\n", i, i == 3 || i == 8 ? " changed" : "");
  d = app_unified_diff(a->str, b->str, "x", "y", 3);
  g_assert_nonnull(strstr(d, "@@ -1,12 +1,12 @@\n"));
  g_assert_null(strstr(d + 20, "@@ -"));
  g_free(d);
  /* LCS keeps the common lines in place of a reordering. */
  d = app_unified_diff("p\nq\nr\ns\n", "q\nr\np\ns\n", "x", "y", 0);
  g_assert_cmpstr(d, ==, "--- x\n+++ y\n@@ -1 +0,0 @@\n-p\n@@ -3,0 +3 @@\n+p\n");
  g_free(d);
  g_string_free(a, TRUE);
  g_string_free(b, TRUE);
}

/* ---- atomicity ---- */

static guint count_entries(const char *dir) {
  GDir *d = g_dir_open(dir, 0, NULL);
  g_assert_nonnull(d);
  guint n = 0;
  while (g_dir_read_name(d))
    n++;
  g_dir_close(d);
  return n;
}

static void test_failed_export_leaves_nothing(void) {
  char *parent = g_build_filename(tmpdir, "atomic", NULL);
  g_assert_cmpint(g_mkdir(parent, 0755), ==, 0);
  char *dir = g_build_filename(parent, "bundle", NULL);
  GError *error = NULL;
  AppBundleSummary *ok = export_small(dir, false, 0, &error);
  g_assert_no_error(error);
  guint files = ok->files;
  app_bundle_summary_free(ok);
  char *argv_rm[] = {"rm", "-rf", dir, NULL};
  g_spawn_sync(NULL, argv_rm, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, NULL);
  /* Fail at the first file, in the middle, and at the last (the manifest). */
  guint points[] = {1, files / 2, files - 1};
  for (guint i = 0; i < G_N_ELEMENTS(points); i++) {
    AppBundleSummary *s = export_small(dir, false, points[i], &error);
    g_assert_null(s);
    g_assert_error(error, APP_BUNDLE_ERROR, APP_BUNDLE_ERROR_IO);
    g_clear_error(&error);
    g_assert_cmpuint(count_entries(parent), ==, 0);
  }
  /* A failing --force export keeps the old folder as it was. */
  g_assert_cmpint(g_mkdir(dir, 0755), ==, 0);
  char *old = g_build_filename(dir, "old.txt", NULL);
  g_assert_true(g_file_set_contents(old, "old", -1, NULL));
  g_assert_null(export_small(dir, true, files / 2, &error));
  g_clear_error(&error);
  g_assert_true(g_file_test(old, G_FILE_TEST_IS_REGULAR));
  g_assert_cmpuint(count_entries(parent), ==, 1);
  g_assert_cmpuint(count_entries(dir), ==, 1);
  /* And a succeeding one replaces it. */
  AppBundleSummary *s = export_small(dir, true, 0, &error);
  g_assert_no_error(error);
  app_bundle_summary_free(s);
  g_assert_false(g_file_test(old, G_FILE_TEST_EXISTS));
  g_assert_cmpuint(count_entries(parent), ==, 1);
  g_free(old);
  g_free(dir);
  g_free(parent);
}

/* ---- manifest fuzzing ---- */

static char *fuzz_dir;
static char *fuzz_manifest_path;
static char *fuzz_manifest;

/* Replays with `text` as the manifest; returns whether the replay gave a report (true) or a
 * MALFORMED error (false). Anything else fails the test. */
static bool replay_with(const char *text, gssize length) {
  g_assert_true(g_file_set_contents(fuzz_manifest_path, text, length, NULL));
  GError *error = NULL;
  AppBundleReplay *r = app_bundle_replay(fuzz_dir, &error);
  if (r == NULL) {
    g_assert_error(error, APP_BUNDLE_ERROR, APP_BUNDLE_ERROR_MALFORMED);
    g_assert_cmpuint(strlen(error->message), >, 0);
    g_error_free(error);
    return false;
  }
  g_assert_no_error(error);
  app_bundle_replay_free(r);
  return true;
}

static void test_fuzz_truncated_and_garbage(void) {
  gsize n = strlen(fuzz_manifest);
  gsize step = MAX(1, n / 300);
  for (gsize len = 0; len < n - 2; len += step)
    g_assert_false(replay_with(fuzz_manifest, (gssize)len));
  GRand *rand = g_rand_new_with_seed(42);
  for (int k = 0; k < 200; k++) {
    gsize len = g_rand_int_range(rand, 0, 400);
    char *garbage = g_malloc(len + 1);
    for (gsize i = 0; i < len; i++)
      garbage[i] = (char)g_rand_int_range(rand, 1, 256);
    garbage[len] = '\0';
    g_assert_false(replay_with(garbage, (gssize)len));
    g_free(garbage);
  }
  /* Byte flips inside the valid text: JSON or not, never a crash. */
  for (int k = 0; k < 300; k++) {
    char *copy = g_strdup(fuzz_manifest);
    gsize at = g_rand_int_range(rand, 0, (gint32)n);
    copy[at] = "{}[]\",:0a-.\\ "[g_rand_int_range(rand, 0, 14)];
    replay_with(copy, (gssize)n);
    g_free(copy);
  }
  g_rand_free(rand);
  g_assert_true(replay_with(fuzz_manifest, -1));
}

/* A path into the manifest: GPtrArray of char*, a member name or "#N" for an array index. */
static void collect_paths(JsonNode *node, GPtrArray *prefix, GPtrArray *out) {
  if (prefix->len) {
    GPtrArray *copy = g_ptr_array_new_with_free_func(g_free);
    for (guint i = 0; i < prefix->len; i++)
      g_ptr_array_add(copy, g_strdup(g_ptr_array_index(prefix, i)));
    g_ptr_array_add(out, copy);
  }
  if (JSON_NODE_HOLDS_OBJECT(node)) {
    GList *members = json_object_get_members(json_node_get_object(node));
    for (GList *m = members; m; m = m->next) {
      g_ptr_array_add(prefix, g_strdup(m->data));
      collect_paths(json_object_get_member(json_node_get_object(node), m->data), prefix, out);
      g_ptr_array_remove_index(prefix, prefix->len - 1);
    }
    g_list_free(members);
  } else if (JSON_NODE_HOLDS_ARRAY(node)) {
    JsonArray *a = json_node_get_array(node);
    for (guint i = 0; i < json_array_get_length(a); i++) {
      g_ptr_array_add(prefix, g_strdup_printf("#%u", i));
      collect_paths(json_array_get_element(a, i), prefix, out);
      g_ptr_array_remove_index(prefix, prefix->len - 1);
    }
  }
}

static JsonNode *variant_node(int variant) {
  JsonNode *n = json_node_alloc();
  switch (variant) {
  case 1: return json_node_init_null(n);
  case 2: return json_node_init_int(n, 7);
  case 3: return json_node_init_string(n, "../x");
  case 4: return json_node_init_array(n, json_array_new());
  default: return json_node_init_object(n, json_object_new());
  }
}

/* Applies variant (0: remove, else replace) at path in a copy of root; returns the text. */
static char *mutate(GPtrArray *path, int variant) {
  /* json_node_copy shares objects and arrays: parse afresh for a deep copy. */
  JsonNode *copy = json_from_string(fuzz_manifest, NULL);
  JsonNode *parent = copy;
  for (guint i = 0; i + 1 < path->len; i++) {
    const char *step = g_ptr_array_index(path, i);
    parent = step[0] == '#' ? json_array_get_element(json_node_get_array(parent), atoi(step + 1))
                            : json_object_get_member(json_node_get_object(parent), step);
  }
  const char *last = g_ptr_array_index(path, path->len - 1);
  if (last[0] == '#') {
    JsonArray *a = json_node_get_array(parent);
    guint index = (guint)atoi(last + 1);
    if (variant == 0)
      json_array_remove_element(a, index);
    else {
      /* Replace: rebuild the array with the variant at index. */
      JsonArray *b = json_array_new();
      for (guint i = 0; i < json_array_get_length(a); i++)
        json_array_add_element(b, i == index ? variant_node(variant)
                                             : json_node_copy(json_array_get_element(a, i)));
      json_node_take_array(parent, b);
    }
  } else {
    JsonObject *o = json_node_get_object(parent);
    if (variant == 0)
      json_object_remove_member(o, last);
    else
      json_object_set_member(o, last, variant_node(variant));
  }
  char *text = json_to_string(copy, FALSE);
  json_node_unref(copy);
  return text;
}

static void test_fuzz_mutated_members(void) {
  JsonNode *root = json_from_string(fuzz_manifest, NULL);
  g_assert_nonnull(root);
  GPtrArray *paths = g_ptr_array_new_with_free_func((GDestroyNotify)g_ptr_array_unref);
  GPtrArray *prefix = g_ptr_array_new_with_free_func(g_free);
  collect_paths(root, prefix, paths);
  guint reports = 0, errors = 0;
  for (guint p = 0; p < paths->len; p++) {
    for (int v = 0; v < 6; v++) {
      char *text = mutate(g_ptr_array_index(paths, p), v);
      if (replay_with(text, -1))
        reports++;
      else
        errors++;
      g_free(text);
    }
  }
  /* Most members matter: a reader that ignored them would give reports. */
  g_assert_cmpuint(errors, >, reports);
  g_assert_true(replay_with(fuzz_manifest, -1));
  g_ptr_array_unref(prefix);
  g_ptr_array_unref(paths);
  json_node_unref(root);
}

/* Structural checks that must be errors, named. */
static void test_manifest_rules(void) {
  JsonNode *root = json_from_string(fuzz_manifest, NULL);
  JsonObject *o = json_node_get_object(root);
  struct {
    const char *member;
    JsonNode *value;
    const char *message;
  } cases[] = {
      {"format_version", json_node_init_int(json_node_alloc(), 99), "format_version 99"},
      {"format", json_node_init_string(json_node_alloc(), "zip"), "format is 'zip'"},
      {"files", json_node_init_null(json_node_alloc()), "files: expected an array"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    JsonNode *copy = json_from_string(fuzz_manifest, NULL);
    json_object_set_member(json_node_get_object(copy), cases[i].member, cases[i].value);
    char *text = json_to_string(copy, FALSE);
    g_assert_true(g_file_set_contents(fuzz_manifest_path, text, -1, NULL));
    GError *error = NULL;
    g_assert_null(app_bundle_replay(fuzz_dir, &error));
    g_assert_error(error, APP_BUNDLE_ERROR, APP_BUNDLE_ERROR_MALFORMED);
    if (!strstr(error->message, cases[i].message))
      g_error("'%s' does not say '%s'", error->message, cases[i].message);
    g_error_free(error);
    g_free(text);
    json_node_unref(copy);
  }
  /* A path leaving the bundle. */
  JsonArray *files = json_object_get_array_member(o, "files");
  JsonObject *first = json_array_get_object_element(files, 0);
  json_object_set_string_member(first, "path", "../outside");
  char *text = json_to_string(root, FALSE);
  g_assert_true(g_file_set_contents(fuzz_manifest_path, text, -1, NULL));
  GError *error = NULL;
  g_assert_null(app_bundle_replay(fuzz_dir, &error));
  g_assert_nonnull(strstr(error->message, "'../outside' is not a file path inside the bundle"));
  g_error_free(error);
  g_free(text);
  json_node_unref(root);
  g_assert_true(replay_with(fuzz_manifest, -1));
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  tmpdir = g_dir_make_tmp("bundle-lib-XXXXXX", NULL);
  fuzz_dir = g_build_filename(tmpdir, "fuzz", NULL);
  GError *error = NULL;
  AppBundleSummary *s = export_small(fuzz_dir, false, 0, &error);
  g_assert_no_error(error);
  app_bundle_summary_free(s);
  fuzz_manifest_path = g_build_filename(fuzz_dir, "manifest.json", NULL);
  g_assert_true(g_file_get_contents(fuzz_manifest_path, &fuzz_manifest, NULL, NULL));
  g_test_add_func("/bundle/diff", test_diff);
  g_test_add_func("/bundle/failed-export-leaves-nothing", test_failed_export_leaves_nothing);
  g_test_add_func("/bundle/fuzz-truncated-and-garbage", test_fuzz_truncated_and_garbage);
  g_test_add_func("/bundle/fuzz-mutated-members", test_fuzz_mutated_members);
  g_test_add_func("/bundle/manifest-rules", test_manifest_rules);
  int status = g_test_run();
  char *argv_rm[] = {"rm", "-rf", tmpdir, NULL};
  g_spawn_sync(NULL, argv_rm, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, NULL);
  g_free(fuzz_manifest);
  g_free(fuzz_manifest_path);
  g_free(fuzz_dir);
  g_free(tmpdir);
  return status;
}
