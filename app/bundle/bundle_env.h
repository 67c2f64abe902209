/* The environment a bundle records: jitscope's version and build options, the OS, the CPU
 * model, what of CUDA loaded and whether Graphviz's `dot` is on PATH. Plain strings, one line
 * each, free of the machine's paths except the CUDA libraries' names the loader reports. */
#ifndef JITSCOPE_APP_BUNDLE_ENV_H
#define JITSCOPE_APP_BUNDLE_ENV_H

#include <glib.h>
#include <stdbool.h>

typedef struct {
  char *version;       /* JITSCOPE_VERSION */
  char *build_options; /* JITSCOPE_BUILD_OPTIONS */
  char *os;            /* PRETTY_NAME of /etc/os-release, else uname's sysname release machine */
  char *kernel;        /* uname: "Linux 6.1.0 x86_64" */
  char *cpu;           /* "model name" of /proc/cpuinfo (and the count), or "unknown" */
  char *cuda;          /* the CUDA loader's status in one line, or "not probed by this build" */
  char *dot;           /* the `dot` program found on PATH (full path), or NULL */
  char *graphviz;      /* "dot found on PATH" / "dot not found on PATH" (no machine path) */
} AppBundleEnv;

void app_bundle_env_probe(AppBundleEnv *env);
void app_bundle_env_clear(AppBundleEnv *env);

#endif
