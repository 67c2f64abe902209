/* Spawning the jitscope binary for tests (contract in cli_run.h). */
#include "cli_run.h"

#include <sys/wait.h>

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
  return run;
}

void cli_run_clear(CliRun *run) {
  g_free(run->out);
  g_free(run->err);
  run->out = run->err = NULL;
}
