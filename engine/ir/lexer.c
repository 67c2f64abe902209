/* Tokenizer of the graph text format (see text_lexer.h for the token set and contracts). */
#include "ir/text_lexer.h"

#include <stdarg.h>
#include <string.h>

#include "ir/text.h"

G_DEFINE_QUARK(jitscope - parse - error - quark, jitscope_parse_error)

static void error_va(GError **error, const Lexer *lx, int line, int col, const char *fmt,
                     va_list ap) {
  if (error == NULL || *error != NULL)
    return;
  g_autofree char *msg = g_strdup_vprintf(fmt, ap);
  g_set_error(error, JITSCOPE_PARSE_ERROR, 0, "%s:%d:%d: error: %s",
              lx->filename ? lx->filename : "<input>", line, col, msg);
}

void text_error(GError **error, const Lexer *lx, int line, int col, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  error_va(error, lx, line, col, fmt, ap);
  va_end(ap);
}

void text_error_at(GError **error, const Lexer *lx, const Token *t, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  error_va(error, lx, t->line, t->col, fmt, ap);
  va_end(ap);
}

bool text_error_found(GError **error, const Lexer *lx, const Token *t, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  g_autofree char *message = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  g_autofree char *d = text_tok_describe(t);
  text_error_at(error, lx, t, "%s, found %s", message, d);
  return false;
}

/* Line and column of byte offset `at`, counted from the start (error paths only). */
static void locate(const char *buf, gsize at, int *line, int *col) {
  int l = 1, c = 1;
  for (gsize i = 0; i < at; i++) {
    unsigned char ch = (unsigned char)buf[i];
    if (ch == '\n') {
      l++;
      c = 1;
    } else if ((ch & 0xC0) != 0x80) {
      c++;
    }
  }
  *line = l;
  *col = c;
}

bool text_lexer_init(Lexer *lx, const char *text, gsize length, const char *filename,
                     GError **error) {
  memset(lx, 0, sizeof *lx);
  lx->filename = filename ? filename : "<input>";
  lx->buf = text ? text : "";
  lx->len = text ? length : 0;
  lx->line = 1;
  lx->col = 1;
  const char *nul = memchr(lx->buf, '\0', lx->len);
  if (nul != NULL) {
    int l, c;
    locate(lx->buf, (gsize)(nul - lx->buf), &l, &c);
    text_error(error, lx, l, c, "NUL byte in input");
    return false;
  }
  const char *bad = NULL;
  if (!g_utf8_validate_len(lx->buf, lx->len, &bad)) {
    int l, c;
    locate(lx->buf, (gsize)(bad - lx->buf), &l, &c);
    text_error(error, lx, l, c, "invalid UTF-8 byte 0x%02x", (unsigned)(unsigned char)*bad);
    return false;
  }
  /* A UTF-8 byte order mark (editors on some systems write one) is not part of the text. */
  if (lx->len >= 3 && memcmp(lx->buf, "\xef\xbb\xbf", 3) == 0)
    lx->pos = 3;
  bool blank = true;
  for (gsize i = lx->pos; i < lx->len && blank; i++)
    blank = g_ascii_isspace(lx->buf[i]);
  if (blank) {
    text_error(error, lx, 1, 1, "empty input: expected 'graph('");
    return false;
  }
  return true;
}

static void token_clear(Token *t) {
  g_clear_pointer(&t->text, g_free);
}

void text_lexer_clear(Lexer *lx) {
  if (lx->has_peeked)
    token_clear(&lx->peeked);
  token_clear(&lx->last);
  lx->has_peeked = false;
}

static void advance(Lexer *lx, gsize n) {
  for (gsize i = 0; i < n && lx->pos < lx->len; i++) {
    unsigned char ch = (unsigned char)lx->buf[lx->pos++];
    if (ch == '\n') {
      lx->line++;
      lx->col = 1;
    } else if ((ch & 0xC0) != 0x80) {
      lx->col++;
    }
  }
}

static int cur(const Lexer *lx, gsize ahead) {
  return lx->pos + ahead < lx->len ? (unsigned char)lx->buf[lx->pos + ahead] : -1;
}

static bool is_ident_start(int c) {
  return c >= 0 && (g_ascii_isalpha(c) || c == '_');
}

static bool is_ident_char(int c) {
  return c >= 0 && (g_ascii_isalnum(c) || c == '_');
}

/* Decodes a quoted string; the opening quote is at lx->pos. */
static bool lex_string(Lexer *lx, Token *t, GError **error) {
  int quote = cur(lx, 0);
  advance(lx, 1);
  g_autoptr(GString) s = g_string_new(NULL);
  for (;;) {
    int c = cur(lx, 0);
    if (c < 0 || c == '\n') {
      text_error_at(error, lx, t, "unterminated string");
      return false;
    }
    if (c == quote) {
      advance(lx, 1);
      break;
    }
    if (c != '\\') {
      g_string_append_c(s, (char)c);
      advance(lx, 1);
      continue;
    }
    int eline = lx->line, ecol = lx->col;
    int e = cur(lx, 1);
    int v = -1;
    gsize used = 2;
    switch (e) {
    case 'n': v = '\n'; break;
    case 't': v = '\t'; break;
    case 'r': v = '\r'; break;
    case 'a': v = '\a'; break;
    case 'b': v = '\b'; break;
    case 'f': v = '\f'; break;
    case 'v': v = '\v'; break;
    case '\\': v = '\\'; break;
    case '\'': v = '\''; break;
    case '"': v = '"'; break;
    case 'x':
      if (g_ascii_isxdigit(cur(lx, 2)) && g_ascii_isxdigit(cur(lx, 3))) {
        v = g_ascii_xdigit_value(cur(lx, 2)) * 16 + g_ascii_xdigit_value(cur(lx, 3));
        used = 4;
      }
      break;
    default:
      if (e >= '0' && e <= '7') {
        v = 0;
        used = 1;
        while (used < 4 && cur(lx, used) >= '0' && cur(lx, used) <= '7')
          v = v * 8 + (cur(lx, used++) - '0');
        if (v > 255)
          v = -1;
      }
      break;
    }
    if (v < 0) {
      text_error(error, lx, eline, ecol, "bad escape sequence in string");
      return false;
    }
    if (v == 0) {
      text_error(error, lx, eline, ecol, "string contains a NUL character");
      return false;
    }
    g_string_append_c(s, (char)v);
    advance(lx, used);
  }
  t->kind = TOK_STRING;
  t->text_len = s->len;
  t->text = g_string_free(g_steal_pointer(&s), FALSE);
  return true;
}

static bool lex_number(Lexer *lx, Token *t, GError **error) {
  gsize n = 0;
  bool is_float = false;
  if (cur(lx, n) == '-')
    n++;
  while (g_ascii_isdigit(cur(lx, n)))
    n++;
  if (cur(lx, n) == '.') {
    is_float = true;
    n++;
    while (g_ascii_isdigit(cur(lx, n)))
      n++;
  }
  if (cur(lx, n) == 'e' || cur(lx, n) == 'E') {
    gsize m = n + 1;
    if (cur(lx, m) == '+' || cur(lx, m) == '-')
      m++;
    if (!g_ascii_isdigit(cur(lx, m))) {
      text_error_at(error, lx, t, "malformed number: exponent has no digits");
      return false;
    }
    while (g_ascii_isdigit(cur(lx, m)))
      m++;
    n = m;
    is_float = true;
  }
  if (is_ident_start(cur(lx, n))) {
    text_error_at(error, lx, t, "malformed number: letter after digits");
    return false;
  }
  t->kind = is_float ? TOK_FLOAT : TOK_INT;
  t->text = g_strndup(lx->buf + lx->pos, n);
  advance(lx, n);
  return true;
}

/* `^name(args)`: a Python op of PyTorch 1.0-era traces, kept whole as its kind's text; the
 * arguments are Python reprs, so only parentheses and quotes are matched. The name may be
 * PyTorch's placeholder `<python_value>` (a callable it could not name). */
static bool lex_python_op(Lexer *lx, Token *t, GError **error) {
  gsize n = 1;
  if (cur(lx, n) == '<') {
    while (is_ident_char(cur(lx, n + 1)))
      n++;
    n = cur(lx, n + 1) == '>' && n > 1 ? n + 2 : 1;
  } else {
    while (is_ident_char(cur(lx, n)) || cur(lx, n) == '.')
      n++;
  }
  if (n == 1 || cur(lx, n) != '(') {
    text_error_at(error, lx, t, "expected a Python op '^name(...)' after '^'");
    return false;
  }
  int depth = 0;
  int quote = 0;
  for (;; n++) {
    int ch = cur(lx, n);
    if (ch < 0 || ch == '\n') {
      text_error_at(error, lx, t, "unterminated Python op arguments");
      return false;
    }
    if (quote) {
      if (ch == '\\')
        n++;
      else if (ch == quote)
        quote = 0;
    } else if (ch == '\'' || ch == '"') {
      quote = ch;
    } else if (ch == '(') {
      depth++;
    } else if (ch == ')' && --depth == 0) {
      n++;
      break;
    }
  }
  t->kind = TOK_PYOP;
  t->text = g_strndup(lx->buf + lx->pos, n);
  advance(lx, n);
  return true;
}

/* Reads one token at lx->pos into *t. */
static bool lex(Lexer *lx, Token *t, GError **error) {
  memset(t, 0, sizeof *t);
  while (lx->pos < lx->len && g_ascii_isspace(lx->buf[lx->pos]))
    advance(lx, 1);
  t->line = lx->line;
  t->col = lx->col;
  t->start = lx->buf + lx->pos;
  gsize begin = lx->pos;
  int c = cur(lx, 0);
  bool ok = true;
  if (c < 0) {
    t->kind = TOK_EOF;
  } else if (c == '#') {
    gsize n = 1;
    while (cur(lx, n) >= 0 && cur(lx, n) != '\n')
      n++;
    t->kind = TOK_COMMENT;
    t->text = g_strstrip(g_strndup(lx->buf + lx->pos + 1, n - 1));
    advance(lx, n);
  } else if (c == '%') {
    gsize n = 1;
    while (is_ident_char(cur(lx, n)) || cur(lx, n) == '.')
      n++;
    if (n == 1) {
      text_error_at(error, lx, t, "'%%' must be followed by a value name");
      ok = false;
    } else {
      t->kind = TOK_VALUE;
      t->text = g_strndup(lx->buf + lx->pos + 1, n - 1);
      advance(lx, n);
    }
  } else if (is_ident_start(c)) {
    gsize n = 0;
    for (;;) {
      while (is_ident_char(cur(lx, n)))
        n++;
      if (cur(lx, n) == ':' && cur(lx, n + 1) == ':' && is_ident_start(cur(lx, n + 2)))
        n += 2;
      else if (cur(lx, n) == '.' && is_ident_start(cur(lx, n + 1)))
        n += 1; /* qualified class names: __torch__.torch.nn.modules.linear.Linear */
      else
        break;
    }
    t->kind = TOK_IDENT;
    t->text = g_strndup(lx->buf + lx->pos, n);
    advance(lx, n);
  } else if (g_ascii_isdigit(c) || (c == '-' && g_ascii_isdigit(cur(lx, 1))) ||
             (c == '.' && g_ascii_isdigit(cur(lx, 1))) ||
             (c == '-' && cur(lx, 1) == '.' && g_ascii_isdigit(cur(lx, 2)))) {
    ok = lex_number(lx, t, error);
  } else if (c == '"' || c == '\'') {
    ok = lex_string(lx, t, error);
  } else if (c == '^') {
    ok = lex_python_op(lx, t, error);
  } else if (c == '-' && cur(lx, 1) == '>') {
    t->kind = TOK_ARROW;
    advance(lx, 2);
  } else if (strchr("()[]{},:=?*!<>;-", c) != NULL) {
    t->kind = TOK_PUNCT;
    t->punct = (char)c;
    advance(lx, 1);
  } else {
    gunichar u = g_utf8_get_char(lx->buf + lx->pos);
    if (u >= 0x20 && u < 0x7f)
      text_error_at(error, lx, t, "unexpected character '%c'", (char)u);
    else
      text_error_at(error, lx, t, "unexpected character U+%04X", (unsigned)u);
    ok = false;
  }
  t->len = lx->pos - begin;
  if (!ok)
    token_clear(t);
  return ok;
}

bool text_skip_raw_until(Lexer *lx, const char *terminator, char **raw) {
  if (!lx->has_peeked)
    return false;
  const char *start = lx->peeked.start;
  const char *hit = g_strstr_len(start, (gssize)(lx->buf + lx->len - start), terminator);
  if (hit == NULL)
    return false;
  gsize n = (gsize)(hit - start) + strlen(terminator);
  lx->pos = (gsize)(start - lx->buf);
  lx->line = lx->peeked.line;
  lx->col = lx->peeked.col;
  token_clear(&lx->peeked);
  lx->has_peeked = false;
  *raw = g_strndup(start, n);
  advance(lx, n);
  return true;
}

gsize text_skip_line_raw(Lexer *lx, char **raw) {
  if (lx->has_peeked) {
    lx->pos = (gsize)(lx->peeked.start - lx->buf);
    lx->line = lx->peeked.line;
    lx->col = lx->peeked.col;
    token_clear(&lx->peeked);
    lx->has_peeked = false;
  }
  gsize n = 0;
  while (lx->pos + n < lx->len && lx->buf[lx->pos + n] != '\n' && lx->buf[lx->pos + n] != '#')
    n++;
  *raw = g_strstrip(g_strndup(lx->buf + lx->pos, n));
  advance(lx, n);
  return n;
}

const Token *text_peek(Lexer *lx, GError **error) {
  if (!lx->has_peeked) {
    if (!lex(lx, &lx->peeked, error))
      return NULL;
    lx->has_peeked = true;
  }
  return &lx->peeked;
}

const Token *text_next(Lexer *lx, GError **error) {
  if (!text_peek(lx, error))
    return NULL;
  token_clear(&lx->last);
  lx->last = lx->peeked;
  lx->peeked.text = NULL;
  lx->has_peeked = false;
  return &lx->last;
}

bool text_tok_is_punct(const Token *t, char c) {
  return t->kind == TOK_PUNCT && t->punct == c;
}

bool text_tok_is_ident(const Token *t, const char *name) {
  return t->kind == TOK_IDENT && strcmp(t->text, name) == 0;
}

char *text_tok_describe(const Token *t) {
  switch (t->kind) {
  case TOK_EOF: return g_strdup("end of input");
  case TOK_VALUE: return g_strdup_printf("'%%%s'", t->text);
  case TOK_STRING: return g_strdup("a string");
  case TOK_COMMENT: return g_strdup("a comment");
  case TOK_ARROW: return g_strdup("'->'");
  case TOK_PUNCT: return g_strdup_printf("'%c'", t->punct);
  case TOK_IDENT:
  case TOK_INT:
  case TOK_FLOAT:
  case TOK_PYOP: break;
  }
  if (strlen(t->text) > 40)
    return g_strdup_printf("'%.40s...'", t->text);
  return g_strdup_printf("'%s'", t->text);
}

bool text_expect_punct(Lexer *lx, char c, const char *context, GError **error) {
  const Token *t = text_peek(lx, error);
  if (t == NULL)
    return false;
  if (!text_tok_is_punct(t, c)) {
    return text_error_found(error, lx, t, "expected '%c' %s", c, context);
  }
  text_next(lx, error);
  return true;
}
