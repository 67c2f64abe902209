/* The kernel of a fusion group (contract in cuda_report.h). */
#include "cuda/cuda_report.h"

#include "cuda/cuda_compile.h"
#include "cuda/cuda_launch.h"

/* Compiles r->source for arch into r's compilation fields. */
static void compile_into(CudaKernelReport *r, const char *name, const char *arch) {
  g_autoptr(GError) error = NULL;
  CudaCompileResult *c = cuda_compile_ptx(r->source, name, arch, &error);
  g_free(r->log);
  if (c == NULL) {
    r->log = g_strdup(error->message);
    return;
  }
  r->attempted = true;
  r->compiled = c->ok;
  r->arch = g_strdup(c->arch);
  r->log = g_strdup(c->log);
  r->ptx_bytes = c->ptx_bytes;
  r->ms = c->ms;
  cuda_compile_result_free(c);
}

CudaKernelReport *cuda_report_group(const IrNode *group, const char *arch) {
  CudaKernelReport *r = g_new0(CudaKernelReport, 1);
  r->log = g_strdup("");
  if (group->kind != IR_PRIM_FUSION_GROUP || !ir_node_attr(group, IR_ATTR_SUBGRAPH)) {
    r->error = g_strdup("not a FusionGroup with a kernel graph");
    return r;
  }
  const IrGraph *kg = ir_node_attr_g(group, IR_ATTR_SUBGRAPH);
  guint n = cuda_codegen_n_tensor_inputs(kg);
  guint n_out = ir_graph_outputs(kg)->len;
  g_autofree IrDtype *dtypes = g_new0(IrDtype, n + 1);
  g_autofree guint *in_nd = g_new0(guint, n + 1);
  g_autofree guint *out_nd = g_new0(guint, n_out + 1);
  for (guint i = 0; i < n; i++) {
    const IrType *t = ((IrValue *)g_ptr_array_index(ir_graph_inputs(kg), i))->type;
    dtypes[i] = t->has_dtype ? t->dtype : IR_DTYPE_FLOAT32;
  }
  cuda_group_assumed_ndims(kg, in_nd, out_nd);
  g_autofree char *key =
      cuda_compile_signature_key(n, dtypes, in_nd, n_out, out_nd, arch ? arch : "-");
  g_autofree char *canonical = cuda_codegen_canonical_text(kg);
  g_autofree char *name = cuda_compile_kernel_name(canonical, key);
  g_autoptr(GError) error = NULL;
  CudaKernelSource *k = cuda_codegen_kernel(kg, name, dtypes, in_nd, out_nd, &error);
  if (k == NULL) {
    r->error = g_strdup(error->message);
  } else {
    r->kernel = g_strdup(k->name);
    r->source = g_strdup(k->source);
    if (arch)
      compile_into(r, k->name, arch);
    kernel_source_free(k);
  }
  return r;
}

void cuda_kernel_report_free(CudaKernelReport *r) {
  if (r == NULL)
    return;
  g_free(r->plan);
  g_free(r->group);
  g_free(r->kernel);
  g_free(r->source);
  g_free(r->error);
  g_free(r->arch);
  g_free(r->log);
  g_free(r);
}
