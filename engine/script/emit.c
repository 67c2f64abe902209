/* The emitter's frames, constants, simple statements and script_compile (contracts in
 * emit.h, script.h). Algorithm: PyTorch's script/compiler.cpp (2019): environment frames per
 * block (control flow in emit_control.c); the cleanup PyTorch runs after emitting (dead code,
 * constant pooling) follows. */
#include "script/emit.h"

#include <stdarg.h>
#include <string.h>

#include "ir/text.h"
#include "passes/passes.h"
#include "script/parser.h"
#include "script/script.h"

Frame *emit_frame_push(Emitter *em, IrBlock *block) {
  Frame *f = g_new0(Frame, 1);
  f->parent = em->frame;
  f->block = block;
  f->vars = g_hash_table_new(g_str_hash, g_str_equal);
  f->undefined_here = g_hash_table_new(g_str_hash, g_str_equal);
  em->frame = f;
  return f;
}

void emit_frame_pop(Emitter *em) {
  Frame *f = em->frame;
  em->frame = f->parent;
  g_hash_table_unref(f->vars);
  g_hash_table_unref(f->undefined_here);
  if (f->captured)
    g_ptr_array_unref(f->captured);
  g_free(f);
}

static IrValue *lookup_in(Emitter *em, Frame *frame, const char *name, const char **why) {
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

IrValue *emit_lookup(Emitter *em, const char *name) {
  const char *why = NULL;
  return lookup_in(em, em->frame, name, &why);
}

const char *emit_why_undefined(Emitter *em, const char *name) {
  const char *why = NULL;
  lookup_in(em, em->frame, name, &why);
  return why;
}

void emit_bind(Emitter *em, const char *name, IrValue *value) {
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

gpointer emit_fail(Emitter *em, ScriptLoc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  g_autofree char *message = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  if (em->error && *em->error == NULL)
    script_error_at(em->error, em->src, loc.line, loc.col, "%s", message);
  return NULL;
}

void emit_set_source(Emitter *em, IrNode *node, ScriptLoc loc) {
  /* PyTorch's source comments count lines from 1 and columns from 0 (error messages, like
   * every FILE:LINE:COL of ours, count columns from 1). */
  g_autofree char *s = g_strdup_printf("%s:%d:%d", em->src->filename, loc.line, loc.col - 1);
  node->source = g_string_chunk_insert_const(em->graph->strings, s);
}

IrNode *emit_append(Emitter *em, IrNode *node) {
  ir_node_append_to(node, em->frame->block);
  return node;
}

static IrValue *constant(Emitter *em, const IrType *type, const ScriptLoc *loc, IrNode **node) {
  *node = ir_node_create(em->graph, IR_PRIM_CONSTANT, 1);
  ir_value_set_type(ir_output(*node, 0), type);
  if (loc)
    emit_set_source(em, *node, *loc);
  emit_append(em, *node);
  return ir_output(*node, 0);
}

IrValue *emit_constant_int(Emitter *em, gint64 v, const ScriptLoc *loc) {
  IrNode *n;
  IrValue *out = constant(em, ir_type_int(), loc, &n);
  ir_node_set_attr_i(n, IR_ATTR_VALUE, v);
  return out;
}

IrValue *emit_constant_float(Emitter *em, double v, const ScriptLoc *loc) {
  IrNode *n;
  IrValue *out = constant(em, ir_type_float(), loc, &n);
  ir_node_set_attr_f(n, IR_ATTR_VALUE, v);
  return out;
}

IrValue *emit_constant_bool(Emitter *em, bool v, const ScriptLoc *loc) {
  IrNode *n;
  IrValue *out = constant(em, ir_type_bool(), loc, &n);
  ir_node_set_attr_i(n, IR_ATTR_VALUE, v);
  return out;
}

IrValue *emit_constant_none(Emitter *em, const ScriptLoc *loc) {
  IrNode *n;
  return constant(em, ir_type_none(), loc, &n);
}

IrValue *emit_constant_str(Emitter *em, const char *v, const ScriptLoc *loc) {
  IrNode *n;
  IrValue *out = constant(em, ir_type_str(), loc, &n);
  ir_node_set_attr_s(n, IR_ATTR_VALUE, v);
  return out;
}

IrValue *emit_literal(Emitter *em, const ScriptExpr *e, bool negate, ScriptLoc loc) {
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

bool emit_assign_target(Emitter *em, const ScriptExpr *target, IrValue *value, ScriptLoc loc) {
  if (target->kind == SE_NAME) {
    emit_bind(em, target->name, value);
    return true;
  }
  if (target->kind == SE_SUBSCRIPT)
    return emit_set_item(em, target, value, loc);
  if (target->kind != SE_TUPLE && target->kind != SE_LIST)
    return emit_fail(em, target->loc, "cannot assign to this expression");
  guint n = target->args->len;
  const IrType *t = value->type;
  IrNode *unpack;
  if (t->kind == IR_TYPE_TUPLE) {
    if (t->n_elems != n)
      return emit_fail(em, loc, "cannot unpack a tuple of %u values into %u names", t->n_elems, n);
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
    if (!emit_assign_target(em, g_ptr_array_index(target->args, i), ir_output(unpack, i), loc))
      return false;
  return true;
}

static bool emit_assign(Emitter *em, const ScriptStmt *s) {
  const ScriptExpr *target = s->target, *value = s->value;
  /* a, b = x, y binds element-wise without building a tuple, as PyTorch does. */
  if ((target->kind == SE_TUPLE || target->kind == SE_LIST) && value->kind == SE_TUPLE &&
      value->args->len == target->args->len) {
    guint n = value->args->len;
    g_autofree IrValue **values = g_new(IrValue *, n);
    for (guint i = 0; i < n; i++)
      if (!(values[i] = emit_expr(em, g_ptr_array_index(value->args, i))))
        return false;
    for (guint i = 0; i < n; i++)
      if (!emit_assign_target(em, g_ptr_array_index(target->args, i), values[i], s->loc))
        return false;
    return true;
  }
  if (s->annotation == NULL) {
    IrValue *v = emit_expr(em, value);
    return v != NULL && emit_assign_target(em, target, v, target->loc);
  }
  /* x: T = value: an empty display takes T; any other value must be a T. */
  const IrType *annotated = emit_param_type(em, s->annotation);
  IrValue *v = annotated ? emit_expr_hinted(em, value, annotated) : NULL;
  if (v == NULL)
    return false;
  if (!ir_type_is_subtype(v->type, annotated)) {
    g_autofree char *vs = ir_type_to_string(v->type), *as = ir_type_to_string(annotated);
    return emit_fail(em, value->loc, "a value of type %s cannot be assigned to '%s' annotated %s",
                     vs, target->name, as);
  }
  if (target->kind == SE_NAME)
    g_hash_table_insert(em->declared_types, (gpointer)target->name, (gpointer)annotated);
  return emit_assign_target(em, target, v, target->loc);
}

static bool emit_aug_assign(Emitter *em, const ScriptStmt *s) {
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

/* --- raise, assert, return --- */

/* prim::RaiseException(message, class name) as PyTorch 1.13 emits it. */
static void raise_exception(Emitter *em, IrValue *message, IrValue *class_name, ScriptLoc loc) {
  IrNode *n = ir_node_create(em->graph, IR_PRIM_RAISE_EXCEPTION, 0);
  ir_node_add_input(n, message);
  ir_node_add_input(n, class_name);
  emit_set_source(em, n, loc);
  emit_append(em, n);
}

/* `raise E("message")`: the message, then "builtins.E" located at E. */
static bool emit_raise(Emitter *em, const ScriptStmt *s) {
  const ScriptExpr *e = s->value;
  if (e == NULL || e->kind != SE_CALL ||
      ((ScriptExpr *)g_ptr_array_index(e->args, 0))->kind != SE_NAME || e->args->len > 2 ||
      e->kwargs->len)
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

static bool emit_assert(Emitter *em, const ScriptStmt *s) {
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
  g_autofree char *message = g_strdup_printf("AssertionError: %s", s->value ? s->value->name : "");
  IrValue *text = emit_constant_str(em, message, NULL);
  raise_exception(em, text, emit_constant_none(em, NULL), s->loc);
  emit_frame_pop(em);
  return true;
}

/* Each exit may guard the rest of its block in a new If (script_transform_exits), so a flat
 * run of early returns becomes as deep as it is long: past this many in one function the
 * lowered graph would nest deeper than the passes that walk it recurse safely. */
#define SCRIPT_MAX_EXITS 256

static bool count_exit(Emitter *em, const ScriptStmt *s) {
  if (++em->n_exits <= SCRIPT_MAX_EXITS)
    return true;
  return emit_fail(em, s->loc,
                   "more than %d return, break and continue statements in one function: its "
                   "lowered control flow would nest too deep",
                   SCRIPT_MAX_EXITS);
}

/* prim::ReturnStmt(value): every return, the last one included, is an exit that
 * script_transform_exits turns into the graph's output. */
static bool emit_return(Emitter *em, const ScriptStmt *s) {
  if (!count_exit(em, s))
    return false;
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
  /* script_transform_exits joins returned values in pairs (an If's two branches), so every
   * two returns must unify, not only each with those before it taken together. */
  for (guint i = 0; i < em->returns->len; i++) {
    const EmitExit *before = &g_array_index(em->returns, EmitExit, i);
    const IrType *earlier = ir_input(before->node, 0)->type;
    if (emit_unify_types(earlier, v->type) == NULL) {
      g_autofree char *now = ir_type_to_string(v->type);
      g_autofree char *then = ir_type_to_string(earlier);
      return emit_fail(em, s->loc, "this return gives %s, but the return at %d:%d gives %s", now,
                       before->loc.line, before->loc.col, then);
    }
  }
  IrNode *exit = ir_node_create(em->graph, IR_PRIM_RETURN_STMT, 0);
  ir_node_add_input(exit, v);
  emit_append(em, exit);
  EmitExit record = {exit, s->loc};
  g_array_append_val(em->returns, record);
  em->frame->exited = true;
  return true;
}

/* break: prim::LoopContinuation(false, carried...); continue: the loop's condition (a
 * while loop's evaluated again here) instead of false. The carried values are the names'
 * values here; emit_loop checks their types against the loop's. */
static bool emit_loop_exit(Emitter *em, const ScriptStmt *s) {
  const char *what = s->kind == SS_BREAK ? "break" : "continue";
  EmitLoop *loop = em->loop;
  if (!count_exit(em, s))
    return false;
  if (loop == NULL)
    return emit_fail(em, s->loc, "'%s' outside a loop", what);
  if (loop->unrolled)
    return emit_fail(em, s->loc,
                     "'%s' in a loop over a tuple is not supported: its body is copied once per "
                     "element (PyTorch's rule)",
                     what);
  IrValue *cond;
  if (s->kind == SS_BREAK) {
    if (em->break_false == NULL) {
      em->break_false = ir_node_create(em->graph, IR_PRIM_CONSTANT, 1);
      ir_value_set_type(ir_output(em->break_false, 0), ir_type_bool());
      ir_node_set_attr_i(em->break_false, IR_ATTR_VALUE, 0);
    }
    cond = ir_output(em->break_false, 0);
  } else if (loop->cond) {
    if (!(cond = emit_condition(em, loop->cond)))
      return false;
  } else {
    cond = loop->always;
  }
  IrNode *exit = ir_node_create(em->graph, IR_PRIM_LOOP_CONTINUATION, 0);
  ir_node_add_input(exit, cond);
  for (guint i = 0; i < loop->names->len; i++) {
    const char *name = g_ptr_array_index(loop->names, i);
    IrValue *v = emit_lookup(em, name);
    if (v == NULL)
      return emit_fail(em, s->loc, "'%s' is not defined at this %s but the loop carries it", name,
                       what);
    ir_node_add_input(exit, v);
  }
  emit_append(em, exit);
  EmitExit record = {exit, s->loc};
  g_array_append_val(loop->exits, record);
  em->frame->exited = true;
  return true;
}

/* --- statements --- */

static bool emit_statement(Emitter *em, const ScriptStmt *s) {
  switch (s->kind) {
  case SS_EXPR: return emit_expr(em, s->value) != NULL;
  case SS_ASSIGN: return emit_assign(em, s);
  case SS_AUG_ASSIGN: return emit_aug_assign(em, s);
  case SS_IF: return emit_if(em, s);
  case SS_FOR: return emit_for(em, s);
  case SS_WHILE: return emit_while(em, s);
  case SS_PASS: return true;
  case SS_BREAK:
  case SS_CONTINUE: return emit_loop_exit(em, s);
  case SS_RETURN: return emit_return(em, s);
  case SS_RAISE: return emit_raise(em, s);
  case SS_ASSERT: return emit_assert(em, s);
  case SS_DEF: return emit_closure(em, s->def);
  }
  return emit_fail(em, s->loc, "unsupported statement");
}

bool emit_statements(Emitter *em, GPtrArray *stmts) {
  for (guint i = 0; i < stmts->len && !em->frame->exited; i++)
    if (!emit_statement(em, g_ptr_array_index(stmts, i)))
      return false;
  return true;
}

bool emit_function_body(Emitter *em, const ScriptDef *def) {
  EmitLoop *outer_loop = em->loop;
  IrNode *outer_break_false = em->break_false;
  GArray *outer_returns = em->returns;
  guint outer_exits = em->n_exits;
  em->n_exits = 0;
  em->loop = NULL;
  em->break_false = NULL;
  em->returns = g_array_new(FALSE, FALSE, sizeof(EmitExit));
  bool ok = emit_statements(em, def->body);
  bool returns = em->returns->len > 0;
  if (ok && !em->frame->exited) { /* it can end without a return: `return None` */
    IrNode *exit = ir_node_create(em->graph, IR_PRIM_RETURN_STMT, 0);
    ir_node_add_input(exit, emit_constant_none(em, &def->name_loc));
    emit_append(em, exit);
    returns = true;
  }
  IrGraph *graph = em->graph;
  if (em->break_false)
    ir_node_insert_before(em->break_false, graph->block->param->next);
  em->loop = outer_loop;
  em->break_false = outer_break_false;
  g_array_unref(em->returns);
  em->returns = outer_returns;
  em->n_exits = outer_exits;
  if (!ok)
    return false;
  script_transform_exits(graph);
  script_canonicalize_modified_loops(graph);
  if (!returns) { /* every path raises: it returns an uninitialized None, as PyTorch's */
    IrNode *none = ir_node_create(graph, IR_PRIM_UNINITIALIZED, 1);
    ir_value_set_type(ir_output(none, 0), ir_type_none());
    ir_node_insert_after(none, graph->block->param);
    ir_graph_add_output(graph, ir_output(none, 0));
  }
  return true;
}

const IrType *emit_param_type(Emitter *em, const ScriptTypeExpr *type) {
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
  if (strcmp(head, "Dict") == 0) {
    if (n_args != 2)
      return emit_fail(em, type->loc, "Dict[...] takes a key and a value type");
    if (args[0]->kind != IR_TYPE_STR && args[0]->kind != IR_TYPE_INT)
      return emit_fail(em, type->loc, "dict keys must be str or int");
    return ir_type_dict(args[0], args[1]);
  }
  return emit_fail(em, type->loc, "unknown type '%s'", type->name);
}

static IrGraph *compile_def(const ScriptSource *src, const ScriptTree *tree, const ScriptDef *def,
                            EmitUnit *unit, GError **error) {
  Emitter em = {.src = src, .tree = tree, .graph = ir_graph_new(), .unit = unit, .error = error};
  em.literals = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  em.definition_order = g_hash_table_new(g_str_hash, g_str_equal);
  em.declared_types = g_hash_table_new(g_str_hash, g_str_equal);
  g_hash_table_add(unit->compiling, (gpointer)def->name);
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
  ok = ok && emit_function_body(&em, def);
  emit_frame_pop(&em);
  g_hash_table_remove(unit->compiling, def->name);
  g_hash_table_unref(em.literals);
  g_hash_table_unref(em.definition_order);
  g_hash_table_unref(em.declared_types);
  if (!ok) {
    ir_graph_free(em.graph);
    return NULL;
  }
  /* PyTorch's cleanup after emitting: tuples built and unpacked at once short-circuited
   * (`v, i = x.max(1)`), constant propagation of immutable types (`1.0 / 8`, `float("nan")`
   * fold to constants without a source range; negated literals are folded as they are
   * emitted, emit_expr.c), constant pooling, then control-flow outputs ordered by first use. */
  pass_lower_simple_tuples(em.graph);
  pass_eliminate_dead_code(em.graph);
  if (pass_constant_propagation_immutable(em.graph))
    pass_eliminate_dead_code(em.graph);
  pass_constant_pooling(em.graph);
  pass_canonicalize_outputs(em.graph);
  return em.graph;
}

const IrGraph *emit_callee(Emitter *em, const ScriptDef *def, ScriptLoc loc) {
  IrGraph *graph = g_hash_table_lookup(em->unit->compiled, def->name);
  if (graph)
    return graph;
  if (g_hash_table_contains(em->unit->compiling, def->name))
    return emit_fail(em, loc,
                     "'%s' is called while it is being compiled: recursion is not supported "
                     "(TorchScript refuses it too)",
                     def->name);
  graph = compile_def(em->src, em->tree, def, em->unit, em->error);
  if (graph)
    g_hash_table_insert(em->unit->compiled, (gpointer)def->name, graph);
  return graph;
}

IrGraph *script_compile_def(const ScriptSource *src, const ScriptTree *tree, const ScriptDef *def,
                            GError **error) {
  EmitUnit unit = {
      .compiled =
          g_hash_table_new_full(g_str_hash, g_str_equal, NULL, (GDestroyNotify)ir_graph_free),
      .compiling = g_hash_table_new(g_str_hash, g_str_equal),
  };
  IrGraph *graph = compile_def(src, tree, def, &unit, error);
  g_hash_table_unref(unit.compiled);
  g_hash_table_unref(unit.compiling);
  return graph;
}

bool script_is_source_file(const char *path) {
  return g_str_has_suffix(path, ".py");
}

IrGraph *script_compile(const char *text, gsize length, const char *filename, const char *function,
                        GError **error) {
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
      g_set_error(error, JITSCOPE_PARSE_ERROR, 0, "%s: error: no function named '%s'", filename,
                  function);
      return NULL;
    }
  }
  return script_compile_def(&src, tree, def, error);
}
