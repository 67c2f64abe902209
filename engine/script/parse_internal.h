/* Private to the script parser: the parser state and the token and expression helpers
 * shared by its expression half (parse_expr.c) and statement half (parser.c). */
#ifndef JITSCOPE_SCRIPT_PARSE_INTERNAL_H
#define JITSCOPE_SCRIPT_PARSE_INTERNAL_H

#include "script/parser.h"

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

bool sp_is_keyword(const char *name);
const ScriptToken *sp_peek(const Parser *p);
const ScriptToken *sp_advance(Parser *p);
bool sp_is_op(const ScriptToken *t, const char *op);
bool sp_is_word(const ScriptToken *t, const char *word);
/* "expected WHAT, found X" at the current token; returns NULL for the caller. */
gpointer sp_fail_expected(Parser *p, const char *what);
bool sp_expect_op(Parser *p, const char *op);
/* After an element of a comma list closed by `close`: a comma is consumed (MORE), `close`
 * is left for the caller (END), anything else is an error "expected ',' or 'close'". */
typedef enum { SP_LIST_MORE, SP_LIST_END, SP_LIST_ERROR } SpListStep;
SpListStep sp_list_separator(Parser *p, const char *close);
/* One level deeper of recursion; false with an error past PARSE_MAX_DEPTH. */
bool sp_enter(Parser *p);
ScriptLoc sp_loc_of(const ScriptToken *t);
ScriptExpr *sp_new_expr(Parser *p, ScriptExprKind kind, ScriptLoc loc);

/* Grammar rules (Python's names): test, a comma list of tests (a tuple when a comma
 * appears), expr (an operand of a comparison: what a for loop's target may be), a type. */
ScriptExpr *sp_parse_test(Parser *p);
ScriptExpr *sp_parse_test_list(Parser *p, bool allow_trailing_comma);
ScriptExpr *sp_parse_or_expr(Parser *p);
ScriptTypeExpr *sp_parse_type(Parser *p);

#endif
