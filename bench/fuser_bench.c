/* Fuser benchmark (CPU): the corpus LSTM cell, forward + backward through ExecExecutor with
 * the fuser on (C backend "cpu-c"; interpreting loop "cpu", the compiler turned off with
 * JITSCOPE_CC=none) and off, ms per iteration (median); and fused kernels alone on both
 * backends (the cell's pointwise part, transcendental-heavy, and a*b+c, memory-bound), their
 * achieved bandwidth (bytes read + written per run / time) against a measured memcpy
 * bandwidth. Usage: fuser_bench [--quick]. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/executor.h"
#include "fuser/cpu_compile.h"
#include "fuser/fuser.h"
#include "ir/text.h"

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof(double), cmp_double);
  return v[n / 2];
}

static double now_ms(void) { return (double)g_get_monotonic_time() / 1000.0; }

static IrGraph *load_lstm(void) {
  const char *dir = g_getenv("JITSCOPE_CORPUS_DIR");
  char *path = g_build_filename(dir ? dir : "../shared/corpus", "lstm_cell", "graph.ir", NULL);
  char *text = NULL;
  gsize len = 0;
  if (!g_file_get_contents(path, &text, &len, NULL)) {
    fprintf(stderr, "fuser_bench: cannot read %s (set JITSCOPE_CORPUS_DIR)\n", path);
    exit(77);
  }
  GError *error = NULL;
  IrGraph *g = ir_graph_parse(text, len, path, &error);
  if (!g) {
    fprintf(stderr, "fuser_bench: %s\n", error->message);
    exit(1);
  }
  g_free(text);
  g_free(path);
  return g;
}

/* Median ms of forward + backward of the cell. */
static double bench_cell(IrGraph *graph, int64_t B, int64_t H, bool fuse, int iters) {
  ExecSession *session = exec_session_new();
  session->fuse = fuse;
  ExecExecutor *ex = exec_executor_new(session, graph, "lstm", EXEC_PLAN_FORWARD);
  int64_t sx[2] = {B, H}, sw[2] = {4 * H, H}, sb[1] = {4 * H};
  RtTensor *t[7] = {rt_tensor_randn(IR_DTYPE_FLOAT32, 2, sx, 1), rt_tensor_randn(IR_DTYPE_FLOAT32, 2, sx, 2),
                    rt_tensor_randn(IR_DTYPE_FLOAT32, 2, sx, 3), rt_tensor_randn(IR_DTYPE_FLOAT32, 2, sw, 4),
                    rt_tensor_randn(IR_DTYPE_FLOAT32, 2, sw, 5), rt_tensor_randn(IR_DTYPE_FLOAT32, 1, sb, 6),
                    rt_tensor_randn(IR_DTYPE_FLOAT32, 1, sb, 7)};
  RtValue in[7];
  for (int i = 0; i < 7; i++) {
    t[i]->requires_grad = i >= 3;
    in[i] = rt_tensor(t[i]);
  }
  double *ms = g_new(double, iters);
  for (int it = -2; it < iters; it++) {
    double start = now_ms();
    RtValue *outs = NULL;
    guint n_outs = 0;
    GError *error = NULL;
    if (!exec_executor_run(ex, in, 7, &outs, &n_outs, &error)) {
      fprintf(stderr, "fuser_bench: %s\n", error->message);
      exit(1);
    }
    RtTensor *flat[2] = {outs[0].u.seq->items[0].u.tensor, outs[0].u.seq->items[1].u.tensor};
    RtTensor *grads[7] = {0};
    if (!exec_session_backward(session, flat, NULL, 2, t, 7, grads, &error)) {
      fprintf(stderr, "fuser_bench: %s\n", error->message);
      exit(1);
    }
    if (it >= 0)
      ms[it] = now_ms() - start;
    for (int i = 0; i < 7; i++)
      if (grads[i])
        rt_tensor_unref(grads[i]);
    rt_value_unref(outs[0]);
    g_free(outs);
  }
  double m = median(ms, iters);
  g_free(ms);
  for (int i = 0; i < 7; i++)
    rt_value_unref(in[i]);
  exec_session_free(session);
  return m;
}

static const char cell_pointwise[] =
    "graph(%gates : Float(*, *),\n      %cx : Float(*, *)):\n"
    "  %one : int = prim::Constant[value=1]()\n"
    "  %i0 : Float(*, *), %f0 : Float(*, *), %c0 : Float(*, *), %o0 : Float(*, *) = "
    "prim::ConstantChunk[chunks=4, dim=1](%gates)\n"
    "  %i : Float(*, *) = aten::sigmoid(%i0)\n"
    "  %f : Float(*, *) = aten::sigmoid(%f0)\n"
    "  %c : Float(*, *) = aten::tanh(%c0)\n"
    "  %o : Float(*, *) = aten::sigmoid(%o0)\n"
    "  %fc : Float(*, *) = aten::mul(%f, %cx)\n"
    "  %ic : Float(*, *) = aten::mul(%i, %c)\n"
    "  %cy : Float(*, *) = aten::add(%fc, %ic, %one)\n"
    "  %tc : Float(*, *) = aten::tanh(%cy)\n"
    "  %hy : Float(*, *) = aten::mul(%o, %tc)\n"
    "  return (%hy, %cy)\n";

static const char axpy_pointwise[] =
    "graph(%gates : Float(*, *),\n      %cx : Float(*, *)):\n"
    "  %one : int = prim::Constant[value=1]()\n"
    "  %a : Float(*, *), %b : Float(*, *), %c : Float(*, *), %d : Float(*, *) = "
    "prim::ConstantChunk[chunks=4, dim=1](%gates)\n"
    "  %ab : Float(*, *) = aten::mul(%a, %cx)\n"
    "  %r : Float(*, *) = aten::add(%ab, %b, %one)\n"
    "  return (%r)\n";

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
  IrGraph *g = ir_graph_parse(text, strlen(text), "kernel.ir", NULL);
  pass_fuse_graph(g);
  IrNode *group = NULL;
  IR_FOR_EACH_NODE(n, g->block) {
    if (n->kind == IR_PRIM_FUSION_GROUP)
      group = n;
  }
  g_assert(group && "the cell's pointwise part is one group");
  int64_t sg[2] = {B, 4 * H}, sc[2] = {B, H};
  RtValue graph_in[2] = {rt_tensor(rt_tensor_randn(IR_DTYPE_FLOAT32, 2, sg, 1)),
                         rt_tensor(rt_tensor_randn(IR_DTYPE_FLOAT32, 2, sc, 2))};
  RtValue in[2]; /* in the group's input order */
  for (guint i = 0; i < 2; i++)
    in[i] = ir_input(group, i) == g_ptr_array_index(ir_graph_inputs(g), 0) ? graph_in[0] : graph_in[1];
  guint n_out = ir_n_outputs(group);
  RtValue *out = g_new(RtValue, n_out);
  double *ms = g_new(double, iters);
  double bytes = 0;
  for (int it = -2; it < iters; it++) {
    double start = now_ms();
    GError *error = NULL;
    if (!fuser_run_group(NULL, group, in, 2, out, n_out, &error)) {
      fprintf(stderr, "fuser_bench: %s\n", error->message);
      exit(1);
    }
    if (it >= 0)
      ms[it] = now_ms() - start;
    /* The gates' chunk pieces that are read (of 4), cx, the outputs. */
    bytes = (double)(B * H) * 4 * (pieces_read + 1);
    for (guint i = 0; i < n_out; i++) {
      bytes += (double)rt_tensor_numel(out[i].u.tensor) * 4;
      rt_value_unref(out[i]);
    }
  }
  *ms_out = median(ms, iters);
  *gbs_out = bytes / (*ms_out * 1e-3) / 1e9;
  g_free(ms);
  g_free(out);
  rt_value_unref(graph_in[0]);
  rt_value_unref(graph_in[1]);
  ir_graph_free(g);
}

static double memcpy_gbs(int iters) {
  size_t n = 256u << 20;
  char *a = g_malloc(n), *b = g_malloc(n);
  memset(a, 1, n);
  memset(b, 2, n);
  double *ms = g_new(double, iters);
  for (int it = 0; it < iters; it++) {
    double start = now_ms();
    memcpy(b, a, n);
    ms[it] = now_ms() - start;
  }
  double m = median(ms, iters);
  g_free(ms);
  volatile char sink = b[n / 2];
  (void)sink;
  g_free(a);
  g_free(b);
  return 2.0 * (double)n / (m * 1e-3) / 1e9; /* read + write */
}

int main(int argc, char **argv) {
  bool quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
  int iters = quick ? 5 : 21;
  IrGraph *graph = load_lstm();
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
    double fused = bench_cell(graph, sizes[i].B, sizes[i].H, true, n);
    use_compiler(false);
    double evaluated = bench_cell(graph, sizes[i].B, sizes[i].H, true, n);
    use_compiler(true);
    double plain = bench_cell(graph, sizes[i].B, sizes[i].H, false, n);
    char label[32];
    g_snprintf(label, sizeof label, "%" G_GINT64_FORMAT " x %" G_GINT64_FORMAT, sizes[i].B, sizes[i].H);
    printf("%-14s %12.3f %12.3f %12.3f %9.2fx %9.2fx\n", label, fused, evaluated, plain,
           plain / fused, plain / evaluated);
  }
  struct { const char *name, *text; double pieces; } kernels[] = {
      {"lstm cell fwd", cell_pointwise, 4}, {"a*b+c", axpy_pointwise, 2}};
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
