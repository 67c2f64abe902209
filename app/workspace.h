/* The workbench's model without GTK (DESIGN.md, "The window"): the program (text, file name,
 * the parsed graph or the parse error with its location), the input specs (several lines of
 * `SPEC; SPEC; ...`, one seed) and the result of the last Run.
 *
 * A Run is one ExecSession with one executor for the program; per spec line a forward run
 * and, when an output takes part in autograd, a backward run seeded with ones. Every plan the
 * session compiles is kept with its stages; each stage keeps its IR text and a copy of the
 * graph carrying the nodes' origin ids (for stable drawing ids and change highlighting).
 *
 * Runs happen on a worker thread (a GThread); progress and completion are delivered as idle
 * callbacks on the GMainContext given to app_workspace_run_async. The workspace may be freed
 * while a run is in flight: the run's result is then dropped and no callback is made. */
#ifndef JITSCOPE_APP_WORKSPACE_H
#define JITSCOPE_APP_WORKSPACE_H

#include <stdbool.h>

#include "exec/executor.h"
#include "ir/ir.h"

#define APP_WORKSPACE_ERROR (app_workspace_error_quark())
GQuark app_workspace_error_quark(void);
typedef enum {
  APP_WORKSPACE_ERROR_NO_PROGRAM, /* the program did not parse */
  APP_WORKSPACE_ERROR_NO_SPECS,
  APP_WORKSPACE_ERROR_BUSY,       /* a run is in flight */
  APP_WORKSPACE_ERROR_SPEC,       /* a spec line is malformed or does not fit the graph */
  APP_WORKSPACE_ERROR_RUN,        /* compiling or running failed */
} AppWorkspaceErrorCode;

typedef struct {
  char *name;  /* "lower_grad_of", "DifferentiableGraph_0.peephole" */
  char *group;
  bool changed;
  double ms;
  char *ir;       /* the whole graph after the stage */
  IrGraph *graph; /* copy of the graph after the stage, origins kept */
} AppWorkspaceStage;

typedef struct {
  ExecPlanKind kind;
  char *graph_name; /* "main", "main/DifferentiableGraph_0/backward" */
  char *spec_text;  /* the argument spec the plan was compiled for */
  char *title;      /* what lists show: "forward main [Float(3, 10), ...]" */
  GPtrArray *stages;      /* of AppWorkspaceStage* */
  GPtrArray *diff_groups; /* of char*: "DifferentiableGraph_0"... in the final graph */
} AppWorkspacePlan;

typedef struct {
  char *line;          /* the spec line as given */
  AppWorkspacePlan *forward; /* borrowed from the run; NULL when the run failed early */
  bool forward_cached; /* the forward plan came from the executor's cache */
  GPtrArray *backward; /* of AppWorkspacePlan* (borrowed): backward plans this spec added */
  char *outputs_text;  /* outputs, as value_text writes them; NULL on error */
  char *grads_text;    /* per input its gradient or "none"; NULL without backward */
  char *error;         /* why this spec failed, or NULL */
  double ms;
} AppWorkspaceSpecResult;

typedef struct {
  GPtrArray *plans; /* of AppWorkspacePlan* (owned), compile order */
  GPtrArray *specs; /* of AppWorkspaceSpecResult* (owned), one per spec line */
  guint64 seed;
  guint n_failed;   /* specs with an error */
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
/* Asks the in-flight run to stop after its current spec. */
void app_workspace_cancel(AppWorkspace *ws);

const AppWorkspaceRun *app_workspace_last_run(const AppWorkspace *ws);

/* The stage before `index` in the same plan, or NULL for the first stage. */
const AppWorkspaceStage *app_workspace_plan_stage(const AppWorkspacePlan *plan, guint index);

void app_workspace_run_free(AppWorkspaceRun *run);

/* What the inspector shows for a node: kind, origin and DOT id, schema, the node's line,
 * inputs (schema argument names, types, constants marked) and outputs (types, use counts),
 * blocks and source location. */
char *app_workspace_describe_node(const IrNode *node, const char *id);

#endif
