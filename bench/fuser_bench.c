/* Fuser benchmark (CPU): the corpus LSTM cell, forward + backward through ExecExecutor with
 * the fuser on (C backend "cpu-c"; interpreting loop "cpu", the compiler turned off with
 * JITSCOPE_CC=none) and off, ms per iteration (median); and fused kernels alone on both
 * backends (the cell's pointwise part, transcendental-heavy, and a*b+c, memory-bound), their
 * achieved bandwidth (bytes read + written per run / time) against a measured memcpy
 * bandwidth. Usage: fuser_bench [--quick]. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "fuser/cpu_compile.h"
#include "fuser/fuser.h"

/* Selects the C backend or the evaluator for what runs next. */
static void use_compiler(bool on) {
  if (on)
    g_unsetenv("JITSCOPE_CC");
  else
    g_setenv("JITSCOPE_CC", "none", TRUE);
  cpu_compile_reset_compiler();
}

/* A fused kernel alone: median ms and GB/s. */
static void bench_kernel(const char *text, double pieces_read, int64_t B, int64_t H, int iters,
                         double *ms_out, double *gbs_out) {
  BenchPointwise k;
  bench_pointwise_init(&k, text, B, H, bench_host_randn);
  guint n_out = ir_n_outputs(k.group);
  RtValue *out = g_new(RtValue, n_out);
  double *ms = g_new(double, iters);
  double bytes = 0;
  for (int it = -2; it < iters; it++) {
    double start = bench_now_ms();
    GError *error = NULL;
    bench_check(fuser_run_group(NULL, k.group, k.in, 2, out, n_out, &error), error);
    if (it >= 0)
      ms[it] = bench_now_ms() - start;
    bytes = bench_pointwise_bytes(B, H, pieces_read, out, n_out);
    for (guint i = 0; i < n_out; i++)
      rt_value_unref(out[i]);
  }
  *ms_out = bench_median(ms, iters);
  *gbs_out = bytes / (*ms_out * 1e-3) / 1e9;
  g_free(ms);
  g_free(out);
  bench_pointwise_clear(&k);
}

static double memcpy_gbs(int iters) {
  size_t n = 256u << 20;
  char *a = g_malloc(n), *b = g_malloc(n);
  memset(a, 1, n);
  memset(b, 2, n);
  double *ms = g_new(double, iters);
  for (int it = 0; it < iters; it++) {
    double start = bench_now_ms();
    memcpy(b, a, n);
    ms[it] = bench_now_ms() - start;
  }
  double m = bench_median(ms, iters);
  g_free(ms);
  volatile char sink = b[n / 2];
  (void)sink;
  g_free(a);
  g_free(b);
  return 2.0 * (double)n / (m * 1e-3) / 1e9; /* read + write */
}

int main(int argc, char **argv) {
  g_set_prgname("fuser_bench");
  bool quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
  int iters = quick ? 5 : 21;
  IrGraph *graph = bench_load_lstm();
  struct { int64_t B, H; } sizes[] = {{64, 512}, {1024, 1024}};
  bool have_cc = cpu_compile_compiler(NULL) != NULL;
  double copy = memcpy_gbs(quick ? 3 : 9);
  printf("LSTM cell forward+backward, float32, CPU (median of %d)%s\n", iters,
         have_cc ? "" : "; no C compiler: the C backend column is the evaluator");
  printf("%-14s %12s %12s %12s %10s %10s\n", "batch x hidden", "fused C ms", "fused eval ms",
         "unfused ms", "C speedup", "eval spdup");
  for (guint i = 0; i < G_N_ELEMENTS(sizes); i++) {
    int n = quick && sizes[i].B > 64 ? 3 : iters;
    use_compiler(true);
    double fused = bench_lstm_cell(graph, sizes[i].B, sizes[i].H, true, n, 2, bench_host_randn, NULL);
    use_compiler(false);
    double evaluated = bench_lstm_cell(graph, sizes[i].B, sizes[i].H, true, n, 2, bench_host_randn, NULL);
    use_compiler(true);
    double plain = bench_lstm_cell(graph, sizes[i].B, sizes[i].H, false, n, 2, bench_host_randn, NULL);
    char label[32];
    g_snprintf(label, sizeof label, "%" G_GINT64_FORMAT " x %" G_GINT64_FORMAT, sizes[i].B, sizes[i].H);
    printf("%-14s %12.3f %12.3f %12.3f %9.2fx %9.2fx\n", label, fused, evaluated, plain,
           plain / fused, plain / evaluated);
  }
  struct { const char *name, *text; double pieces; } kernels[] = {
      {"lstm cell fwd", bench_cell_pointwise, 4}, {"a*b+c", bench_axpy_pointwise, 2}};
  printf("\nFused kernels alone (bytes read + written / median time)\n");
  printf("%-14s %-14s %-8s %10s %10s %10s\n", "batch x hidden", "kernel", "backend", "ms", "GB/s",
         "of memcpy");
  for (guint i = 0; i < G_N_ELEMENTS(sizes); i++) {
    int n = quick && sizes[i].B > 64 ? 3 : iters * 5;
    char label[32];
    g_snprintf(label, sizeof label, "%" G_GINT64_FORMAT " x %" G_GINT64_FORMAT, sizes[i].B, sizes[i].H);
    for (guint k = 0; k < G_N_ELEMENTS(kernels); k++)
      for (int b = 0; b < 2; b++) {
        use_compiler(b == 0);
        double kms, kgbs;
        bench_kernel(kernels[k].text, kernels[k].pieces, sizes[i].B, sizes[i].H, n, &kms, &kgbs);
        printf("%-14s %-14s %-8s %10.3f %10.2f %9.0f%%\n", label, kernels[k].name,
               b == 0 ? "cpu-c" : "cpu", kms, kgbs, 100.0 * kgbs / copy);
      }
  }
  use_compiler(true);
  printf("memcpy: %.2f GB/s (read + write, 256 MiB, one thread)\n", copy);
  ir_graph_free(graph);
  return 0;
}
