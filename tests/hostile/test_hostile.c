/* Hostile input, as a hostile user would give it (issue 15): every case runs the jitscope
 * binary and must end with its exit status and a message that names the input, node, file or
 * bundle member at fault; none may end by a signal (abort, trap, segfault) or with GLib's
 * "ERROR **" or "CRITICAL **". Two more cases send SIGINT/SIGTERM and check that the run
 * stops cleanly, and one checks that export never deletes a file it did not write.
 * Usage: test-hostile JITSCOPE_BINARY */
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>

#include "bundle_fs.h"
#include "cli_run.h"
#include "hostile_fixtures.h"

static char *jitscope;
static char *fixtures;

typedef struct {
  const char *name;
  const char *args[12]; /* run in the fixtures folder */
  int status;
  const char *says[3]; /* substrings stderr must hold */
} HostileCase;

static const HostileCase cases[] = {
    /* sizes: overflow-safe at the spec and .npy level, the memory budget before allocating */
    {"spec-40GB-default-budget",
     {"run", "add.ir", "--input", "Float(1000000, 1000000)", "Float(1)"},
     2,
     {"--input 1", "out of memory budget"}},
    {"spec-40GB-max-memory",
     {"run", "add.ir", "--max-memory", "1G", "--input", "Float(100000, 100000)", "Float(1)"},
     2,
     {"--input 1", "out of memory budget", "1.0 GiB"}},
    {"spec-numel-overflow",
     {"run", "add.ir", "--input", "Float(0, 1099511627776, 1099511627776)", "Float(1)"},
     2,
     {"--input 1", "too large"}},
    {"spec-numel-overflow-int64",
     {"run", "add.ir", "--input", "Float(4294967296, 4294967296, 4)", "Float(1)"},
     2,
     {"--input 1", "overflows int64"}},
    {"npy-huge-shape",
     {"run", "add.ir", "--input", "huge.npy", "Float(1)"},
     2,
     {"--input 1", "huge.npy"}},
    {"npy-overflow-shape",
     {"run", "add.ir", "--input", "overflow.npy", "Float(1)"},
     2,
     {"--input 1", "overflow.npy", "too large"}},
    {"expand-then-add",
     {"run", "expand.ir", "--max-memory", "1G", "--input", "Float(1)"},
     2,
     {"big.py:2:8", "aten::add", "out of memory budget"}},
    {"empty-concat",
     {"run", "empty_concat.ir", "--input", "Float(2, 3)"},
     2,
     {"prim::FusedConcat", "non-empty list of Tensors"}},
    {"empty-concat-in-group",
     {"run", "empty_concat_group.ir", "--input", "Float(2, 3)"},
     2,
     {"prim::FusionGroup", "prim::FusedConcat", "non-empty list of Tensors"}},
    {"expand-overflow",
     {"run", "expand_overflow.ir", "--input", "Float(1)"},
     2,
     {"wide.py:2:8", "aten::expand", "overflows"}},
    {"view-overflow",
     {"run", "view_overflow.ir", "--input", "Float(0)"},
     2,
     {"flat.py:2:8", "aten::view", "too large"}},
    {"cat-doubling-loop",
     {"run", "cat_loop.ir", "--max-memory", "64M", "--input", "Float(2)"},
     2,
     {"grow.py:5:13", "aten::cat", "out of memory budget"}},
    {"unpack-count-with-grad",
     {"run", "bad_unpack.ir", "--input", "Float(3, requires_grad=1)", "Float(3, requires_grad=1)"},
     2,
     {"prim::ListUnpack", "expected a list of 2 elements, got 1"}},
    {"max-memory-malformed",
     {"run", "add.ir", "--max-memory", "lots", "--input", "Float(1)", "Float(1)"},
     2,
     {"--max-memory"}},
    /* 0-d tensors that require grad */
    {"scalar-requires-grad-run",
     {"run", "add.ir", "--input", "Float(requires_grad=1)", "Float(3)"},
     0,
     {""}},
    {"scalar-beside-requires-grad",
     {"run", "add.ir", "--input", "Float()", "Float(3, requires_grad=1)"},
     0,
     {""}},
    {"scalar-npy-requires-grad",
     {"run", "add.ir", "--input", "scalar.npy:requires_grad=1", "Float(3)"},
     0,
     {""}},
    {"scalar-requires-grad-plans",
     {"plans", "add.ir", "--spec", "Float(requires_grad=1); Float(3)"},
     0,
     {""}},
    {"scalar-requires-grad-check",
     {"check", "add.ir", "--input", "Float(requires_grad=1)", "Float(3, requires_grad=1)"},
     0,
     {""}},
    {"scalar-requires-grad-kernels",
     {"kernels", "add.ir", "--input", "Float(requires_grad=1)", "Float(3)"},
     0,
     {""}},
    {"grad-output-wrong-shape",
     {"run", "add.ir", "--input", "Float(3, requires_grad=1)", "Float(3)", "--grad-output",
      "vec2.npy"},
     2,
     {"--grad-output 1", "[2]", "[3]"}},
    /* runs that would not end */
    {"loop-step-budget",
     {"run", "long_loop.ir", "--max-steps", "1000", "--input", "Float(2)"},
     2,
     {"loop.py:3:4", "prim::Loop", "--max-steps"}},
    {"long-chain-runs", {"run", "chain.ir", "--input", "Float(4)"}, 0, {""}},
    /* files that are not regular files */
    {"npy-fifo", {"run", "add.ir", "--input", "fifo.npy", "Float(1)"}, 2, {"fifo.npy", "FIFO"}},
    {"npy-folder",
     {"run", "add.ir", "--input", "folder.npy", "Float(1)"},
     2,
     {"folder.npy", "folder"}},
    {"npy-dev-zero",
     {"run", "add.ir", "--input", "zero.npy", "Float(1)"},
     2,
     {"zero.npy", "device"}},
    {"program-fifo-print", {"print", "fifo.ir"}, 2, {"fifo.ir", "FIFO"}},
    {"program-dev-zero-run", {"run", "/dev/zero", "--input", "1"}, 2, {"/dev/zero", "device"}},
    {"grad-output-dev-zero",
     {"run", "add.ir", "--input", "Float(3, requires_grad=1)", "Float(3)", "--grad-output",
      "/dev/zero"},
     2,
     {"/dev/zero", "device"}},
    /* bundles that reach outside themselves */
    {"replay-ok", {"replay", "bundle-ok"}, 0, {""}},
    {"replay-scalar-requires-grad", {"replay", "bundle-scalar-grad"}, 0, {""}},
    {"replay-program-symlink",
     {"replay", "bundle-link-program"},
     2,
     {"program.ir", "symbolic link"}},
    {"replay-inputs-symlink",
     {"replay", "bundle-link-inputs"},
     2,
     {"inputs/in0.npy", "symbolic link"}},
    {"replay-deep-manifest",
     {"replay", "bundle-deep-manifest"},
     2,
     {"manifest.json", "nested deeper"}},
    {"replay-huge-spec", {"replay", "bundle-huge-spec"}, 2, {"out of memory budget"}},
    {"replay-program-fifo", {"replay", "bundle-fifo-program"}, 2, {"program.ir", "FIFO"}},
};

static void assert_clean_end(const CliRun *r, const char *what) {
  if (r->signal != 0 || strstr(r->err, "ERROR **") || strstr(r->err, "CRITICAL **"))
    g_error("%s: ended by signal %d or a GLib abort: %s", what, r->signal, r->err);
}

static void run_case(gconstpointer data) {
  const HostileCase *c = data;
  CliRun r = cli_run(jitscope, fixtures, c->args);
  assert_clean_end(&r, c->name);
  if (r.status != c->status)
    g_printerr("%s: stderr: %s\n", c->name, r.err);
  g_assert_cmpint(r.status, ==, c->status);
  for (guint i = 0; i < G_N_ELEMENTS(c->says) && c->says[i]; i++) {
    if (!strstr(r.err, c->says[i]))
      g_error("%s: stderr does not say '%s': %s", c->name, c->says[i], r.err);
  }
  if (c->status == 2 && !g_str_has_prefix(r.err, "jitscope: "))
    g_error("%s: not a jitscope error message: %s", c->name, r.err);
  cli_run_clear(&r);
}

/* The child starts with the signal pending and blocked: it arrives as soon as jitscope
 * installs its handler and unblocks it, which makes the test independent of timing. */
static void send_pending_signal(gpointer signo) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, GPOINTER_TO_INT(signo));
  sigprocmask(SIG_BLOCK, &set, NULL);
  raise(GPOINTER_TO_INT(signo));
}

static CliRun run_signalled(int signo, const char *const *args) {
  GPtrArray *argv = g_ptr_array_new();
  g_ptr_array_add(argv, jitscope);
  for (const char *const *a = args; *a; a++)
    g_ptr_array_add(argv, (gpointer)*a);
  g_ptr_array_add(argv, NULL);
  CliRun r = {0};
  int wait_status = 0;
  GError *error = NULL;
  if (!g_spawn_sync(fixtures, (char **)argv->pdata, NULL, G_SPAWN_DEFAULT, send_pending_signal,
                    GINT_TO_POINTER(signo), &r.out, &r.err, &wait_status, &error))
    g_error("cannot run %s: %s", jitscope, error->message);
  g_ptr_array_unref(argv);
  r.status = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1;
  r.signal = WIFSIGNALED(wait_status) ? WTERMSIG(wait_status) : 0;
  return r;
}

/* Ctrl+C stops a run of 10^12 loop iterations between nodes: status 130 and a message. */
static void test_sigint_stops_run(void) {
  const char *args[] = {"run", "long_loop.ir", "--input", "Float(2)", NULL};
  CliRun r = run_signalled(SIGINT, args);
  assert_clean_end(&r, "SIGINT");
  g_assert_cmpint(r.status, ==, 130);
  g_assert_nonnull(strstr(r.err, "interrupted"));
  g_assert_nonnull(strstr(r.err, "cancelled"));
  cli_run_clear(&r);
}

static bool has_temp_folder(const char *dir) {
  g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
  const char *name;
  while ((name = g_dir_read_name(d)))
    if (strstr(name, ".tmp-") || strstr(name, ".old-"))
      return true;
  return false;
}

/* SIGTERM during export: status 143, no bundle and no temporary folder left behind. */
static void test_sigterm_export_leaves_nothing(void) {
  g_autofree char *parent = g_build_filename(fixtures, "export-term", NULL);
  g_assert_cmpint(g_mkdir(parent, 0755), ==, 0);
  const char *args[] = {"export",   "../add.ir", "--input",         "Float(2)",
                        "Float(2)", "-o",        "export-term/out", NULL};
  CliRun r = run_signalled(SIGTERM, args);
  assert_clean_end(&r, "SIGTERM");
  g_assert_cmpint(r.status, ==, 143);
  g_autofree char *out = g_build_filename(parent, "out", NULL);
  g_assert_false(g_file_test(out, G_FILE_TEST_EXISTS));
  g_assert_false(has_temp_folder(parent));
  cli_run_clear(&r);
}

/* A file a user put into DIR while the bundle was being written survives: without --force
 * the finished bundle does not replace a folder that something else filled. */
static void test_export_keeps_foreign_files(void) {
  g_autofree char *tmp = g_build_filename(fixtures, ".foreign.tmp-test", NULL);
  g_autofree char *dir = g_build_filename(fixtures, "foreign", NULL);
  g_autofree char *ours = g_build_filename(tmp, "manifest.json", NULL);
  g_autofree char *theirs = g_build_filename(dir, "notes.txt", NULL);
  g_assert_cmpint(g_mkdir(tmp, 0755), ==, 0);
  g_assert_cmpint(g_mkdir(dir, 0755), ==, 0);
  g_assert_true(g_file_set_contents(ours, "{}", -1, NULL));
  g_assert_true(g_file_set_contents(theirs, "mine", -1, NULL));
  GError *error = NULL;
  g_assert_false(app_bundle_move_into_place(tmp, dir, false, &error));
  g_assert_nonnull(strstr(error->message, "--force"));
  g_clear_error(&error);
  g_autofree char *kept = NULL;
  g_assert_true(g_file_get_contents(theirs, &kept, NULL, NULL));
  g_assert_cmpstr(kept, ==, "mine");
  g_assert_true(g_file_test(ours, G_FILE_TEST_EXISTS)); /* left for the caller to remove */
  app_bundle_remove_tree(tmp);
}

/* Without a display `jitscope FILE` is an error with status 2 (window built or not). */
static void test_no_display(void) {
  g_autofree char *path = g_build_filename(fixtures, "add.ir", NULL);
  const char *argv[] = {jitscope, path, NULL};
  /* The test's own environment (its sanitizer options among it: tests/lsan.supp covers the
   * fontconfig allocation GTK's start-up sometimes leaves behind) without a display. */
  g_auto(GStrv) envp = g_get_environ();
  envp = g_environ_setenv(envp, "DISPLAY", "", TRUE);
  envp = g_environ_setenv(envp, "WAYLAND_DISPLAY", "", TRUE);
  g_autofree char *out = NULL, *err = NULL;
  int wait_status = 0;
  g_assert_true(g_spawn_sync(fixtures, (char **)argv, envp, G_SPAWN_DEFAULT, NULL, NULL, &out, &err,
                             &wait_status, NULL));
  if (!WIFEXITED(wait_status) || WEXITSTATUS(wait_status) != 2)
    g_printerr("jitscope without a display: wait status %d; its stderr:\n%s", wait_status, err);
  g_assert_true(WIFEXITED(wait_status));
  g_assert_cmpint(WEXITSTATUS(wait_status), ==, 2);
  g_assert_true(g_str_has_prefix(err, "jitscope: "));
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  if (argc != 2) {
    g_printerr("usage: %s JITSCOPE_BINARY\n", argv[0]);
    return 2;
  }
  jitscope = g_canonicalize_filename(argv[1], NULL); /* cases run in another folder */
  fixtures = g_dir_make_tmp("jitscope-hostile-XXXXXX", NULL);
  hostile_fixtures_write(fixtures, jitscope);
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autofree char *path = g_strdup_printf("/hostile/%s", cases[i].name);
    g_test_add_data_func(path, &cases[i], run_case);
  }
  g_test_add_func("/hostile/sigint-stops-run", test_sigint_stops_run);
  g_test_add_func("/hostile/sigterm-export-leaves-nothing", test_sigterm_export_leaves_nothing);
  g_test_add_func("/hostile/export-keeps-foreign-files", test_export_keeps_foreign_files);
  g_test_add_func("/hostile/no-display", test_no_display);
  int status = g_test_run();
  app_bundle_remove_tree(fixtures);
  g_free(fixtures);
  g_free(jitscope);
  return status;
}
