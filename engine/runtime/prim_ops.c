/* Data prim ops the interpreter runs itself (reference section 1): constants, lists, tuples,
 * chunks, broadcast/chunk size arithmetic, RaiseException, Print, Uninitialized and the autograd
 * helpers. Control flow (If, Loop, GradOf) lives in the compiler; schema ops in kernels. */
#include <stdio.h>
#include <string.h>

#include "runtime/code_internal.h"
#include "runtime/device.h"
#include "runtime/print_op.h"

#define IN(k) (regs[operands[ins->in + (k)]])
#define OUT(k) (regs[ins->out + (k)])

static void fail(GError **error, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
static void fail(GError **error, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  g_autofree char *msg = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  g_set_error_literal(error, JITSCOPE_RUNTIME_ERROR, 0, msg);
}

static void prepare_error(GError **error, const IrNode *node, const char *what) {
  g_set_error(error, JITSCOPE_RUNTIME_ERROR, 0, "%s", what);
  rt_prefix_node_error(error, node);
}

bool rt_prim_is_data_op(IrOpKind kind) {
  switch (kind) {
  case IR_PRIM_LIST_CONSTRUCT:
  case IR_PRIM_LIST_UNPACK:
  case IR_PRIM_TUPLE_CONSTRUCT:
  case IR_PRIM_DICT_CONSTRUCT:
  case IR_PRIM_TUPLE_UNPACK:
  case IR_PRIM_TUPLE_INDEX:
  case IR_PRIM_CONSTANT_CHUNK:
  case IR_PRIM_BROADCASTING_CHUNK:
  case IR_PRIM_BROADCAST_SIZES:
  case IR_PRIM_CHUNK_SIZES:
  case IR_PRIM_FUSED_CONCAT:
  case IR_PRIM_RAISE_EXCEPTION:
  case IR_PRIM_PRINT:
  case IR_PRIM_UNINITIALIZED:
  case IR_PRIM_AUTOGRAD_ADD:
  case IR_PRIM_AUTOGRAD_ZERO:
  case IR_PRIM_AUTOGRAD_ANY_NON_ZERO: return true;
  default: return false;
  }
}

/* --- constants --- */

static int device_from_name(const char *s) {
  return g_str_has_prefix(s, "cuda") ? IR_DEVICE_CUDA : IR_DEVICE_CPU;
}

bool rt_constant_value(const IrNode *node, RtValue *out, GError **error) {
  const IrAttr *a = ir_node_attr(node, g_intern_static_string(IR_ATTR_VALUE));
  const IrType *t = ir_output(node, 0)->type;
  if (t->kind == IR_TYPE_OPTIONAL && a)
    t = t->elem;
  if (!a) {
    /* PyTorch: a Constant without value is None (or an undefined tensor when typed so). */
    *out = ir_type_is_tensor(t) ? rt_tensor(NULL) : rt_none();
    return true;
  }
  switch (a->kind) {
  case IR_ATTR_I:
    if (t->kind == IR_TYPE_BOOL)
      *out = rt_bool(a->v.i != 0);
    else if (t->kind == IR_TYPE_FLOAT)
      *out = rt_double((double)a->v.i);
    else if (ir_type_is_tensor(t))
      *out = rt_tensor(rt_tensor_scalar(IR_DTYPE_INT64, (double)a->v.i));
    else
      *out = rt_int(a->v.i);
    return true;
  case IR_ATTR_F:
    if (ir_type_is_tensor(t))
      *out = rt_tensor(rt_tensor_scalar(IR_DTYPE_FLOAT64, a->v.f));
    else
      *out = rt_double(a->v.f);
    return true;
  case IR_ATTR_S:
    *out = t->kind == IR_TYPE_DEVICE ? rt_device(device_from_name(a->v.s)) : rt_str(a->v.s);
    return true;
  case IR_ATTR_T: *out = rt_tensor(a->v.t ? rt_tensor_ref(a->v.t) : NULL); return true;
  case IR_ATTR_IS: {
    bool bools = t->kind == IR_TYPE_LIST && t->elem && t->elem->kind == IR_TYPE_BOOL;
    guint n = a->v.is->len;
    RtValue *items = g_new(RtValue, n + 1);
    for (guint i = 0; i < n; i++) {
      gint64 v = g_array_index(a->v.is, gint64, i);
      items[i] = bools ? rt_bool(v != 0) : rt_int(v);
    }
    *out = rt_list(items, n);
    g_free(items);
    return true;
  }
  case IR_ATTR_FS: {
    guint n = a->v.fs->len;
    RtValue *items = g_new(RtValue, n + 1);
    for (guint i = 0; i < n; i++)
      items[i] = rt_double(g_array_index(a->v.fs, double, i));
    *out = rt_list(items, n);
    g_free(items);
    return true;
  }
  case IR_ATTR_SS: {
    guint n = a->v.ss->len;
    RtValue *items = g_new(RtValue, n + 1);
    for (guint i = 0; i < n; i++)
      items[i] = rt_str(g_ptr_array_index(a->v.ss, i));
    *out = rt_list(items, n);
    g_free(items);
    return true;
  }
  case IR_ATTR_TS: {
    guint n = a->v.ts->len;
    RtValue *items = g_new(RtValue, n + 1);
    for (guint i = 0; i < n; i++) {
      RtTensor *x = g_ptr_array_index(a->v.ts, i);
      items[i] = rt_tensor(x ? rt_tensor_ref(x) : NULL);
    }
    *out = rt_list(items, n);
    g_free(items);
    return true;
  }
  case IR_ATTR_G:
  case IR_ATTR_GS: break;
  case IR_ATTR_RAW:
    prepare_error(error, node,
                  "the text does not give this constant's value (value=<Tensor> "
                  "or a rounded print); pass it as a named input instead");
    return false;
  }
  prepare_error(error, node, "a constant cannot hold a graph");
  return false;
}

/* --- compile-time checks --- */

static const IrSchema *overload_named(IrOpKind kind, const char *overload) {
  guint n = 0;
  const IrSchema *const *s = ir_ops_overloads(kind, &n);
  for (guint i = 0; i < n; i++)
    if (g_strcmp0(s[i]->overload, overload) == 0)
      return s[i];
  return NULL;
}

static bool need_attr_i(const IrNode *node, const char *name, gint64 *out, GError **error) {
  const IrAttr *a = ir_node_attr(node, name);
  if (!a || a->kind != IR_ATTR_I) {
    g_autofree char *msg = g_strdup_printf("missing int attribute '%s'", name);
    prepare_error(error, node, msg);
    return false;
  }
  *out = a->v.i;
  return true;
}

bool rt_prim_prepare(const IrNode *node, RtInstr *ins, GError **error) {
  guint ni = ir_n_inputs(node), no = ir_n_outputs(node);
  const char *bad = NULL;
  switch ((int)node->kind) {
  case IR_PRIM_LIST_CONSTRUCT:
  case IR_PRIM_TUPLE_CONSTRUCT:
    if (no != 1)
      bad = "expected one output";
    break;
  case IR_PRIM_DICT_CONSTRUCT:
    if (no != 1 || ni % 2 != 0)
      bad = "expected key, value pairs and one output";
    break;
  case IR_PRIM_LIST_UNPACK:
  case IR_PRIM_TUPLE_UNPACK:
    if (ni != 1)
      bad = "expected one input";
    break;
  case IR_PRIM_TUPLE_INDEX:
    if (no != 1 || ni < 1 || ni > 2) {
      bad = "expected (tuple[, index]) and one output";
    } else if (ni == 1) {
      if (!need_attr_i(node, "index", &ins->i0, error))
        return false;
      ins->i1 = 1;
    }
    break;
  case IR_PRIM_CONSTANT_CHUNK:
  case IR_PRIM_BROADCASTING_CHUNK:
  case IR_PRIM_CHUNK_SIZES:
    if (!need_attr_i(node, IR_ATTR_CHUNKS, &ins->i0, error) ||
        !need_attr_i(node, IR_ATTR_DIM, &ins->i1, error))
      return false;
    if (ins->i0 < 1)
      bad = "chunks must be at least 1";
    else if (node->kind == IR_PRIM_CONSTANT_CHUNK && (ni != 1 || no != ins->i0))
      bad = "expected one input and `chunks` outputs";
    else if (node->kind == IR_PRIM_BROADCASTING_CHUNK && (ni < 1 || no != ni * ins->i0))
      bad = "expected inputs x chunks outputs";
    else if (node->kind == IR_PRIM_CHUNK_SIZES && (ni != 1 || no != 2))
      bad = "expected one input and two outputs";
    break;
  case IR_PRIM_BROADCAST_SIZES:
    if (no != 1)
      bad = "expected one output";
    break;
  case IR_PRIM_FUSED_CONCAT:
    if (!need_attr_i(node, IR_ATTR_DIM, &ins->i1, error))
      return false;
    if (no != 1)
      bad = "expected one output";
    ins->schema = overload_named(IR_ATEN_CAT, "");
    break;
  case IR_PRIM_RAISE_EXCEPTION:
    if (ni < 1)
      bad = "expected a message input";
    break;
  case IR_PRIM_PRINT:
    if (no != 0)
      bad = "expected no outputs";
    break;
  case IR_PRIM_UNINITIALIZED:
  case IR_PRIM_AUTOGRAD_ZERO:
    if (ni != 0 || no != 1)
      bad = "expected no inputs and one output";
    break;
  case IR_PRIM_AUTOGRAD_ADD:
    if (ni != 2 || no != 1)
      bad = "expected two inputs and one output";
    ins->schema = overload_named(IR_ATEN_ADD, "Tensor");
    break;
  case IR_PRIM_AUTOGRAD_ANY_NON_ZERO:
    if (no != 1)
      bad = "expected one output";
    break;
  default: bad = "not a data prim op"; break;
  }
  if (!bad && (node->kind == IR_PRIM_FUSED_CONCAT || node->kind == IR_PRIM_AUTOGRAD_ADD)) {
    ins->kernel = ins->schema ? rt_op_kernel(ins->schema) : NULL;
    if (!ins->kernel)
      bad = "the op table lacks the kernel this node runs";
  }
  if (bad) {
    prepare_error(error, node, bad);
    return false;
  }
  return true;
}

/* --- run time --- */

static bool seq_items(RtValue v, RtTag tag, guint expect, const char *what, GError **error) {
  if (v.tag != tag) {
    fail(error, "expected a %s", what);
    return false;
  }
  if (v.u.seq->len != expect) {
    fail(error, "expected a %s of %u elements, got %u", what, expect, v.u.seq->len);
    return false;
  }
  return true;
}

static bool wrap_dim(gint64 dim, int ndim, int *out, GError **error) {
  gint64 n = ndim > 0 ? ndim : 1;
  if (dim < -n || dim >= n) {
    fail(error, "dimension %" G_GINT64_FORMAT " out of range for a %d-d tensor", dim, ndim);
    return false;
  }
  *out = (int)(dim < 0 ? dim + n : dim);
  return true;
}

/* torch.chunk: pieces of ceil(size / chunks) along dim, the last one smaller; fewer pieces than
 * chunks when the size runs out. Writes `chunks` values: the pieces, then undefined tensors
 * (PyTorch's ConstantChunk pads that way). */
static bool chunk_tensor(RtTensor *t, gint64 chunks, gint64 dim_attr, RtValue *out,
                         GError **error) {
  if (!t) {
    fail(error, "cannot chunk an undefined tensor");
    return false;
  }
  int dim;
  if (!wrap_dim(dim_attr, t->ndim, &dim, error))
    return false;
  if (t->ndim == 0) {
    fail(error, "cannot chunk a 0-d tensor");
    return false;
  }
  gint64 size = t->sizes[dim];
  gint64 split = (size + chunks - 1) / chunks;
  gint64 n = split > 0 ? (size + split - 1) / split : 1;
  for (gint64 k = 0; k < chunks; k++) {
    if (k < n) {
      gint64 start = k * split;
      gint64 len = MIN(split, size - start);
      out[k] = rt_tensor(rt_tensor_view_narrow(t, dim, start, len));
    } else {
      out[k] = rt_tensor(NULL);
    }
  }
  return true;
}

static bool int_list(RtValue v, gint64 *out, guint *n, GError **error) {
  if (!rt_value_to_int_list(v, out, RT_MAX_DIMS, n)) {
    fail(error, "expected a list of at most %d ints", RT_MAX_DIMS);
    return false;
  }
  return true;
}

static bool run_broadcasting_chunk(const RtInstr *ins, const guint32 *operands, RtValue *regs,
                                   GError **error) {
  int nd = 0;
  int64_t shape[RT_MAX_DIMS];
  for (guint32 i = 0; i < ins->n_in; i++) {
    RtValue v = IN(i);
    if (v.tag != RT_TENSOR || !v.u.tensor) {
      fail(error, "input %u is not a defined tensor", i);
      return false;
    }
    int64_t next[RT_MAX_DIMS];
    if (!rt_broadcast_shapes(nd, shape, v.u.tensor->ndim, v.u.tensor->sizes, &nd, next, error))
      return false;
    memcpy(shape, next, sizeof(int64_t) * (size_t)nd);
  }
  for (guint32 i = 0; i < ins->n_in; i++) {
    RtTensor *e = rt_tensor_view_expand(IN(i).u.tensor, nd, shape, error);
    if (!e)
      return false;
    bool ok = chunk_tensor(e, ins->i0, ins->i1, &OUT(i * ins->i0), error);
    rt_tensor_unref(e);
    if (!ok)
      return false;
  }
  return true;
}

static bool run_chunk_sizes(const RtInstr *ins, const guint32 *operands, RtValue *regs,
                            GError **error) {
  gint64 shape[RT_MAX_DIMS];
  guint n;
  if (!int_list(IN(0), shape, &n, error))
    return false;
  int dim;
  if (!wrap_dim(ins->i1, (int)n, &dim, error))
    return false;
  if ((guint)dim >= n) {
    fail(error, "dimension out of range for chunk");
    return false;
  }
  gint64 chunks = ins->i0;
  gint64 split = (shape[dim] + chunks - 1) / chunks;
  gint64 regular[RT_MAX_DIMS], last[RT_MAX_DIMS];
  memcpy(regular, shape, sizeof(gint64) * n);
  memcpy(last, shape, sizeof(gint64) * n);
  regular[dim] = split;
  if (shape[dim] % chunks == 0) {
    last[dim] = split;
  } else {
    gint64 pieces = MAX((shape[dim] + split - 1) / split, 1);
    last[dim] = split - (split * pieces - shape[dim]);
  }
  OUT(0) = rt_int_list(regular, n);
  OUT(1) = rt_int_list(last, n);
  return true;
}

static bool run_broadcast_sizes(const RtInstr *ins, const guint32 *operands, RtValue *regs,
                                GError **error) {
  int nd = 0;
  int64_t shape[RT_MAX_DIMS];
  for (guint32 i = 0; i < ins->n_in; i++) {
    gint64 s[RT_MAX_DIMS];
    guint n;
    if (!int_list(IN(i), s, &n, error))
      return false;
    int64_t s64[RT_MAX_DIMS];
    for (guint k = 0; k < n; k++)
      s64[k] = s[k];
    int64_t next[RT_MAX_DIMS];
    if (!rt_broadcast_shapes(nd, shape, (int)n, s64, &nd, next, error))
      return false;
    memcpy(shape, next, sizeof(int64_t) * (size_t)nd);
  }
  gint64 out[RT_MAX_DIMS];
  for (int k = 0; k < nd; k++)
    out[k] = shape[k];
  OUT(0) = rt_int_list(out, (guint)nd);
  return true;
}

static bool tensor_or_undefined(RtValue v, RtTensor **out, GError **error) {
  if (v.tag == RT_TENSOR) {
    *out = v.u.tensor;
    return true;
  }
  if (v.tag == RT_NONE) { /* None stands for an undefined gradient too */
    *out = NULL;
    return true;
  }
  fail(error, "expected a tensor");
  return false;
}

static bool any_defined(RtValue v) {
  if (v.tag == RT_TENSOR)
    return v.u.tensor != NULL;
  if (v.tag == RT_LIST || v.tag == RT_TUPLE)
    for (guint i = 0; i < v.u.seq->len; i++)
      if (any_defined(v.u.seq->items[i]))
        return true;
  return false;
}

bool rt_prim_run(const RtInstr *ins, const guint32 *operands, RtValue *regs, RtValue *scratch,
                 GError **error) {
  switch ((int)ins->kind) {
  case IR_PRIM_LIST_CONSTRUCT:
  case IR_PRIM_TUPLE_CONSTRUCT:
    for (guint32 i = 0; i < ins->n_in; i++)
      scratch[i] = rt_value_ref(IN(i));
    OUT(0) = ins->kind == IR_PRIM_LIST_CONSTRUCT ? rt_list(scratch, ins->n_in)
                                                 : rt_tuple(scratch, ins->n_in);
    return true;
  case IR_PRIM_DICT_CONSTRUCT: /* keys and values alternate; a repeated key keeps the last */
    OUT(0) = rt_dict_new();
    for (guint32 i = 0; i + 1 < ins->n_in; i += 2)
      rt_dict_set(OUT(0), rt_value_ref(IN(i)), rt_value_ref(IN(i + 1)));
    return true;
  case IR_PRIM_LIST_UNPACK:
  case IR_PRIM_TUPLE_UNPACK: {
    RtValue v = IN(0);
    bool list = ins->kind == IR_PRIM_LIST_UNPACK;
    if (!seq_items(v, list ? RT_LIST : RT_TUPLE, ins->n_out, list ? "list" : "tuple", error))
      return false;
    for (guint32 i = 0; i < ins->n_out; i++)
      OUT(i) = rt_value_ref(v.u.seq->items[i]);
    return true;
  }
  case IR_PRIM_TUPLE_INDEX: {
    RtValue v = IN(0);
    gint64 idx = ins->i0;
    if (!ins->i1) {
      if (IN(1).tag != RT_INT) {
        fail(error, "the index must be an int");
        return false;
      }
      idx = IN(1).u.i;
    }
    if (v.tag != RT_TUPLE) {
      fail(error, "expected a tuple");
      return false;
    }
    gint64 n = v.u.seq->len;
    if (idx < -n || idx >= n) {
      fail(error, "tuple index %" G_GINT64_FORMAT " out of range for %" G_GINT64_FORMAT " elements",
           idx, n);
      return false;
    }
    OUT(0) = rt_value_ref(v.u.seq->items[idx < 0 ? idx + n : idx]);
    return true;
  }
  case IR_PRIM_CONSTANT_CHUNK: {
    RtValue v = IN(0);
    if (v.tag != RT_TENSOR) {
      fail(error, "expected a tensor");
      return false;
    }
    return chunk_tensor(v.u.tensor, ins->i0, ins->i1, &OUT(0), error);
  }
  case IR_PRIM_BROADCASTING_CHUNK: return run_broadcasting_chunk(ins, operands, regs, error);
  case IR_PRIM_CHUNK_SIZES: return run_chunk_sizes(ins, operands, regs, error);
  case IR_PRIM_BROADCAST_SIZES: return run_broadcast_sizes(ins, operands, regs, error);
  case IR_PRIM_FUSED_CONCAT: {
    for (guint32 i = 0; i < ins->n_in; i++)
      scratch[i] = rt_value_ref(IN(i));
    RtValue args[2] = {rt_list(scratch, ins->n_in), rt_int(ins->i1)};
    bool ok = rt_kernel_call(ins->kernel, ins->schema, NULL, args, 2, &OUT(0), 1, error);
    rt_value_unref(args[0]);
    return ok;
  }
  case IR_PRIM_RAISE_EXCEPTION: {
    RtValue m = IN(0);
    if (m.tag == RT_STR) {
      fail(error, "%s", m.u.s->text);
    } else {
      g_autoptr(GString) s = g_string_new(NULL);
      rt_value_print(s, m);
      fail(error, "%s", s->str);
    }
    return false;
  }
  case IR_PRIM_PRINT: { /* stdout (rt_print_stream), flushed, as PyTorch's interpreter prints */
    g_autoptr(GString) text = g_string_new(NULL);
    for (guint32 i = 0; i < ins->n_in; i++)
      scratch[i] = IN(i);
    rt_print_format(text, scratch, ins->n_in);
    FILE *stream = rt_print_stream();
    fputs(text->str, stream);
    fflush(stream);
    return true;
  }
  case IR_PRIM_UNINITIALIZED: OUT(0) = rt_none(); return true;
  case IR_PRIM_AUTOGRAD_ZERO: OUT(0) = rt_tensor(NULL); return true;
  case IR_PRIM_AUTOGRAD_ADD: {
    RtTensor *a, *b;
    if (!tensor_or_undefined(IN(0), &a, error) || !tensor_or_undefined(IN(1), &b, error))
      return false;
    if (!a || !b) {
      OUT(0) = rt_tensor(a ? rt_tensor_ref(a) : b ? rt_tensor_ref(b) : NULL);
      return true;
    }
    RtValue args[3] = {IN(0), IN(1), rt_int(1)};
    return rt_kernel_call(ins->kernel, ins->schema, NULL, args, 3, &OUT(0), 1, error);
  }
  case IR_PRIM_AUTOGRAD_ANY_NON_ZERO: {
    bool any = false;
    for (guint32 i = 0; i < ins->n_in && !any; i++)
      any = any_defined(IN(i));
    OUT(0) = rt_bool(any);
    return true;
  }
  default: break;
  }
  g_error("interpreter invariant: rt_prim_run got a kind rt_prim_is_data_op rejects (%s)",
          ir_kind_name(ins->kind));
  return false;
}
