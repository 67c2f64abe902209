/* Helpers of the UI tests under Xvfb: waiting for the window, actions, screenshots. */
#ifndef JITSCOPE_TESTS_UI_TEST_UTIL_H
#define JITSCOPE_TESTS_UI_TEST_UTIL_H

#include <gtk/gtk.h>

/* The widgets' private headers: the getters the tests read (and the window's fields). */
#include "jitscope-compare-view-private.h"
#include "jitscope-graph-view-private.h"
#include "jitscope-plans-tree-private.h"
#include "jitscope-window-private.h"

/* Every wait is for an event, never for an amount of time: on a busy machine anything may
 * take long, and the suite's timeout is the only clock. */

/* Dispatches what is pending now and what that queues (a bounded number of iterations: "until
 * nothing is pending" never ends while anything animates). */
void dispatch_pending(void);
/* Iterates the main loop until the window is not busy (run, layout, export). */
void wait_idle(JitscopeWindow *window);
/* Iterates the main loop until the window's frame clock has painted n more frames. */
void wait_frames(JitscopeWindow *window, int n);
/* Until the window is mapped with a size and painted, then wait_idle: a window opened on a
 * program with specs has run it and shows its first stage. */
void wait_shown(JitscopeWindow *window);
/* Activates a window action (with a parameter of GVariant format `format`), then wait_idle. */
void act(JitscopeWindow *window, const char *action, const char *format, ...);
/* The view's whole scene lies inside the canvas and fills it in one direction (as fit made
 * it). */
void assert_fitted(JitscopeGraphView *view);
/* Renders the window (paintable -> render node -> texture), checks that the picture has
 * content (many colours, and not one colour over most of it), saves it as `name` under
 * $JITSCOPE_SCREENSHOT_DIR when that is set. */
void screenshot(JitscopeWindow *window, const char *name);
/* The same for any window (a dialog). */
void screenshot_window(GtkWindow *window, const char *name);

#endif
