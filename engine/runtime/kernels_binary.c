/* rt_kernel_binary: every elementwise op of ops.def with more than one operand or with
 * scalar parameters (add/sub with alpha, mul, div, rsub, threshold, atan2, pow, fmod,
 * remainder, floor_divide, xlogy, nan_to_num, logit and logit_backward, clamp, clamp_min/clamp_max, max/min, lerp, addcmul, where, comparisons, logical and
 * bitwise ops, the one-operand logical_not, bitwise_not, isnan, isinf and isfinite among them),
 * in Tensor and Scalar forms.
 *
 * Semantics are PyTorch 1.13's on the CPU:
 * - Tensor operands broadcast; the result is a new contiguous tensor.
 * - Result dtype by at::result_type (kernels_common.c): a Scalar never raises a float
 *   tensor's dtype; int tensor with a float Scalar gives float32. Comparisons give bool;
 *   div and atan2 of integral operands give float32 (true division).
 * - float32 computes in float (powf, atan2f), float64 in double, float16 in float then
 *   rounded, bool in int64 then mapped to 0/1. Integer arithmetic wraps (two's complement).
 * - The float element functions are the ops' ops.def expressions (runtime/pointwise_scalar.h),
 *   the text generated C compiles; the int64 ones are written for int64 (wrap-around).
 * - Integer fmod/remainder/floor_divide by zero is an error (PyTorch's "ZeroDivisionError").
 * - Optional float parameters given as None take PyTorch's defaults: nan_to_num's 0 and the
 *   result dtype's largest and lowest finite values, logit's eps -1 (no clamping). */
#include "runtime/kernels.h"
#include "runtime/kernels_loops.h"
#include "runtime/pointwise_scalar.h"

#include <float.h>
#include <string.h>

/* ---- per-element functions: x, y, z are the operands, A the params ---- */

/* The float32 and float64 functions of an op: its ops.def expression (pointwise_scalar.h),
 * whose arguments A0..A7 are the schema's in order. The plans below take the leading
 * arguments as the elementwise operands and the ones after them as the scalar params, so
 * ARGSn passes n operands, then the params. */
#define ARGS1 x, A[0], A[1], A[2], 0, 0, 0, 0
#define ARGS2 x, y, A[0], A[1], A[2], 0, 0, 0
#define ARGS3 x, y, z, A[0], A[1], A[2], 0, 0
#define DEF_PW(name, KIND, ARGS)                                              \
  static inline float name##_f32(float x, float y, float z, KParams *P) {     \
    const float *A = P->f32;                                                  \
    return pw_f32_##KIND(ARGS);                                               \
  }                                                                           \
  static inline double name##_f64(double x, double y, double z, KParams *P) { \
    const double *A = P->f64;                                                 \
    return pw_f64_##KIND(ARGS);                                               \
  }

/* The int64 functions, written for int64: integer arithmetic wraps (two's complement) where C
 * would overflow, and the expressions' math functions are floating point. */
#define DEF_I(name, EXPR)                                                         \
  static inline int64_t name##_i64(int64_t x, int64_t y, int64_t z, KParams *P) { \
    const int64_t *A = P->i64;                                                    \
    (void)A, (void)x, (void)y, (void)z;                                           \
    return (EXPR);                                                                \
  }

/* Comparisons store bool: the expression's 0/1 for floats, the operator for int64. */
#define DEF_CMP(name, KIND, OP)                                                \
  static inline bool name##_f32(float x, float y, float z, KParams *P) {       \
    return PW_BINARY(f32, KIND, x, y) != 0;                                    \
  }                                                                            \
  static inline bool name##_f64(double x, double y, double z, KParams *P) {    \
    return PW_BINARY(f64, KIND, x, y) != 0;                                    \
  }                                                                            \
  static inline bool name##_i64(int64_t x, int64_t y, int64_t z, KParams *P) { \
    return x OP y;                                                             \
  }
#define PW_BINARY(T, KIND, x, y) pw_##T##_##KIND((x), (y), 0, 0, 0, 0, 0, 0)

/* clamp's int64 bounds: either may be None (P->has_min, P->has_max). */
static inline int64_t clamp_bounds_i64(int64_t x, const KParams *P) {
  int64_t v = x;
  if (P->has_min && v < P->i64[0])
    v = P->i64[0];
  if (P->has_max && v > P->i64[1])
    v = P->i64[1];
  return v;
}

/* Two's complement wrap-around without signed overflow. */
#define U(v) ((uint64_t)(v))
#define W(e) ((int64_t)(e))

/* x + alpha * y as PyTorch's vectorized kernels: one fused multiply-add (alpha 1: a sum). */
DEF_PW(add, ATEN_ADD, ARGS2)
DEF_I(add, W(U(x) + U(A[0]) * U(y)))
DEF_PW(sub, ATEN_SUB, ARGS2)
DEF_I(sub, W(U(x) - U(A[0]) * U(y)))
DEF_PW(rsub, ATEN_RSUB, ARGS2)
DEF_I(rsub, W(U(y) - U(A[0]) * U(x)))
DEF_PW(mul, ATEN_MUL, ARGS2)
DEF_I(mul, W(U(x) * U(y)))
DEF_PW(div, ATEN_DIV, ARGS2)
DEF_PW(threshold, ATEN_THRESHOLD, ARGS1)
DEF_I(threshold, x <= A[0] ? A[1] : x)
/* Activations with scalar parameters (issue 11; PyTorch 1.13's formulas). */
DEF_PW(hardtanh, ATEN_HARDTANH, ARGS1)
DEF_I(hardtanh, x < A[0] ? A[0] : (x > A[1] ? A[1] : x))
DEF_PW(leaky_relu, ATEN_LEAKY_RELU, ARGS1)
DEF_PW(softplus, ATEN_SOFTPLUS, ARGS1)
DEF_PW(elu, ATEN_ELU, ARGS1)
DEF_PW(atan2, ATEN_ATAN2, ARGS2)
DEF_PW(hypot, ATEN_HYPOT, ARGS2)
DEF_PW(xlogy, ATEN_XLOGY, ARGS2)
DEF_PW(floor_divide, ATEN_FLOOR_DIVIDE, ARGS2)
DEF_PW(nan_to_num, ATEN_NAN_TO_NUM, ARGS1)
DEF_I(nan_to_num, x) /* integers are finite */
DEF_PW(logit, ATEN_LOGIT, ARGS1)
DEF_PW(logit_backward, ATEN_LOGIT_BACKWARD, ARGS2)
DEF_PW(pow, ATEN_POW_overload, ARGS2) /* pow.Tensor_Tensor, the OVERLOAD row */
/* pow.Tensor_Scalar: PyTorch 1.13 takes exponents 0.5 and -0.5 as sqrt and rsqrt
 * (pow(-inf, 0.5) is NaN there, inf for a Tensor exponent). */
DEF_PW(pow_s, ATEN_POW, ARGS2)
DEF_PW(fmod, ATEN_FMOD, ARGS2)
/* at::native remainder for floats: fmod, then moved to the divisor's sign. */
DEF_PW(remainder, ATEN_REMAINDER, ARGS2)
/* clamp: PyTorch's max with the lower bound, then min with the upper (NaN stays NaN); a None
 * bound is an infinite one, which no value crosses. */
static inline float clamp_f32(float x, float y, float z, KParams *P) {
  return pw_f32_ATEN_CLAMP(x, P->has_min ? P->f32[0] : -INFINITY, P->has_max ? P->f32[1] : INFINITY,
                           0, 0, 0, 0, 0);
}
static inline double clamp_f64(double x, double y, double z, KParams *P) {
  return pw_f64_ATEN_CLAMP(x, P->has_min ? P->f64[0] : -INFINITY, P->has_max ? P->f64[1] : INFINITY,
                           0, 0, 0, 0, 0);
}
DEF_I(clamp, clamp_bounds_i64(x, P))
/* clamp_min / clamp_max: a NaN bound gives NaN, a NaN self stays NaN (PyTorch 1.13). */
DEF_PW(clamp_min, ATEN_CLAMP_MIN, ARGS1)
DEF_I(clamp_min, x < A[0] ? A[0] : x)
DEF_PW(clamp_max, ATEN_CLAMP_MAX, ARGS1)
DEF_I(clamp_max, x > A[0] ? A[0] : x)
/* fmax / fmin: NaN loses; a tie gives self. */
DEF_PW(fmax, ATEN_FMAX, ARGS2)
DEF_I(fmax, x < y ? y : x)
DEF_PW(fmin, ATEN_FMIN, ARGS2)
DEF_I(fmin, x > y ? y : x)
DEF_PW(hardshrink, ATEN_HARDSHRINK, ARGS1)
DEF_PW(softshrink, ATEN_SOFTSHRINK, ARGS1)
/* NaN wins; a tie gives the second operand (PyTorch's vectorized max/min: -0 or 0). */
DEF_PW(max, ATEN_MAX, ARGS2)
DEF_I(max, x < y ? y : x)
DEF_PW(min, ATEN_MIN, ARGS2)
DEF_I(min, x > y ? y : x)
/* PyTorch 1.13's lerp: the form that is exact at weight 0 and 1, chosen by weight < 0.5
 * (not |weight|: lerp(inf, -inf, -2) is inf). The Tensor overload's expression is the
 * Scalar one's with the weight an operand. */
DEF_PW(lerp_s, ATEN_LERP, ARGS2)
DEF_PW(lerp_t, ATEN_LERP, ARGS3)
DEF_PW(addcmul, ATEN_ADDCMUL, ARGS3)
DEF_I(addcmul, W(U(x) + U(A[0]) * U(y) * U(z)))
DEF_PW(addcdiv, ATEN_ADDCDIV, ARGS3) /* no int64 loop: PyTorch 1.13 refuses integer division */
DEF_CMP(gt, ATEN_GT, >)
DEF_CMP(lt, ATEN_LT, <)
DEF_CMP(ge, ATEN_GE, >=)
DEF_CMP(le, ATEN_LE, <=)
DEF_CMP(eq, ATEN_EQ, ==)
DEF_CMP(ne, ATEN_NE, !=)
DEF_CMP(logical_or, ATEN_LOGICAL_OR, ||)
DEF_CMP(logical_and, ATEN_LOGICAL_AND, &&)
static inline bool logical_xor_f32(float x, float y, float z, KParams *P) {
  return PW_BINARY(f32, ATEN_LOGICAL_XOR, x, y) != 0;
}
static inline bool logical_xor_f64(double x, double y, double z, KParams *P) {
  return PW_BINARY(f64, ATEN_LOGICAL_XOR, x, y) != 0;
}
static inline bool logical_xor_i64(int64_t x, int64_t y, int64_t z, KParams *P) {
  return (x != 0) != (y != 0);
}
/* One operand, a bool result (logical_not, isnan, isinf, isfinite): the expression for
 * floats, INT_ANSWER for int64 (integers are finite). */
#define DEF_BOOL1(name, KIND, INT_ANSWER)                                      \
  static inline bool name##_f32(float x, float y, float z, KParams *P) {       \
    return PW_BINARY(f32, KIND, x, 0) != 0;                                    \
  }                                                                            \
  static inline bool name##_f64(double x, double y, double z, KParams *P) {    \
    return PW_BINARY(f64, KIND, x, 0) != 0;                                    \
  }                                                                            \
  static inline bool name##_i64(int64_t x, int64_t y, int64_t z, KParams *P) { \
    return INT_ANSWER;                                                         \
  }
DEF_BOOL1(logical_not, ATEN_LOGICAL_NOT, x == 0)
DEF_BOOL1(isnan, ATEN_ISNAN, false)
DEF_BOOL1(isinf, ATEN_ISINF, false)
DEF_BOOL1(isfinite, ATEN_ISFINITE, true)

/* Bitwise ops: integral and bool operands only (bools compute as 0/1 in int64, which &, |
 * and ^ keep 0/1; bitwise_not of a bool is its negation, not ~, which maps 0/1 to -1/-2). */
DEF_I(bitwise_and, (x) & (y))
DEF_I(bitwise_or, x | y)
DEF_I(bitwise_xor, x ^ y)
DEF_I(bitwise_not, ~x)
DEF_I(bool_not, x == 0)

/* Integer power by squaring; negative exponents as PyTorch's powi (1, -1 or 0). */
static inline int64_t pow_i64(int64_t x, int64_t y, int64_t z, KParams *P) {
  if (y < 0) {
    if (x == 1)
      return 1;
    if (x == -1)
      return (y % 2) ? -1 : 1;
    return 0;
  }
  uint64_t result = 1, base = U(x);
  uint64_t e = U(y);
  while (e) {
    if (e & 1)
      result *= base;
    base *= base;
    e >>= 1;
  }
  return W(result);
}

static inline int64_t fmod_i64(int64_t x, int64_t y, int64_t z, KParams *P) {
  if (y == 0) {
    P->zero_div = true;
    return 0;
  }
  if (y == -1) /* INT64_MIN % -1 overflows in C */
    return 0;
  return x % y;
}

/* PyTorch's div_floor_integer: the truncated quotient, one less where the remainder's sign
 * is not the divisor's (INT64_MIN // -1 wraps to INT64_MIN, where PyTorch's CPU kernel
 * traps). */
static inline int64_t floor_divide_i64(int64_t x, int64_t y, int64_t z, KParams *P) {
  if (y == 0) {
    P->zero_div = true;
    return 0;
  }
  if (y == -1)
    return W(U(0) - U(x));
  int64_t q = x / y;
  return (x % y != 0 && ((x < 0) != (y < 0))) ? q - 1 : q;
}

static inline int64_t remainder_i64(int64_t x, int64_t y, int64_t z, KParams *P) {
  int64_t r = fmod_i64(x, y, z, P);
  if (r != 0 && ((r < 0) != (y < 0)))
    r += y;
  return r;
}

static inline float where_f32(bool c, float x, float y, KParams *P) {
  return pw_f32_ATEN_WHERE(c, x, y, 0, 0, 0, 0, 0);
}
static inline double where_f64(bool c, double x, double y, KParams *P) {
  return pw_f64_ATEN_WHERE(c, x, y, 0, 0, 0, 0, 0);
}
static inline int64_t where_i64(bool c, int64_t x, int64_t y, KParams *P) {
  return c ? x : y;
}

/* ---- loops ---- */

#define LOOPS2_F(name)                               \
  K_LOOP2(name##_loop_f32, float, float, name##_f32) \
  K_LOOP2(name##_loop_f64, double, double, name##_f64)
#define LOOPS2_FI(name) \
  LOOPS2_F(name)        \
  K_LOOP2(name##_loop_i64, int64_t, int64_t, name##_i64)
#define LOOPS1_FI(name)                                \
  K_LOOP1(name##_loop_f32, float, float, name##_f32)   \
  K_LOOP1(name##_loop_f64, double, double, name##_f64) \
  K_LOOP1(name##_loop_i64, int64_t, int64_t, name##_i64)
#define LOOPS3_F(name)                                      \
  K_LOOP3(name##_loop_f32, float, float, float, name##_f32) \
  K_LOOP3(name##_loop_f64, double, double, double, name##_f64)
#define LOOPS_CMP(name)                              \
  K_LOOP2(name##_loop_f32, bool, float, name##_f32)  \
  K_LOOP2(name##_loop_f64, bool, double, name##_f64) \
  K_LOOP2(name##_loop_i64, bool, int64_t, name##_i64)

#define LOOPS1_F(name)                               \
  K_LOOP1(name##_loop_f32, float, float, name##_f32) \
  K_LOOP1(name##_loop_f64, double, double, name##_f64)
#define WHERE_LOOPS                                        \
  K_LOOP3(where_loop_f32, float, bool, float, where_f32)   \
  K_LOOP3(where_loop_f64, double, bool, double, where_f64) \
  K_LOOP3(where_loop_i64, int64_t, bool, int64_t, where_i64)

/* One loop set per op (the macros expand to function definitions; clang-format would read
 * the list as one statement). */
/* clang-format off */
LOOPS2_FI(add)
LOOPS2_FI(sub)
LOOPS2_FI(rsub)
LOOPS2_FI(mul)
LOOPS2_F(div)
LOOPS1_FI(threshold)
LOOPS1_FI(hardtanh)
LOOPS1_F(leaky_relu)
LOOPS1_F(softplus)
LOOPS1_F(elu)
LOOPS2_F(atan2)
LOOPS2_F(hypot)
LOOPS2_F(xlogy)
LOOPS2_FI(floor_divide)
LOOPS1_FI(nan_to_num)
LOOPS1_F(logit)
LOOPS2_F(logit_backward)
LOOPS2_FI(pow)
LOOPS2_F(pow_s)
K_LOOP2(pow_s_loop_i64, int64_t, int64_t, pow_i64)
LOOPS2_FI(fmod)
LOOPS2_FI(remainder)
LOOPS1_FI(clamp)
LOOPS1_FI(clamp_min)
LOOPS1_FI(clamp_max)
LOOPS2_FI(max)
LOOPS2_FI(min)
LOOPS2_FI(fmax)
LOOPS2_FI(fmin)
LOOPS1_F(hardshrink)
LOOPS1_F(softshrink)
LOOPS2_F(lerp_s)
LOOPS3_F(lerp_t)
LOOPS3_F(addcmul)
K_LOOP3(addcmul_loop_i64, int64_t, int64_t, int64_t, addcmul_i64)
LOOPS3_F(addcdiv)
WHERE_LOOPS
LOOPS_CMP(gt)
LOOPS_CMP(lt)
LOOPS_CMP(ge)
LOOPS_CMP(le)
LOOPS_CMP(eq)
LOOPS_CMP(ne)
LOOPS_CMP(logical_or)
LOOPS_CMP(logical_and)
LOOPS_CMP(logical_xor)
#define LOOPS_BOOL1(name)                               \
  K_LOOP1(name##_loop_f32, bool, float, name##_f32)   \
  K_LOOP1(name##_loop_f64, bool, double, name##_f64)  \
  K_LOOP1(name##_loop_i64, bool, int64_t, name##_i64)
LOOPS_BOOL1(logical_not)
LOOPS_BOOL1(isnan)
LOOPS_BOOL1(isinf)
LOOPS_BOOL1(isfinite)
K_LOOP2(bitwise_and_loop_i64, int64_t, int64_t, bitwise_and_i64)
K_LOOP2(bitwise_or_loop_i64, int64_t, int64_t, bitwise_or_i64)
K_LOOP2(bitwise_xor_loop_i64, int64_t, int64_t, bitwise_xor_i64)
K_LOOP1(bitwise_not_loop_i64, int64_t, int64_t, bitwise_not_i64)
K_LOOP1(bool_not_loop_i64, int64_t, int64_t, bool_not_i64)
/* clang-format on */

#define LOOPS_FI(name) \
  { name##_loop_f32, name##_loop_f64, name##_loop_i64 }
#define LOOPS_F(name) \
  { name##_loop_f32, name##_loop_f64, NULL }
#define LOOPS_I(name) \
  { NULL, NULL, name##_loop_i64 }

/* ---- the driver ---- */

typedef enum {
  RULE_PROMOTE, /* result_type of the operands */
  RULE_FLOAT,   /* result_type, integral -> float32 */
  RULE_BOOL,    /* computed in result_type, stored as bool */
  RULE_SELF,    /* self's dtype; params cast to it */
} Rule;

typedef struct {
  int n_ops;    /* elementwise operands: 1..3 */
  guint ops[3]; /* their schema argument positions */
  int n_params;
  guint params[3];     /* scalar params: schema argument positions */
  bool params_promote; /* params take part in the result type (clamp) */
  bool cond_first;     /* operand 0 is a bool condition (where) */
  Rule rule;
  KInnerLoop loops[3]; /* float32, float64, int64 compute */
} Plan;

typedef struct {
  RtTensor *tensor; /* borrowed; NULL for a scalar */
  KScalar scalar;
} Operand;

static bool plan_for(const IrSchema *schema, Plan *p, GError **error) {
  bool alpha = false;
  switch ((IrOpKind)schema->kind) {
  case IR_ATEN_ADD:
    *p = (Plan){.loops = LOOPS_FI(add)};
    alpha = true;
    break;
  case IR_ATEN_SUB:
    *p = (Plan){.loops = LOOPS_FI(sub)};
    alpha = true;
    break;
  case IR_ATEN_RSUB:
    *p = (Plan){.loops = LOOPS_FI(rsub)};
    alpha = true;
    break;
  case IR_ATEN_MUL: *p = (Plan){.loops = LOOPS_FI(mul)}; break;
  case IR_ATEN_DIV: *p = (Plan){.rule = RULE_FLOAT, .loops = LOOPS_F(div)}; break;
  case IR_ATEN_ATAN2: *p = (Plan){.rule = RULE_FLOAT, .loops = LOOPS_F(atan2)}; break;
  case IR_ATEN_HYPOT: *p = (Plan){.loops = LOOPS_F(hypot)}; break;
  case IR_ATEN_XLOGY: *p = (Plan){.rule = RULE_FLOAT, .loops = LOOPS_F(xlogy)}; break;
  case IR_ATEN_FLOOR_DIVIDE: *p = (Plan){.loops = LOOPS_FI(floor_divide)}; break;
  case IR_ATEN_LOGIT_BACKWARD:
    *p = (Plan){
        .n_ops = 2, .ops = {0, 1}, .n_params = 1, .params = {2}, .loops = LOOPS_F(logit_backward)};
    return true;
  case IR_ATEN_POW:
    if (k_overload_is(schema, "Tensor_Scalar"))
      *p = (Plan){.loops = LOOPS_FI(pow_s)};
    else
      *p = (Plan){.loops = LOOPS_FI(pow)};
    break;
  case IR_ATEN_FMOD: *p = (Plan){.loops = LOOPS_FI(fmod)}; break;
  case IR_ATEN_REMAINDER: *p = (Plan){.loops = LOOPS_FI(remainder)}; break;
  case IR_ATEN_MAX:
  case IR_ATEN_MAXIMUM: *p = (Plan){.loops = LOOPS_FI(max)}; break;
  case IR_ATEN_MIN:
  case IR_ATEN_MINIMUM: *p = (Plan){.loops = LOOPS_FI(min)}; break;
  case IR_ATEN_FMAX: *p = (Plan){.loops = LOOPS_FI(fmax)}; break;
  case IR_ATEN_FMIN: *p = (Plan){.loops = LOOPS_FI(fmin)}; break;
  case IR_ATEN_GT: *p = (Plan){.rule = RULE_BOOL, .loops = LOOPS_FI(gt)}; break;
  case IR_ATEN_LT: *p = (Plan){.rule = RULE_BOOL, .loops = LOOPS_FI(lt)}; break;
  case IR_ATEN_GE: *p = (Plan){.rule = RULE_BOOL, .loops = LOOPS_FI(ge)}; break;
  case IR_ATEN_LE: *p = (Plan){.rule = RULE_BOOL, .loops = LOOPS_FI(le)}; break;
  case IR_ATEN_EQ: *p = (Plan){.rule = RULE_BOOL, .loops = LOOPS_FI(eq)}; break;
  case IR_ATEN_NE: *p = (Plan){.rule = RULE_BOOL, .loops = LOOPS_FI(ne)}; break;
  case IR_ATEN_LOGICAL_OR: *p = (Plan){.rule = RULE_BOOL, .loops = LOOPS_FI(logical_or)}; break;
  case IR_ATEN_LOGICAL_AND: *p = (Plan){.rule = RULE_BOOL, .loops = LOOPS_FI(logical_and)}; break;
  case IR_ATEN_LOGICAL_XOR: *p = (Plan){.rule = RULE_BOOL, .loops = LOOPS_FI(logical_xor)}; break;
  case IR_ATEN_LOGICAL_NOT:
    *p = (Plan){.n_ops = 1, .rule = RULE_BOOL, .loops = LOOPS_FI(logical_not)};
    return true;
  case IR_ATEN_ISNAN:
    *p = (Plan){.n_ops = 1, .rule = RULE_BOOL, .loops = LOOPS_FI(isnan)};
    return true;
  case IR_ATEN_ISINF:
    *p = (Plan){.n_ops = 1, .rule = RULE_BOOL, .loops = LOOPS_FI(isinf)};
    return true;
  case IR_ATEN_ISFINITE:
    *p = (Plan){.n_ops = 1, .rule = RULE_BOOL, .loops = LOOPS_FI(isfinite)};
    return true;
  case IR_ATEN___AND__:
  case IR_ATEN_BITWISE_AND: *p = (Plan){.loops = LOOPS_I(bitwise_and)}; break;
  case IR_ATEN___OR__:
  case IR_ATEN_BITWISE_OR: *p = (Plan){.loops = LOOPS_I(bitwise_or)}; break;
  case IR_ATEN___XOR__:
  case IR_ATEN_BITWISE_XOR: *p = (Plan){.loops = LOOPS_I(bitwise_xor)}; break;
  case IR_ATEN_BITWISE_NOT: *p = (Plan){.n_ops = 1, .loops = LOOPS_I(bitwise_not)}; return true;
  case IR_ATEN_THRESHOLD:
    *p = (Plan){.n_ops = 1,
                .n_params = 2,
                .params = {1, 2},
                .rule = RULE_SELF,
                .loops = LOOPS_FI(threshold)};
    return true;
  case IR_ATEN_HARDTANH:
    *p = (Plan){.n_ops = 1,
                .n_params = 2,
                .params = {1, 2},
                .rule = RULE_SELF,
                .loops = LOOPS_FI(hardtanh)};
    return true;
  case IR_ATEN_LEAKY_RELU:
    *p = (Plan){
        .n_ops = 1, .n_params = 1, .params = {1}, .rule = RULE_SELF, .loops = LOOPS_F(leaky_relu)};
    return true;
  case IR_ATEN_HARDSHRINK:
    *p = (Plan){
        .n_ops = 1, .n_params = 1, .params = {1}, .rule = RULE_SELF, .loops = LOOPS_F(hardshrink)};
    return true;
  case IR_ATEN_SOFTSHRINK:
    *p = (Plan){
        .n_ops = 1, .n_params = 1, .params = {1}, .rule = RULE_SELF, .loops = LOOPS_F(softshrink)};
    return true;
  case IR_ATEN_SOFTPLUS:
    *p = (Plan){.n_ops = 1,
                .n_params = 2,
                .params = {1, 2},
                .rule = RULE_FLOAT,
                .loops = LOOPS_F(softplus)};
    return true;
  case IR_ATEN_NAN_TO_NUM:
    *p = (Plan){.n_ops = 1,
                .n_params = 3,
                .params = {1, 2, 3},
                .rule = RULE_SELF,
                .loops = LOOPS_FI(nan_to_num)};
    return true;
  case IR_ATEN_LOGIT:
    *p = (Plan){
        .n_ops = 1, .n_params = 1, .params = {1}, .rule = RULE_FLOAT, .loops = LOOPS_F(logit)};
    return true;
  case IR_ATEN_ELU:
    *p = (Plan){
        .n_ops = 1, .n_params = 3, .params = {1, 2, 3}, .rule = RULE_FLOAT, .loops = LOOPS_F(elu)};
    return true;
  case IR_ATEN_CLAMP:
    *p = (Plan){.n_ops = 1,
                .n_params = 2,
                .params = {1, 2},
                .params_promote = true,
                .loops = LOOPS_FI(clamp)};
    return true;
  case IR_ATEN_CLAMP_MIN:
    *p = (Plan){.n_ops = 1,
                .n_params = 1,
                .params = {1},
                .params_promote = true,
                .loops = LOOPS_FI(clamp_min)};
    return true;
  case IR_ATEN_CLAMP_MAX:
    *p = (Plan){.n_ops = 1,
                .n_params = 1,
                .params = {1},
                .params_promote = true,
                .loops = LOOPS_FI(clamp_max)};
    return true;
  case IR_ATEN_LERP:
    if (k_overload_is(schema, "Scalar"))
      *p =
          (Plan){.n_ops = 2, .ops = {0, 1}, .n_params = 1, .params = {2}, .loops = LOOPS_F(lerp_s)};
    else
      *p = (Plan){.n_ops = 3, .ops = {0, 1, 2}, .loops = LOOPS_F(lerp_t)};
    return true;
  case IR_ATEN_ADDCMUL:
    *p = (Plan){
        .n_ops = 3, .ops = {0, 1, 2}, .n_params = 1, .params = {3}, .loops = LOOPS_FI(addcmul)};
    return true;
  case IR_ATEN_ADDCDIV:
    *p = (Plan){
        .n_ops = 3, .ops = {0, 1, 2}, .n_params = 1, .params = {3}, .loops = LOOPS_F(addcdiv)};
    return true;
  case IR_ATEN_WHERE:
    *p = (Plan){.n_ops = 3, .ops = {0, 1, 2}, .cond_first = true, .loops = LOOPS_FI(where)};
    return true;
  default:
    K_INVARIANT(false, "rt_kernel_binary serves only the binary elementwise ops of ops.def");
    return false;
  }
  p->n_ops = 2;
  p->ops[0] = 0;
  p->ops[1] = 1;
  if (alpha) {
    p->n_params = 1;
    p->params[0] = 2;
  }
  (void)error;
  return true;
}

/* PyTorch's values for the float? parameters given as None: nan_to_num's nan 0, posinf and
 * neginf the result dtype's largest and lowest finite values; logit's eps -1. */
static void optional_defaults(IrOpKind kind, IrDtype result, KScalar *params,
                              const bool *param_given) {
  double largest = result == IR_DTYPE_FLOAT16   ? 65504.0
                   : result == IR_DTYPE_FLOAT32 ? FLT_MAX
                                                : DBL_MAX;
  double fill[3] = {0, 0, 0};
  int n = 0;
  if (kind == IR_ATEN_NAN_TO_NUM) {
    fill[1] = largest;
    fill[2] = -largest;
    n = 3;
  } else if (kind == IR_ATEN_LOGIT || kind == IR_ATEN_LOGIT_BACKWARD) {
    fill[0] = -1;
    n = 1;
  }
  for (int k = 0; k < n; k++)
    if (!param_given[k])
      params[k] = (KScalar){.kind = K_SCALAR_FLOAT, .d = fill[k]};
}

static bool get_operand(const IrSchema *schema, RtValue *args, guint i, Operand *out,
                        GError **error) {
  if (args[i].tag == RT_TENSOR) {
    out->tensor = NULL;
    return k_arg_tensor(schema, args, i, &out->tensor, error);
  }
  out->tensor = NULL;
  return k_arg_scalar(schema, args, i, &out->scalar, error);
}

static void set_param(KParams *kp, int k, KScalar s) {
  kp->f64[k] = s.d;
  kp->f32[k] = (float)s.d;
  kp->i64[k] = s.kind == K_SCALAR_FLOAT ? rt_double_to_int64(s.d) : s.i;
}

static bool is_bool_operand(const Operand *o) {
  return o->tensor ? o->tensor->dtype == IR_DTYPE_BOOL : o->scalar.kind == K_SCALAR_BOOL;
}

/* The kernel PyTorch names in its dtype error for a bitwise op (Python's & | ^ ~ included);
 * NULL for other ops. */
static const char *bitwise_op_name(IrOpKind kind) {
  switch (kind) {
  case IR_ATEN___AND__:
  case IR_ATEN_BITWISE_AND: return "bitwise_and";
  case IR_ATEN___OR__:
  case IR_ATEN_BITWISE_OR: return "bitwise_or";
  case IR_ATEN___XOR__:
  case IR_ATEN_BITWISE_XOR: return "bitwise_xor";
  case IR_ATEN_BITWISE_NOT: return "bitwise_not";
  default: return NULL;
  }
}

/* PyTorch's argument checks that depend on the result dtype. */
static bool check_op(const IrSchema *schema, const Plan *plan, const Operand *ops,
                     const KScalar *params, bool *param_given, IrDtype result, GError **error) {
  IrOpKind kind = (IrOpKind)schema->kind;
  if (kind == IR_ATEN_SUB || kind == IR_ATEN_RSUB) {
    bool b0 = is_bool_operand(&ops[0]), b1 = is_bool_operand(&ops[1]);
    if (b0 && b1) {
      K_ERR(error, "Subtraction, the `-` operator, with two bool tensors is not supported. "
                   "Use the `^` or `logical_xor()` operator instead.");
      return false;
    }
    if (b0 || b1) {
      K_ERR(error, "Subtraction, the `-` operator, with a bool tensor is not supported. If "
                   "you are trying to invert a mask, use the `~` or `logical_not()` operator "
                   "instead.");
      return false;
    }
  }
  if ((kind == IR_ATEN_ADD || kind == IR_ATEN_SUB || kind == IR_ATEN_RSUB) && plan->n_params == 1) {
    if (!k_dtype_is_float(result) && params[0].kind == K_SCALAR_FLOAT) {
      K_ERR(error, "For integral input tensors, argument alpha must not be a floating point "
                   "number.");
      return false;
    }
    if (result != IR_DTYPE_BOOL && params[0].kind == K_SCALAR_BOOL) {
      K_ERR(error, "Boolean alpha only supported for Boolean results.");
      return false;
    }
  }
  if (kind == IR_ATEN_POW && !ops[1].tensor && k_dtype_category(result) < 2 &&
      ops[1].scalar.kind == K_SCALAR_INT && ops[1].scalar.i < 0) {
    K_ERR(error, "Integers to negative integer powers are not allowed.");
    return false;
  }
  if (bitwise_op_name(kind) && k_dtype_is_float(result)) {
    K_ERR_DTYPE(error, "\"%s_cpu\" not implemented for '%s'", bitwise_op_name(kind),
                ir_dtype_type_name(result));
    return false;
  }
  if (kind == IR_ATEN_FLOOR_DIVIDE && result == IR_DTYPE_BOOL) {
    K_ERR_DTYPE(error, "\"div_floor_cpu\" not implemented for 'Bool'");
    return false;
  }
  if (kind == IR_ATEN_CLAMP && !param_given[0] && !param_given[1]) {
    K_ERR(error, "torch.clamp: At least one of 'min' or 'max' must not be None");
    return false;
  }
  if (kind == IR_ATEN_WHERE && (!ops[0].tensor || ops[0].tensor->dtype != IR_DTYPE_BOOL)) {
    K_ERR_DTYPE(error,
                "where expected condition to be a boolean tensor, but got a tensor with "
                "dtype %s",
                ops[0].tensor ? ir_dtype_type_name(ops[0].tensor->dtype) : "Scalar");
    return false;
  }
  if (kind == IR_ATEN_LERP) {
    static const char *const names[] = {"self", "end", "weight"};
    for (int k = 1; k < plan->n_ops; k++) {
      if (ops[k].tensor && ops[0].tensor && ops[k].tensor->dtype != ops[0].tensor->dtype) {
        K_ERR_DTYPE(error, "expected dtype %s for `%s` but got dtype %s",
                    k_dtype_c10_name(ops[0].tensor->dtype), names[k],
                    k_dtype_c10_name(ops[k].tensor->dtype));
        return false;
      }
    }
  }
  return true;
}

/* The fast path for add, sub, mul and div of a contiguous float tensor and either a
 * contiguous tensor of its dtype and shape or an int or float number (the .Scalar overloads,
 * whose result keeps the tensor's dtype): every 1-element tensor op among them. No
 * result-type pass, no broadcasting, no iterator, no conversions; the same per-element
 * functions as the general path (a number converted to the tensor's type first, as there),
 * so the same results. False when the call does not qualify (nothing done). */
#define SAME_SHAPE_CASE(KIND, FN, Y) \
  case KIND:                         \
    for (int64_t i = 0; i < n; i++)  \
      o[i] = FN(x[i], Y, 0, &kp);    \
    break
#define SAME_SHAPE_SWITCH(SUF, Y)               \
  switch ((IrOpKind)schema->kind) {             \
    SAME_SHAPE_CASE(IR_ATEN_ADD, add_##SUF, Y); \
    SAME_SHAPE_CASE(IR_ATEN_SUB, sub_##SUF, Y); \
    SAME_SHAPE_CASE(IR_ATEN_MUL, mul_##SUF, Y); \
    SAME_SHAPE_CASE(IR_ATEN_DIV, div_##SUF, Y); \
  default: break;                               \
  }
#define SAME_SHAPE_LOOP(T, SUF)                \
  do {                                         \
    const T *restrict x = rt_tensor_data(a);   \
    T *restrict o = rt_tensor_data(out);       \
    if (b) {                                   \
      const T *restrict y = rt_tensor_data(b); \
      SAME_SHAPE_SWITCH(SUF, y[i])             \
    } else {                                   \
      const T y = (T)number;                   \
      SAME_SHAPE_SWITCH(SUF, y)                \
    }                                          \
  } while (0)

static bool same_shape_float(const IrSchema *schema, RtValue *args, guint n_args, RtValue *outs) {
  IrOpKind kind = (IrOpKind)schema->kind;
  bool alpha = kind == IR_ATEN_ADD || kind == IR_ATEN_SUB;
  if (!(alpha || kind == IR_ATEN_MUL || kind == IR_ATEN_DIV) || n_args < (alpha ? 3u : 2u) ||
      args[0].tag != RT_TENSOR)
    return false;
  const RtTensor *a = args[0].u.tensor, *b = NULL;
  double number = 0;
  if (args[1].tag == RT_TENSOR) {
    b = args[1].u.tensor;
    if (b == NULL)
      return false;
  } else if (args[1].tag == RT_INT) {
    number = (double)args[1].u.i;
  } else if (args[1].tag == RT_DOUBLE) {
    number = args[1].u.d;
  } else {
    return false;
  }
  if (a == NULL || (a->dtype != IR_DTYPE_FLOAT32 && a->dtype != IR_DTYPE_FLOAT64) ||
      (b && (a->dtype != b->dtype || a->ndim != b->ndim)))
    return false;
  /* Equal sizes and rt_tensor_is_contiguous of both, in two short loops without calls. */
  int64_t n = 1;
  for (int d = 0; d < a->ndim; d++) {
    if (b && a->sizes[d] != b->sizes[d])
      return false;
    n *= a->sizes[d];
  }
  int64_t expected = 1;
  for (int d = a->ndim - 1; d >= 0 && a->sizes[d] != 0; d--) {
    if (a->sizes[d] == 1)
      continue;
    if (a->strides[d] != expected || (b && b->strides[d] != expected))
      return false;
    expected *= a->sizes[d];
  }
  KParams kp;
  kp.f64[0] = 1.0;
  if (alpha) {
    if (args[2].tag == RT_INT)
      kp.f64[0] = (double)args[2].u.i;
    else if (args[2].tag == RT_DOUBLE)
      kp.f64[0] = args[2].u.d;
    else
      return false;
  }
  kp.f32[0] = (float)kp.f64[0];
  RtTensor *out = rt_tensor_new(a->dtype, a->ndim, a->sizes);
  if (a->dtype == IR_DTYPE_FLOAT32)
    SAME_SHAPE_LOOP(float, f32);
  else
    SAME_SHAPE_LOOP(double, f64);
  outs[0] = rt_tensor(out);
  return true;
}

bool rt_kernel_binary(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                      RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  if (same_shape_float(schema, args, n_args, outs))
    return true;
  Plan plan;
  if (!plan_for(schema, &plan, error))
    return false;

  Operand ops[3];
  for (int k = 0; k < plan.n_ops; k++)
    if (!get_operand(schema, args, plan.ops[k], &ops[k], error))
      return false;
  if (!ops[0].tensor && !plan.cond_first && ir_type_is_tensor(schema->args[plan.ops[0]].type)) {
    K_ERR(error, "%s(): argument '%s' (position 1) must be Tensor", k_op_short_name(schema),
          schema->args[plan.ops[0]].name);
    return false;
  }
  KScalar params[3] = {{0}};
  bool param_given[3] = {false};
  for (int k = 0; k < plan.n_params; k++) {
    if (k_arg_is_none(args, plan.params[k]))
      continue;
    if (!k_arg_scalar(schema, args, plan.params[k], &params[k], error))
      return false;
    param_given[k] = true;
  }
  if (schema->kind == IR_ATEN_SOFTSHRINK && params[0].d < 0) {
    K_ERR(error, "lambda must be greater or equal to 0, but found to be %g.", params[0].d);
    return false;
  }

  /* Result and compute dtypes. */
  IrDtype result;
  if (plan.rule == RULE_SELF) {
    result = ops[0].tensor->dtype;
  } else {
    KResultType rt;
    k_result_init(&rt);
    for (int k = plan.cond_first ? 1 : 0; k < plan.n_ops; k++) {
      if (ops[k].tensor)
        k_result_add_tensor(&rt, ops[k].tensor);
      else
        k_result_add_scalar(&rt, ops[k].scalar);
    }
    if (plan.params_promote)
      for (int k = 0; k < plan.n_params; k++)
        if (param_given[k])
          k_result_add_scalar(&rt, params[k]);
    result = k_result_get(&rt);
    if (plan.rule == RULE_FLOAT && !k_dtype_is_float(result))
      result = IR_DTYPE_FLOAT32;
  }
  if (!check_op(schema, &plan, ops, params, param_given, result, error))
    return false;
  IrDtype compute = result == IR_DTYPE_FLOAT16 ? IR_DTYPE_FLOAT32
                    : result == IR_DTYPE_BOOL  ? IR_DTYPE_INT64
                                               : result;
  int loop_index = compute == IR_DTYPE_FLOAT32 ? 0 : compute == IR_DTYPE_FLOAT64 ? 1 : 2;
  KInnerLoop loop = plan.loops[loop_index];
  if (schema->kind == IR_ATEN_BITWISE_NOT && result == IR_DTYPE_BOOL)
    loop = bool_not_loop_i64;
  if (!loop) {
    K_ERR_DTYPE(error, "\"%s\" not implemented for '%s'", k_op_short_name(schema),
                ir_dtype_type_name(result));
    return false;
  }
  IrDtype store = plan.rule == RULE_BOOL ? IR_DTYPE_BOOL : compute;
  IrDtype final = plan.rule == RULE_BOOL ? IR_DTYPE_BOOL : result;

  /* Output shape: the tensor operands broadcast together. */
  int ndim = 0;
  int64_t shape[RT_MAX_DIMS];
  for (int k = 0; k < plan.n_ops; k++) {
    if (!ops[k].tensor)
      continue;
    if (!k_broadcast(ndim, shape, ops[k].tensor->ndim, ops[k].tensor->sizes, &ndim, shape, error))
      return false;
  }

  KParams kp;
  memset(&kp, 0, sizeof kp);
  optional_defaults((IrOpKind)schema->kind, result, params, param_given);
  for (int k = 0; k < plan.n_params; k++)
    set_param(&kp, k, params[k]);
  kp.has_min = param_given[0];
  kp.has_max = param_given[1];

  /* Operands in the compute dtype (the condition stays bool). */
  RtTensor *converted[3] = {NULL, NULL, NULL};
  union {
    float f;
    double d;
    int64_t i;
  } scalar_store[3];
  RtTensor *out = rt_tensor_new_checked(store, ndim, shape, error);
  if (!out)
    return false;
  KIter it;
  k_iter_init(&it, ndim, shape);
  k_iter_add_tensor(&it, out);
  for (int k = 0; k < plan.n_ops; k++) {
    if (ops[k].tensor) {
      converted[k] = (plan.cond_first && k == 0) ? rt_tensor_ref(ops[k].tensor)
                                                 : k_to_dtype(ops[k].tensor, compute);
      k_iter_add_tensor(&it, converted[k]);
      continue;
    }
    KScalar s = ops[k].scalar;
    size_t size = ir_dtype_size(compute);
    if (compute == IR_DTYPE_FLOAT32)
      scalar_store[k].f = (float)s.d;
    else if (compute == IR_DTYPE_FLOAT64)
      scalar_store[k].d = s.d;
    else
      scalar_store[k].i = s.kind == K_SCALAR_FLOAT ? rt_double_to_int64(s.d) : s.i;
    k_iter_add_broadcast_scalar(&it, &scalar_store[k], size);
  }
  k_iter_run(&it, loop, &kp);
  for (int k = 0; k < plan.n_ops; k++)
    if (converted[k])
      rt_tensor_unref(converted[k]);
  if (kp.zero_div) {
    rt_tensor_unref(out);
    K_ERR(error, "ZeroDivisionError");
    return false;
  }
  if (final != store) {
    RtTensor *cast = rt_tensor_to_dtype(out, final);
    rt_tensor_unref(out);
    out = cast;
  }
  outs[0] = rt_tensor(out);
  return true;
}
