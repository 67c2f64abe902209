/* Gradients of every differentiable pointwise op against PyTorch 1.13's
 * (data/gradients.json, made by scripts/gen-conformance.py) and against float64 central
 * finite differences of our own forward, through broadcasting ((3,1) with (1,3), (3,3) with
 * 0-d): each case's graph runs forward and backward through an executor (autodiff, fused
 * and unfused), the gradient of the sum of the output per input is compared.
 *
 * With --cuda (the cudaemu suite) only the fused mode runs, on the case's graph with its
 * result doubled (with_doubling_consumer) so that its plans fuse, with the CUDA fuser backend
 * enabled (host offloading): every fusion group of the forward and backward plans must run on
 * CUDA (a group the backend declines or that fails is reported with the fuser's recorded
 * reason), a case whose plans form no group is named, and the gradients are compared with
 * PyTorch's as above. Exit 77 (skipped) only when no CUDA driver and nvrtc load (neither the
 * emulator of JITSCOPE_CUDA_LIBDIR nor a real one).
 * Usage: test-conformance-gradients [--cuda] [DATA_JSON] (default: the source tree's). */
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "conformance_util.h"
#include "cuda/cuda_launch.h"
#include "cuda/cuda_loader.h"
#include "exec/executor.h"
#include "ir/text.h"
#include "runtime/code.h"

static guint n_checked, n_failed;
static bool cuda_mode;
static guint n_cuda_groups[2]; /* groups run on CUDA in forward and backward plans */
static guint n_cases_on_cuda;  /* cases with at least one group run on CUDA */

/* The case's graph with its result doubled (`r + r`): a graph of one op forms no fusion group
 * (FuseGraph fuses a producer into a consumer) and no DifferentiableGraph (autodiff takes two
 * nodes or more), so its backward would run on the eager tape; with the doubling the op and
 * the add fuse in the forward plan, and the backward plan's incoming gradient (G + G) and the
 * op's derivative fuse too. Every gradient is then exactly twice PyTorch's (CONSUMER_SCALE):
 * scaling by 2 is exact in binary floating point. */
#define CONSUMER_SCALE 2.0
static char *with_doubling_consumer(const char *ir) {
  static const char ret[] = "  return (%r)\n";
  g_assert_true(g_str_has_suffix(ir, ret));
  return g_strdup_printf("%.*s  %%one : int = prim::Constant[value=1]()\n"
                         "  %%o : Tensor = aten::add(%%r, %%r, %%one)\n  return (%%o)\n",
                         (int)(strlen(ir) - strlen(ret)), ir);
}

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

/* --cuda: every fusion group the session's plans ran went through the CUDA backend. */
static void check_groups_on_cuda(JsonObject *c, ExecSession *session) {
  guint before = n_cuda_groups[0] + n_cuda_groups[1];
  for (guint p = 0; p < session->plans->len; p++) {
    const ExecPlan *plan = g_ptr_array_index(session->plans, p);
    GHashTable *records = fuser_plan_records(plan->fuser);
    if (records == NULL)
      continue;
    GHashTableIter it;
    gpointer record;
    g_hash_table_iter_init(&it, records);
    while (g_hash_table_iter_next(&it, NULL, &record)) {
      const FuserGroupRecord *r = record;
      if (strcmp(r->backend, "cuda") == 0) {
        n_cuda_groups[plan->kind == EXEC_PLAN_BACKWARD]++;
      } else {
        g_autofree char *what = g_strdup_printf("%s of plan %s ran on %s, not cuda: %s",
                                                r->group_name, plan->graph_name, r->backend,
                                                r->fallback_reason ? r->fallback_reason : "?");
        report(c, "fused-cuda", 0, 0, what);
      }
    }
  }
  if (n_cuda_groups[0] + n_cuda_groups[1] > before)
    n_cases_on_cuda++;
  else
    g_printerr("no fusion group formed (nothing ran on CUDA): %s [%s]\n",
               json_object_get_string_member(c, "op"), json_object_get_string_member(c, "dtype"));
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
  const char *mode = cuda_mode ? "fused-cuda" : fuse ? "fused" : "unfused";
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
        if (cuda_mode)
          p *= CONSUMER_SCALE;
        n_checked++;
        if (!conf_close_grad(g, p, grads[a]->dtype)) {
          g_autofree char *what = g_strdup_printf("ours %.17g, PyTorch %.17g", g, p);
          report(c, mode, a, k, what);
        }
      }
    }
    if (with_fd)
      finite_differences(c, graph, inputs, n, grads);
    if (cuda_mode)
      check_groups_on_cuda(c, session);
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
    g_autofree char *consumed = cuda_mode ? with_doubling_consumer(ir) : NULL;
    if (consumed)
      ir = consumed;
    GError *error = NULL;
    IrGraph *graph = ir_graph_parse(ir, strlen(ir), "case.ir", &error);
    g_assert_no_error(error);
    run_mode(c, graph, true, false);
    if (!cuda_mode)
      run_mode(c, graph, false, true);
    ir_graph_free(graph);
  }
  g_object_unref(parser);
  g_printerr("%u gradient values checked, %u mismatches\n", n_checked, n_failed);
  if (cuda_mode) {
    g_printerr("fusion groups run on CUDA: %u in forward plans, %u in backward plans, in %u "
               "cases\n",
               n_cuda_groups[0], n_cuda_groups[1], n_cases_on_cuda);
    g_assert_cmpuint(n_cuda_groups[1], >, 200);
  }
  g_assert_cmpuint(n_checked, >, 1000);
  g_assert_cmpuint(n_failed, ==, 0);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  cuda_mode = argc > 1 && strcmp(argv[1], "--cuda") == 0;
  if (cuda_mode) {
    argc--;
    argv++;
    const CudaStatus *status = cuda_loader_get();
    if (!status->device_present || !status->nvrtc.loaded) {
      g_print("skipped: no CUDA driver and nvrtc to run the fused groups on "
              "(JITSCOPE_CUDA_LIBDIR=%s): %s\n",
              g_getenv("JITSCOPE_CUDA_LIBDIR") ? g_getenv("JITSCOPE_CUDA_LIBDIR") : "unset",
              status->device_error ? status->device_error : status->nvrtc.error);
      return 77;
    }
    cuda_launch_enable(true); /* host offloading: the groups' host tensors go to the device */
  }
  g_autofree char *path = conf_data_path(argc > 1 ? argv[1] : NULL, "gradients.json");
  g_test_add_data_func("/conformance/gradients", path, test_gradients);
  return g_test_run();
}
