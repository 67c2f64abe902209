/* `jitscope print FILE [--format ir|dot|json]`: parse, verify and print one graph. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cli_program.h"
#include "graph_json.h"
#include "graphviz_dot.h"
#include "ir/text.h"
#include "json_out.h"

/* The output format --format and --json ask for together, or NULL with *error set. */
static const char *output_format(const char *format, bool json, GError **error) {
  const char *kind = json ? "json" : format ? format : "ir";
  if (json && format && strcmp(format, "json") != 0) {
    g_set_error(error, JITSCOPE_APP_ERROR, APP_ERROR_USAGE, "--json contradicts --format %s",
                format);
    return NULL;
  }
  if (strcmp(kind, "ir") != 0 && strcmp(kind, "dot") != 0 && strcmp(kind, "json") != 0) {
    g_set_error(error, JITSCOPE_APP_ERROR, APP_ERROR_USAGE,
                "unknown format '%s' (expected ir, dot or json)", kind);
    return NULL;
  }
  return kind;
}

static void print_graph(const IrGraph *graph, const char *kind) {
  if (strcmp(kind, "json") == 0) {
    json_out_print(app_graph_to_json(graph));
    return;
  }
  g_autofree char *text =
      strcmp(kind, "ir") == 0
          ? ir_graph_to_string(graph)
          : app_graphviz_dot(graph, &(AppDotOptions){.collapse = APP_DOT_EXPAND_ALL}, NULL);
  fputs(text, stdout);
}

int cmd_print_main(int argc, char **argv) {
  g_autofree char *format = NULL;
  bool json = false;
  CliProgram program;
  const CliOption options[] = {
      CLI_PROGRAM_CHOICE_OPTIONS(program),
      {"format", 'f', CLI_OPTION_STRING, &format, "ir|dot|json", "Output format (default ir)"},
      {"json", 0, CLI_OPTION_FLAG, &json, NULL, "Same as --format json"},
  };
  const CliCommand command = {
      .name = "print",
      .usage = "FILE [--format ir|dot|json]",
      .description =
          "Parses FILE (PyTorch's graph text, as print(fn.graph) writes it), verifies the graph\n"
          "and prints it without running it:\n"
          "  ir    the canonical text, as PyTorch prints it (source comments kept,\n"
          "        subgraphs as 'with prim::..._N = graph(...)' trailers)\n"
          "  dot   Graphviz DOT text: nodes labelled with their kind and output types,\n"
          "        constants written into their users' labels, blocks and subgraphs as\n"
          "        clusters; render it with e.g. 'dot -Tsvg'\n"
          "  json  {\"inputs\": [{\"name\", \"type\"}...], \"nodes\": [{\"kind\", \"origin\",\n"
          "        \"schema\", \"inputs\", \"outputs\", \"attributes\", \"blocks\", "
          "\"source\"}...],\n"
          "        \"outputs\": [...]}\n"
          "Errors go to stderr as 'jitscope: FILE:LINE:COL: error: ...' with exit status 2.",
      .options = options,
      .n_options = G_N_ELEMENTS(options),
      .min_positional = 1,
      .max_positional = 1,
  };

  GError *error = NULL;
  const char *kind = NULL;
  CliParseResult parsed = cli_program_parse(&program, &command, argc, argv, &error);
  program.as_written = true;
  if (parsed == CLI_PARSE_OK && (kind = output_format(format, json, &error)) &&
      cli_program_load(&program, NULL, NULL, &error))
    print_graph(program.graph, kind);
  cli_program_clear(&program);
  return cli_finish(CLI_EXIT_OK, error);
}
