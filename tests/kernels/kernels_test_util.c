/* Kernel test helpers (see kernels_test_util.h). */
#include "kernels_test_util.h"
#include "runtime/kernels.h"

#include <math.h>
#include <string.h>

const IrSchema *kt_schema(const char *prefix) {
  for (guint i = 0; i < ir_ops_count(); i++) {
    const IrSchema *s = ir_ops_schema(i);
    if (g_str_has_prefix(s->text, prefix))
      return s;
  }
  g_error("test: no op schema starts with %s", prefix);
  return NULL;
}

static RtValue default_value(const IrArgument *arg) {
  switch (arg->def.kind) {
  case IR_DEFAULT_NONE: return rt_none();
  case IR_DEFAULT_INT:
    return arg->type->kind == IR_TYPE_BOOL ? rt_bool(arg->def.i != 0) : rt_int(arg->def.i);
  case IR_DEFAULT_FLOAT: return rt_double(arg->def.f);
  case IR_DEFAULT_INT_LIST: return rt_int_list(arg->def.ints, arg->def.n_ints);
  case IR_DEFAULT_STR: return rt_str(arg->def.s);
  default: g_error("test: argument %s has no default and was not given", arg->name);
  }
  return rt_none();
}

bool kt_call_outputs(const char *prefix, RtValue *args, guint n, RtValue *outs, guint n_outs,
                     GError **error) {
  const IrSchema *schema = kt_schema(prefix);
  g_assert_true(n <= schema->n_args || schema->varargs);
  RtValue full[32];
  guint n_full = MAX(n, schema->n_args);
  g_assert_cmpuint(n_full, <=, G_N_ELEMENTS(full));
  for (guint i = 0; i < n_full; i++)
    full[i] = i < n ? args[i] : default_value(&schema->args[i]);
  RtKernelFn kernel = rt_op_kernel(schema);
  g_assert_nonnull(kernel);
  for (guint i = 0; i < n_outs; i++)
    outs[i] = rt_none();
  bool ok = kernel(schema, NULL, full, n_full, outs, n_outs, error);
  for (guint i = n; i < schema->n_args; i++)
    rt_value_unref(full[i]);
  return ok;
}

bool kt_call(const char *prefix, RtValue *args, guint n, RtValue *out, GError **error) {
  RtValue outs[1];
  bool ok = kt_call_outputs(prefix, args, n, outs, 1, error);
  *out = ok ? outs[0] : rt_none();
  return ok;
}

RtTensor *kt_run(const char *prefix, RtValue *args, guint n) {
  GError *error = NULL;
  RtValue out;
  if (!kt_call(prefix, args, n, &out, &error))
    g_error("test: %s failed: %s", prefix, error->message);
  g_assert_cmpint(out.tag, ==, RT_TENSOR);
  g_assert_nonnull(out.u.tensor);
  return out.u.tensor;
}

void kt_expect_error(const char *prefix, RtValue *args, guint n, const char *needle) {
  GError *error = NULL;
  RtValue outs[8];
  guint n_outs = MAX(1u, kt_schema(prefix)->n_returns);
  g_assert_cmpuint(n_outs, <=, G_N_ELEMENTS(outs));
  bool ok = kt_call_outputs(prefix, args, n, outs, n_outs, &error);
  if (ok)
    g_error("test: %s succeeded; expected an error containing \"%s\"", prefix, needle);
  g_assert_nonnull(error);
  g_assert_true(error->domain == JITSCOPE_RUNTIME_ERROR);
  if (!strstr(error->message, needle))
    g_error("test: %s failed with \"%s\"; expected \"%s\"", prefix, error->message, needle);
  g_error_free(error);
}

RtTensor *kt_tensor(IrDtype dtype, int ndim, const int64_t *sizes, const double *values) {
  RtTensor *t = rt_tensor_new(dtype, ndim, sizes);
  int64_t n = rt_tensor_numel(t);
  for (int64_t i = 0; i < n; i++)
    rt_tensor_set(t, i, values[i]);
  return t;
}

void kt_assert_tensor(const RtTensor *t, IrDtype dtype, int ndim, const int64_t *sizes,
                      const double *want, double tol) {
  g_assert_nonnull(t);
  if (t->dtype != dtype)
    g_error("test: dtype %s, expected %s", ir_dtype_name(t->dtype), ir_dtype_name(dtype));
  g_assert_cmpint(t->ndim, ==, ndim);
  for (int d = 0; d < ndim; d++)
    g_assert_cmpint(t->sizes[d], ==, sizes[d]);
  int64_t n = rt_tensor_numel(t);
  for (int64_t i = 0; i < n; i++) {
    double got = rt_tensor_get(t, i);
    if (isnan(want[i]) && isnan(got))
      continue;
    if (isinf(want[i]) && got == want[i])
      continue;
    if (!(fabs(got - want[i]) <= tol))
      g_error("test: element %" G_GINT64_FORMAT " is %.17g, expected %.17g", i, got, want[i]);
  }
}

void kt_unref_args(RtValue *args, guint n) {
  for (guint i = 0; i < n; i++)
    rt_value_unref(args[i]);
}
