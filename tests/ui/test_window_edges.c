/* Edges of the canvas under Xvfb: an edge of the LSTM's first stage hovered (highlighted over
 * the cached drawing, which is not redrawn) and clicked (the value selected, the inspector
 * shows its type, producer, users and values); the hit tolerance scaled by the zoom; edge
 * type labels toggled (canvas.edge-types) on and off, per window, and in the compare view.
 * Screenshot window-edge-types.png. Exits 77 without a display. */
#include <gtk/gtk.h>
#include <string.h>

#include "graphviz_dot.h"
#include "jitscope-application.h"
#include "ui_test_util.h"

static JitscopeApplication *app;

/* A window on an example file, run with its header's specs as it opens. */
static JitscopeWindow *open_example(const char *name) {
  char *path =
      g_build_filename(g_getenv("JITSCOPE_SOURCE_DIR"), "resources", "examples", name, NULL);
  JitscopeWindow *window = jitscope_application_open_window(app, path);
  g_free(path);
  gtk_window_set_default_size(GTK_WINDOW(window), 1500, 900);
  wait_shown(window);
  return window;
}

static JitscopeWindow *open_lstm(void) {
  JitscopeWindow *window = open_example("lstm_cell.ir");
  g_assert_cmpuint(app_workspace_last_run(jitscope_window_get_workspace(window))->n_failed, ==, 0);
  act(window, "win.select-plan", "u", 0);
  act(window, "win.select-stage", "u", 0);
  return window;
}

/* Text shapes of edge object `index` (its label), those equal to `text` when set. */
static guint edge_labels_of(AppScene *scene, guint index, const char *text) {
  const AppObject *o = app_scene_object(scene, index);
  guint n = 0;
  for (guint k = 0; o->kind == APP_OBJECT_EDGE && k < o->n_shapes; k++) {
    const AppShape *s = app_scene_shape(scene, o->first_shape + k);
    n += s->kind == APP_SHAPE_TEXT && (!text || strcmp(s->text, text) == 0);
  }
  return n;
}

/* Text shapes of the scene's edges. */
static guint edge_labels(AppScene *scene, const char *text) {
  guint n = 0;
  for (guint i = 0; scene && i < scene->objects->len; i++)
    n += edge_labels_of(scene, i, text);
  return n;
}

/* A point of edge `index`'s curve (its first Bézier at t = 1/2) in scene units. */
static void curve_middle(AppScene *scene, guint index, double *x, double *y) {
  const AppShape *s = app_scene_shape(scene, app_scene_object(scene, index)->first_shape);
  g_assert_cmpint(s->kind, ==, APP_SHAPE_BEZIER);
  const double *p = s->points;
  *x = 0.125 * p[0] + 0.375 * p[2] + 0.375 * p[4] + 0.125 * p[6];
  *y = 0.125 * p[1] + 0.375 * p[3] + 0.375 * p[5] + 0.125 * p[7];
}

/* The edge of the value %name (its first use), with no node at its curve's middle. */
static int find_edge(AppScene *scene, const IrGraph *graph, const char *name) {
  for (guint i = 0; i < scene->objects->len; i++) {
    const AppObject *o = app_scene_object(scene, i);
    if (o->kind != APP_OBJECT_EDGE)
      continue;
    const IrValue *v = app_graphviz_dot_find_value(graph, o->id);
    double x, y;
    curve_middle(scene, i, &x, &y);
    if (v && g_strcmp0(v->name, name) == 0 && app_scene_hit_node(scene, x, y) < 0)
      return (int)i;
  }
  return -1;
}

static void test_hover_and_click(void) {
  JitscopeWindow *window = open_lstm();
  JitscopeGraphView *view = jitscope_window_get_graph_view(window);
  const AppWorkspaceRun *run = app_workspace_last_run(jitscope_window_get_workspace(window));
  const AppWorkspacePlan *plan = g_ptr_array_index(run->plans, 0);
  const IrGraph *graph = ((AppWorkspaceStage *)g_ptr_array_index(plan->stages, 0))->graph;
  AppScene *scene = jitscope_graph_view_get_scene(view);
  g_assert_nonnull(scene);
  g_assert_cmpuint(edge_labels(scene, NULL), ==, 0); /* edge types off by default */
  int edge = find_edge(scene, graph, "cy.1");
  g_assert_cmpint(edge, >=, 0);
  const char *id = app_scene_object(scene, (guint)edge)->id;
  const IrValue *value = app_graphviz_dot_find_value(graph, id);
  double sx, sy, x, y;
  curve_middle(scene, (guint)edge, &sx, &sy);
  g_assert_true(jitscope_graph_view_scene_to_widget(view, sx, sy, &x, &y));

  /* Hover 3 px beside the curve: highlighted over the cached drawing. */
  wait_frames(window, 5);
  guint draws = jitscope_graph_view_get_draw_count(view);
  guint overlays = jitscope_graph_view_get_overlay_count(view);
  jitscope_graph_view_hover_at(view, x + 3, y);
  wait_frames(window, 5);
  g_assert_cmpstr(jitscope_graph_view_get_hover(view), ==, id);
  g_assert_cmpuint(jitscope_graph_view_get_overlay_count(view), >, overlays);
  g_assert_cmpuint(jitscope_graph_view_get_draw_count(view), ==, draws);
  /* Over a node there is no edge hover. */
  const AppObject *node = app_scene_object(scene, (guint)app_scene_find(scene, "i0"));
  double nx, ny;
  jitscope_graph_view_scene_to_widget(view, (node->bounds.x0 + node->bounds.x1) / 2,
                                      (node->bounds.y0 + node->bounds.y1) / 2, &nx, &ny);
  jitscope_graph_view_hover_at(view, nx, ny);
  g_assert_null(jitscope_graph_view_get_hover(view));
  wait_frames(window, 3);
  g_assert_cmpuint(jitscope_graph_view_get_draw_count(view), ==, draws);

  /* The tolerance is in pixels: 4 px beside the curve hit at any zoom, 12 px do not. */
  jitscope_graph_view_zoom(view, 2.0);
  wait_frames(window, 3);
  g_assert_true(jitscope_graph_view_scene_to_widget(view, sx, sy, &x, &y));
  jitscope_graph_view_hover_at(view, x + 4, y);
  g_assert_cmpstr(jitscope_graph_view_get_hover(view), ==, id);
  jitscope_graph_view_hover_at(view, x + 12, y);
  g_assert_cmpstr(jitscope_graph_view_get_hover(view), !=, id);
  jitscope_graph_view_fit(view);
  wait_frames(window, 3);
  g_assert_true(jitscope_graph_view_scene_to_widget(view, sx, sy, &x, &y));

  /* Click: the value is selected and inspected. */
  jitscope_graph_view_click_at(view, x + 2, y);
  wait_idle(window);
  g_assert_cmpstr(jitscope_graph_view_get_selected(view), ==, id);
  const char *text = jitscope_window_get_inspector_text(window);
  char *type = ir_type_to_string(value->type);
  char *head = g_strdup_printf("%%cy.1 : %s   (id %s)", type, id);
  g_assert_nonnull(strstr(text, head));
  g_assert_nonnull(strstr(text, "producer: aten::add"));
  g_assert_nonnull(strstr(text, "users (2):"));
  g_assert_nonnull(strstr(text, "of aten::tanh"));
  g_assert_nonnull(strstr(text, "%cy.1: float32 [3, 20]"));
  g_free(head);
  g_free(type);
  /* The selection survives stepping (the same value drawn in the next stage). */
  act(window, "win.select-stage", "u", 1);
  g_assert_cmpstr(jitscope_graph_view_get_selected(view), ==, id);
  /* Clicking nothing goes back to the plan. */
  jitscope_graph_view_click_at(view, 1, 1);
  wait_idle(window);
  g_assert_null(jitscope_graph_view_get_selected(view));
  g_assert_nonnull(strstr(jitscope_window_get_inspector_text(window), "Click a node"));
  gtk_window_destroy(GTK_WINDOW(window));
}

static void test_edge_types(void) {
  JitscopeWindow *window = open_lstm();
  JitscopeWindow *other = open_lstm();
  JitscopeGraphView *view = jitscope_window_get_graph_view(window);
  act(window, "win.select-stage", "u", 1);
  g_assert_cmpuint(edge_labels(jitscope_graph_view_get_scene(view), NULL), ==, 0);
  act(window, "canvas.edge-types", NULL);
  /* every edge labelled with its value's type */
  AppScene *scene = jitscope_graph_view_get_scene(view);
  const AppWorkspaceRun *run = app_workspace_last_run(jitscope_window_get_workspace(window));
  const AppWorkspacePlan *plan = g_ptr_array_index(run->plans, 0);
  const IrGraph *graph = ((AppWorkspaceStage *)g_ptr_array_index(plan->stages, 1))->graph;
  guint edges = 0;
  for (guint i = 0; i < scene->objects->len; i++) {
    const AppObject *o = app_scene_object(scene, i);
    if (o->kind != APP_OBJECT_EDGE)
      continue;
    edges++;
    char *type = ir_type_to_string(app_graphviz_dot_find_value(graph, o->id)->type);
    g_assert_cmpuint(edge_labels_of(scene, i, type), ==, 1);
    g_free(type);
  }
  g_assert_cmpuint(edges, >, 20);
  g_assert_cmpuint(edge_labels(scene, NULL), ==, edges);
  g_assert_cmpuint(edge_labels(scene, "Float(*, *, requires_grad=1, device=cpu)"), >, 0);
  /* stepping keeps the labels; the other window has its own state */
  act(window, "win.select-stage", "u", 2);
  g_assert_cmpuint(edge_labels(jitscope_graph_view_get_scene(view), NULL), >, 0);
  act(other, "win.select-stage", "u", 2);
  g_assert_cmpuint(
      edge_labels(jitscope_graph_view_get_scene(jitscope_window_get_graph_view(other)), NULL), ==,
      0);
  gtk_window_destroy(GTK_WINDOW(other));
  /* a value selected for the picture, after propagate_requires_grad (stage 11) */
  act(window, "win.select-stage", "u", 10);
  scene = jitscope_graph_view_get_scene(view);
  graph = ((AppWorkspaceStage *)g_ptr_array_index(plan->stages, 10))->graph;
  int edge = find_edge(scene, graph, "gates.1");
  g_assert_cmpint(edge, >=, 0);
  g_assert_true(jitscope_graph_view_select(view, app_scene_object(scene, (guint)edge)->id));
  wait_idle(window);
  g_assert_nonnull(strstr(jitscope_window_get_inspector_text(window), "%gates.1 : "));
  wait_frames(window, 10); /* select brought the value into view at 100 % */
  screenshot(window, "window-edge-types.png");
  /* off again, from the canvas (as its key t and its menu do): the first layout, cached */
  g_assert_true(gtk_widget_activate_action(GTK_WIDGET(view), "canvas.edge-types", NULL));
  wait_idle(window);
  g_assert_cmpuint(edge_labels(jitscope_graph_view_get_scene(view), NULL), ==, 0);
  gtk_window_destroy(GTK_WINDOW(window));
}

static void test_compare_edge_types(void) {
  JitscopeWindow *window = open_example("broadcast_cell.ir");
  const char *specs[] = {
      "Float(5, 5, requires_grad=1); Float(5, 5, requires_grad=1); Float(5, 5, requires_grad=1)",
      "Float(5, 1, requires_grad=1); Float(5, 5, requires_grad=1); Float(5, 5, requires_grad=1)",
  };
  jitscope_window_set_specs(window, specs, 2);
  act(window, "win.run", NULL);
  /* the backward plans differ */
  const AppWorkspaceRun *run = app_workspace_last_run(jitscope_window_get_workspace(window));
  const AppWorkspaceSpecResult *r0 = g_ptr_array_index(run->specs, 0);
  const AppWorkspacePlan *b0 = g_ptr_array_index(r0->backward, 0);
  for (guint p = 0; p < run->plans->len; p++)
    if (g_ptr_array_index(run->plans, p) == b0)
      act(window, "win.select-plan", "u", p);
  act(window, "win.compare", NULL);
  g_assert_true(jitscope_window_is_comparing(window));
  JitscopeCompareView *compare = jitscope_window_get_compare_view(window);
  guint n = jitscope_compare_view_get_n_columns(compare);
  g_assert_cmpuint(n, ==, 2);
  for (guint i = 0; i < n; i++)
    g_assert_cmpuint(
        edge_labels(jitscope_graph_view_get_scene(jitscope_compare_view_get_column(compare, i)),
                    NULL),
        ==, 0);
  act(window, "canvas.edge-types", NULL);
  for (guint i = 0; i < n; i++)
    g_assert_cmpuint(
        edge_labels(jitscope_graph_view_get_scene(jitscope_compare_view_get_column(compare, i)),
                    NULL),
        >, 0);
  /* kept when the plans are compared again */
  act(window, "win.compare", NULL);
  act(window, "win.compare", NULL);
  g_assert_cmpuint(
      edge_labels(jitscope_graph_view_get_scene(jitscope_compare_view_get_column(compare, 0)),
                  NULL),
      >, 0);
  gtk_window_destroy(GTK_WINDOW(window));
}

int main(int argc, char **argv) {
  if (!gtk_init_check()) {
    g_print("1..0 # SKIP no display\n");
    return 77;
  }
  g_test_init(&argc, &argv, NULL);
  g_log_set_always_fatal(G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL);
  app = jitscope_application_new();
  g_assert_true(g_application_register(G_APPLICATION(app), NULL, NULL));
  g_test_add_func("/window-edges/hover-and-click", test_hover_and_click);
  g_test_add_func("/window-edges/edge-types", test_edge_types);
  g_test_add_func("/window-edges/compare", test_compare_edge_types);
  int status = g_test_run();
  g_object_unref(app);
  return status;
}
