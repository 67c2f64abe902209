/* Probing the environment for a bundle (contract in bundle_env.h). */
#include "bundle_env.h"

#include <string.h>
#include <sys/utsname.h>

#include "cuda/cuda_loader.h"
#include "jitscope-config.h"

/* The value of KEY=VALUE in os-release, unquoted. */
static char *os_release_value(const char *text, const char *key) {
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  char *value = NULL;
  gsize key_len = strlen(key);
  for (gchar **l = lines; *l && !value; l++) {
    if (strncmp(*l, key, key_len) != 0 || (*l)[key_len] != '=')
      continue;
    g_autofree char *v = g_strstrip(g_strdup(*l + key_len + 1));
    gsize n = strlen(v);
    if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0]) {
      memmove(v, v + 1, n - 2);
      v[n - 2] = '\0';
    }
    if (*v)
      value = g_steal_pointer(&v);
  }
  return value;
}

static char *probe_cpu(void) {
  g_autofree char *text = NULL;
  if (!g_file_get_contents("/proc/cpuinfo", &text, NULL, NULL))
    return g_strdup("unknown");
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  g_autofree char *model = NULL;
  guint processors = 0;
  for (gchar **l = lines; *l; l++) {
    if (g_str_has_prefix(*l, "processor"))
      processors++;
    if (!model && (g_str_has_prefix(*l, "model name") || g_str_has_prefix(*l, "Model") ||
                   g_str_has_prefix(*l, "cpu model"))) {
      const char *colon = strchr(*l, ':');
      if (colon)
        model = g_strstrip(g_strdup(colon + 1));
    }
  }
  if (!model || !*model) {
    g_free(model);
    model = g_strdup("unknown model");
  }
  return processors ? g_strdup_printf("%s (%u logical CPUs)", model, processors) : g_strdup(model);
}

/* What the CUDA loader found (driver, nvrtc, cuBLAS, devices), on one line. */
static char *probe_cuda(void) {
  g_autoptr(GString) text = g_string_new(NULL);
  cuda_status_describe(text, cuda_loader_get());
  g_auto(GStrv) lines = g_strsplit(g_strstrip(text->str), "\n", -1);
  return g_strjoinv("; ", lines);
}

void app_bundle_env_probe(AppBundleEnv *env) {
  memset(env, 0, sizeof *env);
  env->version = g_strdup(JITSCOPE_VERSION);
  env->build_options = g_strdup(JITSCOPE_BUILD_OPTIONS);
  struct utsname u;
  bool have_uname = uname(&u) == 0;
  env->kernel = have_uname ? g_strdup_printf("%s %s %s", u.sysname, u.release, u.machine)
                           : g_strdup("unknown");
  g_autofree char *text = NULL;
  if (g_file_get_contents("/etc/os-release", &text, NULL, NULL))
    env->os = os_release_value(text, "PRETTY_NAME");
  if (!env->os)
    env->os = g_strdup(env->kernel);
  env->cpu = probe_cpu();
  env->cuda = probe_cuda();
  env->dot = g_find_program_in_path("dot");
  env->graphviz = g_strdup(env->dot ? "dot found on PATH" : "dot not found on PATH");
}

void app_bundle_env_clear(AppBundleEnv *env) {
  g_free(env->version);
  g_free(env->build_options);
  g_free(env->os);
  g_free(env->kernel);
  g_free(env->cpu);
  g_free(env->cuda);
  g_free(env->dot);
  g_free(env->graphviz);
  memset(env, 0, sizeof *env);
}
