/* JitscopeWindow: the workbench (DESIGN.md, "The window"), composed of JitscopeProgramPane,
 * JitscopeInputsPane, JitscopePlansTree, JitscopeStageList, the canvas (JitscopeGraphView with
 * legend and search, or JitscopeCompareView) and JitscopeInspector.
 *
 * Window actions (win.*, with the application's accelerators): open, paste, run, stop-run
 * (Escape or the Stop button, enabled while a run is in flight; opening another program stops
 * the run too, then runs the new one), add-spec,
 * next-stage, prev-stage, next-changed, prev-changed, next-plan, prev-plan, select-plan(u),
 * select-stage(u), select-row(u) (a row of the plans tree), fit, zoom-in, zoom-out, search,
 * export (opens the export menu), export-graph, copy-ir, export-bundle, compare, fold, dark,
 * cancel-layout (Escape, enabled while a layout of the shown stage or compare step runs).
 * The keys n, p, Shift+N, Shift+P (stepping) and r work wherever the focus is but in a text
 * field (Alt+Down, Alt+Up and Alt+Shift+Down/Up step there too). Stateful canvas.edge-types
 * (t: every edge labelled with its value's type) and canvas.removed (r: the nodes the stage
 * removed, drawn faded from the stage before), one state per window.
 *
 * The canvas shows a stage through AppStageLayouts (workspace_layout.h): a cached stage at
 * once; otherwise progress (phase, elapsed time, Cancel) over the canvas, the quick preview
 * of a large graph as soon as it exists, then the final layout with a note when it is not a
 * full one. `f` on a selected owner (DifferentiableGraph, FusionGroup, GradOf, If, Loop) of
 * a large graph lays out its inside on its own and draws it into the owner's box.
 *
 * Window size, maximized state, pane positions and the dark style are remembered with
 * GSettings (schema io.github.jitscope.Jitscope) when the schema is installed; without it the
 * window works and says once that nothing is remembered. */
#ifndef JITSCOPE_WINDOW_H
#define JITSCOPE_WINDOW_H

#include <gtk/gtk.h>

#include "jitscope-compare-view.h"
#include "jitscope-graph-view.h"
#include "jitscope-inspector.h"
#include "jitscope-plans-tree.h"
#include "workspace.h"
#include "workspace_layout.h"

G_BEGIN_DECLS

#define JITSCOPE_TYPE_WINDOW (jitscope_window_get_type())
G_DECLARE_FINAL_TYPE(JitscopeWindow, jitscope_window, JITSCOPE, WINDOW, GtkApplicationWindow)

JitscopeWindow *jitscope_window_new(GtkApplication *app);

/* Loads a file into the program pane; a file that cannot be read or does not parse leaves
 * the window working with the reason shown. A program that comes in whole (a file, the
 * example, a paste, a drop, jitscope_window_set_program) opens ready: the spec lines of its
 * header (spec_header.h) replace the inputs and it runs at once (the first plan's first stage
 * is shown, fitted to the canvas); without them its declared input types fill the spec line
 * where they are complete, and a malformed header is shown as FILE:LINE:COL in the banner. */
void jitscope_window_open_file(JitscopeWindow *self, const char *path);
/* Sets the program text (as if pasted or typed) and parses it at once. */
void jitscope_window_set_program(JitscopeWindow *self, const char *text, const char *filename);
/* Replaces the spec lines. */
void jitscope_window_set_specs(JitscopeWindow *self, const char *const *lines, guint n);
/* Starts writing the bug-report bundle into `dir` (what win.export-bundle does after asking
 * for the folder); the outcome appears in the banner. */
void jitscope_window_export_bundle(JitscopeWindow *self, const char *dir);
/* Renders the shown graph to `path` (svg/png/pdf by extension), as win.export-graph does. */
void jitscope_window_export_graph(JitscopeWindow *self, const char *path);
/* Types `text` into the search bar: the next matching node is selected and zoomed to.
 * Returns the number of matches. */
guint jitscope_window_search(JitscopeWindow *self, const char *text);

G_END_DECLS

#endif
