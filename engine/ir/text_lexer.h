/* Private to the text format: the tokenizer shared by the graph parser (parse.c), the type
 * parser (parse_type.c) and the attribute parser (parse_attr.c).
 *
 * Contracts:
 * - The lexer reads a buffer that text_lexer_init has checked: no NUL byte, valid UTF-8.
 * - Lines and columns are 1-based; a column counts characters (UTF-8 sequences), not bytes.
 * - Newlines are whitespace; a `#` starts a comment token running to the end of its line.
 * - Every error is reported through text_error(), which formats "FILE:LINE:COL: error: ...". */
#ifndef JITSCOPE_IR_TEXT_LEXER_H
#define JITSCOPE_IR_TEXT_LEXER_H

#include <glib.h>
#include <stdbool.h>

#include "ir/ir.h"

/* Deepest nesting of blocks, subgraph trailers and types the parser accepts. */
#define TEXT_MAX_DEPTH 256
/* Largest tensor size, stride or value id accepted (PyTorch's 2^40 topological step). */
#define TEXT_MAX_SIZE (G_GINT64_CONSTANT(1) << 40)

typedef enum {
  TOK_EOF,
  TOK_IDENT,   /* [A-Za-z_][A-Za-z0-9_]* joined by "::" or "." (aten::add,
                * prim::FusionGroup_0, __torch__.torch.nn.Linear) */
  TOK_VALUE,   /* %name: text holds the name without '%' */
  TOK_INT,     /* -?[0-9]+ */
  TOK_FLOAT,   /* -?digits with '.' or an exponent */
  TOK_STRING,  /* quoted; text holds the decoded bytes */
  TOK_ARROW,   /* -> */
  TOK_COMMENT, /* text after '#', trimmed */
  TOK_PUNCT,   /* one of ( ) [ ] { } , : = ? * ! < > ; - */
  TOK_PYOP,    /* ^name(args): text holds it whole */
} TokKind;

typedef struct {
  TokKind kind;
  char punct;        /* for TOK_PUNCT */
  const char *start; /* in the source buffer */
  gsize len;         /* source bytes */
  char *text;        /* identifier, value name, number text, decoded string, comment; owned */
  gsize text_len;    /* for TOK_STRING (decoded bytes) */
  int line, col;
} Token;

typedef struct {
  const char *filename;
  const char *buf;
  gsize len;
  gsize pos;
  int line, col;
  Token peeked;
  bool has_peeked;
  Token last; /* the token most recently consumed (for "after X" locations) */
} Lexer;

/* Validates the whole buffer (empty, NUL bytes, invalid UTF-8) and prepares to read it. */
bool text_lexer_init(Lexer *lx, const char *text, gsize length, const char *filename,
                     GError **error);
void text_lexer_clear(Lexer *lx);

/* The next token without consuming it; NULL with *error on a lexical error. */
const Token *text_peek(Lexer *lx, GError **error);
/* Consumes the peeked (or next) token; returns it (valid until the next call), or NULL. */
const Token *text_next(Lexer *lx, GError **error);

/* Raw text for what the token grammar cannot read: from the peeked token's start through
 * the first `terminator` after it (a tensor printed by value ends with "} ]"). False, with
 * nothing consumed, when no token is peeked or the terminator does not occur. */
bool text_skip_raw_until(Lexer *lx, const char *terminator, char **raw);
/* The rest of the line before a '#' comment, from the peeked token on (or the current
 * position), trimmed: `, scope: Model/Linear[fc]`. Returns the bytes consumed. */
gsize text_skip_line_raw(Lexer *lx, char **raw);

bool text_tok_is_punct(const Token *t, char c);
bool text_tok_is_ident(const Token *t, const char *name);
/* "'foo'", "end of input", "'%x'" : how a message names the token. */
char *text_tok_describe(const Token *t);

/* Sets *error to "FILE:LINE:COL: error: MESSAGE" (domain JITSCOPE_PARSE_ERROR). */
void text_error(GError **error, const Lexer *lx, int line, int col, const char *fmt, ...)
    G_GNUC_PRINTF(5, 6);
/* As text_error at token t. */
void text_error_at(GError **error, const Lexer *lx, const Token *t, const char *fmt, ...)
    G_GNUC_PRINTF(4, 5);

/* As text_error_at, the message followed by ", found X" (X as text_tok_describe names t);
 * returns false. */
bool text_error_found(GError **error, const Lexer *lx, const Token *t, const char *fmt, ...)
    G_GNUC_PRINTF(4, 5);

/* Expects punctuation c next; on mismatch reports "expected 'c' CONTEXT, found X". */
bool text_expect_punct(Lexer *lx, char c, const char *context, GError **error);

/* Types (parse_type.c): one type at the lexer's position, nesting bounded by
 * TEXT_MAX_DEPTH - depth. */
const IrType *text_parse_type(Lexer *lx, int depth, GError **error);

/* Attributes (parse_attr.c): `[name=value, ...]` at the lexer's position, set on node in
 * the order written. A repeated name is an error. */
bool text_parse_attrs(Lexer *lx, IrNode *node, GError **error);

#endif
