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
 * `--quick` stops after 1,000 nodes, `--max N` caps the node count, `--budget MS` sets the
 * time budget (-1: none, to time dot's own full layout). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "graphviz_dot.h"
#include "ir/text.h"
#include "layout_protocol.h"
#include "layout_service.h"

/* One LSTM cell per step; step t's hy/cy feed step t + 1. */
static char *unrolled_lstm(guint steps) {
  GString *s = g_string_new("graph(%x : Float(3, 10), %h0 : Float(3, 20), %c0 : Float(3, 20),\n"
                            "      %w_ih : Float(80, 10), %w_hh : Float(80, 20), %b_ih : Float(80),"
                            " %b_hh : Float(80)):\n"
                            "  %four : int = prim::Constant[value=4]()\n"
                            "  %one : int = prim::Constant[value=1]()\n");
  for (guint t = 0; t < steps; t++) {
    const char *h = t == 0 ? "h0" : NULL, *c = t == 0 ? "c0" : NULL;
    char hp[32], cp[32];
    if (!h) {
      g_snprintf(hp, sizeof hp, "hy_%u", t - 1);
      g_snprintf(cp, sizeof cp, "cy_%u", t - 1);
      h = hp;
      c = cp;
    }
    g_string_append_printf(
        s,
        "  %%a_%1$u : Tensor = aten::t(%%w_ih)\n"
        "  %%b_%1$u : Tensor = aten::mm(%%x, %%a_%1$u)\n"
        "  %%d_%1$u : Tensor = aten::t(%%w_hh)\n"
        "  %%e_%1$u : Tensor = aten::mm(%%%2$s, %%d_%1$u)\n"
        "  %%f_%1$u : Tensor = aten::add(%%b_%1$u, %%e_%1$u, %%one)\n"
        "  %%g_%1$u : Tensor = aten::add(%%f_%1$u, %%b_ih, %%one)\n"
        "  %%k_%1$u : Tensor = aten::add(%%g_%1$u, %%b_hh, %%one)\n"
        "  %%l_%1$u : Tensor[] = aten::chunk(%%k_%1$u, %%four, %%one)\n"
        "  %%i_%1$u : Tensor, %%j_%1$u : Tensor, %%m_%1$u : Tensor, %%o_%1$u : Tensor = prim::ListUnpack(%%l_%1$u)\n"
        "  %%i2_%1$u : Tensor = aten::sigmoid(%%i_%1$u)\n"
        "  %%j2_%1$u : Tensor = aten::sigmoid(%%j_%1$u)\n"
        "  %%m2_%1$u : Tensor = aten::tanh(%%m_%1$u)\n"
        "  %%o2_%1$u : Tensor = aten::sigmoid(%%o_%1$u)\n"
        "  %%p_%1$u : Tensor = aten::mul(%%j2_%1$u, %%%3$s)\n"
        "  %%q_%1$u : Tensor = aten::mul(%%i2_%1$u, %%m2_%1$u)\n"
        "  %%cy_%1$u : Tensor = aten::add(%%p_%1$u, %%q_%1$u, %%one)\n"
        "  %%r_%1$u : Tensor = aten::tanh(%%cy_%1$u)\n"
        "  %%hy_%1$u : Tensor = aten::mul(%%o2_%1$u, %%r_%1$u)\n",
        t, h, c);
  }
  g_string_append_printf(s, "  %%out : (Tensor, Tensor) = prim::TupleConstruct(%%hy_%u, %%cy_%u)\n"
                            "  return (%%out)\n", steps - 1, steps - 1);
  return g_string_free(s, FALSE);
}

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

static double since_ms(gint64 start) { return (double)(g_get_monotonic_time() - start) / 1000.0; }

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

int main(int argc, char **argv) {
  guint max_nodes = 20000;
  int budget = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--quick") == 0)
      max_nodes = 2000;
    else if (strcmp(argv[i], "--max") == 0 && i + 1 < argc)
      max_nodes = (guint)atoi(argv[++i]);
    else if (strcmp(argv[i], "--budget") == 0 && i + 1 < argc)
      budget = atoi(argv[++i]);
  }
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
    char *text = unrolled_lstm(steps[k]);
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
  return 0;
}
