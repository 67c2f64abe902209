/* Replaying a bundle (contract in bundle_replay.h). */
#include "bundle_replay.h"

#include <math.h>
#include <string.h>

#include "bundle_diff.h"
#include "bundle_manifest.h"
#include "bundle_read.h"
#include "exec/kernel_report.h"
#include "ir/text.h"
#include "ir/verify.h"
#include "jitscope-config.h"
#include "json_out.h"
#include "runtime/npy.h"

/* ---- the report ---- */

static void stage_free(gpointer p) {
  AppReplayStage *s = p;
  g_free(s->name);
  g_free(s->file);
  g_free(s->why);
  g_free(s->diff);
  g_free(s);
}

static void plan_free(gpointer p) {
  AppReplayPlan *r = p;
  g_free(r->dir);
  g_free(r->label);
  g_free(r->why);
  g_ptr_array_unref(r->stages);
  g_free(r);
}

static void value_free(gpointer p) {
  AppReplayValue *v = p;
  g_free(v->label);
  g_free(v->file);
  g_free(v->why);
  g_free(v->diff);
  g_free(v);
}

void app_bundle_replay_free(AppBundleReplay *r) {
  if (!r)
    return;
  g_free(r->bundle_version);
  g_free(r->program_name);
  g_ptr_array_unref(r->plans);
  g_ptr_array_unref(r->values);
  g_ptr_array_unref(r->kernels);
  g_ptr_array_unref(r->notes);
  g_free(r->run_error);
  g_free(r);
}

static AppReplayValue *add_value(GPtrArray *list, char *label, const char *file) {
  AppReplayValue *v = g_new0(AppReplayValue, 1);
  v->label = label;
  v->file = g_strdup(file);
  v->match = true;
  g_ptr_array_add(list, v);
  return v;
}

static void value_differs(AppBundleReplay *r, AppReplayValue *v, char *why) {
  v->match = false;
  if (!isfinite(v->rel_error) || v->rel_error == 0.0)
    v->rel_error = INFINITY;
  v->why = why;
  r->differences++;
}

/* ---- what the manifest says about one call ---- */

typedef struct {
  char *option;
  GPtrArray *spec_texts; /* char*: SPECs that rebuild the inputs from the bundle */
  GPtrArray *outputs;    /* JsonObject* (borrowed) */
  JsonArray *grads;
} CallRecord;

static void call_record_free(gpointer p) {
  CallRecord *c = p;
  g_free(c->option);
  g_ptr_array_unref(c->spec_texts);
  g_ptr_array_unref(c->outputs);
  g_free(c);
}

static bool read_input(AppBundleManifest *m, JsonObject *in, const char *where, GPtrArray *specs,
                       GError **error) {
  const char *kind = app_manifest_string(in, where, "kind", error);
  if (kind == NULL)
    return false;
  if (strcmp(kind, "tensor") != 0) {
    const char *spec = app_manifest_string(in, where, "spec", error);
    if (spec == NULL)
      return false;
    if (strstr(spec, ".npy")) {
      g_set_error(error, APP_BUNDLE_ERROR, APP_BUNDLE_ERROR_MALFORMED,
                  "manifest.json: %s: a %s input names a file ('%s')", where, kind, spec);
      return false;
    }
    g_ptr_array_add(specs, g_strdup(spec));
    return true;
  }
  const char *file = app_manifest_file(m, in, where, "file", "sha256", error);
  bool requires_grad = false;
  const char *device = NULL;
  if (file == NULL || !app_manifest_bool(in, where, "requires_grad", &requires_grad, error) ||
      !(device = app_manifest_string(in, where, "device", error)))
    return false;
  if (strcmp(device, "cpu") != 0 && strcmp(device, "cuda") != 0) {
    g_set_error(error, APP_BUNDLE_ERROR, APP_BUNDLE_ERROR_MALFORMED,
                "manifest.json: %s.device: '%s' is neither cpu nor cuda", where, device);
    return false;
  }
  if (!g_str_has_suffix(file, ".npy")) {
    g_set_error(error, APP_BUNDLE_ERROR, APP_BUNDLE_ERROR_MALFORMED,
                "manifest.json: %s.file: %s is not a .npy file", where, file);
    return false;
  }
  g_autofree char *path = app_manifest_path(m, file);
  g_ptr_array_add(
      specs, g_strdup_printf("%s:requires_grad=%d,device=%s", path, requires_grad ? 1 : 0, device));
  return true;
}

static CallRecord *read_call(AppBundleManifest *m, JsonObject *call, guint c, GError **error) {
  char where[64];
  g_snprintf(where, sizeof where, "calls[%u]", c);
  const char *option = app_manifest_string(call, where, "option", error);
  JsonArray *inputs = option ? app_manifest_array(call, where, "inputs", error) : NULL;
  JsonArray *outputs = inputs ? app_manifest_array(call, where, "outputs", error) : NULL;
  JsonArray *grads = outputs ? app_manifest_array(call, where, "grads", error) : NULL;
  if (grads == NULL)
    return NULL;
  CallRecord *rec = g_new0(CallRecord, 1);
  rec->option = g_strdup(option);
  rec->spec_texts = g_ptr_array_new_with_free_func(g_free);
  rec->outputs = g_ptr_array_new();
  rec->grads = grads;
  g_autofree char *list = g_strdup_printf("%s.inputs", where);
  for (guint i = 0; i < json_array_get_length(inputs); i++) {
    g_autofree char *w = g_strdup_printf("%s[%u]", list, i);
    JsonObject *in = app_manifest_element_object(inputs, i, list, error);
    if (!in || !read_input(m, in, w, rec->spec_texts, error))
      goto fail;
  }
  g_free(list);
  list = g_strdup_printf("%s.outputs", where);
  for (guint o = 0; o < json_array_get_length(outputs); o++) {
    JsonObject *out = app_manifest_element_object(outputs, o, list, error);
    if (out == NULL)
      goto fail;
    g_ptr_array_add(rec->outputs, out);
  }
  return rec;
fail:
  call_record_free(rec);
  return NULL;
}

/* ---- comparing values ---- */

static RtTensor *load_npy(AppBundleManifest *m, const char *rel, GError **error) {
  g_autofree char *bytes = NULL;
  gsize length = 0;
  if (!app_bundle_read_member(m->dir, rel, &bytes, &length, error))
    return NULL;
  g_autoptr(GError) local = NULL;
  RtTensor *t = rt_npy_load_bytes((const guint8 *)bytes, length, rel, &local);
  if (t == NULL)
    g_set_error(error, APP_BUNDLE_ERROR, APP_BUNDLE_ERROR_MALFORMED, "%s: %s", rel, local->message);
  return t;
}

/* A recorded tensor ({"file", "sha256", ...}) against what the replay computed (NULL: none). */
static bool compare_tensor_record(AppBundleReplay *r, AppBundleManifest *m, JsonObject *rec,
                                  const char *where, char *label, const RtTensor *got,
                                  GError **error) {
  const char *rel = app_manifest_file(m, rec, where, "file", "sha256", error);
  if (rel == NULL) {
    g_free(label);
    return false;
  }
  RtTensor *ref = load_npy(m, rel, error);
  if (ref == NULL) {
    g_free(label);
    return false;
  }
  AppReplayValue *v = add_value(r->values, label, rel);
  if (got == NULL) {
    value_differs(r, v, g_strdup("the replay produced no tensor"));
  } else {
    char *why = NULL;
    if (!app_bundle_compare_tensors(ref, got, &v->rel_error, &why))
      value_differs(r, v, why);
  }
  rt_tensor_unref(ref);
  return true;
}

static bool compare_call(AppBundleReplay *r, AppBundleManifest *m, const CallRecord *rec, guint c,
                         const AppRunResult *res, GError **error) {
  char where[64];
  const AppRunResult *got = res;
  guint n_ref = rec->outputs->len, n_got = got->outputs->len;
  for (guint o = 0; o < MAX(n_ref, n_got); o++) {
    char *label = g_strdup_printf("%s call: output %u", rec->option, o);
    g_snprintf(where, sizeof where, "calls[%u].outputs[%u]", c, o);
    RtValue v = o < n_got ? g_array_index(got->outputs, RtValue, o) : rt_none();
    if (o >= n_ref || o >= n_got) {
      AppReplayValue *val = add_value(r->values, label, NULL);
      value_differs(r, val,
                    g_strdup_printf("the bundle has %u outputs, the replay %u", n_ref, n_got));
      continue;
    }
    JsonObject *out = g_ptr_array_index(rec->outputs, o);
    if (json_object_has_member(out, "file")) {
      const RtTensor *t = v.tag == RT_TENSOR ? v.u.tensor : NULL;
      if (!compare_tensor_record(r, m, out, where, label, t, error))
        return false;
      continue;
    }
    JsonNode *expected = json_object_get_member(out, "value");
    if (expected == NULL) {
      g_free(label);
      g_set_error(error, APP_BUNDLE_ERROR, APP_BUNDLE_ERROR_MALFORMED,
                  "manifest.json: %s: expected a file or a value", where);
      return false;
    }
    AppReplayValue *val = add_value(r->values, label, NULL);
    g_autoptr(JsonNode) actual = json_out_value(v);
    if (!json_node_equal(expected, actual)) {
      g_autofree char *a = json_to_string(actual, FALSE);
      g_autofree char *e = json_to_string(expected, FALSE);
      value_differs(r, val, g_strdup_printf("%s, the bundle has %s", a, e));
    }
  }
  guint n_grads = json_array_get_length(rec->grads);
  for (guint i = 0; i < MAX(n_grads, got->grads->len); i++) {
    const RtTensor *g = i < got->grads->len ? g_ptr_array_index(got->grads, i) : NULL;
    JsonNode *n = i < n_grads ? json_array_get_element(rec->grads, i) : NULL;
    char *label = g_strdup_printf("%s call: gradient of input %u", rec->option, i);
    g_snprintf(where, sizeof where, "calls[%u].grads[%u]", c, i);
    if (n && JSON_NODE_HOLDS_OBJECT(n)) {
      if (!compare_tensor_record(r, m, json_node_get_object(n), where, label, g, error))
        return false;
    } else if (n && !JSON_NODE_HOLDS_NULL(n)) {
      g_free(label);
      g_set_error(error, APP_BUNDLE_ERROR, APP_BUNDLE_ERROR_MALFORMED,
                  "manifest.json: %s: expected an object or null", where);
      return false;
    } else if (g) {
      AppReplayValue *val = add_value(r->values, label, NULL);
      value_differs(r, val, g_strdup("the replay computed a gradient the bundle does not have"));
    } else {
      g_free(label);
    }
  }
  return true;
}

/* ---- comparing plans ---- */

static char *plan_label(const char *kind, const char *graph) {
  return g_strdup_printf("%s %s", kind, graph);
}

static void plan_differs(AppBundleReplay *r, AppReplayPlan *p, char *why) {
  if (p->match)
    r->differences++;
  p->match = false;
  if (why) {
    g_free(p->why);
    p->why = why;
  }
}

static bool compare_stages(AppBundleReplay *r, AppBundleManifest *m, AppReplayPlan *p,
                           JsonArray *stages, const char *where, const ExecPlan *plan,
                           GError **error) {
  guint n_ref = json_array_get_length(stages), n_got = plan->stages->len;
  g_autofree char *list = g_strdup_printf("%s.stages", where);
  bool ok = true;
  for (guint s = 0; s < MAX(n_ref, n_got) && ok; s++) {
    AppReplayStage *st = g_new0(AppReplayStage, 1);
    st->index = s;
    st->match = true;
    g_ptr_array_add(p->stages, st);
    const ExecStage *got = s < n_got ? g_ptr_array_index(plan->stages, s) : NULL;
    if (s >= n_ref) {
      st->name = g_strdup(got->name);
      st->match = false;
      st->why = g_strdup("the bundle has no such stage (the replay ran more stages)");
      continue;
    }
    g_autofree char *w = g_strdup_printf("%s[%u]", list, s);
    JsonObject *rec = app_manifest_element_object(stages, s, list, error);
    const char *name = rec ? app_manifest_string(rec, w, "name", error) : NULL;
    const char *file = name ? app_manifest_file(m, rec, w, "ir", "sha256", error) : NULL;
    g_autofree char *text = NULL;
    gsize length = 0;
    if (file)
      app_bundle_read_member(m->dir, file, &text, &length, error);
    if (text == NULL) {
      ok = false;
      break;
    }
    st->name = g_strdup(name);
    st->file = g_strdup(file);
    if (got == NULL) {
      st->match = false;
      st->why = g_strdup("the replay did not run this stage");
    } else if (strcmp(got->name, name) != 0) {
      st->match = false;
      st->why = g_strdup_printf("the replay ran '%s' here", got->name);
    } else if (strcmp(got->ir, text) != 0) {
      st->match = false;
      g_autofree char *a = g_strdup_printf("bundle/%s", file);
      g_autofree char *b = g_strdup_printf("replay/%s", file);
      st->diff = app_unified_diff(text, got->ir, a, b, 3);
    }
  }
  for (guint s = 0; s < p->stages->len; s++) {
    const AppReplayStage *st = g_ptr_array_index(p->stages, s);
    if (st->match)
      p->stages_matching++;
    else
      plan_differs(r, p, NULL);
  }
  return ok;
}

static bool compare_plans(AppBundleReplay *r, AppBundleManifest *m, const ExecSession *session,
                          GError **error) {
  JsonArray *plans = app_manifest_array(m->root, "", "plans", error);
  if (plans == NULL)
    return false;
  guint n_ref = json_array_get_length(plans), n_got = session->plans->len;
  for (guint i = 0; i < MAX(n_ref, n_got); i++) {
    const ExecPlan *got = i < n_got ? g_ptr_array_index(session->plans, i) : NULL;
    const char *got_kind = got && got->kind == EXEC_PLAN_FORWARD ? "forward" : "backward";
    AppReplayPlan *p = g_new0(AppReplayPlan, 1);
    p->index = i;
    p->match = true;
    p->stages = g_ptr_array_new_with_free_func(stage_free);
    g_ptr_array_add(r->plans, p);
    if (i >= n_ref) {
      p->label = plan_label(got_kind, got->graph_name);
      plan_differs(r, p,
                   g_strdup_printf("the bundle has no plan %u: the replay compiled an "
                                   "extra plan for spec %s",
                                   i, got->spec_text ? got->spec_text : "?"));
      continue;
    }
    char where[32];
    g_snprintf(where, sizeof where, "plans[%u]", i);
    JsonObject *rec = app_manifest_element_object(plans, i, "plans", error);
    const char *dir = rec ? app_manifest_string(rec, where, "dir", error) : NULL;
    const char *kind = dir ? app_manifest_string(rec, where, "kind", error) : NULL;
    const char *graph = kind ? app_manifest_string(rec, where, "graph", error) : NULL;
    const char *spec = NULL;
    JsonArray *stages = NULL;
    if (graph && app_manifest_string_or_null(rec, where, "spec", &spec, error))
      stages = app_manifest_array(rec, where, "stages", error);
    if (stages == NULL)
      return false;
    p->dir = g_strdup(dir);
    p->label = plan_label(kind, graph);
    if (got == NULL) {
      plan_differs(r, p, g_strdup("the replay compiled no such plan"));
      continue;
    }
    if (strcmp(kind, got_kind) != 0 || strcmp(graph, got->graph_name) != 0) {
      plan_differs(r, p,
                   g_strdup_printf("the replay compiled %s %s here", got_kind, got->graph_name));
      continue;
    }
    if (g_strcmp0(spec, got->spec_text) != 0)
      plan_differs(r, p,
                   g_strdup_printf("the replay's spec is %s, the bundle's %s",
                                   got->spec_text ? got->spec_text : "none", spec ? spec : "none"));
    if (!compare_stages(r, m, p, stages, where, got, error))
      return false;
  }
  return true;
}

/* ---- kernels ---- */

static bool compare_kernels(AppBundleReplay *r, AppBundleManifest *m, ExecSession *session,
                            GError **error) {
  JsonArray *kernels = app_manifest_array(m->root, "", "kernels", error);
  if (kernels == NULL)
    return false;
  guint n = json_array_get_length(kernels);
  g_autoptr(GHashTable) sources = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  bool have_sources = false;
  if (n) {
    g_autoptr(GError) local = NULL;
    g_autoptr(GPtrArray) reports = exec_session_kernel_reports(session, false, NULL, &local);
    if (reports) {
      have_sources = true;
      for (guint i = 0; i < reports->len; i++) {
        const CudaKernelReport *k = g_ptr_array_index(reports, i);
        if (k->source)
          g_hash_table_insert(sources, g_strdup_printf("%u/%s", k->plan_index, k->group),
                              g_strdup(k->source));
      }
    }
  }
  bool ok = true;
  for (guint i = 0; i < n && ok; i++) {
    char where[32];
    g_snprintf(where, sizeof where, "kernels[%u]", i);
    JsonObject *rec = app_manifest_element_object(kernels, i, "kernels", error);
    gint64 plan = 0;
    const char *group = NULL, *file = NULL;
    ok = rec && app_manifest_int(rec, where, "plan", &plan, error) &&
         (group = app_manifest_string(rec, where, "group", error)) &&
         (file = app_manifest_file(m, rec, where, "file", "sha256", error));
    if (!ok || !have_sources)
      continue;
    g_autofree char *key = g_strdup_printf("%" G_GINT64_FORMAT "/%s", plan, group);
    const char *got = g_hash_table_lookup(sources, key);
    g_autofree char *text = NULL;
    gsize length = 0;
    app_bundle_read_member(m->dir, file, &text, &length, NULL);
    AppReplayValue *v = add_value(
        r->kernels, g_strdup_printf("kernel of plan %" G_GINT64_FORMAT " %s", plan, group), file);
    if (got == NULL)
      value_differs(r, v, g_strdup("the replay generated no kernel for this group"));
    else if (text && strcmp(text, got) != 0) {
      value_differs(r, v, g_strdup("the generated source differs"));
      g_autofree char *b = g_strdup_printf("replay/%s", file);
      g_autofree char *a = g_strdup_printf("bundle/%s", file);
      v->diff = app_unified_diff(text, got, a, b, 3);
    }
  }
  if (ok && n && !have_sources)
    g_ptr_array_add(r->notes, g_strdup("the bundle's CUDA sources were not compared: this "
                                       "build does not generate them"));
  return ok;
}

/* ---- the replay ---- */

static IrGraph *load_program(AppBundleManifest *m, GError **error) {
  JsonObject *program = app_manifest_object(m->root, "", "program", error);
  const char *file =
      program ? app_manifest_file(m, program, "program", "file", "sha256", error) : NULL;
  if (file == NULL)
    return NULL;
  g_autofree char *text = NULL;
  gsize length = 0;
  g_autoptr(GError) local = NULL;
  if (!app_bundle_read_member(m->dir, file, &text, &length, error))
    return NULL;
  IrGraph *graph = ir_graph_parse(text, length, file, &local);
  if (graph && !ir_graph_verify(graph, &local)) {
    ir_graph_free(graph);
    graph = NULL;
  }
  if (graph == NULL)
    g_set_error(error, APP_BUNDLE_ERROR, APP_BUNDLE_ERROR_MALFORMED, "%s: %s", file,
                local->message);
  return graph;
}

static bool replay_calls(AppBundleReplay *r, AppBundleManifest *m, const IrGraph *graph,
                         GError **error) {
  gint64 seed = 0;
  JsonArray *calls = app_manifest_array(m->root, "", "calls", error);
  if (calls == NULL || !app_manifest_int(m->root, "", "seed", &seed, error))
    return false;
  if (json_array_get_length(calls) == 0) {
    g_set_error(error, APP_BUNDLE_ERROR, APP_BUNDLE_ERROR_MALFORMED,
                "manifest.json: calls: the bundle records no call");
    return false;
  }
  g_autoptr(GPtrArray) records = g_ptr_array_new_with_free_func(call_record_free);
  g_autoptr(GPtrArray) inputs = g_ptr_array_new_with_free_func((GDestroyNotify)app_inputs_free);
  AppBundleRuns *runs = NULL;
  bool ok = true;
  for (guint c = 0; c < json_array_get_length(calls) && ok; c++) {
    JsonObject *call = app_manifest_element_object(calls, c, "calls", error);
    CallRecord *rec = call ? read_call(m, call, c, error) : NULL;
    if (rec == NULL) {
      ok = false;
      break;
    }
    g_ptr_array_add(records, rec);
    g_autoptr(GError) local = NULL;
    AppInputs *in = app_inputs_bind(graph, (char *const *)rec->spec_texts->pdata,
                                    rec->spec_texts->len, (guint64)seed, &local);
    if (in == NULL) {
      g_set_error(error, APP_BUNDLE_ERROR, APP_BUNDLE_ERROR_MALFORMED,
                  "the inputs of calls[%u] (%s) do not fit program.ir: %s", c, rec->option,
                  local->message);
      ok = false;
      break;
    }
    g_ptr_array_add(inputs, in);
  }
  if (ok) {
    guint failed = 0;
    g_autoptr(GError) local = NULL;
    runs = app_bundle_runs_new(graph, inputs, r->notes, &failed, &local);
    if (runs == NULL) {
      const CallRecord *rec = g_ptr_array_index(records, failed);
      r->run_error = g_strdup_printf("the %s call failed to run: %s", rec->option, local->message);
      r->differences++;
    }
  }
  for (guint c = 0; ok && runs && c < records->len; c++) {
    const AppProgramRun *run = g_ptr_array_index(runs->runs, c);
    ok = compare_call(r, m, g_ptr_array_index(records, c), c, run->result, error);
  }
  if (ok && runs)
    ok = compare_plans(r, m, runs->session, error) && compare_kernels(r, m, runs->session, error);
  app_bundle_runs_free(runs);
  return ok;
}

AppBundleReplay *app_bundle_replay(const char *dir, GError **error) {
  g_autoptr(AppBundleManifest) m = app_bundle_manifest_open(dir, error);
  if (m == NULL)
    return NULL;
  AppBundleReplay *r = g_new0(AppBundleReplay, 1);
  r->plans = g_ptr_array_new_with_free_func(plan_free);
  r->values = g_ptr_array_new_with_free_func(value_free);
  r->kernels = g_ptr_array_new_with_free_func(value_free);
  r->notes = g_ptr_array_new_with_free_func(g_free);
  r->files_verified = g_hash_table_size(m->hashes);
  const char *version = app_manifest_string(m->root, "", "jitscope_version", error);
  JsonObject *program = version ? app_manifest_object(m->root, "", "program", error) : NULL;
  const char *name = program ? app_manifest_string(program, "program", "name", error) : NULL;
  IrGraph *graph = name ? load_program(m, error) : NULL;
  bool ok = graph != NULL;
  if (ok) {
    r->bundle_version = g_strdup(version);
    r->program_name = g_strdup(name);
    if (strcmp(version, JITSCOPE_VERSION) != 0)
      g_ptr_array_add(r->notes, g_strdup_printf("the bundle was exported by jitscope %s; this "
                                                "is jitscope %s",
                                                version, JITSCOPE_VERSION));
    ok = replay_calls(r, m, graph, error);
  }
  if (graph)
    ir_graph_free(graph);
  if (!ok) {
    app_bundle_replay_free(r);
    return NULL;
  }
  r->ok = r->differences == 0;
  return r;
}
