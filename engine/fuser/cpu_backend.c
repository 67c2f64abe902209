/* The C FuserBackend "cpu-c": the map geometry of a group's inputs (fuser.h conventions), dims
 * merged jointly over every operand, a generated and compiled function per (group, dtypes,
 * layout), run over the map on two threads when it is large. Outputs the group sums to a
 * smaller size (a bias's gradient summed over the batch) are accumulated by the kernel into a
 * buffer of that size, one per thread, instead of being written at the map's size and summed
 * after. Tried before the interpreting CPU loop ("cpu"), which runs when there is no compiler
 * or compilation fails; the plan's records say why (fuser_run_group). */
#include <string.h>

#include "fuser/cpu_codegen.h"
#include "fuser/cpu_compile.h"
#include "fuser/cuda_codegen.h"
#include "fuser/group_shapes.h"
#include "fuser/kernel_expr.h"
#include "tensor/memory_budget.h"
#include "tensor/tensor.h"

/* A generated loop is memory-bound: a second thread pays off only once its operands no longer
 * fit the cache of the core that produced them (at 128K elements, an LSTM's gates, splitting
 * made the MiLSTM cell slower on 2 CPUs; at 4M it is faster). */
#define PARALLEL_MIN_NUMEL (1 << 19)

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

/* The geometry of one launch, a function of the group's tensor inputs' dtypes, sizes and
 * strides and of the sizes its outputs are summed to alone (fuser_group_value_shapes reads
 * nothing else): the outputs' shapes, the map merged over every operand and the compiled
 * function. Immutable once made; shared by reference count, since another thread may replace
 * a group's last launch while this one runs it. */
typedef struct {
  gint refcount;
  guint n_inputs, n_outputs, n_ops;
  RtTensor *inputs;          /* n_inputs headers, their dtype, ndim, sizes and strides only */
  FuserSumTo *targets;       /* per output, as read for this launch */
  FuserShape *output_shapes; /* per output: its size at the map, or its target if it sums */
  bool *sums_in_kernel;      /* per output */
  bool *accumulate;          /* per operand: an output that sums in the kernel */
  IrDtype *output_dtypes;
  int64_t numel;
  bool full;
  int rank;
  int64_t sizes[RT_MAX_DIMS];
  int64_t *flat_strides; /* [op * rank + d] */
  GArray *args;          /* of CpuKernelArg; GroupKernels' (kept until exit) */
  CpuCompiled *compiled; /* owned by cpu_compile (kept until exit) */
} LastLaunch;

static void last_launch_unref(LastLaunch *l) {
  if (!l || !g_atomic_int_dec_and_test(&l->refcount))
    return;
  g_free(l->inputs);
  g_free(l->targets);
  g_free(l->output_shapes);
  g_free(l->sums_in_kernel);
  g_free(l->accumulate);
  g_free(l->output_dtypes);
  g_free(l->flat_strides);
  g_free(l);
}

/* What a plan keeps per group (fuser_group_cache): the canonical text, which keys the
 * compiled kernels, and the last launch, which a call whose tensor inputs have the same
 * geometry runs again without the hash lookups, key strings and shape tables of the general
 * path (they cost tens of thousands of instructions, a 1-element group's run a few). */
typedef struct {
  const IrGraph *kg; /* the group's Subgraph */
  guint n_tensor_inputs;
  char *canonical;
  GMutex lock; /* guards last */
  LastLaunch *last;
} GroupCache;

static void group_cache_free(gpointer p) {
  GroupCache *c = p;
  g_free(c->canonical);
  g_mutex_clear(&c->lock);
  last_launch_unref(c->last);
  g_free(c);
}

static void *group_cache_create(const IrNode *group, GError **error) {
  (void)error;
  GroupCache *c = g_new0(GroupCache, 1);
  c->kg = ir_node_attr_g(group, IR_ATTR_SUBGRAPH);
  c->n_tensor_inputs = kernel_graph_n_tensor_inputs(c->kg);
  c->canonical = cuda_codegen_canonical_text(c->kg);
  g_mutex_init(&c->lock);
  return c;
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
  const IrGraph *kg = ir_node_attr_g(group, IR_ATTR_SUBGRAPH);
  guint n_nodes = ir_graph_count_nodes(kg);
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
  guint n = kernel_graph_n_tensor_inputs(kg);
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

/* One run: the operands' first elements over the merged map, per part (parts differ only in
 * their accumulators). */
typedef struct {
  char **data[CPU_COMPILE_MAX_PARTS];
  const int64_t *sizes;
  const int64_t *strides; /* [op * rank + d] */
  CpuKernelFn fn;
} Launch;

static void launch_part(gpointer data, int part, int64_t start, int64_t end) {
  const Launch *l = data;
  l->fn(start, end, l->sizes, l->data[part], l->strides);
}

/* Drops size-1 dims and merges a dim into the previous one when every operand is
 * contiguous across them (as the evaluator does); sets l's rank, sizes and flat strides. */
static void merge_dims(LastLaunch *l, int64_t (*strides)[RT_MAX_DIMS], const FuserShape *map) {
  int nd = 0;
  for (int d = 0; d < map->nd; d++) {
    if (map->sizes[d] == 1)
      continue;
    bool merge = nd > 0;
    for (guint k = 0; merge && k < l->n_ops; k++)
      merge = strides[k][nd - 1] == strides[k][d] * map->sizes[d];
    if (merge) {
      l->sizes[nd - 1] *= map->sizes[d];
      for (guint k = 0; k < l->n_ops; k++)
        strides[k][nd - 1] = strides[k][d];
    } else {
      l->sizes[nd] = map->sizes[d];
      for (guint k = 0; k < l->n_ops; k++)
        strides[k][nd] = strides[k][d];
      nd++;
    }
  }
  if (nd == 0) {
    l->sizes[0] = 1;
    for (guint k = 0; k < l->n_ops; k++)
      strides[k][0] = 0;
    nd = 1;
  }
  l->rank = nd;
  l->flat_strides = g_new(int64_t, (gsize)l->n_ops * (gsize)nd);
  for (guint k = 0; k < l->n_ops; k++)
    for (int d = 0; d < nd; d++)
      l->flat_strides[k * (guint)nd + (guint)d] = strides[k][d];
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
                               const IrDtype *dtypes, const CpuInner *inner, const bool *accumulate,
                               guint rank, GError **error) {
  g_autofree char *sig = cpu_codegen_signature_key(g->operands->args, inner, accumulate, rank);
  g_mutex_lock(&kernels_lock);
  CpuCompiled *c = g_hash_table_lookup(g->kernels, sig);
  g_mutex_unlock(&kernels_lock);
  if (!c) {
    g_autofree char *both = g_strconcat(canonical, "\n", sig, NULL);
    g_autofree char *hash = g_compute_checksum_for_string(G_CHECKSUM_SHA256, both, -1);
    g_autofree char *name = g_strdup_printf("jitscope_cpu_%.16s", hash);
    CpuKernelSource *k = cpu_codegen_kernel(kg, name, dtypes, inner, accumulate, rank, error);
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

/* Operand k's view, its shape and strides before broadcasting: a group input's, or for an
 * output those of the fresh contiguous tensor of output_shapes (its natural shape, or the
 * accumulator's); a chunk or FusedConcat piece is 1/n_pieces of it along its dim. */
static void operand_view(const CpuKernelArg *a, const RtValue *inputs,
                         const FuserShape *output_shapes, FuserShape *view, int64_t *strides) {
  if (a->is_output) {
    *view = output_shapes[a->index];
    rt_contiguous_strides(view->nd, view->sizes, strides);
  } else {
    const RtTensor *t = inputs[a->index].u.tensor;
    *view = (FuserShape){t->ndim, {0}};
    memcpy(view->sizes, t->sizes, sizeof(int64_t) * (size_t)t->ndim);
    memcpy(strides, t->strides, sizeof(int64_t) * (size_t)t->ndim);
  }
  if (a->piece >= 0) {
    int dim;
    rt_wrap_dim(a->dim, view->nd, &dim, NULL); /* checked by fuser_group_value_shapes */
    view->sizes[dim] /= a->n_pieces;
  }
}

/* Operand k's first element. */
static char *operand_data(const CpuKernelArg *a, const RtValue *inputs, const RtValue *outputs) {
  const RtTensor *t = a->is_output ? outputs[a->index].u.tensor : inputs[a->index].u.tensor;
  int64_t offset = 0;
  if (a->piece >= 0) {
    int dim;
    rt_wrap_dim(a->dim, t->ndim, &dim, NULL);
    offset = a->piece * (t->sizes[dim] / a->n_pieces) * t->strides[dim];
  }
  return (char *)rt_tensor_data(t) + offset * (int64_t)rt_dtype_size(t->dtype);
}

static bool same_geometry(const LastLaunch *l, const RtValue *inputs, const FuserSumTo *targets) {
  for (guint i = 0; i < l->n_inputs; i++) {
    const RtTensor *was = &l->inputs[i], *t = inputs[i].u.tensor;
    size_t bytes = sizeof(int64_t) * (size_t)t->ndim;
    if (t->dtype != was->dtype || t->ndim != was->ndim || memcmp(t->sizes, was->sizes, bytes) ||
        memcmp(t->strides, was->strides, bytes))
      return false;
  }
  for (guint o = 0; o < l->n_outputs; o++) {
    const FuserSumTo *was = &l->targets[o], *t = &targets[o];
    if (t->ndim != was->ndim ||
        (t->ndim > 0 && memcmp(t->sizes, was->sizes, sizeof(int64_t) * (size_t)t->ndim)))
      return false;
  }
  return true;
}

/* May output `o` be summed in the kernel? When it is a float computed once per map element
 * (not a concatenation, not smaller than the map) and its target sums some of its dims (sizes
 * 1 or its own, aligned right, as rt_tensor_sum_to takes them); any other sum, and the error
 * of a bad target, is rt_tensor_sum_to's after the kernel. */
static bool can_sum_in_kernel(const FuserSumTo *target, const FuserShape *shape, IrDtype dtype,
                              const IrNode *producer, int64_t numel) {
  if (target->ndim < 0 || target->ndim > shape->nd || numel == 0 ||
      producer->kind == IR_PRIM_FUSED_CONCAT ||
      (dtype != IR_DTYPE_FLOAT32 && dtype != IR_DTYPE_FLOAT64))
    return false;
  int64_t count = 1;
  for (int d = 0; d < shape->nd; d++)
    count *= shape->sizes[d];
  int lead = shape->nd - target->ndim;
  bool sums = lead > 0;
  for (int d = 0; d < target->ndim; d++) {
    int64_t want = target->sizes[d], have = shape->sizes[lead + d];
    if (want != have && want != 1)
      return false;
    sums |= want != have;
  }
  return count == numel && sums;
}

/* The launch geometry of these inputs (the general path); NULL with *error. */
static LastLaunch *launch_geometry(const GroupCache *cache, const IrGraph *kg, RtValue *inputs,
                                   guint n, guint n_outputs, const FuserSumTo *targets,
                                   GError **error) {
  g_autofree IrDtype *dtypes = g_new0(IrDtype, n + 1);
  for (guint i = 0; i < n; i++)
    dtypes[i] = inputs[i].u.tensor->dtype;
  GroupKernels *gk = group_kernels(cache->canonical, kg, dtypes, n, error);
  g_autoptr(GHashTable) shapes = gk ? fuser_group_value_shapes(kg, inputs, error) : NULL;
  if (!shapes)
    return NULL;
  LastLaunch *l = g_new0(LastLaunch, 1);
  l->refcount = 1;
  l->n_inputs = n;
  l->inputs = g_new(RtTensor, n + 1);
  for (guint i = 0; i < n; i++)
    l->inputs[i] = *inputs[i].u.tensor;
  l->n_outputs = n_outputs;
  l->targets = g_new(FuserSumTo, n_outputs + 1);
  memcpy(l->targets, targets, sizeof(FuserSumTo) * n_outputs);
  l->sums_in_kernel = g_new0(bool, n_outputs + 1);
  l->output_shapes = g_new(FuserShape, n_outputs + 1);
  l->output_dtypes = g_new(IrDtype, n_outputs + 1);
  l->args = gk->operands->args;
  l->n_ops = l->args->len;
  /* The map: the broadcast of the tensor inputs' (pieces') shapes. */
  FuserShape map = {0};
  for (guint k = 0; k < l->n_ops; k++) {
    const CpuKernelArg *a = &g_array_index(l->args, CpuKernelArg, k);
    if (a->is_output || (!a->used && a->piece < 0))
      continue;
    FuserShape view;
    int64_t st[RT_MAX_DIMS];
    operand_view(a, inputs, NULL, &view, st);
    if (!fuser_shape_broadcast_into(&map, &view, error)) {
      last_launch_unref(l);
      return NULL;
    }
  }
  /* Outputs: fresh contiguous tensors of their natural shape. */
  l->full = true;
  l->numel = 1;
  for (int d = 0; d < map.nd; d++)
    l->numel *= map.sizes[d];
  for (guint o = 0; o < n_outputs; o++) {
    const FuserShape *s = fuser_group_output_shape(shapes, kg, o);
    l->output_shapes[o] = *s;
    l->output_dtypes[o] = g_array_index(gk->operands->output_dtypes, IrDtype, o);
    int64_t count = 1;
    for (int d = 0; d < s->nd; d++)
      count *= s->sizes[d];
    const IrNode *producer = ((IrValue *)g_ptr_array_index(ir_graph_outputs(kg), o))->node;
    l->full &= producer->kind == IR_PRIM_FUSED_CONCAT
                   ? count == l->numel * (int64_t)ir_n_inputs(producer)
                   : count == l->numel;
    if (can_sum_in_kernel(&targets[o], s, l->output_dtypes[o], producer, l->numel)) {
      l->sums_in_kernel[o] = true;
      FuserShape *acc = &l->output_shapes[o];
      acc->nd = targets[o].ndim;
      memcpy(acc->sizes, targets[o].sizes, sizeof(int64_t) * (size_t)acc->nd);
    }
  }
  l->accumulate = g_new0(bool, l->n_ops + 1);
  for (guint k = 0; k < l->n_ops; k++) {
    const CpuKernelArg *a = &g_array_index(l->args, CpuKernelArg, k);
    l->accumulate[k] = a->is_output && l->sums_in_kernel[a->index];
  }
  if (l->numel == 0)
    return l;
  g_autofree int64_t(*strides)[RT_MAX_DIMS] = g_malloc0_n(l->n_ops, sizeof(int64_t[RT_MAX_DIMS]));
  for (guint k = 0; k < l->n_ops; k++) {
    FuserShape view;
    int64_t st[RT_MAX_DIMS];
    operand_view(&g_array_index(l->args, CpuKernelArg, k), inputs, l->output_shapes, &view, st);
    broadcast_strides(&view, st, &map, strides[k]);
  }
  merge_dims(l, strides, &map);
  g_autofree CpuInner *inner = g_new(CpuInner, l->n_ops);
  for (guint k = 0; k < l->n_ops; k++) {
    int64_t s = strides[k][l->rank - 1];
    const CpuKernelArg *a = &g_array_index(l->args, CpuKernelArg, k);
    inner[k] = (!a->is_output && !a->used) || s == 1 ? CPU_INNER_CONTIGUOUS
               : s == 0                              ? CPU_INNER_BROADCAST
                                                     : CPU_INNER_STRIDED;
  }
  l->compiled =
      kernel_for(gk, cache->canonical, kg, dtypes, inner, l->accumulate, (guint)l->rank, error);
  if (!l->compiled) {
    last_launch_unref(l);
    return NULL;
  }
  return l;
}

static void drop_outputs(RtValue *outputs, guint n) {
  for (guint o = 0; o < n; o++) {
    rt_value_unref(outputs[o]);
    outputs[o] = rt_none();
  }
}

/* Output o's fresh tensor, or the zeroed float64 accumulator it sums into. */
static RtTensor *new_output(const LastLaunch *l, guint o, GError **error) {
  const FuserShape *s = &l->output_shapes[o];
  return l->sums_in_kernel[o] ? rt_tensor_zeros_checked(IR_DTYPE_FLOAT64, s->nd, s->sizes, error)
                              : rt_tensor_new_checked(l->output_dtypes[o], s->nd, s->sizes, error);
}

/* Adds the second part's accumulators (when there was one) into the outputs' and gives each
 * summed output its dtype. */
static bool finish_sums(const LastLaunch *l, RtTensor **second, RtValue *outputs, GError **error) {
  for (guint o = 0; o < l->n_outputs; o++) {
    if (!l->sums_in_kernel[o])
      continue;
    RtTensor *acc = outputs[o].u.tensor;
    if (second && second[o]) {
      double *restrict into = rt_tensor_data(acc);
      const double *restrict from = rt_tensor_data(second[o]);
      for (int64_t i = 0, n = rt_tensor_numel(acc); i < n; i++)
        into[i] += from[i];
    }
    if (l->output_dtypes[o] == IR_DTYPE_FLOAT64)
      continue;
    /* float32 (can_sum_in_kernel takes no other): rounded once, from the double sum. */
    const FuserShape *s = &l->output_shapes[o];
    RtTensor *cast = rt_tensor_new_checked(IR_DTYPE_FLOAT32, s->nd, s->sizes, error);
    if (!cast)
      return false;
    float *restrict to = rt_tensor_data(cast);
    const double *restrict from = rt_tensor_data(acc);
    for (int64_t i = 0, n = rt_tensor_numel(acc); i < n; i++)
      to[i] = (float)from[i];
    rt_value_unref(outputs[o]);
    outputs[o] = rt_tensor(cast);
  }
  return true;
}

/* Makes the outputs (accumulators for those summed in the kernel) and runs the compiled
 * function over them, each parallel part into accumulators of its own. */
static bool launch(const LastLaunch *l, RtValue *inputs, RtValue *outputs, GError **error) {
  for (guint o = 0; o < l->n_outputs; o++) {
    RtTensor *t = new_output(l, o, error);
    if (!t) {
      drop_outputs(outputs, o);
      return false;
    }
    outputs[o] = rt_tensor(t);
  }
  if (l->numel == 0)
    return true;
  bool parallel = l->full && l->numel >= PARALLEL_MIN_NUMEL;
  bool accumulates = false;
  for (guint o = 0; o < l->n_outputs; o++)
    accumulates |= l->sums_in_kernel[o];
  bool two = accumulates && cpu_compile_parallel_parts(l->numel, parallel) > 1;
  g_autofree RtTensor **second = two ? g_new0(RtTensor *, l->n_outputs) : NULL;
  char *on_stack[64]; /* both parts' operands, for groups of up to 32 */
  char **data = 2 * l->n_ops <= G_N_ELEMENTS(on_stack) ? on_stack : g_new(char *, 2 * l->n_ops);
  Launch run = {{data, two ? data + l->n_ops : data},
                l->sizes,
                l->flat_strides,
                (CpuKernelFn)l->compiled->fn};
  bool ok = true;
  for (guint k = 0; k < l->n_ops; k++) {
    const CpuKernelArg *a = &g_array_index(l->args, CpuKernelArg, k);
    data[k] = operand_data(a, inputs, outputs);
    if (!two)
      continue;
    if (l->accumulate[k] && ok) {
      const FuserShape *s = &l->output_shapes[a->index];
      second[a->index] = rt_tensor_zeros_checked(IR_DTYPE_FLOAT64, s->nd, s->sizes, error);
      ok = second[a->index] != NULL;
    }
    data[l->n_ops + k] = l->accumulate[k] && ok ? rt_tensor_data(second[a->index]) : data[k];
  }
  if (ok) {
    gint64 started = g_get_monotonic_time();
    cpu_compile_parallel_for(l->numel, parallel, launch_part, &run);
    g_mutex_lock(&kernels_lock);
    l->compiled->runs++;
    l->compiled->last_ms = (double)(g_get_monotonic_time() - started) / 1000.0;
    g_mutex_unlock(&kernels_lock);
    ok = finish_sums(l, second, outputs, error);
  }
  for (guint o = 0; second && o < l->n_outputs; o++)
    if (second[o])
      rt_tensor_unref(second[o]);
  if (!ok)
    drop_outputs(outputs, l->n_outputs);
  if (data != on_stack)
    g_free(data);
  return ok;
}

/* The cached launch geometry when these inputs and targets match the last one's, else a new
 * one (cached in its place); a reference the caller drops, or NULL with *error. */
static LastLaunch *geometry_for(GroupCache *cache, const IrGraph *kg, RtValue *inputs, guint n,
                                guint n_outputs, const FuserSumTo *targets, GError **error) {
  LastLaunch *l = NULL;
  g_mutex_lock(&cache->lock);
  if (cache->last && same_geometry(cache->last, inputs, targets)) {
    l = cache->last;
    g_atomic_int_inc(&l->refcount);
  }
  g_mutex_unlock(&cache->lock);
  if (l)
    return l;
  l = launch_geometry(cache, kg, inputs, n, n_outputs, targets, error);
  if (l) {
    g_atomic_int_inc(&l->refcount);
    g_mutex_lock(&cache->lock);
    LastLaunch *old = cache->last;
    cache->last = l;
    g_mutex_unlock(&cache->lock);
    last_launch_unref(old);
  }
  return l;
}

static bool c_run(const FuserBackend *backend, FuserPlanState *state, const IrNode *group,
                  RtValue *inputs, guint n_inputs, RtValue *outputs, guint n_outputs,
                  GError **error) {
  bool owned = false;
  GroupCache *cache =
      fuser_group_cache(state, group, backend, group_cache_create, group_cache_free, &owned, error);
  const IrGraph *kg = cache->kg;
  guint n = cache->n_tensor_inputs;
  if (n > n_inputs || ir_graph_outputs(kg)->len != n_outputs) {
    g_set_error(error, JITSCOPE_RUNTIME_ERROR, RT_ERROR_VALUE, "C backend: arity mismatch");
    if (owned)
      group_cache_free(cache);
    return false;
  }
  FuserSumTo on_stack[8];
  FuserSumTo *targets =
      n_outputs <= G_N_ELEMENTS(on_stack) ? on_stack : g_new(FuserSumTo, n_outputs);
  LastLaunch *l = NULL;
  bool ok = fuser_sum_to_targets(group, inputs, n_inputs, targets, n_outputs, error) &&
            (l = geometry_for(cache, kg, inputs, n, n_outputs, targets, error)) != NULL;
  if (ok) {
    /* What the kernel did not sum is summed now. */
    for (guint o = 0; o < n_outputs; o++)
      if (l->sums_in_kernel[o])
        targets[o].ndim = -1;
    ok = launch(l, inputs, outputs, error) && fuser_sum_outputs(targets, outputs, n_outputs, error);
  }
  last_launch_unref(l);
  if (targets != on_stack)
    g_free(targets);
  if (owned)
    group_cache_free(cache);
  return ok;
}

static const FuserBackend c_backend = {"cpu-c", c_can_run, c_run, NULL};

const FuserBackend *fuser_cpu_codegen_backend(void) {
  return &c_backend;
}
