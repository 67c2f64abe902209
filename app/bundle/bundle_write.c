/* Writing a bundle (contract in bundle_write.h; format in bundle.h). */
#include "bundle_write.h"

#include <string.h>

#include "app_error.h"
#include "bundle_fs.h"
#include "bundle_report.h"
#include "exec/kernel_report.h"
#include "graphviz_dot.h"
#include "ir/text.h"
#include "ir/verify.h"
#include "json_out.h"
#include "runtime/device.h"
#include "runtime/npy.h"

/* ---- the model ---- */

static void stage_files_free(gpointer p) {
  AppBundleStageFiles *s = p;
  g_free(s->ir);
  g_free(s->dot);
  g_free(s->svg);
  g_free(s->picture_note);
  g_free(s);
}

static void plan_files_free(gpointer p) {
  AppBundlePlanFiles *f = p;
  g_free(f->dir);
  g_ptr_array_unref(f->stages);
  g_free(f);
}

static void call_files_free(gpointer p) {
  AppBundleCallFiles *c = p;
  g_free(c->option);
  app_inputs_free(c->inputs);
  g_ptr_array_unref(c->inputs_npy);
  g_ptr_array_unref(c->outputs_npy);
  g_ptr_array_unref(c->grads_npy);
  g_free(c);
}

static void kernel_file_free(gpointer p) {
  AppBundleKernelFile *k = p;
  g_free(k->plan);
  g_free(k->group);
  g_free(k->kernel);
  g_free(k->file);
  g_free(k->error);
  g_free(k);
}

static void model_clear(AppBundleModel *m) {
  g_free(m->program_name);
  app_bundle_env_clear(&m->env);
  g_ptr_array_unref(m->calls);
  g_ptr_array_unref(m->plans);
  g_ptr_array_unref(m->kernels);
  app_check_report_free(m->check);
  g_free(m->check_error);
  g_ptr_array_unref(m->notes);
}

/* ---- binding the calls ---- */

static AppBundleCallFiles *call_new(char *option, AppInputs *inputs) {
  AppBundleCallFiles *c = g_new0(AppBundleCallFiles, 1);
  c->option = option;
  c->inputs = inputs;
  c->inputs_npy = g_ptr_array_new_with_free_func(g_free);
  c->outputs_npy = g_ptr_array_new_with_free_func(g_free);
  c->grads_npy = g_ptr_array_new_with_free_func(g_free);
  return c;
}

/* Binds `--spec K`'s 'SPEC; SPEC' text. */
static AppInputs *bind_group(const IrGraph *graph, const char *group, guint k, guint64 seed,
                             GError **error) {
  g_autoptr(GPtrArray) texts = app_spec_group_split(group);
  g_autoptr(GError) local = NULL;
  AppInputs *inputs = app_inputs_bind(graph, (char *const *)texts->pdata, texts->len, seed, &local);
  if (!inputs)
    g_set_error(error, local->domain, local->code, "--spec %u: %s", k, local->message);
  return inputs;
}

static IrGraph *load_program(const AppBundleRequest *req, GError **error) {
  IrGraph *graph =
      ir_graph_parse(req->program_text, strlen(req->program_text), req->program_name, error);
  if (graph == NULL)
    return NULL;
  g_autoptr(GError) local = NULL;
  if (!ir_graph_verify(graph, &local)) {
    g_set_error(error, JITSCOPE_APP_ERROR, APP_ERROR_LOCATED, "%s: error: invalid graph: %s",
                req->program_name, local->message);
    ir_graph_free(graph);
    return NULL;
  }
  return graph;
}

/* ---- writing values ---- */

/* t may be in GPU memory (device=cuda inputs): the .npy bytes come from a host copy. */
static bool put_tensor(AppBundleWriter *w, const char *rel, RtTensor *t, GError **error) {
  RtTensor *host = rt_tensor_to_host(t, error);
  if (!host)
    return false;
  g_autoptr(GBytes) bytes = rt_npy_to_bytes(host);
  rt_tensor_unref(host);
  gsize n = 0;
  const void *data = g_bytes_get_data(bytes, &n);
  return app_bundle_writer_put(w, rel, data, n, error);
}

static bool write_call(AppBundleWriter *w, AppBundleCallFiles *c, guint k, GError **error) {
  const AppInputs *in = c->inputs;
  for (guint i = 0; i < in->values->len; i++) {
    RtValue v = g_array_index(in->values, RtValue, i);
    char *rel = NULL;
    if (v.tag == RT_TENSOR && v.u.tensor) {
      rel = app_bundle_value_path("inputs", "in", k, i);
      if (!put_tensor(w, rel, v.u.tensor, error)) {
        g_free(rel);
        return false;
      }
    }
    g_ptr_array_add(c->inputs_npy, rel);
  }
  const AppRunResult *r = c->run->result;
  for (guint o = 0; o < r->outputs->len; o++) {
    RtValue v = g_array_index(r->outputs, RtValue, o);
    char *rel = NULL;
    if (v.tag == RT_TENSOR && v.u.tensor) {
      rel = app_bundle_value_path("outputs", "out", k, o);
      if (!put_tensor(w, rel, v.u.tensor, error)) {
        g_free(rel);
        return false;
      }
    }
    g_ptr_array_add(c->outputs_npy, rel);
  }
  for (guint i = 0; i < r->grads->len; i++) {
    RtTensor *g = g_ptr_array_index(r->grads, i);
    char *rel = NULL;
    if (g) {
      rel = app_bundle_value_path("grads", "grad", k, i);
      if (!put_tensor(w, rel, g, error)) {
        g_free(rel);
        return false;
      }
    }
    g_ptr_array_add(c->grads_npy, rel);
  }
  return true;
}

/* ---- writing plans: IR, DOT, SVG ---- */

/* Runs `dot -Tsvg` on root/dot_rel into root/svg_rel. On failure sets *note. */
static bool render_svg(AppBundleWriter *w, const char *dot_program, const char *dot_rel,
                       const char *svg_rel, char **note, GError **error) {
  if (!app_bundle_writer_may_write(w, error))
    return false;
  g_autofree char *dot_path = g_build_filename(w->root, dot_rel, NULL);
  g_autofree char *svg_path = g_build_filename(w->root, svg_rel, NULL);
  char *argv[] = {(char *)dot_program, "-Tsvg", "-o", svg_path, dot_path, NULL};
  g_autofree char *err_text = NULL;
  int wait_status = 0;
  g_autoptr(GError) local = NULL;
  bool ok = g_spawn_sync(NULL, argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err_text,
                         &wait_status, &local) &&
            g_spawn_check_wait_status(wait_status, &local) &&
            g_file_test(svg_path, G_FILE_TEST_IS_REGULAR);
  if (!ok) {
    g_autofree char *first = g_strdup(err_text && *err_text ? err_text
                                      : local               ? local->message
                                                            : "no output");
    char *nl = strchr(first, '\n');
    if (nl)
      *nl = '\0';
    *note = g_strdup_printf("dot did not render the picture: %s", first);
    remove(svg_path);
  }
  return ok ? app_bundle_writer_adopt(w, svg_rel, error) : true;
}

static bool write_stage_picture(AppBundleWriter *w, const AppBundleModel *m, const ExecPlan *plan,
                                bool last, AppBundleStageFiles *sf, const char *base,
                                GError **error) {
  const ExecStage *stage = sf->stage;
  g_autoptr(GError) local = NULL;
  IrGraph *parsed = ir_graph_parse(stage->ir, strlen(stage->ir), sf->ir, &local);
  const IrGraph *graph = parsed ? parsed : (last ? plan->graph : NULL);
  if (graph == NULL) {
    sf->picture_note =
        g_strdup_printf("no picture: the stage's IR did not parse back (%s)", local->message);
    return true;
  }
  g_autofree char *dot =
      app_graphviz_dot(graph, &(AppDotOptions){.collapse = APP_DOT_EXPAND_ALL}, NULL);
  sf->dot = g_strdup_printf("%s.dot", base);
  bool ok = app_bundle_writer_put(w, sf->dot, dot, strlen(dot), error);
  if (parsed)
    ir_graph_free(parsed);
  if (!ok)
    return false;
  if (m->env.dot == NULL)
    return true;
  g_autofree char *svg = g_strdup_printf("%s.svg", base);
  char *note = NULL;
  if (!render_svg(w, m->env.dot, sf->dot, svg, &note, error))
    return false;
  if (note)
    sf->picture_note = note;
  else
    sf->svg = g_steal_pointer(&svg);
  return true;
}

static bool write_plans(AppBundleWriter *w, AppBundleModel *m, const ExecSession *session,
                        GError **error) {
  for (guint p = 0; p < session->plans->len; p++) {
    const ExecPlan *plan = g_ptr_array_index(session->plans, p);
    AppBundlePlanFiles *pf = g_new0(AppBundlePlanFiles, 1);
    pf->plan = plan;
    pf->dir = app_bundle_plan_dir(p, plan->graph_name);
    pf->stages = g_ptr_array_new_with_free_func(stage_files_free);
    g_ptr_array_add(m->plans, pf);
    for (guint s = 0; s < plan->stages->len; s++) {
      const ExecStage *stage = g_ptr_array_index(plan->stages, s);
      AppBundleStageFiles *sf = g_new0(AppBundleStageFiles, 1);
      sf->stage = stage;
      g_ptr_array_add(pf->stages, sf);
      g_autofree char *base = app_bundle_stage_base(pf->dir, s, stage->name);
      sf->ir = g_strdup_printf("%s.ir", base);
      bool last = s + 1 == plan->stages->len;
      bool ok = app_bundle_writer_put(w, sf->ir, stage->ir, strlen(stage->ir), error);
      if (ok && (stage->changed || last)) {
        ok = write_stage_picture(w, m, plan, last, sf, base, error);
        if (sf->svg)
          m->pictures++;
      }
      if (!ok)
        return false;
    }
  }
  return true;
}

/* ---- kernels ---- */

static bool collect_and_write_kernels(AppBundleWriter *w, AppBundleModel *m, ExecSession *session,
                                      GError **error) {
  m->kernels_probed = true;
  g_autoptr(GError) local = NULL;
  g_autoptr(GPtrArray) reports = exec_session_kernel_reports(session, false, NULL, &local);
  if (reports == NULL) {
    g_ptr_array_add(m->notes,
                    g_strdup_printf("CUDA sources were not generated: %s", local->message));
    return true;
  }
  bool ok = true;
  for (guint i = 0; i < reports->len && ok; i++) {
    const CudaKernelReport *r = g_ptr_array_index(reports, i);
    AppBundleKernelFile *k = g_new0(AppBundleKernelFile, 1);
    k->plan_index = r->plan_index;
    k->plan = g_strdup(r->plan);
    k->group = g_strdup(r->group);
    k->kernel = g_strdup(r->kernel);
    k->error = g_strdup(r->error);
    g_ptr_array_add(m->kernels, k);
    if (r->source) {
      g_autofree char *safe = app_bundle_safe_name(r->group);
      k->file = g_strdup_printf("kernels/%02u-%s.cu", r->plan_index, safe);
      ok = app_bundle_writer_put(w, k->file, r->source, strlen(r->source), error);
    }
  }
  return ok;
}

/* ---- manifest.json ---- */

static void add_file(JsonBuilder *b, const AppBundleWriter *w, const char *rel,
                     const char *path_member, const char *hash_member) {
  json_out_member_string(b, path_member, rel);
  json_out_member_string(b, hash_member, app_bundle_writer_hash(w, rel));
}

static void add_tensor_file(JsonBuilder *b, const AppBundleWriter *w, const char *rel,
                            const RtTensor *t) {
  json_builder_begin_object(b);
  add_file(b, w, rel, "file", "sha256");
  json_out_member_string(b, "dtype", ir_dtype_name(t->dtype));
  json_builder_set_member_name(b, "shape");
  json_builder_begin_array(b);
  for (int d = 0; d < t->ndim; d++)
    json_builder_add_int_value(b, t->sizes[d]);
  json_builder_end_array(b);
  json_builder_end_object(b);
}

static const char *spec_kind_name(InputSpecKind kind) {
  switch (kind) {
  case INPUT_SPEC_INT: return "int";
  case INPUT_SPEC_FLOAT: return "float";
  case INPUT_SPEC_BOOL: return "bool";
  case INPUT_SPEC_NONE: return "none";
  default: return "tensor";
  }
}

static void add_call(JsonBuilder *b, const AppBundleWriter *w, const AppBundleCallFiles *c) {
  json_builder_begin_object(b);
  json_out_member_string(b, "option", c->option);
  json_builder_set_member_name(b, "inputs");
  json_builder_begin_array(b);
  for (guint i = 0; i < c->inputs->values->len; i++) {
    const InputSpec *spec = g_ptr_array_index(c->inputs->specs, i);
    RtValue v = g_array_index(c->inputs->values, RtValue, i);
    const char *rel = g_ptr_array_index(c->inputs_npy, i);
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "spec");
    /* An NPY spec names a file of the exporting machine: keep only its base name. */
    g_autofree char *spec_text =
        spec->kind == INPUT_SPEC_NPY ? g_path_get_basename(spec->text) : g_strdup(spec->text);
    json_builder_add_string_value(b, spec_text);
    json_out_member_string(b, "kind", rel ? "tensor" : spec_kind_name(spec->kind));
    if (rel) {
      add_file(b, w, rel, "file", "sha256");
      json_out_member_string(b, "dtype", ir_dtype_name(v.u.tensor->dtype));
      json_builder_set_member_name(b, "shape");
      json_builder_begin_array(b);
      for (int d = 0; d < v.u.tensor->ndim; d++)
        json_builder_add_int_value(b, v.u.tensor->sizes[d]);
      json_builder_end_array(b);
      json_out_member_bool(b, "requires_grad", v.u.tensor->requires_grad);
      json_out_member_string(b, "device", spec->device == IR_DEVICE_CUDA ? "cuda" : "cpu");
    }
    json_builder_end_object(b);
  }
  json_builder_end_array(b);
  const AppRunResult *r = c->run->result;
  json_builder_set_member_name(b, "outputs");
  json_builder_begin_array(b);
  for (guint o = 0; o < r->outputs->len; o++) {
    RtValue v = g_array_index(r->outputs, RtValue, o);
    const char *rel = g_ptr_array_index(c->outputs_npy, o);
    if (rel) {
      add_tensor_file(b, w, rel, v.u.tensor);
    } else {
      json_builder_begin_object(b);
      json_builder_set_member_name(b, "value");
      json_builder_add_value(b, json_out_value(v));
      json_builder_end_object(b);
    }
  }
  json_builder_end_array(b);
  json_builder_set_member_name(b, "grads");
  json_builder_begin_array(b);
  for (guint i = 0; i < r->grads->len; i++) {
    const char *rel = g_ptr_array_index(c->grads_npy, i);
    if (rel)
      add_tensor_file(b, w, rel, g_ptr_array_index(r->grads, i));
    else
      json_builder_add_null_value(b);
  }
  json_builder_end_array(b);
  json_builder_end_object(b);
}

static void add_plan(JsonBuilder *b, const AppBundleWriter *w, guint index,
                     const AppBundlePlanFiles *pf) {
  json_builder_begin_object(b);
  json_out_member_int(b, "index", index);
  json_out_member_string(b, "dir", pf->dir);
  json_out_member_string(b, "kind", pf->plan->kind == EXEC_PLAN_FORWARD ? "forward" : "backward");
  json_out_member_string(b, "graph", pf->plan->graph_name);
  json_out_member_string(b, "spec", pf->plan->spec_text);
  json_builder_set_member_name(b, "stages");
  json_builder_begin_array(b);
  for (guint s = 0; s < pf->stages->len; s++) {
    const AppBundleStageFiles *sf = g_ptr_array_index(pf->stages, s);
    json_builder_begin_object(b);
    json_out_member_int(b, "index", s);
    json_out_member_string(b, "name", sf->stage->name);
    json_out_member_string(b, "group", sf->stage->group);
    json_out_member_bool(b, "changed", sf->stage->changed);
    json_builder_set_member_name(b, "ms");
    json_builder_add_value(b, json_out_double(sf->stage->ms));
    add_file(b, w, sf->ir, "ir", "sha256");
    if (sf->dot)
      add_file(b, w, sf->dot, "dot", "dot_sha256");
    if (sf->svg)
      add_file(b, w, sf->svg, "svg", "svg_sha256");
    json_builder_end_object(b);
  }
  json_builder_end_array(b);
  json_builder_end_object(b);
}

static char *manifest_text(const AppBundleModel *m, const AppBundleWriter *w) {
  g_autoptr(JsonBuilder) b = json_builder_new();
  json_builder_begin_object(b);
  json_out_member_string(b, "format", APP_BUNDLE_FORMAT);
  json_out_member_int(b, "format_version", APP_BUNDLE_FORMAT_VERSION);
  json_out_member_string(b, "jitscope_version", m->env.version);
  json_out_member_string(b, "build_options", m->env.build_options);
  json_builder_set_member_name(b, "program");
  json_builder_begin_object(b);
  add_file(b, w, "program.ir", "file", "sha256");
  json_out_member_string(b, "name", m->program_name);
  json_builder_end_object(b);
  json_out_member_int(b, "seed", (gint64)m->seed);
  json_builder_set_member_name(b, "environment");
  json_builder_begin_object(b);
  json_out_member_string(b, "os", m->env.os);
  json_out_member_string(b, "kernel", m->env.kernel);
  json_out_member_string(b, "cpu", m->env.cpu);
  json_out_member_string(b, "cuda", m->env.cuda);
  json_out_member_string(b, "graphviz", m->env.graphviz);
  json_builder_end_object(b);
  json_builder_set_member_name(b, "calls");
  json_builder_begin_array(b);
  for (guint c = 0; c < m->calls->len; c++)
    add_call(b, w, g_ptr_array_index(m->calls, c));
  json_builder_end_array(b);
  json_builder_set_member_name(b, "plans");
  json_builder_begin_array(b);
  for (guint p = 0; p < m->plans->len; p++)
    add_plan(b, w, p, g_ptr_array_index(m->plans, p));
  json_builder_end_array(b);
  json_builder_set_member_name(b, "kernels");
  json_builder_begin_array(b);
  for (guint k = 0; k < m->kernels->len; k++) {
    const AppBundleKernelFile *kf = g_ptr_array_index(m->kernels, k);
    if (!kf->file)
      continue;
    json_builder_begin_object(b);
    json_out_member_int(b, "plan", kf->plan_index);
    json_out_member_string(b, "group", kf->group);
    json_out_member_string(b, "kernel", kf->kernel);
    add_file(b, w, kf->file, "file", "sha256");
    json_builder_end_object(b);
  }
  json_builder_end_array(b);
  json_builder_set_member_name(b, "check");
  json_builder_begin_object(b);
  json_out_member_bool(b, "ran", m->check != NULL);
  json_out_member_bool(b, "ok", m->check && m->check->ok);
  json_out_member_string(b, "first_differing_stage", m->check ? m->check->first_bad_stage : NULL);
  json_out_member_string(b, "error", m->check_error);
  json_builder_end_object(b);
  json_builder_set_member_name(b, "files");
  json_builder_begin_array(b);
  for (guint i = 0; i < w->files->len; i++) {
    const AppBundleFile *f = g_ptr_array_index(w->files, i);
    json_builder_begin_object(b);
    json_out_member_string(b, "path", f->path);
    json_out_member_string(b, "sha256", f->sha256);
    json_out_member_int(b, "bytes", (gint64)f->bytes);
    json_builder_end_object(b);
  }
  json_builder_end_array(b);
  json_builder_end_object(b);
  g_autoptr(JsonGenerator) gen = json_generator_new();
  g_autoptr(JsonNode) root = json_builder_get_root(b);
  json_generator_set_root(gen, root);
  json_generator_set_pretty(gen, TRUE);
  json_generator_set_indent(gen, 1);
  g_autofree char *text = json_generator_to_data(gen, NULL);
  return g_strconcat(text, "\n", NULL);
}

/* ---- the export ---- */

static bool write_bundle(AppBundleWriter *w, AppBundleModel *m, AppBundleRuns *runs,
                         GError **error) {
  if (!app_bundle_writer_put(w, "program.ir", m->program_text, strlen(m->program_text), error))
    return false;
  for (guint c = 0; c < m->calls->len; c++)
    if (!write_call(w, g_ptr_array_index(m->calls, c), c, error))
      return false;
  if (!write_plans(w, m, runs->session, error))
    return false;
  if (!collect_and_write_kernels(w, m, runs->session, error))
    return false;
  if (m->env.dot == NULL)
    g_ptr_array_add(m->notes, g_strdup("pictures were not rendered: Graphviz's dot was not "
                                       "found on PATH (the .dot files are in the bundle)"));
  g_autofree char *report = app_bundle_report_markdown(m);
  if (!app_bundle_writer_put(w, "REPORT.md", report, strlen(report), error))
    return false;
  g_autofree char *manifest = manifest_text(m, w);
  return app_bundle_writer_put(w, "manifest.json", manifest, strlen(manifest), error);
}

AppBundleSummary *app_bundle_export(const AppBundleRequest *req, const char *dir, GError **error) {
  if (!app_bundle_check_target(dir, req->force, error))
    return NULL;
  IrGraph *graph = load_program(req, error);
  if (graph == NULL)
    return NULL;
  AppBundleModel m = {0};
  m.program_name = g_path_get_basename(req->program_name);
  m.program_text = req->program_text;
  m.seed = req->seed;
  m.calls = g_ptr_array_new_with_free_func(call_files_free);
  m.plans = g_ptr_array_new_with_free_func(plan_files_free);
  m.kernels = g_ptr_array_new_with_free_func(kernel_file_free);
  m.notes = g_ptr_array_new_with_free_func(g_free);
  AppBundleSummary *summary = NULL;
  AppBundleRuns *runs = NULL;
  GPtrArray *call_inputs = g_ptr_array_new();
  AppBundleWriter w = {0};
  char *tmp = NULL;

  guint n_inputs = req->inputs ? g_strv_length(req->inputs) : 0;
  AppInputs *first = app_inputs_bind(graph, req->inputs, n_inputs, req->seed, error);
  if (first == NULL)
    goto out;
  g_ptr_array_add(m.calls, call_new(g_strdup("--input"), first));
  for (guint k = 0; req->spec_groups && req->spec_groups[k]; k++) {
    AppInputs *in = bind_group(graph, req->spec_groups[k], k + 1, req->seed, error);
    if (in == NULL)
      goto out;
    g_ptr_array_add(m.calls, call_new(g_strdup_printf("--spec %u", k + 1), in));
  }
  for (guint c = 0; c < m.calls->len; c++)
    g_ptr_array_add(call_inputs, ((AppBundleCallFiles *)g_ptr_array_index(m.calls, c))->inputs);
  guint failed = 0;
  GError *local = NULL;
  if (!(runs = app_bundle_runs_new(graph, call_inputs, m.notes, &failed, &local))) {
    const AppBundleCallFiles *c = g_ptr_array_index(m.calls, failed);
    g_set_error(error, APP_BUNDLE_ERROR, APP_BUNDLE_ERROR_INPUT, "the %s call failed: %s",
                c->option, local->message);
    g_error_free(local);
    goto out;
  }
  for (guint c = 0; c < m.calls->len; c++)
    ((AppBundleCallFiles *)g_ptr_array_index(m.calls, c))->run = g_ptr_array_index(runs->runs, c);
  m.check = app_check_run(graph, first, NULL, NULL, &local);
  if (m.check == NULL) {
    m.check_error = g_strdup(local->message);
    g_ptr_array_add(m.notes, g_strdup_printf("check could not run: %s", local->message));
    g_clear_error(&local);
  }
  app_bundle_env_probe(&m.env);

  if (!(tmp = app_bundle_make_temp_dir(dir, error)))
    goto out;
  app_bundle_writer_init(&w, tmp, req->fail_after_files);
  if (!write_bundle(&w, &m, runs, error) ||
      !app_bundle_move_into_place(tmp, dir, req->force, error)) {
    app_bundle_remove_tree(tmp);
    goto out;
  }
  summary = g_new0(AppBundleSummary, 1);
  summary->files = w.files->len;
  summary->plans = m.plans->len;
  for (guint p = 0; p < m.plans->len; p++)
    summary->stages += ((AppBundlePlanFiles *)g_ptr_array_index(m.plans, p))->stages->len;
  summary->pictures = m.pictures;
  for (guint k = 0; k < m.kernels->len; k++)
    summary->kernels += ((AppBundleKernelFile *)g_ptr_array_index(m.kernels, k))->file != NULL;
  summary->check_ok = m.check && m.check->ok;
  summary->notes = g_ptr_array_ref(m.notes);

out:
  app_bundle_writer_clear(&w);
  g_free(tmp);
  /* The plans the model points at live in the session: clear the model first. */
  model_clear(&m);
  app_bundle_runs_free(runs);
  g_ptr_array_unref(call_inputs);
  ir_graph_free(graph);
  return summary;
}

void app_bundle_summary_free(AppBundleSummary *summary) {
  if (!summary)
    return;
  g_ptr_array_unref(summary->notes);
  g_free(summary);
}
