/* The workbench window under Xvfb: the LSTM example run and stepped through every stage of
 * every plan by actions, a node inspected, the broadcast example's three specs compared,
 * screenshots rendered and checked, a malformed file and a failing run shown without
 * breaking the window. Exits 77 without a display. Screenshots go to
 * $JITSCOPE_SCREENSHOT_DIR when set. */
#include <gtk/gtk.h>
#include <glib/gstdio.h>
#include <string.h>

#include "jitscope-application.h"

static JitscopeApplication *app;

static void wait_idle(JitscopeWindow *window) {
  gint64 until = g_get_monotonic_time() + 120 * G_USEC_PER_SEC;
  /* Let queued callbacks post their follow-ups, then wait for quiet. */
  for (int i = 0; i < 5; i++)
    g_main_context_iteration(NULL, FALSE);
  while (jitscope_window_is_busy(window) && g_get_monotonic_time() < until)
    g_main_context_iteration(NULL, TRUE);
  for (int i = 0; i < 20; i++)
    g_main_context_iteration(NULL, FALSE);
  g_assert_false(jitscope_window_is_busy(window));
}

static void wait_frames(int n) {
  for (int i = 0; i < n; i++) {
    g_usleep(10000);
    while (g_main_context_iteration(NULL, FALSE))
      ;
  }
}

/* Renders the window (paintable -> render node -> texture), saves it when asked, and checks
 * that the picture is not blank. */
static void screenshot(JitscopeWindow *window, const char *name) {
  wait_frames(20);
  GtkWidget *widget = GTK_WIDGET(window);
  int w = gtk_widget_get_width(widget), h = gtk_widget_get_height(widget);
  g_assert_cmpint(w, >, 100);
  GdkPaintable *paintable = gtk_widget_paintable_new(widget);
  GtkSnapshot *snapshot = gtk_snapshot_new();
  gdk_paintable_snapshot(paintable, snapshot, w, h);
  GskRenderNode *node = gtk_snapshot_free_to_node(snapshot);
  g_assert_nonnull(node);
  GskRenderer *renderer = gtk_native_get_renderer(GTK_NATIVE(window));
  GdkTexture *texture = gsk_renderer_render_texture(renderer, node, &GRAPHENE_RECT_INIT(0, 0, w, h));
  gsize stride = (gsize)w * 4;
  guchar *pixels = g_malloc(stride * (gsize)h);
  gdk_texture_download(texture, pixels, stride);
  GHashTable *colors = g_hash_table_new(g_direct_hash, g_direct_equal);
  for (int y = 0; y < h; y += 3)
    for (int x = 0; x < w; x += 3) {
      guint32 px;
      memcpy(&px, pixels + (gsize)y * stride + (gsize)x * 4, 4);
      g_hash_table_add(colors, GUINT_TO_POINTER(px));
    }
  g_assert_cmpuint(g_hash_table_size(colors), >, 50);
  g_hash_table_destroy(colors);
  g_free(pixels);
  const char *dir = g_getenv("JITSCOPE_SCREENSHOT_DIR");
  if (dir) {
    g_mkdir_with_parents(dir, 0755);
    char *path = g_build_filename(dir, name, NULL);
    g_assert_true(gdk_texture_save_to_png(texture, path));
    g_test_message("saved %s", path);
    g_free(path);
  }
  g_object_unref(texture);
  gsk_render_node_unref(node);
  g_object_unref(paintable);
}

static guint count_label(AppScene *scene, const char *needle) {
  GArray *found = app_scene_search(scene, needle);
  guint n = found->len;
  g_array_unref(found);
  return n;
}

static JitscopeWindow *open_example(void) {
  JitscopeWindow *window = jitscope_application_open_window(app, NULL);
  gtk_window_set_default_size(GTK_WINDOW(window), 1400, 860);
  wait_frames(30);
  g_assert_nonnull(app_workspace_graph(jitscope_window_get_workspace(window)));
  g_assert_null(jitscope_window_get_program_error(window));
  return window;
}

static void test_lstm_every_stage(void) {
  JitscopeWindow *window = open_example();
  gtk_widget_activate_action(GTK_WIDGET(window), "win.run", NULL);
  wait_idle(window);
  const AppWorkspaceRun *run = app_workspace_last_run(jitscope_window_get_workspace(window));
  g_assert_nonnull(run);
  g_assert_cmpuint(run->n_failed, ==, 0);
  g_assert_cmpuint(run->plans->len, >=, 2);
  g_assert_cmpint(jitscope_window_get_plan(window), ==, 0);
  JitscopeGraphView *view = jitscope_window_get_graph_view(window);
  guint stages_seen = 0;
  for (guint p = 0; p < run->plans->len; p++) {
    const AppWorkspacePlan *plan = g_ptr_array_index(run->plans, p);
    gtk_widget_activate_action(GTK_WIDGET(window), "win.select-plan", "u", p);
    wait_idle(window);
    g_assert_cmpint(jitscope_window_get_plan(window), ==, (int)p);
    for (guint s = 0; s < plan->stages->len; s++) {
      g_assert_cmpint(jitscope_window_get_stage(window), ==, (int)s);
      AppScene *scene = jitscope_graph_view_get_scene(view);
      g_assert_nonnull(scene);
      g_assert_cmpuint(count_label(scene, "return"), >=, 1);
      if (plan->kind == EXEC_PLAN_FORWARD && s == 0)
        g_assert_cmpuint(count_label(scene, "aten::mm"), ==, 2);
      stages_seen++;
      gtk_widget_activate_action(GTK_WIDGET(window), "win.next-stage", NULL);
      wait_idle(window);
    }
    /* Past the last stage, next-stage stays there. */
    g_assert_cmpint(jitscope_window_get_stage(window), ==, (int)plan->stages->len - 1);
    if (p == 0)
      screenshot(window, "window-lstm-forward.png");
  }
  g_assert_cmpuint(stages_seen, >, 20);

  /* Back to the forward plan's DifferentiableGraph stage, pick a node, inspect it. */
  gtk_widget_activate_action(GTK_WIDGET(window), "win.select-plan", "u", 0);
  wait_idle(window);
  AppScene *scene = jitscope_graph_view_get_scene(view);
  GArray *found = app_scene_search(scene, "aten::sigmoid");
  g_assert_cmpuint(found->len, >, 0);
  const char *id = app_scene_object(scene, g_array_index(found, guint, 0))->id;
  g_assert_true(jitscope_graph_view_select(view, id));
  g_array_unref(found);
  const char *inspector = jitscope_window_get_inspector_text(window);
  g_assert_nonnull(strstr(inspector, "aten::sigmoid"));
  g_assert_nonnull(strstr(inspector, "schema: aten::sigmoid"));
  /* Last stage of the backward plan, for the picture. */
  gtk_widget_activate_action(GTK_WIDGET(window), "win.select-plan", "u", run->plans->len - 1);
  wait_idle(window);
  const AppWorkspacePlan *last = g_ptr_array_index(run->plans, run->plans->len - 1);
  gtk_widget_activate_action(GTK_WIDGET(window), "win.select-stage", "u", last->stages->len - 1);
  wait_idle(window);
  screenshot(window, "window-lstm-backward.png");
  gtk_window_destroy(GTK_WINDOW(window));
}

static char *example_path(const char *name) {
  return g_build_filename(g_getenv("JITSCOPE_SOURCE_DIR"), "resources", "examples", name, NULL);
}

static void test_compare_broadcast(void) {
  JitscopeWindow *window = open_example();
  char *path = example_path("broadcast_cell.ir");
  jitscope_window_open_file(window, path);
  g_free(path);
  const char *specs[] = {
      "Float(5, 5, requires_grad=1); Float(5, 5, requires_grad=1); Float(5, 5, requires_grad=1)",
      "Float(5, 1, requires_grad=1); Float(5, 5, requires_grad=1); Float(5, 5, requires_grad=1)",
      "Float(5, 1, requires_grad=1); Float(5, 1, requires_grad=1); Float(5, 5, requires_grad=1)",
  };
  jitscope_window_set_specs(window, specs, 3);
  gtk_widget_activate_action(GTK_WIDGET(window), "win.run", NULL);
  wait_idle(window);
  const AppWorkspaceRun *run = app_workspace_last_run(jitscope_window_get_workspace(window));
  g_assert_cmpuint(run->specs->len, ==, 3);
  g_assert_cmpuint(run->n_failed, ==, 0);
  /* Compare the backward plans: select one first. */
  const AppWorkspaceSpecResult *r0 = g_ptr_array_index(run->specs, 0);
  const AppWorkspacePlan *b0 = g_ptr_array_index(r0->backward, 0);
  for (guint p = 0; p < run->plans->len; p++)
    if (g_ptr_array_index(run->plans, p) == b0)
      gtk_widget_activate_action(GTK_WIDGET(window), "win.select-plan", "u", p);
  wait_idle(window);
  gtk_widget_activate_action(GTK_WIDGET(window), "win.compare", NULL);
  wait_idle(window);
  JitscopeCompareView *compare = jitscope_window_get_compare_view(window);
  g_assert_cmpuint(jitscope_compare_view_get_n_columns(compare), ==, 3);
  guint steps = jitscope_compare_view_get_n_steps(compare);
  g_assert_cmpuint(steps, >, 3);
  gtk_widget_activate_action(GTK_WIDGET(window), "win.select-stage", "u", 0);
  while (jitscope_compare_view_get_step(compare) > 0) {
    gtk_widget_activate_action(GTK_WIDGET(window), "win.prev-stage", NULL);
    wait_idle(window);
  }
  for (guint s = 0; s + 1 < steps; s++) {
    for (guint c = 0; c < 3; c++)
      g_assert_nonnull(jitscope_graph_view_get_scene(jitscope_compare_view_get_column(compare, c)));
    gtk_widget_activate_action(GTK_WIDGET(window), "win.next-stage", NULL);
    wait_idle(window);
    g_assert_cmpuint(jitscope_compare_view_get_step(compare), ==, s + 1);
  }
  /* At the last stage: 0, 1 and 2 _grad_sum_to_size nodes. */
  for (guint c = 0; c < 3; c++) {
    AppScene *scene = jitscope_graph_view_get_scene(jitscope_compare_view_get_column(compare, c));
    g_assert_nonnull(scene);
    guint n = count_label(scene, "aten::_grad_sum_to_size");
    g_assert_cmpuint(n > 0, ==, c > 0);
  }
  screenshot(window, "window-compare-broadcast.png");
  gtk_widget_activate_action(GTK_WIDGET(window), "win.compare", NULL);
  wait_idle(window);
  gtk_window_destroy(GTK_WINDOW(window));
}

static void test_errors_shown(void) {
  JitscopeWindow *window = open_example();
  char *dir = g_dir_make_tmp("jitscope-ui-XXXXXX", NULL);
  char *bad = g_build_filename(dir, "bad.ir", NULL);
  g_assert_true(g_file_set_contents(bad, "graph(%x : Tensor):\n  %y : Tensor = aten::nope(%x)\n  return (%y)\n", -1, NULL));
  jitscope_window_open_file(window, bad);
  const char *error = jitscope_window_get_program_error(window);
  g_assert_nonnull(error);
  g_assert_nonnull(strstr(error, "bad.ir:2:"));
  /* Run refuses with the reason; the window keeps working. */
  gtk_widget_activate_action(GTK_WIDGET(window), "win.run", NULL);
  wait_idle(window);
  g_assert_nonnull(strstr(jitscope_window_get_run_status(window), "does not parse"));
  screenshot(window, "window-parse-error.png");
  /* A file that does not exist. */
  jitscope_window_open_file(window, "/nonexistent/graph.ir");
  g_assert_nonnull(strstr(jitscope_window_get_run_status(window), "Cannot open"));

  /* A valid program with specs whose shapes cannot be added: the run reports it. */
  char *path = example_path("broadcast_cell.ir");
  jitscope_window_open_file(window, path);
  g_free(path);
  g_assert_null(jitscope_window_get_program_error(window));
  const char *specs[] = {"Float(2, 3); Float(4, 5); Float(1)", "Float(2); Float(2)"};
  jitscope_window_set_specs(window, specs, 2);
  gtk_widget_activate_action(GTK_WIDGET(window), "win.run", NULL);
  wait_idle(window);
  const char *status = jitscope_window_get_run_status(window);
  g_assert_nonnull(strstr(status, "2 failed"));
  g_assert_nonnull(strstr(status, "spec 1:"));
  g_assert_nonnull(strstr(status, "spec 2:"));
  screenshot(window, "window-failed-run.png");
  /* And it still runs a good spec afterwards. */
  const char *good = "Float(2, 2); Float(2, 2); Float(2, 2)";
  jitscope_window_set_specs(window, &good, 1);
  gtk_widget_activate_action(GTK_WIDGET(window), "win.run", NULL);
  wait_idle(window);
  g_assert_nonnull(jitscope_graph_view_get_scene(jitscope_window_get_graph_view(window)));
  g_remove(bad);
  g_rmdir(dir);
  g_free(bad);
  g_free(dir);
  gtk_window_destroy(GTK_WINDOW(window));
}

int main(int argc, char **argv) {
  if (!gtk_init_check()) {
    g_print("1..0 # SKIP no display\n");
    return 77;
  }
  g_test_init(&argc, &argv, NULL);
  /* Warnings about the environment (no session bus under Xvfb) are not failures; criticals
   * are. */
  g_log_set_always_fatal(G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL);
  app = jitscope_application_new();
  g_assert_true(g_application_register(G_APPLICATION(app), NULL, NULL));
  g_test_add_func("/window/lstm-every-stage", test_lstm_every_stage);
  g_test_add_func("/window/compare-broadcast", test_compare_broadcast);
  g_test_add_func("/window/errors-shown", test_errors_shown);
  int status = g_test_run();
  g_object_unref(app);
  return status;
}
