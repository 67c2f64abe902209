/* JitscopeInspector: what the workbench knows about the plan or the selected node.
 *
 * For a node: its kind, schema, line, attributes, input and output types (describe_node),
 * its ORIGIN HISTORY (the stage that created it: the first stage snapshot holding its
 * origin id; the stages that changed it; the stage that removed it), and after a run the
 * SHAPES AND FIRST VALUES of its outputs, computed off the main thread by re-running the
 * stage's graph on the plan's recorded inputs (app_workspace_node_values). For a FusionGroup
 * also which backend ran it and its time (fuser records), its generated CUDA source, the
 * nvrtc log and PTX size where nvrtc loads, else why it was not compiled.
 *
 * For a value (an edge of the canvas, graphviz_dot.h): its name and type, its producer
 * (kind, line, source location), every user with the input it feeds, the producer's origin
 * history, and after a run its shape and first values, computed as a node's
 * (app_workspace_value_values).
 *
 * Actions (inspector.*): copy (Ctrl+Shift+C: the whole text to the clipboard). */
#ifndef JITSCOPE_INSPECTOR_H
#define JITSCOPE_INSPECTOR_H

#include <gtk/gtk.h>

#include "workspace.h"

G_BEGIN_DECLS

#define JITSCOPE_TYPE_INSPECTOR (jitscope_inspector_get_type())
G_DECLARE_FINAL_TYPE(JitscopeInspector, jitscope_inspector, JITSCOPE, INSPECTOR, GtkBox)

/* Keeps the section with this heading ("GENERATED CUDA KERNEL") at the top of the view, also
 * when its text arrives later, until another item is shown. */
void jitscope_inspector_scroll_to_section(JitscopeInspector *self, const char *heading);
/* Plain text (a hint, a plan summary). */
void jitscope_inspector_show_text(JitscopeInspector *self, const char *title, const char *text);
/* A node of stage `stage` of `plan` (both borrowed: call show_text or show_node again
 * before the run goes away). `id` is the canvas id. */
void jitscope_inspector_show_node(JitscopeInspector *self, const AppWorkspacePlan *plan,
                                  guint stage, const IrNode *node, const char *id);
/* A value of stage `stage` of `plan` (borrowed as for show_node); `id` is its canvas id (a
 * value id or an edge id). */
void jitscope_inspector_show_value(JitscopeInspector *self, const AppWorkspacePlan *plan,
                                   guint stage, const IrValue *value, const char *id);
/* Whatever canvas id `id` names in the stage: a node (show_node), a value (show_value), or a
 * line saying it is an input/output/boundary or an edge of no value. FALSE, showing nothing,
 * when there is no such stage or `id` is empty. */
gboolean jitscope_inspector_show_item(JitscopeInspector *self, const AppWorkspacePlan *plan,
                                      guint stage, const char *id);
/* The whole text shown (title excluded); owned by the inspector. */
const char *jitscope_inspector_get_text(JitscopeInspector *self);
/* Values or kernels are being computed. */
gboolean jitscope_inspector_is_busy(JitscopeInspector *self);

G_END_DECLS

#endif
