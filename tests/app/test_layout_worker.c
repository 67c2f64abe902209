/* The layout service with its worker process: round trip, a crash reported and recovered,
 * cancellation kills the layout, the time budget's cheaper retries, coarse previews, the
 * scene cache (a hit starts no layout), the in-process fallback, and an expanded cluster
 * laid out on its own and composed into its summary node. */
#include <signal.h>
#include <string.h>

#include "graphviz_dot.h"
#include "ir/text.h"
#include "layout_service.h"

typedef struct {
  GMainLoop *loop;
  AppScene *scene;
  GError *error;
  bool done;
  GPtrArray *phases;
  AppScene *preview;
  guint progress_calls;
  bool tried_fast, tried_coarse;
} Wait;

static Wait *wait_new(void) {
  Wait *w = g_new0(Wait, 1);
  w->loop = g_main_loop_new(NULL, FALSE);
  w->phases = g_ptr_array_new_with_free_func(g_free);
  return w;
}

static void wait_free(Wait *w) {
  if (w->scene)
    app_scene_unref(w->scene);
  if (w->preview)
    app_scene_unref(w->preview);
  g_clear_error(&w->error);
  g_ptr_array_unref(w->phases);
  g_main_loop_unref(w->loop);
  g_free(w);
}

static void on_done(AppScene *scene, const GError *error, gpointer data) {
  Wait *w = data;
  g_assert_false(w->done);
  g_assert_true((scene == NULL) != (error == NULL));
  w->done = true;
  w->scene = scene ? app_scene_ref(scene) : NULL;
  w->error = error ? g_error_copy(error) : NULL;
  g_main_loop_quit(w->loop);
}

static void on_progress(const AppLayoutProgress *p, gpointer data) {
  Wait *w = data;
  w->progress_calls++;
  g_assert_cmpfloat(p->elapsed_s, >=, 0);
  g_assert_nonnull(p->phase);
  if (!w->phases->len || strcmp(g_ptr_array_index(w->phases, w->phases->len - 1), p->phase) != 0)
    g_ptr_array_add(w->phases, g_strdup(p->phase));
  w->tried_fast |= p->trying == APP_SCENE_FAST;
  w->tried_coarse |= p->trying == APP_SCENE_COARSE;
  if (p->preview) {
    g_assert_null(w->preview); /* once */
    w->preview = app_scene_ref(p->preview);
  }
}

static gboolean give_up(gpointer data) {
  g_error("timed out waiting for the layout service");
  return G_SOURCE_REMOVE;
}

/* Runs until `w` is done (60 s at most). */
static void run(Wait *w) {
  guint guard = g_timeout_add_seconds(60, give_up, NULL);
  if (!w->done)
    g_main_loop_run(w->loop);
  g_source_remove(guard);
}

static Wait *layout(AppLayoutService *s, const char *dot, const AppLayoutOptions *options) {
  Wait *w = wait_new();
  app_layout_service_request_full(s, dot, options, on_done, on_progress, w);
  g_assert_false(w->done); /* never from inside the request */
  run(w);
  return w;
}

static AppLayoutService *worker_service(void) {
  char *path = app_layout_worker_path();
  g_assert_nonnull(path);
  AppLayoutService *s = app_layout_service_new_with_worker(NULL, path);
  g_free(path);
  g_assert_false(app_layout_service_in_process(s));
  return s;
}

static void test_round_trip(void) {
  AppLayoutService *s = worker_service();
  g_assert_cmpint(app_layout_service_worker_pid(s), ==, 0); /* started on first use */
  Wait *w = layout(s, "digraph { a -> b; subgraph cluster_x { label=\"X\"; c } b -> c }", NULL);
  g_assert_no_error(w->error);
  g_assert_cmpint(w->scene->quality, ==, APP_SCENE_FULL);
  g_assert_null(w->scene->note);
  g_assert_cmpint(app_scene_find(w->scene, "a->b"), >=, 0);
  g_assert_cmpint(app_scene_find(w->scene, "cluster_x"), >=, 0);
  int c = app_scene_find(w->scene, "c");
  g_assert_cmpint(c, >=, 0);
  g_assert_cmpuint(app_scene_object(w->scene, (guint)c)->n_shapes, >=, 2);
  /* phases came through before the result */
  bool saw_dot = false;
  for (guint i = 0; i < w->phases->len; i++)
    saw_dot |= g_str_has_prefix(g_ptr_array_index(w->phases, i), "dot");
  g_assert_true(saw_dot);
  GPid pid = app_layout_service_worker_pid(s);
  g_assert_cmpint(pid, >, 0);
  wait_free(w);
  /* The worker stays alive across requests. */
  w = layout(s, "digraph { p -> q }", NULL);
  g_assert_no_error(w->error);
  g_assert_cmpint(app_layout_service_worker_pid(s), ==, pid);
  g_assert_cmpuint(app_layout_service_worker_starts(s), ==, 1);
  g_assert_cmpuint(app_layout_service_layouts(s), ==, 2);
  wait_free(w);
  /* A DOT error is an error of the request, not of the worker. */
  w = layout(s, "digraph { a -> ", NULL);
  g_assert_error(w->error, APP_LAYOUT_ERROR, APP_LAYOUT_ERROR_SYNTAX);
  g_assert_cmpint(app_layout_service_worker_pid(s), ==, pid);
  wait_free(w);
  app_layout_service_free(s);
}

static void test_crash(void) {
  AppLayoutService *s = worker_service();
  Wait *w = layout(s, "digraph { a -> b }", NULL);
  GPid first = app_layout_service_worker_pid(s);
  wait_free(w);
  AppLayoutOptions crash = {.fault = APP_LAYOUT_FAULT_CRASH};
  w = layout(s, "digraph { crash -> me }", &crash);
  g_assert_error(w->error, APP_LAYOUT_ERROR, APP_LAYOUT_ERROR_CRASHED);
  g_assert_nonnull(strstr(w->error->message, "Graphviz crashed on this graph"));
  g_assert_nonnull(strstr(w->error->message, "signal 6"));
  g_assert_cmpint(app_layout_service_worker_pid(s), ==, 0);
  wait_free(w);
  /* Recovered: the next request gets a new worker. */
  w = layout(s, "digraph { after -> crash }", NULL);
  g_assert_no_error(w->error);
  g_assert_cmpint(app_scene_find(w->scene, "after->crash"), >=, 0);
  g_assert_cmpuint(app_layout_service_worker_starts(s), ==, 2);
  g_assert_cmpint(app_layout_service_worker_pid(s), !=, first);
  g_assert_cmpuint(app_layout_service_cache_size(s), ==, 2); /* nothing cached for the crash */
  wait_free(w);
  app_layout_service_free(s);
}

static void never(AppScene *scene, const GError *error, gpointer data) {
  g_assert_not_reached();
}

static void saw_phase(const AppLayoutProgress *p, gpointer data) {
  if (g_str_has_suffix(p->phase, "(test: hanging)"))
    g_main_loop_quit(data);
}

static void test_cancel(void) {
  AppLayoutService *s = worker_service();
  GMainLoop *loop = g_main_loop_new(NULL, FALSE);
  AppLayoutOptions hang = {.fault = APP_LAYOUT_FAULT_HANG, .budget_ms = -1};
  guint id =
      app_layout_service_request_full(s, "digraph { forever }", &hang, never, saw_phase, loop);
  guint guard = g_timeout_add_seconds(30, give_up, NULL);
  g_main_loop_run(loop); /* the worker is inside the endless layout */
  g_source_remove(guard);
  GPid pid = app_layout_service_worker_pid(s);
  g_assert_cmpint(pid, >, 0);
  g_assert_cmpint(kill(pid, 0), ==, 0);
  app_layout_service_cancel(s, id);
  g_assert_cmpint(app_layout_service_worker_pid(s), ==, 0);
  /* The process goes away (killed, then reaped by the reader thread). */
  gint64 until = g_get_monotonic_time() + 10 * G_USEC_PER_SEC;
  while (kill(pid, 0) == 0 && g_get_monotonic_time() < until)
    g_main_context_iteration(NULL, FALSE);
  g_assert_cmpint(kill(pid, 0), !=, 0);
  /* A queued request behind a cancelled one is served by a new worker. */
  Wait *w = layout(s, "digraph { next }", NULL);
  g_assert_no_error(w->error);
  g_assert_cmpuint(app_layout_service_worker_starts(s), ==, 2);
  wait_free(w);
  /* Cancelling a queued request (behind a running one) and freeing with requests queued. */
  app_layout_service_request_full(s, "digraph { busy }", &hang, never, NULL, NULL);
  guint queued = app_layout_service_request(s, "digraph { queued }", never, NULL);
  app_layout_service_cancel(s, queued);
  app_layout_service_request(s, "digraph { dropped }", never, NULL);
  app_layout_service_free(s);
  for (int i = 0; i < 50; i++)
    g_main_context_iteration(NULL, FALSE);
  g_main_loop_unref(loop);
}

static char *chain_dot(guint n) {
  GString *s = g_string_new("digraph { node [shape=box];\n");
  for (guint i = 1; i < n; i++)
    g_string_append_printf(s, "  v%u -> v%u;\n", i - 1, i);
  g_string_append(s, "}\n");
  return g_string_free(s, FALSE);
}

static void test_budget_fallback(void) {
  AppLayoutService *s = worker_service();
  /* dot never finishes: FULL, then FAST, are stopped at their budget; COARSE ends it. */
  AppLayoutOptions hang = {.fault = APP_LAYOUT_FAULT_HANG, .budget_ms = 300, .preview_above = -1};
  gint64 start = g_get_monotonic_time();
  Wait *w = layout(s, "digraph { a -> b -> c; a -> c }", &hang);
  double seconds = (double)(g_get_monotonic_time() - start) / G_USEC_PER_SEC;
  g_assert_no_error(w->error);
  g_assert_cmpint(w->scene->quality, ==, APP_SCENE_COARSE);
  g_assert_nonnull(w->scene->note);
  g_assert_nonnull(strstr(w->scene->note, "budget"));
  g_assert_true(w->tried_fast);
  g_assert_cmpfloat(seconds, >=, 0.6); /* two budgets spent */
  g_assert_cmpuint(app_layout_service_layouts(s), ==, 3);
  g_assert_cmpuint(app_layout_service_worker_starts(s), ==, 3);
  g_assert_null(w->preview);
  wait_free(w);

  /* With a coarse preview (more nodes than preview_above): it is shown at once and is the
   * answer when the budget runs out. */
  char *dot = chain_dot(40);
  AppLayoutOptions preview = {
      .fault = APP_LAYOUT_FAULT_HANG, .budget_ms = 300, .preview_above = 10};
  w = layout(s, dot, &preview);
  g_assert_no_error(w->error);
  g_assert_nonnull(w->preview);
  g_assert_cmpint(w->preview->quality, ==, APP_SCENE_COARSE);
  g_assert_true(w->scene == w->preview);
  g_assert_cmpint(app_scene_find(w->scene, "v39"), >=, 0);
  g_assert_cmpuint(app_layout_service_layouts(s), ==, 5); /* FULL, FAST; no third run */
  /* The fallback is cached for budgeted requests. */
  guint layouts = app_layout_service_layouts(s);
  wait_free(w);
  w = layout(s, dot, &preview);
  g_assert_cmpint(w->scene->quality, ==, APP_SCENE_COARSE);
  g_assert_cmpuint(app_layout_service_layouts(s), ==, layouts);
  wait_free(w);
  g_free(dot);
  app_layout_service_free(s);
}

static void test_preview_then_full(void) {
  AppLayoutService *s = worker_service();
  char *dot = chain_dot(60);
  AppLayoutOptions options = {.preview_above = 20};
  Wait *w = layout(s, dot, &options);
  g_assert_no_error(w->error);
  g_assert_nonnull(w->preview);
  g_assert_cmpint(w->preview->quality, ==, APP_SCENE_COARSE);
  g_assert_cmpint(w->scene->quality, ==, APP_SCENE_FULL);
  g_assert_true(w->scene != w->preview);
  /* The preview has every node the full layout has, ranked top to bottom. */
  for (guint i = 0; i < 60; i++) {
    char id[16];
    g_snprintf(id, sizeof id, "v%u", i);
    g_assert_cmpint(app_scene_find(w->preview, id), >=, 0);
    g_assert_cmpint(app_scene_find(w->scene, id), >=, 0);
  }
  const AppObject *v0 = app_scene_object(w->preview, (guint)app_scene_find(w->preview, "v0"));
  const AppObject *v1 = app_scene_object(w->preview, (guint)app_scene_find(w->preview, "v1"));
  g_assert_cmpfloat(v0->bounds.y1, <, v1->bounds.y0);
  wait_free(w);
  g_free(dot);
  app_layout_service_free(s);
}

static void test_cache_hit_starts_nothing(void) {
  AppLayoutService *s = worker_service();
  Wait *w = layout(s, "digraph { x -> y -> z }", NULL);
  AppScene *first = app_scene_ref(w->scene);
  wait_free(w);
  guint layouts = app_layout_service_layouts(s), starts = app_layout_service_worker_starts(s);
  guint hits = app_layout_service_hits(s);
  w = layout(s, "digraph { x -> y -> z }", NULL);
  g_assert_true(w->scene == first); /* the scene itself is cached, not its text */
  g_assert_cmpuint(app_layout_service_layouts(s), ==, layouts);
  g_assert_cmpuint(app_layout_service_worker_starts(s), ==, starts);
  g_assert_cmpuint(app_layout_service_hits(s), ==, hits + 1);
  g_assert_cmpuint(w->progress_calls, ==, 0);
  wait_free(w);
  AppScene *looked = app_layout_service_lookup(s, "digraph { x -> y -> z }");
  g_assert_true(looked == first);
  app_scene_unref(looked);
  g_assert_null(app_layout_service_lookup(s, "digraph { not -> laid -> out }"));
  /* Another quality is another entry. */
  AppLayoutOptions coarse = {.quality = APP_SCENE_COARSE};
  w = layout(s, "digraph { x -> y -> z }", &coarse);
  g_assert_cmpint(w->scene->quality, ==, APP_SCENE_COARSE);
  g_assert_cmpuint(app_layout_service_layouts(s), ==, layouts + 1);
  wait_free(w);
  app_scene_unref(first);
  app_layout_service_free(s);
}

static void test_coarse_layout(void) {
  AppLayoutService *s = worker_service();
  AppLayoutOptions coarse = {.quality = APP_SCENE_COARSE};
  const char *dot =
      "digraph { node [shape=box, fontsize=10];\n"
      "  in [shape=ellipse, style=filled, fillcolor=\"#e3f2fd\", label=\"%x : Tensor\"];\n"
      "  subgraph cluster_0 { label=\"If then\"; style=filled; fillcolor=\"#f3e5f5\";\n"
      "    t [label=\"aten::neg\\n%z : Tensor\"]; }\n"
      "  none0 [shape=diamond, label=\"None\"];\n"
      "  r [shape=invhouse, label=\"return\"];\n"
      "  in -> t; t -> r; none0 -> r [style=dotted]; r -> in [color=\"#ff0000\"];\n"
      "}\n";
  Wait *w = layout(s, dot, &coarse);
  g_assert_no_error(w->error);
  g_assert_cmpint(w->scene->quality, ==, APP_SCENE_COARSE);
  const char *ids[] = {"in", "t", "none0", "r", "in->t", "t->r", "none0->r", "r->in", "cluster_0"};
  for (guint i = 0; i < G_N_ELEMENTS(ids); i++) {
    int at = app_scene_find(w->scene, ids[i]);
    g_assert_cmpint(at, >=, 0);
    const AppObject *o = app_scene_object(w->scene, (guint)at);
    g_assert_cmpuint(o->n_shapes, >=, 1);
    g_assert_cmpfloat(o->bounds.x0, >=, -1);
    g_assert_cmpfloat(o->bounds.y1, <=, w->scene->height + 1);
  }
  const AppObject *t = app_scene_object(w->scene, (guint)app_scene_find(w->scene, "t"));
  const AppObject *r = app_scene_object(w->scene, (guint)app_scene_find(w->scene, "r"));
  g_assert_cmpfloat(t->bounds.y1, <, r->bounds.y0); /* the cycle is broken, ranks go down */
  g_assert_cmpstr(t->label, ==, "aten::neg\\n%z : Tensor");
  bool saw_text = false;
  for (guint k = 0; k < t->n_shapes; k++) {
    const AppShape *shape = app_scene_shape(w->scene, t->first_shape + k);
    saw_text |= shape->kind == APP_SHAPE_TEXT && strcmp(shape->text, "%z : Tensor") == 0;
  }
  g_assert_true(saw_text);
  const AppObject *cluster =
      app_scene_object(w->scene, (guint)app_scene_find(w->scene, "cluster_0"));
  g_assert_cmpfloat(cluster->bounds.x0, <=, t->bounds.x0);
  g_assert_cmpfloat(cluster->bounds.y1, >=, t->bounds.y1);
  wait_free(w);
  app_layout_service_free(s);
}

static void test_in_process_fallback(void) {
  AppLayoutService *s = app_layout_service_new_with_worker(NULL, NULL);
  g_assert_true(app_layout_service_in_process(s));
  Wait *w = layout(s, "digraph { here -> too }", NULL);
  g_assert_no_error(w->error);
  g_assert_cmpint(app_scene_find(w->scene, "here->too"), >=, 0);
  g_assert_cmpuint(app_layout_service_worker_starts(s), ==, 0);
  wait_free(w);
  /* A cancelled in-process request is never delivered, the next one is. */
  guint id = app_layout_service_request(s, "digraph { gone }", never, NULL);
  app_layout_service_cancel(s, id);
  w = layout(s, "digraph { kept }", NULL);
  g_assert_no_error(w->error);
  wait_free(w);
  app_layout_service_free(s);
}

static const char if_text[] = "graph(%x : Tensor, %c : bool):\n"
                              "  %y : Tensor = prim::If(%c)\n"
                              "    block0():\n"
                              "      %z : Tensor = aten::neg(%x)\n"
                              "      %z2 : Tensor = aten::relu(%z)\n"
                              "      -> (%z2)\n"
                              "    block1():\n"
                              "      -> (%x)\n"
                              "  %v : Tensor = aten::sigmoid(%y)\n"
                              "  return (%v)\n";

/* An expanded If laid out on its own and drawn inside its summary node. */
static void test_separate_cluster(void) {
  GError *error = NULL;
  IrGraph *g = ir_graph_parse(if_text, strlen(if_text), "if.ir", &error);
  g_assert_no_error(error);
  const IrNode *owner = g->block->param->next;
  char *owner_id = g_strdup_printf("n%" G_GUINT64_FORMAT, owner->origin);
  AppLayoutService *s = worker_service();
  char *inner_dot = app_graphviz_dot_cluster(g, owner_id, NULL, NULL);
  g_assert_nonnull(inner_dot);
  Wait *inner = layout(s, inner_dot, NULL);
  g_assert_no_error(inner->error);
  char size[64];
  g_snprintf(size, sizeof size, "%.1f,%.1f", inner->scene->width, inner->scene->height);
  GHashTable *separate = g_hash_table_new(g_str_hash, g_str_equal);
  g_hash_table_insert(separate, owner_id, size);
  AppDotOptions options = {.separate = separate};
  char *outer_dot = app_graphviz_dot(g, &options, NULL);
  g_assert_null(strstr(outer_dot, "If then")); /* the inside is not in the outer layout */
  Wait *outer = layout(s, outer_dot, NULL);
  g_assert_no_error(outer->error);
  AppScene *composed = app_scene_compose(outer->scene, owner_id, inner->scene);
  g_assert_nonnull(composed);
  const AppObject *box = app_scene_object(composed, (guint)app_scene_find(composed, owner_id));
  g_assert_cmpfloat(box->bounds.x1 - box->bounds.x0, >=, inner->scene->width);
  const IrBlock *then = ir_block(owner, 0);
  char *neg_id = g_strdup_printf("n%" G_GUINT64_FORMAT, then->param->next->origin);
  int neg = app_scene_find(composed, neg_id);
  g_assert_cmpint(neg, >=, 0);
  const AppObject *o = app_scene_object(composed, (guint)neg);
  g_assert_cmpfloat(o->bounds.x0, >=, box->bounds.x0);
  g_assert_cmpfloat(o->bounds.x1, <=, box->bounds.x1);
  g_assert_cmpfloat(o->bounds.y0, >=, box->bounds.y0);
  g_assert_cmpfloat(o->bounds.y1, <=, box->bounds.y1);
  g_assert_cmpint(app_scene_hit_node(composed, (o->bounds.x0 + o->bounds.x1) / 2,
                                     (o->bounds.y0 + o->bounds.y1) / 2),
                  ==, neg);
  g_assert_null(app_scene_compose(outer->scene, "nope", inner->scene));
  app_scene_unref(composed);
  g_free(neg_id);
  wait_free(outer);
  wait_free(inner);
  g_free(outer_dot);
  g_free(inner_dot);
  g_hash_table_destroy(separate);
  g_free(owner_id);
  app_layout_service_free(s);
  ir_graph_free(g);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  /* An empty $JITSCOPE_LAYOUT_WORKER means no worker (checked before any thread exists). */
  char *worker = g_strdup(g_getenv("JITSCOPE_LAYOUT_WORKER"));
  g_setenv("JITSCOPE_LAYOUT_WORKER", "", TRUE);
  g_assert_null(app_layout_worker_path());
  if (worker)
    g_setenv("JITSCOPE_LAYOUT_WORKER", worker, TRUE);
  else
    g_unsetenv("JITSCOPE_LAYOUT_WORKER");
  g_free(worker);
  g_test_add_func("/layout-worker/round-trip", test_round_trip);
  g_test_add_func("/layout-worker/crash", test_crash);
  g_test_add_func("/layout-worker/cancel", test_cancel);
  g_test_add_func("/layout-worker/budget-fallback", test_budget_fallback);
  g_test_add_func("/layout-worker/preview-then-full", test_preview_then_full);
  g_test_add_func("/layout-worker/cache-hit-starts-nothing", test_cache_hit_starts_nothing);
  g_test_add_func("/layout-worker/coarse-layout", test_coarse_layout);
  g_test_add_func("/layout-worker/in-process-fallback", test_in_process_fallback);
  g_test_add_func("/layout-worker/separate-cluster", test_separate_cluster);
  return g_test_run();
}
