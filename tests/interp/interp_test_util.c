#include "interp_test_util.h"

#include <math.h>

IrNode *it_prim(IrGraph *g, IrOpKind kind, IrValue *const *ins, guint n_in, guint n_out,
                const IrType *out_type) {
  IrNode *n = ir_node_create(g, kind, n_out);
  for (guint i = 0; i < n_in; i++)
    ir_node_add_input(n, ins[i]);
  for (guint i = 0; i < n_out; i++)
    ir_value_set_type(ir_output(n, i), out_type);
  return ir_graph_insert(g, n);
}

IrValue *it_op(IrGraph *g, IrOpKind kind, IrValue *const *ins, guint n_in) {
  return ir_output(ir_graph_insert_op(g, kind, ins, n_in, 1), 0);
}

RtTensor *it_tensor(int ndim, const int64_t *sizes, const double *values) {
  RtTensor *t = rt_tensor_new(IR_DTYPE_FLOAT32, ndim, sizes);
  int64_t n = rt_tensor_numel(t);
  for (int64_t i = 0; i < n; i++)
    rt_tensor_set(t, i, values[i]);
  return t;
}

RtTensor *it_vector(guint n, const double *values) {
  int64_t size = n;
  return it_tensor(1, &size, values);
}

void it_assert_tensor(const RtTensor *t, int ndim, const int64_t *sizes, const double *values,
                      double tol) {
  g_assert_nonnull(t);
  g_assert_cmpint(t->ndim, ==, ndim);
  for (int d = 0; d < ndim; d++)
    g_assert_cmpint(t->sizes[d], ==, sizes[d]);
  int64_t n = rt_tensor_numel(t);
  for (int64_t i = 0; i < n; i++) {
    double got = rt_tensor_get(t, i);
    if (!(fabs(got - values[i]) <= tol))
      g_error("element %" G_GINT64_FORMAT ": got %.9g, expected %.9g", i, got, values[i]);
  }
}

static gint refcount_of(RtValue v) {
  if (v.tag == RT_TENSOR && v.u.tensor)
    return v.u.tensor->refcount;
  if (v.tag == RT_LIST || v.tag == RT_TUPLE)
    return v.u.seq->refcount;
  if (v.tag == RT_STR)
    return v.u.s->refcount;
  return 0;
}

/* References to `in`'s heap part held by `out` (itself or inside lists and tuples). */
static gint held_refs(RtValue out, RtValue in) {
  if (out.tag == RT_LIST || out.tag == RT_TUPLE) {
    gint n = out.tag == in.tag && out.u.seq == in.u.seq;
    for (guint i = 0; i < out.u.seq->len; i++)
      n += held_refs(out.u.seq->items[i], in);
    return n;
  }
  if (out.tag != in.tag)
    return 0;
  if (out.tag == RT_TENSOR)
    return out.u.tensor && out.u.tensor == in.u.tensor;
  if (out.tag == RT_STR)
    return out.u.s == in.u.s;
  return 0;
}

bool it_run(const IrGraph *g, const RtInterpreterHooks *hooks, RtValue *ins, guint n_in,
            RtValue *outs, GError **error) {
  gint *before = g_new0(gint, n_in + 1);
  for (guint i = 0; i < n_in; i++)
    before[i] = refcount_of(ins[i]);
  RtCode *code = rt_code_compile(g, error);
  bool ok = false;
  if (code) {
    ok = rt_code_run(code, hooks, ins, n_in, outs, error);
    rt_code_free(code);
  }
  /* Borrowed inputs: whatever the run did, it gave back every reference it took (outputs
   * that are inputs hold one more). */
  for (guint i = 0; i < n_in; i++) {
    gint extra = 0;
    if (ok && refcount_of(ins[i]) != 0)
      for (guint k = 0; k < ir_graph_outputs(g)->len; k++)
        extra += held_refs(outs[k], ins[i]);
    g_assert_cmpint(refcount_of(ins[i]), ==, before[i] + extra);
  }
  g_free(before);
  return ok;
}

char *it_print(RtValue v) {
  GString *s = g_string_new(NULL);
  rt_value_print(s, v);
  return g_string_free(s, FALSE);
}
