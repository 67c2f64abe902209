/* Command lines of the benchmark programs, through GOptionContext: --help prints the usage and
 * exits 0, a usage error says what is wrong and exits 2, so that a mistyped option never runs
 * a benchmark of several minutes with settings nobody asked for. No dependency on
 * bench_common.c, which not every benchmark links. */
#ifndef JITSCOPE_BENCH_ARGS_H
#define JITSCOPE_BENCH_ARGS_H

#include <glib.h>

/* The starting value of an int option that must tell "not given" from every value given
 * (`--small-only 0` is an error, not the default): GOption writes the variable only when the
 * option is given, and G_MININT is no value anyone means to type. */
#define BENCH_ARGS_UNSET G_MININT

/* Parses the options in `entries` (ended by G_OPTION_ENTRY_NULL) out of *argc / *argv.
 * `parameter_string` names the positional arguments in the usage line ("[LSTM_GRAPH_IR]"), or
 * NULL; `summary` is the help's description of the program. -h / --help prints the help and
 * exits 0; an unknown option, a value that does not parse, or more than `max_positional`
 * positional arguments (0 or 1) is a usage error (bench_args_fail). On return (*argv)[1] to
 * (*argv)[*argc - 1] are the positional arguments ("--" ends the options). Sets LC_CTYPE
 * (only) from the environment. Call g_set_prgname first: the help and the errors name the
 * program by it. */
void bench_args_parse(int *argc, char ***argv, const char *parameter_string, const char *summary,
                      const GOptionEntry *entries, int max_positional);

/* A usage error: "PRGNAME: MESSAGE" and a pointer to --help on stderr, then exit status 2 (the
 * status of a bad command line, as opposed to 1 for a benchmark that failed). */
G_NORETURN void bench_args_fail(const char *format, ...) G_GNUC_PRINTF(1, 2);

#endif
