/* JitscopeWindow: the workbench (DESIGN.md, "The window"): program pane, inputs, plans tree,
 * stage list, graph canvas with legend and search, inspector, compare view. Actions (win.*):
 * open, run, add-spec, next-stage, prev-stage, next-plan, prev-plan, select-plan(u),
 * select-stage(u), fit, zoom-in, zoom-out, search, export, compare, fold, dark. */
#ifndef JITSCOPE_WINDOW_H
#define JITSCOPE_WINDOW_H

#include <gtk/gtk.h>

#include "jitscope-compare-view.h"
#include "jitscope-graph-view.h"
#include "workspace.h"

G_BEGIN_DECLS

#define JITSCOPE_TYPE_WINDOW (jitscope_window_get_type())
G_DECLARE_FINAL_TYPE(JitscopeWindow, jitscope_window, JITSCOPE, WINDOW, GtkApplicationWindow)

JitscopeWindow *jitscope_window_new(GtkApplication *app);

/* Loads a file into the program pane; a file that cannot be read or does not parse leaves
 * the window working with the reason shown. */
void jitscope_window_open_file(JitscopeWindow *self, const char *path);
/* Sets the program text (as if pasted or typed) and parses it at once. */
void jitscope_window_set_program(JitscopeWindow *self, const char *text, const char *filename);
/* Replaces the spec lines. */
void jitscope_window_set_specs(JitscopeWindow *self, const char *const *lines, guint n);

AppWorkspace *jitscope_window_get_workspace(JitscopeWindow *self);
JitscopeGraphView *jitscope_window_get_graph_view(JitscopeWindow *self);
JitscopeCompareView *jitscope_window_get_compare_view(JitscopeWindow *self);
/* A run or a layout is in flight. */
gboolean jitscope_window_is_busy(JitscopeWindow *self);
/* Index into the last run's plans, stage index in it (-1 when none). */
int jitscope_window_get_plan(JitscopeWindow *self);
int jitscope_window_get_stage(JitscopeWindow *self);
/* What the window says about the program / the last run / the current stage. */
const char *jitscope_window_get_program_error(JitscopeWindow *self);
const char *jitscope_window_get_run_status(JitscopeWindow *self);
const char *jitscope_window_get_inspector_text(JitscopeWindow *self);

G_END_DECLS

#endif
