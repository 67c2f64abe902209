/* The emitter's statements and frames, and script_compile (contracts in emit.h, script.h).
 * Algorithm: PyTorch's script/compiler.cpp (2019): environment frames per block, prim::If
 * outputs for the names either branch rebinds, prim::Loop carrying the names its body
 * rebinds, in sorted name order as PyTorch's MiniEnvironment lists them. The cleanup PyTorch
 * runs after emitting (dead code, constant pooling) follows. */
#include "script/emit.h"

#include <stdarg.h>
#include <string.h>

#include "ir/text.h"
#include "passes/passes.h"
#include "script/parser.h"
#include "script/script.h"

Frame *
emit_frame_push(Emitter *em, IrBlock *block)
{
  Frame *f = g_new0(Frame, 1);
  f->parent = em->frame;
  f->block = block;
  f->vars = g_hash_table_new(g_str_hash, g_str_equal);
  f->undefined_here = g_hash_table_new(g_str_hash, g_str_equal);
  em->frame = f;
  return f;
}

void
emit_frame_pop(Emitter *em)
{
  Frame *f = em->frame;
  em->frame = f->parent;
  g_hash_table_unref(f->vars);
  g_hash_table_unref(f->undefined_here);
  if (f->captured)
    g_ptr_array_unref(f->captured);
  g_free(f);
}

static IrValue *
lookup_in(Emitter *em, Frame *frame, const char *name, const char **why)
{
  for (Frame *f = frame; f != NULL; f = f->parent) {
    IrValue *v = g_hash_table_lookup(f->vars, name);
    if (v != NULL)
      return v;
    if ((*why = g_hash_table_lookup(f->undefined_here, name)))
      return NULL;
    if (f->capture_from == NULL)
      continue;
    /* A closure's top frame: the name may be the enclosing function's. */
    const char *outer_why = NULL;
    IrValue *outer = lookup_in(em, f->capture_from, name, &outer_why);
    if (outer == NULL)
      return NULL;
    g_ptr_array_add(f->captured, outer);
    IrValue *inner = ir_node_add_output(f->capture_unpack, outer->type);
    ir_value_set_name(inner, name);
    g_hash_table_insert(f->vars, (gpointer)name, inner);
    return inner;
  }
  return NULL;
}

IrValue *
emit_lookup(Emitter *em, const char *name)
{
  const char *why = NULL;
  return lookup_in(em, em->frame, name, &why);
}

const char *
emit_why_undefined(Emitter *em, const char *name)
{
  const char *why = NULL;
  lookup_in(em, em->frame, name, &why);
  return why;
}

void
emit_bind(Emitter *em, const char *name, IrValue *value)
{
  /* PyTorch names a value after the first variable it is stored in, if it has no name and
   * was made in this block. */
  if (value->name == NULL && value->node->owning_block == em->frame->block &&
      value->node->kind != IR_PRIM_CONSTANT)
    ir_value_set_name(value, name);
  g_hash_table_remove(em->frame->undefined_here, name);
  g_hash_table_insert(em->frame->vars, (gpointer)name, value);
  if (!g_hash_table_contains(em->definition_order, name))
    g_hash_table_insert(em->definition_order, (gpointer)name,
                        GUINT_TO_POINTER(g_hash_table_size(em->definition_order) + 1));
}

gpointer
emit_fail(Emitter *em, ScriptLoc loc, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  g_autofree char *message = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  if (em->error && *em->error == NULL)
    script_error_at(em->error, em->src, loc.line, loc.col, "%s", message);
  return NULL;
}

void
emit_set_source(Emitter *em, IrNode *node, ScriptLoc loc)
{
  /* PyTorch's source comments count lines from 1 and columns from 0 (error messages, like
   * every FILE:LINE:COL of ours, count columns from 1). */
  g_autofree char *s = g_strdup_printf("%s:%d:%d", em->src->filename, loc.line, loc.col - 1);
  node->source = g_string_chunk_insert_const(em->graph->strings, s);
}

IrNode *
emit_append(Emitter *em, IrNode *node)
{
  ir_node_append_to(node, em->frame->block);
  return node;
}

static IrValue *
constant(Emitter *em, const IrType *type, const ScriptLoc *loc, IrNode **node)
{
  *node = ir_node_create(em->graph, IR_PRIM_CONSTANT, 1);
  ir_value_set_type(ir_output(*node, 0), type);
  if (loc)
    emit_set_source(em, *node, *loc);
  emit_append(em, *node);
  return ir_output(*node, 0);
}

IrValue *
emit_constant_int(Emitter *em, gint64 v, const ScriptLoc *loc)
{
  IrNode *n;
  IrValue *out = constant(em, ir_type_int(), loc, &n);
  ir_node_set_attr_i(n, IR_ATTR_VALUE, v);
  return out;
}

IrValue *
emit_constant_float(Emitter *em, double v, const ScriptLoc *loc)
{
  IrNode *n;
  IrValue *out = constant(em, ir_type_float(), loc, &n);
  ir_node_set_attr_f(n, IR_ATTR_VALUE, v);
  return out;
}

IrValue *
emit_constant_bool(Emitter *em, bool v, const ScriptLoc *loc)
{
  IrNode *n;
  IrValue *out = constant(em, ir_type_bool(), loc, &n);
  ir_node_set_attr_i(n, IR_ATTR_VALUE, v);
  return out;
}

IrValue *
emit_constant_none(Emitter *em, const ScriptLoc *loc)
{
  IrNode *n;
  return constant(em, ir_type_none(), loc, &n);
}

IrValue *
emit_constant_str(Emitter *em, const char *v, const ScriptLoc *loc)
{
  IrNode *n;
  IrValue *out = constant(em, ir_type_str(), loc, &n);
  ir_node_set_attr_s(n, IR_ATTR_VALUE, v);
  return out;
}

IrValue *
emit_literal(Emitter *em, const ScriptExpr *e, bool negate, ScriptLoc loc)
{
  switch (e->kind) {
  case SE_BOOL: return emit_constant_bool(em, e->int_value != 0, &loc);
  case SE_NONE: return emit_constant_none(em, &loc);
  case SE_STRING: return emit_constant_str(em, e->name, &loc);
  default: break;
  }
  g_autofree char *key = NULL;
  switch (e->kind) {
  case SE_INT:
    key = g_strdup_printf("int=%" G_GINT64_FORMAT, negate ? -e->int_value : e->int_value);
    break;
  case SE_FLOAT:
    key = g_strdup_printf("float=%a", negate ? -e->float_value : e->float_value);
    break;
  default: g_error("script invariant: expression kind %d is not a literal", e->kind);
  }
  IrValue *v = g_hash_table_lookup(em->literals, key);
  if (v != NULL)
    return v;
  Frame *saved = em->frame;
  Frame top = {.block = em->graph->block};
  em->frame = &top;
  if (e->kind == SE_INT)
    v = emit_constant_int(em, negate ? -e->int_value : e->int_value, &loc);
  else
    v = emit_constant_float(em, negate ? -e->float_value : e->float_value, &loc);
  em->frame = saved;
  IrBlock *block = em->graph->block;
  if (block->param->next != v->node)
    ir_node_move_before(v->node, block->param->next);
  g_hash_table_insert(em->literals, g_steal_pointer(&key), v);
  return v;
}

/* --- assignment --- */

static bool
assign(Emitter *em, const ScriptExpr *target, IrValue *value, ScriptLoc loc)
{
  if (target->kind == SE_NAME) {
    emit_bind(em, target->name, value);
    return true;
  }
  guint n = target->args->len;
  const IrType *t = value->type;
  IrNode *unpack;
  if (t->kind == IR_TYPE_TUPLE) {
    if (t->n_elems != n)
      return emit_fail(em, loc, "cannot unpack a tuple of %u values into %u names", t->n_elems,
                       n);
    unpack = ir_node_create(em->graph, IR_PRIM_TUPLE_UNPACK, n);
    for (guint i = 0; i < n; i++)
      ir_value_set_type(ir_output(unpack, i), t->elems[i]);
  } else if (t->kind == IR_TYPE_LIST) {
    unpack = ir_node_create(em->graph, IR_PRIM_LIST_UNPACK, n);
    for (guint i = 0; i < n; i++)
      ir_value_set_type(ir_output(unpack, i), t->elem);
  } else {
    g_autofree char *ts = ir_type_to_string(t);
    return emit_fail(em, loc, "cannot unpack a value of type %s into %u names", ts, n);
  }
  ir_node_add_input(unpack, value);
  emit_append(em, unpack);
  for (guint i = 0; i < n; i++)
    if (!assign(em, g_ptr_array_index(target->args, i), ir_output(unpack, i), loc))
      return false;
  return true;
}

static bool
emit_assign(Emitter *em, const ScriptStmt *s)
{
  const ScriptExpr *target = s->target, *value = s->value;
  /* a, b = x, y binds element-wise without building a tuple, as PyTorch does. */
  if (target->kind != SE_NAME && value->kind == SE_TUPLE &&
      value->args->len == target->args->len) {
    guint n = value->args->len;
    g_autofree IrValue **values = g_new(IrValue *, n);
    for (guint i = 0; i < n; i++)
      if (!(values[i] = emit_expr(em, g_ptr_array_index(value->args, i))))
        return false;
    for (guint i = 0; i < n; i++)
      if (!assign(em, g_ptr_array_index(target->args, i), values[i], s->loc))
        return false;
    return true;
  }
  IrValue *v = emit_expr(em, value);
  return v != NULL && assign(em, target, v, target->loc);
}

static bool
emit_aug_assign(Emitter *em, const ScriptStmt *s)
{
  IrValue *current = emit_expr(em, s->target);
  if (current == NULL)
    return false;
  if (ir_type_is_tensor(current->type))
    return emit_fail(em, s->loc,
                     "in-place '%s=' on a Tensor is not supported (PyTorch emits an in-place "
                     "op); write '%s = %s %s ...'",
                     s->op, s->target->name, s->target->name, s->op);
  ScriptExpr binary = {.kind = SE_BINARY, .loc = s->target->loc, .op = s->op};
  binary.args = g_ptr_array_new();
  g_ptr_array_add(binary.args, s->target);
  g_ptr_array_add(binary.args, s->value);
  IrValue *v = emit_expr(em, &binary);
  g_ptr_array_unref(binary.args);
  if (v)
    emit_bind(em, s->target->name, v);
  return v != NULL;
}

/* --- if --- */

/* By first definition; names not bound yet last, alphabetically. */
static gint
compare_names(gconstpointer a, gconstpointer b, gpointer emitter)
{
  const char *na = *(const char *const *)a, *nb = *(const char *const *)b;
  GHashTable *order = ((Emitter *)emitter)->definition_order;
  guint oa = GPOINTER_TO_UINT(g_hash_table_lookup(order, na));
  guint ob = GPOINTER_TO_UINT(g_hash_table_lookup(order, nb));
  if (oa != ob)
    return oa == 0 ? 1 : ob == 0 ? -1 : oa < ob ? -1 : 1;
  return strcmp(na, nb);
}

/* The keys of a set of names in the order of prim::If and prim::Loop outputs. */
static GPtrArray *
sorted_names(Emitter *em, GHashTable *set)
{
  GPtrArray *names = g_ptr_array_new();
  GHashTableIter it;
  gpointer key;
  g_hash_table_iter_init(&it, set);
  while (g_hash_table_iter_next(&it, &key, NULL))
    g_ptr_array_add(names, key);
  g_ptr_array_sort_with_data(names, compare_names, em);
  return names;
}

/* Names bound in either frame, sorted. */
static GPtrArray *
names_bound(Emitter *em, Frame *a, Frame *b)
{
  GHashTable *set = g_hash_table_new(g_str_hash, g_str_equal);
  Frame *frames[2] = {a, b};
  for (int i = 0; i < 2; i++) {
    GHashTableIter it;
    gpointer key;
    g_hash_table_iter_init(&it, frames[i]->vars);
    while (g_hash_table_iter_next(&it, &key, NULL))
      g_hash_table_add(set, key);
  }
  GPtrArray *names = sorted_names(em, set);
  g_hash_table_unref(set);
  return names;
}

/* Emits one branch into `block`; returns its frame (popped by the caller) or NULL. */
static Frame *
emit_branch(Emitter *em, IrBlock *block, GPtrArray *stmts)
{
  Frame *f = emit_frame_push(em, block);
  if (stmts && !emit_statements(em, stmts)) {
    emit_frame_pop(em);
    return NULL;
  }
  em->frame = f->parent; /* detach without freeing: the caller still reads f */
  return f;
}

static void
free_detached_frame(Frame *f)
{
  if (f == NULL)
    return;
  g_hash_table_unref(f->vars);
  g_hash_table_unref(f->undefined_here);
  g_free(f);
}

/* A value of `type` for a branch that raised: prim::Uninitialized at the branch's end. */
static IrValue *
uninitialized(Emitter *em, IrBlock *block, const IrType *type)
{
  IrNode *n = ir_node_create(em->graph, IR_PRIM_UNINITIALIZED, 1);
  ir_value_set_type(ir_output(n, 0), type);
  ir_node_append_to(n, block);
  return ir_output(n, 0);
}

/* Branch value of `name` seen from frame f (its own binding or an enclosing one). */
static IrValue *
branch_value(Emitter *em, Frame *f, const char *name)
{
  Frame *saved = em->frame;
  em->frame = f;
  IrValue *v = emit_lookup(em, name);
  em->frame = saved;
  return v;
}

/* Makes the If node's outputs from its two emitted branches. */
static bool
join_branches(Emitter *em, IrNode *node, Frame *tf, Frame *ff, ScriptLoc loc)
{
  g_autoptr(GPtrArray) names = names_bound(em, tf, ff);
  for (guint i = 0; i < names->len; i++) {
    const char *name = g_ptr_array_index(names, i);
    IrValue *tv = branch_value(em, tf, name), *fv = branch_value(em, ff, name);
    if (tv == NULL && fv == NULL)
      continue;
    if (tv == NULL && tf->exited)
      tv = uninitialized(em, ir_block(node, 0), fv->type);
    if (fv == NULL && ff->exited)
      fv = uninitialized(em, ir_block(node, 1), tv->type);
    if (tv == NULL || fv == NULL) {
      /* Bound on one path only: an error only if read later (PyTorch's rule). */
      g_autofree char *why = g_strdup_printf(
        "'%s' is not defined in the %s branch of the if at %d:%d", name,
        tv == NULL ? "true" : "false", loc.line, loc.col);
      g_hash_table_insert(em->frame->undefined_here, (gpointer)name,
                          (gpointer)g_string_chunk_insert_const(em->graph->strings, why));
      g_hash_table_remove(em->frame->vars, name);
      continue;
    }
    const IrType *type = emit_unify_types(tv->type, fv->type);
    if (type == NULL) {
      g_autofree char *ts = ir_type_to_string(tv->type), *fs = ir_type_to_string(fv->type);
      return emit_fail(em, loc, "'%s' is %s in the true branch but %s in the false branch",
                       name, ts, fs);
    }
    ir_block_add_output(ir_block(node, 0), tv);
    ir_block_add_output(ir_block(node, 1), fv);
    IrValue *out = ir_node_add_output(node, type);
    emit_bind(em, name, out);
  }
  return true;
}

static bool
emit_if(Emitter *em, const ScriptStmt *s)
{
  IrValue *cond = emit_condition(em, s->cond);
  if (cond == NULL)
    return false;
  IrNode *node = ir_node_create(em->graph, IR_PRIM_IF, 0);
  ir_node_add_input(node, cond);
  emit_set_source(em, node, s->loc);
  emit_append(em, node);
  Frame *tf = emit_branch(em, ir_node_add_block(node), s->body);
  Frame *ff = tf ? emit_branch(em, ir_node_add_block(node), s->orelse) : NULL;
  bool ok = ff != NULL && join_branches(em, node, tf, ff, s->loc);
  if (ok && tf->exited && ff->exited)
    em->frame->exited = true;
  free_detached_frame(tf);
  free_detached_frame(ff);
  return ok;
}

/* --- loops --- */

static void
collect_target_names(const ScriptExpr *target, GHashTable *into)
{
  if (target->kind == SE_NAME) {
    g_hash_table_add(into, (gpointer)target->name);
    return;
  }
  if (target->kind == SE_TUPLE || target->kind == SE_LIST)
    for (guint i = 0; i < target->args->len; i++)
      collect_target_names(g_ptr_array_index(target->args, i), into);
}

/* Names a loop body may rebind (nested blocks included, nested defs' bodies excluded). */
static void
collect_assigned(GPtrArray *stmts, GHashTable *into)
{
  for (guint i = 0; stmts && i < stmts->len; i++) {
    const ScriptStmt *s = g_ptr_array_index(stmts, i);
    if (s->kind == SS_ASSIGN || s->kind == SS_AUG_ASSIGN || s->kind == SS_FOR)
      collect_target_names(s->target, into);
    if (s->kind == SS_DEF)
      g_hash_table_add(into, (gpointer)s->def->name);
    collect_assigned(s->body, into);
    collect_assigned(s->orelse, into);
  }
}

/* prim::Loop(trip_count, start_condition, carried...) with body `stmts`; `counter` names the
 * block's iteration input (NULL: unnamed); `cond` (while loops) is re-evaluated at the end of
 * the body. */
static bool
emit_loop(Emitter *em, const ScriptStmt *s, IrValue *trip_count, IrValue *start_cond,
          const char *counter, const ScriptExpr *cond)
{
  g_autoptr(GHashTable) assigned = g_hash_table_new(g_str_hash, g_str_equal);
  collect_assigned(s->body, assigned);
  if (counter)
    g_hash_table_remove(assigned, counter);
  g_autoptr(GPtrArray) names = sorted_names(em, assigned);

  IrNode *node = ir_node_create(em->graph, IR_PRIM_LOOP, 0);
  ir_node_add_input(node, trip_count);
  ir_node_add_input(node, start_cond);
  IrBlock *body = ir_node_add_block(node);
  IrValue *iteration = ir_block_add_input(body, ir_type_int(), NULL);
  g_autoptr(GPtrArray) initial = g_ptr_array_new();
  for (guint i = 0; i < names->len; i++) {
    const char *name = g_ptr_array_index(names, i);
    IrValue *v = emit_lookup(em, name);
    if (v == NULL) { /* first bound in the body: carried from prim::Uninitialized */
      IrNode *u = ir_node_create(em->graph, IR_PRIM_UNINITIALIZED, 1);
      emit_append(em, u);
      v = ir_output(u, 0);
    }
    g_ptr_array_add(initial, v);
    ir_node_add_input(node, v);
  }
  emit_set_source(em, node, s->loc);
  emit_append(em, node);

  Frame *f = emit_frame_push(em, body);
  if (counter)
    emit_bind(em, counter, iteration);
  for (guint i = 0; i < names->len; i++) {
    IrValue *v = g_ptr_array_index(initial, i);
    IrValue *in = ir_block_add_input(body, v->type, NULL);
    ir_value_set_name(in, g_ptr_array_index(names, i));
    g_hash_table_insert(f->vars, g_ptr_array_index(names, i), in);
  }
  bool ok = emit_statements(em, s->body);
  IrValue *next_cond = NULL;
  if (ok)
    next_cond = cond ? emit_condition(em, cond) : start_cond;
  ok = next_cond != NULL;
  g_autoptr(GPtrArray) finals = g_ptr_array_new();
  for (guint i = 0; ok && i < names->len; i++) {
    IrValue *v = emit_lookup(em, g_ptr_array_index(names, i));
    if (v == NULL) {
      ok = emit_fail(em, s->loc, "'%s' is not defined on every path through the loop body",
                     (const char *)g_ptr_array_index(names, i));
      break;
    }
    g_ptr_array_add(finals, v);
  }
  emit_frame_pop(em);
  if (!ok)
    return false;
  ir_block_add_output(body, next_cond);
  for (guint i = 0; i < names->len; i++) {
    IrValue *in = g_ptr_array_index(initial, i), *out = g_ptr_array_index(finals, i);
    IrValue *carried = ir_block_inputs(body)->pdata[i + 1];
    if (in->node->kind == IR_PRIM_UNINITIALIZED)
      ir_value_set_type(in, out->type);
    const IrType *type = emit_unify_types(in->type, out->type);
    if (type == NULL) {
      g_autofree char *a = ir_type_to_string(in->type), *b = ir_type_to_string(out->type);
      return emit_fail(em, s->loc, "'%s' is %s before the loop but %s after an iteration",
                       (const char *)g_ptr_array_index(names, i), a, b);
    }
    ir_value_set_type(carried, type);
    ir_block_add_output(body, out);
    IrValue *result = ir_node_add_output(node, type);
    emit_bind(em, g_ptr_array_index(names, i), result);
  }
  return true;
}

static bool
emit_for(Emitter *em, const ScriptStmt *s)
{
  const ScriptExpr *iter = s->value;
  if (iter->kind == SE_CALL && ((ScriptExpr *)g_ptr_array_index(iter->args, 0))->kind == SE_NAME &&
      strcmp(((ScriptExpr *)g_ptr_array_index(iter->args, 0))->name, "range") == 0 &&
      emit_lookup(em, "range") == NULL) {
    if (iter->args->len != 2 || iter->kwargs->len != 0)
      return emit_fail(em, iter->loc, "only range(n) with one argument is supported");
    if (s->target->kind != SE_NAME)
      return emit_fail(em, s->target->loc, "the variable of a range loop must be a name");
    IrValue *n = emit_expr(em, g_ptr_array_index(iter->args, 1));
    if (n == NULL)
      return false;
    if (n->type->kind != IR_TYPE_INT) {
      g_autofree char *ts = ir_type_to_string(n->type);
      return emit_fail(em, ((ScriptExpr *)g_ptr_array_index(iter->args, 1))->loc,
                       "range() needs an int, got %s", ts);
    }
    IrValue *always = emit_constant_bool(em, true, &s->loc);
    return emit_loop(em, s, n, always, s->target->name, NULL);
  }
  /* Over a tuple: unpacked once, then one copy of the body per element (PyTorch's rule). */
  IrValue *tuple = emit_expr(em, iter);
  if (tuple == NULL)
    return false;
  if (tuple->type->kind != IR_TYPE_TUPLE) {
    g_autofree char *ts = ir_type_to_string(tuple->type);
    return emit_fail(em, iter->loc,
                     "for loops run over range(n) or a tuple; iterating over %s is not supported",
                     ts);
  }
  IrNode *unpack = ir_node_create(em->graph, IR_PRIM_TUPLE_UNPACK, tuple->type->n_elems);
  ir_node_add_input(unpack, tuple);
  for (guint i = 0; i < tuple->type->n_elems; i++)
    ir_value_set_type(ir_output(unpack, i), tuple->type->elems[i]);
  emit_append(em, unpack);
  for (guint i = 0; i < tuple->type->n_elems; i++)
    if (!assign(em, s->target, ir_output(unpack, i), s->target->loc) ||
        !emit_statements(em, s->body))
      return false;
  return true;
}

static bool
emit_while(Emitter *em, const ScriptStmt *s)
{
  const ScriptExpr max_int = {.kind = SE_INT, .int_value = G_MAXINT64};
  IrValue *max_trips = emit_literal(em, &max_int, false, s->loc);
  IrValue *cond = emit_condition(em, s->cond);
  return cond != NULL && emit_loop(em, s, max_trips, cond, NULL, s->cond);
}

/* --- raise, assert, return --- */

/* prim::RaiseException(message, class name) as PyTorch 1.13 emits it. */
static void
raise_exception(Emitter *em, IrValue *message, IrValue *class_name, ScriptLoc loc)
{
  IrNode *n = ir_node_create(em->graph, IR_PRIM_RAISE_EXCEPTION, 0);
  ir_node_add_input(n, message);
  ir_node_add_input(n, class_name);
  emit_set_source(em, n, loc);
  emit_append(em, n);
}

/* `raise E("message")`: the message, then "builtins.E" located at E. */
static bool
emit_raise(Emitter *em, const ScriptStmt *s)
{
  const ScriptExpr *e = s->value;
  if (e == NULL || e->kind != SE_CALL || ((ScriptExpr *)g_ptr_array_index(e->args, 0))->kind !=
                                             SE_NAME || e->args->len > 2 || e->kwargs->len)
    return emit_fail(em, e ? e->loc : s->loc,
                     "raise needs an exception built from a message: raise E(\"...\")");
  const ScriptExpr *cls = g_ptr_array_index(e->args, 0);
  IrValue *message;
  if (e->args->len == 2) {
    if (!(message = emit_expr(em, g_ptr_array_index(e->args, 1))))
      return false;
    if (message->type->kind != IR_TYPE_STR) {
      g_autofree char *ts = ir_type_to_string(message->type);
      return emit_fail(em, ((ScriptExpr *)g_ptr_array_index(e->args, 1))->loc,
                       "an exception message must be a str, got %s", ts);
    }
  } else {
    message = emit_constant_str(em, "", &cls->loc);
  }
  g_autofree char *qualified = g_strdup_printf("builtins.%s", cls->name);
  raise_exception(em, message, emit_constant_str(em, qualified, &cls->loc), s->loc);
  em->frame->exited = true;
  return true;
}

static bool
emit_assert(Emitter *em, const ScriptStmt *s)
{
  IrValue *cond = emit_condition(em, s->cond);
  if (cond == NULL)
    return false;
  if (s->value && s->value->kind != SE_STRING)
    return emit_fail(em, s->value->loc, "an assert message must be a string literal");
  IrNode *node = ir_node_create(em->graph, IR_PRIM_IF, 0);
  ir_node_add_input(node, cond);
  emit_set_source(em, node, s->loc);
  emit_append(em, node);
  ir_node_add_block(node);
  emit_frame_push(em, ir_node_add_block(node));
  g_autofree char *message =
    g_strdup_printf("AssertionError: %s", s->value ? s->value->name : "");
  IrValue *text = emit_constant_str(em, message, NULL);
  raise_exception(em, text, emit_constant_none(em, NULL), s->loc);
  emit_frame_pop(em);
  return true;
}

static bool
emit_return(Emitter *em, const ScriptStmt *s)
{
  IrValue *v;
  if (s->value == NULL) {
    v = emit_constant_none(em, NULL);
  } else if (s->value->kind == SE_TUPLE) {
    guint n = s->value->args->len;
    IrNode *t = ir_node_create(em->graph, IR_PRIM_TUPLE_CONSTRUCT, 1);
    g_autofree const IrType **types = g_new(const IrType *, n);
    for (guint i = 0; i < n; i++) {
      IrValue *e = emit_expr(em, g_ptr_array_index(s->value->args, i));
      if (e == NULL)
        return false;
      ir_node_add_input(t, e);
      types[i] = e->type;
    }
    ir_value_set_type(ir_output(t, 0), ir_type_tuple(types, n));
    emit_append(em, t);
    v = ir_output(t, 0);
  } else if (!(v = emit_expr(em, s->value))) {
    return false;
  }
  ir_block_add_output(em->frame->block, v);
  return true;
}

/* --- statements --- */

static bool
emit_statement(Emitter *em, const ScriptStmt *s, bool is_last_of_function)
{
  switch (s->kind) {
  case SS_EXPR: return emit_expr(em, s->value) != NULL;
  case SS_ASSIGN: return emit_assign(em, s);
  case SS_AUG_ASSIGN: return emit_aug_assign(em, s);
  case SS_IF: return emit_if(em, s);
  case SS_FOR: return emit_for(em, s);
  case SS_WHILE: return emit_while(em, s);
  case SS_PASS: return true;
  case SS_BREAK:
  case SS_CONTINUE:
    return emit_fail(em, s->loc, "'%s' is not supported yet",
                     s->kind == SS_BREAK ? "break" : "continue");
  case SS_RETURN:
    if (!is_last_of_function)
      return emit_fail(em, s->loc,
                       "return is supported only as the last statement of a function");
    return emit_return(em, s);
  case SS_RAISE: return emit_raise(em, s);
  case SS_ASSERT: return emit_assert(em, s);
  case SS_DEF: return emit_closure(em, s->def);
  }
  return emit_fail(em, s->loc, "unsupported statement");
}

/* Only a function body's last statement may be a return. */
static bool
emit_block_statements(Emitter *em, GPtrArray *stmts, bool function_body)
{
  for (guint i = 0; i < stmts->len && !em->frame->exited; i++)
    if (!emit_statement(em, g_ptr_array_index(stmts, i), function_body && i == stmts->len - 1))
      return false;
  return true;
}

bool
emit_statements(Emitter *em, GPtrArray *stmts)
{
  return emit_block_statements(em, stmts, false);
}

bool
emit_function_statements(Emitter *em, GPtrArray *stmts)
{
  return emit_block_statements(em, stmts, true);
}

const IrType *
emit_param_type(Emitter *em, const ScriptTypeExpr *type)
{
  if (type == NULL)
    return ir_type_tensor();
  static const struct {
    const char *name;
    const IrType *(*make)(void);
  } simple[] = {
    {"Tensor", ir_type_tensor}, {"torch.Tensor", ir_type_tensor}, {"int", ir_type_int},
    {"float", ir_type_float},   {"bool", ir_type_bool},           {"str", ir_type_str},
    {"None", ir_type_none},     {"Device", ir_type_device},
  };
  guint n_args = type->args ? type->args->len : 0;
  for (guint i = 0; i < G_N_ELEMENTS(simple); i++)
    if (strcmp(type->name, simple[i].name) == 0) {
      if (n_args)
        return emit_fail(em, type->loc, "type %s takes no arguments", type->name);
      return simple[i].make();
    }
  const char *head = strrchr(type->name, '.') ? strrchr(type->name, '.') + 1 : type->name;
  g_autofree const IrType **args = g_new0(const IrType *, n_args + 1);
  for (guint i = 0; i < n_args; i++)
    if (!(args[i] = emit_param_type(em, g_ptr_array_index(type->args, i))))
      return NULL;
  if (strcmp(head, "List") == 0 || strcmp(head, "Optional") == 0) {
    if (n_args != 1)
      return emit_fail(em, type->loc, "%s[...] takes exactly one type", head);
    return head[0] == 'L' ? ir_type_list(args[0]) : ir_type_optional(args[0]);
  }
  if (strcmp(head, "Tuple") == 0) {
    if (n_args == 0)
      return emit_fail(em, type->loc, "Tuple needs its element types: Tuple[T, ...]");
    return ir_type_tuple(args, n_args);
  }
  return emit_fail(em, type->loc, "unknown type '%s'", type->name);
}

/* Emits `def` as a graph: its parameters as inputs, its body, its return. */
static IrGraph *
emit_function(const ScriptSource *src, const ScriptTree *tree, const ScriptDef *def,
              GError **error)
{
  Emitter em = {.src = src, .tree = tree, .graph = ir_graph_new(), .error = error};
  em.literals = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  em.definition_order = g_hash_table_new(g_str_hash, g_str_equal);
  emit_frame_push(&em, em.graph->block);
  bool ok = true;
  for (guint i = 0; ok && i < def->params->len; i++) {
    const ScriptParam *param = g_ptr_array_index(def->params, i);
    const IrType *type = emit_param_type(&em, param->type);
    if (type == NULL) {
      ok = false;
      break;
    }
    emit_bind(&em, param->name, ir_graph_add_input(em.graph, type, param->name));
  }
  ok = ok && emit_function_statements(&em, def->body);
  const GPtrArray *stmts = def->body;
  if (ok && ir_graph_outputs(em.graph)->len == 0 &&
      (stmts->len == 0 ||
       ((ScriptStmt *)g_ptr_array_index(stmts, stmts->len - 1))->kind != SS_RETURN))
    ir_graph_add_output(em.graph, emit_constant_none(&em, NULL));
  emit_frame_pop(&em);
  g_hash_table_unref(em.literals);
  g_hash_table_unref(em.definition_order);
  if (!ok) {
    ir_graph_free(em.graph);
    return NULL;
  }
  /* PyTorch's cleanup after emitting. Its constant propagation folds only immutable types,
   * which here means negated literals, folded as they are emitted (emit_expr.c). */
  pass_eliminate_dead_code(em.graph);
  pass_constant_pooling(em.graph);
  return em.graph;
}

bool
script_is_source_file(const char *path)
{
  return g_str_has_suffix(path, ".py");
}

IrGraph *
script_compile(const char *text, gsize length, const char *filename, const char *function,
               GError **error)
{
  ScriptSource src = {.filename = filename, .text = text, .length = length};
  g_autoptr(ScriptTree) tree = script_parse(&src, error);
  if (tree == NULL)
    return NULL;
  const ScriptDef *def = g_ptr_array_index(tree->defs, 0);
  if (function != NULL) {
    def = NULL;
    for (guint i = 0; i < tree->defs->len && !def; i++)
      if (strcmp(((ScriptDef *)g_ptr_array_index(tree->defs, i))->name, function) == 0)
        def = g_ptr_array_index(tree->defs, i);
    if (def == NULL) {
      g_set_error(error, JITSCOPE_PARSE_ERROR, 0, "%s: error: no function named '%s'",
                  filename, function);
      return NULL;
    }
  }
  return emit_function(&src, tree, def, error);
}
