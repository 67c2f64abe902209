/* The C backend: exact lines of the generated C for small groups (written by hand), the
 * compiled kernels against the interpreting CPU loop on contiguous, strided, broadcast,
 * chunked, float64, int64 and bool groups, serial and parallel, and the fallback when the
 * compiler is missing (JITSCOPE_CC=/nonexistent): correct numbers and the reason recorded. */
#include <math.h>
#include <string.h>

#include "exec/executor.h"
#include "fuser/cpu_codegen.h"
#include "fuser/cpu_compile.h"
#include "ir/text.h"
#include "source_lines.h"

static const char add_sigmoid[] = "graph(%a : Float(*, *), %b : Float(*, *)):\n"
                                  "  %one : int = prim::Constant[value=1]()\n"
                                  "  %c : Float(*, *) = aten::add(%a, %b, %one)\n"
                                  "  %d : Float(*, *) = aten::sigmoid(%c)\n"
                                  "  return (%d)\n";

static void test_contiguous_float(void) {
  IrGraph *g = source_lines_parse(add_sigmoid);
  IrDtype dt[2] = {IR_DTYPE_FLOAT32, IR_DTYPE_FLOAT32};
  CpuInner inner[3] = {CPU_INNER_CONTIGUOUS, CPU_INNER_CONTIGUOUS, CPU_INNER_CONTIGUOUS};
  GError *error = NULL;
  CpuKernelSource *k = cpu_codegen_kernel(g, "k", dt, inner, NULL, 1, &error);
  g_assert_no_error(error);
  static const char *const lines[] = {
      "#include <math.h>",
      "#ifndef JITSCOPE_NO_MVEC",
      "__attribute__((__simd__(\"notinbranch\"))) float expf(float);",
      "#endif",
      "static void jitscope_row(int64_t n, const float *restrict t0, const float *restrict t1, "
      "float *restrict t2) {",
      "  for (int64_t i = 0; i < n; i++) {",
      "    float n0 = t0[i];",
      "    float n1 = t1[i];",
      "    float n2 = (1.f == 1 ? n0 + n1 : fmaf(1.f, n1, n0));",
      "    float n3 = 1 / (1 + expf(-n2));",
      "    t2[i] = n3;",
      "  }",
      "}",
      "void k(int64_t start, int64_t end, const int64_t *sizes, char *const *data, "
      "const int64_t *strides) {",
      "  const int64_t n = end - start;",
      "  jitscope_row(n,",
      "      (const float *)data[0] + start * strides[0],",
      "      (const float *)data[1] + start * strides[1],",
      "      (float *)data[2] + start * strides[2]);",
      "}",
      NULL};
  source_lines_expect(k->source, lines);
  g_assert_null(strstr(k->source, "index["));
  char *key = cpu_codegen_signature_key(k->args, inner, NULL, 1);
  g_assert_cmpstr(key, ==, "f32c f32c -> f32c @1");
  g_free(key);
  /* Deterministic. */
  CpuKernelSource *again = cpu_codegen_kernel(g, "k", dt, inner, NULL, 1, &error);
  g_assert_cmpstr(k->source, ==, again->source);
  kernel_source_free(again);
  kernel_source_free(k);
  ir_graph_free(g);
}

/* Outputs that accumulate: double buffers added to, a row summed into one element through a
 * local; the key marks them. */
static void test_accumulate(void) {
  static const char text[] = "graph(%a : Float(*, *), %b : Float(*, *)):\n"
                             "  %c : Float(*, *) = aten::mul(%a, %b)\n"
                             "  %d : Float(*, *) = aten::neg(%c)\n"
                             "  return (%c, %d, %c)\n";
  IrGraph *g = source_lines_parse(text);
  IrDtype dt[2] = {IR_DTYPE_FLOAT32, IR_DTYPE_FLOAT32};
  CpuInner inner[5] = {CPU_INNER_CONTIGUOUS, CPU_INNER_CONTIGUOUS, CPU_INNER_CONTIGUOUS,
                       CPU_INNER_BROADCAST, CPU_INNER_CONTIGUOUS};
  bool accumulate[5] = {false, false, true, true, false};
  GError *error = NULL;
  CpuKernelSource *k = cpu_codegen_kernel(g, "k4", dt, inner, accumulate, 2, &error);
  g_assert_no_error(error);
  static const char *const lines[] = {
      "static void jitscope_row(int64_t n, const float *restrict t0, const float *restrict t1, "
      "double *restrict t2, double *restrict t3, float *restrict t4) {",
      "  double r3 = 0;",
      "  for (int64_t i = 0; i < n; i++) {",
      "    float n0 = t0[i];",
      "    float n1 = t1[i];",
      "    float n2 = n0 * n1;",
      "    float n3 = -n2;",
      "    t2[i] += (double)n2;",
      "    r3 += (double)n3;",
      "    t4[i] = n2;",
      "  }",
      "  t3[0] += r3;",
      "}",
      "        (double *)data[2] + index[0] * strides[4] + index[1] * strides[5],",
      NULL};
  source_lines_expect(k->source, lines);
  char *key = cpu_codegen_signature_key(k->args, inner, accumulate, 2);
  g_assert_cmpstr(key, ==, "f32c f32c -> f32c+ f32b+ f32c @2");
  g_free(key);
  kernel_source_free(k);
  ir_graph_free(g);
}

static void test_strided_double(void) {
  IrGraph *g = source_lines_parse(add_sigmoid);
  IrDtype dt[2] = {IR_DTYPE_FLOAT64, IR_DTYPE_FLOAT64};
  CpuInner inner[3] = {CPU_INNER_STRIDED, CPU_INNER_BROADCAST, CPU_INNER_CONTIGUOUS};
  GError *error = NULL;
  CpuKernelSource *k = cpu_codegen_kernel(g, "k2", dt, inner, NULL, 2, &error);
  g_assert_no_error(error);
  static const char *const lines[] = {
      "__attribute__((__simd__(\"notinbranch\"))) double exp(double);",
      "static void jitscope_row(int64_t n, const double *restrict t0, const double *restrict t1, "
      "double *restrict t2, int64_t s0) {",
      "  const double n1 = t1[0];",
      "  for (int64_t i = 0; i < n; i++) {",
      "    double n0 = t0[i * s0];",
      "    double n2 = (1. == 1 ? n0 + n1 : fma(1., n1, n0));",
      "    double n3 = 1 / (1 + exp(-n2));",
      "    t2[i] = n3;",
      "void k2(int64_t start, int64_t end, const int64_t *sizes, char *const *data, "
      "const int64_t *strides) {",
      "  int64_t index[2];",
      "  index[1] = rest % sizes[1];",
      "  index[0] = rest;",
      "  for (int64_t linear = start; linear < end;) {",
      "    int64_t n = sizes[1] - index[1];",
      "    jitscope_row(n,",
      "        (const double *)data[0] + index[0] * strides[0] + index[1] * strides[1],",
      "        (const double *)data[1] + index[0] * strides[2] + index[1] * strides[3],",
      "        (double *)data[2] + index[0] * strides[4] + index[1] * strides[5], strides[1]);",
      "    for (int d = 0; d >= 0 && ++index[d] == sizes[d]; d--)",
      NULL};
  source_lines_expect(k->source, lines);
  char *key = cpu_codegen_signature_key(k->args, inner, NULL, 2);
  g_assert_cmpstr(key, ==, "f64s f64b -> f64c @2");
  g_free(key);
  kernel_source_free(k);
  ir_graph_free(g);
}

static void test_compare_where_bool(void) {
  static const char text[] = "graph(%a : Float(*), %b : Float(*)):\n"
                             "  %c : Bool(*) = aten::gt(%a, %b)\n"
                             "  %d : Float(*) = aten::where(%c, %a, %b)\n"
                             "  return (%d, %c)\n";
  IrGraph *g = source_lines_parse(text);
  IrDtype dt[2] = {IR_DTYPE_FLOAT32, IR_DTYPE_FLOAT32};
  CpuInner inner[4] = {CPU_INNER_CONTIGUOUS, CPU_INNER_CONTIGUOUS, CPU_INNER_CONTIGUOUS,
                       CPU_INNER_CONTIGUOUS};
  GError *error = NULL;
  CpuKernelSource *k = cpu_codegen_kernel(g, "k3", dt, inner, NULL, 1, &error);
  g_assert_no_error(error);
  static const char *const lines[] = {
      "static void jitscope_row(int64_t n, const float *restrict t0, const float *restrict t1, "
      "float *restrict t2, unsigned char *restrict t3) {",
      "    bool n2 = (n0 > n1);",
      "    float n3 = (n2 ? n0 : n1);",
      "    t2[i] = n3;",
      "    t3[i] = (unsigned char)n2;",
      NULL};
  source_lines_expect(k->source, lines);
  g_assert_null(strstr(k->source, "__simd__")); /* no math function */
  kernel_source_free(k);
  ir_graph_free(g);
}

static void test_rejects_half(void) {
  IrGraph *g = source_lines_parse(add_sigmoid);
  IrDtype dt[2] = {IR_DTYPE_FLOAT16, IR_DTYPE_FLOAT16};
  GError *error = NULL;
  g_assert_null(cpu_codegen_operands(g, dt, &error));
  g_assert_error(error, JITSCOPE_RUNTIME_ERROR, RT_ERROR_VALUE);
  g_error_free(error);
  ir_graph_free(g);
}

/* --- running groups: the C backend against the evaluator --- */

/* The first FusionGroup after fusing `text`'s graph. */
static IrNode *fused_group(IrGraph *g) {
  pass_fuse_graph(g);
  IR_FOR_EACH_NODE(n, g->block) {
    if (n->kind == IR_PRIM_FUSION_GROUP)
      return n;
  }
  g_assert_not_reached();
}

static void run_backend(const FuserBackend *b, IrNode *group, RtValue *in, guint n_in, RtValue *out,
                        guint n_out) {
  GError *error = NULL;
  char *why = NULL;
  if (!b->can_run(b, group, in, n_in, &why))
    g_error("%s declined: %s", b->name, why);
  for (guint i = 0; i < n_out; i++)
    out[i] = rt_none();
  g_assert_true(b->run(b, NULL, group, in, n_in, out, n_out, &error));
  g_assert_no_error(error);
}

static void assert_same(const RtTensor *a, const RtTensor *b, double tol) {
  g_assert_cmpint(a->ndim, ==, b->ndim);
  for (int d = 0; d < a->ndim; d++)
    g_assert_cmpint(a->sizes[d], ==, b->sizes[d]);
  g_assert_cmpint(a->dtype, ==, b->dtype);
  for (int64_t e = 0; e < rt_tensor_numel(a); e++) {
    double x = rt_tensor_get(a, e), y = rt_tensor_get(b, e);
    if (isnan(x) || isnan(y)) {
      g_assert_true(isnan(x) && isnan(y));
      continue;
    }
    if (fabs(x - y) > tol * MAX(1.0, fabs(y)))
      g_error("element %" G_GINT64_FORMAT ": C backend %.9g, evaluator %.9g", e, x, y);
  }
}

/* Runs the group's graph both ways on inputs given in the graph's input order. */
static void compare(const char *text, RtValue *graph_in, guint n) {
  IrGraph *g = source_lines_parse(text);
  IrNode *group = fused_group(g);
  guint n_in = ir_n_inputs(group), n_out = ir_n_outputs(group);
  RtValue in[8], a[8], b[8];
  g_assert_cmpuint(n_in, <=, 8);
  for (guint i = 0; i < n_in; i++) {
    bool found = false; /* the group reads graph inputs directly */
    for (guint k = 0; k < n; k++)
      if (ir_input(group, i) == g_ptr_array_index(ir_graph_inputs(g), k)) {
        in[i] = graph_in[k];
        found = true;
      }
    g_assert_true(found);
  }
  run_backend(fuser_cpu_codegen_backend(), group, in, n_in, a, n_out);
  run_backend(fuser_cpu_backend(), group, in, n_in, b, n_out);
  for (guint o = 0; o < n_out; o++) {
    IrDtype dt = a[o].u.tensor->dtype;
    assert_same(a[o].u.tensor, b[o].u.tensor, dt == IR_DTYPE_FLOAT64 ? 1e-12 : 1e-5);
    rt_value_unref(a[o]);
    rt_value_unref(b[o]);
  }
  ir_graph_free(g);
}

static RtTensor *randn(IrDtype dt, int nd, int64_t s0, int64_t s1, guint64 seed) {
  int64_t sizes[2] = {s0, s1};
  return rt_tensor_randn(dt, nd, sizes, seed);
}

static void test_run_layouts(void) {
  static const char cell[] =
      "graph(%g : Float(*, *), %c : Float(*, *), %bias : Float(*, *)):\n"
      "  %one : int = prim::Constant[value=1]()\n"
      "  %x : Float(*, *), %y : Float(*, *) = prim::ConstantChunk[chunks=2, dim=1](%g)\n"
      "  %xb : Float(*, *) = aten::add(%x, %bias, %one)\n"
      "  %s : Float(*, *) = aten::sigmoid(%xb)\n"
      "  %t : Float(*, *) = aten::tanh(%y)\n"
      "  %m : Float(*, *) = aten::mul(%s, %c)\n"
      "  %r : Float(*, *) = aten::add(%m, %t, %one)\n"
      "  %e : Float(*, *) = aten::exp(%r)\n"
      "  return (%r, %e)\n";
  /* Small (serial) and large (two threads); chunk pieces strided by rows; c transposed
   * (strided innermost); bias [B, 1] (broadcast innermost). */
  int64_t shapes[2][2] = {{3, 5}, {300, 512}};
  for (guint s = 0; s < 2; s++) {
    int64_t B = shapes[s][0], H = shapes[s][1];
    RtTensor *gates = randn(IR_DTYPE_FLOAT32, 2, B, 2 * H, 1);
    RtTensor *ct = randn(IR_DTYPE_FLOAT32, 2, H, B, 2);
    RtTensor *c = rt_tensor_view_transpose(ct, 0, 1);
    RtTensor *bias = randn(IR_DTYPE_FLOAT32, 2, B, 1, 3);
    RtValue in[3] = {rt_tensor(gates), rt_tensor(c), rt_tensor(bias)};
    compare(cell, in, 3);
    RtTensor *cc = rt_tensor_contiguous(c);
    RtValue in2[3] = {in[0], rt_tensor(cc), in[2]};
    compare(cell, in2, 3);
    rt_tensor_unref(cc);
    rt_tensor_unref(ct);
    for (guint i = 0; i < 3; i++)
      rt_value_unref(in[i]);
  }
}

static void test_run_double_int_bool(void) {
  static const char dbl[] = "graph(%a : Double(*, *), %b : Double(*, *)):\n"
                            "  %k : float = prim::Constant[value=0.5]()\n"
                            "  %p : Double(*, *) = aten::pow(%a, %k)\n"
                            "  %l : Double(*, *) = aten::log1p(%p)\n"
                            "  %q : Bool(*, *) = aten::lt(%a, %b)\n"
                            "  %w : Double(*, *) = aten::where(%q, %l, %b)\n"
                            "  return (%w, %q)\n";
  RtValue in[2] = {rt_tensor(randn(IR_DTYPE_FLOAT64, 2, 70, 1000, 4)),
                   rt_tensor(randn(IR_DTYPE_FLOAT64, 2, 1, 1000, 5))};
  compare(dbl, in, 2); /* NaNs from pow of negatives agree too */
  rt_value_unref(in[0]);
  rt_value_unref(in[1]);
  /* FuseGraph fuses floating ops only: the group is written out. */
  static const char ints[] = "graph(%a : Long(*), %b : Long(*)):\n"
                             "  %d : Long(*), %e : Float(*) = prim::FusionGroup_0(%a, %b)\n"
                             "  return (%d, %e)\n"
                             "with prim::FusionGroup_0 = graph(%a : Long(*), %b : Long(*)):\n"
                             "  %one : int = prim::Constant[value=1]()\n"
                             "  %c : Long(*) = aten::mul(%a, %b)\n"
                             "  %d : Long(*) = aten::add(%c, %a, %one)\n"
                             "  %e : Float(*) = aten::div(%d, %b)\n"
                             "  return (%d, %e)\n";
  int64_t n = 1000;
  RtTensor *a = rt_tensor_new(IR_DTYPE_INT64, 1, &n), *b = rt_tensor_new(IR_DTYPE_INT64, 1, &n);
  for (int64_t i = 0; i < n; i++) {
    ((int64_t *)rt_tensor_data(a))[i] = i - 500;
    ((int64_t *)rt_tensor_data(b))[i] = (i % 7) + 1;
  }
  RtValue in2[2] = {rt_tensor(a), rt_tensor(b)};
  compare(ints, in2, 2);
  rt_value_unref(in2[0]);
  rt_value_unref(in2[1]);
}

/* Outputs summed to a size (_grad_sum_to_size in the group): the C backend accumulates them in
 * the kernel, the evaluator sums the full output after; both agree (NaN and infinities
 * included) over the batch ([B, H] -> [H] and [1, H]), along rows ([B, 1]: the innermost
 * dim summed), with a None size (nothing summed), to the output's own size, serial and on two
 * threads, in float32 and float64. */
static void test_run_sum_to(void) {
  static const char text[] = "graph(%a : Float(*, *), %b : Float(*, *), %s1 : int[], "
                             "%s2 : int[]?):\n"
                             "  %one : int = prim::Constant[value=1]()\n"
                             "  %c : Float(*, *) = aten::mul(%a, %b)\n"
                             "  %d : Float(*, *) = aten::_grad_sum_to_size(%c, %s1)\n"
                             "  %e : Float(*, *) = aten::sigmoid(%c)\n"
                             "  %f : Float(*, *) = aten::_grad_sum_to_size(%e, %s2)\n"
                             "  %g : Float(*, *) = aten::add(%c, %e, %one)\n"
                             "  return (%d, %f, %g)\n";
  IrGraph *g = source_lines_parse(text);
  IrNode *group = fused_group(g);
  g_assert_cmpuint(ir_n_outputs(group), ==, 3);
  g_assert_true(ir_node_has_attr(group, g_intern_static_string("sum_to_size_inputs")));
  ir_graph_free(g);
  g_auto(GStrv) pieces = g_strsplit(text, "Float(", -1);
  g_autofree char *text_double = g_strjoinv("Double(", pieces);
  const char *texts[2] = {text, text_double};
  /* Serial; two threads, each part starting or ending inside a row. */
  int64_t shapes[2][2] = {{3, 5}, {601, 999}};
  IrDtype dtypes[2] = {IR_DTYPE_FLOAT32, IR_DTYPE_FLOAT64};
  for (guint s = 0; s < 2; s++)
    for (guint t = 0; t < 2; t++) {
      int64_t B = shapes[s][0], H = shapes[s][1];
      RtTensor *a = randn(dtypes[t], 2, B, H, 11), *b = randn(dtypes[t], 2, B, H, 12);
      rt_tensor_set(a, 1, NAN);
      rt_tensor_set(a, H + 2, INFINITY);
      rt_tensor_set(b, 2 * H + 3, -INFINITY);
      gint64 over_batch[2] = {1, H}, row[1] = {H}, rows[2] = {B, 1}, own[2] = {B, H};
      RtValue sums[][2] = {{rt_int_list(row, 1), rt_int_list(rows, 2)},
                           {rt_int_list(over_batch, 2), rt_none()},
                           {rt_int_list(own, 2), rt_int_list(over_batch, 2)}};
      for (guint k = 0; k < G_N_ELEMENTS(sums); k++) {
        RtValue in[4] = {rt_tensor(a), rt_tensor(b), sums[k][0], sums[k][1]};
        compare(texts[t], in, 4);
        rt_value_unref(sums[k][0]);
        rt_value_unref(sums[k][1]);
      }
      rt_tensor_unref(a);
      rt_tensor_unref(b);
    }
  /* A group input summed as an output (FuseGraph's horizontal merge of a sum): where the
   * map is larger than the input (%x [1, H] against %a [B, H]) the input is summed once. */
  static const char passthrough[] = "graph(%x : Float(*, *), %a : Float(*, *), %s : int[]):\n"
                                    "  %k : Float(*, *) = aten::_grad_sum_to_size(%x, %s)\n"
                                    "  %y : Float(*, *) = aten::sigmoid(%x)\n"
                                    "  %h : Float(*, *) = aten::mul(%y, %a)\n"
                                    "  return (%k, %h)\n";
  g = source_lines_parse(passthrough);
  g_assert_cmpuint(ir_n_outputs(fused_group(g)), ==, 2);
  ir_graph_free(g);
  int64_t rows[2] = {600, 1};
  for (guint r = 0; r < 2; r++) {
    RtTensor *x = randn(IR_DTYPE_FLOAT32, 2, rows[r], 1000, 13);
    RtTensor *a = randn(IR_DTYPE_FLOAT32, 2, 600, 1000, 14);
    gint64 to[1] = {1000};
    RtValue in[3] = {rt_tensor(x), rt_tensor(a), rt_int_list(to, 1)};
    compare(passthrough, in, 3);
    for (guint i = 0; i < 3; i++)
      rt_value_unref(in[i]);
  }
  /* The C backend did sum in its kernels: over the batch and along rows. */
  GPtrArray *entries = cpu_compile_entries();
  bool over_batch = false, along_rows = false;
  for (guint i = 0; i < entries->len; i++) {
    const CpuCompiled *c = g_ptr_array_index(entries, i);
    over_batch |= c->ok && strstr(c->source, "[i] += (double)n") != NULL;
    along_rows |= c->ok && strstr(c->source, "[0] += r") != NULL;
  }
  g_assert_true(over_batch && along_rows);
  g_ptr_array_unref(entries);
}

/* No compiler: the group still runs (on the evaluator) and the plan's record says why. */
static void test_missing_compiler(void) {
  g_setenv("JITSCOPE_CC", "/nonexistent", TRUE);
  cpu_compile_reset_compiler();
  char *why = NULL;
  g_assert_null(cpu_compile_compiler(&why));
  g_assert_nonnull(strstr(why, "/nonexistent"));
  g_free(why);
  static const char text[] = "graph(%a : Float(*, *), %b : Float(*, *)):\n"
                             "  %one : int = prim::Constant[value=1]()\n"
                             "  %c : Float(*, *) = aten::add(%a, %b, %one)\n"
                             "  %d : Float(*, *) = aten::sigmoid(%c)\n"
                             "  %e : Float(*, *) = aten::mul(%d, %a)\n"
                             "  return (%e)\n";
  IrGraph *g = source_lines_parse(text);
  ExecSession *session = exec_session_new();
  session->fuse = true;
  ExecExecutor *ex = exec_executor_new(session, g, "main", EXEC_PLAN_FORWARD);
  RtTensor *a = randn(IR_DTYPE_FLOAT32, 2, 4, 6, 7), *b = randn(IR_DTYPE_FLOAT32, 2, 4, 6, 8);
  RtValue in[2] = {rt_tensor(a), rt_tensor(b)};
  RtValue *outs = NULL;
  guint n_outs = 0;
  GError *error = NULL;
  g_assert_true(exec_executor_run(ex, in, 2, &outs, &n_outs, &error));
  g_assert_no_error(error);
  g_assert_cmpuint(n_outs, ==, 1);
  for (int64_t e = 0; e < 24; e++) {
    double x = rt_tensor_get(a, e), y = rt_tensor_get(b, e);
    double want = (float)((float)(1 / (1 + exp(-(double)(float)(x + y)))) * x);
    g_assert_cmpfloat(fabs(rt_tensor_get(outs[0].u.tensor, e) - want), <, 1e-6);
  }
  guint records = 0;
  for (guint p = 0; p < session->plans->len; p++) {
    const ExecPlan *plan = g_ptr_array_index(session->plans, p);
    char *lines = fuser_plan_records_describe(plan->fuser);
    if (*lines) {
      g_assert_nonnull(strstr(lines, ": cpu ("));
      g_assert_nonnull(strstr(lines, "cpu-c: JITSCOPE_CC=/nonexistent"));
      records++;
    }
    g_free(lines);
  }
  g_assert_cmpuint(records, ==, 1);
  rt_value_unref(outs[0]);
  g_free(outs);
  rt_value_unref(in[0]);
  rt_value_unref(in[1]);
  exec_session_free(session);
  ir_graph_free(g);
  g_unsetenv("JITSCOPE_CC");
  cpu_compile_reset_compiler();
}

/* One compilation per distinct source; runs of the same layout hit the cache; the folder
 * holds the source, the .so and the log. */
static void test_cache(void) {
  static const char text[] = "graph(%a : Float(*), %b : Float(*)):\n"
                             "  %c : Float(*) = aten::atan2(%a, %b)\n"
                             "  %d : Float(*) = aten::erfc(%c)\n"
                             "  return (%d)\n";
  guint compiles0, hits0, compiles1, hits1;
  cpu_compile_stats(&compiles0, &hits0);
  RtValue in[2] = {rt_tensor(randn(IR_DTYPE_FLOAT32, 1, 100, 1, 9)),
                   rt_tensor(randn(IR_DTYPE_FLOAT32, 1, 100, 1, 10))};
  for (int i = 0; i < 3; i++)
    compare(text, in, 2);
  cpu_compile_stats(&compiles1, &hits1);
  g_assert_cmpuint(compiles1 - compiles0, ==, 1);
  rt_value_unref(in[0]);
  rt_value_unref(in[1]);
  GPtrArray *entries = cpu_compile_entries();
  CpuCompiled *last = g_ptr_array_index(entries, entries->len - 1);
  g_assert_true(last->ok);
  g_assert_nonnull(strstr(last->source, "atan2f("));
  g_assert_nonnull(strstr(last->command, "-ffp-contract=off"));
  char *so = g_strdup_printf("%s/%s.so", cpu_compile_cache_dir(), last->hash);
  char *c = g_strdup_printf("%s/%s.c", cpu_compile_cache_dir(), last->hash);
  g_assert_true(g_file_test(so, G_FILE_TEST_EXISTS));
  g_assert_true(g_file_test(c, G_FILE_TEST_EXISTS));
  g_free(so);
  g_free(c);
  g_ptr_array_unref(entries);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/cpu-codegen/contiguous-float", test_contiguous_float);
  g_test_add_func("/cpu-codegen/strided-double", test_strided_double);
  g_test_add_func("/cpu-codegen/accumulate", test_accumulate);
  g_test_add_func("/cpu-codegen/compare-where-bool", test_compare_where_bool);
  g_test_add_func("/cpu-codegen/rejects-half", test_rejects_half);
  g_test_add_func("/cpu-codegen/missing-compiler", test_missing_compiler);
  if (cpu_compile_compiler(NULL)) {
    g_test_add_func("/cpu-codegen/run-layouts", test_run_layouts);
    g_test_add_func("/cpu-codegen/run-double-int-bool", test_run_double_int_bool);
    g_test_add_func("/cpu-codegen/cache", test_cache);
    g_test_add_func("/cpu-codegen/run-sum-to", test_run_sum_to);
  }
  return g_test_run();
}
