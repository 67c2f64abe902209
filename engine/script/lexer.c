/* The script tokenizer (contract in lexer.h). Algorithm: Python's tokenizer (Lib/tokenize.py
 * and Parser/tokenizer.c): an indentation stack checked at the start of each logical line,
 * bracket depth suspending NEWLINE/INDENT/DEDENT. */
#include "script/lexer.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ir/text.h"

/* Deepest indentation and bracket nesting accepted: deeper input is an error, not a crash. */
#define SCRIPT_MAX_NESTING 200

void script_error_at(GError **error, const ScriptSource *src, int line, int col, const char *fmt,
                     ...) {
  va_list ap;
  va_start(ap, fmt);
  g_autofree char *message = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  /* Find the quoted line; a NUL inside it ends the quote early. */
  const char *p = src->text, *end = src->text + src->length;
  for (int l = 1; l < line && p < end; p++)
    if (*p == '\n')
      l++;
  const char *eol = p;
  while (eol < end && *eol != '\n' && *eol != '\0')
    eol++;
  GString *quoted = g_string_new(NULL);
  for (const char *q = p; q < eol; q++)
    g_string_append_c(quoted, (*q == '\t' || (unsigned char)*q >= 0x20) ? *q : '?');
  g_string_append_c(quoted, '\n');
  for (int c = 1; c < col; c++)
    g_string_append_c(quoted, (c - 1 < eol - p && p[c - 1] == '\t') ? '\t' : ' ');
  g_string_append_c(quoted, '^');
  g_set_error(error, JITSCOPE_PARSE_ERROR, 0, "%s:%d:%d: error: %s\n%s", src->filename, line, col,
              message, quoted->str);
  g_string_free(quoted, TRUE);
}

typedef struct {
  const ScriptSource *src;
  gsize pos;
  int line;
  gsize line_start; /* offset of the current line's first byte */
  GArray *tokens;
  int indents[SCRIPT_MAX_NESTING + 1];
  int n_indents;
  int depth; /* open brackets */
  GError **error;
} Lexer;

static int column(const Lexer *lx) {
  return (int)(lx->pos - lx->line_start) + 1;
}

static char at(const Lexer *lx, gsize offset) {
  gsize p = lx->pos + offset;
  return p < lx->src->length ? lx->src->text[p] : '\0';
}

static bool at_end(const Lexer *lx) {
  return lx->pos >= lx->src->length;
}

static void push(Lexer *lx, ScriptTokKind kind, char *text, int line, int col) {
  ScriptToken t = {.kind = kind, .text = text, .line = line, .col = col};
  g_array_append_val(lx->tokens, t);
}

static void newline(Lexer *lx) {
  lx->pos++;
  lx->line++;
  lx->line_start = lx->pos;
}

/* Measures the indentation of the line at lx->pos; returns false at a blank or comment-only
 * line (consumed) and true with *width set at a line holding code. */
static bool measure_indent(Lexer *lx, int *width) {
  int w = 0;
  for (;;) {
    char c = at(lx, 0);
    if (c == ' ')
      w++;
    else if (c == '\t')
      w = (w / 8 + 1) * 8;
    else if (c == '\f')
      w = 0;
    else
      break;
    lx->pos++;
  }
  char c = at(lx, 0);
  if (c == '#') {
    while (!at_end(lx) && at(lx, 0) != '\n')
      lx->pos++;
    c = at(lx, 0);
  }
  if (c == '\r' && at(lx, 1) == '\n')
    lx->pos++, c = '\n';
  if (c == '\n') {
    newline(lx);
    return false;
  }
  if (at_end(lx))
    return false;
  *width = w;
  return true;
}

static bool indent_line(Lexer *lx) {
  int width;
  while (!at_end(lx))
    if (measure_indent(lx, &width))
      break;
  if (at_end(lx))
    return true;
  int col = column(lx);
  if (width > lx->indents[lx->n_indents - 1]) {
    if (lx->n_indents > SCRIPT_MAX_NESTING) {
      script_error_at(lx->error, lx->src, lx->line, col, "too many levels of indentation");
      return false;
    }
    lx->indents[lx->n_indents++] = width;
    push(lx, SCRIPT_TOK_INDENT, NULL, lx->line, col);
    return true;
  }
  while (width < lx->indents[lx->n_indents - 1]) {
    lx->n_indents--;
    push(lx, SCRIPT_TOK_DEDENT, NULL, lx->line, col);
  }
  if (width != lx->indents[lx->n_indents - 1]) {
    script_error_at(lx->error, lx->src, lx->line, col,
                    "unindent does not match any outer indentation level");
    return false;
  }
  return true;
}

static bool is_name_start(char c) {
  return g_ascii_isalpha(c) || c == '_';
}

static bool lex_number(Lexer *lx) {
  int col = column(lx);
  gsize start = lx->pos;
  bool is_float = false;
  while (g_ascii_isdigit(at(lx, 0)))
    lx->pos++;
  if (at(lx, 0) == '.' && !(start == lx->pos && !g_ascii_isdigit(at(lx, 1)))) {
    is_float = true;
    lx->pos++;
    while (g_ascii_isdigit(at(lx, 0)))
      lx->pos++;
  }
  if (at(lx, 0) == 'e' || at(lx, 0) == 'E') {
    gsize mark = lx->pos;
    lx->pos++;
    if (at(lx, 0) == '+' || at(lx, 0) == '-')
      lx->pos++;
    if (g_ascii_isdigit(at(lx, 0))) {
      is_float = true;
      while (g_ascii_isdigit(at(lx, 0)))
        lx->pos++;
    } else {
      lx->pos = mark;
    }
  }
  if (is_name_start(at(lx, 0))) {
    script_error_at(lx->error, lx->src, lx->line, column(lx), "invalid number literal");
    return false;
  }
  char *text = g_strndup(lx->src->text + start, lx->pos - start);
  ScriptToken t = {.kind = is_float ? SCRIPT_TOK_FLOAT : SCRIPT_TOK_INT,
                   .text = text,
                   .line = lx->line,
                   .col = col};
  errno = 0;
  if (is_float) {
    t.float_value = g_ascii_strtod(text, NULL);
  } else {
    if (text[0] == '0' && text[1] != '\0' && strspn(text, "0") != strlen(text)) {
      g_free(text);
      script_error_at(lx->error, lx->src, lx->line, col,
                      "leading zeros in an integer literal are not allowed");
      return false;
    }
    t.int_value = g_ascii_strtoll(text, NULL, 10);
    if (errno == ERANGE) {
      g_free(text);
      script_error_at(lx->error, lx->src, lx->line, col, "integer literal out of range");
      return false;
    }
  }
  g_array_append_val(lx->tokens, t);
  return true;
}

/* '...' and "...", or a triple-quoted string (a docstring), which may span lines. */
static bool lex_string(Lexer *lx) {
  int line = lx->line, col = column(lx);
  char quote = at(lx, 0);
  bool triple = at(lx, 1) == quote && at(lx, 2) == quote;
  lx->pos += triple ? 3 : 1;
  GString *s = g_string_new(NULL);
  for (;;) {
    char c = at(lx, 0);
    if (at_end(lx) || (c == '\n' && !triple)) {
      g_string_free(s, TRUE);
      script_error_at(lx->error, lx->src, line, col, "unterminated string literal");
      return false;
    }
    if (triple && c == quote && at(lx, 1) == quote && at(lx, 2) == quote) {
      lx->pos += 3;
      break;
    }
    if (c == '\n') {
      newline(lx);
      g_string_append_c(s, c);
      continue;
    }
    lx->pos++;
    if (c == quote && !triple)
      break;
    if (c == '\\' && triple && at(lx, 0) == '\n') { /* a continued line: neither is kept */
      newline(lx);
      continue;
    }
    if (c == '\\') {
      char e = at(lx, 0);
      const char *from = "nt\\'\"0", *to = "\n\t\\'\"\0";
      const char *hit = e != '\0' ? strchr(from, e) : NULL;
      if (hit == NULL) {
        g_string_free(s, TRUE);
        script_error_at(lx->error, lx->src, lx->line, column(lx) - 1,
                        "unsupported escape sequence in a string");
        return false;
      }
      g_string_append_c(s, to[hit - from]);
      lx->pos++;
      continue;
    }
    g_string_append_c(s, c);
  }
  push(lx, SCRIPT_TOK_STRING, g_string_free(s, FALSE), line, col);
  return true;
}

/* Longest first, so "**=" wins over "**" and "*". */
static const char *const operators[] = {
    "**=", "//=", ">>=", "<<=", "...", "->", "**", "//", "==", "!=", "<=", ">=", "+=", "-=", "*=", "/=",
    "%=",  "&=",  "|=",  "^=",  "@=", "<<", ">>", "+",  "-",  "*",  "/",  "%",  "@",  "<",  ">",
    "=",   ".",   ",",   ":",   ";",  "(",  ")",  "[",  "]",  "{",  "}",  "&",  "|",  "^",  "~",
};

static bool lex_operator(Lexer *lx) {
  int col = column(lx);
  for (guint i = 0; i < G_N_ELEMENTS(operators); i++) {
    gsize n = strlen(operators[i]);
    if (lx->pos + n <= lx->src->length && memcmp(lx->src->text + lx->pos, operators[i], n) == 0) {
      char c = operators[i][0];
      if (n == 1 && (c == '(' || c == '[' || c == '{')) {
        if (++lx->depth > SCRIPT_MAX_NESTING) {
          script_error_at(lx->error, lx->src, lx->line, col, "brackets nested too deeply");
          return false;
        }
      } else if (n == 1 && (c == ')' || c == ']' || c == '}')) {
        if (lx->depth == 0) {
          script_error_at(lx->error, lx->src, lx->line, col, "unmatched '%c'", c);
          return false;
        }
        lx->depth--;
      }
      lx->pos += n;
      push(lx, SCRIPT_TOK_OP, g_strdup(operators[i]), lx->line, col);
      return true;
    }
  }
  unsigned char c = (unsigned char)at(lx, 0);
  if (c >= 0x21 && c < 0x7f)
    script_error_at(lx->error, lx->src, lx->line, col, "unexpected character '%c'", c);
  else
    script_error_at(lx->error, lx->src, lx->line, col, "unexpected byte 0x%02x", c);
  return false;
}

/* Tokens of one logical line, up to and including its NEWLINE. */
static bool lex_line(Lexer *lx) {
  for (;;) {
    char c = at(lx, 0);
    if (at_end(lx) || (c == '\n' && lx->depth == 0)) {
      if (lx->depth > 0) {
        script_error_at(lx->error, lx->src, lx->line, column(lx),
                        "unexpected end of file inside brackets");
        return false;
      }
      push(lx, SCRIPT_TOK_NEWLINE, NULL, lx->line, column(lx));
      if (!at_end(lx))
        newline(lx);
      return true;
    }
    if (c == ' ' || c == '\t' || c == '\f' || c == '\r') {
      lx->pos++;
    } else if (c == '\n') {
      newline(lx);
    } else if (c == '#') {
      while (!at_end(lx) && at(lx, 0) != '\n')
        lx->pos++;
    } else if (c == '\\') {
      gsize skip = at(lx, 1) == '\r' && at(lx, 2) == '\n' ? 2 : 1;
      if (at(lx, skip) != '\n') {
        script_error_at(lx->error, lx->src, lx->line, column(lx),
                        "unexpected character after line continuation");
        return false;
      }
      lx->pos += skip;
      newline(lx);
    } else if (is_name_start(c)) {
      int col = column(lx);
      gsize start = lx->pos;
      while (is_name_start(at(lx, 0)) || g_ascii_isdigit(at(lx, 0)))
        lx->pos++;
      push(lx, SCRIPT_TOK_NAME, g_strndup(lx->src->text + start, lx->pos - start), lx->line, col);
    } else if (g_ascii_isdigit(c) || (c == '.' && g_ascii_isdigit(at(lx, 1)))) {
      if (!lex_number(lx))
        return false;
    } else if (c == '"' || c == '\'') {
      if (!lex_string(lx))
        return false;
    } else if (!lex_operator(lx)) {
      return false;
    }
  }
}

void script_tokens_free(GArray *tokens) {
  if (tokens == NULL)
    return;
  for (guint i = 0; i < tokens->len; i++)
    g_free(g_array_index(tokens, ScriptToken, i).text);
  g_array_free(tokens, TRUE);
}

GArray *script_lex(const ScriptSource *src, GError **error) {
  Lexer lx = {.src = src, .line = 1, .n_indents = 1, .error = error};
  const char *bad = NULL;
  if (!g_utf8_validate(src->text, (gssize)src->length, &bad) && *bad != '\0') {
    lx.pos = (gsize)(bad - src->text);
    for (gsize i = 0; i < lx.pos; i++)
      if (src->text[i] == '\n')
        lx.line++, lx.line_start = i + 1;
    script_error_at(error, src, lx.line, column(&lx), "invalid UTF-8 byte 0x%02x",
                    (unsigned char)*bad);
    return NULL;
  }
  lx.tokens = g_array_new(FALSE, TRUE, sizeof(ScriptToken));
  while (!at_end(&lx)) {
    if (!indent_line(&lx) || (!at_end(&lx) && !lex_line(&lx))) {
      script_tokens_free(lx.tokens);
      return NULL;
    }
  }
  int col = column(&lx);
  for (; lx.n_indents > 1; lx.n_indents--)
    push(&lx, SCRIPT_TOK_DEDENT, NULL, lx.line, col);
  push(&lx, SCRIPT_TOK_EOF, NULL, lx.line, col);
  return lx.tokens;
}
