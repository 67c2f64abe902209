/* GPU suite: every corpus case through the executor with the CUDA backend taking every fusion
 * group (inputs copied to the device and back), compared with PyTorch's outputs and gradients
 * within the corpus tolerances; every group that ran must have run on "cuda". Also a group with
 * a broadcast input, a chunked input and a FusedConcat, in float32, float64 and float16, against
 * the CPU fused loop. Exit 77 when there is no GPU, driver or nvrtc. */
#include <stdio.h>
#include <string.h>

#include "corpus_case.h"
#include "cuda/cuda_launch.h"
#include "cuda/cuda_loader.h"
#include "ir/text.h"
#include "runtime/interpreter.h"

static guint failures;

static void fail(const char *format, ...) G_GNUC_PRINTF(1, 2);
static void fail(const char *format, ...) {
  va_list ap;
  va_start(ap, format);
  vfprintf(stderr, format, ap);
  va_end(ap);
  fputc('\n', stderr);
  failures++;
}

static double tolerance(IrDtype d) {
  return d == IR_DTYPE_FLOAT64 ? 1e-10 : d == IR_DTYPE_FLOAT16 ? 1e-2 : 1e-4;
}

static guint corpus(void) {
  char **index = corpus_case_index();
  guint cuda_groups = 0;
  for (guint i = 0; index && index[i]; i++) {
    if (index[i][0] == '\0')
      continue;
    CorpusCase c;
    corpus_case_load(&c, index[i]);
    ExecSession *session = exec_session_new();
    GPtrArray *outs = g_ptr_array_new_with_free_func((GDestroyNotify)rt_tensor_unref);
    GPtrArray *grads = g_ptr_array_new();
    corpus_case_run(&c, session, outs, grads);
    for (guint o = 0; o < c.n_out && o < outs->len; o++) {
      RtTensor *ours = g_ptr_array_index(outs, o);
      if (ours && c.out_ref[o] && corpus_rel_error(ours, c.out_ref[o]) > tolerance(ours->dtype))
        fail("%s: output %u differs from PyTorch's", c.name, o);
    }
    for (guint g = 0; g < grads->len; g++) {
      RtTensor *ours = g_ptr_array_index(grads, g);
      if (ours && c.grad_ref[g] && corpus_rel_error(ours, c.grad_ref[g]) > tolerance(ours->dtype))
        fail("%s: gradient %u differs from PyTorch's", c.name, g);
      if (ours)
        rt_tensor_unref(ours);
    }
    for (guint p = 0; p < session->plans->len; p++) {
      ExecPlan *plan = g_ptr_array_index(session->plans, p);
      GHashTable *records = fuser_plan_records(plan->fuser);
      if (records == NULL)
        continue;
      GHashTableIter it;
      gpointer key, value;
      g_hash_table_iter_init(&it, records);
      while (g_hash_table_iter_next(&it, &key, &value)) {
        FuserGroupRecord *r = value;
        if (g_strcmp0(r->backend, "cuda") != 0)
          fail("%s: %s %s ran on %s: %s", c.name, plan->graph_name, r->group_name, r->backend,
               r->fallback_reason ? r->fallback_reason : "");
        else
          cuda_groups++;
      }
    }
    g_ptr_array_unref(grads);
    g_ptr_array_unref(outs);
    exec_session_free(session);
    corpus_case_free(&c);
  }
  g_strfreev(index);
  return cuda_groups;
}

static const char group_text[] =
    "graph(%a : Tensor, %b : Tensor, %c : Tensor):\n"
    "  %r : Tensor = prim::FusionGroup_0(%a, %b, %c)\n"
    "  return (%r)\n"
    "with prim::FusionGroup_0 = graph(%x : Tensor, %y : Tensor, %z : Tensor):\n"
    "  %one : int = prim::Constant[value=1]()\n"
    "  %z0 : Tensor, %z1 : Tensor = prim::ConstantChunk[chunks=2, dim=1](%z)\n"
    "  %s : Tensor = aten::add(%x, %y, %one)\n"
    "  %t : Tensor = aten::sigmoid(%z0)\n"
    "  %u : Tensor = aten::mul(%s, %t)\n"
    "  %v : Tensor = aten::tanh(%z1)\n"
    "  %w : Tensor = prim::FusedConcat[dim=1](%u, %v)\n"
    "  return (%w)\n";

static void hand_group(IrDtype dtype) {
  GError *error = NULL;
  IrGraph *g = ir_graph_parse(group_text, strlen(group_text), "<gpu>", &error);
  g_assert_no_error(error);
  const IrNode *group = g->block->param->next;
  int64_t sa[2] = {5, 6}, sb[2] = {5, 1}, sc[2] = {12, 5};
  RtTensor *at = rt_tensor_randn(IR_DTYPE_FLOAT64, 2, sa, 1);
  RtTensor *a = rt_tensor_to_dtype(at, dtype);
  RtTensor *bt = rt_tensor_randn(IR_DTYPE_FLOAT64, 2, sb, 2);
  RtTensor *b = rt_tensor_to_dtype(bt, dtype);
  RtTensor *ct = rt_tensor_randn(IR_DTYPE_FLOAT64, 2, sc, 3);
  RtTensor *ctt = rt_tensor_view_transpose(ct, 0, 1);
  RtTensor *c = rt_tensor_to_dtype(ctt, dtype);
  if (rt_tensor_is_contiguous(c)) { /* keep the chunked input non-contiguous */
    RtTensor *cc = rt_tensor_new(dtype, 2, sc);
    g_assert_true(rt_tensor_copy_into(cc, ct, NULL));
    rt_tensor_unref(c);
    c = rt_tensor_view_transpose(cc, 0, 1);
    rt_tensor_unref(cc);
  }
  RtValue in[3] = {rt_tensor(a), rt_tensor(b), rt_tensor(c)};
  RtValue gpu[1] = {rt_none()}, cpu[1] = {rt_none()};
  const FuserBackend *cuda = cuda_launch_backend(), *host = fuser_cpu_backend();
  if (!cuda->run(cuda, NULL, group, in, 3, gpu, 1, &error))
    fail("hand group %s on cuda: %s", ir_dtype_name(dtype), error->message);
  g_clear_error(&error);
  if (!host->run(host, NULL, group, in, 3, cpu, 1, &error))
    g_clear_error(&error); /* the CPU loop may not take half: compare with interpretation */
  if (cpu[0].tag != RT_TENSOR) {
    RtValue *outs = NULL;
    guint n = 0;
    g_assert_true(
        rt_interpret(ir_node_attr_g(group, IR_ATTR_SUBGRAPH), NULL, in, 3, &outs, &n, &error));
    cpu[0] = outs[0];
    g_free(outs);
  }
  if (gpu[0].tag == RT_TENSOR) {
    g_assert_cmpint(gpu[0].u.tensor->sizes[1], ==, 12);
    double e = corpus_rel_error(gpu[0].u.tensor, cpu[0].u.tensor);
    if (e > tolerance(dtype))
      fail("hand group %s: cuda vs cpu error %g", ir_dtype_name(dtype), e);
  }
  rt_value_unref(gpu[0]);
  rt_value_unref(cpu[0]);
  for (guint i = 0; i < 3; i++)
    rt_value_unref(in[i]);
  rt_tensor_unref(at);
  rt_tensor_unref(bt);
  rt_tensor_unref(ctt);
  rt_tensor_unref(ct);
  ir_graph_free(g);
}

int main(void) {
  const CudaStatus *s = cuda_loader_get();
  char *why = cuda_status_unavailable_reason(s);
  if (why) {
    printf("SKIP: %s\n", why);
    g_free(why);
    return 77;
  }
  printf("GPU: %s (sm_%d%d, %d SMs)\n", s->device_name, s->cc_major, s->cc_minor, s->sm_count);
  cuda_launch_enable(true);
  hand_group(IR_DTYPE_FLOAT32);
  hand_group(IR_DTYPE_FLOAT64);
  hand_group(IR_DTYPE_FLOAT16);
  guint groups = corpus();
  char **index = corpus_case_index();
  if (index != NULL && groups == 0)
    fail("no corpus fusion group ran on cuda");
  g_strfreev(index);
  printf("%u corpus fusion-group runs on cuda; %u failures\n", groups, failures);
  return failures ? 1 : 0;
}
