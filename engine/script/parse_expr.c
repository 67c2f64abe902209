/* The script parser's expressions and types (contract in parser.h): recursive descent over
 * Python's expression grammar, loosest rule (test) to tightest (atom). */
#include <string.h>

#include "script/parse_internal.h"

static const char *const keywords[] = {
    "False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
    "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
    "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
    "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield",
};

bool sp_is_keyword(const char *name) {
  for (guint i = 0; i < G_N_ELEMENTS(keywords); i++)
    if (strcmp(keywords[i], name) == 0)
      return true;
  return false;
}

static const ScriptToken *sp_peek_at(const Parser *p, guint ahead) {
  guint i = MIN(p->pos + ahead, p->tokens->len - 1);
  return &g_array_index(p->tokens, ScriptToken, i);
}

const ScriptToken *sp_peek(const Parser *p) {
  return sp_peek_at(p, 0);
}

const ScriptToken *sp_advance(Parser *p) {
  const ScriptToken *t = sp_peek(p);
  if (p->pos < p->tokens->len - 1)
    p->pos++;
  return t;
}

bool sp_is_op(const ScriptToken *t, const char *op) {
  return t->kind == SCRIPT_TOK_OP && strcmp(t->text, op) == 0;
}

bool sp_is_word(const ScriptToken *t, const char *word) {
  return t->kind == SCRIPT_TOK_NAME && strcmp(t->text, word) == 0;
}

static char *describe(const ScriptToken *t) {
  switch (t->kind) {
  case SCRIPT_TOK_EOF: return g_strdup("end of file");
  case SCRIPT_TOK_NEWLINE: return g_strdup("end of line");
  case SCRIPT_TOK_INDENT: return g_strdup("an indented block");
  case SCRIPT_TOK_DEDENT: return g_strdup("the end of a block");
  case SCRIPT_TOK_STRING: return g_strdup("a string");
  case SCRIPT_TOK_INT:
  case SCRIPT_TOK_FLOAT: return g_strdup_printf("number '%s'", t->text);
  case SCRIPT_TOK_NAME:
    return g_strdup_printf("%s '%s'", sp_is_keyword(t->text) ? "keyword" : "name", t->text);
  case SCRIPT_TOK_OP: return g_strdup_printf("'%s'", t->text);
  }
  return g_strdup("?");
}

/* "expected WHAT, found X" at the current token. Always returns false/NULL for the caller. */
gpointer sp_fail_expected(Parser *p, const char *what) {
  const ScriptToken *t = sp_peek(p);
  g_autofree char *found = describe(t);
  script_error_at(p->error, p->src, t->line, t->col, "expected %s, found %s", what, found);
  return NULL;
}

bool sp_expect_op(Parser *p, const char *op) {
  if (!sp_is_op(sp_peek(p), op)) {
    g_autofree char *what = g_strdup_printf("'%s'", op);
    sp_fail_expected(p, what);
    return false;
  }
  sp_advance(p);
  return true;
}

SpListStep sp_list_separator(Parser *p, const char *close) {
  if (sp_is_op(sp_peek(p), ",")) {
    sp_advance(p);
    return SP_LIST_MORE;
  }
  if (sp_is_op(sp_peek(p), close))
    return SP_LIST_END;
  g_autofree char *what = g_strdup_printf("',' or '%s'", close);
  sp_fail_expected(p, what);
  return SP_LIST_ERROR;
}

bool sp_enter(Parser *p) {
  if (++p->depth > PARSE_MAX_DEPTH) {
    const ScriptToken *t = sp_peek(p);
    script_error_at(p->error, p->src, t->line, t->col, "expression nested too deeply");
    return false;
  }
  return true;
}

ScriptExpr *sp_new_expr(Parser *p, ScriptExprKind kind, ScriptLoc loc) {
  ScriptExpr *e = script_tree_alloc(p->tree, sizeof *e);
  e->kind = kind;
  e->loc = loc;
  return e;
}

ScriptLoc sp_loc_of(const ScriptToken *t) {
  return (ScriptLoc){t->line, t->col};
}

static ScriptExpr *binary(Parser *p, ScriptExprKind kind, const char *op, ScriptExpr *a,
                          ScriptExpr *b) {
  ScriptExpr *e = sp_new_expr(p, kind, a->loc);
  e->op = op ? script_tree_intern(p->tree, op) : NULL;
  e->args = script_tree_array(p->tree);
  g_ptr_array_add(e->args, a);
  g_ptr_array_add(e->args, b);
  return e;
}

static ScriptExpr *parse_factor(Parser *p);

/* test (',' test)* [','] : a tuple when a comma appears. */
ScriptExpr *sp_parse_test_list(Parser *p, bool allow_trailing_comma) {
  ScriptExpr *first = sp_parse_test(p);
  if (first == NULL || !sp_is_op(sp_peek(p), ","))
    return first;
  ScriptExpr *tuple = sp_new_expr(p, SE_TUPLE, first->loc);
  tuple->args = script_tree_array(p->tree);
  g_ptr_array_add(tuple->args, first);
  while (sp_is_op(sp_peek(p), ",")) {
    sp_advance(p);
    const ScriptToken *t = sp_peek(p);
    if (allow_trailing_comma &&
        (t->kind == SCRIPT_TOK_NEWLINE || sp_is_op(t, "=") || sp_is_op(t, ")") || sp_is_op(t, ";")))
      break;
    ScriptExpr *e = sp_parse_test(p);
    if (e == NULL)
      return NULL;
    g_ptr_array_add(tuple->args, e);
  }
  return tuple;
}

/* The elements of a parenthesized or bracketed display up to `close`. */
static bool parse_elements(Parser *p, const char *close, GPtrArray *into, bool *saw_comma) {
  *saw_comma = false;
  while (!sp_is_op(sp_peek(p), close)) {
    ScriptExpr *e = sp_parse_test(p);
    if (e == NULL)
      return false;
    g_ptr_array_add(into, e);
    SpListStep step = sp_list_separator(p, close);
    if (step == SP_LIST_ERROR)
      return false;
    if (step == SP_LIST_END)
      break;
    *saw_comma = true;
  }
  sp_advance(p);
  return true;
}

/* The `key: value` entries of a dict display after its '{', up to and including the '}'. */
static bool parse_dict_entries(Parser *p, GPtrArray *into) {
  while (!sp_is_op(sp_peek(p), "}")) {
    ScriptExpr *key = sp_parse_test(p);
    if (key == NULL || !sp_expect_op(p, ":"))
      return false;
    ScriptExpr *value = sp_parse_test(p);
    if (value == NULL)
      return false;
    g_ptr_array_add(into, key);
    g_ptr_array_add(into, value);
    SpListStep step = sp_list_separator(p, "}");
    if (step == SP_LIST_ERROR)
      return false;
    if (step == SP_LIST_END)
      break;
  }
  sp_advance(p);
  return true;
}

static ScriptExpr *parse_atom(Parser *p) {
  const ScriptToken *t = sp_peek(p);
  ScriptLoc loc = sp_loc_of(t);
  switch (t->kind) {
  case SCRIPT_TOK_INT: {
    ScriptExpr *e = sp_new_expr(p, SE_INT, loc);
    e->int_value = sp_advance(p)->int_value;
    return e;
  }
  case SCRIPT_TOK_FLOAT: {
    ScriptExpr *e = sp_new_expr(p, SE_FLOAT, loc);
    e->float_value = sp_advance(p)->float_value;
    return e;
  }
  case SCRIPT_TOK_STRING: {
    GString *s = g_string_new(NULL);
    while (sp_peek(p)->kind == SCRIPT_TOK_STRING)
      g_string_append(s, sp_advance(p)->text);
    ScriptExpr *e = sp_new_expr(p, SE_STRING, loc);
    e->name = script_tree_intern(p->tree, s->str);
    g_string_free(s, TRUE);
    return e;
  }
  case SCRIPT_TOK_NAME: {
    if (sp_is_word(t, "True") || sp_is_word(t, "False")) {
      ScriptExpr *e = sp_new_expr(p, SE_BOOL, loc);
      e->int_value = sp_is_word(sp_advance(p), "True");
      return e;
    }
    if (sp_is_word(t, "None")) {
      sp_advance(p);
      return sp_new_expr(p, SE_NONE, loc);
    }
    if (sp_is_keyword(t->text))
      return sp_fail_expected(p, "an expression");
    ScriptExpr *e = sp_new_expr(p, SE_NAME, loc);
    e->name = script_tree_intern(p->tree, sp_advance(p)->text);
    return e;
  }
  case SCRIPT_TOK_OP:
    if (sp_is_op(t, "...")) {
      sp_advance(p);
      return sp_new_expr(p, SE_ELLIPSIS, loc);
    }
    if (sp_is_op(t, "(") || sp_is_op(t, "[")) {
      bool paren = sp_is_op(t, "(");
      sp_advance(p);
      ScriptExpr *e = sp_new_expr(p, paren ? SE_TUPLE : SE_LIST, loc);
      e->args = script_tree_array(p->tree);
      bool saw_comma;
      if (!parse_elements(p, paren ? ")" : "]", e->args, &saw_comma))
        return NULL;
      if (paren && e->args->len == 1 && !saw_comma)
        return g_ptr_array_index(e->args, 0); /* (x) is x */
      return e;
    }
    if (sp_is_op(t, "{")) {
      sp_advance(p);
      ScriptExpr *e = sp_new_expr(p, SE_DICT, loc);
      e->args = script_tree_array(p->tree);
      return parse_dict_entries(p, e->args) ? e : NULL;
    }
    break;
  default: break;
  }
  return sp_fail_expected(p, "an expression");
}

static bool parse_call_args(Parser *p, ScriptExpr *call) {
  call->keywords = script_tree_array(p->tree);
  call->kwargs = script_tree_array(p->tree);
  while (!sp_is_op(sp_peek(p), ")")) {
    const ScriptToken *t = sp_peek(p);
    if (t->kind == SCRIPT_TOK_NAME && sp_is_op(sp_peek_at(p, 1), "=") && !sp_is_keyword(t->text)) {
      for (guint i = 0; i < call->keywords->len; i++)
        if (strcmp(g_ptr_array_index(call->keywords, i), t->text) == 0) {
          script_error_at(p->error, p->src, t->line, t->col, "keyword argument '%s' repeated",
                          t->text);
          return false;
        }
      g_ptr_array_add(call->keywords, (gpointer)script_tree_intern(p->tree, t->text));
      sp_advance(p);
      sp_advance(p);
      ScriptExpr *v = sp_parse_test(p);
      if (v == NULL)
        return false;
      g_ptr_array_add(call->kwargs, v);
    } else {
      if (call->keywords->len > 0) {
        script_error_at(p->error, p->src, t->line, t->col,
                        "positional argument follows keyword argument");
        return false;
      }
      ScriptExpr *v = sp_parse_test(p);
      if (v == NULL)
        return false;
      g_ptr_array_add(call->args, v);
    }
    SpListStep step = sp_list_separator(p, ")");
    if (step == SP_LIST_ERROR)
      return false;
    if (step == SP_LIST_END)
      break;
  }
  sp_advance(p);
  return true;
}

/* One subscript element: test, or a slice [test]:[test][:[test]]. */
static ScriptExpr *parse_subscript_element(Parser *p) {
  ScriptLoc loc = sp_loc_of(sp_peek(p));
  ScriptExpr *first = NULL;
  if (!sp_is_op(sp_peek(p), ":")) {
    first = sp_parse_test(p);
    if (first == NULL || !sp_is_op(sp_peek(p), ":"))
      return first;
  }
  ScriptExpr *slice = sp_new_expr(p, SE_SLICE, loc);
  slice->args = script_tree_array(p->tree);
  g_ptr_array_add(slice->args, first);
  for (int part = 0; part < 2 && sp_is_op(sp_peek(p), ":"); part++) {
    sp_advance(p);
    ScriptExpr *e = NULL;
    const ScriptToken *t = sp_peek(p);
    if (!sp_is_op(t, ":") && !sp_is_op(t, "]") && !sp_is_op(t, ",") && !(e = sp_parse_test(p)))
      return NULL;
    g_ptr_array_add(slice->args, e);
  }
  while (slice->args->len < 3)
    g_ptr_array_add(slice->args, NULL);
  return slice;
}

static ScriptExpr *parse_primary(Parser *p) {
  ScriptExpr *e = parse_atom(p);
  while (e != NULL) {
    const ScriptToken *t = sp_peek(p);
    if (sp_is_op(t, "(")) {
      sp_advance(p);
      ScriptExpr *call = sp_new_expr(p, SE_CALL, e->loc);
      call->args = script_tree_array(p->tree);
      g_ptr_array_add(call->args, e);
      if (!parse_call_args(p, call))
        return NULL;
      e = call;
    } else if (sp_is_op(t, "[")) {
      sp_advance(p);
      ScriptExpr *index = parse_subscript_element(p);
      if (index == NULL)
        return NULL;
      if (sp_is_op(sp_peek(p), ",")) {
        ScriptExpr *tuple = sp_new_expr(p, SE_TUPLE, index->loc);
        tuple->args = script_tree_array(p->tree);
        g_ptr_array_add(tuple->args, index);
        while (sp_is_op(sp_peek(p), ",") && !sp_is_op(sp_peek_at(p, 1), "]")) {
          sp_advance(p);
          ScriptExpr *more = parse_subscript_element(p);
          if (more == NULL)
            return NULL;
          g_ptr_array_add(tuple->args, more);
        }
        if (sp_is_op(sp_peek(p), ","))
          sp_advance(p);
        index = tuple;
      }
      if (!sp_expect_op(p, "]"))
        return NULL;
      e = binary(p, SE_SUBSCRIPT, NULL, e, index);
    } else if (sp_is_op(t, ".")) {
      sp_advance(p);
      const ScriptToken *name = sp_peek(p);
      if (name->kind != SCRIPT_TOK_NAME || sp_is_keyword(name->text))
        return sp_fail_expected(p, "an attribute name");
      ScriptExpr *attr = sp_new_expr(p, SE_ATTRIBUTE, e->loc);
      attr->name = script_tree_intern(p->tree, sp_advance(p)->text);
      attr->args = script_tree_array(p->tree);
      g_ptr_array_add(attr->args, e);
      e = attr;
    } else {
      break;
    }
  }
  return e;
}

static ScriptExpr *parse_power(Parser *p) {
  ScriptExpr *base = parse_primary(p);
  if (base == NULL || !sp_is_op(sp_peek(p), "**"))
    return base;
  sp_advance(p);
  if (!sp_enter(p))
    return NULL;
  ScriptExpr *exponent = parse_factor(p); /* right associative: a ** -b ** c */
  p->depth--;
  return exponent ? binary(p, SE_BINARY, "**", base, exponent) : NULL;
}

static ScriptExpr *parse_factor(Parser *p) {
  const ScriptToken *t = sp_peek(p);
  if (!sp_is_op(t, "-") && !sp_is_op(t, "+") && !sp_is_op(t, "~"))
    return parse_power(p);
  if (!sp_enter(p))
    return NULL;
  sp_advance(p);
  ScriptExpr *operand = parse_factor(p);
  p->depth--;
  if (operand == NULL)
    return NULL;
  ScriptExpr *e = sp_new_expr(p, SE_UNARY, sp_loc_of(t));
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

static const char *level_op(const ScriptToken *t, int level) {
  for (int i = 0; binary_levels[level][i]; i++)
    if (sp_is_op(t, binary_levels[level][i]))
      return binary_levels[level][i];
  return NULL;
}

static ScriptExpr *parse_binary_level(Parser *p, int level) {
  ScriptExpr *left = level == 0 ? parse_factor(p) : parse_binary_level(p, level - 1);
  const char *op;
  while (left != NULL && (op = level_op(sp_peek(p), level))) {
    sp_advance(p);
    ScriptExpr *right = level == 0 ? parse_factor(p) : parse_binary_level(p, level - 1);
    left = right ? binary(p, SE_BINARY, op, left, right) : NULL;
  }
  return left;
}

/* A comparison operator at the current token ("not in" and "is not" take two), or NULL. */
static const char *comparison_op(Parser *p, guint *n_tokens) {
  static const char *const ops[] = {"<", ">", "==", ">=", "<=", "!="};
  const ScriptToken *t = sp_peek(p);
  *n_tokens = 1;
  for (guint i = 0; i < G_N_ELEMENTS(ops); i++)
    if (sp_is_op(t, ops[i]))
      return ops[i];
  if (sp_is_word(t, "in"))
    return "in";
  if (sp_is_word(t, "is")) {
    if (sp_is_word(sp_peek_at(p, 1), "not")) {
      *n_tokens = 2;
      return "is not";
    }
    return "is";
  }
  if (sp_is_word(t, "not") && sp_is_word(sp_peek_at(p, 1), "in")) {
    *n_tokens = 2;
    return "not in";
  }
  return NULL;
}

static ScriptExpr *parse_comparison(Parser *p) {
  ScriptExpr *left = parse_binary_level(p, G_N_ELEMENTS(binary_levels) - 1);
  ScriptExpr *result = NULL;
  const char *op;
  guint n;
  while (left != NULL && (op = comparison_op(p, &n))) {
    for (guint i = 0; i < n; i++)
      sp_advance(p);
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

static ScriptExpr *parse_not(Parser *p) {
  const ScriptToken *t = sp_peek(p);
  if (!sp_is_word(t, "not"))
    return parse_comparison(p);
  if (!sp_enter(p))
    return NULL;
  sp_advance(p);
  ScriptExpr *operand = parse_not(p);
  p->depth--;
  if (operand == NULL)
    return NULL;
  ScriptExpr *e = sp_new_expr(p, SE_UNARY, sp_loc_of(t));
  e->op = script_tree_intern(p->tree, "not");
  e->args = script_tree_array(p->tree);
  g_ptr_array_add(e->args, operand);
  return e;
}

static ScriptExpr *parse_and_or(Parser *p, bool is_or) {
  ScriptExpr *left = is_or ? parse_and_or(p, false) : parse_not(p);
  while (left != NULL && sp_is_word(sp_peek(p), is_or ? "or" : "and")) {
    sp_advance(p);
    ScriptExpr *right = is_or ? parse_and_or(p, false) : parse_not(p);
    left = right ? binary(p, is_or ? SE_OR : SE_AND, NULL, left, right) : NULL;
  }
  return left;
}

ScriptExpr *sp_parse_test(Parser *p) {
  if (!sp_enter(p))
    return NULL;
  ScriptExpr *e = parse_and_or(p, true);
  if (e != NULL && sp_is_word(sp_peek(p), "if")) {
    sp_advance(p);
    ScriptExpr *cond = parse_and_or(p, true);
    ScriptExpr *other = NULL;
    if (cond != NULL && (sp_is_word(sp_peek(p), "else") || sp_fail_expected(p, "'else'"))) {
      sp_advance(p);
      other = sp_parse_test(p);
    }
    if (other == NULL) {
      e = NULL;
    } else {
      ScriptExpr *t = sp_new_expr(p, SE_TERNARY, e->loc);
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

ScriptExpr *sp_parse_or_expr(Parser *p) {
  return parse_binary_level(p, G_N_ELEMENTS(binary_levels) - 1);
}

/* --- types --- */

ScriptTypeExpr *sp_parse_type(Parser *p) {
  const ScriptToken *t = sp_peek(p);
  if (t->kind != SCRIPT_TOK_NAME || (sp_is_keyword(t->text) && !sp_is_word(t, "None")))
    return sp_fail_expected(p, "a type");
  if (!sp_enter(p))
    return NULL;
  ScriptTypeExpr *type = script_tree_alloc(p->tree, sizeof *type);
  type->loc = sp_loc_of(t);
  GString *name = g_string_new(sp_advance(p)->text);
  while (sp_is_op(sp_peek(p), ".") && sp_peek_at(p, 1)->kind == SCRIPT_TOK_NAME) {
    sp_advance(p);
    g_string_append_printf(name, ".%s", sp_advance(p)->text);
  }
  type->name = script_tree_intern(p->tree, name->str);
  g_string_free(name, TRUE);
  if (sp_is_op(sp_peek(p), "[")) {
    sp_advance(p);
    type->args = script_tree_array(p->tree);
    do {
      if (sp_is_op(sp_peek(p), ","))
        sp_advance(p);
      ScriptTypeExpr *arg = sp_parse_type(p);
      if (arg == NULL)
        return NULL;
      g_ptr_array_add(type->args, arg);
    } while (sp_is_op(sp_peek(p), ","));
    if (!sp_expect_op(p, "]"))
      return NULL;
  }
  p->depth--;
  return type;
}
