/* xdot drawing operations -> shapes (contract in scene.h; operation syntax from Graphviz's
 * "xdot" output format description). */
#include "scene.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  double llx, lly, urx, ury;
} BBox;

G_DEFINE_QUARK(app - scene - error - quark, app_scene_error)
#define APP_SCENE_ERROR app_scene_error_quark()

typedef struct {
  AppScene scene;
  BBox bb;
} SceneImpl;

AppScene *app_scene_new(const char *bb, GError **error) {
  BBox box = {0};
  if (!bb || sscanf(bb, "%lf,%lf,%lf,%lf", &box.llx, &box.lly, &box.urx, &box.ury) != 4) {
    g_set_error(error, APP_SCENE_ERROR, 0, "bad bounding box '%s'", bb ? bb : "(none)");
    return NULL;
  }
  SceneImpl *impl = g_new0(SceneImpl, 1);
  impl->bb = box;
  AppScene *scene = &impl->scene;
  scene->refcount = 1;
  scene->width = box.urx - box.llx;
  scene->height = box.ury - box.lly;
  scene->shapes = g_array_new(FALSE, TRUE, sizeof(AppShape));
  scene->objects = g_array_new(FALSE, TRUE, sizeof(AppObject));
  scene->by_id = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  return scene;
}

AppScene *app_scene_ref(AppScene *scene) {
  g_atomic_int_inc(&scene->refcount);
  return scene;
}

static void shape_clear(AppShape *s) {
  g_free(s->points);
  g_free(s->text);
  g_free(s->font);
}

void app_scene_unref(AppScene *scene) {
  if (!scene || !g_atomic_int_dec_and_test(&scene->refcount))
    return;
  for (guint i = 0; i < scene->shapes->len; i++)
    shape_clear(&g_array_index(scene->shapes, AppShape, i));
  for (guint i = 0; i < scene->objects->len; i++) {
    AppObject *o = &g_array_index(scene->objects, AppObject, i);
    g_free(o->id);
    g_free(o->label);
  }
  g_array_unref(scene->shapes);
  g_array_unref(scene->objects);
  g_hash_table_destroy(scene->by_id);
  g_free(scene->note);
  g_free((SceneImpl *)scene);
}

gsize app_scene_memory(const AppScene *scene) {
  gsize bytes = sizeof(SceneImpl) + scene->shapes->len * sizeof(AppShape) +
                scene->objects->len * (sizeof(AppObject) + 64);
  for (guint i = 0; i < scene->shapes->len; i++) {
    const AppShape *s = &g_array_index(scene->shapes, AppShape, i);
    bytes += s->n_points * 2 * sizeof(double) + (s->text ? strlen(s->text) + 1 : 0);
  }
  for (guint i = 0; i < scene->objects->len; i++) {
    const AppObject *o = &g_array_index(scene->objects, AppObject, i);
    bytes += strlen(o->id) + 1 + (o->label ? strlen(o->label) + 1 : 0);
  }
  return bytes;
}

const AppObject *app_scene_object(const AppScene *scene, guint index) {
  return &g_array_index(scene->objects, AppObject, index);
}

const AppShape *app_scene_shape(const AppScene *scene, guint index) {
  return &g_array_index(scene->shapes, AppShape, index);
}

/* ---- colours ---- */

static const struct {
  const char *name;
  guint32 rgb;
} named_colors[] = {
    {"black", 0x000000},  {"white", 0xffffff},  {"red", 0xff0000},    {"green", 0x00ff00},
    {"blue", 0x0000ff},   {"gray", 0xc0c0c0},   {"grey", 0xc0c0c0},   {"lightgrey", 0xd3d3d3},
    {"yellow", 0xffff00}, {"orange", 0xffa500}, {"purple", 0xa020f0},
};

static int hex_digit(char c) {
  return g_ascii_isxdigit(c) ? g_ascii_xdigit_value(c) : -1;
}

bool app_color_parse(const char *text, AppColor *out) {
  if (strcmp(text, "transparent") == 0 || strcmp(text, "none") == 0) {
    *out = (AppColor){0, 0, 0, 0};
    return true;
  }
  if (text[0] == '#') {
    size_t n = strlen(text + 1);
    if (n != 6 && n != 8)
      return false;
    int v[8];
    for (size_t i = 0; i < n; i++)
      if ((v[i] = hex_digit(text[1 + i])) < 0)
        return false;
    out->r = (v[0] * 16 + v[1]) / 255.0;
    out->g = (v[2] * 16 + v[3]) / 255.0;
    out->b = (v[4] * 16 + v[5]) / 255.0;
    out->a = n == 8 ? (v[6] * 16 + v[7]) / 255.0 : 1.0;
    return true;
  }
  for (guint i = 0; i < G_N_ELEMENTS(named_colors); i++)
    if (g_ascii_strcasecmp(text, named_colors[i].name) == 0) {
      guint32 rgb = named_colors[i].rgb;
      *out = (AppColor){((rgb >> 16) & 255) / 255.0, ((rgb >> 8) & 255) / 255.0,
                        (rgb & 255) / 255.0, 1.0};
      return true;
    }
  return false;
}

/* ---- the operation parser ---- */

typedef struct {
  const char *p;
  const BBox *bb;
  AppColor pen, fill;
  double line_width;
  bool dashed, dotted;
  double font_size;
  char *font;
} Parser;

static void skip_space(Parser *ps) {
  while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r')
    ps->p++;
}

static bool read_number(Parser *ps, double *out) {
  skip_space(ps);
  char *end = NULL;
  double v = g_ascii_strtod(ps->p, &end);
  if (end == ps->p)
    return false;
  *out = v;
  ps->p = end;
  return true;
}

static bool read_count(Parser *ps, guint *out) {
  double v;
  if (!read_number(ps, &v) || v < 0 || v > 1e7 || v != (double)(guint)v)
    return false;
  *out = (guint)v;
  return true;
}

/* "n -bytes": the n bytes after the dash. */
static char *read_string(Parser *ps) {
  guint n;
  if (!read_count(ps, &n))
    return NULL;
  skip_space(ps);
  if (*ps->p != '-')
    return NULL;
  ps->p++;
  if (strnlen(ps->p, n) < n)
    return NULL;
  char *s = g_strndup(ps->p, n);
  ps->p += n;
  return s;
}

static void to_scene(const Parser *ps, double x, double y, double *sx, double *sy) {
  *sx = x - ps->bb->llx;
  *sy = ps->bb->ury - y;
}

static AppShape new_shape(const Parser *ps, AppShapeKind kind, bool filled) {
  AppShape s = {0};
  s.kind = kind;
  s.filled = filled;
  s.pen = ps->pen;
  s.fill = ps->fill;
  s.line_width = ps->line_width;
  s.dashed = ps->dashed;
  s.dotted = ps->dotted;
  return s;
}

static bool read_points(Parser *ps, AppShape *s) {
  guint n;
  if (!read_count(ps, &n) || n == 0)
    return false;
  s->n_points = n;
  s->points = g_new(double, 2 * n);
  s->bounds = (AppRect){G_MAXDOUBLE, G_MAXDOUBLE, -G_MAXDOUBLE, -G_MAXDOUBLE};
  for (guint i = 0; i < n; i++) {
    double x, y;
    if (!read_number(ps, &x) || !read_number(ps, &y))
      return false;
    to_scene(ps, x, y, &s->points[2 * i], &s->points[2 * i + 1]);
    s->bounds.x0 = MIN(s->bounds.x0, s->points[2 * i]);
    s->bounds.y0 = MIN(s->bounds.y0, s->points[2 * i + 1]);
    s->bounds.x1 = MAX(s->bounds.x1, s->points[2 * i]);
    s->bounds.y1 = MAX(s->bounds.y1, s->points[2 * i + 1]);
  }
  return true;
}

static void apply_style(Parser *ps, const char *style) {
  if (strcmp(style, "dashed") == 0)
    ps->dashed = true, ps->dotted = false;
  else if (strcmp(style, "dotted") == 0)
    ps->dotted = true, ps->dashed = false;
  else if (strcmp(style, "solid") == 0)
    ps->dashed = ps->dotted = false;
  else if (strcmp(style, "bold") == 0)
    ps->line_width = 2;
  else if (g_str_has_prefix(style, "setlinewidth("))
    ps->line_width = g_ascii_strtod(style + 13, NULL);
}

/* One operation; false on malformed input. */
static bool parse_op(Parser *ps, char op, AppShape *shape, bool *made) {
  *made = false;
  switch (op) {
  case 'E':
  case 'e': {
    double x, y, w, h;
    if (!read_number(ps, &x) || !read_number(ps, &y) || !read_number(ps, &w) ||
        !read_number(ps, &h))
      return false;
    *shape = new_shape(ps, APP_SHAPE_ELLIPSE, op == 'E');
    shape->n_points = 2;
    shape->points = g_new(double, 4);
    to_scene(ps, x, y, &shape->points[0], &shape->points[1]);
    shape->points[2] = w;
    shape->points[3] = h;
    shape->bounds = (AppRect){shape->points[0] - w, shape->points[1] - h, shape->points[0] + w,
                              shape->points[1] + h};
    *made = true;
    return true;
  }
  case 'P':
  case 'p':
  case 'L':
  case 'B':
  case 'b': {
    AppShapeKind kind = op == 'L'                  ? APP_SHAPE_POLYLINE
                        : (op == 'B' || op == 'b') ? APP_SHAPE_BEZIER
                                                   : APP_SHAPE_POLYGON;
    *shape = new_shape(ps, kind, op == 'P' || op == 'b');
    *made = true;
    if (!read_points(ps, shape))
      return false;
    return kind != APP_SHAPE_BEZIER || (shape->n_points - 1) % 3 == 0;
  }
  case 'T': {
    double x, y, j, w;
    if (!read_number(ps, &x) || !read_number(ps, &y) || !read_number(ps, &j) ||
        !read_number(ps, &w))
      return false;
    char *text = read_string(ps);
    if (!text)
      return false;
    *shape = new_shape(ps, APP_SHAPE_TEXT, false);
    *made = true;
    shape->text = text;
    shape->justify = j < 0 ? -1 : j > 0 ? 1 : 0;
    shape->text_width = w;
    shape->font_size = ps->font_size;
    shape->font = g_strdup(ps->font ? ps->font : "Sans");
    shape->n_points = 1;
    shape->points = g_new(double, 2);
    to_scene(ps, x, y, &shape->points[0], &shape->points[1]);
    double left = shape->points[0] - (shape->justify == 0 ? w / 2 : shape->justify > 0 ? w : 0);
    shape->bounds = (AppRect){left, shape->points[1] - ps->font_size, left + w,
                              shape->points[1] + ps->font_size * 0.25};
    return true;
  }
  case 'F': {
    double size;
    if (!read_number(ps, &size))
      return false;
    char *font = read_string(ps);
    if (!font)
      return false;
    g_free(ps->font);
    ps->font = font;
    ps->font_size = size;
    return true;
  }
  case 'c':
  case 'C': {
    g_autofree char *color = read_string(ps);
    if (!color)
      return false;
    AppColor parsed = {0, 0, 0, 1};
    app_color_parse(color, &parsed); /* gradients and unknown names stay black */
    if (op == 'c')
      ps->pen = parsed;
    else
      ps->fill = parsed;
    return true;
  }
  case 'S': {
    g_autofree char *style = read_string(ps);
    if (!style)
      return false;
    apply_style(ps, style);
    return true;
  }
  case 't': {
    double flags;
    return read_number(ps, &flags);
  }
  case 'I': {
    double x, y, w, h;
    if (!read_number(ps, &x) || !read_number(ps, &y) || !read_number(ps, &w) ||
        !read_number(ps, &h))
      return false;
    g_autofree char *name = read_string(ps);
    return name != NULL;
  }
  default: return false;
  }
}

static void rect_union(AppRect *r, const AppRect *add, bool first) {
  if (first) {
    *r = *add;
    return;
  }
  r->x0 = MIN(r->x0, add->x0);
  r->y0 = MIN(r->y0, add->y0);
  r->x1 = MAX(r->x1, add->x1);
  r->y1 = MAX(r->y1, add->y1);
}

int app_scene_add_ops(AppScene *scene, int object, AppObjectKind kind, const char *id,
                      const char *label, const char *ops, GError **error) {
  SceneImpl *impl = (SceneImpl *)scene;
  Parser ps = {.p = ops ? ops : "",
               .bb = &impl->bb,
               .pen = {0, 0, 0, 1},
               .fill = {0, 0, 0, 1},
               .line_width = 1,
               .font_size = 14};
  g_autoptr(GArray) shapes = g_array_new(FALSE, TRUE, sizeof(AppShape));
  for (;;) {
    skip_space(&ps);
    if (*ps.p == '\0')
      break;
    char op = *ps.p++;
    AppShape shape;
    bool made = false;
    const char *at = ps.p - 1;
    if (!parse_op(&ps, op, &shape, &made)) {
      if (made)
        shape_clear(&shape);
      g_set_error(error, APP_SCENE_ERROR, 1, "malformed xdot operation at byte %ld of %s: '%.20s'",
                  (long)(at - ops), id ? id : "?", at);
      for (guint i = 0; i < shapes->len; i++)
        shape_clear(&g_array_index(shapes, AppShape, i));
      g_free(ps.font);
      return -1;
    }
    if (made)
      g_array_append_val(shapes, shape);
  }
  g_free(ps.font);

  if (object < 0) {
    AppObject o = {.kind = kind,
                   .id = g_strdup(id ? id : ""),
                   .label = g_strdup(label),
                   .first_shape = scene->shapes->len};
    g_array_append_val(scene->objects, o);
    object = (int)scene->objects->len - 1;
    if (id && !g_hash_table_contains(scene->by_id, id))
      g_hash_table_insert(scene->by_id, g_strdup(id), GUINT_TO_POINTER((guint)object + 1));
  }
  AppObject *o = &g_array_index(scene->objects, AppObject, object);
  /* Shapes of one object stay contiguous: objects are filled one at a time. */
  g_assert(o->first_shape + o->n_shapes == scene->shapes->len);
  for (guint i = 0; i < shapes->len; i++) {
    AppShape *s = &g_array_index(shapes, AppShape, i);
    s->object = (guint)object;
    rect_union(&o->bounds, &s->bounds, o->n_shapes == 0);
    o->n_shapes++;
  }
  g_array_append_vals(scene->shapes, shapes->data, shapes->len);
  return object;
}

static AppShape shape_copy(const AppShape *s, double scale, double dx, double dy, guint object) {
  AppShape c = *s;
  c.object = object;
  c.points = g_new(double, 2 * s->n_points);
  for (guint i = 0; i < s->n_points; i++) {
    bool radius = s->kind == APP_SHAPE_ELLIPSE && i == 1;
    c.points[2 * i] = s->points[2 * i] * scale + (radius ? 0 : dx);
    c.points[2 * i + 1] = s->points[2 * i + 1] * scale + (radius ? 0 : dy);
  }
  c.bounds = (AppRect){s->bounds.x0 * scale + dx, s->bounds.y0 * scale + dy,
                       s->bounds.x1 * scale + dx, s->bounds.y1 * scale + dy};
  c.text = g_strdup(s->text);
  c.font = g_strdup(s->font);
  c.font_size = s->font_size * scale;
  c.text_width = s->text_width * scale;
  c.line_width = s->line_width * scale;
  return c;
}

/* Appends `from`'s objects (all but its graph object) scaled and moved. */
static void append_objects(AppScene *to, const AppScene *from, double scale, double dx, double dy,
                           bool skip_graph) {
  for (guint i = 0; i < from->objects->len; i++) {
    const AppObject *o = app_scene_object(from, i);
    if (skip_graph && o->kind == APP_OBJECT_GRAPH)
      continue;
    AppObject c = {.kind = o->kind,
                   .id = g_strdup(o->id),
                   .label = g_strdup(o->label),
                   .first_shape = to->shapes->len,
                   .n_shapes = o->n_shapes,
                   .bounds = {o->bounds.x0 * scale + dx, o->bounds.y0 * scale + dy,
                              o->bounds.x1 * scale + dx, o->bounds.y1 * scale + dy}};
    guint index = to->objects->len;
    for (guint k = 0; k < o->n_shapes; k++) {
      AppShape shape = shape_copy(app_scene_shape(from, o->first_shape + k), scale, dx, dy, index);
      g_array_append_val(to->shapes, shape);
    }
    g_array_append_val(to->objects, c);
    if (!g_hash_table_contains(to->by_id, o->id))
      g_hash_table_insert(to->by_id, g_strdup(o->id), GUINT_TO_POINTER(index + 1));
  }
}

AppScene *app_scene_compose(const AppScene *outer, const char *node_id, const AppScene *inner) {
  int at = app_scene_find(outer, node_id);
  if (at < 0)
    return NULL;
  const SceneImpl *impl = (const SceneImpl *)outer;
  g_autofree char *bb = g_strdup_printf("%.17g,%.17g,%.17g,%.17g", impl->bb.llx, impl->bb.lly,
                                        impl->bb.urx, impl->bb.ury);
  AppScene *scene = app_scene_new(bb, NULL);
  scene->quality = MAX(outer->quality, inner->quality);
  scene->note = g_strdup(outer->note ? outer->note : inner->note);
  append_objects(scene, outer, 1, 0, 0, false);
  const AppRect box = app_scene_object(outer, (guint)at)->bounds;
  double bw = box.x1 - box.x0 - 8, bh = box.y1 - box.y0 - 8;
  double scale = 1;
  if (inner->width > 0 && inner->height > 0)
    scale = MIN(1.0, MIN(bw / inner->width, bh / inner->height));
  if (scale <= 0)
    scale = 1;
  /* centred across, at the bottom of the box: its label is on top (labelloc=t) */
  double dx = box.x0 + (box.x1 - box.x0 - inner->width * scale) / 2;
  double dy = box.y1 - 4 - inner->height * scale;
  append_objects(scene, inner, scale, dx, dy, true);
  return scene;
}

static bool contains(const AppRect *r, double x, double y) {
  return x >= r->x0 && x <= r->x1 && y >= r->y0 && y <= r->y1;
}

int app_scene_hit_node(const AppScene *scene, double x, double y) {
  for (guint i = scene->objects->len; i-- > 0;) {
    const AppObject *o = app_scene_object(scene, i);
    if (o->kind == APP_OBJECT_NODE && o->n_shapes > 0 && contains(&o->bounds, x, y))
      return (int)i;
  }
  return -1;
}

/* Distance from (px, py) to the segment (ax, ay)-(bx, by). */
static double segment_distance(double px, double py, double ax, double ay, double bx, double by) {
  double dx = bx - ax, dy = by - ay, len2 = dx * dx + dy * dy;
  double t = len2 > 0 ? ((px - ax) * dx + (py - ay) * dy) / len2 : 0;
  t = CLAMP(t, 0, 1);
  double cx = ax + t * dx - px, cy = ay + t * dy - py;
  return sqrt(cx * cx + cy * cy);
}

/* Even-odd rule. */
static bool inside_polygon(const AppShape *s, double x, double y) {
  bool in = false;
  for (guint i = 0, j = s->n_points - 1; i < s->n_points; j = i++) {
    double xi = s->points[2 * i], yi = s->points[2 * i + 1];
    double xj = s->points[2 * j], yj = s->points[2 * j + 1];
    if ((yi > y) != (yj > y) && x < (xj - xi) * (y - yi) / (yj - yi) + xi)
      in = !in;
  }
  return in;
}

static double bezier_distance(const AppShape *s, double x, double y) {
  double best = G_MAXDOUBLE;
  const double *p = s->points;
  for (guint i = 0; i + 3 < s->n_points; i += 3) {
    const double *c = p + 2 * i; /* p0 = c[0..1], p1, p2, p3 */
    double ax = c[0], ay = c[1];
    for (int k = 1; k <= APP_SCENE_BEZIER_STEPS; k++) {
      double t = (double)k / APP_SCENE_BEZIER_STEPS, u = 1 - t;
      double b0 = u * u * u, b1 = 3 * u * u * t, b2 = 3 * u * t * t, b3 = t * t * t;
      double bx = b0 * c[0] + b1 * c[2] + b2 * c[4] + b3 * c[6];
      double by = b0 * c[1] + b1 * c[3] + b2 * c[5] + b3 * c[7];
      best = MIN(best, segment_distance(x, y, ax, ay, bx, by));
      ax = bx;
      ay = by;
    }
  }
  return best;
}

static double shape_curve_distance(const AppShape *s, double x, double y) {
  switch (s->kind) {
  case APP_SHAPE_BEZIER: return bezier_distance(s, x, y);
  case APP_SHAPE_POLYGON:
  case APP_SHAPE_POLYLINE: {
    if (s->kind == APP_SHAPE_POLYGON && s->n_points >= 3 && inside_polygon(s, x, y))
      return 0;
    double best = G_MAXDOUBLE;
    guint n = s->kind == APP_SHAPE_POLYGON ? s->n_points : s->n_points - 1;
    for (guint i = 0; i < n; i++) {
      guint j = (i + 1) % s->n_points;
      best = MIN(best, segment_distance(x, y, s->points[2 * i], s->points[2 * i + 1],
                                        s->points[2 * j], s->points[2 * j + 1]));
    }
    return s->n_points == 1 ? hypot(x - s->points[0], y - s->points[1]) : best;
  }
  default: return G_MAXDOUBLE;
  }
}

double app_scene_edge_distance(const AppScene *scene, guint object, double x, double y) {
  const AppObject *o = app_scene_object(scene, object);
  double best = G_MAXDOUBLE;
  if (o->kind != APP_OBJECT_EDGE)
    return best;
  for (guint k = 0; k < o->n_shapes; k++)
    best = MIN(best, shape_curve_distance(app_scene_shape(scene, o->first_shape + k), x, y));
  return best;
}

int app_scene_hit_edge(const AppScene *scene, double x, double y, double tolerance) {
  int hit = -1;
  double best = tolerance;
  for (guint i = 0; i < scene->objects->len; i++) {
    const AppObject *o = app_scene_object(scene, i);
    if (o->kind != APP_OBJECT_EDGE || o->n_shapes == 0 || x < o->bounds.x0 - tolerance ||
        x > o->bounds.x1 + tolerance || y < o->bounds.y0 - tolerance ||
        y > o->bounds.y1 + tolerance)
      continue;
    double d = app_scene_edge_distance(scene, i, x, y);
    if (d <= best) {
      best = d;
      hit = (int)i;
    }
  }
  return hit;
}

int app_scene_find(const AppScene *scene, const char *id) {
  gpointer v = g_hash_table_lookup(scene->by_id, id);
  return v ? (int)GPOINTER_TO_UINT(v) - 1 : -1;
}

GArray *app_scene_search(const AppScene *scene, const char *needle) {
  GArray *found = g_array_new(FALSE, FALSE, sizeof(guint));
  if (!needle || !*needle)
    return found;
  g_autofree char *low = g_utf8_strdown(needle, -1);
  for (guint i = 0; i < scene->objects->len; i++) {
    const AppObject *o = app_scene_object(scene, i);
    if (o->kind != APP_OBJECT_NODE)
      continue;
    g_autofree char *text = g_utf8_strdown(o->label ? o->label : o->id, -1);
    if (strstr(text, low))
      g_array_append_val(found, i);
  }
  return found;
}
