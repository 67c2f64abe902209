/* Shared pieces of fuser_bench and cuda_bench (contract in bench_common.h). */
#include "bench_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/resource.h>

#include "fuser/fuser.h"
#include "ir/text.h"
#include "runtime/device.h"
#include "tensor/host_allocator.h"

double bench_now_ms(void) {
  return (double)g_get_monotonic_time() / 1000.0;
}

long bench_minor_faults(void) {
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

double bench_median(double *v, int n) {
  qsort(v, (size_t)n, sizeof(double), cmp_double);
  return v[n / 2];
}

void bench_check(bool ok, GError *error) {
  if (!ok) {
    fprintf(stderr, "%s: %s\n", g_get_prgname(), error ? error->message : "failed");
    exit(1);
  }
}

IrGraph *bench_load_cell(const char *corpus_case) {
  const char *dir = g_getenv("JITSCOPE_CORPUS_DIR");
  char *path = g_build_filename(dir ? dir : "../shared/corpus", corpus_case, "graph.ir", NULL);
  char *text = NULL;
  gsize len = 0;
  if (!g_file_get_contents(path, &text, &len, NULL)) {
    fprintf(stderr, "%s: cannot read %s (set JITSCOPE_CORPUS_DIR)\n", g_get_prgname(), path);
    exit(77);
  }
  GError *error = NULL;
  IrGraph *g = ir_graph_parse(text, len, path, &error);
  bench_check(g != NULL, error);
  g_free(text);
  g_free(path);
  return g;
}

RtTensor *bench_host_randn(int ndim, const int64_t *sizes, guint64 seed, float scale) {
  RtTensor *t = rt_tensor_randn(IR_DTYPE_FLOAT32, ndim, sizes, seed);
  float *data = rt_tensor_data(t);
  for (int64_t i = 0, n = rt_tensor_numel(t); scale != 1.0f && i < n; i++)
    data[i] *= scale;
  return t;
}

float bench_cell_weight_scale(int64_t H) {
  return (float)(1.0 / sqrt((double)H));
}

double bench_rnn_cell(IrGraph *graph, int64_t B, int64_t H, bool fuse, int iters, int warmup,
                      BenchRandnFn randn, void (*sync)(void), BenchIterCost *cost) {
  guint n_in = ir_graph_inputs(graph)->len;
  g_assert(n_in >= 5 && n_in <= BENCH_CELL_MAX_INPUTS);
  ExecSession *session = exec_session_new();
  session->fuse = fuse;
  ExecExecutor *ex = exec_executor_new(session, graph, "cell", EXEC_PLAN_FORWARD);
  int64_t sx[2] = {B, H}, sw[2] = {4 * H, H}, sb[1] = {4 * H};
  RtTensor *t[BENCH_CELL_MAX_INPUTS];
  RtValue in[BENCH_CELL_MAX_INPUTS];
  for (guint i = 0; i < n_in; i++) {
    t[i] = i < 3   ? randn(2, sx, i + 1, 1.0f)
           : i < 5 ? randn(2, sw, i + 1, bench_cell_weight_scale(H))
                   : randn(1, sb, i + 1, 1.0f);
    t[i]->requires_grad = i >= 3;
    in[i] = rt_tensor(t[i]);
  }
  /* The backward's seeds: the gradients of hy.sum() + cy.sum(), a one expanded to each
   * output's shape, as PyTorch's bench (bench/pytorch_fuser_cpu.py) gets them. */
  RtTensor *seeds[2] = {NULL, NULL};
  double *ms = g_new(double, iters);
  long faults_before = 0;
  double peak_mib_sum = 0;
  for (int it = -warmup; it < iters; it++) {
    if (it == 0)
      faults_before = bench_minor_faults();
    RtHostAllocatorStats before;
    rt_host_allocator_stats(&before);
    rt_host_allocator_reset_peak();
    if (sync)
      sync();
    double start = bench_now_ms();
    RtValue *outs = NULL;
    guint n_outs = 0;
    GError *error = NULL;
    bench_check(exec_executor_run(ex, in, n_in, &outs, &n_outs, &error), error);
    RtTensor *flat[2] = {outs[0].u.seq->items[0].u.tensor, outs[0].u.seq->items[1].u.tensor};
    for (int k = 0; k < 2 && !seeds[k]; k++) {
      int64_t one_size[1] = {1};
      RtTensor *one = rt_tensor_full_like_device(flat[k], flat[k]->dtype, 1, one_size, 1.0, &error);
      bench_check(one != NULL, error);
      seeds[k] = rt_tensor_view_expand(one, flat[k]->ndim, flat[k]->sizes, &error);
      bench_check(seeds[k] != NULL, error);
      rt_tensor_unref(one);
    }
    RtTensor *grads[BENCH_CELL_MAX_INPUTS] = {0};
    bench_check(exec_session_backward(session, flat, seeds, 2, t, n_in, grads, &error), error);
    if (sync)
      sync();
    if (it >= 0) {
      ms[it] = bench_now_ms() - start;
      RtHostAllocatorStats after;
      rt_host_allocator_stats(&after);
      peak_mib_sum += (double)(after.peak_bytes_in_use - before.bytes_in_use) / (1 << 20);
    }
    for (guint i = 0; i < n_in; i++)
      if (grads[i])
        rt_tensor_unref(grads[i]);
    rt_value_unref(outs[0]);
    g_free(outs);
  }
  if (cost) {
    cost->minor_faults_per_iter = (double)(bench_minor_faults() - faults_before) / iters;
    cost->peak_mib_per_iter = peak_mib_sum / iters;
  }
  double m = bench_median(ms, iters);
  g_free(ms);
  for (int k = 0; k < 2; k++)
    g_clear_pointer(&seeds[k], rt_tensor_unref);
  for (guint i = 0; i < n_in; i++)
    rt_value_unref(in[i]);
  exec_session_free(session);
  return m;
}

const char bench_cell_pointwise[] =
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

const char bench_axpy_pointwise[] =
    "graph(%gates : Float(*, *),\n      %cx : Float(*, *)):\n"
    "  %one : int = prim::Constant[value=1]()\n"
    "  %a : Float(*, *), %b : Float(*, *), %c : Float(*, *), %d : Float(*, *) = "
    "prim::ConstantChunk[chunks=4, dim=1](%gates)\n"
    "  %ab : Float(*, *) = aten::mul(%a, %cx)\n"
    "  %r : Float(*, *) = aten::add(%ab, %b, %one)\n"
    "  return (%r)\n";

void bench_pointwise_init(BenchPointwise *k, const char *text, int64_t B, int64_t H,
                          BenchRandnFn randn) {
  k->graph = ir_graph_parse(text, strlen(text), "kernel.ir", NULL);
  pass_fuse_graph(k->graph);
  k->group = NULL;
  IR_FOR_EACH_NODE(n, k->graph->block) {
    if (n->kind == IR_PRIM_FUSION_GROUP)
      k->group = n;
  }
  g_assert(k->group && "the pointwise part is one group");
  int64_t sg[2] = {B, 4 * H}, sc[2] = {B, H};
  k->graph_in[0] = rt_tensor(randn(2, sg, 1, 1.0f));
  k->graph_in[1] = rt_tensor(randn(2, sc, 2, 1.0f));
  const IrValue *gates = g_ptr_array_index(ir_graph_inputs(k->graph), 0);
  for (guint i = 0; i < 2; i++)
    k->in[i] = ir_input(k->group, i) == gates ? k->graph_in[0] : k->graph_in[1];
}

void bench_pointwise_clear(BenchPointwise *k) {
  rt_value_unref(k->graph_in[0]);
  rt_value_unref(k->graph_in[1]);
  ir_graph_free(k->graph);
}

double bench_pointwise_bytes(int64_t B, int64_t H, double pieces_read, const RtValue *out,
                             guint n_out) {
  double bytes = (double)(B * H) * 4 * (pieces_read + 1);
  for (guint i = 0; i < n_out; i++)
    bytes += (double)rt_tensor_numel(out[i].u.tensor) * 4;
  return bytes;
}
