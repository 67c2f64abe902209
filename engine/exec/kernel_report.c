/* Kernels of a session's fusion groups (contract in kernel_report.h). */
#include "exec/kernel_report.h"

#include "cuda/cuda_compile.h"

typedef struct {
  const ExecPlan *plan;
  guint plan_index;
  const char *arch; /* NULL: not compiled */
  GPtrArray *out;
} Walk;

static void walk_block(Walk *w, const IrBlock *block, const char *prefix, guint *groups,
                       guint *diffs) {
  IR_FOR_EACH_NODE(n, block) {
    if (n->kind == IR_PRIM_FUSION_GROUP) {
      CudaKernelReport *r = cuda_report_group(n, w->arch);
      r->plan = g_strdup_printf("%s (%s)", w->plan->graph_name, w->plan->spec_text);
      r->plan_index = w->plan_index;
      r->group = g_strdup_printf("%sFusionGroup_%u", prefix, (*groups)++);
      g_ptr_array_add(w->out, r);
    } else if (n->kind == IR_PRIM_DIFFERENTIABLE_GRAPH) {
      const IrGraph *f = ir_node_attr_g(n, IR_ATTR_SUBGRAPH);
      g_autofree char *inner = g_strdup_printf("%sDifferentiableGraph_%u/", prefix, (*diffs)++);
      guint g = 0, d = 0;
      walk_block(w, f->block, inner, &g, &d);
    }
    for (guint b = 0; b < ir_n_blocks(n); b++)
      walk_block(w, ir_block(n, b), prefix, groups, diffs);
  }
}

GPtrArray *exec_session_kernel_reports(ExecSession *session, bool compile, const char *arch,
                                       GError **error) {
  g_autofree char *resolved = NULL;
  if (compile && cuda_loader_get()->nvrtc.loaded) {
    resolved = cuda_compile_resolve_arch(arch, error);
    if (resolved == NULL)
      return NULL;
  }
  GPtrArray *out = g_ptr_array_new_with_free_func((GDestroyNotify)cuda_kernel_report_free);
  for (guint p = 0; p < session->plans->len; p++) {
    const ExecPlan *plan = g_ptr_array_index(session->plans, p);
    Walk w = {plan, p, resolved, out};
    guint groups = 0, diffs = 0;
    if (plan->graph)
      walk_block(&w, plan->graph->block, "", &groups, &diffs);
  }
  return out;
}
