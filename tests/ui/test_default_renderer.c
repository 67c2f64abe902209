/* The window as a new user meets it, with GTK's default renderer (GL: Mesa's llvmpipe under
 * Xvfb, where every frame is expensive) and real key presses through the X server (XTest):
 *   - `jitscope` without arguments runs the bundled example with its header's spec, selects
 *     the forward plan and shows its stage 1 fitted to the canvas, no key pressed (results and
 *     layouts must not wait behind redraws);
 *   - `n` steps (the canvas has the focus as the window opens), stepping keeps the viewport;
 *   - in the spec entry `n` types, Alt+Down steps.
 * The meson test sets neither GSK_RENDERER nor GDK_DEBUG=gl-disable; the test fails if GTK
 * still picked the cairo renderer. Exits 77 without an X11 display; the key presses are
 * skipped without libXtst. */
#include <X11/Xlib.h>
#include <X11/keysym.h>
#include <dlfcn.h>
#include <gdk/x11/gdkx.h>
#include <gtk/gtk.h>
#include <string.h>

#include "jitscope-application.h"
#include "ui_test_util.h"

static JitscopeApplication *app;

/* libXtst is loaded at run time: its development files are not a build dependency. */
typedef int (*FakeKeyFn)(Display *, unsigned int keycode, Bool is_press, unsigned long delay);
static FakeKeyFn fake_key;

static Display *x_display(JitscopeWindow *window) {
  return gdk_x11_display_get_xdisplay(gtk_widget_get_display(GTK_WIDGET(window)));
}

/* Presses and releases `key` with `modifier` held (0: none), as a keyboard would. */
static void press(JitscopeWindow *window, KeySym modifier, KeySym key) {
  Display *d = x_display(window);
  if (modifier)
    fake_key(d, XKeysymToKeycode(d, modifier), True, CurrentTime);
  fake_key(d, XKeysymToKeycode(d, key), True, CurrentTime);
  fake_key(d, XKeysymToKeycode(d, key), False, CurrentTime);
  if (modifier)
    fake_key(d, XKeysymToKeycode(d, modifier), False, CurrentTime);
  XFlush(d);
}

static void wait_stage(JitscopeWindow *window, int stage) {
  while (jitscope_window_get_stage(window) != stage)
    g_main_context_iteration(NULL, TRUE);
  wait_idle(window);
}

/* The first GtkEditable under `widget` whose text contains `needle`. */
static GtkWidget *find_editable(GtkWidget *widget, const char *needle) {
  if (GTK_IS_ENTRY(widget) && strstr(gtk_editable_get_text(GTK_EDITABLE(widget)), needle))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child(widget); child;
       child = gtk_widget_get_next_sibling(child)) {
    GtkWidget *found = find_editable(child, needle);
    if (found)
      return found;
  }
  return NULL;
}

static void test_opens_ready_and_steps(void) {
  JitscopeWindow *window = jitscope_application_open_window(app, NULL);
  gtk_window_set_default_size(GTK_WINDOW(window), 1400, 850);
  wait_shown(window);
  const char *renderer = G_OBJECT_TYPE_NAME(gtk_native_get_renderer(GTK_NATIVE(window)));
  g_test_message("renderer: %s", renderer);
  g_assert_cmpstr(renderer, !=, "GskCairoRenderer");

  /* Ready without a key: the forward plan's first stage, fitted. */
  const AppWorkspaceRun *run = app_workspace_last_run(jitscope_window_get_workspace(window));
  g_assert_nonnull(run);
  g_assert_cmpuint(run->n_failed, ==, 0);
  g_assert_cmpuint(run->plans->len, >=, 2);
  g_assert_cmpint(jitscope_window_get_plan(window), ==, 0);
  g_assert_cmpint(((AppWorkspacePlan *)g_ptr_array_index(run->plans, 0))->kind, ==,
                  EXEC_PLAN_FORWARD);
  g_assert_cmpint(jitscope_window_get_stage(window), ==, 0);
  g_assert_true(g_str_has_prefix(jitscope_window_get_stage_title(window), "Stage 1/"));
  JitscopeGraphView *view = jitscope_window_get_graph_view(window);
  assert_fitted(view);
  screenshot(window, "window-opens-ready.png");
  if (!fake_key) {
    g_test_skip("libXtst.so.6 not found: no key presses");
    gtk_window_destroy(GTK_WINDOW(window));
    return;
  }

  /* n, as the window opened (the canvas has the focus): the next stage, same viewport. */
  XSetInputFocus(x_display(window),
                 gdk_x11_surface_get_xid(gtk_native_get_surface(GTK_NATIVE(window))),
                 RevertToParent, CurrentTime);
  g_assert_true(gtk_widget_has_focus(GTK_WIDGET(view)));
  jitscope_graph_view_zoom(view, 1.5);
  double zoom = jitscope_graph_view_get_zoom(view);
  press(window, 0, XK_n);
  wait_stage(window, 1);
  g_assert_cmpfloat(jitscope_graph_view_get_zoom(view), ==, zoom);

  /* In the spec entry: n is typed, Alt+Down steps. */
  GtkWidget *entry = find_editable(GTK_WIDGET(window), "Float(3, 10)");
  g_assert_nonnull(entry);
  char *before = g_strdup(gtk_editable_get_text(GTK_EDITABLE(entry)));
  g_assert_true(gtk_widget_grab_focus(entry));
  press(window, XK_Alt_L, XK_Down);
  wait_stage(window, 2);
  g_assert_cmpstr(gtk_editable_get_text(GTK_EDITABLE(entry)), ==, before);
  gtk_editable_set_position(GTK_EDITABLE(entry), -1);
  press(window, 0, XK_n);
  while (!g_str_has_suffix(gtk_editable_get_text(GTK_EDITABLE(entry)), "n"))
    g_main_context_iteration(NULL, TRUE);
  g_assert_cmpint(jitscope_window_get_stage(window), ==, 2);
  g_free(before);
  gtk_window_destroy(GTK_WINDOW(window));
}

int main(int argc, char **argv) {
  if (!gtk_init_check()) {
    g_print("1..0 # SKIP no display\n");
    return 77;
  }
  g_test_init(&argc, &argv, NULL);
  g_log_set_always_fatal(G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL);
  if (!GDK_IS_X11_DISPLAY(gdk_display_get_default())) {
    g_print("1..0 # SKIP not an X11 display\n");
    return 77;
  }
  void *xtst = dlopen("libXtst.so.6", RTLD_NOW);
  fake_key = xtst ? (FakeKeyFn)dlsym(xtst, "XTestFakeKeyEvent") : NULL;
  app = jitscope_application_new();
  g_assert_true(g_application_register(G_APPLICATION(app), NULL, NULL));
  g_test_add_func("/default-renderer/opens-ready-and-steps", test_opens_ready_and_steps);
  int status = g_test_run();
  g_object_unref(app);
  return status;
}
