/* The grad node of one Gradient run: backward stacks the incoming gradients and the saved
 * values, runs df, and hands df's outputs to the edges (reference section 4). */
#include "exec/gradient_node.h"

#include "runtime/autograd.h"

typedef struct {
  ExecRunDf run_df;
  void *run_df_ctx;
  guint n_saved;
  RtValue *saved; /* captured inputs, then captured outputs */
} GradientBackward;

static void gradient_backward_free(void *p) {
  GradientBackward *b = p;
  for (guint i = 0; i < b->n_saved; i++)
    rt_value_unref(b->saved[i]);
  g_free(b->saved);
  g_free(b);
}

RtValue exec_detached(RtValue v) {
  if (v.tag == RT_TENSOR && v.u.tensor)
    return rt_tensor(rt_autograd_detach(v.u.tensor));
  return rt_value_ref(v);
}

static guint index_at(const GArray *a, guint i) {
  return g_array_index(a, guint, i);
}

static bool gradient_backward_apply(RtGradNode *node, RtTensor **grad_outputs,
                                    RtTensor **grad_inputs, GError **error) {
  GradientBackward *b = node->ctx;
  guint n_vjps = node->n_outputs, n_in = n_vjps + b->n_saved;
  g_autofree RtValue *stack = g_new(RtValue, n_in);
  for (guint i = 0; i < n_vjps; i++)
    stack[i] = rt_tensor(grad_outputs[i] ? rt_tensor_ref(grad_outputs[i]) : NULL);
  for (guint i = 0; i < b->n_saved; i++)
    stack[n_vjps + i] = rt_value_ref(b->saved[i]);
  g_autofree RtValue *results = NULL;
  guint n_results = 0;
  bool ok = b->run_df(b->run_df_ctx, stack, n_in, &results, &n_results, error);
  for (guint i = 0; i < n_in; i++)
    rt_value_unref(stack[i]);
  if (!ok)
    return false;
  RtValue *grads = results;
  guint n_grads = n_results;
  if (n_results == 1 && results[0].tag == RT_TUPLE) {
    grads = results[0].u.seq->items;
    n_grads = results[0].u.seq->len;
  }
  g_assert(n_grads == node->n_inputs && "df returns one gradient per df_output_vjps entry");
  for (guint i = 0; i < n_grads; i++) {
    RtTensor *g = grads[i].tag == RT_TENSOR ? grads[i].u.tensor : NULL;
    grad_inputs[i] = g ? rt_tensor_ref(g) : NULL;
  }
  for (guint i = 0; i < n_results; i++)
    rt_value_unref(results[i]);
  return true;
}

void exec_gradient_link(const ExecGradientLink *link, RtValue *outputs, guint n_outputs) {
  const AdGradient *gradient = link->gradient;
  bool tracked = false;
  for (guint k = 0; k < gradient->df_output_vjps->len; k++) {
    RtValue in = link->inputs[index_at(gradient->df_output_vjps, k)];
    tracked |= in.tag == RT_TENSOR && rt_autograd_tracked(in.u.tensor);
  }
  if (!tracked)
    return;

  GradientBackward *b = g_new0(GradientBackward, 1);
  b->run_df = link->run_df;
  b->run_df_ctx = link->run_df_ctx;
  guint n_ci = gradient->df_input_captured_inputs->len;
  guint n_co = gradient->df_input_captured_outputs->len;
  b->n_saved = n_ci + n_co;
  b->saved = g_new(RtValue, b->n_saved);
  for (guint i = 0; i < n_ci; i++)
    b->saved[i] = exec_detached(link->f_inputs[index_at(gradient->df_input_captured_inputs, i)]);
  for (guint i = 0; i < n_co; i++)
    b->saved[n_ci + i] =
        exec_detached(link->f_outputs[index_at(gradient->df_input_captured_outputs, i)]);

  RtGradNode *node =
      rt_grad_node_new(link->name, gradient->df_input_vjps->len, gradient->df_output_vjps->len,
                       gradient_backward_apply, b, gradient_backward_free);
  for (guint k = 0; k < gradient->df_output_vjps->len; k++) {
    RtValue in = link->inputs[index_at(gradient->df_output_vjps, k)];
    rt_grad_node_set_edge(node, k, in.tag == RT_TENSOR ? in.u.tensor : NULL);
  }
  for (guint k = 0; k < gradient->df_input_vjps->len; k++) {
    guint out = index_at(gradient->df_input_vjps, k);
    if (out >= n_outputs || outputs[out].tag != RT_TENSOR || !outputs[out].u.tensor ||
        !ir_type_is_float_dtype(outputs[out].u.tensor->dtype))
      continue;
    RtTensor *alias = rt_autograd_detach(outputs[out].u.tensor);
    rt_value_unref(outputs[out]);
    outputs[out] = rt_tensor(alias);
    rt_autograd_attach(alias, node, k);
  }
  rt_grad_node_unref(node);
}
