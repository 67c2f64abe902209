/* `check`: optimized against unoptimized outputs and gradients, gradients against central
 * finite differences in float64, and every recorded stage re-run on the inputs its plan saw
 * to name the first stage whose results differ. A stage's fusion groups run through the
 * fuser, by the backend that takes their inputs as in the plan (so a difference that only a
 * fused backend makes is named at fuse_graph); the log names the backend of each group. Every run stays on the inputs' device (GPU
 * inputs: finite differences too, in float64 there); results are compared in host memory.
 * No GTK, no printing: the command and the workbench present the report. */
#ifndef JITSCOPE_APP_CHECK_H
#define JITSCOPE_APP_CHECK_H

#include "exec/executor.h"
#include "graph_inputs.h"

typedef struct {
  bool ok;
  double optimized_vs_unoptimized; /* max relative error over outputs and gradients */
  double gradient_vs_finite_diff;  /* max |autodiff - fd| / max(1, |fd|), float64 */
  double finite_diff_excess;       /* the same less the fd's rounding bound, in units of the
                                      tolerance (above 1 fails the check) */
  guint finite_diff_elements;      /* how many input elements were perturbed */
  guint finite_diff_total;         /* of how many requiring grad */
  double stage_max_error;          /* largest stage-vs-first-stage error, in units of the
                                      tolerance (above 1 is a difference) */
  char *first_bad_stage;           /* "plan 0 (forward main) stage 12 peephole", or NULL */
  GString *log;                    /* one line per comparison made */
} AppCheckReport;

/* Tolerances: float32 1e-4 and float64 1e-9 relative between optimized and unoptimized
 * (fusion may reorder float math), 1e-5 between autodiff and finite differences (after
 * discounting the finite differences' rounding: 16 ulps of the outputs' absolute sum over the
 * step). A test
 * may plant a fault through `hook` (called after every stage of the optimized session). */
AppCheckReport *app_check_run(const IrGraph *graph, const AppInputs *inputs, ExecStageHook hook,
                              void *hook_data, GError **error);
void app_check_report_free(AppCheckReport *report);

/* max |a - b| / max(1, max |b|), or +inf when shapes differ or one side is missing. */
double app_tensor_relative_error(const RtTensor *a, const RtTensor *b);

#endif
