/* One forward and one backward run of a program through an executor: what `run`, `stages`,
 * `plans`, `check`, `export` and the workbench all do with a set of inputs.
 *
 * Backward runs when any input requires grad: the gradient of the sum of all outputs (every
 * output's gradient seeded with ones) or of the given output gradients. Inputs that require
 * grad get a gradient (zeros when none reached them); others get NULL.
 *
 * Every run first seeds the process's random generator (tensor/rng.h) with the inputs' seed
 * (`--seed`, as torch.manual_seed): the program's random ops (rand, randn, bernoulli,
 * dropout with train=True) draw PyTorch's numbers, the same in every run of one seed. */
#ifndef JITSCOPE_APP_PROGRAM_RUN_H
#define JITSCOPE_APP_PROGRAM_RUN_H

#include "exec/executor.h"
#include "graph_inputs.h"
#include "run_result.h"

typedef struct {
  AppRunResult *result;
  guint first_plan; /* the plans this run compiled: session->plans[first_plan, end_plan) */
  guint end_plan;
  bool ran_backward;
} AppProgramRun;

/* grad_outputs: NULL, or one tensor per flattened output (borrowed; NULL entries = ones). */
AppProgramRun *app_program_run(ExecExecutor *executor, const AppInputs *inputs,
                               RtTensor *const *grad_outputs, guint n_grad_outputs, GError **error);
void app_program_run_free(AppProgramRun *run);

/* Does any input tensor require grad? */
bool app_inputs_require_grad(const AppInputs *inputs);

#endif
