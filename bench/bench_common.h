/* What the fuser benchmarks (CPU and CUDA) share: timing, the corpus LSTM and MiLSTM cells'
 * forward + backward through ExecExecutor, and the two pointwise kernels measured alone. Failures print
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

/* A corpus case's graph ("lstm_cell", "milstm_cell"), from $JITSCOPE_CORPUS_DIR (default
 * ../shared/corpus); exits 77 when it cannot be read. */
IrGraph *bench_load_cell(const char *corpus_case);

/* A float32 tensor of Normal(0, scale^2) values, where the benchmark runs its tensors. */
typedef RtTensor *(*BenchRandnFn)(int ndim, const int64_t *sizes, guint64 seed, float scale);
RtTensor *bench_host_randn(int ndim, const int64_t *sizes, guint64 seed, float scale);

/* The scale of a recurrent cell's weights [4H, H]: 1/sqrt(H), so that a gate's pre-activation
 * has a standard deviation near 1, as with nn.LSTMCell's uniform(+-1/sqrt(H)) start. With
 * Normal(0, 1) weights it has one of sqrt(2H): every gate saturates, and the backward's
 * products meet denormal floats, which some CPUs (Intel's Xeons) multiply through a slow
 * microcode assist, 2 to 5 times the GEMM time, in PyTorch and jitscope alike. */
float bench_cell_weight_scale(int64_t H);

/* What the timed iterations of bench_rnn_cell cost besides time: minor page faults (memory
 * taken fresh from the kernel) and the host allocator's peak bytes in use above what was in
 * use when the iteration started, both averaged over the iterations. */
typedef struct {
  double minor_faults_per_iter;
  double peak_mib_per_iter;
} BenchIterCost;

/* Median ms of forward + backward of a recurrent cell at batch B, hidden H, after `warmup`
 * untimed iterations. The graph's inputs are x, hx, cx [B, H], then two weights [4H, H]
 * (scaled by bench_cell_weight_scale), then vectors [4H] (the LSTM cell's two biases; the
 * MiLSTM cell's alpha, beta_i, beta_h and bias), at most BENCH_CELL_MAX_INPUTS in all; it
 * returns (hy, cy). Every input after cx requires grad, and the backward takes hy and cy with
 * gradients of ones (a one expanded, as the gradients of hy.sum() + cy.sum() are); `sync` (may be NULL) runs before the clock starts and before it stops, so
 * that queued device work is counted. `cost` (may be NULL) receives the timed iterations'
 * faults and memory. */
#define BENCH_CELL_MAX_INPUTS 12
double bench_rnn_cell(IrGraph *graph, int64_t B, int64_t H, bool fuse, int iters, int warmup,
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
