/* The window's exports: the graph, the IR text, the bug-report bundle (contract in
 * jitscope-window.h and jitscope-window-private.h). */
#include "jitscope-window-private.h"
#include "jitscope-window.h"

#include <string.h>

#include "jitscope-export.h"

static void on_exported(gboolean ok, const char *message, gpointer data) {
  JitscopeWindow *self = data;
  self->exports--;
  jitscope_window_say(self, message, !ok);
  g_object_unref(self);
}

static gboolean export_target(JitscopeWindow *self) {
  if (jitscope_window_current_stage(self))
    return TRUE;
  jitscope_window_say(self, "Nothing to export: run and pick a stage first", TRUE);
  return FALSE;
}

static void export_graph(JitscopeWindow *self) {
  if (!export_target(self))
    return;
  self->exports++;
  jitscope_export_graph(GTK_WINDOW(self), jitscope_window_stage_dot(self), on_exported,
                        g_object_ref(self));
}

void jitscope_window_export_graph(JitscopeWindow *self, const char *path) {
  if (!export_target(self))
    return;
  self->exports++;
  jitscope_export_graph_to(jitscope_window_stage_dot(self), path, on_exported, g_object_ref(self));
}

static void copy_ir(JitscopeWindow *self) {
  if (!export_target(self))
    return;
  const AppWorkspaceStage *stage = jitscope_window_current_stage(self);
  gdk_clipboard_set_text(gtk_widget_get_clipboard(GTK_WIDGET(self)), stage->ir);
  char *message = g_strdup_printf("Copied the IR of stage %d %s (%zu bytes) to the clipboard",
                                  self->stage + 1, stage->name, strlen(stage->ir));
  jitscope_window_say(self, message, FALSE);
  g_free(message);
}

static void export_bundle(JitscopeWindow *self, const char *dir) {
  jitscope_program_pane_flush(self->program_pane);
  GPtrArray *lines = jitscope_inputs_pane_get_specs(self->inputs_pane);
  self->exports++;
  jitscope_window_say(self, "Writing the bug-report bundle…", FALSE);
  if (dir)
    jitscope_export_bundle_to(app_workspace_filename(self->ws), app_workspace_text(self->ws), lines,
                              jitscope_inputs_pane_get_seed(self->inputs_pane), dir, on_exported,
                              g_object_ref(self));
  else
    jitscope_export_bundle(
        GTK_WINDOW(self), app_workspace_filename(self->ws), app_workspace_text(self->ws), lines,
        jitscope_inputs_pane_get_seed(self->inputs_pane), on_exported, g_object_ref(self));
  g_ptr_array_unref(lines);
}

void jitscope_window_export_bundle(JitscopeWindow *self, const char *dir) {
  export_bundle(self, dir);
}

void jitscope_window_action_export_menu(GtkWidget *widget, const char *name, GVariant *param) {
  gtk_menu_button_popup(JITSCOPE_WINDOW(widget)->export_button);
}

void jitscope_window_action_export_graph(GtkWidget *widget, const char *name, GVariant *param) {
  export_graph(JITSCOPE_WINDOW(widget));
}

void jitscope_window_action_copy_ir(GtkWidget *widget, const char *name, GVariant *param) {
  copy_ir(JITSCOPE_WINDOW(widget));
}

void jitscope_window_action_export_bundle(GtkWidget *widget, const char *name, GVariant *param) {
  export_bundle(JITSCOPE_WINDOW(widget), NULL);
}
