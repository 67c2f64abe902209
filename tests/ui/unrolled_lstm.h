/* Test and benchmark input: the LSTM cell unrolled over `steps` time steps as IR text (about
 * 18 drawn nodes a step: 526 steps make ~9,500 nodes), step t's hy/cy feeding step t + 1.
 * Inputs: x Float(3, 10), h0 and c0 Float(3, 20), w_ih Float(80, 10), w_hh Float(80, 20),
 * b_ih and b_hh Float(80). Shared by tests/ui and bench/layout_bench.c. */
#ifndef JITSCOPE_TESTS_UNROLLED_LSTM_H
#define JITSCOPE_TESTS_UNROLLED_LSTM_H

#include <glib.h>

/* New string. */
char *unrolled_lstm_ir(guint steps);
/* A spec line that fits the graph's inputs (no gradients: one forward plan). */
#define UNROLLED_LSTM_SPEC \
  "Float(3, 10); Float(3, 20); Float(3, 20); Float(80, 10); Float(80, 20); Float(80); Float(80)"

#endif
