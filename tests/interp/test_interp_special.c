/* Subgraph nodes (FusionGroup / DifferentiableGraph) with and without hooks, the after_node
 * hook, early release of dead values, register reuse, and the wrappers rt_interpret and
 * rt_interpret_block. */
#include <string.h>

#include "interp_test_util.h"

/* sub(a, b) = (a * b, -a) */
static IrGraph *mul_neg_subgraph(void) {
  IrGraph *s = ir_graph_new();
  IrValue *a = ir_graph_add_input(s, ir_type_tensor(), "a");
  IrValue *b = ir_graph_add_input(s, ir_type_tensor(), "b");
  IrValue *ab[2] = {a, b};
  ir_graph_add_output(s, it_op(s, IR_ATEN_MUL, ab, 2));
  ir_graph_add_output(s, it_op(s, IR_ATEN_NEG, &a, 1));
  return s;
}

static IrGraph *graph_with_group(IrOpKind kind, guint n_outputs, bool with_subgraph) {
  IrGraph *g = ir_graph_new();
  IrValue *x = ir_graph_add_input(g, ir_type_tensor(), "x");
  IrValue *y = ir_graph_add_input(g, ir_type_tensor(), "y");
  IrValue *xy[2] = {x, y};
  IrNode *n = it_prim(g, kind, xy, 2, n_outputs, ir_type_tensor());
  if (with_subgraph)
    ir_node_set_attr_g(n, IR_ATTR_SUBGRAPH, mul_neg_subgraph());
  for (guint i = 0; i < n_outputs; i++)
    ir_graph_add_output(g, ir_output(n, i));
  return g;
}

static void make_inputs(RtValue ins[2]) {
  double xv[2] = {1, 2}, yv[2] = {3, 4};
  ins[0] = rt_tensor(it_vector(2, xv));
  ins[1] = rt_tensor(it_vector(2, yv));
}

static void test_fusion_group_without_hook(void) {
  IrGraph *g = graph_with_group(IR_PRIM_FUSION_GROUP, 2, true);
  RtValue ins[2], r[2];
  make_inputs(ins);
  GError *error = NULL;
  g_assert_true(it_run(g, NULL, ins, 2, r, &error));
  g_assert_no_error(error);
  int64_t two = 2;
  double prod[2] = {3, 8}, neg[2] = {-1, -2};
  it_assert_tensor(r[0].u.tensor, 1, &two, prod, 0);
  it_assert_tensor(r[1].u.tensor, 1, &two, neg, 0);
  for (guint i = 0; i < 2; i++) {
    rt_value_unref(r[i]);
    rt_value_unref(ins[i]);
  }
  ir_graph_free(g);
}

static void test_differentiable_graph_keeps_real_outputs(void) {
  /* The node has one output; its Subgraph returns a saved temporary after it. */
  IrGraph *g = graph_with_group(IR_PRIM_DIFFERENTIABLE_GRAPH, 1, true);
  RtValue ins[2], r[1];
  make_inputs(ins);
  GError *error = NULL;
  g_assert_true(it_run(g, NULL, ins, 2, r, &error));
  g_assert_no_error(error);
  int64_t two = 2;
  double prod[2] = {3, 8};
  it_assert_tensor(r[0].u.tensor, 1, &two, prod, 0);
  g_assert_cmpint(r[0].u.tensor->refcount, ==, 1);
  rt_value_unref(r[0]);
  rt_value_unref(ins[0]);
  rt_value_unref(ins[1]);
  ir_graph_free(g);
}

typedef struct {
  guint special_calls;
  guint after_calls;
  GString *kinds;
  guint last_n_args;
  guint add_n_args;
} HookLog;

static bool hook_special(void *ctx, const IrNode *node, RtValue *inputs, guint n_inputs,
                         RtValue *outputs, guint n_outputs, GError **error) {
  HookLog *log = ctx;
  log->special_calls++;
  g_assert_cmpuint(n_inputs, ==, 2);
  g_assert_true(inputs[0].tag == RT_TENSOR);
  for (guint i = 0; i < n_outputs; i++) {
    int64_t one = 1;
    outputs[i] = rt_tensor(rt_tensor_full(IR_DTYPE_FLOAT32, 1, &one, 42 + i));
  }
  return true;
}

static bool hook_after(void *ctx, const IrNode *node, RtValue *inputs, guint n_inputs,
                       RtValue *outputs, guint n_outputs, GError **error) {
  HookLog *log = ctx;
  log->after_calls++;
  g_string_append_printf(log->kinds, "%s ", ir_kind_name(node->kind));
  log->last_n_args = n_inputs;
  if (node->kind == IR_ATEN_ADD)
    log->add_n_args = n_inputs;
  g_assert_true(outputs[0].tag == RT_TENSOR && outputs[0].u.tensor);
  return true;
}

static void test_hooks_replace_subgraph_execution(void) {
  /* Without a Subgraph attribute the node can only run through the hook. */
  IrGraph *g = graph_with_group(IR_PRIM_FUSION_GROUP, 2, false);
  HookLog log = {0};
  RtInterpreterHooks hooks = {.run_special = hook_special, .ctx = &log};
  RtValue ins[2], r[2];
  make_inputs(ins);
  GError *error = NULL;
  g_assert_true(it_run(g, &hooks, ins, 2, r, &error));
  g_assert_no_error(error);
  g_assert_cmpuint(log.special_calls, ==, 1);
  g_assert_cmpfloat(rt_tensor_get(r[1].u.tensor, 0), ==, 43);
  rt_value_unref(r[0]);
  rt_value_unref(r[1]);
  /* No hook, no Subgraph: a runtime error naming the node. */
  g_assert_false(it_run(g, NULL, ins, 2, r, &error));
  g_assert_cmpstr(error->message, ==,
                  "prim::FusionGroup: cannot run its Subgraph: no Subgraph attribute");
  g_error_free(error);
  rt_value_unref(ins[0]);
  rt_value_unref(ins[1]);
  ir_graph_free(g);
}

/* Replaces each output by a fresh tensor of 7s (as the eager tape may swap in a tracked one). */
static bool hook_replace(void *ctx, const IrNode *node, RtValue *inputs, guint n_inputs,
                         RtValue *outputs, guint n_outputs, GError **error) {
  HookLog *log = ctx;
  log->after_calls++;
  g_string_append_printf(log->kinds, "%s ", ir_kind_name(node->kind));
  for (guint i = 0; i < n_outputs; i++) {
    RtTensor *old = outputs[i].u.tensor;
    outputs[i] = rt_tensor(rt_tensor_full(IR_DTYPE_FLOAT32, old->ndim, old->sizes, 7));
    rt_tensor_unref(old);
  }
  return true;
}

static void test_after_node_on_constant_chunk_may_replace_outputs(void) {
  /* a, b = ConstantChunk[chunks=2, dim=0](x); return a, neg(b), [b] */
  IrGraph *g = ir_graph_new();
  IrValue *x = ir_graph_add_input(g, ir_type_tensor(), "x");
  IrNode *ch = it_prim(g, IR_PRIM_CONSTANT_CHUNK, &x, 1, 2, ir_type_tensor());
  ir_node_set_attr_i(ch, IR_ATTR_CHUNKS, 2);
  ir_node_set_attr_i(ch, IR_ATTR_DIM, 0);
  IrValue *b = ir_output(ch, 1);
  IrValue *l =
      ir_output(it_prim(g, IR_PRIM_LIST_CONSTRUCT, &b, 1, 1, ir_type_list(ir_type_tensor())), 0);
  ir_graph_add_output(g, ir_output(ch, 0));
  ir_graph_add_output(g, it_op(g, IR_ATEN_NEG, &b, 1));
  ir_graph_add_output(g, l);
  HookLog log = {.kinds = g_string_new(NULL)};
  RtInterpreterHooks hooks = {.after_node = hook_replace, .ctx = &log};
  double xv[4] = {1, 2, 3, 4};
  RtValue ins[1] = {rt_tensor(it_vector(4, xv))}, r[3];
  GError *error = NULL;
  g_assert_true(it_run(g, &hooks, ins, 1, r, &error));
  g_assert_no_error(error);
  /* ConstantChunk and neg went through the hook, ListConstruct did not; every value after the
   * chunk reads the replaced 7s, and neg's own result was replaced too. */
  g_assert_cmpstr(log.kinds->str, ==, "prim::ConstantChunk aten::neg ");
  int64_t two = 2;
  double sevens[2] = {7, 7};
  it_assert_tensor(r[0].u.tensor, 1, &two, sevens, 0);
  it_assert_tensor(r[1].u.tensor, 1, &two, sevens, 0);
  it_assert_tensor(r[2].u.seq->items[0].u.tensor, 1, &two, sevens, 0);
  g_assert_cmpint(ins[0].u.tensor->refcount, ==, 1); /* the chunk views were released */
  for (guint i = 0; i < 3; i++)
    rt_value_unref(r[i]);
  rt_value_unref(ins[0]);
  g_string_free(log.kinds, TRUE);
  ir_graph_free(g);
}

static void test_after_node_sees_schema_nodes(void) {
  /* z = add(x, y) (alpha omitted); l = [z]; w = neg(z) */
  IrGraph *g = ir_graph_new();
  IrValue *x = ir_graph_add_input(g, ir_type_tensor(), "x");
  IrValue *y = ir_graph_add_input(g, ir_type_tensor(), "y");
  IrValue *xy[2] = {x, y};
  IrValue *z = it_op(g, IR_ATEN_ADD, xy, 2);
  IrValue *l =
      ir_output(it_prim(g, IR_PRIM_LIST_CONSTRUCT, &z, 1, 1, ir_type_list(ir_type_tensor())), 0);
  ir_graph_add_output(g, it_op(g, IR_ATEN_NEG, &z, 1));
  ir_graph_add_output(g, l);
  HookLog log = {.kinds = g_string_new(NULL)};
  RtInterpreterHooks hooks = {.after_node = hook_after, .ctx = &log};
  RtValue ins[2], r[2];
  make_inputs(ins);
  GError *error = NULL;
  g_assert_true(it_run(g, &hooks, ins, 2, r, &error));
  g_assert_no_error(error);
  g_assert_cmpstr(log.kinds->str, ==, "aten::add aten::neg ");
  g_assert_cmpuint(log.add_n_args, ==, 2); /* the node's inputs, not the filled-in alpha */
  g_assert_cmpuint(log.last_n_args, ==, 1);
  int64_t two = 2;
  double e[2] = {-4, -6};
  it_assert_tensor(r[0].u.tensor, 1, &two, e, 0);
  for (guint i = 0; i < 2; i++) {
    rt_value_unref(r[i]);
    rt_value_unref(ins[i]);
  }
  g_string_free(log.kinds, TRUE);
  ir_graph_free(g);
}

/* Early release: a = neg(x); S1(a); b = neg(x); S2(b). S1 keeps a reference to a's tensor;
 * when S2 runs, a is dead, so the interpreter must already have dropped its own reference. */
typedef struct {
  RtTensor *kept;
  gint refcount_seen_by_second;
  guint calls;
} ReleaseProbe;

static bool probe_special(void *ctx, const IrNode *node, RtValue *inputs, guint n_inputs,
                          RtValue *outputs, guint n_outputs, GError **error) {
  ReleaseProbe *p = ctx;
  if (p->calls++ == 0)
    p->kept = rt_tensor_ref(inputs[0].u.tensor);
  else
    p->refcount_seen_by_second = p->kept->refcount;
  outputs[0] = rt_value_ref(inputs[0]);
  return true;
}

static void test_dead_values_are_released_early(void) {
  IrGraph *g = ir_graph_new();
  IrValue *x = ir_graph_add_input(g, ir_type_tensor(), "x");
  IrValue *a = it_op(g, IR_ATEN_NEG, &x, 1);
  IrNode *s1 = it_prim(g, IR_PRIM_FUSION_GROUP, &a, 1, 1, ir_type_tensor());
  IrValue *b = it_op(g, IR_ATEN_NEG, &x, 1);
  IrNode *s2 = it_prim(g, IR_PRIM_FUSION_GROUP, &b, 1, 1, ir_type_tensor());
  (void)s1;
  ir_graph_add_output(g, ir_output(s2, 0));
  ReleaseProbe probe = {0};
  RtInterpreterHooks hooks = {.run_special = probe_special, .ctx = &probe};
  double xv[1] = {1};
  RtValue ins[1] = {rt_tensor(it_vector(1, xv))}, r[1];
  GError *error = NULL;
  g_assert_true(it_run(g, &hooks, ins, 1, r, &error));
  g_assert_no_error(error);
  g_assert_cmpuint(probe.calls, ==, 2);
  g_assert_cmpint(probe.refcount_seen_by_second, ==, 1);
  g_assert_cmpint(probe.kept->refcount, ==, 1);
  rt_tensor_unref(probe.kept);
  rt_value_unref(r[0]);
  rt_value_unref(ins[0]);
  ir_graph_free(g);
}

static void test_chain_reuses_registers(void) {
  IrGraph *g = ir_graph_new();
  IrValue *v = ir_graph_add_input(g, ir_type_tensor(), "x");
  for (guint i = 0; i < 1000; i++)
    v = it_op(g, IR_ATEN_NEG, &v, 1);
  ir_graph_add_output(g, v);
  GError *error = NULL;
  RtCode *code = rt_code_compile(g, &error);
  g_assert_no_error(error);
  g_assert_cmpuint(rt_code_n_instructions(code), ==, 1001); /* 1000 kernels + return */
  g_assert_cmpuint(rt_code_n_registers(code), <=, 2);
  double xv[1] = {3};
  RtValue ins[1] = {rt_tensor(it_vector(1, xv))}, r[1];
  g_assert_true(rt_code_run(code, NULL, ins, 1, r, &error));
  g_assert_cmpfloat(rt_tensor_get(r[0].u.tensor, 0), ==, 3); /* even number of negations */
  GString *dump = g_string_new(NULL);
  rt_code_dump(dump, code);
  g_assert_nonnull(strstr(dump->str, "KERNEL        aten::neg (r0) -> r1..r1 release r0"));
  g_string_free(dump, TRUE);
  rt_value_unref(r[0]);
  rt_value_unref(ins[0]);
  rt_code_free(code);
  ir_graph_free(g);
}

static void test_wrappers(void) {
  IrGraph *g = graph_with_group(IR_PRIM_FUSION_GROUP, 2, true);
  RtValue ins[2];
  make_inputs(ins);
  RtValue *outs = NULL;
  guint n = 0;
  GError *error = NULL;
  g_assert_true(rt_interpret(g, NULL, ins, 2, &outs, &n, &error));
  g_assert_cmpuint(n, ==, 2);
  g_assert_cmpfloat(rt_tensor_get(outs[0].u.tensor, 1), ==, 8);
  for (guint i = 0; i < n; i++)
    rt_value_unref(outs[i]);
  g_free(outs);
  /* Wrong input count. */
  g_assert_false(rt_interpret(g, NULL, ins, 1, &outs, &n, &error));
  g_assert_cmpstr(error->message, ==, "the graph takes 2 inputs, 1 given");
  g_assert_null(outs);
  g_clear_error(&error);

  /* rt_interpret_block on a Subgraph's block, and on an If branch that reads an outer
   * value (an error: the block does not define it). */
  IrGraph *sub = ir_node_attr_g(g->block->param->next, IR_ATTR_SUBGRAPH);
  RtValue bo[2];
  g_assert_true(rt_interpret_block(sub->block, NULL, ins, 2, bo, &error));
  g_assert_cmpfloat(rt_tensor_get(bo[1].u.tensor, 0), ==, -1);
  rt_value_unref(bo[0]);
  rt_value_unref(bo[1]);

  IrGraph *h = ir_graph_new();
  IrValue *c = ir_graph_add_input(h, ir_type_bool(), "c");
  IrValue *x = ir_graph_add_input(h, ir_type_tensor(), "x");
  IrNode *ifn = it_prim(h, IR_PRIM_IF, &c, 1, 1, ir_type_tensor());
  IrBlock *b0 = ir_node_add_block(ifn), *b1 = ir_node_add_block(ifn);
  ir_graph_set_insert_point(h, b0->ret);
  ir_block_add_output(b0, it_op(h, IR_ATEN_NEG, &x, 1));
  ir_block_add_output(b1, x);
  ir_graph_set_insert_point(h, h->block->ret);
  ir_graph_add_output(h, ir_output(ifn, 0));
  g_assert_false(rt_interpret_block(b0, NULL, NULL, 0, bo, &error));
  g_assert_cmpstr(error->message, ==,
                  "aten::neg: value %x is used outside the block that "
                  "defines it or before its definition");
  g_clear_error(&error);
  ir_graph_free(h);

  for (guint i = 0; i < 2; i++)
    rt_value_unref(ins[i]);
  ir_graph_free(g);
}

/* One compiled code, four threads running it at once: each run has its own frame, and the
 * shared constants are only borrowed. Graph: (x * 2, [1, 2]) through the FusionGroup fallback. */
typedef struct {
  const RtCode *code;
  RtTensor *x;
  guint failures;
} ThreadJob;

static gpointer run_many(gpointer data) {
  ThreadJob *job = data;
  for (guint k = 0; k < 300; k++) {
    RtValue ins[2] = {rt_tensor(rt_tensor_ref(job->x)), rt_tensor(rt_tensor_ref(job->x))};
    RtValue outs[3];
    GError *error = NULL;
    if (!rt_code_run(job->code, NULL, ins, 2, outs, &error)) {
      job->failures++;
      g_clear_error(&error);
    } else {
      /* x = [1, 2]: x * x = [1, 4], -x = [-1, -2], list constant [7, 8] */
      if (rt_tensor_get(outs[0].u.tensor, 1) != 4 || rt_tensor_get(outs[1].u.tensor, 0) != -1 ||
          outs[2].u.seq->items[1].u.i != 8)
        job->failures++;
      for (guint i = 0; i < 3; i++)
        rt_value_unref(outs[i]);
    }
    rt_value_unref(ins[0]);
    rt_value_unref(ins[1]);
  }
  return NULL;
}

static void test_concurrent_runs(void) {
  IrGraph *g = graph_with_group(IR_PRIM_FUSION_GROUP, 2, true);
  gint64 c[2] = {7, 8};
  ir_graph_add_output(g, ir_graph_insert_constant_int_list(g, c, 2));
  GError *error = NULL;
  RtCode *code = rt_code_compile(g, &error);
  g_assert_no_error(error);
  double xv[2] = {1, 2};
  RtTensor *x = it_vector(2, xv);
  ThreadJob jobs[4];
  GThread *threads[4];
  for (guint i = 0; i < 4; i++) {
    jobs[i] = (ThreadJob){.code = code, .x = x};
    threads[i] = g_thread_new("interp", run_many, &jobs[i]);
  }
  for (guint i = 0; i < 4; i++) {
    g_thread_join(threads[i]);
    g_assert_cmpuint(jobs[i].failures, ==, 0);
  }
  g_assert_cmpint(x->refcount, ==, 1);
  rt_tensor_unref(x);
  rt_code_free(code);
  ir_graph_free(g);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/interp/special/fusion-group-no-hook", test_fusion_group_without_hook);
  g_test_add_func("/interp/special/differentiable-graph-no-hook",
                  test_differentiable_graph_keeps_real_outputs);
  g_test_add_func("/interp/special/hooks", test_hooks_replace_subgraph_execution);
  g_test_add_func("/interp/special/after-node", test_after_node_sees_schema_nodes);
  g_test_add_func("/interp/special/after-node-constant-chunk",
                  test_after_node_on_constant_chunk_may_replace_outputs);
  g_test_add_func("/interp/special/early-release", test_dead_values_are_released_early);
  g_test_add_func("/interp/special/register-reuse", test_chain_reuses_registers);
  g_test_add_func("/interp/special/wrappers", test_wrappers);
  g_test_add_func("/interp/special/concurrent-runs", test_concurrent_runs);
  return g_test_run();
}
