/* `jitscope kernels FILE --input SPEC... [--arch sm_XY] [--json]`: every fusion group's
 * generated CUDA source, compiled by nvrtc where it loads (no GPU needed). */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cli_program.h"
#include "cuda/cuda_compile.h"
#include "exec/kernel_report.h"
#include "json_out.h"
#include "program_run.h"

/* A copy of the inputs whose tensors say device=cuda (host memory tagged with the device):
 * enough to compile plans for a cuda spec, which only reads the device. */
static GArray *cuda_tagged_inputs(const AppInputs *inputs) {
  GArray *values = g_array_new(FALSE, FALSE, sizeof(RtValue));
  for (guint i = 0; i < inputs->values->len; i++) {
    RtValue v = g_array_index(inputs->values, RtValue, i);
    const InputSpec *spec = g_ptr_array_index(inputs->specs, i);
    if (v.tag == RT_TENSOR && v.u.tensor && spec->device == IR_DEVICE_CUDA) {
      RtTensor *copy = rt_tensor_clone(v.u.tensor);
      copy->storage->device = IR_DEVICE_CUDA;
      copy->requires_grad = v.u.tensor->requires_grad;
      v = rt_tensor(copy);
    } else {
      v = rt_value_ref(v);
    }
    g_array_append_val(values, v);
  }
  return values;
}

static void free_values(GArray *values) {
  if (values == NULL)
    return;
  for (guint i = 0; i < values->len; i++)
    rt_value_unref(g_array_index(values, RtValue, i));
  g_array_unref(values);
}

static JsonNode *report_json(GPtrArray *reports, const char *arch, GPtrArray *notes) {
  JsonBuilder *b = json_builder_new();
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "kernels");
  json_builder_begin_array(b);
  for (guint i = 0; i < reports->len; i++) {
    const CudaKernelReport *r = g_ptr_array_index(reports, i);
    json_builder_begin_object(b);
    json_out_member_string(b, "plan", r->plan);
    json_out_member_string(b, "group", r->group);
    json_out_member_string(b, "kernel", r->kernel);
    json_out_member_string(b, "source", r->source);
    json_out_member_string(b, "error", r->error);
    json_out_member_bool(b, "attempted", r->attempted);
    json_out_member_bool(b, "compiled", r->compiled);
    json_out_member_string(b, "arch", r->arch);
    json_out_member_string(b, "log", r->log);
    json_out_member_int(b, "ptx_bytes", (gint64)r->ptx_bytes);
    json_builder_set_member_name(b, "ms");
    json_builder_add_value(b, json_out_double(r->ms));
    json_builder_end_object(b);
  }
  json_builder_end_array(b);
  json_out_member_string(b, "arch", arch);
  g_autoptr(GString) cuda = g_string_new(NULL);
  cuda_status_describe(cuda, cuda_loader_get());
  json_out_member_string(b, "cuda", cuda->str);
  json_out_member_strings(b, "notes", notes);
  json_builder_end_object(b);
  return json_out_builder_finish(b);
}

static void report_text(GPtrArray *reports, FILE *out) {
  if (reports->len == 0)
    fprintf(out, "no fusion groups in any plan\n");
  for (guint i = 0; i < reports->len; i++) {
    const CudaKernelReport *r = g_ptr_array_index(reports, i);
    fprintf(out, "== %s: %s", r->plan, r->group);
    if (r->kernel)
      fprintf(out, ": kernel %s", r->kernel);
    fprintf(out, "\n");
    if (r->error) {
      fprintf(out, "-- no kernel: %s\n\n", r->error);
      continue;
    }
    fputs(r->source, out);
    if (r->attempted)
      fprintf(out, "-- nvrtc %s: %s, %zu bytes of PTX, %.1f ms\n", r->arch,
              r->compiled ? "compiled" : "FAILED", (size_t)r->ptx_bytes, r->ms);
    else
      fprintf(out, "-- not compiled%s%s\n", r->log[0] ? ": " : "", r->log);
    if (r->attempted && r->log[0])
      fprintf(out, "%s%s", r->log, g_str_has_suffix(r->log, "\n") ? "" : "\n");
    fprintf(out, "\n");
  }
}

int cmd_kernels_main(int argc, char **argv) {
  g_autoptr(GPtrArray) specs = NULL;
  guint64 seed = 0;
  bool json = false;
  g_autofree char *arch = NULL;
  CliProgram program;
  const CliOption options[] = {
      CLI_PROGRAM_CHOICE_OPTIONS(program),
      {"input", 'i', CLI_OPTION_STRINGS, &specs, "SPEC",
       "The graph's inputs in order (as for run)"},
      {"seed", 0, CLI_OPTION_UINT64, &seed, "N",
       "Seed for drawn inputs and random ops (default 0)"},
      {"arch", 0, CLI_OPTION_STRING, &arch, "sm_XY",
       "Compile for this arch (default: the device's, else nvrtc's lowest)"},
      {"json", 0, CLI_OPTION_FLAG, &json, NULL, "Print one JSON document on stdout"},
  };
  const CliCommand command = {
      .name = "kernels",
      .usage = "FILE --input SPEC... [--seed N] [--arch sm_XY] [--json]",
      .description =
          "Compiles the program's plans for the inputs' spec and prints, for every fusion group\n"
          "of every plan (forward, DifferentiableGraph bodies, backward plans), the CUDA source\n"
          "the fuser generates and, where nvrtc loads, the result of compiling it for the arch:\n"
          "success, nvrtc's log, PTX size and compile time. No GPU is needed: plans for\n"
          "device=cuda inputs are compiled without running them, and the backward plans come\n"
          "from a run on CPU copies of the inputs. Kernels are shown for contiguous inputs of\n"
          "the map size (the layout a run with other strides or broadcasts uses may merge fewer\n"
          "dims).\n"
          "\n"
          "With --json: {\"kernels\": [{\"plan\", \"group\", \"kernel\", \"source\", \"error\",\n"
          "\"attempted\", \"compiled\", \"arch\", \"log\", \"ptx_bytes\", \"ms\"}], \"arch\",\n"
          "\"cuda\", \"notes\"}.\n"
          "Exit status 1 when a kernel could not be generated or nvrtc rejected one.",
      .options = options,
      .n_options = G_N_ELEMENTS(options),
      .min_positional = 1,
      .max_positional = 1,
      .run_limits = true,
  };
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func(g_free);
  GError *error = NULL;
  int status = CLI_EXIT_OK;
  ExecSession *session = NULL;
  AppProgramRun *run = NULL;
  GArray *tagged = NULL;
  GPtrArray *reports = NULL;
  g_autofree char *resolved = NULL;

  if (cli_program_parse(&program, &command, argc, argv, &error) != CLI_PARSE_OK)
    goto out;
  program.inputs_stay_on_host = true;
  if (!cli_program_load(&program, &specs, &seed, &error))
    goto out;
  session = exec_session_new();
  ExecExecutor *executor = exec_executor_new(session, program.graph, "main", EXEC_PLAN_FORWARD);
  bool cuda = app_inputs_want_cuda(program.inputs);
  guint first_cpu_plan = 0;
  if (cuda) {
    tagged = cuda_tagged_inputs(program.inputs);
    if (!exec_executor_plan_for(executor, (const RtValue *)tagged->data, tagged->len, &error))
      goto out;
    first_cpu_plan = session->plans->len;
    if (app_inputs_require_grad(program.inputs))
      g_ptr_array_add(notes, g_strdup("the forward plan is compiled for the device=cuda spec "
                                      "without running it; the backward plans come from a run "
                                      "on CPU copies of the inputs"));
  }
  if (!cuda || app_inputs_require_grad(program.inputs)) {
    if (!(run = app_program_run(executor, program.inputs, NULL, 0, &error)))
      goto out;
  }
  const CudaStatus *cs = cuda_loader_get();
  if (!cs->nvrtc.loaded)
    g_ptr_array_add(notes, g_strdup_printf("nvrtc did not load (%s): sources are shown "
                                           "without compiling them",
                                           cs->nvrtc.error));
  else if (!(resolved = cuda_compile_resolve_arch(arch, &error)))
    goto out;
  if (!(reports = exec_session_kernel_reports(session, true, resolved, &error)))
    goto out;
  /* With cuda inputs, the CPU run's own forward plans are not what was asked for. */
  for (guint i = reports->len; cuda && i > 0; i--) {
    const CudaKernelReport *r = g_ptr_array_index(reports, i - 1);
    const ExecPlan *plan = g_ptr_array_index(session->plans, r->plan_index);
    if (r->plan_index >= first_cpu_plan && plan->kind == EXEC_PLAN_FORWARD)
      g_ptr_array_remove_index(reports, i - 1);
  }
  if (json) {
    json_out_print(report_json(reports, resolved, notes));
  } else {
    for (guint i = 0; i < notes->len; i++)
      cli_note("%s", (const char *)g_ptr_array_index(notes, i));
    report_text(reports, stdout);
  }
  for (guint i = 0; i < reports->len; i++) {
    const CudaKernelReport *r = g_ptr_array_index(reports, i);
    if (r->error || (r->attempted && !r->compiled))
      status = CLI_EXIT_FAILED;
  }

out:
  if (reports)
    g_ptr_array_unref(reports);
  app_program_run_free(run);
  exec_session_free(session);
  free_values(tagged);
  cli_program_clear(&program);
  return cli_finish(status, error);
}
