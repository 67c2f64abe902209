/* JitscopePlansTree: the last run's plans as an expandable tree (GtkTreeListModel in a
 * GtkListView): per spec line its forward plan; under a forward plan its DifferentiableGraphs
 * (f, whose stages are the plan's "DifferentiableGraph_K.*" stages) and fusion groups; the
 * backward plans the spec's run compiled, with their fusion groups; under each fusion group
 * its CUDA kernel. Selecting a row emits "row-activated" (plan index, stage index, node
 * origin or 0, row kind).
 *
 * Actions (plans.*): next-row (Alt+Down... also j), prev-row (k), select-row(u),
 * expand-all, collapse-all. */
#ifndef JITSCOPE_PLANS_TREE_H
#define JITSCOPE_PLANS_TREE_H

#include <gtk/gtk.h>

#include "workspace.h"

G_BEGIN_DECLS

typedef enum {
  JITSCOPE_PLAN_ROW_SPEC,
  JITSCOPE_PLAN_ROW_ERROR,
  JITSCOPE_PLAN_ROW_PLAN,
  JITSCOPE_PLAN_ROW_DIFF,
  JITSCOPE_PLAN_ROW_GROUP,
  JITSCOPE_PLAN_ROW_KERNEL,
} JitscopePlanRowKind;

#define JITSCOPE_TYPE_PLANS_TREE (jitscope_plans_tree_get_type())
G_DECLARE_FINAL_TYPE(JitscopePlansTree, jitscope_plans_tree, JITSCOPE, PLANS_TREE, GtkBox)

/* Rebuilds the tree from a run (borrowed; NULL clears); every row expanded, nothing selected. */
void jitscope_plans_tree_set_run(JitscopePlansTree *self, const AppWorkspaceRun *run);
/* Selects a row (emits "row-activated" when it stands for a plan). */
void jitscope_plans_tree_select_row(JitscopePlansTree *self, guint row);
/* Selects the first row of plan `plan` (its PLAN row), without emitting. */
void jitscope_plans_tree_show_plan(JitscopePlansTree *self, int plan);

G_END_DECLS

#endif
