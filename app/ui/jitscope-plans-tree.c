/* The plans tree (contract in jitscope-plans-tree.h). */
#include "jitscope-plans-tree.h"
#include "jitscope-plans-tree-private.h"

#include <string.h>

/* ---- one row of the tree (a plain GObject, private to the tree) ---- */

#define PLAN_ROW_TYPE (plan_row_get_type())
G_DECLARE_FINAL_TYPE(PlanRow, plan_row, PLAN, ROW, GObject)

struct _PlanRow {
  GObject parent_instance;
  JitscopePlanRowKind kind;
  char *label, *detail, *tooltip;
  int plan, stage;
  guint64 origin;
  GListStore *children; /* of PlanRow, or NULL for a leaf */
};

G_DEFINE_FINAL_TYPE(PlanRow, plan_row, G_TYPE_OBJECT)

static void plan_row_finalize(GObject *object) {
  PlanRow *row = PLAN_ROW(object);
  g_free(row->label);
  g_free(row->detail);
  g_free(row->tooltip);
  g_clear_object(&row->children);
  G_OBJECT_CLASS(plan_row_parent_class)->finalize(object);
}

static void plan_row_class_init(PlanRowClass *klass) {
  G_OBJECT_CLASS(klass)->finalize = plan_row_finalize;
}

static void plan_row_init(PlanRow *row) {
  row->plan = row->stage = -1;
}

static PlanRow *plan_row_add(GListStore *store, JitscopePlanRowKind kind, const char *label,
                             const char *detail, int plan, int stage) {
  PlanRow *row = g_object_new(PLAN_ROW_TYPE, NULL);
  row->kind = kind;
  row->label = g_strdup(label);
  row->detail = g_strdup(detail ? detail : "");
  row->tooltip = g_strdup(label);
  row->plan = plan;
  row->stage = stage;
  g_list_store_append(store, row);
  g_object_unref(row); /* the store holds it */
  return row;
}

static GListStore *children_of(PlanRow *row) {
  if (!row->children)
    row->children = g_list_store_new(PLAN_ROW_TYPE);
  return row->children;
}

/* ---- the widget ---- */

struct _JitscopePlansTree {
  GtkBox parent_instance;
  GtkLabel *heading;
  GtkListView *list;
  GListStore *roots;
  GtkTreeListModel *tree;
  GtkSingleSelection *selection;
  gboolean quiet; /* selection changed by the program: no signal */
};

G_DEFINE_FINAL_TYPE(JitscopePlansTree, jitscope_plans_tree, GTK_TYPE_BOX)

enum { SIGNAL_ROW_ACTIVATED, N_SIGNALS };
static guint signals[N_SIGNALS];

static GListModel *create_children(gpointer item, gpointer data) {
  PlanRow *row = item;
  return row->children ? g_object_ref(G_LIST_MODEL(row->children)) : NULL;
}

static int plan_index(const AppWorkspaceRun *run, const AppWorkspacePlan *plan) {
  for (guint i = 0; i < run->plans->len; i++)
    if (g_ptr_array_index(run->plans, i) == plan)
      return (int)i;
  return -1;
}

static guint changed_stages(const AppWorkspacePlan *plan) {
  guint n = 0;
  for (guint s = 0; s < plan->stages->len; s++)
    n += ((AppWorkspaceStage *)g_ptr_array_index(plan->stages, s))->changed;
  return n;
}

static int stage_named(const AppWorkspacePlan *plan, const char *name, gboolean prefix) {
  for (guint s = 0; s < plan->stages->len; s++) {
    const char *stage = ((AppWorkspaceStage *)g_ptr_array_index(plan->stages, s))->name;
    if (g_str_equal(stage, name) || (prefix && g_str_has_prefix(stage, name)))
      return (int)s;
  }
  return -1;
}

/* A fusion group row and its kernel row. */
static void add_group(GListStore *store, const AppWorkspacePlan *plan, int index,
                      const AppWorkspaceGroup *group) {
  const AppWorkspaceFuserRecord *record = app_workspace_fuser_record(plan, group->origin);
  char *detail = record ? g_strdup_printf("%u nodes · ran on %s, %.3f ms", group->n_nodes,
                                          record->backend, record->last_ms)
                        : g_strdup_printf("%u nodes · did not run", group->n_nodes);
  const char *base = strrchr(group->name, '/');
  PlanRow *row = plan_row_add(store, JITSCOPE_PLAN_ROW_GROUP, base ? base + 1 : group->name, detail,
                              index, MAX(group->first_stage, 0));
  g_free(detail);
  row->origin = group->origin;
  g_free(row->tooltip);
  row->tooltip = g_strdup_printf("%s: created by stage %d; selects the group on the canvas",
                                 group->name, group->first_stage + 1);
  const AppWorkspaceStage *last = g_ptr_array_index(plan->stages, plan->stages->len - 1);
  const IrNode *node = app_workspace_find_origin(last->graph, group->origin);
  CudaKernelReport *kernel = node ? app_workspace_group_kernel(node, false) : NULL;
  char *label =
      g_strdup_printf("kernel %s", kernel && kernel->kernel ? kernel->kernel : "(not generated)");
  PlanRow *k =
      plan_row_add(children_of(row), JITSCOPE_PLAN_ROW_KERNEL, label,
                   kernel && kernel->error ? kernel->error : "CUDA source in the inspector", index,
                   (int)plan->stages->len - 1);
  k->origin = group->origin;
  g_free(label);
  cuda_kernel_report_free(kernel);
}

static void add_plan(GListStore *store, const AppWorkspaceRun *run, const AppWorkspacePlan *plan,
                     gboolean cached) {
  int index = plan_index(run, plan);
  char *label = g_strdup_printf("%s %s", plan->kind == EXEC_PLAN_FORWARD ? "forward" : "backward",
                                plan->graph_name);
  char *detail =
      g_strdup_printf("%u stages, %u changed%s%s", plan->stages->len, changed_stages(plan),
                      plan->fusion_groups->len ? " · fused" : "", cached ? " · cached plan" : "");
  PlanRow *row = plan_row_add(store, JITSCOPE_PLAN_ROW_PLAN, label, detail, index, 0);
  g_free(row->tooltip);
  row->tooltip = g_strdup(plan->title);
  g_free(label);
  g_free(detail);
  if (plan->stages->len == 0)
    return;
  for (guint d = 0; d < plan->diff_groups->len; d++) {
    const char *name = g_ptr_array_index(plan->diff_groups, d);
    int stage = stage_named(plan, name, FALSE);
    char *prefix = g_strdup_printf("%s.", name);
    int first_inner = stage_named(plan, prefix, TRUE);
    int n_inner = 0;
    for (guint s = 0; s < plan->stages->len; s++)
      n_inner +=
          g_str_has_prefix(((AppWorkspaceStage *)g_ptr_array_index(plan->stages, s))->name, prefix);
    char *title = g_strdup_printf("f: %s", name);
    char *info = g_strdup_printf("stages %d–%d", (stage >= 0 ? stage : first_inner) + 1,
                                 first_inner + n_inner);
    PlanRow *diff = plan_row_add(children_of(row), JITSCOPE_PLAN_ROW_DIFF, title, info, index,
                                 stage >= 0 ? stage : MAX(first_inner, 0));
    g_free(title);
    g_free(info);
    char *inner = g_strdup_printf("%s/", name);
    for (guint g = 0; g < plan->fusion_groups->len; g++) {
      const AppWorkspaceGroup *group = g_ptr_array_index(plan->fusion_groups, g);
      if (g_str_has_prefix(group->name, inner))
        add_group(children_of(diff), plan, index, group);
    }
    g_free(inner);
    g_free(prefix);
  }
  for (guint g = 0; g < plan->fusion_groups->len; g++) {
    const AppWorkspaceGroup *group = g_ptr_array_index(plan->fusion_groups, g);
    if (!strchr(group->name, '/'))
      add_group(children_of(row), plan, index, group);
  }
}

void jitscope_plans_tree_set_run(JitscopePlansTree *self, const AppWorkspaceRun *run) {
  self->quiet = TRUE;
  g_list_store_remove_all(self->roots);
  if (!run) {
    gtk_label_set_text(self->heading, "Plans");
    self->quiet = FALSE;
    return;
  }
  /* Built apart and added at once: the tree model asks for a row's children when the row
   * appears, so every row must have them by then. */
  GListStore *roots = g_list_store_new(PLAN_ROW_TYPE);
  GHashTable *listed = g_hash_table_new(g_direct_hash, g_direct_equal);
  for (guint i = 0; i < run->specs->len; i++) {
    const AppWorkspaceSpecResult *r = g_ptr_array_index(run->specs, i);
    char *label = g_strdup_printf("Spec %u: %s", i + 1, r->line);
    char *detail = r->error ? g_strdup("failed") : g_strdup_printf("%.1f ms", r->ms);
    PlanRow *spec = plan_row_add(roots, JITSCOPE_PLAN_ROW_SPEC, label, detail, -1, -1);
    g_free(label);
    g_free(detail);
    if (r->error)
      plan_row_add(children_of(spec), JITSCOPE_PLAN_ROW_ERROR, r->error, NULL, -1, -1);
    if (r->forward) {
      add_plan(children_of(spec), run, r->forward, r->forward_cached);
      g_hash_table_add(listed, r->forward);
    }
    for (guint b = 0; b < r->backward->len; b++) {
      add_plan(children_of(spec), run, g_ptr_array_index(r->backward, b), FALSE);
      g_hash_table_add(listed, g_ptr_array_index(r->backward, b));
    }
    if (!spec->children)
      plan_row_add(children_of(spec), JITSCOPE_PLAN_ROW_ERROR, "no plan", NULL, -1, -1);
  }
  /* A plan no spec lists (compiled by a spec that failed later) still gets a row. */
  for (guint p = 0; p < run->plans->len; p++)
    if (!g_hash_table_contains(listed, g_ptr_array_index(run->plans, p)))
      add_plan(roots, run, g_ptr_array_index(run->plans, p), FALSE);
  g_hash_table_destroy(listed);
  guint n = g_list_model_get_n_items(G_LIST_MODEL(roots));
  gpointer *items = g_new0(gpointer, n + 1);
  for (guint i = 0; i < n; i++)
    items[i] = g_list_model_get_item(G_LIST_MODEL(roots), i);
  g_list_store_splice(self->roots, 0, 0, items, n);
  for (guint i = 0; i < n; i++)
    g_object_unref(items[i]);
  g_free(items);
  g_object_unref(roots);
  char *heading = g_strdup_printf("Plans: %u spec%s, %u plans%s", run->specs->len,
                                  run->specs->len == 1 ? "" : "s", run->plans->len,
                                  run->n_failed ? ", some failed" : "");
  gtk_label_set_text(self->heading, heading);
  g_free(heading);
  gtk_single_selection_set_selected(self->selection, GTK_INVALID_LIST_POSITION);
  self->quiet = FALSE;
}

static PlanRow *row_at(JitscopePlansTree *self, guint index) {
  GtkTreeListRow *tree_row = g_list_model_get_item(G_LIST_MODEL(self->tree), index);
  if (!tree_row)
    return NULL;
  PlanRow *row = gtk_tree_list_row_get_item(tree_row);
  g_object_unref(tree_row);
  if (row)
    g_object_unref(row); /* the store keeps it alive */
  return row;
}

guint jitscope_plans_tree_get_n_rows(JitscopePlansTree *self) {
  return g_list_model_get_n_items(G_LIST_MODEL(self->tree));
}

gboolean jitscope_plans_tree_get_row(JitscopePlansTree *self, guint index,
                                     JitscopePlanRowKind *kind, int *plan, int *stage,
                                     guint64 *origin, const char **label) {
  PlanRow *row = row_at(self, index);
  if (!row)
    return FALSE;
  if (kind)
    *kind = row->kind;
  if (plan)
    *plan = row->plan;
  if (stage)
    *stage = row->stage;
  if (origin)
    *origin = row->origin;
  if (label)
    *label = row->label;
  return TRUE;
}

void jitscope_plans_tree_select_row(JitscopePlansTree *self, guint index) {
  if (index < jitscope_plans_tree_get_n_rows(self))
    gtk_single_selection_set_selected(self->selection, index);
}

void jitscope_plans_tree_show_plan(JitscopePlansTree *self, int plan) {
  guint n = jitscope_plans_tree_get_n_rows(self);
  guint current = gtk_single_selection_get_selected(self->selection);
  PlanRow *row = current < n ? row_at(self, current) : NULL;
  if (row && row->plan == plan)
    return;
  for (guint i = 0; i < n; i++) {
    row = row_at(self, i);
    if (row->kind == JITSCOPE_PLAN_ROW_PLAN && row->plan == plan) {
      self->quiet = TRUE;
      gtk_single_selection_set_selected(self->selection, i);
      self->quiet = FALSE;
      return;
    }
  }
}

int jitscope_plans_tree_get_selected_row(JitscopePlansTree *self) {
  guint selected = gtk_single_selection_get_selected(self->selection);
  return selected == GTK_INVALID_LIST_POSITION ? -1 : (int)selected;
}

static void on_selected(GtkSingleSelection *selection, GParamSpec *pspec, JitscopePlansTree *self) {
  if (self->quiet)
    return;
  guint index = gtk_single_selection_get_selected(selection);
  PlanRow *row = index == GTK_INVALID_LIST_POSITION ? NULL : row_at(self, index);
  if (row && row->plan >= 0)
    g_signal_emit(self, signals[SIGNAL_ROW_ACTIVATED], 0, row->plan, row->stage, row->origin,
                  (int)row->kind);
}

/* ---- rows on screen ---- */

static void setup_row(GtkSignalListItemFactory *factory, GtkListItem *item, gpointer data) {
  GtkWidget *expander = gtk_tree_expander_new();
  GtkWidget *box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *label = gtk_label_new(NULL);
  gtk_label_set_xalign(GTK_LABEL(label), 0);
  gtk_label_set_ellipsize(GTK_LABEL(label), PANGO_ELLIPSIZE_END);
  gtk_widget_set_hexpand(label, TRUE);
  GtkWidget *detail = gtk_label_new(NULL);
  gtk_label_set_ellipsize(GTK_LABEL(detail), PANGO_ELLIPSIZE_END);
  gtk_label_set_max_width_chars(GTK_LABEL(detail), 16);
  gtk_label_set_width_chars(GTK_LABEL(label), 8);
  gtk_widget_add_css_class(detail, "dim-label");
  gtk_widget_add_css_class(detail, "caption");
  gtk_box_append(GTK_BOX(box), label);
  gtk_box_append(GTK_BOX(box), detail);
  gtk_tree_expander_set_child(GTK_TREE_EXPANDER(expander), box);
  gtk_list_item_set_child(item, expander);
}

static const char *const row_classes[] = {"row-spec", "row-error", "row-plan",
                                          "row-diff", "row-group", "row-kernel"};

static void bind_row(GtkSignalListItemFactory *factory, GtkListItem *item, gpointer data) {
  GtkTreeListRow *tree_row = gtk_list_item_get_item(item);
  PlanRow *row = gtk_tree_list_row_get_item(tree_row);
  GtkWidget *expander = gtk_list_item_get_child(item);
  gtk_tree_expander_set_list_row(GTK_TREE_EXPANDER(expander), tree_row);
  GtkWidget *box = gtk_tree_expander_get_child(GTK_TREE_EXPANDER(expander));
  GtkWidget *label = gtk_widget_get_first_child(box);
  GtkWidget *detail = gtk_widget_get_last_child(box);
  gtk_label_set_text(GTK_LABEL(label), row->label);
  gtk_label_set_text(GTK_LABEL(detail), row->detail);
  gtk_widget_set_tooltip_text(box, row->tooltip);
  for (guint i = 0; i < G_N_ELEMENTS(row_classes); i++)
    gtk_widget_remove_css_class(box, row_classes[i]);
  gtk_widget_add_css_class(box, row_classes[row->kind]);
  gtk_list_item_set_selectable(item, row->plan >= 0);
  g_object_unref(row);
}

static void unbind_row(GtkSignalListItemFactory *factory, GtkListItem *item, gpointer data) {
  GtkWidget *expander = gtk_list_item_get_child(item);
  gtk_tree_expander_set_list_row(GTK_TREE_EXPANDER(expander), NULL);
}

/* ---- actions ---- */

static void step_rows(JitscopePlansTree *self, int delta) {
  guint n = jitscope_plans_tree_get_n_rows(self);
  int i = jitscope_plans_tree_get_selected_row(self);
  for (i += delta; i >= 0 && i < (int)n; i += delta)
    if (row_at(self, (guint)i)->plan >= 0) {
      jitscope_plans_tree_select_row(self, (guint)i);
      return;
    }
}

static void action_next_row(GtkWidget *widget, const char *name, GVariant *param) {
  step_rows(JITSCOPE_PLANS_TREE(widget), 1);
}

static void action_prev_row(GtkWidget *widget, const char *name, GVariant *param) {
  step_rows(JITSCOPE_PLANS_TREE(widget), -1);
}

static void action_select_row(GtkWidget *widget, const char *name, GVariant *param) {
  jitscope_plans_tree_select_row(JITSCOPE_PLANS_TREE(widget), g_variant_get_uint32(param));
}

/* Expands every row, or collapses every row below the plans (the plans stay open). */
static void set_all_expanded(JitscopePlansTree *self, gboolean expand) {
  self->quiet = TRUE;
  /* Rows appear and vanish while iterating: walk by index and re-read the count. */
  for (guint i = 0; i < g_list_model_get_n_items(G_LIST_MODEL(self->tree)); i++) {
    GtkTreeListRow *row = g_list_model_get_item(G_LIST_MODEL(self->tree), i);
    if (gtk_tree_list_row_is_expandable(row) &&
        gtk_tree_list_row_get_depth(row) >= (expand ? 0u : 1u))
      gtk_tree_list_row_set_expanded(row, expand);
    g_object_unref(row);
  }
  self->quiet = FALSE;
}

static void action_expand_all(GtkWidget *widget, const char *name, GVariant *param) {
  set_all_expanded(JITSCOPE_PLANS_TREE(widget), TRUE);
}

static void action_collapse_all(GtkWidget *widget, const char *name, GVariant *param) {
  set_all_expanded(JITSCOPE_PLANS_TREE(widget), FALSE);
}

static void jitscope_plans_tree_dispose(GObject *object) {
  JitscopePlansTree *self = JITSCOPE_PLANS_TREE(object);
  if (self->list)
    gtk_list_view_set_model(self->list, NULL);
  g_clear_object(&self->selection);
  g_clear_object(&self->tree);
  g_clear_object(&self->roots);
  gtk_widget_dispose_template(GTK_WIDGET(self), JITSCOPE_TYPE_PLANS_TREE);
  G_OBJECT_CLASS(jitscope_plans_tree_parent_class)->dispose(object);
}

static void jitscope_plans_tree_class_init(JitscopePlansTreeClass *klass) {
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);
  G_OBJECT_CLASS(klass)->dispose = jitscope_plans_tree_dispose;
  gtk_widget_class_set_template_from_resource(
      widget_class, "/io/github/jitscope/Jitscope/ui/jitscope-plans-tree.ui");
  gtk_widget_class_bind_template_child(widget_class, JitscopePlansTree, heading);
  gtk_widget_class_bind_template_child(widget_class, JitscopePlansTree, list);
  signals[SIGNAL_ROW_ACTIVATED] =
      g_signal_new("row-activated", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                   NULL, G_TYPE_NONE, 4, G_TYPE_INT, G_TYPE_INT, G_TYPE_UINT64, G_TYPE_INT);
  gtk_widget_class_install_action(widget_class, "plans.next-row", NULL, action_next_row);
  gtk_widget_class_install_action(widget_class, "plans.prev-row", NULL, action_prev_row);
  gtk_widget_class_install_action(widget_class, "plans.select-row", "u", action_select_row);
  gtk_widget_class_install_action(widget_class, "plans.expand-all", NULL, action_expand_all);
  gtk_widget_class_install_action(widget_class, "plans.collapse-all", NULL, action_collapse_all);
  gtk_widget_class_add_binding_action(widget_class, GDK_KEY_j, 0, "plans.next-row", NULL);
  gtk_widget_class_add_binding_action(widget_class, GDK_KEY_k, 0, "plans.prev-row", NULL);
  gtk_widget_class_add_binding_action(widget_class, GDK_KEY_asterisk, 0, "plans.expand-all", NULL);
  gtk_widget_class_add_binding_action(widget_class, GDK_KEY_slash, 0, "plans.collapse-all", NULL);
}

static void jitscope_plans_tree_init(JitscopePlansTree *self) {
  gtk_widget_init_template(GTK_WIDGET(self));
  self->roots = g_list_store_new(PLAN_ROW_TYPE);
  self->tree = gtk_tree_list_model_new(G_LIST_MODEL(g_object_ref(self->roots)), FALSE, TRUE,
                                       create_children, NULL, NULL);
  self->selection = gtk_single_selection_new(G_LIST_MODEL(g_object_ref(self->tree)));
  gtk_single_selection_set_autoselect(self->selection, FALSE);
  gtk_single_selection_set_can_unselect(self->selection, TRUE);
  g_signal_connect(self->selection, "notify::selected", G_CALLBACK(on_selected), self);
  GtkListItemFactory *factory = gtk_signal_list_item_factory_new();
  g_signal_connect(factory, "setup", G_CALLBACK(setup_row), NULL);
  g_signal_connect(factory, "bind", G_CALLBACK(bind_row), NULL);
  g_signal_connect(factory, "unbind", G_CALLBACK(unbind_row), NULL);
  gtk_list_view_set_factory(self->list, factory);
  g_object_unref(factory);
  gtk_list_view_set_model(self->list, GTK_SELECTION_MODEL(self->selection));
}
