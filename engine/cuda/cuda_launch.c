/* The CUDA FuserBackend: geometry, device memory, launch (contract in cuda_launch.h). */
#include "cuda/cuda_launch.h"

#include <string.h>

#include "cuda/cuda_compile.h"
#include "cuda/cuda_tensor.h"
#include "fuser/group_shapes.h"

#define CUDA_BLOCK_SIZE 128

/* The stream, module loading and launches are the CUDA runtime's (cuda_tensor.h): one stream
 * and one lock for the fusion backend and the device kernels. */
static gint offload_host = -1;         /* -1: read JITSCOPE_CUDA_OFFLOAD on first use */
static gint time_device_launches = -1; /* -1: read JITSCOPE_CUDA_TIMING on first use */

/* --- geometry --- */

void cuda_layout_merge(int ndim, const int64_t *sizes, const int64_t *strides, CudaLayout *out) {
  int64_t rs[RT_MAX_DIMS], rt[RT_MAX_DIMS]; /* innermost first */
  int n = 0;
  for (int d = ndim - 1; d >= 0; d--) {
    if (sizes[d] == 1)
      continue;
    if (n > 0 && strides[d] == rs[n - 1] * rt[n - 1]) {
      rs[n - 1] *= sizes[d];
      continue;
    }
    rs[n] = sizes[d];
    rt[n] = strides[d];
    n++;
  }
  if (n == 0) {
    rs[0] = 1;
    rt[0] = 1;
    n = 1;
  }
  out->ndim = (guint)n;
  for (int i = 0; i < n; i++) {
    out->sizes[i] = rs[n - 1 - i];
    out->strides[i] = rt[n - 1 - i];
  }
}

static const IrNode *chunk_node(const IrGraph *graph, guint input) {
  const IrValue *v = g_ptr_array_index(ir_graph_inputs(graph), input);
  for (guint u = 0; u < v->uses->len; u++) {
    const IrNode *user = g_array_index(v->uses, IrUse, u).user;
    if (user->kind == IR_PRIM_CONSTANT_CHUNK)
      return user;
  }
  return NULL;
}

static bool launch_fail(GError **error, int code, const char *format, ...) G_GNUC_PRINTF(3, 4);
static bool launch_fail(GError **error, int code, const char *format, ...) {
  va_list ap;
  va_start(ap, format);
  g_autofree char *msg = g_strdup_vprintf(format, ap);
  va_end(ap);
  g_set_error_literal(error, JITSCOPE_CUDA_ERROR, code, msg);
  return false;
}

/* The shape input i contributes to the map (chunk pieces: divided along dim). */
static bool input_map_shape(const IrGraph *graph, guint i, const RtTensor *t, int64_t *shape,
                            int *chunk_dim, int *chunks, GError **error) {
  memcpy(shape, t->sizes, sizeof(int64_t) * (size_t)t->ndim);
  const IrNode *c = chunk_node(graph, i);
  *chunk_dim = -1;
  *chunks = 0;
  if (c == NULL)
    return true;
  int dim;
  if (!rt_wrap_dim((int)ir_node_attr_i(c, IR_ATTR_DIM), t->ndim, &dim, error))
    return false;
  int k = (int)ir_node_attr_i(c, IR_ATTR_CHUNKS);
  if (k <= 0 || t->sizes[dim] % k != 0)
    return launch_fail(error, CUDA_ERROR_ARGUMENT,
                       "group input %u: size %" G_GINT64_FORMAT " along dim %d does not divide "
                       "into %d chunks",
                       i, t->sizes[dim], dim, k);
  shape[dim] /= k;
  *chunk_dim = dim;
  *chunks = k;
  return true;
}

/* The map size of a group for these inputs (fuser.h); false with *error when shapes do not
 * broadcast or a chunk does not divide. */
static bool cuda_group_map_size(const IrGraph *graph, const RtValue *inputs, int *ndim,
                                int64_t *sizes, GError **error) {
  guint n = cuda_codegen_n_tensor_inputs(graph);
  *ndim = 0;
  for (guint i = 0; i < n; i++) {
    const RtTensor *t = inputs[i].u.tensor;
    int64_t shape[RT_MAX_DIMS];
    int cd, k;
    if (!input_map_shape(graph, i, t, shape, &cd, &k, error))
      return false;
    int64_t out[RT_MAX_DIMS];
    int out_nd;
    if (!rt_broadcast_shapes(*ndim, sizes, t->ndim, shape, &out_nd, out, error))
      return false;
    *ndim = out_nd;
    memcpy(sizes, out, sizeof(int64_t) * (size_t)out_nd);
  }
  return true;
}

void cuda_group_assumed_ndims(const IrGraph *graph, guint *input_ndims, guint *output_ndims) {
  guint n = cuda_codegen_n_tensor_inputs(graph);
  for (guint i = 0; i < n; i++) {
    const IrNode *c = chunk_node(graph, i);
    input_ndims[i] = c && ir_node_attr_i(c, IR_ATTR_DIM) != 0 ? 2 : 1;
  }
  GPtrArray *outs = ir_graph_outputs(graph);
  for (guint o = 0; o < outs->len; o++) {
    const IrNode *p = ((IrValue *)g_ptr_array_index(outs, o))->node;
    output_ndims[o] =
        p->kind == IR_PRIM_FUSED_CONCAT && ir_node_attr_i(p, IR_ATTR_DIM) != 0 ? 2 : 1;
  }
}

/* Strides of a contiguous `view` seen over the map (right-aligned; 0 where it broadcasts). */
static void broadcast_strides(const FuserShape *view, const int64_t *strides, int map_nd,
                              const int64_t *map, int64_t *out) {
  for (int d = 0; d < map_nd; d++) {
    int vd = d - (map_nd - view->nd);
    out[d] = (vd < 0 || view->sizes[vd] == 1 || map[d] == 1) ? 0 : strides[vd];
  }
}

static int64_t shape_numel(const FuserShape *s) {
  int64_t n = 1;
  for (int d = 0; d < s->nd; d++)
    n *= s->sizes[d];
  return n;
}

/* --- residency and can_run --- */

static bool offload_enabled(void) {
  if (g_atomic_int_get(&offload_host) < 0) {
    const char *env = g_getenv("JITSCOPE_CUDA_OFFLOAD");
    g_atomic_int_compare_and_exchange(&offload_host, -1, env && strcmp(env, "1") == 0);
  }
  return g_atomic_int_get(&offload_host) == 1;
}

static bool on_device(const RtTensor *t) {
  return t->storage->device == IR_DEVICE_CUDA && t->storage->free_fn != NULL;
}

static bool dtype_supported(IrDtype d) {
  return d == IR_DTYPE_FLOAT32 || d == IR_DTYPE_FLOAT64 || d == IR_DTYPE_FLOAT16 ||
         d == IR_DTYPE_INT64 || d == IR_DTYPE_BOOL;
}

static bool cuda_can_run(const FuserBackend *backend, const IrNode *group, const RtValue *inputs,
                         guint n_inputs, char **why) {
  const CudaStatus *s = cuda_loader_get();
  char *unavailable = cuda_status_unavailable_reason(s);
  if (unavailable) {
    *why = unavailable;
    return false;
  }
  const IrGraph *kg = ir_node_attr_g(group, IR_ATTR_SUBGRAPH);
  guint n = cuda_codegen_n_tensor_inputs(kg);
  guint n_device = 0;
  for (guint i = 0; i < n && i < n_inputs; i++) {
    const RtTensor *t = inputs[i].tag == RT_TENSOR ? inputs[i].u.tensor : NULL;
    if (t == NULL) {
      *why = g_strdup_printf("cuda: input %u is not a defined tensor", i);
      return false;
    }
    if (!dtype_supported(t->dtype)) {
      *why = g_strdup_printf("cuda: input %u has dtype %s", i, ir_dtype_name(t->dtype));
      return false;
    }
    n_device += on_device(t);
  }
  if (n_device == 0 && !offload_enabled()) {
    *why = g_strdup("cuda: inputs are in host memory and host offloading is off");
    return false;
  }
  return true;
}

/* --- device memory --- */

#define cu_check cuda_check

static bool device_alloc(size_t bytes, CudaDevicePtr *ptr, GArray *owned, GError **error) {
  if (!cuda_device_alloc(bytes, ptr, error))
    return false;
  g_array_append_val(owned, *ptr);
  return true;
}

/* Device-resident launches are timed (an event pair and a wait per launch) only when
 * JITSCOPE_CUDA_TIMING=1 or cuda_launch_set_timing(true); host-offloaded runs wait anyway and
 * are always timed. */
static bool timing_enabled(void) {
  if (g_atomic_int_get(&time_device_launches) < 0) {
    const char *env = g_getenv("JITSCOPE_CUDA_TIMING");
    g_atomic_int_compare_and_exchange(&time_device_launches, -1, env && strcmp(env, "1") == 0);
  }
  return g_atomic_int_get(&time_device_launches) == 1;
}

void cuda_launch_set_timing(bool on) {
  g_atomic_int_set(&time_device_launches, on ? 1 : 0);
}

static GMutex last_kernel_lock;
static double last_kernel_ms;

double cuda_launch_last_kernel_ms(void) {
  g_mutex_lock(&last_kernel_lock);
  double ms = last_kernel_ms;
  g_mutex_unlock(&last_kernel_lock);
  return ms;
}

/* --- one launch --- */

typedef struct {
  CudaLayout layout;
  CudaDevicePtr ptr;
} Param;

static bool fits_32bit(const CudaLayout *l) {
  int64_t span = 0;
  for (guint d = 0; d < l->ndim; d++) {
    if (l->sizes[d] > G_MAXUINT32 || l->strides[d] > G_MAXUINT32 || l->strides[d] < 0)
      return false;
    span += (l->sizes[d] - 1) * l->strides[d];
  }
  return span <= G_MAXUINT32;
}

static bool ensure_function(CudaKernelEntry *e, GError **error) {
  const CudaStatus *s = cuda_loader_get();
  if (e->function)
    return true;
  if (!cu_check(s->cu.cuModuleLoadData(&e->module, e->compiled->ptx), "cuModuleLoadData", error))
    return false;
  if (!cu_check(s->cu.cuModuleGetFunction(&e->function, e->module, e->kernel->name),
                "cuModuleGetFunction", error)) {
    s->cu.cuModuleUnload(e->module);
    e->module = NULL;
    return false;
  }
  if (s->cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(&e->blocks_per_sm, e->function,
                                                        CUDA_BLOCK_SIZE, 0) != 0 ||
      e->blocks_per_sm <= 0)
    e->blocks_per_sm = 1;
  return true;
}

static bool launch(CudaKernelEntry *e, guint32 numel, Param *params, guint n_params, bool timed,
                   GError **error) {
  const CudaStatus *s = cuda_loader_get();
  if (!ensure_function(e, error))
    return false;
  GPtrArray *blobs = g_ptr_array_new_with_free_func(g_free);
  void **args = g_new0(void *, n_params + 1);
  args[0] = &numel;
  for (guint p = 0; p < n_params; p++) {
    const CudaLayout *l = &params[p].layout;
    guint8 *blob = g_malloc0(8 + 8 * (gsize)l->ndim);
    guint64 ptr = params[p].ptr;
    memcpy(blob, &ptr, 8);
    for (guint d = 0; d < l->ndim; d++) {
      guint32 size = (guint32)l->sizes[d], stride = (guint32)l->strides[d];
      memcpy(blob + 8 + 4 * d, &size, 4);
      memcpy(blob + 8 + 4 * (l->ndim + d), &stride, 4);
    }
    g_ptr_array_add(blobs, blob);
    args[p + 1] = blob;
  }
  guint64 wanted = ((guint64)numel + CUDA_BLOCK_SIZE - 1) / CUDA_BLOCK_SIZE;
  guint64 resident = (guint64)e->blocks_per_sm * (guint64)s->sm_count;
  guint grid = (guint)MAX(1, MIN(wanted, resident));
  CudaEvent start = NULL, stop = NULL;
  CudaStream stream = cuda_runtime_stream();
  timed = timed && s->cu.cuEventCreate(&start, 0) == 0 && s->cu.cuEventCreate(&stop, 0) == 0;
  if (timed)
    s->cu.cuEventRecord(start, stream);
  bool ok = cuda_runtime_launch(e->function, grid, CUDA_BLOCK_SIZE, 0, args, error);
  if (ok && timed) {
    float ms = 0;
    s->cu.cuEventRecord(stop, stream);
    if (s->cu.cuEventSynchronize(stop) == 0 && s->cu.cuEventElapsedTime(&ms, start, stop) == 0) {
      e->last_ms = ms;
      g_mutex_lock(&last_kernel_lock);
      last_kernel_ms = ms;
      g_mutex_unlock(&last_kernel_lock);
    }
  }
  if (start)
    s->cu.cuEventDestroy(start);
  if (stop)
    s->cu.cuEventDestroy(stop);
  e->launches++;
  e->last_grid = grid;
  e->last_block = CUDA_BLOCK_SIZE;
  g_free(args);
  g_ptr_array_unref(blobs);
  return ok;
}

/* Everything one run holds; released by run_state_clear. */
typedef struct {
  GArray *owned;        /* of CudaDevicePtr: freed at the end (inputs; outputs on failure) */
  GPtrArray *host_refs; /* of RtTensor*: contiguous copies and views */
  GArray *params;       /* of Param */
} RunState;

static void run_state_clear(RunState *st, bool wait) {
  const CudaStatus *s = cuda_loader_get();
  for (guint i = 0; i < st->owned->len; i++)
    cuda_device_free(g_array_index(st->owned, CudaDevicePtr, i));
  if (wait)
    s->cu.cuStreamSynchronize(cuda_runtime_stream());
  g_array_unref(st->owned);
  g_ptr_array_unref(st->host_refs);
  g_array_unref(st->params);
}

static RtTensor *keep(RunState *st, RtTensor *t) {
  g_ptr_array_add(st->host_refs, t);
  return t;
}

/* Adds the params of tensor input i; fills dtype and merged rank. */
static bool input_params(RunState *st, const IrGraph *kg, guint i, RtTensor *t, bool device,
                         int map_nd, const int64_t *map, IrDtype *dtype, guint *ndim,
                         GError **error) {
  const CudaStatus *s = cuda_loader_get();
  size_t es = rt_dtype_size(t->dtype);
  RtTensor *src = device ? t : keep(st, rt_tensor_contiguous(t));
  CudaDevicePtr base; /* device address of element 0 of src's storage */
  if (device) {
    base = (CudaDevicePtr)(guintptr)t->storage->data;
  } else {
    size_t bytes = (size_t)rt_tensor_numel(src) * es;
    CudaDevicePtr d;
    if (!device_alloc(bytes, &d, st->owned, error))
      return false;
    if (bytes &&
        !cu_check(s->cu.cuMemcpyHtoDAsync(d, rt_tensor_data(src), bytes, cuda_runtime_stream()),
                  "cuMemcpyHtoDAsync", error))
      return false;
    base = d - (CudaDevicePtr)(src->offset * (int64_t)es);
  }
  int64_t shape[RT_MAX_DIMS];
  int cd, k;
  if (!input_map_shape(kg, i, src, shape, &cd, &k, error))
    return false;
  for (int p = 0; p < (k ? k : 1); p++) {
    RtTensor *view = src;
    if (k)
      view = keep(st, rt_tensor_view_narrow(src, cd, p * shape[cd], shape[cd]));
    view = rt_tensor_view_expand(view, map_nd, map, error);
    if (view == NULL)
      return false;
    keep(st, view);
    Param prm;
    cuda_layout_merge(view->ndim, view->sizes, view->strides, &prm.layout);
    prm.ptr = base + (CudaDevicePtr)(view->offset * (int64_t)es);
    if (!fits_32bit(&prm.layout))
      return launch_fail(error, CUDA_ERROR_ARGUMENT, "input %u does not fit 32-bit indexing", i);
    g_array_append_val(st->params, prm);
    *ndim = prm.layout.ndim;
  }
  *dtype = t->dtype;
  return true;
}

static bool cuda_run(const FuserBackend *backend, FuserPlanState *state, const IrNode *group,
                     RtValue *inputs, guint n_inputs, RtValue *outputs, guint n_outputs,
                     GError **error) {
  const CudaStatus *s = cuda_loader_get();
  const IrGraph *kg = ir_node_attr_g(group, IR_ATTR_SUBGRAPH);
  guint n = cuda_codegen_n_tensor_inputs(kg);
  int map_nd;
  int64_t map[RT_MAX_DIMS];
  if (!cuda_group_map_size(kg, inputs, &map_nd, map, error))
    return false;
  int64_t numel = 1;
  for (int d = 0; d < map_nd; d++)
    numel *= map[d];
  if (numel > G_MAXINT32)
    return launch_fail(error, CUDA_ERROR_ARGUMENT,
                       "%" G_GINT64_FORMAT " elements exceed 32-bit indexing", numel);
  /* Outputs stay on the device when any input is there (host inputs are copied up). */
  bool device = false;
  for (guint i = 0; i < n; i++)
    device |= on_device(inputs[i].u.tensor);
  g_autofree char *arch = cuda_compile_resolve_arch(NULL, error);
  if (arch == NULL)
    return false;
  if (!cuda_runtime_begin(error))
    return false;
  bool ok = true;
  RunState st = {g_array_new(FALSE, FALSE, sizeof(CudaDevicePtr)),
                 g_ptr_array_new_with_free_func((GDestroyNotify)rt_tensor_unref),
                 g_array_new(FALSE, FALSE, sizeof(Param))};
  g_autofree IrDtype *dtypes = g_new0(IrDtype, n + 1);
  g_autofree guint *in_nd = g_new0(guint, n + 1);
  g_autofree guint *out_nd = g_new0(guint, n_outputs + 1);
  g_autofree CudaDevicePtr *out_ptr = g_new0(CudaDevicePtr, n_outputs + 1);
  g_autofree FuserShape *out_shapes = g_new0(FuserShape, n_outputs + 1);
  for (guint i = 0; ok && i < n; i++)
    ok = input_params(&st, kg, i, inputs[i].u.tensor, on_device(inputs[i].u.tensor), map_nd, map,
                      &dtypes[i], &in_nd[i], error);
  g_autofree IrDtype *out_dtypes = g_new0(IrDtype, n_outputs + 1);
  ok = ok && cuda_codegen_output_dtypes(kg, dtypes, out_dtypes, error);
  /* Outputs: fresh contiguous tensors of their natural shape (group_shapes.h), each piece
   * viewed over the map (stride 0 where it broadcasts). */
  GHashTable *shapes = ok ? fuser_group_value_shapes(kg, inputs, error) : NULL;
  ok = ok && shapes != NULL;
  GArray *out_params = g_array_new(FALSE, FALSE, sizeof(Param));
  for (guint o = 0; ok && o < n_outputs; o++) {
    const IrNode *p = ((IrValue *)g_ptr_array_index(ir_graph_outputs(kg), o))->node;
    out_shapes[o] = *fuser_group_output_shape(shapes, kg, o);
    FuserShape piece = out_shapes[o];
    int pieces = p->kind == IR_PRIM_FUSED_CONCAT ? (int)ir_n_inputs(p) : 0;
    int cd = 0;
    if (pieces && !rt_wrap_dim((int)ir_node_attr_i(p, IR_ATTR_DIM), piece.nd, &cd, error)) {
      ok = false;
      break;
    }
    if (pieces)
      piece.sizes[cd] /= pieces;
    int64_t strides[RT_MAX_DIMS], over_map[RT_MAX_DIMS];
    rt_contiguous_strides(piece.nd, out_shapes[o].sizes, strides);
    broadcast_strides(&piece, strides, map_nd, map, over_map);
    size_t es = rt_dtype_size(out_dtypes[o]);
    ok = device_alloc((size_t)shape_numel(&out_shapes[o]) * es, &out_ptr[o], st.owned, error);
    for (int k = 0; ok && k < (pieces ? pieces : 1); k++) {
      Param prm;
      cuda_layout_merge(map_nd, map, over_map, &prm.layout);
      int64_t piece_offset = pieces ? k * piece.sizes[cd] * strides[cd] : 0;
      prm.ptr = out_ptr[o] + (CudaDevicePtr)(piece_offset * (int64_t)es);
      g_array_append_val(out_params, prm);
      out_nd[o] = prm.layout.ndim;
    }
  }
  if (shapes)
    g_hash_table_unref(shapes);
  g_array_append_vals(st.params, out_params->data, out_params->len);
  g_array_unref(out_params);
  CudaKernelEntry *e = NULL;
  if (ok)
    ok = (e = cuda_kernel_cache_get(kg, dtypes, in_nd, out_nd, arch, error)) != NULL;
  if (ok && !e->compiled->ok)
    ok = launch_fail(error, CUDA_ERROR_COMPILE, "nvrtc failed for %s: %s", e->kernel->name,
                     e->compiled->log);
  if (ok && e->kernel->args->len != st.params->len)
    ok = launch_fail(error, CUDA_ERROR_CODEGEN, "kernel %s takes %u tensors, %u prepared",
                     e->kernel->name, e->kernel->args->len, st.params->len);
  if (ok && numel > 0)
    ok = launch(e, (guint32)numel, (Param *)st.params->data, st.params->len,
                !device || timing_enabled(), error);
  for (guint o = 0; ok && o < n_outputs; o++) {
    const FuserShape *shape = &out_shapes[o];
    size_t bytes = (size_t)shape_numel(shape) * rt_dtype_size(out_dtypes[o]);
    if (device) {
      RtStorage *storage = cuda_storage_wrap(out_ptr[o], bytes);
      int64_t strides[RT_MAX_DIMS];
      rt_contiguous_strides(shape->nd, shape->sizes, strides);
      outputs[o] = rt_tensor(
          rt_tensor_new_strided(storage, out_dtypes[o], shape->nd, shape->sizes, strides, 0));
      rt_storage_unref(storage);
      for (guint k = 0; k < st.owned->len; k++)
        if (g_array_index(st.owned, CudaDevicePtr, k) == out_ptr[o]) {
          g_array_remove_index(st.owned, k);
          break;
        }
    } else {
      RtTensor *host = rt_tensor_new(out_dtypes[o], shape->nd, shape->sizes);
      outputs[o] = rt_tensor(host);
      if (bytes)
        ok = cu_check(
            s->cu.cuMemcpyDtoHAsync(rt_tensor_data(host), out_ptr[o], bytes, cuda_runtime_stream()),
            "cuMemcpyDtoHAsync", error);
    }
  }
  run_state_clear(&st, !device);
  cuda_runtime_end();
  /* Device outputs are summed on the device (rt_tensor_sum_to_any). */
  if (ok)
    ok = fuser_apply_sum_to(group, inputs, n_inputs, outputs, n_outputs, error);
  return ok;
}

static const FuserBackend cuda_backend = {
    .name = "cuda",
    .can_run = cuda_can_run,
    .run = cuda_run,
    .data = NULL,
};

const FuserBackend *cuda_launch_backend(void) {
  return &cuda_backend;
}

void cuda_launch_enable(bool offload) {
  g_atomic_int_set(&offload_host, offload ? 1 : 0);
  fuser_register_backend(&cuda_backend);
}
