/* Plans side by side (contract in jitscope-compare-view.h). */
#include "jitscope-compare-view.h"
#include "jitscope-compare-view-private.h"

typedef struct {
  JitscopeCompareView *owner;
  const AppWorkspacePlan *plan;
  char *label;
  GtkWidget *box;
  GtkLabel *header;
  JitscopeGraphView *view;
  guint pending;        /* layout request id or 0 */
  const IrGraph *graph; /* the stage's graph shown, or NULL */
  GHashTable *unshared; /* const IrNode* of graph not in every plan */
  char *stats;          /* "+1 ~0 -2" relative to the plan's previous stage */
} Column;

struct _JitscopeCompareView {
  GtkBox parent_instance;
  GtkLabel *title;
  GtkBox *columns_box;
  GPtrArray *columns; /* of Column* */
  GPtrArray *steps;   /* of char*: stage names, first plan's order then the others' */
  guint step;
  AppStageLayouts *layouts;
  gboolean dark;
  gboolean edge_types;        /* the window's canvas.edge-types */
  gboolean orientation_fixed; /* the user chose rows or columns */
};

G_DEFINE_FINAL_TYPE(JitscopeCompareView, jitscope_compare_view, GTK_TYPE_BOX)

static void column_free(Column *c) {
  if (c->pending && c->owner->layouts)
    app_stage_layouts_cancel(c->owner->layouts, c->pending);
  g_clear_pointer(&c->unshared, g_hash_table_destroy);
  g_free(c->label);
  g_free(c->stats);
  g_free(c);
}

static int find_stage(const AppWorkspacePlan *plan, const char *name) {
  for (guint s = 0; s < plan->stages->len; s++) {
    const AppWorkspaceStage *stage = g_ptr_array_index(plan->stages, s);
    if (g_strcmp0(stage->name, name) == 0)
      return (int)s;
  }
  return -1;
}

/* Wide drawings read best as rows, tall ones as columns. */
static void choose_orientation(JitscopeCompareView *self) {
  if (self->orientation_fixed)
    return;
  double wide = 0;
  guint n = 0;
  for (guint i = 0; i < self->columns->len; i++) {
    Column *c = g_ptr_array_index(self->columns, i);
    AppScene *scene = jitscope_graph_view_get_scene(c->view);
    if (scene && scene->height > 0) {
      wide += scene->width / scene->height;
      n++;
    }
  }
  if (n == 0)
    return;
  /* A row of the canvas is as wide as the canvas and 1/n as tall; a column the reverse. */
  GtkWidget *area = GTK_WIDGET(self->columns_box);
  double w = MAX(gtk_widget_get_width(area), 400), h = MAX(gtk_widget_get_height(area), 300);
  double aspect = wide / n;
  guint k = self->columns->len;
  double as_rows = MIN(w / aspect, h / k) * aspect;    /* drawn width per plan, as rows */
  double as_columns = MIN(w / k / aspect, h) * aspect; /* as columns */
  gtk_orientable_set_orientation(GTK_ORIENTABLE(self->columns_box),
                                 as_rows > as_columns ? GTK_ORIENTATION_VERTICAL
                                                      : GTK_ORIENTATION_HORIZONTAL);
}

/* Marks the scene's nodes that are not in every plan. */
static void apply_marks(Column *c) {
  AppScene *scene = jitscope_graph_view_get_scene(c->view);
  GHashTable *ids = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; scene && c->graph && c->unshared && i < scene->objects->len; i++) {
    const AppObject *o = app_scene_object(scene, i);
    if (o->kind != APP_OBJECT_NODE)
      continue;
    /* The return is drawn as "r" (graphviz_dot.h): which values a plan returns matters. */
    const IrNode *node = g_str_equal(o->id, "r") ? c->graph->block->ret
                                                 : app_graphviz_dot_find_node(c->graph, o->id);
    if (node && g_hash_table_contains(c->unshared, node))
      g_hash_table_add(ids, g_strdup(o->id));
  }
  jitscope_graph_view_set_marked(c->view, ids);
  g_hash_table_unref(ids);
}

static void set_header(Column *c, const char *stage_state) {
  guint n = c->unshared ? g_hash_table_size(c->unshared) : 0;
  char *text = g_strdup_printf("%s\n%s · %s · %s", c->label, c->plan->title, stage_state,
                               n ? "" : "same nodes as the other plans");
  if (n) {
    g_free(text);
    text = g_strdup_printf("%s\n%s · %s · %u node%s not in every plan", c->label, c->plan->title,
                           stage_state, n, n == 1 ? "" : "s");
  }
  gtk_label_set_text(c->header, text);
  g_free(text);
}

static void on_update(const AppStageUpdate *update, gpointer data) {
  Column *c = data;
  if (update->done)
    c->pending = 0;
  if (jitscope_graph_view_apply_update(c->view, update, FALSE)) {
    apply_marks(c);
    choose_orientation(c->owner);
  }
}

static void cancel_column(Column *c) {
  if (!c->pending)
    return;
  app_stage_layouts_cancel(c->owner->layouts, c->pending);
  c->pending = 0;
  jitscope_graph_view_layout_cancelled(c->view);
}

static void on_cancel_layout(JitscopeGraphView *view, Column *c) {
  cancel_column(c);
}

void jitscope_compare_view_cancel_layouts(JitscopeCompareView *self) {
  for (guint i = 0; i < self->columns->len; i++)
    cancel_column(g_ptr_array_index(self->columns, i));
}

static void show_step(JitscopeCompareView *self) {
  if (self->steps->len == 0) {
    gtk_label_set_text(self->title, "Nothing to compare: run two or more specs");
    return;
  }
  const char *name = g_ptr_array_index(self->steps, self->step);
  /* The graphs of this stage, one per column (NULL where the plan lacks the stage). */
  guint n = self->columns->len;
  const IrGraph **graphs = g_new0(const IrGraph *, n + 1);
  for (guint i = 0; i < n; i++) {
    Column *c = g_ptr_array_index(self->columns, i);
    int index = find_stage(c->plan, name);
    c->graph = index >= 0
                   ? ((AppWorkspaceStage *)g_ptr_array_index(c->plan->stages, (guint)index))->graph
                   : NULL;
    graphs[i] = c->graph;
  }
  guint differing = 0;
  for (guint i = 0; i < n; i++) {
    Column *c = g_ptr_array_index(self->columns, i);
    g_clear_pointer(&c->unshared, g_hash_table_destroy);
    if (c->graph)
      c->unshared = app_workspace_unshared_nodes(graphs, n, i);
    differing += c->unshared && g_hash_table_size(c->unshared) > 0;
  }
  g_free(graphs);
  char *title = g_strdup_printf("Stage %u of %u: %s · %s", self->step + 1, self->steps->len, name,
                                differing ? "the plans differ here (magenta: not in every plan)"
                                          : "same nodes in every plan");
  gtk_label_set_text(self->title, title);
  g_free(title);
  for (guint i = 0; i < n; i++) {
    Column *c = g_ptr_array_index(self->columns, i);
    if (c->pending)
      app_stage_layouts_cancel(self->layouts, c->pending);
    c->pending = 0;
    int index = find_stage(c->plan, name);
    if (index < 0 || !c->graph) {
      jitscope_graph_view_show_final(c->view, NULL, FALSE);
      char *message = g_strdup_printf("This plan has no stage '%s'", name);
      jitscope_graph_view_set_message(c->view, message);
      g_free(message);
      set_header(c, "no such stage");
      continue;
    }
    const AppWorkspaceStage *stage = g_ptr_array_index(c->plan->stages, (guint)index);
    AppStageView view = {.stage = stage,
                         .before = app_workspace_plan_stage(c->plan, (guint)index),
                         .collapse = APP_DOT_COLLAPSE_AUTO,
                         .dark = self->dark,
                         .edge_types = self->edge_types};
    AppScene *scene = NULL;
    AppDotStats stats = {0};
    bool have_stats = false;
    c->pending =
        app_stage_layouts_show(self->layouts, &view, &scene, &stats, &have_stats, on_update, c);
    char *state = g_strdup_printf("stage %d %s (+%u ~%u -%u)", index + 1,
                                  stage->changed ? "changed" : "unchanged", stats.added,
                                  stats.changed, stats.removed);
    set_header(c, state);
    g_free(state);
    if (scene) {
      jitscope_graph_view_show_final(c->view, scene, FALSE);
      app_scene_unref(scene);
      apply_marks(c);
    } else {
      jitscope_graph_view_set_scene(c->view, NULL, FALSE);
      jitscope_graph_view_begin_layout(c->view);
    }
  }
  choose_orientation(self);
}

void jitscope_compare_view_set_edge_types(JitscopeCompareView *self, gboolean on) {
  if (self->edge_types == on)
    return;
  self->edge_types = on;
  if (self->columns->len > 0)
    show_step(self);
}

static char *short_title(const AppWorkspacePlan *plan) {
  return g_strdup_printf("%s %s", plan->kind == EXEC_PLAN_FORWARD ? "forward" : "backward",
                         plan->graph_name);
}

void jitscope_compare_view_set_plans(JitscopeCompareView *self, GPtrArray *plans, GPtrArray *labels,
                                     AppStageLayouts *layouts, gboolean dark) {
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
    c->label =
        labels && p < labels->len ? g_strdup(g_ptr_array_index(labels, p)) : short_title(plan);
    c->box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 2);
    gtk_widget_add_css_class(c->box, "compare-column");
    c->header = GTK_LABEL(gtk_label_new(c->label));
    gtk_label_set_ellipsize(c->header, PANGO_ELLIPSIZE_END);
    gtk_label_set_xalign(c->header, 0);
    gtk_widget_add_css_class(GTK_WIDGET(c->header), "compare-header");
    c->view = JITSCOPE_GRAPH_VIEW(jitscope_graph_view_new());
    g_signal_connect(c->view, "cancel-layout", G_CALLBACK(on_cancel_layout), c);
    gtk_box_append(GTK_BOX(c->box), GTK_WIDGET(c->header));
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

guint jitscope_compare_view_get_n_columns(JitscopeCompareView *self) {
  return self->columns->len;
}
guint jitscope_compare_view_get_n_steps(JitscopeCompareView *self) {
  return self->steps->len;
}
guint jitscope_compare_view_get_step(JitscopeCompareView *self) {
  return self->step;
}

void jitscope_compare_view_set_step(JitscopeCompareView *self, guint index) {
  if (self->steps->len == 0)
    return;
  self->step = MIN(index, self->steps->len - 1);
  show_step(self);
}

gboolean jitscope_compare_view_set_stage_name(JitscopeCompareView *self, const char *name) {
  for (guint s = 0; name && s < self->steps->len; s++)
    if (g_str_equal(g_ptr_array_index(self->steps, s), name)) {
      jitscope_compare_view_set_step(self, s);
      return TRUE;
    }
  return FALSE;
}

JitscopeGraphView *jitscope_compare_view_get_column(JitscopeCompareView *self, guint index) {
  if (index >= self->columns->len)
    return NULL;
  return ((Column *)g_ptr_array_index(self->columns, index))->view;
}

guint jitscope_compare_view_get_n_unshared(JitscopeCompareView *self, guint index) {
  if (index >= self->columns->len)
    return 0;
  Column *c = g_ptr_array_index(self->columns, index);
  return c->unshared ? g_hash_table_size(c->unshared) : 0;
}

void jitscope_compare_view_fit_all(JitscopeCompareView *self) {
  for (guint i = 0; i < self->columns->len; i++)
    jitscope_graph_view_fit(((Column *)g_ptr_array_index(self->columns, i))->view);
}

gboolean jitscope_compare_view_is_busy(JitscopeCompareView *self) {
  for (guint i = 0; i < self->columns->len; i++)
    if (((Column *)g_ptr_array_index(self->columns, i))->pending)
      return TRUE;
  return FALSE;
}

/* ---- actions ---- */

static gboolean plans_differ(JitscopeCompareView *self) {
  for (guint i = 0; i < self->columns->len; i++)
    if (jitscope_compare_view_get_n_unshared(self, i) > 0)
      return TRUE;
  return FALSE;
}

static void action_next_different(GtkWidget *widget, const char *name, GVariant *param) {
  JitscopeCompareView *self = JITSCOPE_COMPARE_VIEW(widget);
  if (self->steps->len == 0)
    return;
  guint start = self->step;
  while (self->step + 1 < self->steps->len) {
    jitscope_compare_view_set_step(self, self->step + 1);
    if (plans_differ(self))
      return;
  }
  if (!plans_differ(self))
    jitscope_compare_view_set_step(self, start);
}

static void action_next(GtkWidget *widget, const char *name, GVariant *param) {
  JitscopeCompareView *self = JITSCOPE_COMPARE_VIEW(widget);
  if (self->steps->len > 0)
    jitscope_compare_view_set_step(self, self->step + 1);
}

static void action_prev(GtkWidget *widget, const char *name, GVariant *param) {
  JitscopeCompareView *self = JITSCOPE_COMPARE_VIEW(widget);
  if (self->steps->len > 0 && self->step > 0)
    jitscope_compare_view_set_step(self, self->step - 1);
}

static void action_fit(GtkWidget *widget, const char *name, GVariant *param) {
  jitscope_compare_view_fit_all(JITSCOPE_COMPARE_VIEW(widget));
}

static void action_orientation(GtkWidget *widget, const char *name, GVariant *param) {
  JitscopeCompareView *self = JITSCOPE_COMPARE_VIEW(widget);
  GtkOrientable *box = GTK_ORIENTABLE(self->columns_box);
  self->orientation_fixed = TRUE;
  gtk_orientable_set_orientation(box,
                                 gtk_orientable_get_orientation(box) == GTK_ORIENTATION_VERTICAL
                                     ? GTK_ORIENTATION_HORIZONTAL
                                     : GTK_ORIENTATION_VERTICAL);
  jitscope_compare_view_fit_all(self);
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
  gtk_widget_class_install_action(widget_class, "compare.next", NULL, action_next);
  gtk_widget_class_install_action(widget_class, "compare.prev", NULL, action_prev);
  gtk_widget_class_install_action(widget_class, "compare.next-different", NULL,
                                  action_next_different);
  gtk_widget_class_install_action(widget_class, "compare.fit-all", NULL, action_fit);
  gtk_widget_class_install_action(widget_class, "compare.toggle-orientation", NULL,
                                  action_orientation);
  gtk_widget_class_add_binding_action(widget_class, GDK_KEY_n, 0, "compare.next", NULL);
  gtk_widget_class_add_binding_action(widget_class, GDK_KEY_p, 0, "compare.prev", NULL);
  gtk_widget_class_add_binding_action(widget_class, GDK_KEY_N, GDK_SHIFT_MASK,
                                      "compare.next-different", NULL);
  gtk_widget_class_add_binding_action(widget_class, GDK_KEY_o, 0, "compare.toggle-orientation",
                                      NULL);
}

static void jitscope_compare_view_init(JitscopeCompareView *self) {
  gtk_widget_init_template(GTK_WIDGET(self));
  self->columns = g_ptr_array_new_with_free_func((GDestroyNotify)column_free);
  self->steps = g_ptr_array_new_with_free_func(g_free);
}
