/* Reading a graph file for the command line: read, parse, verify. */
#ifndef JITSCOPE_APP_GRAPH_FILE_H
#define JITSCOPE_APP_GRAPH_FILE_H

#include "ir/ir.h"

/* Returns the parsed and verified graph, or NULL with *error set: an unreadable file is
 * CLI_ERROR_INPUT ("cannot read FILE: ..."), a syntax error keeps the parser's
 * "FILE:LINE:COL: error: ..." (JITSCOPE_PARSE_ERROR), a graph the verifier rejects is
 * CLI_ERROR_LOCATED ("FILE: error: invalid graph: ..."). */
IrGraph *app_graph_file_load(const char *path, GError **error);

#endif
