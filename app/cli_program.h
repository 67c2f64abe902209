/* The front half every subcommand that takes a program shares: parse the command line, load
 * and verify FILE (the one positional argument), bind `--input SPEC...` to its inputs. */
#ifndef JITSCOPE_APP_CLI_PROGRAM_H
#define JITSCOPE_APP_CLI_PROGRAM_H

#include "cli_args.h"
#include "graph_inputs.h"

/* The options of a command that runs a program on inputs. */
#define CLI_PROGRAM_OPTIONS(specs, seed)                                                       \
  {"input", 'i', CLI_OPTION_STRINGS, &(specs), "SPEC",                                         \
   "The graph's inputs in order; repeat --input or give several values after one (they run "   \
   "up to the next --option, so put FILE first)"},                                             \
  {                                                                                            \
    "seed", 0, CLI_OPTION_UINT64, &(seed), "N",                                                \
        "Seed for drawn inputs (default 0); input K uses generator seed N + K"                 \
  }

typedef struct {
  GPtrArray *positional; /* borrowed pointers into argv */
  const char *path;
  IrGraph *graph;
  AppInputs *inputs; /* NULL unless inputs were asked for */
} CliProgram;

/* Parses argv for `command`, loads FILE and, when `specs` is not NULL, binds *specs (what the
 * --input option collected, possibly NULL for none) with `seed`. Returns CLI_PARSE_HELP after
 * printing the help, CLI_PARSE_ERROR with *error set, or CLI_PARSE_OK with `program` filled.
 * cli_program_clear releases whatever was filled in every case. */
CliParseResult cli_program_open(CliProgram *program, const CliCommand *command, int argc,
                                char **argv, GPtrArray *const *specs, const guint64 *seed,
                                GError **error);
void cli_program_clear(CliProgram *program);

/* A run-time error of the program as `FILE: error: running the graph failed: ...` (CLI errors
 * about the inputs are left as they are). Takes *error over. */
void cli_program_locate_run_error(const CliProgram *program, GError **error);

/* Reports `error` (when set), frees it and returns the exit status the command ends with. */
int cli_program_finish(int status, GError *error);

#endif
