/* The script frontend's tokenizer: Python's lexical rules for the TorchScript subset.
 *
 * Contracts:
 * - script_lex turns a whole source buffer into tokens (ending with SCRIPT_TOK_EOF), or fails
 *   with a located error (script_error_at). The buffer may hold anything: NUL bytes, invalid
 *   UTF-8 and stray characters are errors, never crashes.
 * - Indentation as Python's tokenizer: a NEWLINE ends each logical line, INDENT/DEDENT tokens
 *   bracket deeper blocks, blank and comment-only lines are skipped, newlines inside (), [] and
 *   {} and after a backslash join lines. Tabs advance to the next multiple of 8.
 * - Lines and columns are 1-based; columns count bytes (the subset is ASCII outside strings
 *   and comments). */
#ifndef JITSCOPE_SCRIPT_LEXER_H
#define JITSCOPE_SCRIPT_LEXER_H

#include <glib.h>
#include <stdbool.h>

typedef enum {
  SCRIPT_TOK_EOF,
  SCRIPT_TOK_NEWLINE,
  SCRIPT_TOK_INDENT,
  SCRIPT_TOK_DEDENT,
  SCRIPT_TOK_NAME, /* identifiers and keywords */
  SCRIPT_TOK_INT,
  SCRIPT_TOK_FLOAT,
  SCRIPT_TOK_STRING, /* text holds the decoded contents */
  SCRIPT_TOK_OP,     /* operators and punctuation; text holds the spelling */
} ScriptTokKind;

typedef struct {
  ScriptTokKind kind;
  char *text; /* owned; NULL for NEWLINE/INDENT/DEDENT/EOF */
  gint64 int_value;
  double float_value;
  int line, col;
} ScriptToken;

/* The source being compiled: kept for error messages (which quote the line). */
typedef struct {
  const char *filename;
  const char *text;
  gsize length;
} ScriptSource;

/* Returns an array of ScriptToken (free with script_tokens_free) or NULL with *error set. */
GArray *script_lex(const ScriptSource *src, GError **error);
void script_tokens_free(GArray *tokens);

/* Sets *error (domain JITSCOPE_PARSE_ERROR) to "FILE:LINE:COL: error: MESSAGE" followed by the
 * source line and a caret under column COL. */
void script_error_at(GError **error, const ScriptSource *src, int line, int col, const char *fmt,
                     ...) G_GNUC_PRINTF(5, 6);

#endif
