/* `jitscope check FILE --input SPEC... [--json]`: see app/model/check.h. Exit 0 when everything
 * agrees, 1 otherwise. */
#include <stdio.h>

#include "check.h"
#include "cli.h"
#include "cli_program.h"
#include "json_out.h"

static JsonNode *report_to_json(const AppCheckReport *r) {
  JsonBuilder *b = json_builder_new();
  json_builder_begin_object(b);
  json_out_member_bool(b, "ok", r->ok);
  json_builder_set_member_name(b, "optimized_vs_unoptimized");
  json_builder_add_value(b, json_out_double(r->optimized_vs_unoptimized));
  json_builder_set_member_name(b, "gradient_vs_finite_differences");
  json_builder_add_value(b, json_out_double(r->gradient_vs_finite_diff));
  json_out_member_int(b, "finite_difference_elements", r->finite_diff_elements);
  json_builder_set_member_name(b, "stage_max_error");
  json_builder_add_value(b, json_out_double(r->stage_max_error));
  json_builder_set_member_name(b, "first_differing_stage");
  if (r->first_bad_stage)
    json_builder_add_string_value(b, r->first_bad_stage);
  else
    json_builder_add_null_value(b);
  json_out_member_string(b, "log", r->log->str);
  json_builder_end_object(b);
  return json_out_builder_finish(b);
}

int cmd_check_main(int argc, char **argv) {
  g_autoptr(GPtrArray) specs = NULL;
  guint64 seed = 0;
  bool json = false;
  CliProgram program;
  const CliOption options[] = {
      CLI_PROGRAM_CHOICE_OPTIONS(program),
      CLI_PROGRAM_OPTIONS(specs, seed),
      {"json", 0, CLI_OPTION_FLAG, &json, NULL, "Print one JSON document on stdout"},
  };
  const CliCommand command = {
      .name = "check",
      .usage = "FILE --input SPEC... [--seed N] [--json]",
      .description =
          "Checks the compiler on these inputs three ways:\n"
          "  1. optimized against unoptimized (fallback plan) outputs and gradients\n"
          "     (relative error per tensor max|a-b| / max(1, max|b|); float32 1e-4, float64 "
          "1e-9);\n"
          "  2. gradients against central finite differences in float64 (at most 256 elements\n"
          "     per input, evenly spread; tolerance 1e-5);\n"
          "  3. every recorded stage of every plan re-run on the inputs that plan saw, its\n"
          "     fusion groups through the fused backend that takes them (CUDA, generated C,\n"
          "     the CPU fused loop; the log says which), naming the first stage whose results\n"
          "     differ from the plan's first runnable stage.\n"
          "SPEC as for run (jitscope run --help).\n" CLI_PROGRAM_DEVICE_HELP
          "Exit status 0 when all agree, 1 otherwise (the numbers are printed either way).",
      .options = options,
      .n_options = G_N_ELEMENTS(options),
      .min_positional = 1,
      .max_positional = 1,
      .run_limits = true,
  };
  GError *error = NULL;
  int status = CLI_EXIT_OK;
  AppCheckReport *report = NULL;
  if (cli_program_open(&program, &command, argc, argv, &specs, &seed, &error) == CLI_PARSE_OK &&
      !(report = app_check_run(program.graph, program.inputs, NULL, NULL, &error)))
    cli_program_locate_run_error(&program, &error);
  if (report) {
    if (json) {
      json_out_print(report_to_json(report));
    } else {
      fputs(report->log->str, stdout);
      printf("optimized vs unoptimized: %.3g\n", report->optimized_vs_unoptimized);
      if (report->finite_diff_elements)
        printf("gradients vs finite differences: %.3g (%u of %u elements)\n",
               report->gradient_vs_finite_diff, report->finite_diff_elements,
               report->finite_diff_total);
      printf("first stage whose results differ: %s\n",
             report->first_bad_stage ? report->first_bad_stage : "none");
      printf("check %s\n", report->ok ? "passed" : "FAILED");
    }
    status = report->ok ? CLI_EXIT_OK : CLI_EXIT_FAILED;
  }
  app_check_report_free(report);
  cli_program_clear(&program);
  return cli_finish(status, error);
}
