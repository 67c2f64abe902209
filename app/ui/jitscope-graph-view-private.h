/* What tests and benchmarks read of a JitscopeGraphView (jitscope-graph-view.h); the window
 * and other widgets do not. */
#ifndef JITSCOPE_GRAPH_VIEW_PRIVATE_H
#define JITSCOPE_GRAPH_VIEW_PRIVATE_H

#include "jitscope-graph-view.h"

G_BEGIN_DECLS

const char *jitscope_graph_view_get_progress(JitscopeGraphView *self);
const char *jitscope_graph_view_get_note(JitscopeGraphView *self);
double jitscope_graph_view_get_zoom(JitscopeGraphView *self);
/* Marked ids that name a node of the current scene. */
guint jitscope_graph_view_get_n_marked(JitscopeGraphView *self);
gboolean jitscope_graph_view_is_waiting(JitscopeGraphView *self);
/* The scene shown is a quick preview of a layout still running. */
gboolean jitscope_graph_view_is_preview(JitscopeGraphView *self);
/* Number of times the drawing was recorded (the cached render node was not reusable). */
guint jitscope_graph_view_get_draw_count(JitscopeGraphView *self);
/* Number of times the hovered edge was drawn over the cached drawing. */
guint jitscope_graph_view_get_overlay_count(JitscopeGraphView *self);
/* The hovered edge's id, or NULL. */
const char *jitscope_graph_view_get_hover(JitscopeGraphView *self);
/* Widget coordinates of a scene point; FALSE without a scene. */
gboolean jitscope_graph_view_scene_to_widget(JitscopeGraphView *self, double sx, double sy,
                                             double *x, double *y);

G_END_DECLS

#endif
