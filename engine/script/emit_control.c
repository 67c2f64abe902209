/* The emitter's control flow (contract in emit.h): prim::If for if statements, prim::Loop for
 * range and while loops with their carried values, loops over tuples unrolled. Algorithm:
 * PyTorch's script/compiler.cpp (2019) emitIf / emitLoopCommon; outputs and carried values in
 * the order emit.h's definition_order gives. */
#include <string.h>

#include "script/emit.h"

/* --- if --- */

/* By first definition; names not bound yet last, alphabetically. */
static gint compare_names(gconstpointer a, gconstpointer b, gpointer emitter) {
  const char *na = *(const char *const *)a, *nb = *(const char *const *)b;
  GHashTable *order = ((Emitter *)emitter)->definition_order;
  guint oa = GPOINTER_TO_UINT(g_hash_table_lookup(order, na));
  guint ob = GPOINTER_TO_UINT(g_hash_table_lookup(order, nb));
  if (oa != ob)
    return oa == 0 ? 1 : ob == 0 ? -1 : oa < ob ? -1 : 1;
  return strcmp(na, nb);
}

/* The keys of a set of names in the order of prim::If and prim::Loop outputs. */
static GPtrArray *sorted_names(Emitter *em, GHashTable *set) {
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
static GPtrArray *names_bound(Emitter *em, Frame *a, Frame *b) {
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

/* The names a condition proves not None where it holds (true_branch) or fails (PyTorch's
 * refinements): `x is not None` (and chains of them joined by `and`) where it holds, `x is
 * None` (and chains joined by `or`) where it fails. */
static void collect_refinements(const ScriptExpr *cond, bool true_branch, GPtrArray *names) {
  if ((cond->kind == SE_AND && true_branch) || (cond->kind == SE_OR && !true_branch)) {
    for (guint i = 0; i < cond->args->len; i++)
      collect_refinements(g_ptr_array_index(cond->args, i), true_branch, names);
    return;
  }
  if (cond->kind != SE_COMPARE || cond->args->len != 2)
    return;
  const ScriptExpr *left = g_ptr_array_index(cond->args, 0);
  const ScriptExpr *right = g_ptr_array_index(cond->args, 1);
  bool is_not = strcmp(cond->op, "is not") == 0;
  if (left->kind != SE_NAME || right->kind != SE_NONE || (!is_not && strcmp(cond->op, "is") != 0))
    return;
  if (is_not == true_branch)
    g_ptr_array_add(names, (gpointer)left->name);
}

void emit_refine(Emitter *em, const ScriptExpr *cond, bool true_branch) {
  g_autoptr(GPtrArray) refined = g_ptr_array_new();
  collect_refinements(cond, true_branch, refined);
  for (guint i = 0; i < refined->len; i++) {
    const char *name = g_ptr_array_index(refined, i);
    IrValue *v = emit_lookup(em, name);
    if (v == NULL || v->type->kind != IR_TYPE_OPTIONAL)
      continue;
    IrNode *cast = ir_node_create(em->graph, IR_PRIM_UNCHECKED_CAST, 1);
    ir_node_add_input(cast, v);
    ir_value_set_type(ir_output(cast, 0), v->type->elem);
    ir_node_resolve_schema(cast);
    emit_append(em, cast);
    emit_bind(em, name, ir_output(cast, 0));
  }
}

/* Emits one branch into `block`, the names its side of `cond` proves not None refined at its
 * start (emit_refine); returns its frame (popped by the caller) or NULL. */
static Frame *emit_branch(Emitter *em, IrBlock *block, GPtrArray *stmts, const ScriptExpr *cond,
                          bool true_branch) {
  emit_frame_push(em, block);
  Frame *f = em->frame;
  emit_refine(em, cond, true_branch);
  if (stmts && !emit_statements(em, stmts)) {
    emit_frame_pop(em);
    return NULL;
  }
  em->frame = f->parent; /* detach without freeing: the caller still reads f */
  return f;
}

static void free_detached_frame(Frame *f) {
  if (f == NULL)
    return;
  g_hash_table_unref(f->vars);
  g_hash_table_unref(f->undefined_here);
  g_free(f);
}

/* A value of `type` for a branch that raised: prim::Uninitialized at the branch's end. */
static IrValue *uninitialized(Emitter *em, IrBlock *block, const IrType *type) {
  IrNode *n = ir_node_create(em->graph, IR_PRIM_UNINITIALIZED, 1);
  ir_value_set_type(ir_output(n, 0), type);
  ir_node_append_to(n, block);
  return ir_output(n, 0);
}

/* Branch value of `name` seen from frame f (its own binding or an enclosing one). */
static IrValue *branch_value(Emitter *em, Frame *f, const char *name) {
  Frame *saved = em->frame;
  em->frame = f;
  IrValue *v = emit_lookup(em, name);
  em->frame = saved;
  return v;
}

/* Makes the If node's outputs from its two emitted branches. A branch that exited (break,
 * continue, return, raise) gives prim::Uninitialized for every output: no path reads it. */
static bool join_branches(Emitter *em, IrNode *node, Frame *tf, Frame *ff, ScriptLoc loc) {
  if (tf->exited && ff->exited)
    return true;
  g_autoptr(GPtrArray) names = names_bound(em, tf, ff);
  for (guint i = 0; i < names->len; i++) {
    const char *name = g_ptr_array_index(names, i);
    IrValue *tv = branch_value(em, tf, name), *fv = branch_value(em, ff, name);
    if (tv == NULL && fv == NULL)
      continue;
    bool t_missing = tv == NULL && !tf->exited, f_missing = fv == NULL && !ff->exited;
    if (t_missing || f_missing) {
      /* Bound on one path only: an error only if read later (PyTorch's rule). */
      g_autofree char *why =
          g_strdup_printf("'%s' is not defined in the %s branch of the if at %d:%d", name,
                          t_missing ? "true" : "false", loc.line, loc.col);
      g_hash_table_insert(em->frame->undefined_here, (gpointer)name,
                          (gpointer)g_string_chunk_insert_const(em->graph->strings, why));
      g_hash_table_remove(em->frame->vars, name);
      continue;
    }
    const IrType *declared = g_hash_table_lookup(em->declared_types, name);
    if (tf->exited)
      tv = uninitialized(em, ir_block(node, 0), declared ? declared : fv->type);
    if (ff->exited)
      fv = uninitialized(em, ir_block(node, 1), declared ? declared : tv->type);
    const IrType *type = emit_unify_types(tv->type, fv->type);
    if (type != NULL && declared != NULL && ir_type_is_subtype(type, declared))
      type = declared;
    if (type == NULL) {
      g_autofree char *ts = ir_type_to_string(tv->type), *fs = ir_type_to_string(fv->type);
      return emit_fail(em, loc, "'%s' is %s in the true branch but %s in the false branch", name,
                       ts, fs);
    }
    ir_block_add_output(ir_block(node, 0), tv);
    ir_block_add_output(ir_block(node, 1), fv);
    IrValue *out = ir_node_add_output(node, type);
    emit_bind(em, name, out);
  }
  return true;
}

bool emit_if(Emitter *em, const ScriptStmt *s) {
  IrValue *cond = emit_condition(em, s->cond);
  if (cond == NULL)
    return false;
  IrNode *node = ir_node_create(em->graph, IR_PRIM_IF, 0);
  ir_node_add_input(node, cond);
  emit_set_source(em, node, s->loc);
  emit_append(em, node);
  Frame *tf = emit_branch(em, ir_node_add_block(node), s->body, s->cond, true);
  Frame *ff = tf ? emit_branch(em, ir_node_add_block(node), s->orelse, s->cond, false) : NULL;
  bool ok = ff != NULL && join_branches(em, node, tf, ff, s->loc);
  if (ok && tf->exited && ff->exited)
    em->frame->exited = true;
  free_detached_frame(tf);
  free_detached_frame(ff);
  return ok;
}

/* --- loops --- */

static void collect_target_names(const ScriptExpr *target, GHashTable *into) {
  if (target->kind == SE_NAME) {
    g_hash_table_add(into, (gpointer)target->name);
    return;
  }
  if (target->kind == SE_TUPLE || target->kind == SE_LIST)
    for (guint i = 0; i < target->args->len; i++)
      collect_target_names(g_ptr_array_index(target->args, i), into);
}

/* Names a loop body may rebind (nested blocks included, nested defs' bodies excluded). */
static void collect_assigned(GPtrArray *stmts, GHashTable *into) {
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

/* prim::Loop(trip_count, start_condition, carried...) with body `stmts`; `target` (a name,
 * or names to unpack with `over_list`) is bound to the block's iteration input (NULL:
 * unnamed), with `start_step` ({start, step} of a range(start, end, step)) to
 * aten::__derive_index(iteration, start, step), or with `over_list` to the list's item at
 * that iteration (aten::__getitem__, as PyTorch emits `for x in xs`); `cond` (while loops) is
 * re-evaluated at the end of the body. */
static bool emit_loop(Emitter *em, const ScriptStmt *s, IrValue *trip_count, IrValue *start_cond,
                      const ScriptExpr *target, const ScriptExpr *cond, IrValue *over_list,
                      IrValue *const *start_step) {
  g_autoptr(GHashTable) assigned = g_hash_table_new(g_str_hash, g_str_equal);
  collect_assigned(s->body, assigned);
  if (target) {
    g_autoptr(GHashTable) bound = g_hash_table_new(g_str_hash, g_str_equal);
    collect_target_names(target, bound);
    GHashTableIter it;
    gpointer name;
    g_hash_table_iter_init(&it, bound);
    while (g_hash_table_iter_next(&it, &name, NULL))
      g_hash_table_remove(assigned, name);
  }
  /* Only names bound before the loop are carried: one first bound in the body is the body's
   * own, undefined after the loop (PyTorch's rule: the loop may not run). */
  g_autoptr(GPtrArray) body_only = g_ptr_array_new();
  GHashTableIter it;
  gpointer key;
  g_hash_table_iter_init(&it, assigned);
  while (g_hash_table_iter_next(&it, &key, NULL))
    if (emit_lookup(em, key) == NULL) {
      g_ptr_array_add(body_only, key);
      g_hash_table_iter_remove(&it);
    }
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
    g_ptr_array_add(initial, v);
    ir_node_add_input(node, v);
  }
  emit_set_source(em, node, s->loc);
  emit_append(em, node);

  Frame *f = emit_frame_push(em, body);
  if (target && over_list) {
    IrValue *item = emit_list_item(em, over_list, iteration, s->loc);
    if (item == NULL || !emit_assign_target(em, target, item, s->loc)) {
      emit_frame_pop(em);
      return false;
    }
  } else if (target && start_step) {
    IrValue *args[3] = {iteration, start_step[0], start_step[1]};
    IrValue *index = emit_builtin_call(em, "aten::__derive_index", s->loc, args, 3, NULL, NULL);
    if (index == NULL) {
      emit_frame_pop(em);
      return false;
    }
    emit_bind(em, target->name, index);
  } else if (target) {
    emit_bind(em, target->name, iteration);
  }
  for (guint i = 0; i < names->len; i++) {
    IrValue *v = g_ptr_array_index(initial, i);
    const IrType *declared = g_hash_table_lookup(em->declared_types, g_ptr_array_index(names, i));
    IrValue *in = ir_block_add_input(body, declared ? declared : v->type, NULL);
    ir_value_set_name(in, g_ptr_array_index(names, i));
    g_hash_table_insert(f->vars, g_ptr_array_index(names, i), in);
  }
  EmitLoop loop = {.outer = em->loop,
                   .names = names,
                   .cond = cond,
                   .always = start_cond,
                   .exits = g_array_new(FALSE, FALSE, sizeof(EmitExit))};
  em->loop = &loop;
  bool ok = emit_statements(em, s->body);
  em->loop = loop.outer;
  g_autoptr(GArray) exits = loop.exits;
  /* A body that always exits ends unreachable: its outputs are the block's inputs, which
   * script_transform_exits replaces by what the exits send. */
  bool unreachable = f->exited;
  IrValue *next_cond = NULL;
  if (ok)
    next_cond = cond && !unreachable ? emit_condition(em, cond) : start_cond;
  ok = next_cond != NULL;
  g_autoptr(GPtrArray) finals = g_ptr_array_new();
  for (guint i = 0; ok && i < names->len; i++) {
    IrValue *v = unreachable ? ir_block_inputs(body)->pdata[i + 1]
                             : emit_lookup(em, g_ptr_array_index(names, i));
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
    const char *name = g_ptr_array_index(names, i);
    IrValue *in = g_ptr_array_index(initial, i), *out = g_ptr_array_index(finals, i);
    IrValue *carried = ir_block_inputs(body)->pdata[i + 1];
    /* The carried type: what enters the loop, what an iteration leaves and what each break
     * and continue sends, unified. script_transform_exits joins these in pairs (an If's two
     * branches), so each must unify with every one before it, not only with their union. */
    const IrType *declared = g_hash_table_lookup(em->declared_types, name);
    const IrType *type = declared ? declared : in->type;
    for (guint e = 0; e <= exits->len; e++) {
      const EmitExit *x = e < exits->len ? &g_array_index(exits, EmitExit, e) : NULL;
      IrValue *sent = x ? ir_input(x->node, i + 1) : out;
      if (sent == carried)
        continue;
      const IrType *clash = emit_unify_types(in->type, sent->type) ? NULL : in->type;
      for (guint p = 0; p < e && !clash; p++) {
        const IrType *before = ir_input(g_array_index(exits, EmitExit, p).node, i + 1)->type;
        if (!emit_unify_types(before, sent->type))
          clash = before;
      }
      const IrType *with = clash ? NULL : emit_unify_types(type, sent->type);
      if (with == NULL) {
        g_autofree char *a = ir_type_to_string(clash ? clash : type);
        g_autofree char *b = ir_type_to_string(sent->type);
        if (x)
          return emit_fail(em, x->loc, "'%s' is %s here but %s where the loop carries it", name, b,
                           a);
        return emit_fail(em, s->loc, "'%s' is %s before the loop but %s after an iteration", name,
                         a, b);
      }
      type = with;
    }
    ir_value_set_type(carried, type);
    ir_block_add_output(body, out);
    IrValue *result = ir_node_add_output(node, type);
    emit_bind(em, name, result);
  }
  for (guint i = 0; i < body_only->len; i++) {
    const char *name = g_ptr_array_index(body_only, i);
    g_autofree char *why =
        g_strdup_printf("'%s' is bound only inside the loop at %d:%d, which may not run", name,
                        s->loc.line, s->loc.col);
    g_hash_table_insert(em->frame->undefined_here, (gpointer)name,
                        (gpointer)g_string_chunk_insert_const(em->graph->strings, why));
  }
  return true;
}

bool emit_for(Emitter *em, const ScriptStmt *s) {
  const ScriptExpr *iter = s->value;
  if (iter->kind == SE_CALL && ((ScriptExpr *)g_ptr_array_index(iter->args, 0))->kind == SE_NAME &&
      strcmp(((ScriptExpr *)g_ptr_array_index(iter->args, 0))->name, "range") == 0 &&
      emit_lookup(em, "range") == NULL) {
    guint n_args = iter->args->len - 1;
    if (n_args < 1 || n_args > 3 || iter->kwargs->len != 0)
      return emit_fail(em, iter->loc, "range() takes 1 to 3 int arguments, got %u", n_args);
    if (s->target->kind != SE_NAME)
      return emit_fail(em, s->target->loc, "the variable of a range loop must be a name");
    IrValue *bounds[3];
    for (guint i = 0; i < n_args; i++) {
      const ScriptExpr *a = g_ptr_array_index(iter->args, i + 1);
      if (!(bounds[i] = emit_expr(em, a)))
        return false;
      if (bounds[i]->type->kind != IR_TYPE_INT) {
        g_autofree char *ts = ir_type_to_string(bounds[i]->type);
        return emit_fail(em, a->loc, "range() needs ints, got %s", ts);
      }
    }
    IrValue *always = emit_constant_bool(em, true, &s->loc);
    if (n_args == 1) /* range(n): n trips, i the iteration number */
      return emit_loop(em, s, bounds[0], always, s->target, NULL, NULL, NULL);
    /* range(start, end[, step]): PyTorch's trip count and derived index */
    IrValue *start_step[2] = {bounds[0],
                              n_args == 3 ? bounds[2] : emit_constant_int(em, 1, &s->loc)};
    IrValue *args[3] = {bounds[0], bounds[1], start_step[1]};
    IrValue *trips = emit_builtin_call(em, "aten::__range_length", s->loc, args, 3, NULL, NULL);
    return trips && emit_loop(em, s, trips, always, s->target, NULL, NULL, start_step);
  }
  /* Over a tuple: unpacked once, then one copy of the body per element (PyTorch's rule). */
  IrValue *tuple = emit_expr(em, iter);
  if (tuple == NULL)
    return false;
  if (tuple->type->kind == IR_TYPE_DICT) { /* over its keys, as Python's */
    tuple = emit_builtin_call(em, "aten::keys", s->loc, &tuple, 1, NULL, NULL);
    if (tuple == NULL)
      return false;
  }
  if (tuple->type->kind == IR_TYPE_LIST) {
    /* Over a list: len(list) iterations reading list[i] (the body may append to it; the
     * trip count is fixed when the loop starts, as in PyTorch); the item may be unpacked
     * (`for k, v in d.items()`). */
    IrValue *args[] = {tuple};
    IrValue *n = emit_builtin_call(em, "aten::len", s->loc, args, 1, NULL, NULL);
    if (n == NULL)
      return false;
    IrValue *always = emit_constant_bool(em, true, &s->loc);
    return emit_loop(em, s, n, always, s->target, NULL, tuple, NULL);
  }
  if (tuple->type->kind != IR_TYPE_TUPLE) {
    g_autofree char *ts = ir_type_to_string(tuple->type);
    return emit_fail(
        em, iter->loc,
        "for loops run over range(n), a tuple, a list or a dict; iterating over %s is not "
        "supported",
        ts);
  }
  IrNode *unpack = ir_node_create(em->graph, IR_PRIM_TUPLE_UNPACK, tuple->type->n_elems);
  ir_node_add_input(unpack, tuple);
  for (guint i = 0; i < tuple->type->n_elems; i++)
    ir_value_set_type(ir_output(unpack, i), tuple->type->elems[i]);
  emit_append(em, unpack);
  EmitLoop unrolled = {.outer = em->loop, .unrolled = true};
  em->loop = &unrolled;
  bool ok = true;
  for (guint i = 0; ok && i < tuple->type->n_elems; i++)
    ok = emit_assign_target(em, s->target, ir_output(unpack, i), s->target->loc) &&
         emit_statements(em, s->body);
  em->loop = unrolled.outer;
  return ok;
}

bool emit_while(Emitter *em, const ScriptStmt *s) {
  const ScriptExpr max_int = {.kind = SE_INT, .int_value = G_MAXINT64};
  IrValue *max_trips = emit_literal(em, &max_int, false, s->loc);
  IrValue *cond = emit_condition(em, s->cond);
  return cond != NULL && emit_loop(em, s, max_trips, cond, NULL, s->cond, NULL, NULL);
}
