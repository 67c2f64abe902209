/* Graph files for the command line (contract in graph_file.h). */
#include "graph_file.h"

#include "cli.h"
#include "ir/text.h"
#include "ir/verify.h"
#include "script/script.h"

IrGraph *app_graph_file_load(const char *path, const char *function, GError **error) {
  char *text = NULL;
  gsize length = 0;
  GError *local = NULL;
  if (!g_file_get_contents(path, &text, &length, &local)) {
    g_set_error(error, JITSCOPE_CLI_ERROR, CLI_ERROR_INPUT, "cannot read %s: %s", path,
                local->message);
    g_error_free(local);
    return NULL;
  }
  IrGraph *graph = app_program_parse(text, length, path, function, error);
  g_free(text);
  if (graph == NULL)
    return NULL;
  if (!ir_graph_verify(graph, &local)) {
    g_set_error(error, JITSCOPE_CLI_ERROR, CLI_ERROR_LOCATED, "%s: error: invalid graph: %s",
                path, local->message);
    g_error_free(local);
    ir_graph_free(graph);
    return NULL;
  }
  return graph;
}

IrGraph *app_program_parse(const char *text, gsize length, const char *name,
                           const char *function, GError **error) {
  return script_is_source_file(name) ? script_compile(text, length, name, function, error)
                                     : ir_graph_parse(text, length, name, error);
}
