/* Graph -> flat instruction array (code_internal.h).
 *
 * Liveness: every value belongs to the block that defines it (node outputs, block inputs).
 * Its release point is the last node of that block that uses it, directly or inside the
 * node's nested blocks (the block's Return sentinel counts as a node after all others). A
 * value used directly by a simple node is released right after that node; one used inside a
 * control node's blocks is released after the whole control node (so values read by a loop
 * body survive every iteration); one used only as a direct input of a control node is released
 * as soon as the node has read it; an unused value is released right after it is made.
 * Registers are reused after their release (compile order equals run order for everything
 * that reads a register), so a long chain runs in a handful of registers. */
#include <string.h>

#include "runtime/code_internal.h"

#define CONST_BIT (1u << 31)

typedef struct {
  GArray *instrs;       /* RtInstr */
  GArray *operands;     /* guint32; constants tagged with CONST_BIT until the end */
  GArray *consts;       /* RtValue */
  GHashTable *regs;     /* IrValue* -> operand + 1 */
  GHashTable *defaults; /* schema index << 8 | arg -> const index + 1 */
  GArray *free_regs;    /* guint32 */
  GArray *in_use;       /* gboolean per slot: guards the free list */
  guint32 n_slots;
  guint max_args;
} Compiler;

/* Per block: positions, and which values each node releases. */
typedef struct {
  GHashTable *pos;      /* IrNode* -> position + 1 (Return sentinel last) */
  GHashTable *after;    /* IrNode* -> GPtrArray of IrValue* released after the node */
  GHashTable *on_entry; /* control IrNode* -> GPtrArray released once it read its inputs */
} BlockLive;

static bool compile_nodes(Compiler *c, const IrBlock *block, BlockLive *l, GError **error);

static void set_node_error(GError **error, const IrNode *node, const char *fmt, ...)
    G_GNUC_PRINTF(3, 4);
static void set_node_error(GError **error, const IrNode *node, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  g_autofree char *msg = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  g_set_error_literal(error, JITSCOPE_RUNTIME_ERROR, 0, msg);
  if (node)
    rt_prefix_node_error(error, node);
}

void rt_prefix_node_error(GError **error, const IrNode *node) {
  if (node->source)
    g_prefix_error(error, "%s: %s: ", node->source, ir_node_kind_name(node));
  else
    g_prefix_error(error, "%s: ", ir_node_kind_name(node));
}

/* --- registers --- */

static guint32 reg_alloc(Compiler *c, guint n) {
  if (n == 1 && c->free_regs->len > 0) {
    guint32 r = g_array_index(c->free_regs, guint32, c->free_regs->len - 1);
    g_array_set_size(c->free_regs, c->free_regs->len - 1);
    g_array_index(c->in_use, gboolean, r) = TRUE;
    return r;
  }
  guint32 base = c->n_slots;
  c->n_slots += n;
  g_array_set_size(c->in_use, c->n_slots);
  for (guint k = 0; k < n; k++)
    g_array_index(c->in_use, gboolean, base + k) = TRUE;
  return base;
}

static void reg_free(Compiler *c, guint32 r) {
  if (r & CONST_BIT)
    return;
  if (r >= c->n_slots || !g_array_index(c->in_use, gboolean, r))
    g_error("interpreter invariant: register %u freed twice or never allocated", r);
  g_array_index(c->in_use, gboolean, r) = FALSE;
  g_array_append_val(c->free_regs, r);
}

static void bind(Compiler *c, const IrValue *v, guint32 operand) {
  g_hash_table_insert(c->regs, (gpointer)v, GUINT_TO_POINTER(operand + 1));
}

static bool operand_of(Compiler *c, const IrValue *v, const IrNode *user, guint32 *out,
                       GError **error) {
  gpointer p = g_hash_table_lookup(c->regs, v);
  if (!p) {
    char buf[32];
    set_node_error(error, user,
                   "value %%%s is used outside the block that defines it or "
                   "before its definition",
                   ir_value_display_name(v, buf));
    return false;
  }
  *out = GPOINTER_TO_UINT(p) - 1;
  return true;
}

static guint32 add_const(Compiler *c, RtValue v) {
  g_array_append_val(c->consts, v);
  return (c->consts->len - 1) | CONST_BIT;
}

/* --- liveness --- */

static void live_free(BlockLive *l) {
  g_hash_table_destroy(l->pos);
  g_hash_table_destroy(l->after);
  g_hash_table_destroy(l->on_entry);
}

static void live_push(GHashTable *table, const IrNode *node, const IrValue *v) {
  GPtrArray *list = g_hash_table_lookup(table, node);
  if (!list) {
    list = g_ptr_array_new();
    g_hash_table_insert(table, (gpointer)node, list);
  }
  g_ptr_array_add(list, (gpointer)v);
}

/* Finds v's release point in `block` (see the file comment). */
static bool live_value(BlockLive *l, const IrBlock *block, const IrValue *v, GError **error) {
  const IrNode *best = NULL;
  guint best_pos = 0;
  bool nested = false;
  for (guint k = 0; k < v->uses->len; k++) {
    const IrNode *u = g_array_index(v->uses, IrUse, k).user;
    bool direct = true;
    while (u && u->owning_block != block) {
      u = u->owning_block ? u->owning_block->owning_node : NULL;
      direct = false;
    }
    guint p = u ? GPOINTER_TO_UINT(g_hash_table_lookup(l->pos, u)) : 0;
    if (p == 0) {
      char buf[32];
      set_node_error(error, g_array_index(v->uses, IrUse, k).user,
                     "value %%%s is used outside the block that defines it",
                     ir_value_display_name(v, buf));
      return false;
    }
    if (p > best_pos) {
      best = u;
      best_pos = p;
      nested = !direct;
    } else if (p == best_pos && !direct) {
      nested = true;
    }
  }
  if (!best)
    return true; /* unused: released where it is defined */
  if (!nested && ir_n_blocks(best) > 0)
    live_push(l->on_entry, best, v);
  else
    live_push(l->after, best, v);
  return true;
}

static bool live_compute(BlockLive *l, const IrBlock *block, GError **error) {
  l->pos = g_hash_table_new(g_direct_hash, g_direct_equal);
  l->after =
      g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, (GDestroyNotify)g_ptr_array_unref);
  l->on_entry =
      g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, (GDestroyNotify)g_ptr_array_unref);
  guint n = 0;
  IR_FOR_EACH_NODE(node, block) g_hash_table_insert(l->pos, node, GUINT_TO_POINTER(++n));
  g_hash_table_insert(l->pos, block->ret, GUINT_TO_POINTER(++n));
  GPtrArray *ins = ir_block_inputs(block);
  for (guint i = 0; i < ins->len; i++)
    if (!live_value(l, block, g_ptr_array_index(ins, i), error))
      return false;
  IR_FOR_EACH_NODE(node, block) {
    for (guint i = 0; i < ir_n_outputs(node); i++)
      if (!live_value(l, block, ir_output(node, i), error))
        return false;
  }
  return true;
}

/* Appends the registers of `values` (and of unused values in `unused`) to the operand array
 * as a release list; frees the registers for reuse. */
static void release_list(Compiler *c, GPtrArray *values, GPtrArray *unused, guint32 *rel,
                         guint32 *n_rel) {
  *rel = c->operands->len;
  *n_rel = 0;
  GPtrArray *lists[2] = {values, unused};
  for (guint l = 0; l < 2; l++) {
    if (!lists[l])
      continue;
    for (guint i = 0; i < lists[l]->len; i++) {
      const IrValue *v = g_ptr_array_index(lists[l], i);
      if (l == 1 && ir_value_has_uses(v))
        continue;
      guint32 r = GPOINTER_TO_UINT(g_hash_table_lookup(c->regs, v)) - 1;
      if (r & CONST_BIT)
        continue;
      g_array_append_val(c->operands, r);
      (*n_rel)++;
    }
  }
  for (guint i = 0; i < *n_rel; i++)
    reg_free(c, g_array_index(c->operands, guint32, *rel + i));
}

static guint emit(Compiler *c, const RtInstr *ins) {
  g_array_append_val(c->instrs, *ins);
  if (ins->n_in > c->max_args)
    c->max_args = ins->n_in;
  return c->instrs->len - 1;
}

static RtInstr *instr_at(Compiler *c, guint pc) {
  return &g_array_index(c->instrs, RtInstr, pc);
}

static bool add_operands(Compiler *c, const IrNode *user, GPtrArray *values, guint32 *in,
                         guint32 *n_in, GError **error) {
  *in = c->operands->len;
  *n_in = values->len;
  for (guint i = 0; i < values->len; i++) {
    guint32 r;
    if (!operand_of(c, g_ptr_array_index(values, i), user, &r, error))
      return false;
    g_array_append_val(c->operands, r);
  }
  return true;
}

/* Registers for the node's outputs, contiguous. */
static guint32 bind_outputs(Compiler *c, const IrNode *node) {
  guint n = ir_n_outputs(node);
  if (n == 0)
    return 0;
  guint32 base = reg_alloc(c, n);
  for (guint i = 0; i < n; i++)
    bind(c, ir_output(node, i), base + i);
  return base;
}

static void node_releases(Compiler *c, BlockLive *l, const IrNode *node, RtInstr *ins) {
  release_list(c, g_hash_table_lookup(l->after, node), node->outputs, &ins->rel, &ins->n_rel);
}

/* --- schema nodes --- */

static const IrSchema *schema_for(const IrNode *node) {
  if (node->schema)
    return node->schema;
  guint n = 0;
  const IrSchema *const *overloads = ir_ops_overloads(node->kind, &n);
  const IrType **types = g_newa(const IrType *, ir_n_inputs(node) + 1);
  for (guint i = 0; i < ir_n_inputs(node); i++)
    types[i] = ir_input(node, i)->type;
  for (guint k = 0; k < n; k++)
    if (ir_schema_matches(overloads[k], types, ir_n_inputs(node)))
      return overloads[k];
  return NULL;
}

static bool default_value(const IrArgument *arg, RtValue *out) {
  const IrType *t = arg->type;
  if (t->kind == IR_TYPE_OPTIONAL)
    t = t->elem;
  switch (arg->def.kind) {
  case IR_DEFAULT_NONE_GIVEN: return false;
  case IR_DEFAULT_NONE: *out = rt_none(); return true;
  case IR_DEFAULT_INT:
    if (t->kind == IR_TYPE_BOOL)
      *out = rt_bool(arg->def.i != 0);
    else if (t->kind == IR_TYPE_FLOAT)
      *out = rt_double((double)arg->def.i);
    else
      *out = rt_int(arg->def.i);
    return true;
  case IR_DEFAULT_FLOAT: *out = rt_double(arg->def.f); return true;
  case IR_DEFAULT_INT_LIST:
    *out = rt_int_list((const gint64 *)arg->def.ints, arg->def.n_ints);
    return true;
  case IR_DEFAULT_STR: *out = rt_str(arg->def.s ? arg->def.s : ""); return true;
  }
  return false;
}

static bool compile_schema_node(Compiler *c, BlockLive *l, const IrNode *node, GError **error) {
  const IrSchema *schema = schema_for(node);
  if (!schema) {
    set_node_error(error, node, "no overload matches the input types");
    return false;
  }
  RtKernelFn kernel = rt_op_kernel(schema);
  if (!kernel) {
    set_node_error(error, node, "the op table has no kernel for %s", schema->text);
    return false;
  }
  guint n = ir_n_inputs(node);
  if (n > schema->n_args && !schema->varargs) {
    set_node_error(error, node, "%u inputs given, schema %s takes %u", n, schema->text,
                   schema->n_args);
    return false;
  }
  RtInstr ins = {
      .op = RT_OP_KERNEL, .kind = node->kind, .node = node, .schema = schema, .kernel = kernel};
  if (!add_operands(c, node, node->inputs, &ins.in, &ins.n_in, error))
    return false;
  for (guint a = n; a < schema->n_args; a++) {
    gpointer key = GUINT_TO_POINTER((schema->index << 8) | a);
    guint32 r = GPOINTER_TO_UINT(g_hash_table_lookup(c->defaults, key));
    if (r == 0) {
      RtValue v;
      if (!default_value(&schema->args[a], &v)) {
        set_node_error(error, node, "argument '%s' of %s is missing and has no default",
                       schema->args[a].name, schema->text);
        return false;
      }
      r = add_const(c, v) + 1;
      g_hash_table_insert(c->defaults, key, GUINT_TO_POINTER(r));
    }
    guint32 operand = r - 1;
    g_array_append_val(c->operands, operand);
    ins.n_in++;
  }
  ins.n_out = ir_n_outputs(node);
  ins.out = bind_outputs(c, node);
  node_releases(c, l, node, &ins);
  emit(c, &ins);
  return true;
}

/* --- control flow --- */

/* Copies a block's outputs to registers out.. and releases the block's values that live up to
 * its Return sentinel. */
static bool emit_block_copy(Compiler *c, BlockLive *bl, const IrBlock *block, const IrNode *node,
                            guint32 out, GError **error) {
  RtInstr ins = {.op = RT_OP_COPY, .kind = node->kind, .node = node, .out = out};
  if (!add_operands(c, block->ret, ir_block_outputs(block), &ins.in, &ins.n_in, error))
    return false;
  ins.n_out = ins.n_in;
  release_list(c, g_hash_table_lookup(bl->after, block->ret), NULL, &ins.rel, &ins.n_rel);
  emit(c, &ins);
  return true;
}

/* Compiles a nested block whose inputs are already bound and whose unused inputs were
 * released by the caller; then copies its outputs to out.. */
static bool compile_nested(Compiler *c, const IrBlock *block, BlockLive *bl, const IrNode *node,
                           guint32 out, GError **error) {
  return compile_nodes(c, block, bl, error) && emit_block_copy(c, bl, block, node, out, error);
}

static bool compile_if_branch(Compiler *c, const IrBlock *block, const IrNode *node, guint32 out,
                              GError **error) {
  BlockLive bl;
  bool ok = live_compute(&bl, block, error) && compile_nested(c, block, &bl, node, out, error);
  live_free(&bl);
  return ok;
}

static bool compile_if(Compiler *c, BlockLive *l, const IrNode *node, GError **error) {
  if (ir_n_inputs(node) != 1 || ir_n_blocks(node) != 2) {
    set_node_error(error, node, "expected one condition and two blocks");
    return false;
  }
  for (guint b = 0; b < 2; b++)
    if (ir_block_inputs(ir_block(node, b))->len != 0 ||
        ir_block_outputs(ir_block(node, b))->len != ir_n_outputs(node)) {
      set_node_error(error, node, "block%u must take no inputs and return %u values", b,
                     ir_n_outputs(node));
      return false;
    }
  RtInstr jf = {.op = RT_OP_JUMP_IF_FALSE, .kind = node->kind, .node = node};
  if (!add_operands(c, node, node->inputs, &jf.in, &jf.n_in, error))
    return false;
  release_list(c, g_hash_table_lookup(l->on_entry, node), NULL, &jf.rel, &jf.n_rel);
  guint pc_jf = emit(c, &jf);
  guint32 out = bind_outputs(c, node);
  if (!compile_if_branch(c, ir_block(node, 0), node, out, error))
    return false;
  RtInstr jmp = {.op = RT_OP_JUMP, .kind = node->kind, .node = node};
  guint pc_jmp = emit(c, &jmp);
  instr_at(c, pc_jf)->target = (gint32)c->instrs->len;
  if (!compile_if_branch(c, ir_block(node, 1), node, out, error))
    return false;
  instr_at(c, pc_jmp)->target = (gint32)c->instrs->len;
  RtInstr end = {.op = RT_OP_RELEASE, .kind = node->kind, .node = node};
  node_releases(c, l, node, &end);
  if (end.n_rel > 0)
    emit(c, &end);
  return true;
}

static bool compile_loop(Compiler *c, BlockLive *l, const IrNode *node, GError **error) {
  guint n_carried = ir_n_outputs(node);
  if (ir_n_blocks(node) != 1 || ir_n_inputs(node) != 2 + n_carried) {
    set_node_error(error, node,
                   "expected (max trip count, condition, %u carried values) and "
                   "one block",
                   n_carried);
    return false;
  }
  const IrBlock *body = ir_block(node, 0);
  if (ir_block_inputs(body)->len != 1 + n_carried || ir_block_outputs(body)->len != 1 + n_carried) {
    set_node_error(error, node,
                   "the body must take (counter, %u carried) and return "
                   "(condition, %u carried)",
                   n_carried, n_carried);
    return false;
  }
  /* Outputs and hidden registers first, so nothing in the body can reuse them. */
  guint32 out = bind_outputs(c, node);
  guint32 hidden = reg_alloc(c, 3);
  guint32 b = reg_alloc(c, 1 + n_carried);
  for (guint i = 0; i < 1 + n_carried; i++)
    bind(c, g_ptr_array_index(ir_block_inputs(body), i), b + i);

  RtInstr enter = {.op = RT_OP_LOOP_ENTER, .kind = node->kind, .node = node, .a = hidden, .b = b};
  if (!add_operands(c, node, node->inputs, &enter.in, &enter.n_in, error))
    return false;
  release_list(c, g_hash_table_lookup(l->on_entry, node), NULL, &enter.rel, &enter.n_rel);
  emit(c, &enter);

  BlockLive bl;
  if (!live_compute(&bl, body, error)) {
    live_free(&bl);
    return false;
  }
  RtInstr test = {.op = RT_OP_LOOP_TEST, .kind = node->kind, .node = node, .a = hidden, .b = b};
  release_list(c, NULL, ir_block_inputs(body), &test.rel, &test.n_rel);
  guint pc_test = emit(c, &test);
  bool ok = compile_nodes(c, body, &bl, error);
  if (ok) {
    RtInstr back = {.op = RT_OP_LOOP_BACK,
                    .kind = node->kind,
                    .node = node,
                    .a = hidden,
                    .b = b,
                    .target = (gint32)pc_test};
    ok = add_operands(c, body->ret, ir_block_outputs(body), &back.in, &back.n_in, error);
    if (ok) {
      release_list(c, g_hash_table_lookup(bl.after, body->ret), NULL, &back.rel, &back.n_rel);
      emit(c, &back);
    }
  }
  live_free(&bl);
  if (!ok)
    return false;
  instr_at(c, pc_test)->target = (gint32)c->instrs->len;
  RtInstr exit_ = {.op = RT_OP_LOOP_EXIT,
                   .kind = node->kind,
                   .node = node,
                   .a = hidden,
                   .b = b,
                   .out = out,
                   .n_out = n_carried};
  node_releases(c, l, node, &exit_);
  emit(c, &exit_);
  for (guint k = 0; k < 3; k++)
    reg_free(c, hidden + k);
  return true;
}

static bool compile_grad_of(Compiler *c, BlockLive *l, const IrNode *node, GError **error) {
  if (ir_n_blocks(node) != 1) {
    set_node_error(error, node, "expected one block");
    return false;
  }
  const IrBlock *body = ir_block(node, 0);
  guint n_bin = ir_block_inputs(body)->len;
  if ((n_bin != 0 && n_bin != ir_n_inputs(node)) ||
      ir_block_outputs(body)->len != ir_n_outputs(node)) {
    set_node_error(error, node,
                   "the block must return %u values and take none or the node's "
                   "inputs",
                   ir_n_outputs(node));
    return false;
  }
  guint32 out = bind_outputs(c, node);
  RtInstr entry = {.op = RT_OP_COPY, .kind = node->kind, .node = node};
  if (n_bin > 0) {
    entry.out = reg_alloc(c, n_bin);
    entry.n_out = n_bin;
    for (guint i = 0; i < n_bin; i++)
      bind(c, g_ptr_array_index(ir_block_inputs(body), i), entry.out + i);
    if (!add_operands(c, node, node->inputs, &entry.in, &entry.n_in, error))
      return false;
  }
  /* Inputs whose last use is this node's input list, then block inputs nobody reads. */
  release_list(c, g_hash_table_lookup(l->on_entry, node), n_bin > 0 ? ir_block_inputs(body) : NULL,
               &entry.rel, &entry.n_rel);
  if (entry.n_in > 0 || entry.n_rel > 0)
    emit(c, &entry);
  BlockLive bl;
  bool ok = live_compute(&bl, body, error) && compile_nested(c, body, &bl, node, out, error);
  live_free(&bl);
  if (!ok)
    return false;
  RtInstr end = {.op = RT_OP_RELEASE, .kind = node->kind, .node = node};
  node_releases(c, l, node, &end);
  if (end.n_rel > 0)
    emit(c, &end);
  return true;
}

/* --- other nodes --- */

static bool compile_special(Compiler *c, BlockLive *l, const IrNode *node, GError **error) {
  RtInstr ins = {.op = RT_OP_SPECIAL, .kind = node->kind, .node = node};
  const IrAttr *attr = ir_node_attr(node, g_intern_static_string(IR_ATTR_SUBGRAPH));
  if (!attr || attr->kind != IR_ATTR_G) {
    g_set_error(&ins.sub_error, JITSCOPE_RUNTIME_ERROR, 0, "no Subgraph attribute");
  } else {
    ins.sub = rt_code_compile(attr->v.g, &ins.sub_error);
    if (ins.sub && rt_code_n_inputs(ins.sub) != ir_n_inputs(node)) {
      g_set_error(&ins.sub_error, JITSCOPE_RUNTIME_ERROR, 0,
                  "the Subgraph takes %u inputs, the node passes %u", rt_code_n_inputs(ins.sub),
                  ir_n_inputs(node));
      rt_code_free(ins.sub);
      ins.sub = NULL;
    } else if (ins.sub && rt_code_n_outputs(ins.sub) < ir_n_outputs(node)) {
      g_set_error(&ins.sub_error, JITSCOPE_RUNTIME_ERROR, 0,
                  "the Subgraph returns %u values, the node has %u outputs",
                  rt_code_n_outputs(ins.sub), ir_n_outputs(node));
      rt_code_free(ins.sub);
      ins.sub = NULL;
    }
  }
  if (!add_operands(c, node, node->inputs, &ins.in, &ins.n_in, error)) {
    if (ins.sub)
      rt_code_free(ins.sub);
    g_clear_error(&ins.sub_error);
    return false;
  }
  ins.n_out = ir_n_outputs(node);
  ins.out = bind_outputs(c, node);
  node_releases(c, l, node, &ins);
  emit(c, &ins);
  return true;
}

static bool compile_prim(Compiler *c, BlockLive *l, const IrNode *node, GError **error) {
  RtInstr ins = {.op = RT_OP_PRIM, .kind = node->kind, .node = node};
  if (!rt_prim_prepare(node, &ins, error))
    return false;
  if (!add_operands(c, node, node->inputs, &ins.in, &ins.n_in, error))
    return false;
  ins.n_out = ir_n_outputs(node);
  ins.out = bind_outputs(c, node);
  node_releases(c, l, node, &ins);
  emit(c, &ins);
  return true;
}

static bool compile_node(Compiler *c, BlockLive *l, const IrNode *node, GError **error) {
  switch ((int)node->kind) {
  case IR_PRIM_CONSTANT: {
    if (ir_n_outputs(node) != 1) {
      set_node_error(error, node, "a constant has exactly one output");
      return false;
    }
    RtValue v;
    if (!rt_constant_value(node, &v, error))
      return false;
    bind(c, ir_output(node, 0), add_const(c, v));
    return true;
  }
  case IR_PRIM_IF: return compile_if(c, l, node, error);
  case IR_PRIM_LOOP: return compile_loop(c, l, node, error);
  case IR_PRIM_GRAD_OF: return compile_grad_of(c, l, node, error);
  case IR_PRIM_DIFFERENTIABLE_GRAPH:
  case IR_PRIM_FUSION_GROUP: return compile_special(c, l, node, error);
  case IR_PRIM_OPAQUE: {
    RtInstr ins = {.op = RT_OP_UNKNOWN, .kind = node->kind, .node = node};
    if (!add_operands(c, node, node->inputs, &ins.in, &ins.n_in, error))
      return false;
    ins.n_out = ir_n_outputs(node);
    ins.out = bind_outputs(c, node);
    node_releases(c, l, node, &ins);
    emit(c, &ins);
    return true;
  }
  default: break;
  }
  if (ir_n_blocks(node) > 0) {
    set_node_error(error, node, "the interpreter does not run nodes of this kind with blocks");
    return false;
  }
  if (rt_prim_is_data_op(node->kind))
    return compile_prim(c, l, node, error);
  guint n_overloads = 0;
  ir_ops_overloads(node->kind, &n_overloads);
  if (node->schema || n_overloads > 0)
    return compile_schema_node(c, l, node, error);
  set_node_error(error, node, "the interpreter cannot run this node kind");
  return false;
}

static bool compile_nodes(Compiler *c, const IrBlock *block, BlockLive *l, GError **error) {
  IR_FOR_EACH_NODE(node, block) {
    if (!compile_node(c, l, node, error))
      return false;
  }
  return true;
}

/* --- top level --- */

static void compiler_clear(Compiler *c) {
  g_array_free(c->instrs, TRUE);
  g_array_free(c->operands, TRUE);
  g_array_free(c->consts, TRUE);
  g_hash_table_destroy(c->regs);
  g_hash_table_destroy(c->defaults);
  g_array_free(c->free_regs, TRUE);
  g_array_free(c->in_use, TRUE);
}

static void free_partial(Compiler *c) {
  for (guint i = 0; i < c->instrs->len; i++) {
    RtInstr *ins = instr_at(c, i);
    if (ins->sub)
      rt_code_free(ins->sub);
    g_clear_error(&ins->sub_error);
  }
  for (guint i = 0; i < c->consts->len; i++)
    rt_value_unref(g_array_index(c->consts, RtValue, i));
  compiler_clear(c);
}

RtCode *rt_code_compile_block(const IrBlock *block, GError **error) {
  Compiler c = {
      .instrs = g_array_new(FALSE, TRUE, sizeof(RtInstr)),
      .operands = g_array_new(FALSE, FALSE, sizeof(guint32)),
      .consts = g_array_new(FALSE, FALSE, sizeof(RtValue)),
      .regs = g_hash_table_new(g_direct_hash, g_direct_equal),
      .defaults = g_hash_table_new(g_direct_hash, g_direct_equal),
      .free_regs = g_array_new(FALSE, FALSE, sizeof(guint32)),
      .in_use = g_array_new(FALSE, TRUE, sizeof(gboolean)),
  };
  GPtrArray *inputs = ir_block_inputs(block);
  guint n_inputs = inputs->len;
  guint32 *input_regs = g_new(guint32, n_inputs + 1);
  for (guint i = 0; i < n_inputs; i++) {
    input_regs[i] = reg_alloc(&c, 1);
    bind(&c, g_ptr_array_index(inputs, i), input_regs[i]);
  }
  BlockLive l;
  bool ok = live_compute(&l, block, error);
  if (ok) {
    RtInstr start = {.op = RT_OP_RELEASE, .kind = IR_PRIM_PARAM};
    release_list(&c, NULL, inputs, &start.rel, &start.n_rel);
    if (start.n_rel > 0)
      emit(&c, &start);
    ok = compile_nodes(&c, block, &l, error);
  }
  guint n_outputs = ir_block_outputs(block)->len;
  if (ok) {
    RtInstr ret = {.op = RT_OP_RETURN, .kind = IR_PRIM_RETURN, .n_out = n_outputs};
    ok = add_operands(&c, block->ret, ir_block_outputs(block), &ret.in, &ret.n_in, error);
    if (ok) {
      release_list(&c, g_hash_table_lookup(l.after, block->ret), NULL, &ret.rel, &ret.n_rel);
      emit(&c, &ret);
    }
  }
  live_free(&l);
  if (!ok) {
    g_free(input_regs);
    free_partial(&c);
    return NULL;
  }
  /* Constants go after the slots. */
  guint32 n_slots = c.n_slots;
  guint32 *ops = (guint32 *)c.operands->data;
  for (guint i = 0; i < c.operands->len; i++)
    if (ops[i] & CONST_BIT)
      ops[i] = n_slots + (ops[i] & ~CONST_BIT);

  RtCode *code = g_new0(RtCode, 1);
  code->n_instrs = c.instrs->len;
  code->instrs = (RtInstr *)g_array_free(c.instrs, FALSE);
  code->n_operands = c.operands->len;
  code->operands = (guint32 *)g_array_free(c.operands, FALSE);
  code->n_consts = c.consts->len;
  code->consts = (RtValue *)g_array_free(c.consts, FALSE);
  code->n_slots = n_slots;
  code->max_args = c.max_args;
  code->n_inputs = n_inputs;
  code->input_regs = input_regs;
  code->n_outputs = n_outputs;
  g_hash_table_destroy(c.regs);
  g_hash_table_destroy(c.defaults);
  g_array_free(c.free_regs, TRUE);
  g_array_free(c.in_use, TRUE);
  return code;
}

RtCode *rt_code_compile(const IrGraph *graph, GError **error) {
  return rt_code_compile_block(graph->block, error);
}

void rt_code_free(RtCode *code) {
  if (!code)
    return;
  for (guint i = 0; i < code->n_instrs; i++) {
    if (code->instrs[i].sub)
      rt_code_free(code->instrs[i].sub);
    g_clear_error(&code->instrs[i].sub_error);
  }
  for (guint i = 0; i < code->n_consts; i++)
    rt_value_unref(code->consts[i]);
  g_free(code->consts);
  g_free(code->instrs);
  g_free(code->operands);
  g_free(code->input_regs);
  g_free(code);
}

guint rt_code_n_inputs(const RtCode *code) {
  return code->n_inputs;
}
guint rt_code_n_outputs(const RtCode *code) {
  return code->n_outputs;
}
guint rt_code_n_instructions(const RtCode *code) {
  return code->n_instrs;
}
guint rt_code_n_registers(const RtCode *code) {
  return code->n_slots + code->n_consts;
}
