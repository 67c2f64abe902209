/* JitscopeStageList: the stages of one plan, one row each: number, name, group, whether it
 * changed the graph (unchanged rows dimmed) and its time. Selecting a row emits
 * "stage-selected" (the window shows that stage on the canvas).
 *
 * Actions (stages.*, keys when the list has focus; the window forwards its own): next (n,
 * Down), prev (p, Up), next-changed (Shift+N), prev-changed (Shift+P), first (Home),
 * last (End). */
#ifndef JITSCOPE_STAGE_LIST_H
#define JITSCOPE_STAGE_LIST_H

#include <gtk/gtk.h>

#include "workspace.h"

G_BEGIN_DECLS

#define JITSCOPE_TYPE_STAGE_LIST (jitscope_stage_list_get_type())
G_DECLARE_FINAL_TYPE(JitscopeStageList, jitscope_stage_list, JITSCOPE, STAGE_LIST, GtkBox)

/* The plan (borrowed; NULL clears) and the stage to select (clamped); emits
 * "stage-selected" unless the plan has no stages. */
void jitscope_stage_list_set_plan(JitscopeStageList *self, const AppWorkspacePlan *plan, int stage);
void jitscope_stage_list_select(JitscopeStageList *self, int stage);
/* Moves by delta (clamped); only_changed skips stages that changed nothing. Returns whether
 * the selection moved. */
gboolean jitscope_stage_list_step(JitscopeStageList *self, int delta, gboolean only_changed);

G_END_DECLS

#endif
