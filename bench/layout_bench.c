/* Layout benchmark (DESIGN.md, "Graphviz facts that shape the canvas"): the LSTM cell
 * unrolled over T steps (about 18 nodes a step), as the canvas draws it (app_graphviz_dot:
 * constants inlined, large-graph settings), laid out through the layout service and its
 * worker process. Per size (~100, ~1,000, ~10,000 nodes):
 *   DOT ms        building the DOT text from the IR
 *   first ms      request -> first drawable scene (the coarse preview above 300 nodes)
 *   full ms       request -> final scene, and its quality (the budget, default 10 s, may end
 *                 it with cheaper dot settings or the coarse layout)
 *   cached ms     stepping to an unchanged stage: DOT text + cache lookup of the scene
 *   lookup ms     of which the cache lookup
 *   step ms       stepping to a changed stage (one node differs): DOT + first drawable
 *   app / worker  peak resident memory (MB) of this process and of the worker processes
 * Then the window's path (workspace_layout.h), per size: the program run through the
 * workspace (one spec, a forward plan of 23 stages) and its stages shown as the canvas shows
 * them (the DOT and its fingerprint cached per stage, the scene cache by that short key):
 *   first ms      showing the first stage -> first drawable scene (the preview)
 *   full ms       -> final scene, and its quality
 *   cached ms     showing an unchanged stage (the one after the first)
 *   revisit ms    showing a stage already shown
 *   changed ms    showing a changed stage (canonicalize_ops) -> first drawable scene
 * `--quick` stops after 1,000 nodes, `--max N` caps the node count (over --quick's cap),
 * `--budget MS` sets the time budget (-1: none, to time dot's own full layout).
 * Usage: layout_bench [--quick] [--max N] [--budget MS] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "bench_args.h"
#include "graphviz_dot.h"
#include "ir/text.h"
#include "layout_protocol.h"
#include "layout_service.h"
#include "unrolled_lstm.h"
#include "workspace_layout.h"

typedef struct {
  GMainLoop *loop;
  gint64 start;
  double first_ms, done_ms;
  AppSceneQuality quality;
  char *error;
  GPid last_pid;
  long worker_peak_kb;
  AppLayoutService *service;
} Wait;

static long vm_hwm_kb(GPid pid) {
  char *path = g_strdup_printf("/proc/%d/status", (int)pid);
  char *text = NULL;
  long kb = 0;
  if (g_file_get_contents(path, &text, NULL, NULL)) {
    const char *at = strstr(text, "VmHWM:");
    if (at)
      kb = atol(at + 6);
  }
  g_free(text);
  g_free(path);
  return kb;
}

static void sample_worker(Wait *w) {
  GPid pid = app_layout_service_worker_pid(w->service);
  if (pid > 0) {
    long kb = vm_hwm_kb(pid);
    if (kb > w->worker_peak_kb)
      w->worker_peak_kb = kb;
  }
}

static double since_ms(gint64 start) {
  return (double)(g_get_monotonic_time() - start) / 1000.0;
}

static void on_progress(const AppLayoutProgress *p, gpointer data) {
  Wait *w = data;
  sample_worker(w);
  if (p->preview && w->first_ms < 0)
    w->first_ms = since_ms(w->start);
}

static void on_scene(AppScene *scene, const GError *error, gpointer data) {
  Wait *w = data;
  sample_worker(w);
  w->done_ms = since_ms(w->start);
  if (w->first_ms < 0)
    w->first_ms = w->done_ms;
  if (scene)
    w->quality = scene->quality;
  else
    w->error = g_strdup(error->message);
  g_main_loop_quit(w->loop);
}

/* first: stop at the first drawable scene (the request goes on: cancelled). */
static void layout(AppLayoutService *service, const char *dot, bool first_only, Wait *w) {
  w->loop = g_main_loop_new(NULL, FALSE);
  w->start = g_get_monotonic_time();
  w->first_ms = w->done_ms = -1;
  w->service = service;
  guint id = app_layout_service_request_full(service, dot, NULL, on_scene, on_progress, w);
  if (first_only) {
    while (w->first_ms < 0)
      g_main_context_iteration(NULL, TRUE);
    app_layout_service_cancel(service, id);
  } else {
    g_main_loop_run(w->loop);
  }
  g_main_loop_unref(w->loop);
}

static long peak_rss_mb(void) {
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024;
}

static IrGraph *parse(char *text) {
  GError *error = NULL;
  IrGraph *graph = ir_graph_parse(text, strlen(text), "unrolled.ir", &error);
  g_free(text);
  if (!graph) {
    fprintf(stderr, "layout_bench: %s\n", error->message);
    exit(1);
  }
  return graph;
}

/* The same graph with its last tanh turned into a sigmoid: a stage that changed one node. */
static char *changed_variant(const char *text) {
  const char *last = NULL;
  for (const char *p = text; (p = strstr(p, "aten::tanh(%cy_")); p++)
    last = p;
  GString *s = g_string_new_len(text, last - text);
  g_string_append(s, "aten::sigmoid");
  g_string_append(s, last + strlen("aten::tanh"));
  return g_string_free(s, FALSE);
}

/* ---- the window's path ---- */

typedef struct {
  gint64 start;
  double first_ms, done_ms;
  AppSceneQuality quality;
  bool done;
} Shown;

static void on_stage_update(const AppStageUpdate *u, gpointer data) {
  Shown *w = data;
  if (u->scene && w->first_ms < 0)
    w->first_ms = since_ms(w->start);
  if (u->done) {
    w->done = true;
    w->done_ms = since_ms(w->start);
    if (u->scene)
      w->quality = u->scene->quality;
  }
}

/* Shows stage `index`; waits for the first drawable scene, or the final one when `full`. */
static Shown show(AppStageLayouts *layouts, const AppWorkspacePlan *plan, guint index, bool full) {
  Shown w = {.start = g_get_monotonic_time(), .first_ms = -1, .done_ms = -1};
  AppStageView view = {.stage = g_ptr_array_index(plan->stages, index),
                       .before = app_workspace_plan_stage(plan, index)};
  AppScene *scene = NULL;
  AppDotStats stats;
  bool have_stats;
  guint id =
      app_stage_layouts_show(layouts, &view, &scene, &stats, &have_stats, on_stage_update, &w);
  if (scene) {
    w.first_ms = w.done_ms = since_ms(w.start);
    w.quality = scene->quality;
    w.done = true;
    app_scene_unref(scene);
    return w;
  }
  while (full ? !w.done : w.first_ms < 0)
    g_main_context_iteration(NULL, TRUE);
  if (!w.done)
    app_stage_layouts_cancel(layouts, id);
  return w;
}

static int window_path(guint max_nodes, int budget) {
  const guint steps[] = {5, 52, 526};
  AppLayoutService *service = app_layout_service_new(NULL);
  if (budget)
    app_layout_service_set_budget(service, budget);
  AppStageLayouts *layouts = app_stage_layouts_new(service);
  printf("\nthe window's path (workspace run, stages shown through workspace_layout.h)\n");
  printf("%7s %9s %10s %-7s %10s %11s %11s\n", "nodes", "first ms", "full ms", "quality",
         "cached ms", "revisit ms", "changed ms");
  for (guint k = 0; k < G_N_ELEMENTS(steps); k++) {
    char *text = unrolled_lstm_ir(steps[k]);
    AppWorkspace *ws = app_workspace_new();
    bool parsed = app_workspace_set_text(ws, text, "unrolled.ir");
    g_free(text);
    char *spec = g_strdup(UNROLLED_LSTM_SPEC);
    app_workspace_set_specs(ws, &spec, 1);
    g_free(spec);
    GError *error = NULL;
    const AppWorkspaceRun *run = parsed ? app_workspace_run_sync(ws, &error) : NULL;
    if (!run || run->n_failed) {
      fprintf(stderr, "layout_bench: the run failed: %s\n", error ? error->message : "spec");
      return 1;
    }
    const AppWorkspacePlan *plan = g_ptr_array_index(run->plans, 0);
    const AppWorkspaceStage *first = g_ptr_array_index(plan->stages, 0);
    guint nodes = app_graphviz_count_nodes(first->graph);
    if (nodes > max_nodes) {
      app_workspace_free(ws);
      break;
    }
    int changed = -1;
    for (guint s = 2; s < plan->stages->len && changed < 0; s++)
      if (((AppWorkspaceStage *)g_ptr_array_index(plan->stages, s))->changed)
        changed = (int)s;
    Shown full = show(layouts, plan, 0, true);
    Shown cached = show(layouts, plan, 1, false); /* specialize_autograd_zero: unchanged */
    Shown revisit = show(layouts, plan, 0, false);
    Shown step = show(layouts, plan, (guint)changed, false);
    printf("%7u %9.1f %10.1f %-7s %10.2f %11.2f %11.1f\n", nodes, full.first_ms, full.done_ms,
           app_scene_quality_name(full.quality), cached.first_ms, revisit.first_ms, step.first_ms);
    fflush(stdout);
    app_workspace_free(ws);
  }
  app_stage_layouts_free(layouts);
  app_layout_service_free(service);
  return 0;
}

int main(int argc, char **argv) {
  g_set_prgname("layout_bench");
  gboolean quick = FALSE;
  int max = BENCH_ARGS_UNSET, budget = 0;
  const GOptionEntry options[] = {
      {"quick", 0, 0, G_OPTION_ARG_NONE, &quick,
       "Only the sizes ~100 and ~1,000 nodes (a --max given sets the cap instead)", NULL},
      {"max", 0, 0, G_OPTION_ARG_INT, &max, "Lay out graphs of at most N nodes (default 20,000)",
       "N"},
      {"budget", 0, 0, G_OPTION_ARG_INT, &budget,
       "Time budget of a layout in ms (-1: none, to time dot's own full layout; default the "
       "service's, 10 s or $JITSCOPE_LAYOUT_BUDGET_MS)",
       "MS"},
      G_OPTION_ENTRY_NULL};
  bench_args_parse(&argc, &argv, NULL,
                   "The LSTM cell unrolled to ~100, ~1,000 and ~10,000 nodes, laid out as the\n"
                   "canvas draws it through the layout service and its worker: ms to the DOT\n"
                   "text, the first drawable and the final scene, an unchanged and a changed\n"
                   "stage, peak memory; then the same through the window's path\n"
                   "(workspace_layout.h). Prints two tables.",
                   options, 0);
  if (max != BENCH_ARGS_UNSET && max <= 0)
    bench_args_fail("--max expects a number of nodes above 0, got %d", max);
  guint max_nodes = max != BENCH_ARGS_UNSET ? (guint)max : quick ? 2000 : 20000;
  const guint steps[] = {5, 52, 526}; /* ~100, ~1,000, ~10,000 nodes */
  AppLayoutService *service = app_layout_service_new(NULL);
  if (budget)
    app_layout_service_set_budget(service, budget);
  printf("layout in %s\n", app_layout_service_in_process(service) ? "this process (no worker)"
                                                                  : "the worker process");
  printf("%7s %7s %8s %9s %10s %-7s %10s %10s %9s %8s %9s\n", "nodes", "DOT KB", "DOT ms",
         "first ms", "full ms", "quality", "cached ms", "lookup ms", "step ms", "app MB",
         "worker MB");
  for (guint k = 0; k < G_N_ELEMENTS(steps); k++) {
    char *text = unrolled_lstm_ir(steps[k]);
    char *variant_text = changed_variant(text);
    IrGraph *graph = parse(text);
    IrGraph *variant = parse(variant_text);
    guint nodes = app_graphviz_count_nodes(graph);
    if (nodes > max_nodes) {
      ir_graph_free(graph);
      ir_graph_free(variant);
      break;
    }
    gint64 t0 = g_get_monotonic_time();
    char *dot = app_graphviz_dot(graph, NULL, NULL);
    double dot_ms = since_ms(t0);
    Wait full = {0};
    layout(service, dot, false, &full);
    if (full.error) {
      fprintf(stderr, "layout_bench: %u nodes: %s\n", nodes, full.error);
      return 1;
    }
    /* An unchanged stage, as the window shows it: DOT text, then the cached scene. */
    t0 = g_get_monotonic_time();
    char *again = app_graphviz_dot(graph, NULL, NULL);
    gint64 t1 = g_get_monotonic_time();
    AppScene *cached = app_layout_service_lookup(service, again);
    double cached_ms = since_ms(t0), lookup_ms = since_ms(t1);
    if (!cached) {
      fprintf(stderr, "layout_bench: %u nodes: no cache hit\n", nodes);
      return 1;
    }
    app_scene_unref(cached);
    /* A changed stage: DOT text, then the first drawable scene. */
    t0 = g_get_monotonic_time();
    char *changed = app_graphviz_dot(variant, NULL, NULL);
    Wait step = {0};
    layout(service, changed, true, &step);
    double step_ms = since_ms(t0);
    printf("%7u %7.0f %8.1f %9.1f %10.1f %-7s %10.2f %10.2f %9.1f %8ld %9.0f\n", nodes,
           strlen(dot) / 1024.0, dot_ms, full.first_ms, full.done_ms,
           app_scene_quality_name(full.quality), cached_ms, lookup_ms, step_ms, peak_rss_mb(),
           MAX(full.worker_peak_kb, step.worker_peak_kb) / 1024.0);
    fflush(stdout);
    g_free(full.error);
    g_free(dot);
    g_free(again);
    g_free(changed);
    ir_graph_free(graph);
    ir_graph_free(variant);
  }
  app_layout_service_free(service);
  return window_path(max_nodes, budget);
}
