/* Every corpus case through ExecExecutor + exec_session_backward with the fuser on (once on
 * the C backend "cpu-c", once on the interpreting CPU loop "cpu" with the compiler turned off
 * through JITSCOPE_CC=none) and off: outputs and gradients match PyTorch's within the corpus
 * README's tolerances, fused and unfused numbers agree, and every fusion group that ran ran
 * on the backend wanted (no fallback to the interpreter; the evaluator's records say why the
 * C backend declined). JITSCOPE_FUSER_DEBUG=1 prints every plan's final graph. */
#include <string.h>

#include "corpus_case.h"
#include "fuser/cpu_compile.h"
#include "fuser/fuser.h"
#include "ir/text.h"

/* Runs the case; returns outputs and grads (new references) in `results`; counts the fusion
 * group runs, every one of which must have run on `backend`. */
static void run_case(CorpusCase *c, bool fuse, const char *backend, GPtrArray *results,
                     guint *cpu_groups) {
  ExecSession *session = exec_session_new();
  session->verify = true;
  session->fuse = fuse;
  GPtrArray *grads = g_ptr_array_new();
  corpus_case_run(c, session, results, grads);
  for (guint i = 0; i < grads->len; i++)
    g_ptr_array_add(results, grads->pdata[i]);
  g_ptr_array_free(grads, TRUE);
  for (guint p = 0; p < session->plans->len; p++) {
    ExecPlan *plan = g_ptr_array_index(session->plans, p);
    if (g_getenv("JITSCOPE_FUSER_DEBUG")) {
      char *ir = ir_graph_to_string(plan->graph);
      char *records = fuser_plan_records_describe(plan->fuser);
      g_printerr("== %s %s (fuse=%d)\n%s%s", plan->graph_name, plan->spec_text, fuse, ir, records);
      g_free(ir);
      g_free(records);
    }
    GHashTable *records = fuser_plan_records(plan->fuser);
    if (!records)
      continue;
    GHashTableIter it;
    gpointer key, value;
    g_hash_table_iter_init(&it, records);
    while (g_hash_table_iter_next(&it, &key, &value)) {
      FuserGroupRecord *r = value;
      if (g_strcmp0(r->backend, backend) != 0)
        g_error("%s: %s ran on %s, not %s: %s", c->name, r->group_name, r->backend, backend,
                r->fallback_reason);
      if (strcmp(backend, "cpu") == 0 &&
          !(r->fallback_reason && strstr(r->fallback_reason, "cpu-c: ")))
        g_error("%s: %s: the records do not say why cpu-c declined", c->name, r->group_name);
      (*cpu_groups)++;
    }
  }
  exec_session_free(session);
}

static void test_case(gconstpointer data) {
  const char *name = data;
  CorpusCase c;
  corpus_case_load(&c, name);
  GPtrArray *fused = g_ptr_array_new(), *evaluated = g_ptr_array_new(), *plain = g_ptr_array_new();
  guint groups = 0, eval_groups = 0, plain_groups = 0;
  /* The C backend where a compiler is found, then the evaluator with the compiler off. */
  bool have_cc = cpu_compile_compiler(NULL) != NULL;
  run_case(&c, true, have_cc ? "cpu-c" : "cpu", fused, &groups);
  g_setenv("JITSCOPE_CC", "none", TRUE);
  cpu_compile_reset_compiler();
  run_case(&c, true, "cpu", evaluated, &eval_groups);
  g_unsetenv("JITSCOPE_CC");
  cpu_compile_reset_compiler();
  run_case(&c, false, "cpu", plain, &plain_groups);
  g_assert_cmpuint(plain_groups, ==, 0);
  g_assert_cmpuint(eval_groups, ==, groups);
  g_assert_cmpuint(fused->len, ==, c.n_out + c.n_in);
  bool f64 = false;
  for (guint i = 0; i < c.n_out; i++)
    f64 |= c.out_ref[i] && c.out_ref[i]->dtype == IR_DTYPE_FLOAT64;
  double tol = f64 ? 1e-10 : 1e-4;
  for (guint i = 0; i < fused->len; i++) {
    RtTensor *ref = i < c.n_out ? c.out_ref[i] : c.grad_ref[i - c.n_out];
    RtTensor *a = fused->pdata[i], *e = evaluated->pdata[i], *b = plain->pdata[i];
    if (!ref)
      continue;
    g_assert_nonnull(a);
    g_assert_nonnull(e);
    g_assert_nonnull(b);
    double e_ref = corpus_rel_error(a, ref), e_plain = corpus_rel_error(a, b),
           e_eval = corpus_rel_error(e, ref), e_both = corpus_rel_error(a, e);
    if (e_ref > tol || e_plain > tol || e_eval > tol || e_both > tol)
      g_error("%s: %s %u: error vs PyTorch %g (C backend) %g (evaluator), fused vs unfused %g, "
              "C backend vs evaluator %g",
              name, i < c.n_out ? "output" : "grad of input", i < c.n_out ? i : i - c.n_out, e_ref,
              e_eval, e_plain, e_both);
  }
  g_test_message("%s: %u fusion group runs on %s", name, groups, have_cc ? "cpu-c" : "cpu");
  for (guint i = 0; i < fused->len; i++) {
    if (fused->pdata[i])
      rt_tensor_unref(fused->pdata[i]);
    if (evaluated->pdata[i])
      rt_tensor_unref(evaluated->pdata[i]);
    if (plain->pdata[i])
      rt_tensor_unref(plain->pdata[i]);
  }
  g_ptr_array_free(fused, TRUE);
  g_ptr_array_free(evaluated, TRUE);
  g_ptr_array_free(plain, TRUE);
  corpus_case_free(&c);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  char **lines = corpus_case_index();
  if (!lines)
    return 77;
  for (char **l = lines; *l; l++) {
    char *line = g_strstrip(*l);
    if (!*line)
      continue;
    char *test_path = g_strdup_printf("/fuser/corpus/%s", line);
    g_test_add_data_func(test_path, g_strdup(line), test_case);
    g_free(test_path);
  }
  int status = g_test_run();
  g_strfreev(lines);
  return status;
}
