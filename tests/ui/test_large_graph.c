/* The window on a ~10,000-node graph under Xvfb (DESIGN.md, "Large graphs stay usable"): the
 * LSTM cell unrolled over 526 steps, run with one spec (a forward plan of 23 stages).
 *   - the progress (phase, elapsed time, Cancel) shows over the canvas at once; without a
 *     budget the first drawable scene is the quick preview, shown while dot runs and kept
 *     with a note when the layout is cancelled; with a 3 s budget the final scene (the quick
 *     layout) comes with its note;
 *   - stepping to an unchanged stage is a cached step: no DOT built, no layout, nothing to
 *     wait for;
 *   - Escape and the canvas's Cancel stop a layout;
 *   - expanding a FusionGroup lays out its inside on its own (two layouts: the cluster and
 *     the main graph with its box) and draws it into the box; collapsing it again reuses the
 *     cached main layout (no layout).
 * Every wait is for an event (ui_test_util.h); times are reported, not asserted.
 * Screenshot: window-lstm-unrolled-10k.png (the quick layout of the first stage). Exits 77
 * without a display. */
#include <gtk/gtk.h>
#include <string.h>

#include "jitscope-application.h"
#include "ui_test_util.h"
#include "unrolled_lstm.h"

#define STEPS 526
#define BUDGET_MS "3000"

static JitscopeApplication *app;

typedef struct {
  gint64 last;
  gint64 max_gap;
  guint ticks;
} Ticker;

static gboolean on_tick(gpointer data) {
  Ticker *t = data;
  gint64 now = g_get_monotonic_time();
  if (t->last)
    t->max_gap = MAX(t->max_gap, now - t->last);
  t->last = now;
  t->ticks++;
  return G_SOURCE_CONTINUE;
}

static double ms_since(gint64 t0) {
  return (double)(g_get_monotonic_time() - t0) / 1000.0;
}

/* The first node object whose label contains `needle`, or NULL. */
static const char *find_node(AppScene *scene, const char *needle) {
  GArray *found = app_scene_search(scene, needle);
  const char *id = found->len ? app_scene_object(scene, g_array_index(found, guint, 0))->id : NULL;
  g_array_unref(found);
  return id;
}

static guint count_prefixed(AppScene *scene, const char *prefix) {
  guint n = 0;
  for (guint i = 0; i < scene->objects->len; i++) {
    const AppObject *o = app_scene_object(scene, i);
    n += o->kind == APP_OBJECT_NODE && g_str_has_prefix(o->id, prefix);
  }
  return n;
}

static JitscopeWindow *open_unrolled(void) {
  JitscopeWindow *window = jitscope_application_open_window(app, NULL);
  gtk_window_set_default_size(GTK_WINDOW(window), 1500, 900);
  wait_shown(window);
  char *text = unrolled_lstm_ir(STEPS);
  jitscope_window_set_program(window, text, "unrolled_lstm.ir");
  g_free(text);
  g_assert_null(jitscope_window_get_program_error(window));
  const char *spec = UNROLLED_LSTM_SPEC;
  jitscope_window_set_specs(window, &spec, 1);
  return window;
}

/* Iterates the main loop until `done` holds; says how often a 20 ms timeout fired meanwhile
 * (the layout runs in the worker: the main loop goes on). */
static void iterate_until(gboolean (*done)(JitscopeGraphView *), JitscopeGraphView *view) {
  Ticker ticker = {0};
  guint tick = g_timeout_add(20, on_tick, &ticker);
  while (!done(view))
    g_main_context_iteration(NULL, TRUE);
  g_source_remove(tick);
  g_test_message("main loop: %u ticks of 20 ms, longest gap %.0f ms", ticker.ticks,
                 ticker.max_gap / 1000.0);
}

static gboolean has_scene(JitscopeGraphView *view) {
  return jitscope_graph_view_get_scene(view) != NULL;
}

/* The progress has said the phase and the elapsed time, or the layout is over. */
static gboolean phase_shown(JitscopeGraphView *view) {
  const char *progress = jitscope_graph_view_get_progress(view);
  return !jitscope_graph_view_is_waiting(view) || (progress && strstr(progress, "dot:"));
}

static void test_progressive_display(void) {
  JitscopeWindow *window = open_unrolled();
  JitscopeGraphView *view = jitscope_window_get_graph_view(window);
  AppWorkspace *ws = jitscope_window_get_workspace(window);
  AppStageLayouts *layouts = jitscope_window_get_stage_layouts(window);
  AppLayoutService *service = app_stage_layouts_service(layouts);
  /* First without a budget: nothing but the preview can come first (the worker sends it
   * before it starts dot, and no budget can end dot early). */
  app_layout_service_set_budget(service, -1);
  g_assert_true(gtk_widget_activate_action(GTK_WIDGET(window), "win.run", NULL));
  while (app_workspace_running(ws))
    g_main_context_iteration(NULL, TRUE);
  /* The run is over and its first stage is being laid out. */
  gint64 t0 = g_get_monotonic_time();
  const AppWorkspaceRun *run = app_workspace_last_run(ws);
  g_assert_nonnull(run);
  g_assert_cmpuint(run->n_failed, ==, 0);
  const AppWorkspacePlan *plan = g_ptr_array_index(run->plans, 0);
  const AppWorkspaceStage *first = g_ptr_array_index(plan->stages, 0);
  g_assert_cmpuint(app_graphviz_count_nodes(first->graph), >, 9000);
  g_assert_true(jitscope_graph_view_is_waiting(view));
  g_assert_null(jitscope_graph_view_get_scene(view)); /* a new plan: nothing shown yet */
  g_assert_nonnull(strstr(jitscope_graph_view_get_progress(view), "Laying out"));

  iterate_until(has_scene, view);
  g_test_message("first drawable after %.0f ms", ms_since(t0));
  g_assert_true(jitscope_graph_view_is_waiting(view));
  g_assert_true(jitscope_graph_view_is_preview(view));
  g_assert_cmpint(jitscope_graph_view_get_scene(view)->quality, ==, APP_SCENE_COARSE);
  g_assert_nonnull(strstr(jitscope_graph_view_get_progress(view), "quick preview shown"));
  /* dot runs in the worker while the main loop goes on; the progress names its phase */
  iterate_until(phase_shown, view);
  if (jitscope_graph_view_is_waiting(view)) {
    /* Escape (the window's cancel-layout): the preview stays, with a note */
    g_assert_true(gtk_widget_activate_action(GTK_WIDGET(window), "win.cancel-layout", NULL));
    g_assert_false(jitscope_graph_view_is_waiting(view));
    g_assert_true(jitscope_graph_view_get_scene(view)->quality == APP_SCENE_COARSE);
    g_assert_nonnull(strstr(jitscope_graph_view_get_note(view), "cancelled"));
  } else {
    g_test_message("dot finished the full layout before it could be cancelled");
    g_assert_cmpint(jitscope_graph_view_get_scene(view)->quality, ==, APP_SCENE_FULL);
  }

  /* With the 3 s budget: past it, the quick layout stays and the canvas says so (whether the
   * preview came before the budget ran out or the quick layout was made after). */
  app_layout_service_set_budget(service, atoi(BUDGET_MS));
  guint laid = app_layout_service_layouts(service);
  act(window, "win.select-stage", "u", 1);
  act(window, "win.select-stage", "u", 0);
  AppScene *scene = jitscope_graph_view_get_scene(view);
  g_assert_nonnull(scene);
  if (app_layout_service_layouts(service) > laid) { /* not the full layout of before */
    g_assert_cmpint(scene->quality, ==, APP_SCENE_COARSE);
    g_assert_nonnull(strstr(jitscope_graph_view_get_note(view), "Quick layout"));
  }
  g_assert_null(jitscope_graph_view_get_progress(view));
  g_assert_false(jitscope_graph_view_is_preview(view));
  GArray *mms = app_scene_search(scene, "aten::mm");
  g_assert_cmpuint(mms->len, ==, 2 * STEPS);
  g_array_unref(mms);
  /* The picture: the quick layout around the first steps, at a readable zoom. */
  g_assert_true(jitscope_graph_view_select(view, find_node(scene, "aten::chunk")));
  jitscope_graph_view_zoom(view, 0.6);
  screenshot(window, "window-lstm-unrolled-10k.png");
  wait_idle(window); /* the inspector's values of the selected node */

  /* Unchanged stages: DOT and scene from the caches, at once (no layout to wait for when the
   * action returns). */
  double worst = 0;
  for (int s = 1; s <= 2; s++) { /* specialize_autograd_zero, lower_simple_tuples */
    const AppWorkspaceStage *stage = g_ptr_array_index(plan->stages, (guint)s);
    g_assert_false(stage->changed);
    guint builds = app_stage_layouts_dot_builds(layouts);
    guint laid = app_layout_service_layouts(service);
    gint64 t = g_get_monotonic_time();
    g_assert_true(gtk_widget_activate_action(GTK_WIDGET(window), "win.next-stage", NULL));
    double step_ms = ms_since(t);
    worst = MAX(worst, step_ms);
    g_assert_cmpint(jitscope_window_get_stage(window), ==, s);
    g_assert_false(jitscope_graph_view_is_waiting(view));
    g_assert_true(jitscope_graph_view_get_scene(view) == scene ||
                  jitscope_graph_view_get_scene(view)->width == scene->width);
    g_assert_cmpuint(app_stage_layouts_dot_builds(layouts), <=, builds + (s == 1));
    g_assert_cmpuint(app_layout_service_layouts(service), ==, laid);
    wait_frames(window, 2);
  }
  /* Back to a stage already shown: nothing is built at all. */
  guint builds = app_stage_layouts_dot_builds(layouts);
  gint64 t = g_get_monotonic_time();
  g_assert_true(gtk_widget_activate_action(GTK_WIDGET(window), "win.prev-stage", NULL));
  double back_ms = ms_since(t);
  g_assert_cmpuint(app_stage_layouts_dot_builds(layouts), ==, builds);
  g_assert_false(jitscope_graph_view_is_waiting(view));
  g_test_message("cached steps: worst %.1f ms, back %.1f ms", worst, back_ms);

  /* A changed stage starts a layout; Escape (the window's) stops it. */
  int changed = -1;
  for (guint s = 4; s < plan->stages->len && changed < 0; s++)
    if (((AppWorkspaceStage *)g_ptr_array_index(plan->stages, s))->changed)
      changed = (int)s;
  g_assert_cmpint(changed, >, 0);
  g_assert_true(
      gtk_widget_activate_action(GTK_WIDGET(window), "win.select-stage", "u", (guint32)changed));
  g_assert_true(jitscope_graph_view_is_waiting(view));
  g_assert_nonnull(jitscope_graph_view_get_progress(view));
  g_assert_true(gtk_widget_activate_action(GTK_WIDGET(window), "win.cancel-layout", NULL));
  g_assert_false(jitscope_graph_view_is_waiting(view));
  g_assert_null(jitscope_graph_view_get_progress(view));
  /* Again, with the canvas's own Cancel (its action, as the button and Escape there). */
  g_assert_true(gtk_widget_activate_action(GTK_WIDGET(window), "win.next-stage", NULL));
  if (jitscope_graph_view_is_waiting(view)) {
    g_assert_true(gtk_widget_activate_action(GTK_WIDGET(view), "canvas.cancel-layout", NULL));
    g_assert_false(jitscope_graph_view_is_waiting(view));
  }
  wait_frames(window, 2);
  gtk_window_destroy(GTK_WINDOW(window));
}

static void test_expand_cluster(void) {
  JitscopeWindow *window = open_unrolled();
  JitscopeGraphView *view = jitscope_window_get_graph_view(window);
  act(window, "win.run", NULL);
  const AppWorkspaceRun *run = app_workspace_last_run(jitscope_window_get_workspace(window));
  const AppWorkspacePlan *plan = g_ptr_array_index(run->plans, 0);
  act(window, "win.select-stage", "u", plan->stages->len - 1);
  AppScene *folded = jitscope_graph_view_get_scene(view);
  g_assert_nonnull(folded);
  const char *found = find_node(folded, "prim::FusionGroup");
  g_assert_nonnull(found);
  char *group = g_strdup(found);
  char *prefix = g_strdup_printf("%s_", group);
  g_assert_cmpuint(count_prefixed(folded, prefix), ==, 0);
  AppStageLayouts *layouts = jitscope_window_get_stage_layouts(window);
  AppLayoutService *service = app_stage_layouts_service(layouts);
  guint laid = app_layout_service_layouts(service);

  /* Expand: the cluster alone, then the main graph with a box of its size; composed. */
  g_assert_true(jitscope_graph_view_select(view, group));
  act(window, "win.fold", NULL);
  AppScene *expanded = jitscope_graph_view_get_scene(view);
  g_assert_nonnull(expanded);
  guint inside = count_prefixed(expanded, prefix);
  g_test_message("expanded %s: %u nodes inside, %u layouts", group, inside,
                 app_layout_service_layouts(service) - laid);
  g_assert_cmpuint(inside, >, 2);
  g_assert_cmpuint(app_layout_service_layouts(service), >=, laid + 2);
  g_assert_cmpuint(app_stage_layouts_compositions(layouts), >=, 1);
  g_assert_nonnull(strstr(jitscope_window_get_stage_title(window), "nodes"));
  /* The box is where the group's node is: the inside lies within the owner's bounds. */
  const AppObject *box = app_scene_object(expanded, (guint)app_scene_find(expanded, group));
  for (guint i = 0; i < expanded->objects->len; i++) {
    const AppObject *o = app_scene_object(expanded, i);
    if (o->kind == APP_OBJECT_NODE && g_str_has_prefix(o->id, prefix)) {
      g_assert_cmpfloat(o->bounds.x0, >=, box->bounds.x0 - 1);
      g_assert_cmpfloat(o->bounds.x1, <=, box->bounds.x1 + 1);
      g_assert_cmpfloat(o->bounds.y1, <=, box->bounds.y1 + 1);
    }
  }
  g_assert_true(jitscope_graph_view_select(view, group));
  jitscope_graph_view_zoom(view, 0.7);
  screenshot(window, "window-lstm-unrolled-expanded.png");

  /* Collapse: the main layout of before, from the cache. */
  laid = app_layout_service_layouts(service);
  g_assert_true(jitscope_graph_view_select(view, group));
  act(window, "win.fold", NULL);
  AppScene *again = jitscope_graph_view_get_scene(view);
  g_assert_cmpuint(app_layout_service_layouts(service), ==, laid);
  g_assert_cmpuint(count_prefixed(again, prefix), ==, 0);
  g_assert_cmpfloat(again->width, ==, folded->width);
  /* Expanding again: every layout is cached (the composed scene too). */
  g_assert_true(jitscope_graph_view_select(view, group));
  act(window, "win.fold", NULL);
  g_assert_cmpuint(app_layout_service_layouts(service), ==, laid);
  g_assert_cmpuint(count_prefixed(jitscope_graph_view_get_scene(view), prefix), ==, inside);
  g_free(prefix);
  g_free(group);
  gtk_window_destroy(GTK_WINDOW(window));
}

int main(int argc, char **argv) {
  /* The window's layout service reads its budget when it is made. */
  g_setenv("JITSCOPE_LAYOUT_BUDGET_MS", BUDGET_MS, TRUE);
  if (!gtk_init_check()) {
    g_print("1..0 # SKIP no display\n");
    return 77;
  }
  g_test_init(&argc, &argv, NULL);
  g_log_set_always_fatal(G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL);
  app = jitscope_application_new();
  g_assert_true(g_application_register(G_APPLICATION(app), NULL, NULL));
  g_test_add_func("/large-graph/progressive-display", test_progressive_display);
  g_test_add_func("/large-graph/expand-cluster", test_expand_cluster);
  int status = g_test_run();
  g_object_unref(app);
  return status;
}
