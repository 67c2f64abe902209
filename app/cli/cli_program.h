/* The front half every subcommand that takes a program shares: parse the command line, load
 * and verify FILE (the one positional argument), bind `--input SPEC...` to its inputs and put
 * the device=cuda ones on the GPU, as every command that runs the program must. */
#ifndef JITSCOPE_APP_CLI_PROGRAM_H
#define JITSCOPE_APP_CLI_PROGRAM_H

#include "cli_args.h"
#include "graph_file.h"
#include "graph_inputs.h"

/* The options of a command that runs a program on inputs. */
#define CLI_PROGRAM_OPTIONS(specs, seed)                                                     \
  {"input",                                                                                  \
   'i',                                                                                      \
   CLI_OPTION_STRINGS,                                                                       \
   &(specs),                                                                                 \
   "SPEC",                                                                                   \
   "The graph's inputs in order; repeat --input or give several values after one (they run " \
   "up to the next --option, so put FILE first); default: the first `# jitscope: --spec` "   \
   "line of FILE's header"},                                                                 \
  {                                                                                          \
    "seed", 0, CLI_OPTION_UINT64, &(seed), "N",                                              \
        "Seed for drawn inputs (default 0; input K uses generator seed N + K) and, as "      \
        "torch.manual_seed(N), for the program's random ops"                                 \
  }

/* `--graph N` and `--function NAME`: which program of FILE (graph_file.h). */
#define CLI_PROGRAM_CHOICE_OPTIONS(program)                                            \
  {"graph",                                                                            \
   0,                                                                                  \
   CLI_OPTION_UINT64,                                                                  \
   &(program).choice.index,                                                            \
   "N",                                                                                \
   "Which graph of FILE, counting from 0, when it holds several (default 0)"},         \
  {                                                                                    \
    "function", 0, CLI_OPTION_STRING, &(program).function, "NAME",                     \
        "Which def of a TorchScript source FILE (.py) to compile (default: the first)" \
  }

/* What the help of every command that runs the program says about device=cuda inputs. */
#define CLI_PROGRAM_DEVICE_HELP                                                              \
  "Inputs with device=cuda are copied to the GPU, and plans are compiled and run for\n"      \
  "device=cuda, when CUDA can run; otherwise they stay in CPU memory, the program runs on\n" \
  "the CPU and a note on stderr says why.\n"

typedef struct {
  const char *path;        /* FILE: a borrowed pointer into argv */
  AppProgramChoice choice; /* --graph N; its function is `function` (below) */
  char *function;          /* --function NAME (owned) */
  /* Set by `print` before cli_program_load: the graph stays as written. Otherwise a module
   * graph is lowered into a function (passes/module_lowering.h; said in a note) and a graph
   * with ops that cannot run is an error naming the first one. */
  bool as_written;
  IrGraph *graph;
  AppInputs *inputs; /* NULL unless inputs were asked for */
  /* Set between cli_program_parse and cli_program_load by a command that compiles for
   * device=cuda without running the program (kernels): its inputs then stay in host memory. */
  bool inputs_stay_on_host;
  char *why_cpu;    /* why device=cuda inputs stay in host memory (the first cause), or NULL */
  GPtrArray *notes; /* char*: the notes said on stderr, so that each is said once */
} CliProgram;

/* Parses argv for `command` (FILE its one positional argument) and sets program->path; a
 * command that checks its options before reading FILE does so between this and
 * cli_program_load. Returns CLI_PARSE_HELP after printing the help, CLI_PARSE_ERROR with
 * *error set, or CLI_PARSE_OK. */
CliParseResult cli_program_parse(CliProgram *program, const CliCommand *command, int argc,
                                 char **argv, GError **error);
/* Loads and verifies FILE and, when `specs` is not NULL, binds *specs (what the --input option
 * collected, possibly NULL for none; none: the first spec line of FILE's header, spec_header.h)
 * with `seed` and places them (cli_program_place_inputs) unless program->inputs_stay_on_host. */
bool cli_program_load(CliProgram *program, GPtrArray *const *specs, const guint64 *seed,
                      GError **error);
/* cli_program_parse, then cli_program_load when parsing went through. */
CliParseResult cli_program_open(CliProgram *program, const CliCommand *command, int argc,
                                char **argv, GPtrArray *const *specs, const guint64 *seed,
                                GError **error);
/* Puts the device=cuda tensors of `inputs` (the program's, or another call's) on the GPU when
 * CUDA can run, as `run` does (app_inputs_place); otherwise they stay in host memory, the run
 * computes on the CPU, and a note on stderr says why (once per program, however many calls).
 * Returns whether they are on the GPU now (true too when none asks for it). */
bool cli_program_place_inputs(CliProgram *program, AppInputs *inputs);
/* Releases whatever was filled, after any of the above and whatever it returned. */
void cli_program_clear(CliProgram *program);

/* A run-time error of the program as `FILE: error: running the graph failed: ...` (CLI errors
 * about the inputs are left as they are). Takes *error over. */
void cli_program_locate_run_error(const CliProgram *program, GError **error);

#endif
