/* The graph executor (reference section 2): one plan per ArgumentSpec, compiled through the
 * stage table of pipeline.h, every stage recorded. Backward graphs (each DifferentiableGraph's
 * df) get executors of their own whose plans are recorded the same way.
 *
 * Contracts:
 * - Nothing here is global: an ExecSession owns its executors and plans, and two sessions may
 *   compile and run on two threads at once.
 * - Tensors returned by a run may carry autograd history that points into the session's
 *   plans: run backward (exec_session_backward) before freeing the session. */
#ifndef JITSCOPE_EXEC_EXECUTOR_H
#define JITSCOPE_EXEC_EXECUTOR_H

#include "autodiff/autodiff.h"
#include "exec/argument_spec.h"
#include "fuser/fuser.h"
#include "runtime/interpreter.h"
#include "tensor/rng.h"

typedef enum { EXEC_PLAN_FORWARD, EXEC_PLAN_BACKWARD } ExecPlanKind;

typedef struct {
  char *name;        /* "lower_grad_of", "DifferentiableGraph_0.peephole" */
  const char *group; /* "specialize", "required", "propagate", "optimize", "autodiff", "nondiff" */
  bool changed;      /* the graph text differs from the previous stage's */
  double ms;         /* the stage's own time: one that runs and records stages of its own
                      * (differentiate) counts only the time outside them, so stages' times add
                      * up to at most the compile's */
  char *ir;          /* the whole graph after the stage, subgraphs as `with` trailers; a GRefString,
             * shared by the stages that changed nothing */
} ExecStage;

typedef struct ExecSession ExecSession;
typedef struct ExecExecutor ExecExecutor;
typedef struct ExecPlan ExecPlan;

/* A DifferentiableGraph node of a plan: its Gradient and the executor of its df. */
typedef struct RtCode RtCode;

typedef struct {
  AdGradient *gradient; /* its index lists; f moved into the node's Subgraph, df into the
                           backward executor (both NULL here) */
  RtCode *f_code;       /* the optimized f, compiled */
  ExecExecutor *backward;
  char *name; /* "DifferentiableGraph_0" */
} ExecDiffState;

struct ExecPlan {
  ExecPlanKind kind;
  char *graph_name; /* "main", "main/DifferentiableGraph_0/backward" */
  char *spec_text;
  guint index;       /* position in the session's plan list */
  GPtrArray *stages; /* of ExecStage* */
  double compile_ms; /* wall time of the whole compile: every stage and its record, the
                        interpreter code, the memory plan */
  IrGraph *graph;    /* the final optimized graph */
  RtCode *code;      /* graph compiled for the interpreter */
  ExecExecutor *executor;
  GHashTable
      *diff_states; /* const IrNode* (a DifferentiableGraph node of graph) -> ExecDiffState* */
  GHashTable *tape_formulas;   /* const IrNode* -> eager tape formula cache (eager_tape.c) */
  GArray *last_inputs;         /* of RtValue: the flattened inputs of the plan's latest run, kept
                          when the session records inputs (check, the workbench); else NULL */
  RtGenerator *last_generator; /* the random generator as that run began, with last_inputs */
  FuserPlanState *fuser;       /* the fusion groups' records and backend caches (fuser.h), owned */
  /* The static memory plan for the spec's inputs (memory_plan.h): an analysis for the
   * reports, made on the first exec_plan_memory from what the compile kept of the inputs. */
  struct ExecMemoryInputs *memory_inputs;
  struct ExecMemoryPlan *memory;
};

/* Called after every stage of every compile when set (tests plant faults with it). */
typedef void (*ExecStageHook)(ExecPlan *plan, const char *stage_name, IrGraph *graph, void *data);

struct ExecSession {
  bool optimize;        /* false: the fallback plan (specialization and required passes only) */
  bool fuse;            /* the fuser's switch */
  bool grad_enabled;    /* grad mode for forward runs */
  bool verify;          /* run the verifier after every stage (on by default unless NDEBUG) */
  bool record_inputs;   /* keep each plan's latest inputs in ExecPlan.last_inputs */
  bool script_formulas; /* differentiate with resources/symbolic_script.py's formulas where one
                           exists (the C builders elsewhere); on by default */
  GPtrArray *plans;     /* every plan compiled, in compile order (owned by their executors) */
  GPtrArray *executors; /* owned */
  ExecStageHook stage_hook;
  void *stage_hook_data;
};

ExecSession *exec_session_new(void);
void exec_session_free(ExecSession *session);

/* An executor for `graph` (copied) named `name`, owned by the session. */
ExecExecutor *exec_executor_new(ExecSession *session, const IrGraph *graph, const char *name,
                                ExecPlanKind kind);
/* The same, taking ownership of `graph` instead of copying it. */
ExecExecutor *exec_executor_new_take(ExecSession *session, IrGraph *graph, const char *name,
                                     ExecPlanKind kind);
/* The plan for these inputs, compiled on a miss. */
ExecPlan *exec_executor_plan_for(ExecExecutor *executor, const RtValue *inputs, guint n_inputs,
                                 GError **error);
/* Runs the graph: inputs borrowed, outputs new references (tuples as the graph returns them).
 * With grad mode on, outputs carry autograd history. */
bool exec_executor_run(ExecExecutor *executor, const RtValue *inputs, guint n_inputs,
                       RtValue **outputs, guint *n_outputs, GError **error);
/* The plan's static memory plan, made on the first call (a cache: the plan is otherwise not
 * changed; the workbench's threads may ask at once). */
const struct ExecMemoryPlan *exec_plan_memory(const ExecPlan *plan);
/* The plan the latest exec_executor_run used, or NULL before the first run. */
ExecPlan *exec_executor_last_plan(const ExecExecutor *executor);
guint exec_executor_cache_hits(const ExecExecutor *executor);
guint exec_executor_cache_misses(const ExecExecutor *executor);
ExecSession *exec_executor_session(const ExecExecutor *executor);
const char *exec_executor_name(const ExecExecutor *executor);

/* Runs backward from output tensors (seeds NULL = ones) and returns per input tensor its
 * gradient, or NULL when the input does not require grad. An input that requires grad but
 * received no gradient gets zeros of its shape. */
bool exec_session_backward(ExecSession *session, RtTensor **outputs, RtTensor **seeds,
                           guint n_outputs, RtTensor **inputs, guint n_inputs, RtTensor **grads,
                           GError **error);

void exec_stage_free(ExecStage *stage);

#endif
