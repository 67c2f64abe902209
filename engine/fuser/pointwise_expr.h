/* The ops.def `pointwise` expressions as data: parsed once into an AST (%N arguments,
 * numbers, + - * /, unary -, < <= > >= == !=, ?:, parentheses, calls of C math functions)
 * and evaluated over blocks of elements in double precision, or in float with the float
 * math functions (expf, tanhf, ...) for float32 groups, as the generated kernels compute.
 * The single source of the scalar semantics of fused ops on the CPU. */
#ifndef JITSCOPE_FUSER_POINTWISE_EXPR_H
#define JITSCOPE_FUSER_POINTWISE_EXPR_H

#include <glib.h>
#include <stdbool.h>

#define PW_BLOCK 256  /* elements per evaluation block */
#define PW_MAX_ARGS 8 /* highest %N + 1 */

typedef enum {
  PW_ARG, PW_NUM, PW_NEG, PW_ADD, PW_SUB, PW_MUL, PW_DIV,
  PW_LT, PW_LE, PW_GT, PW_GE, PW_EQ, PW_NE, PW_COND, PW_CALL1, PW_CALL2,
} PwOp;

typedef struct PwExpr {
  PwOp op;
  int arg;                       /* PW_ARG */
  double num;                    /* PW_NUM */
  double (*fn1)(double);         /* PW_CALL1 */
  double (*fn2)(double, double); /* PW_CALL2 */
  float (*fn1f)(float);          /* PW_CALL1, float variant */
  float (*fn2f)(float, float);   /* PW_CALL2, float variant */
  struct PwExpr *a, *b, *c;
} PwExpr;

/* Parses `text`; errors name the offending column. */
PwExpr *pw_expr_parse(const char *text, GError **error);
void pw_expr_free(PwExpr *e);
/* Highest argument index used + 1. */
int pw_expr_n_args(const PwExpr *e);

/* One element. */
double pw_expr_eval(const PwExpr *e, const double *args);
/* n <= PW_BLOCK elements: argument k reads args[k][i * strides[k]] (stride 0: a scalar). */
void pw_expr_eval_block(const PwExpr *e, const double *const *args, const int *strides,
                        double *out, int n);

/* The same in float: numbers rounded to float, float math functions. */
void pw_expr_eval_block_f(const PwExpr *e, const float *const *args, const int *strides,
                          float *out, int n);

#endif
