/* What JitscopeWindow remembers with GSettings (schema io.github.jitscope.Jitscope): window
 * size and maximized state (saved when the window closes), pane positions (bound), the dark
 * style. The schema may be missing (an uninstalled build): then nothing is remembered and a
 * message says so once. Not a widget: a part of jitscope-window.c kept in its own file. */
#ifndef JITSCOPE_WINDOW_SETTINGS_H
#define JITSCOPE_WINDOW_SETTINGS_H

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define JITSCOPE_WINDOW_N_PANES 5

/* The settings keys of the panes, in the order jitscope_window_settings_load takes them:
 * sidebar-width, program-height, middle-width, plans-height, canvas-height. */
extern const char *const jitscope_window_pane_keys[JITSCOPE_WINDOW_N_PANES];
/* Index of a pane key, or -1. */
int jitscope_window_pane_index(const char *key);

/* Applies the remembered size and style to `window`, binds `panes` (JITSCOPE_WINDOW_N_PANES,
 * in key order) and saves the size on close-request. *dark gets the remembered style. A new
 * reference, or NULL without the schema. */
GSettings *jitscope_window_settings_load(GtkWindow *window, GtkPaned *const *panes, gboolean *dark);

G_END_DECLS

#endif
