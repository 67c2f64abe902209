/* DifferentiableGraph at run time (reference section 4): f runs on detached inputs; the
 * inputs listed in df_output_vjps become the grad node's edges; captured inputs and outputs
 * are saved (detached, so no cycle through the node); the outputs listed in df_input_vjps
 * are attached to the node; temporaries are dropped. Backward: stack = incoming gradients,
 * then saved values; run df through its own executor. */
#include "exec/diff_graph_op.h"

#include "runtime/autograd.h"
#include "runtime/code.h"

typedef struct {
  ExecDiffState *state;
  guint n_saved;
  RtValue *saved; /* captured inputs, then captured outputs */
} DiffBackward;

static void diff_backward_free(void *p) {
  DiffBackward *b = p;
  for (guint i = 0; i < b->n_saved; i++)
    rt_value_unref(b->saved[i]);
  g_free(b->saved);
  g_free(b);
}

static RtValue detached(RtValue v) {
  if (v.tag == RT_TENSOR && v.u.tensor)
    return rt_tensor(rt_autograd_detach(v.u.tensor));
  return rt_value_ref(v);
}

static bool diff_backward_apply(RtGradNode *node, RtTensor **grad_outputs, RtTensor **grad_inputs,
                                GError **error) {
  DiffBackward *b = node->ctx;
  guint n_vjps = node->n_outputs;
  guint n_in = n_vjps + b->n_saved;
  RtValue *stack = g_new(RtValue, n_in);
  for (guint i = 0; i < n_vjps; i++)
    stack[i] = rt_tensor(grad_outputs[i] ? rt_tensor_ref(grad_outputs[i]) : NULL);
  for (guint i = 0; i < b->n_saved; i++)
    stack[n_vjps + i] = rt_value_ref(b->saved[i]);
  RtValue *results = NULL;
  guint n_results = 0;
  bool ok = exec_executor_run(b->state->backward, stack, n_in, &results, &n_results, error);
  for (guint i = 0; i < n_in; i++)
    rt_value_unref(stack[i]);
  g_free(stack);
  if (!ok)
    return false;
  /* df may return its gradients as one tuple (as PyTorch 1.13 prints it) or one by one. */
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
  g_free(results);
  return true;
}

static guint index_at(const GArray *a, guint i) { return g_array_index(a, guint, i); }

bool exec_diff_graph_run(ExecPlan *plan, ExecDiffState *state, const IrNode *node,
                         RtValue *inputs, guint n_inputs, RtValue *outputs, guint n_outputs,
                         GError **error) {
  const AdGradient *gradient = state->gradient;
  IrGraph *f = ir_node_attr_g(node, IR_ATTR_SUBGRAPH);
  RtValue *f_inputs = g_new(RtValue, n_inputs);
  for (guint i = 0; i < n_inputs; i++)
    f_inputs[i] = detached(inputs[i]);
  if (!state->f_code && !(state->f_code = rt_code_compile(f, error)))
    return false;
  RtInterpreterHooks hooks = {.run_special = exec_plan_run_special, .ctx = plan};
  guint n_results = rt_code_n_outputs(state->f_code);
  RtValue *results = g_new0(RtValue, n_results);
  bool ok = rt_code_run(state->f_code, &hooks, f_inputs, n_inputs, results, error);
  if (!ok) {
    g_free(results);
    for (guint i = 0; i < n_inputs; i++)
      rt_value_unref(f_inputs[i]);
    g_free(f_inputs);
    return false;
  }
  g_assert(n_outputs == gradient->f_real_outputs && n_results >= n_outputs);

  bool needs_grad = false;
  for (guint k = 0; k < gradient->df_output_vjps->len; k++) {
    RtValue in = inputs[index_at(gradient->df_output_vjps, k)];
    needs_grad |= in.tag == RT_TENSOR && rt_autograd_tracked(in.u.tensor);
  }

  for (guint i = 0; i < n_outputs; i++)
    outputs[i] = detached(results[i]);

  if (needs_grad) {
    DiffBackward *b = g_new0(DiffBackward, 1);
    b->state = state;
    guint n_ci = gradient->df_input_captured_inputs->len;
    guint n_co = gradient->df_input_captured_outputs->len;
    b->n_saved = n_ci + n_co;
    b->saved = g_new(RtValue, b->n_saved);
    for (guint i = 0; i < n_ci; i++)
      b->saved[i] = detached(f_inputs[index_at(gradient->df_input_captured_inputs, i)]);
    for (guint i = 0; i < n_co; i++)
      b->saved[n_ci + i] = detached(results[index_at(gradient->df_input_captured_outputs, i)]);
    RtGradNode *grad_node =
        rt_grad_node_new(state->name, gradient->df_input_vjps->len, gradient->df_output_vjps->len,
                         diff_backward_apply, b, diff_backward_free);
    for (guint k = 0; k < gradient->df_output_vjps->len; k++) {
      RtValue in = inputs[index_at(gradient->df_output_vjps, k)];
      rt_grad_node_set_edge(grad_node, k, in.tag == RT_TENSOR ? in.u.tensor : NULL);
    }
    for (guint k = 0; k < gradient->df_input_vjps->len; k++) {
      guint out = index_at(gradient->df_input_vjps, k);
      if (out >= n_outputs || outputs[out].tag != RT_TENSOR || !outputs[out].u.tensor)
        continue;
      RtTensor *t = outputs[out].u.tensor;
      if (ir_type_is_float_dtype(t->dtype))
        rt_autograd_attach(t, grad_node, k);
    }
    rt_grad_node_unref(grad_node);
  }

  for (guint i = 0; i < n_results; i++)
    rt_value_unref(results[i]);
  g_free(results);
  for (guint i = 0; i < n_inputs; i++)
    rt_value_unref(f_inputs[i]);
  g_free(f_inputs);
  return true;
}
