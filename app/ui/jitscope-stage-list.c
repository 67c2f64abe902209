/* The stage list (contract in jitscope-stage-list.h). */
#include "jitscope-stage-list.h"

#include <string.h>

struct _JitscopeStageList {
  GtkBox parent_instance;
  GtkLabel *heading;
  GtkListBox *list;
  GtkScrolledWindow *scroller;
  const AppWorkspacePlan *plan;
  int selected;
  gboolean filling;
};

G_DEFINE_FINAL_TYPE(JitscopeStageList, jitscope_stage_list, GTK_TYPE_BOX)

enum { SIGNAL_STAGE_SELECTED, N_SIGNALS };
static guint signals[N_SIGNALS];

static GtkWidget *stage_row(const AppWorkspaceStage *stage, guint index) {
  GtkWidget *box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
  char *text = g_strdup_printf("%02u", index + 1);
  GtkWidget *number = gtk_label_new(text);
  g_free(text);
  gtk_widget_add_css_class(number, "stage-number");
  /* "DifferentiableGraph_0.peephole" (a stage of the subgraph f) reads "f › peephole". */
  const char *dot = strrchr(stage->name, '.');
  char *shown = dot ? g_strdup_printf("f › %s", dot + 1) : g_strdup(stage->name);
  GtkWidget *name = gtk_label_new(shown);
  g_free(shown);
  gtk_label_set_xalign(GTK_LABEL(name), 0);
  gtk_label_set_ellipsize(GTK_LABEL(name), PANGO_ELLIPSIZE_END);
  gtk_widget_set_hexpand(name, TRUE);
  GtkWidget *group = gtk_label_new(stage->group);
  gtk_widget_add_css_class(group, "stage-group");
  GtkWidget *mark = gtk_label_new(stage->changed ? "●" : "·");
  gtk_widget_add_css_class(mark, stage->changed ? "stage-changed-mark" : "stage-same-mark");
  text = g_strdup_printf("%.2f ms", stage->ms);
  GtkWidget *ms = gtk_label_new(text);
  g_free(text);
  gtk_widget_add_css_class(ms, "stage-ms");
  gtk_widget_add_css_class(ms, "numeric");
  gtk_box_append(GTK_BOX(box), number);
  gtk_box_append(GTK_BOX(box), mark);
  gtk_box_append(GTK_BOX(box), name);
  gtk_box_append(GTK_BOX(box), group);
  gtk_box_append(GTK_BOX(box), ms);
  gtk_widget_add_css_class(box, stage->changed ? "stage-changed" : "stage-unchanged");
  char *tip = g_strdup_printf("%s [%s]: %s, %.3f ms", stage->name, stage->group,
                              stage->changed ? "changed the graph" : "changed nothing", stage->ms);
  gtk_widget_set_tooltip_text(box, tip);
  g_free(tip);
  return box;
}

void jitscope_stage_list_set_plan(JitscopeStageList *self, const AppWorkspacePlan *plan,
                                  int stage) {
  self->filling = TRUE;
  GtkWidget *child;
  while ((child = gtk_widget_get_first_child(GTK_WIDGET(self->list))))
    gtk_list_box_remove(self->list, child);
  self->plan = plan;
  self->selected = -1;
  guint changed = 0;
  for (guint s = 0; plan && s < plan->stages->len; s++) {
    const AppWorkspaceStage *st = g_ptr_array_index(plan->stages, s);
    changed += st->changed;
    gtk_list_box_append(self->list, stage_row(st, s));
  }
  self->filling = FALSE;
  if (!plan) {
    gtk_label_set_text(self->heading, "Stages");
    return;
  }
  char *heading = g_strdup_printf("Stages of %s %s: %u, %u changed the graph",
                                  plan->kind == EXEC_PLAN_FORWARD ? "forward" : "backward",
                                  plan->graph_name, plan->stages->len, changed);
  gtk_label_set_text(self->heading, heading);
  g_free(heading);
  if (plan->stages->len > 0)
    jitscope_stage_list_select(self, CLAMP(stage, 0, (int)plan->stages->len - 1));
}

void jitscope_stage_list_select(JitscopeStageList *self, int stage) {
  GtkListBoxRow *row = gtk_list_box_get_row_at_index(self->list, stage);
  if (!row)
    return;
  if (gtk_list_box_get_selected_row(self->list) == row && self->selected == stage)
    return;
  gtk_list_box_select_row(self->list, row);
}

gboolean jitscope_stage_list_step(JitscopeStageList *self, int delta, gboolean only_changed) {
  if (!self->plan || self->plan->stages->len == 0)
    return FALSE;
  int n = (int)self->plan->stages->len;
  int next = self->selected + delta;
  if (only_changed)
    while (next >= 0 && next < n &&
           !((AppWorkspaceStage *)g_ptr_array_index(self->plan->stages, next))->changed)
      next += delta;
  next = CLAMP(next, 0, n - 1);
  if (next == self->selected)
    return FALSE;
  jitscope_stage_list_select(self, next);
  return TRUE;
}

/* Keeps the row in sight while stepping (without taking the keyboard focus). */
static void scroll_to_row(JitscopeStageList *self, GtkListBoxRow *row) {
  double x = 0, y = 0;
  if (!gtk_widget_translate_coordinates(GTK_WIDGET(row), GTK_WIDGET(self->list), 0, 0, &x, &y))
    return;
  GtkAdjustment *adj = gtk_scrolled_window_get_vadjustment(self->scroller);
  double h = gtk_widget_get_height(GTK_WIDGET(row)), value = gtk_adjustment_get_value(adj);
  double page = gtk_adjustment_get_page_size(adj);
  if (y < value)
    gtk_adjustment_set_value(adj, y);
  else if (y + h > value + page)
    gtk_adjustment_set_value(adj, y + h - page);
}

static void on_row_selected(GtkListBox *list, GtkListBoxRow *row, JitscopeStageList *self) {
  if (self->filling || !row)
    return;
  self->selected = gtk_list_box_row_get_index(row);
  scroll_to_row(self, row);
  g_signal_emit(self, signals[SIGNAL_STAGE_SELECTED], 0, self->selected);
}

static void action_next(GtkWidget *widget, const char *name, GVariant *param) {
  jitscope_stage_list_step(JITSCOPE_STAGE_LIST(widget), 1, FALSE);
}

static void action_prev(GtkWidget *widget, const char *name, GVariant *param) {
  jitscope_stage_list_step(JITSCOPE_STAGE_LIST(widget), -1, FALSE);
}

static void action_next_changed(GtkWidget *widget, const char *name, GVariant *param) {
  jitscope_stage_list_step(JITSCOPE_STAGE_LIST(widget), 1, TRUE);
}

static void action_prev_changed(GtkWidget *widget, const char *name, GVariant *param) {
  jitscope_stage_list_step(JITSCOPE_STAGE_LIST(widget), -1, TRUE);
}

static void action_first(GtkWidget *widget, const char *name, GVariant *param) {
  jitscope_stage_list_select(JITSCOPE_STAGE_LIST(widget), 0);
}

static void action_last(GtkWidget *widget, const char *name, GVariant *param) {
  JitscopeStageList *self = JITSCOPE_STAGE_LIST(widget);
  jitscope_stage_list_select(self, self->plan ? (int)self->plan->stages->len - 1 : 0);
}

static void jitscope_stage_list_dispose(GObject *object) {
  gtk_widget_dispose_template(GTK_WIDGET(object), JITSCOPE_TYPE_STAGE_LIST);
  G_OBJECT_CLASS(jitscope_stage_list_parent_class)->dispose(object);
}

static void jitscope_stage_list_class_init(JitscopeStageListClass *klass) {
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);
  G_OBJECT_CLASS(klass)->dispose = jitscope_stage_list_dispose;
  gtk_widget_class_set_template_from_resource(
      widget_class, "/io/github/jitscope/Jitscope/ui/jitscope-stage-list.ui");
  gtk_widget_class_bind_template_child(widget_class, JitscopeStageList, heading);
  gtk_widget_class_bind_template_child(widget_class, JitscopeStageList, list);
  gtk_widget_class_bind_template_child(widget_class, JitscopeStageList, scroller);
  signals[SIGNAL_STAGE_SELECTED] =
      g_signal_new("stage-selected", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                   NULL, G_TYPE_NONE, 1, G_TYPE_INT);
  gtk_widget_class_install_action(widget_class, "stages.next", NULL, action_next);
  gtk_widget_class_install_action(widget_class, "stages.prev", NULL, action_prev);
  gtk_widget_class_install_action(widget_class, "stages.next-changed", NULL, action_next_changed);
  gtk_widget_class_install_action(widget_class, "stages.prev-changed", NULL, action_prev_changed);
  gtk_widget_class_install_action(widget_class, "stages.first", NULL, action_first);
  gtk_widget_class_install_action(widget_class, "stages.last", NULL, action_last);
  gtk_widget_class_add_binding_action(widget_class, GDK_KEY_n, 0, "stages.next", NULL);
  gtk_widget_class_add_binding_action(widget_class, GDK_KEY_p, 0, "stages.prev", NULL);
  gtk_widget_class_add_binding_action(widget_class, GDK_KEY_N, GDK_SHIFT_MASK,
                                      "stages.next-changed", NULL);
  gtk_widget_class_add_binding_action(widget_class, GDK_KEY_P, GDK_SHIFT_MASK,
                                      "stages.prev-changed", NULL);
  gtk_widget_class_add_binding_action(widget_class, GDK_KEY_Home, 0, "stages.first", NULL);
  gtk_widget_class_add_binding_action(widget_class, GDK_KEY_End, 0, "stages.last", NULL);
}

static void jitscope_stage_list_init(JitscopeStageList *self) {
  gtk_widget_init_template(GTK_WIDGET(self));
  self->selected = -1;
  g_signal_connect(self->list, "row-selected", G_CALLBACK(on_row_selected), self);
}
