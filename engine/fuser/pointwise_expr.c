/* Pointwise expressions: a recursive-descent parser (C precedence: ?: < comparisons <
 * + - < * / < unary -) and a block evaluator that walks the AST once per block. */
#include "fuser/pointwise_expr.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/tensor.h"

typedef struct {
  const char *text;
  const char *p;
  GError **error;
  bool failed;
} Parser;

static PwExpr *node_new(PwOp op) {
  PwExpr *e = g_new0(PwExpr, 1);
  e->op = op;
  return e;
}

static void fail(Parser *ps, const char *what) {
  if (!ps->failed)
    g_set_error(ps->error, JITSCOPE_RUNTIME_ERROR, RT_ERROR_VALUE,
                "pointwise expression \"%s\", column %d: %s", ps->text, (int)(ps->p - ps->text) + 1,
                what);
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
  if (n == 1 && (tok[0] == '<' || tok[0] == '>' || tok[0] == '=' || tok[0] == '!') && ps->p[1] == '=')
    return false;
  ps->p += n;
  return true;
}

typedef struct {
  const char *name;
  double (*fn1)(double);
  double (*fn2)(double, double);
  float (*fn1f)(float);
  float (*fn2f)(float, float);
} PwFunction;

#define F1(name) {#name, name, NULL, name##f, NULL}
#define F2(name) {#name, NULL, name, NULL, name##f}
static const PwFunction functions[] = {
    F1(fabs), F1(exp),   F1(expm1), F1(log),       F1(log10), F1(log1p),  F1(log2),
    F1(sqrt), F1(erf),   F1(erfc),  F1(sin),       F1(cos),   F1(tan),    F1(asin),
    F1(acos), F1(atan),  F1(sinh),  F1(cosh),      F1(tanh),  F1(ceil),   F1(floor),
    F1(nearbyint),       F1(trunc), F1(lgamma),    F2(atan2), F2(pow),    F2(fmod),
};

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
  if (*c == '%') {
    char *end;
    long k = strtol(c + 1, &end, 10);
    if (end == c + 1 || k < 0 || k >= PW_MAX_ARGS) {
      fail(ps, "bad argument reference");
      return node_new(PW_NUM);
    }
    ps->p = end;
    PwExpr *e = node_new(PW_ARG);
    e->arg = (int)k;
    return e;
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
    const PwFunction *f = NULL;
    for (guint i = 0; i < G_N_ELEMENTS(functions); i++)
      if (strlen(functions[i].name) == n && strncmp(functions[i].name, s, n) == 0)
        f = &functions[i];
    if (!f) {
      ps->p = s;
      fail(ps, "unknown function");
      return node_new(PW_NUM);
    }
    if (!accept(ps, "(")) {
      fail(ps, "expected '('");
      return node_new(PW_NUM);
    }
    PwExpr *e = node_new(f->fn1 ? PW_CALL1 : PW_CALL2);
    e->fn1 = f->fn1;
    e->fn2 = f->fn2;
    e->fn1f = f->fn1f;
    e->fn2f = f->fn2f;
    e->a = parse_cond(ps);
    if (f->fn2) {
      if (!accept(ps, ","))
        fail(ps, "expected ','");
      e->b = parse_cond(ps);
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
  static const struct { const char *tok; PwOp op; } ops[] = {
      {"<=", PW_LE}, {">=", PW_GE}, {"==", PW_EQ}, {"!=", PW_NE}, {"<", PW_LT}, {">", PW_GT}};
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

PwExpr *pw_expr_parse(const char *text, GError **error) {
  Parser ps = {.text = text, .p = text, .error = error};
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

double pw_expr_eval(const PwExpr *e, const double *args) {
  switch (e->op) {
  case PW_ARG: return args[e->arg];
  case PW_NUM: return e->num;
  case PW_NEG: return -pw_expr_eval(e->a, args);
  case PW_ADD: return pw_expr_eval(e->a, args) + pw_expr_eval(e->b, args);
  case PW_SUB: return pw_expr_eval(e->a, args) - pw_expr_eval(e->b, args);
  case PW_MUL: return pw_expr_eval(e->a, args) * pw_expr_eval(e->b, args);
  case PW_DIV: return pw_expr_eval(e->a, args) / pw_expr_eval(e->b, args);
  case PW_LT: return pw_expr_eval(e->a, args) < pw_expr_eval(e->b, args);
  case PW_LE: return pw_expr_eval(e->a, args) <= pw_expr_eval(e->b, args);
  case PW_GT: return pw_expr_eval(e->a, args) > pw_expr_eval(e->b, args);
  case PW_GE: return pw_expr_eval(e->a, args) >= pw_expr_eval(e->b, args);
  case PW_EQ: return pw_expr_eval(e->a, args) == pw_expr_eval(e->b, args);
  case PW_NE: return pw_expr_eval(e->a, args) != pw_expr_eval(e->b, args);
  case PW_COND:
    return pw_expr_eval(e->a, args) != 0 ? pw_expr_eval(e->b, args) : pw_expr_eval(e->c, args);
  case PW_CALL1: return e->fn1(pw_expr_eval(e->a, args));
  case PW_CALL2: return e->fn2(pw_expr_eval(e->a, args), pw_expr_eval(e->b, args));
  }
  return 0;
}

#define LOOP(expr)                                                                             \
  do {                                                                                         \
    for (int i = 0; i < n; i++)                                                                \
      out[i] = (expr);                                                                         \
  } while (0)

/* One block evaluator per element type T: double, and float for float32 groups, whose calls
 * go to the float variants of the functions (fn1f, fn2f). */
#define DEFINE_EVAL_BLOCK(name, T, fn1, fn2)                                                   \
  void name(const PwExpr *e, const T *const *args, const int *strides, T *out, int n) {        \
    if (e->op == PW_ARG) {                                                                     \
      const T *src = args[e->arg];                                                             \
      if (strides[e->arg] == 0)                                                                \
        LOOP(src[0]);                                                                          \
      else                                                                                     \
        memcpy(out, src, sizeof(T) * (size_t)n);                                               \
      return;                                                                                  \
    }                                                                                          \
    if (e->op == PW_NUM) {                                                                     \
      LOOP((T)e->num);                                                                         \
      return;                                                                                  \
    }                                                                                          \
    T a[PW_BLOCK], b[PW_BLOCK];                                                                \
    name(e->a, args, strides, a, n);                                                           \
    if (e->b && e->op != PW_COND)                                                              \
      name(e->b, args, strides, b, n);                                                         \
    switch (e->op) {                                                                           \
    case PW_NEG: LOOP(-a[i]); break;                                                           \
    case PW_ADD: LOOP(a[i] + b[i]); break;                                                     \
    case PW_SUB: LOOP(a[i] - b[i]); break;                                                     \
    case PW_MUL: LOOP(a[i] * b[i]); break;                                                     \
    case PW_DIV: LOOP(a[i] / b[i]); break;                                                     \
    case PW_LT: LOOP(a[i] < b[i]); break;                                                      \
    case PW_LE: LOOP(a[i] <= b[i]); break;                                                     \
    case PW_GT: LOOP(a[i] > b[i]); break;                                                      \
    case PW_GE: LOOP(a[i] >= b[i]); break;                                                     \
    case PW_EQ: LOOP(a[i] == b[i]); break;                                                     \
    case PW_NE: LOOP(a[i] != b[i]); break;                                                     \
    case PW_COND: {                                                                            \
      T c[PW_BLOCK];                                                                           \
      name(e->b, args, strides, b, n);                                                         \
      name(e->c, args, strides, c, n);                                                         \
      LOOP(a[i] != 0 ? b[i] : c[i]);                                                           \
      break;                                                                                   \
    }                                                                                          \
    case PW_CALL1: LOOP(e->fn1(a[i])); break;                                                  \
    case PW_CALL2: LOOP(e->fn2(a[i], b[i])); break;                                            \
    case PW_ARG:                                                                               \
    case PW_NUM: break;                                                                        \
    }                                                                                          \
  }

DEFINE_EVAL_BLOCK(pw_expr_eval_block, double, fn1, fn2)
DEFINE_EVAL_BLOCK(pw_expr_eval_block_f, float, fn1f, fn2f)
