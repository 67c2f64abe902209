/* Fuser benchmark (CPU): the corpus LSTM cell, forward + backward through ExecExecutor with
 * the fuser on and off, ms per iteration (median); and the fused pointwise kernel of the cell
 * alone, its achieved bandwidth (bytes read + written per run / time) against a measured
 * memcpy bandwidth. Usage: fuser_bench [--quick]. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/executor.h"
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

/* The fused kernel alone: median ms and GB/s. */
static void bench_kernel(int64_t B, int64_t H, int iters, double *ms_out, double *gbs_out) {
  IrGraph *g = ir_graph_parse(cell_pointwise, strlen(cell_pointwise), "cell.ir", NULL);
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
    bytes = 0;
    for (guint i = 0; i < 2; i++)
      bytes += (double)rt_tensor_numel(in[i].u.tensor) * 4;
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
  double copy = memcpy_gbs(quick ? 3 : 9);
  printf("LSTM cell forward+backward, float32, CPU (median of %d)\n", iters);
  printf("%-14s %12s %12s %8s %12s %12s %10s\n", "batch x hidden", "fused ms", "unfused ms",
         "speedup", "kernel ms", "kernel GB/s", "of memcpy");
  for (guint i = 0; i < G_N_ELEMENTS(sizes); i++) {
    int n = quick && sizes[i].B > 64 ? 3 : iters;
    double fused = bench_cell(graph, sizes[i].B, sizes[i].H, true, n);
    double plain = bench_cell(graph, sizes[i].B, sizes[i].H, false, n);
    double kms, kgbs;
    bench_kernel(sizes[i].B, sizes[i].H, n, &kms, &kgbs);
    char label[32];
    g_snprintf(label, sizeof label, "%" G_GINT64_FORMAT " x %" G_GINT64_FORMAT, sizes[i].B, sizes[i].H);
    printf("%-14s %12.3f %12.3f %7.2fx %12.3f %12.2f %9.0f%%\n", label, fused, plain, plain / fused,
           kms, kgbs, 100.0 * kgbs / copy);
  }
  printf("memcpy: %.2f GB/s (read + write, 256 MiB)\n", copy);
  ir_graph_free(graph);
  return 0;
}
