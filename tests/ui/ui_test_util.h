/* Helpers of the UI tests under Xvfb: waiting for the window, actions, screenshots. */
#ifndef JITSCOPE_TESTS_UI_TEST_UTIL_H
#define JITSCOPE_TESTS_UI_TEST_UTIL_H

#include <gtk/gtk.h>

#include "jitscope-window.h"

/* Iterates the main loop until the window is not busy (run, layout, export; at most 120 s). */
void wait_idle(JitscopeWindow *window);
/* n rounds of 10 ms and every pending event. */
void wait_frames(int n);
/* Activates a window action (with a parameter of GVariant format `format`), then wait_idle. */
void act(JitscopeWindow *window, const char *action, const char *format, ...);
/* Renders the window (paintable -> render node -> texture), checks that the picture has
 * content (many colours, and not one colour over most of it), saves it as `name` under
 * $JITSCOPE_SCREENSHOT_DIR when that is set. */
void screenshot(JitscopeWindow *window, const char *name);

#endif
