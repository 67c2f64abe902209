/* The workbench window under Xvfb: the LSTM example run with the fuser on and stepped through
 * every stage from every row of the plans tree (forward, f, backward, fusion groups, kernels)
 * by actions; a node inspected (schema, origin history, values); a FusionGroup inspected with
 * CUDA missing (JITSCOPE_CUDA_LIBDIR is set to an empty folder before CUDA is first loaded);
 * search and zoom to a node; the broadcast example's three specs compared; the bug-report
 * bundle exported and its manifest parsed; a malformed file and a failing run shown without
 * breaking the window; settings remembered. Screenshots rendered from the window's widgets and
 * checked for content; saved to $JITSCOPE_SCREENSHOT_DIR when set. Exits 77 without a
 * display. */
#include <glib/gstdio.h>
#include <gtk/gtk.h>
#include <json-glib/json-glib.h>
#include <string.h>

#include "jitscope-application.h"
#include "ui_test_util.h"

static JitscopeApplication *app;
static char *cuda_dir;

static guint count_label(AppScene *scene, const char *needle) {
  GArray *found = app_scene_search(scene, needle);
  guint n = found->len;
  g_array_unref(found);
  return n;
}

static char *example_path(const char *name) {
  return g_build_filename(g_getenv("JITSCOPE_SOURCE_DIR"), "resources", "examples", name, NULL);
}

/* The window as `jitscope` opens it: on the LSTM example, run at once with its header's spec. */
static JitscopeWindow *open_example(void) {
  JitscopeWindow *window = jitscope_application_open_window(app, NULL);
  gtk_window_set_default_size(GTK_WINDOW(window), 1500, 900);
  wait_shown(window);
  g_assert_nonnull(app_workspace_graph(jitscope_window_get_workspace(window)));
  g_assert_null(jitscope_window_get_program_error(window));
  return window;
}

static JitscopeWindow *open_and_run_lstm(void) {
  JitscopeWindow *window = open_example();
  const AppWorkspaceRun *run = app_workspace_last_run(jitscope_window_get_workspace(window));
  g_assert_nonnull(run);
  g_assert_cmpuint(run->n_failed, ==, 0);
  g_assert_cmpuint(run->plans->len, >=, 2);
  g_assert_cmpint(jitscope_window_get_plan(window), ==, 0);
  return window;
}

static void test_lstm_every_row_every_stage(void) {
  JitscopeWindow *window = open_and_run_lstm();
  const AppWorkspaceRun *run = app_workspace_last_run(jitscope_window_get_workspace(window));
  JitscopePlansTree *tree = jitscope_window_get_plans_tree(window);
  JitscopeGraphView *view = jitscope_window_get_graph_view(window);
  guint kinds[JITSCOPE_PLAN_ROW_KERNEL + 1] = {0};
  guint stages_seen = 0, groups_on_canvas = 0;
  guint n_rows = jitscope_plans_tree_get_n_rows(tree);
  for (guint r = 0; r < n_rows; r++) {
    JitscopePlanRowKind kind;
    int plan = -1, stage = -1;
    guint64 origin = 0;
    g_assert_true(jitscope_plans_tree_get_row(tree, r, &kind, &plan, &stage, &origin, NULL));
    kinds[kind]++;
    if (plan < 0)
      continue;
    act(window, "win.select-row", "u", r);
    g_assert_cmpint(jitscope_window_get_plan(window), ==, plan);
    g_assert_cmpint(jitscope_window_get_stage(window), ==, stage);
    if (kind == JITSCOPE_PLAN_ROW_GROUP) {
      /* The group is selected on the canvas: the FusionGroup node (or its folded box). */
      const char *id = jitscope_graph_view_get_selected(view);
      g_assert_nonnull(id);
      g_assert_nonnull(strstr(jitscope_window_get_inspector_text(window), "prim::FusionGroup"));
      groups_on_canvas++;
    }
    const AppWorkspacePlan *p = g_ptr_array_index(run->plans, plan);
    for (guint s = (guint)stage; s < p->stages->len; s++) {
      g_assert_cmpint(jitscope_window_get_stage(window), ==, (int)s);
      AppScene *scene = jitscope_graph_view_get_scene(view);
      g_assert_nonnull(scene);
      g_assert_cmpuint(count_label(scene, "return"), >=, 1);
      if (p->kind == EXEC_PLAN_FORWARD && s == 0)
        g_assert_cmpuint(count_label(scene, "aten::mm"), ==, 2);
      g_assert_nonnull(strstr(jitscope_window_get_stage_title(window),
                              ((AppWorkspaceStage *)g_ptr_array_index(p->stages, s))->name));
      stages_seen++;
      act(window, "win.next-stage", NULL);
    }
    g_assert_cmpint(jitscope_window_get_stage(window), ==, (int)p->stages->len - 1);
  }
  g_assert_cmpuint(kinds[JITSCOPE_PLAN_ROW_PLAN], >=, 2);
  g_assert_cmpuint(kinds[JITSCOPE_PLAN_ROW_DIFF], >=, 1);
  g_assert_cmpuint(kinds[JITSCOPE_PLAN_ROW_GROUP], >=, 2); /* forward f and backward */
  g_assert_cmpuint(kinds[JITSCOPE_PLAN_ROW_KERNEL], ==, kinds[JITSCOPE_PLAN_ROW_GROUP]);
  g_assert_cmpuint(groups_on_canvas, ==, kinds[JITSCOPE_PLAN_ROW_GROUP]);
  g_assert_cmpuint(stages_seen, >, 40);
  /* n / p / Shift+N by action from the stage list: back to the start, then the changed ones. */
  act(window, "win.select-stage", "u", 0);
  act(window, "win.next-changed", NULL);
  const AppWorkspacePlan *shown = g_ptr_array_index(run->plans, jitscope_window_get_plan(window));
  g_assert_true(
      ((AppWorkspaceStage *)g_ptr_array_index(shown->stages, jitscope_window_get_stage(window)))
          ->changed);
  gtk_window_destroy(GTK_WINDOW(window));
}

/* Every plan's first picture is fitted to the canvas, chosen by action or from the plans
 * tree; stepping through a plan's stages keeps the viewport the user chose. */
static void test_viewport(void) {
  JitscopeWindow *window = open_and_run_lstm();
  JitscopeGraphView *view = jitscope_window_get_graph_view(window);
  const AppWorkspaceRun *run = app_workspace_last_run(jitscope_window_get_workspace(window));
  JitscopePlansTree *tree = jitscope_window_get_plans_tree(window);
  for (guint r = 0; r < jitscope_plans_tree_get_n_rows(tree); r++) {
    JitscopePlanRowKind kind;
    int plan = -1;
    jitscope_plans_tree_get_row(tree, r, &kind, &plan, NULL, NULL, NULL);
    if (kind != JITSCOPE_PLAN_ROW_PLAN || plan == jitscope_window_get_plan(window))
      continue;
    jitscope_graph_view_zoom(view, 3.0); /* what the previous plan's picture was left at */
    act(window, "win.select-row", "u", r);
    assert_fitted(view);
  }
  for (guint p = 0; p < run->plans->len; p++) {
    act(window, "win.select-plan", "u", p);
    assert_fitted(view);
    jitscope_graph_view_zoom(view, 1.7);
    double zoom = jitscope_graph_view_get_zoom(view);
    double x, y;
    g_assert_true(jitscope_graph_view_scene_to_widget(view, 0, 0, &x, &y));
    act(window, "win.next-stage", NULL);
    act(window, "win.next-changed", NULL);
    g_assert_cmpfloat(jitscope_graph_view_get_zoom(view), ==, zoom);
    double x2, y2;
    g_assert_true(jitscope_graph_view_scene_to_widget(view, 0, 0, &x2, &y2));
    g_assert_cmpfloat(x2, ==, x);
    g_assert_cmpfloat(y2, ==, y);
  }
  gtk_window_destroy(GTK_WINDOW(window));
}

static guint count_removed_drawn(AppScene *scene) {
  guint n = 0;
  for (guint i = 0; i < scene->objects->len; i++) {
    const AppObject *o = app_scene_object(scene, i);
    n += o->kind == APP_OBJECT_NODE && o->id[0] == 'x';
  }
  return n;
}

/* r (canvas.removed): the nodes a stage deleted, drawn faded from the stage before. */
static void test_removed_faded(void) {
  JitscopeWindow *window = open_and_run_lstm();
  JitscopeGraphView *view = jitscope_window_get_graph_view(window);
  const AppWorkspaceRun *run = app_workspace_last_run(jitscope_window_get_workspace(window));
  const AppWorkspacePlan *forward = g_ptr_array_index(run->plans, 0);
  guint stage = 1;
  while (strstr(jitscope_window_get_stage_title(window), "-0 removed")) {
    g_assert_cmpuint(stage, <, forward->stages->len);
    act(window, "win.select-stage", "u", stage++);
  }
  g_assert_nonnull(strstr(jitscope_window_get_stage_title(window), "(r draws them)"));
  g_assert_cmpuint(count_removed_drawn(jitscope_graph_view_get_scene(view)), ==, 0);
  act(window, "canvas.removed", NULL);
  guint drawn = count_removed_drawn(jitscope_graph_view_get_scene(view));
  g_test_message("stage %u: %s; %u drawn faded", stage, jitscope_window_get_stage_title(window),
                 drawn);
  g_assert_cmpuint(drawn, >, 0);
  g_assert_nonnull(strstr(jitscope_window_get_stage_title(window), "(drawn faded)"));
  g_assert_cmpuint(count_label(jitscope_graph_view_get_scene(view), "removed: "), ==, drawn);
  jitscope_graph_view_fit(view);
  screenshot(window, "window-removed-faded.png");
  act(window, "canvas.removed", NULL);
  g_assert_cmpuint(count_removed_drawn(jitscope_graph_view_get_scene(view)), ==, 0);
  gtk_window_destroy(GTK_WINDOW(window));
}

/* Picks a FusionGroup row, checks the inspector, returns the window at that group. */
static void select_first_group(JitscopeWindow *window) {
  JitscopePlansTree *tree = jitscope_window_get_plans_tree(window);
  for (guint r = 0; r < jitscope_plans_tree_get_n_rows(tree); r++) {
    JitscopePlanRowKind kind;
    jitscope_plans_tree_get_row(tree, r, &kind, NULL, NULL, NULL, NULL);
    if (kind == JITSCOPE_PLAN_ROW_GROUP) {
      act(window, "win.select-row", "u", r);
      return;
    }
  }
  g_assert_not_reached();
}

static void test_inspector(void) {
  JitscopeWindow *window = open_and_run_lstm();
  JitscopeGraphView *view = jitscope_window_get_graph_view(window);
  /* A sigmoid of the forward plan's last stage: schema, history, values. */
  const AppWorkspaceRun *run = app_workspace_last_run(jitscope_window_get_workspace(window));
  const AppWorkspacePlan *forward = g_ptr_array_index(run->plans, 0);
  act(window, "win.select-stage", "u", forward->stages->len - 1);
  jitscope_graph_view_fit(view);
  act(window, "win.fold", NULL); /* everything folded: the top level only */
  act(window, "win.fold", NULL); /* and unfolded again */
  g_assert_cmpuint(jitscope_window_search(window, "aten::sigmoid"), >, 0);
  wait_idle(window);
  const char *text = jitscope_window_get_inspector_text(window);
  g_assert_nonnull(strstr(text, "schema: aten::sigmoid"));
  g_assert_nonnull(strstr(text, "ORIGIN HISTORY"));
  g_assert_nonnull(strstr(text, "created by stage 01 specialize_input_types"));
  g_assert_nonnull(strstr(text, "float32 [3, 20]"));
  g_assert_cmpfloat(jitscope_graph_view_get_zoom(view), >=, 0.8);
  g_assert_nonnull(strstr(jitscope_window_get_banner(window), "match"));
  jitscope_inspector_scroll_to_section(jitscope_window_get_inspector(window), "ORIGIN HISTORY");
  screenshot(window, "window-lstm-inspector.png");

  /* A FusionGroup: backend, CUDA source, and why nvrtc did not compile it. */
  select_first_group(window);
  text = jitscope_window_get_inspector_text(window);
  g_assert_nonnull(strstr(text, "FUSER BACKEND"));
  g_assert_nonnull(strstr(text, "ran on cpu"));
  g_assert_nonnull(strstr(text, "GENERATED CUDA KERNEL"));
  g_assert_nonnull(strstr(text, "extern \"C\" __global__"));
  g_assert_nonnull(strstr(text, "not compiled: nvrtc did not load"));
  g_assert_nonnull(strstr(text, cuda_dir));
  g_assert_nonnull(strstr(text, "VALUES AFTER THE RUN"));
  /* Its kernel's row: the same group, the CUDA source in view. */
  JitscopePlansTree *tree = jitscope_window_get_plans_tree(window);
  int row = jitscope_plans_tree_get_selected_row(tree);
  JitscopePlanRowKind kind;
  g_assert_true(jitscope_plans_tree_get_row(tree, (guint)row + 1, &kind, NULL, NULL, NULL, NULL));
  g_assert_cmpint(kind, ==, JITSCOPE_PLAN_ROW_KERNEL);
  act(window, "win.select-row", "u", row + 1);
  g_assert_nonnull(strstr(jitscope_window_get_inspector_text(window), "GENERATED CUDA KERNEL"));
  screenshot(window, "window-lstm-fusion-group.png");
  gtk_window_destroy(GTK_WINDOW(window));
}

static void test_compare_broadcast(void) {
  /* Opened while the example's run is still in flight: it runs after that one, with its
   * header's three specs. */
  JitscopeWindow *window = jitscope_application_open_window(app, NULL);
  gtk_window_set_default_size(GTK_WINDOW(window), 1500, 900);
  g_assert_true(app_workspace_running(jitscope_window_get_workspace(window)));
  char *path = example_path("broadcast_cell.ir");
  jitscope_window_open_file(window, path);
  g_free(path);
  wait_shown(window);
  const AppWorkspaceRun *run = app_workspace_last_run(jitscope_window_get_workspace(window));
  g_assert_cmpuint(run->specs->len, ==, 3);
  g_assert_cmpuint(run->n_failed, ==, 0);
  /* Compare the backward plans: select one first. */
  const AppWorkspaceSpecResult *r0 = g_ptr_array_index(run->specs, 0);
  const AppWorkspacePlan *b0 = g_ptr_array_index(r0->backward, 0);
  for (guint p = 0; p < run->plans->len; p++)
    if (g_ptr_array_index(run->plans, p) == b0)
      act(window, "win.select-plan", "u", p);
  act(window, "win.compare", NULL);
  g_assert_true(jitscope_window_is_comparing(window));
  JitscopeCompareView *compare = jitscope_window_get_compare_view(window);
  g_assert_cmpuint(jitscope_compare_view_get_n_columns(compare), ==, 3);
  guint steps = jitscope_compare_view_get_n_steps(compare);
  g_assert_cmpuint(steps, >, 3);
  while (jitscope_compare_view_get_step(compare) > 0)
    act(window, "win.prev-stage", NULL);
  for (guint s = 0; s + 1 < steps; s++) {
    for (guint c = 0; c < 3; c++)
      g_assert_nonnull(jitscope_graph_view_get_scene(jitscope_compare_view_get_column(compare, c)));
    act(window, "win.next-stage", NULL);
    g_assert_cmpuint(jitscope_compare_view_get_step(compare), ==, s + 1);
  }
  /* Before fusion the backward graphs of the specs with 0, 1 and 2 broadcast inputs keep 0, 1
   * and 2 more _grad_sum_to_size than the plan without broadcasting; the extra ones are
   * framed as "not in every plan". */
  g_assert_true(jitscope_compare_view_set_stage_name(compare, "decompose_ops"));
  wait_idle(window);
  guint base =
      count_label(jitscope_graph_view_get_scene(jitscope_compare_view_get_column(compare, 0)),
                  "aten::_grad_sum_to_size");
  for (guint c = 0; c < 3; c++) {
    JitscopeGraphView *column = jitscope_compare_view_get_column(compare, c);
    AppScene *scene = jitscope_graph_view_get_scene(column);
    g_assert_nonnull(scene);
    g_assert_cmpuint(count_label(scene, "aten::_grad_sum_to_size"), ==, base + c);
    g_assert_cmpuint(jitscope_compare_view_get_n_unshared(compare, c), >, 0);
    g_assert_cmpuint(jitscope_graph_view_get_n_marked(column), >, 0);
  }
  /* Each column zooms on its own; fit all restores them. */
  JitscopeGraphView *first = jitscope_compare_view_get_column(compare, 0);
  double z0 = jitscope_graph_view_get_zoom(first);
  double z1 = jitscope_graph_view_get_zoom(jitscope_compare_view_get_column(compare, 1));
  jitscope_graph_view_zoom(first, 2.0);
  g_assert_cmpfloat(jitscope_graph_view_get_zoom(jitscope_compare_view_get_column(compare, 1)), ==,
                    z1);
  act(window, "win.fit", NULL);
  g_assert_cmpfloat(jitscope_graph_view_get_zoom(first), ==, z0);
  screenshot(window, "window-compare-broadcast.png");
  act(window, "win.compare", NULL);
  g_assert_false(jitscope_window_is_comparing(window));
  gtk_window_destroy(GTK_WINDOW(window));
}

static void test_export(void) {
  JitscopeWindow *window = open_and_run_lstm();
  char *dir = g_dir_make_tmp("jitscope-ui-export-XXXXXX", NULL);
  char *bundle = g_build_filename(dir, "bundle", NULL);
  jitscope_window_export_bundle(window, bundle);
  wait_idle(window);
  g_assert_nonnull(strstr(jitscope_window_get_banner(window), "Bundle written"));
  static const char *const files[] = {"manifest.json", "REPORT.md", "program.ir", "inputs"};
  for (guint i = 0; i < G_N_ELEMENTS(files); i++) {
    char *file = g_build_filename(bundle, files[i], NULL);
    g_assert_true(g_file_test(file, G_FILE_TEST_EXISTS));
    g_free(file);
  }
  char *manifest = g_build_filename(bundle, "manifest.json", NULL);
  JsonParser *parser = json_parser_new();
  g_assert_true(json_parser_load_from_file(parser, manifest, NULL));
  JsonObject *root = json_node_get_object(json_parser_get_root(parser));
  g_assert_cmpstr(json_object_get_string_member(root, "format"), ==, "jitscope-bundle");
  g_assert_cmpuint(json_array_get_length(json_object_get_array_member(root, "plans")), >=, 2);
  g_object_unref(parser);
  g_free(manifest);
  /* Exporting again into the same folder is refused, with the reason on screen. */
  jitscope_window_export_bundle(window, bundle);
  wait_idle(window);
  g_assert_nonnull(strstr(jitscope_window_get_banner(window), "not written"));
  /* The shown graph as SVG, and the IR text to the clipboard. */
  char *svg = g_build_filename(dir, "graph.svg", NULL);
  jitscope_window_export_graph(window, svg);
  wait_idle(window);
  g_assert_true(g_file_test(svg, G_FILE_TEST_EXISTS));
  act(window, "win.copy-ir", NULL);
  g_assert_nonnull(strstr(jitscope_window_get_banner(window), "Copied the IR"));
  g_free(svg);
  g_free(bundle);
  g_free(dir); /* the folder stays for inspection; it is under the temporary dir */
  gtk_window_destroy(GTK_WINDOW(window));
}

/* The first shown window that is not `window`, or NULL. */
static GtkWindow *other_window(JitscopeWindow *window) {
  GListModel *toplevels = gtk_window_get_toplevels();
  GtkWindow *found = NULL;
  for (guint i = 0; i < g_list_model_get_n_items(toplevels) && !found; i++) {
    g_autoptr(GtkWindow) w = g_list_model_get_item(toplevels, i);
    if (w != GTK_WINDOW(window) && gtk_widget_get_mapped(GTK_WIDGET(w)))
      found = w;
  }
  return found;
}

/* Export the graph (Ctrl+Shift+E): the save dialog, cancelled. */
static void test_export_dialog(void) {
  JitscopeWindow *window = open_and_run_lstm();
  g_assert_true(gtk_widget_activate_action(GTK_WIDGET(window), "win.export-graph", NULL));
  GtkWindow *dialog;
  while (!(dialog = other_window(window)))
    g_main_context_iteration(NULL, TRUE);
  g_assert_true(jitscope_window_is_busy(window)); /* until the dialog answers */
  gtk_window_set_default_size(dialog, 900, 600);
  if (GTK_IS_FILE_CHOOSER(dialog)) { /* GTK's own dialog (no portal): the project's folder */
    g_autoptr(GFile) folder = g_file_new_for_path(g_getenv("JITSCOPE_SOURCE_DIR"));
    G_GNUC_BEGIN_IGNORE_DEPRECATIONS /* GtkFileChooser is deprecated from GTK 4.10 */
        gtk_file_chooser_set_current_folder(GTK_FILE_CHOOSER(dialog), folder, NULL);
    G_GNUC_END_IGNORE_DEPRECATIONS
  }
  screenshot_window(dialog, "window-export-dialog.png");
  gtk_window_close(dialog);
  wait_idle(window);
  g_assert_nonnull(strstr(jitscope_window_get_banner(window), "Export cancelled"));
  gtk_window_destroy(GTK_WINDOW(window));
}

static void test_errors_shown(void) {
  JitscopeWindow *window = open_example();
  char *dir = g_dir_make_tmp("jitscope-ui-XXXXXX", NULL);
  char *bad = g_build_filename(dir, "bad.ir", NULL);
  g_assert_true(g_file_set_contents(
      bad, "graph(%x : Tensor):\n  %y : Tensor = aten::neg(%q)\n  return (%y)\n", -1, NULL));
  jitscope_window_open_file(window, bad);
  const char *error = jitscope_window_get_program_error(window);
  g_assert_nonnull(error);
  g_assert_nonnull(strstr(error, "bad.ir:2:"));
  g_assert_nonnull(strstr(jitscope_window_get_banner(window), "does not parse"));
  act(window, "win.run", NULL);
  g_assert_nonnull(strstr(jitscope_window_get_run_status(window), "does not parse"));
  screenshot(window, "window-parse-error.png");
  jitscope_window_open_file(window, "/nonexistent/graph.ir");
  g_assert_nonnull(strstr(jitscope_window_get_run_status(window), "Cannot open"));
  g_assert_nonnull(strstr(jitscope_window_get_banner(window), "Cannot open"));

  char *path = example_path("broadcast_cell.ir");
  jitscope_window_open_file(window, path);
  g_free(path);
  wait_idle(window); /* its header's specs ran */
  g_assert_null(jitscope_window_get_program_error(window));
  const char *specs[] = {"Float(2, 3); Float(4, 5); Float(1)", "Float(2); Float(2)"};
  jitscope_window_set_specs(window, specs, 2);
  act(window, "win.run", NULL);
  const char *status = jitscope_window_get_run_status(window);
  g_assert_nonnull(strstr(status, "2 failed"));
  g_assert_nonnull(strstr(status, "spec 1:"));
  g_assert_nonnull(strstr(status, "spec 2:"));
  screenshot(window, "window-failed-run.png");
  const char *good = "Float(2, 2); Float(2, 2); Float(2, 2)";
  jitscope_window_set_specs(window, &good, 1);
  act(window, "win.run", NULL);
  g_assert_nonnull(jitscope_graph_view_get_scene(jitscope_window_get_graph_view(window)));
  g_remove(bad);
  g_rmdir(dir);
  g_free(bad);
  g_free(dir);
  gtk_window_destroy(GTK_WINDOW(window));
}

static GtkWidget *find_button(GtkWidget *widget, const char *action) {
  if (GTK_IS_BUTTON(widget) &&
      g_strcmp0(gtk_actionable_get_action_name(GTK_ACTIONABLE(widget)), action) == 0)
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child(widget); child;
       child = gtk_widget_get_next_sibling(child)) {
    GtkWidget *found = find_button(child, action);
    if (found)
      return found;
  }
  return NULL;
}

/* A loop of 10^12 iterations runs until the Stop button is clicked (it never ends on its
 * own, so the test waits for no clock): the window says it stopped, not that it failed, and
 * runs again afterwards. Opening another program during such a run stops it and runs the new
 * one. */
static void test_stop_run(void) {
  JitscopeWindow *window = open_example();
  g_autofree char *dir = g_dir_make_tmp("jitscope-ui-XXXXXX", NULL);
  g_autofree char *endless = g_build_filename(dir, "endless.ir", NULL);
  g_assert_true(g_file_set_contents(endless,
                                    "# jitscope: --spec 'Float(2)'\n"
                                    "graph(%x : Tensor):\n"
                                    "  %n : int = prim::Constant[value=1000000000000]()\n"
                                    "  %t : bool = prim::Constant[value=1]()\n"
                                    "  %one : int = prim::Constant[value=1]()\n"
                                    "  %y : Tensor = prim::Loop(%n, %t, %x)\n"
                                    "    block0(%i : int, %acc : Tensor):\n"
                                    "      %next : Tensor = aten::add(%acc, %x, %one)\n"
                                    "      -> (%t, %next)\n"
                                    "  return (%y)\n",
                                    -1, NULL));
  GtkWidget *stop = find_button(GTK_WIDGET(window), "win.stop-run");
  GtkWidget *run = find_button(GTK_WIDGET(window), "win.run");
  g_assert_nonnull(stop);
  g_assert_nonnull(run);
  g_assert_false(gtk_widget_get_sensitive(stop));

  /* Its header's spec starts the endless run as it opens. */
  AppWorkspace *ws = jitscope_window_get_workspace(window);
  jitscope_window_open_file(window, endless);
  while (!app_workspace_running(ws)) /* it never ends on its own */
    g_main_context_iteration(NULL, TRUE);
  g_assert_true(gtk_widget_get_sensitive(stop));
  g_assert_false(gtk_widget_get_sensitive(run));
  g_signal_emit_by_name(stop, "clicked");
  wait_idle(window);
  const char *status = jitscope_window_get_run_status(window);
  g_assert_true(g_str_has_prefix(status, "Stopped: "));
  g_assert_nonnull(strstr(status, "spec 1: "));
  g_assert_false(gtk_widget_get_sensitive(stop));
  g_assert_true(gtk_widget_get_sensitive(run));

  /* Run it again, then open the LSTM example in the middle: the example's plans show. */
  gtk_widget_activate_action(GTK_WIDGET(window), "win.run", NULL);
  g_assert_true(app_workspace_running(ws));
  g_autofree char *lstm = example_path("lstm_cell.ir");
  jitscope_window_open_file(window, lstm);
  wait_idle(window);
  const AppWorkspaceRun *done = app_workspace_last_run(ws);
  g_assert_nonnull(done);
  g_assert_cmpuint(done->n_failed, ==, 0);
  g_assert_cmpuint(done->plans->len, >=, 2);
  g_remove(endless);
  g_rmdir(dir);
  gtk_window_destroy(GTK_WINDOW(window));
}

static void test_dark_and_settings(void) {
  JitscopeWindow *window = open_and_run_lstm();
  act(window, "win.select-plan", "u", 1);
  act(window, "win.dark", NULL);
  screenshot(window, "window-lstm-backward-dark.png");
  act(window, "win.dark", NULL);
  GSettings *settings = jitscope_window_get_settings(window);
  if (!settings) {
    g_test_message("no GSettings schema: persistence not tested");
    gtk_window_destroy(GTK_WINDOW(window));
    return;
  }
  g_assert_false(g_settings_get_boolean(settings, "dark-style"));
  g_settings_set_int(settings, "sidebar-width", 333);
  gtk_window_set_default_size(GTK_WINDOW(window), 1300, 800);
  gtk_window_close(GTK_WINDOW(window)); /* saves the settings */
  dispatch_pending();
  GSettings *check = g_settings_new("io.github.jitscope.Jitscope");
  g_assert_cmpint(g_settings_get_int(check, "window-width"), ==, 1300);
  g_assert_cmpint(g_settings_get_int(check, "sidebar-width"), ==, 333);
  JitscopeWindow *again = jitscope_application_open_window(app, NULL);
  wait_shown(again);
  g_assert_cmpint(jitscope_window_get_pane_position(again, "sidebar-width"), ==, 333);
  int w = 0, h = 0;
  gtk_window_get_default_size(GTK_WINDOW(again), &w, &h);
  g_assert_cmpint(w, ==, 1300);
  g_settings_reset(check, "sidebar-width");
  g_settings_reset(check, "window-width");
  g_settings_reset(check, "window-height");
  g_object_unref(check);
  gtk_window_destroy(GTK_WINDOW(again));
}

static void final_screenshots(void) {
  JitscopeWindow *window = open_and_run_lstm();
  /* The forward plan at the fusion stage of its DifferentiableGraph, the group selected. */
  select_first_group(window);
  screenshot(window, "window-lstm-forward.png");
  const AppWorkspaceRun *run = app_workspace_last_run(jitscope_window_get_workspace(window));
  act(window, "win.select-plan", "u", run->plans->len - 1);
  const AppWorkspacePlan *last = g_ptr_array_index(run->plans, run->plans->len - 1);
  act(window, "win.select-stage", "u", last->stages->len - 1);
  screenshot(window, "window-lstm-backward.png");
  gtk_window_destroy(GTK_WINDOW(window));
}

int main(int argc, char **argv) {
  /* CUDA is loaded once per process: point it at an empty folder before anything loads it. */
  cuda_dir = g_dir_make_tmp("jitscope-no-cuda-XXXXXX", NULL);
  g_setenv("JITSCOPE_CUDA_LIBDIR", cuda_dir, TRUE);
  if (!gtk_init_check()) {
    g_print("1..0 # SKIP no display\n");
    g_rmdir(cuda_dir);
    return 77;
  }
  g_test_init(&argc, &argv, NULL);
  /* Warnings about the environment (no session bus under Xvfb) are not failures; criticals
   * are. */
  g_log_set_always_fatal(G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL);
  app = jitscope_application_new();
  g_assert_true(g_application_register(G_APPLICATION(app), NULL, NULL));
  g_test_add_func("/window/lstm-every-row-every-stage", test_lstm_every_row_every_stage);
  g_test_add_func("/window/viewport", test_viewport);
  g_test_add_func("/window/removed-faded", test_removed_faded);
  g_test_add_func("/window/inspector", test_inspector);
  g_test_add_func("/window/compare-broadcast", test_compare_broadcast);
  g_test_add_func("/window/export", test_export);
  g_test_add_func("/window/export-dialog", test_export_dialog);
  g_test_add_func("/window/errors-shown", test_errors_shown);
  g_test_add_func("/window/stop-run", test_stop_run);
  g_test_add_func("/window/dark-and-settings", test_dark_and_settings);
  g_test_add_func("/window/screenshots", final_screenshots);
  int status = g_test_run();
  g_object_unref(app);
  g_rmdir(cuda_dir);
  g_free(cuda_dir);
  return status;
}
