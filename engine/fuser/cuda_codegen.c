/* CUDA code generation for fusion groups (contract in cuda_codegen.h; reference section 5).
 * The layout follows PyTorch's fuser/codegen.cpp of 2019: a TensorInfo<T, N> record per
 * tensor, 32-bit indexing, a grid-stride loop, per-tensor offsets computed innermost dim first,
 * __ldg loads and one statement per node. */
#include "fuser/cuda_codegen.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuser/cuda_loader.h"
#include "ir/ops.h"
#include "runtime/tensor.h"

typedef enum { V_TENSOR, V_INT, V_FLOAT, V_BOOL, V_NONE, V_OTHER } VKind;

typedef struct {
  VKind kind;
  IrDtype dtype; /* V_TENSOR: storage dtype of the value */
  guint var;     /* V_TENSOR: the n<var> holding it */
  double num;    /* V_INT, V_FLOAT, V_BOOL */
  gint64 inum;   /* V_INT */
} VInfo;

typedef struct {
  const IrGraph *graph;
  guint n_tensor;
  const IrDtype *input_dtypes;
  GHashTable *info; /* IrValue* -> VInfo* */
  guint next_var;
  GError **error;
} Gen;

static bool gen_fail(Gen *g, const char *format, ...) G_GNUC_PRINTF(2, 3);
static bool gen_fail(Gen *g, const char *format, ...) {
  va_list ap;
  va_start(ap, format);
  char *msg = g_strdup_vprintf(format, ap);
  va_end(ap);
  g_set_error(g->error, JITSCOPE_CUDA_ERROR, CUDA_ERROR_CODEGEN, "%s", msg);
  g_free(msg);
  return false;
}

guint cuda_codegen_n_tensor_inputs(const IrGraph *graph) {
  GPtrArray *in = ir_graph_inputs(graph);
  guint n = 0;
  while (n < in->len && ir_type_is_tensor(((IrValue *)g_ptr_array_index(in, n))->type))
    n++;
  return n;
}

static VInfo *info_of(Gen *g, const IrValue *v) { return g_hash_table_lookup(g->info, v); }

static VInfo *new_tensor(Gen *g, const IrValue *v, IrDtype dtype) {
  VInfo *i = g_new0(VInfo, 1);
  i->kind = V_TENSOR;
  i->dtype = dtype;
  i->var = g->next_var++;
  g_hash_table_insert(g->info, (gpointer)v, i);
  return i;
}

static bool is_float_dtype(IrDtype d) {
  return d == IR_DTYPE_FLOAT32 || d == IR_DTYPE_FLOAT64 || d == IR_DTYPE_FLOAT16;
}

/* The type a value of `dtype` is held in inside the kernel. */
static const char *compute_spelling(IrDtype d) {
  switch (d) {
  case IR_DTYPE_FLOAT64: return "double";
  case IR_DTYPE_INT64: return "long long";
  case IR_DTYPE_BOOL: return "bool";
  default: return "float";
  }
}

static const char *storage_spelling(IrDtype d) {
  return d == IR_DTYPE_FLOAT16 ? "__half" : compute_spelling(d);
}

static bool constant_info(Gen *g, const IrNode *n) {
  const IrValue *out = ir_output(n, 0);
  VInfo *i = g_new0(VInfo, 1);
  const IrAttr *a = ir_node_attr(n, IR_ATTR_VALUE);
  if (a == NULL)
    i->kind = V_NONE;
  else if (a->kind == IR_ATTR_I) {
    i->kind = out->type->kind == IR_TYPE_BOOL ? V_BOOL
              : out->type->kind == IR_TYPE_FLOAT ? V_FLOAT
                                                  : V_INT;
    i->inum = a->v.i;
    i->num = (double)a->v.i;
  } else if (a->kind == IR_ATTR_F) {
    i->kind = V_FLOAT;
    i->num = a->v.f;
  } else
    i->kind = V_OTHER;
  g_hash_table_insert(g->info, (gpointer)out, i);
  return true;
}

static bool is_comparison(IrOpKind k) {
  return k == IR_ATEN_GT || k == IR_ATEN_LT || k == IR_ATEN_GE || k == IR_ATEN_LE ||
         k == IR_ATEN_EQ || k == IR_ATEN_NE;
}

/* Does schema argument `a` take part in type promotion? Tensors do; of the scalars only the
 * second operand of binary ops ("other", "exponent"), as in PyTorch's result_type. */
static bool promotes(const IrArgument *a) {
  if (ir_type_is_tensor(a->type))
    return true;
  return strcmp(a->name, "other") == 0 || strcmp(a->name, "exponent") == 0;
}

/* The dtype an op computes in (operands converted to it) and the dtype of its result. */
static bool op_dtypes(Gen *g, const IrNode *n, IrDtype *operand, IrDtype *result) {
  const IrSchema *s = n->schema;
  IrDtype dts[8];
  RtOperandClass cls[8];
  guint k = 0;
  guint first = n->kind == IR_ATEN_WHERE ? 1 : 0;
  for (guint a = first; a < ir_n_inputs(n) && a < s->n_args && k < 8; a++) {
    const VInfo *i = info_of(g, ir_input(n, a));
    if (!promotes(&s->args[a]) || i == NULL)
      continue;
    if (i->kind == V_TENSOR) {
      dts[k] = i->dtype;
      cls[k++] = RT_OPERAND_TENSOR;
    } else if (i->kind == V_INT || i->kind == V_FLOAT || i->kind == V_BOOL) {
      dts[k] = i->kind == V_INT ? IR_DTYPE_INT64 : i->kind == V_FLOAT ? IR_DTYPE_FLOAT64
                                                                     : IR_DTYPE_BOOL;
      cls[k++] = RT_OPERAND_NUMBER;
    }
  }
  if (k == 0)
    return gen_fail(g, "%s has no tensor operand", s->name);
  *operand = rt_result_type(k, dts, cls);
  if (n->kind == IR_ATEN_TYPE_AS) {
    const VInfo *other = info_of(g, ir_input(n, 1));
    *operand = info_of(g, ir_input(n, 0))->dtype;
    *result = other && other->kind == V_TENSOR ? other->dtype : *operand;
    return true;
  }
  if (n->kind == IR_ATEN_DIV && !is_float_dtype(*operand))
    *operand = IR_DTYPE_FLOAT32; /* true division */
  *result = is_comparison(n->kind) ? IR_DTYPE_BOOL : *operand;
  return true;
}

/* Walks the kernel graph once, giving every value its VInfo (tensor dtypes, constants). */
static bool analyse(Gen *g) {
  GPtrArray *in = ir_graph_inputs(g->graph);
  for (guint i = 0; i < g->n_tensor; i++)
    new_tensor(g, g_ptr_array_index(in, i), g->input_dtypes[i]);
  for (guint i = g->n_tensor; i < in->len; i++) {
    VInfo *v = g_new0(VInfo, 1);
    v->kind = V_OTHER;
    g_hash_table_insert(g->info, g_ptr_array_index(in, i), v);
  }
  IR_FOR_EACH_NODE(n, g->graph->block) {
    if (n->kind == IR_PRIM_CONSTANT) {
      constant_info(g, n);
    } else if (n->kind == IR_PRIM_CONSTANT_CHUNK) {
      IrValue *src = ir_input(n, 0);
      VInfo *si = info_of(g, src);
      if (src->node != g->graph->block->param || si == NULL || si->kind != V_TENSOR)
        return gen_fail(g, "prim::ConstantChunk must read a tensor input of the group");
      if (src->uses->len != 1)
        return gen_fail(g, "a chunked group input is used by more than its prim::ConstantChunk");
      for (guint o = 0; o < ir_n_outputs(n); o++)
        new_tensor(g, ir_output(n, o), si->dtype);
    } else if (n->kind == IR_PRIM_FUSED_CONCAT) {
      IrDtype d = IR_DTYPE_FLOAT32;
      for (guint a = 0; a < ir_n_inputs(n); a++) {
        const VInfo *vi = info_of(g, ir_input(n, a));
        if (vi == NULL || vi->kind != V_TENSOR)
          return gen_fail(g, "prim::FusedConcat operand %u is not a tensor", a);
        d = a == 0 ? vi->dtype : rt_promote_types(d, vi->dtype);
      }
      new_tensor(g, ir_output(n, 0), d);
    } else if (n->schema && ir_ops_def(n->schema->index)->pointwise) {
      for (guint a = 0; a < ir_n_inputs(n); a++) {
        const VInfo *vi = info_of(g, ir_input(n, a));
        if (vi == NULL || vi->kind == V_OTHER)
          return gen_fail(g, "%s: operand %u is neither a tensor nor a constant", n->schema->name,
                          a);
      }
      IrDtype operand, result;
      if (!op_dtypes(g, n, &operand, &result))
        return false;
      new_tensor(g, ir_output(n, 0), result);
    } else {
      return gen_fail(g, "%s is not an elementwise op the CUDA fuser can generate",
                      ir_kind_name(n->kind));
    }
  }
  return true;
}

static void gen_init(Gen *g, const IrGraph *graph, const IrDtype *input_dtypes, GError **error) {
  g->graph = graph;
  g->n_tensor = cuda_codegen_n_tensor_inputs(graph);
  g->input_dtypes = input_dtypes;
  g->info = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
  g->next_var = 0;
  g->error = error;
}

bool cuda_codegen_output_dtypes(const IrGraph *graph, const IrDtype *input_dtypes, IrDtype *out,
                                GError **error) {
  Gen g;
  gen_init(&g, graph, input_dtypes, error);
  bool ok = analyse(&g);
  GPtrArray *outs = ir_graph_outputs(graph);
  for (guint o = 0; ok && o < outs->len; o++) {
    const VInfo *vi = info_of(&g, g_ptr_array_index(outs, o));
    if (vi == NULL || vi->kind != V_TENSOR)
      ok = gen_fail(&g, "group output %u is not a tensor", o);
    else
      out[o] = vi->dtype;
  }
  g_hash_table_unref(g.info);
  return ok;
}

/* --- literals and expressions --- */

char *cuda_codegen_float_literal(double v, IrDtype dtype) {
  if (isnan(v))
    return g_strdup("NAN");
  if (isinf(v))
    return g_strdup(v > 0 ? "INFINITY" : "(-INFINITY)");
  bool single = dtype != IR_DTYPE_FLOAT64;
  char buf[64];
  for (int prec = single ? 6 : 15; prec <= 17; prec++) {
    if (single)
      g_snprintf(buf, sizeof buf, "%.*g", prec, (double)(float)v);
    else
      g_snprintf(buf, sizeof buf, "%.*g", prec, v);
    if (single ? strtof(buf, NULL) == (float)v : strtod(buf, NULL) == v)
      break;
  }
  GString *s = g_string_new(NULL);
  bool negative = buf[0] == '-';
  if (negative)
    g_string_append_c(s, '(');
  g_string_append(s, buf);
  if (!strpbrk(buf, ".e"))
    g_string_append_c(s, '.');
  if (single)
    g_string_append_c(s, 'f');
  if (negative)
    g_string_append_c(s, ')');
  return g_string_free(s, FALSE);
}

/* The text of operand `a` of `n` as the op's compute type `operand` sees it. */
static char *operand_text(Gen *g, const IrNode *n, guint a, IrDtype operand) {
  bool clamp_bound = n->kind == IR_ATEN_CLAMP && (a == 1 || a == 2);
  if (a >= ir_n_inputs(n)) {
    const IrDefault *d = &n->schema->args[a].def;
    if (d->kind == IR_DEFAULT_INT)
      return g_strdup_printf("%" G_GINT64_FORMAT, d->i);
    if (d->kind == IR_DEFAULT_FLOAT)
      return cuda_codegen_float_literal(d->f, operand);
    if (d->kind == IR_DEFAULT_NONE && clamp_bound)
      return g_strdup(a == 1 ? "(-INFINITY)" : "INFINITY");
    return NULL;
  }
  const VInfo *vi = info_of(g, ir_input(n, a));
  switch (vi->kind) {
  case V_TENSOR: {
    bool cond = n->kind == IR_ATEN_WHERE && a == 0;
    if (cond || strcmp(compute_spelling(vi->dtype), compute_spelling(operand)) == 0)
      return g_strdup_printf("n%u", vi->var);
    return g_strdup_printf("((%s)n%u)", compute_spelling(operand), vi->var);
  }
  case V_BOOL: return g_strdup(vi->inum ? "true" : "false");
  case V_INT:
    if (is_float_dtype(operand))
      return cuda_codegen_float_literal(vi->num, operand);
    if (vi->inum < 0)
      return g_strdup_printf("(%" G_GINT64_FORMAT "LL)", vi->inum);
    return g_strdup_printf("%" G_GINT64_FORMAT "%s", vi->inum,
                           vi->inum > G_MAXINT32 ? "LL" : "");
  case V_FLOAT: return cuda_codegen_float_literal(vi->num, operand);
  case V_NONE:
    if (clamp_bound)
      return g_strdup(a == 1 ? "(-INFINITY)" : "INFINITY");
    return NULL;
  default: return NULL;
  }
}

/* ops.def spells math with double functions; float code calls the float ones. */
static const char *const float_functions[] = {
    "exp", "expm1", "log", "log10", "log1p", "log2", "sqrt", "erf", "erfc", "sin", "cos", "tan",
    "asin", "acos", "atan", "sinh", "cosh", "tanh", "ceil", "floor", "nearbyint", "trunc",
    "lgamma", "atan2", "pow", "fmod", "fabs", NULL};

static bool is_float_function(const char *start, gsize len) {
  for (guint i = 0; float_functions[i]; i++)
    if (strlen(float_functions[i]) == len && strncmp(float_functions[i], start, len) == 0)
      return true;
  return false;
}

/* Substitutes %N by the operands and renames math functions for float. */
static bool expand_expression(Gen *g, const IrNode *n, IrDtype operand, GString *out) {
  const char *e = ir_ops_def(n->schema->index)->pointwise;
  bool single = operand == IR_DTYPE_FLOAT32 || operand == IR_DTYPE_FLOAT16;
  while (*e) {
    if (*e == '%' && g_ascii_isdigit(e[1])) {
      char *end;
      guint a = (guint)strtoul(e + 1, &end, 10);
      char *text = a < n->schema->n_args ? operand_text(g, n, a, operand) : NULL;
      if (text == NULL)
        return gen_fail(g, "%s: no value for operand %u of its elementwise expression",
                        n->schema->name, a);
      g_string_append(out, text);
      g_free(text);
      e = end;
    } else if (g_ascii_isalpha(*e) || *e == '_') {
      const char *start = e;
      while (g_ascii_isalnum(*e) || *e == '_')
        e++;
      g_string_append_len(out, start, e - start);
      if (single && *e == '(' && is_float_function(start, (gsize)(e - start)))
        g_string_append_c(out, 'f');
    } else {
      g_string_append_c(out, *e++);
    }
  }
  return true;
}

/* --- the kernel --- */

static const char kernel_prelude[] =
    "typedef unsigned int IndexType;\n"
    "\n"
    "template <typename T, int N>\n"
    "struct TensorInfo {\n"
    "  T *data;\n"
    "  IndexType sizes[N];\n"
    "  IndexType strides[N];\n"
    "};\n"
    "\n"
    "#define NAN __int_as_float(0x7fffffff)\n"
    "#define INFINITY __int_as_float(0x7f800000)\n";

static const char half_support[] =
    "\n"
    "struct __align__(2) __half {\n"
    "  unsigned short x;\n"
    "};\n"
    "static __device__ __forceinline__ __half __float2half(const float f) {\n"
    "  __half h;\n"
    "  asm(\"{ cvt.rn.f16.f32 %0, %1; }\\n\" : \"=h\"(h.x) : \"f\"(f));\n"
    "  return h;\n"
    "}\n"
    "static __device__ __forceinline__ float __half2float(const __half h) {\n"
    "  float f;\n"
    "  asm(\"{ cvt.f32.f16 %0, %1; }\\n\" : \"=f\"(f) : \"h\"(h.x));\n"
    "  return f;\n"
    "}\n";

static void emit_offset(GString *s, guint param, guint ndim) {
  if (ndim == 1) {
    g_string_append_printf(s, "    IndexType t%u_offset = linear * t%u.strides[0];\n", param,
                           param);
    return;
  }
  g_string_append_printf(s, "    IndexType t%u_offset = 0;\n", param);
  g_string_append_printf(s, "    {\n      IndexType rest = linear;\n");
  for (guint d = ndim - 1; d > 0; d--) {
    g_string_append_printf(s, "      t%u_offset += (rest %% t%u.sizes[%u]) * t%u.strides[%u];\n",
                           param, param, d, param, d);
    g_string_append_printf(s, "      rest /= t%u.sizes[%u];\n", param, d);
  }
  g_string_append_printf(s, "      t%u_offset += rest * t%u.strides[0];\n    }\n", param, param);
}

static void emit_load(GString *s, guint param, IrDtype dtype, guint var) {
  const char *type = compute_spelling(dtype);
  if (dtype == IR_DTYPE_FLOAT16)
    g_string_append_printf(s, "    %s n%u = __half2float(t%u.data[t%u_offset]);\n", type, var,
                           param, param);
  else if (dtype == IR_DTYPE_BOOL)
    g_string_append_printf(s, "    %s n%u = t%u.data[t%u_offset];\n", type, var, param, param);
  else
    g_string_append_printf(s, "    %s n%u = __ldg(&t%u.data[t%u_offset]);\n", type, var, param,
                           param);
}

static void emit_store(GString *s, guint param, IrDtype dtype, const VInfo *value) {
  if (dtype == IR_DTYPE_FLOAT16)
    g_string_append_printf(s, "    t%u.data[t%u_offset] = __float2half(n%u);\n", param, param,
                           value->var);
  else if (strcmp(compute_spelling(dtype), compute_spelling(value->dtype)) != 0)
    g_string_append_printf(s, "    t%u.data[t%u_offset] = (%s)n%u;\n", param, param,
                           storage_spelling(dtype), value->var);
  else
    g_string_append_printf(s, "    t%u.data[t%u_offset] = n%u;\n", param, param, value->var);
}

static void add_arg(GArray *args, bool is_output, guint index, int piece, int n_pieces, int dim,
                    IrDtype dtype, guint ndim) {
  CudaKernelArg a = {is_output, index, piece, n_pieces, dim, dtype, ndim};
  g_array_append_val(args, a);
}

static bool check_rank(Gen *g, guint ndim, const char *what, guint index) {
  if (ndim == 0 || ndim > IR_MAX_RANK)
    return gen_fail(g, "%s %u: a TensorInfo rank of %u is outside [1, %d]", what, index, ndim,
                    IR_MAX_RANK);
  return true;
}

/* Which node chunks group input `i`, or NULL. */
static const IrNode *chunk_of(const IrGraph *graph, guint i) {
  const IrValue *v = g_ptr_array_index(ir_graph_inputs(graph), i);
  for (guint u = 0; u < v->uses->len; u++) {
    const IrUse *use = &g_array_index(v->uses, IrUse, u);
    if (use->user->kind == IR_PRIM_CONSTANT_CHUNK)
      return use->user;
  }
  return NULL;
}

/* Parameters: appends records to `args` and declarations to `params`. */
static bool declare_params(Gen *g, const guint *input_ndims, const guint *output_ndims,
                           GArray *args, GString *params) {
  for (guint i = 0; i < g->n_tensor; i++) {
    if (!check_rank(g, input_ndims[i], "input", i))
      return false;
    const IrNode *chunk = chunk_of(g->graph, i);
    int pieces = chunk ? (int)ir_n_outputs(chunk) : 0;
    int dim = chunk ? (int)ir_node_attr_i(chunk, IR_ATTR_DIM) : -1;
    for (int p = 0; p < (chunk ? pieces : 1); p++)
      add_arg(args, false, i, chunk ? p : -1, pieces, dim, g->input_dtypes[i], input_ndims[i]);
  }
  GPtrArray *outs = ir_graph_outputs(g->graph);
  for (guint o = 0; o < outs->len; o++) {
    const IrValue *v = g_ptr_array_index(outs, o);
    const VInfo *vi = info_of(g, v);
    if (!check_rank(g, output_ndims[o], "output", o))
      return false;
    if (vi == NULL || vi->kind != V_TENSOR)
      return gen_fail(g, "group output %u is not a tensor", o);
    if (v->node->kind == IR_PRIM_FUSED_CONCAT) {
      int pieces = (int)ir_n_inputs(v->node);
      int dim = (int)ir_node_attr_i(v->node, IR_ATTR_DIM);
      for (int p = 0; p < pieces; p++)
        add_arg(args, true, o, p, pieces, dim, vi->dtype, output_ndims[o]);
    } else {
      add_arg(args, true, o, -1, 0, -1, vi->dtype, output_ndims[o]);
    }
  }
  for (guint p = 0; p < args->len; p++) {
    const CudaKernelArg *a = &g_array_index(args, CudaKernelArg, p);
    g_string_append_printf(params, ", TensorInfo<%s, %u> t%u", storage_spelling(a->dtype),
                           a->ndim, p);
  }
  return true;
}

static bool emit_node(Gen *g, GString *s, const IrNode *n) {
  if (n->kind == IR_PRIM_CONSTANT || n->kind == IR_PRIM_CONSTANT_CHUNK)
    return true;
  if (n->kind == IR_PRIM_FUSED_CONCAT) {
    const IrValue *out = ir_output(n, 0);
    for (guint u = 0; u < out->uses->len; u++)
      if (g_array_index(out->uses, IrUse, u).user != g->graph->block->ret)
        return gen_fail(g, "a prim::FusedConcat result is used inside the group");
    return true;
  }
  IrDtype operand, result;
  if (!op_dtypes(g, n, &operand, &result))
    return false;
  const VInfo *vi = info_of(g, ir_output(n, 0));
  g_string_append_printf(s, "    %s n%u = ", compute_spelling(result), vi->var);
  if (!expand_expression(g, n, operand, s))
    return false;
  g_string_append(s, ";\n");
  return true;
}

static bool generate(Gen *g, const char *name, const guint *input_ndims,
                     const guint *output_ndims, CudaKernelSource *k) {
  if (!analyse(g))
    return false;
  GString *params = g_string_new(NULL);
  if (!declare_params(g, input_ndims, output_ndims, k->args, params)) {
    g_string_free(params, TRUE);
    return false;
  }
  bool half = false;
  for (guint p = 0; p < k->args->len; p++)
    half |= g_array_index(k->args, CudaKernelArg, p).dtype == IR_DTYPE_FLOAT16;
  GString *s = g_string_new("// jitscope: generated CUDA kernel for one fusion group\n");
  g_string_append(s, kernel_prelude);
  if (half)
    g_string_append(s, half_support);
  g_string_append_printf(s, "\nextern \"C\" __global__ void %s(IndexType numel%s) {\n", name,
                         params->str);
  g_string_free(params, TRUE);
  g_string_append(s, "  for (IndexType linear = blockIdx.x * blockDim.x + threadIdx.x; "
                     "linear < numel; linear += gridDim.x * blockDim.x) {\n");
  /* Offsets and loads of the inputs that are read. */
  for (guint p = 0; p < k->args->len; p++) {
    const CudaKernelArg *a = &g_array_index(k->args, CudaKernelArg, p);
    const IrValue *v = g_ptr_array_index(ir_graph_inputs(g->graph), a->index);
    if (a->is_output)
      break;
    if (a->piece >= 0)
      v = ir_output(g_array_index(v->uses, IrUse, 0).user, (guint)a->piece);
    if (!ir_value_has_uses(v))
      continue;
    emit_offset(s, p, a->ndim);
    emit_load(s, p, a->dtype, info_of(g, v)->var);
  }
  bool ok = true;
  IR_FOR_EACH_NODE(n, g->graph->block) {
    if (!(ok = emit_node(g, s, n)))
      break;
  }
  for (guint p = 0; ok && p < k->args->len; p++) {
    const CudaKernelArg *a = &g_array_index(k->args, CudaKernelArg, p);
    if (!a->is_output)
      continue;
    const IrValue *v = g_ptr_array_index(ir_graph_outputs(g->graph), a->index);
    if (a->piece >= 0)
      v = ir_input(v->node, (guint)a->piece);
    emit_offset(s, p, a->ndim);
    emit_store(s, p, a->dtype, info_of(g, v));
  }
  g_string_append(s, "  }\n}\n");
  if (!ok) {
    g_string_free(s, TRUE);
    return false;
  }
  k->source = g_string_free(s, FALSE);
  return true;
}

CudaKernelSource *cuda_codegen_kernel(const IrGraph *graph, const char *name,
                                      const IrDtype *input_dtypes, const guint *input_ndims,
                                      const guint *output_ndims, GError **error) {
  Gen g;
  gen_init(&g, graph, input_dtypes, error);
  CudaKernelSource *k = g_new0(CudaKernelSource, 1);
  k->name = g_strdup(name);
  k->args = g_array_new(FALSE, FALSE, sizeof(CudaKernelArg));
  k->output_dtypes = g_array_new(FALSE, FALSE, sizeof(IrDtype));
  bool ok = generate(&g, name, input_ndims, output_ndims, k);
  if (ok) {
    GPtrArray *outs = ir_graph_outputs(graph);
    for (guint o = 0; o < outs->len; o++)
      g_array_append_val(k->output_dtypes, info_of(&g, g_ptr_array_index(outs, o))->dtype);
  }
  g_hash_table_unref(g.info);
  if (!ok) {
    cuda_kernel_source_free(k);
    return NULL;
  }
  return k;
}

void cuda_kernel_source_free(CudaKernelSource *k) {
  if (k == NULL)
    return;
  g_free(k->name);
  g_free(k->source);
  g_array_unref(k->args);
  g_array_unref(k->output_dtypes);
  g_free(k);
}

/* --- canonical text --- */

static void canonical_attr(GString *s, const IrAttr *a) {
  g_string_append_printf(s, "%s=", a->name);
  switch (a->kind) {
  case IR_ATTR_I: g_string_append_printf(s, "%" G_GINT64_FORMAT, a->v.i); break;
  case IR_ATTR_F: g_string_append_printf(s, "%a", a->v.f); break;
  case IR_ATTR_S: g_string_append_printf(s, "\"%s\"", a->v.s); break;
  case IR_ATTR_IS:
    for (guint i = 0; i < a->v.is->len; i++)
      g_string_append_printf(s, "%s%" G_GINT64_FORMAT, i ? "," : "[",
                             g_array_index(a->v.is, gint64, i));
    g_string_append_c(s, ']');
    break;
  default: g_string_append_printf(s, "<kind %d>", (int)a->kind); break;
  }
}

char *cuda_codegen_canonical_text(const IrGraph *graph) {
  GHashTable *index = g_hash_table_new(g_direct_hash, g_direct_equal);
  GString *s = g_string_new("in(");
  GPtrArray *in = ir_graph_inputs(graph);
  guint next = 0;
  for (guint i = 0; i < in->len; i++) {
    const IrValue *v = g_ptr_array_index(in, i);
    g_hash_table_insert(index, (gpointer)v, GUINT_TO_POINTER(next++));
    g_string_append(s, i ? ", " : "");
    g_string_append(s, ir_type_is_tensor(v->type) ? "Tensor" : "int[]?");
  }
  g_string_append(s, ")\n");
  IR_FOR_EACH_NODE(n, graph->block) {
    for (guint o = 0; o < ir_n_outputs(n); o++) {
      g_hash_table_insert(index, ir_output(n, o), GUINT_TO_POINTER(next));
      g_string_append_printf(s, "%s%%%u", o ? ", " : "", next++);
    }
    g_string_append_printf(s, " = %s", n->schema ? n->schema->text : ir_kind_name(n->kind));
    for (guint a = 0; a < n->attrs->len; a++) {
      g_string_append(s, a ? ", " : "[");
      canonical_attr(s, &g_array_index(n->attrs, IrAttr, a));
      g_string_append(s, a + 1 == n->attrs->len ? "]" : "");
    }
    if (n->kind == IR_PRIM_CONSTANT) {
      g_string_append(s, " : ");
      ir_type_print(s, ir_output(n, 0)->type);
    }
    g_string_append_c(s, '(');
    for (guint i = 0; i < ir_n_inputs(n); i++)
      g_string_append_printf(s, "%s%%%u", i ? ", " : "",
                             GPOINTER_TO_UINT(g_hash_table_lookup(index, ir_input(n, i))));
    g_string_append(s, ")\n");
  }
  g_string_append(s, "return(");
  GPtrArray *outs = ir_graph_outputs(graph);
  for (guint o = 0; o < outs->len; o++)
    g_string_append_printf(s, "%s%%%u", o ? ", " : "",
                           GPOINTER_TO_UINT(g_hash_table_lookup(index, g_ptr_array_index(outs, o))));
  g_string_append(s, ")\n");
  g_hash_table_unref(index);
  return g_string_free(s, FALSE);
}
