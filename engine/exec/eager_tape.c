/* Eager autograd for nodes outside DifferentiableGraphs (reference section 4: "its nodes then
 * run under the eager autograd tape"). Each recorded node is differentiated as a one-node
 * graph: f recomputes the saved temporaries (sizes for broadcasting), df is lowered with
 * LowerGradOf so undefined incoming gradients are handled at run time, and both run through
 * the interpreter. Gradient formulas are thus written once, in autodiff/. */
#include "exec/eager_tape.h"

#include "exec/gradient_node.h"
#include "runtime/autograd.h"
#include "runtime/code.h"

typedef struct {
  AdGradient *gradient;
  RtCode *f_code;  /* compiled once per formula: the tape runs them on every call */
  RtCode *df_code;
} TapeFormula;

static void tape_formula_free(gpointer p) {
  TapeFormula *formula = p;
  rt_code_free(formula->f_code);
  rt_code_free(formula->df_code);
  ad_gradient_free(formula->gradient);
  g_free(formula);
}

static guint index_at(const GArray *a, guint i) { return g_array_index(a, guint, i); }

static IrValue *map_value(IrValue *src, gpointer map) { return g_hash_table_lookup(map, src); }

/* Builds the one-node graph for `node`: constants copied in (formulas read them, e.g. a pow
 * exponent), other inputs typed from the runtime values. The graph's inputs are the node's
 * non-constant inputs, in order. */
static IrGraph *one_node_graph(const IrNode *node, RtValue *inputs, guint n_inputs) {
  IrGraph *graph = ir_graph_new();
  GHashTable *map = g_hash_table_new(g_direct_hash, g_direct_equal);
  for (guint i = 0; i < n_inputs; i++) {
    IrValue *src = ir_input(node, i);
    if (g_hash_table_contains(map, src))
      continue;
    if (src->node->kind == IR_PRIM_CONSTANT) {
      IrNode *constant = ir_node_clone_into(graph, src->node, map_value, map);
      ir_node_append_to(constant, graph->block);
      g_hash_table_insert(map, src, ir_output(constant, 0));
      continue;
    }
    const IrType *type = src->type;
    if (inputs[i].tag == RT_TENSOR) {
      RtTensor *t = inputs[i].u.tensor;
      type = t ? ir_type_with_requires_grad(ir_type_dimensioned(rt_tensor_type(t)),
                                            rt_autograd_tracked(t) ? IR_YES : IR_NO)
               : ir_type_undefined_tensor();
    }
    g_hash_table_insert(map, src, ir_graph_add_input(graph, type, NULL));
  }
  IrNode *copy = ir_node_clone_into(graph, node, map_value, map);
  ir_node_append_to(copy, graph->block);
  for (guint o = 0; o < ir_n_outputs(copy); o++)
    ir_graph_add_output(graph, ir_output(copy, o));
  g_hash_table_destroy(map);
  return graph;
}

/* The runtime values of the one-node graph's inputs (the node's non-constant inputs). */
static GArray *graph_inputs_of(const IrNode *node, RtValue *inputs, guint n_inputs) {
  GArray *values = g_array_new(FALSE, FALSE, sizeof(RtValue));
  GHashTable *seen = g_hash_table_new(g_direct_hash, g_direct_equal);
  for (guint i = 0; i < n_inputs; i++) {
    IrValue *src = ir_input(node, i);
    if (src->node->kind == IR_PRIM_CONSTANT || g_hash_table_contains(seen, src))
      continue;
    g_hash_table_add(seen, src);
    g_array_append_val(values, inputs[i]);
  }
  g_hash_table_destroy(seen);
  return values;
}

static const TapeFormula *formula_for(ExecPlan *plan, const IrNode *node, RtValue *inputs,
                                      guint n_inputs) {
  guint64 mask = 0;
  for (guint i = 0; i < n_inputs && i < 64; i++)
    if (inputs[i].tag == RT_TENSOR && rt_autograd_tracked(inputs[i].u.tensor))
      mask |= (guint64)1 << i;
  if (!plan->tape_formulas)
    plan->tape_formulas = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, tape_formula_free);
  char *key = g_strdup_printf("%p/%" G_GINT64_MODIFIER "x", (const void *)node, mask);
  TapeFormula *formula = g_hash_table_lookup(plan->tape_formulas, key);
  if (formula) {
    g_free(key);
    return formula;
  }
  formula = g_new0(TapeFormula, 1);
  formula->gradient = ad_differentiate(one_node_graph(node, inputs, n_inputs));
  pass_lower_grad_of(formula->gradient->df);
  /* Formulas are our own well-formed graphs: failing to compile one is a bug. */
  GError *error = NULL;
  formula->f_code = rt_code_compile(formula->gradient->f, &error);
  formula->df_code = formula->f_code ? rt_code_compile(formula->gradient->df, &error) : NULL;
  if (!formula->df_code)
    g_error("eager tape: the gradient formula of %s does not compile: %s",
            ir_kind_name(node->kind), error->message);
  g_hash_table_insert(plan->tape_formulas, key, formula);
  return formula;
}

/* df as the tape runs it: interpreted, GradOf lowered (undefined gradients checked at run
 * time). */
static bool run_df_interpreted(void *ctx, RtValue *stack, guint n, RtValue **results,
                               guint *n_results, GError **error) {
  const TapeFormula *formula = ctx;
  *n_results = rt_code_n_outputs(formula->df_code);
  *results = g_new0(RtValue, *n_results);
  if (rt_code_run(formula->df_code, NULL, stack, n, *results, error))
    return true;
  g_clear_pointer(results, g_free);
  return false;
}

bool exec_eager_tape_record(void *ctx, const IrNode *node, RtValue *inputs, guint n_inputs,
                            RtValue *outputs, guint n_outputs, GError **error) {
  bool tracked = false;
  for (guint i = 0; i < n_inputs; i++)
    tracked |= inputs[i].tag == RT_TENSOR && rt_autograd_tracked(inputs[i].u.tensor);
  if (!tracked || !ad_is_differentiable(node))
    return true;
  bool float_output = false;
  for (guint o = 0; o < n_outputs; o++)
    float_output |= outputs[o].tag == RT_TENSOR && outputs[o].u.tensor &&
                    ir_type_is_float_dtype(outputs[o].u.tensor->dtype);
  if (!float_output)
    return true;

  const TapeFormula *formula = formula_for(ctx, node, inputs, n_inputs);
  const AdGradient *gradient = formula->gradient;
  if (gradient->df_output_vjps->len == 0)
    return true;

  /* f recomputes the temporaries df needs (its real outputs equal the node's outputs). */
  GArray *graph_inputs = graph_inputs_of(node, inputs, n_inputs);
  guint n_f_inputs = graph_inputs->len;
  RtValue *f_inputs = g_new(RtValue, n_f_inputs);
  for (guint i = 0; i < n_f_inputs; i++)
    f_inputs[i] = exec_detached(g_array_index(graph_inputs, RtValue, i));
  RtValue *results = NULL;
  guint n_results = 0;
  bool any_temporary = false;
  for (guint i = 0; i < gradient->df_input_captured_outputs->len; i++)
    any_temporary |= index_at(gradient->df_input_captured_outputs, i) >= n_outputs;
  if (any_temporary) {
    n_results = rt_code_n_outputs(formula->f_code);
    results = g_new0(RtValue, n_results);
  }
  if (any_temporary && !rt_code_run(formula->f_code, NULL, f_inputs, n_f_inputs, results, error)) {
    g_free(results);
    for (guint i = 0; i < n_f_inputs; i++)
      rt_value_unref(f_inputs[i]);
    g_free(f_inputs);
    g_array_free(graph_inputs, TRUE);
    return false;
  }

  /* f's outputs: the node's own real outputs, then the recomputed temporaries. */
  guint n_f_outputs = MAX(n_results, n_outputs);
  RtValue *f_outputs = g_new(RtValue, n_f_outputs);
  for (guint i = 0; i < n_f_outputs; i++)
    f_outputs[i] = i < n_outputs ? outputs[i] : results[i];
  ExecGradientLink link = {
      .gradient = gradient,
      .name = ir_kind_name(node->kind),
      .inputs = (const RtValue *)graph_inputs->data,
      .f_inputs = f_inputs,
      .f_outputs = f_outputs,
      .run_df = run_df_interpreted,
      .run_df_ctx = (void *)formula,
  };
  exec_gradient_link(&link, outputs, n_outputs);
  g_free(f_outputs);

  for (guint i = 0; i < n_results; i++)
    rt_value_unref(results[i]);
  g_free(results);
  for (guint i = 0; i < n_f_inputs; i++)
    rt_value_unref(f_inputs[i]);
  g_free(f_inputs);
  g_array_free(graph_inputs, TRUE);
  return true;
}
