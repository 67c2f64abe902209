/* The graph canvas (contract in jitscope-graph-view.h). */
#include "jitscope-graph-view.h"
#include "jitscope-graph-view-private.h"

#include "graphviz_dot.h"

#include <math.h>
#include <string.h>

struct _JitscopeGraphView {
  GtkWidget parent_instance;
  AppScene *scene;
  char *message;
  double zoom;   /* screen pixels per scene point */
  double ox, oy; /* screen position of scene (0, 0) */
  gboolean needs_fit;
  gboolean fitted; /* the view is as fit made it: it fits again when resized */
  int fit_w, fit_h;
  int selected; /* object index (a node or an edge) or -1 */
  int hover;    /* the edge under the pointer (object index) or -1: drawn over the cache */
  guint overlay_count;
  GtkWidget *menu_button; /* over the top right: the canvas menu (template child) */
  double drag_ox, drag_oy;
  /* The cached drawing and the state it was made for. */
  GskRenderNode *cache;
  double cache_zoom, cache_ox, cache_oy;
  int cache_w, cache_h, cache_selected;
  AppScene *cache_scene;
  guint draw_count;
  GHashTable *marked; /* DOT ids drawn with the "not in every plan" outline, or NULL */
  guint cache_marked_serial, marked_serial;
  /* Over the drawing: the layout in progress with its Cancel button (top), the note about
   * the layout's quality (bottom). */
  GtkWidget *progress_box, *note;
  GtkLabel *progress;
  /* A stage layout being waited for (begin_layout .. a done update or layout_cancelled). */
  gboolean waiting;
  gboolean scene_current; /* the scene shown belongs to that layout (a preview, or final) */
  gboolean preview_shown;
};

G_DEFINE_FINAL_TYPE(JitscopeGraphView, jitscope_graph_view, GTK_TYPE_WIDGET)

enum { SIGNAL_NODE_ACTIVATED, SIGNAL_EDGE_ACTIVATED, SIGNAL_CANCEL_LAYOUT, N_SIGNALS };

/* How near the pointer must come to an edge's curve, in screen pixels. */
#define EDGE_HIT_PIXELS 5.0
/* The accent (GNOME blue) of the selection and the hovered edge. */
static const AppColor accent = {0.21, 0.52, 0.89, 1.0};
static guint signals[N_SIGNALS];

static void invalidate(JitscopeGraphView *self) {
  g_clear_pointer(&self->cache, gsk_render_node_unref);
  gtk_widget_queue_draw(GTK_WIDGET(self));
}

static void set_source(cairo_t *cr, const AppColor *c) {
  cairo_set_source_rgba(cr, c->r, c->g, c->b, c->a);
}

static void path_shape(cairo_t *cr, const AppShape *s) {
  const double *p = s->points;
  switch (s->kind) {
  case APP_SHAPE_ELLIPSE:
    cairo_save(cr);
    cairo_translate(cr, p[0], p[1]);
    cairo_scale(cr, MAX(p[2], 0.01), MAX(p[3], 0.01));
    cairo_new_path(cr);
    cairo_arc(cr, 0, 0, 1, 0, 2 * G_PI);
    cairo_restore(cr);
    break;
  case APP_SHAPE_POLYGON:
  case APP_SHAPE_POLYLINE:
    cairo_new_path(cr);
    cairo_move_to(cr, p[0], p[1]);
    for (guint i = 1; i < s->n_points; i++)
      cairo_line_to(cr, p[2 * i], p[2 * i + 1]);
    if (s->kind == APP_SHAPE_POLYGON)
      cairo_close_path(cr);
    break;
  case APP_SHAPE_BEZIER:
    cairo_new_path(cr);
    cairo_move_to(cr, p[0], p[1]);
    for (guint i = 1; i + 2 < s->n_points; i += 3)
      cairo_curve_to(cr, p[2 * i], p[2 * i + 1], p[2 * i + 2], p[2 * i + 3], p[2 * i + 4],
                     p[2 * i + 5]);
    if (s->filled)
      cairo_close_path(cr);
    break;
  case APP_SHAPE_TEXT: break;
  }
}

static void draw_shape(cairo_t *cr, const AppShape *s, double zoom) {
  if (s->kind == APP_SHAPE_TEXT) {
    if (s->font_size * zoom < 3) /* unreadable: a grey bar keeps the shape of the text */
    {
      cairo_set_source_rgba(cr, s->pen.r, s->pen.g, s->pen.b, 0.3);
      cairo_rectangle(cr, s->bounds.x0, s->bounds.y0 + s->font_size * 0.4, s->text_width,
                      s->font_size * 0.5);
      cairo_fill(cr);
      return;
    }
    cairo_select_font_face(cr, "Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, s->font_size);
    cairo_text_extents_t ext;
    cairo_text_extents(cr, s->text, &ext);
    /* Graphviz measured the text: scale ours to its width so that it fits the box. */
    double sx = ext.x_advance > 0 && s->text_width > 0 ? s->text_width / ext.x_advance : 1;
    sx = CLAMP(sx, 0.5, 1.5);
    double x = s->points[0];
    double w = ext.x_advance * sx;
    if (s->justify == 0)
      x -= w / 2;
    else if (s->justify > 0)
      x -= w;
    set_source(cr, &s->pen);
    cairo_save(cr);
    cairo_translate(cr, x, s->points[1]);
    cairo_scale(cr, sx, 1);
    cairo_move_to(cr, 0, 0);
    cairo_show_text(cr, s->text);
    cairo_restore(cr);
    return;
  }
  path_shape(cr, s);
  if (s->filled) {
    set_source(cr, &s->fill);
    cairo_fill_preserve(cr);
  }
  set_source(cr, &s->pen);
  cairo_set_line_width(cr, s->line_width);
  double dashes[2] = {s->dotted ? 1 : 5, s->dotted ? 3 : 3};
  cairo_set_dash(cr, dashes, s->dashed || s->dotted ? 2 : 0, 0);
  cairo_stroke(cr);
  cairo_set_dash(cr, NULL, 0, 0);
}

/* An edge drawn again over itself, thicker and in the accent colour: its curve, its arrow
 * heads and its label. */
static void draw_edge_highlight(cairo_t *cr, const AppScene *scene, guint index, double zoom) {
  const AppObject *o = app_scene_object(scene, index);
  for (guint k = 0; k < o->n_shapes; k++) {
    AppShape s = *app_scene_shape(scene, o->first_shape + k);
    s.pen = s.fill = accent;
    s.dashed = s.dotted = false;
    s.line_width = MAX(s.line_width * 2.5, 3.0 / zoom);
    draw_shape(cr, &s, zoom);
  }
}

static bool visible(const AppRect *r, const AppRect *view) {
  return r->x1 >= view->x0 && r->x0 <= view->x1 && r->y1 >= view->y0 && r->y0 <= view->y1;
}

static void draw_scene(JitscopeGraphView *self, cairo_t *cr, int w, int h) {
  cairo_translate(cr, self->ox, self->oy);
  cairo_scale(cr, self->zoom, self->zoom);
  AppRect view = {-self->ox / self->zoom, -self->oy / self->zoom, (w - self->ox) / self->zoom,
                  (h - self->oy) / self->zoom};
  AppScene *scene = self->scene;
  for (guint i = 0; i < scene->objects->len; i++) {
    const AppObject *o = app_scene_object(scene, i);
    if (o->n_shapes == 0 || !visible(&o->bounds, &view))
      continue;
    for (guint k = 0; k < o->n_shapes; k++)
      draw_shape(cr, app_scene_shape(scene, o->first_shape + k), self->zoom);
  }
  if (self->marked) {
    /* Nodes the compare view found in this plan only: a thick magenta frame and a corner
     * badge, drawn over the node so that they show at any zoom. */
    for (guint i = 0; i < scene->objects->len; i++) {
      const AppObject *o = app_scene_object(scene, i);
      if (o->kind != APP_OBJECT_NODE || !g_hash_table_contains(self->marked, o->id) ||
          !visible(&o->bounds, &view))
        continue;
      double pad = 4 / self->zoom + 2;
      cairo_set_source_rgba(cr, 0.85, 0.0, 0.55, 0.95);
      cairo_set_line_width(cr, MAX(3.5 / self->zoom, 1.5));
      cairo_rectangle(cr, o->bounds.x0 - pad, o->bounds.y0 - pad,
                      o->bounds.x1 - o->bounds.x0 + 2 * pad, o->bounds.y1 - o->bounds.y0 + 2 * pad);
      cairo_stroke(cr);
      double r = MAX(7 / self->zoom, 4);
      cairo_arc(cr, o->bounds.x1 + pad, o->bounds.y0 - pad, r, 0, 2 * G_PI);
      cairo_fill(cr);
    }
  }
  if (self->selected >= 0 && (guint)self->selected < scene->objects->len &&
      app_scene_object(scene, (guint)self->selected)->kind == APP_OBJECT_EDGE) {
    draw_edge_highlight(cr, scene, (guint)self->selected, self->zoom);
  } else if (self->selected >= 0 && (guint)self->selected < scene->objects->len) {
    const AppObject *o = app_scene_object(scene, (guint)self->selected);
    cairo_set_source_rgba(cr, 0.21, 0.52, 0.89, 0.9);
    cairo_set_line_width(cr, 3 / self->zoom);
    cairo_rectangle(cr, o->bounds.x0 - 3, o->bounds.y0 - 3, o->bounds.x1 - o->bounds.x0 + 6,
                    o->bounds.y1 - o->bounds.y0 + 6);
    cairo_stroke(cr);
  }
}

static void fit_now(JitscopeGraphView *self, int w, int h) {
  if (!self->scene || w <= 0 || h <= 0)
    return;
  double sw = MAX(self->scene->width, 1), sh = MAX(self->scene->height, 1);
  self->zoom = CLAMP(MIN((w - 20) / sw, (h - 20) / sh), 0.02, 2.0);
  self->ox = (w - sw * self->zoom) / 2;
  self->oy = (h - sh * self->zoom) / 2;
  self->needs_fit = FALSE;
  self->fitted = TRUE;
  self->fit_w = w;
  self->fit_h = h;
}

static void draw_canvas(GtkWidget *widget, GtkSnapshot *snapshot) {
  JitscopeGraphView *self = JITSCOPE_GRAPH_VIEW(widget);
  int w = gtk_widget_get_width(widget), h = gtk_widget_get_height(widget);
  if (w <= 0 || h <= 0)
    return;
  if (!self->scene) {
    if (self->message) {
      PangoLayout *layout = gtk_widget_create_pango_layout(widget, self->message);
      pango_layout_set_width(layout, (w - 40) * PANGO_SCALE);
      pango_layout_set_alignment(layout, PANGO_ALIGN_CENTER);
      int lw, lh;
      pango_layout_get_pixel_size(layout, &lw, &lh);
      gtk_snapshot_save(snapshot);
      gtk_snapshot_translate(snapshot, &GRAPHENE_POINT_INIT(20, (h - lh) / 2.0f));
      GdkRGBA grey = {0.5f, 0.5f, 0.5f, 1};
      gtk_snapshot_append_layout(snapshot, layout, &grey);
      gtk_snapshot_restore(snapshot);
      g_object_unref(layout);
    }
    return;
  }
  if (self->needs_fit || (self->fitted && (w != self->fit_w || h != self->fit_h)))
    fit_now(self, w, h);
  bool reusable = self->cache && self->cache_scene == self->scene &&
                  self->cache_zoom == self->zoom && self->cache_ox == self->ox &&
                  self->cache_oy == self->oy && self->cache_w == w && self->cache_h == h &&
                  self->cache_selected == self->selected &&
                  self->cache_marked_serial == self->marked_serial;
  if (!reusable) {
    g_clear_pointer(&self->cache, gsk_render_node_unref);
    GtkSnapshot *inner = gtk_snapshot_new();
    cairo_t *cr = gtk_snapshot_append_cairo(inner, &GRAPHENE_RECT_INIT(0, 0, w, h));
    draw_scene(self, cr, w, h);
    cairo_destroy(cr);
    self->cache = gtk_snapshot_free_to_node(inner);
    self->cache_scene = self->scene;
    self->cache_zoom = self->zoom;
    self->cache_ox = self->ox;
    self->cache_oy = self->oy;
    self->cache_w = w;
    self->cache_h = h;
    self->cache_selected = self->selected;
    self->cache_marked_serial = self->marked_serial;
    self->draw_count++;
  }
  if (self->cache)
    gtk_snapshot_append_node(snapshot, self->cache);
  /* The hovered edge over the cached drawing: moving the pointer redraws only this. */
  if (self->hover >= 0 && (guint)self->hover < self->scene->objects->len) {
    const AppRect *b = &app_scene_object(self->scene, (guint)self->hover)->bounds;
    double pad = 4 + EDGE_HIT_PIXELS;
    graphene_rect_t area = GRAPHENE_RECT_INIT((float)(self->ox + b->x0 * self->zoom - pad),
                                              (float)(self->oy + b->y0 * self->zoom - pad),
                                              (float)((b->x1 - b->x0) * self->zoom + 2 * pad),
                                              (float)((b->y1 - b->y0) * self->zoom + 2 * pad));
    cairo_t *cr = gtk_snapshot_append_cairo(snapshot, &area);
    cairo_translate(cr, self->ox, self->oy);
    cairo_scale(cr, self->zoom, self->zoom);
    draw_edge_highlight(cr, self->scene, (guint)self->hover, self->zoom);
    cairo_destroy(cr);
    self->overlay_count++;
  }
}

static void snapshot_overlays(JitscopeGraphView *self, GtkSnapshot *snapshot) {
  gtk_widget_snapshot_child(GTK_WIDGET(self), self->progress_box, snapshot);
  gtk_widget_snapshot_child(GTK_WIDGET(self), self->note, snapshot);
  gtk_widget_snapshot_child(GTK_WIDGET(self), self->menu_button, snapshot);
}

static void jitscope_graph_view_snapshot(GtkWidget *widget, GtkSnapshot *snapshot) {
  draw_canvas(widget, snapshot);
  snapshot_overlays(JITSCOPE_GRAPH_VIEW(widget), snapshot);
}

static void zoom_about(JitscopeGraphView *self, double factor, double x, double y) {
  double zoom = CLAMP(self->zoom * factor, 0.01, 8.0);
  factor = zoom / self->zoom;
  self->ox = x - (x - self->ox) * factor;
  self->oy = y - (y - self->oy) * factor;
  self->zoom = zoom;
  self->fitted = FALSE;
  invalidate(self);
}

static gboolean on_scroll(GtkEventControllerScroll *controller, double dx, double dy,
                          gpointer data) {
  JitscopeGraphView *self = data;
  if (!self->scene)
    return FALSE;
  GdkModifierType mods =
      gtk_event_controller_get_current_event_state(GTK_EVENT_CONTROLLER(controller));
  if (mods & GDK_CONTROL_MASK) {
    double x = 0, y = 0;
    GdkEvent *event = gtk_event_controller_get_current_event(GTK_EVENT_CONTROLLER(controller));
    if (!event || !gdk_event_get_position(event, &x, &y)) {
      x = gtk_widget_get_width(GTK_WIDGET(self)) / 2.0;
      y = gtk_widget_get_height(GTK_WIDGET(self)) / 2.0;
    } else {
      /* Event positions are relative to the surface; bring them into the widget. */
      GtkNative *native = gtk_widget_get_native(GTK_WIDGET(self));
      double nx = 0, ny = 0;
      gtk_native_get_surface_transform(native, &nx, &ny);
      graphene_point_t in = GRAPHENE_POINT_INIT((float)(x - nx), (float)(y - ny)), out;
      if (gtk_widget_compute_point(GTK_WIDGET(native), GTK_WIDGET(self), &in, &out)) {
        x = out.x;
        y = out.y;
      }
    }
    zoom_about(self, pow(1.1, -dy), x, y);
  } else {
    self->ox -= dx * 30;
    self->oy -= dy * 30;
    self->fitted = FALSE;
    invalidate(self);
  }
  return TRUE;
}

static void on_drag_begin(GtkGestureDrag *gesture, double x, double y, gpointer data) {
  JitscopeGraphView *self = data;
  self->drag_ox = self->ox;
  self->drag_oy = self->oy;
}

static void on_drag_update(GtkGestureDrag *gesture, double dx, double dy, gpointer data) {
  JitscopeGraphView *self = data;
  self->ox = self->drag_ox + dx;
  self->oy = self->drag_oy + dy;
  if (dx != 0 || dy != 0)
    self->fitted = FALSE;
  invalidate(self);
}

/* The node at widget point (x, y), else the edge nearest to it within EDGE_HIT_PIXELS, or -1. */
static int hit_at(JitscopeGraphView *self, double x, double y) {
  if (!self->scene)
    return -1;
  double sx = (x - self->ox) / self->zoom, sy = (y - self->oy) / self->zoom;
  int hit = app_scene_hit_node(self->scene, sx, sy);
  return hit >= 0 ? hit : app_scene_hit_edge(self->scene, sx, sy, EDGE_HIT_PIXELS / self->zoom);
}

static void set_hover(JitscopeGraphView *self, int hover) {
  if (hover == self->hover)
    return;
  self->hover = hover;
  gtk_widget_set_cursor_from_name(GTK_WIDGET(self), hover >= 0 ? "pointer" : NULL);
  gtk_widget_queue_draw(GTK_WIDGET(self)); /* the cached drawing stays */
}

void jitscope_graph_view_hover_at(JitscopeGraphView *self, double x, double y) {
  int hit = hit_at(self, x, y);
  set_hover(self, hit >= 0 && app_scene_object(self->scene, (guint)hit)->kind == APP_OBJECT_EDGE
                      ? hit
                      : -1);
}

static void on_motion(GtkEventControllerMotion *motion, double x, double y, gpointer data) {
  jitscope_graph_view_hover_at(data, x, y);
}

static void on_leave(GtkEventControllerMotion *motion, gpointer data) {
  set_hover(data, -1);
}

static void emit_activated(JitscopeGraphView *self) {
  const AppObject *o =
      self->selected >= 0 ? app_scene_object(self->scene, (guint)self->selected) : NULL;
  g_signal_emit(
      self,
      signals[o && o->kind == APP_OBJECT_EDGE ? SIGNAL_EDGE_ACTIVATED : SIGNAL_NODE_ACTIVATED], 0,
      o ? o->id : "");
}

void jitscope_graph_view_click_at(JitscopeGraphView *self, double x, double y) {
  if (!self->scene)
    return;
  self->selected = hit_at(self, x, y);
  invalidate(self);
  emit_activated(self);
}

static void on_click(GtkGestureClick *gesture, int n_press, double x, double y, gpointer data) {
  gtk_widget_grab_focus(GTK_WIDGET(data));
  jitscope_graph_view_click_at(data, x, y);
}

static void on_menu_click(GtkGestureClick *gesture, int n_press, double x, double y,
                          gpointer data) {
  JitscopeGraphView *self = data;
  gtk_widget_grab_focus(GTK_WIDGET(self));
  gtk_menu_button_popup(GTK_MENU_BUTTON(self->menu_button));
}

static void jitscope_graph_view_dispose(GObject *object) {
  JitscopeGraphView *self = JITSCOPE_GRAPH_VIEW(object);
  g_clear_pointer(&self->cache, gsk_render_node_unref);
  g_clear_pointer(&self->scene, app_scene_unref);
  g_clear_pointer(&self->message, g_free);
  g_clear_pointer(&self->marked, g_hash_table_unref);
  g_clear_pointer(&self->progress_box, gtk_widget_unparent);
  g_clear_pointer(&self->note, gtk_widget_unparent);
  gtk_widget_dispose_template(GTK_WIDGET(self), JITSCOPE_TYPE_GRAPH_VIEW);
  G_OBJECT_CLASS(jitscope_graph_view_parent_class)->dispose(object);
}

static void action_fit(GtkWidget *widget, const char *name, GVariant *param) {
  jitscope_graph_view_fit(JITSCOPE_GRAPH_VIEW(widget));
}

static void action_zoom_in(GtkWidget *widget, const char *name, GVariant *param) {
  jitscope_graph_view_zoom(JITSCOPE_GRAPH_VIEW(widget), 1.25);
}

static void action_zoom_out(GtkWidget *widget, const char *name, GVariant *param) {
  jitscope_graph_view_zoom(JITSCOPE_GRAPH_VIEW(widget), 0.8);
}

static void action_pan(GtkWidget *widget, const char *name, GVariant *param) {
  JitscopeGraphView *self = JITSCOPE_GRAPH_VIEW(widget);
  int dx = 0, dy = 0;
  g_variant_get(param, "(ii)", &dx, &dy);
  self->ox += dx * 60;
  self->oy += dy * 60;
  self->fitted = FALSE;
  invalidate(self);
}

static void action_cancel_layout(GtkWidget *widget, const char *name, GVariant *param) {
  g_signal_emit(widget, signals[SIGNAL_CANCEL_LAYOUT], 0);
}

static void on_cancel_clicked(GtkButton *button, JitscopeGraphView *self) {
  g_signal_emit(self, signals[SIGNAL_CANCEL_LAYOUT], 0);
}

static void jitscope_graph_view_class_init(JitscopeGraphViewClass *klass) {
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);
  G_OBJECT_CLASS(klass)->dispose = jitscope_graph_view_dispose;
  widget_class->snapshot = jitscope_graph_view_snapshot;
  gtk_widget_class_set_template_from_resource(
      widget_class, "/io/github/jitscope/Jitscope/ui/jitscope-graph-view.ui");
  gtk_widget_class_set_css_name(widget_class, "graphview");
  gtk_widget_class_bind_template_child(widget_class, JitscopeGraphView, menu_button);
  signals[SIGNAL_NODE_ACTIVATED] =
      g_signal_new("node-activated", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                   NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
  /* A click on an edge: the edge's id (graphviz_dot.h: names the value it stands for). */
  signals[SIGNAL_EDGE_ACTIVATED] =
      g_signal_new("edge-activated", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                   NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
  /* The Cancel button or Escape while a layout is in progress (set_progress). */
  signals[SIGNAL_CANCEL_LAYOUT] =
      g_signal_new("cancel-layout", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                   NULL, G_TYPE_NONE, 0);
  gtk_widget_class_set_layout_manager_type(widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_install_action(widget_class, "canvas.cancel-layout", NULL, action_cancel_layout);
  gtk_widget_class_add_binding_action(widget_class, GDK_KEY_Escape, 0, "canvas.cancel-layout",
                                      NULL);
  /* Local to the focused canvas (each compare column zooms and pans on its own). */
  gtk_widget_class_install_action(widget_class, "canvas.fit", NULL, action_fit);
  gtk_widget_class_install_action(widget_class, "canvas.zoom-in", NULL, action_zoom_in);
  gtk_widget_class_install_action(widget_class, "canvas.zoom-out", NULL, action_zoom_out);
  gtk_widget_class_install_action(widget_class, "canvas.pan", "(ii)", action_pan);
  gtk_widget_class_add_binding_action(widget_class, GDK_KEY_0, 0, "canvas.fit", NULL);
  gtk_widget_class_add_binding_action(widget_class, GDK_KEY_plus, 0, "canvas.zoom-in", NULL);
  gtk_widget_class_add_binding_action(widget_class, GDK_KEY_equal, 0, "canvas.zoom-in", NULL);
  gtk_widget_class_add_binding_action(widget_class, GDK_KEY_minus, 0, "canvas.zoom-out", NULL);
  /* The window's (state per window, graphviz_dot.h edge_types); every canvas has the key. */
  gtk_widget_class_add_binding_action(widget_class, GDK_KEY_t, 0, "canvas.edge-types", NULL);
  gtk_widget_class_add_binding_action(widget_class, GDK_KEY_Left, GDK_SHIFT_MASK, "canvas.pan",
                                      "(ii)", 1, 0);
  gtk_widget_class_add_binding_action(widget_class, GDK_KEY_Right, GDK_SHIFT_MASK, "canvas.pan",
                                      "(ii)", -1, 0);
  gtk_widget_class_add_binding_action(widget_class, GDK_KEY_Up, GDK_SHIFT_MASK, "canvas.pan",
                                      "(ii)", 0, 1);
  gtk_widget_class_add_binding_action(widget_class, GDK_KEY_Down, GDK_SHIFT_MASK, "canvas.pan",
                                      "(ii)", 0, -1);
}

static void jitscope_graph_view_init(JitscopeGraphView *self) {
  gtk_widget_init_template(GTK_WIDGET(self));
  self->zoom = 1;
  self->selected = self->hover = -1;
  self->needs_fit = TRUE;
  GtkEventController *scroll =
      gtk_event_controller_scroll_new(GTK_EVENT_CONTROLLER_SCROLL_BOTH_AXES);
  g_signal_connect(scroll, "scroll", G_CALLBACK(on_scroll), self);
  gtk_widget_add_controller(GTK_WIDGET(self), scroll);
  GtkGesture *drag = gtk_gesture_drag_new();
  g_signal_connect(drag, "drag-begin", G_CALLBACK(on_drag_begin), self);
  g_signal_connect(drag, "drag-update", G_CALLBACK(on_drag_update), self);
  gtk_widget_add_controller(GTK_WIDGET(self), GTK_EVENT_CONTROLLER(drag));
  GtkGesture *click = gtk_gesture_click_new();
  g_signal_connect(click, "released", G_CALLBACK(on_click), self);
  gtk_widget_add_controller(GTK_WIDGET(self), GTK_EVENT_CONTROLLER(click));
  GtkEventController *motion = gtk_event_controller_motion_new();
  g_signal_connect(motion, "motion", G_CALLBACK(on_motion), self);
  g_signal_connect(motion, "leave", G_CALLBACK(on_leave), self);
  gtk_widget_add_controller(GTK_WIDGET(self), motion);
  GtkGesture *menu_click = gtk_gesture_click_new();
  gtk_gesture_single_set_button(GTK_GESTURE_SINGLE(menu_click), GDK_BUTTON_SECONDARY);
  g_signal_connect(menu_click, "pressed", G_CALLBACK(on_menu_click), self);
  gtk_widget_add_controller(GTK_WIDGET(self), GTK_EVENT_CONTROLLER(menu_click));
  /* Overlays: children laid out by the bin layout, placed by their alignment. */
  self->progress_box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 8);
  gtk_widget_set_halign(self->progress_box, GTK_ALIGN_CENTER);
  gtk_widget_set_valign(self->progress_box, GTK_ALIGN_START);
  gtk_widget_set_margin_top(self->progress_box, 8);
  gtk_widget_add_css_class(self->progress_box, "osd");
  gtk_widget_add_css_class(self->progress_box, "canvas-progress");
  self->progress = GTK_LABEL(gtk_label_new(NULL));
  gtk_label_set_ellipsize(self->progress, PANGO_ELLIPSIZE_END);
  gtk_label_set_max_width_chars(self->progress, 90);
  gtk_box_append(GTK_BOX(self->progress_box), GTK_WIDGET(self->progress));
  GtkWidget *cancel = gtk_button_new_with_label("Cancel (Esc)");
  gtk_widget_set_focusable(cancel, FALSE);
  g_signal_connect(cancel, "clicked", G_CALLBACK(on_cancel_clicked), self);
  gtk_box_append(GTK_BOX(self->progress_box), cancel);
  gtk_widget_set_visible(self->progress_box, FALSE);
  gtk_widget_set_parent(self->progress_box, GTK_WIDGET(self));
  self->note = gtk_label_new(NULL);
  gtk_label_set_wrap(GTK_LABEL(self->note), TRUE);
  gtk_label_set_max_width_chars(GTK_LABEL(self->note), 100);
  gtk_widget_set_halign(self->note, GTK_ALIGN_START);
  gtk_widget_set_valign(self->note, GTK_ALIGN_START); /* the window's legend is bottom right */
  gtk_widget_set_margin_start(self->note, 8);
  gtk_widget_set_margin_top(self->note, 8);
  gtk_widget_set_can_target(self->note, FALSE);
  gtk_widget_add_css_class(self->note, "osd");
  gtk_widget_add_css_class(self->note, "canvas-note");
  gtk_widget_set_visible(self->note, FALSE);
  gtk_widget_set_parent(self->note, GTK_WIDGET(self));
  gtk_widget_action_set_enabled(GTK_WIDGET(self), "canvas.cancel-layout", FALSE);
}

void jitscope_graph_view_set_progress(JitscopeGraphView *self, const char *text) {
  gtk_label_set_text(self->progress, text ? text : "");
  gtk_widget_set_visible(self->progress_box, text != NULL);
  gtk_widget_action_set_enabled(GTK_WIDGET(self), "canvas.cancel-layout", text != NULL);
}

const char *jitscope_graph_view_get_progress(JitscopeGraphView *self) {
  return gtk_widget_get_visible(self->progress_box) ? gtk_label_get_text(self->progress) : NULL;
}

void jitscope_graph_view_set_note(JitscopeGraphView *self, const char *note) {
  gtk_label_set_text(GTK_LABEL(self->note), note ? note : "");
  gtk_widget_set_visible(self->note, note && *note);
}

const char *jitscope_graph_view_get_note(JitscopeGraphView *self) {
  return gtk_widget_get_visible(self->note) ? gtk_label_get_text(GTK_LABEL(self->note)) : NULL;
}

GtkWidget *jitscope_graph_view_new(void) {
  return g_object_new(JITSCOPE_TYPE_GRAPH_VIEW, NULL);
}

void jitscope_graph_view_set_scene(JitscopeGraphView *self, AppScene *scene, gboolean keep_view) {
  const char *selected_id = NULL;
  char *keep_id = NULL;
  if (self->scene && self->selected >= 0) {
    selected_id = app_scene_object(self->scene, (guint)self->selected)->id;
    keep_id = g_strdup(selected_id);
  }
  if (scene)
    app_scene_ref(scene);
  if (!self->scene)
    keep_view = FALSE; /* nothing to keep: fit the first scene */
  g_clear_pointer(&self->scene, app_scene_unref);
  self->scene = scene;
  self->selected = scene && keep_id ? app_scene_find(scene, keep_id) : -1;
  if (self->selected >= 0 &&
      app_scene_object(scene, (guint)self->selected)->kind != APP_OBJECT_NODE &&
      app_scene_object(scene, (guint)self->selected)->kind != APP_OBJECT_EDGE)
    self->selected = -1;
  set_hover(self, -1);
  g_free(keep_id);
  if (!keep_view) {
    self->needs_fit = TRUE;
    fit_now(self, gtk_widget_get_width(GTK_WIDGET(self)), gtk_widget_get_height(GTK_WIDGET(self)));
  }
  invalidate(self);
}

AppScene *jitscope_graph_view_get_scene(JitscopeGraphView *self) {
  return self->scene;
}

void jitscope_graph_view_set_message(JitscopeGraphView *self, const char *message) {
  g_free(self->message);
  self->message = g_strdup(message);
  invalidate(self);
}

void jitscope_graph_view_fit(JitscopeGraphView *self) {
  self->needs_fit = TRUE;
  fit_now(self, gtk_widget_get_width(GTK_WIDGET(self)), gtk_widget_get_height(GTK_WIDGET(self)));
  invalidate(self);
}

void jitscope_graph_view_zoom(JitscopeGraphView *self, double factor) {
  zoom_about(self, factor, gtk_widget_get_width(GTK_WIDGET(self)) / 2.0,
             gtk_widget_get_height(GTK_WIDGET(self)) / 2.0);
}

double jitscope_graph_view_get_zoom(JitscopeGraphView *self) {
  return self->zoom;
}

gboolean jitscope_graph_view_select(JitscopeGraphView *self, const char *id) {
  if (!self->scene)
    return FALSE;
  int index = app_scene_find(self->scene, id);
  if (index < 0 || (app_scene_object(self->scene, (guint)index)->kind != APP_OBJECT_NODE &&
                    app_scene_object(self->scene, (guint)index)->kind != APP_OBJECT_EDGE))
    return FALSE;
  self->selected = index;
  const AppObject *o = app_scene_object(self->scene, (guint)index);
  int w = gtk_widget_get_width(GTK_WIDGET(self)), h = gtk_widget_get_height(GTK_WIDGET(self));
  if (self->zoom < 0.8)
    self->zoom = 1.0;
  self->needs_fit = FALSE;
  self->fitted = FALSE;
  self->ox = w / 2.0 - (o->bounds.x0 + o->bounds.x1) / 2 * self->zoom;
  self->oy = h / 2.0 - (o->bounds.y0 + o->bounds.y1) / 2 * self->zoom;
  invalidate(self);
  emit_activated(self);
  return TRUE;
}

const char *jitscope_graph_view_get_selected(JitscopeGraphView *self) {
  if (!self->scene || self->selected < 0)
    return NULL;
  return app_scene_object(self->scene, (guint)self->selected)->id;
}

gboolean jitscope_graph_view_select_origin(JitscopeGraphView *self, const IrGraph *graph,
                                           guint64 origin) {
  for (guint i = 0; self->scene && graph && i < self->scene->objects->len; i++) {
    const AppObject *o = app_scene_object(self->scene, i);
    const IrNode *node =
        o->kind == APP_OBJECT_NODE ? app_graphviz_dot_find_node(graph, o->id) : NULL;
    if (node && node->origin == origin)
      return jitscope_graph_view_select(self, o->id);
  }
  return FALSE;
}

guint jitscope_graph_view_search_next(JitscopeGraphView *self, const char *text) {
  if (!self->scene)
    return 0;
  GArray *found = app_scene_search(self->scene, text);
  guint n = found->len;
  if (n > 0) {
    guint pick = g_array_index(found, guint, 0);
    for (guint i = 0; i < n; i++)
      if ((int)g_array_index(found, guint, i) > self->selected) {
        pick = g_array_index(found, guint, i);
        break;
      }
    jitscope_graph_view_select(self, app_scene_object(self->scene, pick)->id);
  }
  g_array_unref(found);
  return n;
}

guint jitscope_graph_view_get_draw_count(JitscopeGraphView *self) {
  return self->draw_count;
}
guint jitscope_graph_view_get_overlay_count(JitscopeGraphView *self) {
  return self->overlay_count;
}

const char *jitscope_graph_view_get_hover(JitscopeGraphView *self) {
  return self->scene && self->hover >= 0 ? app_scene_object(self->scene, (guint)self->hover)->id
                                         : NULL;
}

gboolean jitscope_graph_view_scene_to_widget(JitscopeGraphView *self, double sx, double sy,
                                             double *x, double *y) {
  if (!self->scene)
    return FALSE;
  *x = self->ox + sx * self->zoom;
  *y = self->oy + sy * self->zoom;
  return TRUE;
}

void jitscope_graph_view_set_marked(JitscopeGraphView *self, GHashTable *ids) {
  g_clear_pointer(&self->marked, g_hash_table_unref);
  if (ids)
    self->marked = g_hash_table_ref(ids);
  self->marked_serial++;
  invalidate(self);
}

guint jitscope_graph_view_get_n_marked(JitscopeGraphView *self) {
  if (!self->marked || !self->scene)
    return 0;
  guint n = 0;
  for (guint i = 0; i < self->scene->objects->len; i++) {
    const AppObject *o = app_scene_object(self->scene, i);
    if (o->kind == APP_OBJECT_NODE && g_hash_table_contains(self->marked, o->id))
      n++;
  }
  return n;
}

/* ---- stage layouts (workspace_layout.h) ---- */

static void show_quality_note(JitscopeGraphView *self, const AppScene *scene) {
  if (!scene || scene->quality == APP_SCENE_FULL) {
    jitscope_graph_view_set_note(self, NULL);
    return;
  }
  const char *what = scene->quality == APP_SCENE_COARSE
                         ? "Quick layout (jitscope's layered layout, straight edges)"
                         : "Fast layout (dot with cheaper settings)";
  char *note =
      g_strdup_printf("%s: %s", what, scene->note ? scene->note : "not Graphviz's full layout");
  jitscope_graph_view_set_note(self, note);
  g_free(note);
}

void jitscope_graph_view_show_final(JitscopeGraphView *self, AppScene *scene, gboolean keep_view) {
  self->waiting = FALSE;
  self->preview_shown = FALSE;
  self->scene_current = TRUE;
  jitscope_graph_view_set_progress(self, NULL);
  jitscope_graph_view_set_scene(self, scene, keep_view);
  show_quality_note(self, scene);
}

void jitscope_graph_view_begin_layout(JitscopeGraphView *self) {
  self->waiting = TRUE;
  self->scene_current = FALSE;
  self->preview_shown = FALSE;
  jitscope_graph_view_set_note(self, NULL);
  if (!self->scene)
    jitscope_graph_view_set_message(self, "Laying out…");
  jitscope_graph_view_set_progress(self, "Laying out…");
}

gboolean jitscope_graph_view_apply_update(JitscopeGraphView *self, const AppStageUpdate *u,
                                          gboolean keep_view) {
  gboolean changed = FALSE;
  if (u->scene) {
    /* a stage's first picture keeps the view of the stage before; a preview's replacement
     * (another layout of the same graph) is fitted anew */
    gboolean keep = !self->scene_current && keep_view;
    jitscope_graph_view_set_scene(self, u->scene, keep);
    self->scene_current = TRUE;
    self->preview_shown = !u->done;
    changed = TRUE;
  }
  if (u->done) {
    self->waiting = FALSE;
    jitscope_graph_view_set_progress(self, NULL);
    if (u->error) {
      if (!self->scene_current) {
        jitscope_graph_view_set_scene(self, NULL, FALSE);
        jitscope_graph_view_set_message(self, u->error->message);
      } else {
        char *note = g_strdup_printf("The quick preview stays: %s", u->error->message);
        jitscope_graph_view_set_note(self, note);
        g_free(note);
      }
    } else {
      self->preview_shown = FALSE;
      show_quality_note(self, u->scene);
    }
    return changed;
  }
  GString *text = g_string_new("Laying out");
  if (u->clusters)
    g_string_append_printf(text, " (%u expanded cluster%s on %s own)", u->clusters,
                           u->clusters == 1 ? "" : "s", u->clusters == 1 ? "its" : "their");
  g_string_append_printf(text, ": %s · %.1f s", u->phase ? u->phase : "waiting", u->elapsed_s);
  if (self->preview_shown)
    g_string_append(text, " · quick preview shown");
  jitscope_graph_view_set_progress(self, text->str);
  g_string_free(text, TRUE);
  return changed;
}

void jitscope_graph_view_layout_cancelled(JitscopeGraphView *self) {
  if (!self->waiting)
    return;
  self->waiting = FALSE;
  jitscope_graph_view_set_progress(self, NULL);
  if (self->scene_current) {
    jitscope_graph_view_set_note(self, "Layout cancelled: this is the quick preview");
  } else {
    jitscope_graph_view_set_scene(self, NULL, FALSE);
    jitscope_graph_view_set_message(self, "Layout cancelled: step to another stage and back to "
                                          "lay it out again");
  }
}

gboolean jitscope_graph_view_is_waiting(JitscopeGraphView *self) {
  return self->waiting;
}
gboolean jitscope_graph_view_is_preview(JitscopeGraphView *self) {
  return self->preview_shown;
}
