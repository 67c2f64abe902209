/* The one definition of the scalar math functions libm lacks (math_functions.def): digamma
 * and digammaf, as PyTorch 1.13's calc_digamma (aten/src/ATen/native/Math.h): ±inf at ±0,
 * NaN at negative integers, reflection for negative x, recurrence up to x >= 10 and the
 * asymptotic series there; the float version computes in float with the same constants and
 * takes the reflection term in double, as PyTorch does.
 *
 * JITSCOPE_SCALAR_MATH(QUALIFIERS) expands to the definitions: runtime/scalar_math.c compiles
 * them for the eager kernels and the fused evaluator; the CUDA code generator pastes them,
 * as text (JITSCOPE_SCALAR_MATH_TEXT), into a kernel that calls them, with `static
 * __device__`. So the text must be valid C and CUDA C++ alike and must not use what either
 * side defines as a macro (M_PI, INFINITY, NAN): infinity is 1.0 / 0.0, NaN (x - x) / (x - x)
 * at a finite x, pi a literal; no recursion (PyTorch's digamma(1 - x) - pi / tan(pi r) for
 * negative x keeps its order of rounding: the reflection term is subtracted last), no static
 * tables (device code). */
#ifndef JITSCOPE_RUNTIME_SCALAR_MATH_SOURCE_H
#define JITSCOPE_RUNTIME_SCALAR_MATH_SOURCE_H

#define JITSCOPE_SCALAR_MATH(QUALIFIERS)                                              \
  QUALIFIERS double digamma(double x) {                                               \
    double result = 0, reflection = 0;                                                \
    if (x == 0)                                                                       \
      return copysign(1.0 / 0.0, -x);                                                 \
    if (x < 0) {                                                                      \
      if (x == trunc(x))                                                              \
        return (x - x) / (x - x);                                                     \
      double whole;                                                                   \
      double r = modf(x, &whole);                                                     \
      reflection = 3.14159265358979323846 / tan(3.14159265358979323846 * r);          \
      x = 1 - x;                                                                      \
    }                                                                                 \
    while (x < 10) {                                                                  \
      result -= 1 / x;                                                                \
      x += 1;                                                                         \
    }                                                                                 \
    if (x == 10)                                                                      \
      return (result + 2.25175258906672110764) - reflection;                          \
    double y = 0;                                                                     \
    if (x < 1.0e17) {                                                                 \
      double z = 1.0 / (x * x);                                                       \
      double p = 8.33333333333333333333E-2;                                           \
      p = p * z - 2.10927960927960927961E-2;                                          \
      p = p * z + 7.57575757575757575758E-3;                                          \
      p = p * z - 4.16666666666666666667E-3;                                          \
      p = p * z + 3.96825396825396825397E-3;                                          \
      p = p * z - 8.33333333333333333333E-3;                                          \
      p = p * z + 8.33333333333333333333E-2;                                          \
      y = z * p;                                                                      \
    }                                                                                 \
    return (result + log(x) - (0.5 / x) - y) - reflection;                            \
  }                                                                                   \
  QUALIFIERS float digammaf(float x) {                                                \
    float result = 0, reflection = 0;                                                 \
    if (x == 0)                                                                       \
      return copysignf((float)(1.0 / 0.0), -x);                                       \
    if (x < 0) {                                                                      \
      if (x == truncf(x))                                                             \
        return (x - x) / (x - x);                                                     \
      double whole;                                                                   \
      double r = modf((double)x, &whole);                                             \
      reflection = (float)(3.14159265358979323846 / tan(3.14159265358979323846 * r)); \
      x = 1 - x;                                                                      \
    }                                                                                 \
    while (x < 10) {                                                                  \
      result -= 1 / x;                                                                \
      x += 1;                                                                         \
    }                                                                                 \
    if (x == 10)                                                                      \
      return (result + (float)2.25175258906672110764) - reflection;                   \
    float y = 0;                                                                      \
    if (x < 1.0e17f) {                                                                \
      float z = 1 / (x * x);                                                          \
      float p = 8.33333333333333333333E-2f;                                           \
      p = p * z - 2.10927960927960927961E-2f;                                         \
      p = p * z + 7.57575757575757575758E-3f;                                         \
      p = p * z - 4.16666666666666666667E-3f;                                         \
      p = p * z + 3.96825396825396825397E-3f;                                         \
      p = p * z - 8.33333333333333333333E-3f;                                         \
      p = p * z + 8.33333333333333333333E-2f;                                         \
      y = z * p;                                                                      \
    }                                                                                 \
    return (result + logf(x) - (0.5f / x) - y) - reflection;                          \
  }

#define JITSCOPE_SCALAR_MATH_STRINGIFY(...) #__VA_ARGS__
#define JITSCOPE_SCALAR_MATH_EXPAND_TEXT(...) JITSCOPE_SCALAR_MATH_STRINGIFY(__VA_ARGS__)
/* The definitions as one line of source text, with `qualifiers` (a macro argument). */
#define JITSCOPE_SCALAR_MATH_TEXT(qualifiers) \
  JITSCOPE_SCALAR_MATH_EXPAND_TEXT(JITSCOPE_SCALAR_MATH(qualifiers))

#endif
