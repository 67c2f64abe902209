/* Gradients of every differentiable pointwise op against PyTorch 1.13's
 * (data/gradients.json, made by scripts/gen-conformance.py) and against float64 central
 * finite differences of our own forward, through broadcasting ((3,1) with (1,3), (3,3) with
 * 0-d): each case's graph runs forward and backward through an executor (autodiff, fused
 * and unfused), the gradient of the sum of the output per input is compared.
 * Usage: test-conformance-gradients [DATA_JSON] (default: the source tree's). */
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "conformance_util.h"
#include "exec/executor.h"
#include "ir/text.h"
#include "runtime/code.h"

static guint n_checked, n_failed;

static void report(JsonObject *c, const char *mode, guint input, guint k, const char *what) {
  if (n_failed++ < 100)
    g_printerr("MISMATCH %s [%s %s] gradient of input %u, element %u: %s\n",
               json_object_get_string_member(c, "op"), json_object_get_string_member(c, "dtype"),
               mode, input, k, what);
}

/* sum of the graph's output for these inputs, through the eager kernels. */
static double forward_sum(RtCode *code, RtValue *inputs, guint n) {
  RtValue out = rt_none();
  GError *error = NULL;
  if (!rt_code_run(code, NULL, inputs, n, &out, &error))
    g_error("forward: %s", error->message);
  double s = 0;
  for (int64_t k = 0; k < rt_tensor_numel(out.u.tensor); k++)
    s += rt_tensor_get(out.u.tensor, k);
  rt_value_unref(out);
  return s;
}

static void finite_differences(JsonObject *c, IrGraph *graph, RtValue *inputs, guint n,
                               RtTensor **grads) {
  GError *error = NULL;
  RtCode *code = rt_code_compile(graph, &error);
  g_assert_no_error(error);
  for (guint a = 0; a < n; a++) {
    RtTensor *t = inputs[a].u.tensor;
    if (!grads[a] || t->dtype != IR_DTYPE_FLOAT64)
      continue;
    for (int64_t k = 0; k < rt_tensor_numel(t); k++) {
      double x = rt_tensor_get(t, k), h = 1e-6 * MAX(1.0, fabs(x));
      rt_tensor_set(t, k, x + h);
      double up = forward_sum(code, inputs, n);
      rt_tensor_set(t, k, x - h);
      double down = forward_sum(code, inputs, n);
      rt_tensor_set(t, k, x);
      double fd = (up - down) / (2 * h), g = rt_tensor_get(grads[a], k);
      n_checked++;
      if (!(fabs(fd - g) <= 1e-5 * MAX(1.0, fabs(g)))) {
        g_autofree char *what = g_strdup_printf("ours %.17g, finite differences %.17g", g, fd);
        report(c, "finite-diff", a, (guint)k, what);
      }
    }
  }
  rt_code_free(code);
}

static void run_mode(JsonObject *c, IrGraph *graph, bool fuse, bool with_fd) {
  guint n = 0;
  RtValue *inputs = conf_inputs(c, &n);
  JsonArray *want = json_object_get_array_member(c, "grads");
  RtTensor *leaves[8] = {NULL};
  for (guint a = 0; a < n; a++) {
    leaves[a] = inputs[a].u.tensor;
    leaves[a]->requires_grad = !JSON_NODE_HOLDS_NULL(json_array_get_element(want, a));
  }
  ExecSession *session = exec_session_new();
  session->fuse = fuse;
  ExecExecutor *executor = exec_executor_new(session, graph, "main", EXEC_PLAN_FORWARD);
  RtValue *outputs = NULL;
  guint n_out = 0;
  GError *error = NULL;
  RtTensor *grads[8] = {NULL};
  const char *mode = fuse ? "fused" : "unfused";
  if (!exec_executor_run(executor, inputs, n, &outputs, &n_out, &error) ||
      !exec_session_backward(session, &outputs[0].u.tensor, NULL, 1, leaves, n, grads, &error)) {
    report(c, mode, 0, 0, error->message);
    g_clear_error(&error);
  } else {
    for (guint a = 0; a < n; a++) {
      JsonNode *w = json_array_get_element(want, a);
      if (JSON_NODE_HOLDS_NULL(w))
        continue;
      JsonArray *values = json_node_get_array(w);
      if (!grads[a]) {
        report(c, mode, a, 0, "no gradient");
        continue;
      }
      for (guint k = 0; k < json_array_get_length(values); k++) {
        double g = rt_tensor_get(grads[a], k), p = conf_number(json_array_get_element(values, k));
        n_checked++;
        if (!conf_close_grad(g, p, grads[a]->dtype)) {
          g_autofree char *what = g_strdup_printf("ours %.17g, PyTorch %.17g", g, p);
          report(c, mode, a, k, what);
        }
      }
    }
    if (with_fd)
      finite_differences(c, graph, inputs, n, grads);
  }
  for (guint i = 0; i < n_out; i++)
    rt_value_unref(outputs[i]);
  g_free(outputs);
  for (guint a = 0; a < n; a++) {
    if (grads[a])
      rt_tensor_unref(grads[a]);
    rt_value_unref(inputs[a]);
  }
  g_free(inputs);
  exec_session_free(session);
}

static void test_gradients(gconstpointer path) {
  JsonParser *parser = conf_load(path);
  JsonArray *cases = conf_cases(parser);
  for (guint i = 0; i < json_array_get_length(cases); i++) {
    JsonObject *c = json_array_get_object_element(cases, i);
    const char *ir = json_object_get_string_member(c, "ir");
    GError *error = NULL;
    IrGraph *graph = ir_graph_parse(ir, strlen(ir), "case.ir", &error);
    g_assert_no_error(error);
    run_mode(c, graph, true, false);
    run_mode(c, graph, false, true);
    ir_graph_free(graph);
  }
  g_object_unref(parser);
  g_printerr("%u gradient values checked, %u mismatches\n", n_checked, n_failed);
  g_assert_cmpuint(n_checked, >, 1000);
  g_assert_cmpuint(n_failed, ==, 0);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_autofree char *path = conf_data_path(argc > 1 ? argv[1] : NULL, "gradients.json");
  g_test_add_data_func("/conformance/gradients", path, test_gradients);
  return g_test_run();
}
