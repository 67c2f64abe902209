/* Stage pictures: DOT once per stage, clusters laid out on their own, progress (contract in
 * workspace_layout.h). Everything runs on the layout service's context. */
#include "workspace_layout.h"

#include <string.h>

#define DOT_MAX 256
#define DOT_BYTES ((gsize)384 * 1024 * 1024)
#define COMPOSED_MAX 16

typedef struct {
  gint refcount;
  char *dot;
  char *key; /* SHA-256 of dot */
  AppDotStats stats;
  gsize bytes;
} DotEntry;

struct AppStageLayouts {
  AppLayoutService *service;
  GHashTable *dots; /* view key -> DotEntry* */
  GQueue dot_order; /* view keys (owned by `dots`), oldest first */
  gsize dot_bytes;
  GHashTable *composed; /* main key + cluster keys -> AppScene* */
  GQueue composed_order;
  GHashTable *jobs; /* id -> Job* */
  guint next_id, dot_builds, dot_hits, compositions;
};

typedef struct {
  AppStageLayouts *owner;
  guint id;
  AppStageView view;   /* view.toggled: the job's own copy */
  GPtrArray *owners;   /* char*: owners laid out on their own */
  DotEntry **clusters; /* per owner */
  AppScene **inner;    /* per owner: its layout, once there */
  guint *inner_req;    /* per owner: request id while laying out */
  DotEntry *main;      /* once the clusters' sizes are known */
  guint main_req;
  GPtrArray *refs; /* ClusterRef* handed to the service as callback data */
  AppStageUpdateFn fn;
  gpointer data;
  gint64 started;
  int busy;
  bool cancelled, stats_sent;
} Job;

static DotEntry *dot_ref(DotEntry *e) {
  e->refcount++;
  return e;
}

static void dot_unref(DotEntry *e) {
  if (!e || --e->refcount > 0)
    return;
  g_free(e->dot);
  g_free(e->key);
  g_free(e);
}

/* ---- views and their keys ---- */

static gint compare_strings(gconstpointer a, gconstpointer b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static GPtrArray *sorted_keys(GHashTable *table) {
  GPtrArray *keys = g_ptr_array_new();
  if (table) {
    GHashTableIter it;
    gpointer key;
    g_hash_table_iter_init(&it, table);
    while (g_hash_table_iter_next(&it, &key, NULL))
      g_ptr_array_add(keys, key);
  }
  g_ptr_array_sort(keys, compare_strings);
  return keys;
}

/* The previous stage as far as drawing goes: one with the same fingerprint highlights
 * nothing, so an unchanged stage is drawn (and cached) as its predecessor without one. */
static const AppWorkspaceStage *drawn_before(const AppStageView *view) {
  const AppWorkspaceStage *before = view->before;
  if (before && before->fingerprint && view->stage->fingerprint &&
      g_str_equal(before->fingerprint, view->stage->fingerprint))
    return NULL;
  return before;
}

/* Everything the DOT text depends on, short: fingerprints and options. */
static char *view_key(const AppStageView *view, const char *owner_id, GHashTable *separate) {
  GString *key = g_string_new(NULL);
  const AppWorkspaceStage *before = drawn_before(view);
  g_string_append_printf(key, "%s|%s|%d|%d%d%d|%s|", view->stage->fingerprint,
                         before ? before->fingerprint : "-", (int)view->collapse,
                         view->dark ? 1 : 0, view->edge_types ? 1 : 0, view->show_removed ? 1 : 0,
                         owner_id ? owner_id : "");
  g_autoptr(GPtrArray) toggled = sorted_keys(view->toggled);
  for (guint i = 0; i < toggled->len; i++)
    g_string_append_printf(key, "%s,", (char *)g_ptr_array_index(toggled, i));
  g_string_append_c(key, '|');
  g_autoptr(GPtrArray) sep = sorted_keys(separate);
  for (guint i = 0; i < sep->len; i++) {
    const char *id = g_ptr_array_index(sep, i);
    g_string_append_printf(key, "%s=%s,", id, (char *)g_hash_table_lookup(separate, id));
  }
  return g_string_free(key, FALSE);
}

static AppDotOptions dot_options(const AppStageView *view, GHashTable *separate) {
  const AppWorkspaceStage *before = drawn_before(view);
  return (AppDotOptions){.previous = before ? before->graph : NULL,
                         .collapse = view->collapse,
                         .toggled = view->toggled,
                         .dark = view->dark,
                         .separate = separate,
                         .edge_types = view->edge_types,
                         .show_removed = view->show_removed};
}

char *app_stage_layouts_full_dot(const AppStageView *view, AppDotStats *stats) {
  AppDotOptions options = dot_options(view, NULL);
  return app_graphviz_dot(view->stage->graph, &options, stats);
}

static bool is_owner(const IrNode *node) {
  const IrAttr *sub = ir_node_attr(node, IR_ATTR_SUBGRAPH);
  return (sub && sub->kind == IR_ATTR_G) || ir_n_blocks(node) > 0;
}

GPtrArray *app_stage_layouts_separate_owners(const AppStageView *view) {
  GPtrArray *owners = g_ptr_array_new_with_free_func(g_free);
  const IrGraph *graph = view->stage->graph;
  if (!view->toggled || g_hash_table_size(view->toggled) == 0 || !graph)
    return owners;
  guint total = app_graphviz_count_nodes(graph);
  bool folded_by_default =
      view->collapse == APP_DOT_COLLAPSE_ALL ||
      (view->collapse == APP_DOT_COLLAPSE_AUTO && total > APP_STAGE_SEPARATE_ABOVE);
  if (!folded_by_default || total <= APP_STAGE_SEPARATE_ABOVE)
    return owners;
  g_autoptr(GPtrArray) toggled = sorted_keys(view->toggled);
  for (guint i = 0; i < toggled->len; i++) {
    const char *id = g_ptr_array_index(toggled, i);
    const IrNode *node = app_graphviz_dot_find_node(graph, id);
    /* toggled where owners fold by default: expanded */
    if (node && node->owning_block == graph->block && is_owner(node))
      g_ptr_array_add(owners, g_strdup(id));
  }
  return owners;
}

/* ---- the DOT cache ---- */

static DotEntry *get_dot(AppStageLayouts *l, const AppStageView *view, const char *owner_id,
                         GHashTable *separate) {
  g_autofree char *key = view_key(view, owner_id, separate);
  DotEntry *e = g_hash_table_lookup(l->dots, key);
  if (e) {
    l->dot_hits++;
    return dot_ref(e);
  }
  AppDotOptions options = dot_options(view, separate);
  AppDotStats stats = {0};
  char *dot = owner_id ? app_graphviz_dot_cluster(view->stage->graph, owner_id, &options, &stats)
                       : app_graphviz_dot(view->stage->graph, &options, &stats);
  if (!dot)
    return NULL;
  l->dot_builds++;
  e = g_new0(DotEntry, 1);
  e->refcount = 1;
  e->dot = dot;
  e->key = g_compute_checksum_for_string(G_CHECKSUM_SHA256, dot, -1);
  e->stats = stats;
  e->bytes = strlen(dot) + strlen(key) + 128;
  g_hash_table_insert(l->dots, key, e); /* the table owns the key, the queue shares it */
  g_queue_push_tail(&l->dot_order, g_steal_pointer(&key));
  l->dot_bytes += e->bytes;
  while (g_queue_get_length(&l->dot_order) > 1 &&
         (g_queue_get_length(&l->dot_order) > DOT_MAX || l->dot_bytes > DOT_BYTES)) {
    char *old = g_queue_pop_head(&l->dot_order);
    DotEntry *gone = g_hash_table_lookup(l->dots, old);
    l->dot_bytes -= gone->bytes;
    g_hash_table_remove(l->dots, old); /* frees the key, drops the cache's reference */
  }
  return dot_ref(e);
}

static AppScene *lookup_scene(AppStageLayouts *l, const DotEntry *e) {
  AppLayoutOptions options = {.key = e->key};
  return app_layout_service_lookup_full(l->service, NULL, &options);
}

static guint request_scene(AppStageLayouts *l, const DotEntry *e, AppLayoutDoneFn done,
                           AppLayoutProgressFn progress, gpointer data) {
  AppLayoutOptions options = {.key = e->key};
  return app_layout_service_request_full(l->service, e->dot, &options, done, progress, data);
}

/* The separate sizes ("W,H" in points) of laid-out clusters. */
static GHashTable *separate_sizes(GPtrArray *owners, AppScene **inner) {
  GHashTable *separate = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  for (guint i = 0; i < owners->len; i++) {
    char w[G_ASCII_DTOSTR_BUF_SIZE], h[G_ASCII_DTOSTR_BUF_SIZE];
    g_ascii_formatd(w, sizeof w, "%.1f", inner[i]->width);
    g_ascii_formatd(h, sizeof h, "%.1f", inner[i]->height);
    g_hash_table_insert(separate, g_strdup(g_ptr_array_index(owners, i)),
                        g_strdup_printf("%s,%s", w, h));
  }
  return separate;
}

/* `outer` with each cluster drawn into its owner's box; a new reference. Final scenes are
 * cached by their layouts' keys. */
static AppScene *compose(AppStageLayouts *l, AppScene *outer, const DotEntry *main,
                         GPtrArray *owners, DotEntry **clusters, AppScene **inner, bool cache) {
  g_autofree char *key = NULL;
  if (cache) {
    GString *k = g_string_new(main->key);
    for (guint i = 0; i < owners->len; i++)
      g_string_append_printf(k, " %s", clusters[i]->key);
    key = g_string_free(k, FALSE);
    AppScene *hit = g_hash_table_lookup(l->composed, key);
    if (hit)
      return app_scene_ref(hit);
  }
  AppScene *scene = app_scene_ref(outer);
  for (guint i = 0; i < owners->len; i++) {
    AppScene *next = app_scene_compose(scene, g_ptr_array_index(owners, i), inner[i]);
    if (next) {
      app_scene_unref(scene);
      scene = next;
    }
  }
  l->compositions++;
  if (key) {
    g_hash_table_insert(l->composed, key, app_scene_ref(scene)); /* the queue shares the key */
    g_queue_push_tail(&l->composed_order, g_steal_pointer(&key));
    while (g_queue_get_length(&l->composed_order) > COMPOSED_MAX)
      g_hash_table_remove(l->composed, g_queue_pop_head(&l->composed_order));
  }
  return scene;
}

/* ---- requests ---- */

static void job_free(Job *j) {
  AppStageLayouts *l = j->owner;
  for (guint i = 0; i < j->owners->len; i++) {
    if (j->inner_req[i])
      app_layout_service_cancel(l->service, j->inner_req[i]);
    dot_unref(j->clusters[i]);
    if (j->inner[i])
      app_scene_unref(j->inner[i]);
  }
  if (j->main_req)
    app_layout_service_cancel(l->service, j->main_req);
  dot_unref(j->main);
  g_free(j->clusters);
  g_free(j->inner);
  g_free(j->inner_req);
  g_ptr_array_unref(j->owners);
  g_ptr_array_unref(j->refs);
  if (j->view.toggled)
    g_hash_table_unref(j->view.toggled);
  g_free(j);
}

/* Calls the owner back; returns whether the job is still wanted. A done update ends it. */
static bool emit(Job *j, AppStageUpdate *u) {
  u->elapsed_s = (double)(g_get_monotonic_time() - j->started) / G_USEC_PER_SEC;
  u->clusters = j->owners->len;
  if (j->main && !j->stats_sent) {
    u->stats = &j->main->stats;
    j->stats_sent = true;
  }
  if (u->done)
    g_hash_table_remove(j->owner->jobs, GUINT_TO_POINTER(j->id));
  j->busy++;
  j->fn(u, j->data);
  j->busy--;
  if (u->done || j->cancelled) {
    if (j->busy == 0)
      job_free(j);
    return false;
  }
  return true;
}

static void fail(Job *j, const GError *error) {
  AppStageUpdate u = {.done = true, .error = error};
  emit(j, &u);
}

static void on_main_progress(const AppLayoutProgress *p, gpointer data) {
  Job *j = data;
  AppScene *shown = NULL;
  if (p->preview)
    shown = compose(j->owner, p->preview, j->main, j->owners, j->clusters, j->inner, false);
  AppStageUpdate u = {.scene = shown, .phase = p->phase};
  emit(j, &u);
  if (shown)
    app_scene_unref(shown);
}

static void on_main_scene(AppScene *scene, const GError *error, gpointer data) {
  Job *j = data;
  j->main_req = 0;
  if (!scene) {
    fail(j, error);
    return;
  }
  AppScene *shown = compose(j->owner, scene, j->main, j->owners, j->clusters, j->inner, true);
  AppStageUpdate u = {.scene = shown, .done = true};
  emit(j, &u);
  app_scene_unref(shown);
}

/* Every cluster is laid out: the main DOT with their sizes, then its layout. */
static void request_main(Job *j) {
  g_autoptr(GHashTable) separate = j->owners->len ? separate_sizes(j->owners, j->inner) : NULL;
  j->main = get_dot(j->owner, &j->view, NULL, separate);
  j->main_req = request_scene(j->owner, j->main, on_main_scene, on_main_progress, j);
}

typedef struct {
  Job *job;
  guint index;
} ClusterRef;

static void on_cluster_progress(const AppLayoutProgress *p, gpointer data) {
  ClusterRef *ref = data;
  g_autofree char *phase =
      g_strdup_printf("laying out %s on its own: %s",
                      (char *)g_ptr_array_index(ref->job->owners, ref->index), p->phase);
  AppStageUpdate u = {.phase = phase};
  emit(ref->job, &u);
}

static void on_cluster_scene(AppScene *scene, const GError *error, gpointer data) {
  ClusterRef *ref = data;
  Job *j = ref->job;
  guint i = ref->index;
  j->inner_req[i] = 0;
  if (!scene) {
    g_autoptr(GError) e = g_error_new(error->domain, error->code, "%s (laying out %s on its own)",
                                      error->message, (char *)g_ptr_array_index(j->owners, i));
    fail(j, e);
    return;
  }
  j->inner[i] = app_scene_ref(scene);
  for (guint k = 0; k < j->owners->len; k++)
    if (!j->inner[k])
      return;
  request_main(j);
}

static Job *job_new(AppStageLayouts *l, const AppStageView *view, GPtrArray *owners,
                    AppStageUpdateFn fn, gpointer data) {
  Job *j = g_new0(Job, 1);
  j->owner = l;
  j->id = ++l->next_id;
  j->view = *view;
  j->view.toggled = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GPtrArray) toggled = sorted_keys(view->toggled);
  for (guint i = 0; i < toggled->len; i++)
    g_hash_table_add(j->view.toggled, g_strdup(g_ptr_array_index(toggled, i)));
  j->owners = owners;
  j->clusters = g_new0(DotEntry *, owners->len + 1);
  j->inner = g_new0(AppScene *, owners->len + 1);
  j->inner_req = g_new0(guint, owners->len + 1);
  j->refs = g_ptr_array_new_with_free_func(g_free);
  j->fn = fn;
  j->data = data;
  j->started = g_get_monotonic_time();
  g_hash_table_insert(l->jobs, GUINT_TO_POINTER(j->id), j);
  return j;
}

guint app_stage_layouts_show(AppStageLayouts *l, const AppStageView *view, AppScene **scene,
                             AppDotStats *stats, bool *have_stats, AppStageUpdateFn fn,
                             gpointer data) {
  *scene = NULL;
  *have_stats = false;
  GPtrArray *owners = app_stage_layouts_separate_owners(view);
  g_autofree DotEntry **clusters = g_new0(DotEntry *, owners->len + 1);
  g_autofree AppScene **inner = g_new0(AppScene *, owners->len + 1);
  bool all_inner = true;
  for (guint i = 0; i < owners->len; i++) {
    clusters[i] = get_dot(l, view, g_ptr_array_index(owners, i), NULL);
    inner[i] = lookup_scene(l, clusters[i]);
    all_inner = all_inner && inner[i];
  }
  DotEntry *main = NULL;
  AppScene *outer = NULL;
  if (all_inner) {
    g_autoptr(GHashTable) separate = owners->len ? separate_sizes(owners, inner) : NULL;
    main = get_dot(l, view, NULL, separate);
    *stats = main->stats;
    *have_stats = true;
    outer = lookup_scene(l, main);
  }
  if (outer) {
    *scene =
        owners->len ? compose(l, outer, main, owners, clusters, inner, true) : app_scene_ref(outer);
    app_scene_unref(outer);
    for (guint i = 0; i < owners->len; i++) {
      dot_unref(clusters[i]);
      app_scene_unref(inner[i]);
    }
    dot_unref(main);
    g_ptr_array_unref(owners);
    return 0;
  }
  Job *j = job_new(l, view, owners, fn, data);
  for (guint i = 0; i < owners->len; i++) {
    j->clusters[i] = clusters[i];
    j->inner[i] = inner[i];
  }
  if (main) {
    j->main = main;
    j->stats_sent = true; /* the caller has them */
    j->main_req = request_scene(l, main, on_main_scene, on_main_progress, j);
    return j->id;
  }
  for (guint i = 0; i < owners->len; i++) {
    if (j->inner[i])
      continue;
    ClusterRef *ref = g_new(ClusterRef, 1);
    *ref = (ClusterRef){j, i};
    g_ptr_array_add(j->refs, ref);
    j->inner_req[i] = app_layout_service_request_full(
        l->service, j->clusters[i]->dot, &(AppLayoutOptions){.key = j->clusters[i]->key},
        on_cluster_scene, on_cluster_progress, ref);
  }
  return j->id;
}

void app_stage_layouts_cancel(AppStageLayouts *l, guint id) {
  Job *j = id ? g_hash_table_lookup(l->jobs, GUINT_TO_POINTER(id)) : NULL;
  if (!j)
    return;
  g_hash_table_remove(l->jobs, GUINT_TO_POINTER(id));
  j->cancelled = true;
  if (j->busy == 0)
    job_free(j);
}

/* ---- the object ---- */

static void dot_entry_drop(gpointer data) {
  dot_unref(data);
}

AppStageLayouts *app_stage_layouts_new(AppLayoutService *service) {
  AppStageLayouts *l = g_new0(AppStageLayouts, 1);
  l->service = service;
  l->dots = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, dot_entry_drop);
  g_queue_init(&l->dot_order);
  l->composed =
      g_hash_table_new_full(g_str_hash, g_str_equal, g_free, (GDestroyNotify)app_scene_unref);
  g_queue_init(&l->composed_order);
  l->jobs = g_hash_table_new(g_direct_hash, g_direct_equal);
  return l;
}

void app_stage_layouts_free(AppStageLayouts *l) {
  if (!l)
    return;
  GList *jobs = g_hash_table_get_values(l->jobs);
  for (GList *it = jobs; it; it = it->next)
    app_stage_layouts_cancel(l, ((Job *)it->data)->id);
  g_list_free(jobs);
  g_hash_table_destroy(l->jobs);
  g_hash_table_destroy(l->dots);
  g_queue_clear(&l->dot_order);
  g_hash_table_destroy(l->composed);
  g_queue_clear(&l->composed_order);
  g_free(l);
}

AppLayoutService *app_stage_layouts_service(AppStageLayouts *l) {
  return l->service;
}
guint app_stage_layouts_dot_builds(const AppStageLayouts *l) {
  return l->dot_builds;
}
guint app_stage_layouts_dot_hits(const AppStageLayouts *l) {
  return l->dot_hits;
}
guint app_stage_layouts_compositions(const AppStageLayouts *l) {
  return l->compositions;
}
