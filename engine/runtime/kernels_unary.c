/* rt_kernel_unary: the one-operand math ops of ops.def (neg, abs, sigmoid, tanh, relu, exp,
 * log..., rounding, lgamma, digamma).
 *
 * Semantics are PyTorch 1.13's on the CPU: the result is a new contiguous tensor of the input's
 * shape; float32 computes in float (expf, tanhf), float64 in double, float16 in float then
 * rounded. The float element functions are the ops' ops.def expressions
 * (runtime/pointwise_scalar.h), the text generated C compiles: one scalar meaning for every
 * backend. Floating-only ops give float32 for int64 and bool inputs; neg, abs, sign and relu
 * keep int64; square gives int64 for int64 and bool (PyTorch's pow(self, 2)); ceil, floor,
 * round and trunc return int64 inputs unchanged (a copy); round is half to even (nearbyint
 * under the default rounding mode). */
#include "runtime/kernels.h"
#include "runtime/kernels_loops.h"
#include "runtime/pointwise_scalar.h"

#include <string.h>

typedef enum {
  INT_TO_FLOAT, /* int64/bool inputs compute in float32 */
  INT_KEEP,     /* int64 (and bool through int64) keep their dtype */
  INT_TO_LONG,  /* int64 and bool compute in int64, the result int64 */
  INT_COPY,     /* int64 inputs are returned as a copy; bool unsupported */
  INT_NONE,     /* integral inputs unsupported */
} IntRule;

/* The ops this family serves, with what integral inputs do. */
/* clang-format off */
#define UNARY_OPS(X) \
  X(ATEN_NEG, INT_KEEP) \
  X(ATEN_ABS, INT_KEEP) \
  X(ATEN_SIGN, INT_KEEP) \
  X(ATEN_SIGMOID, INT_TO_FLOAT) \
  X(ATEN_TANH, INT_TO_FLOAT) \
  X(ATEN_RELU, INT_KEEP) \
  X(ATEN_EXP, INT_TO_FLOAT) \
  X(ATEN_EXPM1, INT_TO_FLOAT) \
  X(ATEN_LOG, INT_TO_FLOAT) \
  X(ATEN_LOG10, INT_TO_FLOAT) \
  X(ATEN_LOG1P, INT_TO_FLOAT) \
  X(ATEN_LOG2, INT_TO_FLOAT) \
  X(ATEN_SQRT, INT_TO_FLOAT) \
  X(ATEN_RSQRT, INT_TO_FLOAT) \
  X(ATEN_SQUARE, INT_TO_LONG) \
  X(ATEN_RECIPROCAL, INT_TO_FLOAT) \
  X(ATEN_ERF, INT_TO_FLOAT) \
  X(ATEN_ERFC, INT_TO_FLOAT) \
  X(ATEN_SIN, INT_TO_FLOAT) \
  X(ATEN_COS, INT_TO_FLOAT) \
  X(ATEN_TAN, INT_TO_FLOAT) \
  X(ATEN_ASIN, INT_TO_FLOAT) \
  X(ATEN_ACOS, INT_TO_FLOAT) \
  X(ATEN_ATAN, INT_TO_FLOAT) \
  X(ATEN_SINH, INT_TO_FLOAT) \
  X(ATEN_COSH, INT_TO_FLOAT) \
  X(ATEN_ASINH, INT_TO_FLOAT) \
  X(ATEN_ACOSH, INT_TO_FLOAT) \
  X(ATEN_ATANH, INT_TO_FLOAT) \
  X(ATEN_LOG_SIGMOID, INT_NONE) \
  X(ATEN_CEIL, INT_COPY) \
  X(ATEN_FLOOR, INT_COPY) \
  X(ATEN_ROUND, INT_COPY) \
  X(ATEN_TRUNC, INT_COPY) \
  X(ATEN_FRAC, INT_NONE) \
  X(ATEN_LGAMMA, INT_TO_FLOAT) \
  X(ATEN_DIGAMMA, INT_TO_FLOAT) \
  X(ATEN_SILU, INT_TO_FLOAT) \
  X(ATEN_MISH, INT_TO_FLOAT) \
  X(ATEN_HARDSIGMOID, INT_TO_FLOAT) \
  X(ATEN_RELU6, INT_KEEP) \
  X(ATEN_HARDSWISH, INT_NONE)
/* clang-format on */

/* The float32 and float64 loops of every op: its ops.def expression (pointwise_scalar.h). */
#define DEF_FLOAT_LOOPS(KIND, rule)                                           \
  static inline float KIND##_f32(float x, float y, float z, KParams *P) {     \
    return PW_UNARY(f32, KIND, x);                                            \
  }                                                                           \
  static inline double KIND##_f64(double x, double y, double z, KParams *P) { \
    return PW_UNARY(f64, KIND, x);                                            \
  }                                                                           \
  K_LOOP1(KIND##_loop_f32, float, float, KIND##_f32)                          \
  K_LOOP1(KIND##_loop_f64, double, double, KIND##_f64)
UNARY_OPS(DEF_FLOAT_LOOPS)

/* The int64 loops of the INT_KEEP ops: written for int64, since the expressions' math is
 * floating point (fabs) and -x overflows at INT64_MIN (here it wraps, as PyTorch's). */
#define DEF_INT_LOOP(KIND, EXPR)                                                  \
  static inline int64_t KIND##_i64(int64_t x, int64_t y, int64_t z, KParams *P) { \
    return (EXPR);                                                                \
  }                                                                               \
  K_LOOP1(KIND##_loop_i64, int64_t, int64_t, KIND##_i64)
DEF_INT_LOOP(ATEN_NEG, (int64_t)(0 - (uint64_t)x))
DEF_INT_LOOP(ATEN_ABS, x < 0 ? (int64_t)(0 - (uint64_t)x) : x)
DEF_INT_LOOP(ATEN_SIGN, (x > 0) - (x < 0))
DEF_INT_LOOP(ATEN_RELU, x < 0 ? 0 : x)
DEF_INT_LOOP(ATEN_RELU6, x < 0 ? 0 : (x > 6 ? 6 : x))
DEF_INT_LOOP(ATEN_SQUARE, (int64_t)((uint64_t)x * (uint64_t)x))

typedef struct {
  IrOpKind kind;
  KInnerLoop f32, f64, i64;
  IntRule int_rule;
} UnaryOp;

#define INT_LOOP_INT_KEEP(KIND) KIND##_loop_i64
#define INT_LOOP_INT_TO_FLOAT(KIND) NULL
#define INT_LOOP_INT_TO_LONG(KIND) KIND##_loop_i64
#define INT_LOOP_INT_COPY(KIND) NULL
#define INT_LOOP_INT_NONE(KIND) NULL
#define UNARY_TABLE_ROW(KIND, rule) \
  {IR_##KIND, KIND##_loop_f32, KIND##_loop_f64, INT_LOOP_##rule(KIND), rule},
static const UnaryOp unary_ops[] = {UNARY_OPS(UNARY_TABLE_ROW)};

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
  } else if (op->int_rule == INT_TO_LONG) {
    result = compute = IR_DTYPE_INT64;
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
