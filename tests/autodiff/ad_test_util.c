/* Test helpers for autodiff (see ad_test_util.h). */
#include "ad_test_util.h"

#include <math.h>
#include <string.h>

#include "ir/text.h"
#include "ir/verify.h"
#include "runtime/interpreter.h"
#include "runtime/tensor_type.h"

IrGraph *ad_test_parse(const char *text) {
  GError *error = NULL;
  IrGraph *g = ir_graph_parse(text, strlen(text), "<test>", &error);
  if (!g)
    g_error("test graph does not parse: %s\n%s", error->message, text);
  return g;
}

guint ad_test_count(const char *haystack, const char *needle) {
  guint n = 0;
  for (const char *p = strstr(haystack, needle); p; p = strstr(p + 1, needle))
    n++;
  return n;
}

RtValue *ad_test_run(const IrGraph *graph, RtValue *inputs, guint n_inputs, guint *n_outputs) {
  RtValue *outputs = NULL;
  GError *error = NULL;
  if (!rt_interpret(graph, NULL, inputs, n_inputs, &outputs, n_outputs, &error)) {
    char *text = ir_graph_to_string(graph);
    g_error("graph failed to run: %s\n%s", error->message, text);
  }
  return outputs;
}

static double uniform(guint64 *state, double lo, double hi) {
  *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
  double u = (double)(*state >> 11) / (double)(1ULL << 53);
  return lo + (hi - lo) * u;
}

static RtTensor *random_tensor(const IrType *t, double lo, double hi, guint64 *state) {
  if (!ir_type_is_tensor(t) || t->rank < 0 || (t->rank > 0 && !t->sizes))
    g_error("test graph inputs need complete tensor types");
  RtTensor *x = rt_tensor_new(t->has_dtype ? t->dtype : IR_DTYPE_FLOAT64, t->rank, t->sizes);
  for (int64_t i = 0; i < rt_tensor_numel(x); i++) {
    double v = uniform(state, lo, hi);
    if (x->dtype == IR_DTYPE_BOOL)
      v = v > (lo + hi) / 2;
    rt_tensor_set(x, i, v);
  }
  return x;
}

RtValue *ad_test_make_inputs(const IrGraph *graph, double lo, double hi, guint64 seed) {
  GPtrArray *ins = ir_graph_inputs(graph);
  RtValue *values = g_new0(RtValue, ins->len);
  guint64 state = seed * 2654435761ULL + 1;
  for (guint i = 0; i < ins->len; i++)
    values[i] =
        rt_tensor(random_tensor(((IrValue *)g_ptr_array_index(ins, i))->type, lo, hi, &state));
  return values;
}

static void free_values(RtValue *v, guint n) {
  for (guint i = 0; i < n; i++)
    rt_value_unref(v[i]);
  g_free(v);
}

/* sum_i <seeds[i], outputs[i]> of the original graph */
static double objective(const IrGraph *graph, RtValue *inputs, guint n_inputs, RtTensor **seeds) {
  guint n_out = 0;
  RtValue *out = ad_test_run(graph, inputs, n_inputs, &n_out);
  double total = 0;
  for (guint i = 0; i < n_out; i++) {
    if (!seeds[i])
      continue;
    RtTensor *t = out[i].u.tensor;
    for (int64_t k = 0; k < rt_tensor_numel(t); k++)
      total += rt_tensor_get(t, k) * rt_tensor_get(seeds[i], k);
  }
  free_values(out, n_out);
  return total;
}

static bool input_requires_grad(const IrValue *v) {
  return ir_type_is_tensor(v->type) && v->type->requires_grad == IR_YES;
}

double ad_test_gradcheck(const char *text, double lo, double hi, AdRunMode mode, double tol) {
  IrGraph *original = ad_test_parse(text);
  guint n_in = ir_graph_inputs(original)->len;
  RtValue *inputs = ad_test_make_inputs(original, lo, hi, 7);

  AdGradient *gr = ad_differentiate(ir_graph_copy(original));
  ir_graph_assert_valid(gr->f, "differentiate (f)");
  ir_graph_assert_valid(gr->df, "differentiate (df)");

  guint n_f_out = 0;
  RtValue *f_out = ad_test_run(gr->f, inputs, n_in, &n_f_out);
  g_assert_cmpuint(n_f_out, ==, ir_graph_outputs(gr->f)->len);

  /* Random seeds for the real outputs that receive a gradient; temporaries get none. */
  guint n_real = gr->f_real_outputs;
  RtTensor **seeds = g_new0(RtTensor *, n_real);
  guint64 state = 99;
  for (guint i = 0; i < gr->df_input_vjps->len; i++) {
    guint o = g_array_index(gr->df_input_vjps, guint, i);
    if (o < n_real)
      seeds[o] = random_tensor(rt_tensor_type(f_out[o].u.tensor), -1, 1, &state);
  }

  guint n_df_in = gr->df_input_vjps->len + gr->df_input_captured_inputs->len +
                  gr->df_input_captured_outputs->len;
  g_assert_cmpuint(n_df_in, ==, ir_graph_inputs(gr->df)->len);
  RtValue *df_in = g_new0(RtValue, n_df_in);
  guint k = 0;
  for (guint i = 0; i < gr->df_input_vjps->len; i++) {
    guint o = g_array_index(gr->df_input_vjps, guint, i);
    df_in[k++] = rt_tensor(o < n_real ? rt_tensor_ref(seeds[o]) : NULL);
  }
  for (guint i = 0; i < gr->df_input_captured_inputs->len; i++)
    df_in[k++] = rt_value_ref(inputs[g_array_index(gr->df_input_captured_inputs, guint, i)]);
  for (guint i = 0; i < gr->df_input_captured_outputs->len; i++)
    df_in[k++] = rt_value_ref(f_out[g_array_index(gr->df_input_captured_outputs, guint, i)]);

  if (mode == AD_RUN_SPECIALIZED) {
    /* The backward executor's specialization: undefined vjps get the undefined type. */
    GPtrArray *df_inputs = ir_graph_inputs(gr->df);
    for (guint i = 0; i < n_df_in; i++) {
      IrValue *v = g_ptr_array_index(df_inputs, i);
      if (df_in[i].tag == RT_TENSOR)
        ir_value_set_type(v, df_in[i].u.tensor ? rt_tensor_type(df_in[i].u.tensor)
                                               : ir_type_undefined_tensor());
    }
    pass_specialize_autograd_zero(gr->df);
    ir_graph_assert_valid(gr->df, "specialize_autograd_zero");
    pass_lower_grad_of(gr->df);
    ir_graph_assert_valid(gr->df, "lower_grad_of");
    char *s = ir_graph_to_string(gr->df);
    g_assert_cmpuint(ad_test_count(s, "prim::GradOf"), ==, 0);
    g_free(s);
  }

  guint n_df_out = 0;
  RtValue *df_out = ad_test_run(gr->df, df_in, n_df_in, &n_df_out);
  g_assert_cmpuint(n_df_out, ==, gr->df_output_vjps->len);

  double worst = 0;
  GPtrArray *orig_inputs = ir_graph_inputs(original);
  for (guint i = 0; i < n_in; i++) {
    if (!input_requires_grad(g_ptr_array_index(orig_inputs, i)))
      continue;
    RtTensor *analytic = NULL;
    for (guint j = 0; j < gr->df_output_vjps->len; j++)
      if (g_array_index(gr->df_output_vjps, guint, j) == i)
        analytic = df_out[j].u.tensor;
    RtTensor *x = inputs[i].u.tensor;
    if (analytic)
      g_assert_cmpint(rt_tensor_numel(analytic), ==, rt_tensor_numel(x));
    for (int64_t e = 0; e < rt_tensor_numel(x); e++) {
      double saved = rt_tensor_get(x, e);
      double h = 1e-6 * MAX(1.0, fabs(saved));
      rt_tensor_set(x, e, saved + h);
      double up = objective(original, inputs, n_in, seeds);
      rt_tensor_set(x, e, saved - h);
      double down = objective(original, inputs, n_in, seeds);
      rt_tensor_set(x, e, saved);
      double fd = (up - down) / (2 * h);
      double an = analytic ? rt_tensor_get(analytic, e) : 0.0;
      double err = fabs(fd - an) / MAX(1.0, fabs(fd));
      if (err > worst)
        worst = err;
      if (err > tol) {
        char *fs = ir_graph_to_string(gr->f), *ds = ir_graph_to_string(gr->df);
        g_printerr("gradient mismatch: input %u element %" G_GINT64_FORMAT ": analytic %.10g, "
                   "finite differences %.10g\n%s\nf:\n%s\ndf:\n%s\n",
                   i, e, an, fd, text, fs, ds);
        g_free(fs);
        g_free(ds);
        g_test_fail();
        goto done;
      }
    }
  }
done:
  free_values(df_out, n_df_out);
  free_values(df_in, n_df_in);
  free_values(f_out, n_f_out);
  for (guint i = 0; i < n_real; i++)
    if (seeds[i])
      rt_tensor_unref(seeds[i]);
  g_free(seeds);
  free_values(inputs, n_in);
  ad_gradient_free(gr);
  ir_graph_free(original);
  return worst;
}
