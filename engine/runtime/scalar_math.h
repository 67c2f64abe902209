/* Scalar math functions libm lacks that op-table expressions call (math_functions.def):
 * digamma, as PyTorch 1.13's CPU calc_digamma. Their one definition is
 * runtime/scalar_math_source.h. Ops that call them are PW, not PW_FUSIBLE (generated C does
 * not define them); the CUDA device ops run them in generated kernels, which paste the
 * definition. */
#ifndef JITSCOPE_RUNTIME_SCALAR_MATH_H
#define JITSCOPE_RUNTIME_SCALAR_MATH_H

double digamma(double x);
float digammaf(float x);

#endif
