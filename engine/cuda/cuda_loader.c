/* Loading CUDA at run time (contract in cuda_loader.h). */
#include "cuda/cuda_loader.h"

#include <dlfcn.h>
#include <stddef.h>
#include <string.h>

#define CUDA_TOOLKIT_LIBDIR "/usr/local/cuda/lib64"

typedef struct {
  const char *label;          /* "libnvrtc.so" for messages */
  const char *const *names;   /* exact file names, tried in order */
  const char *versioned;      /* prefix of versioned names to look for in folders, or NULL */
  const char *const *exclude; /* substrings that disqualify a versioned name */
  bool toolkit_dir;           /* also look in /usr/local/cuda/lib64 */
} LibSearch;

static gint compare_desc(gconstpointer a, gconstpointer b) {
  return -g_strcmp0(*(const char *const *)a, *(const char *const *)b);
}

/* Versioned names in `dir` starting with `prefix` (e.g. "libnvrtc.so."), newest first. */
static GPtrArray *list_versioned(const char *dir, const char *prefix, const char *const *exclude) {
  GPtrArray *found = g_ptr_array_new_with_free_func(g_free);
  GDir *d = g_dir_open(dir, 0, NULL);
  if (d == NULL)
    return found;
  const char *name;
  while ((name = g_dir_read_name(d)) != NULL) {
    if (!g_str_has_prefix(name, prefix))
      continue;
    bool skip = false;
    for (guint i = 0; exclude && exclude[i]; i++)
      if (strstr(name, exclude[i]))
        skip = true;
    if (!skip)
      g_ptr_array_add(found, g_build_filename(dir, name, NULL));
  }
  g_dir_close(d);
  g_ptr_array_sort(found, compare_desc);
  return found;
}

static void *try_open(const char *what, GString *errors) {
  void *h = dlopen(what, RTLD_NOW | RTLD_LOCAL);
  if (h == NULL) {
    const char *e = dlerror();
    if (errors->len == 0)
      g_string_append(errors, e ? e : what);
  }
  return h;
}

static void *try_dir(const LibSearch *s, const char *dir, GString *errors, char **path) {
  for (guint i = 0; s->names[i]; i++) {
    g_autofree char *p = g_build_filename(dir, s->names[i], NULL);
    if (g_file_test(p, G_FILE_TEST_EXISTS)) {
      void *h = try_open(p, errors);
      if (h) {
        *path = g_steal_pointer(&p);
        return h;
      }
    }
  }
  if (s->versioned == NULL)
    return NULL;
  GPtrArray *found = list_versioned(dir, s->versioned, s->exclude);
  void *h = NULL;
  for (guint i = 0; i < found->len && h == NULL; i++) {
    h = try_open(g_ptr_array_index(found, i), errors);
    if (h)
      *path = g_strdup(g_ptr_array_index(found, i));
  }
  g_ptr_array_unref(found);
  return h;
}

static void *open_library(const LibSearch *s, CudaLibStatus *st) {
  g_autoptr(GString) errors = g_string_new(NULL);
  char *path = NULL;
  void *h = NULL;
  const char *libdir = g_getenv("JITSCOPE_CUDA_LIBDIR");
  if (libdir != NULL) {
    h = try_dir(s, libdir, errors, &path);
    if (h == NULL && errors->len == 0)
      g_string_printf(errors, "%s not found in JITSCOPE_CUDA_LIBDIR=%s", s->label, libdir);
  } else {
    for (guint i = 0; s->names[i] && h == NULL; i++) {
      h = try_open(s->names[i], errors);
      if (h)
        path = g_strdup(s->names[i]);
    }
    if (h == NULL && s->toolkit_dir)
      h = try_dir(s, CUDA_TOOLKIT_LIBDIR, errors, &path);
  }
  if (h) {
    st->loaded = true;
    st->path = path;
  } else {
    st->error = g_strdup(errors->str);
  }
  return h;
}

/* One entry point of a library's API struct: the field, the name to look up and a fallback
 * name (older unversioned symbols), and whether the library is usable without it. */
typedef struct {
  size_t offset;
  const char *first, *second;
  bool optional;
} Symbol;

#define SYMBOL(api, field, first, second, optional) \
  { offsetof(api, field), first, second, optional }

/* Looks up `first`, else `second` (may be NULL); a missing required symbol is appended to
 * `missing`. */
static void *sym(void *h, GString *missing, const Symbol *y) {
  void *p = dlsym(h, y->first);
  if (p == NULL && y->second)
    p = dlsym(h, y->second);
  if (p == NULL && !y->optional) {
    if (missing->len)
      g_string_append(missing, ", ");
    g_string_append(missing, y->first);
  }
  return p;
}

/* Opens the library and fills `api` (of `api_size` bytes) from `symbols`; a library that lacks
 * a required entry point is closed again and reported as not loaded, and `api` zeroed.
 * Returns the handle, or NULL when the library is not usable. */
static void *load_library(const LibSearch *search, const char *label, CudaLibStatus *st, void *api,
                          size_t api_size, const Symbol *symbols, guint n_symbols) {
  void *h = open_library(search, st);
  if (h == NULL)
    return NULL;
  g_autoptr(GString) missing = g_string_new(NULL);
  for (guint i = 0; i < n_symbols; i++)
    *(void **)((char *)api + symbols[i].offset) = sym(h, missing, &symbols[i]);
  if (missing->len) {
    st->loaded = false;
    st->error = g_strdup_printf("%s (%s) lacks entry points: %s", label, st->path, missing->str);
    dlclose(h);
    h = NULL;
    memset(api, 0, api_size);
  }
  return h;
}

#define DRIVER(field) SYMBOL(CudaDriverApi, field, #field, NULL, false),
/* The _v2 entry point where the driver has one, else the original. */
#define DRIVER_V2(field) SYMBOL(CudaDriverApi, field, #field "_v2", #field, false),
#define DRIVER_OPTIONAL(field) SYMBOL(CudaDriverApi, field, #field, NULL, true),

static const Symbol driver_symbols[] = {
#include "cuda/cuda_entry_points.def"
};

#define NVRTC(field) SYMBOL(CudaNvrtcApi, field, #field, NULL, false),
#define NVRTC_OPTIONAL(field) SYMBOL(CudaNvrtcApi, field, #field, NULL, true),

static const Symbol nvrtc_symbols[] = {
#include "cuda/cuda_entry_points.def"
};

/* cuBLAS's v2 API: only the _v2 names exist. */
#define CUBLAS_V2(field) SYMBOL(CudaCublasApi, field, #field "_v2", NULL, false),

static const Symbol cublas_symbols[] = {
#include "cuda/cuda_entry_points.def"
};

static void load_driver(CudaStatus *s) {
  static const char *const names[] = {"libcuda.so.1", NULL};
  static const LibSearch search = {"libcuda.so.1", names, NULL, NULL, false};
  load_library(&search, "the CUDA driver", &s->driver, &s->cu, sizeof s->cu, driver_symbols,
               G_N_ELEMENTS(driver_symbols));
}

static void load_nvrtc(CudaStatus *s) {
  static const char *const names[] = {"libnvrtc.so", NULL};
  static const char *const exclude[] = {"builtins", "alt", NULL};
  static const LibSearch search = {"libnvrtc.so", names, "libnvrtc.so.", exclude, true};
  CudaNvrtcApi *n = &s->nvrtc_api;
  if (!load_library(&search, "nvrtc", &s->nvrtc, n, sizeof *n, nvrtc_symbols,
                    G_N_ELEMENTS(nvrtc_symbols)))
    return;
  n->nvrtcVersion(&s->nvrtc_major, &s->nvrtc_minor);
  int count = 0;
  if (n->nvrtcGetNumSupportedArchs && n->nvrtcGetSupportedArchs &&
      n->nvrtcGetNumSupportedArchs(&count) == 0 && count > 0 && count < 1024) {
    g_autofree int *archs = g_new0(int, count);
    if (n->nvrtcGetSupportedArchs(archs) == 0)
      g_array_append_vals(s->nvrtc_archs, archs, (guint)count);
  }
}

static void load_cublas(CudaStatus *s) {
  static const char *const names[] = {"libcublas.so", NULL};
  static const char *const exclude[] = {"Lt", NULL};
  static const LibSearch search = {"libcublas.so", names, "libcublas.so.", exclude, true};
  load_library(&search, "cuBLAS", &s->cublas, &s->cublas_api, sizeof s->cublas_api, cublas_symbols,
               G_N_ELEMENTS(cublas_symbols));
}

char *cuda_result_describe(const CudaStatus *status, CudaResult result) {
  const char *name = NULL, *text = NULL;
  if (status->cu.cuGetErrorName && status->cu.cuGetErrorName(result, &name) != 0)
    name = NULL;
  if (status->cu.cuGetErrorString && status->cu.cuGetErrorString(result, &text) != 0)
    text = NULL;
  if (name && text)
    return g_strdup_printf("%s: %s", name, text);
  return g_strdup_printf("CUDA error %d", result);
}

static void probe_device(CudaStatus *s) {
  if (!s->driver.loaded) {
    s->device_error = g_strdup("the CUDA driver did not load");
    return;
  }
  const CudaDriverApi *cu = &s->cu;
  cu->cuDriverGetVersion(&s->driver_version);
  CudaResult r = cu->cuInit(0);
  if (r != 0) {
    g_autofree char *why = cuda_result_describe(s, r);
    s->device_error = g_strdup_printf("cuInit failed: %s", why);
    return;
  }
  r = cu->cuDeviceGetCount(&s->device_count);
  if (r != 0 || s->device_count == 0) {
    s->device_error = g_strdup("the driver reports no CUDA device");
    return;
  }
  if ((r = cu->cuDeviceGet(&s->device, 0)) != 0 ||
      (r = cu->cuDeviceGetName(s->device_name, sizeof s->device_name - 1, s->device)) != 0 ||
      (r = cu->cuDeviceGetAttribute(&s->cc_major, CUDA_ATTR_COMPUTE_CAPABILITY_MAJOR, s->device)) !=
          0 ||
      (r = cu->cuDeviceGetAttribute(&s->cc_minor, CUDA_ATTR_COMPUTE_CAPABILITY_MINOR, s->device)) !=
          0 ||
      (r = cu->cuDeviceGetAttribute(&s->sm_count, CUDA_ATTR_MULTIPROCESSOR_COUNT, s->device)) !=
          0 ||
      (r = cu->cuDeviceTotalMem(&s->total_mem, s->device)) != 0 ||
      (r = cu->cuDevicePrimaryCtxRetain(&s->context, s->device)) != 0) {
    g_autofree char *why = cuda_result_describe(s, r);
    s->device_error = g_strdup_printf("device 0 is not usable: %s", why);
    return;
  }
  int pools = 0;
  if (cu->cuDeviceGetAttribute(&pools, CUDA_ATTR_MEMORY_POOLS_SUPPORTED, s->device) == 0)
    s->memory_pools = pools != 0;
  s->device_present = true;
}

static gpointer load_all(gpointer data) {
  CudaStatus *s = g_new0(CudaStatus, 1);
  s->nvrtc_archs = g_array_new(FALSE, FALSE, sizeof(int));
  load_driver(s);
  load_nvrtc(s);
  load_cublas(s);
  probe_device(s);
  return s;
}

const CudaStatus *cuda_loader_get(void) {
  static GOnce once = G_ONCE_INIT;
  g_once(&once, load_all, NULL);
  return once.retval;
}

bool cuda_loader_make_current(GError **error) {
  const CudaStatus *s = cuda_loader_get();
  if (!s->device_present) {
    g_set_error(error, JITSCOPE_CUDA_ERROR, CUDA_ERROR_UNAVAILABLE, "no CUDA device: %s",
                s->device_error);
    return false;
  }
  CudaResult r = s->cu.cuCtxSetCurrent(s->context);
  if (r != 0) {
    g_autofree char *why = cuda_result_describe(s, r);
    g_set_error(error, JITSCOPE_CUDA_ERROR, CUDA_ERROR_DRIVER, "cuCtxSetCurrent: %s", why);
    return false;
  }
  return true;
}

static void describe_lib(GString *out, const char *label, const CudaLibStatus *lib) {
  if (lib->loaded)
    g_string_append_printf(out, "%s: loaded from %s", label, lib->path);
  else
    g_string_append_printf(out, "%s: not loaded (%s)", label, lib->error);
}

void cuda_status_describe(GString *out, const CudaStatus *s) {
  describe_lib(out, "cuda driver", &s->driver);
  if (s->driver.loaded && s->driver_version)
    g_string_append_printf(out, ", version %d.%d", s->driver_version / 1000,
                           s->driver_version % 1000 / 10);
  g_string_append_c(out, '\n');
  describe_lib(out, "nvrtc", &s->nvrtc);
  if (s->nvrtc.loaded) {
    g_string_append_printf(out, ", version %d.%d", s->nvrtc_major, s->nvrtc_minor);
    if (s->nvrtc_archs->len)
      g_string_append_printf(out, ", archs sm_%d..sm_%d", g_array_index(s->nvrtc_archs, int, 0),
                             g_array_index(s->nvrtc_archs, int, s->nvrtc_archs->len - 1));
  }
  g_string_append_c(out, '\n');
  describe_lib(out, "cublas", &s->cublas);
  g_string_append_c(out, '\n');
  if (s->device_present)
    g_string_append_printf(out, "cuda device: %s (sm_%d%d, %d SMs, %zu MiB)", s->device_name,
                           s->cc_major, s->cc_minor, s->sm_count, s->total_mem >> 20);
  else
    g_string_append_printf(out, "cuda device: none (%s)", s->device_error);
  g_string_append_c(out, '\n');
}

char *cuda_status_unavailable_reason(const CudaStatus *s) {
  if (!s->driver.loaded && !s->nvrtc.loaded)
    return g_strdup_printf("CUDA is not available: the driver did not load (%s) and nvrtc did "
                           "not load (%s); fusion groups run on the CPU",
                           s->driver.error, s->nvrtc.error);
  if (!s->driver.loaded)
    return g_strdup_printf("CUDA is not available: the driver did not load (%s); fusion groups "
                           "run on the CPU",
                           s->driver.error);
  if (!s->device_present)
    return g_strdup_printf("CUDA is not available: %s; fusion groups run on the CPU",
                           s->device_error);
  if (!s->nvrtc.loaded)
    return g_strdup_printf("CUDA kernels cannot be compiled: nvrtc did not load (%s); fusion "
                           "groups run on the CPU",
                           s->nvrtc.error);
  return NULL;
}

char *cuda_loader_take_unavailable_note(void) {
  static gint said = 0;
  g_autofree char *why = cuda_status_unavailable_reason(cuda_loader_get());
  if (why == NULL || !g_atomic_int_compare_and_exchange(&said, 0, 1))
    return NULL;
  return g_steal_pointer(&why);
}
