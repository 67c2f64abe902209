/* REPORT.md of a bundle: one page for a person reading it on GitHub or in an editor. Tables
 * use GitHub-flavoured Markdown; long stage lists sit in <details> blocks; graphs are fenced
 * code blocks. Only files the bundle has are linked. */
#include "bundle_report.h"

#include <math.h>
#include <string.h>

/* Text for a table cell: '|' escaped, line breaks as spaces. */
static void cell(GString *out, const char *text) {
  for (const char *p = text; *p; p++) {
    if (*p == '|')
      g_string_append(out, "\\|");
    else if (*p == '\n' || *p == '\r')
      g_string_append_c(out, ' ');
    else
      g_string_append_c(out, *p);
  }
}

/* Inline code for a table cell: `text`, with a longer fence when text has backticks. */
static void code_cell(GString *out, const char *text) {
  bool tick = strchr(text, '`') != NULL;
  g_string_append(out, tick ? "`` " : "`");
  cell(out, text);
  g_string_append(out, tick ? " ``" : "`");
}

/* A fenced block whose fence is longer than any run of backticks in the text. */
static void code_block(GString *out, const char *lang, const char *text) {
  guint run = 0, longest = 0;
  for (const char *p = text; *p; p++) {
    run = *p == '`' ? run + 1 : 0;
    longest = MAX(longest, run);
  }
  guint n = MAX(3u, longest + 1);
  for (guint i = 0; i < n; i++)
    g_string_append_c(out, '`');
  g_string_append_printf(out, "%s\n%s", lang, text);
  if (!g_str_has_suffix(text, "\n"))
    g_string_append_c(out, '\n');
  for (guint i = 0; i < n; i++)
    g_string_append_c(out, '`');
  g_string_append(out, "\n\n");
}

static void md_link(GString *out, const char *label, const char *path) {
  g_string_append_printf(out, "[%s](%s)", label, path);
}

static guint count_lines(const char *text) {
  guint n = 0;
  for (const char *p = text; *p; p++)
    n += *p == '\n';
  return n;
}

/* ---- sections ---- */

static void section_program(GString *out, const AppBundleModel *m) {
  g_string_append(out, "## Program\n\n");
  g_string_append_printf(out, "`%s`, saved as ", m->program_name);
  md_link(out, "program.ir", "program.ir");
  g_string_append_printf(out, " (%u lines).\n\n", count_lines(m->program_text));
  if (count_lines(m->program_text) <= 60)
    code_block(out, "text", m->program_text);
  else
    g_string_append(out, "The program is long: see `program.ir`.\n\n");
}

static void describe_input(GString *out, RtValue v) {
  if (v.tag == RT_TENSOR && v.u.tensor) {
    g_autofree char *d = app_bundle_describe_tensor(v.u.tensor);
    g_string_append(out, d);
    if (v.u.tensor->requires_grad)
      g_string_append(out, ", requires grad");
  } else {
    g_autoptr(GString) t = g_string_new(NULL);
    rt_value_print(t, v);
    cell(out, t->str);
  }
}

static void section_inputs(GString *out, const AppBundleModel *m) {
  g_string_append(out, "## Inputs\n\n");
  g_string_append_printf(out,
                         "Seed %" G_GUINT64_FORMAT ". Drawn inputs are saved with the values "
                         "used, so a replay does not depend on the generator.\n\n",
                         m->seed);
  for (guint c = 0; c < m->calls->len; c++) {
    const AppBundleCallFiles *call = g_ptr_array_index(m->calls, c);
    if (m->calls->len > 1)
      g_string_append_printf(out, "Call %u (`%s`):\n\n", c + 1, call->option);
    g_string_append(out, "| # | spec | value | file |\n|---:|---|---|---|\n");
    for (guint i = 0; i < call->inputs->values->len; i++) {
      const InputSpec *spec = g_ptr_array_index(call->inputs->specs, i);
      g_autofree char *text =
          spec->kind == INPUT_SPEC_NPY ? g_path_get_basename(spec->text) : g_strdup(spec->text);
      g_string_append_printf(out, "| %u | ", i);
      code_cell(out, text);
      g_string_append(out, " | ");
      describe_input(out, g_array_index(call->inputs->values, RtValue, i));
      if (spec->device == IR_DEVICE_CUDA)
        g_string_append(out, ", device=cuda");
      g_string_append(out, " | ");
      const char *rel = g_ptr_array_index(call->inputs_npy, i);
      if (rel)
        md_link(out, rel, rel);
      else
        g_string_append(out, "(in the manifest)");
      g_string_append(out, " |\n");
    }
    g_string_append(out, "\n");
  }
}

static void env_row(GString *out, const char *name, const char *value) {
  g_string_append_printf(out, "- **%s**: ", name);
  cell(out, value);
  g_string_append(out, "\n");
}

static void section_environment(GString *out, const AppBundleModel *m) {
  g_string_append(out, "## Environment\n\n");
  g_autofree char *js = g_strdup_printf("%s (%s)", m->env.version, m->env.build_options);
  env_row(out, "jitscope", js);
  env_row(out, "OS", m->env.os);
  env_row(out, "kernel", m->env.kernel);
  env_row(out, "CPU", m->env.cpu);
  env_row(out, "CUDA", m->env.cuda);
  env_row(out, "Graphviz", m->env.graphviz);
  g_string_append(out, "\n");
}

static void section_check(GString *out, const AppBundleModel *m) {
  g_string_append(out, "## Check\n\n");
  if (m->check == NULL) {
    g_string_append_printf(out, "The check could not run: %s\n\n", m->check_error);
    return;
  }
  const AppCheckReport *r = m->check;
  g_string_append_printf(out, "**%s** (`jitscope check` on the `--input` call).\n\n",
                         r->ok ? "Passed" : "FAILED");
  g_string_append_printf(out, "- optimized vs unoptimized: relative error %.3g\n",
                         r->optimized_vs_unoptimized);
  if (r->finite_diff_elements)
    g_string_append_printf(out, "- gradients vs finite differences: %.3g (%u of %u elements)\n",
                           r->gradient_vs_finite_diff, r->finite_diff_elements,
                           r->finite_diff_total);
  g_string_append(out, "- first stage whose results differ: ");
  if (r->first_bad_stage)
    code_cell(out, r->first_bad_stage);
  else
    g_string_append(out, "none");
  g_string_append(out, "\n\n");
}

static double plan_ms(const ExecPlan *plan, guint *changed) {
  double ms = 0.0;
  *changed = 0;
  for (guint s = 0; s < plan->stages->len; s++) {
    const ExecStage *st = g_ptr_array_index(plan->stages, s);
    ms += st->ms;
    *changed += st->changed;
  }
  return ms;
}

static void stage_files_cell(GString *out, const AppBundleStageFiles *sf) {
  md_link(out, "ir", sf->ir);
  if (sf->dot) {
    g_string_append(out, " · ");
    md_link(out, "dot", sf->dot);
  }
  if (sf->svg) {
    g_string_append(out, " · ");
    md_link(out, "svg", sf->svg);
  }
}

static void section_plans(GString *out, const AppBundleModel *m) {
  g_string_append(out, "## Plans\n\n");
  g_string_append(out, "| plan | kind | graph | spec | stages | changed | time (ms) |\n"
                       "|---:|---|---|---|---:|---:|---:|\n");
  for (guint p = 0; p < m->plans->len; p++) {
    const AppBundlePlanFiles *pf = g_ptr_array_index(m->plans, p);
    guint changed = 0;
    double ms = plan_ms(pf->plan, &changed);
    g_string_append_printf(out, "| %u | %s | ", p,
                           pf->plan->kind == EXEC_PLAN_FORWARD ? "forward" : "backward");
    code_cell(out, pf->plan->graph_name);
    g_string_append(out, " | ");
    code_cell(out, pf->plan->spec_text ? pf->plan->spec_text : "");
    g_string_append_printf(out, " | %u | %u | %.3f |\n", pf->stages->len, changed, ms);
  }
  g_string_append(out, "\n");
  for (guint p = 0; p < m->plans->len; p++) {
    const AppBundlePlanFiles *pf = g_ptr_array_index(m->plans, p);
    guint changed = 0;
    double ms = plan_ms(pf->plan, &changed);
    g_string_append_printf(out, "### Plan %u: %s `%s`\n\n", p,
                           pf->plan->kind == EXEC_PLAN_FORWARD ? "forward" : "backward",
                           pf->plan->graph_name);
    g_string_append(out, "Spec: ");
    code_cell(out, pf->plan->spec_text ? pf->plan->spec_text : "");
    g_string_append_printf(out, "\n\nFiles in `%s/`.\n\n", pf->dir);
    g_string_append_printf(out,
                           "<details>\n<summary>%u stages, %u changed the graph, %.3f ms in "
                           "all</summary>\n\n",
                           pf->stages->len, changed, ms);
    g_string_append(out, "| # | stage | group | changed | ms | files |\n"
                         "|---:|---|---|:---:|---:|---|\n");
    for (guint s = 0; s < pf->stages->len; s++) {
      const AppBundleStageFiles *sf = g_ptr_array_index(pf->stages, s);
      g_string_append_printf(out, "| %u | ", s);
      code_cell(out, sf->stage->name);
      g_string_append_printf(out, " | %s | %s | %.3f | ", sf->stage->group,
                             sf->stage->changed ? "yes" : "", sf->stage->ms);
      stage_files_cell(out, sf);
      g_string_append(out, " |\n");
    }
    g_string_append(out, "\n</details>\n\n");
    if (pf->stages->len == 0)
      continue;
    const AppBundleStageFiles *last = g_ptr_array_index(pf->stages, pf->stages->len - 1);
    g_string_append(out, "Final graph (");
    md_link(out, "ir", last->ir);
    if (last->svg) {
      g_string_append(out, ", ");
      md_link(out, "picture", last->svg);
    }
    g_string_append(out, "):\n\n");
    if (last->picture_note)
      g_string_append_printf(out, "*%s*\n\n", last->picture_note);
    code_block(out, "text", last->stage->ir);
    /* Small graphs also as a picture; large ones would not fit the page. */
    if (last->svg && count_lines(last->stage->ir) <= 40)
      g_string_append_printf(out, "![plan %u, final graph](%s)\n\n", p, last->svg);
  }
}

/* One row of a tensor summary: dtype, shape, min, max, mean (NaNs counted apart). */
static void tensor_row(GString *out, const char *label, const RtTensor *t, const char *rel) {
  g_autofree char *shape = rt_shape_to_string(t->ndim, t->sizes);
  int64_t n = rt_tensor_numel(t), nans = 0, finite = 0;
  double lo = INFINITY, hi = -INFINITY, sum = 0.0;
  for (int64_t k = 0; k < n; k++) {
    double v = rt_tensor_get(t, k);
    if (isnan(v)) {
      nans++;
      continue;
    }
    lo = fmin(lo, v);
    hi = fmax(hi, v);
    sum += v;
    finite++;
  }
  g_string_append_printf(out, "| %s | %s | %s | ", label, ir_dtype_name(t->dtype), shape);
  if (finite)
    g_string_append_printf(out, "%.6g | %.6g | %.6g", lo, hi, sum / (double)finite);
  else
    g_string_append(out, " | | ");
  if (nans)
    g_string_append_printf(out, " (%" G_GINT64_FORMAT " NaN)", nans);
  g_string_append(out, " | ");
  md_link(out, rel, rel);
  g_string_append(out, " |\n");
}

static void section_results(GString *out, const AppBundleModel *m) {
  g_string_append(out, "## Results\n\n");
  for (guint c = 0; c < m->calls->len; c++) {
    const AppBundleCallFiles *call = g_ptr_array_index(m->calls, c);
    const AppRunResult *r = call->run->result;
    if (m->calls->len > 1)
      g_string_append_printf(out, "Call %u (`%s`):\n\n", c + 1, call->option);
    g_string_append(out, "| value | dtype | shape | min | max | mean | file |\n"
                         "|---|---|---|---:|---:|---:|---|\n");
    for (guint o = 0; o < r->outputs->len; o++) {
      RtValue v = g_array_index(r->outputs, RtValue, o);
      g_autofree char *label = g_strdup_printf("output %u", o);
      const char *rel = g_ptr_array_index(call->outputs_npy, o);
      if (rel) {
        tensor_row(out, label, v.u.tensor, rel);
      } else {
        g_autoptr(GString) t = g_string_new(NULL);
        rt_value_print(t, v);
        g_string_append_printf(out, "| %s | ", label);
        code_cell(out, t->str);
        g_string_append(out, " | | | | | (in the manifest) |\n");
      }
    }
    for (guint i = 0; i < r->grads->len; i++) {
      const char *rel = g_ptr_array_index(call->grads_npy, i);
      if (!rel)
        continue;
      g_autofree char *label = g_strdup_printf("gradient of input %u", i);
      tensor_row(out, label, g_ptr_array_index(r->grads, i), rel);
    }
    g_string_append(out, "\n");
  }
  if (m->calls->len && ((AppBundleCallFiles *)g_ptr_array_index(m->calls, 0))->run->ran_backward)
    g_string_append(out, "Gradients are of the sum of all outputs (every output's gradient "
                         "seeded with ones).\n\n");
}

static void section_kernels(GString *out, const AppBundleModel *m) {
  if (!m->kernels_probed || m->kernels->len == 0)
    return;
  g_string_append(out, "## Generated CUDA kernels\n\n| plan | group | kernel | file |\n"
                       "|---:|---|---|---|\n");
  for (guint k = 0; k < m->kernels->len; k++) {
    const AppBundleKernelFile *kf = g_ptr_array_index(m->kernels, k);
    g_string_append_printf(out, "| %u | ", kf->plan_index);
    code_cell(out, kf->group);
    g_string_append(out, " | ");
    if (kf->file) {
      code_cell(out, kf->kernel ? kf->kernel : "");
      g_string_append(out, " | ");
      md_link(out, kf->file, kf->file);
    } else {
      g_string_append(out, "not generated: ");
      cell(out, kf->error ? kf->error : "unknown reason");
      g_string_append(out, " | ");
    }
    g_string_append(out, " |\n");
  }
  g_string_append(out, "\n");
}

char *app_bundle_report_markdown(const AppBundleModel *m) {
  GString *out = g_string_new(NULL);
  g_string_append_printf(out, "# jitscope bug report: `%s`\n\n", m->program_name);
  guint stages = 0;
  for (guint p = 0; p < m->plans->len; p++)
    stages += ((AppBundlePlanFiles *)g_ptr_array_index(m->plans, p))->stages->len;
  g_string_append_printf(out,
                         "Exported by jitscope %s: %u call%s, %u plan%s, %u stages. To run it "
                         "again and compare, `jitscope replay` this folder. ",
                         m->env.version, m->calls->len, m->calls->len == 1 ? "" : "s",
                         m->plans->len, m->plans->len == 1 ? "" : "s", stages);
  g_string_append(out, "[`manifest.json`](manifest.json) lists every file with its SHA-256.\n\n");
  if (m->notes->len) {
    for (guint i = 0; i < m->notes->len; i++) {
      g_string_append(out, "> **Note:** ");
      cell(out, g_ptr_array_index(m->notes, i));
      g_string_append(out, "\n>\n");
    }
    g_string_truncate(out, out->len - 2);
    g_string_append(out, "\n");
  }
  section_program(out, m);
  section_inputs(out, m);
  section_environment(out, m);
  section_check(out, m);
  section_results(out, m);
  section_plans(out, m);
  section_kernels(out, m);
  return g_string_free(out, FALSE);
}
