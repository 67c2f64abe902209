/* The script parser's statements and definitions (contract in parser.h): recursive descent,
 * one function per rule of Python's statement grammar, restricted to the TorchScript subset;
 * expressions are parse_expr.c's. */
#include "script/parse_internal.h"

#include <string.h>

/* --- statements --- */

static GPtrArray *parse_suite(Parser *p);
static ScriptDef *parse_def(Parser *p);

static ScriptStmt *new_stmt(Parser *p, ScriptStmtKind kind, const ScriptToken *at) {
  ScriptStmt *s = script_tree_alloc(p->tree, sizeof *s);
  s->kind = kind;
  s->loc = sp_loc_of(at);
  return s;
}

static bool is_assign_target(const ScriptExpr *e) {
  if (e->kind == SE_NAME)
    return true;
  if (e->kind != SE_TUPLE && e->kind != SE_LIST)
    return false;
  for (guint i = 0; i < e->args->len; i++)
    if (!is_assign_target(g_ptr_array_index(e->args, i)))
      return false;
  return e->args->len > 0;
}

static bool check_target(Parser *p, const ScriptExpr *e) {
  if (is_assign_target(e))
    return true;
  script_error_at(p->error, p->src, e->loc.line, e->loc.col,
                  "cannot assign to this expression (only names and tuples of names)");
  return false;
}

/* An assignment's target: a check_target one, or one subscript (xs[i] = v). */
static bool check_assign_target(Parser *p, const ScriptExpr *e) {
  if (is_assign_target(e) || e->kind == SE_SUBSCRIPT)
    return true;
  script_error_at(p->error, p->src, e->loc.line, e->loc.col,
                  "cannot assign to this expression (only names, tuples of names and "
                  "subscripts)");
  return false;
}

static const char *const aug_ops[] = {
    "+=", "-=", "*=", "/=", "//=", "%=", "**=", "@=", "&=", "|=", "^=", "<<=", ">>="};

static ScriptStmt *parse_expression_statement(Parser *p) {
  const ScriptToken *start = sp_peek(p);
  ScriptExpr *e = sp_parse_test_list(p, true);
  if (e == NULL)
    return NULL;
  const ScriptToken *t = sp_peek(p);
  for (guint i = 0; i < G_N_ELEMENTS(aug_ops); i++)
    if (sp_is_op(t, aug_ops[i])) {
      if (e->kind != SE_NAME) {
        script_error_at(p->error, p->src, e->loc.line, e->loc.col,
                        "augmented assignment needs a single name on the left");
        return NULL;
      }
      sp_advance(p);
      ScriptStmt *s = new_stmt(p, SS_AUG_ASSIGN, start);
      g_autofree char *op = g_strndup(aug_ops[i], strlen(aug_ops[i]) - 1);
      s->op = script_tree_intern(p->tree, op);
      s->target = e;
      return (s->value = sp_parse_test(p)) ? s : NULL;
    }
  ScriptTypeExpr *annotation = NULL;
  if (sp_is_op(t, ":") && e->kind == SE_NAME) { /* x: T = value */
    sp_advance(p);
    if ((annotation = sp_parse_type(p)) == NULL)
      return NULL;
    t = sp_peek(p);
    if (!sp_is_op(t, "="))
      return sp_fail_expected(p, "'=' after the annotation");
  }
  if (!sp_is_op(t, "=")) {
    ScriptStmt *s = new_stmt(p, SS_EXPR, start);
    s->value = e;
    return s;
  }
  sp_advance(p);
  if (!check_assign_target(p, e))
    return NULL;
  ScriptStmt *s = new_stmt(p, SS_ASSIGN, start);
  s->target = e;
  s->annotation = annotation;
  s->value = sp_parse_test_list(p, true);
  if (s->value != NULL && sp_is_op(sp_peek(p), "=")) {
    t = sp_peek(p);
    script_error_at(p->error, p->src, t->line, t->col, "chained assignment is not supported");
    return NULL;
  }
  return s->value ? s : NULL;
}

static ScriptStmt *parse_small_statement(Parser *p) {
  const ScriptToken *t = sp_peek(p);
  if (sp_is_word(t, "pass") || sp_is_word(t, "break") || sp_is_word(t, "continue")) {
    sp_advance(p);
    return new_stmt(p,
                    sp_is_word(t, "pass")    ? SS_PASS
                    : sp_is_word(t, "break") ? SS_BREAK
                                             : SS_CONTINUE,
                    t);
  }
  if (sp_is_word(t, "return") || sp_is_word(t, "raise")) {
    ScriptStmt *s = new_stmt(p, sp_is_word(t, "return") ? SS_RETURN : SS_RAISE, t);
    sp_advance(p);
    const ScriptToken *n = sp_peek(p);
    if (n->kind != SCRIPT_TOK_NEWLINE && !sp_is_op(n, ";") &&
        !(s->value = s->kind == SS_RETURN ? sp_parse_test_list(p, true) : sp_parse_test(p)))
      return NULL;
    return s;
  }
  if (sp_is_word(t, "assert")) {
    ScriptStmt *s = new_stmt(p, SS_ASSERT, t);
    sp_advance(p);
    if (!(s->cond = sp_parse_test(p)))
      return NULL;
    if (sp_is_op(sp_peek(p), ",")) {
      sp_advance(p);
      if (!(s->value = sp_parse_test(p)))
        return NULL;
    }
    return s;
  }
  if (t->kind == SCRIPT_TOK_NAME && sp_is_keyword(t->text) && !sp_is_word(t, "not") &&
      !sp_is_word(t, "True") && !sp_is_word(t, "False") && !sp_is_word(t, "None")) {
    script_error_at(p->error, p->src, t->line, t->col, "'%s' statements are not supported",
                    t->text);
    return NULL;
  }
  return parse_expression_statement(p);
}

/* small (';' small)* NEWLINE, appended to `into`. */
static bool parse_simple_statements(Parser *p, GPtrArray *into) {
  for (;;) {
    ScriptStmt *s = parse_small_statement(p);
    if (s == NULL)
      return false;
    g_ptr_array_add(into, s);
    if (!sp_is_op(sp_peek(p), ";"))
      break;
    sp_advance(p);
    if (sp_peek(p)->kind == SCRIPT_TOK_NEWLINE)
      break;
  }
  if (sp_peek(p)->kind != SCRIPT_TOK_NEWLINE) {
    sp_fail_expected(p, "end of line");
    return false;
  }
  sp_advance(p);
  return true;
}

/* An if's elif branches nest (each is the else of the one before) in the tree, the graph and
 * every pass that walks them: past this many the recursion would outgrow the stack. */
#define PARSE_MAX_ELIFS 1000

static ScriptStmt *parse_if_chain(Parser *p, guint elifs) {
  const ScriptToken *t = sp_advance(p); /* if / elif */
  bool is_elif = sp_is_word(t, "elif");
  if (elifs > PARSE_MAX_ELIFS) {
    script_error_at(p->error, p->src, t->line, t->col,
                    "more than %d elif branches in one if statement", PARSE_MAX_ELIFS);
    return NULL;
  }
  ScriptStmt *s = new_stmt(p, SS_IF, t);
  if (!(s->cond = sp_parse_test(p)) || !sp_expect_op(p, ":") || !(s->body = parse_suite(p)))
    return NULL;
  if (is_elif) /* PyTorch's range of an elif's If starts at its condition */
    s->loc = s->cond->loc;
  if (sp_is_word(sp_peek(p), "elif")) {
    ScriptStmt *elif = parse_if_chain(p, elifs + 1);
    if (elif == NULL)
      return NULL;
    s->orelse = script_tree_array(p->tree);
    g_ptr_array_add(s->orelse, elif);
  } else if (sp_is_word(sp_peek(p), "else")) {
    sp_advance(p);
    if (!sp_expect_op(p, ":") || !(s->orelse = parse_suite(p)))
      return NULL;
  }
  return s;
}

static bool parse_statement(Parser *p, GPtrArray *into) {
  const ScriptToken *t = sp_peek(p);
  if (sp_is_word(t, "if")) {
    ScriptStmt *s = parse_if_chain(p, 0);
    if (s)
      g_ptr_array_add(into, s);
    return s != NULL;
  }
  if (sp_is_word(t, "elif") || sp_is_word(t, "else")) {
    script_error_at(p->error, p->src, t->line, t->col, "'%s' without a matching 'if'", t->text);
    return false;
  }
  if (sp_is_word(t, "while") || sp_is_word(t, "for")) {
    ScriptStmt *s = new_stmt(p, sp_is_word(t, "for") ? SS_FOR : SS_WHILE, t);
    sp_advance(p);
    if (s->kind == SS_FOR) {
      ScriptLoc target_loc = sp_loc_of(sp_peek(p));
      ScriptExpr *target = sp_parse_or_expr(p);
      if (target && sp_is_op(sp_peek(p), ",")) {
        ScriptExpr *tuple = sp_new_expr(p, SE_TUPLE, target_loc);
        tuple->args = script_tree_array(p->tree);
        g_ptr_array_add(tuple->args, target);
        while (target && sp_is_op(sp_peek(p), ",")) {
          sp_advance(p);
          target = sp_parse_or_expr(p);
          g_ptr_array_add(tuple->args, target);
        }
        target = target ? tuple : NULL;
      }
      if (target == NULL || !check_target(p, target))
        return false;
      if (!sp_is_word(sp_peek(p), "in")) {
        sp_fail_expected(p, "'in'");
        return false;
      }
      sp_advance(p);
      s->target = target;
      if (!(s->value = sp_parse_test_list(p, false)))
        return false;
    } else if (!(s->cond = sp_parse_test(p))) {
      return false;
    }
    if (!sp_expect_op(p, ":") || !(s->body = parse_suite(p)))
      return false;
    if (sp_is_word(sp_peek(p), "else")) {
      t = sp_peek(p);
      script_error_at(p->error, p->src, t->line, t->col, "'else' after a loop is not supported");
      return false;
    }
    g_ptr_array_add(into, s);
    return true;
  }
  if (sp_is_word(t, "def")) {
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
static GPtrArray *parse_suite(Parser *p) {
  GPtrArray *body = script_tree_array(p->tree);
  if (sp_peek(p)->kind != SCRIPT_TOK_NEWLINE)
    return parse_simple_statements(p, body) ? body : NULL;
  sp_advance(p);
  if (sp_peek(p)->kind != SCRIPT_TOK_INDENT)
    return sp_fail_expected(p, "an indented block");
  sp_advance(p);
  if (!sp_enter(p))
    return NULL;
  while (sp_peek(p)->kind != SCRIPT_TOK_DEDENT && sp_peek(p)->kind != SCRIPT_TOK_EOF)
    if (!parse_statement(p, body))
      return NULL;
  sp_advance(p);
  p->depth--;
  return body;
}

static ScriptParam *parse_param(Parser *p) {
  const ScriptToken *t = sp_peek(p);
  if (t->kind != SCRIPT_TOK_NAME || sp_is_keyword(t->text))
    return sp_fail_expected(p, "a parameter name");
  ScriptParam *param = script_tree_alloc(p->tree, sizeof *param);
  param->loc = sp_loc_of(t);
  param->name = script_tree_intern(p->tree, sp_advance(p)->text);
  if (sp_is_op(sp_peek(p), ":")) {
    sp_advance(p);
    if (!(param->type = sp_parse_type(p)))
      return NULL;
  }
  if (sp_is_op(sp_peek(p), "=")) {
    sp_advance(p);
    if (!(param->default_value = sp_parse_test(p)))
      return NULL;
  }
  return param;
}

static ScriptDef *parse_def(Parser *p) {
  const ScriptToken *t = sp_advance(p); /* def */
  ScriptDef *def = script_tree_alloc(p->tree, sizeof *def);
  def->loc = sp_loc_of(t);
  const ScriptToken *name = sp_peek(p);
  if (name->kind != SCRIPT_TOK_NAME || sp_is_keyword(name->text))
    return sp_fail_expected(p, "a function name");
  def->name_loc = sp_loc_of(name);
  def->name = script_tree_intern(p->tree, sp_advance(p)->text);
  if (!sp_expect_op(p, "("))
    return NULL;
  def->params = script_tree_array(p->tree);
  while (!sp_is_op(sp_peek(p), ")")) {
    const ScriptToken *at = sp_peek(p);
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
    SpListStep step = sp_list_separator(p, ")");
    if (step == SP_LIST_ERROR)
      return NULL;
    if (step == SP_LIST_END)
      break;
  }
  sp_advance(p);
  if (sp_is_op(sp_peek(p), "->")) {
    sp_advance(p);
    if (!(def->returns = sp_parse_type(p)))
      return NULL;
  }
  if (!sp_expect_op(p, ":") || !(def->body = parse_suite(p)))
    return NULL;
  return def;
}

/* `import a.b [as c]`, `from a import b, c` and `@decorator` lines: skipped to their end. */
static bool skip_top_level_line(Parser *p) {
  const ScriptToken *t = sp_peek(p);
  if (!sp_is_word(t, "import") && !sp_is_word(t, "from") && !sp_is_op(t, "@"))
    return false;
  while (sp_peek(p)->kind != SCRIPT_TOK_NEWLINE && sp_peek(p)->kind != SCRIPT_TOK_EOF)
    sp_advance(p);
  sp_advance(p);
  return true;
}

ScriptTree *script_parse(const ScriptSource *src, GError **error) {
  GArray *tokens = script_lex(src, error);
  if (tokens == NULL)
    return NULL;
  Parser p = {.src = src, .tokens = tokens, .tree = script_tree_new(), .error = error};
  bool ok = true;
  while (ok && sp_peek(&p)->kind != SCRIPT_TOK_EOF) {
    const ScriptToken *t = sp_peek(&p);
    if (t->kind == SCRIPT_TOK_NEWLINE) {
      sp_advance(&p);
    } else if (sp_is_word(t, "def")) {
      ScriptDef *def = parse_def(&p);
      if (def)
        g_ptr_array_add(p.tree->defs, def);
      ok = def != NULL;
    } else if (!skip_top_level_line(&p)) {
      if (t->kind == SCRIPT_TOK_INDENT)
        script_error_at(error, src, t->line, t->col, "unexpected indent");
      else
        sp_fail_expected(&p, "'def' at the top level");
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
