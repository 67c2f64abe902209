/* Option parsing shared by every subcommand: a table of options drives both the parser and
 * the --help text, so the help can never list an option the parser does not take.
 *
 * Grammar: `--name VALUE`, `--name=VALUE`, `-x VALUE`; CLI_OPTION_STRINGS options take every
 * following argument up to the next one that starts with "--" or is one of the command's
 * short options like `-o` (so `--input a b c -o DIR` and repeated `--input a --input b` both
 * work, and a negative number like `-2` is a value);
 * `--` ends options; everything else is positional. -h/--help is always accepted. */
#ifndef JITSCOPE_APP_CLI_ARGS_H
#define JITSCOPE_APP_CLI_ARGS_H

#include <glib.h>
#include <stdbool.h>
#include <stdio.h>

typedef enum {
  CLI_OPTION_FLAG,    /* bool *target set to true */
  CLI_OPTION_STRING,  /* char **target; the last occurrence wins (g_free'd by the caller) */
  CLI_OPTION_UINT64,  /* guint64 *target; decimal */
  CLI_OPTION_STRINGS, /* GPtrArray **target of char* (created on first use, free func g_free) */
} CliOptionKind;

typedef struct {
  const char *long_name; /* without the dashes */
  char short_name;       /* 0 for none */
  CliOptionKind kind;
  void *target;
  const char *arg_name; /* "SPEC", "N": shown in the help */
  const char *help;
} CliOption;

typedef struct {
  const char *name;        /* "run"; "jitscope" for the top level */
  const char *usage;       /* "FILE --input SPEC... [--seed N] [--json]" */
  const char *description; /* paragraphs shown under the usage line */
  const CliOption *options;
  guint n_options;
  guint min_positional;
  guint max_positional;
  bool run_limits; /* also takes --max-memory and --max-steps (run_limits.h) */
} CliCommand;

typedef enum {
  CLI_PARSE_OK,
  CLI_PARSE_HELP,  /* --help was given: the help has been printed on stdout */
  CLI_PARSE_ERROR, /* *error set; the message has no "error:" prefix */
} CliParseResult;

/* Parses argv[1..argc) (argv[0] is the command name). Positional arguments are appended to
 * `positional` (borrowed pointers into argv). */
CliParseResult cli_args_parse(const CliCommand *command, int argc, char **argv,
                              GPtrArray *positional, GError **error);

/* cli_args_parse for a command that takes exactly one positional argument: on CLI_PARSE_OK,
 * *arg is that argument (a borrowed pointer into argv). */
CliParseResult cli_args_parse_one(const CliCommand *command, int argc, char **argv,
                                  const char **arg, GError **error);

void cli_args_print_help(const CliCommand *command, FILE *out);

#endif
