/* The workbench's model without GTK (DESIGN.md, "The window"): the program (text, file name,
 * the parsed graph or the parse error with its location), the input specs (several lines of
 * `SPEC; SPEC; ...`, one seed) and the result of the last Run.
 *
 * A Run is one ExecSession with one executor for the program, the fuser on; per spec line a
 * forward run and, when an output takes part in autograd, a backward run seeded with ones.
 * Every plan the session compiles is kept with its stages; each stage keeps its IR text and a
 * copy of the graph carrying the nodes' origin ids (for stable drawing ids and change
 * highlighting). The session records inputs: each plan keeps the flattened inputs of its
 * latest run, so that the inspector can re-run any stage's graph on them and show a node's
 * values (workspace_node.c), and what the fuser ran for each FusionGroup.
 *
 * Runs happen on a worker thread (a GThread); progress and completion are delivered as idle
 * callbacks on the GMainContext given to app_workspace_run_async. The workspace may be freed
 * while a run is in flight: the run's result is then dropped and no callback is made. */
#ifndef JITSCOPE_APP_WORKSPACE_H
#define JITSCOPE_APP_WORKSPACE_H

#include <stdbool.h>

#include "cuda/cuda_report.h"
#include "exec/executor.h"
#include "ir/ir.h"

#define APP_WORKSPACE_ERROR (app_workspace_error_quark())
GQuark app_workspace_error_quark(void);
typedef enum {
  APP_WORKSPACE_ERROR_NO_PROGRAM, /* the program did not parse */
  APP_WORKSPACE_ERROR_NO_SPECS,
  APP_WORKSPACE_ERROR_BUSY, /* a run is in flight */
  APP_WORKSPACE_ERROR_SPEC, /* a spec line is malformed or does not fit the graph */
  APP_WORKSPACE_ERROR_RUN,  /* compiling or running failed */
} AppWorkspaceErrorCode;

typedef struct {
  char *name; /* "lower_grad_of", "DifferentiableGraph_0.peephole" */
  char *group;
  bool changed;
  double ms;
  char *ir;          /* the whole graph after the stage */
  IrGraph *graph;    /* copy of the graph after the stage, origins kept */
  char *fingerprint; /* SHA-256 (hex) of ir and the nodes' origins in print order, computed
                        once when the stage is recorded: stages with equal fingerprints are
                        drawn alike (workspace_layout.h caches their DOT by it) */
} AppWorkspaceStage;

/* What ran for one FusionGroup of a plan's final graph (fuser.h, FuserGroupRecord). */
typedef struct {
  guint64 origin;        /* the FusionGroup node's origin id */
  char *group_name;      /* "FusionGroup_0" */
  char *backend;         /* "cpu", "cuda", "interpreter" */
  char *fallback_reason; /* NULL when a backend ran */
  guint runs;
  double last_ms;
} AppWorkspaceFuserRecord;

/* A FusionGroup of a plan's final graph. */
typedef struct {
  char *name; /* "FusionGroup_0", "DifferentiableGraph_0/FusionGroup_1" */
  guint64 origin;
  int first_stage; /* the first stage whose graph holds the group's origin, or -1 */
  guint n_nodes;   /* nodes of its kernel graph */
} AppWorkspaceGroup;

typedef struct {
  ExecPlanKind kind;
  char *graph_name;             /* "main", "main/DifferentiableGraph_0/backward" */
  char *spec_text;              /* the argument spec the plan was compiled for */
  char *title;                  /* what lists show: "forward main [Float(3, 10), ...]" */
  GPtrArray *stages;            /* of AppWorkspaceStage* */
  GPtrArray *diff_groups;       /* of char*: "DifferentiableGraph_0"... in the final graph */
  GPtrArray *fusion_groups;     /* of AppWorkspaceGroup*, print order, nested ones included */
  GPtrArray *fuser_records;     /* of AppWorkspaceFuserRecord*: the groups that ran */
  char *fuser_summary;          /* fuser_plan_records_describe; "" when no group ran */
  bool has_memory_plan;         /* the plan's static memory plan (exec/memory_plan.h): */
  size_t memory_peak_bytes;     /* its peak, */
  size_t memory_unshared_bytes; /* what its values take without reuse, */
  guint memory_buffers;         /* its buffers */
  GArray *last_inputs;          /* of RtValue (owned): flattened inputs of the plan's latest
                                run, or NULL when the plan never ran */
} AppWorkspacePlan;

typedef struct {
  char *line;                /* the spec line as given */
  AppWorkspacePlan *forward; /* borrowed from the run; NULL when the run failed early */
  bool forward_cached;       /* the forward plan came from the executor's cache */
  GPtrArray *backward;       /* of AppWorkspacePlan* (borrowed): backward plans this spec added */
  char *outputs_text;        /* outputs, as value_text writes them; NULL on error */
  char *grads_text;          /* per input its gradient or "none"; NULL without backward */
  char *error;               /* why this spec failed, or NULL */
  char *device_note;         /* why its device=cuda inputs ran on the CPU, or NULL */
  double ms;
} AppWorkspaceSpecResult;

typedef struct {
  GPtrArray *plans; /* of AppWorkspacePlan* (owned), compile order */
  GPtrArray *specs; /* of AppWorkspaceSpecResult* (owned), one per spec line */
  guint64 seed;
  guint n_failed; /* specs with an error */
  double ms;
} AppWorkspaceRun;

typedef struct AppWorkspace AppWorkspace;

/* Called on the main context: `done` of `total` specs finished; `message` names the spec. */
typedef void (*AppWorkspaceProgressFn)(AppWorkspace *ws, guint done, guint total,
                                       const char *message, gpointer data);
/* Called on the main context when the run ends; the run is already the workspace's current
 * one (app_workspace_last_run) when it succeeded; `error` is set only when nothing ran. */
typedef void (*AppWorkspaceDoneFn)(AppWorkspace *ws, const AppWorkspaceRun *run,
                                   const GError *error, gpointer data);

AppWorkspace *app_workspace_new(void);
void app_workspace_free(AppWorkspace *ws);

/* Sets the program text and parses it. Returns whether it parsed and verified; on failure
 * the text stays, the graph is NULL and the error (with its line and column) is kept. */
bool app_workspace_set_text(AppWorkspace *ws, const char *text, const char *filename);
/* Reads and sets a file; false with *error when it cannot be read (the program stays). */
bool app_workspace_load_file(AppWorkspace *ws, const char *path, GError **error);
const char *app_workspace_text(const AppWorkspace *ws);
const char *app_workspace_filename(const AppWorkspace *ws);
const IrGraph *app_workspace_graph(const AppWorkspace *ws);
/* The parse/verify error of the current text, or NULL. line and col count from 1 (0 when the
 * error has no location). */
const GError *app_workspace_parse_error(const AppWorkspace *ws, int *line, int *col);

/* Spec lines, each `SPEC; SPEC; ...` in the graph's input order. */
void app_workspace_set_specs(AppWorkspace *ws, char *const *lines, guint n);
guint app_workspace_n_specs(const AppWorkspace *ws);
const char *app_workspace_spec(const AppWorkspace *ws, guint index);
void app_workspace_set_seed(AppWorkspace *ws, guint64 seed);
guint64 app_workspace_seed(const AppWorkspace *ws);

/* Splits a spec line at ';' (outside parentheses and brackets), trimming blanks. */
GPtrArray *app_workspace_split_spec_line(const char *line);

/* Runs on the calling thread; the result becomes the current run. NULL with *error when
 * nothing could run (no program, no specs); per-spec failures are in the result. */
const AppWorkspaceRun *app_workspace_run_sync(AppWorkspace *ws, GError **error);
/* Starts a run on a worker thread; callbacks arrive on `context` (NULL: the default one).
 * False with *error when nothing can run or a run is already in flight. */
bool app_workspace_run_async(AppWorkspace *ws, GMainContext *context,
                             AppWorkspaceProgressFn progress, AppWorkspaceDoneFn done,
                             gpointer data, GError **error);
bool app_workspace_running(const AppWorkspace *ws);
/* Asks the in-flight run to stop: the current spec's run stops before its next node
 * (runtime/run_control.h) and no further spec starts. */
void app_workspace_cancel(AppWorkspace *ws);

const AppWorkspaceRun *app_workspace_last_run(const AppWorkspace *ws);

/* The stage before `index` in the same plan, or NULL for the first stage. */
const AppWorkspaceStage *app_workspace_plan_stage(const AppWorkspacePlan *plan, guint index);

void app_workspace_run_free(AppWorkspaceRun *run);

/* A stage's fingerprint (AppWorkspaceStage.fingerprint) from its IR text and graph (NULL:
 * the text alone); a new string. */
char *app_workspace_stage_fingerprint(const char *ir, const IrGraph *graph);

/* What the inspector shows for a node: kind, origin and DOT id, schema, the node's line,
 * inputs (schema argument names, types, constants marked) and outputs (types, use counts),
 * blocks and source location. */
char *app_workspace_describe_node(const IrNode *node, const char *id);

/* ---- node inspection (workspace_node.c) ---- */

/* What the inspector shows for a plan: its title and stage count, the spec whose run
 * compiled it with outputs and gradients, what the fuser ran, a hint to click a node. */
char *app_workspace_plan_summary(const AppWorkspaceRun *run, const AppWorkspacePlan *plan);

/* Index of the first stage of `plan` whose graph (blocks and subgraphs included) holds a
 * node with this origin, or -1. */
int app_workspace_first_stage_with(const AppWorkspacePlan *plan, guint64 origin);
/* The node's history through the plan's stages: the stage that created it (the first
 * snapshot containing its origin), the stages that changed its line, the stage that removed
 * it (or that it survives to the final graph). */
char *app_workspace_origin_history(const AppWorkspacePlan *plan, guint64 origin);
/* The node of `graph` with this origin (the first in print order, blocks and subgraphs
 * included), or NULL. */
const IrNode *app_workspace_find_origin(const IrGraph *graph, guint64 origin);

/* The node of `copy` (an ir_graph_copy of `graph`) at the place `node` has in `graph`
 * (same position in the same blocks and subgraphs), or NULL. */
const IrNode *app_workspace_same_node(const IrGraph *copy, const IrGraph *graph,
                                      const IrNode *node);

/* A node's values after a run. Choice (documented in DESIGN's "clicking a node shows ... its
 * values"): values are not kept during the run; instead the stage's graph is re-run on the
 * plan's last_inputs by the interpreter, with a hook that catches the node's outputs (schema
 * nodes and chunks through after_node; FusionGroup and DifferentiableGraph nodes, whose
 * Subgraphs are interpreted here, when they finish). Thread-safe for distinct graphs: the
 * caller passes its own copy of the stage graph (ir_graph_copy) and a node of that copy.
 * Returns per output "%name: float32 [3, 20]
    [first values...]"; NULL with *error when
 * the plan never ran or the stage graph cannot run on those inputs (e.g. a backward plan's
 * first stages with undefined gradients). */
char *app_workspace_node_values(const IrGraph *graph, const IrNode *node, GArray *inputs,
                                GError **error);
/* One value's shape and first values after a run, as app_workspace_node_values writes
 * them ("%name: float32 [3, 20] ..."): its producer's output caught in the re-run; a graph
 * input straight from `inputs`; an input of a Subgraph body (FusionGroup,
 * DifferentiableGraph) as the owner node's input. An input of an If/Loop/GradOf block is not
 * reported (NULL with *error saying so). `value` belongs to `graph` (the caller's copy). */
char *app_workspace_value_values(const IrGraph *graph, const IrValue *value, GArray *inputs,
                                 GError **error);
/* What the inspector shows for a value (an edge of the canvas): its name and type, its
 * producer (kind, line and source location; an input of a graph or block says which), and
 * every user with the input it feeds. `id` is the canvas id. */
char *app_workspace_describe_value(const IrValue *value, const char *id);
/* Copies RtValues (references taken); NULL for NULL. */
GArray *app_workspace_values_copy(const GArray *values);
void app_workspace_values_free(GArray *values);

/* What the CUDA side makes of a FusionGroup node (cuda_report_group, as `jitscope kernels`).
 * `compile`: run nvrtc where it loads. When nvrtc did not run, `log` says why in a line of its
 * own ("not compiled: ..."). Never fails: reasons are in the fields; free with
 * cuda_kernel_report_free. */
CudaKernelReport *app_workspace_group_kernel(const IrNode *group, bool compile);
/* The fuser record of the group with this origin, or NULL (the group never ran). */
const AppWorkspaceFuserRecord *app_workspace_fuser_record(const AppWorkspacePlan *plan,
                                                          guint64 origin);

/* ---- differences between plans (the compare view) ---- */

/* A node's structural signature: its kind and attributes (its line's right-hand side up to
 * the inputs) combined with its inputs' signatures (producer signature and output index;
 * block inputs by position), so that names, value ids and types do not matter. `memo` maps
 * const IrNode* to a heap guint64 (made with app_workspace_signature_memo_new). */
GHashTable *app_workspace_signature_memo_new(void);
guint64 app_workspace_node_signature(const IrNode *node, GHashTable *memo);
/* Nodes of graphs[index] (blocks and subgraphs included) that are "not in every plan": whose
 * signature occurs more often in graphs[index] than in some other non-NULL graph of the
 * array. Returns a set of const IrNode*. */
GHashTable *app_workspace_unshared_nodes(const IrGraph *const *graphs, guint n, guint index);

#endif
