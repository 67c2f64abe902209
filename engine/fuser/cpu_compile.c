/* The system C compiler, the per-process .so cache and the worker pool (contract in
 * cpu_compile.h). */
#include "fuser/cpu_compile.h"

#include <dlfcn.h>
#include <errno.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tensor/tensor.h"

static GMutex lock; /* everything below */
static bool compiler_resolved;
static char *compiler_path;
static char *compiler_why;
static char *cache_dir;
static bool cache_dir_failed;
static GHashTable *entries; /* hash -> CpuCompiled* */
static GPtrArray *order;    /* of CpuCompiled*, compilation order */
static int mvec_state = -1; /* -1 unknown, 0 unavailable, 1 links */
static guint n_compiles, n_hits;

static char *resolve(char **why) {
  const char *env = g_getenv("JITSCOPE_CC");
  if (env) {
    if (!*env || strcmp(env, "none") == 0) {
      *why = g_strdup_printf("JITSCOPE_CC=\"%s\" turns the C compiler off", env);
      return NULL;
    }
    char *path = g_find_program_in_path(env);
    if (!path)
      *why = g_strdup_printf("JITSCOPE_CC=%s is not an executable program", env);
    return path;
  }
  char *path = g_find_program_in_path("cc");
  if (!path)
    path = g_find_program_in_path("gcc");
  if (!path)
    *why = g_strdup("no C compiler (cc or gcc) in PATH");
  return path;
}

/* Call with lock held. */
static const char *compiler_locked(char **why) {
  if (!compiler_resolved) {
    g_free(compiler_path);
    g_free(compiler_why);
    compiler_why = NULL;
    compiler_path = resolve(&compiler_why);
    compiler_resolved = true;
  }
  if (!compiler_path && why)
    *why = g_strdup(compiler_why);
  return compiler_path;
}

const char *cpu_compile_compiler(char **why) {
  g_mutex_lock(&lock);
  const char *path = compiler_locked(why);
  g_mutex_unlock(&lock);
  return path;
}

void cpu_compile_reset_compiler(void) {
  g_mutex_lock(&lock);
  compiler_resolved = false;
  g_mutex_unlock(&lock);
}

static void remove_folder(const char *folder) {
  GDir *dir = g_dir_open(folder, 0, NULL);
  const char *name;
  while (dir && (name = g_dir_read_name(dir))) {
    g_autofree char *path = g_build_filename(folder, name, NULL);
    g_unlink(path);
  }
  if (dir)
    g_dir_close(dir);
  g_rmdir(folder);
}

static void remove_cache_dir(void) {
  g_mutex_lock(&lock);
  if (cache_dir)
    remove_folder(cache_dir);
  g_mutex_unlock(&lock);
}

/* Folders "jitscope-cc-<pid>-*" of processes that died without their atexit (a crash, a
 * kill) are removed by the next process that makes one. */
static void remove_stale_dirs(void) {
  GDir *tmp = g_dir_open(g_get_tmp_dir(), 0, NULL);
  const char *name;
  while (tmp && (name = g_dir_read_name(tmp))) {
    if (!g_str_has_prefix(name, "jitscope-cc-"))
      continue;
    char *end = NULL;
    gint64 pid = g_ascii_strtoll(name + strlen("jitscope-cc-"), &end, 10);
    if (pid <= 0 || end == NULL || *end != '-' || pid == (gint64)getpid())
      continue;
    if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
      continue; /* alive, or not ours to judge */
    g_autofree char *path = g_build_filename(g_get_tmp_dir(), name, NULL);
    remove_folder(path);
  }
  if (tmp)
    g_dir_close(tmp);
}

/* Call with lock held. */
static const char *cache_dir_locked(GError **error) {
  if (!cache_dir && !cache_dir_failed) {
    GError *local = NULL;
    remove_stale_dirs();
    g_autofree char *pattern = g_strdup_printf("jitscope-cc-%d-XXXXXX", (int)getpid());
    cache_dir = g_dir_make_tmp(pattern, &local);
    if (cache_dir)
      atexit(remove_cache_dir);
    else {
      cache_dir_failed = true;
      g_propagate_error(error, local);
      return NULL;
    }
  }
  if (!cache_dir)
    g_set_error(error, JITSCOPE_RUNTIME_ERROR, RT_ERROR_VALUE,
                "C backend: the cache folder under %s cannot be created", g_get_tmp_dir());
  return cache_dir;
}

const char *cpu_compile_cache_dir(void) {
  g_mutex_lock(&lock);
  const char *dir = cache_dir_locked(NULL);
  g_mutex_unlock(&lock);
  return dir;
}

/* One run of the compiler; returns whether it exited 0 and appends its output to `log`. */
static bool run_compiler(const char *cc, const char *src, const char *so, bool mvec, GString *log,
                         char **command) {
  g_autoptr(GPtrArray) argv = g_ptr_array_new();
  const char *flags[] = {"-std=gnu11",      "-O3",     "-march=native", "-ffp-contract=off",
                         "-fno-math-errno", "-shared", "-fPIC"};
  g_ptr_array_add(argv, (gpointer)cc);
  for (guint i = 0; i < G_N_ELEMENTS(flags); i++)
    g_ptr_array_add(argv, (gpointer)flags[i]);
#if defined(__x86_64__)
  /* GCC and clang keep to 256-bit vectors on AVX-512 machines unless told otherwise; the fused
   * loops are bound by libmvec's exp and tanh, whose 16-lane variants took the MiLSTM cell's
   * forward group from 0.18 to 0.13 ms at 64x512 (no effect without AVX-512). */
  g_ptr_array_add(argv, "-mprefer-vector-width=512");
#endif
  if (!mvec)
    g_ptr_array_add(argv, "-DJITSCOPE_NO_MVEC");
  g_ptr_array_add(argv, "-o");
  g_ptr_array_add(argv, (gpointer)so);
  g_ptr_array_add(argv, (gpointer)src);
  if (mvec)
    g_ptr_array_add(argv, "-lmvec");
  g_ptr_array_add(argv, "-lm");
  g_ptr_array_add(argv, NULL);
  g_free(*command);
  *command = g_strjoinv(" ", (char **)argv->pdata);
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  int status = 0;
  g_autoptr(GError) spawn_error = NULL;
  bool ok = g_spawn_sync(NULL, (char **)argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err,
                         &status, &spawn_error);
  if (!ok) {
    g_string_append_printf(log, "%s: %s\n", cc, spawn_error->message);
  } else {
    g_string_append(log, out ? out : "");
    g_string_append(log, err ? err : "");
    ok = g_spawn_check_wait_status(status, &spawn_error);
    if (!ok) {
      g_string_append_printf(log, "%s: %s\n", cc, spawn_error->message);
    }
  }
  return ok;
}

static void load(CpuCompiled *e, const char *so, GString *log) {
  void *h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    g_string_append_printf(log, "dlopen: %s\n", dlerror());
    return;
  }
  e->fn = dlsym(h, e->symbol);
  if (!e->fn) {
    g_string_append_printf(log, "dlsym %s: %s\n", e->symbol, dlerror());
    dlclose(h);
    return;
  }
  e->ok = true; /* the handle stays open until exit: its code may run at any time */
}

/* Call with lock held: compiles and loads the entry's source. */
static void compile_entry(const char *cc, const char *dir, CpuCompiled *e) {
  g_autofree char *base = g_build_filename(dir, e->hash, NULL);
  g_autofree char *src = g_strconcat(base, ".c", NULL);
  g_autofree char *so = g_strconcat(base, ".so", NULL);
  g_autofree char *log_path = g_strconcat(base, ".log", NULL);
  g_autoptr(GString) log = g_string_new(NULL);
  gint64 started = g_get_monotonic_time();
  g_autoptr(GError) error = NULL;
  if (!g_file_set_contents(src, e->source, -1, &error)) {
    g_string_append_printf(log, "%s\n", error->message);
  } else {
    bool mvec = mvec_state != 0;
    bool ok = run_compiler(cc, src, so, mvec, log, &e->command);
    if (!ok && mvec && mvec_state < 0) {
      g_string_append(log, "(retrying without libmvec)\n");
      ok = run_compiler(cc, src, so, false, log, &e->command);
      if (ok)
        mvec_state = 0;
      mvec = false;
    } else if (ok && mvec) {
      mvec_state = 1;
    }
    e->mvec = mvec;
    if (ok)
      load(e, so, log);
  }
  e->ms = (double)(g_get_monotonic_time() - started) / 1000.0;
  e->log = g_string_free(g_steal_pointer(&log), FALSE);
  g_file_set_contents(log_path, e->log, -1, NULL);
  n_compiles++;
}

CpuCompiled *cpu_compile_get(const char *source, const char *symbol, GError **error) {
  g_autofree char *hash = g_compute_checksum_for_string(G_CHECKSUM_SHA256, source, -1);
  g_mutex_lock(&lock);
  if (!entries) {
    entries = g_hash_table_new(g_str_hash, g_str_equal);
    order = g_ptr_array_new();
  }
  CpuCompiled *e = g_hash_table_lookup(entries, hash);
  if (e) {
    n_hits++;
    g_mutex_unlock(&lock);
    return e;
  }
  g_autofree char *why = NULL;
  const char *cc = compiler_locked(&why);
  const char *dir = cc ? cache_dir_locked(error) : NULL;
  if (!cc || !dir) {
    if (!cc)
      g_set_error(error, JITSCOPE_RUNTIME_ERROR, RT_ERROR_VALUE, "C backend: %s", why);
    g_mutex_unlock(&lock);
    return NULL;
  }
  e = g_new0(CpuCompiled, 1);
  e->hash = g_steal_pointer(&hash);
  e->symbol = g_strdup(symbol);
  e->source = g_strdup(source);
  compile_entry(cc, dir, e);
  g_hash_table_insert(entries, e->hash, e);
  g_ptr_array_add(order, e);
  g_mutex_unlock(&lock);
  return e;
}

GPtrArray *cpu_compile_entries(void) {
  GPtrArray *out = g_ptr_array_new();
  g_mutex_lock(&lock);
  if (order)
    g_ptr_array_extend(out, order, NULL, NULL);
  g_mutex_unlock(&lock);
  return out;
}

void cpu_compile_stats(guint *compiles, guint *hits) {
  g_mutex_lock(&lock);
  *compiles = n_compiles;
  *hits = n_hits;
  g_mutex_unlock(&lock);
}

/* --- the worker pool --- */

typedef struct {
  void (*fn)(gpointer data, int part, int64_t start, int64_t end);
  gpointer data;
  int64_t start, end;
  GMutex done_lock;
  GCond done_cond;
  bool done;
} Part;

static void run_part(gpointer data, gpointer unused) {
  (void)unused;
  Part *p = data;
  p->fn(p->data, 1, p->start, p->end);
  g_mutex_lock(&p->done_lock);
  p->done = true;
  g_cond_signal(&p->done_cond);
  g_mutex_unlock(&p->done_lock);
}

static gpointer make_pool(gpointer unused) {
  (void)unused;
  return g_thread_pool_new(run_part, NULL, 1, FALSE, NULL);
}

int cpu_compile_parallel_parts(int64_t n, bool parallel) {
  return parallel && n >= 2 && g_get_num_processors() > 1 ? 2 : 1;
}

void cpu_compile_parallel_for(int64_t n, bool parallel,
                              void (*fn)(gpointer data, int part, int64_t start, int64_t end),
                              gpointer data) {
  static GOnce once = G_ONCE_INIT;
  GThreadPool *pool =
      cpu_compile_parallel_parts(n, parallel) > 1 ? g_once(&once, make_pool, NULL) : NULL;
  if (!pool) {
    fn(data, 0, 0, n);
    return;
  }
  Part part = {.fn = fn, .data = data, .start = n / 2, .end = n};
  g_mutex_init(&part.done_lock);
  g_cond_init(&part.done_cond);
  if (!g_thread_pool_push(pool, &part, NULL)) {
    fn(data, 0, 0, n);
  } else {
    fn(data, 0, 0, n / 2);
    g_mutex_lock(&part.done_lock);
    while (!part.done)
      g_cond_wait(&part.done_cond, &part.done_lock);
    g_mutex_unlock(&part.done_lock);
  }
  g_mutex_clear(&part.done_lock);
  g_cond_clear(&part.done_cond);
}
