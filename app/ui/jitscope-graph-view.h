/* JitscopeGraphView: draws an AppScene (a laid-out graph) with cairo, as xdot.py does.
 * Ctrl+scroll zooms about the pointer, scroll and drag pan, a click selects the node under the
 * pointer ("node-activated" with its DOT id, "" when nothing), fit and zoom-to-node. The
 * drawing of one view state is kept as a render node and reused while nothing changes.
 * EDGES: with no node under the pointer, the edge whose curve passes nearest within 5 pixels
 * (app_scene_hit_edge, the tolerance divided by the zoom) is hovered: drawn again thicker in
 * the accent colour over the cached drawing (which stays), and a click selects it
 * ("edge-activated" with its id, which names the value, graphviz_dot.h).
 * Actions (canvas.*, keys when the canvas has focus): fit (0), zoom-in (+ =), zoom-out (-),
 * pan((ii)) (Shift+arrows), cancel-layout (Escape; enabled while progress shows); the key t
 * activates canvas.edge-types, which the window provides (its state is the window's). The
 * canvas menu (a button over the top right, or a right click) holds edge types, fit, zoom
 * and fold.
 * Signals: node-activated(id), edge-activated(id), cancel-layout. */
#ifndef JITSCOPE_GRAPH_VIEW_H
#define JITSCOPE_GRAPH_VIEW_H

#include <gtk/gtk.h>

#include "scene.h"
#include "workspace_layout.h"

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
/* The layout in progress ("Laying out: dot: ranking · 2.1 s"), drawn over the top of the
 * canvas with a Cancel button; NULL hides it. While it shows, the button and Escape (canvas
 * focused) emit "cancel-layout". */
void jitscope_graph_view_set_progress(JitscopeGraphView *self, const char *text);
/* A note over the top left of the canvas about the shown layout ("Quick layout: Graphviz took
 * longer than ..."); NULL or "" hides it. */
void jitscope_graph_view_set_note(JitscopeGraphView *self, const char *note);

void jitscope_graph_view_fit(JitscopeGraphView *self);
void jitscope_graph_view_zoom(JitscopeGraphView *self, double factor);

/* Selects the node or edge object with this id and brings it into view (emitting
 * node-activated or edge-activated); FALSE when absent. */
gboolean jitscope_graph_view_select(JitscopeGraphView *self, const char *id);
/* The selected node's or edge's id, or NULL. */
const char *jitscope_graph_view_get_selected(JitscopeGraphView *self);
/* Selects the node of the scene whose id names a node of `graph` with this origin. */
gboolean jitscope_graph_view_select_origin(JitscopeGraphView *self, const IrGraph *graph,
                                           guint64 origin);
/* Selects the next node (after the selected one) whose label contains `text`; returns the
 * number of matches. */
guint jitscope_graph_view_search_next(JitscopeGraphView *self, const char *text);

/* Node ids (a set of char*, referenced; NULL clears) drawn with a magenta frame and badge:
 * the compare view's "not in every plan". */
void jitscope_graph_view_set_marked(JitscopeGraphView *self, GHashTable *ids);

/* Waiting for a stage's layout (workspace_layout.h). begin_layout: the scene shown stays
 * until the new one comes, the progress shows "Laying out…". apply_update: shows the
 * update's scene (the stage's first picture keeps the view when keep_view, a preview's
 * replacement is fitted), its phase and elapsed time with Cancel, and when done the note of
 * a scene that is not a full layout, or the error. show_final: a scene at hand (cached).
 * layout_cancelled: the preview stays with a note, or the canvas says it was cancelled. */
void jitscope_graph_view_begin_layout(JitscopeGraphView *self);
gboolean jitscope_graph_view_apply_update(JitscopeGraphView *self, const AppStageUpdate *update,
                                          gboolean keep_view);
void jitscope_graph_view_show_final(JitscopeGraphView *self, AppScene *scene, gboolean keep_view);
void jitscope_graph_view_layout_cancelled(JitscopeGraphView *self);

/* What the pointer does at widget point (x, y) (the motion controller and the click gesture
 * call these; tests too): hover_at hovers the edge there (none over a node or nothing),
 * click_at selects what is there and emits node-activated or edge-activated. */
void jitscope_graph_view_hover_at(JitscopeGraphView *self, double x, double y);
void jitscope_graph_view_click_at(JitscopeGraphView *self, double x, double y);

G_END_DECLS

#endif
