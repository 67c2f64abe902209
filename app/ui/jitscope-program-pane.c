/* The program pane (contract in jitscope-program-pane.h). */
#include "jitscope-program-pane.h"

#include <string.h>

#define RECENT_GROUP "jitscope"
#define MAX_RECENT 8

struct _JitscopeProgramPane {
  GtkBox parent_instance;
  GtkLabel *title, *error_label;
  GtkTextView *view;
  GtkScrolledWindow *scroller;
  GMenu *recent_section;
  GtkMenuButton *recent_button;
  GtkWidget *gutter;
  GtkTextTag *error_tag;
  AppWorkspace *ws;
  guint parse_source;
  int error_line;
};

G_DEFINE_FINAL_TYPE(JitscopeProgramPane, jitscope_program_pane, GTK_TYPE_BOX)

enum { SIGNAL_PROGRAM_CHANGED, SIGNAL_PROGRAM_LOADED, SIGNAL_MESSAGE, N_SIGNALS };
static guint signals[N_SIGNALS];

/* ---- the gutter ---- */

static void draw_gutter(GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer data) {
  JitscopeProgramPane *self = data;
  GdkRGBA fg;
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS /* gtk_widget_get_color is GTK 4.10 */
      gtk_style_context_get_color(gtk_widget_get_style_context(GTK_WIDGET(area)), &fg);
  G_GNUC_END_IGNORE_DEPRECATIONS
  GdkRectangle visible;
  gtk_text_view_get_visible_rect(self->view, &visible);
  GtkTextIter iter;
  int line_top = 0;
  gtk_text_view_get_line_at_y(self->view, &iter, visible.y, &line_top);
  PangoLayout *layout = gtk_widget_create_pango_layout(GTK_WIDGET(area), "");
  PangoFontDescription *font = pango_font_description_from_string("Monospace 9");
  pango_layout_set_font_description(layout, font);
  pango_font_description_free(font);
  for (;;) {
    int y = 0, line_height = 0;
    gtk_text_view_get_line_yrange(self->view, &iter, &y, &line_height);
    if (y > visible.y + visible.height)
      break;
    int wx = 0, wy = 0;
    gtk_text_view_buffer_to_window_coords(self->view, GTK_TEXT_WINDOW_LEFT, 0, y, &wx, &wy);
    int line = gtk_text_iter_get_line(&iter) + 1;
    char number[16];
    g_snprintf(number, sizeof number, "%d", line);
    pango_layout_set_text(layout, number, -1);
    int lw = 0, lh = 0;
    pango_layout_get_pixel_size(layout, &lw, &lh);
    if (line == self->error_line) {
      cairo_set_source_rgba(cr, 0.88, 0.11, 0.14, 0.25);
      cairo_rectangle(cr, 0, wy, width, line_height);
      cairo_fill(cr);
      cairo_set_source_rgba(cr, 0.75, 0.07, 0.1, 1);
    } else {
      cairo_set_source_rgba(cr, fg.red, fg.green, fg.blue, 0.45);
    }
    cairo_move_to(cr, width - lw - 6, wy + (line_height - lh) / 2.0);
    pango_cairo_show_layout(cr, layout);
    if (!gtk_text_iter_forward_line(&iter))
      break;
  }
  g_object_unref(layout);
}

static void resize_gutter(JitscopeProgramPane *self) {
  GtkTextBuffer *buffer = gtk_text_view_get_buffer(self->view);
  int lines = gtk_text_buffer_get_line_count(buffer), digits = 1;
  while (lines >= 10) {
    lines /= 10;
    digits++;
  }
  gtk_widget_set_size_request(self->gutter, 14 + 8 * MAX(digits, 2), -1);
  gtk_widget_queue_draw(self->gutter);
}

/* ---- parsing ---- */

static void show_state(JitscopeProgramPane *self) {
  GtkTextBuffer *buffer = gtk_text_view_get_buffer(self->view);
  GtkTextIter start, end;
  gtk_text_buffer_get_bounds(buffer, &start, &end);
  gtk_text_buffer_remove_tag(buffer, self->error_tag, &start, &end);
  int line = 0, col = 0;
  const GError *error = app_workspace_parse_error(self->ws, &line, &col);
  char *title = g_strdup_printf("Program: %s", app_workspace_filename(self->ws));
  gtk_label_set_text(self->title, title);
  gtk_widget_set_tooltip_text(GTK_WIDGET(self->title), title);
  g_free(title);
  self->error_line = error ? line : 0;
  gtk_widget_set_visible(GTK_WIDGET(self->error_label), error != NULL);
  if (error) {
    gtk_label_set_text(self->error_label, error->message);
    if (line > 0 && line <= gtk_text_buffer_get_line_count(buffer)) {
      GtkTextIter a, b;
      gtk_text_buffer_get_iter_at_line(buffer, &a, line - 1);
      b = a;
      if (!gtk_text_iter_ends_line(&b))
        gtk_text_iter_forward_to_line_end(&b);
      gtk_text_buffer_apply_tag(buffer, self->error_tag, &a, &b);
    }
  }
  gtk_widget_queue_draw(self->gutter);
  g_signal_emit(self, signals[SIGNAL_PROGRAM_CHANGED], 0);
}

static void parse_buffer(JitscopeProgramPane *self) {
  GtkTextBuffer *buffer = gtk_text_view_get_buffer(self->view);
  GtkTextIter start, end;
  gtk_text_buffer_get_bounds(buffer, &start, &end);
  char *text = gtk_text_buffer_get_text(buffer, &start, &end, FALSE);
  app_workspace_set_text(self->ws, text, NULL);
  g_free(text);
  show_state(self);
}

static gboolean parse_later(gpointer data) {
  JitscopeProgramPane *self = data;
  self->parse_source = 0;
  parse_buffer(self);
  return G_SOURCE_REMOVE;
}

static void on_buffer_changed(GtkTextBuffer *buffer, JitscopeProgramPane *self) {
  resize_gutter(self);
  if (!self->ws)
    return;
  if (self->parse_source)
    g_source_remove(self->parse_source);
  self->parse_source = g_timeout_add(300, parse_later, self);
}

void jitscope_program_pane_flush(JitscopeProgramPane *self) {
  if (!self->parse_source)
    return;
  g_source_remove(self->parse_source);
  self->parse_source = 0;
  parse_buffer(self);
}

void jitscope_program_pane_set_workspace(JitscopeProgramPane *self, AppWorkspace *ws) {
  self->ws = ws;
}

void jitscope_program_pane_set_program(JitscopeProgramPane *self, const char *text,
                                       const char *filename) {
  if (self->parse_source)
    g_source_remove(self->parse_source);
  self->parse_source = 0;
  app_workspace_set_text(self->ws, text, filename);
  GtkTextBuffer *buffer = gtk_text_view_get_buffer(self->view);
  g_signal_handlers_block_by_func(buffer, on_buffer_changed, self);
  gtk_text_buffer_set_text(buffer, text, -1);
  g_signal_handlers_unblock_by_func(buffer, on_buffer_changed, self);
  resize_gutter(self);
  show_state(self);
  g_signal_emit(self, signals[SIGNAL_PROGRAM_LOADED], 0);
}

/* ---- recent files ---- */

static void fill_recent(JitscopeProgramPane *self) {
  g_menu_remove_all(self->recent_section);
  GList *items = gtk_recent_manager_get_items(gtk_recent_manager_get_default());
  guint n = 0;
  for (GList *l = items; l && n < MAX_RECENT; l = l->next) {
    GtkRecentInfo *info = l->data;
    if (!gtk_recent_info_has_group(info, RECENT_GROUP) || !gtk_recent_info_exists(info))
      continue;
    GMenuItem *item = g_menu_item_new(gtk_recent_info_get_display_name(info), NULL);
    g_menu_item_set_action_and_target(item, "program.open-recent", "s",
                                      gtk_recent_info_get_uri(info));
    g_menu_append_item(self->recent_section, item);
    g_object_unref(item);
    n++;
  }
  g_list_free_full(items, (GDestroyNotify)gtk_recent_info_unref);
  if (n == 0) {
    GMenuItem *item = g_menu_item_new("No recent graph files", NULL);
    g_menu_append_item(self->recent_section, item);
    g_object_unref(item);
  }
}

static void remember(const char *path) {
  char *uri = g_filename_to_uri(path, NULL, NULL);
  if (!uri)
    return;
  static const char *groups[] = {RECENT_GROUP, NULL};
  GtkRecentData data = {.display_name = NULL,
                        .mime_type = (char *)"text/plain",
                        .app_name = (char *)"jitscope",
                        .app_exec = (char *)"jitscope %f",
                        .groups = (char **)groups};
  gtk_recent_manager_add_full(gtk_recent_manager_get_default(), uri, &data);
  g_free(uri);
}

gboolean jitscope_program_pane_open_file(JitscopeProgramPane *self, const char *path) {
  GError *error = NULL;
  char *text = NULL;
  gsize length = 0;
  if (!g_file_get_contents(path, &text, &length, &error) || !g_utf8_validate(text, -1, NULL)) {
    char *message =
        g_strdup_printf("Cannot open %s: %s", path, error ? error->message : "not UTF-8 text");
    g_signal_emit(self, signals[SIGNAL_MESSAGE], 0, message);
    g_free(message);
    g_clear_error(&error);
    g_free(text);
    return FALSE;
  }
  jitscope_program_pane_set_program(self, text, path);
  g_free(text);
  remember(path);
  return TRUE;
}

const char *jitscope_program_pane_get_error(JitscopeProgramPane *self) {
  return gtk_widget_get_visible(GTK_WIDGET(self->error_label))
             ? gtk_label_get_text(self->error_label)
             : NULL;
}

/* ---- drag and drop, clipboard ---- */

static gboolean on_drop(GtkDropTarget *target, const GValue *value, double x, double y,
                        JitscopeProgramPane *self) {
  if (G_VALUE_HOLDS(value, G_TYPE_FILE)) {
    char *path = g_file_get_path(g_value_get_object(value));
    gboolean ok = path && jitscope_program_pane_open_file(self, path);
    g_free(path);
    return ok;
  }
  if (G_VALUE_HOLDS(value, G_TYPE_STRING)) {
    jitscope_program_pane_set_program(self, g_value_get_string(value), "<dropped>");
    return TRUE;
  }
  return FALSE;
}

static void on_clipboard_text(GObject *source, GAsyncResult *result, gpointer data) {
  JitscopeProgramPane *self = data;
  GError *error = NULL;
  char *text = gdk_clipboard_read_text_finish(GDK_CLIPBOARD(source), result, &error);
  if (text && *text) {
    jitscope_program_pane_set_program(self, text, "<pasted>");
  } else {
    char *message = g_strdup_printf("Nothing to paste: %s",
                                    error ? error->message : "the clipboard holds no text");
    g_signal_emit(self, signals[SIGNAL_MESSAGE], 0, message);
    g_free(message);
  }
  g_clear_error(&error);
  g_free(text);
  g_object_unref(self);
}

/* ---- actions ---- */

static void on_open_response(GtkNativeDialog *dialog, int response, JitscopeProgramPane *self) {
  if (response == GTK_RESPONSE_ACCEPT) {
    GFile *file = gtk_file_chooser_get_file(GTK_FILE_CHOOSER(dialog));
    char *path = file ? g_file_get_path(file) : NULL;
    if (path)
      jitscope_program_pane_open_file(self, path);
    g_free(path);
    g_clear_object(&file);
  }
  g_object_unref(dialog);
}

static void action_open(GtkWidget *widget, const char *name, GVariant *param) {
  GtkRoot *root = gtk_widget_get_root(widget);
  GtkFileChooserNative *dialog =
      gtk_file_chooser_native_new("Open Graph", GTK_IS_WINDOW(root) ? GTK_WINDOW(root) : NULL,
                                  GTK_FILE_CHOOSER_ACTION_OPEN, "_Open", "_Cancel");
  GtkFileFilter *filter = gtk_file_filter_new();
  gtk_file_filter_set_name(filter, "Graph text (*.ir, *.txt)");
  gtk_file_filter_add_pattern(filter, "*.ir");
  gtk_file_filter_add_pattern(filter, "*.txt");
  gtk_file_chooser_add_filter(GTK_FILE_CHOOSER(dialog), filter);
  g_object_unref(filter);
  g_signal_connect(dialog, "response", G_CALLBACK(on_open_response), widget);
  gtk_native_dialog_show(GTK_NATIVE_DIALOG(dialog));
}

static void action_paste(GtkWidget *widget, const char *name, GVariant *param) {
  gdk_clipboard_read_text_async(gtk_widget_get_clipboard(widget), NULL, on_clipboard_text,
                                g_object_ref(widget));
}

static void action_open_recent(GtkWidget *widget, const char *name, GVariant *param) {
  char *path = g_filename_from_uri(g_variant_get_string(param, NULL), NULL, NULL);
  if (path)
    jitscope_program_pane_open_file(JITSCOPE_PROGRAM_PANE(widget), path);
  g_free(path);
}

static void action_goto_error(GtkWidget *widget, const char *name, GVariant *param) {
  JitscopeProgramPane *self = JITSCOPE_PROGRAM_PANE(widget);
  int line = 0, col = 0;
  if (!self->ws || !app_workspace_parse_error(self->ws, &line, &col) || line <= 0)
    return;
  GtkTextBuffer *buffer = gtk_text_view_get_buffer(self->view);
  GtkTextIter iter;
  gtk_text_buffer_get_iter_at_line_offset(buffer, &iter, line - 1, MAX(col - 1, 0));
  gtk_text_buffer_place_cursor(buffer, &iter);
  gtk_text_view_scroll_to_iter(self->view, &iter, 0.1, FALSE, 0, 0.3);
  gtk_widget_grab_focus(GTK_WIDGET(self->view));
}

static void on_recent_popup(GtkMenuButton *button, gpointer data) {
  fill_recent(data);
}

static void jitscope_program_pane_dispose(GObject *object) {
  JitscopeProgramPane *self = JITSCOPE_PROGRAM_PANE(object);
  if (self->parse_source)
    g_source_remove(self->parse_source);
  self->parse_source = 0;
  gtk_widget_dispose_template(GTK_WIDGET(self), JITSCOPE_TYPE_PROGRAM_PANE);
  G_OBJECT_CLASS(jitscope_program_pane_parent_class)->dispose(object);
}

static void jitscope_program_pane_class_init(JitscopeProgramPaneClass *klass) {
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);
  G_OBJECT_CLASS(klass)->dispose = jitscope_program_pane_dispose;
  gtk_widget_class_set_template_from_resource(
      widget_class, "/io/github/jitscope/Jitscope/ui/jitscope-program-pane.ui");
  gtk_widget_class_bind_template_child(widget_class, JitscopeProgramPane, title);
  gtk_widget_class_bind_template_child(widget_class, JitscopeProgramPane, error_label);
  gtk_widget_class_bind_template_child(widget_class, JitscopeProgramPane, view);
  gtk_widget_class_bind_template_child(widget_class, JitscopeProgramPane, scroller);
  gtk_widget_class_bind_template_child(widget_class, JitscopeProgramPane, recent_section);
  gtk_widget_class_bind_template_child(widget_class, JitscopeProgramPane, recent_button);
  signals[SIGNAL_PROGRAM_CHANGED] =
      g_signal_new("program-changed", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                   NULL, G_TYPE_NONE, 0);
  signals[SIGNAL_PROGRAM_LOADED] =
      g_signal_new("program-loaded", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                   NULL, G_TYPE_NONE, 0);
  signals[SIGNAL_MESSAGE] = g_signal_new("message", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0,
                                         NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
  gtk_widget_class_install_action(widget_class, "program.open", NULL, action_open);
  gtk_widget_class_install_action(widget_class, "program.paste", NULL, action_paste);
  gtk_widget_class_install_action(widget_class, "program.open-recent", "s", action_open_recent);
  gtk_widget_class_install_action(widget_class, "program.goto-error", NULL, action_goto_error);
  gtk_widget_class_add_binding_action(widget_class, GDK_KEY_v, GDK_CONTROL_MASK | GDK_SHIFT_MASK,
                                      "program.paste", NULL);
  gtk_widget_class_add_binding_action(widget_class, GDK_KEY_g, GDK_CONTROL_MASK,
                                      "program.goto-error", NULL);
}

static void on_scrolled(GtkAdjustment *adjustment, JitscopeProgramPane *self) {
  gtk_widget_queue_draw(self->gutter);
}

static void jitscope_program_pane_init(JitscopeProgramPane *self) {
  gtk_widget_init_template(GTK_WIDGET(self));
  GtkTextBuffer *buffer = gtk_text_view_get_buffer(self->view);
  self->error_tag = gtk_text_buffer_create_tag(buffer, "error", "underline", PANGO_UNDERLINE_ERROR,
                                               "background", "rgba(224,27,36,0.18)", NULL);
  g_signal_connect(buffer, "changed", G_CALLBACK(on_buffer_changed), self);
  self->gutter = gtk_drawing_area_new();
  gtk_widget_add_css_class(self->gutter, "gutter");
  gtk_drawing_area_set_draw_func(GTK_DRAWING_AREA(self->gutter), draw_gutter, self, NULL);
  gtk_text_view_set_gutter(self->view, GTK_TEXT_WINDOW_LEFT, self->gutter);
  resize_gutter(self);
  gtk_menu_button_set_create_popup_func(self->recent_button, on_recent_popup, self, NULL);
  fill_recent(self);
  g_signal_connect(gtk_scrolled_window_get_vadjustment(self->scroller), "value-changed",
                   G_CALLBACK(on_scrolled), self);
  GtkDropTarget *drop = gtk_drop_target_new(G_TYPE_INVALID, GDK_ACTION_COPY);
  GType types[] = {G_TYPE_FILE, G_TYPE_STRING};
  gtk_drop_target_set_gtypes(drop, types, G_N_ELEMENTS(types));
  g_signal_connect(drop, "drop", G_CALLBACK(on_drop), self);
  gtk_widget_add_controller(GTK_WIDGET(self->view), GTK_EVENT_CONTROLLER(drop));
}
