/* The fused evaluator of op-table expressions (ir/scalar_expr.h): evaluates an expression
 * over blocks of elements in double precision, or in float with the float math functions
 * (expf, tanhf, ...) for float32 groups, as the generated kernels compute. The single source
 * of the scalar semantics of fused ops on the CPU. */
#ifndef JITSCOPE_FUSER_POINTWISE_EXPR_H
#define JITSCOPE_FUSER_POINTWISE_EXPR_H

#include "ir/scalar_expr.h"

#define PW_BLOCK 256 /* elements per evaluation block */

/* One element. */
double pw_expr_eval(const PwExpr *e, const double *args);
/* n <= PW_BLOCK elements: argument k reads args[k][i * strides[k]] (stride 0: a scalar). */
void pw_expr_eval_block(const PwExpr *e, const double *const *args, const int *strides, double *out,
                        int n);

/* The same in float: numbers rounded to float, float math functions. */
void pw_expr_eval_block_f(const PwExpr *e, const float *const *args, const int *strides, float *out,
                          int n);

#endif
