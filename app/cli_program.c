/* Shared parsing, loading and binding of the program-running subcommands. */
#include "cli_program.h"

#include "cli.h"
#include "graph_file.h"

CliParseResult cli_program_open(CliProgram *program, const CliCommand *command, int argc,
                                char **argv, GPtrArray *const *specs, const guint64 *seed,
                                GError **error) {
  *program = (CliProgram){.positional = g_ptr_array_new()};
  CliParseResult parsed = cli_args_parse(command, argc, argv, program->positional, error);
  if (parsed != CLI_PARSE_OK)
    return parsed;
  program->path = g_ptr_array_index(program->positional, 0);
  if (!(program->graph = app_graph_file_load(program->path, error)))
    return CLI_PARSE_ERROR;
  if (!specs)
    return CLI_PARSE_OK;
  GPtrArray *given = *specs;
  program->inputs = app_inputs_bind(program->graph, given ? (char *const *)given->pdata : NULL,
                                    given ? given->len : 0, seed ? *seed : 0, error);
  return program->inputs ? CLI_PARSE_OK : CLI_PARSE_ERROR;
}

void cli_program_clear(CliProgram *program) {
  app_inputs_free(program->inputs);
  if (program->graph)
    ir_graph_free(program->graph);
  if (program->positional)
    g_ptr_array_unref(program->positional);
  *program = (CliProgram){0};
}

void cli_program_locate_run_error(const CliProgram *program, GError **error) {
  if (!*error || (*error)->domain == JITSCOPE_CLI_ERROR)
    return;
  GError *located = g_error_new(JITSCOPE_CLI_ERROR, CLI_ERROR_LOCATED,
                                "%s: error: running the graph failed: %s", program->path,
                                (*error)->message);
  g_error_free(*error);
  *error = located;
}

int cli_program_finish(int status, GError *error) {
  if (!error)
    return status;
  cli_report_error(error);
  g_error_free(error);
  return CLI_EXIT_ERROR;
}
