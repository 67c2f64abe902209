/* Exports from the window (not a widget: helpers the window's export actions call).
 * - The shown graph: a save dialog, then Graphviz writes SVG, PNG or PDF (by the file's
 *   extension; SVG without one) on a worker thread.
 * - The bug-report bundle: app_bundle_export (the same bundle as `jitscope export`) on a
 *   worker thread: the first spec line is the --input call, the others are --spec calls.
 * Outcomes arrive as one message on the main context. */
#ifndef JITSCOPE_EXPORT_H
#define JITSCOPE_EXPORT_H

#include <gtk/gtk.h>

/* ok: whether it worked; message: what to tell the user. `data` was given to the call. */
typedef void (*JitscopeExportDone)(gboolean ok, const char *message, gpointer data);

/* Takes `dot`. Asks for a file, then renders. */
void jitscope_export_graph(GtkWindow *parent, char *dot, JitscopeExportDone done, gpointer data);
/* Renders `dot` (taken) to `path` without asking. */
void jitscope_export_graph_to(char *dot, const char *path, JitscopeExportDone done, gpointer data);

/* Writes the bundle into `dir` (absent or empty). `spec_lines` (of char*) is copied. */
void jitscope_export_bundle_to(const char *program_name, const char *program_text,
                               GPtrArray *spec_lines, guint64 seed, const char *dir,
                               JitscopeExportDone done, gpointer data);
/* Asks for a folder name, then writes the bundle there. */
void jitscope_export_bundle(GtkWindow *parent, const char *program_name, const char *program_text,
                            GPtrArray *spec_lines, guint64 seed, JitscopeExportDone done,
                            gpointer data);

#endif
