/* A laid-out graph as drawable shapes (DESIGN.md: "render the layout as xdot and draw the
 * shapes ourselves", as xdot.py does).
 *
 * The scene is built from the xdot drawing operations Graphviz attaches to each object
 * (_draw_, _ldraw_, _hdraw_, _tdraw_, _hldraw_, _tldraw_): E/e ellipses, P/p polygons,
 * L polylines, B/b Béziers, T text, F font, c/C pen/fill colour, S style (t and I are read
 * and ignored). Coordinates are turned from Graphviz points (y up) into scene units
 * (y down, origin at the top left of the graph's bounding box).
 *
 * A scene is immutable once built and reference-counted, so a layout cache and several
 * canvases can share it across threads. */
#ifndef JITSCOPE_APP_SCENE_H
#define JITSCOPE_APP_SCENE_H

#include <glib.h>
#include <stdbool.h>

typedef struct {
  double x0, y0, x1, y1;
} AppRect;

typedef struct {
  double r, g, b, a;
} AppColor;

typedef enum {
  APP_SHAPE_ELLIPSE, /* points[0] = centre, points[1] = (rx, ry) */
  APP_SHAPE_POLYGON,
  APP_SHAPE_POLYLINE,
  APP_SHAPE_BEZIER, /* 1 + 3k points */
  APP_SHAPE_TEXT,   /* points[0] = anchor (baseline) */
} AppShapeKind;

typedef enum {
  APP_OBJECT_GRAPH,
  APP_OBJECT_CLUSTER,
  APP_OBJECT_NODE,
  APP_OBJECT_EDGE
} AppObjectKind;

/* How a scene was laid out, best first: Graphviz dot with the DOT's own settings; dot with
 * cheap settings (nslimit, mclimit, searchsize, splines=line, newrank); our own layered
 * layout (layout_coarse.h: ranks, a few barycentre sweeps, straight edges, in milliseconds). */
typedef enum { APP_SCENE_FULL, APP_SCENE_FAST, APP_SCENE_COARSE } AppSceneQuality;

typedef struct {
  AppShapeKind kind;
  bool filled;
  AppColor pen, fill;
  double line_width;
  bool dashed, dotted;
  guint n_points;
  double *points; /* x, y pairs */
  char *text;     /* APP_SHAPE_TEXT */
  int justify;    /* -1 left, 0 centre, 1 right */
  double text_width;
  double font_size;
  char *font;
  guint object; /* index into the scene's objects */
  AppRect bounds;
} AppShape;

typedef struct {
  AppObjectKind kind;
  char *id;    /* the DOT name: node id, "tail->head" for edges, "cluster_N" */
  char *label; /* the label text as given, or NULL */
  AppRect bounds;
  guint first_shape, n_shapes;
} AppObject;

typedef struct {
  gint refcount;
  double width, height;    /* of the graph's bounding box, in points */
  GArray *shapes;          /* of AppShape */
  GArray *objects;         /* of AppObject */
  GHashTable *by_id;       /* id -> object index + 1 (GUINT_TO_POINTER) */
  AppSceneQuality quality; /* APP_SCENE_FULL unless the layout service says otherwise */
  char *note; /* why the scene is not a full layout ("Graphviz took longer than ..."), or NULL */
} AppScene;

/* A scene for a graph whose bounding box is `bb` ("llx,lly,urx,ury" in points). */
AppScene *app_scene_new(const char *bb, GError **error);
AppScene *app_scene_ref(AppScene *scene);
void app_scene_unref(AppScene *scene);

/* Parses one xdot attribute's operations and adds their shapes to a new object. Returns the
 * object's index, or -1 with *error on malformed operations (the scene is left as it was).
 * Several attributes of one object: call again with `object` >= 0 to append to it. */
int app_scene_add_ops(AppScene *scene, int object, AppObjectKind kind, const char *id,
                      const char *label, const char *ops, GError **error);

/* Approximate bytes the scene holds (for cache limits). */
gsize app_scene_memory(const AppScene *scene);

/* A new scene: `outer` with `inner`'s objects (its graph object aside) drawn inside the box
 * of `outer`'s node `node_id`, centred across and at the bottom (the node's label is on
 * top), scaled down only if it does not fit. Inner objects keep their ids (app_scene_find
 * finds outer objects first). NULL when `outer` has no such object. */
AppScene *app_scene_compose(const AppScene *outer, const char *node_id, const AppScene *inner);

/* Topmost node object whose bounds contain (x, y) in scene units, or -1. */
int app_scene_hit_node(const AppScene *scene, double x, double y);
/* EDGES. An edge object keeps what Graphviz drew for it: its curve (the xdot B/b Bézier
 * control points, or L polylines in a coarse layout), its arrow heads (p/P polygons) and its
 * label (T). Its id is the DOT edge's `id` attribute when it has one (graphviz_dot.h: the
 * value the edge stands for), else "tail->head".
 *
 * Distance in scene units from (x, y) to an edge object's curve: each cubic Bézier flattened
 * into APP_SCENE_BEZIER_STEPS straight segments, polylines as drawn, an arrow head's outline
 * (0 inside it); labels are not part of the curve. G_MAXDOUBLE for an object that is no edge
 * or has no such shape. */
#define APP_SCENE_BEZIER_STEPS 16
double app_scene_edge_distance(const AppScene *scene, guint object, double x, double y);
/* The edge object nearest to (x, y) whose curve passes within `tolerance` scene units (the
 * canvas passes a few pixels divided by its zoom), or -1. Of equally near edges, the one drawn
 * last. */
int app_scene_hit_edge(const AppScene *scene, double x, double y, double tolerance);
/* Object by DOT id, or -1. */
int app_scene_find(const AppScene *scene, const char *id);
/* Node objects whose label contains `needle` (case-insensitive), in scene order. */
GArray *app_scene_search(const AppScene *scene, const char *needle);

const AppObject *app_scene_object(const AppScene *scene, guint index);
const AppShape *app_scene_shape(const AppScene *scene, guint index);

/* Parses "#rrggbb", "#rrggbbaa" or a few X11 names; false for anything else. */
bool app_color_parse(const char *text, AppColor *out);

#endif
