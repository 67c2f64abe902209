/* nvrtc compiles every fusion group of every corpus case (forward plans, DifferentiableGraph
 * bodies and the backward plans a backward run adds) to PTX, plus hand-written groups in every
 * dtype the generator spells (float64, float16, int64, bool); the kernel cache hits on the
 * second lookup; --arch parsing. Exit 77 only when nvrtc cannot be loaded. */
#include <stdio.h>
#include <string.h>

#include "corpus_case.h"
#include "cuda/cuda_compile.h"
#include "exec/kernel_report.h"
#include "ir/text.h"

static guint failures;

static void check(bool ok, const char *what, const char *detail) {
  if (!ok) {
    failures++;
    fprintf(stderr, "FAIL: %s%s%s\n", what, detail ? "\n" : "", detail ? detail : "");
  }
}

static guint corpus_groups(void) {
  char **index = corpus_case_index();
  if (index == NULL) {
    fprintf(stderr, "no corpus (JITSCOPE_CORPUS_DIR): corpus part skipped\n");
    return 0;
  }
  guint total = 0;
  for (guint i = 0; index[i]; i++) {
    if (index[i][0] == '\0')
      continue;
    CorpusCase c;
    corpus_case_load(&c, index[i]);
    ExecSession *session = exec_session_new();
    GPtrArray *outs = g_ptr_array_new_with_free_func((GDestroyNotify)rt_tensor_unref);
    GPtrArray *grads = g_ptr_array_new();
    corpus_case_run(&c, session, outs, grads);
    GError *error = NULL;
    GPtrArray *reports = exec_session_kernel_reports(session, true, NULL, &error);
    g_assert_no_error(error);
    guint backward = 0;
    for (guint r = 0; r < reports->len; r++) {
      const CudaKernelReport *k = g_ptr_array_index(reports, r);
      char *what = g_strdup_printf("%s: %s %s", c.name, k->plan, k->group);
      check(k->error == NULL, what, k->error);
      check(k->attempted && k->compiled, what, k->source);
      if (k->attempted && !k->compiled)
        fprintf(stderr, "nvrtc log:\n%s\n", k->log);
      check(!k->compiled || k->ptx_bytes > 0, what, "no PTX");
      backward += strstr(k->plan, "/backward") != NULL;
      g_free(what);
    }
    printf("%s: %u fusion groups compiled (%u in backward plans)\n", c.name, reports->len,
           backward);
    total += reports->len;
    for (guint g = 0; g < grads->len; g++)
      if (g_ptr_array_index(grads, g))
        rt_tensor_unref(g_ptr_array_index(grads, g));
    g_ptr_array_unref(grads);
    g_ptr_array_unref(outs);
    g_ptr_array_unref(reports);
    exec_session_free(session);
    corpus_case_free(&c);
  }
  g_strfreev(index);
  return total;
}

static const char *const hand_graphs[] = {
    "graph(%a : Tensor, %b : Tensor):\n"
    "  %one : int = prim::Constant[value=1]()\n"
    "  %h : float = prim::Constant[value=0.5]()\n"
    "  %none : NoneType = prim::Constant()\n"
    "  %c : Tensor = aten::add(%a, %b, %one)\n"
    "  %d : Tensor = aten::clamp(%c, %none, %h)\n"
    "  %e : Tensor = aten::gt(%d, %b)\n"
    "  %f : Tensor = aten::where(%e, %a, %d)\n"
    "  %g : Tensor = aten::pow(%f, %h)\n"
    "  return (%g, %e)\n",
    "graph(%a : Tensor, %b : Tensor):\n"
    "  %k : float = prim::Constant[value=2.5]()\n"
    "  %x0 : Tensor, %x1 : Tensor = prim::ConstantChunk[chunks=2, dim=1](%a)\n"
    "  %s : Tensor = aten::mul(%x0, %x1)\n"
    "  %t : Tensor = aten::sub(%s, %b, %k)\n"
    "  return (%t)\n",
};

static void hand_written(const char *arch) {
  static const IrDtype dtypes[] = {IR_DTYPE_FLOAT32, IR_DTYPE_FLOAT64, IR_DTYPE_FLOAT16};
  for (guint h = 0; h < G_N_ELEMENTS(hand_graphs); h++) {
    GError *error = NULL;
    IrGraph *g = ir_graph_parse(hand_graphs[h], strlen(hand_graphs[h]), "<hand>", &error);
    g_assert_no_error(error);
    for (guint d = 0; d < G_N_ELEMENTS(dtypes); d++) {
      IrDtype in[2] = {dtypes[d], dtypes[d]};
      guint in_nd[2] = {h == 1 ? 2 : 1, 2}, out_nd[2] = {1, 1};
      CudaKernelSource *k = cuda_codegen_kernel(g, "hand", in, in_nd, out_nd, &error);
      g_assert_no_error(error);
      CudaCompileResult *r = cuda_compile_ptx(k->source, k->name, arch, &error);
      g_assert_no_error(error);
      char *what = g_strdup_printf("hand graph %u as %s", h, ir_dtype_name(dtypes[d]));
      check(r->ok, what, r->log);
      if (!r->ok)
        fprintf(stderr, "%s\n", k->source);
      g_free(what);
      cuda_compile_result_free(r);
      kernel_source_free(k);
    }
    ir_graph_free(g);
  }
  /* Integer and bool inputs: comparisons of longs, where on a bool input. */
  const char *ints = "graph(%a : Tensor, %b : Tensor, %c : Tensor):\n"
                     "  %e : Tensor = aten::lt(%a, %b)\n"
                     "  %f : Tensor = aten::where(%c, %a, %b)\n"
                     "  return (%e, %f)\n";
  GError *error = NULL;
  IrGraph *g = ir_graph_parse(ints, strlen(ints), "<ints>", &error);
  g_assert_no_error(error);
  IrDtype in[3] = {IR_DTYPE_INT64, IR_DTYPE_INT64, IR_DTYPE_BOOL};
  guint nd[3] = {1, 1, 1};
  CudaKernelSource *k = cuda_codegen_kernel(g, "ints", in, nd, nd, &error);
  g_assert_no_error(error);
  CudaCompileResult *r = cuda_compile_ptx(k->source, k->name, arch, &error);
  g_assert_no_error(error);
  check(r->ok, "int64/bool group", r->log);
  cuda_compile_result_free(r);
  kernel_source_free(k);

  /* The cache: a miss, then a hit for the same group and signature. */
  guint groups0, kernels0, hits0, groups1, kernels1, hits1;
  cuda_kernel_cache_stats(&groups0, &kernels0, &hits0);
  CudaKernelEntry *e1 = cuda_kernel_cache_get(g, in, nd, nd, arch, &error);
  g_assert_no_error(error);
  CudaKernelEntry *e2 = cuda_kernel_cache_get(g, in, nd, nd, arch, &error);
  g_assert_no_error(error);
  cuda_kernel_cache_stats(&groups1, &kernels1, &hits1);
  check(e1 == e2 && e1->compiled->ok, "cache returns the compiled entry twice", NULL);
  check(kernels1 == kernels0 + 1 && hits1 == hits0 + 1 && groups1 == groups0 + 1,
        "cache counts one miss then one hit", NULL);
  ir_graph_free(g);
}

static void arch_parsing(void) {
  GError *error = NULL;
  char *a = cuda_compile_resolve_arch("sm_90", &error);
  g_assert_no_error(error);
  check(g_strcmp0(a, "compute_90") == 0, "sm_90 -> compute_90", a);
  g_free(a);
  a = cuda_compile_resolve_arch("compute_80", &error);
  g_assert_no_error(error);
  check(g_strcmp0(a, "compute_80") == 0, "compute_80 kept", a);
  g_free(a);
  a = cuda_compile_resolve_arch("banana", &error);
  check(a == NULL && error && error->code == CUDA_ERROR_ARGUMENT, "banana is refused", NULL);
  g_clear_error(&error);
  a = cuda_compile_resolve_arch("sm_10", &error);
  check(a == NULL && error != NULL, "sm_10 is refused", NULL);
  g_clear_error(&error);
}

int main(void) {
  const CudaStatus *s = cuda_loader_get();
  if (!s->nvrtc.loaded) {
    printf("SKIP: nvrtc did not load: %s\n", s->nvrtc.error);
    return 77;
  }
  GError *error = NULL;
  char *arch = cuda_compile_resolve_arch(NULL, &error);
  g_assert_no_error(error);
  printf("nvrtc %d.%d, compiling for %s\n", s->nvrtc_major, s->nvrtc_minor, arch);
  guint total = corpus_groups();
  char **index = corpus_case_index();
  if (index != NULL)
    check(total > 0, "the corpus has fusion groups", NULL);
  g_strfreev(index);
  hand_written(arch);
  arch_parsing();
  g_free(arch);
  printf("%u corpus fusion groups; %u failures\n", total, failures);
  return failures ? 1 : 0;
}
