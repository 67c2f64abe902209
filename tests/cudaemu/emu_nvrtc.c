/* An nvrtc for tests without a GPU (libnvrtc.so of the CUDA emulator, see emu_driver.c): it
 * compiles a CUDA source for the host with the system C++ compiler, behind emu_prelude.hpp,
 * into a shared object, plus one host wrapper per `extern "C" __global__` kernel that unpacks
 * cuLaunchKernel's parameter array. The "PTX" it hands back is a line naming that object
 * (cudaemu.h), which the emulated cuModuleLoadData opens.
 *
 * JITSCOPE_CUDAEMU_CXX names the compiler (default c++); JITSCOPE_CUDAEMU_CXXFLAGS adds flags
 * (the tests pass -fsanitize=undefined in sanitized builds). */
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>

#include "cudaemu.h"

typedef int nvrtcResult;
enum {
  NVRTC_SUCCESS = 0,
  NVRTC_ERROR_OUT_OF_MEMORY = 1,
  NVRTC_ERROR_INVALID_INPUT = 3,
  NVRTC_ERROR_INVALID_PROGRAM = 4,
  NVRTC_ERROR_INVALID_OPTION = 5,
  NVRTC_ERROR_COMPILATION = 6,
};

typedef struct {
  char *source, *name;
  char *log;
  char *image; /* NULL until compiled */
} Program;

static const int supported_archs[] = {75, 80, 86, 87, 89, 90, 100, 120};

static char *work_dir;
static gint next_program;
static GMutex dir_lock;

nvrtcResult nvrtcVersion(int *major, int *minor) {
  *major = CUDAEMU_NVRTC_MAJOR;
  *minor = CUDAEMU_NVRTC_MINOR;
  return NVRTC_SUCCESS;
}

const char *nvrtcGetErrorString(nvrtcResult result) {
  switch (result) {
  case NVRTC_SUCCESS: return "NVRTC_SUCCESS";
  case NVRTC_ERROR_OUT_OF_MEMORY: return "NVRTC_ERROR_OUT_OF_MEMORY";
  case NVRTC_ERROR_INVALID_INPUT: return "NVRTC_ERROR_INVALID_INPUT";
  case NVRTC_ERROR_INVALID_PROGRAM: return "NVRTC_ERROR_INVALID_PROGRAM";
  case NVRTC_ERROR_INVALID_OPTION: return "NVRTC_ERROR_INVALID_OPTION";
  case NVRTC_ERROR_COMPILATION: return "NVRTC_ERROR_COMPILATION";
  default: return "NVRTC_ERROR unknown";
  }
}

nvrtcResult nvrtcGetNumSupportedArchs(int *n) {
  *n = (int)G_N_ELEMENTS(supported_archs);
  return NVRTC_SUCCESS;
}

nvrtcResult nvrtcGetSupportedArchs(int *archs) {
  memcpy(archs, supported_archs, sizeof supported_archs);
  return NVRTC_SUCCESS;
}

nvrtcResult nvrtcCreateProgram(Program **prog, const char *src, const char *name, int n_headers,
                               const char *const *headers, const char *const *include_names) {
  if (prog == NULL || src == NULL || n_headers < 0 || (n_headers > 0 && headers == NULL))
    return NVRTC_ERROR_INVALID_INPUT;
  if (n_headers > 0)
    return NVRTC_ERROR_INVALID_INPUT; /* our sources are self-contained */
  Program *p = g_new0(Program, 1);
  p->source = g_strdup(src);
  p->name = g_strdup(name ? name : "default_program");
  *prog = p;
  return NVRTC_SUCCESS;
}

nvrtcResult nvrtcDestroyProgram(Program **prog) {
  if (prog == NULL || *prog == NULL)
    return NVRTC_ERROR_INVALID_PROGRAM;
  Program *p = *prog;
  g_free(p->source);
  g_free(p->name);
  g_free(p->log);
  g_free(p->image);
  g_free(p);
  *prog = NULL;
  return NVRTC_SUCCESS;
}

static void remove_work_dir(void) {
  GDir *d = g_dir_open(work_dir, 0, NULL);
  const char *entry;
  while (d && (entry = g_dir_read_name(d)) != NULL) {
    char *path = g_build_filename(work_dir, entry, NULL);
    g_unlink(path);
    g_free(path);
  }
  if (d)
    g_dir_close(d);
  g_rmdir(work_dir);
}

/* The process's folder for sources and objects, removed at exit. */
static const char *ensure_work_dir(void) {
  g_mutex_lock(&dir_lock);
  if (work_dir == NULL) {
    work_dir = g_dir_make_tmp(NULL, NULL);
    if (work_dir)
      atexit(remove_work_dir);
  }
  g_mutex_unlock(&dir_lock);
  return work_dir;
}

static gboolean is_ident(char c) {
  return g_ascii_isalnum(c) || c == '_';
}

/* `*(TYPE *)p[i]` for one parameter declaration "TYPE NAME". */
static gboolean append_argument(GString *call, const char *decl, guint index) {
  char *d = g_strstrip(g_strdup(decl));
  size_t end = strlen(d);
  while (end > 0 && is_ident(d[end - 1]))
    end--;
  gboolean ok = end > 0 && d[end] != '\0';
  if (ok) {
    d[end] = '\0';
    g_string_append_printf(call, "%s*(%s *)p[%u]", index ? ", " : "", g_strstrip(d), index);
  }
  g_free(d);
  return ok;
}

/* One host wrapper per `extern "C" __global__ void NAME(...)`: cudaemu_kernel_NAME(void **p). */
static gboolean append_wrappers(GString *out, const char *source, GString *log) {
  static const char marker[] = "extern \"C\" __global__ void ";
  for (const char *at = strstr(source, marker); at; at = strstr(at + 1, marker)) {
    const char *name = at + strlen(marker), *open = strchr(name, '(');
    if (open == NULL)
      break;
    char *kernel = g_strstrip(g_strndup(name, (gsize)(open - name)));
    GString *call = g_string_new(NULL);
    int depth = 0;
    guint index = 0;
    const char *start = open + 1, *c;
    gboolean ok = TRUE;
    for (c = start; *c && ok; c++) {
      if (*c == '(' || *c == '<' || *c == '[')
        depth++;
      else if ((*c == ')' || *c == '>' || *c == ']') && depth > 0)
        depth--;
      else if ((*c == ',' || *c == ')') && depth == 0) {
        char *decl = g_strndup(start, (gsize)(c - start));
        gboolean empty = g_strstrip(decl)[0] == '\0' || strcmp(decl, "void") == 0;
        if (!(empty && *c == ')' && index == 0))
          ok = append_argument(call, decl, index++);
        g_free(decl);
        start = c + 1;
        if (*c == ')')
          break;
      }
    }
    if (!ok || *c != ')') {
      g_string_append_printf(log, "cudaemu: cannot read the parameters of kernel %s\n", kernel);
      g_free(kernel);
      g_string_free(call, TRUE);
      return FALSE;
    }
    g_string_append_printf(out, "extern \"C\" void cudaemu_kernel_%s(void **p) { %s(%s); }\n",
                           kernel, kernel, call->str);
    g_free(kernel);
    g_string_free(call, TRUE);
  }
  return TRUE;
}

static gboolean check_options(int n, const char *const *options, GString *log) {
  for (int i = 0; i < n; i++) {
    const char *o = options[i];
    if (g_str_has_prefix(o, "--gpu-architecture=compute_") ||
        g_str_has_prefix(o, "--gpu-architecture=sm_") || g_str_has_prefix(o, "--std=c++") ||
        strcmp(o, "-default-device") == 0)
      continue;
    g_string_append_printf(log, "cudaemu: option '%s' is not emulated\n", o);
    return FALSE;
  }
  return TRUE;
}

nvrtcResult nvrtcCompileProgram(Program *p, int n_options, const char *const *options) {
  if (p == NULL)
    return NVRTC_ERROR_INVALID_PROGRAM;
  GString *log = g_string_new(NULL);
  g_clear_pointer(&p->image, g_free);
  if (!check_options(n_options, options, log)) {
    g_free(p->log);
    p->log = g_string_free(log, FALSE);
    return NVRTC_ERROR_INVALID_OPTION;
  }
  const char *dir = ensure_work_dir();
  guint id = (guint)g_atomic_int_add(&next_program, 1);
  char *base = g_strdup_printf("%s/k%u", dir ? dir : "/nonexistent", id);
  char *cpp = g_strconcat(base, ".cpp", NULL), *so = g_strconcat(base, ".so", NULL);
  GString *unit = g_string_new(NULL);
  g_string_append_printf(unit, "#include \"%s\"\n#line 1 \"%s\"\n%s\n", CUDAEMU_PRELUDE, p->name,
                         p->source);
  nvrtcResult result = NVRTC_ERROR_COMPILATION;
  GError *error = NULL;
  if (append_wrappers(unit, p->source, log) &&
      g_file_set_contents(cpp, unit->str, (gssize)unit->len, &error)) {
    const char *cxx = g_getenv("JITSCOPE_CUDAEMU_CXX");
    const char *extra = g_getenv("JITSCOPE_CUDAEMU_CXXFLAGS");
    GString *cmd = g_string_new(NULL);
    g_string_append_printf(cmd, "%s -std=c++17 -O1 -fPIC -shared -w %s %s -o %s %s -lpthread",
                           cxx ? cxx : "c++",
                           strstr(p->source, "__syncthreads") ? "-DCUDAEMU_CONCURRENT_BLOCKS" : "",
                           extra ? extra : "", so, cpp);
    char *out = NULL, *err = NULL;
    int status = 0;
    if (!g_spawn_command_line_sync(cmd->str, &out, &err, &status, &error)) {
      g_string_append_printf(log, "cudaemu: %s\n", error->message);
    } else {
      g_string_append(log, err ? err : "");
      if (g_spawn_check_wait_status(status, NULL)) {
        p->image = g_strdup_printf("%s%s\n", CUDAEMU_IMAGE_MAGIC, so);
        result = NVRTC_SUCCESS;
      }
    }
    g_free(out);
    g_free(err);
    g_string_free(cmd, TRUE);
  } else if (error) {
    g_string_append_printf(log, "cudaemu: %s\n", error->message);
  }
  g_clear_error(&error);
  g_unlink(cpp);
  g_string_free(unit, TRUE);
  g_free(base);
  g_free(cpp);
  g_free(so);
  g_free(p->log);
  p->log = g_string_free(log, FALSE);
  return result;
}

nvrtcResult nvrtcGetPTXSize(Program *p, size_t *size) {
  if (p == NULL || p->image == NULL)
    return NVRTC_ERROR_INVALID_PROGRAM;
  *size = strlen(p->image) + 1;
  return NVRTC_SUCCESS;
}

nvrtcResult nvrtcGetPTX(Program *p, char *ptx) {
  if (p == NULL || p->image == NULL)
    return NVRTC_ERROR_INVALID_PROGRAM;
  memcpy(ptx, p->image, strlen(p->image) + 1);
  return NVRTC_SUCCESS;
}

nvrtcResult nvrtcGetProgramLogSize(Program *p, size_t *size) {
  if (p == NULL)
    return NVRTC_ERROR_INVALID_PROGRAM;
  *size = (p->log ? strlen(p->log) : 0) + 1;
  return NVRTC_SUCCESS;
}

nvrtcResult nvrtcGetProgramLog(Program *p, char *log) {
  if (p == NULL)
    return NVRTC_ERROR_INVALID_PROGRAM;
  const char *text = p->log ? p->log : "";
  memcpy(log, text, strlen(text) + 1);
  return NVRTC_SUCCESS;
}
