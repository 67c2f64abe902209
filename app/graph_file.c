/* Graph files for the command line (contract in graph_file.h). */
#include "graph_file.h"

#include "cli.h"
#include "ir/text.h"
#include "ir/verify.h"
#include "runtime/file_read.h"

IrGraph *app_graph_file_load(const char *path, GError **error) {
  char *text = NULL;
  gsize length = 0;
  GError *local = NULL;
  if (!rt_file_read_regular(path, RT_FILE_READ_FOLLOW_SYMLINKS, &text, &length, &local)) {
    g_set_error(error, JITSCOPE_CLI_ERROR, CLI_ERROR_INPUT, "cannot read %s", local->message);
    g_error_free(local);
    return NULL;
  }
  IrGraph *graph = ir_graph_parse(text, length, path, error);
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
