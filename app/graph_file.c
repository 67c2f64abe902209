/* Graph files for the command line (contract in graph_file.h). */
#include "graph_file.h"

#include "cli.h"
#include "ir/text.h"
#include "ir/verify.h"
#include "runtime/file_read.h"

IrGraph *app_graph_file_load(const char *path, guint64 index, GPtrArray *warnings,
                             GError **error) {
  char *text = NULL;
  gsize length = 0;
  GError *local = NULL;
  if (!rt_file_read_regular(path, RT_FILE_READ_FOLLOW_SYMLINKS, &text, &length, &local)) {
    g_set_error(error, JITSCOPE_CLI_ERROR, CLI_ERROR_INPUT, "cannot read %s", local->message);
    g_error_free(local);
    return NULL;
  }
  IrParsedFile *file = ir_file_parse(text, length, path, error);
  g_free(text);
  if (file == NULL)
    return NULL;
  for (guint i = 0; warnings && i < file->warnings->len; i++)
    g_ptr_array_add(warnings, g_strdup(g_ptr_array_index(file->warnings, i)));
  if (index >= file->graphs->len) {
    g_set_error(error, JITSCOPE_CLI_ERROR, CLI_ERROR_USAGE,
                "--graph %" G_GUINT64_FORMAT ": %s holds %u graph%s (--graph 0 to %u)", index,
                path, file->graphs->len, file->graphs->len == 1 ? "" : "s",
                file->graphs->len - 1);
    ir_parsed_file_free(file);
    return NULL;
  }
  IrGraph *graph = ir_parsed_file_steal_graph(file, (guint)index);
  ir_parsed_file_free(file);
  if (!ir_graph_verify(graph, &local)) {
    g_set_error(error, JITSCOPE_CLI_ERROR, CLI_ERROR_LOCATED, "%s: error: invalid graph: %s",
                path, local->message);
    g_error_free(local);
    ir_graph_free(graph);
    return NULL;
  }
  return graph;
}
