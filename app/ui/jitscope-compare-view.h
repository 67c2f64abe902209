/* JitscopeCompareView: two or more plans together, one graph view each, stepped together by
 * stage name (a plan without the stage says that it has none). Each view zooms and pans on
 * its own; "fit all" fits every one. Nodes of one plan's stage that the others' same stage
 * lack (by kind + inputs signature, app_workspace_unshared_nodes) get a magenta frame, and
 * each header says how many. Wide graphs are stacked as rows, tall ones side by side
 * (automatic; compare.toggle-orientation flips it).
 *
 * Actions (compare.*): next (n, Down), prev (p, Up), next-different (Shift+N: the next stage
 * where the plans differ), fit-all (0... Ctrl+0 in the window), toggle-orientation (o). */
#ifndef JITSCOPE_COMPARE_VIEW_H
#define JITSCOPE_COMPARE_VIEW_H

#include <gtk/gtk.h>

#include "graphviz_dot.h"
#include "jitscope-graph-view.h"
#include "workspace.h"
#include "workspace_layout.h"

G_BEGIN_DECLS

#define JITSCOPE_TYPE_COMPARE_VIEW (jitscope_compare_view_get_type())
G_DECLARE_FINAL_TYPE(JitscopeCompareView, jitscope_compare_view, JITSCOPE, COMPARE_VIEW, GtkBox)

/* `plans` (of AppWorkspacePlan*) and `layouts` are borrowed and must outlive the view's use
 * of them (call again with NULL plans before they go away). `labels` (of char*, one per
 * plan, may be NULL) name the columns ("Spec 2: Float(5, 1), ..."). Each column shows its
 * stage as the window's canvas does (workspace_layout.h): cached at once, otherwise
 * progress with Cancel, the quick preview, then the final layout and its note. */
void jitscope_compare_view_set_plans(JitscopeCompareView *self, GPtrArray *plans, GPtrArray *labels,
                                     AppStageLayouts *layouts, gboolean dark);
/* Edges labelled with their values' types (the window's canvas.edge-types); re-lays out the
 * step shown. Kept across set_plans. */
void jitscope_compare_view_set_edge_types(JitscopeCompareView *self, gboolean on);
/* Shows step `index` (clamped) in every column. */
void jitscope_compare_view_set_step(JitscopeCompareView *self, guint index);
/* Shows the step with this stage name; FALSE when no plan has it. */
gboolean jitscope_compare_view_set_stage_name(JitscopeCompareView *self, const char *name);
void jitscope_compare_view_fit_all(JitscopeCompareView *self);
/* Layouts still outstanding. */
gboolean jitscope_compare_view_is_busy(JitscopeCompareView *self);
/* Stops every column's layout in progress (each column's Cancel button or Escape stops its
 * own; the window's Escape stops all). */
void jitscope_compare_view_cancel_layouts(JitscopeCompareView *self);

G_END_DECLS

#endif
