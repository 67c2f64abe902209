/* What the fuser benchmarks (CPU and CUDA) share: timing, the corpus LSTM cell forward +
 * backward through ExecExecutor, and the two pointwise kernels measured alone. Failures print
 * `PRGNAME: MESSAGE` (g_set_prgname) and exit 1; a missing corpus exits 77. */
#ifndef JITSCOPE_BENCH_COMMON_H
#define JITSCOPE_BENCH_COMMON_H

#include "exec/executor.h"

double bench_now_ms(void);
/* Minor page faults of the process so far (getrusage). */
long bench_minor_faults(void);
/* The upper median; sorts v. */
double bench_median(double *v, int n);
/* Exits with error's message (or "failed") unless ok. */
void bench_check(bool ok, GError *error);

/* The corpus lstm_cell graph, from $JITSCOPE_CORPUS_DIR (default ../shared/corpus). */
IrGraph *bench_load_lstm(void);

/* A float32 tensor of Normal(0, 1) values, where the benchmark runs its tensors. */
typedef RtTensor *(*BenchRandnFn)(int ndim, const int64_t *sizes, guint64 seed);
RtTensor *bench_host_randn(int ndim, const int64_t *sizes, guint64 seed);

/* What the timed iterations of bench_lstm_cell cost besides time: minor page faults (memory
 * taken fresh from the kernel) and the host allocator's peak bytes in use above what was in
 * use when the iteration started, both averaged over the iterations. */
typedef struct {
  double minor_faults_per_iter;
  double peak_mib_per_iter;
} BenchIterCost;

/* Median ms of forward + backward of the cell at batch B, hidden H (weights require grad),
 * after `warmup` untimed iterations; `sync` (may be NULL) runs before the clock starts and
 * before it stops, so that queued device work is counted. `cost` (may be NULL) receives the
 * timed iterations' faults and memory. */
double bench_lstm_cell(IrGraph *graph, int64_t B, int64_t H, bool fuse, int iters, int warmup,
                       BenchRandnFn randn, void (*sync)(void), BenchIterCost *cost);

/* Pointwise programs of (gates [B, 4H], cx [B, H]) that fuse into one group: the LSTM cell's
 * pointwise part (reads all 4 gate chunks; transcendental-heavy) and a*b+c (reads 2 chunks;
 * memory-bound). */
extern const char bench_cell_pointwise[];
extern const char bench_axpy_pointwise[];

typedef struct {
  IrGraph *graph;
  IrNode *group;       /* the program's one fusion group */
  RtValue in[2];       /* its inputs, in its order (borrowed from graph_in) */
  RtValue graph_in[2]; /* gates, cx */
} BenchPointwise;

void bench_pointwise_init(BenchPointwise *k, const char *text, int64_t B, int64_t H,
                          BenchRandnFn randn);
void bench_pointwise_clear(BenchPointwise *k);
/* Bytes one run reads and writes: `pieces_read` of the gates' 4 chunks, cx, the outputs. */
double bench_pointwise_bytes(int64_t B, int64_t H, double pieces_read, const RtValue *out,
                             guint n_out);

#endif
