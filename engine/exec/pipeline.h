/* The compile pipeline (reference section 2, compileSpec of mid 2019) as a table of stages
 * that the CLI and the window list. Compiling a plan runs the stages in order and records a
 * snapshot of the graph after each. */
#ifndef JITSCOPE_EXEC_PIPELINE_H
#define JITSCOPE_EXEC_PIPELINE_H

#include "exec/executor.h"
#include "passes/passes.h"

typedef enum {
  EXEC_WHEN_ALWAYS,
  EXEC_WHEN_OPTIMIZING, /* skipped for the fallback plan (--no-optimize) */
  EXEC_WHEN_GRAD,       /* optimizing and some input requires grad */
  EXEC_WHEN_NO_GRAD,    /* optimizing and no input requires grad */
  EXEC_WHEN_RECORDING,  /* some input requires grad, optimizing or not */
} ExecStageWhen;

typedef struct ExecCompile ExecCompile;

/* What a stage that needs the compile context did: the compile records an unchanged stage
 * without printing its graph again (a pass says the same by returning false). */
typedef enum {
  EXEC_STAGE_FAILED,    /* the compile's error is set */
  EXEC_STAGE_UNCHANGED, /* the graph is as the previous stage left it */
  EXEC_STAGE_CHANGED,   /* it may have changed: its text is printed and compared */
} ExecStageResult;
typedef ExecStageResult (*ExecStageFn)(ExecCompile *compile, IrGraph *graph);

typedef struct {
  const char *name;
  const char *group;
  ExecStageWhen when;
  PassFn pass;     /* a plain pass, or */
  ExecStageFn run; /* a stage that needs the compile context */
} ExecStageDef;

/* The stage table, in order. */
const ExecStageDef *exec_pipeline_stages(guint *n);

/* The passes of runOptimization and runNondiffOptimization, also run on each
 * DifferentiableGraph's f (recorded as "<DifferentiableGraph_N>.<pass>"). */
const ExecStageDef *exec_pipeline_optimization_stages(guint *n);
const ExecStageDef *exec_pipeline_nondiff_stages(guint *n);

/* Compiles a plan for `spec` from the executor's graph; the plan is appended to the session's
 * plan list. */
ExecPlan *exec_pipeline_compile(ExecExecutor *executor, const IrGraph *source,
                                const ExecArgumentSpec *spec, GError **error);

#endif
