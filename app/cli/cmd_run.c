/* `jitscope run FILE --input SPEC... [--seed N] [--json]`: one forward run through the graph
 * executor, then backward when an input requires grad. */
#include <stdio.h>

#include "cli.h"
#include "cli_program.h"
#include "json_out.h"
#include "program_run.h"
#include "run_result.h"
#include "runtime/device.h"
#include "runtime/npy.h"

/* What ran where, for the JSON document: {"inputs_on": "cuda"|"cpu", "why_cpu": TEXT|null,
 * "cuda_runtime": bool, "host_round_trips": [TEXT...]}. */
static void add_device_member(JsonNode *root, bool wanted, const char *why) {
  JsonObject *d = json_object_new();
  json_object_set_string_member(d, "inputs_on", wanted && !why ? "cuda" : "cpu");
  if (why)
    json_object_set_string_member(d, "why_cpu", why);
  else
    json_object_set_null_member(d, "why_cpu");
  json_object_set_boolean_member(d, "cuda_runtime", rt_device_backend(IR_DEVICE_CUDA) != NULL);
  JsonArray *trips = json_array_new();
  g_auto(GStrv) notes = rt_device_notes();
  for (guint i = 0; notes[i]; i++)
    json_array_add_string_element(trips, notes[i]);
  json_object_set_array_member(d, "host_round_trips", trips);
  json_object_set_object_member(json_node_get_object(root), "device", d);
}

int cmd_run_main(int argc, char **argv) {
  g_autoptr(GPtrArray) specs = NULL;
  guint64 seed = 0;
  bool json = false, no_optimize = false, no_fuse = false;
  g_autoptr(GPtrArray) grad_output_files = NULL;
  CliProgram program;
  const CliOption options[] = {
      CLI_PROGRAM_CHOICE_OPTIONS(program),
      CLI_PROGRAM_OPTIONS(specs, seed),
      {"grad-output", 0, CLI_OPTION_STRINGS, &grad_output_files, "FILE.npy",
       "Gradient of each output (flattened order) for backward, instead of ones"},
      {"no-optimize", 0, CLI_OPTION_FLAG, &no_optimize, NULL,
       "Use the fallback plan: specialization and required passes only"},
      {"no-fuse", 0, CLI_OPTION_FLAG, &no_fuse, NULL, "Turn the fuser off"},
      {"json", 0, CLI_OPTION_FLAG, &json, NULL, "Print one JSON document on stdout"},
  };
  const CliCommand command = {
      .name = "run",
      .usage = "FILE --input SPEC... [--seed N] [--grad-output FILE.npy...] [--no-optimize] "
               "[--no-fuse] [--json]",
      .description =
          "Parses and verifies the graph in FILE, makes its inputs from the SPECs and runs it\n"
          "once through the graph executor (the optimized plan for the inputs' spec); prints\n"
          "the inputs and the outputs (tuple outputs flattened in order; tensors abbreviated\n"
          "past 20 values in the text form). When an input requires grad, runs backward too:\n"
          "the gradient of the sum of all outputs (or of --grad-output, one file per output),\n"
          "printed per input (null for inputs that do not require grad).\n"
          "\n"
          "SPEC is one of:\n"
          "  'Float(5, 1, requires_grad=1)'  a tensor type (Float, Double, Half, Long, Bool;\n"
          "                                  device=cuda allowed) whose values are drawn:\n"
          "                                  floats Normal(0, 1), Long round(3 x), Bool x > 0\n"
          "  x.npy[:requires_grad=1,device=cuda]  a NumPy file, relative to the current folder\n"
          "  3, 2.5, true, false, none       a scalar or None\n"
          "Each input must fit the graph's declared input type (dtype, rank, known sizes,\n"
          "device; an int is accepted for a float).\n" CLI_PROGRAM_DEVICE_HELP "\n"
          "With --json: {\"outputs\": [...], \"grads\": [TENSOR or null per input], \"inputs\": "
          "[SPEC...],\n"
          "\"seed\": N}; a tensor is {\"dtype\", \"shape\", \"data\"} with row-major data,\n"
          "floats written with 17 significant digits, NaN and infinities as the strings\n"
          "\"nan\", \"inf\" and \"-inf\".\n"
          "Errors go to stderr ('jitscope: error: --input N: ...') with exit status 2.",
      .options = options,
      .n_options = G_N_ELEMENTS(options),
      .min_positional = 1,
      .max_positional = 1,
      .run_limits = true,
  };

  GError *error = NULL;
  ExecSession *session = NULL;
  AppProgramRun *run = NULL;
  GPtrArray *grad_outputs = g_ptr_array_new_with_free_func((GDestroyNotify)rt_tensor_unref);
  if (cli_program_open(&program, &command, argc, argv, &specs, &seed, &error) != CLI_PARSE_OK)
    goto out;
  for (guint i = 0; grad_output_files && i < grad_output_files->len; i++) {
    g_autoptr(GError) load_error = NULL;
    RtTensor *g = rt_npy_load(g_ptr_array_index(grad_output_files, i), &load_error);
    if (!g) {
      error = g_error_new(JITSCOPE_APP_ERROR, APP_ERROR_INPUT, "--grad-output %u: %s", i + 1,
                          load_error->message);
      goto out;
    }
    g_ptr_array_add(grad_outputs, g);
  }

  session = exec_session_new();
  session->optimize = !no_optimize;
  session->fuse = !no_fuse;
  ExecExecutor *executor = exec_executor_new(session, program.graph, "main", EXEC_PLAN_FORWARD);
  run = app_program_run(executor, program.inputs,
                        grad_output_files ? (RtTensor **)grad_outputs->pdata : NULL,
                        grad_outputs->len, &error);
  if (!run) {
    cli_program_locate_run_error(&program, &error);
    goto out;
  }
  if (json) {
    JsonNode *root = app_run_result_to_json(run->result, program.inputs);
    add_device_member(root, app_inputs_want_cuda(program.inputs), program.why_cpu);
    json_out_print(root);
  } else {
    app_run_result_print_text(run->result, program.inputs, stdout);
    g_auto(GStrv) notes = rt_device_notes();
    for (guint i = 0; notes[i]; i++)
      cli_note("%s", notes[i]);
  }

out:
  app_program_run_free(run);
  g_ptr_array_free(grad_outputs, TRUE);
  exec_session_free(session);
  cli_program_clear(&program);
  return cli_finish(CLI_EXIT_OK, error);
}
