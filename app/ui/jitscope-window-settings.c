/* The window's remembered state (contract in jitscope-window-settings.h). */
#include "jitscope-window-settings.h"

#define SCHEMA_ID "io.github.jitscope.Jitscope"

const char *const jitscope_window_pane_keys[JITSCOPE_WINDOW_N_PANES] = {
    "sidebar-width", "program-height", "middle-width", "plans-height", "canvas-height",
};

int jitscope_window_pane_index(const char *key) {
  for (int i = 0; i < JITSCOPE_WINDOW_N_PANES; i++)
    if (g_str_equal(jitscope_window_pane_keys[i], key))
      return i;
  return -1;
}

static gboolean save_window_state(GtkWindow *window, GSettings *settings) {
  gboolean maximized = gtk_window_is_maximized(window);
  g_settings_set_boolean(settings, "window-maximized", maximized);
  if (!maximized) {
    int w = 0, h = 0;
    gtk_window_get_default_size(window, &w, &h);
    if (w > 0 && h > 0) {
      g_settings_set_int(settings, "window-width", w);
      g_settings_set_int(settings, "window-height", h);
    }
  }
  return FALSE; /* close-request: let the window close */
}

/* The schema is looked up instead of letting g_settings_new abort. */
GSettings *jitscope_window_settings_load(GtkWindow *window, GtkPaned *const *panes,
                                         gboolean *dark) {
  GSettingsSchemaSource *source = g_settings_schema_source_get_default();
  GSettingsSchema *schema =
      source ? g_settings_schema_source_lookup(source, SCHEMA_ID, TRUE) : NULL;
  if (!schema) {
    static gboolean noted;
    if (!noted)
      g_message("GSettings schema %s is not installed: window size, panes and style are not "
                "remembered",
                SCHEMA_ID);
    noted = TRUE;
    return NULL;
  }
  GSettings *settings = g_settings_new_full(schema, NULL, NULL);
  g_settings_schema_unref(schema);
  gtk_window_set_default_size(window, g_settings_get_int(settings, "window-width"),
                              g_settings_get_int(settings, "window-height"));
  if (g_settings_get_boolean(settings, "window-maximized"))
    gtk_window_maximize(window);
  for (int i = 0; i < JITSCOPE_WINDOW_N_PANES; i++)
    g_settings_bind(settings, jitscope_window_pane_keys[i], panes[i], "position",
                    G_SETTINGS_BIND_DEFAULT);
  *dark = g_settings_get_boolean(settings, "dark-style");
  g_signal_connect_object(window, "close-request", G_CALLBACK(save_window_state), settings, 0);
  return settings;
}
