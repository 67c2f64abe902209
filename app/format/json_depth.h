/* A nesting limit for JSON text, checked before a recursive parser (json-glib) sees it: a
 * document nested deeper than the limit ([[[[...]]]] 200,000 deep) would overflow the
 * parser's stack. The scan is iterative and reads strings (with their escapes) as opaque,
 * so brackets inside strings do not count. */
#ifndef JITSCOPE_APP_JSON_DEPTH_H
#define JITSCOPE_APP_JSON_DEPTH_H

#include <glib.h>
#include <stdbool.h>

/* Deep enough for every document jitscope writes (a bundle manifest nests 5 levels). */
#define APP_JSON_MAX_DEPTH 64

/* Whether no array or object in text nests deeper than max_depth; otherwise *error
 * (G_IO_ERROR_INVALID_DATA) says at which byte offset the limit was passed. */
bool app_json_check_depth(const char *text, gsize length, guint max_depth, GError **error);

#endif
