/* Graph files for the command line (contract in graph_file.h). */
#include "graph_file.h"

#include "app_error.h"
#include "ir/text.h"
#include "ir/verify.h"
#include "runtime/file_read.h"
#include "script/script.h"

/* Graph `index` of graph text, with the parser's warnings appended to `warnings`. */
static IrGraph *pick_graph(const char *text, gsize length, const char *path, guint64 index,
                           GPtrArray *warnings, GError **error) {
  IrParsedFile *file = ir_file_parse(text, length, path, error);
  if (file == NULL)
    return NULL;
  for (guint i = 0; warnings && i < file->warnings->len; i++)
    g_ptr_array_add(warnings, g_strdup(g_ptr_array_index(file->warnings, i)));
  IrGraph *graph = NULL;
  if (index >= file->graphs->len)
    g_set_error(error, JITSCOPE_APP_ERROR, APP_ERROR_USAGE,
                "--graph %" G_GUINT64_FORMAT ": %s holds %u graph%s (--graph 0 to %u)", index, path,
                file->graphs->len, file->graphs->len == 1 ? "" : "s", file->graphs->len - 1);
  else
    graph = ir_parsed_file_steal_graph(file, (guint)index);
  ir_parsed_file_free(file);
  return graph;
}

IrGraph *app_graph_file_load(const char *path, AppProgramChoice choice, GPtrArray *warnings,
                             GError **error) {
  bool is_source = script_is_source_file(path);
  if (is_source && choice.index > 0) {
    g_set_error(error, JITSCOPE_APP_ERROR, APP_ERROR_USAGE,
                "--graph picks a graph of IR text; for %s (TorchScript source) name the def "
                "with --function NAME",
                path);
    return NULL;
  }
  if (!is_source && choice.function != NULL) {
    g_set_error(error, JITSCOPE_APP_ERROR, APP_ERROR_USAGE,
                "--function names a def of a .py source file; %s is graph text (use --graph N)",
                path);
    return NULL;
  }
  g_autofree char *text = NULL;
  gsize length = 0;
  g_autoptr(GError) local = NULL;
  if (!rt_file_read_regular(path, RT_FILE_READ_FOLLOW_SYMLINKS, &text, &length, &local)) {
    g_set_error(error, JITSCOPE_APP_ERROR, APP_ERROR_INPUT, "cannot read %s", local->message);
    return NULL;
  }
  IrGraph *graph = is_source ? script_compile(text, length, path, choice.function, error)
                             : pick_graph(text, length, path, choice.index, warnings, error);
  if (graph == NULL)
    return NULL;
  if (!ir_graph_verify(graph, &local)) {
    g_set_error(error, JITSCOPE_APP_ERROR, APP_ERROR_LOCATED, "%s: error: invalid graph: %s", path,
                local->message);
    ir_graph_free(graph);
    return NULL;
  }
  return graph;
}

IrGraph *app_program_parse(const char *text, gsize length, const char *name, const char *function,
                           GError **error) {
  return script_is_source_file(name) ? script_compile(text, length, name, function, error)
                                     : ir_graph_parse(text, length, name, error);
}
