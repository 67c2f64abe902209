/* Executor benchmarks (issue: graph executor): compile time of every plan of the LSTM cell
 * forward and backward (weights requiring grad; median over fresh sessions), first call
 * (compile + run) against steady state, and the per-call overhead of a cached plan for a
 * 3-node graph on 1-element tensors. Prints `key value` lines that bench/exec.sh tabulates
 * beside PyTorch's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_args.h"
#include "bench_common.h"
#include "exec/executor.h"
#include "ir/text.h"
#include "runtime/autograd.h"
#include "script/symbolic_script.h"

static IrGraph *load(const char *path) {
  gchar *text = NULL;
  gsize len = 0;
  GError *error = NULL;
  if (!g_file_get_contents(path, &text, &len, &error)) {
    fprintf(stderr, "exec_bench: %s\n", error->message);
    exit(2);
  }
  IrGraph *graph = ir_graph_parse(text, len, path, &error);
  g_free(text);
  if (!graph) {
    fprintf(stderr, "exec_bench: %s\n", error->message);
    exit(2);
  }
  return graph;
}

/* LSTM cell inputs: x [batch, in], hx/cx [batch, hidden], weights [4h, in] / [4h, h] (scaled
 * as bench_cell_weight_scale says), biases [4h]; weights and biases require grad. */
static void lstm_inputs(RtValue *v, int64_t batch, int64_t hidden) {
  int64_t s_x[2] = {batch, hidden}, s_h[2] = {batch, hidden}, s_w[2] = {4 * hidden, hidden},
          s_b[1] = {4 * hidden};
  v[0] = rt_tensor(bench_host_randn(2, s_x, 1, 1.0f));
  v[1] = rt_tensor(bench_host_randn(2, s_h, 2, 1.0f));
  v[2] = rt_tensor(bench_host_randn(2, s_h, 3, 1.0f));
  for (int i = 0; i < 2; i++)
    v[3 + i] = rt_tensor(bench_host_randn(2, s_w, 4 + i, bench_cell_weight_scale(hidden)));
  for (int i = 0; i < 2; i++)
    v[5 + i] = rt_tensor(bench_host_randn(1, s_b, 6 + i, 1.0f));
  for (int i = 3; i < 7; i++)
    v[i].u.tensor->requires_grad = true;
}

/* One forward + backward call; returns false on error. */
static bool forward_backward(ExecExecutor *executor, RtValue *in) {
  RtValue *outs = NULL;
  guint n_outs = 0;
  GError *error = NULL;
  if (!exec_executor_run(executor, in, 7, &outs, &n_outs, &error)) {
    fprintf(stderr, "exec_bench: %s\n", error->message);
    return false;
  }
  RtValue tuple = outs[0];
  RtTensor *roots[2] = {tuple.u.seq->items[0].u.tensor, tuple.u.seq->items[1].u.tensor};
  RtTensor *leaves[4], *grads[4] = {0};
  for (int i = 0; i < 4; i++)
    leaves[i] = in[3 + i].u.tensor;
  bool ok = exec_session_backward(exec_executor_session(executor), roots, NULL, 2, leaves, 4, grads,
                                  &error);
  if (!ok)
    fprintf(stderr, "exec_bench: %s\n", error->message);
  for (int i = 0; i < 4; i++)
    if (grads[i])
      rt_tensor_unref(grads[i]);
  for (guint i = 0; i < n_outs; i++)
    rt_value_unref(outs[i]);
  g_free(outs);
  return ok;
}

static void bench_lstm(const IrGraph *graph, guint repeats, int64_t batch, int64_t hidden) {
  RtValue in[7];
  lstm_inputs(in, batch, hidden);
  double *first = g_new(double, repeats), *fwd = g_new(double, repeats),
         *bwd = g_new(double, repeats), *steady = g_new(double, repeats);
  guint n_stages_fwd = 0, n_stages_bwd = 0;
  for (guint r = 0; r < repeats; r++) {
    ExecSession *session = exec_session_new();
    ExecExecutor *executor = exec_executor_new(session, graph, "main", EXEC_PLAN_FORWARD);
    double t0 = bench_now_ms();
    if (!forward_backward(executor, in))
      exit(1);
    first[r] = bench_now_ms() - t0;
    ExecPlan *f = g_ptr_array_index(session->plans, 0), *b = g_ptr_array_index(session->plans, 1);
    fwd[r] = f->compile_ms;
    bwd[r] = b->compile_ms;
    n_stages_fwd = f->stages->len;
    n_stages_bwd = b->stages->len;
    forward_backward(executor, in); /* warm */
    t0 = bench_now_ms();
    forward_backward(executor, in);
    steady[r] = bench_now_ms() - t0;
    exec_session_free(session);
  }
  printf("lstm_compile_forward_ms %.4f\n", bench_median(fwd, (int)repeats));
  printf("lstm_compile_backward_ms %.4f\n", bench_median(bwd, (int)repeats));
  printf("lstm_forward_stages %u\nlstm_backward_stages %u\n", n_stages_fwd, n_stages_bwd);
  printf("lstm_first_call_ms %.4f\n", bench_median(first, (int)repeats));
  printf("lstm_steady_call_ms %.4f\n", bench_median(steady, (int)repeats));
  for (int i = 0; i < 7; i++)
    rt_value_unref(in[i]);
  g_free(first);
  g_free(fwd);
  g_free(bwd);
  g_free(steady);
}

static const char three_nodes[] = "graph(%x : Tensor,\n"
                                  "      %y : Tensor):\n"
                                  "  %1 : int = prim::Constant[value=1]()\n"
                                  "  %a : Tensor = aten::mul(%x, %y)\n"
                                  "  %b : Tensor = aten::sigmoid(%x)\n"
                                  "  %c : Tensor = aten::add(%a, %b, %1)\n"
                                  "  return (%c)\n";

static void bench_overhead(guint calls) {
  IrGraph *graph = ir_graph_parse(three_nodes, strlen(three_nodes), "three_nodes", NULL);
  ExecSession *session = exec_session_new();
  session->grad_enabled = false;
  ExecExecutor *executor = exec_executor_new(session, graph, "main", EXEC_PLAN_FORWARD);
  int64_t one[1] = {1};
  RtValue in[2] = {rt_tensor(rt_tensor_randn(IR_DTYPE_FLOAT32, 1, one, 1)),
                   rt_tensor(rt_tensor_randn(IR_DTYPE_FLOAT32, 1, one, 2))};
  double *per = g_new(double, 9);
  for (guint rep = 0; rep < 9; rep++) {
    double t0 = bench_now_ms();
    for (guint c = 0; c < calls; c++) {
      RtValue *outs = NULL;
      guint n = 0;
      if (!exec_executor_run(executor, in, 2, &outs, &n, NULL))
        exit(1);
      rt_value_unref(outs[0]);
      g_free(outs);
    }
    per[rep] = (bench_now_ms() - t0) * 1000.0 / calls;
  }
  printf("small_call_us %.4f\n", bench_median(per, 9));
  g_free(per);
  rt_value_unref(in[0]);
  rt_value_unref(in[1]);
  exec_session_free(session);
  ir_graph_free(graph);
}

/* Usage: exec_bench [--quick | --small-only CALLS | --lstm-once]. --small-only runs only the
 * cached-plan overhead, CALLS calls per repeat: small enough for callgrind, whose instruction
 * counts (the difference of two CALLS) are the repeatable figure on a loaded machine.
 * --lstm-once compiles and runs the LSTM cell's plans once, for callgrind's
 * --toggle-collect=exec_pipeline_compile (the compile's instructions alone: the bundled
 * gradient formulas, compiled once per process, are compiled before). */
int main(int argc, char **argv) {
  g_set_prgname("exec_bench");
  gboolean quick = FALSE, once = FALSE;
  int small_only = BENCH_ARGS_UNSET;
  const GOptionEntry options[] = {
      {"quick", 0, 0, G_OPTION_ARG_NONE, &quick,
       "5 LSTM repeats instead of 51, 2,000 cached-plan calls a repeat instead of 20,000", NULL},
      {"lstm-once", 0, 0, G_OPTION_ARG_NONE, &once,
       "Only compile and run the LSTM cell's plans, once (for callgrind's "
       "--toggle-collect=exec_pipeline_compile)",
       NULL},
      {"small-only", 0, 0, G_OPTION_ARG_INT, &small_only,
       "Only the cached-plan overhead, CALLS calls a repeat (for callgrind)", "CALLS"},
      G_OPTION_ENTRY_NULL};
  bench_args_parse(&argc, &argv, NULL,
                   "The LSTM cell's plans forward and backward: compile time, first call against\n"
                   "steady state; the per-call overhead of a cached plan for a 3-node graph on\n"
                   "1-element tensors. Prints `key value` lines; bench/exec.sh tabulates them\n"
                   "beside PyTorch's. --quick, --lstm-once and --small-only exclude one another.",
                   options, 0);
  bool small = small_only != BENCH_ARGS_UNSET;
  if (quick + once + small > 1)
    bench_args_fail("--quick, --lstm-once and --small-only exclude one another");
  if (small && small_only <= 0)
    bench_args_fail("--small-only expects a number of calls above 0, got %d", small_only);
  if (small) {
    bench_overhead((guint)small_only);
    return 0;
  }
  const char *source = g_getenv("JITSCOPE_SOURCE_DIR");
  char *path =
      g_build_filename(source ? source : ".", "resources", "examples", "lstm_cell.ir", NULL);
  IrGraph *graph = load(path);
  g_free(path);
  if (once)
    script_formulas_builtin();
  bench_lstm(graph, once ? 1 : quick ? 5 : 51, 64, 512);
  if (!once)
    bench_overhead(quick ? 2000 : 20000);
  ir_graph_free(graph);
  return 0;
}
