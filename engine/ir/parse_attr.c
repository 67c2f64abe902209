/* Attribute lists of the graph text: `[name=value, ...]`.
 *
 *   value := INT | FLOAT | ['-'] inf | nan | STRING | IDENT | '[' [scalar (',' scalar)*] ']'
 *          | '{' number '}'
 *
 * INT -> i; FLOAT/inf/nan -> f; STRING and bare identifiers (the early-2019
 * `prim::GradOf[name=aten::add]`) -> s, except True/False which are the ints 1/0 (bools are
 * stored as ints); homogeneous lists -> is/fs/ss, ints among floats a float list (`[]` and
 * `annotate(List[int], [])` are an empty int list); `{v}` -> a 0-dim tensor (Long for an
 * integer, Double otherwise). `<Tensor>` and a tensor printed by its rounded contents
 * (PyTorch 1.13's frozen modules: ` 0.57 -0.33 [ CPUFloatType{2} ]`) say what a value is
 * without giving it exactly: they are kept as raw text (IR_ATTR_RAW), printed back verbatim
 * and never run. `<Graph>` is an error. */
#include <math.h>
#include <string.h>

#include "ir/text.h"
#include "ir/text_lexer.h"
#include "tensor/tensor.h"

typedef enum { SC_INT, SC_FLOAT, SC_STRING } ScalarKind;

typedef struct {
  ScalarKind kind;
  gint64 i;
  double f;
  char *s;
} Scalar;

static bool parse_int_text(Lexer *lx, const Token *t, gint64 *out, GError **error) {
  if (!g_ascii_string_to_signed(t->text, 10, G_MININT64, G_MAXINT64, out, NULL)) {
    text_error_at(error, lx, t, "bad attribute: integer %s does not fit in 64 bits", t->text);
    return false;
  }
  return true;
}

static bool parse_float_text(Lexer *lx, const Token *t, double *out, GError **error) {
  char *end = NULL;
  double d = g_ascii_strtod(t->text, &end);
  if (end == NULL || *end != '\0') {
    text_error_at(error, lx, t, "bad attribute: malformed number %s", t->text);
    return false;
  }
  if (isinf(d)) {
    text_error_at(error, lx, t, "bad attribute: float %s is out of range", t->text);
    return false;
  }
  *out = d;
  return true;
}

/* One scalar: number, inf/nan, string, identifier. Consumes its tokens. */
static bool parse_scalar(Lexer *lx, Scalar *out, GError **error) {
  memset(out, 0, sizeof *out);
  const Token *t = text_next(lx, error);
  if (t == NULL)
    return false;
  bool negate = false;
  if (text_tok_is_punct(t, '-')) {
    negate = true;
    t = text_next(lx, error);
    if (t == NULL)
      return false;
    if (!text_tok_is_ident(t, "inf")) {
      text_error_at(error, lx, t, "bad attribute: expected 'inf' after '-'");
      return false;
    }
  }
  switch (t->kind) {
  case TOK_INT: out->kind = SC_INT; return parse_int_text(lx, t, &out->i, error);
  case TOK_FLOAT: out->kind = SC_FLOAT; return parse_float_text(lx, t, &out->f, error);
  case TOK_STRING:
    out->kind = SC_STRING;
    out->s = g_strdup(t->text);
    return true;
  case TOK_IDENT:
    if (strcmp(t->text, "inf") == 0 || strcmp(t->text, "nan") == 0) {
      out->kind = SC_FLOAT;
      out->f = t->text[0] == 'i' ? (negate ? -INFINITY : INFINITY) : NAN;
      return true;
    }
    if (strcmp(t->text, "True") == 0 || strcmp(t->text, "False") == 0) {
      out->kind = SC_INT;
      out->i = t->text[0] == 'T';
      return true;
    }
    out->kind = SC_STRING;
    out->s = g_strdup(t->text);
    return true;
  case TOK_PUNCT:
    if (t->punct == '<') {
      text_error_at(error, lx, t,
                    "bad attribute: a value printed as <...> (tensor or graph) cannot be read "
                    "back");
      return false;
    }
    break;
  case TOK_EOF:
  case TOK_VALUE:
  case TOK_ARROW:
  case TOK_COMMENT:
  case TOK_PYOP: break;
  }
  return text_error_found(error, lx, t, "bad attribute: expected a value");
}

static bool parse_list(Lexer *lx, IrNode *node, const char *name, GError **error) {
  g_autoptr(GArray) is = g_array_new(FALSE, FALSE, sizeof(gint64));
  g_autoptr(GArray) fs = g_array_new(FALSE, FALSE, sizeof(double));
  g_autoptr(GPtrArray) ss = g_ptr_array_new_with_free_func(g_free);
  int kind = -1;
  const Token *t = text_peek(lx, error);
  if (t == NULL)
    return false;
  if (!text_tok_is_punct(t, ']')) {
    for (;;) {
      t = text_peek(lx, error);
      if (t == NULL)
        return false;
      if (text_tok_is_punct(t, '[') || text_tok_is_punct(t, '{')) {
        text_error_at(error, lx, t, "bad attribute: lists of lists or tensors are not supported");
        return false;
      }
      int line = t->line, col = t->col;
      Scalar sc;
      if (!parse_scalar(lx, &sc, error))
        return false;
      /* Ints among floats are floats: a double from 1e10 to 1e17 prints without a point
       * (PyTorch's %g and ours), so a float list may read as both. */
      bool numbers =
          (kind == SC_INT || kind == SC_FLOAT) && (sc.kind == SC_INT || sc.kind == SC_FLOAT);
      if (kind >= 0 && (int)sc.kind != kind && !numbers) {
        text_error(error, lx, line, col, "bad attribute: list '%s' mixes element kinds", name);
        g_free(sc.s);
        return false;
      }
      if (kind != SC_FLOAT)
        kind = (int)sc.kind;
      if (sc.kind == SC_INT || sc.kind == SC_FLOAT) {
        double f = sc.kind == SC_INT ? (double)sc.i : sc.f;
        g_array_append_val(fs, f);
        if (sc.kind == SC_INT)
          g_array_append_val(is, sc.i);
      } else {
        g_ptr_array_add(ss, sc.s);
      }
      t = text_peek(lx, error);
      if (t == NULL)
        return false;
      if (!text_tok_is_punct(t, ','))
        break;
      text_next(lx, error);
    }
  }
  if (!text_expect_punct(lx, ']', "to close the list", error))
    return false;
  if (kind == SC_FLOAT)
    ir_node_set_attr_fs(node, name, (const double *)(void *)fs->data, fs->len);
  else if (kind == SC_STRING)
    ir_node_set_attr_ss(node, name, (const char *const *)ss->pdata, ss->len);
  else
    ir_node_set_attr_is(node, name, (const gint64 *)(void *)is->data, is->len);
  return true;
}

static bool parse_tensor_scalar(Lexer *lx, IrNode *node, const char *name, GError **error) {
  const Token *t = text_peek(lx, error);
  if (t == NULL)
    return false;
  Token at = *t;
  at.text = NULL;
  Scalar sc;
  if (!parse_scalar(lx, &sc, error))
    return false;
  if (sc.kind == SC_STRING) {
    g_free(sc.s);
    text_error_at(error, lx, &at, "bad attribute: a tensor {...} holds a number");
    return false;
  }
  if (!text_expect_punct(lx, '}', "to close the tensor", error))
    return false;
  RtTensor *tensor = sc.kind == SC_INT ? rt_tensor_scalar(IR_DTYPE_INT64, (double)sc.i)
                                       : rt_tensor_scalar(IR_DTYPE_FLOAT64, sc.f);
  ir_node_set_attr_t(node, name, tensor);
  rt_tensor_unref(tensor);
  return true;
}

/* Does the source at `start` read as a tensor printed by value: numbers (rows, `(1,.,.) =`
 * slice headers, a common factor such as `0.01 *`) up to a `[ CPUFloatType{...} ]` footer
 * (2018: `[ CPULongTensor{...} ]`)? */
static bool looks_like_tensor_print(const char *start, const char *end) {
  const char *p = start;
  while (p < end && strchr("0123456789.-+e naif()=,*\n\r\t", *p) != NULL && *p != '\0')
    p++;
  if (p + 2 >= end || p[0] != '[' || p[1] != ' ')
    return false;
  p += 2;
  const char *name = p;
  while (p < end && g_ascii_isalnum(*p))
    p++;
  bool footer = (p - name > 4 && strncmp(p - 4, "Type", 4) == 0) ||
                (p - name > 6 && strncmp(p - 6, "Tensor", 6) == 0);
  return footer && p < end && *p == '{';
}

/* An attribute whose value is a type (`profiled_type=Float(10, strides=[1])`, PyTorch's
 * profiling nodes): the identifier at `t` directly followed by '('. */
static bool is_type_valued(const Lexer *lx, const Token *t) {
  return t->kind == TOK_IDENT && t->start + t->len < lx->buf + lx->len && t->start[t->len] == '(';
}

/* The type-valued attribute at the peeked token, as raw text through its ')'. */
static bool parse_raw_type(Lexer *lx, IrNode *node, const char *name, const Token *at,
                           GError **error) {
  int line = at->line, col = at->col;
  int depth = 0;
  const char *end = at->start + at->len;
  const char *limit = lx->buf + lx->len;
  for (; end < limit && *end != '\n'; end++) {
    if (*end == '(')
      depth++;
    else if (*end == ')' && --depth == 0)
      break;
  }
  g_autofree char *terminator =
      end < limit && *end == ')' ? g_strndup(at->start, (gsize)(end - at->start) + 1) : NULL;
  g_autofree char *raw = NULL;
  bool ok = terminator != NULL && text_skip_raw_until(lx, terminator, &raw);
  if (!ok) {
    text_error(error, lx, line, col, "bad attribute: unterminated type value");
    return false;
  }
  /* PyTorch's print of an empty int list (max_pool2d's default stride) is the one type
   * value whose meaning we know exactly */
  if (strcmp(raw, "annotate(List[int], [])") == 0)
    ir_node_set_attr_is(node, name, NULL, 0);
  else
    ir_node_set_attr_raw(node, name, raw);
  return true;
}

/* `<Tensor>` or a tensor printed by value at the peeked token, as raw text. */
static bool parse_raw_tensor(Lexer *lx, IrNode *node, const char *name, const Token *at,
                             GError **error) {
  bool angle = text_tok_is_punct(at, '<');
  int line = at->line, col = at->col;
  /* PyTorch writes a tensor's print right after '=', with its leading blanks. */
  gsize blanks = 0;
  while (at->start - blanks > lx->buf && at->start[-(gssize)blanks - 1] == ' ')
    blanks++;
  g_autofree char *raw = NULL;
  if (!text_skip_raw_until(lx, angle ? ">" : "} ]", &raw)) {
    text_error(error, lx, line, col, "bad attribute: unterminated tensor value");
    return false;
  }
  if (angle && strcmp(raw, "<Tensor>") != 0) {
    text_error(error, lx, line, col, "bad attribute: a value printed as %s cannot be read back",
               raw);
    return false;
  }
  g_autofree char *text = g_strdup_printf("%*s%s", (int)blanks, "", raw);
  ir_node_set_attr_raw(node, name, text);
  return true;
}

bool text_parse_attrs(Lexer *lx, IrNode *node, GError **error) {
  if (!text_expect_punct(lx, '[', "to open the attributes", error))
    return false;
  const Token *t = text_peek(lx, error);
  if (t == NULL)
    return false;
  if (text_tok_is_punct(t, ']')) {
    text_next(lx, error);
    return true;
  }
  for (;;) {
    t = text_next(lx, error);
    if (t == NULL)
      return false;
    if (t->kind != TOK_IDENT || strstr(t->text, "::") != NULL) {
      return text_error_found(error, lx, t, "bad attribute: expected an attribute name");
    }
    const char *name = g_string_chunk_insert_const(node->graph->strings, t->text);
    if (ir_node_has_attr(node, name)) {
      text_error_at(error, lx, t, "bad attribute: '%s' given twice", name);
      return false;
    }
    if (!text_expect_punct(lx, '=', "after the attribute name", error))
      return false;
    t = text_peek(lx, error);
    if (t == NULL)
      return false;
    if (is_type_valued(lx, t)) {
      if (!parse_raw_type(lx, node, name, t, error))
        return false;
    } else if (text_tok_is_punct(t, '<') || looks_like_tensor_print(t->start, lx->buf + lx->len)) {
      if (!parse_raw_tensor(lx, node, name, t, error))
        return false;
    } else if (text_tok_is_punct(t, '[')) {
      text_next(lx, error);
      if (!parse_list(lx, node, name, error))
        return false;
    } else if (text_tok_is_punct(t, '{')) {
      text_next(lx, error);
      if (!parse_tensor_scalar(lx, node, name, error))
        return false;
    } else {
      Scalar sc;
      if (!parse_scalar(lx, &sc, error))
        return false;
      if (sc.kind == SC_INT)
        ir_node_set_attr_i(node, name, sc.i);
      else if (sc.kind == SC_FLOAT)
        ir_node_set_attr_f(node, name, sc.f);
      else
        ir_node_set_attr_s(node, name, sc.s);
      g_free(sc.s);
    }
    t = text_next(lx, error);
    if (t == NULL)
      return false;
    if (text_tok_is_punct(t, ']'))
      return true;
    if (!text_tok_is_punct(t, ',')) {
      return text_error_found(error, lx, t, "bad attribute: expected ',' or ']'");
    }
  }
}
