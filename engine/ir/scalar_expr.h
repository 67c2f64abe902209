/* The op table's scalar expressions (ops.def `E(...)` and `DERIV(...)` columns) as data:
 * parsed into an AST of argument references A0..A7, the result R (derivatives only),
 * numbers, + - * /, unary -, < <= > >= == !=, ?:, parentheses and calls of the functions of
 * math_functions.def. Backends walk the AST (fused evaluator, autodiff) or paste the text
 * (code generators); all of them read the function list through this header. */
#ifndef JITSCOPE_IR_SCALAR_EXPR_H
#define JITSCOPE_IR_SCALAR_EXPR_H

#include <glib.h>
#include <stdbool.h>

#define PW_MAX_ARGS 8 /* highest An + 1 */

typedef enum {
  PW_ARG,
  PW_RESULT,
  PW_NUM,
  PW_NEG,
  PW_ADD,
  PW_SUB,
  PW_MUL,
  PW_DIV,
  PW_LT,
  PW_LE,
  PW_GT,
  PW_GE,
  PW_EQ,
  PW_NE,
  PW_COND,
  PW_CALL,
} PwOp;

typedef struct PwExpr {
  PwOp op;
  int arg;    /* PW_ARG */
  double num; /* PW_NUM */
  int fn;     /* PW_CALL: index into the math function list; arguments a, b, c */
  struct PwExpr *a, *b, *c;
} PwExpr;

/* The math function list (math_functions.def), in order. */
typedef struct {
  const char *name;
  int arity;
  bool vector;
} PwFunction;
const PwFunction *pw_function(int index);
/* Index of the function spelt by name[0..len), or -1. */
int pw_function_lookup(const char *name, gsize len);
/* The next math function named in expression text from *cursor on (its index), advancing
 * *cursor past it; -1 at the end of the text. For scans that need no parse (which functions
 * an expression calls). */
int pw_text_next_function(const char **cursor);

/* Parses `text`; `allow_result` admits R. Errors name the offending column. */
PwExpr *pw_expr_parse(const char *text, bool allow_result, GError **error);
void pw_expr_free(PwExpr *e);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PwExpr, pw_expr_free)
/* Highest argument index used + 1. */
int pw_expr_n_args(const PwExpr *e);
/* Is `p` the start of an argument reference An (not inside a longer name)? Sets *index and
 * *len. The code generators use it to substitute operands. */
bool pw_text_is_arg(const char *start, const char *p, int *index, int *len);

#endif
