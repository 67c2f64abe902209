/* Export of the shown graph (contract in jitscope-export.h). */
#include "jitscope-export.h"

#include <string.h>

#include "layout_service.h"

typedef struct {
  char *dot, *format, *path;
  GtkLabel *status; /* weak: cleared if the label goes first */
} ExportJob;

static void export_job_free(ExportJob *job) {
  if (job->status)
    g_object_remove_weak_pointer(G_OBJECT(job->status), (gpointer *)&job->status);
  g_free(job->dot);
  g_free(job->format);
  g_free(job->path);
  g_free(job);
}

static void export_in_thread(GTask *task, gpointer source, gpointer data, GCancellable *c) {
  ExportJob *job = data;
  GError *error = NULL;
  if (app_layout_export(job->dot, job->format, job->path, &error))
    g_task_return_boolean(task, TRUE);
  else
    g_task_return_error(task, error);
}

static void on_exported(GObject *source, GAsyncResult *result, gpointer data) {
  GError *error = NULL;
  ExportJob *job = g_task_get_task_data(G_TASK(result));
  char *message = g_task_propagate_boolean(G_TASK(result), &error)
                      ? g_strdup_printf("Exported %s", job->path)
                      : g_strdup_printf("Export failed: %s", error->message);
  if (job->status)
    gtk_label_set_text(job->status, message);
  g_free(message);
  g_clear_error(&error);
}

static void on_response(GtkNativeDialog *dialog, int response, ExportJob *job) {
  if (response != GTK_RESPONSE_ACCEPT) {
    export_job_free(job);
    g_object_unref(dialog);
    return;
  }
  GFile *file = gtk_file_chooser_get_file(GTK_FILE_CHOOSER(dialog));
  char *path = g_file_get_path(file);
  g_object_unref(file);
  g_object_unref(dialog);
  const char *ext = path ? strrchr(path, '.') : NULL;
  job->format = g_ascii_strdown(ext ? ext + 1 : "svg", -1);
  job->path = ext ? g_strdup(path) : g_strconcat(path ? path : "graph", ".svg", NULL);
  g_free(path);
  GTask *task = g_task_new(NULL, NULL, on_exported, NULL);
  g_task_set_task_data(task, job, (GDestroyNotify)export_job_free);
  g_task_run_in_thread(task, export_in_thread);
  g_object_unref(task);
}

void jitscope_export_graph(GtkWindow *parent, char *dot, GtkLabel *status) {
  ExportJob *job = g_new0(ExportJob, 1);
  job->dot = dot;
  job->status = status;
  g_object_add_weak_pointer(G_OBJECT(status), (gpointer *)&job->status);
  GtkFileChooserNative *dialog = gtk_file_chooser_native_new(
      "Export Graph as SVG, PNG or PDF", parent, GTK_FILE_CHOOSER_ACTION_SAVE, "_Export",
      "_Cancel");
  gtk_file_chooser_set_current_name(GTK_FILE_CHOOSER(dialog), "graph.svg");
  g_signal_connect(dialog, "response", G_CALLBACK(on_response), job);
  gtk_native_dialog_show(GTK_NATIVE_DIALOG(dialog));
}
