/* C code generation for fusion groups (contract in cpu_codegen.h). */
#include "fuser/cpu_codegen.h"

#include <string.h>

#include "fuser/kernel_expr.h"
#include "ir/ops.h"
#include "ir/scalar_expr.h"
#include "tensor/tensor.h"

/* glibc's libmvec has vector variants of these (x86-64, glibc >= 2.35), float and double. */

static bool analyse(KernelAnalysis *ka, const IrGraph *graph, const IrDtype *input_dtypes,
                    GError **error) {
  guint n = kernel_graph_n_tensor_inputs(graph);
  for (guint i = 0; i < n; i++)
    if (input_dtypes[i] != IR_DTYPE_FLOAT32 && input_dtypes[i] != IR_DTYPE_FLOAT64 &&
        input_dtypes[i] != IR_DTYPE_INT64 && input_dtypes[i] != IR_DTYPE_BOOL) {
      g_set_error(error, JITSCOPE_RUNTIME_ERROR, RT_ERROR_VALUE, "C backend: input %u has dtype %s",
                  i, ir_dtype_name(input_dtypes[i]));
      return false;
    }
  return kernel_analysis_run(ka, graph, input_dtypes, JITSCOPE_RUNTIME_ERROR, RT_ERROR_VALUE,
                             error);
}

static void add_arg(GArray *args, bool is_output, guint index, int piece, int n_pieces, int dim,
                    IrDtype dtype, bool used) {
  CpuKernelArg a = {is_output, index, piece, n_pieces, dim, dtype, used};
  g_array_append_val(args, a);
}

static bool collect_operands(KernelAnalysis *ka, CpuKernelSource *k) {
  const IrGraph *graph = ka->graph;
  for (guint i = 0; i < ka->n_tensor; i++) {
    const IrValue *v = g_ptr_array_index(ir_graph_inputs(graph), i);
    const IrNode *chunk = kernel_graph_chunk_of(graph, i);
    if (chunk == NULL) {
      add_arg(k->args, false, i, -1, 0, -1, ka->input_dtypes[i], ir_value_has_uses(v));
      continue;
    }
    int pieces = (int)ir_n_outputs(chunk);
    for (int p = 0; p < pieces; p++)
      add_arg(k->args, false, i, p, pieces, (int)ir_node_attr_i(chunk, IR_ATTR_DIM),
              ka->input_dtypes[i], ir_value_has_uses(ir_output(chunk, (guint)p)));
  }
  GPtrArray *outs = ir_graph_outputs(graph);
  for (guint o = 0; o < outs->len; o++) {
    const IrValue *v = g_ptr_array_index(outs, o);
    const KernelValue *vi = kernel_analysis_value(ka, v);
    if (vi == NULL || vi->kind != KV_TENSOR)
      return kernel_analysis_fail(ka, "group output %u is not a tensor", o);
    if (vi->dtype == IR_DTYPE_FLOAT16)
      return kernel_analysis_fail(ka, "group output %u is float16", o);
    g_array_append_val(k->output_dtypes, vi->dtype);
    if (v->node->kind == IR_PRIM_FUSED_CONCAT) {
      int pieces = (int)ir_n_inputs(v->node);
      if (pieces == 0) /* no kernel writes it: the interpreter's cat says why */
        return kernel_analysis_fail(ka, "group output %u concatenates nothing", o);
      for (int p = 0; p < pieces; p++)
        add_arg(k->args, true, o, p, pieces, (int)ir_node_attr_i(v->node, IR_ATTR_DIM), vi->dtype,
                true);
    } else {
      add_arg(k->args, true, o, -1, 0, -1, vi->dtype, true);
    }
  }
  IR_FOR_EACH_NODE(n, graph->block) {
    if (n->kind != IR_PRIM_FUSED_CONCAT)
      continue;
    const IrValue *out = ir_output(n, 0);
    for (guint u = 0; u < out->uses->len; u++)
      if (g_array_index(out->uses, IrUse, u).user != graph->block->ret)
        return kernel_analysis_fail(ka, "a prim::FusedConcat result is used inside the group");
  }
  return true;
}

CpuKernelSource *cpu_codegen_operands(const IrGraph *graph, const IrDtype *input_dtypes,
                                      GError **error) {
  KernelAnalysis ka = {0};
  CpuKernelSource *k = kernel_source_new("", sizeof(CpuKernelArg));
  bool ok = analyse(&ka, graph, input_dtypes, error) && collect_operands(&ka, k);
  kernel_analysis_clear(&ka);
  if (!ok) {
    kernel_source_free(k);
    return NULL;
  }
  return k;
}

static const char *dtype_code(IrDtype d) {
  switch (d) {
  case IR_DTYPE_FLOAT32: return "f32";
  case IR_DTYPE_FLOAT64: return "f64";
  case IR_DTYPE_INT64: return "i64";
  case IR_DTYPE_BOOL: return "b8";
  default: return "?";
  }
}

char *cpu_codegen_signature_key(const GArray *args, const CpuInner *inner, const bool *accumulate,
                                guint rank) {
  GString *s = g_string_new(NULL);
  bool outputs = false;
  for (guint p = 0; p < args->len; p++) {
    const CpuKernelArg *a = &g_array_index(args, CpuKernelArg, p);
    if (a->is_output && !outputs) {
      g_string_append(s, s->len ? " ->" : "->");
      outputs = true;
    }
    g_string_append_printf(s, "%s%s%c%s", s->len ? " " : "", dtype_code(a->dtype), (char)inner[p],
                           accumulate && accumulate[p] ? "+" : "");
  }
  g_string_append_printf(s, " @%u", rank);
  return g_string_free(s, FALSE);
}

/* The C type an operand is stored as. */
static const char *storage_spelling(IrDtype d) {
  return d == IR_DTYPE_BOOL ? "unsigned char" : kernel_compute_spelling(d);
}

/* Math functions the expressions call, for the libmvec declarations. */
static void collect_math(const IrGraph *graph, KernelAnalysis *ka, GHashTable *used) {
  IR_FOR_EACH_NODE(n, graph->block) {
    if (!n->schema || !ir_ops_def(n->schema->index)->pointwise)
      continue;
    IrDtype operand, result;
    if (!kernel_node_dtypes(ka, n, &operand, &result))
      continue;
    const char *e = ir_ops_def(n->schema->index)->pointwise;
    for (int fn; (fn = pw_text_next_function(&e)) >= 0;) {
      if (!pw_function(fn)->vector)
        continue;
      const char *name = pw_function(fn)->name;
      bool single = operand != IR_DTYPE_FLOAT64;
      const char *t = single ? "float" : "double";
      char *decl = pw_function(fn)->arity == 2
                       ? g_strdup_printf("%s %s%s(%s, %s);", t, name, single ? "f" : "", t, t)
                       : g_strdup_printf("%s %s%s(%s);", t, name, single ? "f" : "", t);
      g_hash_table_add(used, decl);
    }
  }
}

static gint compare_strings(gconstpointer a, gconstpointer b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void emit_prelude(GString *s, const IrGraph *graph, KernelAnalysis *ka) {
  g_string_append(s, "/* jitscope: generated C for one fusion group */\n"
                     "#include <math.h>\n"
                     "#include <stdbool.h>\n"
                     "#include <stdint.h>\n");
  g_autoptr(GHashTable) used = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  collect_math(graph, ka, used);
  if (g_hash_table_size(used) > 0) {
    g_autoptr(GPtrArray) decls = g_ptr_array_new();
    GHashTableIter it;
    gpointer key;
    g_hash_table_iter_init(&it, used);
    while (g_hash_table_iter_next(&it, &key, NULL))
      g_ptr_array_add(decls, key);
    g_ptr_array_sort(decls, compare_strings); /* a deterministic source */
    g_string_append(s, "#ifndef JITSCOPE_NO_MVEC\n");
    for (guint i = 0; i < decls->len; i++)
      g_string_append_printf(s, "__attribute__((__simd__(\"notinbranch\"))) %s\n",
                             (const char *)decls->pdata[i]);
    g_string_append(s, "#endif\n");
  }
}

/* The value an operand carries: a group input, a chunk piece, an output or concat piece. */
static const IrValue *operand_value(const IrGraph *graph, const CpuKernelArg *a) {
  if (a->is_output) {
    const IrValue *v = g_ptr_array_index(ir_graph_outputs(graph), a->index);
    return a->piece >= 0 ? ir_input(v->node, (guint)a->piece) : v;
  }
  const IrValue *v = g_ptr_array_index(ir_graph_inputs(graph), a->index);
  if (a->piece >= 0)
    v = ir_output(kernel_graph_chunk_of(graph, a->index), (guint)a->piece);
  return v;
}

static bool passed(const CpuKernelArg *a) {
  return a->is_output || a->used;
}

/* What an operand is: the layout and store mode of one kernel. */
typedef struct {
  const CpuInner *inner;
  const bool *accumulate; /* NULL: every output stores */
} Layout;

static bool accumulates(const Layout *l, guint p) {
  return l->accumulate && l->accumulate[p];
}

/* The C type operand p is passed as: an accumulating output's buffer is double. */
static const char *operand_spelling(const Layout *l, const CpuKernelArg *a, guint p) {
  return accumulates(l, p) ? "double" : storage_spelling(a->dtype);
}

/* The row function's parameters: n, a restrict pointer per operand read or written, the
 * innermost stride of each strided one. */
static void emit_row_params(GString *s, const CpuKernelSource *k, const Layout *l) {
  g_string_append(s, "static void jitscope_row(int64_t n");
  for (guint p = 0; p < k->args->len; p++) {
    const CpuKernelArg *a = &g_array_index(k->args, CpuKernelArg, p);
    if (passed(a))
      g_string_append_printf(s, ", %s%s *restrict t%u", a->is_output ? "" : "const ",
                             operand_spelling(l, a, p), p);
  }
  for (guint p = 0; p < k->args->len; p++)
    if (passed(&g_array_index(k->args, CpuKernelArg, p)) && l->inner[p] == CPU_INNER_STRIDED)
      g_string_append_printf(s, ", int64_t s%u", p);
  g_string_append(s, ") {\n");
}

/* The call of the row function at linear index `start` (rank 1) or the N-d index. */
static void emit_row_call(GString *s, const CpuKernelSource *k, const Layout *l, guint rank,
                          const char *indent) {
  g_string_append_printf(s, "%sjitscope_row(n", indent);
  for (guint p = 0; p < k->args->len; p++) {
    const CpuKernelArg *a = &g_array_index(k->args, CpuKernelArg, p);
    if (!passed(a))
      continue;
    const char *type = operand_spelling(l, a, p);
    g_string_append_printf(s, ",\n%s    (%s%s *)data[%u]", indent, a->is_output ? "" : "const ",
                           type, p);
    if (rank == 1)
      g_string_append_printf(s, " + start * strides[%u]", p);
    for (guint d = 0; rank > 1 && d < rank; d++)
      g_string_append_printf(s, " + index[%u] * strides[%u]", d, p * rank + d);
  }
  for (guint p = 0; p < k->args->len; p++)
    if (passed(&g_array_index(k->args, CpuKernelArg, p)) && l->inner[p] == CPU_INNER_STRIDED)
      g_string_append_printf(s, ", strides[%u]", p * rank + rank - 1);
  g_string_append(s, ");\n");
}

static const char *element(GString *buf, guint p, CpuInner inner) {
  g_string_truncate(buf, 0);
  switch (inner) {
  case CPU_INNER_CONTIGUOUS: g_string_printf(buf, "t%u[i]", p); break;
  case CPU_INNER_BROADCAST: g_string_printf(buf, "t%u[0]", p); break;
  case CPU_INNER_STRIDED: g_string_printf(buf, "t%u[i * s%u]", p, p); break;
  }
  return buf->str;
}

static bool emit_body(KernelAnalysis *ka, GString *s, const CpuKernelSource *k, const Layout *l) {
  const IrGraph *graph = ka->graph;
  const CpuInner *inner = l->inner;
  g_autoptr(GString) el = g_string_new(NULL);
  /* Broadcast inputs: loaded once per row. */
  for (guint p = 0; p < k->args->len; p++) {
    const CpuKernelArg *a = &g_array_index(k->args, CpuKernelArg, p);
    if (a->is_output || !a->used || inner[p] != CPU_INNER_BROADCAST)
      continue;
    const KernelValue *vi = kernel_analysis_value(ka, operand_value(graph, a));
    g_string_append_printf(s, "  const %s n%u = %s%s;\n", kernel_compute_spelling(a->dtype),
                           vi->var, element(el, p, inner[p]),
                           a->dtype == IR_DTYPE_BOOL ? " != 0" : "");
  }
  /* A row summed into one element: a local sum, added once. */
  for (guint p = 0; p < k->args->len; p++)
    if (accumulates(l, p) && inner[p] == CPU_INNER_BROADCAST)
      g_string_append_printf(s, "  double r%u = 0;\n", p);
  g_string_append(s, "  for (int64_t i = 0; i < n; i++) {\n");
  for (guint p = 0; p < k->args->len; p++) {
    const CpuKernelArg *a = &g_array_index(k->args, CpuKernelArg, p);
    if (a->is_output || !a->used || inner[p] == CPU_INNER_BROADCAST)
      continue;
    const KernelValue *vi = kernel_analysis_value(ka, operand_value(graph, a));
    g_string_append_printf(s, "    %s n%u = %s%s;\n", kernel_compute_spelling(a->dtype), vi->var,
                           element(el, p, inner[p]), a->dtype == IR_DTYPE_BOOL ? " != 0" : "");
  }
  bool ok = true;
  IR_FOR_EACH_NODE(n, graph->block) {
    if (n->kind == IR_PRIM_CONSTANT || n->kind == IR_PRIM_CONSTANT_CHUNK ||
        n->kind == IR_PRIM_FUSED_CONCAT)
      continue;
    IrDtype operand, result;
    if (!(ok = kernel_node_dtypes(ka, n, &operand, &result)))
      break;
    const KernelValue *vi = kernel_analysis_value(ka, ir_output(n, 0));
    g_string_append_printf(s, "    %s n%u = ", kernel_compute_spelling(result), vi->var);
    if (!(ok = kernel_expand_expression(ka, n, operand, KERNEL_SPELL_C, s)))
      break;
    g_string_append(s, ";\n");
  }
  for (guint p = 0; ok && p < k->args->len; p++) {
    const CpuKernelArg *a = &g_array_index(k->args, CpuKernelArg, p);
    if (!a->is_output)
      continue;
    const KernelValue *vi = kernel_analysis_value(ka, operand_value(graph, a));
    if (accumulates(l, p)) {
      if (inner[p] == CPU_INNER_BROADCAST)
        g_string_append_printf(s, "    r%u += (double)n%u;\n", p, vi->var);
      else
        g_string_append_printf(s, "    %s += (double)n%u;\n", element(el, p, inner[p]), vi->var);
      continue;
    }
    bool cast = strcmp(kernel_compute_spelling(vi->dtype), storage_spelling(a->dtype)) != 0;
    g_string_append_printf(s, "    %s = %s%s%sn%u;\n", element(el, p, inner[p]), cast ? "(" : "",
                           cast ? storage_spelling(a->dtype) : "", cast ? ")" : "", vi->var);
  }
  g_string_append(s, "  }\n");
  for (guint p = 0; p < k->args->len; p++)
    if (accumulates(l, p) && inner[p] == CPU_INNER_BROADCAST)
      g_string_append_printf(s, "  t%u[0] += r%u;\n", p, p);
  g_string_append(s, "}\n");
  return ok;
}

static bool generate(KernelAnalysis *ka, CpuKernelSource *k, const Layout *l, guint rank) {
  if (rank == 0 || rank > IR_MAX_RANK)
    return kernel_analysis_fail(ka, "a merged rank of %u is outside [1, %d]", rank, IR_MAX_RANK);
  g_autoptr(GString) s = g_string_new(NULL);
  emit_prelude(s, ka->graph, ka);
  g_string_append_c(s, '\n');
  emit_row_params(s, k, l);
  if (!emit_body(ka, s, k, l))
    return false;
  g_string_append_printf(s,
                         "\nvoid %s(int64_t start, int64_t end, const int64_t *sizes, "
                         "char *const *data, const int64_t *strides) {\n",
                         k->name);
  guint last = rank - 1;
  if (rank == 1) {
    g_string_append(s, "  const int64_t n = end - start;\n");
    emit_row_call(s, k, l, rank, "  ");
  } else {
    g_string_append_printf(s, "  int64_t index[%u];\n  int64_t rest = start;\n", rank);
    for (guint d = last; d > 0; d--)
      g_string_append_printf(s, "  index[%u] = rest %% sizes[%u];\n  rest /= sizes[%u];\n", d, d,
                             d);
    g_string_append(s, "  index[0] = rest;\n");
    g_string_append(s, "  for (int64_t linear = start; linear < end;) {\n");
    g_string_append_printf(s, "    int64_t n = sizes[%u] - index[%u];\n", last, last);
    g_string_append(s, "    if (n > end - linear)\n      n = end - linear;\n");
    emit_row_call(s, k, l, rank, "    ");
    g_string_append_printf(s, "    linear += n;\n    index[%u] = 0;\n", last);
    g_string_append_printf(s, "    for (int d = %u; d >= 0 && ++index[d] == sizes[d]; d--)\n",
                           last - 1);
    g_string_append(s, "      index[d] = 0;\n  }\n");
  }
  g_string_append(s, "}\n");
  k->source = g_string_free(g_steal_pointer(&s), FALSE);
  return true;
}

CpuKernelSource *cpu_codegen_kernel(const IrGraph *graph, const char *name,
                                    const IrDtype *input_dtypes, const CpuInner *inner,
                                    const bool *accumulate, guint rank, GError **error) {
  KernelAnalysis ka = {0};
  CpuKernelSource *k = kernel_source_new(name, sizeof(CpuKernelArg));
  Layout layout = {inner, accumulate};
  bool ok = analyse(&ka, graph, input_dtypes, error) && collect_operands(&ka, k) &&
            generate(&ka, k, &layout, rank);
  kernel_analysis_clear(&ka);
  if (!ok) {
    kernel_source_free(k);
    return NULL;
  }
  return k;
}
