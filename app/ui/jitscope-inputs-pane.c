/* The inputs pane (contract in jitscope-inputs-pane.h). */
#include "jitscope-inputs-pane.h"

struct _JitscopeInputsPane {
  GtkBox parent_instance;
  GtkListBox *specs_list;
  GtkSpinButton *seed_spin;
  GtkProgressBar *progress;
  GtkLabel *status;
};

G_DEFINE_FINAL_TYPE(JitscopeInputsPane, jitscope_inputs_pane, GTK_TYPE_BOX)

/* Enter in a spec line runs. */
static void on_entry_activate(GtkEntry *entry, gpointer data) {
  gtk_widget_activate_action(GTK_WIDGET(entry), "win.run", NULL);
}

static void add_row(JitscopeInputsPane *self, const char *text) {
  GtkWidget *box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 4);
  GtkWidget *entry = gtk_entry_new();
  gtk_widget_set_hexpand(entry, TRUE);
  gtk_editable_set_text(GTK_EDITABLE(entry), text ? text : "");
  gtk_entry_set_placeholder_text(GTK_ENTRY(entry), "Float(5, 5, requires_grad=1); Float(5, 1); …");
  gtk_widget_set_tooltip_text(entry,
                              text && *text ? text : "SPEC; SPEC; … in the graph's input order");
  gtk_widget_add_css_class(entry, "monospace");
  g_signal_connect(entry, "activate", G_CALLBACK(on_entry_activate), NULL);
  GtkWidget *remove = gtk_button_new_from_icon_name("list-remove-symbolic");
  gtk_widget_set_tooltip_text(remove, "Remove this spec line");
  gtk_widget_add_css_class(remove, "flat");
  gtk_box_append(GTK_BOX(box), entry);
  gtk_box_append(GTK_BOX(box), remove);
  gtk_list_box_append(self->specs_list, box);
  GtkWidget *row = gtk_widget_get_parent(box);
  gtk_actionable_set_action_target(GTK_ACTIONABLE(remove), "i",
                                   gtk_list_box_row_get_index(GTK_LIST_BOX_ROW(row)));
  gtk_actionable_set_action_name(GTK_ACTIONABLE(remove), "inputs.remove-spec");
}

static void renumber(JitscopeInputsPane *self) {
  int i = 0;
  for (GtkWidget *row = gtk_widget_get_first_child(GTK_WIDGET(self->specs_list)); row;
       row = gtk_widget_get_next_sibling(row), i++) {
    GtkWidget *box = gtk_list_box_row_get_child(GTK_LIST_BOX_ROW(row));
    gtk_actionable_set_action_target(GTK_ACTIONABLE(gtk_widget_get_last_child(box)), "i", i);
  }
}

void jitscope_inputs_pane_set_specs(JitscopeInputsPane *self, const char *const *lines, guint n) {
  GtkWidget *child;
  while ((child = gtk_widget_get_first_child(GTK_WIDGET(self->specs_list))))
    gtk_list_box_remove(self->specs_list, child);
  for (guint i = 0; i < n; i++)
    add_row(self, lines[i]);
  if (n == 0)
    add_row(self, "");
}

GPtrArray *jitscope_inputs_pane_get_specs(JitscopeInputsPane *self) {
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

guint64 jitscope_inputs_pane_get_seed(JitscopeInputsPane *self) {
  return (guint64)gtk_spin_button_get_value_as_int(self->seed_spin);
}

void jitscope_inputs_pane_set_progress(JitscopeInputsPane *self, double fraction,
                                       const char *text) {
  gtk_progress_bar_set_fraction(self->progress, CLAMP(fraction, 0, 1));
  gtk_progress_bar_set_text(self->progress, text);
}

void jitscope_inputs_pane_set_status(JitscopeInputsPane *self, const char *text, gboolean error) {
  gtk_label_set_text(self->status, text);
  if (error)
    gtk_widget_add_css_class(GTK_WIDGET(self->status), "error");
  else
    gtk_widget_remove_css_class(GTK_WIDGET(self->status), "error");
}

const char *jitscope_inputs_pane_get_status(JitscopeInputsPane *self) {
  return gtk_label_get_text(self->status);
}

static void action_add_spec(GtkWidget *widget, const char *name, GVariant *param) {
  JitscopeInputsPane *self = JITSCOPE_INPUTS_PANE(widget);
  add_row(self, "");
  GtkWidget *row = gtk_widget_get_last_child(GTK_WIDGET(self->specs_list));
  gtk_widget_grab_focus(
      gtk_widget_get_first_child(gtk_list_box_row_get_child(GTK_LIST_BOX_ROW(row))));
}

static void action_remove_spec(GtkWidget *widget, const char *name, GVariant *param) {
  JitscopeInputsPane *self = JITSCOPE_INPUTS_PANE(widget);
  GtkListBoxRow *row = gtk_list_box_get_row_at_index(self->specs_list, g_variant_get_int32(param));
  if (row)
    gtk_list_box_remove(self->specs_list, GTK_WIDGET(row));
  if (!gtk_widget_get_first_child(GTK_WIDGET(self->specs_list)))
    add_row(self, "");
  renumber(self);
}

static void jitscope_inputs_pane_dispose(GObject *object) {
  gtk_widget_dispose_template(GTK_WIDGET(object), JITSCOPE_TYPE_INPUTS_PANE);
  G_OBJECT_CLASS(jitscope_inputs_pane_parent_class)->dispose(object);
}

static void jitscope_inputs_pane_class_init(JitscopeInputsPaneClass *klass) {
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);
  G_OBJECT_CLASS(klass)->dispose = jitscope_inputs_pane_dispose;
  gtk_widget_class_set_template_from_resource(
      widget_class, "/io/github/jitscope/Jitscope/ui/jitscope-inputs-pane.ui");
  gtk_widget_class_bind_template_child(widget_class, JitscopeInputsPane, specs_list);
  gtk_widget_class_bind_template_child(widget_class, JitscopeInputsPane, seed_spin);
  gtk_widget_class_bind_template_child(widget_class, JitscopeInputsPane, progress);
  gtk_widget_class_bind_template_child(widget_class, JitscopeInputsPane, status);
  gtk_widget_class_install_action(widget_class, "inputs.add-spec", NULL, action_add_spec);
  gtk_widget_class_install_action(widget_class, "inputs.remove-spec", "i", action_remove_spec);
  gtk_widget_class_add_binding_action(widget_class, GDK_KEY_a, GDK_CONTROL_MASK | GDK_SHIFT_MASK,
                                      "inputs.add-spec", NULL);
}

static void jitscope_inputs_pane_init(JitscopeInputsPane *self) {
  gtk_widget_init_template(GTK_WIDGET(self));
}
