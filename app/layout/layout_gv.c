/* Graphviz layouts as scene records (contract in layout_gv.h). */
#include "layout_gv.h"

#include <string.h>
#include <unistd.h>

#include "layout_coarse.h"
#include "layout_protocol.h"
#include "layout_service.h"

static GVC_t *gvc;
static GString *gv_errors;

static int collect_error(char *message) {
  if (gv_errors)
    g_string_append(gv_errors, message);
  return 0;
}

GVC_t *app_gv_context(void) {
  if (!gvc) {
    gvc = gvContext();
    agseterrf(collect_error);
  }
  return gvc;
}

void app_gv_begin(void) {
  app_gv_context();
  if (gv_errors)
    g_string_truncate(gv_errors, 0);
  else
    gv_errors = g_string_new(NULL);
}

char *app_gv_end(void) {
  char *errors = g_strstrip(g_string_free(gv_errors, FALSE));
  gv_errors = NULL;
  return errors;
}

const char *app_gv_errors(void) {
  return gv_errors ? gv_errors->str : "";
}

Agraph_t *app_gv_read(const char *dot, GError **error) {
  Agraph_t *g = agmemread(dot);
  if (!g) {
    g_autofree char *errors = g_strstrip(g_strdup(app_gv_errors()));
    g_set_error(error, APP_LAYOUT_ERROR, APP_LAYOUT_ERROR_SYNTAX,
                "Graphviz cannot read the graph: %s", *errors ? errors : "syntax error");
  }
  return g;
}

static const char *attr(void *obj, const char *name) {
  char *v = agget(obj, (char *)name);
  return v && *v ? v : NULL;
}

static void add_object(GString *out, void *obj, AppObjectKind kind, const char *id,
                       const char *const *attrs) {
  app_records_object(out, kind, id, kind == APP_OBJECT_EDGE ? NULL : attr(obj, "label"));
  for (guint i = 0; attrs[i]; i++) {
    const char *ops = attr(obj, attrs[i]);
    if (ops)
      app_records_ops(out, ops);
  }
}

static void add_clusters(GString *out, Agraph_t *g) {
  static const char *const cluster_attrs[] = {"_draw_", "_ldraw_", NULL};
  for (Agraph_t *sub = agfstsubg(g); sub; sub = agnxtsubg(sub)) {
    const char *name = agnameof(sub);
    if (name && g_str_has_prefix(name, "cluster"))
      add_object(out, sub, APP_OBJECT_CLUSTER, name, cluster_attrs);
    add_clusters(out, sub);
  }
}

/* A laid-out graph's xdot attributes -> records: graph, clusters, edges, then nodes, so that
 * nodes are drawn over edges. */
static GString *records_of(Agraph_t *g) {
  static const char *const graph_attrs[] = {"_draw_", "_ldraw_", NULL};
  static const char *const edge_attrs[] = {"_draw_",   "_hdraw_",  "_tdraw_", "_ldraw_",
                                           "_hldraw_", "_tldraw_", NULL};
  static const char *const node_attrs[] = {"_draw_", "_ldraw_", NULL};
  GString *out = g_string_new(NULL);
  app_records_begin(out, attr(g, "bb") ? attr(g, "bb") : "0,0,0,0");
  add_object(out, g, APP_OBJECT_GRAPH, "graph", graph_attrs);
  add_clusters(out, g);
  for (Agnode_t *n = agfstnode(g); n; n = agnxtnode(g, n))
    for (Agedge_t *e = agfstout(g, n); e; e = agnxtout(g, e)) {
      /* the value the edge stands for (graphviz_dot.h), else "tail->head" */
      g_autofree char *id =
          attr(e, "id") ? g_strdup(attr(e, "id"))
                        : g_strdup_printf("%s->%s", agnameof(agtail(e)), agnameof(aghead(e)));
      add_object(out, e, APP_OBJECT_EDGE, id, edge_attrs);
    }
  for (Agnode_t *n = agfstnode(g); n; n = agnxtnode(g, n))
    add_object(out, n, APP_OBJECT_NODE, agnameof(n), node_attrs);
  return out;
}

static void phase(const AppGvJob *job, const char *text) {
  if (job->phase)
    job->phase(text, job->data);
}

static void apply_fast_settings(Agraph_t *g) {
  g_auto(GStrv) settings = g_strsplit(APP_GV_FAST_SETTINGS, " ", -1);
  for (guint i = 0; settings[i]; i++) {
    char *eq = strchr(settings[i], '=');
    if (!eq)
      continue;
    *eq = '\0';
    agsafeset(g, settings[i], eq + 1, "");
  }
}

GString *app_gv_layout(const char *dot, const AppGvJob *job, GError **error) {
  app_gv_begin();
  phase(job, "reading DOT");
  Agraph_t *g = app_gv_read(dot, error);
  GString *records = NULL;
  if (!g)
    goto done;
  if (job->mode == APP_SCENE_COARSE ||
      (job->preview_above >= 0 && agnnodes(g) > job->preview_above && job->partial)) {
    phase(job, "coarse layout");
    records = app_layout_coarse(g);
    if (job->mode == APP_SCENE_COARSE)
      goto done;
    job->partial(records, agnnodes(g), job->data);
    g_string_free(records, TRUE);
    records = NULL;
  }
  if (job->hang) {
    phase(job, "dot layout (test: hanging)");
    for (;;)
      pause();
  }
  if (job->mode == APP_SCENE_FAST)
    apply_fast_settings(g);
  phase(job, job->mode == APP_SCENE_FAST ? "dot layout (fast settings)" : "dot layout");
  if (gvLayout(gvc, g, "dot") != 0) {
    g_set_error(error, APP_LAYOUT_ERROR, APP_LAYOUT_ERROR_FAILED, "Graphviz layout failed: %s",
                app_gv_errors());
    goto done;
  }
  phase(job, "rendering xdot");
  char *data = NULL;
  unsigned int length = 0;
  if (gvRenderData(gvc, g, "xdot", &data, &length) != 0)
    g_set_error(error, APP_LAYOUT_ERROR, APP_LAYOUT_ERROR_RENDER, "Graphviz cannot render xdot: %s",
                app_gv_errors());
  else
    records = records_of(g);
  if (data)
    gvFreeRenderData(data);
  gvFreeLayout(gvc, g);
done:
  if (g)
    agclose(g);
  g_free(app_gv_end());
  return records;
}
