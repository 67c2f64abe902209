/* The jitscope command line: dispatch to subcommands, error reporting, exit statuses.
 *
 * Error messages go to stderr as `jitscope: error: MESSAGE`, or `jitscope: FILE:LINE:COL:
 * error: MESSAGE` when the error has a location in a file (parse errors, and errors of
 * domain JITSCOPE_APP_ERROR with code APP_ERROR_LOCATED (app_error.h), whose message already starts with
 * "FILE...: error: "). */
#ifndef JITSCOPE_APP_CLI_H
#define JITSCOPE_APP_CLI_H

#include <glib.h>

#include "app_error.h"

/* Exit statuses (DESIGN.md): 2 for every error, 1 for a failed check or replay. */
enum { CLI_EXIT_OK = 0, CLI_EXIT_FAILED = 1, CLI_EXIT_ERROR = 2 };

int cli_main(int argc, char **argv);

/* What `jitscope [FILE]` without a command runs (FILE NULL for none) when the window is
 * built; without one, the command line says that the window is not in this build. */
typedef int (*CliWindowFn)(const char *file);
void cli_set_window_handler(CliWindowFn handler);

/* Prints the error as described above. */
void cli_report_error(const GError *error);
/* Reports `error` (when set) as above, frees it and returns the exit status the command ends
 * with: CLI_EXIT_ERROR when there was an error, else `status`. */
int cli_finish(int status, GError *error);
/* `jitscope: error: ...` */
void cli_error(const char *format, ...) G_GNUC_PRINTF(1, 2);
/* `jitscope: note: ...` for facts that change no result but that the user should know. */
void cli_note(const char *format, ...) G_GNUC_PRINTF(1, 2);

#define CLI_COMMAND(name, handler, summary) int handler(int argc, char **argv);
#include "commands.def"
#undef CLI_COMMAND

#endif
