/* Graphviz layout of the LSTM cell's stages into scenes, the service's worker and cache,
 * DOT errors, and export. */
#include <glib/gstdio.h>
#include <string.h>

#include "graphviz_dot.h"
#include "ir/type.h"
#include "layout_service.h"
#include "workspace.h"

static const char *lstm_spec =
    "Float(3, 10); Float(3, 20); Float(3, 20); Float(80, 10, requires_grad=1); "
    "Float(80, 20, requires_grad=1); Float(80, requires_grad=1); Float(80, requires_grad=1)";

static AppWorkspace *lstm_run(void) {
  AppWorkspace *ws = app_workspace_new();
  char *path = g_build_filename(g_getenv("JITSCOPE_SOURCE_DIR"), "resources", "examples",
                                "lstm_cell.ir", NULL);
  g_assert_true(app_workspace_load_file(ws, path, NULL));
  g_free(path);
  app_workspace_set_specs(ws, (char *const *)&lstm_spec, 1);
  g_assert_nonnull(app_workspace_run_sync(ws, NULL));
  return ws;
}

static void test_lstm_layout(void) {
  AppWorkspace *ws = app_workspace_new();
  char *path = g_build_filename(g_getenv("JITSCOPE_SOURCE_DIR"), "resources", "examples",
                                "lstm_cell.ir", NULL);
  g_assert_true(app_workspace_load_file(ws, path, NULL));
  g_free(path);
  char *dot = app_graphviz_dot(app_workspace_graph(ws), NULL, NULL);
  GError *error = NULL;
  AppScene *scene = app_layout_dot(dot, &error);
  g_assert_no_error(error);
  g_assert_cmpfloat(scene->width, >, 100);
  g_assert_cmpfloat(scene->height, >, 300);
  /* Every IR node (constants aside) is a node object with a box and its label text. */
  guint nodes = 0;
  bool saw_chunk_text = false;
  for (guint i = 0; i < scene->objects->len; i++) {
    const AppObject *o = app_scene_object(scene, i);
    if (o->kind != APP_OBJECT_NODE)
      continue;
    nodes++;
    g_assert_cmpuint(o->n_shapes, >=, 2);
    g_assert_cmpfloat(o->bounds.x1, >, o->bounds.x0);
    g_assert_cmpfloat(o->bounds.x0, >=, -1);
    g_assert_cmpfloat(o->bounds.y1, <=, scene->height + 1);
    for (guint s = 0; s < o->n_shapes; s++) {
      const AppShape *shape = app_scene_shape(scene, o->first_shape + s);
      if (shape->kind == APP_SHAPE_TEXT && strcmp(shape->text, "aten::chunk") == 0)
        saw_chunk_text = true;
    }
  }
  /* 7 inputs + 19 ops + return */
  g_assert_cmpuint(nodes, ==, 27);
  g_assert_true(saw_chunk_text);
  g_assert_cmpint(app_scene_find(scene, "i0"), >=, 0);
  g_assert_cmpint(app_scene_find(scene, "i0->n3") >= 0 || app_scene_find(scene, "r") >= 0, ==, 1);
  GArray *found = app_scene_search(scene, "sigmoid");
  g_assert_cmpuint(found->len, ==, 3);
  g_array_unref(found);
  app_scene_unref(scene);
  g_free(dot);
  app_workspace_free(ws);
}

/* Edges laid out by Graphviz keep the ids of the values they stand for, their curves, and with
 * edge types on their labels. */
static void test_edge_ids_laid_out(void) {
  AppWorkspace *ws = app_workspace_new();
  char *path = g_build_filename(g_getenv("JITSCOPE_SOURCE_DIR"), "resources", "examples",
                                "lstm_cell.ir", NULL);
  g_assert_true(app_workspace_load_file(ws, path, NULL));
  g_free(path);
  const IrGraph *graph = app_workspace_graph(ws);
  AppDotOptions typed = {.edge_types = true};
  char *dot = app_graphviz_dot(graph, &typed, NULL);
  GError *error = NULL;
  AppScene *scene = app_layout_dot(dot, &error);
  g_assert_no_error(error);
  guint edges = 0, labels = 0;
  for (guint i = 0; i < scene->objects->len; i++) {
    const AppObject *o = app_scene_object(scene, i);
    if (o->kind != APP_OBJECT_EDGE)
      continue;
    edges++;
    const IrValue *v = app_graphviz_dot_find_value(graph, o->id);
    g_assert_nonnull(v);
    char *type = ir_type_to_string(v->type);
    const AppShape *curve = app_scene_shape(scene, o->first_shape);
    g_assert_cmpint(curve->kind, ==, APP_SHAPE_BEZIER);
    /* the curve's ends are on it, and the edge is what a hit there finds */
    g_assert_cmpfloat(app_scene_edge_distance(scene, i, curve->points[0], curve->points[1]), <,
                      1e-9);
    int hit = app_scene_hit_edge(scene, curve->points[0], curve->points[1], 0.5);
    g_assert_cmpint(hit, >=, 0);
    g_assert_cmpfloat(
        app_scene_edge_distance(scene, (guint)hit, curve->points[0], curve->points[1]), <, 1e-9);
    for (guint k = 0; k < o->n_shapes; k++) {
      const AppShape *s = app_scene_shape(scene, o->first_shape + k);
      if (s->kind == APP_SHAPE_TEXT) {
        g_assert_cmpstr(s->text, ==, type);
        labels++;
      }
    }
    g_free(type);
  }
  g_assert_cmpuint(edges, >, 20);
  g_assert_cmpuint(labels, ==, edges);
  app_scene_unref(scene);
  g_free(dot);
  app_workspace_free(ws);
}

static void test_bad_dot(void) {
  GError *error = NULL;
  g_assert_null(app_layout_dot("digraph { a -> ", &error));
  g_assert_error(error, APP_LAYOUT_ERROR, 0);
  g_clear_error(&error);
  /* The lock and context survive an error. */
  AppScene *scene = app_layout_dot("digraph { a -> b }", &error);
  g_assert_no_error(error);
  g_assert_cmpint(app_scene_find(scene, "a->b"), >=, 0);
  app_scene_unref(scene);
}

typedef struct {
  GMainLoop *loop;
  guint pending;
  guint delivered;
  bool errored;
} Waiting;

static void on_scene(AppScene *scene, const GError *error, gpointer data) {
  Waiting *w = data;
  if (error)
    w->errored = true;
  else
    g_assert_nonnull(scene);
  w->delivered++;
  if (--w->pending == 0)
    g_main_loop_quit(w->loop);
}

static void never(AppScene *scene, const GError *error, gpointer data) {
  g_assert_not_reached();
}

/* Every stage of every plan through the service: unchanged stages hit the cache. */
static void test_service_cache(void) {
  AppWorkspace *ws = lstm_run();
  const AppWorkspaceRun *run = app_workspace_last_run(ws);
  AppLayoutService *service = app_layout_service_new(NULL);
  Waiting w = {g_main_loop_new(NULL, FALSE), 0, 0, false};
  GHashTable *distinct = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  guint requests = 0;
  for (guint p = 0; p < run->plans->len; p++) {
    const AppWorkspacePlan *plan = g_ptr_array_index(run->plans, p);
    for (guint s = 0; s < plan->stages->len; s++) {
      const AppWorkspaceStage *stage = g_ptr_array_index(plan->stages, s);
      char *dot = app_graphviz_dot(stage->graph, NULL, NULL);
      w.pending++;
      requests++;
      app_layout_service_request(service, dot, on_scene, &w);
      g_hash_table_add(distinct, dot);
    }
  }
  g_main_loop_run(w.loop);
  g_assert_false(w.errored);
  g_assert_cmpuint(w.delivered, ==, requests);
  /* The first pass queued everything before any result was cached. */
  g_assert_cmpuint(app_layout_service_misses(service), ==, requests);
  g_assert_cmpuint(app_layout_service_cache_size(service), ==, g_hash_table_size(distinct));
  g_assert_cmpuint(g_hash_table_size(distinct), <, requests); /* some stages change nothing */

  /* Second pass: every request is a hit, delivered later, never synchronously. */
  GHashTableIter it;
  gpointer key;
  g_hash_table_iter_init(&it, distinct);
  guint before_hits = app_layout_service_hits(service);
  while (g_hash_table_iter_next(&it, &key, NULL)) {
    w.pending++;
    guint delivered = w.delivered;
    app_layout_service_request(service, key, on_scene, &w);
    g_assert_cmpuint(w.delivered, ==, delivered);
    AppScene *cached = app_layout_service_lookup(service, key);
    g_assert_nonnull(cached);
    app_scene_unref(cached);
  }
  g_main_loop_run(w.loop);
  g_assert_cmpuint(app_layout_service_hits(service) - before_hits, ==,
                   2 * g_hash_table_size(distinct));
  g_assert_cmpuint(app_layout_service_misses(service), ==, requests);

  /* A cancelled request is never delivered; freeing with a request queued is safe. */
  guint id = app_layout_service_request(service, "digraph { x -> y }", never, NULL);
  app_layout_service_cancel(service, id);
  app_layout_service_request(service, "digraph { p -> q -> r }", never, NULL);
  app_layout_service_free(service);
  for (int i = 0; i < 100; i++)
    g_main_context_iteration(NULL, FALSE);

  g_hash_table_destroy(distinct);
  g_main_loop_unref(w.loop);
  app_workspace_free(ws);
}

static void test_export(void) {
  char *dir = g_dir_make_tmp("jitscope-export-XXXXXX", NULL);
  const char *formats[] = {"svg", "png", "pdf"};
  for (guint i = 0; i < 3; i++) {
    char *path = g_strdup_printf("%s/g.%s", dir, formats[i]);
    GError *error = NULL;
    g_assert_true(app_layout_export("digraph { a -> b }", formats[i], path, &error));
    g_assert_no_error(error);
    gsize len = 0;
    char *data = NULL;
    g_assert_true(g_file_get_contents(path, &data, &len, NULL));
    g_assert_cmpuint(len, >, 100);
    if (i == 0)
      g_assert_nonnull(strstr(data, "<svg"));
    if (i == 1)
      g_assert_cmpint(memcmp(data, "\x89PNG", 4), ==, 0);
    if (i == 2)
      g_assert_cmpint(memcmp(data, "%PDF", 4), ==, 0);
    g_free(data);
    g_remove(path);
    g_free(path);
  }
  GError *error = NULL;
  g_assert_false(app_layout_export("digraph { a }", "gif", "/nonexistent/x.gif", &error));
  g_clear_error(&error);
  g_rmdir(dir);
  g_free(dir);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/layout/lstm", test_lstm_layout);
  g_test_add_func("/layout/edge-ids", test_edge_ids_laid_out);
  g_test_add_func("/layout/bad-dot", test_bad_dot);
  g_test_add_func("/layout/service-cache", test_service_cache);
  g_test_add_func("/layout/export", test_export);
  return g_test_run();
}
