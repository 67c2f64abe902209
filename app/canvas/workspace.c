/* The workbench model (contract in workspace.h). */
#include "workspace.h"

#include "graph_file.h"

#include <stdio.h>
#include <string.h>

#include "exec/memory_plan.h"
#include "fuser/fuser.h"
#include "graph_inputs.h"
#include "ir/text.h"
#include "ir/verify.h"
#include "passes/module_lowering.h"
#include "run_result.h"
#include "runtime/autograd.h"
#include "runtime/file_read.h"
#include "runtime/run_control.h"
#include "tensor/rng.h"
#include "value_text.h"

G_DEFINE_QUARK(app - workspace - error - quark, app_workspace_error)

typedef struct Job Job;

struct AppWorkspace {
  char *text;
  char *filename;
  IrGraph *graph;
  GError *parse_error;
  int error_line, error_col;
  GPtrArray *specs; /* of char* */
  guint64 seed;
  AppWorkspaceRun *run;
  Job *job; /* the run in flight, or NULL */
};

/* A run in flight. The worker owns it until it posts completion; the main context frees it
 * in the completion callback. `ws` is cleared (on the main context) when the workspace goes
 * away first. */
struct Job {
  AppWorkspace *ws;
  GMainContext *context;
  IrGraph *graph; /* owned copy */
  GPtrArray *specs;
  guint64 seed;
  gint cancelled;
  AppWorkspaceProgressFn progress;
  AppWorkspaceDoneFn done;
  gpointer data;
  AppWorkspaceRun *run;
  GError *error;
  GThread *thread;
};

/* ---- plans and stages ---- */

static void stage_free(AppWorkspaceStage *stage) {
  g_free(stage->name);
  g_free(stage->group);
  g_free(stage->ir);
  g_free(stage->fingerprint);
  if (stage->graph)
    ir_graph_free(stage->graph);
  g_free(stage);
}

static void group_free(AppWorkspaceGroup *group) {
  g_free(group->name);
  g_free(group);
}

static void record_free(AppWorkspaceFuserRecord *record) {
  g_free(record->group_name);
  g_free(record->backend);
  g_free(record->fallback_reason);
  g_free(record);
}

static void plan_free(AppWorkspacePlan *plan) {
  g_ptr_array_unref(plan->fusion_groups);
  g_ptr_array_unref(plan->fuser_records);
  g_free(plan->fuser_summary);
  app_workspace_values_free(plan->last_inputs);
  g_free(plan->graph_name);
  g_free(plan->spec_text);
  g_free(plan->title);
  g_ptr_array_unref(plan->stages);
  g_ptr_array_unref(plan->diff_groups);
  g_free(plan);
}

static void spec_result_free(AppWorkspaceSpecResult *r) {
  g_free(r->line);
  g_ptr_array_unref(r->backward);
  g_free(r->outputs_text);
  g_free(r->grads_text);
  g_free(r->device_note);
  g_free(r->error);
  g_free(r);
}

void app_workspace_run_free(AppWorkspaceRun *run) {
  if (!run)
    return;
  g_ptr_array_unref(run->specs);
  g_ptr_array_unref(run->plans);
  g_free(run);
}

const AppWorkspaceStage *app_workspace_plan_stage(const AppWorkspacePlan *plan, guint index) {
  if (index == 0 || index > plan->stages->len)
    return NULL;
  return g_ptr_array_index(plan->stages, index - 1);
}

/* ---- the workspace ---- */

AppWorkspace *app_workspace_new(void) {
  AppWorkspace *ws = g_new0(AppWorkspace, 1);
  ws->text = g_strdup("");
  ws->filename = g_strdup("<program>");
  ws->specs = g_ptr_array_new_with_free_func(g_free);
  return ws;
}

void app_workspace_free(AppWorkspace *ws) {
  if (!ws)
    return;
  if (ws->job) {
    g_atomic_int_set(&ws->job->cancelled, 1);
    ws->job->ws = NULL;
  }
  g_free(ws->text);
  g_free(ws->filename);
  if (ws->graph)
    ir_graph_free(ws->graph);
  g_clear_error(&ws->parse_error);
  g_ptr_array_unref(ws->specs);
  app_workspace_run_free(ws->run);
  g_free(ws);
}

/* "FILE:LINE:COL: error: ..." -> LINE, COL. */
static void locate_error(const char *message, const char *filename, int *line, int *col) {
  *line = *col = 0;
  if (!g_str_has_prefix(message, filename))
    return;
  const char *p = message + strlen(filename);
  if (*p != ':')
    return;
  if (sscanf(p, ":%d:%d", line, col) < 1)
    *line = *col = 0;
}

bool app_workspace_set_text(AppWorkspace *ws, const char *text, const char *filename) {
  char *copy = g_strdup(text ? text : "");
  g_free(ws->text);
  ws->text = copy;
  if (filename) {
    char *name = g_strdup(filename);
    g_free(ws->filename);
    ws->filename = name;
  }
  if (ws->graph)
    ir_graph_free(ws->graph);
  ws->graph = NULL;
  g_clear_error(&ws->parse_error);
  ws->error_line = ws->error_col = 0;

  GError *error = NULL;
  IrGraph *graph = app_program_parse(ws->text, strlen(ws->text), ws->filename, NULL, &error);
  if (graph && !ir_graph_verify(graph, &error)) {
    GError *wrapped = g_error_new(JITSCOPE_VERIFY_ERROR, error->code,
                                  "%s: error: invalid graph: %s", ws->filename, error->message);
    g_error_free(error);
    error = wrapped;
    ir_graph_free(graph);
    graph = NULL;
  }
  if (!graph) {
    ws->parse_error = error;
    locate_error(error->message, ws->filename, &ws->error_line, &ws->error_col);
    return false;
  }
  /* Calls with a known definition (a .py's F.cross_entropy or its other defs, a functional a
   * module graph calls) are inlined and a module graph's attribute reads become inputs named
   * by their paths (`self.fc.weight`, after the others), as the command line does before a
   * run: the interpreter has no kernel for prim::CallFunction or prim::GetAttr. */
  pass_inline_calls(graph, NULL);
  GError *lowering = NULL;
  if (!pass_lower_module_attributes(graph, NULL, &lowering)) {
    ws->parse_error =
        g_error_new(JITSCOPE_VERIFY_ERROR, 0, "%s: error: %s", ws->filename, lowering->message);
    g_error_free(lowering);
    ir_graph_free(graph);
    return false;
  }
  ws->graph = graph;
  return true;
}

bool app_workspace_load_file(AppWorkspace *ws, const char *path, GError **error) {
  g_autofree char *text = NULL;
  gsize length = 0;
  if (!rt_file_read_regular(path, RT_FILE_READ_FOLLOW_SYMLINKS, &text, &length, error))
    return false;
  if (!g_utf8_validate(text, (gssize)length, NULL)) {
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s is not UTF-8 text", path);
    return false;
  }
  app_workspace_set_text(ws, text, path);
  return true;
}

const char *app_workspace_text(const AppWorkspace *ws) {
  return ws->text;
}
const char *app_workspace_filename(const AppWorkspace *ws) {
  return ws->filename;
}
const IrGraph *app_workspace_graph(const AppWorkspace *ws) {
  return ws->graph;
}

const GError *app_workspace_parse_error(const AppWorkspace *ws, int *line, int *col) {
  if (line)
    *line = ws->error_line;
  if (col)
    *col = ws->error_col;
  return ws->parse_error;
}

void app_workspace_set_specs(AppWorkspace *ws, char *const *lines, guint n) {
  g_ptr_array_set_size(ws->specs, 0);
  for (guint i = 0; i < n; i++)
    g_ptr_array_add(ws->specs, g_strdup(lines[i]));
}

guint app_workspace_n_specs(const AppWorkspace *ws) {
  return ws->specs->len;
}
const char *app_workspace_spec(const AppWorkspace *ws, guint index) {
  return index < ws->specs->len ? g_ptr_array_index(ws->specs, index) : NULL;
}
void app_workspace_set_seed(AppWorkspace *ws, guint64 seed) {
  ws->seed = seed;
}
guint64 app_workspace_seed(const AppWorkspace *ws) {
  return ws->seed;
}
const AppWorkspaceRun *app_workspace_last_run(const AppWorkspace *ws) {
  return ws->run;
}
bool app_workspace_running(const AppWorkspace *ws) {
  return ws->job != NULL;
}

void app_workspace_cancel(AppWorkspace *ws) {
  if (ws->job) {
    g_atomic_int_set(&ws->job->cancelled, 1);
    rt_run_cancel(); /* the spec running now stops before its next node */
  }
}

GPtrArray *app_workspace_split_spec_line(const char *line) {
  GPtrArray *parts = g_ptr_array_new_with_free_func(g_free);
  int depth = 0;
  const char *start = line;
  for (const char *p = line;; p++) {
    if (*p == '(' || *p == '[')
      depth++;
    else if ((*p == ')' || *p == ']') && depth > 0)
      depth--;
    if (*p == '\0' || (*p == ';' && depth == 0)) {
      g_autofree char *part = g_strstrip(g_strndup(start, (gsize)(p - start)));
      if (*part)
        g_ptr_array_add(parts, g_steal_pointer(&part));
      if (*p == '\0')
        break;
      start = p + 1;
    }
  }
  return parts;
}

static void checksum_origins(GChecksum *sum, const IrBlock *block) {
  IR_FOR_EACH_NODE(n, block) {
    guint64 origin = GUINT64_TO_LE(n->origin);
    g_checksum_update(sum, (const guchar *)&origin, sizeof origin);
    for (guint b = 0; b < ir_n_blocks(n); b++)
      checksum_origins(sum, ir_block(n, b));
    const IrAttr *sub = ir_node_attr(n, IR_ATTR_SUBGRAPH);
    if (sub && sub->kind == IR_ATTR_G)
      checksum_origins(sum, sub->v.g->block);
  }
}

char *app_workspace_stage_fingerprint(const char *ir, const IrGraph *graph) {
  g_autoptr(GChecksum) sum = g_checksum_new(G_CHECKSUM_SHA256);
  g_checksum_update(sum, (const guchar *)(ir ? ir : ""), -1);
  if (graph)
    checksum_origins(sum, graph->block);
  return g_strdup(g_checksum_get_string(sum));
}

/* ---- running ---- */

/* Stage graphs captured by the session's stage hook, per plan (pointer) in stage order. */
typedef struct {
  GHashTable *graphs; /* ExecPlan* -> GPtrArray of IrGraph* */
} Capture;

static void capture_stage(ExecPlan *plan, const char *stage_name, IrGraph *graph, void *data) {
  Capture *capture = data;
  GPtrArray *list = g_hash_table_lookup(capture->graphs, plan);
  if (!list) {
    list = g_ptr_array_new_with_free_func((GDestroyNotify)ir_graph_free);
    g_hash_table_insert(capture->graphs, plan, list);
  }
  g_ptr_array_add(list, ir_graph_copy(graph));
}

static char *plan_title(const ExecPlan *plan) {
  return g_strdup_printf("%s %s [%s]", plan->kind == EXEC_PLAN_FORWARD ? "forward" : "backward",
                         plan->graph_name, plan->spec_text);
}

/* FusionGroups of a final graph in print order: top block and nested blocks, then inside
 * each DifferentiableGraph's Subgraph (named "DifferentiableGraph_K/FusionGroup_N"). */
static void find_groups(const AppWorkspacePlan *wp, const IrBlock *block, const char *prefix,
                        guint *groups, guint *diffs) {
  IR_FOR_EACH_NODE(n, block) {
    if (n->kind == IR_PRIM_FUSION_GROUP) {
      AppWorkspaceGroup *g = g_new0(AppWorkspaceGroup, 1);
      g->name = g_strdup_printf("%sFusionGroup_%u", prefix, (*groups)++);
      g->origin = n->origin;
      g->first_stage = app_workspace_first_stage_with(wp, n->origin);
      const IrGraph *kernel = ir_node_attr_g(n, IR_ATTR_SUBGRAPH);
      g->n_nodes = kernel ? ir_graph_count_nodes(kernel) : 0;
      g_ptr_array_add(wp->fusion_groups, g);
    } else if (n->kind == IR_PRIM_DIFFERENTIABLE_GRAPH && ir_node_attr(n, IR_ATTR_SUBGRAPH)) {
      g_autofree char *inner = g_strdup_printf("%sDifferentiableGraph_%u/", prefix, (*diffs)++);
      guint g = 0, d = 0;
      find_groups(wp, ir_node_attr_g(n, IR_ATTR_SUBGRAPH)->block, inner, &g, &d);
    }
    for (guint b = 0; b < ir_n_blocks(n); b++)
      find_groups(wp, ir_block(n, b), prefix, groups, diffs);
  }
}

/* Per plan of the session, what the fuser ran and the plan's latest inputs; called once the
 * run is over (a plan compiled by one spec may run again for a later one). */
static void collect_run_state(ExecSession *session, GHashTable *plan_map) {
  for (guint p = 0; p < session->plans->len; p++) {
    ExecPlan *plan = g_ptr_array_index(session->plans, p);
    AppWorkspacePlan *wp = g_hash_table_lookup(plan_map, plan);
    if (!wp)
      continue;
    wp->last_inputs = app_workspace_values_copy(plan->last_inputs);
    g_free(wp->fuser_summary);
    wp->fuser_summary = fuser_plan_records_describe(plan->fuser);
    GHashTable *records = fuser_plan_records(plan->fuser);
    if (!records)
      continue;
    GHashTableIter iter;
    gpointer key, value;
    g_hash_table_iter_init(&iter, records);
    while (g_hash_table_iter_next(&iter, &key, &value)) {
      const IrNode *group = key;
      const FuserGroupRecord *r = value;
      AppWorkspaceFuserRecord *copy = g_new0(AppWorkspaceFuserRecord, 1);
      copy->origin = group->origin;
      copy->group_name = g_strdup(r->group_name);
      copy->backend = g_strdup(r->backend);
      copy->fallback_reason = g_strdup(r->fallback_reason);
      copy->runs = r->runs;
      copy->last_ms = r->last_ms;
      g_ptr_array_add(wp->fuser_records, copy);
    }
  }
}

/* Converts the session's plans from `from` on into workspace plans (appended to run->plans),
 * taking the captured graphs. */
static void collect_plans(ExecSession *session, guint from, Capture *capture, AppWorkspaceRun *run,
                          GHashTable *plan_map) {
  for (guint p = from; p < session->plans->len; p++) {
    ExecPlan *plan = g_ptr_array_index(session->plans, p);
    AppWorkspacePlan *wp = g_new0(AppWorkspacePlan, 1);
    wp->kind = plan->kind;
    wp->graph_name = g_strdup(plan->graph_name);
    wp->spec_text = g_strdup(plan->spec_text);
    wp->title = plan_title(plan);
    wp->stages = g_ptr_array_new_with_free_func((GDestroyNotify)stage_free);
    wp->diff_groups = g_ptr_array_new_with_free_func(g_free);
    wp->fusion_groups = g_ptr_array_new_with_free_func((GDestroyNotify)group_free);
    wp->fuser_records = g_ptr_array_new_with_free_func((GDestroyNotify)record_free);
    wp->fuser_summary = g_strdup("");
    const ExecMemoryPlan *memory = exec_plan_memory(plan);
    if (memory) {
      wp->has_memory_plan = true;
      wp->memory_peak_bytes = memory->peak_bytes;
      wp->memory_unshared_bytes = memory->unshared_bytes;
      wp->memory_buffers = memory->buffer_bytes->len;
    }
    GPtrArray *graphs = g_hash_table_lookup(capture->graphs, plan);
    for (guint s = 0; s < plan->stages->len; s++) {
      ExecStage *es = g_ptr_array_index(plan->stages, s);
      AppWorkspaceStage *stage = g_new0(AppWorkspaceStage, 1);
      stage->name = g_strdup(es->name);
      stage->group = g_strdup(es->group);
      stage->changed = es->changed;
      stage->ms = es->ms;
      stage->ir = g_strdup(es->ir);
      if (graphs && s < graphs->len)
        stage->graph = g_steal_pointer(&graphs->pdata[s]);
      stage->fingerprint = app_workspace_stage_fingerprint(stage->ir, stage->graph);
      g_ptr_array_add(wp->stages, stage);
    }
    IR_FOR_EACH_NODE(node, plan->graph->block) {
      if (node->kind == IR_PRIM_DIFFERENTIABLE_GRAPH) {
        ExecDiffState *state = g_hash_table_lookup(plan->diff_states, node);
        g_ptr_array_add(wp->diff_groups, g_strdup(state ? state->name : ir_kind_name(node->kind)));
      }
    }
    if (wp->stages->len > 0) {
      const AppWorkspaceStage *last = g_ptr_array_index(wp->stages, wp->stages->len - 1);
      guint groups = 0, diffs = 0;
      if (last->graph)
        find_groups(wp, last->graph->block, "", &groups, &diffs);
    }
    g_hash_table_insert(plan_map, plan, wp);
    g_ptr_array_add(run->plans, wp);
  }
  g_hash_table_remove_all(capture->graphs);
}

static void flatten_tensors(RtValue v, GPtrArray *out) {
  if (v.tag == RT_TENSOR && v.u.tensor && rt_autograd_tracked(v.u.tensor))
    g_ptr_array_add(out, v.u.tensor);
  else if (v.tag == RT_TUPLE || v.tag == RT_LIST)
    for (guint i = 0; i < v.u.seq->len; i++)
      flatten_tensors(v.u.seq->items[i], out);
  else if (v.tag == RT_DICT)
    for (guint i = 0; i < v.u.dict->len; i++)
      flatten_tensors(v.u.dict->values[i], out);
}

/* One spec line: forward run, then backward seeded with ones when an output is tracked. */
static void run_spec(ExecSession *session, ExecExecutor *executor, const IrGraph *graph,
                     const char *line, guint64 seed, AppWorkspaceRun *run, Capture *capture,
                     GHashTable *plan_map) {
  AppWorkspaceSpecResult *r = g_new0(AppWorkspaceSpecResult, 1);
  r->line = g_strdup(line);
  r->backward = g_ptr_array_new();
  g_ptr_array_add(run->specs, r);
  gint64 started = g_get_monotonic_time();

  GPtrArray *parts = app_workspace_split_spec_line(line);
  GError *error = NULL;
  AppInputs *inputs = app_inputs_bind(graph, (char *const *)parts->pdata, parts->len, seed, &error);
  g_ptr_array_unref(parts);
  RtValue *outputs = NULL;
  guint n_outputs = 0;
  guint before = session->plans->len;
  if (!inputs)
    goto fail;
  /* device=cuda inputs go to the GPU as in every command (app_inputs_place). */
  GPtrArray *notes = g_ptr_array_new_with_free_func(g_free);
  app_inputs_place(inputs, notes, NULL);
  if (notes->len)
    r->device_note = g_strdup(g_ptr_array_index(notes, 0));
  g_ptr_array_unref(notes);

  ExecPlan *plan = exec_executor_plan_for(executor, (RtValue *)inputs->values->data,
                                          inputs->values->len, &error);
  if (!plan) {
    collect_plans(session, before, capture, run, plan_map);
    goto fail;
  }
  r->forward_cached = session->plans->len == before;
  rt_generator_manual_seed(seed); /* random ops draw as after torch.manual_seed(seed) */
  bool ran = exec_executor_run(executor, (RtValue *)inputs->values->data, inputs->values->len,
                               &outputs, &n_outputs, &error);
  collect_plans(session, before, capture, run, plan_map);
  r->forward = g_hash_table_lookup(plan_map, plan);
  if (!ran)
    goto fail;

  AppRunResult *result = app_run_result_new(outputs, n_outputs, inputs->values->len);
  GString *text = g_string_new(NULL);
  for (guint i = 0; i < result->outputs->len; i++) {
    g_string_append_printf(text, "output %u: ", i);
    value_text_append(text, g_array_index(result->outputs, RtValue, i), 2);
    g_string_append_c(text, '\n');
  }
  r->outputs_text = g_string_free(text, FALSE);

  GPtrArray *roots = g_ptr_array_new();
  for (guint i = 0; i < n_outputs; i++)
    flatten_tensors(outputs[i], roots);
  if (roots->len > 0) {
    guint n_in = inputs->values->len;
    RtTensor **leaves = g_new0(RtTensor *, n_in);
    RtTensor **grads = g_new0(RtTensor *, n_in);
    for (guint i = 0; i < n_in; i++) {
      RtValue v = g_array_index(inputs->values, RtValue, i);
      leaves[i] = v.tag == RT_TENSOR ? v.u.tensor : NULL;
    }
    guint before_backward = session->plans->len;
    bool ok = exec_session_backward(session, (RtTensor **)roots->pdata, NULL, roots->len, leaves,
                                    n_in, grads, &error);
    guint first_new = run->plans->len;
    collect_plans(session, before_backward, capture, run, plan_map);
    for (guint p = first_new; p < run->plans->len; p++)
      g_ptr_array_add(r->backward, g_ptr_array_index(run->plans, p));
    if (ok) {
      GString *g = g_string_new(NULL);
      for (guint i = 0; i < n_in; i++) {
        g_string_append_printf(g, "grad %u: ", i);
        if (grads[i])
          value_text_append(g, rt_tensor(grads[i]), 2);
        else
          g_string_append(g, "none");
        g_string_append_c(g, '\n');
        if (grads[i])
          rt_tensor_unref(grads[i]);
      }
      r->grads_text = g_string_free(g, FALSE);
    }
    g_free(leaves);
    g_free(grads);
  }
  g_ptr_array_unref(roots);
  app_run_result_free(result);
  if (error)
    goto fail;
  goto out;

fail:
  r->error = g_strdup(error ? error->message : "failed");
  run->n_failed++;
out:
  g_clear_error(&error);
  for (guint i = 0; i < n_outputs; i++)
    rt_value_unref(outputs[i]);
  g_free(outputs);
  app_inputs_free(inputs);
  r->ms = (double)(g_get_monotonic_time() - started) / 1000.0;
}

/* Callbacks reach the main context through idle sources, never g_main_context_invoke (which
 * would run them on the worker when nobody owns the context). Their priorities are above
 * GTK's redraws (GDK_PRIORITY_REDRAW): with software GL every frame is expensive, and a
 * result posted below the redraws would wait for as long as anything keeps animating. */
static void post(GMainContext *context, int priority, GSourceFunc fn, gpointer data,
                 GDestroyNotify notify) {
  GSource *source = g_idle_source_new();
  g_source_set_priority(source, priority);
  g_source_set_callback(source, fn, data, notify);
  g_source_attach(source, context);
  g_source_unref(source);
}

typedef struct {
  Job *job;
  guint done, total;
  char *message;
} Progress;

static gboolean deliver_progress(gpointer data) {
  Progress *p = data;
  if (p->job->ws && p->job->progress)
    p->job->progress(p->job->ws, p->done, p->total, p->message, p->job->data);
  return G_SOURCE_REMOVE;
}

static void progress_free(gpointer data) {
  Progress *p = data;
  g_free(p->message);
  g_free(p);
}

/* The run itself, on whatever thread calls it. `job` may be NULL (synchronous runs). */
static AppWorkspaceRun *execute(const IrGraph *graph, GPtrArray *specs, guint64 seed, Job *job) {
  AppWorkspaceRun *run = g_new0(AppWorkspaceRun, 1);
  run->plans = g_ptr_array_new_with_free_func((GDestroyNotify)plan_free);
  run->specs = g_ptr_array_new_with_free_func((GDestroyNotify)spec_result_free);
  run->seed = seed;
  gint64 started = g_get_monotonic_time();

  Capture capture = {g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL,
                                           (GDestroyNotify)g_ptr_array_unref)};
  GHashTable *plan_map = g_hash_table_new(g_direct_hash, g_direct_equal);
  ExecSession *session = exec_session_new();
  session->fuse = true;
  session->record_inputs = true;
  session->stage_hook = capture_stage;
  session->stage_hook_data = &capture;
  ExecExecutor *executor = exec_executor_new(session, graph, "main", EXEC_PLAN_FORWARD);
  for (guint i = 0; i < specs->len; i++) {
    if (job && g_atomic_int_get(&job->cancelled)) {
      AppWorkspaceSpecResult *r = g_new0(AppWorkspaceSpecResult, 1);
      r->line = g_strdup(g_ptr_array_index(specs, i));
      r->backward = g_ptr_array_new();
      r->error = g_strdup("cancelled");
      run->n_failed++;
      g_ptr_array_add(run->specs, r);
      continue;
    }
    if (job) {
      Progress *p = g_new0(Progress, 1);
      p->job = job;
      p->done = i;
      p->total = specs->len;
      p->message = g_strdup_printf("spec %u: %s", i + 1, (char *)g_ptr_array_index(specs, i));
      post(job->context, G_PRIORITY_HIGH, deliver_progress, p, progress_free);
    }
    run_spec(session, executor, graph, g_ptr_array_index(specs, i), seed, run, &capture, plan_map);
  }
  collect_run_state(session, plan_map);
  exec_session_free(session);
  g_hash_table_destroy(plan_map);
  g_hash_table_destroy(capture.graphs);
  run->ms = (double)(g_get_monotonic_time() - started) / 1000.0;
  return run;
}

static bool can_run(const AppWorkspace *ws, GError **error) {
  if (ws->job) {
    g_set_error(error, APP_WORKSPACE_ERROR, APP_WORKSPACE_ERROR_BUSY, "a run is in progress");
    return false;
  }
  if (!ws->graph) {
    g_set_error(error, APP_WORKSPACE_ERROR, APP_WORKSPACE_ERROR_NO_PROGRAM,
                "the program does not parse: %s",
                ws->parse_error ? ws->parse_error->message : "no program");
    return false;
  }
  if (ws->specs->len == 0) {
    g_set_error(error, APP_WORKSPACE_ERROR, APP_WORKSPACE_ERROR_NO_SPECS,
                "no input specs: add one line of 'SPEC; SPEC; ...'");
    return false;
  }
  return true;
}

const AppWorkspaceRun *app_workspace_run_sync(AppWorkspace *ws, GError **error) {
  if (!can_run(ws, error))
    return NULL;
  AppWorkspaceRun *run = execute(ws->graph, ws->specs, ws->seed, NULL);
  app_workspace_run_free(ws->run);
  ws->run = run;
  return run;
}

static gboolean deliver_done(gpointer data) {
  Job *job = data;
  g_thread_join(job->thread);
  AppWorkspace *ws = job->ws;
  if (ws) {
    ws->job = NULL;
    if (job->run) {
      app_workspace_run_free(ws->run);
      ws->run = g_steal_pointer(&job->run);
    }
    if (job->done)
      job->done(ws, ws->run, job->error, job->data);
  }
  app_workspace_run_free(job->run);
  g_clear_error(&job->error);
  ir_graph_free(job->graph);
  g_ptr_array_unref(job->specs);
  g_main_context_unref(job->context);
  g_free(job);
  return G_SOURCE_REMOVE;
}

static gpointer worker(gpointer data) {
  Job *job = data;
  job->run = execute(job->graph, job->specs, job->seed, job);
  /* Lower than progress: every progress report is delivered before completion frees the job. */
  post(job->context, G_PRIORITY_DEFAULT, deliver_done, job, NULL);
  return NULL;
}

bool app_workspace_run_async(AppWorkspace *ws, GMainContext *context,
                             AppWorkspaceProgressFn progress, AppWorkspaceDoneFn done,
                             gpointer data, GError **error) {
  if (!can_run(ws, error))
    return false;
  Job *job = g_new0(Job, 1);
  job->ws = ws;
  job->context = g_main_context_ref(context ? context : g_main_context_default());
  job->graph = ir_graph_copy(ws->graph);
  job->specs = g_ptr_array_new_with_free_func(g_free);
  for (guint i = 0; i < ws->specs->len; i++)
    g_ptr_array_add(job->specs, g_strdup(g_ptr_array_index(ws->specs, i)));
  job->seed = ws->seed;
  job->progress = progress;
  job->done = done;
  job->data = data;
  ws->job = job;
  rt_run_clear_cancel(); /* one run at a time: a cancel of the previous one is over */
  job->thread = g_thread_new("jitscope-run", worker, job);
  return true;
}

char *app_workspace_describe_node(const IrNode *node, const char *id) {
  GString *text = g_string_new(NULL);
  g_string_append_printf(text, "%s   (origin %" G_GUINT64_FORMAT ", id %s)\n",
                         ir_kind_name(node->kind), node->origin, id ? id : "?");
  if (node->schema) {
    g_string_append(text, "schema: ");
    ir_schema_print(text, node->schema);
    g_string_append_c(text, '\n');
  }
  g_string_append(text, "node:   ");
  ir_node_print_line(text, node);
  g_string_append(text, "\ninputs:\n");
  for (guint i = 0; i < node->inputs->len; i++) {
    const IrValue *v = g_ptr_array_index(node->inputs, i);
    char buf[32];
    g_autofree char *type = ir_type_to_string(v->type);
    const char *arg = node->schema && i < node->schema->n_args ? node->schema->args[i].name : "";
    g_string_append_printf(text, "  %-10s %%%s : %s%s\n", arg, ir_value_display_name(v, buf), type,
                           v->node->kind == IR_PRIM_CONSTANT ? "  (constant)" : "");
  }
  g_string_append(text, "outputs:\n");
  for (guint i = 0; i < node->outputs->len; i++) {
    const IrValue *v = g_ptr_array_index(node->outputs, i);
    char buf[32];
    g_autofree char *type = ir_type_to_string(v->type);
    g_string_append_printf(text, "  %%%s : %s  (%u uses)\n", ir_value_display_name(v, buf), type,
                           v->uses->len);
  }
  if (ir_n_blocks(node))
    g_string_append_printf(text, "blocks: %u\n", ir_n_blocks(node));
  if (node->source)
    g_string_append_printf(text, "source: %s\n", node->source);
  return g_string_free(text, FALSE);
}

/* "aten::mul (origin 7) %t : Tensor = aten::mul(%s, %s)" */
static void append_node_line(GString *text, const IrNode *node) {
  g_string_append_printf(text, "%s (origin %" G_GUINT64_FORMAT ")  ", ir_kind_name(node->kind),
                         node->origin);
  ir_node_print_line(text, node);
  if (node->source)
    g_string_append_printf(text, "\n      source: %s", node->source);
}

char *app_workspace_describe_value(const IrValue *value, const char *id) {
  GString *text = g_string_new(NULL);
  char buf[32];
  g_autofree char *type = ir_type_to_string(value->type);
  g_string_append_printf(text, "%%%s : %s   (id %s)\n", ir_value_display_name(value, buf), type,
                         id ? id : "?");
  g_string_append(text, "producer: ");
  const IrNode *producer = value->node;
  const IrBlock *block = producer->owning_block;
  if (producer->kind == IR_PRIM_PARAM && block && block->owning_node)
    g_string_append_printf(text, "input %u of a block of %s (origin %" G_GUINT64_FORMAT ")",
                           value->offset, ir_kind_name(block->owning_node->kind),
                           block->owning_node->origin);
  else if (producer->kind == IR_PRIM_PARAM)
    g_string_append_printf(text, "graph input %u", value->offset);
  else {
    append_node_line(text, producer);
    if (producer->outputs->len > 1)
      g_string_append_printf(text, "\n      output %u of %u", value->offset + 1,
                             producer->outputs->len);
  }
  g_string_append_printf(text, "\nusers (%u):\n", value->uses->len);
  for (guint i = 0; i < value->uses->len; i++) {
    const IrUse *use = &g_array_index(value->uses, IrUse, i);
    const IrNode *user = use->user;
    const char *arg = user->schema && use->index < user->schema->n_args
                          ? user->schema->args[use->index].name
                          : NULL;
    if (user->owning_block && user == user->owning_block->ret) {
      const IrNode *owner = user->owning_block ? user->owning_block->owning_node : NULL;
      if (owner)
        g_string_append_printf(text,
                               "  output %u of a block of %s (origin %" G_GUINT64_FORMAT ")\n",
                               use->index, ir_kind_name(owner->kind), owner->origin);
      else
        g_string_append_printf(text, "  returned as output %u\n", use->index);
      continue;
    }
    g_string_append_printf(text, "  input %u%s%s%s of ", use->index, arg ? " (" : "",
                           arg ? arg : "", arg ? ")" : "");
    append_node_line(text, user);
    g_string_append_c(text, '\n');
  }
  return g_string_free(text, FALSE);
}
