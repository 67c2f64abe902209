/* The workbench model: program text and parse errors, spec lines, synchronous and threaded
 * runs over the LSTM and broadcast examples, per-spec failures. */
#include <string.h>

#include "cuda/cuda_loader.h"
#include "workspace.h"

static char *example(const char *name) {
  return g_build_filename(g_getenv("JITSCOPE_SOURCE_DIR"), "resources", "examples", name, NULL);
}

static AppWorkspace *load(const char *name) {
  AppWorkspace *ws = app_workspace_new();
  char *path = example(name);
  GError *error = NULL;
  g_assert_true(app_workspace_load_file(ws, path, &error));
  g_assert_no_error(error);
  g_assert_nonnull(app_workspace_graph(ws));
  g_free(path);
  return ws;
}

static void test_parse_error_location(void) {
  AppWorkspace *ws = app_workspace_new();
  g_assert_false(app_workspace_set_text(
      ws, "graph(%x : Tensor):\n  %y : Tensor = aten::neg(%q)\n  return (%y)\n", "bad.ir"));
  int line = 0, col = 0;
  const GError *error = app_workspace_parse_error(ws, &line, &col);
  g_assert_nonnull(error);
  g_assert_cmpint(line, ==, 2);
  g_assert_cmpint(col, >, 0);
  g_assert_null(app_workspace_graph(ws));
  g_assert_true(g_str_has_prefix(app_workspace_text(ws), "graph("));
  /* A run without a program says why. */
  const char *spec = "Float(2)";
  app_workspace_set_specs(ws, (char *const *)&spec, 1);
  GError *run_error = NULL;
  g_assert_null(app_workspace_run_sync(ws, &run_error));
  g_assert_error(run_error, APP_WORKSPACE_ERROR, APP_WORKSPACE_ERROR_NO_PROGRAM);
  g_error_free(run_error);
  /* Fixing the text clears the error. */
  g_assert_true(app_workspace_set_text(ws, "graph(%x : Tensor):\n  return (%x)\n", NULL));
  g_assert_null(app_workspace_parse_error(ws, &line, &col));
  g_assert_cmpint(line, ==, 0);
  app_workspace_free(ws);
}

/* A .py program calling F.cross_entropy (a prim::CallFunction, as PyTorch compiles it) runs
 * in the window as from the command line: the call is inlined from its definition. */
static void test_functional_call_runs(void) {
  AppWorkspace *ws = app_workspace_new();
  g_assert_true(app_workspace_set_text(
      ws, "def f(x, t):\n    return F.cross_entropy(x, t.clamp(0, 2))\n", "loss.py"));
  const char *spec = "Float(4, 3, requires_grad=1); Long(4)";
  app_workspace_set_specs(ws, (char *const *)&spec, 1);
  GError *error = NULL;
  const AppWorkspaceRun *run = app_workspace_run_sync(ws, &error);
  g_assert_no_error(error);
  g_assert_nonnull(run);
  const AppWorkspaceSpecResult *r = g_ptr_array_index(run->specs, 0);
  if (r->error)
    g_error("%s", r->error);
  g_assert_cmpuint(run->n_failed, ==, 0);
  g_assert_nonnull(r->forward);
  g_assert_nonnull(r->grads_text); /* x requires grad: the backward ran through the loss */
  app_workspace_free(ws);
}

/* A module graph (nn.Sequential of Linear, ReLU, LayerNorm printed by PyTorch) runs in the
 * window as from the command line: its parameters are inputs after `input`, in the order
 * they are read. */
static void test_module_graph_runs(void) {
  g_autofree char *path = g_build_filename(g_getenv("JITSCOPE_SOURCE_DIR"), "tests", "cli", "data",
                                           "seq_layernorm", "graph.ir", NULL);
  AppWorkspace *ws = app_workspace_new();
  GError *error = NULL;
  g_assert_true(app_workspace_load_file(ws, path, &error));
  g_assert_no_error(error);
  const IrGraph *graph = app_workspace_graph(ws);
  g_assert_nonnull(graph);
  GPtrArray *inputs = ir_graph_inputs(graph);
  static const char *const names[] = {"input.1", "self.0.weight", "self.0.bias", "self.2.weight",
                                      "self.2.bias"};
  g_assert_cmpuint(inputs->len, ==, G_N_ELEMENTS(names));
  for (guint i = 0; i < inputs->len; i++)
    g_assert_cmpstr(((IrValue *)g_ptr_array_index(inputs, i))->name, ==, names[i]);
  const char *spec = "Float(3, 4); Float(8, 4, requires_grad=1); Float(8); Float(8); Float(8)";
  app_workspace_set_specs(ws, (char *const *)&spec, 1);
  const AppWorkspaceRun *run = app_workspace_run_sync(ws, &error);
  g_assert_no_error(error);
  const AppWorkspaceSpecResult *r = g_ptr_array_index(run->specs, 0);
  if (r->error)
    g_error("%s", r->error);
  g_assert_nonnull(r->grads_text); /* the weight requires grad: the backward ran */
  app_workspace_free(ws);
}

static void test_split_spec_line(void) {
  GPtrArray *parts =
      app_workspace_split_spec_line(" Float(5, 1, requires_grad=1) ;Float(5, 5);; none ");
  g_assert_cmpuint(parts->len, ==, 3);
  g_assert_cmpstr(g_ptr_array_index(parts, 0), ==, "Float(5, 1, requires_grad=1)");
  g_assert_cmpstr(g_ptr_array_index(parts, 1), ==, "Float(5, 5)");
  g_assert_cmpstr(g_ptr_array_index(parts, 2), ==, "none");
  g_ptr_array_unref(parts);
}

static const char *lstm_spec =
    "Float(3, 10); Float(3, 20); Float(3, 20); Float(80, 10, requires_grad=1); "
    "Float(80, 20, requires_grad=1); Float(80, requires_grad=1); Float(80, requires_grad=1)";

static void check_lstm_run(const AppWorkspaceRun *run) {
  g_assert_cmpuint(run->specs->len, ==, 1);
  g_assert_cmpuint(run->n_failed, ==, 0);
  const AppWorkspaceSpecResult *r = g_ptr_array_index(run->specs, 0);
  g_assert_null(r->error);
  g_assert_nonnull(r->forward);
  g_assert_cmpint(r->forward->kind, ==, EXEC_PLAN_FORWARD);
  g_assert_cmpuint(r->forward->stages->len, >, 5);
  g_assert_cmpuint(r->forward->diff_groups->len, >=, 1);
  g_assert_cmpuint(r->backward->len, >=, 1);
  const AppWorkspacePlan *back = g_ptr_array_index(r->backward, 0);
  g_assert_cmpint(back->kind, ==, EXEC_PLAN_BACKWARD);
  g_assert_nonnull(strstr(back->graph_name, "backward"));
  for (guint s = 0; s < r->forward->stages->len; s++) {
    const AppWorkspaceStage *stage = g_ptr_array_index(r->forward->stages, s);
    g_assert_nonnull(stage->graph);
    g_assert_nonnull(stage->ir);
    g_assert_true(g_str_has_prefix(stage->ir, "graph("));
  }
  g_assert_nonnull(r->outputs_text);
  g_assert_nonnull(strstr(r->outputs_text, "output 1"));
  g_assert_nonnull(r->grads_text);
  g_assert_nonnull(strstr(r->grads_text, "grad 0: none"));
  g_assert_nonnull(strstr(r->grads_text, "grad 3: float32 [80, 10]"));
}

static void test_lstm_sync(void) {
  AppWorkspace *ws = load("lstm_cell.ir");
  app_workspace_set_specs(ws, (char *const *)&lstm_spec, 1);
  GError *error = NULL;
  const AppWorkspaceRun *run = app_workspace_run_sync(ws, &error);
  g_assert_no_error(error);
  check_lstm_run(run);
  /* The inspector's description of the first aten::add of the program. */
  const IrNode *add = NULL;
  IR_FOR_EACH_NODE(node, app_workspace_graph(ws)->block) {
    if (!add && node->kind == IR_ATEN_ADD)
      add = node;
  }
  char *text = app_workspace_describe_node(add, "n7");
  g_assert_true(g_str_has_prefix(text, "aten::add   (origin "));
  g_assert_nonnull(strstr(text, "schema: aten::add"));
  g_assert_nonnull(strstr(text, "  alpha      %25 : int  (constant)"));
  g_assert_nonnull(strstr(text, "(1 uses)"));
  g_assert_nonnull(strstr(text, "source: gen_corpus.py:49:16"));
  g_free(text);
  g_assert_true(app_workspace_last_run(ws) == run);
  app_workspace_free(ws);
}

/* What the inspector shows for a value (a canvas edge): description and values after the run,
 * for a node's output, a graph input and a Subgraph body's input. */
static void test_value_inspection(void) {
  AppWorkspace *ws = load("lstm_cell.ir");
  app_workspace_set_specs(ws, (char *const *)&lstm_spec, 1);
  const AppWorkspaceRun *run = app_workspace_run_sync(ws, NULL);
  g_assert_nonnull(run);
  const AppWorkspacePlan *plan =
      ((AppWorkspaceSpecResult *)g_ptr_array_index(run->specs, 0))->forward;
  const AppWorkspaceStage *first = g_ptr_array_index(plan->stages, 0);
  IrGraph *copy = ir_graph_copy(first->graph);
  const IrValue *cy = NULL;
  IR_FOR_EACH_NODE(node, copy->block) {
    for (guint i = 0; i < node->outputs->len; i++)
      if (g_strcmp0(ir_output(node, i)->name, "cy.1") == 0)
        cy = ir_output(node, i);
  }
  g_assert_nonnull(cy);
  char *text = app_workspace_describe_value(cy, "n20:0->n21:0");
  g_assert_true(g_str_has_prefix(text, "%cy.1 : "));
  g_assert_nonnull(strstr(text, "(id n20:0->n21:0)"));
  g_assert_nonnull(strstr(text, "producer: aten::add (origin "));
  g_assert_nonnull(strstr(text, "source: gen_corpus.py:55:14"));
  g_assert_nonnull(strstr(text, "users (2):"));
  g_assert_nonnull(strstr(text, "input 0 (self) of aten::tanh"));
  g_assert_nonnull(strstr(text, "of prim::TupleConstruct"));
  g_free(text);
  GError *error = NULL;
  char *values = app_workspace_value_values(copy, cy, plan->last_inputs, &error);
  g_assert_no_error(error);
  g_assert_true(g_str_has_prefix(values, "%cy.1: float32 [3, 20]"));
  g_free(values);
  /* a graph input: the recorded input itself */
  const IrValue *w = g_ptr_array_index(ir_graph_inputs(copy), 3);
  text = app_workspace_describe_value(w, "i3:0");
  g_assert_nonnull(strstr(text, "producer: graph input 3"));
  g_free(text);
  values = app_workspace_value_values(copy, w, plan->last_inputs, &error);
  g_assert_no_error(error);
  g_assert_true(g_str_has_prefix(values, "%w_ih.1: float32 [80, 10]"));
  g_free(values);
  /* without a run */
  g_assert_null(app_workspace_value_values(copy, w, NULL, &error));
  g_assert_error(error, APP_WORKSPACE_ERROR, APP_WORKSPACE_ERROR_RUN);
  g_clear_error(&error);
  ir_graph_free(copy);

  /* The last stage: an input of the DifferentiableGraph's body is the owner's input. */
  const AppWorkspaceStage *last = g_ptr_array_index(plan->stages, plan->stages->len - 1);
  copy = ir_graph_copy(last->graph);
  const IrNode *owner = NULL;
  IR_FOR_EACH_NODE(node, copy->block) {
    if (node->kind == IR_PRIM_DIFFERENTIABLE_GRAPH)
      owner = node;
  }
  g_assert_nonnull(owner);
  IrGraph *body = ir_node_attr_g(owner, IR_ATTR_SUBGRAPH);
  const IrValue *inner = g_ptr_array_index(ir_graph_inputs(body), 0);
  const IrValue *outer = g_ptr_array_index(owner->inputs, 0);
  values = app_workspace_value_values(copy, inner, plan->last_inputs, &error);
  g_assert_no_error(error);
  char *outer_values = app_workspace_value_values(copy, outer, plan->last_inputs, &error);
  g_assert_no_error(error);
  /* the same tensor under two names */
  g_assert_cmpstr(strchr(values, ':'), ==, strchr(outer_values, ':'));
  g_free(values);
  g_free(outer_values);
  ir_graph_free(copy);
  app_workspace_free(ws);
}

/* Seed 000: 0, 1 or 2 _grad_sum_to_size in the backward graph as inputs broadcast. */
static void test_broadcast_three_specs(void) {
  AppWorkspace *ws = load("broadcast_cell.ir");
  const char *specs[] = {
      "Float(5, 5, requires_grad=1); Float(5, 5, requires_grad=1); Float(5, 5, requires_grad=1)",
      "Float(5, 1, requires_grad=1); Float(5, 5, requires_grad=1); Float(5, 5, requires_grad=1)",
      "Float(5, 1, requires_grad=1); Float(5, 1, requires_grad=1); Float(5, 5, requires_grad=1)",
  };
  app_workspace_set_specs(ws, (char *const *)specs, 3);
  const AppWorkspaceRun *run = app_workspace_run_sync(ws, NULL);
  g_assert_nonnull(run);
  g_assert_cmpuint(run->n_failed, ==, 0);
  for (guint i = 0; i < 3; i++) {
    const AppWorkspaceSpecResult *r = g_ptr_array_index(run->specs, i);
    g_assert_cmpuint(r->backward->len, ==, 1);
    const AppWorkspacePlan *back = g_ptr_array_index(r->backward, 0);
    const AppWorkspaceStage *last = g_ptr_array_index(back->stages, back->stages->len - 1);
    /* Returned gradients (through a final TupleConstruct) made by _grad_sum_to_size. */
    guint count = 0;
    GPtrArray *outs = ir_graph_outputs(last->graph);
    for (guint o = 0; o < outs->len; o++) {
      IrValue *v = g_ptr_array_index(outs, o);
      guint n = v->node->kind == IR_PRIM_TUPLE_CONSTRUCT ? ir_n_inputs(v->node) : 1;
      for (guint k = 0; k < n; k++) {
        IrValue *r = v->node->kind == IR_PRIM_TUPLE_CONSTRUCT ? ir_input(v->node, k) : v;
        count += r->node->kind == IR_ATEN_GRAD_SUM_TO_SIZE;
      }
    }
    g_assert_cmpuint(count, ==, i);
    g_assert_cmpuint(strstr(last->ir, "aten::_grad_sum_to_size") != NULL, ==, i > 0);
  }
  app_workspace_free(ws);
}

static void test_failing_spec_keeps_others(void) {
  AppWorkspace *ws = load("broadcast_cell.ir");
  const char *specs[] = {"Float(5, 5); Float(5, 5)", "Float(2, 3); Float(4, 5); Float(1)",
                         "Float(2, 2); Float(2, 2); Float(2, 2)"};
  app_workspace_set_specs(ws, (char *const *)specs, 3);
  const AppWorkspaceRun *run = app_workspace_run_sync(ws, NULL);
  g_assert_nonnull(run);
  g_assert_cmpuint(run->n_failed, ==, 2);
  const AppWorkspaceSpecResult *count = g_ptr_array_index(run->specs, 0);
  g_assert_nonnull(count->error);
  const AppWorkspaceSpecResult *shapes = g_ptr_array_index(run->specs, 1);
  g_assert_nonnull(shapes->error);
  const AppWorkspaceSpecResult *ok = g_ptr_array_index(run->specs, 2);
  g_assert_null(ok->error);
  g_assert_nonnull(ok->outputs_text);
  g_assert_null(ok->grads_text); /* nothing requires grad */
  app_workspace_free(ws);
}

typedef struct {
  GMainLoop *loop;
  guint progress_calls;
  const AppWorkspaceRun *run;
  bool done;
} AsyncState;

static void on_progress(AppWorkspace *ws, guint done, guint total, const char *message,
                        gpointer data) {
  AsyncState *st = data;
  g_assert_cmpuint(done, <, total);
  g_assert_nonnull(message);
  st->progress_calls++;
}

static void on_done(AppWorkspace *ws, const AppWorkspaceRun *run, const GError *error,
                    gpointer data) {
  AsyncState *st = data;
  g_assert_null(error);
  g_assert_false(app_workspace_running(ws));
  st->run = run;
  st->done = true;
  g_main_loop_quit(st->loop);
}

static void test_lstm_async(void) {
  AppWorkspace *ws = load("lstm_cell.ir");
  app_workspace_set_specs(ws, (char *const *)&lstm_spec, 1);
  AsyncState st = {g_main_loop_new(NULL, FALSE), 0, NULL, false};
  GError *error = NULL;
  g_assert_true(app_workspace_run_async(ws, NULL, on_progress, on_done, &st, &error));
  g_assert_true(app_workspace_running(ws));
  /* A second run while one is in flight is refused. */
  g_assert_false(app_workspace_run_async(ws, NULL, NULL, NULL, NULL, &error));
  g_assert_error(error, APP_WORKSPACE_ERROR, APP_WORKSPACE_ERROR_BUSY);
  g_clear_error(&error);
  g_main_loop_run(st.loop);
  g_assert_true(st.done);
  g_assert_cmpuint(st.progress_calls, ==, 1);
  check_lstm_run(st.run);
  g_assert_true(app_workspace_last_run(ws) == st.run);
  g_main_loop_unref(st.loop);
  app_workspace_free(ws);
}

static void never_called(AppWorkspace *ws, const AppWorkspaceRun *run, const GError *error,
                         gpointer data) {
  g_assert_not_reached();
}

/* Freeing the workspace while its run is in flight drops the result without a callback. */
static void test_free_while_running(void) {
  AppWorkspace *ws = load("lstm_cell.ir");
  app_workspace_set_specs(ws, (char *const *)&lstm_spec, 1);
  g_assert_true(app_workspace_run_async(ws, NULL, NULL, never_called, NULL, NULL));
  app_workspace_free(ws);
  gint64 until = g_get_monotonic_time() + 5 * G_USEC_PER_SEC;
  while (g_get_monotonic_time() < until)
    g_main_context_iteration(NULL, FALSE);
}

static void on_cancelled_done(AppWorkspace *ws, const AppWorkspaceRun *run, const GError *error,
                              gpointer data) {
  AsyncState *st = data;
  g_assert_null(error);
  g_assert_cmpuint(run->n_failed, ==, 1);
  const AppWorkspaceSpecResult *r = g_ptr_array_index(run->specs, 0);
  g_assert_nonnull(strstr(r->error, "cancelled"));
  st->done = true;
  g_main_loop_quit(st->loop);
}

/* Cancel stops a run of 10^12 loop iterations: whether the worker has reached the loop or
 * not, the spec ends as cancelled (the engine stops it between nodes). */
static void test_cancel_stops_run(void) {
  AppWorkspace *ws = app_workspace_new();
  const char *loop = "graph(%x : Tensor):\n"
                     "  %n : int = prim::Constant[value=1000000000000]()\n"
                     "  %t : bool = prim::Constant[value=1]()\n"
                     "  %one : int = prim::Constant[value=1]()\n"
                     "  %y : Tensor = prim::Loop(%n, %t, %x)\n"
                     "    block0(%i : int, %acc : Tensor):\n"
                     "      %next : Tensor = aten::add(%acc, %x, %one)\n"
                     "      -> (%t, %next)\n"
                     "  return (%y)\n";
  g_assert_true(app_workspace_set_text(ws, loop, "loop.ir"));
  const char *spec = "Float(2)";
  app_workspace_set_specs(ws, (char *const *)&spec, 1);
  AsyncState st = {g_main_loop_new(NULL, FALSE), 0, NULL, false};
  g_assert_true(app_workspace_run_async(ws, NULL, NULL, on_cancelled_done, &st, NULL));
  app_workspace_cancel(ws);
  g_main_loop_run(st.loop);
  g_assert_true(st.done);
  g_main_loop_unref(st.loop);
  app_workspace_free(ws);
}

/* device=cuda spec lines on the worker thread, as the window runs them: with CUDA (the cudaemu
 * suite runs this program against the emulator) the plans are compiled for device=cuda and
 * the values are read back from the device; without, a note says why they ran on the CPU. */
static void test_cuda_spec(void) {
  AppWorkspace *ws = load("broadcast_cell.ir");
  const char *spec = "Float(5, 1, requires_grad=1, device=cuda); "
                     "Float(5, 5, requires_grad=1, device=cuda); "
                     "Float(5, 5, requires_grad=1, device=cuda)";
  app_workspace_set_specs(ws, (char *const *)&spec, 1);
  AsyncState st = {g_main_loop_new(NULL, FALSE), 0, NULL, false};
  g_assert_true(app_workspace_run_async(ws, NULL, on_progress, on_done, &st, NULL));
  g_main_loop_run(st.loop);
  g_assert_nonnull(st.run);
  const AppWorkspaceSpecResult *r = g_ptr_array_index(st.run->specs, 0);
  g_assert_null(r->error);
  const AppWorkspaceStage *last =
      g_ptr_array_index(r->forward->stages, r->forward->stages->len - 1);
  char *unavailable = cuda_status_unavailable_reason(cuda_loader_get());
  bool cuda = unavailable == NULL;
  g_free(unavailable);
  g_test_message("CUDA %s; note: %s", cuda ? "available" : "unavailable",
                 r->device_note ? r->device_note : "none");
  if (cuda) {
    g_assert_null(r->device_note);
    g_assert_nonnull(strstr(last->ir, "device=cuda"));
    g_assert_null(strstr(last->ir, "device=cpu"));
    g_assert_nonnull(strstr(r->outputs_text, "device=cuda\n"));
  } else {
    g_assert_nonnull(r->device_note);
    g_assert_nonnull(strstr(r->device_note, "kept in CPU memory"));
    g_assert_null(strstr(last->ir, "device=cuda"));
  }
  /* Values, read back from the device where they are there. */
  g_assert_nonnull(strstr(r->outputs_text, "float32 [5, 5]"));
  g_assert_nonnull(strstr(r->outputs_text, "\n  ["));
  g_assert_nonnull(strstr(r->grads_text, "grad 0: float32 [5, 1]"));
  char *summary = app_workspace_plan_summary(st.run, r->forward);
  g_assert_cmpuint(strstr(summary, "note: ") != NULL, ==, !cuda);
  g_free(summary);
  g_main_loop_unref(st.loop);
  app_workspace_free(ws);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/workspace/parse-error-location", test_parse_error_location);
  g_test_add_func("/workspace/split-spec-line", test_split_spec_line);
  g_test_add_func("/workspace/functional-call-runs", test_functional_call_runs);
  g_test_add_func("/workspace/module-graph-runs", test_module_graph_runs);
  g_test_add_func("/workspace/lstm-sync", test_lstm_sync);
  g_test_add_func("/workspace/value-inspection", test_value_inspection);
  g_test_add_func("/workspace/broadcast-three-specs", test_broadcast_three_specs);
  g_test_add_func("/workspace/failing-spec-keeps-others", test_failing_spec_keeps_others);
  g_test_add_func("/workspace/lstm-async", test_lstm_async);
  g_test_add_func("/workspace/free-while-running", test_free_while_running);
  g_test_add_func("/workspace/cancel-stops-run", test_cancel_stops_run);
  g_test_add_func("/workspace/cuda-spec", test_cuda_spec);
  return g_test_run();
}
