/* JitscopeApplication (io.github.jitscope.Jitscope): opens a JitscopeWindow on each FILE, or
 * on the bundled LSTM example (run at once with the specs of its header); keyboard shortcuts of the window's
 * actions. */
#ifndef JITSCOPE_APPLICATION_H
#define JITSCOPE_APPLICATION_H

#include <gtk/gtk.h>

#include "jitscope-window.h"

G_BEGIN_DECLS

#define JITSCOPE_TYPE_APPLICATION (jitscope_application_get_type())
G_DECLARE_FINAL_TYPE(JitscopeApplication, jitscope_application, JITSCOPE, APPLICATION,
                     GtkApplication)

JitscopeApplication *jitscope_application_new(void);
/* A window on `path`, or on the LSTM example when NULL. */
JitscopeWindow *jitscope_application_open_window(JitscopeApplication *self, const char *path);
/* Runs the application on FILE (NULL: the example); what `jitscope [FILE]` calls. */
int jitscope_application_main(const char *file);

G_END_DECLS

#endif
