/* Shared parsing, loading and binding of the program-running subcommands. */
#include "cli_program.h"

#include <string.h>

#include "cli.h"
#include "graph_file.h"

CliParseResult cli_program_parse(CliProgram *program, const CliCommand *command, int argc,
                                 char **argv, GError **error) {
  *program = (CliProgram){0};
  /* --function is every program command's option: taken out here, not in each table. */
  g_autoptr(GPtrArray) rest = g_ptr_array_new();
  for (int i = 0; i < argc; i++) {
    if (i > 0 && strcmp(argv[i], "--function") == 0 && i + 1 < argc) {
      program->function = argv[++i];
    } else if (i > 0 && g_str_has_prefix(argv[i], "--function=")) {
      program->function = argv[i] + strlen("--function=");
    } else {
      g_ptr_array_add(rest, argv[i]);
    }
  }
  return cli_args_parse_one(command, (int)rest->len, (char **)rest->pdata, &program->path,
                            error);
}

bool cli_program_load(CliProgram *program, GPtrArray *const *specs, const guint64 *seed,
                      GError **error) {
  if (!(program->graph = app_graph_file_load(program->path, program->function, error)))
    return false;
  if (!specs)
    return true;
  GPtrArray *given = *specs;
  program->inputs = app_inputs_bind(program->graph, given ? (char *const *)given->pdata : NULL,
                                    given ? given->len : 0, seed ? *seed : 0, error);
  if (program->inputs && !program->inputs_stay_on_host)
    cli_program_place_inputs(program, program->inputs);
  return program->inputs != NULL;
}

bool cli_program_place_inputs(CliProgram *program, AppInputs *inputs) {
  if (!program->notes)
    program->notes = g_ptr_array_new_with_free_func(g_free);
  guint said = program->notes->len;
  char *why = NULL;
  bool on_device = app_inputs_place(inputs, program->notes, &why);
  for (guint i = said; i < program->notes->len; i++)
    cli_note("%s", (const char *)g_ptr_array_index(program->notes, i));
  if (why && !program->why_cpu)
    program->why_cpu = why;
  else
    g_free(why);
  return on_device;
}

CliParseResult cli_program_open(CliProgram *program, const CliCommand *command, int argc,
                                char **argv, GPtrArray *const *specs, const guint64 *seed,
                                GError **error) {
  CliParseResult parsed = cli_program_parse(program, command, argc, argv, error);
  if (parsed != CLI_PARSE_OK)
    return parsed;
  return cli_program_load(program, specs, seed, error) ? CLI_PARSE_OK : CLI_PARSE_ERROR;
}

void cli_program_clear(CliProgram *program) {
  app_inputs_free(program->inputs);
  g_free(program->why_cpu);
  if (program->notes)
    g_ptr_array_unref(program->notes);
  if (program->graph)
    ir_graph_free(program->graph);
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
