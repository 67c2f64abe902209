/* The emitter's lists and dicts (contract in emit.h), as PyTorch 1.13's compiler emits them:
 * dict displays as prim::DictConstruct (keys of one type, str or int; `{}` is
 * Dict(str, Tensor) unless annotated), `d[k]` and `l[i]` as aten::__getitem__, `l[a:b:c]` as
 * aten::slice(l, a, b, c) with None for a missing bound, `d[k] = v` / `l[i] = v` as
 * aten::_set_item, and `x in c` as aten::__contains__(c, x). */
#include "script/emit.h"

static const ScriptExpr *arg(const ScriptExpr *e, guint i) {
  return g_ptr_array_index(e->args, i);
}

/* An empty display typed `type` (a list or dict type). */
static IrValue *emit_empty(Emitter *em, const IrType *type) {
  IrNode *node = ir_node_create(
      em->graph, type->kind == IR_TYPE_DICT ? IR_PRIM_DICT_CONSTRUCT : IR_PRIM_LIST_CONSTRUCT, 1);
  ir_value_set_type(ir_output(node, 0), type);
  emit_append(em, node);
  return ir_output(node, 0);
}

IrValue *emit_expr_hinted(Emitter *em, const ScriptExpr *e, const IrType *hint) {
  bool empty_list = e->kind == SE_LIST && e->args->len == 0 && hint->kind == IR_TYPE_LIST;
  bool empty_dict = e->kind == SE_DICT && e->args->len == 0 && hint->kind == IR_TYPE_DICT;
  if (empty_list || empty_dict)
    return emit_empty(em, hint);
  return emit_expr(em, e);
}

IrValue *emit_dict_display(Emitter *em, const ScriptExpr *e) {
  guint n = e->args->len / 2;
  if (n == 0)
    return emit_empty(em, ir_type_dict(ir_type_str(), ir_type_tensor()));
  IrNode *node = ir_node_create(em->graph, IR_PRIM_DICT_CONSTRUCT, 1);
  const IrType *key_type = NULL, *value_type = NULL;
  for (guint i = 0; i < 2 * n; i++) {
    IrValue *v = emit_expr(em, arg(e, i));
    if (v == NULL)
      return NULL;
    ir_node_add_input(node, v);
    if (i % 2 == 0) {
      if (v->type->kind != IR_TYPE_STR && v->type->kind != IR_TYPE_INT)
        return emit_fail(em, arg(e, i)->loc, "dict keys must be str or int");
      if (key_type != NULL && v->type != key_type)
        return emit_fail(em, arg(e, i)->loc, "dict keys must all have one type");
      key_type = v->type;
    } else {
      value_type = value_type ? emit_unify_types(value_type, v->type) : v->type;
      if (value_type == NULL || value_type->kind == IR_TYPE_OPTIONAL)
        return emit_fail(em, arg(e, i)->loc, "dict values must all have one type");
    }
  }
  ir_value_set_type(ir_output(node, 0), ir_type_dict(key_type, value_type));
  emit_append(em, node);
  return ir_output(node, 0);
}

IrValue *emit_list_item(Emitter *em, IrValue *list, IrValue *index, ScriptLoc loc) {
  IrValue *args[] = {list, index};
  return emit_builtin_call(em, "aten::__getitem__", loc, args, 2, NULL, NULL);
}

/* A dict key or list index for `container`: the dict's key type, or int for a list. */
static IrValue *emit_key(Emitter *em, IrValue *container, const ScriptExpr *key) {
  IrValue *k = emit_expr(em, key);
  if (k == NULL)
    return NULL;
  bool dict = container->type->kind == IR_TYPE_DICT;
  const IrType *want = dict ? container->type->elems[0] : ir_type_int();
  if (k->type != want) {
    g_autofree char *ks = ir_type_to_string(k->type), *ws = ir_type_to_string(want);
    return emit_fail(em, key->loc, "a %s must be a%s %s, got %s",
                     dict ? "key of this dict" : "list index", want == ir_type_int() ? "n" : "", ws,
                     ks);
  }
  return k;
}

/* l[start:end:step] of a list. */
static IrValue *emit_list_slice(Emitter *em, IrValue *list, const ScriptExpr *slice,
                                ScriptLoc loc) {
  IrValue *args[4] = {list};
  for (guint i = 0; i < 3; i++) {
    const ScriptExpr *bound = arg(slice, i);
    if (bound == NULL) {
      args[i + 1] = i < 2 ? emit_constant_none(em, NULL) : emit_constant_int(em, 1, NULL);
      continue;
    }
    if (!(args[i + 1] = emit_expr(em, bound)))
      return NULL;
    if (args[i + 1]->type->kind != IR_TYPE_INT) {
      g_autofree char *ts = ir_type_to_string(args[i + 1]->type);
      return emit_fail(em, bound->loc, "a slice bound must be an int, got %s", ts);
    }
  }
  return emit_builtin_call(em, "aten::slice", loc, args, 4, NULL, NULL);
}

/* An int-typed bound of a tensor subscript, or NULL with the error set. */
static IrValue *emit_int_operand(Emitter *em, const ScriptExpr *e, const char *what) {
  IrValue *v = emit_expr(em, e);
  if (v != NULL && v->type->kind != IR_TYPE_INT) {
    g_autofree char *ts = ir_type_to_string(v->type);
    return emit_fail(em, e->loc, "%s must be an int, got %s", what, ts);
  }
  return v;
}

/* aten::index(x, indices) of the tensor indices recorded per dim (NULL: None), as PyTorch's
 * emitIndex: a Tensor?[] built by prim::ListConstruct up to the last indexed dim. */
static IrValue *emit_index(Emitter *em, IrValue *tensor, IrValue *const *per_dim, gint64 n,
                           ScriptLoc loc) {
  IrNode *list = ir_node_create(em->graph, IR_PRIM_LIST_CONSTRUCT, 1);
  for (gint64 d = 0; d < n; d++)
    ir_node_add_input(list, per_dim[d] ? per_dim[d] : emit_constant_none(em, NULL));
  ir_value_set_type(ir_output(list, 0), ir_type_list(ir_type_optional(ir_type_tensor())));
  emit_append(em, list);
  IrValue *args[] = {tensor, ir_output(list, 0)};
  return emit_builtin_call(em, "aten::index", loc, args, 2, NULL, NULL);
}

/* One item of x[...] at dim (PyTorch's emitIntAndSliceIndexing): a slice (aten::slice), an int
 * (aten::select: *selected), None (aten::unsqueeze) or a tensor (recorded in per_dim for
 * aten::index). */
static bool subscript_item(Emitter *em, const ScriptExpr *e, const ScriptExpr *item, gint64 dim,
                           IrValue **result, IrValue **per_dim, gint64 *n_indexed,
                           bool *selected) {
  *selected = false;
  if (item->kind == SE_SLICE) {
    /* PyTorch's order: the dim, the start, end and step written, then the defaults (step
     * 1, None for a missing bound); constant pooling then gives its order of constants. */
    static const char *const what[3] = {"a slice bound", "a slice bound", "a slice step"};
    IrValue *args[5] = {*result, emit_constant_int(em, dim, &e->loc)};
    for (guint b = 0; b < 3; b++)
      if (arg(item, b) && !(args[2 + b] = emit_int_operand(em, arg(item, b), what[b])))
        return false;
    if (!args[4])
      args[4] = emit_constant_int(em, 1, &e->loc);
    for (guint b = 0; b < 2; b++)
      if (!args[2 + b])
        args[2 + b] = emit_constant_none(em, NULL);
    *result = emit_builtin_call(em, "aten::slice", e->loc, args, 5, NULL, NULL);
    return *result != NULL;
  }
  if (item->kind == SE_NONE) {
    IrValue *args[2] = {*result, emit_constant_int(em, dim, &e->loc)};
    *result = emit_builtin_call(em, "aten::unsqueeze", e->loc, args, 2, NULL, NULL);
    return *result != NULL;
  }
  IrValue *value = emit_expr(em, item);
  if (value == NULL)
    return false;
  if (ir_type_is_tensor(value->type)) { /* indexes dim, once every select and slice is done */
    if (dim < 0)
      return emit_fail(em, item->loc, "a tensor index after '...' is not supported");
    per_dim[dim] = value;
    *n_indexed = dim + 1;
    return true;
  }
  if (value->type->kind != IR_TYPE_INT) {
    g_autofree char *ts = ir_type_to_string(value->type);
    return emit_fail(em, item->loc,
                     "a Tensor index (ints, slices, None, ... and tensors) must be an int or a "
                     "Tensor, got %s",
                     ts);
  }
  IrValue *args[3] = {*result, emit_constant_int(em, dim, &e->loc), value};
  *result = emit_builtin_call(em, "aten::select", e->loc, args, 3, NULL, NULL);
  *selected = true;
  return *result != NULL;
}

IrValue *emit_tensor_subscript(Emitter *em, IrValue *tensor, const ScriptExpr *e) {
  const ScriptExpr *index = arg(e, 1);
  bool several = index->kind == SE_TUPLE;
  guint n = several ? index->args->len : 1, ellipsis = n;
  if (n > IR_MAX_RANK)
    return emit_fail(em, index->loc, "a Tensor subscript reaches past %d dims", IR_MAX_RANK);
  const ScriptExpr *items[IR_MAX_RANK];
  for (guint i = 0; i < n; i++) {
    items[i] = several ? arg(index, i) : index;
    if (items[i]->kind != SE_ELLIPSIS)
      continue;
    if (ellipsis < n)
      return emit_fail(em, items[i]->loc, "an index can only have a single ellipsis ('...')");
    ellipsis = i;
  }
  /* Each item's dim, as PyTorch: before an ellipsis from dim 0 (a select takes its dim away,
   * the other items move on), after it from the last dim backwards, None adding a dim behind
   * the ones before it; the items run in order. */
  IrValue *result = tensor, *per_dim[IR_MAX_RANK] = {NULL};
  gint64 n_indexed = 0, dim = 0, dims[IR_MAX_RANK];
  bool selected;
  for (guint i = 0; i < ellipsis; i++) {
    if (!subscript_item(em, e, items[i], dim, &result, per_dim, &n_indexed, &selected))
      return NULL;
    dim += selected ? 0 : 1;
  }
  dim = -1;
  for (guint i = n; i-- > ellipsis + 1;) {
    dims[i] = dim;
    dim -= items[i]->kind == SE_NONE ? 0 : 1;
  }
  for (guint i = ellipsis + 1; i < n; i++)
    if (!subscript_item(em, e, items[i], dims[i], &result, per_dim, &n_indexed, &selected))
      return NULL;
  return n_indexed > 0 ? emit_index(em, result, per_dim, n_indexed, e->loc) : result;
}

IrValue *emit_container_subscript(Emitter *em, IrValue *base, const ScriptExpr *e) {
  const ScriptExpr *index = arg(e, 1);
  if (index->kind == SE_SLICE) {
    if (base->type->kind != IR_TYPE_LIST)
      return emit_fail(em, index->loc, "slices of a dict are not supported");
    return emit_list_slice(em, base, index, e->loc);
  }
  IrValue *key = emit_key(em, base, index);
  return key ? emit_list_item(em, base, key, e->loc) : NULL;
}

bool emit_set_item(Emitter *em, const ScriptExpr *target, IrValue *value, ScriptLoc loc) {
  IrValue *container = emit_expr(em, arg(target, 0));
  if (container == NULL)
    return false;
  const ScriptExpr *index = arg(target, 1);
  bool dict = container->type->kind == IR_TYPE_DICT;
  if ((!dict && container->type->kind != IR_TYPE_LIST) || index->kind == SE_SLICE) {
    g_autofree char *ts = ir_type_to_string(container->type);
    return emit_fail(em, target->loc,
                     "assigning to %s of a value of type %s is not supported "
                     "(only list items and dict entries)",
                     index->kind == SE_SLICE ? "a slice" : "an item", ts);
  }
  IrValue *key = emit_key(em, container, index);
  if (key == NULL)
    return false;
  const IrType *elem = dict ? container->type->elems[1] : container->type->elem;
  if (emit_unify_types(elem, value->type) != elem) {
    g_autofree char *cs = ir_type_to_string(container->type), *vs = ir_type_to_string(value->type);
    return emit_fail(em, loc, "cannot store a value of type %s into %s", vs, cs);
  }
  IrValue *args[] = {container, key, value};
  return emit_builtin_call(em, "aten::_set_item", target->loc, args, 3, NULL, NULL) != NULL;
}

IrValue *emit_contains(Emitter *em, const ScriptExpr *e, bool negate) {
  IrValue *item = emit_expr(em, arg(e, 0));
  IrValue *container = item ? emit_expr(em, arg(e, 1)) : NULL;
  if (container == NULL)
    return NULL;
  if (container->type->kind != IR_TYPE_DICT && container->type->kind != IR_TYPE_LIST) {
    g_autofree char *ts = ir_type_to_string(container->type);
    return emit_fail(em, e->loc, "'in' needs a list or a dict on its right, got %s", ts);
  }
  IrValue *args[] = {container, item};
  IrValue *found = emit_builtin_call(em, "aten::__contains__", e->loc, args, 2, NULL, NULL);
  if (found == NULL || !negate)
    return found;
  return emit_builtin_call(em, "aten::__not__", e->loc, &found, 1, NULL, NULL);
}
