/* Spawning the jitscope binary for tests (contract in cli_run.h). */
#include "cli_run.h"

#include <string.h>
#include <sys/wait.h>

#include "json_strict.h"

static gboolean has_arg(const char *const *args, const char *wanted) {
  for (const char *const *a = args; *a; a++)
    if (strcmp(*a, wanted) == 0)
      return TRUE;
  return FALSE;
}

/* DESIGN.md: `--json` makes every subcommand print one JSON document on stdout. Every --json
 * run of the test suite checks that it is one, strictly. */
static void check_json_output(const char *const *args, const CliRun *run) {
  if (!has_arg(args, "--json") || has_arg(args, "--help") || run->out == NULL ||
      run->out[0] == '\0')
    return;
  GError *error = NULL;
  if (!json_strict_check(run->out, &error))
    g_error("jitscope %s ... --json printed %s\n%s", args[0], error->message, run->out);
}

CliRun cli_run(const char *jitscope, const char *cwd, const char *const *args) {
  GPtrArray *argv = g_ptr_array_new();
  g_ptr_array_add(argv, (gpointer)jitscope);
  for (const char *const *a = args; *a; a++)
    g_ptr_array_add(argv, (gpointer)*a);
  g_ptr_array_add(argv, NULL);
  CliRun run = {0};
  int wait_status = 0;
  GError *error = NULL;
  if (!g_spawn_sync(cwd, (char **)argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, &run.out,
                    &run.err, &wait_status, &error))
    g_error("cannot run %s: %s", jitscope, error->message);
  g_ptr_array_unref(argv);
  run.status = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1;
  run.signal = WIFSIGNALED(wait_status) ? WTERMSIG(wait_status) : 0;
  check_json_output(args, &run);
  return run;
}

void cli_run_clear(CliRun *run) {
  g_free(run->out);
  g_free(run->err);
  run->out = run->err = NULL;
}
