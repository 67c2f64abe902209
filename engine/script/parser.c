/* The script parser (contract in parser.h): recursive descent, one function per grammar rule
 * of Python's expression and statement grammar, restricted to the TorchScript subset. */
#include "script/parser.h"

#include <string.h>

/* Deepest recursion of expressions and blocks: past it the input is rejected. */
#define PARSE_MAX_DEPTH 200

typedef struct {
  const ScriptSource *src;
  GArray *tokens;
  guint pos;
  ScriptTree *tree;
  int depth;
  GError **error;
} Parser;

static const char *const keywords[] = {
  "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class",
  "continue", "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if",
  "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try",
  "while", "with", "yield",
};

static bool
is_keyword(const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS(keywords); i++)
    if (strcmp(keywords[i], name) == 0)
      return true;
  return false;
}

static const ScriptToken *
peek_at(const Parser *p, guint ahead)
{
  guint i = MIN(p->pos + ahead, p->tokens->len - 1);
  return &g_array_index(p->tokens, ScriptToken, i);
}

static const ScriptToken *
peek(const Parser *p)
{
  return peek_at(p, 0);
}

static const ScriptToken *
advance(Parser *p)
{
  const ScriptToken *t = peek(p);
  if (p->pos < p->tokens->len - 1)
    p->pos++;
  return t;
}

static bool
is_op(const ScriptToken *t, const char *op)
{
  return t->kind == SCRIPT_TOK_OP && strcmp(t->text, op) == 0;
}

static bool
is_word(const ScriptToken *t, const char *word)
{
  return t->kind == SCRIPT_TOK_NAME && strcmp(t->text, word) == 0;
}

static char *
describe(const ScriptToken *t)
{
  switch (t->kind) {
  case SCRIPT_TOK_EOF: return g_strdup("end of file");
  case SCRIPT_TOK_NEWLINE: return g_strdup("end of line");
  case SCRIPT_TOK_INDENT: return g_strdup("an indented block");
  case SCRIPT_TOK_DEDENT: return g_strdup("the end of a block");
  case SCRIPT_TOK_STRING: return g_strdup("a string");
  case SCRIPT_TOK_INT:
  case SCRIPT_TOK_FLOAT: return g_strdup_printf("number '%s'", t->text);
  case SCRIPT_TOK_NAME:
    return g_strdup_printf("%s '%s'", is_keyword(t->text) ? "keyword" : "name", t->text);
  case SCRIPT_TOK_OP: return g_strdup_printf("'%s'", t->text);
  }
  return g_strdup("?");
}

/* "expected WHAT, found X" at the current token. Always returns false/NULL for the caller. */
static gpointer
fail_expected(Parser *p, const char *what)
{
  const ScriptToken *t = peek(p);
  g_autofree char *found = describe(t);
  script_error_at(p->error, p->src, t->line, t->col, "expected %s, found %s", what, found);
  return NULL;
}

static bool
expect_op(Parser *p, const char *op)
{
  if (!is_op(peek(p), op)) {
    g_autofree char *what = g_strdup_printf("'%s'", op);
    fail_expected(p, what);
    return false;
  }
  advance(p);
  return true;
}

static bool
enter(Parser *p)
{
  if (++p->depth > PARSE_MAX_DEPTH) {
    const ScriptToken *t = peek(p);
    script_error_at(p->error, p->src, t->line, t->col, "expression nested too deeply");
    return false;
  }
  return true;
}

static ScriptExpr *
new_expr(Parser *p, ScriptExprKind kind, ScriptLoc loc)
{
  ScriptExpr *e = script_tree_alloc(p->tree, sizeof *e);
  e->kind = kind;
  e->loc = loc;
  return e;
}

static ScriptLoc
loc_of(const ScriptToken *t)
{
  return (ScriptLoc){t->line, t->col};
}

static ScriptExpr *
binary(Parser *p, ScriptExprKind kind, const char *op, ScriptExpr *a, ScriptExpr *b)
{
  ScriptExpr *e = new_expr(p, kind, a->loc);
  e->op = op ? script_tree_intern(p->tree, op) : NULL;
  e->args = script_tree_array(p->tree);
  g_ptr_array_add(e->args, a);
  g_ptr_array_add(e->args, b);
  return e;
}

static ScriptExpr *parse_test(Parser *p);
static ScriptExpr *parse_factor(Parser *p);

/* test (',' test)* [','] : a tuple when a comma appears (or `force_tuple`). */
static ScriptExpr *
parse_test_list(Parser *p, bool allow_trailing_comma)
{
  ScriptExpr *first = parse_test(p);
  if (first == NULL || !is_op(peek(p), ","))
    return first;
  ScriptExpr *tuple = new_expr(p, SE_TUPLE, first->loc);
  tuple->args = script_tree_array(p->tree);
  g_ptr_array_add(tuple->args, first);
  while (is_op(peek(p), ",")) {
    advance(p);
    const ScriptToken *t = peek(p);
    if (allow_trailing_comma && (t->kind == SCRIPT_TOK_NEWLINE || is_op(t, "=") ||
                                 is_op(t, ")") || is_op(t, ";")))
      break;
    ScriptExpr *e = parse_test(p);
    if (e == NULL)
      return NULL;
    g_ptr_array_add(tuple->args, e);
  }
  return tuple;
}

/* The elements of a parenthesized or bracketed display up to `close`. */
static bool
parse_elements(Parser *p, const char *close, GPtrArray *into, bool *saw_comma)
{
  *saw_comma = false;
  while (!is_op(peek(p), close)) {
    ScriptExpr *e = parse_test(p);
    if (e == NULL)
      return false;
    g_ptr_array_add(into, e);
    if (!is_op(peek(p), ",")) {
      if (!is_op(peek(p), close)) {
        g_autofree char *what = g_strdup_printf("',' or '%s'", close);
        fail_expected(p, what);
        return false;
      }
      break;
    }
    *saw_comma = true;
    advance(p);
  }
  advance(p);
  return true;
}

static ScriptExpr *
parse_atom(Parser *p)
{
  const ScriptToken *t = peek(p);
  ScriptLoc loc = loc_of(t);
  switch (t->kind) {
  case SCRIPT_TOK_INT: {
    ScriptExpr *e = new_expr(p, SE_INT, loc);
    e->int_value = advance(p)->int_value;
    return e;
  }
  case SCRIPT_TOK_FLOAT: {
    ScriptExpr *e = new_expr(p, SE_FLOAT, loc);
    e->float_value = advance(p)->float_value;
    return e;
  }
  case SCRIPT_TOK_STRING: {
    GString *s = g_string_new(NULL);
    while (peek(p)->kind == SCRIPT_TOK_STRING)
      g_string_append(s, advance(p)->text);
    ScriptExpr *e = new_expr(p, SE_STRING, loc);
    e->name = script_tree_intern(p->tree, s->str);
    g_string_free(s, TRUE);
    return e;
  }
  case SCRIPT_TOK_NAME: {
    if (is_word(t, "True") || is_word(t, "False")) {
      ScriptExpr *e = new_expr(p, SE_BOOL, loc);
      e->int_value = is_word(advance(p), "True");
      return e;
    }
    if (is_word(t, "None")) {
      advance(p);
      return new_expr(p, SE_NONE, loc);
    }
    if (is_keyword(t->text))
      return fail_expected(p, "an expression");
    ScriptExpr *e = new_expr(p, SE_NAME, loc);
    e->name = script_tree_intern(p->tree, advance(p)->text);
    return e;
  }
  case SCRIPT_TOK_OP:
    if (is_op(t, "(") || is_op(t, "[")) {
      bool paren = is_op(t, "(");
      advance(p);
      ScriptExpr *e = new_expr(p, paren ? SE_TUPLE : SE_LIST, loc);
      e->args = script_tree_array(p->tree);
      bool saw_comma;
      if (!parse_elements(p, paren ? ")" : "]", e->args, &saw_comma))
        return NULL;
      if (paren && e->args->len == 1 && !saw_comma)
        return g_ptr_array_index(e->args, 0); /* (x) is x */
      return e;
    }
    break;
  default:
    break;
  }
  return fail_expected(p, "an expression");
}

static bool
parse_call_args(Parser *p, ScriptExpr *call)
{
  call->keywords = script_tree_array(p->tree);
  call->kwargs = script_tree_array(p->tree);
  while (!is_op(peek(p), ")")) {
    const ScriptToken *t = peek(p);
    if (t->kind == SCRIPT_TOK_NAME && is_op(peek_at(p, 1), "=") && !is_keyword(t->text)) {
      for (guint i = 0; i < call->keywords->len; i++)
        if (strcmp(g_ptr_array_index(call->keywords, i), t->text) == 0) {
          script_error_at(p->error, p->src, t->line, t->col, "keyword argument '%s' repeated",
                          t->text);
          return false;
        }
      g_ptr_array_add(call->keywords, (gpointer)script_tree_intern(p->tree, t->text));
      advance(p);
      advance(p);
      ScriptExpr *v = parse_test(p);
      if (v == NULL)
        return false;
      g_ptr_array_add(call->kwargs, v);
    } else {
      if (call->keywords->len > 0) {
        script_error_at(p->error, p->src, t->line, t->col,
                        "positional argument follows keyword argument");
        return false;
      }
      ScriptExpr *v = parse_test(p);
      if (v == NULL)
        return false;
      g_ptr_array_add(call->args, v);
    }
    if (!is_op(peek(p), ",")) {
      if (!is_op(peek(p), ")")) {
        fail_expected(p, "',' or ')'");
        return false;
      }
      break;
    }
    advance(p);
  }
  advance(p);
  return true;
}

/* One subscript element: test, or a slice [test]:[test][:[test]]. */
static ScriptExpr *
parse_subscript_element(Parser *p)
{
  ScriptLoc loc = loc_of(peek(p));
  ScriptExpr *first = NULL;
  if (!is_op(peek(p), ":")) {
    first = parse_test(p);
    if (first == NULL || !is_op(peek(p), ":"))
      return first;
  }
  ScriptExpr *slice = new_expr(p, SE_SLICE, loc);
  slice->args = script_tree_array(p->tree);
  g_ptr_array_add(slice->args, first);
  for (int part = 0; part < 2 && is_op(peek(p), ":"); part++) {
    advance(p);
    ScriptExpr *e = NULL;
    const ScriptToken *t = peek(p);
    if (!is_op(t, ":") && !is_op(t, "]") && !is_op(t, ",") && !(e = parse_test(p)))
      return NULL;
    g_ptr_array_add(slice->args, e);
  }
  while (slice->args->len < 3)
    g_ptr_array_add(slice->args, NULL);
  return slice;
}

static ScriptExpr *
parse_primary(Parser *p)
{
  ScriptExpr *e = parse_atom(p);
  while (e != NULL) {
    const ScriptToken *t = peek(p);
    if (is_op(t, "(")) {
      advance(p);
      ScriptExpr *call = new_expr(p, SE_CALL, e->loc);
      call->args = script_tree_array(p->tree);
      g_ptr_array_add(call->args, e);
      if (!parse_call_args(p, call))
        return NULL;
      e = call;
    } else if (is_op(t, "[")) {
      advance(p);
      ScriptExpr *index = parse_subscript_element(p);
      if (index == NULL)
        return NULL;
      if (is_op(peek(p), ",")) {
        ScriptExpr *tuple = new_expr(p, SE_TUPLE, index->loc);
        tuple->args = script_tree_array(p->tree);
        g_ptr_array_add(tuple->args, index);
        while (is_op(peek(p), ",") && !is_op(peek_at(p, 1), "]")) {
          advance(p);
          ScriptExpr *more = parse_subscript_element(p);
          if (more == NULL)
            return NULL;
          g_ptr_array_add(tuple->args, more);
        }
        if (is_op(peek(p), ","))
          advance(p);
        index = tuple;
      }
      if (!expect_op(p, "]"))
        return NULL;
      e = binary(p, SE_SUBSCRIPT, NULL, e, index);
    } else if (is_op(t, ".")) {
      advance(p);
      const ScriptToken *name = peek(p);
      if (name->kind != SCRIPT_TOK_NAME || is_keyword(name->text))
        return fail_expected(p, "an attribute name");
      ScriptExpr *attr = new_expr(p, SE_ATTRIBUTE, e->loc);
      attr->name = script_tree_intern(p->tree, advance(p)->text);
      attr->args = script_tree_array(p->tree);
      g_ptr_array_add(attr->args, e);
      e = attr;
    } else {
      break;
    }
  }
  return e;
}

static ScriptExpr *
parse_power(Parser *p)
{
  ScriptExpr *base = parse_primary(p);
  if (base == NULL || !is_op(peek(p), "**"))
    return base;
  advance(p);
  if (!enter(p))
    return NULL;
  ScriptExpr *exponent = parse_factor(p); /* right associative: a ** -b ** c */
  p->depth--;
  return exponent ? binary(p, SE_BINARY, "**", base, exponent) : NULL;
}

static ScriptExpr *
parse_factor(Parser *p)
{
  const ScriptToken *t = peek(p);
  if (!is_op(t, "-") && !is_op(t, "+") && !is_op(t, "~"))
    return parse_power(p);
  if (!enter(p))
    return NULL;
  advance(p);
  ScriptExpr *operand = parse_factor(p);
  p->depth--;
  if (operand == NULL)
    return NULL;
  ScriptExpr *e = new_expr(p, SE_UNARY, loc_of(t));
  e->op = script_tree_intern(p->tree, t->text);
  e->args = script_tree_array(p->tree);
  g_ptr_array_add(e->args, operand);
  return e;
}

/* Left-associative binary levels, loosest last. */
static const char *const binary_levels[][6] = {
  {"*", "/", "//", "%", "@", NULL},
  {"+", "-", NULL},
  {"<<", ">>", NULL},
  {"&", NULL},
  {"^", NULL},
  {"|", NULL},
};

static const char *
level_op(const ScriptToken *t, int level)
{
  for (int i = 0; binary_levels[level][i]; i++)
    if (is_op(t, binary_levels[level][i]))
      return binary_levels[level][i];
  return NULL;
}

static ScriptExpr *
parse_binary_level(Parser *p, int level)
{
  ScriptExpr *left = level == 0 ? parse_factor(p) : parse_binary_level(p, level - 1);
  const char *op;
  while (left != NULL && (op = level_op(peek(p), level))) {
    advance(p);
    ScriptExpr *right = level == 0 ? parse_factor(p) : parse_binary_level(p, level - 1);
    left = right ? binary(p, SE_BINARY, op, left, right) : NULL;
  }
  return left;
}

/* A comparison operator at the current token ("not in" and "is not" take two), or NULL. */
static const char *
comparison_op(Parser *p, guint *n_tokens)
{
  static const char *const ops[] = {"<", ">", "==", ">=", "<=", "!="};
  const ScriptToken *t = peek(p);
  *n_tokens = 1;
  for (guint i = 0; i < G_N_ELEMENTS(ops); i++)
    if (is_op(t, ops[i]))
      return ops[i];
  if (is_word(t, "in"))
    return "in";
  if (is_word(t, "is")) {
    if (is_word(peek_at(p, 1), "not")) {
      *n_tokens = 2;
      return "is not";
    }
    return "is";
  }
  if (is_word(t, "not") && is_word(peek_at(p, 1), "in")) {
    *n_tokens = 2;
    return "not in";
  }
  return NULL;
}

static ScriptExpr *
parse_comparison(Parser *p)
{
  ScriptExpr *left = parse_binary_level(p, G_N_ELEMENTS(binary_levels) - 1);
  ScriptExpr *result = NULL;
  const char *op;
  guint n;
  while (left != NULL && (op = comparison_op(p, &n))) {
    for (guint i = 0; i < n; i++)
      advance(p);
    ScriptExpr *right = parse_binary_level(p, G_N_ELEMENTS(binary_levels) - 1);
    if (right == NULL)
      return NULL;
    /* a < b < c is (a < b) and (b < c) */
    ScriptExpr *cmp = binary(p, SE_COMPARE, op, left, right);
    result = result ? binary(p, SE_AND, NULL, result, cmp) : cmp;
    left = right;
  }
  return result ? result : left;
}

static ScriptExpr *
parse_not(Parser *p)
{
  const ScriptToken *t = peek(p);
  if (!is_word(t, "not"))
    return parse_comparison(p);
  if (!enter(p))
    return NULL;
  advance(p);
  ScriptExpr *operand = parse_not(p);
  p->depth--;
  if (operand == NULL)
    return NULL;
  ScriptExpr *e = new_expr(p, SE_UNARY, loc_of(t));
  e->op = script_tree_intern(p->tree, "not");
  e->args = script_tree_array(p->tree);
  g_ptr_array_add(e->args, operand);
  return e;
}

static ScriptExpr *
parse_and_or(Parser *p, bool is_or)
{
  ScriptExpr *left = is_or ? parse_and_or(p, false) : parse_not(p);
  while (left != NULL && is_word(peek(p), is_or ? "or" : "and")) {
    advance(p);
    ScriptExpr *right = is_or ? parse_and_or(p, false) : parse_not(p);
    left = right ? binary(p, is_or ? SE_OR : SE_AND, NULL, left, right) : NULL;
  }
  return left;
}

static ScriptExpr *
parse_test(Parser *p)
{
  if (!enter(p))
    return NULL;
  ScriptExpr *e = parse_and_or(p, true);
  if (e != NULL && is_word(peek(p), "if")) {
    advance(p);
    ScriptExpr *cond = parse_and_or(p, true);
    ScriptExpr *other = NULL;
    if (cond != NULL && (is_word(peek(p), "else") || fail_expected(p, "'else'"))) {
      advance(p);
      other = parse_test(p);
    }
    if (other == NULL) {
      e = NULL;
    } else {
      ScriptExpr *t = new_expr(p, SE_TERNARY, e->loc);
      t->args = script_tree_array(p->tree);
      g_ptr_array_add(t->args, e);
      g_ptr_array_add(t->args, cond);
      g_ptr_array_add(t->args, other);
      e = t;
    }
  }
  p->depth--;
  return e;
}

/* --- types --- */

static ScriptTypeExpr *
parse_type(Parser *p)
{
  const ScriptToken *t = peek(p);
  if (t->kind != SCRIPT_TOK_NAME || (is_keyword(t->text) && !is_word(t, "None")))
    return fail_expected(p, "a type");
  if (!enter(p))
    return NULL;
  ScriptTypeExpr *type = script_tree_alloc(p->tree, sizeof *type);
  type->loc = loc_of(t);
  GString *name = g_string_new(advance(p)->text);
  while (is_op(peek(p), ".") && peek_at(p, 1)->kind == SCRIPT_TOK_NAME) {
    advance(p);
    g_string_append_printf(name, ".%s", advance(p)->text);
  }
  type->name = script_tree_intern(p->tree, name->str);
  g_string_free(name, TRUE);
  if (is_op(peek(p), "[")) {
    advance(p);
    type->args = script_tree_array(p->tree);
    do {
      if (is_op(peek(p), ","))
        advance(p);
      ScriptTypeExpr *arg = parse_type(p);
      if (arg == NULL)
        return NULL;
      g_ptr_array_add(type->args, arg);
    } while (is_op(peek(p), ","));
    if (!expect_op(p, "]"))
      return NULL;
  }
  p->depth--;
  return type;
}

/* --- statements --- */

static GPtrArray *parse_suite(Parser *p);
static ScriptDef *parse_def(Parser *p);

static ScriptStmt *
new_stmt(Parser *p, ScriptStmtKind kind, const ScriptToken *at)
{
  ScriptStmt *s = script_tree_alloc(p->tree, sizeof *s);
  s->kind = kind;
  s->loc = loc_of(at);
  return s;
}

static bool
is_assign_target(const ScriptExpr *e)
{
  if (e->kind == SE_NAME)
    return true;
  if (e->kind != SE_TUPLE && e->kind != SE_LIST)
    return false;
  for (guint i = 0; i < e->args->len; i++)
    if (!is_assign_target(g_ptr_array_index(e->args, i)))
      return false;
  return e->args->len > 0;
}

static bool
check_target(Parser *p, const ScriptExpr *e)
{
  if (is_assign_target(e))
    return true;
  script_error_at(p->error, p->src, e->loc.line, e->loc.col,
                  "cannot assign to this expression (only names and tuples of names)");
  return false;
}

static const char *const aug_ops[] = {"+=", "-=", "*=", "/=", "//=", "%=", "**=", "@=",
                                      "&=", "|=", "^=", "<<=", ">>="};

static ScriptStmt *
parse_expression_statement(Parser *p)
{
  const ScriptToken *start = peek(p);
  ScriptExpr *e = parse_test_list(p, true);
  if (e == NULL)
    return NULL;
  const ScriptToken *t = peek(p);
  for (guint i = 0; i < G_N_ELEMENTS(aug_ops); i++)
    if (is_op(t, aug_ops[i])) {
      if (e->kind != SE_NAME) {
        script_error_at(p->error, p->src, e->loc.line, e->loc.col,
                        "augmented assignment needs a single name on the left");
        return NULL;
      }
      advance(p);
      ScriptStmt *s = new_stmt(p, SS_AUG_ASSIGN, start);
      g_autofree char *op = g_strndup(aug_ops[i], strlen(aug_ops[i]) - 1);
      s->op = script_tree_intern(p->tree, op);
      s->target = e;
      return (s->value = parse_test(p)) ? s : NULL;
    }
  if (is_op(t, ":") && e->kind == SE_NAME) { /* x: T = value (the annotation is checked) */
    advance(p);
    if (parse_type(p) == NULL)
      return NULL;
    t = peek(p);
    if (!is_op(t, "="))
      return fail_expected(p, "'=' after the annotation");
  }
  if (!is_op(t, "=")) {
    ScriptStmt *s = new_stmt(p, SS_EXPR, start);
    s->value = e;
    return s;
  }
  advance(p);
  if (!check_target(p, e))
    return NULL;
  ScriptStmt *s = new_stmt(p, SS_ASSIGN, start);
  s->target = e;
  s->value = parse_test_list(p, true);
  if (s->value != NULL && is_op(peek(p), "=")) {
    t = peek(p);
    script_error_at(p->error, p->src, t->line, t->col, "chained assignment is not supported");
    return NULL;
  }
  return s->value ? s : NULL;
}

static ScriptStmt *
parse_small_statement(Parser *p)
{
  const ScriptToken *t = peek(p);
  if (is_word(t, "pass") || is_word(t, "break") || is_word(t, "continue")) {
    advance(p);
    return new_stmt(p, is_word(t, "pass") ? SS_PASS : is_word(t, "break") ? SS_BREAK
                                                                           : SS_CONTINUE,
                    t);
  }
  if (is_word(t, "return") || is_word(t, "raise")) {
    ScriptStmt *s = new_stmt(p, is_word(t, "return") ? SS_RETURN : SS_RAISE, t);
    advance(p);
    const ScriptToken *n = peek(p);
    if (n->kind != SCRIPT_TOK_NEWLINE && !is_op(n, ";") &&
        !(s->value = s->kind == SS_RETURN ? parse_test_list(p, true) : parse_test(p)))
      return NULL;
    return s;
  }
  if (is_word(t, "assert")) {
    ScriptStmt *s = new_stmt(p, SS_ASSERT, t);
    advance(p);
    if (!(s->cond = parse_test(p)))
      return NULL;
    if (is_op(peek(p), ",")) {
      advance(p);
      if (!(s->value = parse_test(p)))
        return NULL;
    }
    return s;
  }
  if (t->kind == SCRIPT_TOK_NAME && is_keyword(t->text) && !is_word(t, "not") &&
      !is_word(t, "True") && !is_word(t, "False") && !is_word(t, "None")) {
    script_error_at(p->error, p->src, t->line, t->col, "'%s' statements are not supported",
                    t->text);
    return NULL;
  }
  return parse_expression_statement(p);
}

/* small (';' small)* NEWLINE, appended to `into`. */
static bool
parse_simple_statements(Parser *p, GPtrArray *into)
{
  for (;;) {
    ScriptStmt *s = parse_small_statement(p);
    if (s == NULL)
      return false;
    g_ptr_array_add(into, s);
    if (!is_op(peek(p), ";"))
      break;
    advance(p);
    if (peek(p)->kind == SCRIPT_TOK_NEWLINE)
      break;
  }
  if (peek(p)->kind != SCRIPT_TOK_NEWLINE) {
    fail_expected(p, "end of line");
    return false;
  }
  advance(p);
  return true;
}

static ScriptStmt *
parse_if(Parser *p)
{
  const ScriptToken *t = advance(p); /* if / elif */
  bool is_elif = is_word(t, "elif");
  ScriptStmt *s = new_stmt(p, SS_IF, t);
  if (!(s->cond = parse_test(p)) || !expect_op(p, ":") || !(s->body = parse_suite(p)))
    return NULL;
  if (is_elif) /* PyTorch's range of an elif's If starts at its condition */
    s->loc = s->cond->loc;
  if (is_word(peek(p), "elif")) {
    ScriptStmt *elif = parse_if(p);
    if (elif == NULL)
      return NULL;
    s->orelse = script_tree_array(p->tree);
    g_ptr_array_add(s->orelse, elif);
  } else if (is_word(peek(p), "else")) {
    advance(p);
    if (!expect_op(p, ":") || !(s->orelse = parse_suite(p)))
      return NULL;
  }
  return s;
}

static bool
parse_statement(Parser *p, GPtrArray *into)
{
  const ScriptToken *t = peek(p);
  if (is_word(t, "if")) {
    ScriptStmt *s = parse_if(p);
    if (s)
      g_ptr_array_add(into, s);
    return s != NULL;
  }
  if (is_word(t, "elif") || is_word(t, "else")) {
    script_error_at(p->error, p->src, t->line, t->col, "'%s' without a matching 'if'",
                    t->text);
    return false;
  }
  if (is_word(t, "while") || is_word(t, "for")) {
    ScriptStmt *s = new_stmt(p, is_word(t, "for") ? SS_FOR : SS_WHILE, t);
    advance(p);
    if (s->kind == SS_FOR) {
      ScriptLoc target_loc = loc_of(peek(p));
      ScriptExpr *target = parse_binary_level(p, G_N_ELEMENTS(binary_levels) - 1);
      if (target && is_op(peek(p), ",")) {
        ScriptExpr *tuple = new_expr(p, SE_TUPLE, target_loc);
        tuple->args = script_tree_array(p->tree);
        g_ptr_array_add(tuple->args, target);
        while (target && is_op(peek(p), ",")) {
          advance(p);
          target = parse_binary_level(p, G_N_ELEMENTS(binary_levels) - 1);
          g_ptr_array_add(tuple->args, target);
        }
        target = target ? tuple : NULL;
      }
      if (target == NULL || !check_target(p, target))
        return false;
      if (!is_word(peek(p), "in")) {
        fail_expected(p, "'in'");
        return false;
      }
      advance(p);
      s->target = target;
      if (!(s->value = parse_test_list(p, false)))
        return false;
    } else if (!(s->cond = parse_test(p))) {
      return false;
    }
    if (!expect_op(p, ":") || !(s->body = parse_suite(p)))
      return false;
    if (is_word(peek(p), "else")) {
      t = peek(p);
      script_error_at(p->error, p->src, t->line, t->col, "'else' after a loop is not supported");
      return false;
    }
    g_ptr_array_add(into, s);
    return true;
  }
  if (is_word(t, "def")) {
    ScriptStmt *s = new_stmt(p, SS_DEF, t);
    if (!(s->def = parse_def(p)))
      return false;
    g_ptr_array_add(into, s);
    return true;
  }
  if (t->kind == SCRIPT_TOK_INDENT) {
    script_error_at(p->error, p->src, t->line, t->col, "unexpected indent");
    return false;
  }
  return parse_simple_statements(p, into);
}

/* ':' already read: NEWLINE INDENT statement+ DEDENT, or simple statements on the line. */
static GPtrArray *
parse_suite(Parser *p)
{
  GPtrArray *body = script_tree_array(p->tree);
  if (peek(p)->kind != SCRIPT_TOK_NEWLINE)
    return parse_simple_statements(p, body) ? body : NULL;
  advance(p);
  if (peek(p)->kind != SCRIPT_TOK_INDENT)
    return fail_expected(p, "an indented block");
  advance(p);
  if (!enter(p))
    return NULL;
  while (peek(p)->kind != SCRIPT_TOK_DEDENT && peek(p)->kind != SCRIPT_TOK_EOF)
    if (!parse_statement(p, body))
      return NULL;
  advance(p);
  p->depth--;
  return body;
}

static ScriptParam *
parse_param(Parser *p)
{
  const ScriptToken *t = peek(p);
  if (t->kind != SCRIPT_TOK_NAME || is_keyword(t->text))
    return fail_expected(p, "a parameter name");
  ScriptParam *param = script_tree_alloc(p->tree, sizeof *param);
  param->loc = loc_of(t);
  param->name = script_tree_intern(p->tree, advance(p)->text);
  if (is_op(peek(p), ":")) {
    advance(p);
    if (!(param->type = parse_type(p)))
      return NULL;
  }
  if (is_op(peek(p), "=")) {
    advance(p);
    if (!(param->default_value = parse_test(p)))
      return NULL;
  }
  return param;
}

static ScriptDef *
parse_def(Parser *p)
{
  const ScriptToken *t = advance(p); /* def */
  ScriptDef *def = script_tree_alloc(p->tree, sizeof *def);
  def->loc = loc_of(t);
  const ScriptToken *name = peek(p);
  if (name->kind != SCRIPT_TOK_NAME || is_keyword(name->text))
    return fail_expected(p, "a function name");
  def->name = script_tree_intern(p->tree, advance(p)->text);
  if (!expect_op(p, "("))
    return NULL;
  def->params = script_tree_array(p->tree);
  while (!is_op(peek(p), ")")) {
    const ScriptToken *at = peek(p);
    ScriptParam *param = parse_param(p);
    if (param == NULL)
      return NULL;
    for (guint i = 0; i < def->params->len; i++)
      if (strcmp(((ScriptParam *)g_ptr_array_index(def->params, i))->name, param->name) == 0) {
        script_error_at(p->error, p->src, at->line, at->col, "duplicate parameter '%s'",
                        param->name);
        return NULL;
      }
    if (param->default_value == NULL && def->params->len > 0 &&
        ((ScriptParam *)g_ptr_array_index(def->params, def->params->len - 1))->default_value) {
      script_error_at(p->error, p->src, at->line, at->col,
                      "parameter without a default follows one with a default");
      return NULL;
    }
    g_ptr_array_add(def->params, param);
    if (!is_op(peek(p), ",")) {
      if (!is_op(peek(p), ")"))
        return fail_expected(p, "',' or ')'");
      break;
    }
    advance(p);
  }
  advance(p);
  if (is_op(peek(p), "->")) {
    advance(p);
    if (!(def->returns = parse_type(p)))
      return NULL;
  }
  if (!expect_op(p, ":") || !(def->body = parse_suite(p)))
    return NULL;
  return def;
}

/* `import a.b [as c]`, `from a import b, c` and `@decorator` lines: skipped to their end. */
static bool
skip_top_level_line(Parser *p)
{
  const ScriptToken *t = peek(p);
  if (!is_word(t, "import") && !is_word(t, "from") && !is_op(t, "@"))
    return false;
  while (peek(p)->kind != SCRIPT_TOK_NEWLINE && peek(p)->kind != SCRIPT_TOK_EOF)
    advance(p);
  advance(p);
  return true;
}

ScriptTree *
script_parse(const ScriptSource *src, GError **error)
{
  GArray *tokens = script_lex(src, error);
  if (tokens == NULL)
    return NULL;
  Parser p = {.src = src, .tokens = tokens, .tree = script_tree_new(), .error = error};
  bool ok = true;
  while (ok && peek(&p)->kind != SCRIPT_TOK_EOF) {
    const ScriptToken *t = peek(&p);
    if (t->kind == SCRIPT_TOK_NEWLINE) {
      advance(&p);
    } else if (is_word(t, "def")) {
      ScriptDef *def = parse_def(&p);
      if (def)
        g_ptr_array_add(p.tree->defs, def);
      ok = def != NULL;
    } else if (!skip_top_level_line(&p)) {
      if (t->kind == SCRIPT_TOK_INDENT)
        script_error_at(error, src, t->line, t->col, "unexpected indent");
      else
        fail_expected(&p, "'def' at the top level");
      ok = false;
    }
  }
  if (ok && p.tree->defs->len == 0) {
    script_error_at(error, src, 1, 1, "no function definition (def) in the file");
    ok = false;
  }
  script_tokens_free(tokens);
  if (!ok) {
    script_tree_free(p.tree);
    return NULL;
  }
  return p.tree;
}
