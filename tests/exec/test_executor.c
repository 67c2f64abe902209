/* The executor against the seeds' expectations: test_grad_sum_to_size_elimination (seed 000)
 * through one executor, plan caching, stage recording, and gradients of the corpus LSTM cell
 * against finite differences. */
#include <math.h>
#include <string.h>

#include "exec/executor.h"
#include "exec/pipeline.h"
#include "ir/text.h"
#include "tensor/tensor.h"

static const char broadcast_cell[] = "graph(%a.1 : Tensor,\n"
                                     "      %b.1 : Tensor,\n"
                                     "      %c.1 : Tensor):\n"
                                     "  %5 : int = prim::Constant[value=1]()\n"
                                     "  %6 : Tensor = aten::add(%a.1, %b.1, %5)\n"
                                     "  %9 : Tensor = aten::add(%6, %c.1, %5)\n"
                                     "  return (%9)\n";

static IrGraph *parse(const char *text) {
  GError *error = NULL;
  IrGraph *graph = ir_graph_parse(text, strlen(text), "test.ir", &error);
  g_assert_no_error(error);
  return graph;
}

static RtTensor *leaf(int64_t rows, int64_t cols, guint64 seed) {
  int64_t sizes[2] = {rows, cols};
  RtTensor *t = rt_tensor_randn(IR_DTYPE_FLOAT32, 2, sizes, seed);
  t->requires_grad = true;
  return t;
}

/* Values the backward graph returns, looking through a final TupleConstruct. */
static GPtrArray *returned_values(const IrGraph *graph) {
  GPtrArray *values = g_ptr_array_new();
  GPtrArray *outs = ir_graph_outputs(graph);
  for (guint i = 0; i < outs->len; i++) {
    IrValue *v = g_ptr_array_index(outs, i);
    if (v->node->kind == IR_PRIM_TUPLE_CONSTRUCT)
      for (guint j = 0; j < ir_n_inputs(v->node); j++)
        g_ptr_array_add(values, ir_input(v->node, j));
    else
      g_ptr_array_add(values, v);
  }
  return values;
}

static void test_grad_sum_to_size_elimination(void) {
  IrGraph *graph = parse(broadcast_cell);
  ExecSession *session = exec_session_new();
  session->verify = true;
  session->fuse = false;
  ExecExecutor *executor = exec_executor_new(session, graph, "main", EXEC_PLAN_FORWARD);
  /* s1 = 5x1, s2 = 5x5; case i broadcasts the first i inputs. */
  for (guint i = 0; i < 3; i++) {
    RtTensor *in[3];
    for (guint k = 0; k < 3; k++)
      in[k] = leaf(5, k < i ? 1 : 5, 10 * i + k);
    RtValue args[3] = {rt_tensor(in[0]), rt_tensor(in[1]), rt_tensor(in[2])};
    guint plans_before = session->plans->len;
    RtValue *outs = NULL;
    guint n_outs = 0;
    GError *error = NULL;
    g_assert_true(exec_executor_run(executor, args, 3, &outs, &n_outs, &error));
    g_assert_no_error(error);
    g_assert_cmpuint(n_outs, ==, 1);
    RtTensor *grads[3] = {0};
    g_assert_true(exec_session_backward(session, &outs[0].u.tensor, NULL, 1, in, 3, grads, &error));
    g_assert_no_error(error);

    /* Exactly one new backward plan, plus the forward plan on the first call only. */
    guint backward_added = 0;
    ExecPlan *backward = NULL;
    for (guint p = plans_before; p < session->plans->len; p++) {
      ExecPlan *plan = g_ptr_array_index(session->plans, p);
      if (plan->kind == EXEC_PLAN_BACKWARD) {
        backward_added++;
        backward = plan;
      }
    }
    g_assert_cmpuint(backward_added, ==, 1);
    GPtrArray *returned = returned_values(backward->graph);
    guint from_sum_to_size = 0, from_inputs = 0;
    for (guint r = 0; r < returned->len; r++) {
      IrValue *v = g_ptr_array_index(returned, r);
      from_sum_to_size += v->node->kind == IR_ATEN_GRAD_SUM_TO_SIZE;
      from_inputs += v->node->kind == IR_PRIM_PARAM;
    }
    g_assert_cmpuint(returned->len, ==, 3);
    g_assert_cmpuint(from_sum_to_size, ==, i);
    g_assert_cmpuint(from_inputs, ==, 3 - i);
    g_ptr_array_free(returned, TRUE);

    for (guint k = 0; k < 3; k++) {
      g_assert_nonnull(grads[k]);
      g_assert_cmpint(grads[k]->ndim, ==, 2);
      g_assert_cmpint(grads[k]->sizes[0], ==, in[k]->sizes[0]);
      g_assert_cmpint(grads[k]->sizes[1], ==, in[k]->sizes[1]);
      /* d/dx of sum((a + b) + c): each element counts once per broadcast copy. */
      double expected = in[k]->sizes[1] == 1 ? 5.0 : 1.0;
      for (int64_t e = 0; e < rt_tensor_numel(grads[k]); e++)
        g_assert_cmpfloat(rt_tensor_get(grads[k], e), ==, expected);
      rt_tensor_unref(grads[k]);
    }
    for (guint o = 0; o < n_outs; o++)
      rt_value_unref(outs[o]);
    g_free(outs);
    for (guint k = 0; k < 3; k++)
      rt_value_unref(args[k]);
  }
  /* Same spec all three times: one forward plan, two cache hits. */
  g_assert_cmpuint(exec_executor_cache_misses(executor), ==, 1);
  g_assert_cmpuint(exec_executor_cache_hits(executor), ==, 2);
  exec_session_free(session);
  ir_graph_free(graph);
}

static void test_stages_recorded_in_pipeline_order(void) {
  IrGraph *graph = parse(broadcast_cell);
  ExecSession *session = exec_session_new();
  session->verify = true;
  ExecExecutor *executor = exec_executor_new(session, graph, "main", EXEC_PLAN_FORWARD);
  int64_t sizes[2] = {2, 3};
  RtValue args[3];
  for (guint k = 0; k < 3; k++)
    args[k] = rt_tensor(rt_tensor_randn(IR_DTYPE_FLOAT32, 2, sizes, k));
  RtValue *outs = NULL;
  guint n_outs = 0;
  g_assert_true(exec_executor_run(executor, args, 3, &outs, &n_outs, NULL));
  g_assert_cmpuint(session->plans->len, ==, 1);
  ExecPlan *plan = g_ptr_array_index(session->plans, 0);
  g_assert_cmpint(plan->kind, ==, EXEC_PLAN_FORWARD);
  /* Without gradients: every always/optimizing/no-grad stage of the table, in table order,
   * with runOptimization and runNondiffOptimization spliced in. */
  guint n_table = 0, n_opt = 0, n_nondiff = 0;
  const ExecStageDef *table = exec_pipeline_stages(&n_table);
  exec_pipeline_optimization_stages(&n_opt);
  exec_pipeline_nondiff_stages(&n_nondiff);
  guint expected = n_opt + n_nondiff;
  for (guint i = 0; i < n_table; i++)
    expected += table[i].when != EXEC_WHEN_GRAD && table[i].when != EXEC_WHEN_RECORDING;
  g_assert_cmpuint(plan->stages->len, ==, expected);
  ExecStage *first = g_ptr_array_index(plan->stages, 0);
  g_assert_cmpstr(first->name, ==, "specialize_input_types");
  g_assert_true(first->changed);
  g_assert_nonnull(strstr(first->ir, "Float(*, *, requires_grad=0, device=cpu)"));
  ExecStage *last = g_ptr_array_index(plan->stages, plan->stages->len - 1);
  g_assert_cmpstr(last->name, ==, "final_dead_code");
  for (guint o = 0; o < n_outs; o++)
    rt_value_unref(outs[o]);
  g_free(outs);
  for (guint k = 0; k < 3; k++)
    rt_value_unref(args[k]);
  exec_session_free(session);
  ir_graph_free(graph);
}

/* Stage times are each stage's own: differentiate runs and records the DifferentiableGraph's
 * stages inside its own, and counted them twice, so a plan's stages added up to more than its
 * compile (about 1.8x for this graph). Disjoint intervals of one monotonic clock fit in the
 * interval around them whatever the load, so the check cannot race the clock. */
static void test_stage_times_add_up_to_the_compile(void) {
  IrGraph *graph = parse(broadcast_cell);
  ExecSession *session = exec_session_new();
  ExecExecutor *executor = exec_executor_new(session, graph, "main", EXEC_PLAN_FORWARD);
  RtValue args[3];
  for (guint k = 0; k < 3; k++)
    args[k] = rt_tensor(leaf(2, 3, k));
  gint64 before = g_get_monotonic_time();
  ExecPlan *plan = exec_executor_plan_for(executor, args, 3, NULL);
  gint64 after = g_get_monotonic_time();
  g_assert_nonnull(plan);
  double sum = 0;
  bool differentiated = false;
  for (guint s = 0; s < plan->stages->len; s++) {
    const ExecStage *stage = g_ptr_array_index(plan->stages, s);
    g_assert_cmpfloat(stage->ms, >=, 0);
    sum += stage->ms;
    differentiated |= strcmp(stage->name, "DifferentiableGraph_0.differentiate") == 0;
  }
  g_assert_true(differentiated); /* the nested case is there */
  double wall = (double)(after - before) / 1000.0;
  g_assert_cmpfloat(sum, <=, plan->compile_ms + 1e-9);
  g_assert_cmpfloat(plan->compile_ms, <=, wall + 1e-9);
  for (guint k = 0; k < 3; k++)
    rt_value_unref(args[k]);
  exec_session_free(session);
  ir_graph_free(graph);
}

/* Two sessions compiling and running the same program on two threads at once produce the
 * same stage records and results as one session alone: nothing in a plan is global. */
typedef struct {
  const IrGraph *graph;
  GPtrArray *stage_texts; /* every stage's IR of every plan, in order */
  double output_sum;
} ConcurrentRun;

static gpointer run_session(gpointer data) {
  ConcurrentRun *r = data;
  r->stage_texts = g_ptr_array_new_with_free_func(g_free);
  for (guint round = 0; round < 20; round++) {
    ExecSession *session = exec_session_new();
    ExecExecutor *executor = exec_executor_new(session, r->graph, "main", EXEC_PLAN_FORWARD);
    RtTensor *in[3];
    for (guint k = 0; k < 3; k++)
      in[k] = leaf(4, k == 0 ? 1 : 3, k);
    RtValue args[3] = {rt_tensor(in[0]), rt_tensor(in[1]), rt_tensor(in[2])};
    RtValue *outs = NULL;
    guint n_outs = 0;
    g_assert_true(exec_executor_run(executor, args, 3, &outs, &n_outs, NULL));
    RtTensor *grads[3] = {0};
    g_assert_true(exec_session_backward(session, &outs[0].u.tensor, NULL, 1, in, 3, grads, NULL));
    if (round == 0)
      for (guint p = 0; p < session->plans->len; p++) {
        ExecPlan *plan = g_ptr_array_index(session->plans, p);
        for (guint s = 0; s < plan->stages->len; s++)
          g_ptr_array_add(r->stage_texts,
                          g_strdup(((ExecStage *)g_ptr_array_index(plan->stages, s))->ir));
      }
    r->output_sum = 0;
    for (int64_t e = 0; e < rt_tensor_numel(outs[0].u.tensor); e++)
      r->output_sum += rt_tensor_get(outs[0].u.tensor, e);
    for (guint k = 0; k < 3; k++) {
      rt_tensor_unref(grads[k]);
      rt_value_unref(args[k]);
    }
    rt_value_unref(outs[0]);
    g_free(outs);
    exec_session_free(session);
  }
  return NULL;
}

static void test_sessions_compile_concurrently(void) {
  IrGraph *graph = parse(broadcast_cell);
  ConcurrentRun alone = {.graph = graph}, a = {.graph = graph}, b = {.graph = graph};
  run_session(&alone);
  GThread *ta = g_thread_new("session-a", run_session, &a);
  GThread *tb = g_thread_new("session-b", run_session, &b);
  g_thread_join(ta);
  g_thread_join(tb);
  g_assert_cmpuint(alone.stage_texts->len, >, 0);
  for (ConcurrentRun *r = &a; r; r = r == &a ? &b : NULL) {
    g_assert_cmpuint(r->stage_texts->len, ==, alone.stage_texts->len);
    for (guint i = 0; i < alone.stage_texts->len; i++)
      g_assert_cmpstr(g_ptr_array_index(r->stage_texts, i), ==,
                      g_ptr_array_index(alone.stage_texts, i));
    g_assert_cmpfloat(r->output_sum, ==, alone.output_sum);
    g_ptr_array_free(r->stage_texts, TRUE);
  }
  g_ptr_array_free(alone.stage_texts, TRUE);
  ir_graph_free(graph);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/exec/grad_sum_to_size_elimination", test_grad_sum_to_size_elimination);
  g_test_add_func("/exec/stages_in_order", test_stages_recorded_in_pipeline_order);
  g_test_add_func("/exec/stage_times_add_up", test_stage_times_add_up_to_the_compile);
  g_test_add_func("/exec/sessions_compile_concurrently", test_sessions_compile_concurrently);
  return g_test_run();
}
