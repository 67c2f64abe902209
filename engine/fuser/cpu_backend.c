/* The C FuserBackend "cpu-c": the map geometry of a group's inputs (fuser.h conventions), dims
 * merged jointly over every operand, a generated and compiled function per (group, dtypes,
 * layout), run over the map on two threads when it is large. Tried before the interpreting
 * CPU loop ("cpu"), which runs when there is no compiler or compilation fails; the plan's
 * records say why (fuser_run_group). */
#include <string.h>

#include "fuser/cpu_codegen.h"
#include "fuser/cpu_compile.h"
#include "fuser/cuda_codegen.h"
#include "fuser/group_shapes.h"
#include "fuser/kernel_expr.h"
#include "tensor/memory_budget.h"
#include "tensor/tensor.h"

#define PARALLEL_MIN_NUMEL 65536

/* Per group and input dtypes: the operands and the compiled function per layout. */
typedef struct {
  CpuKernelSource *operands;
  GHashTable *kernels; /* signature key -> CpuCompiled* (owned by cpu_compile) */
} GroupKernels;

static GMutex kernels_lock;
static GHashTable *groups; /* canonical text + dtypes -> GroupKernels* */

static void group_kernels_free(gpointer p) {
  GroupKernels *g = p;
  kernel_source_free(g->operands);
  g_hash_table_unref(g->kernels);
  g_free(g);
}

/* The canonical text of a group, cached per plan (fuser_group_cache). */
static void *canonical_create(const IrNode *group, GError **error) {
  (void)error;
  return cuda_codegen_canonical_text(ir_node_attr_g(group, IR_ATTR_SUBGRAPH));
}

static bool supported_dtype(IrDtype d) {
  return d == IR_DTYPE_FLOAT32 || d == IR_DTYPE_FLOAT64 || d == IR_DTYPE_INT64 ||
         d == IR_DTYPE_BOOL;
}

/* The compiler's time grows faster than linearly in a function's size (a 5,000-node group
 * took cc1 15 s, a 100,000-node one would take hours): larger groups run on the fused loop's
 * evaluator, whose time is linear. */
#define C_BACKEND_MAX_GROUP_NODES 512

static bool c_can_run(const FuserBackend *backend, const IrNode *group, const RtValue *inputs,
                      guint n_inputs, char **why) {
  (void)backend;
  guint n_nodes = ir_graph_count_nodes(ir_node_attr_g(group, IR_ATTR_SUBGRAPH));
  if (n_nodes > C_BACKEND_MAX_GROUP_NODES) {
    *why = g_strdup_printf("cpu-c: the group has %u nodes, more than the %d that are compiled",
                           n_nodes, C_BACKEND_MAX_GROUP_NODES);
    return false;
  }
  g_autofree char *no_cc = NULL;
  if (!cpu_compile_compiler(&no_cc)) {
    *why = g_strdup_printf("cpu-c: %s", no_cc);
    return false;
  }
  guint n = kernel_graph_n_tensor_inputs(ir_node_attr_g(group, IR_ATTR_SUBGRAPH));
  for (guint i = 0; i < n && i < n_inputs; i++) {
    const RtTensor *t = inputs[i].tag == RT_TENSOR ? inputs[i].u.tensor : NULL;
    if (!t) {
      *why = g_strdup_printf("cpu-c: input %u is not a defined tensor", i);
      return false;
    }
    if (t->storage->device != IR_DEVICE_CPU) {
      *why = g_strdup_printf("cpu-c: input %u is on %s", i, ir_device_name(t->storage->device));
      return false;
    }
    if (!supported_dtype(t->dtype)) {
      *why = g_strdup_printf("cpu-c: input %u has dtype %s", i, ir_dtype_name(t->dtype));
      return false;
    }
  }
  return true;
}

/* Right-aligned strides of a view broadcast to the map. */
static void broadcast_strides(const FuserShape *view, const int64_t *strides, const FuserShape *map,
                              int64_t *out) {
  for (int d = 0; d < map->nd; d++) {
    int sd = d - (map->nd - view->nd);
    out[d] = (sd < 0 || view->sizes[sd] == 1 || map->sizes[d] == 1) ? 0 : strides[sd];
  }
}

/* One run's operands: pointers and strides over the map, then merged. */
typedef struct {
  guint n_ops;
  char **data;
  int64_t (*strides)[RT_MAX_DIMS];
  int rank;
  int64_t sizes[RT_MAX_DIMS];
  int64_t *flat_strides; /* [op * rank + d] */
  CpuKernelFn fn;
} Launch;

static void launch_part(gpointer data, int64_t start, int64_t end) {
  const Launch *l = data;
  l->fn(start, end, l->sizes, l->data, l->flat_strides);
}

/* Drops size-1 dims and merges a dim into the previous one when every operand is
 * contiguous across them (as the evaluator does). */
static void merge_dims(Launch *l, const FuserShape *map) {
  int nd = 0;
  for (int d = 0; d < map->nd; d++) {
    if (map->sizes[d] == 1)
      continue;
    bool merge = nd > 0;
    for (guint k = 0; merge && k < l->n_ops; k++)
      merge = l->strides[k][nd - 1] == l->strides[k][d] * map->sizes[d];
    if (merge) {
      l->sizes[nd - 1] *= map->sizes[d];
      for (guint k = 0; k < l->n_ops; k++)
        l->strides[k][nd - 1] = l->strides[k][d];
    } else {
      l->sizes[nd] = map->sizes[d];
      for (guint k = 0; k < l->n_ops; k++)
        l->strides[k][nd] = l->strides[k][d];
      nd++;
    }
  }
  if (nd == 0) {
    l->sizes[0] = 1;
    for (guint k = 0; k < l->n_ops; k++)
      l->strides[k][0] = 0;
    nd = 1;
  }
  l->rank = nd;
  l->flat_strides = g_new(int64_t, (gsize)l->n_ops * (gsize)nd);
  for (guint k = 0; k < l->n_ops; k++)
    for (int d = 0; d < nd; d++)
      l->flat_strides[k * (guint)nd + (guint)d] = l->strides[k][d];
}

static GroupKernels *group_kernels(const char *canonical, const IrGraph *kg, const IrDtype *dtypes,
                                   guint n, GError **error) {
  g_autoptr(GString) key = g_string_new(canonical);
  for (guint i = 0; i < n; i++)
    g_string_append_printf(key, " %s", ir_dtype_name(dtypes[i]));
  g_mutex_lock(&kernels_lock);
  if (!groups)
    groups = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, group_kernels_free);
  GroupKernels *g = g_hash_table_lookup(groups, key->str);
  if (!g) {
    CpuKernelSource *ops = cpu_codegen_operands(kg, dtypes, error);
    if (ops) {
      g = g_new0(GroupKernels, 1);
      g->operands = ops;
      g->kernels = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
      g_hash_table_insert(groups, g_strdup(key->str), g);
    }
  }
  g_mutex_unlock(&kernels_lock);
  return g;
}

static CpuCompiled *kernel_for(GroupKernels *g, const char *canonical, const IrGraph *kg,
                               const IrDtype *dtypes, const CpuInner *inner, guint rank,
                               GError **error) {
  g_autofree char *sig = cpu_codegen_signature_key(g->operands->args, inner, rank);
  g_mutex_lock(&kernels_lock);
  CpuCompiled *c = g_hash_table_lookup(g->kernels, sig);
  g_mutex_unlock(&kernels_lock);
  if (!c) {
    g_autofree char *both = g_strconcat(canonical, "\n", sig, NULL);
    g_autofree char *hash = g_compute_checksum_for_string(G_CHECKSUM_SHA256, both, -1);
    g_autofree char *name = g_strdup_printf("jitscope_cpu_%.16s", hash);
    CpuKernelSource *k = cpu_codegen_kernel(kg, name, dtypes, inner, rank, error);
    if (k)
      c = cpu_compile_get(k->source, k->name, error);
    if (c) {
      g_mutex_lock(&kernels_lock);
      g_hash_table_replace(g->kernels, g_strdup(sig), c);
      g_mutex_unlock(&kernels_lock);
    }
    kernel_source_free(k);
  }
  if (c && !c->ok) {
    g_auto(GStrv) lines = g_strsplit(c->log, "\n", 2);
    g_set_error(error, JITSCOPE_RUNTIME_ERROR, RT_ERROR_VALUE,
                "the generated C did not compile or load: %s", lines[0] ? lines[0] : "");
    return NULL;
  }
  return c;
}

/* Operand k's view (shape and strides before broadcasting) and its first element. */
static void operand_view(const CpuKernelArg *a, RtValue *inputs, RtValue *outputs, FuserShape *view,
                         int64_t *strides, char **data) {
  const RtTensor *t = a->is_output ? outputs[a->index].u.tensor : inputs[a->index].u.tensor;
  int64_t offset = 0;
  *view = (FuserShape){t->ndim, {0}};
  memcpy(view->sizes, t->sizes, sizeof(int64_t) * (size_t)t->ndim);
  memcpy(strides, t->strides, sizeof(int64_t) * (size_t)t->ndim);
  if (a->piece >= 0) {
    int dim;
    rt_wrap_dim(a->dim, t->ndim, &dim, NULL); /* checked by fuser_group_value_shapes */
    view->sizes[dim] /= a->n_pieces;
    offset = a->piece * view->sizes[dim] * t->strides[dim];
  }
  *data = (char *)rt_tensor_data(t) + offset * (int64_t)rt_dtype_size(t->dtype);
}

static bool c_run(const FuserBackend *backend, FuserPlanState *state, const IrNode *group,
                  RtValue *inputs, guint n_inputs, RtValue *outputs, guint n_outputs,
                  GError **error) {
  const IrGraph *kg = ir_node_attr_g(group, IR_ATTR_SUBGRAPH);
  guint n = kernel_graph_n_tensor_inputs(kg);
  if (n > n_inputs || ir_graph_outputs(kg)->len != n_outputs) {
    g_set_error(error, JITSCOPE_RUNTIME_ERROR, RT_ERROR_VALUE, "C backend: arity mismatch");
    return false;
  }
  bool owned = false;
  char *canonical =
      fuser_group_cache(state, group, backend, canonical_create, g_free, &owned, error);
  g_autofree IrDtype *dtypes = g_new0(IrDtype, n + 1);
  for (guint i = 0; i < n; i++)
    dtypes[i] = inputs[i].u.tensor->dtype;
  GroupKernels *gk = group_kernels(canonical, kg, dtypes, n, error);
  g_autoptr(GHashTable) shapes = gk ? fuser_group_value_shapes(kg, inputs, error) : NULL;
  Launch l = {0};
  g_autofree CpuInner *inner = NULL;
  bool ok = shapes != NULL;
  GArray *args = gk ? gk->operands->args : NULL;
  FuserShape map = {0};
  /* The map: the broadcast of the tensor inputs' (pieces') shapes. */
  for (guint k = 0; ok && k < args->len; k++) {
    const CpuKernelArg *a = &g_array_index(args, CpuKernelArg, k);
    if (a->is_output || (!a->used && a->piece < 0))
      continue;
    FuserShape view;
    int64_t st[RT_MAX_DIMS];
    char *data;
    operand_view(a, inputs, outputs, &view, st, &data);
    ok = fuser_shape_broadcast_into(&map, &view, error);
  }
  /* Outputs: fresh contiguous tensors of their natural shape. */
  bool full = true;
  int64_t numel = 1;
  for (int d = 0; d < map.nd; d++)
    numel *= map.sizes[d];
  for (guint o = 0; ok && o < n_outputs; o++) {
    const FuserShape *s = fuser_group_output_shape(shapes, kg, o);
    IrDtype dt = g_array_index(gk->operands->output_dtypes, IrDtype, o);
    RtTensor *t = rt_tensor_new_checked(dt, s->nd, s->sizes, error);
    if (!t) {
      for (guint made = 0; made < o; made++) {
        rt_value_unref(outputs[made]);
        outputs[made] = rt_none();
      }
      ok = false;
      break;
    }
    outputs[o] = rt_tensor(t);
    int64_t count = 1;
    for (int d = 0; d < s->nd; d++)
      count *= s->sizes[d];
    const IrNode *producer = ((IrValue *)g_ptr_array_index(ir_graph_outputs(kg), o))->node;
    full &= producer->kind == IR_PRIM_FUSED_CONCAT ? count == numel * (int64_t)ir_n_inputs(producer)
                                                   : count == numel;
  }
  if (ok && numel > 0) {
    l.n_ops = args->len;
    l.data = g_new0(char *, l.n_ops);
    l.strides = g_malloc0_n(l.n_ops, sizeof(int64_t[RT_MAX_DIMS]));
    for (guint k = 0; k < args->len; k++) {
      const CpuKernelArg *a = &g_array_index(args, CpuKernelArg, k);
      FuserShape view;
      int64_t st[RT_MAX_DIMS];
      operand_view(a, inputs, outputs, &view, st, &l.data[k]);
      broadcast_strides(&view, st, &map, l.strides[k]);
    }
    merge_dims(&l, &map);
    inner = g_new(CpuInner, l.n_ops);
    for (guint k = 0; k < l.n_ops; k++) {
      int64_t s = l.strides[k][l.rank - 1];
      const CpuKernelArg *a = &g_array_index(args, CpuKernelArg, k);
      inner[k] = (!a->is_output && !a->used) || s == 1 ? CPU_INNER_CONTIGUOUS
                 : s == 0                              ? CPU_INNER_BROADCAST
                                                       : CPU_INNER_STRIDED;
    }
    CpuCompiled *c = kernel_for(gk, canonical, kg, dtypes, inner, (guint)l.rank, error);
    ok = c != NULL;
    if (ok) {
      gint64 started = g_get_monotonic_time();
      l.fn = (CpuKernelFn)c->fn;
      cpu_compile_parallel_for(numel, full && numel >= PARALLEL_MIN_NUMEL, launch_part, &l);
      g_mutex_lock(&kernels_lock);
      c->runs++;
      c->last_ms = (double)(g_get_monotonic_time() - started) / 1000.0;
      g_mutex_unlock(&kernels_lock);
    }
  }
  ok = ok && fuser_apply_sum_to(group, inputs, n_inputs, outputs, n_outputs, error);
  g_free(l.data);
  g_free(l.strides);
  g_free(l.flat_strides);
  if (owned)
    g_free(canonical);
  return ok;
}

static const FuserBackend c_backend = {"cpu-c", c_can_run, c_run, NULL};

const FuserBackend *fuser_cpu_codegen_backend(void) {
  return &c_backend;
}
