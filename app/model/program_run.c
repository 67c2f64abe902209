/* Forward through the executor, then backward through the session's autograd graph. */
#include "program_run.h"

#include "app_error.h"
#include "runtime/device.h"
#include "tensor/rng.h"

bool app_inputs_require_grad(const AppInputs *inputs) {
  for (guint i = 0; i < inputs->values->len; i++) {
    RtValue v = g_array_index(inputs->values, RtValue, i);
    if (v.tag == RT_TENSOR && v.u.tensor && v.u.tensor->requires_grad)
      return true;
  }
  return false;
}

static bool run_backward(ExecExecutor *executor, const AppInputs *inputs, AppRunResult *result,
                         RtTensor *const *grad_outputs, guint n_grad_outputs, GError **error) {
  guint n_out = result->outputs->len;
  if (grad_outputs && n_grad_outputs != n_out) {
    g_set_error(error, JITSCOPE_APP_ERROR, APP_ERROR_INPUT,
                "--grad-output: %u given but the program has %u outputs", n_grad_outputs, n_out);
    return false;
  }
  for (guint o = 0; grad_outputs && o < n_out; o++) {
    RtValue v = g_array_index(result->outputs, RtValue, o);
    const RtTensor *given = grad_outputs[o];
    if (v.tag != RT_TENSOR || !v.u.tensor || !given)
      continue;
    bool same = given->ndim == v.u.tensor->ndim;
    for (int d = 0; same && d < given->ndim; d++)
      same = given->sizes[d] == v.u.tensor->sizes[d];
    if (!same) {
      g_autofree char *want = rt_shape_to_string(v.u.tensor->ndim, v.u.tensor->sizes);
      g_autofree char *have = rt_shape_to_string(given->ndim, given->sizes);
      g_set_error(error, JITSCOPE_APP_ERROR, APP_ERROR_INPUT,
                  "--grad-output %u has shape %s, but output %u has shape %s", o + 1, have, o,
                  want);
      return false;
    }
  }
  g_autoptr(GPtrArray) roots = g_ptr_array_new();
  g_autoptr(GPtrArray) seeds = g_ptr_array_new_with_free_func((GDestroyNotify)rt_tensor_unref);
  for (guint o = 0; o < n_out; o++) {
    RtValue v = g_array_index(result->outputs, RtValue, o);
    if (v.tag != RT_TENSOR || !v.u.tensor)
      continue;
    g_ptr_array_add(roots, v.u.tensor);
    /* A given gradient goes where its output is (the GPU for device=cuda runs). */
    RtTensor *seed = grad_outputs && grad_outputs[o]
                         ? rt_tensor_to_device(grad_outputs[o], rt_tensor_device(v.u.tensor), error)
                         : NULL;
    if (grad_outputs && grad_outputs[o] && seed == NULL)
      return false;
    g_ptr_array_add(seeds, seed);
  }
  guint n_in = inputs->values->len;
  g_autofree RtTensor **leaves = g_new0(RtTensor *, n_in);
  g_autofree RtTensor **grads = g_new0(RtTensor *, n_in);
  for (guint i = 0; i < n_in; i++) {
    RtValue v = g_array_index(inputs->values, RtValue, i);
    if (v.tag == RT_TENSOR && v.u.tensor && v.u.tensor->requires_grad)
      leaves[i] = v.u.tensor;
  }
  bool ok =
      exec_session_backward(exec_executor_session(executor), (RtTensor **)roots->pdata,
                            (RtTensor **)seeds->pdata, roots->len, leaves, n_in, grads, error);
  for (guint i = 0; i < n_in; i++)
    app_run_result_set_grad(result, i, ok ? grads[i] : NULL);
  if (!ok)
    for (guint i = 0; i < n_in; i++)
      if (grads[i])
        rt_tensor_unref(grads[i]);
  return ok;
}

/* Outputs and gradients in GPU memory are copied to the host, so that every printed form
 * (text, JSON, .npy) is the same as for a CPU run. */
static bool result_to_host(AppRunResult *result, GError **error) {
  for (guint i = 0; i < result->outputs->len; i++) {
    RtValue *slot = &g_array_index(result->outputs, RtValue, i);
    RtValue host;
    if (!rt_value_to_host(*slot, &host, error))
      return false;
    rt_value_unref(*slot);
    *slot = host;
  }
  for (guint i = 0; i < result->grads->len; i++) {
    RtTensor *g = g_ptr_array_index(result->grads, i);
    if (g == NULL || !rt_tensor_on_device(g))
      continue;
    RtTensor *host = rt_tensor_to_host(g, error);
    if (host == NULL)
      return false;
    app_run_result_set_grad(result, i, host);
  }
  return true;
}

AppProgramRun *app_program_run(ExecExecutor *executor, const AppInputs *inputs,
                               RtTensor *const *grad_outputs, guint n_grad_outputs,
                               GError **error) {
  ExecSession *session = exec_executor_session(executor);
  AppProgramRun *run = g_new0(AppProgramRun, 1);
  run->first_plan = session->plans->len;
  RtValue *outputs = NULL;
  guint n_outputs = 0;
  rt_generator_manual_seed(inputs->seed);
  if (!exec_executor_run(executor, (const RtValue *)inputs->values->data, inputs->values->len,
                         &outputs, &n_outputs, error)) {
    g_free(run);
    return NULL;
  }
  run->result = app_run_result_new(outputs, n_outputs, inputs->values->len);
  for (guint i = 0; i < n_outputs; i++)
    rt_value_unref(outputs[i]);
  g_free(outputs);
  if (app_inputs_require_grad(inputs)) {
    run->ran_backward = true;
    if (!run_backward(executor, inputs, run->result, grad_outputs, n_grad_outputs, error)) {
      app_program_run_free(run);
      return NULL;
    }
  }
  run->end_plan = session->plans->len;
  if (!result_to_host(run->result, error)) {
    app_program_run_free(run);
    return NULL;
  }
  return run;
}

void app_program_run_free(AppProgramRun *run) {
  if (!run)
    return;
  app_run_result_free(run->result);
  g_free(run);
}
