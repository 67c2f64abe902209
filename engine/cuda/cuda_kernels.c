/* The CUDA runtime's copy and sum kernels (contract in cuda_kernels.h). */
#include "cuda/cuda_kernels.h"

#include <string.h>

#include "cuda/cuda_tensor.h"

#define SUM_BLOCK 256
#define COPY_BLOCK 256
#define SMALL_REDUCTION 32

/* The dtypes the runtime kernels take. */
static bool cuda_rt_dtype_supported(IrDtype d) {
  return d == IR_DTYPE_FLOAT32 || d == IR_DTYPE_FLOAT64 || d == IR_DTYPE_FLOAT16 ||
         d == IR_DTYPE_INT64 || d == IR_DTYPE_BOOL;
}

static const char *storage_type(IrDtype d) {
  switch (d) {
  case IR_DTYPE_FLOAT16: return "unsigned short";
  case IR_DTYPE_FLOAT32: return "float";
  case IR_DTYPE_FLOAT64: return "double";
  case IR_DTYPE_INT64: return "i64";
  default: return "bool";
  }
}

/* The type a loaded element is held in. */
static const char *value_type(IrDtype d) {
  return d == IR_DTYPE_FLOAT16 ? "float" : storage_type(d);
}

static bool is_float(IrDtype d) {
  return d == IR_DTYPE_FLOAT16 || d == IR_DTYPE_FLOAT32 || d == IR_DTYPE_FLOAT64;
}

/* A function `dst_t name(from v)` converting a value held as `from` (floating or not). */
static void emit_convert(GString *s, const char *name, const char *from, bool from_float,
                         IrDtype dst) {
  g_string_append_printf(s, "__device__ __forceinline__ dst_t %s(%s v) { return ", name, from);
  switch (dst) {
  case IR_DTYPE_FLOAT16: g_string_append(s, "f2h((float)v)"); break;
  case IR_DTYPE_FLOAT32: g_string_append(s, "(float)v"); break;
  case IR_DTYPE_FLOAT64: g_string_append(s, "(double)v"); break;
  case IR_DTYPE_INT64: g_string_append(s, from_float ? "to_i64((double)v)" : "(i64)v"); break;
  default: g_string_append(s, "v != 0"); break;
  }
  g_string_append(s, "; }\n");
}

static const char prelude[] =
    "typedef long long i64;\n"
    "#define MAXD %d\n"
    "#ifdef __CUDA_ARCH__\n" /* a host compilation (tests/cudaemu) brings its own h2f, f2h */
    "__device__ __forceinline__ float h2f(unsigned short h) {\n"
    "  float f;\n"
    "  asm(\"{ cvt.f32.f16 %%0, %%1; }\\n\" : \"=f\"(f) : \"h\"(h));\n"
    "  return f;\n"
    "}\n"
    "__device__ __forceinline__ unsigned short f2h(float f) {\n"
    "  unsigned short h;\n"
    "  asm(\"{ cvt.rn.f16.f32 %%0, %%1; }\\n\" : \"=h\"(h) : \"f\"(f));\n"
    "  return h;\n"
    "}\n"
    "#endif\n"
    "__device__ __forceinline__ i64 to_i64(double x) {\n"
    "  return (x >= -9223372036854775808.0 && x < 9223372036854775808.0)\n"
    "             ? (i64)x : (i64)0x8000000000000000ULL;\n"
    "}\n"
    "__device__ __forceinline__ i64 offset_of(i64 linear, int n, const i64 *sizes,\n"
    "                                         const i64 *strides) {\n"
    "  i64 off = 0;\n"
    "  for (int d = n - 1; d >= 0; d--) {\n"
    "    off += (linear %% sizes[d]) * strides[d];\n"
    "    linear /= sizes[d];\n"
    "  }\n"
    "  return off;\n"
    "}\n"
    "typedef %s src_t;\n"
    "typedef %s dst_t;\n"
    "__device__ __forceinline__ %s load(const src_t *p) { return %s; }\n";

static const char copy_body[] =
    "struct CopyGeometry {\n"
    "  int ndim;\n"
    "  i64 sizes[MAXD];\n"
    "  i64 src_strides[MAXD];\n"
    "  i64 dst_strides[MAXD];\n"
    "};\n"
    "extern \"C\" __global__ void %s(i64 numel, CopyGeometry g, const src_t *src, dst_t *dst) {\n"
    "  for (i64 linear = blockIdx.x * (i64)blockDim.x + threadIdx.x; linear < numel;\n"
    "       linear += (i64)gridDim.x * blockDim.x) {\n"
    "    i64 rest = linear, so = 0, doff = 0;\n"
    "    for (int d = g.ndim - 1; d >= 0; d--) {\n"
    "      i64 i = rest %% g.sizes[d];\n"
    "      rest /= g.sizes[d];\n"
    "      so += i * g.src_strides[d];\n"
    "      doff += i * g.dst_strides[d];\n"
    "    }\n"
    "    dst[doff] = convert(load(src + so));\n"
    "  }\n"
    "}\n";

static const char sum_body[] =
    "struct ReduceGeometry {\n"
    "  int nk, nr;\n"
    "  i64 ksizes[MAXD], kstrides[MAXD];\n"
    "  i64 rsizes[MAXD], rstrides[MAXD];\n"
    "};\n"
    "extern \"C\" __global__ void %s_block(i64 n_out, i64 r, ReduceGeometry g,\n"
    "                                      const src_t *src, dst_t *dst) {\n"
    "  __shared__ acc_t partial[%d];\n"
    "  for (i64 o = blockIdx.x; o < n_out; o += gridDim.x) {\n"
    "    const src_t *base = src + offset_of(o, g.nk, g.ksizes, g.kstrides);\n"
    "    acc_t acc = 0;\n"
    "    for (i64 j = threadIdx.x; j < r; j += blockDim.x)\n"
    "      acc += (acc_t)load(base + offset_of(j, g.nr, g.rsizes, g.rstrides));\n"
    "    partial[threadIdx.x] = acc;\n"
    "    __syncthreads();\n"
    "    for (int s = blockDim.x / 2; s > 0; s >>= 1) {\n"
    "      if (threadIdx.x < s)\n"
    "        partial[threadIdx.x] += partial[threadIdx.x + s];\n"
    "      __syncthreads();\n"
    "    }\n"
    "    if (threadIdx.x == 0)\n"
    "      dst[o] = convert(partial[0]);\n"
    "    __syncthreads();\n"
    "  }\n"
    "}\n"
    "extern \"C\" __global__ void %s_thread(i64 n_out, i64 r, ReduceGeometry g,\n"
    "                                       const src_t *src, dst_t *dst) {\n"
    "  for (i64 o = blockIdx.x * (i64)blockDim.x + threadIdx.x; o < n_out;\n"
    "       o += (i64)gridDim.x * blockDim.x) {\n"
    "    const src_t *base = src + offset_of(o, g.nk, g.ksizes, g.kstrides);\n"
    "    acc_t acc = 0;\n"
    "    for (i64 j = 0; j < r; j++)\n"
    "      acc += (acc_t)load(base + offset_of(j, g.nr, g.rsizes, g.rstrides));\n"
    "    dst[o] = convert(acc);\n"
    "  }\n"
    "}\n";

char *cuda_rt_kernel_source(CudaRtKernelKind kind, IrDtype src, IrDtype dst, const char *name) {
  GString *s =
      g_string_new(kind == CUDA_RT_COPY ? "// jitscope: CUDA runtime kernel (strided copy)\n"
                                        : "// jitscope: CUDA runtime kernel (sum over dims)\n");
  g_string_append_printf(s, prelude, RT_MAX_DIMS, storage_type(src), storage_type(dst),
                         value_type(src), src == IR_DTYPE_FLOAT16 ? "h2f(*p)" : "*p");
  if (kind == CUDA_RT_COPY) {
    emit_convert(s, "convert", value_type(src), is_float(src), dst);
    g_string_append_printf(s, copy_body, name);
  } else {
    bool float_acc = is_float(src);
    g_string_append_printf(s, "typedef %s acc_t;\n", float_acc ? "double" : "i64");
    emit_convert(s, "convert", "acc_t", float_acc, dst);
    g_string_append_printf(s, sum_body, name, SUM_BLOCK, name);
  }
  return g_string_free(s, FALSE);
}

/* --- the cache --- */

typedef struct {
  char *name;
  CudaCompileResult *compiled;
  CudaModule module;
  CudaFunction fn[2]; /* copy: [0]; sum: [0] block, [1] thread */
} RtKernel;

static GMutex cache_lock;
static GHashTable *cache; /* "copy float32 float64" -> RtKernel* */

static RtKernel *kernel_get(CudaRtKernelKind kind, IrDtype src, IrDtype dst, GError **error) {
  if (!cuda_rt_dtype_supported(src) || !cuda_rt_dtype_supported(dst)) {
    g_set_error(error, JITSCOPE_CUDA_ERROR, CUDA_ERROR_ARGUMENT,
                "the CUDA runtime kernels do not take %s -> %s", ir_dtype_name(src),
                ir_dtype_name(dst));
    return NULL;
  }
  g_autofree char *key = g_strdup_printf("%s %s %s", kind == CUDA_RT_COPY ? "copy" : "sum",
                                         ir_dtype_name(src), ir_dtype_name(dst));
  g_mutex_lock(&cache_lock);
  if (cache == NULL)
    cache = g_hash_table_new(g_str_hash, g_str_equal);
  RtKernel *k = g_hash_table_lookup(cache, key);
  if (k) {
    g_mutex_unlock(&cache_lock);
    return k;
  }
  g_autofree char *arch = cuda_compile_resolve_arch(NULL, error);
  CudaCompileResult *c = NULL;
  g_autofree char *name =
      g_strdup_printf("jitscope_%s_%s_%s", kind == CUDA_RT_COPY ? "copy" : "sum",
                      ir_dtype_name(src), ir_dtype_name(dst));
  if (arch) {
    g_autofree char *source = cuda_rt_kernel_source(kind, src, dst, name);
    c = cuda_compile_ptx(source, name, arch, error);
  }
  if (c == NULL) {
    g_mutex_unlock(&cache_lock);
    return NULL;
  }
  k = g_new0(RtKernel, 1);
  k->name = g_steal_pointer(&name);
  k->compiled = c;
  g_hash_table_insert(cache, g_steal_pointer(&key), k);
  g_mutex_unlock(&cache_lock);
  return k;
}

const CudaCompileResult *cuda_rt_kernel_compile(CudaRtKernelKind kind, IrDtype src, IrDtype dst,
                                                GError **error) {
  RtKernel *k = kernel_get(kind, src, dst, error);
  return k ? k->compiled : NULL;
}

/* The loaded functions (call between cuda_runtime_begin and end). */
static bool kernel_functions(CudaRtKernelKind kind, IrDtype src, IrDtype dst, CudaFunction *fn,
                             GError **error) {
  RtKernel *k = kernel_get(kind, src, dst, error);
  if (k == NULL)
    return false;
  if (!k->compiled->ok) {
    g_set_error(error, JITSCOPE_CUDA_ERROR, CUDA_ERROR_COMPILE, "nvrtc failed for %s: %s", k->name,
                k->compiled->log);
    return false;
  }
  const CudaStatus *s = cuda_loader_get();
  g_mutex_lock(&cache_lock);
  bool ok = true;
  if (k->module == NULL) {
    CudaModule m = NULL;
    ok = cuda_check(s->cu.cuModuleLoadData(&m, k->compiled->ptx), "cuModuleLoadData", error);
    char *names[2] = {kind == CUDA_RT_COPY ? g_strdup(k->name)
                                           : g_strdup_printf("%s_block", k->name),
                      kind == CUDA_RT_COPY ? NULL : g_strdup_printf("%s_thread", k->name)};
    for (int i = 0; ok && i < 2 && names[i]; i++)
      ok = cuda_check(s->cu.cuModuleGetFunction(&k->fn[i], m, names[i]), "cuModuleGetFunction",
                      error);
    g_free(names[0]);
    g_free(names[1]);
    if (ok)
      k->module = m;
    else if (m)
      s->cu.cuModuleUnload(m);
  }
  fn[0] = k->fn[0];
  fn[1] = k->fn[1];
  g_mutex_unlock(&cache_lock);
  return ok;
}

static guint grid_for(int64_t work, guint block) {
  int64_t g = (work + block - 1) / block;
  return (guint)CLAMP(g, 1, 65535 * 16);
}

/* --- copies --- */

typedef struct {
  int ndim;
  int64_t sizes[RT_MAX_DIMS];
  int64_t src_strides[RT_MAX_DIMS];
  int64_t dst_strides[RT_MAX_DIMS];
} CopyGeometry;

static bool check_device(const RtTensor *t, const char *what, GError **error) {
  if (t->storage->device == IR_DEVICE_CUDA && t->storage->free_fn != NULL)
    return true;
  g_set_error(error, JITSCOPE_CUDA_ERROR, CUDA_ERROR_ARGUMENT, "%s is not a CUDA tensor", what);
  return false;
}

bool cuda_copy_into(RtTensor *dst, const RtTensor *src, GError **error) {
  if (!check_device(dst, "the copy's destination", error) ||
      !check_device(src, "the copy's source", error))
    return false;
  g_autoptr(GError) local = NULL;
  RtTensor *view = rt_tensor_view_expand((RtTensor *)src, dst->ndim, dst->sizes, &local);
  if (view == NULL) {
    g_set_error(error, JITSCOPE_RUNTIME_ERROR, RT_ERROR_SHAPE, "copy: %s", local->message);
    return false;
  }
  CopyGeometry g = {0};
  int64_t numel = rt_tensor_numel(dst);
  /* Size-1 dims are dropped (their index is always 0). */
  for (int d = 0; d < dst->ndim; d++) {
    if (dst->sizes[d] == 1)
      continue;
    g.sizes[g.ndim] = dst->sizes[d];
    g.src_strides[g.ndim] = view->strides[d];
    g.dst_strides[g.ndim] = dst->strides[d];
    g.ndim++;
  }
  CudaDevicePtr sp = cuda_tensor_ptr(view), dp = cuda_tensor_ptr(dst);
  rt_tensor_unref(view);
  if (numel == 0)
    return true;
  CudaFunction fn[2];
  if (!cuda_runtime_begin(error))
    return false;
  bool ok = kernel_functions(CUDA_RT_COPY, src->dtype, dst->dtype, fn, error);
  if (ok) {
    void *params[] = {&numel, &g, &sp, &dp};
    ok = cuda_runtime_launch(fn[0], grid_for(numel, COPY_BLOCK), COPY_BLOCK, 0, params, error);
  }
  cuda_runtime_end();
  return ok;
}

RtTensor *cuda_to_dtype(RtTensor *t, IrDtype dtype, GError **error) {
  RtTensor *out = cuda_tensor_empty(dtype, t->ndim, t->sizes, error);
  if (out && !cuda_copy_into(out, t, error))
    g_clear_pointer(&out, rt_tensor_unref);
  return out;
}

RtTensor *cuda_contiguous(RtTensor *t, GError **error) {
  if (rt_tensor_is_contiguous(t))
    return rt_tensor_ref(t);
  return cuda_to_dtype(t, t->dtype, error);
}

RtTensor *cuda_full(IrDtype dtype, int ndim, const int64_t *sizes, double value, GError **error) {
  RtTensor *one = rt_tensor_scalar(dtype, value);
  RtTensor *src = cuda_tensor_from_host(one, error);
  rt_tensor_unref(one);
  if (src == NULL)
    return NULL;
  RtTensor *out = cuda_tensor_empty(dtype, ndim, sizes, error);
  if (out && !cuda_copy_into(out, src, error))
    g_clear_pointer(&out, rt_tensor_unref);
  rt_tensor_unref(src);
  return out;
}

/* --- sums --- */

typedef struct {
  int nk, nr;
  int64_t ksizes[RT_MAX_DIMS], kstrides[RT_MAX_DIMS];
  int64_t rsizes[RT_MAX_DIMS], rstrides[RT_MAX_DIMS];
} ReduceGeometry;

RtTensor *cuda_sum_dims(RtTensor *t, const bool *reduce, bool keepdim, IrDtype out_dtype,
                        GError **error) {
  if (!check_device(t, "the sum's input", error))
    return NULL;
  ReduceGeometry g = {0};
  int64_t out_sizes[RT_MAX_DIMS], n_out = 1, r = 1;
  int out_ndim = 0;
  for (int d = 0; d < t->ndim; d++) {
    if (reduce[d]) {
      if (keepdim)
        out_sizes[out_ndim++] = 1;
      r *= t->sizes[d];
      if (t->sizes[d] != 1) {
        g.rsizes[g.nr] = t->sizes[d];
        g.rstrides[g.nr++] = t->strides[d];
      }
    } else {
      out_sizes[out_ndim++] = t->sizes[d];
      n_out *= t->sizes[d];
      if (t->sizes[d] != 1) {
        g.ksizes[g.nk] = t->sizes[d];
        g.kstrides[g.nk++] = t->strides[d];
      }
    }
  }
  /* A sum over zero elements is 0. */
  if (n_out > 0 && r == 0)
    return cuda_full(out_dtype, out_ndim, out_sizes, 0.0, error);
  RtTensor *out = cuda_tensor_empty(out_dtype, out_ndim, out_sizes, error);
  if (out == NULL || n_out == 0)
    return out;
  CudaFunction fn[2];
  if (!cuda_runtime_begin(error)) {
    rt_tensor_unref(out);
    return NULL;
  }
  bool ok = kernel_functions(CUDA_RT_SUM, t->dtype, out_dtype, fn, error);
  if (ok) {
    CudaDevicePtr sp = cuda_tensor_ptr(t), dp = cuda_tensor_ptr(out);
    void *params[] = {&n_out, &r, &g, &sp, &dp};
    if (r <= SMALL_REDUCTION)
      ok = cuda_runtime_launch(fn[1], grid_for(n_out, 128), 128, 0, params, error);
    else
      ok = cuda_runtime_launch(fn[0], (guint)MIN(n_out, 65535 * 16), SUM_BLOCK, 0, params, error);
  }
  cuda_runtime_end();
  if (!ok)
    g_clear_pointer(&out, rt_tensor_unref);
  return out;
}

RtTensor *cuda_sum_to(RtTensor *t, int ndim, const int64_t *sizes, GError **error) {
  int lead = t->ndim - ndim;
  bool same = lead == 0;
  bool reduce[RT_MAX_DIMS] = {0};
  bool fits = lead >= 0;
  for (int d = 0; fits && d < t->ndim; d++) {
    if (d < lead) {
      reduce[d] = true;
      continue;
    }
    int64_t want = sizes[d - lead];
    if (want == t->sizes[d])
      continue;
    fits = want == 1;
    reduce[d] = true;
    same = false;
  }
  if (!fits) {
    g_autofree char *from = rt_shape_to_string(t->ndim, t->sizes);
    g_autofree char *to = rt_shape_to_string(ndim, sizes);
    g_set_error(error, JITSCOPE_RUNTIME_ERROR, RT_ERROR_SHAPE,
                "size %s is not expandable to size %s", to, from);
    return NULL;
  }
  if (same)
    return rt_tensor_ref(t);
  /* keepdim for the trailing dims, then the leading ones dropped by a view. */
  RtTensor *kept = cuda_sum_dims(t, reduce, true, t->dtype, error);
  if (kept == NULL)
    return NULL;
  int64_t strides[RT_MAX_DIMS];
  rt_contiguous_strides(ndim, sizes, strides);
  RtTensor *out = rt_tensor_new_strided(kept->storage, kept->dtype, ndim, sizes, strides, 0);
  rt_tensor_unref(kept);
  return out;
}
