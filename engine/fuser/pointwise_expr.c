/* The fused evaluator of op-table expressions: a block evaluator that walks the AST once per
 * block, with the functions of math_functions.def bound to libm (double and float). */
#include "fuser/pointwise_expr.h"

#include <math.h>
#include <string.h>

#include "runtime/scalar_math.h"

/* math_functions.def bound to libm: one table per arity and precision, NULL where the arity
 * differs. */
#define MATH_PTR_1_1(name) name
#define MATH_PTR_1_2(name) NULL
#define MATH_PTR_1_3(name) NULL
#define MATH_PTR_2_1(name) NULL
#define MATH_PTR_2_2(name) name
#define MATH_PTR_2_3(name) NULL
#define MATH_PTR_3_1(name) NULL
#define MATH_PTR_3_2(name) NULL
#define MATH_PTR_3_3(name) name
#define MATH_PTR(want, arity, name) MATH_PTR_##want##_##arity(name)
static double (*const math1[])(double) = {
#define MATH(name, arity, vector) MATH_PTR(1, arity, name),
#include "ir/math_functions.def"
#undef MATH
};
static double (*const math2[])(double, double) = {
#define MATH(name, arity, vector) MATH_PTR(2, arity, name),
#include "ir/math_functions.def"
#undef MATH
};
static double (*const math3[])(double, double, double) = {
#define MATH(name, arity, vector) MATH_PTR(3, arity, name),
#include "ir/math_functions.def"
#undef MATH
};
static float (*const math1f[])(float) = {
#define MATH(name, arity, vector) MATH_PTR(1, arity, name##f),
#include "ir/math_functions.def"
#undef MATH
};
static float (*const math2f[])(float, float) = {
#define MATH(name, arity, vector) MATH_PTR(2, arity, name##f),
#include "ir/math_functions.def"
#undef MATH
};
static float (*const math3f[])(float, float, float) = {
#define MATH(name, arity, vector) MATH_PTR(3, arity, name##f),
#include "ir/math_functions.def"
#undef MATH
};

double pw_expr_eval(const PwExpr *e, const double *args) {
  switch (e->op) {
  case PW_ARG: return args[e->arg];
  case PW_NUM: return e->num;
  case PW_NEG: return -pw_expr_eval(e->a, args);
  case PW_ADD: return pw_expr_eval(e->a, args) + pw_expr_eval(e->b, args);
  case PW_SUB: return pw_expr_eval(e->a, args) - pw_expr_eval(e->b, args);
  case PW_MUL: return pw_expr_eval(e->a, args) * pw_expr_eval(e->b, args);
  case PW_DIV: return pw_expr_eval(e->a, args) / pw_expr_eval(e->b, args);
  case PW_LT: return pw_expr_eval(e->a, args) < pw_expr_eval(e->b, args);
  case PW_LE: return pw_expr_eval(e->a, args) <= pw_expr_eval(e->b, args);
  case PW_GT: return pw_expr_eval(e->a, args) > pw_expr_eval(e->b, args);
  case PW_GE: return pw_expr_eval(e->a, args) >= pw_expr_eval(e->b, args);
  case PW_EQ: return pw_expr_eval(e->a, args) == pw_expr_eval(e->b, args);
  case PW_NE: return pw_expr_eval(e->a, args) != pw_expr_eval(e->b, args);
  case PW_COND:
    return pw_expr_eval(e->a, args) != 0 ? pw_expr_eval(e->b, args) : pw_expr_eval(e->c, args);
  case PW_CALL:
    if (e->c)
      return math3[e->fn](pw_expr_eval(e->a, args), pw_expr_eval(e->b, args),
                          pw_expr_eval(e->c, args));
    if (e->b)
      return math2[e->fn](pw_expr_eval(e->a, args), pw_expr_eval(e->b, args));
    return math1[e->fn](pw_expr_eval(e->a, args));
  case PW_RESULT: break;
  }
  return 0;
}

#define LOOP(expr)              \
  do {                          \
    for (int i = 0; i < n; i++) \
      out[i] = (expr);          \
  } while (0)

/* One block evaluator per element type T: double, and float for float32 groups, whose calls
 * go to the float variants of the functions (fn1f, fn2f). */
#define DEFINE_EVAL_BLOCK(name, T, fn1, fn2, fn3)                                       \
  void name(const PwExpr *e, const T *const *args, const int *strides, T *out, int n) { \
    if (e->op == PW_ARG) {                                                              \
      const T *src = args[e->arg];                                                      \
      if (strides[e->arg] == 0)                                                         \
        LOOP(src[0]);                                                                   \
      else                                                                              \
        memcpy(out, src, sizeof(T) * (size_t)n);                                        \
      return;                                                                           \
    }                                                                                   \
    if (e->op == PW_NUM) {                                                              \
      LOOP((T)e->num);                                                                  \
      return;                                                                           \
    }                                                                                   \
    T a[PW_BLOCK], b[PW_BLOCK];                                                         \
    name(e->a, args, strides, a, n);                                                    \
    if (e->b && e->op != PW_COND)                                                       \
      name(e->b, args, strides, b, n);                                                  \
    if (e->op == PW_CALL && e->c) {                                                     \
      T c[PW_BLOCK];                                                                    \
      name(e->c, args, strides, c, n);                                                  \
      LOOP(fn3[e->fn](a[i], b[i], c[i]));                                               \
      return;                                                                           \
    }                                                                                   \
    switch (e->op) {                                                                    \
    case PW_NEG: LOOP(-a[i]); break;                                                    \
    case PW_ADD: LOOP(a[i] + b[i]); break;                                              \
    case PW_SUB: LOOP(a[i] - b[i]); break;                                              \
    case PW_MUL: LOOP(a[i] * b[i]); break;                                              \
    case PW_DIV: LOOP(a[i] / b[i]); break;                                              \
    case PW_LT: LOOP(a[i] < b[i]); break;                                               \
    case PW_LE: LOOP(a[i] <= b[i]); break;                                              \
    case PW_GT: LOOP(a[i] > b[i]); break;                                               \
    case PW_GE: LOOP(a[i] >= b[i]); break;                                              \
    case PW_EQ: LOOP(a[i] == b[i]); break;                                              \
    case PW_NE: LOOP(a[i] != b[i]); break;                                              \
    case PW_COND: {                                                                     \
      T c[PW_BLOCK];                                                                    \
      name(e->b, args, strides, b, n);                                                  \
      name(e->c, args, strides, c, n);                                                  \
      LOOP(a[i] != 0 ? b[i] : c[i]);                                                    \
      break;                                                                            \
    }                                                                                   \
    case PW_CALL:                                                                       \
      if (e->b)                                                                         \
        LOOP(fn2[e->fn](a[i], b[i]));                                                   \
      else                                                                              \
        LOOP(fn1[e->fn](a[i]));                                                         \
      break;                                                                            \
    case PW_RESULT:                                                                     \
    case PW_ARG:                                                                        \
    case PW_NUM: break;                                                                 \
    }                                                                                   \
  }

DEFINE_EVAL_BLOCK(pw_expr_eval_block, double, math1, math2, math3)
DEFINE_EVAL_BLOCK(pw_expr_eval_block_f, float, math1f, math2f, math3f)
