/* Helpers of the UI tests (contract in ui_test_util.h). */
#include "ui_test_util.h"

#include <glib/gstdio.h>
#include <string.h>

void dispatch_pending(void) {
  for (int i = 0; i < 50 && g_main_context_iteration(NULL, FALSE); i++)
    ;
}

void wait_idle(JitscopeWindow *window) {
  dispatch_pending();
  while (jitscope_window_is_busy(window))
    g_main_context_iteration(NULL, TRUE);
  dispatch_pending();
}

static void count_paint(GdkFrameClock *clock, int *painted) {
  (*painted)++;
}

static void wait_widget_frames(GtkWidget *widget, int n) {
  while (!gtk_widget_get_mapped(widget))
    g_main_context_iteration(NULL, TRUE);
  GdkFrameClock *clock = gtk_widget_get_frame_clock(widget);
  int painted = 0;
  gulong handler = g_signal_connect(clock, "after-paint", G_CALLBACK(count_paint), &painted);
  while (painted < n) {
    gtk_widget_queue_draw(widget);
    g_main_context_iteration(NULL, TRUE);
  }
  g_signal_handler_disconnect(clock, handler);
}

void wait_frames(JitscopeWindow *window, int n) {
  wait_widget_frames(GTK_WIDGET(window), n);
}

void wait_shown(JitscopeWindow *window) {
  wait_frames(window, 2);
  while (gtk_widget_get_width(GTK_WIDGET(window)) <= 100)
    wait_frames(window, 1);
  wait_idle(window);
}

void assert_fitted(JitscopeGraphView *view) {
  AppScene *scene = jitscope_graph_view_get_scene(view);
  g_assert_nonnull(scene);
  double x0, y0, x1, y1;
  g_assert_true(jitscope_graph_view_scene_to_widget(view, 0, 0, &x0, &y0));
  g_assert_true(jitscope_graph_view_scene_to_widget(view, scene->width, scene->height, &x1, &y1));
  int w = gtk_widget_get_width(GTK_WIDGET(view)), h = gtk_widget_get_height(GTK_WIDGET(view));
  g_test_message("scene %.0f x %.0f drawn at (%.0f, %.0f)-(%.0f, %.0f) in %d x %d", scene->width,
                 scene->height, x0, y0, x1, y1, w, h);
  g_assert_cmpfloat(x0, >=, 0);
  g_assert_cmpfloat(y0, >=, 0);
  g_assert_cmpfloat(x1, <=, w);
  g_assert_cmpfloat(y1, <=, h);
  /* and fills it in one direction, or is drawn at the largest zoom fit uses */
  g_assert_true(x1 - x0 > w * 0.8 || y1 - y0 > h * 0.8 ||
                jitscope_graph_view_get_zoom(view) >= 2.0);
}

void act(JitscopeWindow *window, const char *action, const char *format, ...) {
  GVariant *param = NULL;
  if (format) {
    va_list args;
    va_start(args, format);
    param = g_variant_new_va(format, NULL, &args);
    va_end(args);
  }
  g_assert_true(gtk_widget_activate_action_variant(GTK_WIDGET(window), action, param));
  wait_idle(window);
}

void screenshot(JitscopeWindow *window, const char *name) {
  screenshot_window(GTK_WINDOW(window), name);
}

void screenshot_window(GtkWindow *window, const char *name) {
  GtkWidget *widget = GTK_WIDGET(window);
  wait_widget_frames(widget, 3);
  int w = gtk_widget_get_width(widget), h = gtk_widget_get_height(widget);
  g_assert_cmpint(w, >, 100);
  GdkPaintable *paintable = gtk_widget_paintable_new(widget);
  GtkSnapshot *snapshot = gtk_snapshot_new();
  gdk_paintable_snapshot(paintable, snapshot, w, h);
  GskRenderNode *node = gtk_snapshot_free_to_node(snapshot);
  g_assert_nonnull(node);
  GskRenderer *renderer = gtk_native_get_renderer(GTK_NATIVE(window));
  GdkTexture *texture =
      gsk_renderer_render_texture(renderer, node, &GRAPHENE_RECT_INIT(0, 0, w, h));
  gsize stride = (gsize)w * 4;
  guchar *pixels = g_malloc(stride * (gsize)h);
  gdk_texture_download(texture, pixels, stride);
  GHashTable *colors = g_hash_table_new(g_direct_hash, g_direct_equal);
  guint samples = 0, most = 0;
  for (int y = 0; y < h; y += 3)
    for (int x = 0; x < w; x += 3) {
      guint32 px;
      memcpy(&px, pixels + (gsize)y * stride + (gsize)x * 4, 4);
      guint n = GPOINTER_TO_UINT(g_hash_table_lookup(colors, GUINT_TO_POINTER(px))) + 1;
      g_hash_table_insert(colors, GUINT_TO_POINTER(px), GUINT_TO_POINTER(n));
      most = MAX(most, n);
      samples++;
    }
  g_assert_cmpuint(g_hash_table_size(colors), >, 50);
  g_assert_cmpuint(most, <, samples * 9 / 10);
  g_hash_table_destroy(colors);
  g_free(pixels);
  const char *dir = g_getenv("JITSCOPE_SCREENSHOT_DIR");
  if (dir) {
    g_mkdir_with_parents(dir, 0755);
    char *path = g_build_filename(dir, name, NULL);
    g_assert_true(gdk_texture_save_to_png(texture, path));
    g_test_message("saved %s", path);
    g_free(path);
  }
  g_object_unref(texture);
  gsk_render_node_unref(node);
  g_object_unref(paintable);
}
