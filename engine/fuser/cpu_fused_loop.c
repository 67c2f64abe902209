/* The CPU fused loop: runs a FusionGroup (fuser.h conventions) in one pass over the map size.
 * The Subgraph is compiled once into a flat program of slots (loads of inputs and chunk
 * pieces, constants, one slot per pointwise node evaluating its ops.def expression AST);
 * the loop walks the map in blocks of PW_BLOCK elements, evaluates every slot column-wise in
 * double (rounding to the node's dtype after each node), or in float with the float math
 * functions when every load, node and store is float32 or bool (as the generated kernels
 * compute float32 groups), and stores only the group outputs.
 * Two threads (the caller and the pool worker of cpu_compile.h) split the elements when the
 * map is large and more than one CPU is online. */
#include <math.h>
#include <string.h>

#include "fuser/cpu_compile.h"
#include "fuser/fuser.h"
#include "fuser/pointwise_expr.h"
#include "ir/ops.h"
#include "runtime/interpreter.h"
#include "tensor/memory_budget.h"

#define PARALLEL_MIN_NUMEL 32768
#define MAX_OPERANDS 128

typedef enum { SLOT_INPUT, SLOT_CHUNK, SLOT_CONST, SLOT_NODE } SlotKind;

typedef struct {
  SlotKind kind;
  int input;             /* SLOT_INPUT / SLOT_CHUNK: group input index */
  int piece, chunks;     /* SLOT_CHUNK */
  gint64 dim;            /* SLOT_CHUNK (unwrapped) */
  double value;          /* SLOT_CONST */
  const PwExpr *expr;    /* SLOT_NODE */
  int args[PW_MAX_ARGS]; /* slot per expression argument */
  IrDtype dtype;         /* SLOT_NODE result dtype (rounding) */
  bool has_dtype;
} Slot;

typedef struct {
  int slot;
  int piece, n_pieces; /* FusedConcat: which input of the concat, how many */
  gint64 dim;          /* FusedConcat dim (unwrapped), else 0 */
  IrDtype dtype;
  bool has_dtype;
} OutSpec;

typedef struct {
  GArray *slots;   /* of Slot */
  GArray *outputs; /* of OutSpec, one per group output ... */
  GArray *out_of;  /* of int: group output -> first OutSpec index */
  guint n_group_outputs;
} CpuProgram;

/* ---------------- expressions, parsed once per op-table row ---------------- */

static PwExpr **expr_table;

static gpointer parse_all_exprs(gpointer unused) {
  (void)unused;
  guint n = ir_ops_count();
  PwExpr **table = g_new0(PwExpr *, n);
  for (guint i = 0; i < n; i++) {
    const char *text = ir_ops_def(i)->pointwise;
    if (!text)
      continue;
    GError *error = NULL;
    table[i] = pw_expr_parse(text, false, &error);
    if (!table[i])
      g_error("fuser invariant: ops.def expression does not parse: %s", error->message);
  }
  return table;
}

static const PwExpr *expr_for(const IrSchema *schema) {
  static GOnce once = G_ONCE_INIT;
  expr_table = g_once(&once, parse_all_exprs, NULL);
  return schema ? expr_table[schema->index] : NULL;
}

/* ---------------- compile ---------------- */

static void program_free(gpointer p) {
  CpuProgram *prog = p;
  if (!prog)
    return;
  g_array_free(prog->slots, TRUE);
  g_array_free(prog->outputs, TRUE);
  g_array_free(prog->out_of, TRUE);
  g_free(prog);
}

static bool compile_fail(GError **error, const IrNode *node, const char *why) {
  g_set_error(error, JITSCOPE_RUNTIME_ERROR, RT_ERROR_VALUE, "CPU fused loop: %s: %s",
              node ? ir_kind_name(node->kind) : "group", why);
  return false;
}

static bool constant_number(const IrNode *k, double *out) {
  const IrAttr *a = ir_node_attr(k, g_intern_static_string(IR_ATTR_VALUE));
  if (!a) {
    *out = NAN; /* None (clamp without a bound): every comparison with it is false */
    return true;
  }
  if (a->kind == IR_ATTR_I)
    *out = (double)a->v.i;
  else if (a->kind == IR_ATTR_F)
    *out = a->v.f;
  else
    return false;
  return true;
}

static void *program_create(const IrNode *group, GError **error) {
  IrGraph *body = ir_node_attr_g(group, IR_ATTR_SUBGRAPH);
  CpuProgram *prog = g_new0(CpuProgram, 1);
  prog->slots = g_array_new(FALSE, TRUE, sizeof(Slot));
  prog->outputs = g_array_new(FALSE, TRUE, sizeof(OutSpec));
  prog->out_of = g_array_new(FALSE, TRUE, sizeof(int));
  GHashTable *slot_of = g_hash_table_new(NULL, NULL); /* IrValue* -> slot + 1 */
  GPtrArray *inputs = ir_graph_inputs(body);
  bool ok = true;
  for (guint i = 0; i < inputs->len; i++) {
    IrValue *v = g_ptr_array_index(inputs, i);
    bool direct = false; /* read other than through chunks: counts for the map size */
    for (guint u = 0; u < v->uses->len; u++)
      direct |= g_array_index(v->uses, IrUse, u).user->kind != IR_PRIM_CONSTANT_CHUNK;
    if (!ir_type_is_tensor(v->type) || !direct)
      continue;
    Slot s = {.kind = SLOT_INPUT, .input = (int)i};
    g_array_append_val(prog->slots, s);
    g_hash_table_insert(slot_of, v, GINT_TO_POINTER(prog->slots->len));
  }
  IR_FOR_EACH_NODE(n, body->block) {
    if (!ok)
      break;
    if (n->kind == IR_PRIM_CONSTANT) {
      Slot s = {.kind = SLOT_CONST};
      if (ir_type_is_tensor(ir_output(n, 0)->type) || !constant_number(n, &s.value))
        continue; /* only numbers feed expressions; anything else is rejected at its user */
      g_array_append_val(prog->slots, s);
      g_hash_table_insert(slot_of, ir_output(n, 0), GINT_TO_POINTER(prog->slots->len));
      continue;
    }
    if (n->kind == IR_PRIM_CONSTANT_CHUNK) {
      IrValue *in = ir_input(n, 0);
      guint index = 0;
      for (; index < inputs->len && g_ptr_array_index(inputs, index) != in; index++)
        ;
      if (index == inputs->len) {
        ok = compile_fail(error, n, "the chunked tensor is not a group input");
        break;
      }
      for (guint k = 0; k < ir_n_outputs(n); k++) {
        Slot s = {.kind = SLOT_CHUNK,
                  .input = (int)index,
                  .piece = (int)k,
                  .chunks = (int)ir_node_attr_i(n, IR_ATTR_CHUNKS),
                  .dim = ir_node_attr_i(n, IR_ATTR_DIM)};
        g_array_append_val(prog->slots, s);
        g_hash_table_insert(slot_of, ir_output(n, k), GINT_TO_POINTER(prog->slots->len));
      }
      continue;
    }
    if (n->kind == IR_PRIM_FUSED_CONCAT)
      continue; /* handled at the outputs */
    const PwExpr *expr = expr_for(n->schema);
    if (!expr || ir_n_outputs(n) != 1) {
      ok = compile_fail(error, n, "not a pointwise op");
      break;
    }
    Slot s = {.kind = SLOT_NODE, .expr = expr};
    const IrType *ot = ir_output(n, 0)->type;
    s.has_dtype = ot->kind == IR_TYPE_TENSOR && ot->has_dtype;
    s.dtype = ot->dtype;
    int n_args = pw_expr_n_args(expr);
    for (int k = 0; k < n_args && ok; k++) {
      if ((guint)k < ir_n_inputs(n)) {
        int slot = GPOINTER_TO_INT(g_hash_table_lookup(slot_of, ir_input(n, k)));
        if (!slot)
          ok = compile_fail(error, n, "an input is neither a tensor, a chunk nor a number");
        s.args[k] = slot - 1;
      } else {
        const IrDefault *d = &n->schema->args[k].def;
        Slot c = {.kind = SLOT_CONST};
        c.value = d->kind == IR_DEFAULT_INT     ? (double)d->i
                  : d->kind == IR_DEFAULT_FLOAT ? d->f
                                                : NAN;
        g_array_append_val(prog->slots, c);
        s.args[k] = (int)prog->slots->len - 1;
      }
    }
    g_array_append_val(prog->slots, s);
    g_hash_table_insert(slot_of, ir_output(n, 0), GINT_TO_POINTER(prog->slots->len));
  }
  GPtrArray *outs = ir_graph_outputs(body);
  for (guint i = 0; ok && i < outs->len; i++) {
    IrValue *v = g_ptr_array_index(outs, i);
    int first = (int)prog->outputs->len;
    g_array_append_val(prog->out_of, first);
    const IrType *t = v->type;
    OutSpec o = {
        .has_dtype = t->kind == IR_TYPE_TENSOR && t->has_dtype, .dtype = t->dtype, .n_pieces = 1};
    if (v->node->kind == IR_PRIM_FUSED_CONCAT) {
      o.n_pieces = (int)ir_n_inputs(v->node);
      o.dim = ir_node_attr_i(v->node, IR_ATTR_DIM);
      if (o.n_pieces == 0) /* the interpreter's cat says why */
        ok = compile_fail(error, v->node, "a concatenation of nothing");
      for (int k = 0; k < o.n_pieces && ok; k++) {
        o.piece = k;
        o.slot = GPOINTER_TO_INT(g_hash_table_lookup(slot_of, ir_input(v->node, k))) - 1;
        if (o.slot < 0)
          ok = compile_fail(error, v->node, "a concatenated value is not computed in the group");
        g_array_append_val(prog->outputs, o);
      }
    } else {
      o.slot = GPOINTER_TO_INT(g_hash_table_lookup(slot_of, v)) - 1;
      if (o.slot < 0)
        ok = compile_fail(error, v->node, "an output is not computed in the group");
      g_array_append_val(prog->outputs, o);
    }
  }
  prog->n_group_outputs = outs->len;
  g_hash_table_destroy(slot_of);
  if (!ok) {
    program_free(prog);
    return NULL;
  }
  return prog;
}

/* ---------------- run ---------------- */

typedef struct {
  const CpuProgram *prog;
  bool single; /* computes in float */
  int ndim;
  int64_t sizes[RT_MAX_DIMS];
  int n_loads, n_stores;
  int load_slot[MAX_OPERANDS];
  char *load_base[MAX_OPERANDS];
  IrDtype load_dtype[MAX_OPERANDS];
  int64_t load_strides[MAX_OPERANDS][RT_MAX_DIMS]; /* elements */
  int store_slot[MAX_OPERANDS];
  char *store_base[MAX_OPERANDS];
  IrDtype store_dtype[MAX_OPERANDS];
  int64_t store_strides[MAX_OPERANDS][RT_MAX_DIMS];
} Loop;

static double load_one(const char *p, IrDtype dtype) {
  switch (dtype) {
  case IR_DTYPE_FLOAT32: return *(const float *)p;
  case IR_DTYPE_FLOAT64: return *(const double *)p;
  default: return rt_load_element(p, dtype);
  }
}

static double round_to(double x, IrDtype dtype) {
  switch (dtype) {
  case IR_DTYPE_FLOAT32: return (float)x;
  case IR_DTYPE_FLOAT16: return rt_half_to_float(rt_double_to_half(x));
  case IR_DTYPE_BOOL: return x != 0;
  case IR_DTYPE_INT64: return (double)rt_double_to_int64(x);
  default: return x;
  }
}

/* Where the block at flat index `idx` starts (the counter of every dim) and how long it is:
 * it stops at the end of the innermost dim, at `end` and at PW_BLOCK. */
static int64_t block_at(const Loop *L, int64_t idx, int64_t end, int64_t *counter) {
  int nd = L->ndim;
  int64_t rest = idx;
  for (int d = nd - 1; d >= 0; d--) {
    counter[d] = rest % L->sizes[d];
    rest /= L->sizes[d];
  }
  return MIN(MIN(L->sizes[nd - 1] - counter[nd - 1], end - idx), PW_BLOCK);
}

/* The address of an operand's element at `counter` (strides in elements). */
static char *element_at(char *base, const int64_t *strides, IrDtype dtype, const int64_t *counter,
                        int nd) {
  int64_t off = 0;
  for (int d = 0; d < nd; d++)
    off += counter[d] * strides[d];
  return base + off * (int64_t)rt_dtype_size(dtype);
}

/* The block strides of a node slot's arguments (0: one value stands for the whole block);
 * whether any of them varies. */
static bool slot_arg_strides(const Slot *sl, const int *stride, int *arg_strides) {
  int any = 0;
  for (int a = 0; a < pw_expr_n_args(sl->expr); a++) {
    arg_strides[a] = stride[sl->args[a]];
    any |= arg_strides[a];
  }
  return any != 0;
}

/* One slot's buffer of PW_BLOCK values: doubles, or floats when the loop computes in float
 * (Loop.single). */
static char *slot_block(char *buf, size_t width, guint slot) {
  return buf + (gsize)slot * PW_BLOCK * width;
}

static double slot_get(const char *block, bool single, int64_t i) {
  return single ? ((const float *)block)[i] : ((const double *)block)[i];
}

static void slot_put(char *block, bool single, int64_t i, double v) {
  if (single)
    ((float *)block)[i] = (float)v;
  else
    ((double *)block)[i] = v;
}

/* Elements [start, end) of the loop, a block at a time: loads into their slots, every node
 * slot evaluated over the block in order, stores. In float (L->single) every value stays a
 * float32, as the eager float32 kernels compute; otherwise values are doubles rounded to each
 * node's dtype. */
static void run_range(const Loop *L, int64_t start, int64_t end) {
  const CpuProgram *prog = L->prog;
  guint n_slots = prog->slots->len;
  const bool single = L->single;
  const size_t width = single ? sizeof(float) : sizeof(double);
  /* The dtype a slot's values already have: no rounding needed for it. */
  const IrDtype native = single ? IR_DTYPE_FLOAT32 : IR_DTYPE_FLOAT64;
  char *buf = g_malloc((gsize)n_slots * PW_BLOCK * width);
  int *stride = g_new0(int, n_slots);
  const Slot *slots = (const Slot *)prog->slots->data;
  for (guint s = 0; s < n_slots; s++)
    if (slots[s].kind == SLOT_CONST)
      slot_put(slot_block(buf, width, s), single, 0, slots[s].value);
  union {
    const double *d[PW_MAX_ARGS];
    const float *f[PW_MAX_ARGS];
  } args;
  int arg_strides[PW_MAX_ARGS];
  int nd = L->ndim;
  for (int64_t idx = start; idx < end;) {
    int64_t counter[RT_MAX_DIMS];
    int64_t n = block_at(L, idx, end, counter);
    for (int k = 0; k < L->n_loads; k++) {
      size_t es = rt_dtype_size(L->load_dtype[k]);
      const char *p =
          element_at(L->load_base[k], L->load_strides[k], L->load_dtype[k], counter, nd);
      int64_t is = L->load_strides[k][nd - 1];
      char *dst = slot_block(buf, width, L->load_slot[k]);
      stride[L->load_slot[k]] = is != 0;
      if (is == 0) {
        slot_put(dst, single, 0, load_one(p, L->load_dtype[k]));
      } else if (is == 1 && L->load_dtype[k] == IR_DTYPE_FLOAT32 && single) {
        memcpy(dst, p, sizeof(float) * (size_t)n);
      } else if (is == 1 && L->load_dtype[k] == IR_DTYPE_FLOAT32) {
        const float *f = (const float *)p;
        double *d = (double *)dst;
        for (int64_t i = 0; i < n; i++)
          d[i] = f[i];
      } else {
        for (int64_t i = 0; i < n; i++)
          slot_put(dst, single, i, load_one(p + i * is * (int64_t)es, L->load_dtype[k]));
      }
    }
    for (guint s = 0; s < n_slots; s++) {
      const Slot *sl = &slots[s];
      if (sl->kind != SLOT_NODE)
        continue;
      for (int a = 0, na = pw_expr_n_args(sl->expr); a < na; a++) {
        const char *arg = slot_block(buf, width, sl->args[a]);
        if (single)
          args.f[a] = (const float *)arg;
        else
          args.d[a] = (const double *)arg;
      }
      bool any = slot_arg_strides(sl, stride, arg_strides);
      int m = any ? (int)n : 1;
      char *out = slot_block(buf, width, s);
      if (single)
        pw_expr_eval_block_f(sl->expr, args.f, arg_strides, (float *)out, m);
      else
        pw_expr_eval_block(sl->expr, args.d, arg_strides, (double *)out, m);
      if (sl->has_dtype && sl->dtype != native)
        for (int i = 0; i < m; i++)
          slot_put(out, single, i, round_to(slot_get(out, single, i), sl->dtype));
      stride[s] = any ? 1 : 0;
    }
    for (int k = 0; k < L->n_stores; k++) {
      size_t es = rt_dtype_size(L->store_dtype[k]);
      char *p = element_at(L->store_base[k], L->store_strides[k], L->store_dtype[k], counter, nd);
      int64_t os = L->store_strides[k][nd - 1];
      const char *src = slot_block(buf, width, L->store_slot[k]);
      int ss = stride[L->store_slot[k]];
      if (L->store_dtype[k] == IR_DTYPE_FLOAT32 && os == 1 && single) {
        const float *from = (const float *)src;
        float *f = (float *)p;
        for (int64_t i = 0; i < n; i++)
          f[i] = from[i * ss];
      } else if (L->store_dtype[k] == IR_DTYPE_FLOAT32 && os == 1) {
        const double *from = (const double *)src;
        float *f = (float *)p;
        for (int64_t i = 0; i < n; i++)
          f[i] = (float)from[i * ss];
      } else if (L->store_dtype[k] == IR_DTYPE_FLOAT64 && os == 1 && !single) {
        const double *from = (const double *)src;
        double *f = (double *)p;
        for (int64_t i = 0; i < n; i++)
          f[i] = from[i * ss];
      } else {
        for (int64_t i = 0; i < n; i++)
          rt_store_element(p + i * os * (int64_t)es, L->store_dtype[k],
                           slot_get(src, single, i * ss));
      }
    }
    idx += n;
  }
  g_free(stride);
  g_free(buf);
}

/* Can the loop compute in float? Every load, node and store float32 or bool, one float32. */
static bool loop_is_single(const Loop *L) {
  bool any_float = false;
  for (int k = 0; k < L->n_loads; k++) {
    if (L->load_dtype[k] != IR_DTYPE_FLOAT32 && L->load_dtype[k] != IR_DTYPE_BOOL)
      return false;
    any_float |= L->load_dtype[k] == IR_DTYPE_FLOAT32;
  }
  for (int k = 0; k < L->n_stores; k++)
    if (L->store_dtype[k] != IR_DTYPE_FLOAT32 && L->store_dtype[k] != IR_DTYPE_BOOL)
      return false;
  const Slot *slots = (const Slot *)L->prog->slots->data;
  for (guint s = 0; s < L->prog->slots->len; s++)
    if (slots[s].kind == SLOT_NODE && (!slots[s].has_dtype || (slots[s].dtype != IR_DTYPE_FLOAT32 &&
                                                               slots[s].dtype != IR_DTYPE_BOOL)))
      return false;
  return any_float;
}

static void run_loop_part(gpointer loop, int part, int64_t start, int64_t end) {
  (void)part;
  run_range(loop, start, end);
}

/* Right-aligned strides of a view (sizes/strides) broadcast to the map shape. */
static void broadcast_strides(int ndim, const int64_t *sizes, const int64_t *strides, int map_ndim,
                              const int64_t *map, int64_t *out) {
  for (int d = 0; d < map_ndim; d++) {
    int sd = d - (map_ndim - ndim);
    out[d] = (sd < 0 || sizes[sd] == 1 || map[d] == 1) ? 0 : strides[sd];
  }
}

static bool run_fail(GError **error, const char *fmt, const char *detail) {
  g_set_error(error, JITSCOPE_RUNTIME_ERROR, RT_ERROR_SHAPE, fmt, detail);
  return false;
}

static bool program_run(const CpuProgram *prog, RtValue *inputs, guint n_inputs, RtValue *outputs,
                        guint n_outputs, GError **error) {
  const Slot *slots = (const Slot *)prog->slots->data;
  int map_ndim = 0;
  int64_t map[RT_MAX_DIMS];
  /* Piece views of the loads: shape, strides, offset. */
  guint n_slots = prog->slots->len;
  int64_t(*vs)[RT_MAX_DIMS] = g_malloc0_n(n_slots, sizeof(int64_t[RT_MAX_DIMS]));
  int64_t(*vst)[RT_MAX_DIMS] = g_malloc0_n(n_slots, sizeof(int64_t[RT_MAX_DIMS]));
  int64_t *voff = g_new0(int64_t, n_slots);
  int *vnd = g_new0(int, n_slots);
  bool ok = true;
  for (guint s = 0; s < n_slots && ok; s++) {
    const Slot *sl = &slots[s];
    if (sl->kind != SLOT_INPUT && sl->kind != SLOT_CHUNK)
      continue;
    if ((guint)sl->input >= n_inputs || inputs[sl->input].tag != RT_TENSOR ||
        !inputs[sl->input].u.tensor) {
      ok = run_fail(error, "CPU fused loop: %s", "a tensor input is missing or undefined");
      break;
    }
    RtTensor *t = inputs[sl->input].u.tensor;
    vnd[s] = t->ndim;
    memcpy(vs[s], t->sizes, sizeof(int64_t) * (size_t)t->ndim);
    memcpy(vst[s], t->strides, sizeof(int64_t) * (size_t)t->ndim);
    voff[s] = 0;
    if (sl->kind == SLOT_CHUNK) {
      int dim;
      if (!rt_wrap_dim((int)sl->dim, t->ndim, &dim, error)) {
        ok = false;
        break;
      }
      if (t->sizes[dim] % sl->chunks != 0) {
        g_autofree char *shape = rt_shape_to_string(t->ndim, t->sizes);
        ok = run_fail(error, "CPU fused loop: chunks do not divide the chunked input %s", shape);
        break;
      }
      vs[s][dim] = t->sizes[dim] / sl->chunks;
      voff[s] = sl->piece * vs[s][dim] * t->strides[dim];
    }
    int nd;
    int64_t out[RT_MAX_DIMS];
    if (!rt_broadcast_shapes(map_ndim, map, vnd[s], vs[s], &nd, out, error)) {
      ok = false;
      break;
    }
    map_ndim = nd;
    memcpy(map, out, sizeof(int64_t) * (size_t)nd);
  }
  /* Natural shape of every slot (the broadcast of its arguments'), so that an output that
   * does not reach the map size is written at its own size. */
  for (guint s = 0; s < n_slots && ok; s++) {
    const Slot *sl = &slots[s];
    if (sl->kind == SLOT_CONST)
      vnd[s] = 0;
    if (sl->kind != SLOT_NODE)
      continue;
    vnd[s] = 0;
    int na = pw_expr_n_args(sl->expr);
    for (int a = 0; a < na && ok; a++) {
      int nd;
      int64_t out[RT_MAX_DIMS];
      ok = rt_broadcast_shapes(vnd[s], vs[s], vnd[sl->args[a]], vs[sl->args[a]], &nd, out, error);
      vnd[s] = nd;
      memcpy(vs[s], out, sizeof(int64_t) * (size_t)nd);
    }
  }
  bool full_outputs = true;
  Loop *L = ok ? g_new0(Loop, 1) : NULL;
  int64_t numel = 1;
  for (int d = 0; d < map_ndim; d++)
    numel *= map[d];
  if (ok) {
    L->prog = prog;
    for (guint s = 0; s < n_slots && ok; s++) {
      const Slot *sl = &slots[s];
      if (sl->kind != SLOT_INPUT && sl->kind != SLOT_CHUNK)
        continue;
      if (L->n_loads == MAX_OPERANDS) {
        ok = run_fail(error, "CPU fused loop: %s", "too many operands");
        break;
      }
      RtTensor *t = inputs[sl->input].u.tensor;
      int k = L->n_loads++;
      L->load_slot[k] = (int)s;
      L->load_dtype[k] = t->dtype;
      L->load_base[k] = (char *)rt_tensor_data(t) + voff[s] * (int64_t)rt_dtype_size(t->dtype);
      broadcast_strides(vnd[s], vs[s], vst[s], map_ndim, map, L->load_strides[k]);
    }
  }
  /* Outputs: fresh contiguous tensors (FusedConcat: the map size times pieces along dim). */
  for (guint i = 0; i < n_outputs; i++)
    outputs[i] = rt_none();
  IrDtype fallback_dtype = IR_DTYPE_FLOAT32;
  for (guint i = 0; i < n_inputs; i++)
    if (inputs[i].tag == RT_TENSOR && inputs[i].u.tensor) {
      fallback_dtype = inputs[i].u.tensor->dtype;
      break;
    }
  for (guint i = 0; ok && i < prog->n_group_outputs && i < n_outputs; i++) {
    const OutSpec *first =
        &g_array_index(prog->outputs, OutSpec, g_array_index(prog->out_of, int, i));
    IrDtype dtype = first->has_dtype ? first->dtype : fallback_dtype;
    int nat_nd = vnd[first->slot];
    int64_t sizes[RT_MAX_DIMS];
    memcpy(sizes, vs[first->slot], sizeof(int64_t) * (size_t)nat_nd);
    int64_t nat_numel = 1;
    for (int d = 0; d < nat_nd; d++)
      nat_numel *= sizes[d];
    full_outputs &= nat_numel == numel;
    int dim = 0;
    if (first->n_pieces > 1 && !rt_wrap_dim((int)first->dim, nat_nd, &dim, error)) {
      ok = false;
      break;
    }
    if (first->n_pieces > 1)
      sizes[dim] *= first->n_pieces;
    RtTensor *t = rt_tensor_new_checked(dtype, nat_nd, sizes, error);
    if (!t) {
      ok = false;
      break;
    }
    outputs[i] = rt_tensor(t);
    for (int p = 0; p < first->n_pieces && ok; p++) {
      if (L->n_loads + L->n_stores >= MAX_OPERANDS) {
        ok = run_fail(error, "CPU fused loop: %s", "too many operands");
        break;
      }
      int k = L->n_stores++;
      L->store_slot[k] = first[p].slot;
      L->store_dtype[k] = dtype;
      L->store_base[k] =
          (char *)rt_tensor_data(t) +
          (first->n_pieces > 1 ? p * (sizes[dim] / first->n_pieces) * t->strides[dim] : 0) *
              (int64_t)rt_dtype_size(dtype);
      int64_t piece_sizes[RT_MAX_DIMS];
      memcpy(piece_sizes, vs[first->slot], sizeof(int64_t) * (size_t)nat_nd);
      broadcast_strides(nat_nd, piece_sizes, t->strides, map_ndim, map, L->store_strides[k]);
    }
  }
  if (ok && numel > 0) {
    /* Coalesce: drop size-1 dims, merge d-1 into d when every operand is contiguous across. */
    int nd = 0;
    int64_t sz[RT_MAX_DIMS];
    int64_t(*ls)[RT_MAX_DIMS] = L->load_strides, (*ss)[RT_MAX_DIMS] = L->store_strides;
    for (int d = 0; d < map_ndim; d++) {
      if (map[d] == 1)
        continue;
      bool merge = nd > 0;
      for (int k = 0; merge && k < L->n_loads; k++)
        merge = ls[k][nd - 1] == ls[k][d] * map[d];
      for (int k = 0; merge && k < L->n_stores; k++)
        merge = ss[k][nd - 1] == ss[k][d] * map[d];
      if (merge) {
        sz[nd - 1] *= map[d];
        for (int k = 0; k < L->n_loads; k++)
          ls[k][nd - 1] = ls[k][d];
        for (int k = 0; k < L->n_stores; k++)
          ss[k][nd - 1] = ss[k][d];
      } else {
        sz[nd] = map[d];
        for (int k = 0; k < L->n_loads; k++)
          ls[k][nd] = ls[k][d];
        for (int k = 0; k < L->n_stores; k++)
          ss[k][nd] = ss[k][d];
        nd++;
      }
    }
    if (nd == 0) {
      sz[0] = 1;
      for (int k = 0; k < L->n_loads; k++)
        ls[k][0] = 0;
      for (int k = 0; k < L->n_stores; k++)
        ss[k][0] = 0;
      nd = 1;
    }
    L->ndim = nd;
    memcpy(L->sizes, sz, sizeof(int64_t) * (size_t)nd);
    L->single = loop_is_single(L);
    /* Outputs smaller than the map take repeated writes: one thread then. The second thread
     * is the process's pool worker (cpu_compile_parallel_for), not a thread per launch. */
    cpu_compile_parallel_for(numel, numel >= PARALLEL_MIN_NUMEL && full_outputs, run_loop_part,
                             (gpointer)L);
  }
  if (!ok)
    for (guint i = 0; i < n_outputs; i++) {
      rt_value_unref(outputs[i]);
      outputs[i] = rt_none();
    }
  g_free(L);
  g_free(vs);
  g_free(vst);
  g_free(voff);
  g_free(vnd);
  return ok;
}

/* ---------------- backend ---------------- */

static bool cpu_can_run(const FuserBackend *backend, const IrNode *group, const RtValue *inputs,
                        guint n_inputs, char **why) {
  (void)backend;
  (void)group;
  for (guint i = 0; i < n_inputs; i++) {
    if (inputs[i].tag != RT_TENSOR)
      continue;
    RtTensor *t = inputs[i].u.tensor;
    if (!t) {
      *why = g_strdup_printf("cpu: input %u is an undefined tensor", i);
      return false;
    }
    if (t->storage->device != IR_DEVICE_CPU) {
      *why = g_strdup_printf("cpu: input %u is on %s", i, ir_device_name(t->storage->device));
      return false;
    }
  }
  return true;
}

static bool cpu_run(const FuserBackend *backend, FuserPlanState *state, const IrNode *group,
                    RtValue *inputs, guint n_inputs, RtValue *outputs, guint n_outputs,
                    GError **error) {
  bool owned = false;
  CpuProgram *prog =
      fuser_group_cache(state, group, backend, program_create, program_free, &owned, error);
  if (!prog)
    return false;
  bool ok = program_run(prog, inputs, n_inputs, outputs, n_outputs, error) &&
            fuser_apply_sum_to(group, inputs, n_inputs, outputs, n_outputs, error);
  if (owned)
    program_free(prog);
  return ok;
}

static const FuserBackend cpu_backend = {"cpu", cpu_can_run, cpu_run, NULL};

const FuserBackend *fuser_cpu_backend(void) {
  return &cpu_backend;
}
