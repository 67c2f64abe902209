/* The CUDA device backend of the runtime (contract in cuda_ops.h). */
#include "cuda/cuda_ops.h"

#include <math.h>
#include <string.h>

#include "cuda/cuda_blas.h"
#include "cuda/cuda_kernels.h"
#include "cuda/cuda_launch.h"
#include "cuda/cuda_tensor.h"
#include "ir/text.h"
#include "runtime/device.h"
#include "runtime/kernel_args.h"
#include "runtime/kernels.h"

static bool decline(GError **error, const char *format, ...) G_GNUC_PRINTF(2, 3);
static bool decline(GError **error, const char *format, ...) {
  va_list ap;
  va_start(ap, format);
  g_autofree char *msg = g_strdup_vprintf(format, ap);
  va_end(ap);
  g_set_error_literal(error, RT_DEVICE_DECLINED, 0, msg);
  return false;
}

static bool is_cuda(const RtTensor *t) {
  return t && t->storage->device == IR_DEVICE_CUDA && t->storage->free_fn != NULL;
}

/* --- elementwise: one-node fusion groups --- */

/* A constant for one non-tensor argument: its declaration line, or false. */
static bool constant_line(GString *s, guint i, RtValue v) {
  switch (v.tag) {
  case RT_INT:
    g_string_append_printf(s, "  %%c%u : int = prim::Constant[value=%" G_GINT64_FORMAT "]()\n", i,
                           v.u.i);
    return true;
  case RT_BOOL:
    g_string_append_printf(s, "  %%c%u : bool = prim::Constant[value=%d]()\n", i, v.u.b ? 1 : 0);
    return true;
  case RT_NONE:
    g_string_append_printf(s, "  %%c%u : NoneType = prim::Constant()\n", i);
    return true;
  case RT_DOUBLE: {
    char buf[G_ASCII_DTOSTR_BUF_SIZE];
    const char *text = buf;
    if (isnan(v.u.d))
      text = "nan";
    else if (isinf(v.u.d))
      text = v.u.d > 0 ? "inf" : "-inf";
    else
      g_ascii_formatd(buf, sizeof buf, "%.17g", v.u.d);
    bool needs_point = isfinite(v.u.d) && !strpbrk(text, ".eE");
    g_string_append_printf(s, "  %%c%u : float = prim::Constant[value=%s%s]()\n", i, text,
                           needs_point ? ".0" : "");
    return true;
  }
  default: return false;
  }
}

char *cuda_elementwise_group_text(const IrSchema *schema, const RtValue *args, guint n_args,
                                  GError **error) {
  g_autoptr(GString) params = g_string_new(NULL);
  g_autoptr(GString) outer = g_string_new(NULL);
  g_autoptr(GString) body = g_string_new(NULL);
  g_autoptr(GString) call = g_string_new(NULL);
  guint n_tensor = 0;
  bool ok = true;
  for (guint i = 0; ok && i < n_args; i++) {
    if (args[i].tag == RT_TENSOR) {
      if (args[i].u.tensor == NULL)
        ok = decline(error, "argument %u is an undefined tensor", i);
      g_string_append_printf(params, "%s%%x%u : Tensor", n_tensor ? ", " : "", i);
      g_string_append_printf(outer, "%s%%t%u : Tensor", n_tensor ? ", " : "", i);
      g_string_append_printf(call, "%s%%x%u", i ? ", " : "", i);
      n_tensor++;
    } else {
      if (!constant_line(body, i, args[i]))
        ok = decline(error, "argument %u cannot be a kernel constant", i);
      g_string_append_printf(call, "%s%%c%u", i ? ", " : "", i);
    }
  }
  char *text = NULL;
  if (ok) {
    GString *t = g_string_new(NULL);
    g_string_append_printf(t, "graph(%s):\n  %%r : Tensor = prim::FusionGroup_0(", outer->str);
    for (guint i = 0, k = 0; i < n_args; i++)
      if (args[i].tag == RT_TENSOR)
        g_string_append_printf(t, "%s%%t%u", k++ ? ", " : "", i);
    g_string_append_printf(t,
                           ")\n  return (%%r)\nwith prim::FusionGroup_0 = graph(%s):\n%s"
                           "  %%r : Tensor = %s(%s)\n  return (%%r)\n",
                           params->str, body->str, schema->name, call->str);
    text = g_string_free(t, FALSE);
  }
  return text;
}

typedef struct {
  IrGraph *graph;            /* NULL when the op cannot be a group */
  char *why;                 /* why not */
  GHashTable *dtype_checked; /* input signature -> GINT_TO_POINTER(1 ok, 2 mismatch) */
} GroupEntry;

static GMutex groups_lock;
static GHashTable *groups; /* group text -> GroupEntry* */

static GroupEntry *group_for(const IrSchema *schema, const RtValue *args, guint n_args,
                             GError **error) {
  g_autofree char *text = cuda_elementwise_group_text(schema, args, n_args, error);
  if (text == NULL)
    return NULL;
  g_mutex_lock(&groups_lock);
  if (groups == NULL)
    groups = g_hash_table_new(g_str_hash, g_str_equal);
  GroupEntry *e = g_hash_table_lookup(groups, text);
  if (e == NULL) {
    e = g_new0(GroupEntry, 1);
    e->dtype_checked = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    g_autoptr(GError) local = NULL;
    e->graph = ir_graph_parse(text, strlen(text), "<cuda-op>", &local);
    if (e->graph == NULL) {
      e->why = g_strdup_printf("the single-op group does not parse: %s", local->message);
    } else {
      const IrNode *group = e->graph->block->param->next;
      const IrGraph *sub = ir_node_attr_g(group, IR_ATTR_SUBGRAPH);
      const IrNode *op = NULL;
      IR_FOR_EACH_NODE(n, sub->block) {
        if (n->kind != IR_PRIM_CONSTANT)
          op = n;
      }
      if (op == NULL || op->schema == NULL || op->schema->index != schema->index) {
        e->why = g_strdup("the single-op group resolves to another overload");
        ir_graph_free(e->graph);
        e->graph = NULL;
      }
    }
    g_hash_table_insert(groups, g_steal_pointer(&text), e);
  }
  g_mutex_unlock(&groups_lock);
  return e;
}

/* The CPU kernel's result dtype for these argument dtypes (one-element host tensors of the
 * same ranks); false when the CPU kernel refuses them. */
static bool cpu_result_dtype(const IrSchema *schema, const RtValue *args, guint n_args,
                             IrDtype *out) {
  RtValue *host = g_new0(RtValue, n_args + 1);
  for (guint i = 0; i < n_args; i++) {
    if (args[i].tag == RT_TENSOR && args[i].u.tensor) {
      const RtTensor *t = args[i].u.tensor;
      int64_t ones[RT_MAX_DIMS];
      for (int d = 0; d < t->ndim; d++)
        ones[d] = 1;
      host[i] = rt_tensor(rt_tensor_full(t->dtype, t->ndim, ones, 1.0));
    } else {
      host[i] = rt_value_ref(args[i]);
    }
  }
  RtValue result = rt_none();
  bool ok = rt_op_kernel(schema)(schema, NULL, host, n_args, &result, 1, NULL) &&
            result.tag == RT_TENSOR && result.u.tensor;
  if (ok)
    *out = result.u.tensor->dtype;
  rt_value_unref(result);
  for (guint i = 0; i < n_args; i++)
    rt_value_unref(host[i]);
  g_free(host);
  return ok;
}

static bool elementwise(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                        RtValue *outs, guint n_outs, GError **error) {
  (void)node;
  if (n_outs != 1)
    return decline(error, "an elementwise op with %u results", n_outs);
  GroupEntry *e = group_for(schema, args, n_args, error);
  if (e == NULL)
    return false;
  if (e->graph == NULL)
    return decline(error, "%s", e->why);
  RtValue tensors[16];
  guint n = 0;
  g_autoptr(GString) signature = g_string_new(NULL);
  for (guint i = 0; i < n_args; i++) {
    if (args[i].tag != RT_TENSOR)
      continue;
    if (n == G_N_ELEMENTS(tensors))
      return decline(error, "more than 16 tensor arguments");
    const RtTensor *t = args[i].u.tensor;
    g_string_append_printf(signature, "%s/%d ", ir_dtype_name(t->dtype), t->ndim == 0);
    tensors[n++] = args[i];
  }
  const IrNode *group = e->graph->block->param->next;
  const IrGraph *sub = ir_node_attr_g(group, IR_ATTR_SUBGRAPH);
  /* The generated kernel's output dtype must be the CPU kernel's (checked once per
   * signature). */
  g_mutex_lock(&groups_lock);
  int verdict = GPOINTER_TO_INT(g_hash_table_lookup(e->dtype_checked, signature->str));
  g_mutex_unlock(&groups_lock);
  IrDtype in_dtypes[16], gen_dtype = IR_DTYPE_FLOAT32, cpu_dtype = IR_DTYPE_FLOAT32;
  for (guint i = 0; i < n; i++)
    in_dtypes[i] = tensors[i].u.tensor->dtype;
  if (verdict == 0) {
    bool gen = cuda_codegen_output_dtypes(sub, in_dtypes, &gen_dtype, NULL);
    bool cpu = cpu_result_dtype(schema, args, n_args, &cpu_dtype);
    verdict = gen && (!cpu || gen_dtype == cpu_dtype) ? 1 : 2;
    g_mutex_lock(&groups_lock);
    g_hash_table_insert(e->dtype_checked, g_strdup(signature->str), GINT_TO_POINTER(verdict));
    g_mutex_unlock(&groups_lock);
  }
  if (verdict == 2)
    return decline(error, "the generated kernel's result dtype differs from the CPU kernel's "
                          "for these dtypes");
  const FuserBackend *cuda = cuda_launch_backend();
  g_autoptr(GError) local = NULL;
  if (cuda->run(cuda, NULL, group, tensors, n, outs, 1, &local))
    return true;
  if (local->domain == JITSCOPE_CUDA_ERROR && local->code != CUDA_ERROR_DRIVER &&
      local->code != CUDA_ERROR_UNAVAILABLE) {
    decline(error, "%s", local->message);
    return false;
  }
  g_propagate_error(error, g_steal_pointer(&local));
  return false;
}

/* --- views: CPU kernels on a host-tagged alias --- */

static void alias_free(void *data, void *ctx) {
  (void)data;
  (void)ctx;
}

/* An alias of t whose storage claims host memory (and never frees it). */
static RtTensor *host_alias(RtTensor *t, GHashTable *originals) {
  RtStorage *s = g_new0(RtStorage, 1);
  s->refcount = 1;
  s->device = IR_DEVICE_CPU;
  s->nbytes = t->storage->nbytes;
  s->data = t->storage->data;
  s->free_fn = alias_free;
  RtTensor *a = rt_tensor_new_strided(s, t->dtype, t->ndim, t->sizes, t->strides, t->offset);
  a->requires_grad = t->requires_grad;
  g_hash_table_insert(originals, s, t->storage);
  rt_storage_unref(s);
  return a;
}

/* Puts values computed on aliases back on their device storage. */
static void restore_storage(RtValue v, GHashTable *originals) {
  if (v.tag == RT_TENSOR && v.u.tensor) {
    RtStorage *orig = g_hash_table_lookup(originals, v.u.tensor->storage);
    g_assert(orig != NULL && "cuda view kernels: a view kernel allocated host memory");
    RtStorage *alias = v.u.tensor->storage;
    v.u.tensor->storage = rt_storage_ref(orig);
    rt_storage_unref(alias);
  } else if (v.tag == RT_LIST || v.tag == RT_TUPLE) {
    for (guint i = 0; i < v.u.seq->len; i++)
      restore_storage(v.u.seq->items[i], originals);
  }
}

static bool view_op(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                    RtValue *outs, guint n_outs, GError **error) {
  GHashTable *originals = g_hash_table_new(g_direct_hash, g_direct_equal);
  RtValue *aliased = g_new0(RtValue, n_args + 1);
  for (guint i = 0; i < n_args; i++)
    aliased[i] = is_cuda(args[i].tag == RT_TENSOR ? args[i].u.tensor : NULL)
                     ? rt_tensor(host_alias(args[i].u.tensor, originals))
                     : rt_value_ref(args[i]);
  bool ok = rt_op_kernel(schema)(schema, node, aliased, n_args, outs, n_outs, error);
  for (guint o = 0; ok && o < n_outs; o++)
    restore_storage(outs[o], originals);
  for (guint i = 0; i < n_args; i++)
    rt_value_unref(aliased[i]);
  g_free(aliased);
  g_hash_table_unref(originals);
  return ok;
}

static bool reshape_op(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                       RtValue *outs, guint n_outs, GError **error) {
  if (args[0].tag != RT_TENSOR || !is_cuda(args[0].u.tensor))
    return decline(error, "reshape of a non-CUDA tensor");
  int64_t sizes[RT_MAX_DIMS];
  int n;
  if (!k_arg_int_list(schema, args, 1, sizes, &n, error))
    return false;
  GHashTable *originals = g_hash_table_new(g_direct_hash, g_direct_equal);
  RtTensor *alias = host_alias(args[0].u.tensor, originals);
  RtTensor *v = rt_tensor_reshape(alias, n, sizes, true, NULL);
  rt_tensor_unref(alias);
  bool ok = true;
  if (v) {
    outs[0] = rt_tensor(v);
    restore_storage(outs[0], originals);
  } else {
    RtTensor *c = cuda_contiguous(args[0].u.tensor, error);
    ok = c != NULL;
    if (ok) {
      RtValue cargs[2] = {rt_tensor(c), args[1]};
      ok = view_op(schema, node, cargs, MIN(n_args, 2), outs, n_outs, error);
      rt_tensor_unref(c);
    }
  }
  g_hash_table_unref(originals);
  return ok;
}

/* --- reductions --- */

static bool sum_op(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                   RtValue *outs, guint n_outs, GError **error) {
  (void)node;
  k_check_call(schema, n_args, n_outs);
  RtTensor *self = args[0].tag == RT_TENSOR ? args[0].u.tensor : NULL;
  if (!is_cuda(self))
    return decline(error, "sum of a non-CUDA tensor");
  KSumArgs sum;
  if (!k_sum_args(schema, args, self, &sum, error))
    return false;
  bool has_dtype = sum.has_dtype, keepdim = sum.keepdim;
  IrDtype given = sum.given, out_dtype = sum.out_dtype;
  const bool *reduce = sum.reduce;
  RtTensor *src =
      has_dtype && given != self->dtype ? cuda_to_dtype(self, given, error) : rt_tensor_ref(self);
  if (src == NULL)
    return false;
  RtTensor *r = cuda_sum_dims(src, reduce, keepdim, out_dtype, error);
  rt_tensor_unref(src);
  if (r == NULL)
    return false;
  outs[0] = rt_tensor(r);
  return true;
}

static bool grad_sum_to_size_op(const IrSchema *schema, const IrNode *node, RtValue *args,
                                guint n_args, RtValue *outs, guint n_outs, GError **error) {
  (void)node;
  k_check_call(schema, n_args, n_outs);
  RtTensor *self = args[0].tag == RT_TENSOR ? args[0].u.tensor : NULL;
  if (!is_cuda(self))
    return decline(error, "_grad_sum_to_size of a non-CUDA tensor");
  if (k_arg_is_none(args, 1)) {
    outs[0] = rt_tensor(rt_tensor_ref(self));
    return true;
  }
  int64_t sizes[RT_MAX_DIMS];
  int n;
  if (!k_arg_int_list(schema, args, 1, sizes, &n, error))
    return false;
  RtTensor *r = cuda_sum_to(self, n, sizes, error);
  if (r == NULL)
    return false;
  outs[0] = rt_tensor(r);
  return true;
}

/* --- cat, fills, conversions --- */

static bool cat_op(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                   RtValue *outs, guint n_outs, GError **error) {
  (void)node;
  k_check_call(schema, n_args, n_outs);
  gint64 dim_arg;
  if (args[0].tag != RT_LIST || args[0].u.seq->len == 0 ||
      !k_arg_int(schema, args, 1, &dim_arg, error))
    return decline(error, "cat of an empty or malformed list");
  RtSeq *list = args[0].u.seq;
  const RtTensor *first = NULL;
  IrDtype dtype = IR_DTYPE_BOOL;
  for (guint i = 0; i < list->len; i++) {
    const RtTensor *t = list->items[i].tag == RT_TENSOR ? list->items[i].u.tensor : NULL;
    /* Legacy empty 1-d pieces and mismatched ranks: the CPU kernel says what is wrong. */
    if (!is_cuda(t) || t->ndim == 0 || (t->ndim == 1 && t->sizes[0] == 0))
      return decline(error, "cat with a piece the device kernel does not take");
    if (first && first->ndim != t->ndim)
      return decline(error, "cat of pieces of different ranks");
    dtype = first ? k_promote(dtype, t->dtype) : t->dtype;
    if (!first)
      first = t;
  }
  int dim;
  if (!k_wrap_dim(dim_arg, first->ndim, &dim, error))
    return false;
  int64_t sizes[RT_MAX_DIMS];
  memcpy(sizes, first->sizes, sizeof(int64_t) * (size_t)first->ndim);
  sizes[dim] = 0;
  for (guint i = 0; i < list->len; i++) {
    const RtTensor *t = list->items[i].u.tensor;
    for (int d = 0; d < t->ndim; d++)
      if (d != dim && t->sizes[d] != first->sizes[d])
        return decline(error, "cat of pieces whose sizes differ outside dim %d", dim);
    sizes[dim] += t->sizes[dim];
  }
  RtTensor *out = cuda_tensor_empty(dtype, first->ndim, sizes, error);
  if (out == NULL)
    return false;
  int64_t at = 0;
  bool ok = true;
  for (guint i = 0; ok && i < list->len; i++) {
    RtTensor *t = list->items[i].u.tensor;
    RtTensor *piece = rt_tensor_view_narrow(out, dim, at, t->sizes[dim]);
    ok = cuda_copy_into(piece, t, error);
    rt_tensor_unref(piece);
    at += t->sizes[dim];
  }
  if (!ok) {
    rt_tensor_unref(out);
    return false;
  }
  outs[0] = rt_tensor(out);
  return true;
}

static bool fill_like_op(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                         RtValue *outs, guint n_outs, GError **error) {
  (void)node;
  k_check_call(schema, n_args, n_outs);
  RtTensor *self = args[0].tag == RT_TENSOR ? args[0].u.tensor : NULL;
  if (!is_cuda(self))
    return decline(error, "*_like of a non-CUDA tensor");
  if (n_args > 3 && args[3].tag == RT_DEVICE && args[3].u.device != IR_DEVICE_CUDA)
    return decline(error, "the result is asked for on device %s", ir_device_name(args[3].u.device));
  bool has_dtype;
  IrDtype dtype;
  if (!k_arg_dtype(schema, args, 1, &has_dtype, &dtype, error))
    return false;
  RtTensor *r = cuda_full(has_dtype ? dtype : self->dtype, self->ndim, self->sizes,
                          schema->kind == IR_ATEN_ONES_LIKE ? 1.0 : 0.0, error);
  if (r == NULL)
    return false;
  outs[0] = rt_tensor(r);
  return true;
}

/* Bool/Int/Float of a tensor: the value itself is wanted on the host. */
static bool convert_op(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                       RtValue *outs, guint n_outs, GError **error) {
  RtValue host;
  if (!rt_value_to_host(args[0], &host, error))
    return false;
  RtValue moved[1] = {host};
  bool ok = rt_op_kernel(schema)(schema, node, moved, MIN(n_args, 1), outs, n_outs, error);
  rt_value_unref(host);
  return ok;
}

/* --- the table --- */

/* The device kernel for schema, or NULL (then the host round trip). */
static RtKernelFn cuda_device_kernel_for(const IrSchema *schema) {
  /* Every pointwise op runs as a generated kernel from its expression, fusible or not. */
  if (ir_ops_def(schema->index)->pointwise != NULL)
    return elementwise;
  switch (schema->kind) {
  case IR_ATEN_SUM: return sum_op;
  case IR_ATEN_GRAD_SUM_TO_SIZE: return grad_sum_to_size_op;
  case IR_ATEN_MM: return cuda_kernel_mm;
  case IR_ATEN_ADDMM: return cuda_kernel_addmm;
  case IR_ATEN_MATMUL: return cuda_kernel_matmul;
  case IR_ATEN_CAT: return cat_op;
  case IR_ATEN_RESHAPE: return reshape_op;
  case IR_ATEN_ONES_LIKE:
  case IR_ATEN_ZEROS_LIKE: return fill_like_op;
  case IR_ATEN___IS__:
  case IR_ATEN___ISNOT__: return rt_op_kernel(schema);
  case IR_ATEN_BOOL:
  case IR_ATEN_INT:
  case IR_ATEN_FLOAT: return convert_op;
  case IR_ATEN_CHUNK:
  case IR_ATEN_EXPAND:
  case IR_ATEN_EXPAND_AS:
  case IR_ATEN_TRANSPOSE:
  case IR_ATEN_T:
  case IR_ATEN_UNSQUEEZE:
  case IR_ATEN_SQUEEZE:
  case IR_ATEN_VIEW:
  case IR_ATEN_SIZE: return view_op;
  default: return NULL;
  }
}

static RtTensor *backend_to_host(const RtTensor *t, GError **error) {
  return cuda_tensor_to_host(t, error);
}

static RtTensor *backend_to_device(const RtTensor *t, GError **error) {
  return cuda_tensor_from_host(t, error);
}

static const RtDeviceBackend cuda_device_backend = {
    .device = IR_DEVICE_CUDA,
    .name = "cuda",
    .to_host = backend_to_host,
    .to_device = backend_to_device,
    .kernel_for = cuda_device_kernel_for,
    .sum_to = cuda_sum_to,
};

void cuda_ops_register(void) {
  if (rt_device_backend(IR_DEVICE_CUDA) != &cuda_device_backend)
    rt_device_register(&cuda_device_backend);
}

bool cuda_runtime_enable(GError **error) {
  char *why = cuda_status_unavailable_reason(cuda_loader_get());
  if (why) {
    g_set_error_literal(error, JITSCOPE_CUDA_ERROR, CUDA_ERROR_UNAVAILABLE, why);
    g_free(why);
    return false;
  }
  if (!cuda_runtime_begin(error))
    return false;
  cuda_runtime_end();
  cuda_ops_register();
  /* Fusion groups on device tensors run as generated kernels (host offloading unchanged). */
  fuser_register_backend(cuda_launch_backend());
  return true;
}
