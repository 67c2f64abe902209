/* Compiling generated C with the system compiler, loading it with dlopen, and running the
 * loaded kernels on a per-process thread pool (reference section 5, the CPU backend).
 *
 * Contracts:
 * - The compiler: JITSCOPE_CC when set (a path, or a name looked up in PATH; empty, "none" or
 *   a name that resolves to nothing means no compiler), else `cc`, else `gcc`, found with
 *   g_find_program_in_path. Resolved once per process; cpu_compile_reset_compiler re-reads.
 * - Flags: -std=gnu11 -O3 -march=native -ffp-contract=off -fno-math-errno -shared -fPIC, plus
 *   -lmvec -lm (libmvec's vector math). When the first compilation with libmvec fails, it is
 *   repeated with -DJITSCOPE_NO_MVEC and without -lmvec, and later ones go without. No
 *   -ffast-math: NaN and Inf behave as in libm.
 * - The cache: one folder per process under g_get_tmp_dir() ("jitscope-cc-<pid>-XXXXXX") holding
 *   <sha256 of source>.c, .so and .log; entries are keyed by the source's hash and live until
 *   exit (a failed compilation too, with its log, so it is not retried); the folder is removed
 *   at exit, and folders of dead processes when a new one is made. Thread-safe. */
#ifndef JITSCOPE_FUSER_CPU_COMPILE_H
#define JITSCOPE_FUSER_CPU_COMPILE_H

#include <stdbool.h>
#include <stdint.h>

#include <glib.h>

typedef struct {
  char *hash;   /* sha256 of the source */
  char *symbol; /* the function looked up */
  char *source;
  char *command; /* the compiler command line that ran (the last, after a retry) */
  char *log;     /* the compiler's output ("" when silent), with the first try's on a retry */
  bool ok;       /* compiled and loaded */
  bool mvec;     /* linked against libmvec */
  double ms;     /* compilation wall time */
  void *fn;      /* the loaded function, NULL unless ok */
  guint runs;    /* statistics, updated by the runner */
  double last_ms;
} CpuCompiled;

/* The compiler's path, or NULL with *why (g_free it) when there is none. */
const char *cpu_compile_compiler(char **why);
/* Forgets the resolved compiler so that the next call reads JITSCOPE_CC and PATH again. */
void cpu_compile_reset_compiler(void);

/* The cached entry of `source`, compiling it on a miss. NULL with *error only when there is
 * no compiler or the cache folder cannot be written; a source the compiler rejects gives an
 * entry with ok = false and its log. Entries are owned by the cache. */
CpuCompiled *cpu_compile_get(const char *source, const char *symbol, GError **error);

/* Snapshot of every entry (borrowed pointers, valid until exit), in compilation order: the
 * generated sources and compile logs the workbench shows. */
GPtrArray *cpu_compile_entries(void);
/* The cache folder, created on first use; NULL when it cannot be. */
const char *cpu_compile_cache_dir(void);
/* Counters for tests: compilations run (retries not counted), cache hits. */
void cpu_compile_stats(guint *compiles, guint *hits);

/* The most parts cpu_compile_parallel_for splits a range into. */
#define CPU_COMPILE_MAX_PARTS 2

/* How many parts cpu_compile_parallel_for(n, parallel, ...) runs at most: 1 or 2. */
int cpu_compile_parallel_parts(int64_t n, bool parallel);

/* Runs fn(data, part, start, end) over [0, n): split in two halves (parts 0 and 1) on the
 * caller and the process's worker thread when `parallel`, else part 0 is all of it, in the
 * caller. Returns when every part is done. */
void cpu_compile_parallel_for(int64_t n, bool parallel,
                              void (*fn)(gpointer data, int part, int64_t start, int64_t end),
                              gpointer data);

#endif
