/* Input specs carried by a graph file (DESIGN.md: "A graph file may carry its own input specs
 * in a header comment"), read alike by the command line and the window:
 *
 *   # jitscope: --spec 'Float(3, 10); Float(3, 20, requires_grad=1)'
 *   # jitscope: --spec 'Float(5, 10); Float(5, 20, requires_grad=1)'
 *   graph(%x : Tensor, ...
 *
 * HEADER: the lines before the first line that is neither blank nor a `#` comment. A header
 * line whose comment text starts with `jitscope:` is a directive; any other comment is prose.
 * DIRECTIVE := '#' 'jitscope:' '--spec' QUOTED, where QUOTED is 'TEXT' or "TEXT" (no escapes)
 * holding one spec line `SPEC; SPEC; ...` (app_spec_group_split) whose every SPEC parses
 * (input_spec_parse). One directive per line; the lines keep their order.
 *
 * Errors are JITSCOPE_APP_ERROR / APP_ERROR_LOCATED, "FILE:LINE:COL: error: ..." with the
 * column (1-based, in bytes) of what is wrong: an unknown option, a missing or unterminated
 * quote, text after the quote, an empty list, a SPEC that does not parse. */
#ifndef JITSCOPE_APP_SPEC_HEADER_H
#define JITSCOPE_APP_SPEC_HEADER_H

#include <glib.h>

#include "ir/ir.h"

/* The spec lines of `text` (`length` bytes, or -1 for NUL-terminated) as a GPtrArray of char*
 * (the quoted text, trimmed) that frees them; empty when the header has no directive. NULL
 * with *error for a malformed directive; `filename` names the file in the message. */
GPtrArray *app_spec_header_read(const char *text, gssize length, const char *filename,
                                GError **error);

/* The same for a file on disk; a file that cannot be read is APP_ERROR_INPUT. */
GPtrArray *app_spec_header_read_file(const char *path, GError **error);

/* For a file without directives: the spec line its declared input types make, "SPEC; SPEC;
 * ..." (a new string), when every input is a tensor whose type is complete enough to be a
 * SPEC (dtype and every size known, contiguous strides if any); NULL otherwise. */
char *app_spec_line_from_declared_types(const IrGraph *graph);

#endif
