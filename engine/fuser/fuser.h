/* The fuser (reference section 5): fusion-group formation (graph_fuser.c), running a group on
 * a device backend (CPU fused loop, CUDA generated kernels), falling back to interpreting the
 * group's Subgraph when no backend can run it.
 *
 * A prim::FusionGroup node's conventions, shared by every backend:
 * - Its `Subgraph` attribute (graph attr "Subgraph") is the kernel graph. Group inputs (node
 *   inputs = Subgraph inputs, same order): every tensor input first, then the int[] size lists
 *   that `_grad_sum_to_size` needs (the only non-tensor inputs; fact 7.8).
 * - Inside the Subgraph only: ops whose ops.def row has a `pointwise` expression, with every
 *   non-tensor input a prim::Constant of the Subgraph; prim::Constant; prim::ConstantChunk
 *   [chunks, dim] whose input is a Subgraph input (the piece i of a chunk reads the input
 *   through offset i * size/chunks along dim and the input's strides); prim::FusedConcat
 *   [dim] (concatenation of its inputs along dim, written into the output through the
 *   output's strides). No _grad_sum_to_size: the pass removes them from the kernel graph.
 * - Subgraph outputs = node outputs, same order; every output is a tensor.
 * - Attribute `is` "sum_to_size_inputs" (FUSER_ATTR_SUM_TO_SIZE), present when any output is
 *   summed: one entry per output, the index of the group input holding that output's target
 *   size (an int[] value, or None at run time meaning "no sum"), or -1 when the output is
 *   written at map size as is. After the kernel writes an output at the map size the runner
 *   applies rt_tensor_sum_to to the marked ones.
 * - Map size: the broadcast of all tensor inputs' shapes where chunked inputs count with their
 *   size divided by chunks along dim (must divide exactly). Outputs are fresh contiguous
 *   tensors of the map size (FusedConcat outputs: map size times the inputs along dim).
 * - Dtypes: every tensor input and output of one group has one floating dtype (float32 or
 *   float64) except comparison results and where conditions, which the kernel graph types
 *   as they are; a backend that cannot run a mix says so through can_run.
 *
 * Running: fuser_run_group picks the first registered backend whose can_run accepts the
 * inputs (CUDA backends for device tensors; for host tensors the C backend "cpu-c", compiled
 * by the system compiler, then the CPU fused loop "cpu"); when none
 * does, or a backend fails, it interprets the Subgraph and records why. What ran is recorded
 * per group node in the plan's FuserPlanState (fuser_plan_records). */
#ifndef JITSCOPE_FUSER_FUSER_H
#define JITSCOPE_FUSER_FUSER_H

#include "ir/ir.h"
#include "runtime/value.h"

#define FUSER_ATTR_SUM_TO_SIZE "sum_to_size_inputs"

/* What the fuser keeps for one plan: per FusionGroup node the record of what ran and the
 * backends' cached objects. The executor's plan owns one (ExecPlan.fuser); the fuser knows
 * nothing of plans. Everywhere below, a NULL state records and caches nothing. */
typedef struct FuserPlanState FuserPlanState;
FuserPlanState *fuser_plan_state_new(void);
void fuser_plan_state_free(FuserPlanState *state);

/* A device backend. `can_run` returns false and sets *why (a static or g_strdup-ed string the
 * caller frees with g_free when `*why_owned`) when the backend does not take these inputs;
 * `run` computes the group's outputs (new references, at the sizes after sum_to) or fails with
 * a GError, after which fuser_run_group falls back to interpretation. */
typedef struct FuserBackend {
  const char *name; /* "cpu", "cuda" */
  bool (*can_run)(const struct FuserBackend *backend, const IrNode *group, const RtValue *inputs,
                  guint n_inputs, char **why);
  bool (*run)(const struct FuserBackend *backend, FuserPlanState *state, const IrNode *group,
              RtValue *inputs, guint n_inputs, RtValue *outputs, guint n_outputs, GError **error);
  void *data; /* the backend's own state */
} FuserBackend;

/* Registers a backend (not copied; it must outlive every run). Backends are tried in
 * registration order; the C backend and then the CPU fused loop are built in and tried last.
 * Thread-safe. */
void fuser_register_backend(const FuserBackend *backend);

/* What ran for one FusionGroup node of a plan (the most recent run). */
typedef struct {
  char *group_name;      /* "FusionGroup_0", in the plan graph's print order */
  char *backend;         /* "cpu", "cuda" or "interpreter" */
  char *fallback_reason; /* NULL when a backend ran; else why each backend declined */
  guint runs;
  double last_ms;
} FuserGroupRecord;

/* The records of a plan: const IrNode* (a FusionGroup node of the plan's graph) ->
 * FuserGroupRecord*, freed with the state. Returns NULL when no group of the plan ran yet. */
GHashTable *fuser_plan_records(const FuserPlanState *state);
/* Human readable lines "FusionGroup_0: cpu (3 runs, 0.12 ms)" for every group run. */
char *fuser_plan_records_describe(const FuserPlanState *state);

/* Runs a FusionGroup node: inputs borrowed, outputs new references. */
bool fuser_run_group(FuserPlanState *state, const IrNode *group, RtValue *inputs, guint n,
                     RtValue *outputs, guint n_out, GError **error);

/* Per plan, group and backend, one object (a compiled program, a loaded kernel): made by
 * `create` on first use, freed by `destroy` with the state. With state NULL nothing is cached:
 * returns a new object the caller frees with `destroy` (*owned set to true). */
typedef void *(*FuserCacheCreate)(const IrNode *group, GError **error);
void *fuser_group_cache(FuserPlanState *state, const IrNode *group, const FuserBackend *backend,
                        FuserCacheCreate create, GDestroyNotify destroy, bool *owned,
                        GError **error);

/* The size one output is summed to: ndim -1 when it is not (no "sum_to_size_inputs" entry, or
 * a None size). */
typedef struct {
  int ndim;
  int64_t sizes[RT_MAX_DIMS];
} FuserSumTo;

/* Reads the group's "sum_to_size_inputs" for these inputs into targets[n_outputs]; false with
 * *error for a malformed attribute or a size input that is not an int list. */
bool fuser_sum_to_targets(const IrNode *group, const RtValue *inputs, guint n_inputs,
                          FuserSumTo *targets, guint n_outputs, GError **error);
/* Replaces each output with a target by rt_tensor_sum_to of it. */
bool fuser_sum_outputs(const FuserSumTo *targets, RtValue *outputs, guint n_outputs,
                       GError **error);
/* Both: outputs computed at the map size summed as the group says. A backend calls it after
 * its kernel unless it summed them itself (the C backend accumulates in the kernel). */
bool fuser_apply_sum_to(const IrNode *group, const RtValue *inputs, guint n_inputs,
                        RtValue *outputs, guint n_outputs, GError **error);

/* The CPU fused loop (cpu_fused_loop.c) as a backend. */
const FuserBackend *fuser_cpu_backend(void);

/* FuseGraph (graph_fuser.c): forms fusion groups in graph's top block and nested blocks.
 * Returns whether it changed anything. */
bool pass_fuse_graph(IrGraph *graph);

#endif
