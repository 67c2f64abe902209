/* Graph files for the command line: a file of IR text (one graph or several) or TorchScript
 * source (.py), read, parsed and verified. */
#ifndef JITSCOPE_APP_GRAPH_FILE_H
#define JITSCOPE_APP_GRAPH_FILE_H

#include "ir/ir.h"

/* Which program of a file: graph `index` (counting from 0, --graph) of a graph file, or the
 * def named `function` (--function; NULL: the first def) of a .py source file. */
typedef struct {
  guint64 index;
  const char *function;
} AppProgramChoice;

/* Returns the chosen graph of the file, parsed and verified, or NULL with *error set: an
 * unreadable file is APP_ERROR_INPUT ("cannot read FILE: ..."), a syntax error keeps the
 * parser's or the script frontend's "FILE:LINE:COL: error: ..." (JITSCOPE_PARSE_ERROR), an
 * index past the file's graphs (or --graph on a .py file, --function on graph text) is
 * APP_ERROR_USAGE, a graph the verifier rejects is APP_ERROR_LOCATED ("FILE: error: invalid
 * graph: ..."). The parser's warnings ("FILE:LINE:COL: warning: ...", ops kept opaque) are
 * appended to `warnings` (char*, may be NULL). */
IrGraph *app_graph_file_load(const char *path, AppProgramChoice choice, GPtrArray *warnings,
                             GError **error);

/* The parse step alone (no verification), for text already read: the first graph of graph
 * text (warnings dropped), or script source when `name` ends in .py (its def `function`,
 * NULL: the first). */
IrGraph *app_program_parse(const char *text, gsize length, const char *name, const char *function,
                           GError **error);

#endif
