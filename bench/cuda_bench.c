/* CUDA benchmark: the corpus LSTM cell, forward + backward through ExecExecutor on device
 * tensors (every input in GPU memory, results kept there) with the fuser on (CUDA generated
 * kernels) and off (single-op device kernels), ms per iteration (median, the stream drained
 * each iteration), at 64x512 and 1024x1024 float32; and the fused kernels alone (the cell's
 * pointwise part and a*b+c) with their achieved bandwidth (bytes read + written / time)
 * against the measured device copy bandwidth (cuMemcpyDtoDAsync). Without a GPU it says
 * "no GPU" with the reason and exits 0. bench/pytorch_cuda.py measures PyTorch (eager and
 * torch.compile) on the same cell. Usage: cuda_bench [--quick]. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/executor.h"
#include "fuser/cuda_ops.h"
#include "fuser/cuda_tensor.h"
#include "fuser/fuser.h"
#include "ir/text.h"
#include "runtime/device.h"

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof(double), cmp_double);
  return v[n / 2];
}

static double now_ms(void) { return (double)g_get_monotonic_time() / 1000.0; }

static void check(bool ok, GError *error) {
  if (!ok) {
    fprintf(stderr, "cuda_bench: %s\n", error ? error->message : "failed");
    exit(1);
  }
}

static void drain(void) {
  GError *error = NULL;
  check(cuda_runtime_synchronize(&error), error);
}

static RtTensor *device_randn(int ndim, const int64_t *sizes, guint64 seed) {
  RtTensor *h = rt_tensor_randn(IR_DTYPE_FLOAT32, ndim, sizes, seed);
  GError *error = NULL;
  RtTensor *d = rt_tensor_to_device(h, IR_DEVICE_CUDA, &error);
  check(d != NULL, error);
  rt_tensor_unref(h);
  return d;
}

static IrGraph *load_lstm(void) {
  const char *dir = g_getenv("JITSCOPE_CORPUS_DIR");
  char *path = g_build_filename(dir ? dir : "../shared/corpus", "lstm_cell", "graph.ir", NULL);
  char *text = NULL;
  gsize len = 0;
  if (!g_file_get_contents(path, &text, &len, NULL)) {
    fprintf(stderr, "cuda_bench: cannot read %s (set JITSCOPE_CORPUS_DIR)\n", path);
    exit(77);
  }
  GError *error = NULL;
  IrGraph *g = ir_graph_parse(text, len, path, &error);
  check(g != NULL, error);
  g_free(text);
  g_free(path);
  return g;
}

/* Median ms of forward + backward of the cell on device tensors. */
static double bench_cell(IrGraph *graph, int64_t B, int64_t H, bool fuse, int iters) {
  ExecSession *session = exec_session_new();
  session->fuse = fuse;
  ExecExecutor *ex = exec_executor_new(session, graph, "lstm", EXEC_PLAN_FORWARD);
  int64_t sx[2] = {B, H}, sw[2] = {4 * H, H}, sb[1] = {4 * H};
  RtTensor *t[7] = {device_randn(2, sx, 1), device_randn(2, sx, 2), device_randn(2, sx, 3),
                    device_randn(2, sw, 4), device_randn(2, sw, 5), device_randn(1, sb, 6),
                    device_randn(1, sb, 7)};
  RtValue in[7];
  for (int i = 0; i < 7; i++) {
    t[i]->requires_grad = i >= 3;
    in[i] = rt_tensor(t[i]);
  }
  double *ms = g_new(double, iters);
  for (int it = -3; it < iters; it++) {
    drain();
    double start = now_ms();
    RtValue *outs = NULL;
    guint n_outs = 0;
    GError *error = NULL;
    check(exec_executor_run(ex, in, 7, &outs, &n_outs, &error), error);
    RtTensor *flat[2] = {outs[0].u.seq->items[0].u.tensor, outs[0].u.seq->items[1].u.tensor};
    RtTensor *grads[7] = {0};
    check(exec_session_backward(session, flat, NULL, 2, t, 7, grads, &error), error);
    drain();
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

/* A fused kernel alone on device inputs: median ms per launch and GB/s. */
static void bench_kernel(const char *text, double pieces_read, int64_t B, int64_t H, int iters,
                         double *ms_out, double *gbs_out) {
  IrGraph *g = ir_graph_parse(text, strlen(text), "kernel.ir", NULL);
  pass_fuse_graph(g);
  IrNode *group = NULL;
  IR_FOR_EACH_NODE(n, g->block) {
    if (n->kind == IR_PRIM_FUSION_GROUP)
      group = n;
  }
  g_assert(group && "the pointwise part is one group");
  int64_t sg[2] = {B, 4 * H}, sc[2] = {B, H};
  RtValue graph_in[2] = {rt_tensor(device_randn(2, sg, 1)), rt_tensor(device_randn(2, sc, 2))};
  RtValue in[2];
  for (guint i = 0; i < 2; i++)
    in[i] = ir_input(group, i) == g_ptr_array_index(ir_graph_inputs(g), 0) ? graph_in[0]
                                                                           : graph_in[1];
  guint n_out = ir_n_outputs(group);
  RtValue *out = g_new(RtValue, n_out);
  double *ms = g_new(double, iters);
  const int batch = 20;
  double bytes = 0;
  for (int it = -2; it < iters; it++) {
    drain();
    double start = now_ms();
    for (int k = 0; k < batch; k++) {
      GError *error = NULL;
      check(fuser_run_group(NULL, group, in, 2, out, n_out, &error), error);
      bytes = (double)(B * H) * 4 * (pieces_read + 1);
      for (guint i = 0; i < n_out; i++) {
        if (!rt_tensor_on_device(out[i].u.tensor)) {
          fprintf(stderr, "cuda_bench: the group did not run on the GPU\n");
          exit(1);
        }
        bytes += (double)rt_tensor_numel(out[i].u.tensor) * 4;
        rt_value_unref(out[i]);
      }
    }
    drain();
    if (it >= 0)
      ms[it] = (now_ms() - start) / batch;
  }
  *ms_out = median(ms, iters);
  *gbs_out = bytes / (*ms_out * 1e-3) / 1e9;
  g_free(ms);
  g_free(out);
  rt_value_unref(graph_in[0]);
  rt_value_unref(graph_in[1]);
  ir_graph_free(g);
}

/* Device-to-device copy bandwidth (read + write) of 256 MiB. */
static double dtod_gbs(int iters) {
  const CudaStatus *s = cuda_loader_get();
  size_t n = 256u << 20;
  CudaDevicePtr a, b;
  GError *error = NULL;
  check(cuda_device_alloc(n, &a, &error) && cuda_device_alloc(n, &b, &error), error);
  double *ms = g_new(double, iters);
  for (int it = -1; it < iters; it++) {
    drain();
    double start = now_ms();
    check(cuda_runtime_begin(&error), error);
    bool ok = cuda_check(s->cu.cuMemcpyDtoDAsync(b, a, n, cuda_runtime_stream()),
                         "cuMemcpyDtoDAsync", &error);
    cuda_runtime_end();
    check(ok, error);
    drain();
    if (it >= 0)
      ms[it] = now_ms() - start;
  }
  double m = median(ms, iters);
  g_free(ms);
  cuda_device_free(a);
  cuda_device_free(b);
  return 2.0 * (double)n / (m * 1e-3) / 1e9;
}

int main(int argc, char **argv) {
  bool quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
  GError *error = NULL;
  if (!cuda_runtime_enable(&error)) {
    printf("cuda_bench: no GPU: %s\n", error->message);
    g_error_free(error);
    return 0;
  }
  const CudaStatus *s = cuda_loader_get();
  printf("GPU: %s (sm_%d%d, %d SMs)\n", s->device_name, s->cc_major, s->cc_minor, s->sm_count);
  int iters = quick ? 10 : 50;
  IrGraph *lstm = load_lstm();
  int64_t shapes[2][2] = {{64, 512}, {1024, 1024}};
  printf("\nLSTM cell forward+backward, float32, device tensors (median ms):\n");
  printf("%-12s %12s %12s %8s\n", "B x H", "fused", "unfused", "speedup");
  for (int k = 0; k < 2; k++) {
    double f = bench_cell(lstm, shapes[k][0], shapes[k][1], true, iters);
    double u = bench_cell(lstm, shapes[k][0], shapes[k][1], false, iters);
    char label[32];
    g_snprintf(label, sizeof label, "%" G_GINT64_FORMAT "x%" G_GINT64_FORMAT, shapes[k][0],
               shapes[k][1]);
    printf("%-12s %12.3f %12.3f %7.2fx\n", label, f, u, u / f);
  }
  double copy = dtod_gbs(quick ? 5 : 20);
  printf("\ndevice copy (cuMemcpyDtoDAsync, 256 MiB): %.1f GB/s (read + write)\n", copy);
  printf("\nfused kernels alone (median per launch, including launch overhead):\n");
  printf("%-22s %-12s %10s %10s %10s\n", "kernel", "B x H", "ms", "GB/s", "of copy");
  for (int k = 0; k < 2; k++) {
    struct { const char *name, *text; double read; } ks[2] = {
        {"cell pointwise", cell_pointwise, 4}, {"a*b+c", axpy_pointwise, 2}};
    for (int j = 0; j < 2; j++) {
      double ms, gbs;
      bench_kernel(ks[j].text, ks[j].read, shapes[k][0], shapes[k][1], iters, &ms, &gbs);
      char label[32];
      g_snprintf(label, sizeof label, "%" G_GINT64_FORMAT "x%" G_GINT64_FORMAT, shapes[k][0],
                 shapes[k][1]);
      printf("%-22s %-12s %10.4f %10.1f %9.0f%%\n", ks[j].name, label, ms, gbs,
             100.0 * gbs / copy);
    }
  }
  char **notes = rt_device_notes();
  for (guint i = 0; notes[i]; i++)
    printf("note: %s\n", notes[i]);
  g_strfreev(notes);
  ir_graph_free(lstm);
  return 0;
}
