/* Scalar expressions of the op table: a recursive-descent parser (C precedence: ?: <
 * comparisons < + - < * / < unary -) into the AST of scalar_expr.h. */
#include "ir/scalar_expr.h"

#include <stdlib.h>
#include <string.h>

#include "ir/schema.h"

typedef struct {
  const char *text;
  const char *p;
  GError **error;
  bool failed;
  bool allow_result;
} Parser;

static PwExpr *node_new(PwOp op) {
  PwExpr *e = g_new0(PwExpr, 1);
  e->op = op;
  return e;
}

static void fail(Parser *ps, const char *what) {
  if (!ps->failed)
    g_set_error(ps->error, JITSCOPE_SCHEMA_ERROR, 0, "pointwise expression \"%s\", column %d: %s",
                ps->text, (int)(ps->p - ps->text) + 1, what);
  ps->failed = true;
}

static void skip_space(Parser *ps) {
  while (*ps->p == ' ' || *ps->p == '\t')
    ps->p++;
}

static bool accept(Parser *ps, const char *tok) {
  skip_space(ps);
  size_t n = strlen(tok);
  if (strncmp(ps->p, tok, n) != 0)
    return false;
  /* "<" must not take the first half of "<=" (and so on). */
  if (n == 1 && (tok[0] == '<' || tok[0] == '>' || tok[0] == '=' || tok[0] == '!') &&
      ps->p[1] == '=')
    return false;
  ps->p += n;
  return true;
}

static const PwFunction functions[] = {
#define MATH(name, arity, vector) {#name, arity, vector},
#include "ir/math_functions.def"
#undef MATH
};

const PwFunction *pw_function(int index) {
  if (index < 0 || (guint)index >= G_N_ELEMENTS(functions))
    g_error("scalar expression invariant: function %d out of range", index);
  return &functions[index];
}

int pw_function_lookup(const char *name, gsize len) {
  for (guint i = 0; i < G_N_ELEMENTS(functions); i++)
    if (strlen(functions[i].name) == len && strncmp(functions[i].name, name, len) == 0)
      return (int)i;
  return -1;
}

static bool is_name_char(char c) {
  return g_ascii_isalnum(c) || c == '_';
}

int pw_text_next_function(const char **cursor) {
  const char *e = *cursor;
  while (*e) {
    if (!g_ascii_isalpha(*e)) {
      e++;
      continue;
    }
    const char *start = e;
    while (is_name_char(*e))
      e++;
    int fn = pw_function_lookup(start, (gsize)(e - start));
    if (fn >= 0) {
      *cursor = e;
      return fn;
    }
  }
  *cursor = e;
  return -1;
}

bool pw_text_is_arg(const char *start, const char *p, int *index, int *len) {
  if (p[0] != 'A' || !g_ascii_isdigit(p[1]) || (p > start && is_name_char(p[-1])))
    return false;
  int n = 1, k = 0;
  while (g_ascii_isdigit(p[n]))
    k = k * 10 + (p[n++] - '0');
  if (is_name_char(p[n]))
    return false;
  *index = k;
  *len = n;
  return true;
}

static PwExpr *parse_cond(Parser *ps);

static PwExpr *parse_primary(Parser *ps) {
  skip_space(ps);
  const char *c = ps->p;
  if (*c == '(') {
    ps->p++;
    PwExpr *e = parse_cond(ps);
    if (!accept(ps, ")"))
      fail(ps, "expected ')'");
    return e;
  }
  int index, len;
  if (pw_text_is_arg(ps->text, c, &index, &len)) {
    if (index >= PW_MAX_ARGS) {
      fail(ps, "bad argument reference");
      return node_new(PW_NUM);
    }
    ps->p = c + len;
    PwExpr *e = node_new(PW_ARG);
    e->arg = index;
    return e;
  }
  if (c[0] == 'R' && !is_name_char(c[1])) {
    if (!ps->allow_result) {
      fail(ps, "R (the result) only in derivatives");
      return node_new(PW_NUM);
    }
    ps->p = c + 1;
    return node_new(PW_RESULT);
  }
  if (g_ascii_isdigit(*c) || *c == '.') {
    char *end;
    double v = g_ascii_strtod(c, &end);
    ps->p = end;
    PwExpr *e = node_new(PW_NUM);
    e->num = v;
    return e;
  }
  if (g_ascii_isalpha(*c) || *c == '_') {
    const char *s = c;
    while (g_ascii_isalnum(*ps->p) || *ps->p == '_')
      ps->p++;
    size_t n = (size_t)(ps->p - s);
    int fn = pw_function_lookup(s, n);
    if (fn < 0) {
      ps->p = s;
      fail(ps, "unknown function");
      return node_new(PW_NUM);
    }
    if (!accept(ps, "(")) {
      fail(ps, "expected '('");
      return node_new(PW_NUM);
    }
    PwExpr *e = node_new(PW_CALL);
    e->fn = fn;
    e->a = parse_cond(ps);
    if (functions[fn].arity >= 2) {
      if (!accept(ps, ","))
        fail(ps, "expected ','");
      e->b = parse_cond(ps);
    }
    if (functions[fn].arity == 3) {
      if (!accept(ps, ","))
        fail(ps, "expected ','");
      e->c = parse_cond(ps);
    }
    if (!accept(ps, ")"))
      fail(ps, "expected ')'");
    return e;
  }
  fail(ps, "expected an operand");
  return node_new(PW_NUM);
}

static PwExpr *parse_unary(Parser *ps) {
  if (accept(ps, "-")) {
    PwExpr *e = node_new(PW_NEG);
    e->a = parse_unary(ps);
    return e;
  }
  return parse_primary(ps);
}

static PwExpr *binary(PwOp op, PwExpr *a, PwExpr *b) {
  PwExpr *e = node_new(op);
  e->a = a;
  e->b = b;
  return e;
}

static PwExpr *parse_mul(Parser *ps) {
  PwExpr *e = parse_unary(ps);
  for (;;) {
    if (accept(ps, "*"))
      e = binary(PW_MUL, e, parse_unary(ps));
    else if (accept(ps, "/"))
      e = binary(PW_DIV, e, parse_unary(ps));
    else
      return e;
  }
}

static PwExpr *parse_add(Parser *ps) {
  PwExpr *e = parse_mul(ps);
  for (;;) {
    if (accept(ps, "+"))
      e = binary(PW_ADD, e, parse_mul(ps));
    else if (accept(ps, "-"))
      e = binary(PW_SUB, e, parse_mul(ps));
    else
      return e;
  }
}

static PwExpr *parse_cmp(Parser *ps) {
  PwExpr *e = parse_add(ps);
  static const struct {
    const char *tok;
    PwOp op;
  } ops[] = {{"<=", PW_LE}, {">=", PW_GE}, {"==", PW_EQ},
             {"!=", PW_NE}, {"<", PW_LT},  {">", PW_GT}};
  for (;;) {
    bool any = false;
    for (guint i = 0; i < G_N_ELEMENTS(ops) && !any; i++)
      if (accept(ps, ops[i].tok)) {
        e = binary(ops[i].op, e, parse_add(ps));
        any = true;
      }
    if (!any)
      return e;
  }
}

static PwExpr *parse_cond(Parser *ps) {
  PwExpr *e = parse_cmp(ps);
  if (!accept(ps, "?"))
    return e;
  PwExpr *c = node_new(PW_COND);
  c->a = e;
  c->b = parse_cond(ps);
  if (!accept(ps, ":"))
    fail(ps, "expected ':'");
  c->c = parse_cond(ps);
  return c;
}

PwExpr *pw_expr_parse(const char *text, bool allow_result, GError **error) {
  Parser ps = {.text = text, .p = text, .error = error, .allow_result = allow_result};
  PwExpr *e = parse_cond(&ps);
  skip_space(&ps);
  if (!ps.failed && *ps.p)
    fail(&ps, "unexpected text after the expression");
  if (ps.failed) {
    pw_expr_free(e);
    return NULL;
  }
  return e;
}

void pw_expr_free(PwExpr *e) {
  if (!e)
    return;
  pw_expr_free(e->a);
  pw_expr_free(e->b);
  pw_expr_free(e->c);
  g_free(e);
}

int pw_expr_n_args(const PwExpr *e) {
  if (!e)
    return 0;
  int n = e->op == PW_ARG ? e->arg + 1 : 0;
  n = MAX(n, pw_expr_n_args(e->a));
  n = MAX(n, pw_expr_n_args(e->b));
  return MAX(n, pw_expr_n_args(e->c));
}
