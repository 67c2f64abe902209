/* Reading a graph file for the command line: read, parse, pick one graph, verify. */
#ifndef JITSCOPE_APP_GRAPH_FILE_H
#define JITSCOPE_APP_GRAPH_FILE_H

#include "ir/ir.h"

/* Returns graph `index` (counting from 0) of the file, parsed and verified, or NULL with
 * *error set: an unreadable file is CLI_ERROR_INPUT ("cannot read FILE: ..."), a syntax error
 * keeps the parser's "FILE:LINE:COL: error: ..." (JITSCOPE_PARSE_ERROR), an index past the
 * file's graphs is CLI_ERROR_USAGE, a graph the verifier rejects is CLI_ERROR_LOCATED ("FILE:
 * error: invalid graph: ..."). The parser's warnings ("FILE:LINE:COL: warning: ...", ops kept
 * opaque) are appended to `warnings` (char*, may be NULL). */
IrGraph *app_graph_file_load(const char *path, guint64 index, GPtrArray *warnings,
                             GError **error);

#endif
