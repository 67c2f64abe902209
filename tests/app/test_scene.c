/* xdot operations -> shapes: every operation kind, coordinates flipped into scene units,
 * bounds, hit testing, search, malformed input. */
#include <math.h>
#include <string.h>

#include "scene.h"

static void test_ops(void) {
  GError *error = NULL;
  AppScene *scene = app_scene_new("0,0,200,100", &error);
  g_assert_no_error(error);
  g_assert_cmpfloat(scene->width, ==, 200);
  g_assert_cmpfloat(scene->height, ==, 100);
  int node = app_scene_add_ops(
      scene, -1, APP_OBJECT_NODE, "n1", "aten::add\\nalpha=1",
      "c 7 -#ff0000 C 9 -#00ff0080 S 6 -dashed S 15 -setlinewidth(2) "
      "P 4 10 10 50 10 50 30 10 30 E 100 50 20 10 e 100 50 5 5 F 14 11 -Times-Roman "
      "T 30 20 0 24 3 -a b t 0 L 2 0 0 10 10 B 4 0 0 1 1 2 2 3 3 b 4 0 0 1 1 2 2 3 3 p 3 0 0 1 0 1 "
      "1",
      &error);
  g_assert_no_error(error);
  g_assert_cmpint(node, ==, 0);
  const AppObject *o = app_scene_object(scene, 0);
  g_assert_cmpuint(o->n_shapes, ==, 8);
  const AppShape *poly = app_scene_shape(scene, 0);
  g_assert_cmpint(poly->kind, ==, APP_SHAPE_POLYGON);
  g_assert_true(poly->filled);
  g_assert_cmpfloat(poly->pen.r, ==, 1.0);
  g_assert_cmpfloat_with_epsilon(poly->fill.a, 128 / 255.0, 1e-9);
  g_assert_true(poly->dashed);
  g_assert_cmpfloat(poly->line_width, ==, 2);
  /* y is flipped: Graphviz y=10 -> scene y=90. */
  g_assert_cmpfloat(poly->points[1], ==, 90);
  g_assert_cmpfloat(poly->bounds.y0, ==, 70);
  const AppShape *ellipse = app_scene_shape(scene, 1);
  g_assert_cmpint(ellipse->kind, ==, APP_SHAPE_ELLIPSE);
  g_assert_true(ellipse->filled);
  g_assert_false(app_scene_shape(scene, 2)->filled);
  const AppShape *text = app_scene_shape(scene, 3);
  g_assert_cmpint(text->kind, ==, APP_SHAPE_TEXT);
  g_assert_cmpstr(text->text, ==, "a b");
  g_assert_cmpstr(text->font, ==, "Times-Roman");
  g_assert_cmpfloat(text->font_size, ==, 14);
  g_assert_cmpfloat(text->bounds.x0, ==, 18);
  g_assert_cmpint(app_scene_shape(scene, 4)->kind, ==, APP_SHAPE_POLYLINE);
  g_assert_cmpint(app_scene_shape(scene, 5)->kind, ==, APP_SHAPE_BEZIER);
  g_assert_true(app_scene_shape(scene, 6)->filled);
  g_assert_false(app_scene_shape(scene, 7)->filled);
  /* Object bounds cover every shape. */
  g_assert_cmpfloat(o->bounds.x0, ==, 0);
  g_assert_cmpfloat(o->bounds.x1, ==, 120);
  g_assert_cmpint(app_scene_find(scene, "n1"), ==, 0);
  g_assert_cmpint(app_scene_find(scene, "n2"), ==, -1);
  app_scene_unref(scene);
}

static void test_hit_and_search(void) {
  AppScene *scene = app_scene_new("0,0,100,100", NULL);
  app_scene_add_ops(scene, -1, APP_OBJECT_CLUSTER, "cluster_0", "GradOf aten::mul",
                    "P 4 0 0 100 0 100 100 0 100", NULL);
  app_scene_add_ops(scene, -1, APP_OBJECT_NODE, "n1", "aten::mul", "P 4 10 10 30 10 30 30 10 30",
                    NULL);
  int second =
      app_scene_add_ops(scene, -1, APP_OBJECT_NODE, "n2", "aten::sigmoid", "e 70 70 10 10", NULL);
  /* A second attribute of the same object appends to it. */
  g_assert_cmpint(app_scene_add_ops(scene, second, APP_OBJECT_NODE, "n2", NULL,
                                    "F 10 4 -Sans T 70 70 0 30 7 -sigmoid", NULL),
                  ==, second);
  g_assert_cmpuint(app_scene_object(scene, second)->n_shapes, ==, 2);
  /* Scene (20, 80) is Graphviz (20, 20): inside n1. */
  g_assert_cmpint(app_scene_hit_node(scene, 20, 80), ==, 1);
  g_assert_cmpint(app_scene_hit_node(scene, 70, 30), ==, 2);
  g_assert_cmpint(app_scene_hit_node(scene, 95, 5), ==, -1); /* clusters are not hit */
  GArray *found = app_scene_search(scene, "SIGM");
  g_assert_cmpuint(found->len, ==, 1);
  g_assert_cmpuint(g_array_index(found, guint, 0), ==, 2);
  g_array_unref(found);
  found = app_scene_search(scene, "aten::");
  g_assert_cmpuint(found->len, ==, 2);
  g_array_unref(found);
  app_scene_unref(scene);
}

static void test_malformed(void) {
  GError *error = NULL;
  g_assert_null(app_scene_new("0,0,nope", &error));
  g_assert_nonnull(error);
  g_clear_error(&error);
  AppScene *scene = app_scene_new("0,0,10,10", NULL);
  const char *bad[] = {"P 3 0 0 1",   "T 1 2 0 5 10 -abc", "Q 1 2",
                       "B 2 0 0 1 1", "c 3 #ff",           "E 1 2 3"};
  for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
    g_assert_cmpint(app_scene_add_ops(scene, -1, APP_OBJECT_NODE, "x", NULL, bad[i], &error), ==,
                    -1);
    g_assert_nonnull(error);
    g_assert_nonnull(strstr(error->message, "malformed xdot"));
    g_clear_error(&error);
  }
  g_assert_cmpuint(scene->objects->len, ==, 0);
  g_assert_cmpuint(scene->shapes->len, ==, 0);
  app_scene_unref(scene);
}

/* Two edges as Graphviz writes them (bb 0,0,100,100; scene y = 100 - y):
 *   A "n1:0->n2:0": a straight Bézier down x = 10 from scene y 10 to 70, an arrow head
 *     (6,70) (14,70) (10,80) in its _hdraw_, a label over x 15..45 at scene y 38 (_ldraw_);
 *   B "n3:0->n4:1": the arc (50,10) (90,10) (90,90) (50,90), whose point at t = 1/2 (a vertex
 *     of the flattened curve) is Graphviz (80, 50): 0.125*50 + 0.375*90 + 0.375*90 + 0.125*50.
 * Distances by hand: (13, 40) is 3 from A's line; (10, 5) is 5 from A's start (10, 10);
 * (10, 76) is inside A's head; (83, 50) is 3 from B's apex (80, 50), its neighbours on the
 * flattened curve lying left of it; (30, 40) is 20 from A and 36.06 from B's end (50, 10). */
static AppScene *two_edges(void) {
  AppScene *scene = app_scene_new("0,0,100,100", NULL);
  app_scene_add_ops(scene, -1, APP_OBJECT_GRAPH, "graph", NULL, "", NULL);
  int a = app_scene_add_ops(scene, -1, APP_OBJECT_EDGE, "n1:0->n2:0", NULL,
                            "c 7 -#555555 B 4 10 90 10 70 10 50 10 30", NULL);
  app_scene_add_ops(scene, a, APP_OBJECT_EDGE, NULL, NULL,
                    "S 5 -solid c 7 -#555555 C 7 -#555555 P 3 6 30 14 30 10 20", NULL);
  app_scene_add_ops(scene, a, APP_OBJECT_EDGE, NULL, NULL,
                    "F 8 4 -Sans c 7 -#1565c0 T 30 62 0 30 11 -Float(*, *)", NULL);
  app_scene_add_ops(scene, -1, APP_OBJECT_EDGE, "n3:0->n4:1", NULL, "B 4 50 90 90 90 90 10 50 10",
                    NULL);
  app_scene_add_ops(scene, -1, APP_OBJECT_NODE, "n1", "aten::mul", "P 4 0 92 20 92 20 100 0 100",
                    NULL);
  return scene;
}

static void test_edge_curves(void) {
  AppScene *scene = two_edges();
  g_assert_cmpint(app_scene_find(scene, "n1:0->n2:0"), ==, 1);
  g_assert_cmpint(app_scene_find(scene, "n3:0->n4:1"), ==, 2);
  const AppObject *a = app_scene_object(scene, 1);
  g_assert_cmpint(a->kind, ==, APP_OBJECT_EDGE);
  g_assert_cmpuint(a->n_shapes, ==, 3); /* curve, head, label */
  const AppShape *curve = app_scene_shape(scene, a->first_shape);
  g_assert_cmpint(curve->kind, ==, APP_SHAPE_BEZIER);
  g_assert_cmpuint(curve->n_points, ==, 4);
  g_assert_cmpfloat(curve->points[1], ==, 10);
  g_assert_cmpfloat(curve->points[7], ==, 70);
  const AppShape *head = app_scene_shape(scene, a->first_shape + 1);
  g_assert_cmpint(head->kind, ==, APP_SHAPE_POLYGON);
  g_assert_cmpfloat(head->points[5], ==, 80);

  g_assert_cmpfloat_with_epsilon(app_scene_edge_distance(scene, 1, 13, 40), 3.0, 1e-9);
  g_assert_cmpfloat_with_epsilon(app_scene_edge_distance(scene, 1, 10, 5), 5.0, 1e-9);
  g_assert_cmpfloat(app_scene_edge_distance(scene, 1, 10, 76), ==, 0.0);
  g_assert_cmpfloat_with_epsilon(app_scene_edge_distance(scene, 1, 20, 40), 10.0, 1e-9);
  g_assert_cmpfloat_with_epsilon(app_scene_edge_distance(scene, 2, 83, 50), 3.0, 1e-9);
  g_assert_cmpfloat_with_epsilon(app_scene_edge_distance(scene, 2, 30, 40), sqrt(400 + 900), 1e-9);
  /* the label is no part of the curve */
  g_assert_cmpfloat_with_epsilon(app_scene_edge_distance(scene, 1, 30, 36), 20.0, 1e-9);
  /* only edges have a curve */
  g_assert_cmpfloat(app_scene_edge_distance(scene, 3, 10, 96), ==, G_MAXDOUBLE);
  app_scene_unref(scene);
}

static void test_edge_hit(void) {
  AppScene *scene = two_edges();
  g_assert_cmpint(app_scene_hit_edge(scene, 13, 40, 5), ==, 1);
  g_assert_cmpint(app_scene_hit_edge(scene, 13, 40, 2.9), ==, -1);
  g_assert_cmpint(app_scene_hit_edge(scene, 10, 76, 0.5), ==, 1); /* on the arrow head */
  g_assert_cmpint(app_scene_hit_edge(scene, 83, 50, 5), ==, 2);
  g_assert_cmpint(app_scene_hit_edge(scene, 83, 50, 2.9), ==, -1);
  /* the nearer of two edges within the tolerance */
  g_assert_cmpint(app_scene_hit_edge(scene, 30, 40, 40), ==, 1);
  g_assert_cmpint(app_scene_hit_edge(scene, 45, 40, 40), ==, 2); /* 35 from A, nearer to B */
  /* a tolerance in pixels divided by the zoom: 5 px at zoom 0.5 reach 10 scene units */
  g_assert_cmpint(app_scene_hit_edge(scene, 20, 40, 5 / 0.5), ==, 1);
  g_assert_cmpint(app_scene_hit_edge(scene, 20, 40, 5 / 2.0), ==, -1);
  g_assert_cmpint(app_scene_hit_edge(scene, 30, 36, 5), ==, -1); /* on the label */
  /* composed into another scene, an edge keeps its id and its curve is moved with it */
  AppScene *outer = app_scene_new("0,0,300,300", NULL);
  app_scene_add_ops(outer, -1, APP_OBJECT_NODE, "n9", "box", "P 4 100 0 220 0 220 120 100 120",
                    NULL);
  AppScene *both = app_scene_compose(outer, "n9", scene);
  int b = app_scene_find(both, "n3:0->n4:1");
  g_assert_cmpint(b, >=, 0);
  const AppRect box = app_scene_object(outer, 0)->bounds;
  double dx = box.x0 + (box.x1 - box.x0 - 100) / 2, dy = box.y1 - 4 - 100;
  g_assert_cmpint(app_scene_hit_edge(both, 83 + dx, 50 + dy, 5), ==, b);
  app_scene_unref(both);
  app_scene_unref(outer);
  app_scene_unref(scene);
}

static void test_colors(void) {
  AppColor c;
  g_assert_true(app_color_parse("#336699", &c));
  g_assert_cmpfloat_with_epsilon(c.g, 0x66 / 255.0, 1e-9);
  g_assert_true(app_color_parse("black", &c));
  g_assert_cmpfloat(c.a, ==, 1);
  g_assert_true(app_color_parse("transparent", &c));
  g_assert_cmpfloat(c.a, ==, 0);
  g_assert_false(app_color_parse("#12345", &c));
  g_assert_false(app_color_parse("chartreuse-ish", &c));
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/scene/ops", test_ops);
  g_test_add_func("/scene/hit-and-search", test_hit_and_search);
  g_test_add_func("/scene/malformed", test_malformed);
  g_test_add_func("/scene/edge-curves", test_edge_curves);
  g_test_add_func("/scene/edge-hit", test_edge_hit);
  g_test_add_func("/scene/colors", test_colors);
  return g_test_run();
}
