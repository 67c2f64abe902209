/* Plans side by side (contract in jitscope-compare-view.h). */
#include "jitscope-compare-view.h"

typedef struct {
  JitscopeCompareView *owner;
  const AppWorkspacePlan *plan;
  GtkWidget *box;
  GtkLabel *title;
  JitscopeGraphView *view;
  guint pending; /* layout request id or 0 */
} Column;

struct _JitscopeCompareView {
  GtkBox parent_instance;
  GtkLabel *title;
  GtkBox *columns_box;
  GPtrArray *columns; /* of Column* */
  GPtrArray *steps;   /* of char*: stage names, first plan's order then the others' */
  guint step;
  AppLayoutService *layouts;
  gboolean dark;
};

G_DEFINE_FINAL_TYPE(JitscopeCompareView, jitscope_compare_view, GTK_TYPE_BOX)

static void column_free(Column *c) {
  if (c->pending && c->owner->layouts)
    app_layout_service_cancel(c->owner->layouts, c->pending);
  g_free(c);
}

static void on_scene(AppScene *scene, const GError *error, gpointer data) {
  Column *c = data;
  c->pending = 0;
  if (scene)
    jitscope_graph_view_set_scene(c->view, scene, FALSE);
  else
    jitscope_graph_view_set_message(c->view, error->message);
}

static int find_stage(const AppWorkspacePlan *plan, const char *name) {
  for (guint s = 0; s < plan->stages->len; s++) {
    const AppWorkspaceStage *stage = g_ptr_array_index(plan->stages, s);
    if (g_strcmp0(stage->name, name) == 0)
      return (int)s;
  }
  return -1;
}

static void show_step(JitscopeCompareView *self) {
  if (self->steps->len == 0) {
    gtk_label_set_text(self->title, "Nothing to compare: run two or more specs");
    return;
  }
  const char *name = g_ptr_array_index(self->steps, self->step);
  char *title = g_strdup_printf("Stage %u of %u: %s", self->step + 1, self->steps->len, name);
  gtk_label_set_text(self->title, title);
  g_free(title);
  for (guint i = 0; i < self->columns->len; i++) {
    Column *c = g_ptr_array_index(self->columns, i);
    if (c->pending)
      app_layout_service_cancel(self->layouts, c->pending);
    c->pending = 0;
    int index = find_stage(c->plan, name);
    if (index < 0) {
      jitscope_graph_view_set_scene(c->view, NULL, FALSE);
      char *message = g_strdup_printf("This plan has no stage '%s'", name);
      jitscope_graph_view_set_message(c->view, message);
      g_free(message);
      continue;
    }
    const AppWorkspaceStage *stage = g_ptr_array_index(c->plan->stages, (guint)index);
    const AppWorkspaceStage *before = app_workspace_plan_stage(c->plan, (guint)index);
    AppDotOptions options = {.previous = before ? before->graph : NULL, .dark = self->dark};
    AppDotStats stats;
    char *dot = app_graphviz_dot(stage->graph, &options, &stats);
    char *label = g_strdup_printf("%s\n%s · +%u ~%u -%u", c->plan->title,
                                  stage->changed ? "changed" : "unchanged", stats.added,
                                  stats.changed, stats.removed);
    gtk_label_set_text(c->title, label);
    g_free(label);
    AppScene *cached = app_layout_service_lookup(self->layouts, dot);
    if (cached) {
      jitscope_graph_view_set_scene(c->view, cached, FALSE);
      app_scene_unref(cached);
    } else {
      jitscope_graph_view_set_message(c->view, "Laying out…");
      c->pending = app_layout_service_request(self->layouts, dot, on_scene, c);
    }
    g_free(dot);
  }
}

void jitscope_compare_view_set_plans(JitscopeCompareView *self, GPtrArray *plans,
                                     AppLayoutService *layouts, gboolean dark) {
  for (guint i = 0; i < self->columns->len; i++) {
    Column *c = g_ptr_array_index(self->columns, i);
    gtk_box_remove(self->columns_box, c->box);
  }
  g_ptr_array_set_size(self->columns, 0);
  g_ptr_array_set_size(self->steps, 0);
  self->layouts = layouts;
  self->dark = dark;
  self->step = 0;
  for (guint p = 0; plans && p < plans->len; p++) {
    const AppWorkspacePlan *plan = g_ptr_array_index(plans, p);
    Column *c = g_new0(Column, 1);
    c->owner = self;
    c->plan = plan;
    c->box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 2);
    c->title = GTK_LABEL(gtk_label_new(plan->title));
    gtk_label_set_ellipsize(c->title, PANGO_ELLIPSIZE_MIDDLE);
    gtk_label_set_xalign(c->title, 0);
    c->view = JITSCOPE_GRAPH_VIEW(jitscope_graph_view_new());
    gtk_box_append(GTK_BOX(c->box), GTK_WIDGET(c->title));
    gtk_box_append(GTK_BOX(c->box), GTK_WIDGET(c->view));
    gtk_box_append(self->columns_box, c->box);
    g_ptr_array_add(self->columns, c);
    for (guint s = 0; s < plan->stages->len; s++) {
      const AppWorkspaceStage *stage = g_ptr_array_index(plan->stages, s);
      bool known = false;
      for (guint k = 0; k < self->steps->len && !known; k++)
        known = g_strcmp0(g_ptr_array_index(self->steps, k), stage->name) == 0;
      if (!known)
        g_ptr_array_add(self->steps, g_strdup(stage->name));
    }
  }
  show_step(self);
}

guint jitscope_compare_view_get_n_columns(JitscopeCompareView *self) { return self->columns->len; }
guint jitscope_compare_view_get_n_steps(JitscopeCompareView *self) { return self->steps->len; }
guint jitscope_compare_view_get_step(JitscopeCompareView *self) { return self->step; }

void jitscope_compare_view_set_step(JitscopeCompareView *self, guint index) {
  if (self->steps->len == 0)
    return;
  self->step = MIN(index, self->steps->len - 1);
  show_step(self);
}

const char *jitscope_compare_view_get_stage_name(JitscopeCompareView *self) {
  return self->steps->len ? g_ptr_array_index(self->steps, self->step) : NULL;
}

JitscopeGraphView *jitscope_compare_view_get_column(JitscopeCompareView *self, guint index) {
  if (index >= self->columns->len)
    return NULL;
  return ((Column *)g_ptr_array_index(self->columns, index))->view;
}

gboolean jitscope_compare_view_is_busy(JitscopeCompareView *self) {
  for (guint i = 0; i < self->columns->len; i++)
    if (((Column *)g_ptr_array_index(self->columns, i))->pending)
      return TRUE;
  return FALSE;
}

static void jitscope_compare_view_dispose(GObject *object) {
  JitscopeCompareView *self = JITSCOPE_COMPARE_VIEW(object);
  g_clear_pointer(&self->columns, g_ptr_array_unref);
  g_clear_pointer(&self->steps, g_ptr_array_unref);
  gtk_widget_dispose_template(GTK_WIDGET(self), JITSCOPE_TYPE_COMPARE_VIEW);
  G_OBJECT_CLASS(jitscope_compare_view_parent_class)->dispose(object);
}

static void jitscope_compare_view_class_init(JitscopeCompareViewClass *klass) {
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);
  G_OBJECT_CLASS(klass)->dispose = jitscope_compare_view_dispose;
  gtk_widget_class_set_template_from_resource(
      widget_class, "/io/github/jitscope/Jitscope/ui/jitscope-compare-view.ui");
  gtk_widget_class_bind_template_child_full(widget_class, "title", FALSE,
                                            G_STRUCT_OFFSET(JitscopeCompareView, title));
  gtk_widget_class_bind_template_child_full(widget_class, "columns", FALSE,
                                            G_STRUCT_OFFSET(JitscopeCompareView, columns_box));
}

static void jitscope_compare_view_init(JitscopeCompareView *self) {
  gtk_widget_init_template(GTK_WIDGET(self));
  self->columns = g_ptr_array_new_with_free_func((GDestroyNotify)column_free);
  self->steps = g_ptr_array_new_with_free_func(g_free);
}
