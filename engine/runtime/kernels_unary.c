/* rt_kernel_unary: the one-operand math ops of ops.def (neg, abs, sigmoid, tanh, relu, exp,
 * log..., rounding, lgamma, digamma).
 *
 * Semantics are PyTorch 1.13's on the CPU: the result is a new contiguous tensor of the input's
 * shape; float32 computes in float (expf, tanhf), float64 in double, float16 in float then
 * rounded. Floating-only ops give float32 for int64 and bool inputs; neg, abs and relu keep
 * int64; ceil, floor, round and trunc return int64 inputs unchanged (a copy); round is half to
 * even (nearbyint under the default rounding mode); sigmoid is 1 / (1 + exp(-x)). */
#include "runtime/kernels.h"
#include "runtime/kernels_loops.h"
#include "runtime/scalar_math.h"

#include <string.h>
#include <tgmath.h>

#define DEF_U(name, EXPR)                                                     \
  static inline float name##_f32(float x, float y, float z, KParams *P) {     \
    typedef float T;                                                          \
    return (T)(EXPR);                                                         \
  }                                                                           \
  static inline double name##_f64(double x, double y, double z, KParams *P) { \
    typedef double T;                                                         \
    return (T)(EXPR);                                                         \
  }                                                                           \
  K_LOOP1(name##_loop_f32, float, float, name##_f32)                          \
  K_LOOP1(name##_loop_f64, double, double, name##_f64)

#define DEF_UI(name, EXPR)                                                        \
  static inline int64_t name##_i64(int64_t x, int64_t y, int64_t z, KParams *P) { \
    return (EXPR);                                                                \
  }                                                                               \
  K_LOOP1(name##_loop_i64, int64_t, int64_t, name##_i64)

/* lgamma_r: glibc's lgamma writes the global signgam; the _r forms are thread-safe. */
static inline float lgamma_f(float x) {
  int sign;
  return lgammaf_r(x, &sign);
}
static inline double lgamma_d(double x) {
  int sign;
  return lgamma_r(x, &sign);
}
#define LGAMMA(x) _Generic((x), float : lgamma_f, double : lgamma_d)(x)

DEF_U(neg, -x)
DEF_UI(neg, (int64_t)(0 - (uint64_t)x))
DEF_U(abs, fabs(x))
DEF_UI(abs, x < 0 ? (int64_t)(0 - (uint64_t)x) : x)
/* sign(NaN) is 0, as PyTorch 1.13's CPU kernel. */
DEF_U(sign, (T)((x > 0) - (x < 0)))
DEF_UI(sign, (x > 0) - (x < 0))
DEF_U(sigmoid, (T)1 / ((T)1 + exp(-x)))
DEF_U(tanh, tanh(x))
DEF_U(relu, x < 0 ? (T)0 : x)
DEF_UI(relu, x < 0 ? 0 : x)
DEF_U(exp, exp(x))
DEF_U(expm1, expm1(x))
DEF_U(log, log(x))
DEF_U(log10, log10(x))
DEF_U(log1p, log1p(x))
DEF_U(log2, log2(x))
DEF_U(sqrt, sqrt(x))
DEF_U(rsqrt, (T)1 / sqrt(x))
DEF_U(reciprocal, (T)1 / x)
DEF_U(erf, erf(x))
DEF_U(erfc, erfc(x))
DEF_U(sin, sin(x))
DEF_U(cos, cos(x))
DEF_U(tan, tan(x))
DEF_U(asin, asin(x))
DEF_U(acos, acos(x))
DEF_U(atan, atan(x))
DEF_U(sinh, sinh(x))
DEF_U(cosh, cosh(x))
DEF_U(ceil, ceil(x))
DEF_U(floor, floor(x))
DEF_U(round, nearbyint(x))
DEF_U(trunc, trunc(x))
DEF_U(frac, x - trunc(x))
DEF_U(lgamma, LGAMMA(x))
#define DIGAMMA(x) _Generic((x), float : digammaf, double : digamma)(x)
DEF_U(digamma, DIGAMMA(x))
DEF_U(silu, x / (1 + exp(-x)))
DEF_U(mish, x *tanh(log1p(exp(x))))
DEF_U(hardsigmoid, x <= -3 ? 0 : (x >= 3 ? 1 : x / 6 + (T)0.5))

typedef enum {
  INT_TO_FLOAT, /* int64/bool inputs compute in float32 */
  INT_KEEP,     /* int64 (and bool through int64) keep their dtype */
  INT_COPY,     /* int64 inputs are returned as a copy; bool unsupported */
  INT_NONE,     /* integral inputs unsupported */
} IntRule;

typedef struct {
  IrOpKind kind;
  KInnerLoop f32, f64, i64;
  IntRule int_rule;
} UnaryOp;

#define UF(k, name) \
  { IR_ATEN_##k, name##_loop_f32, name##_loop_f64, NULL, INT_TO_FLOAT }
#define UI(k, name) \
  { IR_ATEN_##k, name##_loop_f32, name##_loop_f64, name##_loop_i64, INT_KEEP }
#define UC(k, name) \
  { IR_ATEN_##k, name##_loop_f32, name##_loop_f64, NULL, INT_COPY }

static const UnaryOp unary_ops[] = {
    UI(NEG, neg),
    UI(ABS, abs),
    UI(SIGN, sign),
    UF(SIGMOID, sigmoid),
    UF(TANH, tanh),
    UI(RELU, relu),
    UF(EXP, exp),
    UF(EXPM1, expm1),
    UF(LOG, log),
    UF(LOG10, log10),
    UF(LOG1P, log1p),
    UF(LOG2, log2),
    UF(SQRT, sqrt),
    UF(RSQRT, rsqrt),
    UF(RECIPROCAL, reciprocal),
    UF(ERF, erf),
    UF(ERFC, erfc),
    UF(SIN, sin),
    UF(COS, cos),
    UF(TAN, tan),
    UF(ASIN, asin),
    UF(ACOS, acos),
    UF(ATAN, atan),
    UF(SINH, sinh),
    UF(COSH, cosh),
    UC(CEIL, ceil),
    UC(FLOOR, floor),
    UC(ROUND, round),
    UC(TRUNC, trunc),
    {IR_ATEN_FRAC, frac_loop_f32, frac_loop_f64, NULL, INT_NONE},
    UF(LGAMMA, lgamma),
    UF(DIGAMMA, digamma),
    UF(SILU, silu),
    UF(MISH, mish),
    UF(HARDSIGMOID, hardsigmoid),
};

bool rt_kernel_unary(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                     RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  const UnaryOp *op = NULL;
  for (size_t k = 0; k < G_N_ELEMENTS(unary_ops); k++)
    if ((int)unary_ops[k].kind == schema->kind)
      op = &unary_ops[k];
  K_INVARIANT(op != NULL, "rt_kernel_unary serves only the unary ops of ops.def");
  RtTensor *self;
  if (!k_arg_tensor(schema, args, 0, &self, error))
    return false;

  IrDtype in = self->dtype, result, compute;
  if (k_dtype_is_float(in)) {
    result = in;
    compute = in == IR_DTYPE_FLOAT16 ? IR_DTYPE_FLOAT32 : in;
  } else if (op->kind == IR_ATEN_NEG && in == IR_DTYPE_BOOL) {
    K_ERR_DTYPE(error, "Negation, the `-` operator, on a bool tensor is not supported. If you are "
                       "trying to invert a mask, use the `~` or `logical_not()` operator instead.");
    return false;
  } else if (op->int_rule == INT_TO_FLOAT) {
    result = compute = IR_DTYPE_FLOAT32;
  } else if (op->int_rule == INT_KEEP) {
    result = in;
    compute = IR_DTYPE_INT64;
  } else if (op->int_rule == INT_COPY && in == IR_DTYPE_INT64) {
    outs[0] = rt_tensor(rt_tensor_clone(self));
    return true;
  } else {
    K_ERR_DTYPE(error, "\"%s\" not implemented for '%s'", k_op_short_name(schema),
                ir_dtype_type_name(in));
    return false;
  }

  KInnerLoop loop = compute == IR_DTYPE_FLOAT32   ? op->f32
                    : compute == IR_DTYPE_FLOAT64 ? op->f64
                                                  : op->i64;
  K_INVARIANT(loop != NULL, "unary ops have a loop for their compute dtype");
  RtTensor *out = rt_tensor_new_checked(compute, self->ndim, self->sizes, error);
  if (!out)
    return false;
  if (result == in && compute == in && rt_tensor_is_contiguous(self)) {
    /* A contiguous float tensor (every 1-element one): the loop once over its elements, as
     * the iterator would run it, without the iterator or a conversion. */
    KParams kp;
    memset(&kp, 0, sizeof kp);
    char *ptrs[2] = {rt_tensor_data(out), rt_tensor_data(self)};
    const int64_t unit[2] = {1, 1};
    int64_t n = rt_tensor_numel(self);
    if (n > 0)
      loop(n, ptrs, unit, &kp);
    outs[0] = rt_tensor(out);
    return true;
  }
  RtTensor *src = k_to_dtype(self, compute);
  KParams kp;
  memset(&kp, 0, sizeof kp);
  KIter it;
  k_iter_init(&it, src->ndim, src->sizes);
  k_iter_add_tensor(&it, out);
  k_iter_add_tensor(&it, src);
  k_iter_run(&it, loop, &kp);
  rt_tensor_unref(src);
  if (result != compute) {
    RtTensor *cast = rt_tensor_to_dtype(out, result);
    rt_tensor_unref(out);
    out = cast;
  }
  outs[0] = rt_tensor(out);
  return true;
}
