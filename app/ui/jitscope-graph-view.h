/* JitscopeGraphView: draws an AppScene (a laid-out graph) with cairo, as xdot.py does.
 * Ctrl+scroll zooms about the pointer, scroll and drag pan, a click selects the node under the
 * pointer ("node-activated" with its DOT id, "" when nothing), fit and zoom-to-node. The
 * drawing of one view state is kept as a render node and reused while nothing changes.
 * Actions (canvas.*, keys when the canvas has focus): fit (0), zoom-in (+ =), zoom-out (-),
 * pan((ii)) (Shift+arrows). */
#ifndef JITSCOPE_GRAPH_VIEW_H
#define JITSCOPE_GRAPH_VIEW_H

#include <gtk/gtk.h>

#include "scene.h"

G_BEGIN_DECLS

#define JITSCOPE_TYPE_GRAPH_VIEW (jitscope_graph_view_get_type())
G_DECLARE_FINAL_TYPE(JitscopeGraphView, jitscope_graph_view, JITSCOPE, GRAPH_VIEW, GtkWidget)

GtkWidget *jitscope_graph_view_new(void);

/* Shows `scene` (referenced; NULL clears). keep_view keeps zoom and position (stepping
 * through stages of one plan); otherwise the scene is fitted once the view has a size. */
void jitscope_graph_view_set_scene(JitscopeGraphView *self, AppScene *scene, gboolean keep_view);
AppScene *jitscope_graph_view_get_scene(JitscopeGraphView *self);
/* A line shown in the middle while there is no scene ("Laying out...", an error). */
void jitscope_graph_view_set_message(JitscopeGraphView *self, const char *message);

void jitscope_graph_view_fit(JitscopeGraphView *self);
void jitscope_graph_view_zoom(JitscopeGraphView *self, double factor);
double jitscope_graph_view_get_zoom(JitscopeGraphView *self);

/* Selects the node object with this DOT id and brings it into view; FALSE when absent. */
gboolean jitscope_graph_view_select(JitscopeGraphView *self, const char *id);
const char *jitscope_graph_view_get_selected(JitscopeGraphView *self);
/* Selects the next node (after the selected one) whose label contains `text`; returns the
 * number of matches. */
guint jitscope_graph_view_search_next(JitscopeGraphView *self, const char *text);

/* Node ids (a set of char*, referenced; NULL clears) drawn with a magenta frame and badge:
 * the compare view's "not in every plan". */
void jitscope_graph_view_set_marked(JitscopeGraphView *self, GHashTable *ids);
/* Marked ids that name a node of the current scene. */
guint jitscope_graph_view_get_n_marked(JitscopeGraphView *self);

/* Number of times the drawing was recorded (the cached render node was not reusable). */
guint jitscope_graph_view_get_draw_count(JitscopeGraphView *self);

G_END_DECLS

#endif
