/* Reading a graph file for the command line: read, parse, verify. */
#ifndef JITSCOPE_APP_GRAPH_FILE_H
#define JITSCOPE_APP_GRAPH_FILE_H

#include "ir/ir.h"

/* Returns the parsed and verified graph, or NULL with *error set. A FILE ending in .py is
 * TorchScript source: the def named `function` (NULL: the first) is compiled by the script
 * frontend, whose errors read as the parser's. An unreadable file is
 * CLI_ERROR_INPUT ("cannot read FILE: ..."), a syntax error keeps the parser's
 * "FILE:LINE:COL: error: ..." (JITSCOPE_PARSE_ERROR), a graph the verifier rejects is
 * CLI_ERROR_LOCATED ("FILE: error: invalid graph: ..."). */
IrGraph *app_graph_file_load(const char *path, const char *function, GError **error);

/* The parse step alone (no verification), for text already read: graph text, or script
 * source when `name` ends in .py (its def `function`, NULL: the first). */
IrGraph *app_program_parse(const char *text, gsize length, const char *name,
                           const char *function, GError **error);

#endif
