/* JitscopeCompareView: two or more plans side by side, one graph view each, stepped
 * together by stage name (a plan without the stage shows that it has none). */
#ifndef JITSCOPE_COMPARE_VIEW_H
#define JITSCOPE_COMPARE_VIEW_H

#include <gtk/gtk.h>

#include "graphviz_dot.h"
#include "jitscope-graph-view.h"
#include "layout_service.h"
#include "workspace.h"

G_BEGIN_DECLS

#define JITSCOPE_TYPE_COMPARE_VIEW (jitscope_compare_view_get_type())
G_DECLARE_FINAL_TYPE(JitscopeCompareView, jitscope_compare_view, JITSCOPE, COMPARE_VIEW, GtkBox)

/* `plans` (of AppWorkspacePlan*) and `layouts` are borrowed and must outlive the view's use
 * of them (call again with NULL plans before they go away). */
void jitscope_compare_view_set_plans(JitscopeCompareView *self, GPtrArray *plans,
                                     AppLayoutService *layouts, gboolean dark);
guint jitscope_compare_view_get_n_columns(JitscopeCompareView *self);
guint jitscope_compare_view_get_n_steps(JitscopeCompareView *self);
guint jitscope_compare_view_get_step(JitscopeCompareView *self);
/* Shows step `index` (clamped) in every column. */
void jitscope_compare_view_set_step(JitscopeCompareView *self, guint index);
const char *jitscope_compare_view_get_stage_name(JitscopeCompareView *self);
JitscopeGraphView *jitscope_compare_view_get_column(JitscopeCompareView *self, guint index);
/* Layouts still outstanding. */
gboolean jitscope_compare_view_is_busy(JitscopeCompareView *self);

G_END_DECLS

#endif
