/* `check` and the stage records on the corpus LSTM cell: the stages list the pipeline's
 * passes in order with changed flags, check passes, and a wrong rewrite
 * planted after one pass (test-only, through the session's stage hook) is named by check.
 * A wrong result that only a fused backend computes (a planted backend) is named at
 * fuse_graph: check re-runs fusion groups through the fuser's backends. */
#include <glib/gstdio.h>
#include <string.h>

#include "check.h"
#include "exec/pipeline.h"
#include "fuser/fuser.h"
#include "graph_file.h"
#include "ir/text.h"
#include "jitscope-config.h"
#include "passes/module_lowering.h"
#include "program_run.h"

/* The bundled example: the corpus LSTM cell as PyTorch printed it. */
static IrGraph *load_lstm(void) {
  char *path = g_build_filename(JITSCOPE_SOURCE_DIR, "resources", "examples", "lstm_cell.ir", NULL);
  GError *error = NULL;
  IrGraph *graph = app_graph_file_load(path, (AppProgramChoice){0}, NULL, &error);
  g_assert_no_error(error);
  g_free(path);
  return graph;
}

static AppInputs *lstm_inputs(const IrGraph *graph) {
  char *const specs[] = {
      "Float(3, 10)",
      "Float(3, 20)",
      "Float(3, 20)",
      "Float(80, 10, requires_grad=1)",
      "Float(80, 20, requires_grad=1)",
      "Float(80, requires_grad=1)",
      "Float(80, requires_grad=1)",
  };
  GError *error = NULL;
  AppInputs *inputs = app_inputs_bind(graph, specs, G_N_ELEMENTS(specs), 7, &error);
  g_assert_no_error(error);
  return inputs;
}

static void test_lstm_stages_in_order(void) {
  IrGraph *graph = load_lstm();
  AppInputs *inputs = lstm_inputs(graph);
  ExecSession *session = exec_session_new();
  session->verify = true;
  ExecExecutor *executor = exec_executor_new(session, graph, "main", EXEC_PLAN_FORWARD);
  GError *error = NULL;
  AppProgramRun *run = app_program_run(executor, inputs, NULL, 0, &error);
  g_assert_no_error(error);
  g_assert_true(run->ran_backward);

  /* One forward plan, one backward plan (its DifferentiableGraph's df). */
  g_assert_cmpuint(session->plans->len, ==, 2);
  ExecPlan *forward = g_ptr_array_index(session->plans, 0);
  ExecPlan *backward = g_ptr_array_index(session->plans, 1);
  g_assert_cmpint(forward->kind, ==, EXEC_PLAN_FORWARD);
  g_assert_cmpint(backward->kind, ==, EXEC_PLAN_BACKWARD);
  g_assert_cmpstr(backward->graph_name, ==, "main/DifferentiableGraph_0/backward");

  /* The forward plan's stage names follow the table: every stage of the table that applies
   * with gradients, runOptimization after propagate_requires_grad, the differentiate stage's
   * own records in between. Check the order of the table's names among them. */
  guint n_table = 0;
  const ExecStageDef *table = exec_pipeline_stages(&n_table);
  guint at = 0;
  for (guint t = 0; t < n_table; t++) {
    if (table[t].when == EXEC_WHEN_NO_GRAD)
      continue;
    while (at < forward->stages->len &&
           strcmp(((ExecStage *)g_ptr_array_index(forward->stages, at))->name, table[t].name))
      at++;
    g_assert_cmpuint(at, <, forward->stages->len);
  }
  /* What must have changed the LSTM cell: chunk canonicalized, types propagated, groups made. */
  const char *must_change[] = {"specialize_input_types", "canonicalize_ops",
                               "propagate_input_shapes", "create_autodiff_subgraphs"};
  for (guint m = 0; m < G_N_ELEMENTS(must_change); m++) {
    bool found = false;
    for (guint s = 0; s < forward->stages->len; s++) {
      ExecStage *stage = g_ptr_array_index(forward->stages, s);
      if (!strcmp(stage->name, must_change[m])) {
        g_assert_true(stage->changed);
        found = true;
        break;
      }
    }
    g_assert_true(found);
  }
  /* A changed flag is exactly "the text differs from the previous stage's". */
  for (guint s = 1; s < forward->stages->len; s++) {
    ExecStage *prev = g_ptr_array_index(forward->stages, s - 1);
    ExecStage *stage = g_ptr_array_index(forward->stages, s);
    g_assert_cmpint(stage->changed, ==, strcmp(prev->ir, stage->ir) != 0);
  }
  ExecStage *last = g_ptr_array_index(forward->stages, forward->stages->len - 1);
  g_assert_nonnull(strstr(last->ir, "prim::DifferentiableGraph_0"));
  g_assert_nonnull(strstr(last->ir, "with prim::DifferentiableGraph_0 = graph("));
  g_assert_nonnull(strstr(last->ir, "prim::ConstantChunk[chunks=4, dim=1]"));

  app_program_run_free(run);
  exec_session_free(session);
  app_inputs_free(inputs);
  ir_graph_free(graph);
}

static void test_check_passes_on_lstm(void) {
  IrGraph *graph = load_lstm();
  AppInputs *inputs = lstm_inputs(graph);
  GError *error = NULL;
  AppCheckReport *report = app_check_run(graph, inputs, NULL, NULL, &error);
  g_assert_no_error(error);
  g_assert_true(report->ok);
  g_assert_null(report->first_bad_stage);
  g_assert_cmpfloat(report->optimized_vs_unoptimized, <=, 1e-4);
  g_assert_cmpfloat(report->gradient_vs_finite_diff, <=, 1e-5);
  g_assert_cmpuint(report->finite_diff_elements, >, 0);
  app_check_report_free(report);
  app_inputs_free(inputs);
  ir_graph_free(graph);
}

static AppCheckReport *check_text(const char *text, char *const *specs, guint n_specs) {
  GError *error = NULL;
  IrGraph *graph = ir_graph_parse(text, strlen(text), "t.ir", &error);
  g_assert_no_error(error);
  AppInputs *inputs = app_inputs_bind(graph, specs, n_specs, 3, &error);
  g_assert_no_error(error);
  AppCheckReport *report = app_check_run(graph, inputs, NULL, NULL, &error);
  g_assert_no_error(error);
  app_inputs_free(inputs);
  ir_graph_free(graph);
  return report;
}

/* Finite differences of the outputs' sum carry its rounding over the step: outputs that are
 * large and cancel (1e10 x and -1e10 x + 2 x: the sum's gradient is 2, its rounding far more)
 * pass, their difference from autodiff said to be within that rounding. A gradient that is
 * wrong (detach cuts y's, which the outputs depend on) still fails, however small the
 * outputs. */
static void test_check_finite_differences_rounding(void) {
  char *const specs[] = {"Double(64, requires_grad=1)", "Double(64, requires_grad=1)"};
  AppCheckReport *report =
      check_text("graph(%x : Double(64), %y : Double(64)):\n"
                 "  %big : float = prim::Constant[value=10000000000.]()\n"
                 "  %two : float = prim::Constant[value=2.]()\n"
                 "  %one : int = prim::Constant[value=1]()\n"
                 "  %a : Tensor = aten::mul(%x, %big)\n"
                 "  %n : Tensor = aten::neg(%a)\n"
                 "  %t : Tensor = aten::mul(%x, %two)\n"
                 "  %b : Tensor = aten::add(%n, %t, %one)\n"
                 "  %c : Tensor = aten::mul(%y, %two)\n"
                 "  return (%a, %b, %c)\n",
                 specs, 2);
  g_assert_true(report->ok);
  g_assert_cmpfloat(report->gradient_vs_finite_diff, >, 1e-5);
  g_assert_nonnull(strstr(report->log->str, "gradient of input 1 vs finite differences: "));
  g_assert_nonnull(strstr(report->log->str, "(within the finite differences' rounding)"));
  app_check_report_free(report);
  report = check_text("graph(%x : Double(64), %y : Double(64)):\n"
                      "  %d : Tensor = aten::detach(%y)\n"
                      "  %p : Tensor = aten::mul(%x, %d)\n"
                      "  return (%p)\n",
                      specs, 2);
  g_assert_false(report->ok);
  g_assert_cmpfloat(report->finite_diff_excess, >, 1);
  app_check_report_free(report);
}

/* mask.to(x) * x, the mask needing no gradient: the gradient the product gives the cast's
 * output has no reader once the cast's own (for the mask) is dropped, and differentiate must
 * forget it (it aborted: the lifted backward read the erased GradOf output). */
static void test_check_cast_to_other_without_gradient(void) {
  char *const specs[] = {"Float(3, 4, requires_grad=1)", "Float(3, 4)"};
  AppCheckReport *report = check_text("graph(%x : Float(3, 4), %m : Float(3, 4)):\n"
                                      "  %f : bool = prim::Constant[value=0]()\n"
                                      "  %n : NoneType = prim::Constant()\n"
                                      "  %mm : Tensor = aten::to(%m, %x, %f, %f, %n)\n"
                                      "  %y : Tensor = aten::mul(%mm, %x)\n"
                                      "  return (%y)\n",
                                      specs, 2);
  g_assert_true(report->ok);
  g_assert_cmpfloat(report->gradient_vs_finite_diff, <=, 1e-6);
  app_check_report_free(report);
}

/* aten::pad in modes reflect, replicate and circular with pad lists built by ListConstruct:
 * the unoptimized run's eager tape builds each gradient in a graph of its own, where the
 * circular formula still finds its constant pads (it crashed reading the list there). */
static void test_check_passes_on_pad_modes(void) {
  char *const specs[] = {"Double(1, 2, 3, 4, requires_grad=1)"};
  AppCheckReport *report =
      check_text("graph(%x : Tensor):\n"
                 "  %n : NoneType = prim::Constant()\n"
                 "  %m1 : int = prim::Constant[value=-1]()\n"
                 "  %one : int = prim::Constant[value=1]()\n"
                 "  %two : int = prim::Constant[value=2]()\n"
                 "  %three : int = prim::Constant[value=3]()\n"
                 "  %c : str = prim::Constant[value=\"circular\"]()\n"
                 "  %r : str = prim::Constant[value=\"reflect\"]()\n"
                 "  %p : str = prim::Constant[value=\"replicate\"]()\n"
                 "  %l1 : int[] = prim::ListConstruct(%three, %m1, %two, %one)\n"
                 "  %a : Tensor = aten::pad(%x, %l1, %c, %n)\n"
                 "  %l2 : int[] = prim::ListConstruct(%two, %one, %one, %two)\n"
                 "  %b : Tensor = aten::pad(%x, %l2, %r, %n)\n"
                 "  %d : Tensor = aten::pad(%x, %l2, %p, %n)\n"
                 "  %e : Tensor = aten::mul(%b, %d)\n"
                 "  %f : Tensor = aten::mul(%a, %a)\n"
                 "  return (%e, %f)\n",
                 specs, 1);
  g_assert_true(report->ok);
  g_assert_cmpfloat(report->gradient_vs_finite_diff, <=, 1e-6);
  app_check_report_free(report);
}

/* torch.norm from source: its definitions inline to norms with constant dims, which the
 * unoptimized run's eager tape can differentiate (it has no constant propagation). */
static void test_check_passes_on_torch_norm(void) {
  static const char source[] =
      "import torch\n"
      "def f(x, z):\n"
      "    a = torch.norm(x, dim=(0, 1)) + torch.norm(x, 'fro', 1).sum() + torch.norm(x)\n"
      "    b = torch.norm(z, dim=(-1, 0), keepdim=True) * torch.norm(x, None, -1, True)\n"
      "    return a + b.sum() + torch.norm(x, 1, 1).sum() + torch.norm(x, 2.5, [0, 1])\n";
  GError *error = NULL;
  g_autofree char *dir = g_dir_make_tmp("jitscope-check-XXXXXX", &error);
  g_assert_no_error(error);
  g_autofree char *path = g_build_filename(dir, "norms.py", NULL);
  g_assert_true(g_file_set_contents(path, source, -1, &error));
  IrGraph *graph = app_graph_file_load(path, (AppProgramChoice){0}, NULL, &error);
  g_assert_no_error(error);
  guint inlined = 0;
  pass_inline_calls(graph, &inlined); /* as the command line does before a run */
  g_assert_cmpuint(inlined, ==, 7);
  char *const specs[] = {"Double(3, 4, requires_grad=1)", "Double(2, 3, requires_grad=1)"};
  AppInputs *inputs = app_inputs_bind(graph, specs, 2, 3, &error);
  g_assert_no_error(error);
  AppCheckReport *report = app_check_run(graph, inputs, NULL, NULL, &error);
  g_assert_no_error(error);
  g_assert_true(report->ok);
  g_assert_cmpfloat(report->gradient_vs_finite_diff, <=, 1e-6);
  app_check_report_free(report);
  app_inputs_free(inputs);
  ir_graph_free(graph);
  g_assert_cmpint(g_remove(path), ==, 0);
  g_assert_cmpint(g_rmdir(dir), ==, 0);
}

/* Random ops: every run draws from the generator seeded with the inputs' seed, and each
 * stage re-runs from the state its plan's run began with, so the stages agree (dropout,
 * rand_like, randn_like without gradients), and finite differences see the same draws in
 * every run (rand_like, randn_like with one). */
static void test_check_passes_with_random_ops(void) {
  static const char text[] = "graph(%x : Tensor):\n"
                             "  %p : float = prim::Constant[value=0.25]()\n"
                             "  %t : bool = prim::Constant[value=1]()\n"
                             "  %n : NoneType = prim::Constant()\n"
                             "  %one : int = prim::Constant[value=1]()\n"
                             "  %1 : Tensor = aten::tanh(%x)\n"
                             "  %2 : Tensor = aten::dropout(%1, %p, %t)\n"
                             "  %3 : Tensor = aten::rand_like(%x, %n, %n, %n, %n, %n)\n"
                             "  %4 : Tensor = aten::mul(%2, %3)\n"
                             "  %5 : Tensor = aten::randn_like(%x, %n, %n, %n, %n, %n)\n"
                             "  %6 : Tensor = aten::add(%4, %5, %one)\n"
                             "  return (%6)\n";
  static const char grad_text[] = "graph(%x : Tensor):\n"
                                  "  %n : NoneType = prim::Constant()\n"
                                  "  %one : int = prim::Constant[value=1]()\n"
                                  "  %1 : Tensor = aten::tanh(%x)\n"
                                  "  %3 : Tensor = aten::rand_like(%x, %n, %n, %n, %n, %n)\n"
                                  "  %4 : Tensor = aten::mul(%1, %3)\n"
                                  "  %5 : Tensor = aten::randn_like(%x, %n, %n, %n, %n, %n)\n"
                                  "  %6 : Tensor = aten::mul(%4, %5)\n"
                                  "  return (%6)\n";
  const struct {
    const char *text, *spec;
  } cases[] = {{text, "Float(5, 7)"}, {grad_text, "Float(5, 7, requires_grad=1)"}};
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    GError *error = NULL;
    IrGraph *graph = ir_graph_parse(cases[i].text, strlen(cases[i].text), "random.ir", &error);
    g_assert_no_error(error);
    char *const specs[] = {(char *)cases[i].spec};
    AppInputs *inputs = app_inputs_bind(graph, specs, 1, 3, &error);
    g_assert_no_error(error);
    AppCheckReport *report = app_check_run(graph, inputs, NULL, NULL, &error);
    g_assert_no_error(error);
    g_assert_true(report->ok);
    g_assert_null(report->first_bad_stage);
    g_assert_cmpfloat(report->optimized_vs_unoptimized, <=, 1e-6);
    app_check_report_free(report);
    app_inputs_free(inputs);
    ir_graph_free(graph);
  }
}

/* The planted fault: right after the forward plan's peephole, every aten::sigmoid becomes
 * aten::tanh. */
static void plant_sigmoid_to_tanh(ExecPlan *plan, const char *stage, IrGraph *graph, void *data) {
  if (plan->kind != EXEC_PLAN_FORWARD || strcmp(stage, (const char *)data) != 0)
    return;
  IR_FOR_EACH_NODE(node, graph->block) {
    if (node->kind != IR_ATEN_SIGMOID)
      continue;
    node->kind = IR_ATEN_TANH;
    g_assert_nonnull(ir_node_resolve_schema(node));
  }
}

static void test_check_names_the_faulty_stage(void) {
  IrGraph *graph = load_lstm();
  AppInputs *inputs = lstm_inputs(graph);
  GError *error = NULL;
  AppCheckReport *report =
      app_check_run(graph, inputs, plant_sigmoid_to_tanh, (void *)"peephole", &error);
  g_assert_no_error(error);
  g_assert_false(report->ok);
  g_assert_cmpfloat(report->optimized_vs_unoptimized, >, 1e-2);
  g_assert_nonnull(report->first_bad_stage);
  g_assert_true(g_str_has_suffix(report->first_bad_stage, " peephole"));
  g_assert_true(g_str_has_prefix(report->first_bad_stage, "plan 0 (forward main)"));
  app_check_report_free(report);
  app_inputs_free(inputs);
  ir_graph_free(graph);
}

/* A fused backend with a wrong scalar meaning, planted for one test: it runs the CPU fused
 * loop, then adds 1 to the first element of the group's first output. While `planting` is
 * off it declines every group, so the other tests see the real backends. */
static gboolean planting;

static bool planted_can_run(const FuserBackend *backend, const IrNode *group, const RtValue *inputs,
                            guint n_inputs, char **why) {
  if (!planting)
    *why = g_strdup("planted: off");
  return planting;
}

static bool planted_run(const FuserBackend *backend, FuserPlanState *state, const IrNode *group,
                        RtValue *inputs, guint n_inputs, RtValue *outputs, guint n_outputs,
                        GError **error) {
  const FuserBackend *loop = fuser_cpu_backend();
  if (!loop->run(loop, state, group, inputs, n_inputs, outputs, n_outputs, error))
    return false;
  RtTensor *first = outputs[0].u.tensor;
  rt_tensor_set(first, 0, rt_tensor_get(first, 0) + 1);
  return true;
}

static const FuserBackend planted_backend = {
    .name = "planted", .can_run = planted_can_run, .run = planted_run};

static void test_check_names_fuse_graph_for_a_fused_backend_fault(void) {
  static const char program[] = "graph(%x : Float(4, 4), %y : Float(4, 4)):\n"
                                "  %one : int = prim::Constant[value=1]()\n"
                                "  %z : Float(4, 4) = aten::mul(%x, %y)\n"
                                "  %w : Float(4, 4) = aten::add(%z, %x, %one)\n"
                                "  %v : Float(4, 4) = aten::sigmoid(%w)\n"
                                "  return (%v)\n";
  GError *error = NULL;
  IrGraph *graph = ir_graph_parse(program, strlen(program), "planted.ir", &error);
  g_assert_no_error(error);
  char *const specs[] = {"Float(4, 4)", "Float(4, 4)"};
  AppInputs *inputs = app_inputs_bind(graph, specs, G_N_ELEMENTS(specs), 3, &error);
  g_assert_no_error(error);

  fuser_register_backend(&planted_backend);
  planting = TRUE;
  AppCheckReport *report = app_check_run(graph, inputs, NULL, NULL, &error);
  planting = FALSE;
  g_assert_no_error(error);
  g_assert_false(report->ok);
  g_assert_cmpstr(report->first_bad_stage, ==, "plan 0 (forward main) stage 21 fuse_graph");
  g_assert_nonnull(strstr(report->log->str, "fuse_graph: FusionGroup_0 on planted"));
  app_check_report_free(report);

  /* The same program with the backend declining: the real backends agree. */
  report = app_check_run(graph, inputs, NULL, NULL, &error);
  g_assert_no_error(error);
  g_assert_true(report->ok);
  g_assert_null(report->first_bad_stage);
  g_assert_null(strstr(report->log->str, "on planted"));
  app_check_report_free(report);
  app_inputs_free(inputs);
  ir_graph_free(graph);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/check/lstm-stages-in-order", test_lstm_stages_in_order);
  g_test_add_func("/check/passes-on-lstm", test_check_passes_on_lstm);
  g_test_add_func("/check/finite-differences-rounding", test_check_finite_differences_rounding);
  g_test_add_func("/check/cast-to-other-without-gradient", test_check_cast_to_other_without_gradient);
  g_test_add_func("/check/passes-with-random-ops", test_check_passes_with_random_ops);
  g_test_add_func("/check/passes-on-pad-modes", test_check_passes_on_pad_modes);
  g_test_add_func("/check/passes-on-torch-norm", test_check_passes_on_torch_norm);
  g_test_add_func("/check/names-faulty-stage", test_check_names_the_faulty_stage);
  g_test_add_func("/check/names-fuse-graph-for-a-fused-backend-fault",
                  test_check_names_fuse_graph_for_a_fused_backend_fault);
  return g_test_run();
}
