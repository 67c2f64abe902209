/* nvrtc compilation and the two-level kernel cache (contract in cuda_compile.h). */
#include "cuda/cuda_compile.h"

#include <stdlib.h>
#include <string.h>

static bool arch_supported(const CudaStatus *s, int arch) {
  if (s->nvrtc_archs->len == 0)
    return true;
  for (guint i = 0; i < s->nvrtc_archs->len; i++)
    if (g_array_index(s->nvrtc_archs, int, i) == arch)
      return true;
  return false;
}

static int parse_arch(const char *text) {
  const char *p = text;
  if (g_str_has_prefix(p, "sm_"))
    p += 3;
  else if (g_str_has_prefix(p, "compute_"))
    p += 8;
  char *end;
  long v = strtol(p, &end, 10);
  if (end == p || (*end != '\0' && !(g_ascii_isalpha(*end) && end[1] == '\0')) || v < 10 ||
      v > 1000)
    return -1;
  return (int)v;
}

char *cuda_compile_resolve_arch(const char *requested, GError **error) {
  const CudaStatus *s = cuda_loader_get();
  GArray *archs = s->nvrtc_archs;
  int arch;
  if (requested) {
    arch = parse_arch(requested);
    if (arch < 0) {
      g_set_error(error, JITSCOPE_CUDA_ERROR, CUDA_ERROR_ARGUMENT,
                  "'%s' is not a CUDA arch (expected sm_XY, e.g. sm_90)", requested);
      return NULL;
    }
    if (!arch_supported(s, arch)) {
      g_set_error(error, JITSCOPE_CUDA_ERROR, CUDA_ERROR_ARGUMENT,
                  "nvrtc %d.%d cannot compile for sm_%d (it supports sm_%d to sm_%d)",
                  s->nvrtc_major, s->nvrtc_minor, arch, g_array_index(archs, int, 0),
                  g_array_index(archs, int, archs->len - 1));
      return NULL;
    }
  } else if (s->device_present) {
    arch = s->cc_major * 10 + s->cc_minor;
    if (archs->len && arch > g_array_index(archs, int, archs->len - 1))
      arch = g_array_index(archs, int, archs->len - 1);
  } else {
    arch = archs->len ? g_array_index(archs, int, 0) : 52;
  }
  return g_strdup_printf("compute_%d", arch);
}

static char *nvrtc_describe(const CudaStatus *s, NvrtcResult r) {
  const char *text = s->nvrtc_api.nvrtcGetErrorString ? s->nvrtc_api.nvrtcGetErrorString(r) : NULL;
  return text ? g_strdup(text) : g_strdup_printf("nvrtc error %d", r);
}

CudaCompileResult *cuda_compile_ptx(const char *source, const char *name, const char *arch,
                                    GError **error) {
  const CudaStatus *s = cuda_loader_get();
  if (!s->nvrtc.loaded) {
    g_set_error(error, JITSCOPE_CUDA_ERROR, CUDA_ERROR_UNAVAILABLE, "nvrtc did not load: %s",
                s->nvrtc.error);
    return NULL;
  }
  const CudaNvrtcApi *n = &s->nvrtc_api;
  NvrtcProgram prog = NULL;
  g_autofree char *file = g_strdup_printf("%s.cu", name);
  NvrtcResult r = n->nvrtcCreateProgram(&prog, source, file, 0, NULL, NULL);
  if (r != 0) {
    g_autofree char *why = nvrtc_describe(s, r);
    g_set_error(error, JITSCOPE_CUDA_ERROR, CUDA_ERROR_UNAVAILABLE, "nvrtcCreateProgram: %s", why);
    return NULL;
  }
  CudaCompileResult *res = g_new0(CudaCompileResult, 1);
  res->arch = g_strdup(arch);
  g_autofree char *arch_opt = g_strdup_printf("--gpu-architecture=%s", arch);
  const char *options[] = {"--std=c++14", arch_opt, "-default-device"};
  gint64 t0 = g_get_monotonic_time();
  r = n->nvrtcCompileProgram(prog, G_N_ELEMENTS(options), options);
  res->ms = (double)(g_get_monotonic_time() - t0) / 1000.0;
  size_t log_size = 0;
  if (n->nvrtcGetProgramLogSize(prog, &log_size) == 0 && log_size > 1) {
    res->log = g_malloc0(log_size + 1);
    if (n->nvrtcGetProgramLog(prog, res->log) != 0)
      res->log[0] = '\0';
  } else {
    res->log = g_strdup("");
  }
  if (r == 0) {
    size_t ptx_size = 0;
    if (n->nvrtcGetPTXSize(prog, &ptx_size) == 0 && ptx_size > 0) {
      res->ptx = g_malloc0(ptx_size + 1);
      if (n->nvrtcGetPTX(prog, res->ptx) == 0) {
        res->ok = true;
        res->ptx_bytes = strlen(res->ptx);
      }
    }
    if (!res->ok) {
      g_clear_pointer(&res->ptx, g_free);
      char *log = g_strconcat(res->log, "nvrtc compiled the program but gave no PTX\n", NULL);
      g_free(res->log);
      res->log = log;
    }
  } else if (res->log[0] == '\0') {
    g_free(res->log);
    g_autofree char *why = nvrtc_describe(s, r);
    res->log = g_strdup_printf("%s\n", why);
  }
  n->nvrtcDestroyProgram(&prog);
  return res;
}

void cuda_compile_result_free(CudaCompileResult *r) {
  if (r == NULL)
    return;
  g_free(r->arch);
  g_free(r->log);
  g_free(r->ptx);
  g_free(r);
}

/* --- the cache --- */

typedef struct {
  char *canonical;
  GHashTable *kernels; /* key -> CudaKernelEntry* */
} CudaGroupSpec;

static GMutex cache_lock;
static GHashTable *cache_groups; /* canonical text -> CudaGroupSpec* */
static guint cache_n_kernels, cache_hits;

static guint32 fnv1a(const char *s) {
  guint32 h = 2166136261u;
  for (; *s; s++)
    h = (h ^ (guint8)*s) * 16777619u;
  return h;
}

char *cuda_compile_signature_key(guint n_in, const IrDtype *in_dtypes, const guint *in_ndims,
                                 guint n_out, const guint *out_ndims, const char *arch) {
  GString *k = g_string_new(NULL);
  for (guint i = 0; i < n_in; i++)
    g_string_append_printf(k, "%s%s/%u", i ? " " : "", ir_dtype_name(in_dtypes[i]), in_ndims[i]);
  g_string_append(k, " ->");
  for (guint o = 0; o < n_out; o++)
    g_string_append_printf(k, " %u", out_ndims[o]);
  g_string_append_printf(k, " @%s", arch);
  return g_string_free(k, FALSE);
}

char *cuda_compile_kernel_name(const char *canonical, const char *key) {
  return g_strdup_printf("jitscope_fused_%08x_%08x", fnv1a(canonical), fnv1a(key));
}

static void entry_free(gpointer p) {
  CudaKernelEntry *e = p;
  g_free(e->key);
  kernel_source_free(e->kernel);
  cuda_compile_result_free(e->compiled);
  g_free(e);
}

static CudaGroupSpec *group_spec(const IrGraph *graph) {
  g_autofree char *canonical = cuda_codegen_canonical_text(graph);
  if (cache_groups == NULL)
    cache_groups = g_hash_table_new(g_str_hash, g_str_equal);
  CudaGroupSpec *spec = g_hash_table_lookup(cache_groups, canonical);
  if (spec)
    return spec;
  spec = g_new0(CudaGroupSpec, 1);
  spec->canonical = g_steal_pointer(&canonical);
  spec->kernels = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, entry_free);
  g_hash_table_insert(cache_groups, spec->canonical, spec);
  return spec;
}

CudaKernelEntry *cuda_kernel_cache_get(const IrGraph *graph, const IrDtype *input_dtypes,
                                       const guint *input_ndims, const guint *output_ndims,
                                       const char *arch, GError **error) {
  guint n_in = cuda_codegen_n_tensor_inputs(graph);
  guint n_out = ir_graph_outputs(graph)->len;
  g_autofree char *key =
      cuda_compile_signature_key(n_in, input_dtypes, input_ndims, n_out, output_ndims, arch);
  g_mutex_lock(&cache_lock);
  CudaGroupSpec *spec = group_spec(graph);
  CudaKernelEntry *e = g_hash_table_lookup(spec->kernels, key);
  if (e) {
    cache_hits++;
    g_mutex_unlock(&cache_lock);
    return e;
  }
  /* Generating and compiling under the lock keeps one compilation per key; nvrtc takes
   * milliseconds and runs only on a miss. */
  g_autofree char *name = cuda_compile_kernel_name(spec->canonical, key);
  CudaKernelSource *k =
      cuda_codegen_kernel(graph, name, input_dtypes, input_ndims, output_ndims, error);
  CudaCompileResult *c = k ? cuda_compile_ptx(k->source, k->name, arch, error) : NULL;
  if (c == NULL) {
    g_mutex_unlock(&cache_lock);
    kernel_source_free(k);
    return NULL;
  }
  e = g_new0(CudaKernelEntry, 1);
  e->key = g_steal_pointer(&key);
  e->kernel = k;
  e->compiled = c;
  g_hash_table_insert(spec->kernels, e->key, e);
  cache_n_kernels++;
  g_mutex_unlock(&cache_lock);
  return e;
}

void cuda_kernel_cache_stats(guint *groups, guint *kernels, guint *hits) {
  g_mutex_lock(&cache_lock);
  if (groups)
    *groups = cache_groups ? g_hash_table_size(cache_groups) : 0;
  if (kernels)
    *kernels = cache_n_kernels;
  if (hits)
    *hits = cache_hits;
  g_mutex_unlock(&cache_lock);
}
