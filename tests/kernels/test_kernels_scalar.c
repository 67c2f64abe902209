/* Scalar arithmetic, conversions (NumToTensor included), identity, type_as and
 * ones_like/zeros_like/full_like. */
#include <math.h>
#include <string.h>

#include "kernels_test_util.h"
#include "runtime/run_control.h"

#define F32 IR_DTYPE_FLOAT32
#define F64 IR_DTYPE_FLOAT64
#define I64 IR_DTYPE_INT64
#define BOOL IR_DTYPE_BOOL

static RtValue call(const char *op, RtValue *args, guint n) {
  GError *error = NULL;
  RtValue out;
  if (!kt_call(op, args, n, &out, &error))
    g_error("%s: %s", op, error->message);
  return out;
}

static void expect_int(const char *op, RtValue a, RtValue b, gint64 want) {
  RtValue args[2] = {a, b};
  RtValue r = call(op, args, b.tag == RT_NONE ? 1 : 2);
  g_assert_cmpint(r.tag, ==, RT_INT);
  g_assert_cmpint(r.u.i, ==, want);
}

static void expect_double(const char *op, RtValue a, RtValue b, double want) {
  RtValue args[2] = {a, b};
  RtValue r = call(op, args, b.tag == RT_NONE ? 1 : 2);
  g_assert_cmpint(r.tag, ==, RT_DOUBLE);
  if (isnan(want))
    g_assert_true(isnan(r.u.d));
  else
    g_assert_cmpfloat(r.u.d, ==, want);
}

static void expect_bool(const char *op, RtValue a, RtValue b, bool want) {
  RtValue args[2] = {a, b};
  RtValue r = call(op, args, b.tag == RT_NONE ? 1 : 2);
  g_assert_cmpint(r.tag, ==, RT_BOOL);
  g_assert_cmpint(r.u.b, ==, want);
}

/* Both arguments always passed (None is a real argument of __is__). */
static void expect_is(const char *op, RtValue a, RtValue b, bool want) {
  RtValue args[2] = {a, b};
  RtValue r = call(op, args, 2);
  g_assert_cmpint(r.tag, ==, RT_BOOL);
  g_assert_cmpint(r.u.b, ==, want);
}

static void test_int_arith(void) {
  expect_int("aten::add.int(", rt_int(2), rt_int(3), 5);
  expect_int("aten::sub.int(", rt_int(2), rt_int(3), -1);
  expect_int("aten::mul.int(", rt_int(-4), rt_int(3), -12);
  /* wraps like two's complement */
  expect_int("aten::add.int(", rt_int(G_MAXINT64), rt_int(1), G_MININT64);
  expect_int("aten::neg.int(", rt_int(5), rt_none(), -5);
  expect_int("aten::neg.int(", rt_int(G_MININT64), rt_none(), G_MININT64);
  /* range loops: len(range(lo, hi, step)) as Python counts it, and start + index * step */
  RtValue r[3] = {rt_int(1), rt_int(8), rt_int(2)};
  g_assert_cmpint(call("aten::__range_length(", r, 3).u.i, ==, 4); /* 1, 3, 5, 7 */
  r[0] = rt_int(8), r[1] = rt_int(1), r[2] = rt_int(-3);
  g_assert_cmpint(call("aten::__range_length(", r, 3).u.i, ==, 3); /* 8, 5, 2 */
  r[2] = rt_int(3);
  g_assert_cmpint(call("aten::__range_length(", r, 3).u.i, ==, 0);
  r[0] = rt_int(G_MININT64), r[1] = rt_int(G_MAXINT64), r[2] = rt_int(1);
  g_assert_cmpint(call("aten::__range_length(", r, 3).u.i, ==, G_MAXINT64); /* clamped */
  r[2] = rt_int(0);
  kt_expect_error("aten::__range_length(", r, 3, "range() arg 3 must not be zero");
  r[0] = rt_int(3), r[1] = rt_int(8), r[2] = rt_int(-3);
  g_assert_cmpint(call("aten::__derive_index(", r, 3).u.i, ==, -1); /* 8 + 3 * -3 */
  /* div.int is true division into a float */
  expect_double("aten::div.int(", rt_int(7), rt_int(2), 3.5);
  expect_double("aten::div.int(", rt_int(-1), rt_int(4), -0.25);
  expect_bool("aten::gt.int(", rt_int(3), rt_int(2), true);
  expect_bool("aten::lt.int(", rt_int(3), rt_int(2), false);
  expect_bool("aten::ge.int(", rt_int(2), rt_int(2), true);
  expect_bool("aten::le.int(", rt_int(3), rt_int(2), false);
  expect_bool("aten::eq.int(", rt_int(2), rt_int(2), true);
  expect_bool("aten::ne.int(", rt_int(2), rt_int(2), false);
  /* C's truncation toward zero, as PyTorch's loop unroller computes trip counts */
  expect_int("aten::__round_to_zero_floordiv(", rt_int(17), rt_int(8), 2);
  expect_int("aten::__round_to_zero_floordiv(", rt_int(-17), rt_int(8), -2);
  expect_int("aten::__round_to_zero_floordiv(", rt_int(G_MININT64), rt_int(-1), G_MININT64);
  RtValue zero_div[2] = {rt_int(1), rt_int(0)};
  RtValue out;
  GError *error = NULL;
  g_assert_false(kt_call("aten::__round_to_zero_floordiv(", zero_div, 2, &out, &error));
  g_assert_nonnull(strstr(error->message, "integer division by zero"));
  g_error_free(error);
  /* Python's flooring //, "division by 0" as TorchScript's floordiv.int */
  expect_int("aten::floordiv.int(", rt_int(-7), rt_int(2), -4);
  expect_int("aten::floordiv.int(", rt_int(7), rt_int(-2), -4);
  expect_int("aten::floordiv.int(", rt_int(-8), rt_int(2), -4);
  expect_int("aten::floordiv.int(", rt_int(7), rt_int(2), 3);
  expect_int("aten::floordiv.int(", rt_int(G_MININT64), rt_int(-1), G_MININT64);
  RtValue floordiv_zero[2] = {rt_int(1), rt_int(0)};
  kt_expect_error("aten::floordiv.int(", floordiv_zero, 2, "division by 0");
  /* % of numbers: PyTorch 1.13's answers (t5.py in the issue 12 notes): the divisor's sign for
   * ints, fmod(b + fmod(a, b), b) for floats (so -1e-20 % 1.0 is 0.0, 2.0 % inf is nan) */
  expect_int("aten::remainder.int(", rt_int(7), rt_int(3), 1);
  expect_int("aten::remainder.int(", rt_int(-7), rt_int(3), 2);
  expect_int("aten::remainder.int(", rt_int(7), rt_int(-3), -2);
  expect_int("aten::remainder.int(", rt_int(-7), rt_int(-3), -1);
  expect_int("aten::remainder.int(", rt_int(5), rt_int(-5), 0);
  /* where PyTorch's formula wraps or traps: Python's answers */
  expect_int("aten::remainder.int(", rt_int(5), rt_int(G_MAXINT64), 5);
  expect_int("aten::remainder.int(", rt_int(G_MININT64), rt_int(-1), 0);
  RtValue remainder_zero[2] = {rt_int(5), rt_int(0)};
  kt_expect_error("aten::remainder.int(", remainder_zero, 2, "modulo by zero");
  expect_double("aten::remainder.float(", rt_double(7.5), rt_double(2.0), 1.5);
  expect_double("aten::remainder.float(", rt_double(-7.5), rt_double(2.0), 0.5);
  expect_double("aten::remainder.float(", rt_double(7.5), rt_double(-2.0), -0.5);
  expect_double("aten::remainder.float(", rt_double(-1e-20), rt_double(1.0), 0.0);
  expect_double("aten::remainder.float(", rt_double(2.0), rt_double(INFINITY), NAN);
  expect_double("aten::remainder.float(", rt_double(5.0), rt_double(0.0), NAN);
  expect_double("aten::remainder.int_float(", rt_int(-7), rt_double(2.0), 1.0);
  expect_bool("aten::__and__.bool(", rt_bool(true), rt_bool(true), true);
  expect_bool("aten::__and__.bool(", rt_bool(true), rt_bool(false), false);
  expect_bool("aten::__or__.bool(", rt_bool(false), rt_bool(true), true);
  expect_bool("aten::__or__.bool(", rt_bool(false), rt_bool(false), false);
  expect_bool("aten::__xor__.bool(", rt_bool(true), rt_bool(false), true);
  expect_bool("aten::__xor__.bool(", rt_bool(true), rt_bool(true), false);
  /* & | ^ of ints: Python's two's complement answers (5 | -3 is -3, 5 ^ -3 is -8) */
  expect_int("aten::__and__.int(", rt_int(5), rt_int(-3), 5);
  expect_int("aten::__or__.int(", rt_int(5), rt_int(-3), -3);
  expect_int("aten::__xor__.int(", rt_int(5), rt_int(-3), -8);
  expect_int("aten::__xor__.int(", rt_int(G_MININT64), rt_int(-1), G_MAXINT64);
  expect_double("aten::sqrt.int(", rt_int(9), rt_none(), 3.0);
  expect_double("aten::sqrt.int(", rt_int(-1), rt_none(), NAN);
  RtValue a = rt_int_list((const gint64[]){2, 3}, 2), a2 = rt_int_list((const gint64[]){2, 3}, 2);
  RtValue b = rt_int_list((const gint64[]){2}, 1);
  expect_bool("aten::eq.int_list(", a, a2, true);
  expect_bool("aten::ne.int_list(", a, a2, false);
  expect_bool("aten::eq.int_list(", a, b, false);
  expect_bool("aten::ne.int_list(", a, b, true);
  rt_value_unref(a);
  rt_value_unref(a2);
  rt_value_unref(b);
  RtValue flags[2] = {rt_bool(false), rt_bool(true)};
  RtValue mixed = rt_list(flags, 2), empty = rt_list(NULL, 0);
  expect_bool("aten::any.bool(", mixed, rt_none(), true);
  expect_bool("aten::all.bool(", mixed, rt_none(), false);
  expect_bool("aten::any.bool(", empty, rt_none(), false);
  expect_bool("aten::all.bool(", empty, rt_none(), true);
  rt_value_unref(mixed);
  rt_value_unref(empty);
}

static void expect_str(const char *op, RtValue *args, guint n, const char *want) {
  RtValue r = call(op, args, n);
  g_assert_cmpint(r.tag, ==, RT_STR);
  g_assert_cmpstr(r.u.s->text, ==, want);
  rt_value_unref(r);
}

/* Strings as PyTorch 1.13 writes them (checked against its TorchScript). */
static void test_str_ops(void) {
  RtValue items[2] = {rt_int(1), rt_int(2)};
  RtValue fmt[] = {rt_str("{} {} {} {} {} {}|{}"),
                   rt_double(1.0),
                   rt_int(-3),
                   rt_bool(true),
                   rt_str("hi"),
                   rt_list(items, 2),
                   rt_double(0.1),
                   rt_none(),
                   rt_int(9)};
  expect_str("aten::format(", fmt, G_N_ELEMENTS(fmt),
             "1. -3 True hi [1, 2] 0.10000000000000001|None");
  kt_expect_error("aten::format(", fmt, 3, "Too few arguments for format string");
  RtValue d[] = {rt_double(1e20), rt_double(INFINITY), rt_device(IR_DEVICE_CPU), rt_str("x")};
  expect_str("aten::str(", &d[0], 1, "1e+20");
  expect_str("aten::str(", &d[1], 1, "inf");
  expect_str("aten::str(", &d[2], 1, "cpu");
  RtValue cuda[] = {rt_str("cuda:0"), rt_str("cuda"), rt_int(0), rt_int(-1)};
  expect_int("aten::len.str(", cuda[0], rt_none(), 6);
  RtValue r = call("aten::find(", cuda, 4);
  g_assert_cmpint(r.u.i, ==, 0);
  RtValue late[] = {rt_str("xcuda:0"), rt_str("cuda"), rt_int(2), rt_int(7)};
  r = call("aten::find(", late, 4);
  g_assert_cmpint(r.u.i, ==, -1);
  r = call("aten::find(", late, 2);
  g_assert_cmpint(r.u.i, ==, 1);
  RtValue join[] = {cuda[0], d[3]};
  expect_str("aten::add.str(", join, 2, "cuda:0x");
  RtValue t = rt_tensor(kt_tensor(F32, 0, NULL, (const double[]){1}));
  kt_expect_error("aten::str(", &t, 1, "writing a Tensor as a string is not supported");
  r = call("prim::unchecked_cast(", &t, 1);
  g_assert_true(r.u.tensor == t.u.tensor);
  rt_value_unref(r);
  rt_value_unref(t);
  for (guint i = 0; i < G_N_ELEMENTS(fmt); i++)
    rt_value_unref(fmt[i]);
  for (guint i = 0; i < G_N_ELEMENTS(d); i++)
    rt_value_unref(d[i]);
  for (guint i = 0; i < 4; i++) {
    rt_value_unref(cuda[i]);
    rt_value_unref(late[i]);
  }
}

/* Tensor facts and grad mode, as read by scripted nn.Modules. */
static void test_tensor_info(void) {
  RtValue f = rt_tensor(kt_tensor(F32, 1, (const int64_t[]){2}, (const double[]){1, 2}));
  RtValue i = rt_tensor(kt_tensor(I64, 1, (const int64_t[]){2}, (const double[]){1, 2}));
  expect_bool("aten::is_floating_point(", f, rt_none(), true);
  expect_bool("aten::is_floating_point(", i, rt_none(), false);
  expect_bool("prim::requires_grad(", f, rt_none(), false);
  f.u.tensor->requires_grad = true;
  expect_bool("prim::requires_grad(", f, rt_none(), true);
  expect_bool("prim::is_cuda(", f, rt_none(), false);
  expect_bool("prim::is_nested(", f, rt_none(), false);
  RtValue d = call("prim::device(", &f, 1);
  g_assert_cmpint(d.tag, ==, RT_DEVICE);
  g_assert_cmpint(d.u.device, ==, IR_DEVICE_CPU);
  RtValue on = call("aten::is_grad_enabled(", NULL, 0);
  g_assert_true(on.tag == RT_BOOL && on.u.b);
  g_assert_true(rt_run_set_grad_mode(false));
  RtValue off = call("aten::is_grad_enabled(", NULL, 0);
  g_assert_false(off.u.b);
  g_assert_false(rt_run_set_grad_mode(true));
  RtValue msg = rt_str("careful");
  RtValue none = call("aten::warn(", &msg, 1);
  g_assert_cmpint(none.tag, ==, RT_NONE);
  rt_value_unref(msg);
  rt_value_unref(f);
  rt_value_unref(i);
}

static void test_str_compare(void) {
  RtValue a = rt_str("x"), b = rt_str("y"), a2 = rt_str("x");
  expect_bool("aten::eq.str(", a, a2, true);
  expect_bool("aten::ne.str(", a, a2, false);
  expect_bool("aten::ne.str(", a, b, true);
  rt_value_unref(a);
  rt_value_unref(b);
  rt_value_unref(a2);
}

static void test_float_arith(void) {
  expect_double("aten::add.float(", rt_double(0.5), rt_double(0.25), 0.75);
  expect_double("aten::sub.float(", rt_double(0.5), rt_double(0.25), 0.25);
  expect_double("aten::mul.float(", rt_double(1.5), rt_double(-2), -3);
  expect_double("aten::div.float(", rt_double(1), rt_double(8), 0.125);
  expect_double("aten::div.float(", rt_double(1), rt_double(0), INFINITY);
  expect_double("aten::neg.float(", rt_double(2.5), rt_none(), -2.5);
  /* an int passed where a float is expected is read as a float */
  expect_double("aten::add.float(", rt_int(1), rt_double(0.5), 1.5);
  expect_bool("aten::gt.float(", rt_double(0.5), rt_double(0.25), true);
  expect_bool("aten::lt.float(", rt_double(NAN), rt_double(0.25), false);
  expect_bool("aten::ge.float(", rt_double(0.25), rt_double(0.25), true);
  expect_bool("aten::le.float(", rt_double(0.5), rt_double(0.25), false);
  expect_bool("aten::eq.float(", rt_double(NAN), rt_double(NAN), false);
  expect_bool("aten::ne.float(", rt_double(NAN), rt_double(NAN), true);
  expect_bool("aten::__not__(", rt_bool(true), rt_none(), false);
  expect_bool("aten::__not__(", rt_bool(false), rt_none(), true);
  /* the overloads mixing int and float compute in double (PyTorch 1.13's answers) */
  expect_double("aten::add.int_float(", rt_int(2), rt_double(2.0), 4.0);
  expect_double("aten::sub.float_int(", rt_double(2.0), rt_int(2), 0.0);
  expect_double("aten::mul.int_float(", rt_int(1), rt_double(NAN), NAN);
  expect_double("aten::div(", rt_int(2), rt_int(8), 0.25);
  expect_double("aten::div(", rt_double(1.0), rt_int(0), INFINITY);
  expect_bool("aten::lt.int_float(", rt_int(0), rt_double(1.0), true);
  expect_bool("aten::eq.float_int(", rt_double(2.0), rt_int(2), true);
  expect_bool("aten::gt.int_float(", rt_int(1), rt_double(NAN), false);
  /* math.sqrt/exp/log of numbers: floats, IEEE at the edges (PyTorch 1.13's answers) */
  expect_double("aten::log.float(", rt_double(0.0), rt_none(), -INFINITY);
  expect_double("aten::log.int(", rt_int(-1), rt_none(), NAN);
  expect_double("aten::sqrt.float(", rt_double(-1.0), rt_none(), NAN);
  expect_double("aten::exp.float(", rt_double(1000.0), rt_none(), INFINITY);
  expect_double("aten::exp.int(", rt_int(0), rt_none(), 1.0);
  /* pow of numbers is a float; 0 to a negative power fails (PyTorch 1.13's answers) */
  expect_double("aten::pow.int(", rt_int(2), rt_int(3), 8.0);
  expect_double("aten::pow.int(", rt_int(2), rt_int(-2), 0.25);
  expect_double("aten::pow.int_float(", rt_int(4), rt_double(-0.5), 0.5);
  expect_double("aten::pow.float_int(", rt_double(-0.5), rt_int(2), 0.25);
  expect_double("aten::pow.float(", rt_double(-0.5), rt_double(-0.5), NAN);
  RtValue zero_neg[2] = {rt_int(0), rt_int(-1)};
  kt_expect_error("aten::pow.int(", zero_neg, 2, "0.0 cannot be raised to a negative power");
  RtValue bad[2] = {rt_str("x"), rt_int(1)};
  kt_expect_error("aten::add.int(", bad, 2, "must be int");
  kt_unref_args(bad, 2);
}

static void test_convert(void) {
  int64_t one = 1, two = 2;
  RtValue t[1] = {rt_tensor(kt_tensor(F32, 1, &one, KT_VALUES(-2.75)))};
  expect_bool("aten::Bool.Tensor(", t[0], rt_none(), true);
  expect_int("aten::Int.Tensor(", t[0], rt_none(), -2);
  expect_double("aten::Float.Tensor(", t[0], rt_none(), -2.75);
  kt_unref_args(t, 1);
  RtValue z[1] = {rt_tensor(rt_tensor_scalar(F64, 0))};
  expect_bool("aten::Bool.Tensor(", z[0], rt_none(), false);
  kt_unref_args(z, 1);
  /* int64 tensors convert exactly, beyond 2^53 */
  RtTensor *big = rt_tensor_new(I64, 0, NULL);
  *(int64_t *)rt_tensor_data(big) = G_MAXINT64;
  RtValue b[1] = {rt_tensor(big)};
  expect_int("aten::Int.Tensor(", b[0], rt_none(), G_MAXINT64);
  kt_unref_args(b, 1);

  RtValue many[1] = {rt_tensor(kt_tensor(F32, 1, &two, KT_VALUES(1, 2)))};
  kt_expect_error("aten::Bool.Tensor(", many, 1,
                  "Boolean value of Tensor with more than one value is ambiguous");
  kt_expect_error("aten::Int.Tensor(", many, 1,
                  "a Tensor with 2 elements cannot be converted to Scalar");
  kt_expect_error("aten::Float.Tensor(", many, 1, "cannot be converted to Scalar");
  kt_unref_args(many, 1);
  RtValue nan[1] = {rt_tensor(rt_tensor_scalar(F32, NAN))};
  kt_expect_error("aten::Int.Tensor(", nan, 1, "cannot be converted to type int64_t");
  kt_unref_args(nan, 1);

  expect_bool("aten::Bool.int(", rt_int(-3), rt_none(), true);
  expect_bool("aten::Bool.int(", rt_int(0), rt_none(), false);
  expect_bool("aten::Bool.float(", rt_double(0.0), rt_none(), false);
  expect_bool("aten::Bool.float(", rt_double(NAN), rt_none(), true);
  expect_int("aten::Int.bool(", rt_bool(true), rt_none(), 1);
  expect_int("aten::Int.float(", rt_double(-2.9), rt_none(), -2);
  expect_int("aten::Int.float(", rt_double(2.9), rt_none(), 2);
  expect_double("aten::Float.bool(", rt_bool(true), rt_none(), 1);
  expect_double("aten::Float.int(", rt_int(-7), rt_none(), -7);
  RtValue f[1] = {rt_double(NAN)};
  kt_expect_error("aten::Int.float(", f, 1, "cannot convert float NaN to integer");
  f[0] = rt_double(INFINITY);
  kt_expect_error("aten::Int.float(", f, 1, "cannot convert float infinity to integer");
  f[0] = rt_double(1e19);
  kt_expect_error("aten::Int.float(", f, 1, "out of the range");
  /* float(str): the whole string one number, leading spaces allowed (PyTorch 1.13's answers) */
  RtValue strs[5] = {rt_str(" -1.5e2"), rt_str("-inf"), rt_str("nan"), rt_str("1.5x"), rt_str("")};
  expect_double("aten::Float.str(", strs[0], rt_none(), -150);
  expect_double("aten::Float.str(", strs[1], rt_none(), -INFINITY);
  expect_double("aten::Float.str(", strs[2], rt_none(), NAN);
  kt_expect_error("aten::Float.str(", &strs[3], 1, "could not convert string to float: '1.5x'");
  kt_expect_error("aten::Float.str(", &strs[4], 1, "could not convert string to float: ''");
  kt_unref_args(strs, 5);
}

static void test_is(void) {
  RtTensor *t = rt_tensor_zeros(F32, 1, KT_SIZES(2));
  RtTensor *u = rt_tensor_zeros(F32, 1, KT_SIZES(2));
  RtValue tv = rt_tensor(t), uv = rt_tensor(u);
  expect_is("aten::__is__(", rt_none(), rt_none(), true);
  expect_is("aten::__is__(", tv, tv, true);
  expect_is("aten::__is__(", tv, uv, false);
  expect_is("aten::__is__(", tv, rt_none(), false);
  expect_is("aten::__isnot__(", tv, rt_none(), true);
  expect_is("aten::__isnot__(", rt_none(), rt_none(), false);
  /* an undefined tensor is None */
  expect_is("aten::__is__(", rt_tensor(NULL), rt_none(), true);
  expect_is("aten::__is__(", rt_int(3), rt_int(3), true);
  expect_is("aten::__is__(", rt_int(3), rt_double(3), false);
  RtValue l1 = rt_int_list(KT_SIZES(1, 2), 2), l2 = rt_int_list(KT_SIZES(1, 2), 2);
  expect_is("aten::__is__(", l1, l1, true);
  expect_is("aten::__is__(", l1, l2, false);
  rt_value_unref(l1);
  rt_value_unref(l2);
  rt_value_unref(tv);
  rt_value_unref(uv);
}

static void test_type_as_like(void) {
  RtValue a[2] = {rt_tensor(kt_tensor(F32, 1, KT_SIZES(3), KT_VALUES(1.5, -2.5, 0))),
                  rt_tensor(rt_tensor_zeros(I64, 0, NULL))};
  RtTensor *r = kt_run("aten::type_as(", a, 2);
  /* float -> int64 truncates toward zero */
  kt_assert_tensor(r, I64, 1, KT_SIZES(3), KT_VALUES(1, -2, 0), 0);
  rt_tensor_unref(r);
  RtValue same[2] = {rt_value_ref(a[0]), rt_value_ref(a[0])};
  r = kt_run("aten::type_as(", same, 2);
  g_assert_true(r == a[0].u.tensor);
  rt_tensor_unref(r);
  kt_unref_args(same, 2);

  r = kt_run("aten::ones_like(", a, 1);
  kt_assert_tensor(r, F32, 1, KT_SIZES(3), KT_VALUES(1, 1, 1), 0);
  rt_tensor_unref(r);
  r = kt_run("aten::zeros_like(", a, 1);
  kt_assert_tensor(r, F32, 1, KT_SIZES(3), KT_VALUES(0, 0, 0), 0);
  rt_tensor_unref(r);
  RtValue d[2] = {rt_value_ref(a[0]), rt_int(7) /* Double */};
  r = kt_run("aten::ones_like(", d, 2);
  kt_assert_tensor(r, F64, 1, KT_SIZES(3), KT_VALUES(1, 1, 1), 0);
  rt_tensor_unref(r);
  rt_value_unref(d[1]);
  d[1] = rt_int(3); /* Int (int32): not one of our dtypes */
  kt_expect_error("aten::zeros_like(", d, 2, "unsupported dtype code 3");
  kt_unref_args(d, 2);
  /* full_like as PyTorch 1.13: self's dtype, a float fill truncated for ints, nonzero true
   * for bools, dtype= overriding */
  RtValue f[3] = {rt_value_ref(a[0]), rt_double(2.5), rt_none()};
  r = kt_run("aten::full_like(", f, 2);
  kt_assert_tensor(r, F32, 1, KT_SIZES(3), KT_VALUES(2.5, 2.5, 2.5), 0);
  rt_tensor_unref(r);
  f[2] = rt_int(4); /* Long */
  r = kt_run("aten::full_like(", f, 3);
  kt_assert_tensor(r, I64, 1, KT_SIZES(3), KT_VALUES(2, 2, 2), 0);
  rt_tensor_unref(r);
  kt_unref_args(f, 3);
  RtValue fi[2] = {rt_tensor(kt_tensor(I64, 1, KT_SIZES(2), KT_VALUES(1, 2))), rt_double(-2.7)};
  r = kt_run("aten::full_like(", fi, 2);
  kt_assert_tensor(r, I64, 1, KT_SIZES(2), KT_VALUES(-2, -2), 0);
  rt_tensor_unref(r);
  kt_unref_args(fi, 2);
  RtValue fb[2] = {rt_tensor(kt_tensor(BOOL, 1, KT_SIZES(1), KT_VALUES(1))), rt_int(3)};
  r = kt_run("aten::full_like(", fb, 2);
  kt_assert_tensor(r, BOOL, 1, KT_SIZES(1), KT_VALUES(1), 0);
  rt_tensor_unref(r);
  kt_unref_args(fb, 2);
  kt_unref_args(a, 2);
}

/* NumToTensor: the number's kind picks the dtype; an int keeps every bit. */
static void test_num_to_tensor(void) {
  RtValue a[1] = {rt_int(G_MAXINT64)};
  RtTensor *r = kt_run("prim::NumToTensor.Scalar(", a, 1);
  g_assert_cmpint(r->dtype, ==, I64);
  g_assert_cmpint(r->ndim, ==, 0);
  g_assert_cmpint(*(gint64 *)rt_tensor_data(r), ==, G_MAXINT64);
  rt_tensor_unref(r);
  a[0] = rt_double(2.5);
  r = kt_run("prim::NumToTensor.Scalar(", a, 1);
  kt_assert_tensor(r, F64, 0, NULL, KT_VALUES(2.5), 0);
  rt_tensor_unref(r);
  a[0] = rt_bool(true);
  r = kt_run("prim::NumToTensor.Scalar(", a, 1);
  kt_assert_tensor(r, BOOL, 0, NULL, KT_VALUES(1), 0);
  rt_tensor_unref(r);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/kernels/scalar/int", test_int_arith);
  g_test_add_func("/kernels/scalar/float", test_float_arith);
  g_test_add_func("/kernels/scalar/str-compare", test_str_compare);
  g_test_add_func("/kernels/scalar/str-ops", test_str_ops);
  g_test_add_func("/kernels/scalar/tensor-info", test_tensor_info);
  g_test_add_func("/kernels/scalar/convert", test_convert);
  g_test_add_func("/kernels/scalar/is", test_is);
  g_test_add_func("/kernels/scalar/type-as-like", test_type_as_like);
  g_test_add_func("/kernels/scalar/num-to-tensor", test_num_to_tensor);
  return g_test_run();
}
