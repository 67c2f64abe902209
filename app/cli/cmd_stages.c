/* `jitscope stages FILE --input SPEC... [--json]`: every stage of every plan that one forward
 * and backward run compiled (forward, DifferentiableGraph subgraphs, backward plans). */
#include <stdio.h>

#include "cli.h"
#include "cli_program.h"
#include "json_out.h"
#include "plan_report.h"
#include "program_run.h"

static void print_plans(const ExecSession *session, bool json) {
  if (!json) {
    for (guint p = 0; p < session->plans->len; p++)
      app_plan_print_text(g_ptr_array_index(session->plans, p), stdout);
    return;
  }
  JsonBuilder *b = json_builder_new();
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "plans");
  json_builder_begin_array(b);
  for (guint p = 0; p < session->plans->len; p++)
    json_builder_add_value(b, app_plan_to_json(g_ptr_array_index(session->plans, p)));
  json_builder_end_array(b);
  json_builder_end_object(b);
  json_out_print(json_out_builder_finish(b));
}

int cmd_stages_main(int argc, char **argv) {
  g_autoptr(GPtrArray) specs = NULL;
  guint64 seed = 0;
  bool json = false, no_optimize = false, no_fuse = false;
  CliProgram program;
  const CliOption options[] = {
      CLI_PROGRAM_CHOICE_OPTIONS(program),
      CLI_PROGRAM_OPTIONS(specs, seed),
      {"no-optimize", 0, CLI_OPTION_FLAG, &no_optimize, NULL,
       "Compile the fallback plan: specialization and required passes only"},
      {"no-fuse", 0, CLI_OPTION_FLAG, &no_fuse, NULL, "Turn the fuser off"},
      {"json", 0, CLI_OPTION_FLAG, &json, NULL, "Print one JSON document on stdout"},
  };
  const CliCommand command = {
      .name = "stages",
      .usage = "FILE --input SPEC... [--seed N] [--no-optimize] [--no-fuse] [--json]",
      .description =
          "Runs the program once forward and, when an input requires grad, backward, through\n"
          "one executor, and prints every plan that run compiled in compile order: the\n"
          "forward plan, then the backward plans of its DifferentiableGraphs. For each plan,\n"
          "every stage of the pipeline with its group, whether it changed the graph, its time\n"
          "and, for changed stages, the whole graph after it (subgraphs as `with` trailers).\n"
          "SPEC as for run (jitscope run --help).\n" CLI_PROGRAM_DEVICE_HELP "\n"
          "With --json: {\"plans\": [{\"kind\": \"forward\"|\"backward\", \"graph\": NAME,\n"
          "\"spec\": TEXT, \"stages\": [{\"name\", \"group\", \"changed\", \"ms\", \"ir\"}]}]},\n"
          "where every stage carries its whole graph.",
      .options = options,
      .n_options = G_N_ELEMENTS(options),
      .min_positional = 1,
      .max_positional = 1,
      .run_limits = true,
  };
  GError *error = NULL;
  int status = CLI_EXIT_OK;
  ExecSession *session = NULL;
  AppProgramRun *run = NULL;
  if (cli_program_open(&program, &command, argc, argv, &specs, &seed, &error) == CLI_PARSE_OK) {
    session = exec_session_new();
    session->optimize = !no_optimize;
    session->fuse = !no_fuse;
    ExecExecutor *executor = exec_executor_new(session, program.graph, "main", EXEC_PLAN_FORWARD);
    run = app_program_run(executor, program.inputs, NULL, 0, &error);
    cli_program_locate_run_error(&program, &error);
    if (run)
      print_plans(session, json);
  }
  app_program_run_free(run);
  exec_session_free(session);
  cli_program_clear(&program);
  return cli_finish(status, error);
}
