/* `jitscope export FILE --input SPEC... -o DIR [--spec 'SPEC; ...'...] [--seed N] [--force]
 * [--json]`: writes a bug-report bundle (app/bundle/bundle_write.h). */
#include <stdio.h>

#include "bundle_write.h"
#include "cli.h"
#include "cli_args.h"
#include "cli_program.h"
#include "graph_file.h"
#include "ir/text.h"
#include "json_out.h"
#include "passes/module_lowering.h"
#include "runtime/file_read.h"
#include "script/script.h"
#include "spec_header.h"

int cmd_export_main(int argc, char **argv) {
  g_autoptr(GPtrArray) specs = NULL;
  g_autoptr(GPtrArray) groups = NULL;
  guint64 seed = 0;
  g_autofree char *out_dir = NULL;
  g_autofree char *function = NULL;
  bool force = false, json = false;
  guint64 graph_number = 0;
  const CliOption options[] = {
      {"graph", 0, CLI_OPTION_UINT64, &graph_number, "N",
       "Which graph of FILE, counting from 0, when it holds several (default 0); the bundle's "
       "program.ir is that graph"},
      {"input", 'i', CLI_OPTION_STRINGS, &specs, "SPEC",
       "The graph's inputs in order (as for run)"},
      {"output", 'o', CLI_OPTION_STRING, &out_dir, "DIR", "The bundle folder to write"},
      {"spec", 's', CLI_OPTION_STRINGS, &groups, "'SPEC; SPEC; ...'",
       "A further call's inputs, separated by ';' (as for plans; repeat for each call)"},
      {"seed", 0, CLI_OPTION_UINT64, &seed, "N",
       "Seed for drawn inputs and random ops (default 0)"},
      {"force", 'f', CLI_OPTION_FLAG, &force, NULL,
       "Replace DIR (and everything in it) when it is not empty"},
      {"json", 0, CLI_OPTION_FLAG, &json, NULL, "Print one JSON document on stdout"},
      {"function", 0, CLI_OPTION_STRING, &function, "NAME",
       "For a .py FILE: the def to export (default the first); the bundle holds its graph"},
  };
  const CliCommand command = {
      .name = "export",
      .usage = "FILE --input SPEC... -o DIR [--spec 'SPEC; ...'...] [--seed N] [--force] [--json]",
      .description =
          "Runs the program on the --input call, then on every --spec call, through one\n"
          "executor (forward, and backward when an input requires grad), checks it as `check`\n"
          "does, and writes everything into DIR as a bug-report bundle:\n"
          "  REPORT.md      the program, inputs, environment, plans and stages, final graphs,\n"
          "                 results and the check, on one page\n"
          "  manifest.json  versions, inputs, seed, every file with its SHA-256\n"
          "  program.ir, inputs/inN.npy (drawn inputs too), outputs/outN.npy, grads/gradN.npy\n"
          "  plans/NN-GRAPH/MM-STAGE.ir for every stage; .dot for changed stages and the last,\n"
          "                 .svg when Graphviz's dot is on PATH\n"
          "  kernels/*.cu   generated CUDA sources of fusion groups\n"
          "Without --input and --spec: the `# jitscope: --spec` lines of FILE's header, the\n"
          "first as the --input call.\n"
          "SPEC as for run (jitscope run --help).\n" CLI_PROGRAM_DEVICE_HELP
          "DIR must be absent or empty unless --force. The bundle is written into a temporary\n"
          "folder next to DIR and renamed at the end: a failed export leaves nothing behind.\n"
          "`jitscope replay DIR` runs it again.",
      .options = options,
      .n_options = G_N_ELEMENTS(options),
      .min_positional = 1,
      .max_positional = 1,
      .run_limits = true,
  };
  const char *path = NULL;
  GError *error = NULL;
  g_autofree char *text = NULL;
  AppBundleSummary *summary = NULL;

  if (cli_args_parse_one(&command, argc, argv, &path, &error) != CLI_PARSE_OK)
    goto out;
  if (out_dir == NULL || *out_dir == '\0') {
    error = g_error_new(JITSCOPE_APP_ERROR, APP_ERROR_USAGE, "export needs -o DIR");
    goto out;
  }
  GError *local = NULL;
  gsize length = 0;
  if (!rt_file_read_regular(path, RT_FILE_READ_FOLLOW_SYMLINKS, &text, &length, &local)) {
    error = g_error_new(JITSCOPE_APP_ERROR, APP_ERROR_INPUT, "cannot read %s", local->message);
    g_error_free(local);
    goto out;
  }
  if ((!specs || specs->len == 0) && (!groups || groups->len == 0)) {
    /* Neither: the header's first spec line is the --input call, the others --spec calls. */
    GPtrArray *lines = app_spec_header_read(text, -1, path, &error);
    if (!lines)
      goto out;
    if (lines->len > 0) {
      g_clear_pointer(&specs, g_ptr_array_unref);
      specs = app_spec_group_split(g_ptr_array_index(lines, 0));
      g_ptr_array_remove_index(lines, 0);
    }
    g_clear_pointer(&groups, g_ptr_array_unref);
    groups = lines;
  }
  if (graph_number > 0 || function != NULL || script_is_source_file(path)) {
    /* The bundle's program.ir is the chosen graph (compiled, for script source), replayable
     * as is: calls of the file's other defs are inlined, since graph text does not carry
     * their definitions. */
    const AppProgramChoice choice = {.index = graph_number, .function = function};
    IrGraph *chosen = app_graph_file_load(path, choice, NULL, &error);
    if (chosen == NULL)
      goto out;
    if (chosen->functions)
      pass_inline_calls(chosen, NULL);
    g_free(text);
    text = ir_graph_to_string(chosen);
    ir_graph_free(chosen);
  }
  if (specs)
    g_ptr_array_add(specs, NULL);
  if (groups)
    g_ptr_array_add(groups, NULL);
  const AppBundleRequest request = {
      .program_name = path,
      .program_text = text,
      .inputs = specs ? (char **)specs->pdata : NULL,
      .spec_groups = groups ? (char **)groups->pdata : NULL,
      .seed = seed,
      .force = force,
  };
  if (!(summary = app_bundle_export(&request, out_dir, &error)))
    goto out;
  /* On stderr with --json too, as every command that runs the program says its notes. */
  for (guint i = 0; i < summary->notes->len; i++)
    cli_note("%s", (const char *)g_ptr_array_index(summary->notes, i));
  if (json) {
    JsonBuilder *b = json_builder_new();
    json_builder_begin_object(b);
    json_out_member_string(b, "dir", out_dir);
    json_out_member_int(b, "files", summary->files);
    json_out_member_int(b, "plans", summary->plans);
    json_out_member_int(b, "stages", summary->stages);
    json_out_member_int(b, "pictures", summary->pictures);
    json_out_member_int(b, "kernels", summary->kernels);
    json_out_member_bool(b, "check_ok", summary->check_ok);
    json_out_member_strings(b, "notes", summary->notes);
    json_builder_end_object(b);
    json_out_print(json_out_builder_finish(b));
  } else {
    printf("wrote %s: %u files, %u plan%s, %u stages, %u picture%s, %u kernel%s; check %s\n",
           out_dir, summary->files, summary->plans, summary->plans == 1 ? "" : "s", summary->stages,
           summary->pictures, summary->pictures == 1 ? "" : "s", summary->kernels,
           summary->kernels == 1 ? "" : "s",
           summary->check_ok ? "passed" : "FAILED (see REPORT.md)");
  }

out:
  app_bundle_summary_free(summary);
  return cli_finish(CLI_EXIT_OK, error);
}
