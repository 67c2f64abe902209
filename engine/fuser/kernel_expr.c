/* Kernel-graph analysis and ops.def expression expansion shared by the CUDA and C code
 * generators (contract in kernel_expr.h). */
#include "fuser/kernel_expr.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ops.h"
#include "ir/scalar_expr.h"
#include "tensor/tensor.h"

bool kernel_analysis_fail(KernelAnalysis *ka, const char *format, ...) {
  va_list ap;
  va_start(ap, format);
  g_autofree char *msg = g_strdup_vprintf(format, ap);
  va_end(ap);
  g_set_error_literal(ka->error, ka->domain, ka->code, msg);
  return false;
}

guint kernel_graph_n_tensor_inputs(const IrGraph *graph) {
  GPtrArray *in = ir_graph_inputs(graph);
  guint n = 0;
  while (n < in->len && ir_type_is_tensor(((IrValue *)g_ptr_array_index(in, n))->type))
    n++;
  return n;
}

const IrNode *kernel_graph_chunk_of(const IrGraph *graph, guint i) {
  const IrValue *v = g_ptr_array_index(ir_graph_inputs(graph), i);
  for (guint u = 0; u < v->uses->len; u++) {
    const IrUse *use = &g_array_index(v->uses, IrUse, u);
    if (use->user->kind == IR_PRIM_CONSTANT_CHUNK)
      return use->user;
  }
  return NULL;
}

const KernelValue *kernel_analysis_value(const KernelAnalysis *ka, const IrValue *v) {
  return g_hash_table_lookup(ka->info, v);
}

static KernelValue *new_tensor(KernelAnalysis *ka, const IrValue *v, IrDtype dtype) {
  KernelValue *i = g_new0(KernelValue, 1);
  i->kind = KV_TENSOR;
  i->dtype = dtype;
  i->var = ka->next_var++;
  g_hash_table_insert(ka->info, (gpointer)v, i);
  return i;
}

static bool kernel_dtype_is_float(IrDtype d) {
  return d == IR_DTYPE_FLOAT32 || d == IR_DTYPE_FLOAT64 || d == IR_DTYPE_FLOAT16;
}

const char *kernel_compute_spelling(IrDtype d) {
  switch (d) {
  case IR_DTYPE_FLOAT64: return "double";
  case IR_DTYPE_INT64: return "long long";
  case IR_DTYPE_BOOL: return "bool";
  default: return "float";
  }
}

static void constant_info(KernelAnalysis *ka, const IrNode *n) {
  const IrValue *out = ir_output(n, 0);
  KernelValue *i = g_new0(KernelValue, 1);
  const IrAttr *a = ir_node_attr(n, IR_ATTR_VALUE);
  if (a == NULL)
    i->kind = KV_NONE;
  else if (a->kind == IR_ATTR_I) {
    i->kind = out->type->kind == IR_TYPE_BOOL    ? KV_BOOL
              : out->type->kind == IR_TYPE_FLOAT ? KV_FLOAT
                                                 : KV_INT;
    i->inum = a->v.i;
    i->num = (double)a->v.i;
  } else if (a->kind == IR_ATTR_F) {
    i->kind = KV_FLOAT;
    i->num = a->v.f;
  } else
    i->kind = KV_OTHER;
  g_hash_table_insert(ka->info, (gpointer)out, i);
}

/* Does schema argument `a` take part in type promotion? Tensors do; of the scalars the
 * second operand of binary ops ("other", "exponent") and clamp's bounds ("min", "max": a bool
 * tensor clamped to 0.5 is float32), as in PyTorch 1.13's result_type and the eager kernels
 * (kernels_binary.c params_promote). A None bound is no operand (kernel_node_dtypes). */
static bool promotes(const IrArgument *a) {
  if (ir_type_is_tensor(a->type))
    return true;
  static const char *const names[] = {"other", "exponent", "min", "max"};
  for (guint i = 0; i < G_N_ELEMENTS(names); i++)
    if (strcmp(a->name, names[i]) == 0)
      return true;
  return false;
}

bool kernel_node_dtypes(KernelAnalysis *ka, const IrNode *n, IrDtype *operand, IrDtype *result) {
  const IrSchema *s = n->schema;
  IrDtype dts[8];
  RtOperandClass cls[8];
  guint k = 0;
  guint first = n->kind == IR_ATEN_WHERE ? 1 : 0;
  for (guint a = first; a < ir_n_inputs(n) && a < s->n_args && k < 8; a++) {
    const KernelValue *i = kernel_analysis_value(ka, ir_input(n, a));
    if (!promotes(&s->args[a]) || i == NULL)
      continue;
    if (i->kind == KV_TENSOR) {
      dts[k] = i->dtype;
      cls[k++] = RT_OPERAND_TENSOR;
    } else if (i->kind == KV_INT || i->kind == KV_FLOAT || i->kind == KV_BOOL) {
      dts[k] = i->kind == KV_INT     ? IR_DTYPE_INT64
               : i->kind == KV_FLOAT ? IR_DTYPE_FLOAT64
                                     : IR_DTYPE_BOOL;
      cls[k++] = RT_OPERAND_NUMBER;
    }
  }
  if (k == 0)
    return kernel_analysis_fail(ka, "%s has no tensor operand", s->name);
  *operand = rt_result_type(k, dts, cls);
  if (n->kind == IR_ATEN_TYPE_AS) {
    const KernelValue *other = kernel_analysis_value(ka, ir_input(n, 1));
    *operand = kernel_analysis_value(ka, ir_input(n, 0))->dtype;
    *result = other && other->kind == KV_TENSOR ? other->dtype : *operand;
    return true;
  }
  IrDtypeRule rule = ir_op_def_dtype_rule(ir_node_op_def(n));
  if (rule == IR_DTYPE_RULE_FLOAT && !kernel_dtype_is_float(*operand))
    *operand = IR_DTYPE_FLOAT32; /* true division, float-only math */
  *result = rule == IR_DTYPE_RULE_BOOL ? IR_DTYPE_BOOL : *operand;
  return true;
}

static bool analyse(KernelAnalysis *ka) {
  const IrGraph *graph = ka->graph;
  GPtrArray *in = ir_graph_inputs(graph);
  for (guint i = 0; i < ka->n_tensor; i++)
    new_tensor(ka, g_ptr_array_index(in, i), ka->input_dtypes[i]);
  for (guint i = ka->n_tensor; i < in->len; i++) {
    KernelValue *v = g_new0(KernelValue, 1);
    v->kind = KV_OTHER;
    g_hash_table_insert(ka->info, g_ptr_array_index(in, i), v);
  }
  IR_FOR_EACH_NODE(n, graph->block) {
    if (n->kind == IR_PRIM_CONSTANT) {
      constant_info(ka, n);
    } else if (n->kind == IR_PRIM_CONSTANT_CHUNK) {
      IrValue *src = ir_input(n, 0);
      const KernelValue *si = kernel_analysis_value(ka, src);
      if (src->node != graph->block->param || si == NULL || si->kind != KV_TENSOR)
        return kernel_analysis_fail(ka,
                                    "prim::ConstantChunk must read a tensor input of the group");
      if (src->uses->len != 1)
        return kernel_analysis_fail(
            ka, "a chunked group input is used by more than its prim::ConstantChunk");
      IrDtype d = si->dtype;
      for (guint o = 0; o < ir_n_outputs(n); o++)
        new_tensor(ka, ir_output(n, o), d);
    } else if (n->kind == IR_PRIM_FUSED_CONCAT) {
      IrDtype d = IR_DTYPE_FLOAT32;
      for (guint a = 0; a < ir_n_inputs(n); a++) {
        const KernelValue *vi = kernel_analysis_value(ka, ir_input(n, a));
        if (vi == NULL || vi->kind != KV_TENSOR)
          return kernel_analysis_fail(ka, "prim::FusedConcat operand %u is not a tensor", a);
        d = a == 0 ? vi->dtype : rt_promote_types(d, vi->dtype);
      }
      new_tensor(ka, ir_output(n, 0), d);
    } else if (n->schema && ir_ops_def(n->schema->index)->pointwise) {
      for (guint a = 0; a < ir_n_inputs(n); a++) {
        const KernelValue *vi = kernel_analysis_value(ka, ir_input(n, a));
        if (vi == NULL || vi->kind == KV_OTHER)
          return kernel_analysis_fail(ka, "%s: operand %u is neither a tensor nor a constant",
                                      n->schema->name, a);
      }
      IrDtype operand, result;
      if (!kernel_node_dtypes(ka, n, &operand, &result))
        return false;
      new_tensor(ka, ir_output(n, 0), result);
    } else {
      return kernel_analysis_fail(ka, "%s is not an elementwise op the fuser can generate",
                                  ir_kind_name(n->kind));
    }
  }
  return true;
}

bool kernel_analysis_run(KernelAnalysis *ka, const IrGraph *graph, const IrDtype *input_dtypes,
                         GQuark domain, int code, GError **error) {
  ka->graph = graph;
  ka->n_tensor = kernel_graph_n_tensor_inputs(graph);
  ka->input_dtypes = input_dtypes;
  ka->info = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
  ka->next_var = 0;
  ka->domain = domain;
  ka->code = code;
  ka->error = error;
  return analyse(ka);
}

void kernel_analysis_clear(KernelAnalysis *ka) {
  if (ka->info)
    g_hash_table_unref(ka->info);
  ka->info = NULL;
}

/* --- literals and expressions --- */

char *kernel_float_literal(double v, IrDtype dtype) {
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
static char *operand_text(KernelAnalysis *ka, const IrNode *n, guint a, IrDtype operand) {
  bool clamp_bound = n->kind == IR_ATEN_CLAMP && (a == 1 || a == 2);
  if (a >= ir_n_inputs(n)) {
    const IrDefault *d = &n->schema->args[a].def;
    if (d->kind == IR_DEFAULT_INT)
      return g_strdup_printf("%" G_GINT64_FORMAT, d->i);
    if (d->kind == IR_DEFAULT_FLOAT)
      return kernel_float_literal(d->f, operand);
    if (d->kind == IR_DEFAULT_NONE && clamp_bound)
      return g_strdup(a == 1 ? "(-INFINITY)" : "INFINITY");
    return NULL;
  }
  const KernelValue *vi = kernel_analysis_value(ka, ir_input(n, a));
  switch (vi->kind) {
  case KV_TENSOR: {
    bool cond = n->kind == IR_ATEN_WHERE && a == 0;
    if (cond || strcmp(kernel_compute_spelling(vi->dtype), kernel_compute_spelling(operand)) == 0)
      return g_strdup_printf("n%u", vi->var);
    return g_strdup_printf("((%s)n%u)", kernel_compute_spelling(operand), vi->var);
  }
  case KV_BOOL: return g_strdup(vi->inum ? "true" : "false");
  case KV_INT:
    if (kernel_dtype_is_float(operand))
      return kernel_float_literal(vi->num, operand);
    if (vi->inum < 0)
      return g_strdup_printf("(%" G_GINT64_FORMAT "LL)", vi->inum);
    return g_strdup_printf("%" G_GINT64_FORMAT "%s", vi->inum, vi->inum > G_MAXINT32 ? "LL" : "");
  case KV_FLOAT: return kernel_float_literal(vi->num, operand);
  case KV_NONE:
    if (clamp_bound)
      return g_strdup(a == 1 ? "(-INFINITY)" : "INFINITY");
    return NULL;
  default: return NULL;
  }
}

/* CUDA spellings (KERNEL_SPELL_CUDA) where the C ones would not compile or would lose
 * precision on the device:
 * - With integral operands, C converts a math function's arguments to double; CUDA C++ has
 *   float and double overloads, and an int or bool argument matches both (nvrtc: "more than
 *   one instance of overloaded function fma"), so the first argument is cast to double.
 * - lgamma of float32/float16 computes in double: CUDA's lgammaf is documented within 6 ulps
 *   only away from its negative roots, and near them it is not (lgamma(-2.5) on an H200:
 *   -0.0562437773, 16 ulps from glibc's lgammaf, which PyTorch's CPU kernel calls). */
static bool computes_in_double_on_device(const char *name, gsize len) {
  return len == 6 && strncmp(name, "lgamma", 6) == 0;
}

bool kernel_expand_expression(KernelAnalysis *ka, const IrNode *n, IrDtype operand,
                              KernelSpelling spelling, GString *out) {
  const char *e = ir_ops_def(n->schema->index)->pointwise;
  bool single = operand == IR_DTYPE_FLOAT32 || operand == IR_DTYPE_FLOAT16;
  bool cuda = spelling == KERNEL_SPELL_CUDA;
  const char *text = e;
  /* Parenthesis depths at which a `(double)(` opened for a call's first argument closes. */
  int depth = 0, casts[16], n_casts = 0;
  while (*e) {
    int a, len;
    if (pw_text_is_arg(text, e, &a, &len)) {
      char *operand_src =
          (guint)a < n->schema->n_args ? operand_text(ka, n, (guint)a, operand) : NULL;
      if (operand_src == NULL)
        return kernel_analysis_fail(ka, "%s: no value for operand %d of its elementwise expression",
                                    n->schema->name, a);
      g_string_append(out, operand_src);
      g_free(operand_src);
      e += len;
    } else if (g_ascii_isalpha(*e) || *e == '_') {
      /* ops.def spells math with double functions; float code calls the float ones. */
      const char *start = e;
      while (g_ascii_isalnum(*e) || *e == '_')
        e++;
      gsize name_len = (gsize)(e - start);
      g_string_append_len(out, start, name_len);
      if (*e != '(' || pw_function_lookup(start, name_len) < 0)
        continue;
      bool in_double = cuda && (!kernel_dtype_is_float(operand) ||
                                (single && computes_in_double_on_device(start, name_len)));
      if (single && !in_double)
        g_string_append_c(out, 'f');
      if (in_double && n_casts < (int)G_N_ELEMENTS(casts)) {
        g_string_append(out, "((double)(");
        e++;
        casts[n_casts++] = ++depth;
      }
    } else {
      if (*e == '(')
        depth++;
      if ((*e == ',' || *e == ')') && n_casts > 0 && casts[n_casts - 1] == depth) {
        g_string_append_c(out, ')');
        n_casts--;
      }
      if (*e == ')')
        depth--;
      g_string_append_c(out, *e++);
    }
  }
  return true;
}

KernelSource *kernel_source_new(const char *name, guint arg_size) {
  KernelSource *k = g_new0(KernelSource, 1);
  k->name = g_strdup(name);
  k->args = g_array_new(FALSE, FALSE, arg_size);
  k->output_dtypes = g_array_new(FALSE, FALSE, sizeof(IrDtype));
  return k;
}

void kernel_source_free(KernelSource *k) {
  if (k == NULL)
    return;
  g_free(k->name);
  g_free(k->source);
  g_array_unref(k->args);
  g_array_unref(k->output_dtypes);
  g_free(k);
}
