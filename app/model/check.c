/* Checking a program three ways (see check.h). Finite differences perturb at most
 * FD_MAX_ELEMENTS elements per input, evenly spread, so large weights stay affordable; the
 * report says how many it checked. */
#include "check.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "app_error.h"
#include "fuser/fuser.h"
#include "ir/text.h"
#include "program_run.h"
#include "runtime/device.h"
#include "runtime/interpreter.h"

#define FD_MAX_ELEMENTS 256
#define FD_TOLERANCE 1e-5
/* A central difference of the outputs' sum S is off by about (rounding of S) / h. S's
 * rounding is taken as FD_NOISE_ULPS units of the last place of the outputs' absolute sum (the
 * program's own rounding in each output included): discounted before comparing, so that a
 * program with many or large outputs (a convolution over a batch) is not failed for its
 * finite differences' noise. */
#define FD_NOISE_ULPS 16

double app_tensor_relative_error(const RtTensor *a, const RtTensor *b) {
  if (!a && !b)
    return 0;
  if (!a || !b || a->ndim != b->ndim)
    return INFINITY;
  for (int d = 0; d < a->ndim; d++)
    if (a->sizes[d] != b->sizes[d])
      return INFINITY;
  double max_diff = 0, max_ref = 1;
  for (int64_t i = 0; i < rt_tensor_numel(b); i++) {
    double x = rt_tensor_get(a, i), y = rt_tensor_get(b, i);
    if (isnan(x) != isnan(y))
      return INFINITY;
    if (isnan(x) || (isinf(x) && x == y))
      continue;
    max_diff = fmax(max_diff, fabs(x - y));
    max_ref = fmax(max_ref, fabs(y));
  }
  return max_diff / max_ref;
}

static double tolerance_for(const RtTensor *t) {
  return t && t->dtype == IR_DTYPE_FLOAT64 ? 1e-9 : 1e-4;
}

/* Relative error between two values, recursing into tuples, lists and dicts (entries in
 * order, tensor keys not compared); scaled so that 1 is
 * the tolerance of the worst element (tensors by dtype, scalars 1e-9). */
static double value_error_scaled(RtValue a, RtValue b) {
  if (a.tag == RT_TENSOR && b.tag == RT_TENSOR)
    return app_tensor_relative_error(a.u.tensor, b.u.tensor) / tolerance_for(b.u.tensor);
  if ((a.tag == RT_TUPLE || a.tag == RT_LIST) && a.tag == b.tag) {
    if (a.u.seq->len != b.u.seq->len)
      return INFINITY;
    double worst = 0;
    for (guint i = 0; i < a.u.seq->len; i++)
      worst = fmax(worst, value_error_scaled(a.u.seq->items[i], b.u.seq->items[i]));
    return worst;
  }
  if (a.tag == RT_DICT && b.tag == RT_DICT) {
    if (a.u.dict->len != b.u.dict->len)
      return INFINITY;
    double worst = 0;
    for (guint i = 0; i < a.u.dict->len; i++) {
      if (!rt_dict_key_equal(a.u.dict->keys[i], b.u.dict->keys[i]) &&
          a.u.dict->keys[i].tag != RT_TENSOR)
        return INFINITY;
      worst = fmax(worst, value_error_scaled(a.u.dict->values[i], b.u.dict->values[i]));
    }
    return worst;
  }
  double x, y;
  if (rt_value_to_double(a, &x) && rt_value_to_double(b, &y))
    return fabs(x - y) / fmax(1, fabs(y)) / 1e-9;
  return a.tag == b.tag ? 0 : INFINITY;
}

static void inputs_as_double_free(AppInputs *copy) {
  for (guint i = 0; i < copy->values->len; i++)
    rt_value_unref(g_array_index(copy->values, RtValue, i));
  g_array_free(copy->values, TRUE);
  g_ptr_array_free(copy->specs, TRUE);
  g_free(copy);
}

/* float64 copy of a floating tensor on the tensor's own device, keeping requires_grad: the
 * conversion reads host memory. */
static RtTensor *tensor_as_double(RtTensor *t, GError **error) {
  RtTensor *host = rt_tensor_to_host(t, error);
  if (!host)
    return NULL;
  RtTensor *d = rt_tensor_to_dtype(host, IR_DTYPE_FLOAT64);
  rt_tensor_unref(host);
  d->requires_grad = t->requires_grad;
  if (!rt_tensor_on_device(t))
    return d;
  RtTensor *on_device = rt_tensor_to_device(d, rt_tensor_device(t), error);
  rt_tensor_unref(d);
  return on_device;
}

/* Copies the inputs, converting floating tensors to float64 (tensor_as_double). */
static AppInputs *inputs_as_double(const AppInputs *inputs, GError **error) {
  AppInputs *copy = g_new0(AppInputs, 1);
  copy->specs = g_ptr_array_new();
  copy->values = g_array_new(FALSE, FALSE, sizeof(RtValue));
  copy->seed = inputs->seed;
  for (guint i = 0; i < inputs->values->len; i++) {
    RtValue v = g_array_index(inputs->values, RtValue, i);
    if (v.tag == RT_TENSOR && v.u.tensor && ir_type_is_float_dtype(v.u.tensor->dtype)) {
      RtTensor *d = tensor_as_double(v.u.tensor, error);
      if (!d) {
        inputs_as_double_free(copy);
        return NULL;
      }
      v = rt_tensor(d);
    } else {
      v = rt_value_ref(v);
    }
    g_array_append_val(copy->values, v);
  }
  return copy;
}

/* The sum of every element of every floating output (the function whose gradient the run's
 * backward computes: all output gradients seeded with ones), and the sum of their absolute
 * values (the scale of its rounding). */
typedef struct {
  double sum, abs_sum;
} OutputSum;

static bool sum_of_outputs(ExecExecutor *executor, const AppInputs *inputs, OutputSum *out,
                           GError **error) {
  AppProgramRun *run = app_program_run(executor, inputs, NULL, 0, error);
  if (!run)
    return false;
  OutputSum s = {0, 0};
  for (guint o = 0; o < run->result->outputs->len; o++) {
    RtValue v = g_array_index(run->result->outputs, RtValue, o);
    if (v.tag == RT_TENSOR && v.u.tensor && ir_type_is_float_dtype(v.u.tensor->dtype))
      for (int64_t e = 0; e < rt_tensor_numel(v.u.tensor); e++) {
        double x = rt_tensor_get(v.u.tensor, e);
        s.sum += x;
        s.abs_sum += fabs(x);
      }
  }
  app_program_run_free(run);
  *out = s;
  return true;
}

/* sum_of_outputs with element e of input i at `value`. `host` holds input i's values in host
 * memory: the input itself when it lives there; else the input is swapped for a device copy
 * of `host` during the call, so that the run stays on the input's device. */
static bool sum_with_element(ExecExecutor *executor, AppInputs *x, guint i, RtTensor *host,
                             int64_t e, double value, OutputSum *out, GError **error) {
  rt_tensor_set(host, e, value);
  RtValue *slot = &g_array_index(x->values, RtValue, i);
  RtTensor *t = slot->u.tensor;
  if (t == host)
    return sum_of_outputs(executor, x, out, error);
  RtTensor *copy = rt_tensor_to_device(host, rt_tensor_device(t), error);
  if (!copy)
    return false;
  slot->u.tensor = copy;
  bool ok = sum_of_outputs(executor, x, out, error);
  slot->u.tensor = t;
  rt_tensor_unref(copy);
  return ok;
}

static bool check_finite_differences(const IrGraph *graph, const AppInputs *inputs,
                                     AppCheckReport *report, GError **error) {
  AppInputs *x = inputs_as_double(inputs, error);
  if (!x)
    return false;
  ExecSession *grad_session = exec_session_new();
  ExecExecutor *grad_exec = exec_executor_new(grad_session, graph, "main", EXEC_PLAN_FORWARD);
  ExecSession *eval_session = exec_session_new();
  eval_session->grad_enabled = false;
  eval_session->optimize = false;
  ExecExecutor *eval_exec = exec_executor_new(eval_session, graph, "main", EXEC_PLAN_FORWARD);
  AppProgramRun *run = app_program_run(grad_exec, x, NULL, 0, error);
  bool ok = run != NULL;
  for (guint i = 0; ok && i < x->values->len; i++) {
    RtValue v = g_array_index(x->values, RtValue, i);
    if (v.tag != RT_TENSOR || !v.u.tensor || !v.u.tensor->requires_grad)
      continue;
    RtTensor *t = v.u.tensor, *g = g_ptr_array_index(run->result->grads, i);
    int64_t n = rt_tensor_numel(t);
    bool same_shape = g && g->ndim == t->ndim;
    for (int d = 0; same_shape && d < t->ndim; d++)
      same_shape = g->sizes[d] == t->sizes[d];
    if (!same_shape) {
      g_string_append_printf(report->log, "gradient of input %u has the wrong shape\n", i + 1);
      report->gradient_vs_finite_diff = INFINITY;
      report->finite_diff_excess = INFINITY;
      continue;
    }
    RtTensor *host = rt_tensor_to_host(t, error);
    if (!(ok = host != NULL))
      break;
    int64_t step = n > FD_MAX_ELEMENTS ? (n + FD_MAX_ELEMENTS - 1) / FD_MAX_ELEMENTS : 1;
    report->finite_diff_total += (guint)n;
    double worst = 0, beyond_noise = 0;
    for (int64_t e = 0; ok && e < n; e += step) {
      double x0 = rt_tensor_get(host, e), h = 1e-6 * fmax(1, fabs(x0));
      OutputSum plus, minus;
      ok = sum_with_element(eval_exec, x, i, host, e, x0 + h, &plus, error) &&
           sum_with_element(eval_exec, x, i, host, e, x0 - h, &minus, error);
      rt_tensor_set(host, e, x0);
      if (!ok)
        break;
      double fd = (plus.sum - minus.sum) / (2 * h), ad = g ? rt_tensor_get(g, e) : 0;
      double noise = FD_NOISE_ULPS * DBL_EPSILON * fmax(plus.abs_sum, minus.abs_sum) / h;
      worst = fmax(worst, fabs(ad - fd) / fmax(1, fabs(fd)));
      beyond_noise =
          fmax(beyond_noise, fmax(0, fabs(ad - fd) - noise) / fmax(1, fabs(fd)) / FD_TOLERANCE);
      report->finite_diff_elements++;
    }
    rt_tensor_unref(host);
    g_string_append_printf(
        report->log, "gradient of input %u vs finite differences: %.3g%s\n", i + 1, worst,
        worst > FD_TOLERANCE && beyond_noise <= 1 ? " (within the finite differences' rounding)"
                                                  : "");
    report->gradient_vs_finite_diff = fmax(report->gradient_vs_finite_diff, worst);
    report->finite_diff_excess = fmax(report->finite_diff_excess, beyond_noise);
  }
  app_program_run_free(run);
  exec_session_free(grad_session);
  exec_session_free(eval_session);
  inputs_as_double_free(x);
  return ok;
}

static void free_values(RtValue *v, guint n) {
  for (guint i = 0; i < n; i++)
    rt_value_unref(v[i]);
  g_free(v);
}

/* The special nodes of a stage's graph, run as the executor runs them: a FusionGroup through
 * the fuser, that is by the backend that takes its inputs on their device (CUDA, generated C,
 * the CPU fused loop) as in the plan, so that a difference only a fused backend makes shows at
 * fuse_graph; a DifferentiableGraph's Subgraph interpreted with these same hooks (its forward
 * may return saved temporaries after its outputs: those are dropped). ctx: the stage's
 * FuserPlanState, which records what ran. */
static bool run_stage_special(void *ctx, const IrNode *node, RtValue *inputs, guint n_inputs,
                              RtValue *outputs, guint n_outputs, GError **error) {
  if (node->kind == IR_PRIM_FUSION_GROUP)
    return fuser_run_group(ctx, node, inputs, n_inputs, outputs, n_outputs, error);
  const RtInterpreterHooks hooks = {.run_special = run_stage_special, .ctx = ctx};
  RtValue *results = NULL;
  guint n_results = 0;
  if (!rt_interpret(ir_node_attr_g(node, IR_ATTR_SUBGRAPH), &hooks, inputs, n_inputs, &results,
                    &n_results, error))
    return false;
  bool ok = n_results >= n_outputs;
  if (!ok)
    g_set_error(error, JITSCOPE_APP_ERROR, APP_ERROR_INPUT,
                "%s: its Subgraph returns %u values for %u outputs", ir_kind_name(node->kind),
                n_results, n_outputs);
  for (guint i = 0; i < n_results; i++) {
    if (ok && i < n_outputs)
      outputs[i] = results[i];
    else
      rt_value_unref(results[i]);
  }
  g_free(results);
  return ok;
}

static gint compare_strings_at(gconstpointer a, gconstpointer b) {
  return g_strcmp0(*(char *const *)a, *(char *const *)b);
}

/* "FusionGroup_0 on cpu, FusionGroup_1 on cuda": the backends that ran a stage's groups. */
static char *describe_group_backends(const FuserPlanState *fuser) {
  GHashTable *records = fuser_plan_records(fuser);
  if (!records)
    return NULL;
  g_autoptr(GPtrArray) lines = g_ptr_array_new_with_free_func(g_free);
  GHashTableIter iter;
  gpointer record;
  g_hash_table_iter_init(&iter, records);
  while (g_hash_table_iter_next(&iter, NULL, &record)) {
    const FuserGroupRecord *r = record;
    g_ptr_array_add(lines, g_strdup_printf("%s on %s", r->group_name, r->backend));
  }
  g_ptr_array_sort(lines, compare_strings_at);
  g_ptr_array_add(lines, NULL);
  return g_strjoinv(", ", (char **)lines->pdata);
}

/* Runs a recorded stage's graph (re-parsed from its text) on the inputs its plan saw (on their
 * device), from the random generator's state its plan's run began with, its fusion groups through the fused backends (run_stage_special); the results come
 * back in host memory, where they are compared. *backends: which backend ran each group, or
 * NULL when the stage has none. */
static bool run_stage_graph(const ExecPlan *plan, const ExecStage *stage, RtValue **outs,
                            guint *n_outs, char **backends) {
  GArray *inputs = plan->last_inputs;
  *backends = NULL;
  IrGraph *graph = ir_graph_parse(stage->ir, strlen(stage->ir), stage->name, NULL);
  if (!graph)
    return false;
  FuserPlanState *fuser = fuser_plan_state_new();
  const RtInterpreterHooks hooks = {.run_special = run_stage_special, .ctx = fuser};
  if (plan->last_generator) /* random ops draw what the plan's run drew */
    rt_generator_set(plan->last_generator);
  bool ok = rt_interpret(graph, &hooks, (RtValue *)inputs->data, inputs->len, outs, n_outs, NULL);
  *backends = describe_group_backends(fuser);
  fuser_plan_state_free(fuser);
  ir_graph_free(graph);
  for (guint o = 0; ok && o < *n_outs; o++) {
    RtValue host;
    if ((ok = rt_value_to_host((*outs)[o], &host, NULL))) {
      rt_value_unref((*outs)[o]);
      (*outs)[o] = host;
    }
  }
  if (!ok && *outs) {
    free_values(*outs, *n_outs);
    *outs = NULL;
    *n_outs = 0;
  }
  return ok;
}

/* Finds the first stage of `plan` whose results differ from those of the earliest stage
 * that runs (a backward plan's first stages hold GradOf blocks that need defined gradients;
 * those may not run on undefined ones). */
static void check_plan_stages(const ExecPlan *plan, AppCheckReport *report) {
  if (!plan->last_inputs)
    return;
  RtValue *ref = NULL;
  guint n_ref = 0, ref_stage = 0;
  for (guint s = 0; s < plan->stages->len && !report->first_bad_stage; s++) {
    const ExecStage *stage = g_ptr_array_index(plan->stages, s);
    if (ref && !stage->changed)
      continue;
    RtValue *outs = NULL;
    guint n_outs = 0;
    g_autofree char *backends = NULL;
    if (!run_stage_graph(plan, stage, &outs, &n_outs, &backends))
      continue;
    if (backends)
      g_string_append_printf(report->log, "plan %u stage %u %s: %s\n", plan->index, s, stage->name,
                             backends);
    if (!ref) {
      ref = outs;
      n_ref = n_outs;
      ref_stage = s;
      continue;
    }
    bool differs = n_outs != n_ref;
    for (guint o = 0; o < n_outs && o < n_ref; o++) {
      double err = value_error_scaled(outs[o], ref[o]);
      report->stage_max_error = fmax(report->stage_max_error, err);
      differs |= err > 1;
    }
    if (differs) {
      report->first_bad_stage =
          g_strdup_printf("plan %u (%s %s) stage %u %s", plan->index,
                          plan->kind == EXEC_PLAN_FORWARD ? "forward" : "backward",
                          plan->graph_name, s, stage->name);
      g_string_append_printf(report->log, "first stage whose results differ: %s\n",
                             report->first_bad_stage);
    }
    free_values(outs, n_outs);
  }
  if (ref)
    g_string_append_printf(report->log, "plan %u (%s): stages compared against stage %u\n",
                           plan->index, plan->graph_name, ref_stage);
  free_values(ref, n_ref);
}

AppCheckReport *app_check_run(const IrGraph *graph, const AppInputs *inputs, ExecStageHook hook,
                              void *hook_data, GError **error) {
  AppCheckReport *report = g_new0(AppCheckReport, 1);
  report->log = g_string_new(NULL);
  ExecSession *optimized = exec_session_new();
  optimized->record_inputs = true;
  optimized->stage_hook = hook;
  optimized->stage_hook_data = hook_data;
  ExecSession *plain = exec_session_new();
  plain->optimize = false;
  ExecExecutor *opt_exec = exec_executor_new(optimized, graph, "main", EXEC_PLAN_FORWARD);
  ExecExecutor *plain_exec = exec_executor_new(plain, graph, "main", EXEC_PLAN_FORWARD);
  AppProgramRun *a = app_program_run(opt_exec, inputs, NULL, 0, error);
  AppProgramRun *b = a ? app_program_run(plain_exec, inputs, NULL, 0, error) : NULL;
  bool ok = a && b;
  if (ok) {
    bool within = true;
    for (guint o = 0; o < a->result->outputs->len; o++) {
      RtValue x = g_array_index(a->result->outputs, RtValue, o);
      RtValue y = g_array_index(b->result->outputs, RtValue, o);
      double scaled = value_error_scaled(x, y);
      double err =
          x.tag == RT_TENSOR ? app_tensor_relative_error(x.u.tensor, y.u.tensor) : scaled * 1e-9;
      within &= scaled <= 1;
      report->optimized_vs_unoptimized = fmax(report->optimized_vs_unoptimized, err);
      g_string_append_printf(report->log, "output %u optimized vs unoptimized: %.3g\n", o + 1, err);
    }
    for (guint i = 0; i < a->result->grads->len; i++) {
      RtTensor *x = g_ptr_array_index(a->result->grads, i),
               *y = g_ptr_array_index(b->result->grads, i);
      if (!x && !y)
        continue;
      double err = app_tensor_relative_error(x, y);
      within &= err <= tolerance_for(x);
      report->optimized_vs_unoptimized = fmax(report->optimized_vs_unoptimized, err);
      g_string_append_printf(report->log, "gradient of input %u optimized vs unoptimized: %.3g\n",
                             i + 1, err);
    }
    report->ok = within;
    for (guint p = 0; p < optimized->plans->len; p++)
      check_plan_stages(g_ptr_array_index(optimized->plans, p), report);
    if (report->first_bad_stage)
      report->ok = false;
    if (app_inputs_require_grad(inputs)) {
      ok = check_finite_differences(graph, inputs, report, error);
      report->ok &= report->finite_diff_excess <= 1;
    }
  }
  app_program_run_free(a);
  app_program_run_free(b);
  exec_session_free(optimized);
  exec_session_free(plain);
  if (!ok) {
    app_check_report_free(report);
    return NULL;
  }
  return report;
}

void app_check_report_free(AppCheckReport *report) {
  if (!report)
    return;
  g_free(report->first_bad_stage);
  g_string_free(report->log, TRUE);
  g_free(report);
}
