/* Error bounds of the vector math in generated C. Generated C declares the math functions that
 * glibc's libmvec vectorises with __simd__ (cpu_codegen.h; which ones: `vector` in
 * ir/math_functions.def), so GCC's loops call libmvec's SIMD variants (_ZGV...) where the eager
 * kernels call scalar libm. libmvec documents its functions within 4 ulps (glibc 2.22 NEWS);
 * glibc's scalar float and double functions are within 1 to 2 ulps of the exact result
 * (glibc manual, "Known Maximum Errors in Math Functions").
 *
 * For every fusible op of the op table with one or two Tensor arguments and nothing else whose
 * expression calls a vectorised function, in float32 and float64, this test fuses the op, runs
 * it through the generated C backend on a sweep of the whole float range, and checks:
 * - that the compiled kernel calls libmvec (its shared object imports a _ZGV symbol), so a loop
 *   that silently stopped vectorising fails;
 * - against the eager kernel on the same values (which the pointwise conformance suite holds
 *   to PyTorch 1.13): NaN positions, infinities and the sign of zeros exactly, finite values
 *   within MAX_ULPS ulps of the dtype at the eager result (libmvec's 4 plus scalar libm's 2);
 * - for float32, also the distance from the float64 eager result rounded to float32 (nearly the
 *   exact value) where that is a normal float32, printed per op: the error a user sees, which
 *   for sigmoid, silu and mish includes their float32 expression's own roundings.
 * The sweep: every power of two from the smallest denormal to the largest finite value with 8
 * mantissas, both signs, a grid of step 1/64 over [-12, 12], and NaN, ±inf, ±0 and denormals
 * interleaved so that they fall in every lane of a vector. A second operand cycles through
 * values that reach pow's and atan2's special cases.
 * Usage: test-conformance-vector-math (no data file: the eager kernels are the reference). */
#include <float.h>
#include <math.h>
#include <string.h>

#include "fuser/cpu_codegen.h"
#include "fuser/cpu_compile.h"
#include "fuser/fuser.h"
#include "ir/ops.h"
#include "ir/scalar_expr.h"
#include "ir/text.h"
#include "passes/passes.h"
#include "runtime/code.h"

#define MAX_ULPS 6.0

/* Does the op table expression call a function that libmvec vectorises? */
static bool calls_vector_function(const char *e) {
  for (int fn; (fn = pw_text_next_function(&e)) >= 0;)
    if (pw_function(fn)->vector)
      return true;
  return false;
}

/* Ops whose arguments are one or two Tensors and nothing else (scalars would need values). */
static guint n_tensor_args(const IrSchema *schema) {
  for (guint a = 0; a < schema->n_args; a++)
    if (!ir_type_is_tensor(schema->args[a].type))
      return 0;
  return schema->n_args <= 2 ? schema->n_args : 0;
}

static void append_sweep(GArray *v, IrDtype dtype) {
  bool single = dtype == IR_DTYPE_FLOAT32;
  int lowest = single ? -149 : -1074, highest = single ? 127 : 1023;
  for (int e = lowest; e <= highest; e++)
    for (int m = 0; m < 8; m++)
      for (int sign = 0; sign < 2; sign++) {
        double x = ldexp(1.0 + m / 8.0, e);
        if (single && x > FLT_MAX)
          x = FLT_MAX;
        if (!single && isinf(x))
          x = DBL_MAX;
        x = sign ? -x : x;
        g_array_append_val(v, x);
      }
  for (int k = -12 * 64; k <= 12 * 64; k++) {
    double x = k / 64.0;
    g_array_append_val(v, x);
  }
}

/* The sweep with a special value after every 5th element (5 is prime to any vector width, so
 * the specials visit every lane). */
static GArray *first_operand(IrDtype dtype) {
  g_autoptr(GArray) sweep = g_array_new(FALSE, FALSE, sizeof(double));
  append_sweep(sweep, dtype);
  double tiny = dtype == IR_DTYPE_FLOAT32 ? 1e-40 : 5e-320;
  const double specials[] = {NAN, INFINITY, -INFINITY, 0.0, -0.0, tiny, -tiny, -NAN};
  GArray *v = g_array_new(FALSE, FALSE, sizeof(double));
  for (guint i = 0; i < sweep->len; i++) {
    g_array_append_val(v, g_array_index(sweep, double, i));
    if (i % 5 == 4)
      g_array_append_val(v, specials[(i / 5) % G_N_ELEMENTS(specials)]);
  }
  return v;
}

static double second_operand(guint i) {
  static const double y[] = {0.5,  -0.5, 2,        -2,  3,    0.1, 10,        -1.5,    0,
                             -0.0, 1,    INFINITY, NAN, 1e-3, 100, -INFINITY, 1.0 / 3, -7};
  return y[i % G_N_ELEMENTS(y)];
}

static RtValue tensor_of(IrDtype dtype, const double *values, gsize n) {
  int64_t size = (int64_t)n;
  RtTensor *t = rt_tensor_new(dtype, 1, &size);
  for (gsize i = 0; i < n; i++)
    rt_tensor_set(t, (int64_t)i, values[i]);
  return rt_tensor(t);
}

static const IrNode *fusion_group(IrGraph *g) {
  IR_FOR_EACH_NODE(n, g->block) {
    if (n->kind == IR_PRIM_FUSION_GROUP)
      return n;
  }
  return NULL;
}

/* The graph's program: the op, and an identity type_as consumer (groups grow from consumers). */
static IrGraph *op_graph(const IrSchema *schema, guint n_args, IrDtype dtype, gsize n) {
  const char *type = dtype == IR_DTYPE_FLOAT32 ? "Float" : "Double";
  g_autofree char *second =
      n_args == 2 ? g_strdup_printf(", %%a1 : %s(%zu)", type, (size_t)n) : g_strdup("");
  g_autofree char *text =
      g_strdup_printf("graph(%%a0 : %s(%zu)%s):\n  %%r : Tensor = %s(%%a0%s)\n"
                      "  %%o : Tensor = aten::type_as(%%r, %%r)\n  return (%%o)\n",
                      type, (size_t)n, second, schema->name, n_args == 2 ? ", %a1" : "");
  GError *error = NULL;
  IrGraph *g = ir_graph_parse(text, strlen(text), "vector_math.ir", &error);
  g_assert_no_error(error);
  return g;
}

static RtTensor *run_eager(IrGraph *graph, RtValue *inputs, guint n) {
  GError *error = NULL;
  RtCode *code = rt_code_compile(graph, &error);
  g_assert_no_error(error);
  RtValue out = rt_none();
  g_assert_true(rt_code_run(code, NULL, inputs, n, &out, &error));
  g_assert_no_error(error);
  rt_code_free(code);
  return out.u.tensor;
}

/* Runs the fused group through the generated C backend; the group's inputs in its order. */
static RtTensor *run_generated_c(IrGraph *graph, RtValue *inputs, guint n) {
  pass_propagate_input_shapes(graph);
  pass_fuse_graph(graph);
  const IrNode *group = fusion_group(graph);
  g_assert_nonnull(group);
  RtValue group_inputs[2];
  for (guint i = 0; i < ir_n_inputs(group); i++)
    for (guint k = 0; k < n; k++)
      if (ir_input(group, i) == g_ptr_array_index(ir_graph_inputs(graph), k))
        group_inputs[i] = inputs[k];
  const FuserBackend *c = fuser_cpu_codegen_backend();
  char *why = NULL;
  if (!c->can_run(c, group, group_inputs, ir_n_inputs(group), &why))
    g_error("the C backend refused the group: %s", why ? why : "?");
  RtValue out = rt_none();
  GError *error = NULL;
  g_assert_true(c->run(c, NULL, group, group_inputs, ir_n_inputs(group), &out, 1, &error));
  g_assert_no_error(error);
  return out.u.tensor;
}

/* Does the last compiled kernel's shared object import libmvec? */
static bool last_kernel_calls_libmvec(void) {
  g_autoptr(GPtrArray) entries = cpu_compile_entries();
  g_assert_cmpuint(entries->len, >, 0);
  const CpuCompiled *last = g_ptr_array_index(entries, entries->len - 1);
  g_assert_true(last->ok);
  g_autofree char *name = g_strdup_printf("%s.so", last->hash);
  g_autofree char *path = g_build_filename(cpu_compile_cache_dir(), name, NULL);
  g_autofree char *bytes = NULL;
  gsize len = 0;
  g_assert_true(g_file_get_contents(path, &bytes, &len, NULL));
  return last->mvec && memmem(bytes, len, "_ZGV", 4) != NULL;
}

/* Distance of got from want in ulps of the dtype at want (denormal spacing below the
 * normal range). */
static double ulps(double got, double want, IrDtype dtype) {
  bool single = dtype == IR_DTYPE_FLOAT32;
  double a = fabs(want);
  double ulp = single ? (a < FLT_MIN ? ldexp(1, -149) : nextafterf((float)a, INFINITY) - (float)a)
                      : (a < DBL_MIN ? ldexp(1, -1074) : nextafter(a, INFINITY) - a);
  return fabs(got - want) / ulp;
}

/* Same NaN positions, infinities and zero signs? */
static bool same_special(double got, double want) {
  if (isnan(got) || isnan(want))
    return isnan(got) && isnan(want);
  if (isinf(got) || isinf(want))
    return got == want;
  if (got == 0 && want == 0)
    return signbit(got) == signbit(want);
  return true;
}

typedef struct {
  guint ops, values, mismatches;
} Tally;

static void check_op(Tally *tally, const IrSchema *schema, guint n_args, IrDtype dtype) {
  g_autoptr(GArray) x = first_operand(dtype);
  gsize n = x->len;
  g_autofree double *y = g_new(double, n);
  for (gsize i = 0; i < n; i++)
    y[i] = second_operand((guint)i);
  RtValue inputs[2] = {tensor_of(dtype, (double *)x->data, n), tensor_of(dtype, y, n)};

  IrGraph *graph = op_graph(schema, n_args, dtype, n);
  RtTensor *eager = run_eager(graph, inputs, n_args);
  RtTensor *fused = run_generated_c(graph, inputs, n_args);
  bool vectorised = last_kernel_calls_libmvec();
  ir_graph_free(graph);

  /* float32: the float64 eager result, rounded, as the near-exact reference. */
  RtTensor *exact = NULL;
  if (dtype == IR_DTYPE_FLOAT32) {
    RtValue wide[2] = {tensor_of(IR_DTYPE_FLOAT64, (double *)x->data, n),
                       tensor_of(IR_DTYPE_FLOAT64, y, n)};
    for (gsize i = 0; i < n; i++) /* the same float32 inputs, widened */
      for (guint a = 0; a < 2; a++)
        rt_tensor_set(wide[a].u.tensor, (int64_t)i, rt_tensor_get(inputs[a].u.tensor, (int64_t)i));
    IrGraph *g64 = op_graph(schema, n_args, IR_DTYPE_FLOAT64, n);
    exact = run_eager(g64, wide, n_args);
    ir_graph_free(g64);
    for (guint a = 0; a < 2; a++)
      rt_value_unref(wide[a]);
  }

  double worst = 0, worst_exact = 0, worst_at = 0;
  guint bad = 0;
  for (gsize i = 0; i < n; i++) {
    double got = rt_tensor_get(fused, (int64_t)i), want = rt_tensor_get(eager, (int64_t)i);
    double d = same_special(got, want) ? (isfinite(got) && got != want ? ulps(got, want, dtype) : 0)
                                       : INFINITY;
    if (d > worst) {
      worst = d;
      worst_at = rt_tensor_get(inputs[0].u.tensor, (int64_t)i);
    }
    if (d > MAX_ULPS && bad++ < 5)
      g_printerr("  %s %s: x = %.17g y = %.17g: generated C %.17g, eager %.17g (%.1f ulps)\n",
                 schema->text, ir_dtype_name(dtype), rt_tensor_get(inputs[0].u.tensor, (int64_t)i),
                 n_args == 2 ? rt_tensor_get(inputs[1].u.tensor, (int64_t)i) : 0.0, got, want, d);
    if (exact) {
      double e = (double)(float)rt_tensor_get(exact, (int64_t)i);
      if (isfinite(got) && fabs(e) >= FLT_MIN && got != e) /* where float32 is normal */
        worst_exact = MAX(worst_exact, ulps(got, e, dtype));
    }
  }
  g_printerr("%-58s %-8s %s, max %.2f ulps from eager (at x = %.9g)", schema->text,
             ir_dtype_name(dtype), vectorised ? "libmvec" : "SCALAR", worst, worst_at);
  if (exact)
    g_printerr(", %.2f ulps from the float64 result (normal range)", worst_exact);
  g_printerr("\n");
  if (!vectorised)
    g_printerr("  %s %s: the compiled kernel does not call libmvec\n", schema->text,
               ir_dtype_name(dtype));
  tally->ops++;
  tally->values += (guint)n;
  tally->mismatches += bad + (vectorised ? 0 : 1);
  rt_tensor_unref(eager);
  rt_tensor_unref(fused);
  if (exact)
    rt_tensor_unref(exact);
  for (guint a = 0; a < 2; a++)
    rt_value_unref(inputs[a]);
}

static void test_vector_math(void) {
  if (cpu_compile_compiler(NULL) == NULL) {
    g_test_skip("no C compiler: generated C cannot run");
    return;
  }
  Tally tally = {0};
  for (guint i = 0; i < ir_ops_count(); i++) {
    const IrOpDef *def = ir_ops_def(i);
    const IrSchema *schema = ir_ops_schema(i);
    guint n_args = n_tensor_args(schema);
    if (def->pointwise == NULL || (def->flags & IR_OPF_PW_FUSIBLE) != IR_OPF_PW_FUSIBLE ||
        n_args == 0 || !calls_vector_function(def->pointwise))
      continue;
    check_op(&tally, schema, n_args, IR_DTYPE_FLOAT32);
    check_op(&tally, schema, n_args, IR_DTYPE_FLOAT64);
  }
  g_printerr("%u op x dtype cases, %u values, %u mismatches\n", tally.ops, tally.values,
             tally.mismatches);
  g_assert_cmpuint(tally.ops, >=, 30); /* exp, log, tanh, erf, sin ... in two dtypes */
  g_assert_cmpuint(tally.mismatches, ==, 0);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/conformance/vector-math", test_vector_math);
  return g_test_run();
}
