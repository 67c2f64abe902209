/* What tests read of a JitscopePlansTree (jitscope-plans-tree.h); the window does not. */
#ifndef JITSCOPE_PLANS_TREE_PRIVATE_H
#define JITSCOPE_PLANS_TREE_PRIVATE_H

#include "jitscope-plans-tree.h"

G_BEGIN_DECLS

/* Visible rows. */
guint jitscope_plans_tree_get_n_rows(JitscopePlansTree *self);
/* What a row stands for; FALSE for an index past the end. */
gboolean jitscope_plans_tree_get_row(JitscopePlansTree *self, guint row, JitscopePlanRowKind *kind,
                                     int *plan, int *stage, guint64 *origin, const char **label);
int jitscope_plans_tree_get_selected_row(JitscopePlansTree *self);

G_END_DECLS

#endif
