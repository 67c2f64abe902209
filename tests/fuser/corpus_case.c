/* Corpus helpers for the fuser tests (contract in corpus_case.h). */
#include "corpus_case.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "ir/text.h"
#include "runtime/npy.h"

char **corpus_case_index(void) {
  const char *dir = g_getenv("JITSCOPE_CORPUS_DIR");
  if (dir == NULL)
    return NULL;
  char *path = g_build_filename(dir, "INDEX", NULL);
  char *text = NULL;
  bool ok = g_file_get_contents(path, &text, NULL, NULL);
  g_free(path);
  if (!ok)
    return NULL;
  char **lines = g_strsplit(g_strstrip(text), "\n", -1);
  g_free(text);
  return lines;
}

static RtValue parse_arg(const char *dir, const char *arg) {
  if (g_str_has_suffix(arg, ".npy") || strstr(arg, ".npy:")) {
    char **parts = g_strsplit(arg, ":", 2);
    char *path = g_build_filename(dir, parts[0], NULL);
    GError *error = NULL;
    RtTensor *t = rt_npy_load(path, &error);
    g_assert_no_error(error);
    t->requires_grad = parts[1] && strstr(parts[1], "requires_grad=1");
    g_free(path);
    g_strfreev(parts);
    return rt_tensor(t);
  }
  if (!strcmp(arg, "true") || !strcmp(arg, "false"))
    return rt_bool(!strcmp(arg, "true"));
  if (!strcmp(arg, "none"))
    return rt_none();
  if (strchr(arg, '.') || strchr(arg, 'e'))
    return rt_double(g_ascii_strtod(arg, NULL));
  return rt_int(g_ascii_strtoll(arg, NULL, 10));
}

static RtTensor *load_ref(const char *dir, JsonNode *node) {
  if (JSON_NODE_HOLDS_NULL(node))
    return NULL;
  char *path = g_build_filename(dir, json_node_get_string(node), NULL);
  GError *error = NULL;
  RtTensor *t = rt_npy_load(path, &error);
  g_assert_no_error(error);
  g_free(path);
  return t;
}

void corpus_case_load(CorpusCase *c, const char *name) {
  memset(c, 0, sizeof *c);
  c->name = g_strdup(name);
  char *dir = g_build_filename(g_getenv("JITSCOPE_CORPUS_DIR"), name, NULL);
  char *graph_path = g_build_filename(dir, "..", "graph.ir", NULL);
  char *text = NULL;
  gsize len = 0;
  g_assert_true(g_file_get_contents(graph_path, &text, &len, NULL));
  GError *error = NULL;
  c->graph = ir_graph_parse(text, len, graph_path, &error);
  g_assert_no_error(error);
  g_free(text);
  g_free(graph_path);

  char *json_path = g_build_filename(dir, "case.json", NULL);
  JsonParser *parser = json_parser_new();
  g_assert_true(json_parser_load_from_file(parser, json_path, &error));
  JsonObject *root = json_node_get_object(json_parser_get_root(parser));
  JsonArray *args = json_object_get_array_member(root, "args");
  c->n_in = MIN(json_array_get_length(args), G_N_ELEMENTS(c->in));
  for (guint i = 0; i < c->n_in; i++) {
    c->in[i] = parse_arg(dir, json_array_get_string_element(args, i));
    c->leaf[i] = c->in[i].tag == RT_TENSOR ? c->in[i].u.tensor : NULL;
  }
  JsonArray *outs = json_object_get_array_member(root, "outputs");
  c->n_out = MIN(json_array_get_length(outs), G_N_ELEMENTS(c->out_ref));
  for (guint i = 0; i < c->n_out; i++)
    c->out_ref[i] = load_ref(dir, json_array_get_element(outs, i));
  JsonArray *grads = json_object_get_array_member(root, "grads");
  for (guint i = 0; i < json_array_get_length(grads) && i < c->n_in; i++)
    c->grad_ref[i] = load_ref(dir, json_array_get_element(grads, i));
  g_object_unref(parser);
  g_free(json_path);
  g_free(dir);
}

void corpus_case_free(CorpusCase *c) {
  for (guint i = 0; i < c->n_in; i++) {
    rt_value_unref(c->in[i]);
    if (c->grad_ref[i])
      rt_tensor_unref(c->grad_ref[i]);
  }
  for (guint i = 0; i < c->n_out; i++)
    if (c->out_ref[i])
      rt_tensor_unref(c->out_ref[i]);
  ir_graph_free(c->graph);
  g_free(c->name);
}

static void flatten(RtValue v, GPtrArray *out) {
  if (v.tag == RT_TUPLE)
    for (guint i = 0; i < v.u.seq->len; i++)
      flatten(v.u.seq->items[i], out);
  else
    g_ptr_array_add(out, v.tag == RT_TENSOR && v.u.tensor ? rt_tensor_ref(v.u.tensor) : NULL);
}

void corpus_case_run(CorpusCase *c, ExecSession *session, GPtrArray *outputs, GPtrArray *grads) {
  ExecExecutor *ex = exec_executor_new(session, c->graph, "main", EXEC_PLAN_FORWARD);
  RtValue *outs = NULL;
  guint n_outs = 0;
  GError *error = NULL;
  if (!exec_executor_run(ex, c->in, c->n_in, &outs, &n_outs, &error))
    g_error("%s: forward: %s", c->name, error->message);
  for (guint i = 0; i < n_outs; i++)
    flatten(outs[i], outputs);
  RtTensor *g[16] = {0};
  bool any_grad = false;
  for (guint i = 0; i < c->n_in; i++)
    any_grad |= c->leaf[i] && c->leaf[i]->requires_grad;
  if (any_grad && !exec_session_backward(session, (RtTensor **)outputs->pdata, NULL, outputs->len,
                                         c->leaf, c->n_in, g, &error))
    g_error("%s: backward: %s", c->name, error->message);
  for (guint i = 0; i < c->n_in; i++)
    g_ptr_array_add(grads, g[i]);
  for (guint i = 0; i < n_outs; i++)
    rt_value_unref(outs[i]);
  g_free(outs);
}

double corpus_rel_error(const RtTensor *a, const RtTensor *b) {
  if (a->ndim != b->ndim)
    return INFINITY;
  for (int d = 0; d < a->ndim; d++)
    if (a->sizes[d] != b->sizes[d])
      return INFINITY;
  double diff = 0, scale = 1;
  for (int64_t e = 0; e < rt_tensor_numel(b); e++) {
    double x = rt_tensor_get(a, e), y = rt_tensor_get(b, e);
    if (isnan(x) != isnan(y))
      return INFINITY;
    if (isnan(x))
      continue;
    diff = MAX(diff, fabs(x - y));
    scale = MAX(scale, fabs(y));
  }
  return diff / scale;
}
