/* Interpreter benchmarks (results as `key value` lines for bench/run.sh to tabulate):
 *  chain: a 10,000-node chain v = aten::add(v, x, 1) on 1-element float32 tensors, compiled
 *         once; ns per node, median over repeats. Also the add kernel called directly in a C
 *         loop (what a node costs without the interpreter) and a chain of dependent scalar
 *         float adds (the hardware limit for this dependency chain).
 *  int chain: the same chain over ints (aten::add.int): the interpreter's dispatch cost.
 *  lstm:  the corpus lstm_cell graph (parsed from its graph.ir) forward at batch 64, input and
 *         hidden 512, float32; ms per iteration, median. Its limit: the two GEMMs' FLOPs at the
 *         machine's measured sgemm peak, and the two sgemm calls alone at the LSTM's shapes.
 * Usage: interp_bench [--quick] [LSTM_GRAPH_IR] */
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench_args.h"
#include "ir/ir.h"
#include "ir/text.h"
#include "jitscope-config.h"
#include "runtime/code.h"
#include "runtime/kernels.h"

#define CHAIN_NODES 10000

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, guint n) {
  qsort(v, n, sizeof(double), cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Not inlined, nor the two chains: callgrind then tells their runs apart by caller
 * (valgrind --tool=callgrind --separate-callers=2: rt_code_run'run_once'bench_chain). */
static G_GNUC_NO_INLINE bool run_once(const RtCode *code, RtValue *ins, guint n_in) {
  RtValue outs[8];
  GError *error = NULL;
  if (!rt_code_run(code, NULL, ins, n_in, outs, &error)) {
    fprintf(stderr, "interp_bench: %s\n", error->message);
    g_error_free(error);
    return false;
  }
  for (guint i = 0; i < rt_code_n_outputs(code); i++)
    rt_value_unref(outs[i]);
  return true;
}

/* --- (a) interpreter cost per node --- */

static G_GNUC_NO_INLINE bool bench_chain(guint repeats) {
  IrGraph *g = ir_graph_new();
  IrValue *x = ir_graph_add_input(g, ir_type_tensor(), "x");
  IrValue *one = ir_graph_insert_constant_int(g, 1);
  IrValue *v = x;
  for (guint i = 0; i < CHAIN_NODES; i++) {
    IrValue *in[3] = {v, x, one};
    v = ir_output(ir_graph_insert_op(g, IR_ATEN_ADD, in, 3, 1), 0);
  }
  ir_graph_add_output(g, v);
  GError *error = NULL;
  double t0 = now_ns();
  RtCode *code = rt_code_compile(g, &error);
  double compile_ms = (now_ns() - t0) / 1e6;
  if (!code) {
    fprintf(stderr, "interp_bench: %s\n", error->message);
    return false;
  }
  int64_t size = 1;
  RtValue ins[1] = {rt_tensor(rt_tensor_full(IR_DTYPE_FLOAT32, 1, &size, 0.5))};
  double *per_node = g_new(double, repeats);
  bool ok = run_once(code, ins, 1);
  for (guint r = 0; ok && r < repeats; r++) {
    t0 = now_ns();
    ok = run_once(code, ins, 1);
    per_node[r] = (now_ns() - t0) / CHAIN_NODES;
  }
  if (ok) {
    printf("chain_compile_ms %.3f\n", compile_ms);
    printf("chain_registers %u\n", rt_code_n_registers(code));
    printf("chain_ns_per_node %.1f\n", median(per_node, repeats));
  }

  /* The same chain with the kernel called directly from C (v = add(v, x, 1), the previous v
   * released): what the nodes cost without the interpreter. */
  guint n = 0;
  const IrSchema *const *adds = ir_ops_overloads(IR_ATEN_ADD, &n);
  for (guint r = 0; ok && r < repeats; r++) {
    t0 = now_ns();
    RtValue cur = rt_value_ref(ins[0]);
    for (guint i = 0; i < CHAIN_NODES && ok; i++) {
      RtValue args[3] = {cur, ins[0], rt_int(1)}, out;
      ok = rt_kernel_binary(adds[0], NULL, args, 3, &out, 1, NULL);
      rt_value_unref(cur);
      cur = ok ? out : rt_none();
    }
    rt_value_unref(cur);
    per_node[r] = (now_ns() - t0) / CHAIN_NODES;
  }
  if (ok)
    printf("chain_kernel_only_ns %.1f\n", median(per_node, repeats));

  /* Dependent scalar float adds: one add's latency per node. */
  volatile float seed = 0.5f;
  for (guint r = 0; r < repeats; r++) {
    float acc = seed, xs = seed;
    t0 = now_ns();
    for (guint i = 0; i < CHAIN_NODES; i++) {
      acc = acc + xs;
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
      __asm__ volatile("" : "+x"(acc)); /* keep each add, in order, in a register */
#else
      acc = *(volatile float *)&acc;
#endif
    }
    per_node[r] = (now_ns() - t0) / CHAIN_NODES;
    seed = acc * 0.0f + 0.5f;
  }
  printf("chain_scalar_limit_ns %.2f\n", median(per_node, repeats));
  g_free(per_node);
  rt_value_unref(ins[0]);
  rt_code_free(code);
  ir_graph_free(g);
  return ok;
}

/* The same chain over ints (aten::add.int): the kernel is one addition, so this is the
 * interpreter's own dispatch cost per node. */
static G_GNUC_NO_INLINE bool bench_int_chain(guint repeats) {
  IrGraph *g = ir_graph_new();
  IrValue *x = ir_graph_add_input(g, ir_type_int(), "x");
  IrValue *v = x;
  for (guint i = 0; i < CHAIN_NODES; i++) {
    IrValue *in[2] = {v, x};
    v = ir_output(ir_graph_insert_op(g, IR_ATEN_ADD, in, 2, 1), 0);
  }
  ir_graph_add_output(g, v);
  GError *error = NULL;
  RtCode *code = rt_code_compile(g, &error);
  if (!code) {
    fprintf(stderr, "interp_bench: %s\n", error->message);
    return false;
  }
  RtValue ins[1] = {rt_int(3)};
  double *per_node = g_new(double, repeats);
  bool ok = run_once(code, ins, 1);
  for (guint r = 0; ok && r < repeats; r++) {
    double t0 = now_ns();
    ok = run_once(code, ins, 1);
    per_node[r] = (now_ns() - t0) / CHAIN_NODES;
  }
  if (ok)
    printf("int_chain_ns_per_node %.1f\n", median(per_node, repeats));
  g_free(per_node);
  rt_code_free(code);
  ir_graph_free(g);
  return ok;
}

/* --- (b) LSTM cell --- */

static double sgemm_peak_gflops(guint repeats) {
  const int n = 1024;
  float *a = g_new(float, (gsize)n *n), *b = g_new(float, (gsize)n *n),
        *c = g_new(float, (gsize)n *n);
  for (gsize i = 0; i < (gsize)n * n; i++) {
    a[i] = (float)(i % 7) * 0.1f;
    b[i] = (float)(i % 5) * 0.1f;
  }
  double best = INFINITY;
  for (guint r = 0; r < repeats + 1; r++) {
    double t0 = now_ns();
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
    double t = now_ns() - t0;
    if (r > 0 && t < best)
      best = t;
  }
  g_free(a);
  g_free(b);
  g_free(c);
  return 2.0 * n * n * (double)n / best; /* FLOP per ns = GFLOP/s */
}

/* The LSTM's two GEMMs as sgemm calls: x (B x I) . w_ih^T (I x 4H), hx (B x H) . w_hh^T. */
static double lstm_gemms_ms(int batch, int input, int hidden, guint repeats) {
  int g4 = 4 * hidden;
  float *x = g_new0(float, (gsize)batch *input), *h = g_new0(float, (gsize)batch *hidden);
  float *wi = g_new0(float, (gsize)g4 *input), *wh = g_new0(float, (gsize)g4 *hidden);
  float *out = g_new0(float, (gsize)batch *g4);
  double *t = g_new(double, repeats);
  for (guint r = 0; r < repeats; r++) {
    double t0 = now_ns();
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, batch, g4, input, 1.0f, x, input, wi,
                input, 0.0f, out, g4);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, batch, g4, hidden, 1.0f, h, hidden, wh,
                hidden, 1.0f, out, g4);
    t[r] = (now_ns() - t0) / 1e6;
  }
  double m = median(t, repeats);
  g_free(t);
  g_free(x);
  g_free(h);
  g_free(wi);
  g_free(wh);
  g_free(out);
  return m;
}

static bool bench_lstm(const char *path, guint iters) {
  const int batch = 64, input = 512, hidden = 512;
  char *text;
  gsize len;
  GError *error = NULL;
  if (!g_file_get_contents(path, &text, &len, &error)) {
    fprintf(stderr, "interp_bench: %s (LSTM skipped)\n", error->message);
    g_error_free(error);
    return true;
  }
  IrGraph *g = ir_graph_parse(text, len, path, &error);
  g_free(text);
  RtCode *code = g ? rt_code_compile(g, &error) : NULL;
  if (!code) {
    fprintf(stderr, "interp_bench: %s\n", error->message);
    g_error_free(error);
    ir_graph_free(g);
    return false;
  }
  int64_t shapes[7][2] = {{batch, input},      {batch, hidden},      {batch, hidden},
                          {4 * hidden, input}, {4 * hidden, hidden}, {4 * hidden, 0},
                          {4 * hidden, 0}};
  RtValue ins[7];
  for (int i = 0; i < 7; i++)
    ins[i] = rt_tensor(
        rt_tensor_randn(IR_DTYPE_FLOAT32, shapes[i][1] ? 2 : 1, shapes[i], (guint64)i + 1));
  bool ok = true;
  for (guint r = 0; ok && r < 10; r++)
    ok = run_once(code, ins, 7);
  double *t = g_new(double, iters);
  for (guint r = 0; ok && r < iters; r++) {
    double t0 = now_ns();
    ok = run_once(code, ins, 7);
    t[r] = (now_ns() - t0) / 1e6;
  }
  if (ok) {
    double peak = sgemm_peak_gflops(5);
    double flops = 2.0 * 2.0 * batch * (double)(4 * hidden) * input; /* two GEMMs, I == H */
    printf("lstm_ms %.4f\n", median(t, iters));
    printf("sgemm_peak_gflops %.1f\n", peak);
    printf("lstm_gemm_flops %.0f\n", flops);
    printf("lstm_limit_ms %.4f\n", flops / peak / 1e6);
    printf("lstm_sgemm_calls_ms %.4f\n", lstm_gemms_ms(batch, input, hidden, iters));
  }
  g_free(t);
  for (int i = 0; i < 7; i++)
    rt_value_unref(ins[i]);
  rt_code_free(code);
  ir_graph_free(g);
  return ok;
}

int main(int argc, char **argv) {
  g_set_prgname("interp_bench");
  gboolean quick = FALSE;
  const GOptionEntry options[] = {
      {"quick", 0, 0, G_OPTION_ARG_NONE, &quick,
       "5 repeats of the chains instead of 31, 20 LSTM iterations instead of 200", NULL},
      G_OPTION_ENTRY_NULL};
  bench_args_parse(&argc, &argv, "[LSTM_GRAPH_IR]",
                   "The interpreter: ns per node of a 10,000-node aten::add chain on 1-element\n"
                   "float32 tensors and over ints, beside the add kernel alone and dependent\n"
                   "scalar adds; ms per forward of the LSTM cell at 64x512 (LSTM_GRAPH_IR, by\n"
                   "default the corpus lstm_cell), beside its GEMMs' limit. Prints `key value`\n"
                   "lines; bench/run.sh tabulates them beside PyTorch's.",
                   options, 1);
  const char *lstm_path = argc > 1 ? argv[1] : NULL;
  char *default_path = NULL;
  if (!lstm_path) {
    const char *dir = g_getenv("JITSCOPE_CORPUS_DIR");
    default_path = g_build_filename(dir ? dir : JITSCOPE_CORPUS_DIR, "lstm_cell", "graph.ir", NULL);
    lstm_path = default_path;
  }
  bool ok = bench_chain(quick ? 5 : 31) && bench_int_chain(quick ? 5 : 31) &&
            bench_lstm(lstm_path, quick ? 20 : 200);
  g_free(default_path);
  return ok ? 0 : 1;
}
