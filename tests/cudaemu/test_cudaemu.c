/* The CUDA emulator's own strictness (emu_driver.c), reached through our loader as the cudaemu
 * suite reaches it: a host read of device memory and a kernel writing past its allocation crash,
 * copies past an allocation, double frees, calls without a current context and real PTX are
 * refused, and kernels (a grid-stride loop, a __syncthreads block reduction) compute what they
 * should. Each case fails if the emulator lets the mistake through. */
#include <string.h>

#include "cuda/cuda_compile.h"
#include "cuda/cuda_loader.h"

static const CudaStatus *status;

static CudaDevicePtr device_alloc(size_t bytes) {
  CudaDevicePtr p = 0;
  g_assert_cmpint(status->cu.cuMemAllocAsync(&p, bytes, NULL), ==, 0);
  return p;
}

static void device_free(CudaDevicePtr p) {
  g_assert_cmpint(status->cu.cuMemFreeAsync(p, NULL), ==, 0);
}

static CudaFunction compile(const char *source, const char *name) {
  GError *error = NULL;
  CudaCompileResult *r = cuda_compile_ptx(source, name, "compute_90", &error);
  g_assert_no_error(error);
  if (!r->ok)
    g_error("%s did not compile: %s", name, r->log);
  CudaModule module = NULL;
  CudaFunction fn = NULL;
  g_assert_cmpint(status->cu.cuModuleLoadData(&module, r->ptx), ==, 0);
  g_assert_cmpint(status->cu.cuModuleGetFunction(&fn, module, name), ==, 0);
  cuda_compile_result_free(r);
  return fn; /* the module stays loaded for the process */
}

static void launch(CudaFunction fn, unsigned grid, unsigned block, void **params) {
  g_assert_cmpint(status->cu.cuLaunchKernel(fn, grid, 1, 1, block, 1, 1, 0, NULL, params, NULL), ==,
                  0);
}

static void test_device(void) {
  g_assert_true(status->device_present);
  g_assert_nonnull(strstr(status->device_name, "cudaemu"));
  g_assert_true(status->memory_pools);
}

static void test_copies(void) {
  float host[100], back[100] = {0};
  for (int i = 0; i < 100; i++)
    host[i] = (float)i * 0.5f;
  CudaDevicePtr a = device_alloc(sizeof host), b = device_alloc(sizeof host);
  g_assert_cmpint(status->cu.cuMemcpyHtoDAsync(a, host, sizeof host, NULL), ==, 0);
  g_assert_cmpint(status->cu.cuMemcpyDtoDAsync(b, a, sizeof host, NULL), ==, 0);
  g_assert_cmpint(status->cu.cuMemcpyDtoHAsync(back, b, sizeof back, NULL), ==, 0);
  g_assert_cmpmem(host, sizeof host, back, sizeof back);
  /* One element too many, a pointer into no allocation, and a second free are refused. */
  g_assert_cmpint(status->cu.cuMemcpyHtoDAsync(a + 4, host, sizeof host, NULL), ==, 1);
  g_assert_cmpint(status->cu.cuMemcpyDtoHAsync(back, (CudaDevicePtr)(guintptr)back, 4, NULL), ==,
                  1);
  device_free(a);
  device_free(b);
  g_assert_cmpint(status->cu.cuMemFreeAsync(a, NULL), ==, 1);
}

static void test_host_read_crashes(void) {
  if (g_test_subprocess()) {
    CudaDevicePtr p = device_alloc(64);
    g_print("reading device memory\n"); /* the crash must come after this, not before */
    volatile float value = *(volatile float *)(guintptr)p;
    (void)value;
    return;
  }
  g_test_trap_subprocess(NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_failed();
  g_test_trap_assert_stdout("*reading device memory*");
}

static gpointer alloc_without_context(gpointer data) {
  CudaDevicePtr p = 0;
  return GINT_TO_POINTER(status->cu.cuMemAllocAsync(&p, 16, NULL));
}

static void test_context_per_thread(void) {
  GThread *t = g_thread_new("no-context", alloc_without_context, NULL);
  g_assert_cmpint(GPOINTER_TO_INT(g_thread_join(t)), ==, 201); /* CUDA_ERROR_INVALID_CONTEXT */
}

static void test_real_ptx_refused(void) {
  CudaModule module = NULL;
  const char ptx[] = ".version 8.0\n.target sm_90\n.address_size 64\n";
  g_assert_cmpint(status->cu.cuModuleLoadData(&module, ptx), ==, 200); /* INVALID_IMAGE */
}

static const char twice_source[] =
    "extern \"C\" __global__ void twice(unsigned n, float *x) {\n"
    "  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n;\n"
    "       i += gridDim.x * blockDim.x)\n"
    "    x[i] *= 2.0f;\n"
    "}\n";

static void test_grid_stride_kernel(void) {
  enum { N = 1000 };
  float host[N], back[N];
  for (int i = 0; i < N; i++)
    host[i] = (float)i;
  CudaDevicePtr x = device_alloc(sizeof host);
  g_assert_cmpint(status->cu.cuMemcpyHtoDAsync(x, host, sizeof host, NULL), ==, 0);
  unsigned n = N;
  void *params[] = {&n, &x};
  launch(compile(twice_source, "twice"), 3, 64, params);
  g_assert_cmpint(status->cu.cuMemcpyDtoHAsync(back, x, sizeof back, NULL), ==, 0);
  for (int i = 0; i < N; i++)
    g_assert_cmpfloat(back[i], ==, 2.0f * (float)i);
  device_free(x);
}

static void test_block_reduction(void) {
  static const char source[] =
      "extern \"C\" __global__ void block_sum(const float *x, float *out) {\n"
      "  __shared__ float partial[128];\n"
      "  partial[threadIdx.x] = x[blockIdx.x * blockDim.x + threadIdx.x];\n"
      "  __syncthreads();\n"
      "  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {\n"
      "    if (threadIdx.x < s)\n"
      "      partial[threadIdx.x] += partial[threadIdx.x + s];\n"
      "    __syncthreads();\n"
      "  }\n"
      "  if (threadIdx.x == 0)\n"
      "    out[blockIdx.x] = partial[0];\n"
      "}\n";
  enum { BLOCKS = 3, THREADS = 128 };
  float host[BLOCKS * THREADS], sums[BLOCKS];
  for (int i = 0; i < BLOCKS * THREADS; i++)
    host[i] = (float)(i % 7);
  CudaDevicePtr x = device_alloc(sizeof host), out = device_alloc(sizeof sums);
  g_assert_cmpint(status->cu.cuMemcpyHtoDAsync(x, host, sizeof host, NULL), ==, 0);
  void *params[] = {&x, &out};
  launch(compile(source, "block_sum"), BLOCKS, THREADS, params);
  g_assert_cmpint(status->cu.cuMemcpyDtoHAsync(sums, out, sizeof sums, NULL), ==, 0);
  for (int b = 0; b < BLOCKS; b++) {
    float want = 0;
    for (int t = 0; t < THREADS; t++)
      want += host[b * THREADS + t];
    g_assert_cmpfloat(sums[b], ==, want);
  }
  device_free(x);
  device_free(out);
}

static void test_kernel_overrun_crashes(void) {
  if (g_test_subprocess()) {
    CudaDevicePtr x = device_alloc(256 * sizeof(float));
    unsigned n = 257; /* one element past the allocation */
    void *params[] = {&n, &x};
    CudaFunction fn = compile(twice_source, "twice");
    g_print("launching\n"); /* the crash must come after this, not before */
    launch(fn, 1, 64, params);
    return;
  }
  g_test_trap_subprocess(NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_failed();
  g_test_trap_assert_stdout("*launching*");
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  status = cuda_loader_get();
  if (!status->device_present || !status->nvrtc.loaded) {
    g_print("the CUDA emulator did not load (JITSCOPE_CUDA_LIBDIR=%s): %s\n",
            g_getenv("JITSCOPE_CUDA_LIBDIR"),
            status->device_error ? status->device_error : status->nvrtc.error);
    return 1;
  }
  GError *error = NULL;
  if (!cuda_loader_make_current(&error))
    g_error("%s", error->message);
  g_test_add_func("/cudaemu/device", test_device);
  g_test_add_func("/cudaemu/copies", test_copies);
  g_test_add_func("/cudaemu/host-read-crashes", test_host_read_crashes);
  g_test_add_func("/cudaemu/context-per-thread", test_context_per_thread);
  g_test_add_func("/cudaemu/real-ptx-refused", test_real_ptx_refused);
  g_test_add_func("/cudaemu/grid-stride-kernel", test_grid_stride_kernel);
  g_test_add_func("/cudaemu/block-reduction", test_block_reduction);
  g_test_add_func("/cudaemu/kernel-overrun-crashes", test_kernel_overrun_crashes);
  return g_test_run();
}
