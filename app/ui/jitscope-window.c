/* The workbench window (contract in jitscope-window.h). */
#include "jitscope-window.h"
#include "jitscope-window-private.h"

#include <string.h>

#include "graphviz_dot.h"
#include "jitscope-window-settings.h"
#include "layout_service.h"
#include "spec_header.h"
#include "workspace_layout.h"

G_DEFINE_FINAL_TYPE(JitscopeWindow, jitscope_window, GTK_TYPE_APPLICATION_WINDOW)

static const AppWorkspacePlan *current_plan(JitscopeWindow *self) {
  const AppWorkspaceRun *run = app_workspace_last_run(self->ws);
  if (!run || self->plan < 0 || (guint)self->plan >= run->plans->len)
    return NULL;
  return g_ptr_array_index(run->plans, self->plan);
}

static const AppWorkspaceStage *current_stage(JitscopeWindow *self) {
  const AppWorkspacePlan *plan = current_plan(self);
  if (!plan || self->stage < 0 || (guint)self->stage >= plan->stages->len)
    return NULL;
  return g_ptr_array_index(plan->stages, self->stage);
}

static void say(JitscopeWindow *self, const char *message, gboolean error) {
  gtk_label_set_text(self->banner, message ? message : "");
  gtk_widget_set_visible(GTK_WIDGET(self->banner), message && *message);
  if (error)
    gtk_widget_add_css_class(GTK_WIDGET(self->banner), "banner-error");
  else
    gtk_widget_remove_css_class(GTK_WIDGET(self->banner), "banner-error");
}

void jitscope_window_say(JitscopeWindow *self, const char *message, gboolean error) {
  say(self, message, error);
}

const AppWorkspaceStage *jitscope_window_current_stage(JitscopeWindow *self) {
  return current_stage(self);
}

static gboolean comparing(JitscopeWindow *self) {
  return g_strcmp0(gtk_stack_get_visible_child_name(self->view_stack), "compare") == 0;
}

/* The graph or the compare view; the stage title and legend belong to the graph. */
static void show_canvas(JitscopeWindow *self, gboolean compare) {
  gtk_stack_set_visible_child_name(self->view_stack, compare ? "compare" : "graph");
  gtk_widget_set_visible(GTK_WIDGET(self->stage_title), !compare);
  gtk_widget_set_visible(self->legend, !compare);
}

/* ---- the plan summary and the inspector ---- */

static void show_summary(JitscopeWindow *self) {
  const AppWorkspacePlan *plan = current_plan(self);
  if (!plan) {
    jitscope_inspector_show_text(self->inspector, "Inspector",
                                 "Run the program (Ctrl+R) to see its plans and stages; then "
                                 "click a node for its schema, types, history and values.");
    return;
  }
  char *text = app_workspace_plan_summary(app_workspace_last_run(self->ws), plan);
  jitscope_inspector_show_text(self->inspector, "Plan", text);
  g_free(text);
}

/* A node or an edge (a value) clicked; "" for nothing. */
static void on_node_activated(JitscopeGraphView *view, const char *id, JitscopeWindow *self) {
  if (!jitscope_inspector_show_item(self->inspector, current_plan(self), (guint)self->stage, id))
    show_summary(self);
  else if (self->show_kernel)
    jitscope_inspector_scroll_to_section(self->inspector, "GENERATED CUDA KERNEL");
  self->show_kernel = FALSE;
}

/* Selects the node with origin `origin` in the shown scene. */
static gboolean select_origin(JitscopeWindow *self, guint64 origin) {
  const AppWorkspaceStage *stage = current_stage(self);
  return stage && jitscope_graph_view_select_origin(self->graph_view, stage->graph, origin);
}

/* ---- stages and the canvas ---- */

static void scene_ready(JitscopeWindow *self) {
  if (self->select_origin && select_origin(self, self->select_origin))
    self->select_origin = 0;
}

static AppStageView stage_view(JitscopeWindow *self) {
  const AppWorkspaceStage *before =
      app_workspace_plan_stage(current_plan(self), (guint)self->stage);
  return (AppStageView){.stage = current_stage(self),
                        .before = before,
                        .collapse = self->fold_all ? APP_DOT_COLLAPSE_ALL : APP_DOT_COLLAPSE_AUTO,
                        .toggled = self->toggled,
                        .dark = self->dark,
                        .edge_types = self->edge_types,
                        .show_removed = self->show_removed};
}

char *jitscope_window_stage_dot(JitscopeWindow *self) {
  AppStageView view = stage_view(self);
  return app_stage_layouts_full_dot(&view, NULL);
}

/* stats: of the drawn DOT, or NULL while expanded clusters are still being laid out. */
static void set_stage_title(JitscopeWindow *self, const AppDotStats *stats) {
  const AppWorkspacePlan *plan = current_plan(self);
  const AppWorkspaceStage *stage = current_stage(self);
  char *counts = stats ? g_strdup_printf("%u nodes: +%u added, ~%u changed, -%u removed%s%s",
                                         stats->nodes, stats->added, stats->changed, stats->removed,
                                         !stats->removed      ? ""
                                         : self->show_removed ? " (drawn faded)"
                                                              : " (r draws them)",
                                         stats->collapsed ? " · subgraphs folded (f)" : "")
                       : g_strdup("laying out expanded clusters");
  char *title = g_strdup_printf("Stage %d/%u %s [%s] · %s · %.2f ms · %s", self->stage + 1,
                                plan->stages->len, stage->name, stage->group,
                                stage->changed ? "CHANGED" : "unchanged", stage->ms, counts);
  gtk_label_set_text(self->stage_title, title);
  gtk_widget_set_tooltip_text(GTK_WIDGET(self->stage_title), plan->title);
  g_free(title);
  g_free(counts);
}

static void on_stage_update(const AppStageUpdate *update, gpointer data) {
  JitscopeWindow *self = data;
  if (update->done) {
    self->pending = 0;
    gtk_widget_action_set_enabled(GTK_WIDGET(self), "win.cancel-layout", FALSE);
  }
  if (update->stats)
    set_stage_title(self, update->stats);
  if (jitscope_graph_view_apply_update(self->graph_view, update, TRUE))
    scene_ready(self);
}

static void cancel_stage_layout(JitscopeWindow *self) {
  if (!self->pending)
    return;
  app_stage_layouts_cancel(self->stage_layouts, self->pending);
  self->pending = 0;
  jitscope_graph_view_layout_cancelled(self->graph_view);
  gtk_widget_action_set_enabled(GTK_WIDGET(self), "win.cancel-layout", FALSE);
}

static void show_stage(JitscopeWindow *self, gboolean new_plan) {
  if (self->pending)
    app_stage_layouts_cancel(self->stage_layouts, self->pending);
  self->pending = 0;
  const AppWorkspacePlan *plan = current_plan(self);
  const AppWorkspaceStage *stage = current_stage(self);
  if (!stage || !stage->graph) {
    jitscope_graph_view_show_final(self->graph_view, NULL, FALSE);
    jitscope_graph_view_set_message(self->graph_view, plan ? "This plan has no stages"
                                                           : "Run (Ctrl+R) to see the plans");
    gtk_label_set_text(self->stage_title, "");
    show_summary(self);
    return;
  }
  if (!self->select_origin)
    show_summary(self);
  if (new_plan)
    jitscope_graph_view_set_scene(self->graph_view, NULL, FALSE);
  AppStageView view = stage_view(self);
  AppScene *scene = NULL;
  AppDotStats stats;
  bool have_stats = false;
  self->pending = app_stage_layouts_show(self->stage_layouts, &view, &scene, &stats, &have_stats,
                                         on_stage_update, self);
  set_stage_title(self, have_stats ? &stats : NULL);
  gtk_widget_action_set_enabled(GTK_WIDGET(self), "win.cancel-layout", self->pending != 0);
  if (scene) {
    jitscope_graph_view_show_final(self->graph_view, scene, !new_plan);
    app_scene_unref(scene);
    scene_ready(self);
  } else {
    jitscope_graph_view_begin_layout(self->graph_view);
  }
}

static void action_cancel_layout(GtkWidget *widget, const char *name, GVariant *param) {
  JitscopeWindow *self = JITSCOPE_WINDOW(widget);
  if (comparing(self))
    jitscope_compare_view_cancel_layouts(self->compare_view);
  else
    cancel_stage_layout(self);
}

static void on_cancel_layout(JitscopeGraphView *view, JitscopeWindow *self) {
  cancel_stage_layout(self);
}

static void on_stage_selected(JitscopeStageList *list, int stage, JitscopeWindow *self) {
  gboolean first = self->stage < 0;
  self->stage = stage;
  show_stage(self, first && !jitscope_graph_view_get_scene(self->graph_view));
  if (comparing(self)) {
    const AppWorkspaceStage *st = current_stage(self);
    if (st)
      jitscope_compare_view_set_stage_name(self->compare_view, st->name);
  }
}

static void select_plan(JitscopeWindow *self, int plan, int stage) {
  const AppWorkspaceRun *run = app_workspace_last_run(self->ws);
  if (!run || plan < 0 || (guint)plan >= run->plans->len)
    return;
  gboolean new_plan = plan != self->plan;
  self->plan = plan;
  jitscope_plans_tree_show_plan(self->plans_tree, plan);
  if (new_plan) {
    self->stage = -1;
    jitscope_graph_view_set_scene(self->graph_view, NULL, FALSE);
    jitscope_stage_list_set_plan(self->stage_list, g_ptr_array_index(run->plans, plan), stage);
  } else {
    jitscope_stage_list_select(self->stage_list, stage);
    if (stage == self->stage && self->select_origin)
      scene_ready(self);
  }
}

static void on_row_activated(JitscopePlansTree *tree, int plan, int stage, guint64 origin, int kind,
                             JitscopeWindow *self) {
  self->select_origin = origin;
  self->show_kernel = kind == JITSCOPE_PLAN_ROW_KERNEL;
  select_plan(self, plan, stage);
}

/* ---- running ---- */

static void on_run_progress(AppWorkspace *ws, guint done, guint total, const char *message,
                            gpointer data) {
  JitscopeWindow *self = data;
  jitscope_inputs_pane_set_progress(self->inputs_pane, total ? (double)done / total : 0, message);
}

static void on_run_done(AppWorkspace *ws, const AppWorkspaceRun *run, const GError *error,
                        gpointer data) {
  JitscopeWindow *self = data;
  gtk_widget_action_set_enabled(GTK_WIDGET(self), "win.run", TRUE);
  gtk_widget_action_set_enabled(GTK_WIDGET(self), "win.stop-run", FALSE);
  gboolean stopped = self->stop_requested;
  self->stop_requested = FALSE;
  GString *status = g_string_new(stopped ? "Stopped: " : NULL);
  guint groups = 0;
  for (guint p = 0; p < run->plans->len; p++)
    groups += ((AppWorkspacePlan *)g_ptr_array_index(run->plans, p))->fusion_groups->len;
  g_string_append_printf(status, "%u spec%s, %u plans, %u fusion groups, %.0f ms", run->specs->len,
                         run->specs->len == 1 ? "" : "s", run->plans->len, groups, run->ms);
  if (run->n_failed) {
    g_string_append_printf(status, "; %u failed:", run->n_failed);
    for (guint i = 0; i < run->specs->len; i++) {
      const AppWorkspaceSpecResult *r = g_ptr_array_index(run->specs, i);
      if (r->error)
        g_string_append_printf(status, "\nspec %u: %s", i + 1, r->error);
    }
  }
  jitscope_inputs_pane_set_progress(self->inputs_pane, 1,
                                    stopped         ? "stopped"
                                    : run->n_failed ? "finished with errors"
                                                    : "done");
  jitscope_inputs_pane_set_status(self->inputs_pane, status->str, run->n_failed > 0 && !stopped);
  g_string_free(status, TRUE);
  show_canvas(self, FALSE);
  jitscope_compare_view_set_plans(self->compare_view, NULL, NULL, self->stage_layouts, self->dark);
  self->plan = self->stage = -1;
  self->select_origin = 0;
  jitscope_stage_list_set_plan(self->stage_list, NULL, 0);
  jitscope_plans_tree_set_run(self->plans_tree, run);
  if (run->plans->len > 0)
    select_plan(self, 0, 0);
  else
    show_stage(self, TRUE);
  if (self->run_again) {
    self->run_again = FALSE;
    gtk_widget_activate_action(GTK_WIDGET(self), "win.run", NULL);
  }
}

static void action_run(GtkWidget *widget, const char *name, GVariant *param) {
  JitscopeWindow *self = JITSCOPE_WINDOW(widget);
  jitscope_program_pane_flush(self->program_pane);
  GPtrArray *lines = jitscope_inputs_pane_get_specs(self->inputs_pane);
  app_workspace_set_specs(self->ws, (char *const *)lines->pdata, lines->len);
  g_ptr_array_unref(lines);
  app_workspace_set_seed(self->ws, jitscope_inputs_pane_get_seed(self->inputs_pane));
  GError *error = NULL;
  if (!app_workspace_run_async(self->ws, NULL, on_run_progress, on_run_done, self, &error)) {
    jitscope_inputs_pane_set_status(self->inputs_pane, error->message, TRUE);
    say(self, error->message, TRUE);
    g_error_free(error);
    return;
  }
  say(self, NULL, FALSE);
  gtk_widget_action_set_enabled(widget, "win.run", FALSE);
  gtk_widget_action_set_enabled(widget, "win.stop-run", TRUE);
  jitscope_inputs_pane_set_progress(self->inputs_pane, 0, "starting…");
  jitscope_inputs_pane_set_status(self->inputs_pane, "Running…", FALSE);
}

/* The spec running now stops before its next node, the ones after it do not start; what ran
 * is shown as usual (on_run_done). */
static void action_stop_run(GtkWidget *widget, const char *name, GVariant *param) {
  JitscopeWindow *self = JITSCOPE_WINDOW(widget);
  if (!app_workspace_running(self->ws))
    return;
  self->stop_requested = TRUE;
  app_workspace_cancel(self->ws);
  gtk_widget_action_set_enabled(widget, "win.stop-run", FALSE);
  jitscope_inputs_pane_set_status(self->inputs_pane, "Stopping…", FALSE);
}

/* ---- program ---- */

static void on_program_changed(JitscopeProgramPane *pane, JitscopeWindow *self) {
  const char *error = jitscope_program_pane_get_error(pane);
  char *title = g_strdup_printf("jitscope — %s", app_workspace_filename(self->ws));
  gtk_window_set_title(GTK_WINDOW(self), title);
  g_free(title);
  if (error)
    say(self, "The program does not parse: the error is marked at its line (Ctrl+G goes there)",
        TRUE);
  else if (gtk_widget_has_css_class(GTK_WIDGET(self->banner), "banner-error"))
    say(self, NULL, FALSE);
}

static void on_pane_message(GtkWidget *pane, const char *message, JitscopeWindow *self) {
  say(self, message, TRUE);
  jitscope_inputs_pane_set_status(self->inputs_pane, message, TRUE);
}

/* Opens ready (contract in jitscope-window.h). */
static void on_program_loaded(JitscopeProgramPane *pane, JitscopeWindow *self) {
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) lines = app_spec_header_read(app_workspace_text(self->ws), -1,
                                                    app_workspace_filename(self->ws), &error);
  if (lines && lines->len > 0) {
    jitscope_inputs_pane_set_specs(self->inputs_pane, (const char *const *)lines->pdata,
                                   lines->len);
    if (app_workspace_running(self->ws)) {
      /* The run in flight is of the program just replaced: stop it, run the new one after. */
      self->run_again = TRUE;
      app_workspace_cancel(self->ws);
    } else if (app_workspace_graph(self->ws))
      gtk_widget_activate_action(GTK_WIDGET(self), "win.run", NULL);
    return;
  }
  const IrGraph *graph = app_workspace_graph(self->ws);
  g_autofree char *declared = graph ? app_spec_line_from_declared_types(graph) : NULL;
  const char *line = declared ? declared : "";
  jitscope_inputs_pane_set_specs(self->inputs_pane, &line, 1);
  if (error)
    on_pane_message(GTK_WIDGET(pane), error->message, self);
}

void jitscope_window_set_program(JitscopeWindow *self, const char *text, const char *filename) {
  jitscope_program_pane_set_program(self->program_pane, text, filename);
}

void jitscope_window_open_file(JitscopeWindow *self, const char *path) {
  jitscope_program_pane_open_file(self->program_pane, path);
}

void jitscope_window_set_specs(JitscopeWindow *self, const char *const *lines, guint n) {
  jitscope_inputs_pane_set_specs(self->inputs_pane, lines, n);
}

/* ---- navigation actions ---- */

/* A step through the stages, or through the compared plans' steps while comparing. */
static void step_stage(JitscopeWindow *self, int delta, gboolean changed_only) {
  if (comparing(self)) {
    gtk_widget_activate_action(GTK_WIDGET(self->compare_view),
                               delta > 0 ? "compare.next" : "compare.prev", NULL);
    return;
  }
  jitscope_stage_list_step(self->stage_list, delta, changed_only);
}

static void action_next_stage(GtkWidget *widget, const char *name, GVariant *param) {
  step_stage(JITSCOPE_WINDOW(widget), 1, FALSE);
}

static void action_prev_stage(GtkWidget *widget, const char *name, GVariant *param) {
  step_stage(JITSCOPE_WINDOW(widget), -1, FALSE);
}

static void action_next_changed(GtkWidget *widget, const char *name, GVariant *param) {
  step_stage(JITSCOPE_WINDOW(widget), 1, TRUE);
}

static void action_prev_changed(GtkWidget *widget, const char *name, GVariant *param) {
  step_stage(JITSCOPE_WINDOW(widget), -1, TRUE);
}

static void step_plan(JitscopeWindow *self, int delta) {
  const AppWorkspaceRun *run = app_workspace_last_run(self->ws);
  if (run && self->plan + delta >= 0 && self->plan + delta < (int)run->plans->len)
    select_plan(self, self->plan + delta, 0);
}

static void action_next_plan(GtkWidget *widget, const char *name, GVariant *param) {
  step_plan(JITSCOPE_WINDOW(widget), 1);
}

static void action_prev_plan(GtkWidget *widget, const char *name, GVariant *param) {
  step_plan(JITSCOPE_WINDOW(widget), -1);
}

static void action_select_plan(GtkWidget *widget, const char *name, GVariant *param) {
  select_plan(JITSCOPE_WINDOW(widget), (int)g_variant_get_uint32(param), 0);
}

static void action_select_row(GtkWidget *widget, const char *name, GVariant *param) {
  jitscope_plans_tree_select_row(JITSCOPE_WINDOW(widget)->plans_tree, g_variant_get_uint32(param));
}

static void action_select_stage(GtkWidget *widget, const char *name, GVariant *param) {
  jitscope_stage_list_select(JITSCOPE_WINDOW(widget)->stage_list, (int)g_variant_get_uint32(param));
}

static void action_fit(GtkWidget *widget, const char *name, GVariant *param) {
  JitscopeWindow *self = JITSCOPE_WINDOW(widget);
  if (comparing(self))
    jitscope_compare_view_fit_all(self->compare_view);
  else
    jitscope_graph_view_fit(self->graph_view);
}

/* Zooms the one canvas; while comparing, each column zooms on its own (canvas.zoom-in). */
static void zoom(JitscopeWindow *self, double factor) {
  if (!comparing(self))
    jitscope_graph_view_zoom(self->graph_view, factor);
}

static void action_zoom_in(GtkWidget *widget, const char *name, GVariant *param) {
  zoom(JITSCOPE_WINDOW(widget), 1.25);
}

static void action_zoom_out(GtkWidget *widget, const char *name, GVariant *param) {
  zoom(JITSCOPE_WINDOW(widget), 0.8);
}

static void action_search(GtkWidget *widget, const char *name, GVariant *param) {
  JitscopeWindow *self = JITSCOPE_WINDOW(widget);
  gtk_search_bar_set_search_mode(self->search_bar, TRUE);
  gtk_widget_grab_focus(GTK_WIDGET(self->search_entry));
}

/* Enter: the next match. */
static void on_search(GtkSearchEntry *entry, JitscopeWindow *self) {
  const char *text = gtk_editable_get_text(GTK_EDITABLE(entry));
  if (!*text)
    return;
  g_free(self->searched);
  self->searched = g_strdup(text);
  guint n = jitscope_graph_view_search_next(self->graph_view, text);
  char *status =
      n ? g_strdup_printf("%u node%s match “%s” (Enter: next)", n, n == 1 ? "" : "s", text)
        : g_strdup_printf("No node matches “%s” in this stage", text);
  say(self, status, n == 0);
  g_free(status);
}

/* Typing: the first match of a new text. The entry reports a change some time after the text
 * was set, also when jitscope_window_search set it and searched already: not again then. */
static void on_search_changed(GtkSearchEntry *entry, JitscopeWindow *self) {
  if (g_strcmp0(gtk_editable_get_text(GTK_EDITABLE(entry)), self->searched) != 0)
    on_search(entry, self);
}

guint jitscope_window_search(JitscopeWindow *self, const char *text) {
  gtk_search_bar_set_search_mode(self->search_bar, TRUE);
  gtk_editable_set_text(GTK_EDITABLE(self->search_entry), text);
  on_search(self->search_entry, self);
  GArray *found = jitscope_graph_view_get_scene(self->graph_view)
                      ? app_scene_search(jitscope_graph_view_get_scene(self->graph_view), text)
                      : NULL;
  guint n = found ? found->len : 0;
  if (found)
    g_array_unref(found);
  return n;
}

static void action_fold(GtkWidget *widget, const char *name, GVariant *param) {
  JitscopeWindow *self = JITSCOPE_WINDOW(widget);
  const char *id = jitscope_graph_view_get_selected(self->graph_view);
  const AppWorkspaceStage *stage = current_stage(self);
  const IrNode *node = id && stage ? app_graphviz_dot_find_node(stage->graph, id) : NULL;
  if (node && (ir_node_attr(node, IR_ATTR_SUBGRAPH) || ir_n_blocks(node) > 0)) {
    if (!g_hash_table_remove(self->toggled, id))
      g_hash_table_add(self->toggled, g_strdup(id));
  } else {
    self->fold_all = !self->fold_all;
    g_hash_table_remove_all(self->toggled);
  }
  show_stage(self, FALSE);
}

/* ---- compare ---- */

static void compare_plans(JitscopeWindow *self) {
  const AppWorkspaceRun *run = app_workspace_last_run(self->ws);
  const AppWorkspacePlan *plan = current_plan(self);
  GPtrArray *plans = g_ptr_array_new(), *labels = g_ptr_array_new_with_free_func(g_free);
  /* The plan of the same kind and position per spec: a backward plan is compared with the
   * other specs' backward plans of the same graph. */
  for (guint i = 0; run && i < run->specs->len; i++) {
    const AppWorkspaceSpecResult *r = g_ptr_array_index(run->specs, i);
    const AppWorkspacePlan *p = NULL;
    if (plan && plan->kind == EXEC_PLAN_BACKWARD) {
      for (guint b = 0; b < r->backward->len && !p; b++) {
        const AppWorkspacePlan *candidate = g_ptr_array_index(r->backward, b);
        if (g_str_equal(candidate->graph_name, plan->graph_name))
          p = candidate;
      }
    } else {
      p = r->forward;
    }
    if (p && !g_ptr_array_find(plans, p, NULL)) {
      g_ptr_array_add(plans, (gpointer)p);
      g_ptr_array_add(labels, g_strdup_printf("Spec %u: %s", i + 1, r->line));
    }
  }
  if (plans->len < 2) {
    say(self,
        "Compare needs two or more spec lines whose runs compiled distinct plans: add "
        "spec lines (Ctrl+Shift+A) and run",
        TRUE);
  } else {
    jitscope_compare_view_set_plans(self->compare_view, plans, labels, self->stage_layouts,
                                    self->dark);
    const AppWorkspaceStage *stage = current_stage(self);
    if (stage)
      jitscope_compare_view_set_stage_name(self->compare_view, stage->name);
    show_canvas(self, TRUE);
    gtk_widget_grab_focus(GTK_WIDGET(self->compare_view));
    say(self, NULL, FALSE);
  }
  g_ptr_array_unref(plans);
  g_ptr_array_unref(labels);
}

static void action_compare(GtkWidget *widget, const char *name, GVariant *param) {
  JitscopeWindow *self = JITSCOPE_WINDOW(widget);
  if (comparing(self)) {
    show_canvas(self, FALSE);
  } else {
    compare_plans(self);
  }
}

/* ---- style and settings ---- */

static void apply_dark(JitscopeWindow *self, gboolean dark) {
  self->dark = dark;
  g_object_set(gtk_settings_get_default(), "gtk-application-prefer-dark-theme", dark, NULL);
  if (self->settings)
    g_settings_set_boolean(self->settings, "dark-style", dark);
  show_stage(self, FALSE);
  if (comparing(self))
    compare_plans(self);
}

static void on_edge_types(GSimpleAction *action, GVariant *state, JitscopeWindow *self) {
  g_simple_action_set_state(action, state);
  self->edge_types = g_variant_get_boolean(state);
  jitscope_compare_view_set_edge_types(self->compare_view, self->edge_types);
  show_stage(self, FALSE);
}

static void on_show_removed(GSimpleAction *action, GVariant *state, JitscopeWindow *self) {
  g_simple_action_set_state(action, state);
  self->show_removed = g_variant_get_boolean(state);
  show_stage(self, FALSE);
}

static void action_dark(GtkWidget *widget, const char *name, GVariant *param) {
  JitscopeWindow *self = JITSCOPE_WINDOW(widget);
  apply_dark(self, !self->dark);
}

static void panes_of(JitscopeWindow *self, GtkPaned *panes[JITSCOPE_WINDOW_N_PANES]) {
  GtkPaned *list[JITSCOPE_WINDOW_N_PANES] = {self->outer_paned, self->side_paned,
                                             self->middle_paned, self->lists_paned,
                                             self->canvas_paned};
  memcpy(panes, list, sizeof list);
}

int jitscope_window_get_pane_position(JitscopeWindow *self, const char *key) {
  int index = jitscope_window_pane_index(key);
  GtkPaned *panes[JITSCOPE_WINDOW_N_PANES];
  panes_of(self, panes);
  return index >= 0 ? gtk_paned_get_position(panes[index]) : -1;
}

static void load_settings(JitscopeWindow *self) {
  GtkPaned *panes[JITSCOPE_WINDOW_N_PANES];
  panes_of(self, panes);
  gboolean dark = FALSE;
  self->settings = jitscope_window_settings_load(GTK_WINDOW(self), panes, &dark);
  if (dark) {
    self->dark = TRUE;
    g_object_set(gtk_settings_get_default(), "gtk-application-prefer-dark-theme", TRUE, NULL);
  }
}

/* ---- forwarding to the panes ---- */

static void action_open(GtkWidget *widget, const char *name, GVariant *param) {
  gtk_widget_activate_action(GTK_WIDGET(JITSCOPE_WINDOW(widget)->program_pane), "program.open",
                             NULL);
}

static void action_paste(GtkWidget *widget, const char *name, GVariant *param) {
  gtk_widget_activate_action(GTK_WIDGET(JITSCOPE_WINDOW(widget)->program_pane), "program.paste",
                             NULL);
}

static void action_add_spec(GtkWidget *widget, const char *name, GVariant *param) {
  gtk_widget_activate_action(GTK_WIDGET(JITSCOPE_WINDOW(widget)->inputs_pane), "inputs.add-spec",
                             NULL);
}

/* ---- the object ---- */

static void jitscope_window_dispose(GObject *object) {
  JitscopeWindow *self = JITSCOPE_WINDOW(object);
  if (self->compare_view)
    jitscope_compare_view_set_plans(self->compare_view, NULL, NULL, self->stage_layouts, FALSE);
  if (self->plans_tree)
    jitscope_plans_tree_set_run(self->plans_tree, NULL);
  if (self->stage_list)
    jitscope_stage_list_set_plan(self->stage_list, NULL, 0);
  if (self->pending && self->stage_layouts)
    app_stage_layouts_cancel(self->stage_layouts, self->pending);
  self->pending = 0;
  g_clear_pointer(&self->stage_layouts, app_stage_layouts_free);
  g_clear_pointer(&self->layouts, app_layout_service_free);
  g_clear_pointer(&self->ws, app_workspace_free);
  g_clear_pointer(&self->toggled, g_hash_table_destroy);
  g_clear_pointer(&self->searched, g_free);
  g_clear_object(&self->settings);
  gtk_widget_dispose_template(GTK_WIDGET(self), JITSCOPE_TYPE_WINDOW);
  G_OBJECT_CLASS(jitscope_window_parent_class)->dispose(object);
}

#define BIND(name) gtk_widget_class_bind_template_child(widget_class, JitscopeWindow, name)

static void jitscope_window_class_init(JitscopeWindowClass *klass) {
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);
  G_OBJECT_CLASS(klass)->dispose = jitscope_window_dispose;
  g_type_ensure(JITSCOPE_TYPE_GRAPH_VIEW);
  g_type_ensure(JITSCOPE_TYPE_COMPARE_VIEW);
  g_type_ensure(JITSCOPE_TYPE_PROGRAM_PANE);
  g_type_ensure(JITSCOPE_TYPE_INPUTS_PANE);
  g_type_ensure(JITSCOPE_TYPE_PLANS_TREE);
  g_type_ensure(JITSCOPE_TYPE_STAGE_LIST);
  g_type_ensure(JITSCOPE_TYPE_INSPECTOR);
  gtk_widget_class_set_template_from_resource(widget_class,
                                              "/io/github/jitscope/Jitscope/ui/jitscope-window.ui");
  BIND(program_pane);
  BIND(inputs_pane);
  BIND(plans_tree);
  BIND(stage_list);
  BIND(inspector);
  BIND(graph_view);
  BIND(compare_view);
  BIND(stage_title);
  BIND(banner);
  BIND(legend_compare);
  BIND(legend);
  BIND(search_bar);
  BIND(search_entry);
  BIND(view_stack);
  BIND(export_button);
  BIND(side_paned);
  BIND(middle_paned);
  BIND(lists_paned);
  BIND(canvas_paned);
  static const struct {
    const char *name, *param;
    void (*fn)(GtkWidget *, const char *, GVariant *);
  } actions[] = {
      {"win.open", NULL, action_open},
      {"win.paste", NULL, action_paste},
      {"win.add-spec", NULL, action_add_spec},
      {"win.run", NULL, action_run},
      {"win.stop-run", NULL, action_stop_run},
      {"win.next-stage", NULL, action_next_stage},
      {"win.prev-stage", NULL, action_prev_stage},
      {"win.next-changed", NULL, action_next_changed},
      {"win.prev-changed", NULL, action_prev_changed},
      {"win.next-plan", NULL, action_next_plan},
      {"win.prev-plan", NULL, action_prev_plan},
      {"win.select-plan", "u", action_select_plan},
      {"win.select-stage", "u", action_select_stage},
      {"win.select-row", "u", action_select_row},
      {"win.fit", NULL, action_fit},
      {"win.zoom-in", NULL, action_zoom_in},
      {"win.zoom-out", NULL, action_zoom_out},
      {"win.search", NULL, action_search},
      {"win.export", NULL, jitscope_window_action_export_menu},
      {"win.export-graph", NULL, jitscope_window_action_export_graph},
      {"win.copy-ir", NULL, jitscope_window_action_copy_ir},
      {"win.export-bundle", NULL, jitscope_window_action_export_bundle},
      {"win.compare", NULL, action_compare},
      {"win.fold", NULL, action_fold},
      {"win.dark", NULL, action_dark},
      {"win.cancel-layout", NULL, action_cancel_layout},
  };
  for (guint i = 0; i < G_N_ELEMENTS(actions); i++)
    gtk_widget_class_install_action(widget_class, actions[i].name, actions[i].param, actions[i].fn);
  /* Enabled only while a layout runs: otherwise Escape goes on to other widgets. */
  gtk_widget_class_add_binding_action(widget_class, GDK_KEY_Escape, 0, "win.cancel-layout", NULL);
  /* Enabled only while a run is in flight; a layout's cancel comes first. */
  gtk_widget_class_add_binding_action(widget_class, GDK_KEY_Escape, 0, "win.stop-run", NULL);
}

typedef struct {
  const char *keys, *action;
} KeyAction;

static void add_keys(GtkWidget *widget, const KeyAction *keys, guint n) {
  GtkEventController *controller = gtk_shortcut_controller_new();
  for (guint i = 0; i < n; i++)
    gtk_shortcut_controller_add_shortcut(
        GTK_SHORTCUT_CONTROLLER(controller),
        gtk_shortcut_new(gtk_shortcut_trigger_parse_string(keys[i].keys),
                         gtk_named_action_new(keys[i].action)));
  gtk_widget_add_controller(widget, controller);
}

/* Stepping keys on the window, in the bubble phase: they work wherever the focus is (canvas,
 * lists, inspector) except in a text field, which types them; there the application's
 * Alt+Down / Alt+Up variants step (the shortcuts window lists both). */
static void add_stepping_keys(JitscopeWindow *self) {
  static const KeyAction window_keys[] = {{"n", "win.next-stage"},
                                          {"p", "win.prev-stage"},
                                          {"<Shift>n", "win.next-changed"},
                                          {"<Shift>p", "win.prev-changed"},
                                          {"r", "canvas.removed"}};
  static const KeyAction canvas_keys[] = {{"f", "win.fold"}};
  add_keys(GTK_WIDGET(self), window_keys, G_N_ELEMENTS(window_keys));
  add_keys(GTK_WIDGET(self->graph_view), canvas_keys, G_N_ELEMENTS(canvas_keys));
}

static void jitscope_window_init(JitscopeWindow *self) {
  gtk_widget_init_template(GTK_WIDGET(self));
  /* Not bound: dispose_template would unparent the window's own child behind its back. */
  self->outer_paned = GTK_PANED(gtk_window_get_child(GTK_WINDOW(self)));
  self->ws = app_workspace_new();
  self->layouts = app_layout_service_new(NULL);
  self->stage_layouts = app_stage_layouts_new(self->layouts);
  self->toggled = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  self->plan = self->stage = -1;
  gtk_widget_action_set_enabled(GTK_WIDGET(self), "win.stop-run", FALSE);
  jitscope_program_pane_set_workspace(self->program_pane, self->ws);
  g_signal_connect(self->program_pane, "program-changed", G_CALLBACK(on_program_changed), self);
  g_signal_connect(self->program_pane, "message", G_CALLBACK(on_pane_message), self);
  g_signal_connect(self->program_pane, "program-loaded", G_CALLBACK(on_program_loaded), self);
  g_signal_connect(self->plans_tree, "row-activated", G_CALLBACK(on_row_activated), self);
  g_signal_connect(self->stage_list, "stage-selected", G_CALLBACK(on_stage_selected), self);
  g_signal_connect(self->graph_view, "node-activated", G_CALLBACK(on_node_activated), self);
  g_signal_connect(self->graph_view, "edge-activated", G_CALLBACK(on_node_activated), self);
  /* canvas.edge-types and canvas.removed: stateful, one per window; every canvas of the window
   * reaches them */
  GSimpleActionGroup *canvas = g_simple_action_group_new();
  static const struct {
    const char *name;
    void (*changed)(GSimpleAction *, GVariant *, JitscopeWindow *);
  } toggles[] = {{"edge-types", on_edge_types}, {"removed", on_show_removed}};
  for (guint i = 0; i < G_N_ELEMENTS(toggles); i++) {
    g_autoptr(GSimpleAction) toggle =
        g_simple_action_new_stateful(toggles[i].name, NULL, g_variant_new_boolean(FALSE));
    g_signal_connect(toggle, "change-state", G_CALLBACK(toggles[i].changed), self);
    g_action_map_add_action(G_ACTION_MAP(canvas), G_ACTION(toggle));
  }
  gtk_widget_insert_action_group(GTK_WIDGET(self), "canvas", G_ACTION_GROUP(canvas));
  g_object_unref(canvas);
  g_signal_connect(self->graph_view, "cancel-layout", G_CALLBACK(on_cancel_layout), self);
  g_signal_connect(self->search_entry, "activate", G_CALLBACK(on_search), self);
  g_signal_connect(self->search_entry, "search-changed", G_CALLBACK(on_search_changed), self);
  gtk_search_bar_connect_entry(self->search_bar, GTK_EDITABLE(self->search_entry));
  add_stepping_keys(self);
  /* The canvas has the focus as the window opens: n steps at once, and typing goes nowhere
   * it was not meant to. */
  gtk_window_set_focus(GTK_WINDOW(self), GTK_WIDGET(self->graph_view));
  load_settings(self);
  show_stage(self, TRUE);
}

JitscopeWindow *jitscope_window_new(GtkApplication *app) {
  return g_object_new(JITSCOPE_TYPE_WINDOW, "application", app, NULL);
}

AppWorkspace *jitscope_window_get_workspace(JitscopeWindow *self) {
  return self->ws;
}
JitscopeGraphView *jitscope_window_get_graph_view(JitscopeWindow *self) {
  return self->graph_view;
}
AppStageLayouts *jitscope_window_get_stage_layouts(JitscopeWindow *self) {
  return self->stage_layouts;
}
JitscopeCompareView *jitscope_window_get_compare_view(JitscopeWindow *self) {
  return self->compare_view;
}
JitscopePlansTree *jitscope_window_get_plans_tree(JitscopeWindow *self) {
  return self->plans_tree;
}
JitscopeInspector *jitscope_window_get_inspector(JitscopeWindow *self) {
  return self->inspector;
}
GSettings *jitscope_window_get_settings(JitscopeWindow *self) {
  return self->settings;
}
gboolean jitscope_window_is_busy(JitscopeWindow *self) {
  return app_workspace_running(self->ws) || self->pending != 0 || self->exports > 0 ||
         jitscope_compare_view_is_busy(self->compare_view) ||
         jitscope_inspector_is_busy(self->inspector);
}
int jitscope_window_get_plan(JitscopeWindow *self) {
  return self->plan;
}
int jitscope_window_get_stage(JitscopeWindow *self) {
  return self->stage;
}
gboolean jitscope_window_is_comparing(JitscopeWindow *self) {
  return comparing(self);
}
const char *jitscope_window_get_program_error(JitscopeWindow *self) {
  return jitscope_program_pane_get_error(self->program_pane);
}
const char *jitscope_window_get_run_status(JitscopeWindow *self) {
  return jitscope_inputs_pane_get_status(self->inputs_pane);
}
const char *jitscope_window_get_stage_title(JitscopeWindow *self) {
  return gtk_label_get_text(self->stage_title);
}
const char *jitscope_window_get_inspector_text(JitscopeWindow *self) {
  return jitscope_inspector_get_text(self->inspector);
}
const char *jitscope_window_get_banner(JitscopeWindow *self) {
  return gtk_widget_get_visible(GTK_WIDGET(self->banner)) ? gtk_label_get_text(self->banner) : "";
}
