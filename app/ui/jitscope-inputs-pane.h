/* JitscopeInputsPane: the input spec lines (one `SPEC; SPEC; ...` per row, added and
 * removed), the seed, the Run button with a progress bar and the last run's status.
 *
 * Actions (inputs.*): add-spec (Ctrl+Shift+A), remove-spec(i: row). The Run button and Enter
 * in a spec row activate win.run, which the window installs. */
#ifndef JITSCOPE_INPUTS_PANE_H
#define JITSCOPE_INPUTS_PANE_H

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define JITSCOPE_TYPE_INPUTS_PANE (jitscope_inputs_pane_get_type())
G_DECLARE_FINAL_TYPE(JitscopeInputsPane, jitscope_inputs_pane, JITSCOPE, INPUTS_PANE, GtkBox)

void jitscope_inputs_pane_set_specs(JitscopeInputsPane *self, const char *const *lines, guint n);
/* Non-empty lines, trimmed (char*, owned by the array). */
GPtrArray *jitscope_inputs_pane_get_specs(JitscopeInputsPane *self);
guint64 jitscope_inputs_pane_get_seed(JitscopeInputsPane *self);
/* The run's progress. Static (no spinner): an animation redraws every frame, which on software
 * GL can starve the main loop of the very results the window waits for. */
void jitscope_inputs_pane_set_progress(JitscopeInputsPane *self, double fraction, const char *text);
/* The status line under the inputs; `error` shows it in red. */
void jitscope_inputs_pane_set_status(JitscopeInputsPane *self, const char *text, gboolean error);
const char *jitscope_inputs_pane_get_status(JitscopeInputsPane *self);

G_END_DECLS

#endif
