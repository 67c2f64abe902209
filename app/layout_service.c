/* Graphviz layout behind one lock, one worker, one cache (contract in layout_service.h). */
#include "layout_service.h"

#include <graphviz/gvc.h>
#include <stdio.h>
#include <string.h>

G_DEFINE_QUARK(app-layout-error-quark, app_layout_error)

#define CACHE_MAX 512
#define PNG_MAX_PX 32767.0

/* ---- libgvc behind one lock ---- */

G_LOCK_DEFINE_STATIC(graphviz);
static GVC_t *gvc;          /* one per process, made under the lock */
static GString *gv_errors;  /* messages of the call in progress, under the lock */

static int collect_error(char *message) {
  if (gv_errors)
    g_string_append(gv_errors, message);
  return 0;
}

/* Call with the lock held. */
static void begin_graphviz(void) {
  if (!gvc) {
    gvc = gvContext();
    agseterrf(collect_error);
  }
  gv_errors = g_string_new(NULL);
}

static char *end_graphviz(void) {
  char *errors = g_strstrip(g_string_free(gv_errors, FALSE));
  gv_errors = NULL;
  return errors;
}

static Agraph_t *read_and_layout(const char *dot, GError **error) {
  Agraph_t *g = agmemread(dot);
  if (!g) {
    char *errors = end_graphviz();
    gv_errors = g_string_new(NULL);
    g_set_error(error, APP_LAYOUT_ERROR, 0, "Graphviz cannot read the graph: %s",
                *errors ? errors : "syntax error");
    g_free(errors);
    return NULL;
  }
  if (gvLayout(gvc, g, "dot") != 0) {
    g_set_error(error, APP_LAYOUT_ERROR, 1, "Graphviz layout failed: %s", gv_errors->str);
    agclose(g);
    return NULL;
  }
  return g;
}

static const char *attr(void *obj, const char *name) {
  char *v = agget(obj, (char *)name);
  return v && *v ? v : NULL;
}

static bool add_object(AppScene *scene, void *obj, AppObjectKind kind, const char *id,
                       const char *const *attrs, GError **error) {
  int index = -1;
  const char *label = kind == APP_OBJECT_EDGE ? NULL : attr(obj, "label");
  for (guint i = 0; attrs[i]; i++) {
    const char *ops = attr(obj, attrs[i]);
    if (!ops && index >= 0)
      continue;
    index = app_scene_add_ops(scene, index, kind, id, label, ops, error);
    if (index < 0)
      return false;
  }
  return true;
}

static bool add_clusters(AppScene *scene, Agraph_t *g, GError **error) {
  static const char *const cluster_attrs[] = {"_draw_", "_ldraw_", NULL};
  for (Agraph_t *sub = agfstsubg(g); sub; sub = agnxtsubg(sub)) {
    const char *name = agnameof(sub);
    if (name && g_str_has_prefix(name, "cluster")) {
      if (!add_object(scene, sub, APP_OBJECT_CLUSTER, name, cluster_attrs, error))
        return false;
    }
    if (!add_clusters(scene, sub, error))
      return false;
  }
  return true;
}

/* The xdot attributes of a laid-out graph -> a scene: graph, clusters, edges, then nodes, so
 * that nodes are drawn over edges. */
static AppScene *scene_from_graph(Agraph_t *g, GError **error) {
  AppScene *scene = app_scene_new(attr(g, "bb"), error);
  if (!scene)
    return NULL;
  static const char *const graph_attrs[] = {"_draw_", "_ldraw_", NULL};
  static const char *const edge_attrs[] = {"_draw_", "_hdraw_", "_tdraw_", "_ldraw_",
                                           "_hldraw_", "_tldraw_", NULL};
  static const char *const node_attrs[] = {"_draw_", "_ldraw_", NULL};
  bool ok = add_object(scene, g, APP_OBJECT_GRAPH, "graph", graph_attrs, error) &&
            add_clusters(scene, g, error);
  for (Agnode_t *n = agfstnode(g); ok && n; n = agnxtnode(g, n))
    for (Agedge_t *e = agfstout(g, n); ok && e; e = agnxtout(g, e)) {
      char *id = g_strdup_printf("%s->%s", agnameof(agtail(e)), agnameof(aghead(e)));
      ok = add_object(scene, e, APP_OBJECT_EDGE, id, edge_attrs, error);
      g_free(id);
    }
  for (Agnode_t *n = agfstnode(g); ok && n; n = agnxtnode(g, n))
    ok = add_object(scene, n, APP_OBJECT_NODE, agnameof(n), node_attrs, error);
  if (!ok) {
    app_scene_unref(scene);
    return NULL;
  }
  return scene;
}

AppScene *app_layout_dot(const char *dot, GError **error) {
  G_LOCK(graphviz);
  begin_graphviz();
  AppScene *scene = NULL;
  Agraph_t *g = read_and_layout(dot, error);
  if (g) {
    char *data = NULL;
    unsigned int length = 0;
    if (gvRenderData(gvc, g, "xdot", &data, &length) != 0)
      g_set_error(error, APP_LAYOUT_ERROR, 2, "Graphviz cannot render xdot: %s", gv_errors->str);
    else
      scene = scene_from_graph(g, error);
    if (data)
      gvFreeRenderData(data);
    gvFreeLayout(gvc, g);
    agclose(g);
  }
  g_free(end_graphviz());
  G_UNLOCK(graphviz);
  return scene;
}

bool app_layout_export(const char *dot, const char *format, const char *path, GError **error) {
  if (strcmp(format, "svg") != 0 && strcmp(format, "png") != 0 && strcmp(format, "pdf") != 0) {
    g_set_error(error, APP_LAYOUT_ERROR, 3, "cannot export as '%s' (svg, png or pdf)", format);
    return false;
  }
  G_LOCK(graphviz);
  begin_graphviz();
  bool ok = false;
  Agraph_t *g = read_and_layout(dot, error);
  if (g) {
    double llx = 0, lly = 0, urx = 0, ury = 0;
    const char *bb = attr(g, "bb");
    if (bb)
      sscanf(bb, "%lf,%lf,%lf,%lf", &llx, &lly, &urx, &ury);
    /* PNG at 96 dpi: points * 96 / 72. */
    if (strcmp(format, "png") == 0 &&
        ((urx - llx) * 96 / 72 > PNG_MAX_PX || (ury - lly) * 96 / 72 > PNG_MAX_PX))
      g_set_error(error, APP_LAYOUT_ERROR, 4,
                  "the graph is %.0f x %.0f px, past PNG's 32,767 px: export SVG or PDF",
                  (urx - llx) * 96 / 72, (ury - lly) * 96 / 72);
    else if (gvRenderFilename(gvc, g, format, path) != 0)
      g_set_error(error, APP_LAYOUT_ERROR, 5, "cannot write %s as %s: %s", path, format,
                  gv_errors->str);
    else
      ok = true;
    gvFreeLayout(gvc, g);
    agclose(g);
  }
  g_free(end_graphviz());
  G_UNLOCK(graphviz);
  return ok;
}

/* ---- the service ---- */

typedef struct Request Request;

struct AppLayoutService {
  gint refcount; /* the owner plus every request not yet delivered */
  GMainContext *context;
  GAsyncQueue *queue;
  GThread *thread;
  gint stopped;
  GHashTable *cache;  /* DOT text -> AppScene* (main context only) */
  GQueue cache_order; /* keys, oldest first */
  GHashTable *live;   /* id -> Request*, requests whose callback is due */
  guint next_id, hits, misses;
};

struct Request {
  AppLayoutService *service;
  guint id;
  char *dot;
  AppLayoutDoneFn done;
  gpointer data;
  AppScene *scene;
  GError *error;
  bool quit;
};

static void service_unref(AppLayoutService *service) {
  if (!g_atomic_int_dec_and_test(&service->refcount))
    return;
  g_hash_table_destroy(service->cache);
  g_queue_clear(&service->cache_order);
  g_hash_table_destroy(service->live);
  g_async_queue_unref(service->queue);
  g_main_context_unref(service->context);
  g_free(service);
}

static void request_free(Request *r) {
  g_free(r->dot);
  if (r->scene)
    app_scene_unref(r->scene);
  g_clear_error(&r->error);
  g_free(r);
}

static void cache_insert(AppLayoutService *service, const char *dot, AppScene *scene) {
  if (g_hash_table_contains(service->cache, dot))
    return;
  char *key = g_strdup(dot);
  g_hash_table_insert(service->cache, key, app_scene_ref(scene));
  g_queue_push_tail(&service->cache_order, key);
  while (g_queue_get_length(&service->cache_order) > CACHE_MAX) {
    char *old = g_queue_pop_head(&service->cache_order);
    g_hash_table_remove(service->cache, old); /* frees the key */
  }
}

static gboolean deliver(gpointer data) {
  Request *r = data;
  AppLayoutService *service = r->service;
  if (!g_atomic_int_get(&service->stopped)) {
    if (r->scene)
      cache_insert(service, r->dot, r->scene);
    if (g_hash_table_steal(service->live, GUINT_TO_POINTER(r->id)) && r->done)
      r->done(r->scene, r->error, r->data);
  }
  request_free(r);
  service_unref(service);
  return G_SOURCE_REMOVE;
}

/* Always through an idle source: g_main_context_invoke would call `deliver` right away on a
 * thread that owns (or can acquire) the context. */
static void post(GMainContext *context, GSourceFunc fn, gpointer data) {
  GSource *source = g_idle_source_new();
  g_source_set_priority(source, G_PRIORITY_DEFAULT);
  g_source_set_callback(source, fn, data, NULL);
  g_source_attach(source, context);
  g_source_unref(source);
}

static gpointer worker(gpointer data) {
  AppLayoutService *service = data;
  for (;;) {
    Request *r = g_async_queue_pop(service->queue);
    if (r->quit) {
      request_free(r);
      return NULL;
    }
    if (!r->scene && !g_atomic_int_get(&service->stopped))
      r->scene = app_layout_dot(r->dot, &r->error);
    post(service->context, deliver, r);
  }
}

AppLayoutService *app_layout_service_new(GMainContext *context) {
  AppLayoutService *service = g_new0(AppLayoutService, 1);
  service->refcount = 1;
  service->context = g_main_context_ref(context ? context : g_main_context_default());
  service->queue = g_async_queue_new();
  service->cache = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
                                         (GDestroyNotify)app_scene_unref);
  g_queue_init(&service->cache_order);
  service->live = g_hash_table_new(g_direct_hash, g_direct_equal);
  service->thread = g_thread_new("jitscope-layout", worker, service);
  return service;
}

void app_layout_service_free(AppLayoutService *service) {
  if (!service)
    return;
  g_atomic_int_set(&service->stopped, 1);
  g_hash_table_remove_all(service->live);
  Request *quit = g_new0(Request, 1);
  quit->quit = true;
  g_async_queue_push_front(service->queue, quit);
  g_thread_join(service->thread);
  /* Requests still queued never reach the worker: drop them. */
  Request *r;
  while ((r = g_async_queue_try_pop(service->queue))) {
    request_free(r);
    service_unref(service);
  }
  service_unref(service);
}

AppScene *app_layout_service_lookup(AppLayoutService *service, const char *dot) {
  AppScene *scene = g_hash_table_lookup(service->cache, dot);
  if (!scene)
    return NULL;
  service->hits++;
  return app_scene_ref(scene);
}

guint app_layout_service_request(AppLayoutService *service, const char *dot, AppLayoutDoneFn done,
                                 gpointer data) {
  Request *r = g_new0(Request, 1);
  r->service = service;
  r->id = ++service->next_id;
  r->dot = g_strdup(dot);
  r->done = done;
  r->data = data;
  g_atomic_int_inc(&service->refcount);
  g_hash_table_insert(service->live, GUINT_TO_POINTER(r->id), r);
  AppScene *cached = g_hash_table_lookup(service->cache, dot);
  if (cached) {
    service->hits++;
    r->scene = app_scene_ref(cached);
    post(service->context, deliver, r);
  } else {
    service->misses++;
    g_async_queue_push(service->queue, r);
  }
  return r->id;
}

void app_layout_service_cancel(AppLayoutService *service, guint id) {
  g_hash_table_remove(service->live, GUINT_TO_POINTER(id));
}

guint app_layout_service_hits(const AppLayoutService *service) { return service->hits; }
guint app_layout_service_misses(const AppLayoutService *service) { return service->misses; }
guint app_layout_service_cache_size(const AppLayoutService *service) {
  return g_hash_table_size(service->cache);
}
