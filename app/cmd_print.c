/* `jitscope print FILE [--format ir|dot|json]`: parse, verify and print one graph. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cli_args.h"
#include "graphviz_dot.h"
#include "graph_file.h"
#include "graph_json.h"
#include "ir/text.h"
#include "json_out.h"

int cmd_print_main(int argc, char **argv) {
  char *format = NULL;
  bool json = false;
  const CliOption options[] = {
      {"format", 'f', CLI_OPTION_STRING, &format, "ir|dot|json",
       "Output format (default ir)"},
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
          "        \"schema\", \"inputs\", \"outputs\", \"attributes\", \"blocks\", \"source\"}...],\n"
          "        \"outputs\": [...]}\n"
          "Errors go to stderr as 'jitscope: FILE:LINE:COL: error: ...' with exit status 2.",
      .options = options,
      .n_options = G_N_ELEMENTS(options),
      .min_positional = 1,
      .max_positional = 1,
  };

  GPtrArray *positional = g_ptr_array_new();
  GError *error = NULL;
  int status = CLI_EXIT_ERROR;
  IrGraph *graph = NULL;

  switch (cli_args_parse(&command, argc, argv, positional, &error)) {
  case CLI_PARSE_HELP:
    status = CLI_EXIT_OK;
    goto out;
  case CLI_PARSE_ERROR:
    goto fail;
  case CLI_PARSE_OK:
    break;
  }
  const char *kind = json ? "json" : format ? format : "ir";
  if (json && format && strcmp(format, "json") != 0) {
    g_set_error(&error, JITSCOPE_CLI_ERROR, CLI_ERROR_USAGE,
                "--json contradicts --format %s", format);
    goto fail;
  }
  if (strcmp(kind, "ir") != 0 && strcmp(kind, "dot") != 0 && strcmp(kind, "json") != 0) {
    g_set_error(&error, JITSCOPE_CLI_ERROR, CLI_ERROR_USAGE,
                "unknown format '%s' (expected ir, dot or json)", kind);
    goto fail;
  }
  graph = app_graph_file_load(g_ptr_array_index(positional, 0), &error);
  if (graph == NULL)
    goto fail;

  if (strcmp(kind, "ir") == 0) {
    char *text = ir_graph_to_string(graph);
    fputs(text, stdout);
    g_free(text);
  } else if (strcmp(kind, "dot") == 0) {
    char *text = app_graphviz_dot(graph, &(AppDotOptions){.collapse = APP_DOT_EXPAND_ALL}, NULL);
    fputs(text, stdout);
    g_free(text);
  } else {
    json_out_print(app_graph_to_json(graph));
  }
  status = CLI_EXIT_OK;
  goto out;

fail:
  cli_report_error(error);
  g_error_free(error);
out:
  if (graph)
    ir_graph_free(graph);
  g_free(format);
  g_ptr_array_unref(positional);
  return status;
}
