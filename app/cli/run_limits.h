/* The limits of every command that runs a program: `--max-memory SIZE` (the host memory
 * budget, tensor/memory_budget.h) and `--max-steps N` (the iterations one loop may run,
 * runtime/run_control.h), and the handling of SIGINT and SIGTERM, which cancel the run
 * between nodes (runtime/run_control.h) so that the command ends cleanly (temporary files
 * removed) with status 128 + the signal's number.
 *
 * A command that runs programs sets CliCommand.run_limits; cli_args_parse then accepts,
 * lists and applies these options. */
#ifndef JITSCOPE_APP_RUN_LIMITS_H
#define JITSCOPE_APP_RUN_LIMITS_H

#include "cli_args.h"

/* The option table (targets are this module's own storage). */
const CliOption *cli_run_limit_options(guint *n_options);
/* Sets the engine's budget and step limit from what the options stored (defaults for those
 * not given); a malformed SIZE is APP_ERROR_USAGE. */
bool cli_run_limits_apply(GError **error);

/* SIZE: bytes, or a number with a suffix K, M, G or T (powers of 1024; "8G", "512M").
 * Returns false on anything else (0 too). */
bool cli_run_limits_parse_size(const char *text, guint64 *bytes);

/* Installs the SIGINT/SIGTERM handlers (the first signal cancels the run, a second one ends
 * the process as the signal would) and unblocks both. */
void cli_run_limits_install_signal_handlers(void);
/* 128 + the number of the signal that cancelled the run, or 0 when none came. */
int cli_run_limits_signal_status(void);

#endif
