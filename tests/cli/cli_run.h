/* Running the jitscope binary from tests: argv in, exit status and both output streams out. */
#ifndef JITSCOPE_TESTS_CLI_RUN_H
#define JITSCOPE_TESTS_CLI_RUN_H

#include <glib.h>

typedef struct {
  int status; /* exit status; -1 when killed by a signal */
  int signal; /* the signal that killed it, or 0 */
  char *out;
  char *err;
} CliRun;

/* Runs `jitscope ARGS...` (NULL-terminated) in `cwd` (NULL: the current folder). Aborts the
 * test when the binary cannot be started, or when ARGS hold --json and stdout is not empty
 * and not one strict JSON document (json_strict.h). */
CliRun cli_run(const char *jitscope, const char *cwd, const char *const *args);
void cli_run_clear(CliRun *run);

#endif
