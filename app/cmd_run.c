/* `jitscope run FILE --input SPEC... [--seed N] [--json]`: one forward run through the
 * interpreter. */
#include <stdio.h>

#include "cli.h"
#include "cli_args.h"
#include "graph_file.h"
#include "graph_inputs.h"
#include "json_out.h"
#include "run_result.h"
#include "runtime/interpreter.h"

int cmd_run_main(int argc, char **argv) {
  GPtrArray *specs = NULL;
  guint64 seed = 0;
  bool json = false;
  const CliOption options[] = {
      {"input", 'i', CLI_OPTION_STRINGS, &specs, "SPEC",
       "The graph's inputs in order; repeat --input or give several values after one (they "
       "run up to the next --option, so put FILE first)"},
      {"seed", 0, CLI_OPTION_UINT64, &seed, "N",
       "Seed for drawn inputs (default 0); input K uses generator seed N + K"},
      {"json", 0, CLI_OPTION_FLAG, &json, NULL, "Print one JSON document on stdout"},
  };
  const CliCommand command = {
      .name = "run",
      .usage = "FILE --input SPEC... [--seed N] [--json]",
      .description =
          "Parses and verifies the graph in FILE, makes its inputs from the SPECs and runs it\n"
          "once through the interpreter; prints the inputs and the outputs (tuple outputs\n"
          "flattened in order; tensors abbreviated past 20 values in the text form).\n"
          "Backward is not run by this command yet: every gradient is reported as null.\n"
          "\n"
          "SPEC is one of:\n"
          "  'Float(5, 1, requires_grad=1)'  a tensor type (Float, Double, Half, Long, Bool;\n"
          "                                  device=cuda allowed) whose values are drawn:\n"
          "                                  floats Normal(0, 1), Long round(3 x), Bool x > 0\n"
          "  x.npy[:requires_grad=1,device=cuda]  a NumPy file, relative to the current folder\n"
          "  3, 2.5, true, false, none       a scalar or None\n"
          "Each input must fit the graph's declared input type (dtype, rank, known sizes,\n"
          "device; an int is accepted for a float).\n"
          "\n"
          "With --json: {\"outputs\": [...], \"grads\": [null per input], \"inputs\": [SPEC...],\n"
          "\"seed\": N}; a tensor is {\"dtype\", \"shape\", \"data\"} with row-major data,\n"
          "floats written with 17 significant digits, NaN and infinities as the strings\n"
          "\"nan\", \"inf\" and \"-inf\".\n"
          "Errors go to stderr ('jitscope: error: --input N: ...') with exit status 2.",
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
  RtValue *outputs = NULL;
  guint n_outputs = 0;

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
  graph = app_graph_file_load(path, &error);
  if (graph == NULL)
    goto fail;
  inputs = app_inputs_bind(graph, specs ? (char *const *)specs->pdata : NULL,
                           specs ? specs->len : 0, seed, &error);
  if (inputs == NULL)
    goto fail;
  if (app_inputs_want_cuda(inputs))
    cli_note("inputs with device=cuda are kept in CPU memory and computed on the CPU by "
             "'run'");

  if (!rt_interpret(graph, NULL, (RtValue *)inputs->values->data, inputs->values->len, &outputs,
                    &n_outputs, &error)) {
    GError *wrapped = g_error_new(JITSCOPE_CLI_ERROR, CLI_ERROR_LOCATED,
                                  "%s: error: running the graph failed: %s", path,
                                  error->message);
    g_error_free(error);
    error = wrapped;
    goto fail;
  }

  AppRunResult *result = app_run_result_new(outputs, n_outputs, inputs->values->len);
  if (json)
    json_out_print(app_run_result_to_json(result, inputs));
  else
    app_run_result_print_text(result, inputs, stdout);
  app_run_result_free(result);
  status = CLI_EXIT_OK;
  goto out;

fail:
  cli_report_error(error);
  g_error_free(error);
out:
  for (guint i = 0; i < n_outputs; i++)
    rt_value_unref(outputs[i]);
  g_free(outputs);
  app_inputs_free(inputs);
  if (graph)
    ir_graph_free(graph);
  if (specs)
    g_ptr_array_unref(specs);
  g_ptr_array_unref(positional);
  return status;
}
