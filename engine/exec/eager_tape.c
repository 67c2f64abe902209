/* Eager autograd for nodes outside DifferentiableGraphs (reference section 4: "its nodes then
 * run under the eager autograd tape"). A recorded node saves its non-constant inputs and its
 * outputs (detached); its backward runs the node's formula graph (ad_formula_backward_graph:
 * the same formulas symbolic autodiff uses, sizes recomputed from the saved values, GradOf
 * lowered) through the interpreter, compiled once per plan node. */
#include "exec/eager_tape.h"

#include "autodiff/formulas.h"
#include "exec/gradient_node.h"
#include "ir/ops.h"
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
    plan->tape_formulas =
        g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, tape_formula_free);
  TapeFormula *formula = g_hash_table_lookup(plan->tape_formulas, node);
  if (formula)
    return formula;
  formula = g_new0(TapeFormula, 1);
  formula->graph = ad_formula_backward_graph(node);
  /* Formulas are our own well-formed graphs: failing to compile one is a bug. */
  GError *error = NULL;
  formula->code = rt_code_compile(formula->graph, &error);
  if (!formula->code)
    g_error("eager tape: the gradient formula of %s does not compile: %s", ir_kind_name(node->kind),
            error->message);
  g_hash_table_insert(plan->tape_formulas, (gpointer)node, formula);
  return formula;
}

/* Tensor[] values take part element by element: a list input gives one edge per element, a
 * list output one grad-node output per element (flattened in value order). */
static guint flat_count(RtValue v) {
  return v.tag == RT_LIST ? v.u.seq->len : 1;
}

static RtTensor *flat_tensor(RtValue v, guint k) {
  if (v.tag == RT_LIST)
    v = v.u.seq->items[k];
  return v.tag == RT_TENSOR ? v.u.tensor : NULL;
}

typedef struct {
  const TapeFormula *formula; /* NULL: the node has no gradient formula */
  const char *missing;        /* ... and this says why */
  const char *op;
  guint n_saved;
  RtValue *saved; /* the node's non-constant inputs, then its outputs */
  guint first_output;
  guint n_node_outputs;
  RtValue *input_shapes; /* the node's inputs, for Tensor[] gradients' element counts */
  guint n_node_inputs;
} TapeBackward;

static void tape_backward_free(void *p) {
  TapeBackward *b = p;
  for (guint i = 0; i < b->n_saved; i++)
    rt_value_unref(b->saved[i]);
  g_free(b->saved);
  for (guint i = 0; i < b->n_node_inputs; i++)
    rt_value_unref(b->input_shapes[i]);
  g_free(b->input_shapes);
  g_free(b);
}

/* Formulas read every output gradient once any is defined (a chunk concatenates them): a
 * missing one among defined ones becomes zeros of its output's shape. */
static RtTensor *gradient_or_zeros(RtTensor *grad, RtTensor *output, bool any_defined) {
  if (grad)
    return rt_tensor_ref(grad);
  if (any_defined && output)
    return rt_tensor_zeros(output->dtype, output->ndim, output->sizes);
  return NULL;
}

static bool tape_backward_apply(RtGradNode *node, RtTensor **grad_outputs, RtTensor **grad_inputs,
                                GError **error) {
  TapeBackward *b = node->ctx;
  if (!b->formula) {
    g_set_error(error, JITSCOPE_RUNTIME_ERROR, RT_ERROR_VALUE,
                "backward through %s: %s; its gradient would be wrong, not zero", b->op,
                b->missing);
    return false;
  }
  bool any_defined = false;
  for (guint k = 0; k < node->n_outputs; k++)
    any_defined |= grad_outputs[k] != NULL;
  guint n_stack = b->n_saved + b->n_node_outputs;
  RtValue *stack = g_new(RtValue, n_stack);
  for (guint i = 0; i < b->n_saved; i++)
    stack[i] = rt_value_ref(b->saved[i]);
  guint flat = 0;
  for (guint o = 0; o < b->n_node_outputs; o++) {
    RtValue out = b->saved[b->first_output + o];
    guint n = flat_count(out);
    RtValue *items = g_new(RtValue, n);
    for (guint k = 0; k < n; k++, flat++)
      items[k] = rt_tensor(gradient_or_zeros(grad_outputs[flat], flat_tensor(out, k), any_defined));
    stack[b->n_saved + o] = out.tag == RT_LIST ? rt_list(items, n) : items[0];
    g_free(items);
  }
  guint n_results = rt_code_n_outputs(b->formula->code);
  g_assert(n_results == b->n_node_inputs && "a formula graph returns one gradient per input");
  RtValue *results = g_new0(RtValue, n_results);
  bool ok = rt_code_run(b->formula->code, NULL, stack, n_stack, results, error);
  for (guint i = 0; i < n_stack; i++)
    rt_value_unref(stack[i]);
  g_free(stack);
  flat = 0;
  for (guint i = 0; i < n_results; i++) {
    guint n = flat_count(b->input_shapes[i]);
    for (guint k = 0; k < n; k++, flat++) {
      RtTensor *g = NULL;
      if (ok && (results[i].tag == RT_LIST) == (b->input_shapes[i].tag == RT_LIST) &&
          k < flat_count(results[i]))
        g = flat_tensor(results[i], k);
      grad_inputs[flat] = g ? rt_tensor_ref(g) : NULL;
    }
    rt_value_unref(results[i]);
  }
  g_free(results);
  return ok;
}

static bool float_tensor(RtTensor *t) {
  return t && ir_type_is_float_dtype(t->dtype);
}

/* A dropout whose train is known only at run time: did this run draw a mask? */
static bool dropout_drew(const IrNode *node, const RtValue *inputs) {
  return node->kind == IR_ATEN_DROPOUT && !ad_dropout_train_is_constant(node) &&
         inputs[2].tag == RT_BOOL && inputs[2].u.b &&
         !(inputs[1].tag == RT_DOUBLE && inputs[1].u.d == 0);
}

bool exec_eager_tape_record(void *ctx, const IrNode *node, RtValue *inputs, guint n_inputs,
                            RtValue *outputs, guint n_outputs, GError **error) {
  (void)error;
  /* Prim ops pass tensors through (ConstantChunk has a formula); AD_NONE rows carry none. */
  if (node->schema ? ir_node_op_def(node)->grad == IR_GRAD_NONE : !ad_formula_exists(node))
    return true;
  bool tracked = false;
  guint n_edges = 0, n_flat_outputs = 0;
  for (guint i = 0; i < n_inputs; i++)
    for (guint k = 0; k < flat_count(inputs[i]); k++, n_edges++)
      tracked |= flat_tensor(inputs[i], k) && rt_autograd_tracked(flat_tensor(inputs[i], k));
  bool float_output = false;
  for (guint o = 0; o < n_outputs; o++)
    for (guint k = 0; k < flat_count(outputs[o]); k++, n_flat_outputs++)
      float_output |= float_tensor(flat_tensor(outputs[o], k));
  if (!tracked || !float_output)
    return true;

  TapeBackward *b = g_new0(TapeBackward, 1);
  b->op = ir_kind_name(node->kind);
  if (ad_dropout_needs_native(node) || dropout_drew(node, inputs))
    b->missing = "with train=True its gradient needs the mask it drew, which only a "
                 "DifferentiableGraph keeps (as aten::native_dropout)";
  else if (ad_formula_exists(node))
    b->formula = formula_for(ctx, node);
  else
    b->missing = ir_node_op_def(node)->grad == IR_GRAD_NOT_DIFFERENTIABLE
                     ? "the op table marks it NOT_DIFFERENTIABLE (no gradient formula)"
                     : "no gradient formula for these arguments";
  b->saved = g_new(RtValue, n_inputs + n_outputs);
  for (guint i = 0; i < n_inputs; i++)
    if (ir_input(node, i)->node->kind != IR_PRIM_CONSTANT)
      b->saved[b->n_saved++] = exec_detached(inputs[i]);
  b->first_output = b->n_saved;
  for (guint o = 0; o < n_outputs; o++)
    b->saved[b->n_saved++] = exec_detached(outputs[o]);
  b->n_node_outputs = n_outputs;
  b->n_node_inputs = n_inputs;
  b->input_shapes = g_new(RtValue, n_inputs);
  for (guint i = 0; i < n_inputs; i++)
    b->input_shapes[i] = exec_detached(inputs[i]);

  RtGradNode *grad_node =
      rt_grad_node_new(b->op, n_flat_outputs, n_edges, tape_backward_apply, b, tape_backward_free);
  guint edge = 0;
  for (guint i = 0; i < n_inputs; i++)
    for (guint k = 0; k < flat_count(inputs[i]); k++)
      rt_grad_node_set_edge(grad_node, edge++, flat_tensor(inputs[i], k));
  guint flat = 0;
  for (guint o = 0; o < n_outputs; o++) {
    guint n = flat_count(outputs[o]);
    bool is_list = outputs[o].tag == RT_LIST;
    RtValue *items = g_new(RtValue, n);
    for (guint k = 0; k < n; k++, flat++) {
      RtTensor *t = flat_tensor(outputs[o], k);
      if (!float_tensor(t)) {
        items[k] = is_list ? rt_value_ref(outputs[o].u.seq->items[k]) : rt_value_ref(outputs[o]);
        continue;
      }
      /* A fresh alias: the kernel may have returned one of its inputs as is. */
      RtTensor *alias = rt_autograd_detach(t);
      rt_autograd_attach(alias, grad_node, flat);
      items[k] = rt_tensor(alias);
    }
    rt_value_unref(outputs[o]);
    outputs[o] = is_list ? rt_list(items, n) : items[0];
    g_free(items);
  }
  rt_grad_node_unref(grad_node);
  return true;
}
