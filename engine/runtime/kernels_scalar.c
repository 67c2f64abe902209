/* Kernels on Python scalars: rt_kernel_scalar_arith (add/sub/mul/div/neg/comparisons in their
 * .int, .float and mixed .int_float/.float_int forms, div(Scalar, Scalar), pow of numbers,
 * eq.str and ne.str, eq.int_list and ne.int_list, __not__, __round_to_zero_floordiv,
 * floordiv.int, remainder of numbers, __and__/__or__/__xor__ of bools and ints,
 * __range_length, __derive_index, sqrt/exp/log of numbers, any.bool and all.bool) and
 * rt_kernel_is (__is__/__isnot__).
 *
 * As TorchScript's prim ops: int arithmetic wraps (two's complement), div.int is true
 * division returning float, float division by zero gives IEEE inf/nan (TorchScript does not
 * raise there), comparisons return bool; floordiv.int floors as Python's // and raises
 * "division by 0", sqrt/exp/log and pow of numbers return floats (IEEE at the edges; pow of
 * 0 to a negative power raises). remainder.int has Python's sign (PyTorch 1.13's formula
 * (b + a % b) % b agrees but wraps near INT64_MAX and traps on INT64_MIN % -1 and % 0, where
 * we give Python's answer or raise); remainder of floats is TorchScript's
 * fmod(b + fmod(a, b), b). Identity follows c10::IValue::isSameIdentity. */
#include "runtime/kernels.h"
#include "runtime/kernels_internal.h"

#include <math.h>
#include <string.h>

static bool arith_int(IrOpKind kind, gint64 a, gint64 b, RtValue *out) {
  uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
  switch (kind) {
  case IR_ATEN_ADD: *out = rt_int((gint64)(ua + ub)); return true;
  case IR_ATEN_SUB: *out = rt_int((gint64)(ua - ub)); return true;
  case IR_ATEN_MUL: *out = rt_int((gint64)(ua * ub)); return true;
  case IR_ATEN_DIV: *out = rt_double((double)a / (double)b); return true;
  case IR_ATEN_REMAINDER: { /* Python's %: the divisor's sign; b != 0 (the caller checks) */
    gint64 r = b == -1 ? 0 : a % b;
    *out = rt_int(r != 0 && (r < 0) != (b < 0) ? r + b : r);
    return true;
  }
  case IR_ATEN_GT: *out = rt_bool(a > b); return true;
  case IR_ATEN_LT: *out = rt_bool(a < b); return true;
  case IR_ATEN_GE: *out = rt_bool(a >= b); return true;
  case IR_ATEN_LE: *out = rt_bool(a <= b); return true;
  case IR_ATEN_EQ: *out = rt_bool(a == b); return true;
  case IR_ATEN_NE: *out = rt_bool(a != b); return true;
  default: return false;
  }
}

static bool arith_float(IrOpKind kind, double a, double b, RtValue *out) {
  switch (kind) {
  case IR_ATEN_ADD: *out = rt_double(a + b); return true;
  case IR_ATEN_SUB: *out = rt_double(a - b); return true;
  case IR_ATEN_MUL: *out = rt_double(a * b); return true;
  case IR_ATEN_DIV: *out = rt_double(a / b); return true;
  case IR_ATEN_REMAINDER:
    *out = rt_double(fmod(b + fmod(a, b), b));
    return true; /* TorchScript's */
  case IR_ATEN_GT: *out = rt_bool(a > b); return true;
  case IR_ATEN_LT: *out = rt_bool(a < b); return true;
  case IR_ATEN_GE: *out = rt_bool(a >= b); return true;
  case IR_ATEN_LE: *out = rt_bool(a <= b); return true;
  case IR_ATEN_EQ: *out = rt_bool(a == b); return true;
  case IR_ATEN_NE: *out = rt_bool(a != b); return true;
  default: return false;
  }
}

static bool arg_float(const IrSchema *schema, RtValue *args, guint i, double *out, GError **error) {
  if (args[i].tag == RT_TENSOR) { /* a float argument never takes a tensor */
    K_ERR(error, "%s(): argument '%s' (position %u) must be float", k_op_short_name(schema),
          schema->args[i].name, i + 1);
    return false;
  }
  KScalar s;
  if (!k_arg_scalar(schema, args, i, &s, error))
    return false;
  *out = s.d;
  return true;
}

bool rt_kernel_scalar_arith(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                            RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  IrOpKind kind = (IrOpKind)schema->kind;
  if (kind == IR_ATEN___NOT__) {
    bool b;
    if (!k_arg_bool(schema, args, 0, &b, error))
      return false;
    outs[0] = rt_bool(!b);
    return true;
  }
  if ((kind == IR_ATEN___AND__ || kind == IR_ATEN___OR__ || kind == IR_ATEN___XOR__) &&
      k_overload_is(schema, "bool")) {
    bool a, b;
    if (!k_arg_bool(schema, args, 0, &a, error) || !k_arg_bool(schema, args, 1, &b, error))
      return false;
    outs[0] = rt_bool(kind == IR_ATEN___AND__ ? a && b : kind == IR_ATEN___OR__ ? a || b : a != b);
    return true;
  }
  if (kind == IR_ATEN___AND__ || kind == IR_ATEN___OR__ || kind == IR_ATEN___XOR__) {
    gint64 a, b; /* the .int overloads: two's complement bits, as Python's ints */
    if (!k_arg_int(schema, args, 0, &a, error) || !k_arg_int(schema, args, 1, &b, error))
      return false;
    outs[0] = rt_int(kind == IR_ATEN___AND__ ? a & b : kind == IR_ATEN___OR__ ? a | b : a ^ b);
    return true;
  }
  if (k_overload_is(schema, "str")) { /* eq.str, ne.str: reduction names, dict keys */
    K_INVARIANT(args[0].tag == RT_STR && args[1].tag == RT_STR, "eq.str gets two strings");
    bool equal = strcmp(args[0].u.s->text, args[1].u.s->text) == 0;
    outs[0] = rt_bool(kind == IR_ATEN_EQ ? equal : !equal);
    return true;
  }
  if (k_overload_is(schema, "int_list")) { /* eq/ne of sizes in module graphs */
    K_INVARIANT(args[0].tag == RT_LIST && args[1].tag == RT_LIST, "eq.int_list gets two lists");
    const RtSeq *a = args[0].u.seq, *b = args[1].u.seq;
    bool equal = a->len == b->len;
    for (guint k = 0; equal && k < a->len; k++)
      equal = a->items[k].tag == RT_INT && b->items[k].tag == RT_INT &&
              a->items[k].u.i == b->items[k].u.i;
    outs[0] = rt_bool(kind == IR_ATEN_EQ ? equal : !equal);
    return true;
  }
  if (kind == IR_ATEN_ANY || kind == IR_ATEN_ALL) { /* Python's any/all of a bool list */
    K_INVARIANT(args[0].tag == RT_LIST, "any.bool and all.bool get a list");
    const RtSeq *l = args[0].u.seq;
    bool want = kind == IR_ATEN_ANY, found = false;
    for (guint k = 0; !found && k < l->len; k++)
      found = l->items[k].tag == RT_BOOL && l->items[k].u.b == want;
    outs[0] = rt_bool(want ? found : !found);
    return true;
  }
  if (kind == IR_ATEN_SQRT || kind == IR_ATEN_EXP || kind == IR_ATEN_LOG) {
    double a; /* math.sqrt/exp/log: IEEE at the edges (nan below 0, -inf at 0), as TorchScript */
    if (!arg_float(schema, args, 0, &a, error))
      return false;
    outs[0] = rt_double(kind == IR_ATEN_SQRT ? sqrt(a) : kind == IR_ATEN_EXP ? exp(a) : log(a));
    return true;
  }
  if (kind == IR_ATEN_FLOORDIV) {
    gint64 a, b;
    if (!k_arg_int(schema, args, 0, &a, error) || !k_arg_int(schema, args, 1, &b, error))
      return false;
    if (b == 0) {
      K_ERR(error, "division by 0");
      return false;
    }
    if (b == -1) { /* INT64_MIN // -1 wraps */
      outs[0] = rt_int((gint64)(0 - (uint64_t)a));
      return true;
    }
    gint64 q = a / b;
    outs[0] = rt_int(a % b != 0 && (a < 0) != (b < 0) ? q - 1 : q);
    return true;
  }
  if (kind == IR_ATEN___ROUND_TO_ZERO_FLOORDIV) {
    gint64 a, b;
    if (!k_arg_int(schema, args, 0, &a, error) || !k_arg_int(schema, args, 1, &b, error))
      return false;
    if (b == 0) {
      K_ERR(error, "integer division by zero");
      return false;
    }
    outs[0] = rt_int(b == -1 ? (gint64)(0 - (uint64_t)a) : a / b); /* INT64_MIN / -1 wraps */
    return true;
  }
  if (kind == IR_ATEN___RANGE_LENGTH || kind == IR_ATEN___DERIVE_INDEX) {
    gint64 v[3];
    for (guint i = 0; i < 3; i++)
      if (!k_arg_int(schema, args, i, &v[i], error))
        return false;
    if (kind == IR_ATEN___DERIVE_INDEX) { /* start + index * step, wrapping as int64 */
      outs[0] = rt_int((gint64)((uint64_t)v[1] + (uint64_t)v[0] * (uint64_t)v[2]));
      return true;
    }
    gint64 lo = v[0], hi = v[1], step = v[2];
    if (step == 0) {
      K_ERR(error, "range() arg 3 must not be zero");
      return false;
    }
    /* The distance in unsigned arithmetic (hi - lo may exceed int64); a count past int64
     * (range(INT64_MIN, INT64_MAX)) is clamped, no loop runs that long. */
    uint64_t n = 0;
    if (step > 0 && lo < hi)
      n = 1 + ((uint64_t)hi - 1 - (uint64_t)lo) / (uint64_t)step;
    else if (step < 0 && lo > hi)
      n = 1 + ((uint64_t)lo - 1 - (uint64_t)hi) / (0 - (uint64_t)step);
    outs[0] = rt_int(n > (uint64_t)G_MAXINT64 ? G_MAXINT64 : (gint64)n);
    return true;
  }
  /* .int computes in int64; .float, the mixed .int_float / .float_int and div(Scalar, Scalar)
   * in double, as TorchScript's prim ops. */
  bool is_int = k_overload_is(schema, "int");
  K_INVARIANT(is_int || k_overload_is(schema, "float") || k_overload_is(schema, "int_float") ||
                  k_overload_is(schema, "float_int") ||
                  (kind == IR_ATEN_DIV && k_overload_is(schema, "")),
              "rt_kernel_scalar_arith serves the .int, .float and mixed scalar overloads");
  if (kind == IR_ATEN_NEG) {
    if (is_int) {
      gint64 a;
      if (!k_arg_int(schema, args, 0, &a, error))
        return false;
      outs[0] = rt_int((gint64)(0 - (uint64_t)a));
    } else {
      double a;
      if (!arg_float(schema, args, 0, &a, error))
        return false;
      outs[0] = rt_double(-a);
    }
    return true;
  }
  if (kind == IR_ATEN_POW) { /* every scalar pow is a float, as TorchScript's */
    double a, b;
    if (!arg_float(schema, args, 0, &a, error) || !arg_float(schema, args, 1, &b, error))
      return false;
    if (a == 0 && b < 0) {
      K_ERR(error, "0.0 cannot be raised to a negative power");
      return false;
    }
    outs[0] = rt_double(pow(a, b));
    return true;
  }
  bool ok;
  if (is_int) {
    gint64 a, b;
    if (!k_arg_int(schema, args, 0, &a, error) || !k_arg_int(schema, args, 1, &b, error))
      return false;
    if (kind == IR_ATEN_REMAINDER && b == 0) {
      K_ERR(error, "integer division or modulo by zero");
      return false;
    }
    ok = arith_int(kind, a, b, &outs[0]);
  } else {
    double a, b;
    if (!arg_float(schema, args, 0, &a, error) || !arg_float(schema, args, 1, &b, error))
      return false;
    ok = arith_float(kind, a, b, &outs[0]);
  }
  K_INVARIANT(ok, "rt_kernel_scalar_arith serves only the scalar overloads of ops.def");
  return true;
}

/* c10::IValue::isSameIdentity: None is None; an undefined tensor is None; tensors by
 * identity; ints, floats, bools and strings by value; lists and tuples by identity. */
static bool same_identity(RtValue a, RtValue b) {
  bool a_absent = a.tag == RT_NONE || (a.tag == RT_TENSOR && a.u.tensor == NULL);
  bool b_absent = b.tag == RT_NONE || (b.tag == RT_TENSOR && b.u.tensor == NULL);
  if (a_absent || b_absent)
    return a_absent && b_absent;
  if (a.tag != b.tag)
    return false;
  switch (a.tag) {
  case RT_TENSOR: return a.u.tensor == b.u.tensor;
  case RT_INT: return a.u.i == b.u.i;
  case RT_DOUBLE: return a.u.d == b.u.d;
  case RT_BOOL: return a.u.b == b.u.b;
  case RT_STR: return strcmp(a.u.s->text, b.u.s->text) == 0;
  case RT_DEVICE: return a.u.device == b.u.device;
  case RT_LIST:
  case RT_TUPLE: return a.u.seq == b.u.seq;
  case RT_DICT: return a.u.dict == b.u.dict;
  case RT_NONE: return true;
  }
  return false;
}

bool rt_kernel_is(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                  RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  bool same = same_identity(args[0], args[1]);
  outs[0] = rt_bool(schema->kind == IR_ATEN___IS__ ? same : !same);
  return true;
}
