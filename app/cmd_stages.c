/* `jitscope stages FILE --input SPEC... [--json]`: every stage of every plan that one forward
 * and backward run compiled (forward, DifferentiableGraph subgraphs, backward plans). */
#include <stdio.h>

#include "cli.h"
#include "cli_args.h"
#include "graph_file.h"
#include "json_out.h"
#include "plan_report.h"
#include "program_run.h"

int cmd_stages_main(int argc, char **argv) {
  GPtrArray *specs = NULL;
  guint64 seed = 0;
  bool json = false, no_optimize = false, no_fuse = false;
  const CliOption options[] = {
      {"input", 'i', CLI_OPTION_STRINGS, &specs, "SPEC", "The graph's inputs in order (as for run)"},
      {"seed", 0, CLI_OPTION_UINT64, &seed, "N", "Seed for drawn inputs (default 0)"},
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
          "\n"
          "With --json: {\"plans\": [{\"kind\": \"forward\"|\"backward\", \"graph\": NAME,\n"
          "\"spec\": TEXT, \"stages\": [{\"name\", \"group\", \"changed\", \"ms\", \"ir\"}]}]},\n"
          "where every stage carries its whole graph.",
      .options = options,
      .n_options = G_N_ELEMENTS(options),
      .min_positional = 1,
      .max_positional = 1,
  };
  GPtrArray *positional = g_ptr_array_new();
  GError *error = NULL;
  int status = CLI_EXIT_ERROR;
  IrGraph *graph = NULL;
  AppInputs *inputs = NULL;
  ExecSession *session = NULL;
  AppProgramRun *run = NULL;

  switch (cli_args_parse(&command, argc, argv, positional, &error)) {
  case CLI_PARSE_HELP:
    status = CLI_EXIT_OK;
    goto out;
  case CLI_PARSE_ERROR:
    goto fail;
  case CLI_PARSE_OK:
    break;
  }
  const char *path = g_ptr_array_index(positional, 0);
  if (!(graph = app_graph_file_load(path, &error)))
    goto fail;
  inputs = app_inputs_bind(graph, specs ? (char *const *)specs->pdata : NULL,
                           specs ? specs->len : 0, seed, &error);
  if (!inputs)
    goto fail;
  session = exec_session_new();
  session->optimize = !no_optimize;
  session->fuse = !no_fuse;
  ExecExecutor *executor = exec_executor_new(session, graph, "main", EXEC_PLAN_FORWARD);
  if (!(run = app_program_run(executor, inputs, NULL, 0, &error)))
    goto fail;

  if (json) {
    JsonBuilder *b = json_builder_new();
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "plans");
    json_builder_begin_array(b);
    for (guint p = 0; p < session->plans->len; p++)
      json_builder_add_value(b, app_plan_to_json(g_ptr_array_index(session->plans, p)));
    json_builder_end_array(b);
    json_builder_end_object(b);
    json_out_print(json_builder_get_root(b));
    g_object_unref(b);
  } else {
    for (guint p = 0; p < session->plans->len; p++)
      app_plan_print_text(g_ptr_array_index(session->plans, p), stdout);
  }
  status = CLI_EXIT_OK;
  goto out;

fail:
  cli_report_error(error);
  g_error_free(error);
out:
  app_program_run_free(run);
  exec_session_free(session);
  app_inputs_free(inputs);
  if (graph)
    ir_graph_free(graph);
  if (specs)
    g_ptr_array_unref(specs);
  g_ptr_array_unref(positional);
  return status;
}
