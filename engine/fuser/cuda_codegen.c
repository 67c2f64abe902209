/* CUDA code generation for fusion groups (contract in cuda_codegen.h; reference section 5).
 * The layout follows PyTorch's fuser/codegen.cpp of 2019: a TensorInfo<T, N> record per
 * tensor, 32-bit indexing, a grid-stride loop, per-tensor offsets computed innermost dim first,
 * __ldg loads and one statement per node. */
#include "fuser/cuda_codegen.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuser/cuda_error.h"
#include "fuser/kernel_expr.h"
#include "ir/ops.h"
#include "runtime/scalar_math_source.h"
#include "tensor/tensor.h"

G_DEFINE_QUARK(jitscope - cuda - error - quark, jitscope_cuda_error)

/* The analysis and expression expansion are shared with the C backend (kernel_expr.h). */
typedef KernelValue VInfo;
typedef KernelAnalysis Gen;

#define gen_fail kernel_analysis_fail

static const VInfo *info_of(const Gen *g, const IrValue *v) {
  return kernel_analysis_value(g, v);
}

static const char *storage_spelling(IrDtype d) {
  return d == IR_DTYPE_FLOAT16 ? "__half" : kernel_compute_spelling(d);
}

guint cuda_codegen_n_tensor_inputs(const IrGraph *graph) {
  return kernel_graph_n_tensor_inputs(graph);
}

static bool analyse_graph(Gen *g, const IrGraph *graph, const IrDtype *input_dtypes,
                          GError **error) {
  return kernel_analysis_run(g, graph, input_dtypes, JITSCOPE_CUDA_ERROR, CUDA_ERROR_CODEGEN,
                             error);
}

bool cuda_codegen_output_dtypes(const IrGraph *graph, const IrDtype *input_dtypes, IrDtype *out,
                                GError **error) {
  Gen g = {0};
  bool ok = analyse_graph(&g, graph, input_dtypes, error);
  GPtrArray *outs = ir_graph_outputs(graph);
  for (guint o = 0; ok && o < outs->len; o++) {
    const VInfo *vi = info_of(&g, g_ptr_array_index(outs, o));
    if (vi == NULL || vi->kind != KV_TENSOR)
      ok = gen_fail(&g, "group output %u is not a tensor", o);
    else
      out[o] = vi->dtype;
  }
  kernel_analysis_clear(&g);
  return ok;
}

char *cuda_codegen_float_literal(double v, IrDtype dtype) {
  return kernel_float_literal(v, dtype);
}

/* --- the kernel --- */

static const char kernel_prelude[] = "typedef unsigned int IndexType;\n"
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

/* Device-only (PTX): a host compilation of the source (tests/cudaemu) brings its own. */
static const char half_support[] =
    "\n"
    "#ifdef __CUDA_ARCH__\n"
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
    "}\n"
    "#endif\n";

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
  const char *type = kernel_compute_spelling(dtype);
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
  else if (strcmp(kernel_compute_spelling(dtype), kernel_compute_spelling(value->dtype)) != 0)
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

/* Parameters: appends records to `args` and declarations to `params`. */
static bool declare_params(Gen *g, const guint *input_ndims, const guint *output_ndims,
                           GArray *args, GString *params) {
  for (guint i = 0; i < g->n_tensor; i++) {
    if (!check_rank(g, input_ndims[i], "input", i))
      return false;
    const IrNode *chunk = kernel_graph_chunk_of(g->graph, i);
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
    if (vi == NULL || vi->kind != KV_TENSOR)
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
    g_string_append_printf(params, ", TensorInfo<%s, %u> t%u", storage_spelling(a->dtype), a->ndim,
                           p);
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
  if (!kernel_node_dtypes(g, n, &operand, &result))
    return false;
  const VInfo *vi = info_of(g, ir_output(n, 0));
  g_string_append_printf(s, "    %s n%u = ", kernel_compute_spelling(result), vi->var);
  if (!kernel_expand_expression(g, n, operand, KERNEL_SPELL_CUDA, s))
    return false;
  g_string_append(s, ";\n");
  return true;
}

static bool generate(Gen *g, const char *name, const guint *input_ndims, const guint *output_ndims,
                     CudaKernelSource *k) {
  g_autoptr(GString) params = g_string_new(NULL);
  if (!declare_params(g, input_ndims, output_ndims, k->args, params))
    return false;
  bool half = false;
  for (guint p = 0; p < k->args->len; p++)
    half |= g_array_index(k->args, CudaKernelArg, p).dtype == IR_DTYPE_FLOAT16;
  g_autoptr(GString) s = g_string_new("// jitscope: generated CUDA kernel for one fusion group\n");
  g_string_append(s, kernel_prelude);
  if (half)
    g_string_append(s, half_support);
  gsize kernel_start = s->len;
  g_string_append_printf(s, "\nextern \"C\" __global__ void %s(IndexType numel%s) {\n", name,
                         params->str);
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
  if (!ok)
    return false;
  /* A kernel that calls digamma (an op the fuser leaves alone, run as a device op) gets its
   * one definition, which the eager kernels compile too. */
  if (strstr(s->str + kernel_start, "digamma") != NULL)
    g_string_insert(s, (gssize)kernel_start,
                    "\n" JITSCOPE_SCALAR_MATH_TEXT(static __device__) "\n");
  k->source = g_string_free(g_steal_pointer(&s), FALSE);
  return true;
}

CudaKernelSource *cuda_codegen_kernel(const IrGraph *graph, const char *name,
                                      const IrDtype *input_dtypes, const guint *input_ndims,
                                      const guint *output_ndims, GError **error) {
  Gen g = {0};
  bool analysed = analyse_graph(&g, graph, input_dtypes, error);
  CudaKernelSource *k = kernel_source_new(name, sizeof(CudaKernelArg));
  bool ok = analysed && generate(&g, name, input_ndims, output_ndims, k);
  if (ok) {
    GPtrArray *outs = ir_graph_outputs(graph);
    for (guint o = 0; o < outs->len; o++)
      g_array_append_val(k->output_dtypes, info_of(&g, g_ptr_array_index(outs, o))->dtype);
  }
  kernel_analysis_clear(&g);
  if (!ok) {
    kernel_source_free(k);
    return NULL;
  }
  return k;
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
  g_autoptr(GHashTable) index = g_hash_table_new(g_direct_hash, g_direct_equal);
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
    for (guint a = 0; a < ir_n_attrs(n); a++) {
      g_string_append(s, a ? ", " : "[");
      canonical_attr(s, ir_attr_at(n, a));
      g_string_append(s, a + 1 == ir_n_attrs(n) ? "]" : "");
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
    g_string_append_printf(
        s, "%s%%%u", o ? ", " : "",
        GPOINTER_TO_UINT(g_hash_table_lookup(index, g_ptr_array_index(outs, o))));
  g_string_append(s, ")\n");
  return g_string_free(s, FALSE);
}
