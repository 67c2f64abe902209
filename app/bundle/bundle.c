/* What the bundle writer and replayer share (contracts in bundle.h). */
#include "bundle.h"

#include <math.h>
#include <string.h>

G_DEFINE_QUARK(jitscope - bundle - error - quark, app_bundle_error)

char *app_bundle_sha256(const void *data, gsize length) {
  g_autoptr(GChecksum) sum = g_checksum_new(G_CHECKSUM_SHA256);
  g_checksum_update(sum, data, (gssize)length);
  return g_strdup(g_checksum_get_string(sum));
}

char *app_bundle_safe_name(const char *text) {
  GString *out = g_string_new(NULL);
  for (const char *p = text; *p; p++) {
    char c = *p;
    if (c == '/')
      c = '.';
    else if (!(g_ascii_isalnum(c) || c == '.' || c == '_' || c == '-'))
      c = '_';
    if (out->len == 0 && c == '.')
      c = '_';
    g_string_append_c(out, c);
  }
  if (out->len == 0)
    g_string_append_c(out, '_');
  return g_string_free(out, FALSE);
}

char *app_bundle_plan_dir(guint plan_index, const char *graph_name) {
  g_autofree char *safe = app_bundle_safe_name(graph_name);
  return g_strdup_printf("plans/%02u-%s", plan_index, safe);
}

char *app_bundle_stage_base(const char *plan_dir, guint stage_index, const char *stage_name) {
  g_autofree char *safe = app_bundle_safe_name(stage_name);
  return g_strdup_printf("%s/%02u-%s", plan_dir, stage_index, safe);
}

char *app_bundle_value_path(const char *kind, const char *stem, guint call, guint index) {
  if (call == 0)
    return g_strdup_printf("%s/%s%u.npy", kind, stem, index);
  return g_strdup_printf("%s/spec%u/%s%u.npy", kind, call, stem, index);
}

bool app_bundle_path_is_safe(const char *path) {
  if (path == NULL || path[0] == '\0' || path[0] == '/' || strchr(path, '\\'))
    return false;
  g_auto(GStrv) parts = g_strsplit(path, "/", -1);
  bool ok = true;
  for (gchar **p = parts; *p && ok; p++)
    ok = **p != '\0' && strcmp(*p, "..") != 0 && strcmp(*p, ".") != 0;
  return ok;
}

AppBundleRuns *app_bundle_runs_new(const IrGraph *graph, GPtrArray *calls, GPtrArray *notes,
                                   guint *failed_call, GError **error) {
  AppBundleRuns *r = g_new0(AppBundleRuns, 1);
  r->session = exec_session_new();
  r->runs = g_ptr_array_new_with_free_func((GDestroyNotify)app_program_run_free);
  ExecExecutor *executor = exec_executor_new(r->session, graph, "main", EXEC_PLAN_FORWARD);
  for (guint c = 0; c < calls->len; c++) {
    AppInputs *inputs = g_ptr_array_index(calls, c);
    app_inputs_place(inputs, notes, NULL);
    AppProgramRun *run = app_program_run(executor, inputs, NULL, 0, error);
    if (run == NULL) {
      if (failed_call)
        *failed_call = c;
      app_bundle_runs_free(r);
      return NULL;
    }
    g_ptr_array_add(r->runs, run);
  }
  return r;
}

void app_bundle_runs_free(AppBundleRuns *runs) {
  if (runs == NULL)
    return;
  /* Results first: their tensors' autograd history points into the session's plans. */
  g_ptr_array_unref(runs->runs);
  exec_session_free(runs->session);
  g_free(runs);
}

double app_bundle_tolerance(IrDtype dtype) {
  switch (dtype) {
  case IR_DTYPE_FLOAT64: return 1e-10;
  case IR_DTYPE_FLOAT32:
  case IR_DTYPE_FLOAT16: return 1e-4;
  default: return 0.0;
  }
}

char *app_bundle_describe_tensor(const RtTensor *t) {
  g_autofree char *shape = rt_shape_to_string(t->ndim, t->sizes);
  return g_strdup_printf("%s %s", ir_dtype_name(t->dtype), shape);
}

static bool same_shape(const RtTensor *a, const RtTensor *b) {
  if (a->ndim != b->ndim)
    return false;
  for (int d = 0; d < a->ndim; d++)
    if (a->sizes[d] != b->sizes[d])
      return false;
  return true;
}

bool app_bundle_compare_tensors(const RtTensor *ref, const RtTensor *got, double *rel_error,
                                char **why) {
  if (why)
    *why = NULL;
  *rel_error = INFINITY;
  if (ref->dtype != got->dtype || !same_shape(ref, got)) {
    if (why) {
      g_autofree char *a = app_bundle_describe_tensor(got);
      g_autofree char *b = app_bundle_describe_tensor(ref);
      *why = g_strdup_printf("%s, the bundle has %s", a, b);
    }
    return false;
  }
  int64_t n = rt_tensor_numel(ref);
  double max_ref = 0.0, max_diff = 0.0;
  for (int64_t k = 0; k < n; k++) {
    double r = rt_tensor_get(ref, k), g = rt_tensor_get(got, k);
    if (isnan(r) || isnan(g) || isinf(r) || isinf(g)) {
      bool same = (isnan(r) && isnan(g)) || r == g;
      if (!same) {
        if (why)
          *why =
              g_strdup_printf("element %" G_GINT64_FORMAT " is %.9g, the bundle has %.9g", k, g, r);
        return false;
      }
      continue;
    }
    max_ref = fmax(max_ref, fabs(r));
    max_diff = fmax(max_diff, fabs(g - r));
  }
  *rel_error = max_diff / fmax(1.0, max_ref);
  double tol = app_bundle_tolerance(ref->dtype);
  if (*rel_error > tol) {
    if (why)
      *why = g_strdup_printf("relative error %.3g > %.0e", *rel_error, tol);
    return false;
  }
  return true;
}
