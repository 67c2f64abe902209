/* Layout benchmark (DESIGN.md, "Graphviz facts that shape the canvas"): the LSTM cell
 * unrolled over T steps (about 19 nodes a step), as the canvas draws it (app_graphviz_dot:
 * constants inlined, large-graph layout settings), laid out through the layout service.
 * Per size: the first layout (a cache miss on the worker), the same stage again (a cache
 * hit), and the process's peak resident memory after it. Sizes: ~100, ~1,000, ~10,000 nodes;
 * `--quick` stops after 1,000, `--max N` caps the node count. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "graphviz_dot.h"
#include "ir/text.h"
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
  AppScene *scene;
  char *error;
} Wait;

static void on_scene(AppScene *scene, const GError *error, gpointer data) {
  Wait *w = data;
  if (scene)
    w->scene = app_scene_ref(scene);
  else
    w->error = g_strdup(error->message);
  g_main_loop_quit(w->loop);
}

static double layout_ms(AppLayoutService *service, const char *dot, guint *objects, char **error) {
  Wait w = {g_main_loop_new(NULL, FALSE), NULL, NULL};
  gint64 start = g_get_monotonic_time();
  app_layout_service_request(service, dot, on_scene, &w);
  g_main_loop_run(w.loop);
  double ms = (double)(g_get_monotonic_time() - start) / 1000.0;
  *objects = w.scene ? w.scene->objects->len : 0;
  *error = w.error;
  if (w.scene)
    app_scene_unref(w.scene);
  g_main_loop_unref(w.loop);
  return ms;
}

static long peak_rss_mb(void) {
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024;
}

int main(int argc, char **argv) {
  guint max_nodes = 20000;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--quick") == 0)
      max_nodes = 2000;
    else if (strcmp(argv[i], "--max") == 0 && i + 1 < argc)
      max_nodes = (guint)atoi(argv[++i]);
  }
  const guint steps[] = {5, 52, 526}; /* ~100, ~1,000, ~10,000 nodes */
  AppLayoutService *service = app_layout_service_new(NULL);
  printf("%8s %8s %10s %12s %12s %10s %12s\n", "steps", "nodes", "dot KB", "first ms",
         "cached ms", "objects", "peak RSS MB");
  for (guint k = 0; k < G_N_ELEMENTS(steps); k++) {
    char *text = unrolled_lstm(steps[k]);
    GError *error = NULL;
    IrGraph *graph = ir_graph_parse(text, strlen(text), "unrolled.ir", &error);
    g_free(text);
    if (!graph) {
      fprintf(stderr, "layout_bench: %s\n", error->message);
      return 1;
    }
    guint nodes = app_graphviz_count_nodes(graph);
    if (nodes > max_nodes) {
      ir_graph_free(graph);
      break;
    }
    char *dot = app_graphviz_dot(graph, NULL, NULL);
    guint objects = 0;
    char *failure = NULL;
    double first = layout_ms(service, dot, &objects, &failure);
    if (failure) {
      fprintf(stderr, "layout_bench: %u nodes: %s\n", nodes, failure);
      return 1;
    }
    double cached = layout_ms(service, dot, &objects, &failure);
    printf("%8u %8u %10.1f %12.1f %12.3f %10u %12ld\n", steps[k], nodes, strlen(dot) / 1024.0,
           first, cached, objects, peak_rss_mb());
    fflush(stdout);
    g_free(dot);
    ir_graph_free(graph);
  }
  app_layout_service_free(service);
  return 0;
}
