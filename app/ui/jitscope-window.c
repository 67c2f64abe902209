/* The workbench window (contract in jitscope-window.h). */
#include "jitscope-window.h"

#include <string.h>

#include "graphviz_dot.h"
#include "ir/text.h"
#include "jitscope-export.h"
#include "layout_service.h"

struct _JitscopeWindow {
  GtkApplicationWindow parent_instance;
  /* template children */
  GtkTextView *program_view;
  GtkLabel *program_error, *program_title, *run_status, *stage_title, *inspector;
  GtkListBox *specs_list, *plans_list, *stages_list;
  GtkSpinButton *seed_spin;
  GtkProgressBar *run_progress;
  GtkSpinner *run_spinner;
  GtkSearchBar *search_bar;
  GtkSearchEntry *search_entry;
  GtkStack *view_stack;
  JitscopeGraphView *graph_view;
  JitscopeCompareView *compare_view;
  /* state */
  AppWorkspace *ws;
  AppLayoutService *layouts;
  GPtrArray *plan_rows; /* GtkListBoxRow* per plan of the last run (borrowed) */
  int plan, stage;
  guint pending;        /* layout request of the shown stage */
  guint parse_source;
  gboolean filling;     /* lists are being refilled: ignore selection signals */
  GHashTable *toggled;  /* owner ids whose folding the user flipped */
  gboolean fold_all, dark;
  GtkTextTag *error_tag;
};

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

static void remove_all_rows(GtkListBox *list) {
  GtkWidget *child;
  while ((child = gtk_widget_get_first_child(GTK_WIDGET(list))))
    gtk_list_box_remove(list, child);
}

/* ---- program pane ---- */

static void show_program_state(JitscopeWindow *self) {
  GtkTextBuffer *buffer = gtk_text_view_get_buffer(self->program_view);
  GtkTextIter start, end;
  gtk_text_buffer_get_bounds(buffer, &start, &end);
  gtk_text_buffer_remove_tag(buffer, self->error_tag, &start, &end);
  int line = 0, col = 0;
  const GError *error = app_workspace_parse_error(self->ws, &line, &col);
  char *title = g_strdup_printf("Program: %s", app_workspace_filename(self->ws));
  gtk_label_set_text(self->program_title, title);
  g_free(title);
  gtk_widget_set_visible(GTK_WIDGET(self->program_error), error != NULL);
  if (!error)
    return;
  gtk_label_set_text(self->program_error, error->message);
  if (line > 0) {
    GtkTextIter a, b;
    gtk_text_buffer_get_iter_at_line(buffer, &a, line - 1);
    b = a;
    gtk_text_iter_forward_to_line_end(&b);
    gtk_text_buffer_apply_tag(buffer, self->error_tag, &a, &b);
  }
}

static void parse_buffer(JitscopeWindow *self) {
  GtkTextBuffer *buffer = gtk_text_view_get_buffer(self->program_view);
  GtkTextIter start, end;
  gtk_text_buffer_get_bounds(buffer, &start, &end);
  char *text = gtk_text_buffer_get_text(buffer, &start, &end, FALSE);
  app_workspace_set_text(self->ws, text, NULL);
  g_free(text);
  show_program_state(self);
}

static gboolean parse_later(gpointer data) {
  JitscopeWindow *self = data;
  self->parse_source = 0;
  parse_buffer(self);
  return G_SOURCE_REMOVE;
}

static void on_buffer_changed(GtkTextBuffer *buffer, JitscopeWindow *self) {
  if (self->parse_source)
    g_source_remove(self->parse_source);
  self->parse_source = g_timeout_add(300, parse_later, self);
}

void jitscope_window_set_program(JitscopeWindow *self, const char *text, const char *filename) {
  app_workspace_set_text(self->ws, text, filename);
  GtkTextBuffer *buffer = gtk_text_view_get_buffer(self->program_view);
  g_signal_handlers_block_by_func(buffer, on_buffer_changed, self);
  gtk_text_buffer_set_text(buffer, text, -1);
  g_signal_handlers_unblock_by_func(buffer, on_buffer_changed, self);
  show_program_state(self);
}

void jitscope_window_open_file(JitscopeWindow *self, const char *path) {
  GError *error = NULL;
  char *text = NULL;
  gsize length = 0;
  if (!g_file_get_contents(path, &text, &length, &error) || !g_utf8_validate(text, -1, NULL)) {
    char *message = g_strdup_printf("Cannot open %s: %s", path, error ? error->message : "not UTF-8 text");
    gtk_label_set_text(self->run_status, message);
    g_free(message);
    g_clear_error(&error);
    g_free(text);
    return;
  }
  jitscope_window_set_program(self, text, path);
  g_free(text);
}

static gboolean on_drop(GtkDropTarget *target, const GValue *value, double x, double y,
                        JitscopeWindow *self) {
  if (G_VALUE_HOLDS(value, G_TYPE_FILE)) {
    char *path = g_file_get_path(g_value_get_object(value));
    if (path)
      jitscope_window_open_file(self, path);
    g_free(path);
    return path != NULL;
  }
  if (G_VALUE_HOLDS(value, G_TYPE_STRING)) {
    jitscope_window_set_program(self, g_value_get_string(value), "<dropped>");
    return TRUE;
  }
  return FALSE;
}

/* ---- inputs ---- */

static void on_remove_spec(GtkButton *button, JitscopeWindow *self) {
  GtkWidget *row = gtk_widget_get_ancestor(GTK_WIDGET(button), GTK_TYPE_LIST_BOX_ROW);
  if (row)
    gtk_list_box_remove(self->specs_list, row);
}

static void add_spec_row(JitscopeWindow *self, const char *text) {
  GtkWidget *box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 4);
  GtkWidget *entry = gtk_entry_new();
  gtk_widget_set_hexpand(entry, TRUE);
  gtk_editable_set_text(GTK_EDITABLE(entry), text ? text : "");
  gtk_entry_set_placeholder_text(GTK_ENTRY(entry), "Float(5, 5, requires_grad=1); Float(5, 1); …");
  GtkWidget *remove = gtk_button_new_from_icon_name("list-remove-symbolic");
  gtk_widget_set_tooltip_text(remove, "Remove this spec");
  g_signal_connect(remove, "clicked", G_CALLBACK(on_remove_spec), self);
  gtk_box_append(GTK_BOX(box), entry);
  gtk_box_append(GTK_BOX(box), remove);
  gtk_list_box_append(self->specs_list, box);
}

void jitscope_window_set_specs(JitscopeWindow *self, const char *const *lines, guint n) {
  remove_all_rows(self->specs_list);
  for (guint i = 0; i < n; i++)
    add_spec_row(self, lines[i]);
}

static GPtrArray *collect_specs(JitscopeWindow *self) {
  GPtrArray *lines = g_ptr_array_new_with_free_func(g_free);
  for (GtkWidget *row = gtk_widget_get_first_child(GTK_WIDGET(self->specs_list)); row;
       row = gtk_widget_get_next_sibling(row)) {
    GtkWidget *box = gtk_list_box_row_get_child(GTK_LIST_BOX_ROW(row));
    const char *text = gtk_editable_get_text(GTK_EDITABLE(gtk_widget_get_first_child(box)));
    char *line = g_strstrip(g_strdup(text));
    if (*line)
      g_ptr_array_add(lines, line);
    else
      g_free(line);
  }
  return lines;
}

/* ---- stages and the canvas ---- */

static const AppWorkspaceSpecResult *spec_of_plan(JitscopeWindow *self,
                                                  const AppWorkspacePlan *plan) {
  const AppWorkspaceRun *run = app_workspace_last_run(self->ws);
  for (guint i = 0; run && i < run->specs->len; i++) {
    const AppWorkspaceSpecResult *r = g_ptr_array_index(run->specs, i);
    if (r->forward == plan)
      return r;
    for (guint b = 0; b < r->backward->len; b++)
      if (g_ptr_array_index(r->backward, b) == plan)
        return r;
  }
  return NULL;
}

static void show_summary(JitscopeWindow *self) {
  const AppWorkspacePlan *plan = current_plan(self);
  if (!plan) {
    gtk_label_set_text(self->inspector, "Run the program to see its plans and stages.");
    return;
  }
  GString *text = g_string_new(NULL);
  g_string_append_printf(text, "%s\n%u stages\n", plan->title, plan->stages->len);
  const AppWorkspaceSpecResult *r = spec_of_plan(self, plan);
  if (r) {
    g_string_append_printf(text, "\nspec: %s (%.1f ms)\n", r->line, r->ms);
    if (r->outputs_text)
      g_string_append(text, r->outputs_text);
    if (r->grads_text)
      g_string_append(text, r->grads_text);
  }
  gtk_label_set_text(self->inspector, text->str);
  g_string_free(text, TRUE);
}

static void on_stage_scene(AppScene *scene, const GError *error, gpointer data) {
  JitscopeWindow *self = data;
  self->pending = 0;
  if (scene)
    jitscope_graph_view_set_scene(self->graph_view, scene, TRUE);
  else
    jitscope_graph_view_set_message(self->graph_view, error->message);
}

static void show_stage(JitscopeWindow *self, gboolean new_plan) {
  if (self->pending)
    app_layout_service_cancel(self->layouts, self->pending);
  self->pending = 0;
  const AppWorkspacePlan *plan = current_plan(self);
  const AppWorkspaceStage *stage = current_stage(self);
  if (!stage || !stage->graph) {
    jitscope_graph_view_set_scene(self->graph_view, NULL, FALSE);
    jitscope_graph_view_set_message(self->graph_view, plan ? "This plan has no stages"
                                                           : "Run to see the plans");
    gtk_label_set_text(self->stage_title, "");
    return;
  }
  const AppWorkspaceStage *before = app_workspace_plan_stage(plan, (guint)self->stage);
  AppDotOptions options = {.previous = before ? before->graph : NULL,
                           .collapse = self->fold_all ? APP_DOT_COLLAPSE_ALL : APP_DOT_COLLAPSE_AUTO,
                           .toggled = self->toggled,
                           .dark = self->dark};
  AppDotStats stats;
  char *dot = app_graphviz_dot(stage->graph, &options, &stats);
  char *title = g_strdup_printf("%s · stage %d/%u %s [%s] · %s · %.2f ms · %u nodes: +%u added, "
                                "~%u changed, -%u removed%s",
                                plan->title, self->stage + 1, plan->stages->len, stage->name,
                                stage->group, stage->changed ? "changed" : "unchanged", stage->ms,
                                stats.nodes, stats.added, stats.changed, stats.removed,
                                stats.collapsed ? " · subgraphs folded (f)" : "");
  gtk_label_set_text(self->stage_title, title);
  g_free(title);
  if (new_plan)
    jitscope_graph_view_set_scene(self->graph_view, NULL, FALSE);
  AppScene *cached = app_layout_service_lookup(self->layouts, dot);
  if (cached) {
    jitscope_graph_view_set_scene(self->graph_view, cached, !new_plan);
    app_scene_unref(cached);
  } else {
    if (!jitscope_graph_view_get_scene(self->graph_view))
      jitscope_graph_view_set_message(self->graph_view, "Laying out…");
    self->pending = app_layout_service_request(self->layouts, dot, on_stage_scene, self);
  }
  g_free(dot);
  show_summary(self);
}

static GtkWidget *stage_row(const AppWorkspaceStage *stage, guint index) {
  GtkWidget *box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 8);
  char *name = g_strdup_printf("%02u %s", index + 1, stage->name);
  GtkWidget *label = gtk_label_new(name);
  g_free(name);
  gtk_label_set_xalign(GTK_LABEL(label), 0);
  gtk_label_set_ellipsize(GTK_LABEL(label), PANGO_ELLIPSIZE_MIDDLE);
  gtk_widget_set_hexpand(label, TRUE);
  GtkWidget *group = gtk_label_new(stage->group);
  char *ms = g_strdup_printf("%s %.2f ms", stage->changed ? "●" : " ", stage->ms);
  GtkWidget *time = gtk_label_new(ms);
  g_free(ms);
  gtk_box_append(GTK_BOX(box), label);
  gtk_box_append(GTK_BOX(box), group);
  gtk_box_append(GTK_BOX(box), time);
  if (!stage->changed)
    gtk_widget_add_css_class(box, "dim-label");
  gtk_widget_set_tooltip_text(box, stage->changed ? "changed the graph" : "changed nothing");
  return box;
}

static void select_stage(JitscopeWindow *self, int index) {
  GtkListBoxRow *row = gtk_list_box_get_row_at_index(self->stages_list, index);
  if (row)
    gtk_list_box_select_row(self->stages_list, row);
}

static void select_plan(JitscopeWindow *self, int plan, int stage) {
  const AppWorkspaceRun *run = app_workspace_last_run(self->ws);
  if (!run || plan < 0 || (guint)plan >= run->plans->len)
    return;
  gboolean new_plan = plan != self->plan;
  self->plan = plan;
  const AppWorkspacePlan *p = g_ptr_array_index(run->plans, plan);
  self->filling = TRUE;
  GtkListBoxRow *plan_row = g_ptr_array_index(self->plan_rows, plan);
  if (gtk_list_box_get_selected_row(self->plans_list) != plan_row)
    gtk_list_box_select_row(self->plans_list, plan_row);
  remove_all_rows(self->stages_list);
  for (guint s = 0; s < p->stages->len; s++)
    gtk_list_box_append(self->stages_list, stage_row(g_ptr_array_index(p->stages, s), s));
  self->filling = FALSE;
  self->stage = -1;
  if (new_plan)
    jitscope_graph_view_set_scene(self->graph_view, NULL, FALSE);
  select_stage(self, CLAMP(stage, 0, (int)p->stages->len - 1));
}

static void on_stage_selected(GtkListBox *list, GtkListBoxRow *row, JitscopeWindow *self) {
  if (self->filling || !row)
    return;
  gboolean first = self->stage < 0;
  self->stage = gtk_list_box_row_get_index(row);
  show_stage(self, first && !jitscope_graph_view_get_scene(self->graph_view));
}

static void on_plan_selected(GtkListBox *list, GtkListBoxRow *row, JitscopeWindow *self) {
  if (self->filling || !row)
    return;
  gpointer plan = g_object_get_data(G_OBJECT(row), "plan");
  if (!plan)
    return;
  select_plan(self, GPOINTER_TO_INT(plan) - 1,
              GPOINTER_TO_INT(g_object_get_data(G_OBJECT(row), "stage")));
}

static GtkListBoxRow *plans_row(JitscopeWindow *self, const char *text, int indent,
                                const char *css) {
  GtkWidget *label = gtk_label_new(text);
  gtk_label_set_xalign(GTK_LABEL(label), 0);
  gtk_label_set_ellipsize(GTK_LABEL(label), PANGO_ELLIPSIZE_END);
  gtk_widget_set_margin_start(label, 6 + 18 * indent);
  gtk_widget_set_tooltip_text(label, text);
  if (css)
    gtk_widget_add_css_class(label, css);
  GtkWidget *row = gtk_list_box_row_new();
  gtk_list_box_row_set_child(GTK_LIST_BOX_ROW(row), label);
  gtk_list_box_append(self->plans_list, row);
  return GTK_LIST_BOX_ROW(row);
}

static int plan_index(const AppWorkspaceRun *run, const AppWorkspacePlan *plan) {
  for (guint i = 0; i < run->plans->len; i++)
    if (g_ptr_array_index(run->plans, i) == plan)
      return (int)i;
  return -1;
}

/* The plans tree: per spec its forward plan, the DifferentiableGraphs in it (rows that jump
 * to the stage that differentiated them) and the backward plans the spec's run added. */
static void fill_plans(JitscopeWindow *self) {
  const AppWorkspaceRun *run = app_workspace_last_run(self->ws);
  self->filling = TRUE;
  jitscope_compare_view_set_plans(self->compare_view, NULL, self->layouts, self->dark);
  remove_all_rows(self->plans_list);
  remove_all_rows(self->stages_list);
  g_ptr_array_set_size(self->plan_rows, 0);
  self->plan = self->stage = -1;
  g_ptr_array_set_size(self->plan_rows, run->plans->len);
  for (guint i = 0; i < run->specs->len; i++) {
    const AppWorkspaceSpecResult *r = g_ptr_array_index(run->specs, i);
    char *head = g_strdup_printf("Spec %u: %s", i + 1, r->line);
    GtkListBoxRow *row = plans_row(self, head, 0, "plan-header");
    gtk_list_box_row_set_selectable(row, FALSE);
    g_free(head);
    if (r->error) {
      char *message = g_strdup_printf("failed: %s", r->error);
      gtk_list_box_row_set_selectable(plans_row(self, message, 1, "spec-error"), FALSE);
      g_free(message);
    }
    if (r->forward) {
      int fi = plan_index(run, r->forward);
      char *text = g_strdup_printf("forward %s · %u stages%s", r->forward->graph_name,
                                   r->forward->stages->len, r->forward_cached ? " (cached plan)" : "");
      row = plans_row(self, text, 1, NULL);
      g_free(text);
      g_object_set_data(G_OBJECT(row), "plan", GINT_TO_POINTER(fi + 1));
      if (!g_ptr_array_index(self->plan_rows, fi))
        g_ptr_array_index(self->plan_rows, fi) = row;
      for (guint d = 0; d < r->forward->diff_groups->len; d++) {
        const char *group = g_ptr_array_index(r->forward->diff_groups, d);
        row = plans_row(self, group, 2, NULL);
        g_object_set_data(G_OBJECT(row), "plan", GINT_TO_POINTER(fi + 1));
        for (guint s = 0; s < r->forward->stages->len; s++)
          if (g_strcmp0(((AppWorkspaceStage *)g_ptr_array_index(r->forward->stages, s))->name,
                        group) == 0) {
            g_object_set_data(G_OBJECT(row), "stage", GINT_TO_POINTER((int)s));
            break;
          }
      }
    }
    for (guint b = 0; b < r->backward->len; b++) {
      const AppWorkspacePlan *plan = g_ptr_array_index(r->backward, b);
      int bi = plan_index(run, plan);
      char *text = g_strdup_printf("backward %s · %u stages", plan->graph_name, plan->stages->len);
      row = plans_row(self, text, 2, NULL);
      g_free(text);
      g_object_set_data(G_OBJECT(row), "plan", GINT_TO_POINTER(bi + 1));
      g_ptr_array_index(self->plan_rows, bi) = row;
    }
  }
  /* A plan no spec lists (compiled by a failing spec) still gets a row. */
  for (guint p = 0; p < run->plans->len; p++)
    if (!g_ptr_array_index(self->plan_rows, p)) {
      GtkListBoxRow *row = plans_row(self, ((AppWorkspacePlan *)g_ptr_array_index(run->plans, p))->title, 1, NULL);
      g_object_set_data(G_OBJECT(row), "plan", GINT_TO_POINTER((int)p + 1));
      g_ptr_array_index(self->plan_rows, p) = row;
    }
  self->filling = FALSE;
  if (run->plans->len > 0)
    select_plan(self, 0, 0);
  else
    show_stage(self, TRUE);
}

/* ---- running ---- */

static void on_run_progress(AppWorkspace *ws, guint done, guint total, const char *message,
                            gpointer data) {
  JitscopeWindow *self = data;
  gtk_progress_bar_set_fraction(self->run_progress, total ? (double)done / total : 0);
  gtk_progress_bar_set_text(self->run_progress, message);
}

static void on_run_done(AppWorkspace *ws, const AppWorkspaceRun *run, const GError *error,
                        gpointer data) {
  JitscopeWindow *self = data;
  gtk_spinner_stop(self->run_spinner);
  gtk_widget_action_set_enabled(GTK_WIDGET(self), "win.run", TRUE);
  gtk_progress_bar_set_fraction(self->run_progress, 1);
  GString *status = g_string_new(NULL);
  g_string_append_printf(status, "%u spec%s, %u plans, %.0f ms", run->specs->len,
                         run->specs->len == 1 ? "" : "s", run->plans->len, run->ms);
  if (run->n_failed) {
    g_string_append_printf(status, "; %u failed:", run->n_failed);
    for (guint i = 0; i < run->specs->len; i++) {
      const AppWorkspaceSpecResult *r = g_ptr_array_index(run->specs, i);
      if (r->error)
        g_string_append_printf(status, "\nspec %u: %s", i + 1, r->error);
    }
  }
  gtk_progress_bar_set_text(self->run_progress, run->n_failed ? "finished with errors" : "done");
  gtk_label_set_text(self->run_status, status->str);
  g_string_free(status, TRUE);
  fill_plans(self);
}

static void action_run(GtkWidget *widget, const char *name, GVariant *param) {
  JitscopeWindow *self = JITSCOPE_WINDOW(widget);
  if (self->parse_source) {
    g_source_remove(self->parse_source);
    self->parse_source = 0;
    parse_buffer(self);
  }
  GPtrArray *lines = collect_specs(self);
  app_workspace_set_specs(self->ws, (char *const *)lines->pdata, lines->len);
  g_ptr_array_unref(lines);
  app_workspace_set_seed(self->ws, (guint64)gtk_spin_button_get_value_as_int(self->seed_spin));
  GError *error = NULL;
  if (!app_workspace_run_async(self->ws, NULL, on_run_progress, on_run_done, self, &error)) {
    gtk_label_set_text(self->run_status, error->message);
    g_error_free(error);
    return;
  }
  gtk_widget_action_set_enabled(widget, "win.run", FALSE);
  gtk_spinner_start(self->run_spinner);
  gtk_progress_bar_set_fraction(self->run_progress, 0);
  gtk_label_set_text(self->run_status, "Running…");
}

/* ---- the inspector ---- */

static void on_node_activated(JitscopeGraphView *view, const char *id, JitscopeWindow *self) {
  const AppWorkspaceStage *stage = current_stage(self);
  const IrNode *node = stage && stage->graph ? app_graphviz_dot_find_node(stage->graph, id) : NULL;
  if (!node) {
    if (*id)
      gtk_label_set_text(self->inspector, id);
    else
      show_summary(self);
    return;
  }
  char *text = app_workspace_describe_node(node, id);
  gtk_label_set_text(self->inspector, text);
  g_free(text);
}

/* ---- actions ---- */

static gboolean comparing(JitscopeWindow *self) {
  return g_strcmp0(gtk_stack_get_visible_child_name(self->view_stack), "compare") == 0;
}

static void step(JitscopeWindow *self, int delta) {
  if (comparing(self)) {
    guint s = jitscope_compare_view_get_step(self->compare_view);
    if (delta > 0 || s > 0)
      jitscope_compare_view_set_step(self->compare_view, (guint)((int)s + delta));
    return;
  }
  const AppWorkspacePlan *plan = current_plan(self);
  if (!plan)
    return;
  int next = CLAMP(self->stage + delta, 0, (int)plan->stages->len - 1);
  if (next != self->stage)
    select_stage(self, next);
}

static void action_step(GtkWidget *widget, const char *name, GVariant *param) {
  step(JITSCOPE_WINDOW(widget), g_str_equal(name, "win.next-stage") ? 1 : -1);
}

static void action_plan_step(GtkWidget *widget, const char *name, GVariant *param) {
  JitscopeWindow *self = JITSCOPE_WINDOW(widget);
  int delta = g_str_equal(name, "win.next-plan") ? 1 : -1;
  const AppWorkspaceRun *run = app_workspace_last_run(self->ws);
  if (run && self->plan + delta >= 0 && self->plan + delta < (int)run->plans->len)
    select_plan(self, self->plan + delta, 0);
}

static void action_select(GtkWidget *widget, const char *name, GVariant *param) {
  JitscopeWindow *self = JITSCOPE_WINDOW(widget);
  guint32 index = g_variant_get_uint32(param);
  if (g_str_equal(name, "win.select-plan"))
    select_plan(self, (int)index, 0);
  else
    select_stage(self, (int)index);
}

static void action_view(GtkWidget *widget, const char *name, GVariant *param) {
  JitscopeWindow *self = JITSCOPE_WINDOW(widget);
  if (g_str_equal(name, "win.fit"))
    jitscope_graph_view_fit(self->graph_view);
  else
    jitscope_graph_view_zoom(self->graph_view, g_str_equal(name, "win.zoom-in") ? 1.25 : 0.8);
}

static void action_search(GtkWidget *widget, const char *name, GVariant *param) {
  JitscopeWindow *self = JITSCOPE_WINDOW(widget);
  gtk_search_bar_set_search_mode(self->search_bar, TRUE);
  gtk_widget_grab_focus(GTK_WIDGET(self->search_entry));
}

static void on_search(GtkSearchEntry *entry, JitscopeWindow *self) {
  const char *text = gtk_editable_get_text(GTK_EDITABLE(entry));
  guint n = jitscope_graph_view_search_next(self->graph_view, text);
  char *status = g_strdup_printf("%u node%s match '%s' (Enter: next)", n, n == 1 ? "" : "s", text);
  gtk_label_set_text(self->run_status, status);
  g_free(status);
}

static void action_add_spec(GtkWidget *widget, const char *name, GVariant *param) {
  add_spec_row(JITSCOPE_WINDOW(widget), "");
}

static void action_fold(GtkWidget *widget, const char *name, GVariant *param) {
  JitscopeWindow *self = JITSCOPE_WINDOW(widget);
  const char *id = jitscope_graph_view_get_selected(self->graph_view);
  const AppWorkspaceStage *stage = current_stage(self);
  const IrNode *node = id && stage ? app_graphviz_dot_find_node(stage->graph, id) : NULL;
  if (node && ir_node_attr(node, IR_ATTR_SUBGRAPH)) {
    if (!g_hash_table_remove(self->toggled, id))
      g_hash_table_add(self->toggled, g_strdup(id));
  } else {
    self->fold_all = !self->fold_all;
    g_hash_table_remove_all(self->toggled);
  }
  show_stage(self, FALSE);
}

static void compare_plans(JitscopeWindow *self) {
  const AppWorkspaceRun *run = app_workspace_last_run(self->ws);
  const AppWorkspacePlan *plan = current_plan(self);
  GPtrArray *plans = g_ptr_array_new();
  for (guint i = 0; run && i < run->specs->len; i++) {
    const AppWorkspaceSpecResult *r = g_ptr_array_index(run->specs, i);
    const AppWorkspacePlan *p = NULL;
    if (plan && plan->kind == EXEC_PLAN_BACKWARD)
      p = r->backward->len ? g_ptr_array_index(r->backward, 0) : NULL;
    else
      p = r->forward;
    if (p && !g_ptr_array_find(plans, p, NULL))
      g_ptr_array_add(plans, (gpointer)p);
  }
  if (plans->len < 2) {
    gtk_label_set_text(self->run_status, "Compare needs two or more specs with distinct plans: "
                                         "add spec lines and run");
  } else {
    jitscope_compare_view_set_plans(self->compare_view, plans, self->layouts, self->dark);
    const AppWorkspaceStage *stage = current_stage(self);
    for (guint s = 0; stage && s < jitscope_compare_view_get_n_steps(self->compare_view); s++) {
      jitscope_compare_view_set_step(self->compare_view, s);
      if (g_strcmp0(jitscope_compare_view_get_stage_name(self->compare_view), stage->name) == 0)
        break;
    }
    gtk_stack_set_visible_child_name(self->view_stack, "compare");
  }
  g_ptr_array_unref(plans);
}

static void action_compare(GtkWidget *widget, const char *name, GVariant *param) {
  JitscopeWindow *self = JITSCOPE_WINDOW(widget);
  if (comparing(self))
    gtk_stack_set_visible_child_name(self->view_stack, "graph");
  else
    compare_plans(self);
}

static void action_dark(GtkWidget *widget, const char *name, GVariant *param) {
  JitscopeWindow *self = JITSCOPE_WINDOW(widget);
  self->dark = !self->dark;
  g_object_set(gtk_settings_get_default(), "gtk-application-prefer-dark-theme", self->dark, NULL);
  show_stage(self, FALSE);
  if (comparing(self))
    compare_plans(self);
}

static void on_open_response(GtkNativeDialog *dialog, int response, JitscopeWindow *self) {
  if (response == GTK_RESPONSE_ACCEPT) {
    GFile *file = gtk_file_chooser_get_file(GTK_FILE_CHOOSER(dialog));
    char *path = g_file_get_path(file);
    if (path)
      jitscope_window_open_file(self, path);
    g_free(path);
    g_object_unref(file);
  }
  g_object_unref(dialog);
}

static void action_open(GtkWidget *widget, const char *name, GVariant *param) {
  GtkFileChooserNative *dialog = gtk_file_chooser_native_new(
      "Open Graph", GTK_WINDOW(widget), GTK_FILE_CHOOSER_ACTION_OPEN, "_Open", "_Cancel");
  g_signal_connect(dialog, "response", G_CALLBACK(on_open_response), widget);
  gtk_native_dialog_show(GTK_NATIVE_DIALOG(dialog));
}

static void action_export(GtkWidget *widget, const char *name, GVariant *param) {
  JitscopeWindow *self = JITSCOPE_WINDOW(widget);
  const AppWorkspaceStage *stage = current_stage(self);
  if (!stage) {
    gtk_label_set_text(self->run_status, "Nothing to export: run and pick a stage first");
    return;
  }
  const AppWorkspaceStage *before = app_workspace_plan_stage(current_plan(self), (guint)self->stage);
  AppDotOptions options = {.previous = before ? before->graph : NULL, .toggled = self->toggled,
                           .collapse = self->fold_all ? APP_DOT_COLLAPSE_ALL : APP_DOT_COLLAPSE_AUTO};
  jitscope_export_graph(GTK_WINDOW(self), app_graphviz_dot(stage->graph, &options, NULL),
                        self->run_status);
}

/* ---- the object ---- */

static void add_local_keys(GtkWidget *widget) {
  static const struct {
    const char *keys, *action;
  } keys[] = {{"n|Down", "win.next-stage"}, {"p|Up", "win.prev-stage"}, {"f", "win.fold"}};
  GtkEventController *controller = gtk_shortcut_controller_new();
  for (guint i = 0; i < G_N_ELEMENTS(keys); i++)
    gtk_shortcut_controller_add_shortcut(
        GTK_SHORTCUT_CONTROLLER(controller),
        gtk_shortcut_new(gtk_shortcut_trigger_parse_string(keys[i].keys),
                         gtk_named_action_new(keys[i].action)));
  gtk_widget_add_controller(widget, controller);
}

static void jitscope_window_dispose(GObject *object) {
  JitscopeWindow *self = JITSCOPE_WINDOW(object);
  if (self->parse_source)
    g_source_remove(self->parse_source);
  self->parse_source = 0;
  if (self->compare_view)
    jitscope_compare_view_set_plans(self->compare_view, NULL, self->layouts, FALSE);
  g_clear_pointer(&self->layouts, app_layout_service_free);
  g_clear_pointer(&self->ws, app_workspace_free);
  g_clear_pointer(&self->plan_rows, g_ptr_array_unref);
  g_clear_pointer(&self->toggled, g_hash_table_destroy);
  gtk_widget_dispose_template(GTK_WIDGET(self), JITSCOPE_TYPE_WINDOW);
  G_OBJECT_CLASS(jitscope_window_parent_class)->dispose(object);
}

#define BIND(name) gtk_widget_class_bind_template_child(widget_class, JitscopeWindow, name)

static void jitscope_window_class_init(JitscopeWindowClass *klass) {
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);
  G_OBJECT_CLASS(klass)->dispose = jitscope_window_dispose;
  g_type_ensure(JITSCOPE_TYPE_GRAPH_VIEW);
  g_type_ensure(JITSCOPE_TYPE_COMPARE_VIEW);
  gtk_widget_class_set_template_from_resource(widget_class,
                                              "/io/github/jitscope/Jitscope/ui/jitscope-window.ui");
  BIND(program_view);
  BIND(program_error);
  BIND(program_title);
  BIND(run_status);
  BIND(stage_title);
  BIND(inspector);
  BIND(specs_list);
  BIND(plans_list);
  BIND(stages_list);
  BIND(seed_spin);
  BIND(run_progress);
  BIND(run_spinner);
  BIND(search_bar);
  BIND(search_entry);
  BIND(view_stack);
  BIND(graph_view);
  BIND(compare_view);
  gtk_widget_class_install_action(widget_class, "win.open", NULL, action_open);
  gtk_widget_class_install_action(widget_class, "win.run", NULL, action_run);
  gtk_widget_class_install_action(widget_class, "win.add-spec", NULL, action_add_spec);
  gtk_widget_class_install_action(widget_class, "win.next-stage", NULL, action_step);
  gtk_widget_class_install_action(widget_class, "win.prev-stage", NULL, action_step);
  gtk_widget_class_install_action(widget_class, "win.next-plan", NULL, action_plan_step);
  gtk_widget_class_install_action(widget_class, "win.prev-plan", NULL, action_plan_step);
  gtk_widget_class_install_action(widget_class, "win.select-plan", "u", action_select);
  gtk_widget_class_install_action(widget_class, "win.select-stage", "u", action_select);
  gtk_widget_class_install_action(widget_class, "win.fit", NULL, action_view);
  gtk_widget_class_install_action(widget_class, "win.zoom-in", NULL, action_view);
  gtk_widget_class_install_action(widget_class, "win.zoom-out", NULL, action_view);
  gtk_widget_class_install_action(widget_class, "win.search", NULL, action_search);
  gtk_widget_class_install_action(widget_class, "win.export", NULL, action_export);
  gtk_widget_class_install_action(widget_class, "win.compare", NULL, action_compare);
  gtk_widget_class_install_action(widget_class, "win.fold", NULL, action_fold);
  gtk_widget_class_install_action(widget_class, "win.dark", NULL, action_dark);
}

static void jitscope_window_init(JitscopeWindow *self) {
  gtk_widget_init_template(GTK_WIDGET(self));
  self->ws = app_workspace_new();
  self->layouts = app_layout_service_new(NULL);
  self->plan_rows = g_ptr_array_new();
  self->toggled = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  self->plan = self->stage = -1;
  GtkTextBuffer *buffer = gtk_text_view_get_buffer(self->program_view);
  self->error_tag = gtk_text_buffer_create_tag(buffer, "error", "underline", PANGO_UNDERLINE_ERROR,
                                               "background", "rgba(224,27,36,0.18)", NULL);
  g_signal_connect(buffer, "changed", G_CALLBACK(on_buffer_changed), self);
  GtkDropTarget *drop = gtk_drop_target_new(G_TYPE_INVALID, GDK_ACTION_COPY);
  GType types[] = {G_TYPE_FILE, G_TYPE_STRING};
  gtk_drop_target_set_gtypes(drop, types, G_N_ELEMENTS(types));
  g_signal_connect(drop, "drop", G_CALLBACK(on_drop), self);
  gtk_widget_add_controller(GTK_WIDGET(self->program_view), GTK_EVENT_CONTROLLER(drop));
  g_signal_connect(self->plans_list, "row-selected", G_CALLBACK(on_plan_selected), self);
  g_signal_connect(self->stages_list, "row-selected", G_CALLBACK(on_stage_selected), self);
  g_signal_connect(self->graph_view, "node-activated", G_CALLBACK(on_node_activated), self);
  g_signal_connect(self->search_entry, "activate", G_CALLBACK(on_search), self);
  g_signal_connect(self->search_entry, "search-changed", G_CALLBACK(on_search), self);
  gtk_search_bar_connect_entry(self->search_bar, GTK_EDITABLE(self->search_entry));
  add_local_keys(GTK_WIDGET(self->graph_view));
  add_local_keys(GTK_WIDGET(self->stages_list));
  show_stage(self, TRUE);
}

JitscopeWindow *jitscope_window_new(GtkApplication *app) {
  return g_object_new(JITSCOPE_TYPE_WINDOW, "application", app, NULL);
}

AppWorkspace *jitscope_window_get_workspace(JitscopeWindow *self) { return self->ws; }
JitscopeGraphView *jitscope_window_get_graph_view(JitscopeWindow *self) { return self->graph_view; }
JitscopeCompareView *jitscope_window_get_compare_view(JitscopeWindow *self) {
  return self->compare_view;
}
gboolean jitscope_window_is_busy(JitscopeWindow *self) {
  return app_workspace_running(self->ws) || self->pending != 0 ||
         jitscope_compare_view_is_busy(self->compare_view);
}
int jitscope_window_get_plan(JitscopeWindow *self) { return self->plan; }
int jitscope_window_get_stage(JitscopeWindow *self) { return self->stage; }
const char *jitscope_window_get_program_error(JitscopeWindow *self) {
  return gtk_widget_get_visible(GTK_WIDGET(self->program_error))
             ? gtk_label_get_text(self->program_error)
             : NULL;
}
const char *jitscope_window_get_run_status(JitscopeWindow *self) {
  return gtk_label_get_text(self->run_status);
}
const char *jitscope_window_get_inspector_text(JitscopeWindow *self) {
  return gtk_label_get_text(self->inspector);
}
