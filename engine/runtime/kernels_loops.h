/* Inner-loop generators for the elementwise kernels (kernels_binary.c, kernels_unary.c).
 *
 * A loop named NAME computes o = FN(x, y, z, params) over n elements, where operand 0 is the
 * output and operands 1..3 the inputs (see KIter). Unit-stride and one-broadcast-operand cases
 * get their own plain loops so that the compiler vectorizes them; the scalar params are copied
 * into a local before the loop so they can be hoisted. FN is a static inline function of the
 * compute type; it may set `zero_div` in its params (integer division by zero), which the loop
 * reports back to the caller's params. */
#ifndef JITSCOPE_RUNTIME_KERNELS_LOOPS_H
#define JITSCOPE_RUNTIME_KERNELS_LOOPS_H

#include "runtime/kernels_internal.h"

/* The loops below are the hot paths: vectorize them at the build's -O2 as well (GCC's -O2
 * only vectorizes loops without a remainder). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3")
#endif

/* Scalar parameters of an elementwise op (alpha, threshold/value, clamp bounds, weight),
 * converted once to each compute type. */
typedef struct {
  float f32[3];
  double f64[3];
  int64_t i64[3];
  bool has_min, has_max; /* clamp */
  bool zero_div;         /* set by integer loops that met a zero divisor */
} KParams;

#define K_LOOP_PROLOGUE(TO)     \
  KParams L_ = *(KParams *)ctx; \
  KParams *const P = &L_;       \
  TO *restrict o = (TO *)p[0]

#define K_LOOP_EPILOGUE() \
  if (L_.zero_div)        \
  ((KParams *)ctx)->zero_div = true

#define K_LOOP1(NAME, TO, T, FN)                                       \
  static void NAME(int64_t n, char **p, const int64_t *s, void *ctx) { \
    K_LOOP_PROLOGUE(TO);                                               \
    const T *restrict a = (const T *)p[1];                             \
    if (s[0] == 1 && s[1] == 1) {                                      \
      for (int64_t i = 0; i < n; i++)                                  \
        o[i] = FN(a[i], 0, 0, P);                                      \
    } else {                                                           \
      for (int64_t i = 0; i < n; i++)                                  \
        o[i * s[0]] = FN(a[i * s[1]], 0, 0, P);                        \
    }                                                                  \
    K_LOOP_EPILOGUE();                                                 \
  }

#define K_LOOP2(NAME, TO, T, FN)                                       \
  static void NAME(int64_t n, char **p, const int64_t *s, void *ctx) { \
    K_LOOP_PROLOGUE(TO);                                               \
    const T *restrict a = (const T *)p[1];                             \
    const T *restrict b = (const T *)p[2];                             \
    if (s[0] == 1 && s[1] == 1 && s[2] == 1) {                         \
      for (int64_t i = 0; i < n; i++)                                  \
        o[i] = FN(a[i], b[i], 0, P);                                   \
    } else if (s[0] == 1 && s[1] == 1 && s[2] == 0) {                  \
      const T y = b[0];                                                \
      for (int64_t i = 0; i < n; i++)                                  \
        o[i] = FN(a[i], y, 0, P);                                      \
    } else if (s[0] == 1 && s[1] == 0 && s[2] == 1) {                  \
      const T x = a[0];                                                \
      for (int64_t i = 0; i < n; i++)                                  \
        o[i] = FN(x, b[i], 0, P);                                      \
    } else {                                                           \
      for (int64_t i = 0; i < n; i++)                                  \
        o[i * s[0]] = FN(a[i * s[1]], b[i * s[2]], 0, P);              \
    }                                                                  \
    K_LOOP_EPILOGUE();                                                 \
  }

/* TC is the type of operand 1 (where's bool condition); operands 2 and 3 are T. */
#define K_LOOP3(NAME, TO, TC, T, FN)                                   \
  static void NAME(int64_t n, char **p, const int64_t *s, void *ctx) { \
    K_LOOP_PROLOGUE(TO);                                               \
    const TC *restrict a = (const TC *)p[1];                           \
    const T *restrict b = (const T *)p[2];                             \
    const T *restrict c = (const T *)p[3];                             \
    if (s[0] == 1 && s[1] == 1 && s[2] == 1 && s[3] == 1) {            \
      for (int64_t i = 0; i < n; i++)                                  \
        o[i] = FN(a[i], b[i], c[i], P);                                \
    } else {                                                           \
      for (int64_t i = 0; i < n; i++)                                  \
        o[i * s[0]] = FN(a[i * s[1]], b[i * s[2]], c[i * s[3]], P);    \
    }                                                                  \
    K_LOOP_EPILOGUE();                                                 \
  }

#endif
