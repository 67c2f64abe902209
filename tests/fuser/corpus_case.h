/* Corpus cases for the fuser tests (CPU and CUDA): loading a case folder, running it forward
 * and backward through one ExecSession, comparing with PyTorch's numbers. */
#ifndef JITSCOPE_TESTS_CORPUS_CASE_H
#define JITSCOPE_TESTS_CORPUS_CASE_H

#include "exec/executor.h"

typedef struct {
  char *name; /* "lstm_cell/case-0" */
  IrGraph *graph;
  guint n_in;
  RtValue in[16];
  RtTensor *leaf[16]; /* borrowed from in[] */
  guint n_out;
  RtTensor *out_ref[8];
  RtTensor *grad_ref[16];
} CorpusCase;

/* The lines of $JITSCOPE_CORPUS_DIR/INDEX, or NULL when there is no corpus. */
char **corpus_case_index(void);
void corpus_case_load(CorpusCase *c, const char *name);
void corpus_case_free(CorpusCase *c);

/* Runs forward, then backward when an input requires grad; outputs (flattened) and gradients
 * (one per input, NULL where none) as new references. */
void corpus_case_run(CorpusCase *c, ExecSession *session, GPtrArray *outputs, GPtrArray *grads);

/* max |a - b| / max(1, max |b|); INFINITY when shapes or NaN positions differ. */
double corpus_rel_error(const RtTensor *a, const RtTensor *b);

#endif
