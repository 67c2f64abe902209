/* FuseGraph and the fused backends on random programs: pointwise chains over [B, H] tensors
 * with ConstantChunks of [B, 2H] results (some of them also used after the chunk),
 * _grad_sum_to_size to [H], [1, H] and [B, 1], and concatenations, each run through the
 * executor with the fuser on (generated C, then the CPU fused loop with JITSCOPE_CC=none) and
 * compared with the interpreter on the unfused graph: same shapes, same NaNs, values within
 * 1e-4 relative; and some with every input requiring grad, their gradients through the
 * executor with the fuser against those without it. Every program has a fixed seed; a
 * failure prints the program (output 100 + i: the gradient of input i). */
#include <math.h>
#include <string.h>

#include "exec/executor.h"
#include "fuser/cpu_compile.h"
#include "fuser/fuser.h"
#include "ir/text.h"
#include "runtime/interpreter.h"

/* A value of the program: its name and whether it has the whole [B, H] (or [B, 2H]) shape
 * (sums and the small inputs broadcast instead). */
typedef struct {
  char *name;
  bool full;
} Value;

typedef struct {
  GRand *rand;
  GString *text;
  GPtrArray *narrow; /* Value*: [B, H] or broadcast to it */
  GPtrArray *wide;   /* Value*: [B, 2H] */
  GPtrArray *sums;   /* names of the sums, all returned */
  guint next;
} Program;

static void value_free(gpointer p) {
  Value *v = p;
  g_free(v->name);
  g_free(v);
}

static const char *add_value(GPtrArray *to, char *name, bool full) {
  Value *v = g_new(Value, 1);
  v->name = name;
  v->full = full;
  g_ptr_array_add(to, v);
  return name;
}

static Value *pick(Program *p, GPtrArray *from, bool full_only) {
  for (int tries = 0; tries < 32; tries++) {
    Value *v = g_ptr_array_index(from, g_rand_int_range(p->rand, 0, (gint32)from->len));
    if (!full_only || v->full)
      return v;
  }
  for (guint i = 0; i < from->len; i++) { /* the inputs are full */
    Value *v = g_ptr_array_index(from, i);
    if (v->full)
      return v;
  }
  g_assert_not_reached();
}

static char *fresh(Program *p) {
  return g_strdup_printf("v%u", p->next++);
}

/* One random node. */
static void step(Program *p) {
  static const char *const binary[] = {"add", "sub", "mul"};
  static const char *const unary[] = {"sigmoid", "tanh", "neg"};
  switch (g_rand_int_range(p->rand, 0, 7)) {
  case 0: { /* a [B, 2H] op, chunked later (or not) */
    Value *x = pick(p, p->wide, false), *y = pick(p, p->wide, false);
    const char *op = binary[g_rand_int_range(p->rand, 0, 3)];
    char *name = fresh(p);
    g_string_append_printf(p->text, "  %%%s : Float(*, *) = aten::%s(%%%s, %%%s%s)\n", name, op,
                           x->name, y->name, strcmp(op, "mul") ? ", %one" : "");
    add_value(p->wide, name, true);
    break;
  }
  case 1: { /* chunk a [B, 2H] value into two [B, H] pieces */
    Value *x = pick(p, p->wide, false);
    char *a = fresh(p), *b = fresh(p);
    g_string_append_printf(p->text,
                           "  %%%s : Float(*, *), %%%s : Float(*, *) = "
                           "prim::ConstantChunk[chunks=2, dim=1](%%%s)\n",
                           a, b, x->name);
    add_value(p->narrow, a, true);
    add_value(p->narrow, b, true);
    break;
  }
  case 2: { /* unary */
    Value *x = pick(p, p->narrow, false);
    char *name = fresh(p);
    g_string_append_printf(p->text, "  %%%s : Float(*, *) = aten::%s(%%%s)\n", name,
                           unary[g_rand_int_range(p->rand, 0, 3)], x->name);
    add_value(p->narrow, name, x->full);
    break;
  }
  case 3:
  case 4: { /* binary, broadcasting the narrow ones */
    Value *x = pick(p, p->narrow, false), *y = pick(p, p->narrow, false);
    const char *op = binary[g_rand_int_range(p->rand, 0, 3)];
    char *name = fresh(p);
    g_string_append_printf(p->text, "  %%%s : Float(*, *) = aten::%s(%%%s, %%%s%s)\n", name, op,
                           x->name, y->name, strcmp(op, "mul") ? ", %one" : "");
    add_value(p->narrow, name, x->full || y->full);
    break;
  }
  case 5: { /* a sum of a whole [B, H] value */
    static const char *const sizes[] = {"%s_h", "%s_1h", "%s_b1"};
    Value *x = pick(p, p->narrow, true);
    char *name = fresh(p);
    g_string_append_printf(p->text, "  %%%s : Float(*, *) = aten::_grad_sum_to_size(%%%s, ", name,
                           x->name);
    g_string_append(p->text, sizes[g_rand_int_range(p->rand, 0, 3)]);
    g_string_append(p->text, ")\n");
    add_value(p->narrow, name, false);
    g_ptr_array_add(p->sums, g_strdup(name));
    break;
  }
  case 6: { /* concatenate two whole [B, H] values into a [B, 2H] one */
    Value *x = pick(p, p->narrow, true), *y = pick(p, p->narrow, true);
    char *list = fresh(p), *name = fresh(p);
    g_string_append_printf(p->text, "  %%%s : Tensor[] = prim::ListConstruct(%%%s, %%%s)\n", list,
                           x->name, y->name);
    g_string_append_printf(p->text, "  %%%s : Float(*, *) = aten::cat(%%%s, %%one)\n", name, list);
    g_free(list);
    add_value(p->wide, name, true);
    break;
  }
  }
}

/* A program of n random nodes returning some of its values and every sum. */
static char *random_program(guint32 seed, guint n) {
  Program p = {g_rand_new_with_seed(seed),
               g_string_new(NULL),
               g_ptr_array_new_with_free_func(value_free),
               g_ptr_array_new_with_free_func(value_free),
               g_ptr_array_new_with_free_func(g_free),
               0};
  g_string_append(p.text, "graph(%a : Float(*, *), %e : Float(*, *), %b : Float(*, *), "
                          "%c : Float(*), %r : Float(*, *), %d : Float(*, *)):\n"
                          "  %one : int = prim::Constant[value=1]()\n"
                          "  %s_h : int[] = aten::size(%c)\n"
                          "  %s_1h : int[] = aten::size(%r)\n"
                          "  %s_b1 : int[] = aten::size(%d)\n");
  add_value(p.wide, g_strdup("a"), true);
  add_value(p.wide, g_strdup("e"), true);
  add_value(p.narrow, g_strdup("b"), true);
  add_value(p.narrow, g_strdup("c"), false);
  add_value(p.narrow, g_strdup("r"), false);
  add_value(p.narrow, g_strdup("d"), false);
  for (guint i = 0; i < n; i++)
    step(&p);
  g_string_append(p.text, "  return (");
  Value *last = g_ptr_array_index(p.narrow, p.narrow->len - 1);
  g_string_append_printf(p.text, "%%%s", last->name);
  Value *wide = g_ptr_array_index(p.wide, p.wide->len - 1);
  g_string_append_printf(p.text, ", %%%s", wide->name);
  Value *any = pick(&p, p.narrow, false);
  g_string_append_printf(p.text, ", %%%s", any->name);
  for (guint i = 0; i < p.sums->len; i++)
    g_string_append_printf(p.text, ", %%%s", (char *)g_ptr_array_index(p.sums, i));
  g_string_append(p.text, ")\n");
  g_ptr_array_unref(p.narrow);
  g_ptr_array_unref(p.wide);
  g_ptr_array_unref(p.sums);
  g_rand_free(p.rand);
  return g_string_free(p.text, FALSE);
}

static IrGraph *parse(const char *text) {
  GError *error = NULL;
  IrGraph *g = ir_graph_parse(text, strlen(text), "random.ir", &error);
  g_assert_no_error(error);
  return g;
}

static void assert_close(const RtTensor *got, const RtTensor *want, guint32 seed, guint out,
                         const char *text) {
  bool same = got->ndim == want->ndim && got->dtype == want->dtype;
  for (int d = 0; same && d < got->ndim; d++)
    same = got->sizes[d] == want->sizes[d];
  for (int64_t e = 0; same && e < rt_tensor_numel(got); e++) {
    double x = rt_tensor_get(got, e), y = rt_tensor_get(want, e);
    same = (isnan(x) && isnan(y)) || x == y || fabs(x - y) <= 1e-4 * MAX(1.0, fabs(y));
    if (!same)
      g_printerr("element %" G_GINT64_FORMAT ": fused %.9g, interpreter %.9g\n", e, x, y);
  }
  if (!same)
    g_error("program %u, output %u: fused and unfused differ\n%s", seed, out, text);
}

/* Runs program `seed` at batch B, hidden H, fused and interpreted; returns the FusionGroups
 * its plan ran on `backend` ("cpu-c", "cpu"). */
static guint run_program(guint32 seed, guint n_nodes, int64_t B, int64_t H, const char *backend) {
  g_autofree char *text = random_program(seed, n_nodes);
  IrGraph *plain = parse(text);
  int64_t shapes[6][2] = {{B, 2 * H}, {B, 2 * H}, {B, H}, {H, 0}, {1, H}, {B, 1}};
  int ranks[6] = {2, 2, 2, 1, 2, 2};
  RtValue in[6];
  for (guint i = 0; i < 6; i++)
    in[i] = rt_tensor(rt_tensor_randn(IR_DTYPE_FLOAT32, ranks[i], shapes[i], seed * 8u + i));
  RtValue *want = NULL, *got = NULL;
  guint n_want = 0, n_got = 0;
  GError *error = NULL;
  g_assert_true(rt_interpret(plain, NULL, in, 6, &want, &n_want, &error));
  g_assert_no_error(error);
  ExecSession *session = exec_session_new();
  session->fuse = true;
  ExecExecutor *ex = exec_executor_new(session, plain, "random", EXEC_PLAN_FORWARD);
  if (!exec_executor_run(ex, in, 6, &got, &n_got, &error))
    g_error("program %u: %s\n%s", seed, error->message, text);
  g_assert_cmpuint(n_got, ==, n_want);
  for (guint i = 0; i < n_got; i++) {
    assert_close(got[i].u.tensor, want[i].u.tensor, seed, i, text);
    rt_value_unref(got[i]);
    rt_value_unref(want[i]);
  }
  guint groups = 0;
  const ExecPlan *plan = exec_executor_last_plan(ex);
  g_autofree char *records = fuser_plan_records_describe(plan->fuser);
  g_autofree char *ran_on = g_strdup_printf(": %s", backend);
  for (const char *at = strstr(records, ran_on); at; at = strstr(at + 1, ran_on))
    groups += at[strlen(ran_on)] == ' ' || at[strlen(ran_on)] == '\n' || !at[strlen(ran_on)];
  g_free(got);
  g_free(want);
  for (guint i = 0; i < 6; i++)
    rt_value_unref(in[i]);
  exec_session_free(session);
  ir_graph_free(plain);
  return groups;
}

/* Forward and backward of program `seed` with every input requiring grad, through one
 * session with the fuser and one without; the gradients (of ones for every output) agree. */
static void run_gradients(guint32 seed, guint n_nodes, int64_t B, int64_t H) {
  g_autofree char *text = random_program(seed, n_nodes);
  IrGraph *graph = parse(text);
  int64_t shapes[6][2] = {{B, 2 * H}, {B, 2 * H}, {B, H}, {H, 0}, {1, H}, {B, 1}};
  int ranks[6] = {2, 2, 2, 1, 2, 2};
  RtTensor *grads[2][6] = {{NULL}};
  for (int fuse = 0; fuse < 2; fuse++) {
    RtTensor *t[6];
    RtValue in[6];
    for (guint i = 0; i < 6; i++) {
      t[i] = rt_tensor_randn(IR_DTYPE_FLOAT32, ranks[i], shapes[i], seed * 8u + i);
      t[i]->requires_grad = true;
      in[i] = rt_tensor(t[i]);
    }
    ExecSession *session = exec_session_new();
    session->fuse = fuse;
    ExecExecutor *ex = exec_executor_new(session, graph, "random", EXEC_PLAN_FORWARD);
    RtValue *outs = NULL;
    guint n_outs = 0;
    GError *error = NULL;
    if (!exec_executor_run(ex, in, 6, &outs, &n_outs, &error))
      g_error("program %u: %s\n%s", seed, error->message, text);
    g_autofree RtTensor **flat = g_new(RtTensor *, n_outs + 1);
    for (guint i = 0; i < n_outs; i++)
      flat[i] = outs[i].u.tensor;
    if (!exec_session_backward(session, flat, NULL, n_outs, t, 6, grads[fuse], &error))
      g_error("program %u, backward: %s\n%s", seed, error->message, text);
    for (guint i = 0; i < n_outs; i++)
      rt_value_unref(outs[i]);
    g_free(outs);
    for (guint i = 0; i < 6; i++)
      rt_value_unref(in[i]);
    exec_session_free(session);
  }
  for (guint i = 0; i < 6; i++) {
    g_assert_true((grads[0][i] == NULL) == (grads[1][i] == NULL));
    if (grads[0][i])
      assert_close(grads[1][i], grads[0][i], seed, 100 + i, text);
    if (grads[0][i])
      rt_tensor_unref(grads[0][i]);
    if (grads[1][i])
      rt_tensor_unref(grads[1][i]);
  }
  ir_graph_free(graph);
}

/* Programs first .. first + count - 1 of 6 to 14 nodes; the groups they ran on `backend`. */
static guint run_programs(guint first, guint count, int64_t B, int64_t H, const char *backend) {
  guint groups = 0;
  for (guint s = first; s < first + count; s++)
    groups += run_program(s, 6 + s % 9, B, H, backend);
  return groups;
}

static void use_compiler(bool on) {
  if (on)
    g_unsetenv("JITSCOPE_CC");
  else
    g_setenv("JITSCOPE_CC", "none", TRUE);
  cpu_compile_reset_compiler();
}

/* Generated C: small shapes (H not a multiple of a vector), a batch of one and a hidden size of
 * one (sums that sum nothing, dims that merge), then large enough for two threads (600 x 1000
 * elements per [B, H] node). */
static void test_generated_c(void) {
  use_compiler(true);
  guint groups = run_programs(1, 40, 5, 7, "cpu-c") + run_programs(300, 10, 1, 7, "cpu-c") +
                 run_programs(400, 10, 5, 1, "cpu-c") + run_programs(105, 3, 600, 1000, "cpu-c");
  g_assert_cmpuint(groups, >=, 40); /* the programs do fuse, on this backend */
  for (guint s = 500; s < 520; s++)
    run_gradients(s, 6 + s % 9, 5, 7);
}

/* The CPU fused loop (no compiler): the same programs and more. */
static void test_fused_loop(void) {
  use_compiler(false);
  guint groups = run_programs(1, 120, 5, 7, "cpu") + run_programs(300, 40, 1, 7, "cpu") +
                 run_programs(400, 40, 5, 1, "cpu") + run_programs(105, 2, 600, 1000, "cpu");
  g_assert_cmpuint(groups, >=, 150);
  for (guint s = 500; s < 560; s++)
    run_gradients(s, 6 + s % 9, 5, 7);
  use_compiler(true);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/fuser-random/generated-c", test_generated_c);
  g_test_add_func("/fuser-random/fused-loop", test_fused_loop);
  return g_test_run();
}
