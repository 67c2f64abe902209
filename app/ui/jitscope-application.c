/* The application (contract in jitscope-application.h). */
#include "jitscope-application.h"

#include "tensor/host_allocator.h"

/* Seconds between trims of tensor memory the window's runs left cached and did not reuse. */
#define HOST_CACHE_TRIM_INTERVAL_S 10

struct _JitscopeApplication {
  GtkApplication parent_instance;
};

G_DEFINE_FINAL_TYPE(JitscopeApplication, jitscope_application, GTK_TYPE_APPLICATION)

#define EXAMPLE "/io/github/jitscope/Jitscope/examples/lstm_cell.ir"

/* The stylesheet, once per display (also when the application was never registered). */
static void load_css(void) {
  static gboolean loaded;
  GdkDisplay *display = gdk_display_get_default();
  if (loaded || !display)
    return;
  GtkCssProvider *provider = gtk_css_provider_new();
  gtk_css_provider_load_from_resource(provider, "/io/github/jitscope/Jitscope/style.css");
  gtk_style_context_add_provider_for_display(display, GTK_STYLE_PROVIDER(provider),
                                             GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
  g_object_unref(provider);
  loaded = TRUE;
}

JitscopeWindow *jitscope_application_open_window(JitscopeApplication *self, const char *path) {
  load_css();
  JitscopeWindow *window = jitscope_window_new(GTK_APPLICATION(self));
  /* The window takes the specs from the program's header and runs it (jitscope-window.h). */
  if (path) {
    jitscope_window_open_file(window, path);
  } else {
    GBytes *bytes = g_resources_lookup_data(EXAMPLE, G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);
    if (bytes) {
      gsize size = 0;
      const char *data = g_bytes_get_data(bytes, &size);
      char *text = g_strndup(data, size);
      jitscope_window_set_program(window, text, "lstm_cell.ir");
      g_free(text);
      g_bytes_unref(bytes);
    }
  }
  gtk_window_present(GTK_WINDOW(window));
  return window;
}

static void jitscope_application_activate(GApplication *app) {
  jitscope_application_open_window(JITSCOPE_APPLICATION(app), NULL);
}

static void jitscope_application_open(GApplication *app, GFile **files, int n_files,
                                      const char *hint) {
  for (int i = 0; i < n_files; i++) {
    char *path = g_file_get_path(files[i]);
    jitscope_application_open_window(JITSCOPE_APPLICATION(app), path);
    g_free(path);
  }
}

static void jitscope_application_startup(GApplication *app) {
  G_APPLICATION_CLASS(jitscope_application_parent_class)->startup(app);
  rt_host_allocator_trim_when_idle(HOST_CACHE_TRIM_INTERVAL_S);
  static const struct {
    const char *action;
    const char *accels[4];
  } accels[] = {
      {"win.open", {"<Control>o", NULL}},
      {"win.paste", {"<Control><Shift>v", NULL}},
      {"win.run", {"<Control>r", "F5", NULL}},
      {"win.add-spec", {"<Control><Shift>a", NULL}},
      {"win.export", {"<Control>e", NULL}},
      {"win.export-graph", {"<Control><Shift>e", NULL}},
      {"win.copy-ir", {"<Control><Shift>i", NULL}},
      {"win.export-bundle", {"<Control><Shift>b", NULL}},
      {"win.search", {"<Control>f", NULL}},
      {"win.compare", {"<Control>k", NULL}},
      {"win.dark", {"<Control>d", NULL}},
      {"win.fit", {"<Control>0", NULL}},
      {"win.zoom-in", {"<Control>plus", "<Control>equal", NULL}},
      {"win.zoom-out", {"<Control>minus", NULL}},
      {"win.next-stage", {"<Alt>Down", NULL}},
      {"win.prev-stage", {"<Alt>Up", NULL}},
      {"win.next-changed", {"<Alt><Shift>Down", NULL}},
      {"win.prev-changed", {"<Alt><Shift>Up", NULL}},
      {"win.next-plan", {"<Alt>Page_Down", NULL}},
      {"win.prev-plan", {"<Alt>Page_Up", NULL}},
      {"app.quit", {"<Control>q", NULL}},
  };
  for (guint i = 0; i < G_N_ELEMENTS(accels); i++)
    gtk_application_set_accels_for_action(GTK_APPLICATION(app), accels[i].action, accels[i].accels);
}

static void quit_activated(GSimpleAction *action, GVariant *param, gpointer app) {
  g_application_quit(G_APPLICATION(app));
}

static void jitscope_application_class_init(JitscopeApplicationClass *klass) {
  GApplicationClass *app_class = G_APPLICATION_CLASS(klass);
  app_class->activate = jitscope_application_activate;
  app_class->open = jitscope_application_open;
  app_class->startup = jitscope_application_startup;
}

static void jitscope_application_init(JitscopeApplication *self) {
  GSimpleAction *quit = g_simple_action_new("quit", NULL);
  g_signal_connect(quit, "activate", G_CALLBACK(quit_activated), self);
  g_action_map_add_action(G_ACTION_MAP(self), G_ACTION(quit));
  g_object_unref(quit);
}

JitscopeApplication *jitscope_application_new(void) {
  return g_object_new(JITSCOPE_TYPE_APPLICATION, "application-id", "io.github.jitscope.Jitscope",
                      "flags", G_APPLICATION_HANDLES_OPEN | G_APPLICATION_NON_UNIQUE,
                      "resource-base-path", "/io/github/jitscope/Jitscope", NULL);
}

int jitscope_application_main(const char *file) {
  /* Without a display the window cannot open: an error (exit 2) like any other, not GTK's
   * own message and status 1. */
  if (!gtk_init_check()) {
    g_printerr("jitscope: error: cannot open the workbench window: no display (DISPLAY and "
               "WAYLAND_DISPLAY are unset or unusable); use a command such as 'jitscope run "
               "%s --input SPEC...' instead\n",
               file ? file : "FILE");
    return 2;
  }
  JitscopeApplication *app = jitscope_application_new();
  char *argv[] = {(char *)"jitscope", (char *)file, NULL};
  int status = g_application_run(G_APPLICATION(app), file ? 2 : 1, argv);
  g_object_unref(app);
  return status;
}
