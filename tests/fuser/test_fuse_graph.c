/* FuseGraph: exact text on small graphs; the reference's done-when structures (LSTM cell
 * forward f and backward, (a+b)+c with 5x1 inputs); pointwise expression parsing and the
 * CPU fused loop against the interpreter, including chunks, broadcasting, FusedConcat,
 * sum-to-size outputs and the two-thread path. */
#include <math.h>
#include <string.h>

#include "cuda/cuda_ops.h"
#include "exec/executor.h"
#include "fuser/fuser.h"
#include "fuser/pointwise_expr.h"
#include "ir/ops.h"
#include "ir/text.h"
#include "ir/verify.h"
#include "runtime/device.h"
#include "runtime/interpreter.h"

static IrGraph *parse(const char *text) {
  GError *error = NULL;
  IrGraph *graph = ir_graph_parse(text, strlen(text), "test.ir", &error);
  g_assert_no_error(error);
  return graph;
}

static void assert_fuses_to(const char *in, const char *expected) {
  IrGraph *g = parse(in);
  g_assert_true(pass_fuse_graph(g));
  ir_graph_assert_valid(g, "fuse_graph");
  char *text = ir_graph_to_string(g);
  g_assert_cmpstr(text, ==, expected);
  g_free(text);
  ir_graph_free(g);
}

static void test_text_size_and_sum_to(void) {
  assert_fuses_to("graph(%a : Float(*, *),\n      %b : Float(*, *),\n      %s : int[]):\n"
                  "  %one : int = prim::Constant[value=1]()\n"
                  "  %x : Float(*, *) = aten::mul(%a, %b)\n"
                  "  %y : Float(*, *) = aten::sigmoid(%x)\n"
                  "  %n : int[] = aten::size(%y)\n"
                  "  %z : Float(*, *) = aten::add(%y, %a, %one)\n"
                  "  %g : Float(*, *) = aten::_grad_sum_to_size(%z, %s)\n"
                  "  %h : Float(*, *) = aten::neg(%g)\n"
                  "  return (%h, %n)\n",
                  "graph(%a : Float(*, *),\n      %b : Float(*, *),\n      %s : int[]):\n"
                  "  %h : Float(*, *) = prim::FusionGroup_0[sum_to_size_inputs=[2]](%a, %b, %s)\n"
                  "  %13 : int[] = aten::size(%a)\n"
                  "  %14 : int[] = aten::size(%b)\n"
                  "  %15 : int[] = prim::BroadcastSizes(%13, %14)\n"
                  "  return (%h, %15)\n"
                  "with prim::FusionGroup_0 = graph(%a : Float(*, *),\n      %b : Float(*, *),\n"
                  "      %s : int[]):\n"
                  "  %7 : int = prim::Constant[value=1]()\n"
                  "  %x : Float(*, *) = aten::mul(%a, %b)\n"
                  "  %y : Float(*, *) = aten::sigmoid(%x)\n"
                  "  %z : Float(*, *) = aten::add(%y, %a, %7)\n"
                  "  %h : Float(*, *) = aten::neg(%z)\n"
                  "  return (%h)\n");
}

/* A sum-to-size whose result meets a full-size tensor in a mul stays outside. */
static void test_sum_to_not_commuting_stays_outside(void) {
  IrGraph *g = parse("graph(%a : Float(*, *),\n      %b : Float(*, *),\n      %s : int[]):\n"
                     "  %x : Float(*, *) = aten::neg(%a)\n"
                     "  %g : Float(*, *) = aten::_grad_sum_to_size(%x, %s)\n"
                     "  %h : Float(*, *) = aten::mul(%g, %b)\n"
                     "  return (%h)\n");
  g_assert_true(pass_fuse_graph(g));
  guint groups = 0, muls = 0;
  IR_FOR_EACH_NODE(n, g->block) {
    groups += n->kind == IR_PRIM_FUSION_GROUP;
    muls += n->kind == IR_ATEN_MUL;
    g_assert_cmpint(n->kind, !=, IR_ATEN_GRAD_SUM_TO_SIZE); /* inside the group */
  }
  g_assert_cmpuint(groups, ==, 1);
  g_assert_cmpuint(muls, ==, 1);
  IrNode *first = g->block->param->next;
  g_assert_cmpint(first->kind, ==, IR_PRIM_FUSION_GROUP);
  g_assert_true(ir_node_has_attr(first, FUSER_ATTR_SUM_TO_SIZE));
  ir_graph_free(g);
}

static guint count_kind(IrGraph *g, IrOpKind kind) {
  guint n_kind = 0;
  IR_FOR_EACH_NODE(n, g->block) {
    n_kind += n->kind == kind;
  }
  return n_kind;
}

/* A group that already sums takes in a _grad_sum_to_size of an output it does not sum (the
 * MiLSTM backward: gradients of alpha and beta_h from one kernel), but a sum of a sum stays
 * outside. */
static void test_sum_of_unsummed_output_joins(void) {
  IrGraph *g = parse("graph(%a : Float(*, *),\n      %b : Float(*, *),\n      %s : int[],\n"
                     "      %t : int[]):\n"
                     "  %x : Float(*, *) = aten::mul(%a, %b)\n"
                     "  %g : Float(*, *) = aten::_grad_sum_to_size(%x, %s)\n"
                     "  %y : Float(*, *) = aten::neg(%x)\n"
                     "  %h : Float(*, *) = aten::mul(%y, %a)\n"
                     "  %k : Float(*, *) = aten::_grad_sum_to_size(%h, %t)\n"
                     "  return (%g, %k, %h)\n");
  g_assert_true(pass_fuse_graph(g));
  ir_graph_assert_valid(g, "fuse_graph");
  g_assert_cmpuint(count_kind(g, IR_PRIM_FUSION_GROUP), ==, 1);
  g_assert_cmpuint(count_kind(g, IR_ATEN_GRAD_SUM_TO_SIZE), ==, 0);
  IrNode *group = g->block->param->next;
  const IrAttr *a = ir_node_attr(group, g_intern_static_string(FUSER_ATTR_SUM_TO_SIZE));
  g_assert_nonnull(a);
  guint summed = 0;
  for (guint i = 0; i < a->v.is->len; i++)
    summed += g_array_index(a->v.is, gint64, i) >= 0;
  g_assert_cmpuint(summed, ==, 2);
  ir_graph_free(g);

  g = parse("graph(%a : Float(*, *),\n      %b : Float(*, *),\n      %s : int[],\n"
            "      %t : int[]):\n"
            "  %x : Float(*, *) = aten::mul(%a, %b)\n"
            "  %g : Float(*, *) = aten::_grad_sum_to_size(%x, %s)\n"
            "  %k : Float(*, *) = aten::_grad_sum_to_size(%g, %t)\n"
            "  return (%k)\n");
  g_assert_true(pass_fuse_graph(g));
  g_assert_cmpuint(count_kind(g, IR_PRIM_FUSION_GROUP), ==, 1);
  g_assert_cmpuint(count_kind(g, IR_ATEN_GRAD_SUM_TO_SIZE), ==, 1);
  ir_graph_free(g);
}

/* A sum left outside joins a group that reads its tensor whole (a horizontal merge), unless
 * the group chunks that tensor or the sum's result is used before the group; sums of a tensor
 * no group reads stay outside, as in the reference's LSTM backward. */
static void test_sum_of_group_input_joins(void) {
  IrGraph *g = parse("graph(%a : Float(*, *),\n      %b : Float(*, *),\n      %s : int[]):\n"
                     "  %x : Float(*, *) = aten::mm(%a, %b)\n"
                     "  %k : Float(*, *) = aten::_grad_sum_to_size(%x, %s)\n"
                     "  %y : Float(*, *) = aten::sigmoid(%x)\n"
                     "  %h : Float(*, *) = aten::mul(%y, %a)\n"
                     "  return (%k, %h)\n");
  g_assert_true(pass_fuse_graph(g));
  ir_graph_assert_valid(g, "fuse_graph");
  g_assert_cmpuint(count_kind(g, IR_PRIM_FUSION_GROUP), ==, 1);
  g_assert_cmpuint(count_kind(g, IR_ATEN_GRAD_SUM_TO_SIZE), ==, 0);
  ir_graph_free(g);

  g = parse("graph(%a : Float(*, *),\n      %b : Float(*, *),\n      %s : int[]):\n"
            "  %x : Float(*, *) = aten::mm(%a, %b)\n"
            "  %k : Float(*, *) = aten::_grad_sum_to_size(%x, %s)\n"
            "  %p : Float(*, *), %q : Float(*, *) = prim::ConstantChunk[chunks=2, dim=1](%x)\n"
            "  %y : Float(*, *) = aten::sigmoid(%p)\n"
            "  %h : Float(*, *) = aten::mul(%y, %q)\n"
            "  return (%k, %h)\n");
  g_assert_true(pass_fuse_graph(g));
  g_assert_cmpuint(count_kind(g, IR_ATEN_GRAD_SUM_TO_SIZE), ==, 1);
  ir_graph_free(g);

  g = parse("graph(%a : Float(*, *),\n      %b : Float(*, *),\n      %s : int[]):\n"
            "  %x : Float(*, *) = aten::mm(%a, %b)\n"
            "  %k : Float(*, *) = aten::_grad_sum_to_size(%x, %s)\n"
            "  %m : Float(*, *) = aten::mm(%k, %b)\n"
            "  %y : Float(*, *) = aten::sigmoid(%x)\n"
            "  %h : Float(*, *) = aten::mul(%y, %m)\n"
            "  return (%h)\n");
  g_assert_true(pass_fuse_graph(g));
  g_assert_cmpuint(count_kind(g, IR_ATEN_GRAD_SUM_TO_SIZE), ==, 1);
  ir_graph_free(g);

  g = parse("graph(%a : Float(*, *),\n      %b : Float(*, *),\n      %s : int[],\n"
            "      %t : int[]):\n"
            "  %x : Float(*, *) = aten::mm(%a, %b)\n"
            "  %k : Float(*, *) = aten::_grad_sum_to_size(%x, %s)\n"
            "  %l : Float(*, *) = aten::_grad_sum_to_size(%x, %t)\n"
            "  return (%k, %l)\n");
  g_assert_false(pass_fuse_graph(g));
  g_assert_cmpuint(count_kind(g, IR_ATEN_GRAD_SUM_TO_SIZE), ==, 2);
  ir_graph_free(g);
}

static void test_nothing_to_fuse(void) {
  IrGraph *g = parse("graph(%a : Float(*, *),\n      %b : Float(*, *)):\n"
                     "  %x : Float(*, *) = aten::mm(%a, %b)\n"
                     "  %y : Float(*, *) = aten::t(%x)\n"
                     "  return (%y)\n");
  g_assert_false(pass_fuse_graph(g));
  ir_graph_free(g);
}

/* Every ops.def expression parses; sample values. */
static void test_expressions(void) {
  guint n_pointwise = 0;
  for (guint i = 0; i < ir_ops_count(); i++) {
    const char *text = ir_ops_def(i)->pointwise;
    if (!text)
      continue;
    GError *error = NULL;
    PwExpr *e = pw_expr_parse(text, false, &error);
    g_assert_no_error(error);
    g_assert_cmpint(pw_expr_n_args(e), <=, (int)ir_ops_schema(i)->n_args);
    pw_expr_free(e);
    n_pointwise++;
  }
  g_assert_cmpuint(n_pointwise, >, 40);
  struct {
    const char *text;
    double args[3];
    double want;
  } cases[] = {
      {"1 / (1 + exp(-A0))", {0}, 0.5},
      {"(A0 < A1 ? A1 : (A0 > A2 ? A2 : A0))", {5, -1, 2}, 2},
      {"(A0 < A1 ? A1 : (A0 > A2 ? A2 : A0))", {-5, -1, 2}, -1},
      {"A0 + A2 * A1", {1, 2, 3}, 7},
      {"-A0 - -A1", {1, 2}, 1},
      {"(A0 <= A1)", {2, 2}, 1},
      {"(A0 != A1) == 0", {2, 2}, 1},
      {"pow(A0, A1)", {2, 10}, 1024},
      {"A0 - trunc(A0)", {2.75}, 0.75},
      {"2 * 3 + 4 / 2 - 1", {0}, 7},
  };
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    PwExpr *e = pw_expr_parse(cases[i].text, false, NULL);
    g_assert_nonnull(e);
    g_assert_cmpfloat_with_epsilon(pw_expr_eval(e, cases[i].args), cases[i].want, 1e-12);
    double a0[PW_BLOCK], out[PW_BLOCK];
    for (int k = 0; k < PW_BLOCK; k++)
      a0[k] = cases[i].args[0];
    const double *args[3] = {a0, &cases[i].args[1], &cases[i].args[2]};
    int strides[3] = {1, 0, 0};
    pw_expr_eval_block(e, args, strides, out, PW_BLOCK);
    g_assert_cmpfloat_with_epsilon(out[PW_BLOCK - 1], cases[i].want, 1e-12);
    pw_expr_free(e);
  }
  GError *error = NULL;
  g_assert_null(pw_expr_parse("A0 + ", false, &error));
  g_assert_nonnull(strstr(error->message, "column 6"));
  g_clear_error(&error);
  g_assert_null(pw_expr_parse("frob(A0)", false, &error));
  g_assert_nonnull(strstr(error->message, "unknown function"));
  g_clear_error(&error);
  /* R (the result) is for derivatives only; a name that merely starts like A0 is no operand. */
  g_assert_null(pw_expr_parse("R * A0", false, &error));
  g_assert_nonnull(strstr(error->message, "only in derivatives"));
  g_clear_error(&error);
  PwExpr *d = pw_expr_parse("R * A0", true, &error);
  g_assert_no_error(error);
  pw_expr_free(d);
  g_assert_null(pw_expr_parse("A0x + 1", false, &error));
  g_clear_error(&error);
}

/* Runs a fused graph with and without the fuser's backend and compares; the plan's group
 * records hold `record` (what ran FusionGroup_0, and why) and no other backend. */
static void compare_fused_records(const char *text, RtValue *inputs, guint n, const char *record) {
  IrGraph *plain = parse(text);
  IrGraph *fused = parse(text);
  g_assert_true(pass_fuse_graph(fused));
  RtValue *want = NULL, *got = NULL;
  guint n_want = 0, n_got = 0;
  GError *error = NULL;
  g_assert_true(rt_interpret(plain, NULL, inputs, n, &want, &n_want, &error));
  g_assert_no_error(error);
  /* Through the executor: its hook runs FusionGroups with fuser_run_group. */
  ExecSession *session = exec_session_new();
  session->verify = true;
  ExecExecutor *ex = exec_executor_new(session, fused, "fused", EXEC_PLAN_FORWARD);
  g_assert_true(exec_executor_run(ex, inputs, n, &got, &n_got, &error));
  g_assert_no_error(error);
  g_assert_cmpuint(n_got, ==, n_want);
  for (guint i = 0; i < n_got; i++) {
    RtTensor *a = got[i].u.tensor, *b = want[i].u.tensor;
    g_assert_cmpint(a->ndim, ==, b->ndim);
    for (int d = 0; d < a->ndim; d++)
      g_assert_cmpint(a->sizes[d], ==, b->sizes[d]);
    for (int64_t e = 0; e < rt_tensor_numel(a); e++)
      g_assert_cmpfloat_with_epsilon(rt_tensor_get(a, e), rt_tensor_get(b, e), 1e-5);
    rt_value_unref(got[i]);
    rt_value_unref(want[i]);
  }
  ExecPlan *plan = g_ptr_array_index(session->plans, 0);
  char *records = fuser_plan_records_describe(plan->fuser);
  g_assert_nonnull(strstr(records, record));
  if (!strstr(record, "interpreter"))
    g_assert_null(strstr(records, "interpreter"));
  g_free(records);
  g_free(got);
  g_free(want);
  exec_session_free(session);
  ir_graph_free(plain);
  ir_graph_free(fused);
}

static void compare_fused_with_interpreter(const char *text, RtValue *inputs, guint n) {
  compare_fused_records(text, inputs, n, "FusionGroup_0: cpu");
}

static RtValue randn(int64_t r, int64_t c, guint64 seed) {
  int64_t sizes[2] = {r, c};
  return rt_tensor(rt_tensor_randn(IR_DTYPE_FLOAT32, 2, sizes, seed));
}

static void test_cpu_loop_chunk_concat_broadcast(void) {
  const char *text =
      "graph(%a : Float(*, *),\n      %b : Float(*, *),\n      %c : Float(*, *)):\n"
      "  %one : int = prim::Constant[value=1]()\n"
      "  %x0 : Float(*, *), %x1 : Float(*, *) = prim::ConstantChunk[chunks=2, dim=1](%a)\n"
      "  %s : Float(*, *) = aten::sigmoid(%x0)\n"
      "  %t : Float(*, *) = aten::tanh(%x1)\n"
      "  %m : Float(*, *) = aten::mul(%s, %b)\n"
      "  %n : Float(*, *) = aten::add(%t, %c, %one)\n"
      "  %l : Tensor[] = prim::ListConstruct(%m, %n)\n"
      "  %cat : Float(*, *) = aten::cat(%l, %one)\n"
      "  return (%cat, %n)\n";
  /* a: 6x8 (chunks of 6x4), b: 6x1 broadcast, c: 1x4 broadcast. */
  RtValue in[3] = {randn(6, 8, 1), randn(6, 1, 2), randn(1, 4, 3)};
  compare_fused_with_interpreter(text, in, 3);
  /* Large enough for the two-thread path. */
  RtValue big[3] = {randn(300, 400, 4), randn(300, 1, 5), randn(1, 200, 6)};
  compare_fused_with_interpreter(text, big, 3);
  for (guint i = 0; i < 3; i++) {
    rt_value_unref(in[i]);
    rt_value_unref(big[i]);
  }
}

/* A pointwise op whose result is chunked into a group and also used after it moves into the
 * group all the same: the later user reads the pieces concatenated back, a FusedConcat output
 * of the group (no op left outside), with the numbers of the unfused graph; an earlier user
 * keeps the op outside. */
static void test_chunk_move_rejoins_later_user(void) {
  const char *text =
      "graph(%a : Float(*, *),\n      %b : Float(*, *),\n      %c : Float(*, *)):\n"
      "  %x : Float(*, *) = aten::mul(%a, %b)\n"
      "  %p : Float(*, *), %q : Float(*, *) = prim::ConstantChunk[chunks=2, dim=1](%x)\n"
      "  %y : Float(*, *) = aten::sigmoid(%p)\n"
      "  %h : Float(*, *) = aten::mul(%y, %q)\n"
      "  %z : Float(*, *) = aten::mm(%x, %c)\n"
      "  return (%h, %z)\n";
  IrGraph *g = parse(text);
  g_assert_true(pass_fuse_graph(g));
  ir_graph_assert_valid(g, "fuse_graph");
  g_assert_cmpuint(count_kind(g, IR_PRIM_FUSION_GROUP), ==, 1);
  g_assert_cmpuint(count_kind(g, IR_ATEN_MUL), ==, 0);
  /* Fusing again finds nothing, says so and leaves no trace (it used to insert the sizes of
   * the group's outputs and leave them dead while returning false). */
  g_autofree char *fused = ir_graph_to_string(g);
  g_assert_false(pass_fuse_graph(g));
  g_autofree char *again = ir_graph_to_string(g);
  g_assert_cmpstr(again, ==, fused);
  IrNode *group = NULL;
  IR_FOR_EACH_NODE(n, g->block) {
    if (n->kind == IR_PRIM_FUSION_GROUP)
      group = n;
  }
  g_assert_cmpuint(count_kind(ir_node_attr_g(group, IR_ATTR_SUBGRAPH), IR_PRIM_FUSED_CONCAT), ==,
                   1);
  ir_graph_free(g);
  RtValue in[3] = {randn(6, 8, 7), randn(6, 8, 8), randn(8, 8, 9)};
  compare_fused_with_interpreter(text, in, 3);
  for (guint i = 0; i < 3; i++)
    rt_value_unref(in[i]);

  g = parse("graph(%a : Float(*, *),\n      %b : Float(*, *),\n      %c : Float(*, *)):\n"
            "  %x : Float(*, *) = aten::mul(%a, %b)\n"
            "  %z : Float(*, *) = aten::mm(%x, %c)\n"
            "  %p : Float(*, *), %q : Float(*, *) = prim::ConstantChunk[chunks=2, dim=1](%x)\n"
            "  %y : Float(*, *) = aten::sigmoid(%p)\n"
            "  %h : Float(*, *) = aten::mul(%y, %q)\n"
            "  return (%h, %z)\n");
  g_assert_true(pass_fuse_graph(g));
  g_assert_cmpuint(count_kind(g, IR_ATEN_MUL), ==, 1);
  ir_graph_free(g);
}

/* Two groups that read a tensor whole and do not depend on each other become one (sums
 * included), whichever of them has to move; not when one reads the other's output, chunks
 * the tensor, reads an input of a higher rank, when neither may move beside the other, or
 * when the two are too large together. */
static void test_siblings_merge(void) {
  const char *head = "graph(%g : Float(*, *),\n      %w : Float(*, *),\n      %u : Float(*, *),\n"
                     "      %s : int[]):\n";
  struct {
    const char *body;
    guint groups;
  } cases[] = {
      {"  %a : Float(*, *) = aten::mul(%g, %w)\n"
       "  %sa : Float(*, *) = aten::_grad_sum_to_size(%a, %s)\n"
       "  %b : Float(*, *) = aten::mul(%g, %u)\n"
       "  %c : Float(*, *) = aten::sigmoid(%b)\n"
       "  return (%sa, %c)\n",
       1},
      /* A's result feeds an mm before B: B moves up to A. */
      {"  %a : Float(*, *) = aten::mul(%g, %w)\n"
       "  %t : Float(*, *) = aten::tanh(%a)\n"
       "  %m : Float(*, *) = aten::mm(%t, %w)\n"
       "  %b : Float(*, *) = aten::mul(%g, %u)\n"
       "  %c : Float(*, *) = aten::sigmoid(%b)\n"
       "  return (%m, %c)\n",
       1},
      /* B reads that mm: neither may move. */
      {"  %a : Float(*, *) = aten::mul(%g, %w)\n"
       "  %t : Float(*, *) = aten::tanh(%a)\n"
       "  %m : Float(*, *) = aten::mm(%t, %w)\n"
       "  %b : Float(*, *) = aten::mul(%g, %m)\n"
       "  %c : Float(*, *) = aten::sigmoid(%b)\n"
       "  return (%c)\n",
       2},
      /* B reads A's sum. */
      {"  %a : Float(*, *) = aten::mul(%g, %w)\n"
       "  %sa : Float(*, *) = aten::_grad_sum_to_size(%a, %s)\n"
       "  %b : Float(*, *) = aten::mul(%g, %sa)\n"
       "  %c : Float(*, *) = aten::sigmoid(%b)\n"
       "  return (%c)\n",
       2},
      /* B chunks the tensor. */
      {"  %a : Float(*, *) = aten::mul(%g, %w)\n"
       "  %t : Float(*, *) = aten::tanh(%a)\n"
       "  %p : Float(*, *), %q : Float(*, *) = prim::ConstantChunk[chunks=2, dim=1](%g)\n"
       "  %b : Float(*, *) = aten::mul(%p, %q)\n"
       "  %c : Float(*, *) = aten::sigmoid(%b)\n"
       "  return (%t, %c)\n",
       2},
  };
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autofree char *text = g_strconcat(head, cases[i].body, NULL);
    IrGraph *g = parse(text);
    g_assert_true(pass_fuse_graph(g));
    ir_graph_assert_valid(g, "fuse_graph");
    g_assert_cmpuint(count_kind(g, IR_PRIM_FUSION_GROUP), ==, cases[i].groups);
    g_assert_cmpuint(count_kind(g, IR_ATEN_GRAD_SUM_TO_SIZE), ==, 0);
    ir_graph_free(g);
  }
  /* A 3-d input of B: its map may be larger than the shared tensor's. */
  IrGraph *g = parse("graph(%g : Float(*, *),\n      %w : Float(*, *),\n"
                     "      %v : Float(*, *, *)):\n"
                     "  %a : Float(*, *) = aten::mul(%g, %w)\n"
                     "  %t : Float(*, *) = aten::tanh(%a)\n"
                     "  %b : Float(*, *, *) = aten::mul(%g, %v)\n"
                     "  %c : Float(*, *, *) = aten::sigmoid(%b)\n"
                     "  return (%t, %c)\n");
  g_assert_true(pass_fuse_graph(g));
  g_assert_cmpuint(count_kind(g, IR_PRIM_FUSION_GROUP), ==, 2);
  ir_graph_free(g);

  /* Two chains of 130 ops over %g: together past the 256 nodes a merge may make. */
  GString *text = g_string_new("graph(%g : Float(*, *)):\n");
  for (int k = 0; k < 2; k++) {
    g_string_append_printf(text, "  %%c%d_0 : Float(*, *) = aten::%s(%%g)\n", k,
                           k ? "sigmoid" : "tanh");
    for (int i = 1; i < 130; i++)
      g_string_append_printf(text, "  %%c%d_%d : Float(*, *) = aten::%s(%%c%d_%d)\n", k, i,
                             k ? "sigmoid" : "tanh", k, i - 1);
  }
  g_string_append(text, "  return (%c0_129, %c1_129)\n");
  g = parse(text->str);
  g_string_free(text, TRUE);
  g_assert_true(pass_fuse_graph(g));
  g_assert_cmpuint(count_kind(g, IR_PRIM_FUSION_GROUP), ==, 2);
  ir_graph_free(g);

  /* 200 siblings of 3 nodes (constant, mul, sigmoid) over %g: runs of 85 (255 nodes), 85
   * and 30. */
  text = g_string_new("graph(%g : Float(*, *)):\n");
  for (int i = 0; i < 200; i++)
    g_string_append_printf(text,
                           "  %%k%d : float = prim::Constant[value=%d.5]()\n"
                           "  %%m%d : Float(*, *) = aten::mul(%%g, %%k%d)\n"
                           "  %%s%d : Float(*, *) = aten::sigmoid(%%m%d)\n",
                           i, i, i, i, i, i);
  g_string_append(text, "  %l : Tensor[] = prim::ListConstruct(");
  for (int i = 0; i < 200; i++)
    g_string_append_printf(text, "%s%%s%d", i ? ", " : "", i);
  g_string_append(text, ")\n  return (%l)\n");
  g = parse(text->str);
  g_string_free(text, TRUE);
  g_assert_true(pass_fuse_graph(g));
  ir_graph_assert_valid(g, "fuse_graph");
  g_assert_cmpuint(count_kind(g, IR_PRIM_FUSION_GROUP), ==, 3);
  ir_graph_free(g);
}

/* Merged siblings compute what they computed apart: with equal maps, with one map inside the
 * other (the smaller sibling's output keeps its shape), and with maps that do not broadcast
 * together (x of shape [1, 7] broadcast to 3 and 4 rows), where the backends decline and the
 * group is interpreted, saying why. */
static void test_siblings_merge_numbers(void) {
  const char *text = "graph(%x : Float(*, *),\n      %y : Float(*, *),\n      %z : Float(*, *)):\n"
                     "  %a : Float(*, *) = aten::mul(%x, %y)\n"
                     "  %t : Float(*, *) = aten::tanh(%a)\n"
                     "  %b : Float(*, *) = aten::div(%x, %z)\n"
                     "  %c : Float(*, *) = aten::sigmoid(%b)\n"
                     "  return (%t, %c)\n";
  IrGraph *g = parse(text);
  g_assert_true(pass_fuse_graph(g));
  g_assert_cmpuint(count_kind(g, IR_PRIM_FUSION_GROUP), ==, 1);
  ir_graph_free(g);
  struct {
    int64_t x[2], y[2], z[2];
    const char *record;
  } cases[] = {
      {{5, 7}, {5, 7}, {1, 7}, "FusionGroup_0: cpu"},
      {{600, 1000}, {1, 1000}, {600, 1000}, "FusionGroup_0: cpu"},
      {{1, 7}, {1, 7}, {4, 7}, "FusionGroup_0: cpu"},
      {{1, 7}, {3, 7}, {4, 7}, "FusionGroup_0: interpreter"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    RtValue in[3] = {randn(cases[i].x[0], cases[i].x[1], 10 + i),
                     randn(cases[i].y[0], cases[i].y[1], 20 + i),
                     randn(cases[i].z[0], cases[i].z[1], 30 + i)};
    compare_fused_records(text, in, 3, cases[i].record);
    for (guint k = 0; k < 3; k++)
      rt_value_unref(in[k]);
  }
}

/* The done-when structures hold for device=cuda specs too: with CUDA (the cudaemu suite runs
 * these cases on the emulator) the inputs are put on the device, the plans are specialized for
 * device=cuda and the fusion groups run there. Without CUDA the case is skipped. */
static bool on_device(RtTensor **t, guint n) {
  GError *error = NULL;
  if (!cuda_runtime_enable(&error)) {
    g_test_skip(error->message);
    g_error_free(error);
    return false;
  }
  for (guint i = 0; i < n; i++) {
    RtTensor *d = rt_tensor_to_device(t[i], IR_DEVICE_CUDA, &error);
    g_assert_no_error(error);
    rt_tensor_unref(t[i]);
    t[i] = d;
  }
  return true;
}

/* Every FusionGroup of the session's plans ran on `backend` (its records), at least `min`. */
static void assert_groups_ran_on(ExecSession *session, const char *backend, guint min) {
  guint ran = 0;
  for (guint p = 0; p < session->plans->len; p++) {
    const ExecPlan *plan = g_ptr_array_index(session->plans, p);
    GHashTable *records = fuser_plan_records(plan->fuser);
    if (records == NULL)
      continue;
    GHashTableIter it;
    gpointer value;
    g_hash_table_iter_init(&it, records);
    while (g_hash_table_iter_next(&it, NULL, &value)) {
      const FuserGroupRecord *r = value;
      g_assert_cmpstr(r->backend, ==, backend);
      ran++;
    }
  }
  g_assert_cmpuint(ran, >=, min);
}

/* Forward f of the LSTM cell (weights requiring grad): exactly one FusionGroup, aten::t and
 * aten::mm outside it; backward: everything fused except t, mm, _grad_sum_to_size and size
 * bookkeeping. */
static void lstm_structure(bool cuda) {
  char *path = g_build_filename(g_getenv("JITSCOPE_CORPUS_DIR"), "lstm_cell", "graph.ir", NULL);
  char *text = NULL;
  gsize len = 0;
  if (!g_file_get_contents(path, &text, &len, NULL)) {
    g_free(path);
    g_test_skip("no corpus");
    return;
  }
  IrGraph *graph = ir_graph_parse(text, len, path, NULL);
  g_assert_nonnull(graph);
  ExecSession *session = exec_session_new();
  session->verify = true;
  ExecExecutor *ex = exec_executor_new(session, graph, "main", EXEC_PLAN_FORWARD);
  int64_t B = 3, H = 5, I = 4;
  int64_t sx[2] = {B, I}, sh[2] = {B, H}, swi[2] = {4 * H, I}, swh[2] = {4 * H, H}, sb[1] = {4 * H};
  RtTensor *t[7] = {
      rt_tensor_randn(IR_DTYPE_FLOAT32, 2, sx, 1),  rt_tensor_randn(IR_DTYPE_FLOAT32, 2, sh, 2),
      rt_tensor_randn(IR_DTYPE_FLOAT32, 2, sh, 3),  rt_tensor_randn(IR_DTYPE_FLOAT32, 2, swi, 4),
      rt_tensor_randn(IR_DTYPE_FLOAT32, 2, swh, 5), rt_tensor_randn(IR_DTYPE_FLOAT32, 1, sb, 6),
      rt_tensor_randn(IR_DTYPE_FLOAT32, 1, sb, 7)};
  if (cuda && !on_device(t, 7)) {
    for (guint i = 0; i < 7; i++)
      rt_tensor_unref(t[i]);
    exec_session_free(session);
    ir_graph_free(graph);
    g_free(text);
    g_free(path);
    return;
  }
  RtValue in[7];
  for (guint i = 0; i < 7; i++) {
    t[i]->requires_grad = i >= 3;
    in[i] = rt_tensor(t[i]);
  }
  RtValue *outs = NULL;
  guint n_outs = 0;
  GError *error = NULL;
  g_assert_true(exec_executor_run(ex, in, 7, &outs, &n_outs, &error));
  g_assert_no_error(error);
  RtTensor *flat[2] = {outs[0].u.seq->items[0].u.tensor, outs[0].u.seq->items[1].u.tensor};
  RtTensor *grads[7] = {0};
  g_assert_true(exec_session_backward(session, flat, NULL, 2, t, 7, grads, &error));
  g_assert_no_error(error);
  guint forward_checked = 0, backward_checked = 0;
  for (guint p = 0; p < session->plans->len; p++) {
    ExecPlan *plan = g_ptr_array_index(session->plans, p);
    if (plan->kind == EXEC_PLAN_FORWARD) {
      IR_FOR_EACH_NODE(n, plan->graph->block) {
        if (n->kind != IR_PRIM_DIFFERENTIABLE_GRAPH)
          continue;
        IrGraph *f = ir_node_attr_g(n, IR_ATTR_SUBGRAPH);
        guint groups = 0, t_count = 0, mm = 0;
        IR_FOR_EACH_NODE(m, f->block) {
          groups += m->kind == IR_PRIM_FUSION_GROUP;
          t_count += m->kind == IR_ATEN_T;
          mm += m->kind == IR_ATEN_MM;
          g_assert_true(m->kind == IR_PRIM_FUSION_GROUP || m->kind == IR_ATEN_T ||
                        m->kind == IR_ATEN_MM || m->kind == IR_ATEN_SIZE ||
                        m->kind == IR_PRIM_BROADCAST_SIZES ||
                        m->kind == IR_ATEN_SIZE_IF_NOT_EQUAL || m->kind == IR_ATEN_EXPAND ||
                        m->kind == IR_PRIM_CONSTANT);
        }
        g_assert_cmpuint(groups, ==, 1);
        g_assert_cmpuint(t_count, ==, 2);
        g_assert_cmpuint(mm, ==, 2);
        forward_checked++;
      }
    } else {
      guint groups = 0;
      IR_FOR_EACH_NODE(m, plan->graph->block) {
        groups += m->kind == IR_PRIM_FUSION_GROUP;
        g_assert_true(m->kind == IR_PRIM_FUSION_GROUP || m->kind == IR_ATEN_T ||
                      m->kind == IR_ATEN_MM || m->kind == IR_ATEN_GRAD_SUM_TO_SIZE ||
                      m->kind == IR_ATEN_SIZE || m->kind == IR_PRIM_BROADCAST_SIZES ||
                      m->kind == IR_PRIM_TUPLE_CONSTRUCT || m->kind == IR_PRIM_CONSTANT);
      }
      g_assert_cmpuint(groups, ==, 1);
      backward_checked++;
    }
  }
  g_assert_cmpuint(forward_checked, ==, 1);
  g_assert_cmpuint(backward_checked, ==, 1);
  if (cuda)
    assert_groups_ran_on(session, "cuda", 2); /* f's and the backward's */
  for (guint i = 0; i < 7; i++) {
    if (grads[i])
      rt_tensor_unref(grads[i]);
    rt_value_unref(in[i]);
  }
  for (guint i = 0; i < n_outs; i++)
    rt_value_unref(outs[i]);
  g_free(outs);
  exec_session_free(session);
  ir_graph_free(graph);
  g_free(text);
  g_free(path);
}

static void test_lstm_structure(void) {
  lstm_structure(false);
}
static void test_lstm_structure_cuda(void) {
  lstm_structure(true);
}

/* (a+b)+c, three 5x1 inputs requiring grad: f is all fused except its size bookkeeping. */
static void broadcast_cell_forward(bool cuda) {
  IrGraph *graph = parse("graph(%a.1 : Tensor,\n      %b.1 : Tensor,\n      %c.1 : Tensor):\n"
                         "  %5 : int = prim::Constant[value=1]()\n"
                         "  %6 : Tensor = aten::add(%a.1, %b.1, %5)\n"
                         "  %9 : Tensor = aten::add(%6, %c.1, %5)\n"
                         "  return (%9)\n");
  ExecSession *session = exec_session_new();
  session->verify = true;
  ExecExecutor *ex = exec_executor_new(session, graph, "main", EXEC_PLAN_FORWARD);
  RtValue in[3];
  RtTensor *leaves[3];
  for (guint k = 0; k < 3; k++)
    leaves[k] = randn(5, 1, k).u.tensor;
  if (cuda && !on_device(leaves, 3)) {
    for (guint k = 0; k < 3; k++)
      rt_tensor_unref(leaves[k]);
    exec_session_free(session);
    ir_graph_free(graph);
    return;
  }
  for (guint k = 0; k < 3; k++) {
    in[k] = rt_tensor(leaves[k]);
    leaves[k]->requires_grad = true;
  }
  RtValue *outs = NULL;
  guint n_outs = 0;
  GError *error = NULL;
  g_assert_true(exec_executor_run(ex, in, 3, &outs, &n_outs, &error));
  g_assert_no_error(error);
  ExecPlan *plan = g_ptr_array_index(session->plans, 0);
  guint diff = 0;
  IR_FOR_EACH_NODE(n, plan->graph->block) {
    if (n->kind != IR_PRIM_DIFFERENTIABLE_GRAPH)
      continue;
    diff++;
    guint groups = 0, bookkeeping = 0;
    IR_FOR_EACH_NODE(m, ir_node_attr_g(n, IR_ATTR_SUBGRAPH)->block) {
      groups += m->kind == IR_PRIM_FUSION_GROUP;
      bookkeeping += m->kind == IR_ATEN_SIZE_IF_NOT_EQUAL;
      g_assert_true(m->kind == IR_PRIM_FUSION_GROUP || m->kind == IR_ATEN_SIZE ||
                    m->kind == IR_PRIM_BROADCAST_SIZES || m->kind == IR_ATEN_SIZE_IF_NOT_EQUAL ||
                    m->kind == IR_PRIM_CONSTANT);
    }
    g_assert_cmpuint(groups, ==, 1);
    g_assert_cmpuint(bookkeeping, ==, 4);
  }
  g_assert_cmpuint(diff, ==, 1);
  RtTensor *grads[3] = {0};
  g_assert_true(
      exec_session_backward(session, &outs[0].u.tensor, NULL, 1, leaves, 3, grads, &error));
  g_assert_no_error(error);
  for (guint k = 0; k < 3; k++) {
    g_assert_cmpint(grads[k]->sizes[0], ==, 5);
    g_assert_cmpint(grads[k]->sizes[1], ==, 1);
    RtTensor *host = rt_tensor_to_host(grads[k], &error);
    g_assert_no_error(error);
    g_assert_cmpfloat(rt_tensor_get(host, 0), ==, 1.0);
    rt_tensor_unref(host);
    rt_tensor_unref(grads[k]);
    rt_value_unref(in[k]);
  }
  if (cuda)
    assert_groups_ran_on(session, "cuda", 1);
  rt_value_unref(outs[0]);
  g_free(outs);
  exec_session_free(session);
  ir_graph_free(graph);
}

static void test_broadcast_cell_forward(void) {
  broadcast_cell_forward(false);
}
static void test_broadcast_cell_forward_cuda(void) {
  broadcast_cell_forward(true);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/fuser/text/size-and-sum-to", test_text_size_and_sum_to);
  g_test_add_func("/fuser/text/sum-to-not-commuting", test_sum_to_not_commuting_stays_outside);
  g_test_add_func("/fuser/text/sum-of-unsummed-output-joins", test_sum_of_unsummed_output_joins);
  g_test_add_func("/fuser/text/sum-of-group-input-joins", test_sum_of_group_input_joins);
  g_test_add_func("/fuser/text/nothing-to-fuse", test_nothing_to_fuse);
  g_test_add_func("/fuser/expressions", test_expressions);
  g_test_add_func("/fuser/cpu-loop/chunk-concat-broadcast", test_cpu_loop_chunk_concat_broadcast);
  g_test_add_func("/fuser/cpu-loop/chunk-move-rejoins-later-user",
                  test_chunk_move_rejoins_later_user);
  g_test_add_func("/fuser/siblings/merge", test_siblings_merge);
  g_test_add_func("/fuser/siblings/numbers", test_siblings_merge_numbers);
  g_test_add_func("/fuser/done-when/lstm", test_lstm_structure);
  g_test_add_func("/fuser/done-when/broadcast-cell", test_broadcast_cell_forward);
  g_test_add_func("/fuser/done-when/lstm-cuda", test_lstm_structure_cuda);
  g_test_add_func("/fuser/done-when/broadcast-cell-cuda", test_broadcast_cell_forward_cuda);
  return g_test_run();
}
