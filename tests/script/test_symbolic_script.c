/* symbolic_script: the bundled formulas compile into forward/backward pairs keyed by schema;
 * the seed's mul_forward splits as seed 003 shows; differentiating with the script formulas
 * gives gradients bit for bit equal to the C formulas' (the LSTM cell, and a chain through
 * every op with a script formula), and so does the executor, which uses the script formulas by
 * default (its backward plan shows symbolic_script.py source ranges). */
#include <string.h>

#include "../autodiff/ad_test_util.h"
#include "exec/executor.h"
#include "ir/ops.h"
#include "ir/text.h"
#include "script/symbolic_script.h"
#include "tensor/tensor.h"

static const char *const covered_ops[] = {"add",  "sub",   "mul", "div", "neg", "sigmoid",
                                          "tanh", "relu",  "exp", "log", "pow", "mm",
                                          "t",    "chunk", "cat", "sum", "mean"};

/* The formula for a node of kind's first overload whose inputs have the schema's types (a
 * Scalar as the float the formulas declare). */
static const AdGraphFormula *lookup_first_overload(IrOpKind kind, const ScriptFormulas *formulas) {
  guint n = 0;
  const IrSchema *schema = ir_ops_overloads(kind, &n)[0];
  IrGraph *graph = ir_graph_new();
  IrNode probe = {.kind = kind, .schema = schema, .inputs = g_ptr_array_new()};
  for (guint a = 0; a < schema->n_args; a++) {
    const IrType *type = schema->args[a].type;
    g_ptr_array_add(probe.inputs, ir_graph_add_input(
                                      graph, type->kind == IR_TYPE_NUMBER ? ir_type_float() : type,
                                      NULL));
  }
  const AdGraphFormula *formula = script_formulas_lookup(&probe, (gpointer)formulas);
  g_ptr_array_unref(probe.inputs);
  ir_graph_free(graph);
  return formula;
}

static void test_builtin_formulas(void) {
  const ScriptFormulas *formulas = script_formulas_builtin();
  g_assert_cmpuint(script_formulas_count(formulas), ==, G_N_ELEMENTS(covered_ops));
  for (guint i = 0; i < G_N_ELEMENTS(covered_ops); i++) {
    g_autofree char *name = g_strdup_printf("aten::%s", covered_ops[i]);
    IrOpKind kind;
    g_assert_true(ir_kind_from_name(name, &kind));
    g_assert_nonnull(lookup_first_overload(kind, formulas));
  }
}

/* pow's formula declares a float exponent: a node with an int one (x.pow(2)) takes the C
 * formula, whose exponent - 1 is an int op (the script's `exponent - 1.0` on an int aborted
 * the verifier after type specialization). */
static void test_formula_parameter_types(void) {
  guint n = 0;
  const IrSchema *schema = ir_ops_overloads(IR_ATEN_POW, &n)[0];
  g_assert_cmpstr(schema->overload, ==, "Tensor_Scalar");
  IrGraph *graph = ir_graph_new();
  IrNode probe = {.kind = IR_ATEN_POW, .schema = schema, .inputs = g_ptr_array_new()};
  g_ptr_array_add(probe.inputs, ir_graph_add_input(graph, ir_type_tensor(), NULL));
  g_ptr_array_add(probe.inputs, ir_graph_add_input(graph, ir_type_int(), NULL));
  g_assert_null(script_formulas_lookup(&probe, (gpointer)script_formulas_builtin()));
  ir_value_set_type(g_ptr_array_index(probe.inputs, 1), ir_type_float());
  g_assert_nonnull(script_formulas_lookup(&probe, (gpointer)script_formulas_builtin()));
  g_ptr_array_unref(probe.inputs);
  ir_graph_free(graph);
}

static guint count_kind(const IrGraph *graph, IrOpKind kind) {
  guint n = 0;
  IR_FOR_EACH_NODE(node, graph->block)
  n += node->kind == kind;
  return n;
}

/* Seed 003's example: the forward returns (self * other, (other, self)) flattened; the
 * backward reads grad_output and the context (other, self). */
static void test_seed_mul_forward(void) {
  const char *text = "def mul(self, other):\n"
                     "    def backward(grad_output):\n"
                     "        grad_self = (grad_output * other)._grad_sum_to_size(self.size())\n"
                     "        grad_other = (grad_output * self)._grad_sum_to_size(other.size())\n"
                     "        return grad_self, grad_other\n"
                     "    return self * other, backward\n";
  g_autoptr(GError) error = NULL;
  ScriptFormulas *formulas = script_formulas_compile(text, strlen(text), "seed.py", &error);
  g_assert_no_error(error);
  g_assert_cmpuint(script_formulas_count(formulas), ==, 1);
  IrOpKind kind;
  g_assert_true(ir_kind_from_name("aten::mul", &kind));
  const AdGraphFormula *pair = lookup_first_overload(kind, formulas);
  g_assert_nonnull(pair);

  GPtrArray *fw_in = ir_graph_inputs(pair->forward), *fw_out = ir_graph_outputs(pair->forward);
  g_assert_cmpuint(fw_out->len, ==, 3);
  g_assert_cmpint(((IrValue *)g_ptr_array_index(fw_out, 0))->node->kind, ==, IR_ATEN_MUL);
  g_assert_true(g_ptr_array_index(fw_out, 1) == g_ptr_array_index(fw_in, 1)); /* other */
  g_assert_true(g_ptr_array_index(fw_out, 2) == g_ptr_array_index(fw_in, 0)); /* self */
  g_assert_cmpuint(count_kind(pair->forward, IR_PRIM_FUNCTION), ==, 0);

  GPtrArray *bw_in = ir_graph_inputs(pair->backward), *bw_out = ir_graph_outputs(pair->backward);
  g_assert_cmpuint(bw_in->len, ==, 3); /* grad_output, other, self */
  g_assert_cmpstr(((IrValue *)g_ptr_array_index(bw_in, 1))->name, ==, "other");
  g_assert_cmpstr(((IrValue *)g_ptr_array_index(bw_in, 2))->name, ==, "self");
  g_assert_cmpuint(bw_out->len, ==, 2);
  for (guint i = 0; i < 2; i++)
    g_assert_cmpint(((IrValue *)g_ptr_array_index(bw_out, i))->node->kind, ==,
                    IR_ATEN_GRAD_SUM_TO_SIZE);
  g_assert_cmpuint(count_kind(pair->backward, IR_ATEN_MUL), ==, 2);
  g_assert_cmpuint(count_kind(pair->backward, IR_ATEN_SIZE), ==, 2);
  script_formulas_free(formulas);
}

/* Input gradients of `text`'s graph from f and df (raw GradOf form) on fixed inputs and
 * output gradients; one tensor per graph input, NULL where none. */
static RtTensor **input_gradients(const char *text, bool script) {
  IrGraph *graph = ad_test_parse(text);
  guint n_in = ir_graph_inputs(graph)->len;
  RtValue *inputs = ad_test_make_inputs(graph, 0.5, 1.5, 3);
  AdGradient *gr = script ? ad_differentiate_with(graph, script_formulas_lookup,
                                                  (gpointer)script_formulas_builtin())
                          : ad_differentiate(graph);
  g_autofree char *df_text = ir_graph_to_string(gr->df);
  g_assert_true((strstr(df_text, "symbolic_script.py:") != NULL) == script);
  guint n_f_out = 0;
  RtValue *f_out = ad_test_run(gr->f, inputs, n_in, &n_f_out);
  guint n_df_in = gr->df_input_vjps->len + gr->df_input_captured_inputs->len +
                  gr->df_input_captured_outputs->len;
  RtValue *df_in = g_new0(RtValue, n_df_in);
  guint k = 0;
  for (guint i = 0; i < gr->df_input_vjps->len; i++) {
    RtTensor *like = f_out[g_array_index(gr->df_input_vjps, guint, i)].u.tensor;
    RtTensor *seed = rt_tensor_new(like->dtype, like->ndim, like->sizes);
    for (int64_t e = 0; e < rt_tensor_numel(seed); e++)
      rt_tensor_set(seed, e, 0.25 + 0.125 * (double)(e % 7) - 0.5 * i);
    df_in[k++] = rt_tensor(seed);
  }
  for (guint i = 0; i < gr->df_input_captured_inputs->len; i++)
    df_in[k++] = rt_value_ref(inputs[g_array_index(gr->df_input_captured_inputs, guint, i)]);
  for (guint i = 0; i < gr->df_input_captured_outputs->len; i++)
    df_in[k++] = rt_value_ref(f_out[g_array_index(gr->df_input_captured_outputs, guint, i)]);
  guint n_df_out = 0;
  RtValue *df_out = ad_test_run(gr->df, df_in, n_df_in, &n_df_out);
  RtTensor **grads = g_new0(RtTensor *, n_in);
  for (guint j = 0; j < n_df_out; j++)
    grads[g_array_index(gr->df_output_vjps, guint, j)] = rt_tensor_ref(df_out[j].u.tensor);
  for (guint i = 0; i < n_df_out; i++)
    rt_value_unref(df_out[i]);
  for (guint i = 0; i < n_df_in; i++)
    rt_value_unref(df_in[i]);
  for (guint i = 0; i < n_f_out; i++)
    rt_value_unref(f_out[i]);
  for (guint i = 0; i < n_in; i++)
    rt_value_unref(inputs[i]);
  g_free(df_out);
  g_free(df_in);
  g_free(f_out);
  g_free(inputs);
  ad_gradient_free(gr);
  return grads;
}

static void assert_same_gradients(const char *text, guint n_inputs) {
  RtTensor **c = input_gradients(text, false), **script = input_gradients(text, true);
  for (guint i = 0; i < n_inputs; i++) {
    g_assert_nonnull(c[i]);
    g_assert_nonnull(script[i]);
    g_assert_cmpint(rt_tensor_numel(c[i]), ==, rt_tensor_numel(script[i]));
    for (int64_t e = 0; e < rt_tensor_numel(c[i]); e++)
      g_assert_true(rt_tensor_get(c[i], e) == rt_tensor_get(script[i], e));
    rt_tensor_unref(c[i]);
    rt_tensor_unref(script[i]);
  }
  g_free(c);
  g_free(script);
}

/* The corpus LSTM cell after canonicalization (chunk as prim::ConstantChunk, whose formula
 * stays in C); t, mm, add, sigmoid, tanh and mul come from script. */
static const char lstm_cell_text[] =
    "graph(%x : Double(3, 4, requires_grad=1), %hx : Double(3, 5, requires_grad=1),\n"
    "      %cx : Double(3, 5, requires_grad=1), %w_ih : Double(20, 4, requires_grad=1),\n"
    "      %w_hh : Double(20, 5, requires_grad=1), %b_ih : Double(20, requires_grad=1),\n"
    "      %b_hh : Double(20, requires_grad=1)):\n"
    "  %one : int = prim::Constant[value=1]()\n"
    "  %9 : Tensor = aten::t(%w_ih)\n"
    "  %10 : Tensor = aten::mm(%x, %9)\n"
    "  %13 : Tensor = aten::t(%w_hh)\n"
    "  %14 : Tensor = aten::mm(%hx, %13)\n"
    "  %16 : Tensor = aten::add(%10, %14, %one)\n"
    "  %19 : Tensor = aten::add(%16, %b_ih, %one)\n"
    "  %gates : Tensor = aten::add(%19, %b_hh, %one)\n"
    "  %i : Tensor, %f : Tensor, %c : Tensor, %o : Tensor = "
    "prim::ConstantChunk[chunks=4, dim=1](%gates)\n"
    "  %i2 : Tensor = aten::sigmoid(%i)\n"
    "  %f2 : Tensor = aten::sigmoid(%f)\n"
    "  %c2 : Tensor = aten::tanh(%c)\n"
    "  %o2 : Tensor = aten::sigmoid(%o)\n"
    "  %41 : Tensor = aten::mul(%f2, %cx)\n"
    "  %44 : Tensor = aten::mul(%i2, %c2)\n"
    "  %cy : Tensor = aten::add(%41, %44, %one)\n"
    "  %49 : Tensor = aten::tanh(%cy)\n"
    "  %hy : Tensor = aten::mul(%o2, %49)\n"
    "  return (%hy, %cy)\n";

static void test_lstm_cell_backward(void) {
  assert_same_gradients(lstm_cell_text, 7);
}

/* cat of a list built in the graph, one tensor twice, followed by a chunk: the Tensor[]
 * gradient (split_with_sizes) reaches each tensor through the list's prim::ListConstruct. */
static const char cat_text[] =
    "graph(%a : Double(3, 4, requires_grad=1), %b : Double(3, 2, requires_grad=1)):\n"
    "  %one : int = prim::Constant[value=1]()\n"
    "  %t : Tensor = aten::tanh(%b)\n"
    "  %l : Tensor[] = prim::ListConstruct(%a, %t, %a)\n"
    "  %c : Tensor = aten::cat(%l, %one)\n"
    "  %p : Tensor, %q : Tensor = prim::ConstantChunk[chunks=2, dim=1](%c)\n"
    "  %r : Tensor = aten::mul(%p, %q)\n"
    "  return (%r, %c)\n";

static void test_cat_backward(void) {
  assert_same_gradients(cat_text, 2);
}

/* One chain through every op with a script formula, broadcasting included. */
static void test_every_formula(void) {
  assert_same_gradients(
      "graph(%a : Double(3, 4, requires_grad=1), %b : Double(4, requires_grad=1),\n"
      "      %m : Double(4, 2, requires_grad=1)):\n"
      "  %one : int = prim::Constant[value=1]()\n"
      "  %two : int = prim::Constant[value=2]()\n"
      "  %e : float = prim::Constant[value=2.5]()\n"
      "  %none : NoneType = prim::Constant()\n"
      "  %s1 : Tensor = aten::add(%a, %b, %two)\n"
      "  %s2 : Tensor = aten::sub(%s1, %b, %one)\n"
      "  %s3 : Tensor = aten::mul(%s2, %b)\n"
      "  %s4 : Tensor = aten::div(%s3, %b)\n"
      "  %s5 : Tensor = aten::neg(%s4)\n"
      "  %s6 : Tensor = aten::sigmoid(%s5)\n"
      "  %s7 : Tensor = aten::tanh(%s6)\n"
      "  %s8 : Tensor = aten::relu(%s7)\n"
      "  %s9 : Tensor = aten::exp(%s8)\n"
      "  %s10 : Tensor = aten::log(%s9)\n"
      "  %s11 : Tensor = aten::pow(%s10, %e)\n"
      "  %s12 : Tensor = aten::mm(%s11, %m)\n"
      "  %s13 : Tensor = aten::t(%s12)\n"
      "  %s14 : Tensor = aten::sum(%s13, %none)\n"
      "  %s15 : Tensor = aten::mean(%s13, %none)\n"
      "  return (%s14, %s13, %s15)\n",
      3);
}

/* Does a line of `ir` hold both needles? */
static bool line_with(const char *ir, const char *a, const char *b) {
  g_auto(GStrv) lines = g_strsplit(ir, "\n", -1);
  for (guint i = 0; lines[i]; i++)
    if (strstr(lines[i], a) && strstr(lines[i], b))
      return true;
  return false;
}

/* The executor's forward and backward of `text` (two outputs), with the script formulas or
 * the C ones. script_ranges: whether a plan has an aten::cat from symbolic_script.py. */
static void executor_run(const char *text, bool script, RtValue **outputs, RtTensor **grads,
                         bool *script_ranges) {
  IrGraph *graph = ad_test_parse(text);
  guint n_in = ir_graph_inputs(graph)->len;
  RtValue *inputs = ad_test_make_inputs(graph, -1.0, 1.0, 5);
  RtTensor *in_tensors[8];
  for (guint i = 0; i < n_in; i++) {
    in_tensors[i] = inputs[i].u.tensor;
    in_tensors[i]->requires_grad = true;
  }
  ExecSession *session = exec_session_new();
  session->script_formulas = script;
  ExecExecutor *executor = exec_executor_new(session, graph, "main", EXEC_PLAN_FORWARD);
  g_autoptr(GError) error = NULL;
  guint n_out = 0;
  g_assert_true(exec_executor_run(executor, inputs, n_in, outputs, &n_out, &error));
  g_assert_no_error(error);
  g_assert_cmpuint(n_out, ==, 2);
  RtTensor *outs[2] = {(*outputs)[0].u.tensor, (*outputs)[1].u.tensor};
  g_assert_true(exec_session_backward(session, outs, NULL, 2, in_tensors, n_in, grads, &error));
  g_assert_no_error(error);
  *script_ranges = false;
  for (guint p = 0; p < session->plans->len; p++) {
    const ExecPlan *plan = g_ptr_array_index(session->plans, p);
    for (guint s = 0; s < plan->stages->len; s++) {
      const ExecStage *stage = g_ptr_array_index(plan->stages, s);
      *script_ranges |= strstr(stage->ir, "symbolic_script.py:") != NULL &&
                        line_with(stage->ir, "aten::cat(", "symbolic_script.py:");
    }
  }
  exec_session_free(session);
  for (guint i = 0; i < n_in; i++)
    rt_value_unref(inputs[i]);
  g_free(inputs);
  ir_graph_free(graph);
}

static void assert_bitwise_equal(const RtTensor *a, const RtTensor *b) {
  g_assert_nonnull(a);
  g_assert_nonnull(b);
  g_assert_cmpint(rt_tensor_numel(a), ==, rt_tensor_numel(b));
  for (int64_t e = 0; e < rt_tensor_numel(a); e++)
    g_assert_true(rt_tensor_get(a, e) == rt_tensor_get(b, e));
}

/* Outputs and gradients bit for bit equal with either formulas; only the script run's plans
 * carry symbolic_script.py source ranges, a cat's among them (the LSTM cell's ConstantChunk
 * gradient; cat_text's cat, differentiated inside a DifferentiableGraph). */
static void assert_executor_uses_script_formulas(const char *text) {
  RtValue *c_out = NULL, *script_out = NULL;
  RtTensor *c_grads[8] = {NULL}, *script_grads[8] = {NULL};
  bool c_ranges, script_ranges;
  executor_run(text, false, &c_out, c_grads, &c_ranges);
  executor_run(text, true, &script_out, script_grads, &script_ranges);
  g_assert_false(c_ranges);
  g_assert_true(script_ranges);
  for (guint o = 0; o < 2; o++) {
    assert_bitwise_equal(c_out[o].u.tensor, script_out[o].u.tensor);
    rt_value_unref(c_out[o]);
    rt_value_unref(script_out[o]);
  }
  g_free(c_out);
  g_free(script_out);
  for (guint i = 0; i < 8; i++) {
    if (!c_grads[i] && !script_grads[i])
      continue;
    assert_bitwise_equal(c_grads[i], script_grads[i]);
    rt_tensor_unref(c_grads[i]);
    rt_tensor_unref(script_grads[i]);
  }
}

static void test_executor_uses_script_formulas(void) {
  assert_executor_uses_script_formulas(lstm_cell_text);
}

static void test_executor_cat(void) {
  assert_executor_uses_script_formulas(cat_text);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/script/symbolic/builtin", test_builtin_formulas);
  g_test_add_func("/script/symbolic/parameter-types", test_formula_parameter_types);
  g_test_add_func("/script/symbolic/seed-mul-forward", test_seed_mul_forward);
  g_test_add_func("/script/symbolic/lstm-cell-backward", test_lstm_cell_backward);
  g_test_add_func("/script/symbolic/every-formula", test_every_formula);
  g_test_add_func("/script/symbolic/cat-backward", test_cat_backward);
  g_test_add_func("/script/symbolic/executor-uses-script-formulas",
                  test_executor_uses_script_formulas);
  g_test_add_func("/script/symbolic/executor-cat", test_executor_cat);
  return g_test_run();
}
