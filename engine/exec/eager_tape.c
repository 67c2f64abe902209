/* Eager autograd for nodes outside DifferentiableGraphs (reference section 4: "its nodes then
 * run under the eager autograd tape"). A recorded node saves its non-constant inputs and its
 * outputs (detached); its backward runs the node's formula graph (ad_formula_backward_graph:
 * the same formulas symbolic autodiff uses, sizes recomputed from the saved values, GradOf
 * lowered) through the interpreter, compiled once per plan node. */
#include "exec/eager_tape.h"

#include "autodiff/formulas.h"
#include "exec/gradient_node.h"
#include "runtime/autograd.h"
#include "runtime/code.h"

typedef struct {
  IrGraph *graph; /* inputs: non-constant node inputs, node outputs, output gradients */
  RtCode *code;
} TapeFormula;

static void tape_formula_free(gpointer p) {
  TapeFormula *formula = p;
  rt_code_free(formula->code);
  ir_graph_free(formula->graph);
  g_free(formula);
}

static const TapeFormula *formula_for(ExecPlan *plan, const IrNode *node) {
  if (!plan->tape_formulas)
    plan->tape_formulas = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL,
                                                tape_formula_free);
  TapeFormula *formula = g_hash_table_lookup(plan->tape_formulas, node);
  if (formula)
    return formula;
  formula = g_new0(TapeFormula, 1);
  formula->graph = ad_formula_backward_graph(node);
  /* Formulas are our own well-formed graphs: failing to compile one is a bug. */
  GError *error = NULL;
  formula->code = rt_code_compile(formula->graph, &error);
  if (!formula->code)
    g_error("eager tape: the gradient formula of %s does not compile: %s",
            ir_kind_name(node->kind), error->message);
  g_hash_table_insert(plan->tape_formulas, (gpointer)node, formula);
  return formula;
}

typedef struct {
  const TapeFormula *formula;
  guint n_saved;
  RtValue *saved; /* the node's non-constant inputs, then its outputs */
  guint first_output;
} TapeBackward;

static void tape_backward_free(void *p) {
  TapeBackward *b = p;
  for (guint i = 0; i < b->n_saved; i++)
    rt_value_unref(b->saved[i]);
  g_free(b->saved);
  g_free(b);
}

/* Formulas read every output gradient once any is defined (a chunk concatenates them): a
 * missing one among defined ones becomes zeros of its output's shape. */
static RtTensor *gradient_or_zeros(const TapeBackward *b, RtTensor **grads, guint n, guint o) {
  if (grads[o])
    return rt_tensor_ref(grads[o]);
  for (guint k = 0; k < n; k++)
    if (grads[k]) {
      RtValue out = b->saved[b->first_output + o];
      if (out.tag == RT_TENSOR && out.u.tensor)
        return rt_tensor_zeros(out.u.tensor->dtype, out.u.tensor->ndim, out.u.tensor->sizes);
    }
  return NULL;
}

static bool tape_backward_apply(RtGradNode *node, RtTensor **grad_outputs, RtTensor **grad_inputs,
                                GError **error) {
  TapeBackward *b = node->ctx;
  guint n_out = node->n_outputs, n_stack = b->n_saved + n_out;
  RtValue *stack = g_new(RtValue, n_stack);
  for (guint i = 0; i < b->n_saved; i++)
    stack[i] = rt_value_ref(b->saved[i]);
  for (guint o = 0; o < n_out; o++)
    stack[b->n_saved + o] = rt_tensor(gradient_or_zeros(b, grad_outputs, n_out, o));
  guint n_results = rt_code_n_outputs(b->formula->code);
  g_assert(n_results == node->n_inputs && "a formula graph returns one gradient per input");
  RtValue *results = g_new0(RtValue, n_results);
  bool ok = rt_code_run(b->formula->code, NULL, stack, n_stack, results, error);
  for (guint i = 0; i < n_stack; i++)
    rt_value_unref(stack[i]);
  g_free(stack);
  for (guint i = 0; ok && i < n_results; i++) {
    RtTensor *g = results[i].tag == RT_TENSOR ? results[i].u.tensor : NULL;
    grad_inputs[i] = g ? rt_tensor_ref(g) : NULL;
    rt_value_unref(results[i]);
  }
  g_free(results);
  return ok;
}

bool exec_eager_tape_record(void *ctx, const IrNode *node, RtValue *inputs, guint n_inputs,
                            RtValue *outputs, guint n_outputs, GError **error) {
  bool tracked = false;
  for (guint i = 0; i < n_inputs; i++)
    tracked |= inputs[i].tag == RT_TENSOR && rt_autograd_tracked(inputs[i].u.tensor);
  bool float_output = false;
  for (guint o = 0; o < n_outputs; o++)
    float_output |= outputs[o].tag == RT_TENSOR && outputs[o].u.tensor &&
                    ir_type_is_float_dtype(outputs[o].u.tensor->dtype);
  if (!tracked || !float_output || !ad_is_differentiable(node))
    return true;

  const TapeFormula *formula = formula_for(ctx, node);
  TapeBackward *b = g_new0(TapeBackward, 1);
  b->formula = formula;
  b->saved = g_new(RtValue, n_inputs + n_outputs);
  for (guint i = 0; i < n_inputs; i++)
    if (ir_input(node, i)->node->kind != IR_PRIM_CONSTANT)
      b->saved[b->n_saved++] = exec_detached(inputs[i]);
  b->first_output = b->n_saved;
  for (guint o = 0; o < n_outputs; o++)
    b->saved[b->n_saved++] = exec_detached(outputs[o]);

  RtGradNode *grad_node = rt_grad_node_new(ir_kind_name(node->kind), n_outputs, n_inputs,
                                           tape_backward_apply, b, tape_backward_free);
  for (guint i = 0; i < n_inputs; i++)
    rt_grad_node_set_edge(grad_node, i, inputs[i].tag == RT_TENSOR ? inputs[i].u.tensor : NULL);
  for (guint o = 0; o < n_outputs; o++) {
    if (outputs[o].tag != RT_TENSOR || !outputs[o].u.tensor ||
        !ir_type_is_float_dtype(outputs[o].u.tensor->dtype))
      continue;
    /* A fresh alias: the kernel may have returned one of its inputs as is. */
    RtTensor *alias = rt_autograd_detach(outputs[o].u.tensor);
    rt_value_unref(outputs[o]);
    outputs[o] = rt_tensor(alias);
    rt_autograd_attach(alias, grad_node, o);
  }
  rt_grad_node_unref(grad_node);
  return true;
}
