/* Exports from the window (contract in jitscope-export.h). */
#include "jitscope-export.h"

#include <string.h>

#include "bundle_write.h"
#include "layout_service.h"
#include "workspace.h"

typedef struct {
  char *dot, *format, *path;
  /* the bundle */
  char *program_name, *program_text;
  GPtrArray *spec_lines;
  guint64 seed;
  JitscopeExportDone done;
  gpointer data;
} ExportJob;

static void export_job_free(ExportJob *job) {
  g_free(job->dot);
  g_free(job->format);
  g_free(job->path);
  g_free(job->program_name);
  g_free(job->program_text);
  if (job->spec_lines)
    g_ptr_array_unref(job->spec_lines);
  g_free(job);
}

static void on_finished(GObject *source, GAsyncResult *result, gpointer data) {
  ExportJob *job = g_task_get_task_data(G_TASK(result));
  GError *error = NULL;
  char *message = g_task_propagate_pointer(G_TASK(result), &error);
  if (message)
    job->done(TRUE, message, job->data);
  else
    job->done(FALSE, error->message, job->data);
  g_free(message);
  g_clear_error(&error);
}

static void start(ExportJob *job, GTaskThreadFunc func) {
  GTask *task = g_task_new(NULL, NULL, on_finished, NULL);
  g_task_set_task_data(task, job, (GDestroyNotify)export_job_free);
  g_task_run_in_thread(task, func);
  g_object_unref(task);
}

/* ---- one graph ---- */

static void graph_in_thread(GTask *task, gpointer source, gpointer data, GCancellable *c) {
  ExportJob *job = data;
  GError *error = NULL;
  if (app_layout_export(job->dot, job->format, job->path, &error))
    g_task_return_pointer(task, g_strdup_printf("Exported the graph to %s", job->path), g_free);
  else
    g_task_return_new_error(task, error->domain, error->code, "Export failed: %s", error->message);
  g_clear_error(&error);
}

void jitscope_export_graph_to(char *dot, const char *path, JitscopeExportDone done, gpointer data) {
  ExportJob *job = g_new0(ExportJob, 1);
  job->dot = dot;
  const char *ext = strrchr(path, '.');
  const char *slash = strrchr(path, '/');
  if (ext && slash && ext < slash)
    ext = NULL;
  job->format = g_ascii_strdown(ext ? ext + 1 : "svg", -1);
  job->path = ext ? g_strdup(path) : g_strconcat(path, ".svg", NULL);
  job->done = done;
  job->data = data;
  start(job, graph_in_thread);
}

typedef struct {
  char *dot;
  char *program_name, *program_text;
  GPtrArray *spec_lines;
  guint64 seed;
  gboolean bundle;
  JitscopeExportDone done;
  gpointer data;
} Pending;

static void pending_free(Pending *p) {
  g_free(p->dot);
  g_free(p->program_name);
  g_free(p->program_text);
  if (p->spec_lines)
    g_ptr_array_unref(p->spec_lines);
  g_free(p);
}

static void on_response(GtkNativeDialog *dialog, int response, Pending *p) {
  GFile *file =
      response == GTK_RESPONSE_ACCEPT ? gtk_file_chooser_get_file(GTK_FILE_CHOOSER(dialog)) : NULL;
  char *path = file ? g_file_get_path(file) : NULL;
  g_clear_object(&file);
  g_object_unref(dialog);
  if (!path) {
    p->done(FALSE, "Export cancelled", p->data);
  } else if (p->bundle) {
    jitscope_export_bundle_to(p->program_name, p->program_text, p->spec_lines, p->seed, path,
                              p->done, p->data);
  } else {
    jitscope_export_graph_to(g_steal_pointer(&p->dot), path, p->done, p->data);
  }
  g_free(path);
  pending_free(p);
}

static void ask(GtkWindow *parent, const char *title, const char *name, Pending *p) {
  GtkFileChooserNative *dialog = gtk_file_chooser_native_new(
      title, parent, GTK_FILE_CHOOSER_ACTION_SAVE, "_Export", "_Cancel");
  gtk_file_chooser_set_current_name(GTK_FILE_CHOOSER(dialog), name);
  g_signal_connect(dialog, "response", G_CALLBACK(on_response), p);
  gtk_native_dialog_show(GTK_NATIVE_DIALOG(dialog));
}

void jitscope_export_graph(GtkWindow *parent, char *dot, JitscopeExportDone done, gpointer data) {
  Pending *p = g_new0(Pending, 1);
  p->dot = dot;
  p->done = done;
  p->data = data;
  ask(parent, "Export Graph as SVG, PNG or PDF", "graph.svg", p);
}

/* ---- the bundle ---- */

static void bundle_in_thread(GTask *task, gpointer source, gpointer data, GCancellable *c) {
  ExportJob *job = data;
  GPtrArray *inputs = app_workspace_split_spec_line(g_ptr_array_index(job->spec_lines, 0));
  g_ptr_array_add(inputs, NULL);
  GPtrArray *groups = g_ptr_array_new();
  for (guint i = 1; i < job->spec_lines->len; i++)
    g_ptr_array_add(groups, g_ptr_array_index(job->spec_lines, i));
  g_ptr_array_add(groups, NULL);
  AppBundleRequest request = {.program_name = job->program_name,
                              .program_text = job->program_text,
                              .inputs = (char **)inputs->pdata,
                              .spec_groups = groups->len > 1 ? (char **)groups->pdata : NULL,
                              .seed = job->seed};
  GError *error = NULL;
  AppBundleSummary *summary = app_bundle_export(&request, job->path, &error);
  g_ptr_array_unref(inputs);
  g_ptr_array_unref(groups);
  if (!summary) {
    g_task_return_new_error(task, error->domain, error->code, "Bundle not written: %s",
                            error->message);
    g_error_free(error);
    return;
  }
  GString *message = g_string_new(NULL);
  g_string_append_printf(message,
                         "Bundle written to %s: %u files, %u plans, %u stages, %u pictures, "
                         "%u kernels; check %s",
                         job->path, summary->files, summary->plans, summary->stages,
                         summary->pictures, summary->kernels,
                         summary->check_ok ? "passed" : "FAILED");
  for (guint i = 0; summary->notes && i < summary->notes->len; i++)
    g_string_append_printf(message, "\nnote: %s", (char *)g_ptr_array_index(summary->notes, i));
  app_bundle_summary_free(summary);
  g_task_return_pointer(task, g_string_free(message, FALSE), g_free);
}

static GPtrArray *copy_lines(GPtrArray *lines) {
  GPtrArray *copy = g_ptr_array_new_with_free_func(g_free);
  for (guint i = 0; lines && i < lines->len; i++)
    g_ptr_array_add(copy, g_strdup(g_ptr_array_index(lines, i)));
  return copy;
}

void jitscope_export_bundle_to(const char *program_name, const char *program_text,
                               GPtrArray *spec_lines, guint64 seed, const char *dir,
                               JitscopeExportDone done, gpointer data) {
  if (!spec_lines || spec_lines->len == 0) {
    done(FALSE, "Bundle not written: no input specs (add a spec line)", data);
    return;
  }
  ExportJob *job = g_new0(ExportJob, 1);
  job->program_name = g_strdup(program_name);
  job->program_text = g_strdup(program_text);
  job->spec_lines = copy_lines(spec_lines);
  job->seed = seed;
  job->path = g_strdup(dir);
  job->done = done;
  job->data = data;
  start(job, bundle_in_thread);
}

void jitscope_export_bundle(GtkWindow *parent, const char *program_name, const char *program_text,
                            GPtrArray *spec_lines, guint64 seed, JitscopeExportDone done,
                            gpointer data) {
  Pending *p = g_new0(Pending, 1);
  p->bundle = TRUE;
  p->program_name = g_strdup(program_name);
  p->program_text = g_strdup(program_text);
  p->spec_lines = copy_lines(spec_lines);
  p->seed = seed;
  p->done = done;
  p->data = data;
  ask(parent, "Export a Bug-Report Bundle (a new folder)", "jitscope-bundle", p);
}
