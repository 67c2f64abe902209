/* The inspector (contract in jitscope-inspector.h). */
#include "jitscope-inspector.h"

#include <string.h>

#include "cuda/cuda_loader.h"
#include "graphviz_dot.h"

typedef struct {
  char *heading;
  char *body;
  gboolean error;
} Section;

struct _JitscopeInspector {
  GtkBox parent_instance;
  GtkLabel *title;
  GtkWidget *busy_label; /* static, not a spinner: see jitscope_inputs_pane_set_progress */
  GtkTextView *view;
  GPtrArray *sections; /* of Section* */
  char *text;          /* what get_text returns */
  guint serial;        /* of the node shown: late results for an older node are dropped */
  GCancellable *cancellable;
  int busy;
  char *scroll_heading; /* the section kept at the top (scroll_to_section), or NULL */
};

G_DEFINE_FINAL_TYPE(JitscopeInspector, jitscope_inspector, GTK_TYPE_BOX)

static void section_free(Section *s) {
  g_free(s->heading);
  g_free(s->body);
  g_free(s);
}

static void add_section(JitscopeInspector *self, const char *heading, const char *body,
                        gboolean error) {
  Section *s = g_new0(Section, 1);
  s->heading = g_strdup(heading);
  s->body = g_strdup(body ? body : "");
  s->error = error;
  g_ptr_array_add(self->sections, s);
}

static void replace_section(JitscopeInspector *self, const char *heading, const char *body,
                            gboolean error) {
  for (guint i = 0; i < self->sections->len; i++) {
    Section *s = g_ptr_array_index(self->sections, i);
    if (g_strcmp0(s->heading, heading) == 0) {
      g_free(s->body);
      s->body = g_strdup(body ? body : "");
      s->error = error;
      return;
    }
  }
  add_section(self, heading, body, error);
}

static void render(JitscopeInspector *self) {
  GtkTextBuffer *buffer = gtk_text_view_get_buffer(self->view);
  gtk_text_buffer_set_text(buffer, "", 0);
  GtkTextIter end;
  GString *all = g_string_new(NULL);
  for (guint i = 0; i < self->sections->len; i++) {
    Section *s = g_ptr_array_index(self->sections, i);
    gtk_text_buffer_get_end_iter(buffer, &end);
    if (s->heading) {
      char *heading = g_strdup_printf("%s%s\n", i ? "\n" : "", s->heading);
      gtk_text_buffer_insert_with_tags_by_name(buffer, &end, heading, -1, "heading", NULL);
      g_string_append(all, heading);
      g_free(heading);
      gtk_text_buffer_get_end_iter(buffer, &end);
    }
    gtk_text_buffer_insert_with_tags_by_name(buffer, &end, s->body, -1, s->error ? "error" : "body",
                                             NULL);
    g_string_append(all, s->body);
    if (*s->body && s->body[strlen(s->body) - 1] != '\n') {
      gtk_text_buffer_get_end_iter(buffer, &end);
      gtk_text_buffer_insert(buffer, &end, "\n", 1);
      g_string_append_c(all, '\n');
    }
  }
  g_free(self->text);
  self->text = g_string_free(all, FALSE);
  GtkTextIter start, found;
  gtk_text_buffer_get_start_iter(buffer, &start);
  if (self->scroll_heading &&
      gtk_text_iter_forward_search(&start, self->scroll_heading, GTK_TEXT_SEARCH_TEXT_ONLY, &found,
                                   NULL, NULL)) {
    /* kept (not deleted at once): the view scrolls to it once its lines are laid out */
    GtkTextMark *mark = gtk_text_buffer_get_mark(buffer, "section");
    if (mark)
      gtk_text_buffer_move_mark(buffer, mark, &found);
    else
      mark = gtk_text_buffer_create_mark(buffer, "section", &found, TRUE);
    gtk_text_view_scroll_to_mark(self->view, mark, 0, TRUE, 0, 0);
  }
}

static void reset(JitscopeInspector *self, const char *title) {
  g_cancellable_cancel(self->cancellable);
  g_clear_object(&self->cancellable);
  self->serial++;
  g_clear_pointer(&self->scroll_heading, g_free);
  g_ptr_array_set_size(self->sections, 0);
  gtk_label_set_text(self->title, title);
}

void jitscope_inspector_scroll_to_section(JitscopeInspector *self, const char *heading) {
  g_free(self->scroll_heading);
  self->scroll_heading = g_strdup(heading);
  render(self);
}

void jitscope_inspector_show_text(JitscopeInspector *self, const char *title, const char *text) {
  reset(self, title);
  add_section(self, NULL, text, FALSE);
  render(self);
}

/* ---- values and kernels, off the main thread ---- */

typedef struct {
  JitscopeInspector *self; /* referenced */
  guint serial;
  IrGraph *graph;       /* a copy of the stage's graph */
  const IrNode *node;   /* in the copy */
  const IrValue *value; /* in the copy, when a value (an edge) is shown */
  GArray *inputs;       /* referenced values */
  gboolean group;
  char *values, *values_error;
  CudaKernelReport *kernel;
} Job;

static void job_free(Job *job) {
  g_object_unref(job->self);
  ir_graph_free(job->graph);
  app_workspace_values_free(job->inputs);
  g_free(job->values);
  g_free(job->values_error);
  cuda_kernel_report_free(job->kernel);
  g_free(job);
}

static void job_run(GTask *task, gpointer source, gpointer data, GCancellable *cancellable) {
  Job *job = data;
  GError *error = NULL;
  if (job->value || job->node) {
    job->values = job->value
                      ? app_workspace_value_values(job->graph, job->value, job->inputs, &error)
                      : app_workspace_node_values(job->graph, job->node, job->inputs, &error);
    if (!job->values)
      job->values_error = g_strdup(error->message);
    g_clear_error(&error);
    if (job->node && job->group && !g_cancellable_is_cancelled(cancellable))
      job->kernel = app_workspace_group_kernel(job->node, true);
  }
  g_task_return_boolean(task, TRUE);
}

static char *kernel_text(const CudaKernelReport *k) {
  GString *out = g_string_new(NULL);
  if (k->error) {
    g_string_append_printf(out, "no kernel generated: %s\n", k->error);
    return g_string_free(out, FALSE);
  }
  g_string_append_printf(out, "kernel %s\n", k->kernel);
  if (k->attempted) {
    g_string_append_printf(out, "nvrtc (%s): %s in %.1f ms, PTX %" G_GSIZE_FORMAT " bytes\n",
                           k->arch ? k->arch : "?", k->compiled ? "compiled" : "REJECTED", k->ms,
                           k->ptx_bytes);
    g_string_append_printf(out, "nvrtc log: %s\n", *k->log ? k->log : "(empty)");
  } else {
    g_string_append_printf(out, "%s\n", k->log);
    char *why = cuda_status_unavailable_reason(cuda_loader_get());
    if (why)
      g_string_append_printf(out, "CUDA: %s\n", why);
    g_free(why);
  }
  g_string_append_printf(out, "\n%s", k->source);
  return g_string_free(out, FALSE);
}

static void job_done(GObject *source, GAsyncResult *result, gpointer data) {
  Job *job = g_task_get_task_data(G_TASK(result));
  JitscopeInspector *self = job->self;
  if (--self->busy == 0)
    gtk_widget_set_visible(self->busy_label, FALSE);
  if (job->serial != self->serial)
    return;
  replace_section(self, "VALUES AFTER THE RUN (the stage re-run on the plan's recorded inputs)",
                  job->values ? job->values : job->values_error, job->values == NULL);
  if (job->kernel) {
    char *text = kernel_text(job->kernel);
    replace_section(self, "GENERATED CUDA KERNEL", text, job->kernel->error != NULL);
    g_free(text);
  }
  render(self);
}

static void start_values(JitscopeInspector *self, const AppWorkspacePlan *plan, guint stage,
                         const IrNode *node, const char *value_id, gboolean group);

void jitscope_inspector_show_node(JitscopeInspector *self, const AppWorkspacePlan *plan,
                                  guint stage, const IrNode *node, const char *id) {
  char *title = g_strdup_printf("%s · origin %" G_GUINT64_FORMAT " · %s", ir_kind_name(node->kind),
                                node->origin, id);
  reset(self, title);
  g_free(title);
  char *describe = app_workspace_describe_node(node, id);
  add_section(self, "NODE", describe, FALSE);
  g_free(describe);
  char *history = app_workspace_origin_history(plan, node->origin);
  add_section(self, "ORIGIN HISTORY (stages of this plan)", history, FALSE);
  g_free(history);
  gboolean group = node->kind == IR_PRIM_FUSION_GROUP;
  if (group) {
    const AppWorkspaceFuserRecord *r = app_workspace_fuser_record(plan, node->origin);
    char *ran = r ? g_strdup_printf("%s ran on %s: %u run%s, last %.3f ms%s%s\n", r->group_name,
                                    r->backend, r->runs, r->runs == 1 ? "" : "s", r->last_ms,
                                    r->fallback_reason ? "\nfell back: " : "",
                                    r->fallback_reason ? r->fallback_reason : "")
                  : g_strdup("this group did not run in the plan's final graph (an earlier "
                             "stage's group, or the run failed)\n");
    add_section(self, "FUSER BACKEND", ran, FALSE);
    g_free(ran);
    add_section(self, "GENERATED CUDA KERNEL", "generating…", FALSE);
  }
  start_values(self, plan, stage, node, NULL, group);
}

/* The VALUES section, then its values computed off the main thread: of `node`'s outputs, or
 * of the value with canvas id `value_id`. */
static void start_values(JitscopeInspector *self, const AppWorkspacePlan *plan, guint stage,
                         const IrNode *node, const char *value_id, gboolean group) {
  add_section(self, "VALUES AFTER THE RUN (the stage re-run on the plan's recorded inputs)",
              plan->last_inputs ? "computing…" : "the plan did not run", FALSE);
  render(self);
  const AppWorkspaceStage *st =
      stage < plan->stages->len ? g_ptr_array_index(plan->stages, stage) : NULL;
  if (!st || !st->graph)
    return;
  Job *job = g_new0(Job, 1);
  job->self = g_object_ref(self);
  job->serial = self->serial;
  job->graph = ir_graph_copy(st->graph);
  if (node)
    job->node = app_workspace_same_node(job->graph, st->graph, node);
  else
    job->value = app_graphviz_dot_find_value(job->graph, value_id);
  job->inputs = app_workspace_values_copy(plan->last_inputs);
  job->group = group;
  if (!job->node && !job->value) {
    job_free(job);
    replace_section(self, "VALUES AFTER THE RUN (the stage re-run on the plan's recorded inputs)",
                    "not found in the stage's graph", TRUE);
    render(self);
    return;
  }
  self->cancellable = g_cancellable_new();
  if (self->busy++ == 0)
    gtk_widget_set_visible(self->busy_label, TRUE);
  GTask *task = g_task_new(NULL, self->cancellable, job_done, NULL);
  g_task_set_task_data(task, job, (GDestroyNotify)job_free);
  g_task_run_in_thread(task, job_run);
  g_object_unref(task);
}

void jitscope_inspector_show_value(JitscopeInspector *self, const AppWorkspacePlan *plan,
                                   guint stage, const IrValue *value, const char *id) {
  char buf[32], *type = ir_type_to_string(value->type);
  char *title = g_strdup_printf("%%%s : %s · value", ir_value_display_name(value, buf), type);
  reset(self, title);
  g_free(title);
  g_free(type);
  char *describe = app_workspace_describe_value(value, id);
  add_section(self, "VALUE", describe, FALSE);
  g_free(describe);
  const IrNode *producer = value->node;
  if (producer->kind != IR_PRIM_PARAM) {
    char *history = app_workspace_origin_history(plan, producer->origin);
    add_section(self, "PRODUCER'S ORIGIN HISTORY (stages of this plan)", history, FALSE);
    g_free(history);
  }
  start_values(self, plan, stage, NULL, id, FALSE);
}

gboolean jitscope_inspector_show_item(JitscopeInspector *self, const AppWorkspacePlan *plan,
                                      guint stage, const char *id) {
  const AppWorkspaceStage *st =
      plan && stage < plan->stages->len ? g_ptr_array_index(plan->stages, stage) : NULL;
  if (!st || !st->graph || !id || !*id)
    return FALSE;
  const IrNode *node = app_graphviz_dot_find_node(st->graph, id);
  const IrValue *value = node ? NULL : app_graphviz_dot_find_value(st->graph, id);
  if (node)
    jitscope_inspector_show_node(self, plan, stage, node, id);
  else if (value)
    jitscope_inspector_show_value(self, plan, stage, value, id);
  else
    jitscope_inspector_show_text(self, id,
                                 strstr(id, "->") ? "An edge that stands for no value (from an "
                                                    "owner node to its block's or body's inputs)."
                                                  : "A graph input, output or block boundary: "
                                                    "no node here.");
  return TRUE;
}

const char *jitscope_inspector_get_text(JitscopeInspector *self) {
  return self->text ? self->text : "";
}

gboolean jitscope_inspector_is_busy(JitscopeInspector *self) {
  return self->busy > 0;
}

static void action_copy(GtkWidget *widget, const char *name, GVariant *param) {
  JitscopeInspector *self = JITSCOPE_INSPECTOR(widget);
  char *text =
      g_strdup_printf("%s\n%s", gtk_label_get_text(self->title), jitscope_inspector_get_text(self));
  gdk_clipboard_set_text(gtk_widget_get_clipboard(widget), text);
  g_free(text);
}

static void jitscope_inspector_dispose(GObject *object) {
  JitscopeInspector *self = JITSCOPE_INSPECTOR(object);
  g_cancellable_cancel(self->cancellable);
  g_clear_object(&self->cancellable);
  g_clear_pointer(&self->sections, g_ptr_array_unref);
  g_clear_pointer(&self->text, g_free);
  g_clear_pointer(&self->scroll_heading, g_free);
  gtk_widget_dispose_template(GTK_WIDGET(self), JITSCOPE_TYPE_INSPECTOR);
  G_OBJECT_CLASS(jitscope_inspector_parent_class)->dispose(object);
}

static void jitscope_inspector_class_init(JitscopeInspectorClass *klass) {
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);
  G_OBJECT_CLASS(klass)->dispose = jitscope_inspector_dispose;
  gtk_widget_class_set_template_from_resource(
      widget_class, "/io/github/jitscope/Jitscope/ui/jitscope-inspector.ui");
  gtk_widget_class_bind_template_child(widget_class, JitscopeInspector, title);
  gtk_widget_class_bind_template_child(widget_class, JitscopeInspector, busy_label);
  gtk_widget_class_bind_template_child(widget_class, JitscopeInspector, view);
  gtk_widget_class_install_action(widget_class, "inspector.copy", NULL, action_copy);
  gtk_widget_class_add_binding_action(widget_class, GDK_KEY_c, GDK_CONTROL_MASK | GDK_SHIFT_MASK,
                                      "inspector.copy", NULL);
}

static void jitscope_inspector_init(JitscopeInspector *self) {
  gtk_widget_init_template(GTK_WIDGET(self));
  self->sections = g_ptr_array_new_with_free_func((GDestroyNotify)section_free);
  GtkTextBuffer *buffer = gtk_text_view_get_buffer(self->view);
  gtk_text_buffer_create_tag(buffer, "heading", "weight", PANGO_WEIGHT_BOLD, "family", "Sans",
                             "scale", 0.9, "foreground", "#3584e4", NULL);
  gtk_text_buffer_create_tag(buffer, "body", NULL);
  gtk_text_buffer_create_tag(buffer, "error", "foreground", "#c01c28", NULL);
  jitscope_inspector_show_text(self, "Inspector", "Run the program, then click a node.");
}
