/* Every corpus case through ExecExecutor + exec_session_backward with the fuser on (once on
 * the C backend "cpu-c", once on the interpreting CPU loop "cpu" with the compiler turned off
 * through JITSCOPE_CC=none) and off: outputs and gradients match PyTorch's within the corpus
 * README's tolerances, fused and unfused numbers agree, and every fusion group that ran ran
 * on the backend wanted (no fallback to the interpreter; the evaluator's records say why the
 * C backend declined). JITSCOPE_FUSER_DEBUG=1 prints every plan's final graph. */
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "exec/executor.h"
#include "fuser/cpu_compile.h"
#include "fuser/fuser.h"
#include "ir/text.h"
#include "runtime/npy.h"

typedef struct {
  guint n_in;
  RtValue in[16];
  RtTensor *leaf[16]; /* borrowed from in[] */
  guint n_out;
  RtTensor *out_ref[8];
  RtTensor *grad_ref[16];
} Case;

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

static void case_load(Case *c, const char *dir) {
  memset(c, 0, sizeof *c);
  char *json_path = g_build_filename(dir, "case.json", NULL);
  JsonParser *parser = json_parser_new();
  GError *error = NULL;
  g_assert_true(json_parser_load_from_file(parser, json_path, &error));
  JsonObject *root = json_node_get_object(json_parser_get_root(parser));
  JsonArray *args = json_object_get_array_member(root, "args");
  c->n_in = json_array_get_length(args);
  for (guint i = 0; i < c->n_in; i++) {
    c->in[i] = parse_arg(dir, json_array_get_string_element(args, i));
    c->leaf[i] = c->in[i].tag == RT_TENSOR ? c->in[i].u.tensor : NULL;
  }
  JsonArray *outs = json_object_get_array_member(root, "outputs");
  c->n_out = json_array_get_length(outs);
  for (guint i = 0; i < c->n_out; i++)
    c->out_ref[i] = load_ref(dir, json_array_get_element(outs, i));
  JsonArray *grads = json_object_get_array_member(root, "grads");
  for (guint i = 0; i < json_array_get_length(grads) && i < c->n_in; i++)
    c->grad_ref[i] = load_ref(dir, json_array_get_element(grads, i));
  g_object_unref(parser);
  g_free(json_path);
}

static void case_free(Case *c) {
  for (guint i = 0; i < c->n_in; i++) {
    rt_value_unref(c->in[i]);
    if (c->grad_ref[i])
      rt_tensor_unref(c->grad_ref[i]);
  }
  for (guint i = 0; i < c->n_out; i++)
    if (c->out_ref[i])
      rt_tensor_unref(c->out_ref[i]);
}

/* max |a - b| / max(1, max |b|) */
static double rel_error(const RtTensor *a, const RtTensor *b) {
  g_assert_cmpint(a->ndim, ==, b->ndim);
  for (int d = 0; d < a->ndim; d++)
    g_assert_cmpint(a->sizes[d], ==, b->sizes[d]);
  double diff = 0, scale = 1;
  for (int64_t e = 0; e < rt_tensor_numel(b); e++) {
    double x = rt_tensor_get(a, e), y = rt_tensor_get(b, e);
    diff = MAX(diff, fabs(x - y));
    scale = MAX(scale, fabs(y));
    if (isnan(x) != isnan(y))
      return INFINITY;
  }
  return diff / scale;
}

static void flatten(RtValue v, GPtrArray *out) {
  if (v.tag == RT_TUPLE)
    for (guint i = 0; i < v.u.seq->len; i++)
      flatten(v.u.seq->items[i], out);
  else
    g_ptr_array_add(out, v.tag == RT_TENSOR ? v.u.tensor : NULL);
}

/* Runs the case; returns outputs and grads (new references) in `results`. */
static void run_case(const char *name, Case *c, bool fuse, const char *backend, GPtrArray *results,
                     guint *cpu_groups) {
  char *path = g_build_filename(g_getenv("JITSCOPE_CORPUS_DIR"), name, "..", "graph.ir", NULL);
  char *text = NULL;
  gsize len = 0;
  g_assert_true(g_file_get_contents(path, &text, &len, NULL));
  GError *error = NULL;
  IrGraph *graph = ir_graph_parse(text, len, path, &error);
  g_assert_no_error(error);
  ExecSession *session = exec_session_new();
  session->verify = true;
  session->fuse = fuse;
  ExecExecutor *ex = exec_executor_new(session, graph, "main", EXEC_PLAN_FORWARD);
  RtValue *outs = NULL;
  guint n_outs = 0;
  g_assert_true(exec_executor_run(ex, c->in, c->n_in, &outs, &n_outs, &error));
  g_assert_no_error(error);
  GPtrArray *flat = g_ptr_array_new();
  for (guint i = 0; i < n_outs; i++)
    flatten(outs[i], flat);
  RtTensor *grads[16] = {0};
  bool any_grad = false;
  for (guint i = 0; i < c->n_in; i++)
    any_grad |= c->leaf[i] && c->leaf[i]->requires_grad;
  if (any_grad) {
    g_assert_true(exec_session_backward(session, (RtTensor **)flat->pdata, NULL, flat->len,
                                        c->leaf, c->n_in, grads, &error));
    g_assert_no_error(error);
  }
  for (guint i = 0; i < flat->len; i++)
    g_ptr_array_add(results, flat->pdata[i] ? rt_tensor_ref(flat->pdata[i]) : NULL);
  for (guint i = 0; i < c->n_in; i++)
    g_ptr_array_add(results, grads[i]);
  for (guint p = 0; p < session->plans->len; p++) {
    ExecPlan *plan = g_ptr_array_index(session->plans, p);
    if (g_getenv("JITSCOPE_FUSER_DEBUG")) {
      char *ir = ir_graph_to_string(plan->graph);
      char *records = fuser_plan_records_describe(plan);
      g_printerr("== %s %s (fuse=%d)\n%s%s", plan->graph_name, plan->spec_text, fuse, ir, records);
      g_free(ir);
      g_free(records);
    }
    GHashTable *records = fuser_plan_records(plan);
    if (!records)
      continue;
    GHashTableIter it;
    gpointer key, value;
    g_hash_table_iter_init(&it, records);
    while (g_hash_table_iter_next(&it, &key, &value)) {
      FuserGroupRecord *r = value;
      if (g_strcmp0(r->backend, backend) != 0)
        g_error("%s: %s ran on %s, not %s: %s", name, r->group_name, r->backend, backend,
                r->fallback_reason);
      if (strcmp(backend, "cpu") == 0 && !(r->fallback_reason && strstr(r->fallback_reason, "cpu-c: ")))
        g_error("%s: %s: the records do not say why cpu-c declined", name, r->group_name);
      (*cpu_groups)++;
    }
  }
  for (guint i = 0; i < n_outs; i++)
    rt_value_unref(outs[i]);
  g_free(outs);
  g_ptr_array_free(flat, TRUE);
  exec_session_free(session);
  ir_graph_free(graph);
  g_free(text);
  g_free(path);
}

static void test_case(gconstpointer data) {
  const char *name = data;
  char *dir = g_build_filename(g_getenv("JITSCOPE_CORPUS_DIR"), name, NULL);
  Case c;
  case_load(&c, dir);
  GPtrArray *fused = g_ptr_array_new(), *evaluated = g_ptr_array_new(), *plain = g_ptr_array_new();
  guint groups = 0, eval_groups = 0, plain_groups = 0;
  /* The C backend where a compiler is found, then the evaluator with the compiler off. */
  bool have_cc = cpu_compile_compiler(NULL) != NULL;
  run_case(name, &c, true, have_cc ? "cpu-c" : "cpu", fused, &groups);
  g_setenv("JITSCOPE_CC", "none", TRUE);
  cpu_compile_reset_compiler();
  run_case(name, &c, true, "cpu", evaluated, &eval_groups);
  g_unsetenv("JITSCOPE_CC");
  cpu_compile_reset_compiler();
  run_case(name, &c, false, "cpu", plain, &plain_groups);
  g_assert_cmpuint(plain_groups, ==, 0);
  g_assert_cmpuint(eval_groups, ==, groups);
  g_assert_cmpuint(fused->len, ==, c.n_out + c.n_in);
  bool f64 = false;
  for (guint i = 0; i < c.n_out; i++)
    f64 |= c.out_ref[i] && c.out_ref[i]->dtype == IR_DTYPE_FLOAT64;
  double tol = f64 ? 1e-10 : 1e-4;
  for (guint i = 0; i < fused->len; i++) {
    RtTensor *ref = i < c.n_out ? c.out_ref[i] : c.grad_ref[i - c.n_out];
    RtTensor *a = fused->pdata[i], *e = evaluated->pdata[i], *b = plain->pdata[i];
    if (!ref)
      continue;
    g_assert_nonnull(a);
    g_assert_nonnull(e);
    g_assert_nonnull(b);
    double e_ref = rel_error(a, ref), e_plain = rel_error(a, b), e_eval = rel_error(e, ref),
           e_both = rel_error(a, e);
    if (e_ref > tol || e_plain > tol || e_eval > tol || e_both > tol)
      g_error("%s: %s %u: error vs PyTorch %g (C backend) %g (evaluator), fused vs unfused %g, "
              "C backend vs evaluator %g",
              name, i < c.n_out ? "output" : "grad of input", i < c.n_out ? i : i - c.n_out, e_ref,
              e_eval, e_plain, e_both);
  }
  g_test_message("%s: %u fusion group runs on %s", name, groups, have_cc ? "cpu-c" : "cpu");
  for (guint i = 0; i < fused->len; i++) {
    if (fused->pdata[i])
      rt_tensor_unref(fused->pdata[i]);
    if (evaluated->pdata[i])
      rt_tensor_unref(evaluated->pdata[i]);
    if (plain->pdata[i])
      rt_tensor_unref(plain->pdata[i]);
  }
  g_ptr_array_free(fused, TRUE);
  g_ptr_array_free(evaluated, TRUE);
  g_ptr_array_free(plain, TRUE);
  case_free(&c);
  g_free(dir);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  const char *corpus = g_getenv("JITSCOPE_CORPUS_DIR");
  char *index_path = corpus ? g_build_filename(corpus, "INDEX", NULL) : NULL;
  char *index = NULL;
  if (!index_path || !g_file_get_contents(index_path, &index, NULL, NULL)) {
    g_free(index_path);
    return 77;
  }
  char **lines = g_strsplit(index, "\n", -1);
  for (char **l = lines; *l; l++) {
    char *line = g_strstrip(*l);
    if (!*line)
      continue;
    char *test_path = g_strdup_printf("/fuser/corpus/%s", line);
    g_test_add_data_func(test_path, g_strdup(line), test_case);
    g_free(test_path);
  }
  int status = g_test_run();
  g_strfreev(lines);
  g_free(index);
  g_free(index_path);
  return status;
}
