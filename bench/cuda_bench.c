/* CUDA benchmark: the corpus LSTM cell, forward + backward through ExecExecutor on device
 * tensors (every input in GPU memory, results kept there) with the fuser on (CUDA generated
 * kernels) and off (single-op device kernels), ms per iteration (median, the stream drained
 * each iteration), at 64x512 and 1024x1024 float32; and the fused kernels alone (the cell's
 * pointwise part and a*b+c): per launch with the host's work, and the kernel itself timed by
 * events, whose achieved bandwidth (bytes read + written / kernel time) is set against the
 * measured device copy bandwidth (cuMemcpyDtoDAsync). Without a GPU it says
 * "no GPU" with the reason and exits 0. bench/pytorch_cuda.py measures PyTorch (eager and
 * torch.compile) on the same cell. Usage: cuda_bench [--quick | --smoke]; --smoke runs tiny
 * sizes twice, to check that every path works (the cudaemu test suite runs it on the host
 * emulation of CUDA, whose timings mean nothing). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_args.h"
#include "bench_common.h"
#include "cuda/cuda_launch.h"
#include "cuda/cuda_ops.h"
#include "cuda/cuda_tensor.h"
#include "fuser/fuser.h"
#include "runtime/device.h"

static void drain(void) {
  GError *error = NULL;
  bench_check(cuda_runtime_synchronize(&error), error);
}

static RtTensor *device_randn(int ndim, const int64_t *sizes, guint64 seed, float scale) {
  RtTensor *h = bench_host_randn(ndim, sizes, seed, scale);
  GError *error = NULL;
  RtTensor *d = rt_tensor_to_device(h, IR_DEVICE_CUDA, &error);
  bench_check(d != NULL, error);
  rt_tensor_unref(h);
  return d;
}

/* A fused kernel alone on device inputs: median ms per launch (host work included, launches
 * queued back to back), median ms of the kernel itself (events around each launch), and the
 * bytes it reads and writes. */
static void bench_kernel(const char *text, double pieces_read, int64_t B, int64_t H, int iters,
                         double *ms_out, double *kernel_ms_out, double *bytes_out) {
  BenchPointwise k;
  bench_pointwise_init(&k, text, B, H, device_randn);
  guint n_out = ir_n_outputs(k.group);
  RtValue *out = g_new(RtValue, n_out);
  double *ms = g_new(double, iters);
  const int batch = 20;
  double bytes = 0;
  for (int it = -2; it < iters; it++) {
    drain();
    double start = bench_now_ms();
    for (int j = 0; j < batch; j++) {
      GError *error = NULL;
      bench_check(fuser_run_group(NULL, k.group, k.in, 2, out, n_out, &error), error);
      bytes = bench_pointwise_bytes(B, H, pieces_read, out, n_out);
      for (guint i = 0; i < n_out; i++) {
        if (!rt_tensor_on_device(out[i].u.tensor)) {
          fprintf(stderr, "cuda_bench: the group did not run on the GPU\n");
          exit(1);
        }
        rt_value_unref(out[i]);
      }
    }
    drain();
    if (it >= 0)
      ms[it] = (bench_now_ms() - start) / batch;
  }
  *ms_out = bench_median(ms, iters);
  cuda_launch_set_timing(true);
  for (int it = -2; it < iters; it++) {
    GError *error = NULL;
    bench_check(fuser_run_group(NULL, k.group, k.in, 2, out, n_out, &error), error);
    for (guint i = 0; i < n_out; i++)
      rt_value_unref(out[i]);
    if (it >= 0)
      ms[it] = cuda_launch_last_kernel_ms();
  }
  cuda_launch_set_timing(false);
  *kernel_ms_out = bench_median(ms, iters);
  *bytes_out = bytes;
  g_free(ms);
  g_free(out);
  bench_pointwise_clear(&k);
}

/* Device-to-device copy bandwidth (read + write) of n bytes. */
static double dtod_gbs(size_t n, int iters) {
  const CudaStatus *s = cuda_loader_get();
  CudaDevicePtr a, b;
  GError *error = NULL;
  bench_check(cuda_device_alloc(n, &a, &error) && cuda_device_alloc(n, &b, &error), error);
  double *ms = g_new(double, iters);
  for (int it = -1; it < iters; it++) {
    drain();
    double start = bench_now_ms();
    bench_check(cuda_runtime_begin(&error), error);
    bool ok = cuda_check(s->cu.cuMemcpyDtoDAsync(b, a, n, cuda_runtime_stream()),
                         "cuMemcpyDtoDAsync", &error);
    cuda_runtime_end();
    bench_check(ok, error);
    drain();
    if (it >= 0)
      ms[it] = bench_now_ms() - start;
  }
  double m = bench_median(ms, iters);
  g_free(ms);
  cuda_device_free(a);
  cuda_device_free(b);
  return 2.0 * (double)n / (m * 1e-3) / 1e9;
}

int main(int argc, char **argv) {
  g_set_prgname("cuda_bench");
  gboolean quick = FALSE, smoke = FALSE;
  const GOptionEntry options[] = {
      {"quick", 0, 0, G_OPTION_ARG_NONE, &quick,
       "10 iterations instead of 50 (copy bandwidth: 5 instead of 20), at the same sizes", NULL},
      {"smoke", 0, 0, G_OPTION_ARG_NONE, &smoke,
       "Every path twice at tiny sizes, to check that it works (timings mean nothing); "
       "exits 1 without a GPU",
       NULL},
      G_OPTION_ENTRY_NULL};
  bench_args_parse(&argc, &argv, NULL,
                   "The corpus LSTM cell forward + backward on device tensors at 64x512 and\n"
                   "1024x1024 float32, fused (CUDA generated kernels) and unfused, ms per\n"
                   "iteration; the fused kernels alone, their bandwidth against the device\n"
                   "copy's. Prints tables; without a GPU says \"no GPU\" and exits 0.",
                   options, 0);
  if (quick && smoke)
    bench_args_fail("--quick and --smoke exclude each other");
  GError *error = NULL;
  if (!cuda_runtime_enable(&error)) {
    printf("cuda_bench: no GPU: %s\n", error->message);
    g_error_free(error);
    return smoke ? 1 : 0; /* --smoke is a check that the paths run */
  }
  const CudaStatus *s = cuda_loader_get();
  printf("GPU: %s (sm_%d%d, %d SMs)\n", s->device_name, s->cc_major, s->cc_minor, s->sm_count);
  int iters = smoke ? 2 : quick ? 10 : 50;
  IrGraph *lstm = bench_load_cell("lstm_cell");
  int64_t shapes[2][2] = {{64, 512}, {1024, 1024}};
  if (smoke)
    memcpy(shapes, (int64_t[2][2]){{4, 8}, {8, 16}}, sizeof shapes);
  printf("\nLSTM cell forward+backward, float32, device tensors (median ms):\n");
  printf("%-12s %12s %12s %8s\n", "B x H", "fused", "unfused", "speedup");
  for (int k = 0; k < 2; k++) {
    double f =
        bench_rnn_cell(lstm, shapes[k][0], shapes[k][1], true, iters, 3, device_randn, drain, NULL);
    double u = bench_rnn_cell(lstm, shapes[k][0], shapes[k][1], false, iters, 3, device_randn,
                              drain, NULL);
    char label[32];
    g_snprintf(label, sizeof label, "%" G_GINT64_FORMAT "x%" G_GINT64_FORMAT, shapes[k][0],
               shapes[k][1]);
    printf("%-12s %12.3f %12.3f %7.2fx\n", label, f, u, u / f);
  }
  size_t copy_bytes = smoke ? 1u << 20 : 256u << 20;
  double copy = dtod_gbs(copy_bytes, smoke ? 2 : quick ? 5 : 20);
  printf("\ndevice copy (cuMemcpyDtoDAsync, %zu MiB): %.1f GB/s (read + write)\n", copy_bytes >> 20,
         copy);
  printf("\nfused kernels alone (median; launch: host work included, launches back to back;\n"
         "kernel: events around each launch; GB/s and share of copy from the kernel time):\n");
  printf("%-22s %-12s %12s %12s %10s %10s\n", "kernel", "B x H", "launch ms", "kernel ms", "GB/s",
         "of copy");
  for (int k = 0; k < 2; k++) {
    struct {
      const char *name, *text;
      double read;
    } ks[2] = {{"cell pointwise", bench_cell_pointwise, 4}, {"a*b+c", bench_axpy_pointwise, 2}};
    for (int j = 0; j < 2; j++) {
      double ms, kernel_ms, bytes;
      bench_kernel(ks[j].text, ks[j].read, shapes[k][0], shapes[k][1], iters, &ms, &kernel_ms,
                   &bytes);
      double gbs = bytes / (kernel_ms * 1e-3) / 1e9;
      char label[32];
      g_snprintf(label, sizeof label, "%" G_GINT64_FORMAT "x%" G_GINT64_FORMAT, shapes[k][0],
                 shapes[k][1]);
      printf("%-22s %-12s %12.4f %12.4f %10.1f %9.0f%%\n", ks[j].name, label, ms, kernel_ms, gbs,
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
