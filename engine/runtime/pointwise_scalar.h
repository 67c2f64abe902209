/* The eager kernels' per-element functions, derived from the op table: every pointwise row
 * of ops.def (flags PW_FUSIBLE or PW) becomes
 *   float  pw_f32_<KIND>(float A0, ..., float A7)
 *   double pw_f64_<KIND>(double A0, ..., double A7)
 * returning its E() expression, A0..A7 being the schema arguments; an OVERLOAD row's are
 * pw_f32_<KIND>_overload and pw_f64_<KIND>_overload (no kind has two pointwise OVERLOAD rows:
 * a second would not compile). This is the text generated C pastes (fuser/kernel_expr.c),
 * with the same spelling rule: tgmath.h makes each math function of math_functions.def its
 * float variant for float operands (expf, tanhf), as the generators append `f`; literals stay
 * as written. Two functions differ from the plain libm call: lgamma is the thread-safe
 * lgamma_r (glibc's lgamma writes the global signgam), and digamma is runtime/scalar_math.h's.
 * The kernel families include this header and call the functions of the kinds they serve. */
#ifndef JITSCOPE_RUNTIME_POINTWISE_SCALAR_H
#define JITSCOPE_RUNTIME_POINTWISE_SCALAR_H

#include <tgmath.h>

#include "runtime/scalar_math.h"

static inline float pw_lgamma_f32(float x) {
  int sign;
  return lgammaf_r(x, &sign);
}
static inline double pw_lgamma_f64(double x) {
  int sign;
  return lgamma_r(x, &sign);
}

/* ops.def's math spellings, as functions of the operand's type (within this header and the
 * files that include it). */
#undef lgamma
#define lgamma(x) _Generic((x), float : pw_lgamma_f32, double : pw_lgamma_f64)(x)
#define digamma(x) _Generic((x), float : digammaf, double : (digamma))(x)

#define PW_SCALAR_E(...) (__VA_ARGS__)
#define PW_SCALAR_DEFINE(name, expr)                                                            \
  static inline float pw_f32_##name(float A0, float A1, float A2, float A3, float A4, float A5, \
                                    float A6, float A7) {                                       \
    (void)A0, (void)A1, (void)A2, (void)A3, (void)A4, (void)A5, (void)A6, (void)A7;             \
    return (float)PW_SCALAR_##expr;                                                             \
  }                                                                                             \
  static inline double pw_f64_##name(double A0, double A1, double A2, double A3, double A4,     \
                                     double A5, double A6, double A7) {                         \
    (void)A0, (void)A1, (void)A2, (void)A3, (void)A4, (void)A5, (void)A6, (void)A7;             \
    return (double)PW_SCALAR_##expr;                                                            \
  }
#define PW_SCALAR_ROW_PW_FUSIBLE(name, expr) PW_SCALAR_DEFINE(name, expr)
#define PW_SCALAR_ROW_PW(name, expr) PW_SCALAR_DEFINE(name, expr)
#define PW_SCALAR_ROW_OPAQUE(name, expr)
#define PW_SCALAR_ROW_RANDOM(name, expr)
#define OP(kind, schema, family, shape, grad, flags, expr) PW_SCALAR_ROW_##flags(kind, expr)
#define OVERLOAD(kind, schema, family, shape, grad, flags, expr) \
  PW_SCALAR_ROW_##flags(kind##_overload, expr)
#include "ir/ops.def"
#undef OP
#undef OVERLOAD

/* A one-operand row's function at x. */
#define PW_UNARY(T, kind, x) pw_##T##_##kind((x), 0, 0, 0, 0, 0, 0, 0)

#endif
