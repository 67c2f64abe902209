/* What tests read of a JitscopeCompareView (jitscope-compare-view.h); the window does not. */
#ifndef JITSCOPE_COMPARE_VIEW_PRIVATE_H
#define JITSCOPE_COMPARE_VIEW_PRIVATE_H

#include "jitscope-compare-view.h"

G_BEGIN_DECLS

guint jitscope_compare_view_get_n_columns(JitscopeCompareView *self);
guint jitscope_compare_view_get_n_steps(JitscopeCompareView *self);
guint jitscope_compare_view_get_step(JitscopeCompareView *self);
JitscopeGraphView *jitscope_compare_view_get_column(JitscopeCompareView *self, guint index);
/* Nodes of column `index`'s graph at this step that are not in every plan. */
guint jitscope_compare_view_get_n_unshared(JitscopeCompareView *self, guint index);

G_END_DECLS

#endif
