/* A strict JSON (RFC 8259) checker for what the CLI prints with --json: one value, nothing
 * after it but whitespace; numbers exactly as the grammar says (no NaN, Infinity, leading +,
 * leading zeros, "2e+30.0", hex); strings with valid escapes and no raw control characters;
 * nesting bounded. Parsers differ in leniency (json-glib, Python's json take NaN), so the
 * tests use this one. */
#ifndef JITSCOPE_TESTS_JSON_STRICT_H
#define JITSCOPE_TESTS_JSON_STRICT_H

#include <glib.h>

/* TRUE when `text` is one strict JSON document; otherwise FALSE with *error (may be NULL)
 * naming the byte offset and what was expected there. */
gboolean json_strict_check(const char *text, GError **error);

#endif
