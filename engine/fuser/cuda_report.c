/* Kernels of a session's fusion groups (contract in cuda_report.h). */
#include "fuser/cuda_report.h"

#include "fuser/cuda_compile.h"
#include "fuser/cuda_launch.h"

typedef struct {
  const ExecPlan *plan;
  guint plan_index;
  bool compile;
  const char *arch;
  GPtrArray *out;
} Walk;

static void report_group(Walk *w, const IrNode *group, const char *name) {
  CudaKernelReport *r = g_new0(CudaKernelReport, 1);
  r->plan = g_strdup_printf("%s (%s)", w->plan->graph_name, w->plan->spec_text);
  r->plan_index = w->plan_index;
  r->group = g_strdup(name);
  r->log = g_strdup("");
  g_ptr_array_add(w->out, r);

  const IrGraph *kg = ir_node_attr_g(group, IR_ATTR_SUBGRAPH);
  guint n = cuda_codegen_n_tensor_inputs(kg);
  guint n_out = ir_graph_outputs(kg)->len;
  IrDtype *dtypes = g_new0(IrDtype, n + 1);
  guint *in_nd = g_new0(guint, n + 1), *out_nd = g_new0(guint, n_out + 1);
  for (guint i = 0; i < n; i++) {
    const IrType *t = ((IrValue *)g_ptr_array_index(ir_graph_inputs(kg), i))->type;
    dtypes[i] = t->has_dtype ? t->dtype : IR_DTYPE_FLOAT32;
  }
  cuda_group_assumed_ndims(kg, in_nd, out_nd);
  char *key = cuda_compile_signature_key(n, dtypes, in_nd, n_out, out_nd,
                                         w->arch ? w->arch : "-");
  char *canonical = cuda_codegen_canonical_text(kg);
  char *kname = cuda_compile_kernel_name(canonical, key);
  GError *error = NULL;
  CudaKernelSource *k = cuda_codegen_kernel(kg, kname, dtypes, in_nd, out_nd, &error);
  if (k == NULL) {
    r->error = g_strdup(error->message);
    g_clear_error(&error);
  } else {
    r->kernel = g_strdup(k->name);
    r->source = g_strdup(k->source);
    if (w->compile && w->arch) {
      CudaCompileResult *c = cuda_compile_ptx(k->source, k->name, w->arch, &error);
      if (c) {
        r->attempted = true;
        r->compiled = c->ok;
        r->arch = g_strdup(c->arch);
        g_free(r->log);
        r->log = g_strdup(c->log);
        r->ptx_bytes = c->ptx_bytes;
        r->ms = c->ms;
        cuda_compile_result_free(c);
      } else {
        g_free(r->log);
        r->log = g_strdup(error->message);
        g_clear_error(&error);
      }
    }
    kernel_source_free(k);
  }
  g_free(kname);
  g_free(canonical);
  g_free(key);
  g_free(dtypes);
  g_free(in_nd);
  g_free(out_nd);
}

static void walk_block(Walk *w, const IrBlock *block, const char *prefix, guint *groups,
                       guint *diffs) {
  IR_FOR_EACH_NODE(n, block) {
    if (n->kind == IR_PRIM_FUSION_GROUP) {
      char *name = g_strdup_printf("%sFusionGroup_%u", prefix, (*groups)++);
      report_group(w, n, name);
      g_free(name);
    } else if (n->kind == IR_PRIM_DIFFERENTIABLE_GRAPH) {
      const IrGraph *f = ir_node_attr_g(n, IR_ATTR_SUBGRAPH);
      char *inner = g_strdup_printf("%sDifferentiableGraph_%u/", prefix, (*diffs)++);
      guint g = 0, d = 0;
      walk_block(w, f->block, inner, &g, &d);
      g_free(inner);
    }
    for (guint b = 0; b < ir_n_blocks(n); b++)
      walk_block(w, ir_block(n, b), prefix, groups, diffs);
  }
}

GPtrArray *cuda_report_session(ExecSession *session, bool compile, const char *arch,
                               GError **error) {
  char *resolved = NULL;
  const CudaStatus *s = cuda_loader_get();
  if (compile && s->nvrtc.loaded) {
    resolved = cuda_compile_resolve_arch(arch, error);
    if (resolved == NULL)
      return NULL;
  }
  GPtrArray *out = g_ptr_array_new_with_free_func((GDestroyNotify)cuda_kernel_report_free);
  for (guint p = 0; p < session->plans->len; p++) {
    const ExecPlan *plan = g_ptr_array_index(session->plans, p);
    Walk w = {plan, p, compile, resolved, out};
    guint groups = 0, diffs = 0;
    if (plan->graph)
      walk_block(&w, plan->graph->block, "", &groups, &diffs);
  }
  g_free(resolved);
  return out;
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
