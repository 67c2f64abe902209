/* pass_util: helpers shared by the passes; contracts in pass_util.h. */
#include "passes/pass_util.h"

#include <math.h>
#include <string.h>

bool pu_node_has_side_effects(const IrNode *node) {
  /* An opaque op may print, raise or mutate: nothing may drop or reorder it. */
  if (node->kind == IR_PRIM_RAISE_EXCEPTION || node->kind == IR_PRIM_PRINT ||
      node->kind == IR_PRIM_OPAQUE || node->kind == IR_PRIM_CALL_METHOD ||
      node->kind == IR_PRIM_CALL_FUNCTION || node->kind == IR_PRIM_LOOP_CONTINUATION ||
      node->kind == IR_PRIM_RETURN_STMT || pu_node_mutates(node))
    return true;
  for (guint b = 0; b < ir_n_blocks(node); b++) {
    IR_FOR_EACH_NODE(n, ir_block(node, b)) {
      if (pu_node_has_side_effects(n))
        return true;
    }
  }
  return false;
}

bool pu_node_mutates(const IrNode *node) {
  switch ((int)node->kind) {
  case IR_ATEN_APPEND:
  case IR_ATEN_SET_ITEM:
  case IR_ATEN_EXTEND:
  case IR_ATEN_INSERT:
  case IR_ATEN_POP:
  case IR_ATEN_REVERSE:
  case IR_ATEN_CLEAR:
  case IR_ATEN_UPDATE: return true;
  default: return false;
  }
}

static bool block_mutates_lists(const IrBlock *block) {
  IR_FOR_EACH_NODE(n, block) {
    if (pu_node_mutates(n))
      return true;
    for (guint b = 0; b < ir_n_blocks(n); b++)
      if (block_mutates_lists(ir_block(n, b)))
        return true;
  }
  return false;
}

bool pu_graph_mutates_lists(const IrGraph *graph) {
  return block_mutates_lists(graph->block);
}

static bool is_list(const IrValue *value) {
  return value->type && (value->type->kind == IR_TYPE_LIST || value->type->kind == IR_TYPE_DICT);
}

bool pu_node_touches_list(const IrNode *node) {
  for (guint i = 0; i < ir_n_inputs(node); i++)
    if (is_list(ir_input(node, i)))
      return true;
  for (guint o = 0; o < ir_n_outputs(node); o++)
    if (is_list(ir_output(node, o)))
      return true;
  return false;
}

bool pu_list_is_read_only(const IrValue *list) {
  for (guint u = 0; u < list->uses->len; u++) {
    const IrNode *user = g_array_index(list->uses, IrUse, u).user;
    /* A DifferentiableGraph holds only differentiable operators, none of which mutates. */
    bool reads = (user->schema && ir_n_blocks(user) == 0 && !pu_node_mutates(user)) ||
                 user->kind == IR_PRIM_LIST_UNPACK || user->kind == IR_PRIM_DIFFERENTIABLE_GRAPH;
    if (!reads)
      return false;
  }
  return true;
}

bool pu_list_is_constructed_and_read_only(const IrValue *list) {
  return list->type->kind == IR_TYPE_LIST && list->node->kind == IR_PRIM_LIST_CONSTRUCT &&
         pu_list_is_read_only(list);
}

bool pu_is_constant(const IrValue *value) {
  return value->node->kind == IR_PRIM_CONSTANT;
}

static const IrAttr *constant_attr(const IrValue *value) {
  if (!pu_is_constant(value))
    return NULL;
  return ir_node_attr(value->node, IR_ATTR_VALUE);
}

bool pu_constant_int(const IrValue *value, gint64 *out) {
  const IrAttr *a = constant_attr(value);
  if (!a || a->kind != IR_ATTR_I || value->type->kind != IR_TYPE_INT)
    return false;
  *out = a->v.i;
  return true;
}

bool pu_constant_bool(const IrValue *value, bool *out) {
  const IrAttr *a = constant_attr(value);
  if (!a || a->kind != IR_ATTR_I || value->type->kind != IR_TYPE_BOOL)
    return false;
  *out = a->v.i != 0;
  return true;
}

/* int, float or bool constant (PyTorch's Scalar) as a double. */
static bool pu_constant_number(const IrValue *value, double *out) {
  const IrAttr *a = constant_attr(value);
  if (!a)
    return false;
  if (a->kind == IR_ATTR_I &&
      (value->type->kind == IR_TYPE_INT || value->type->kind == IR_TYPE_BOOL)) {
    *out = (double)a->v.i;
    return true;
  }
  if (a->kind == IR_ATTR_F && value->type->kind == IR_TYPE_FLOAT) {
    *out = a->v.f;
    return true;
  }
  return false;
}

bool pu_constant_int_list(const IrValue *value, const gint64 **items, guint *n) {
  const IrAttr *a = constant_attr(value);
  if (!a || a->kind != IR_ATTR_IS)
    return false;
  *items = (const gint64 *)a->v.is->data;
  *n = a->v.is->len;
  return true;
}

static bool pu_constant_is_none(const IrValue *value) {
  return pu_is_constant(value) && !ir_node_has_attr(value->node, IR_ATTR_VALUE) &&
         (value->type->kind == IR_TYPE_NONE || value->type->kind == IR_TYPE_OPTIONAL);
}

bool pu_must_be_none(const IrValue *value) {
  return value->type->kind == IR_TYPE_NONE || pu_constant_is_none(value);
}

bool pu_must_not_be_none(const IrValue *value) {
  switch (value->type->kind) {
  case IR_TYPE_NONE:
  case IR_TYPE_OPTIONAL:
  case IR_TYPE_ANY: return false;
  default: return true;
  }
}

bool pu_constant_to_rt(const IrValue *value, RtValue *out) {
  if (!pu_is_constant(value))
    return false;
  const IrAttr *a = ir_node_attr(value->node, IR_ATTR_VALUE);
  if (!a) {
    *out = rt_none();
    return true;
  }
  switch (a->kind) {
  case IR_ATTR_I:
    if (value->type->kind == IR_TYPE_BOOL)
      *out = rt_bool(a->v.i != 0);
    else
      *out = rt_int(a->v.i);
    return true;
  case IR_ATTR_F: *out = rt_double(a->v.f); return true;
  case IR_ATTR_S:
    if (value->type->kind == IR_TYPE_DEVICE)
      return false;
    *out = rt_str(a->v.s);
    return true;
  case IR_ATTR_IS: *out = rt_int_list((const gint64 *)a->v.is->data, a->v.is->len); return true;
  case IR_ATTR_T: *out = rt_tensor(rt_tensor_ref(a->v.t)); return true;
  default: return false;
  }
}

static IrNode *new_constant(IrNode *anchor, const IrType *type) {
  IrNode *node = ir_node_create(ir_node_graph(anchor), IR_PRIM_CONSTANT, 1);
  ir_value_set_type(ir_output(node, 0), type);
  ir_node_insert_before(node, anchor);
  return node;
}

IrValue *pu_insert_constant_before(IrNode *anchor, RtValue v, const IrType *none_type) {
  IrNode *node;
  switch (v.tag) {
  case RT_NONE:
    node = new_constant(anchor, none_type ? none_type : ir_type_none());
    return ir_output(node, 0);
  case RT_INT: return pu_insert_int_before(anchor, v.u.i);
  case RT_BOOL: return pu_insert_bool_before(anchor, v.u.b);
  case RT_DOUBLE:
    node = new_constant(anchor, ir_type_float());
    ir_node_set_attr_f(node, IR_ATTR_VALUE, v.u.d);
    return ir_output(node, 0);
  case RT_STR:
    node = new_constant(anchor, ir_type_str());
    ir_node_set_attr_s(node, IR_ATTR_VALUE, v.u.s->text);
    return ir_output(node, 0);
  case RT_LIST: {
    guint n = v.u.seq->len;
    gint64 *items = g_new(gint64, n ? n : 1);
    for (guint i = 0; i < n; i++) {
      if (v.u.seq->items[i].tag != RT_INT) {
        g_free(items);
        return NULL;
      }
      items[i] = v.u.seq->items[i].u.i;
    }
    IrValue *out = pu_insert_int_list_before(anchor, items, n);
    g_free(items);
    return out;
  }
  default: return NULL;
  }
}

IrValue *pu_insert_int_before(IrNode *anchor, gint64 v) {
  IrNode *node = new_constant(anchor, ir_type_int());
  ir_node_set_attr_i(node, IR_ATTR_VALUE, v);
  return ir_output(node, 0);
}

IrValue *pu_insert_bool_before(IrNode *anchor, bool v) {
  IrNode *node = new_constant(anchor, ir_type_bool());
  ir_node_set_attr_i(node, IR_ATTR_VALUE, v ? 1 : 0);
  return ir_output(node, 0);
}

IrValue *pu_insert_int_list_before(IrNode *anchor, const gint64 *v, guint n) {
  IrNode *node = new_constant(anchor, ir_type_list(ir_type_int()));
  ir_node_set_attr_is(node, IR_ATTR_VALUE, v, n);
  return ir_output(node, 0);
}

int pu_arg_index(const IrNode *node, const char *name) {
  if (!node->schema)
    return -1;
  for (guint i = 0; i < node->schema->n_args; i++) {
    if (strcmp(node->schema->args[i].name, name) == 0)
      return (int)i;
  }
  return -1;
}

IrValue *pu_named_input(const IrNode *node, const char *name) {
  int i = pu_arg_index(node, name);
  if (i < 0 || (guint)i >= ir_n_inputs(node))
    return NULL;
  return ir_input(node, i);
}

static const IrArgument *arg_of(const IrNode *node, const char *name) {
  int i = pu_arg_index(node, name);
  return i < 0 ? NULL : &node->schema->args[i];
}

bool pu_arg_number(const IrNode *node, const char *name, double *out) {
  const IrArgument *arg = arg_of(node, name);
  if (!arg)
    return false;
  IrValue *v = pu_named_input(node, name);
  if (v)
    return pu_constant_number(v, out);
  if (arg->def.kind == IR_DEFAULT_INT) {
    *out = (double)arg->def.i;
    return true;
  }
  if (arg->def.kind == IR_DEFAULT_FLOAT) {
    *out = arg->def.f;
    return true;
  }
  return false;
}

bool pu_arg_int(const IrNode *node, const char *name, gint64 *out) {
  const IrArgument *arg = arg_of(node, name);
  if (!arg)
    return false;
  IrValue *v = pu_named_input(node, name);
  if (v)
    return pu_constant_int(v, out);
  if (arg->def.kind == IR_DEFAULT_INT) {
    *out = arg->def.i;
    return true;
  }
  return false;
}

bool pu_arg_bool(const IrNode *node, const char *name, bool *out) {
  const IrArgument *arg = arg_of(node, name);
  if (!arg)
    return false;
  IrValue *v = pu_named_input(node, name);
  if (v)
    return pu_constant_bool(v, out);
  if (arg->def.kind == IR_DEFAULT_INT) {
    *out = arg->def.i != 0;
    return true;
  }
  return false;
}

bool pu_node_is(const IrNode *node, IrOpKind kind, const char *overload) {
  return node->kind == kind && node->schema && strcmp(node->schema->overload, overload) == 0;
}

static bool tensors_equal(const RtTensor *a, const RtTensor *b) {
  if (a == b)
    return true;
  if (a->dtype != b->dtype || a->ndim != b->ndim)
    return false;
  for (int d = 0; d < a->ndim; d++) {
    if (a->sizes[d] != b->sizes[d])
      return false;
  }
  int64_t n = rt_tensor_numel(a);
  for (int64_t i = 0; i < n; i++) {
    double x = rt_tensor_get(a, i), y = rt_tensor_get(b, i);
    if (!(x == y || (isnan(x) && isnan(y))))
      return false;
  }
  return true;
}

static bool attr_equal(const IrAttr *a, const IrAttr *b) {
  if (a->name != b->name || a->kind != b->kind)
    return false;
  switch (a->kind) {
  case IR_ATTR_F: return memcmp(&a->v.f, &b->v.f, sizeof(double)) == 0;
  case IR_ATTR_I: return a->v.i == b->v.i;
  case IR_ATTR_S: return strcmp(a->v.s, b->v.s) == 0;
  /* an empty list's data may be NULL, which memcmp must not get even for 0 bytes */
  case IR_ATTR_FS:
    return a->v.fs->len == b->v.fs->len &&
           (a->v.fs->len == 0 ||
            memcmp(a->v.fs->data, b->v.fs->data, a->v.fs->len * sizeof(double)) == 0);
  case IR_ATTR_IS:
    return a->v.is->len == b->v.is->len &&
           (a->v.is->len == 0 ||
            memcmp(a->v.is->data, b->v.is->data, a->v.is->len * sizeof(gint64)) == 0);
  case IR_ATTR_SS:
    if (a->v.ss->len != b->v.ss->len)
      return false;
    for (guint i = 0; i < a->v.ss->len; i++) {
      if (strcmp(g_ptr_array_index(a->v.ss, i), g_ptr_array_index(b->v.ss, i)) != 0)
        return false;
    }
    return true;
  case IR_ATTR_T: return tensors_equal(a->v.t, b->v.t);
  case IR_ATTR_TS:
    if (a->v.ts->len != b->v.ts->len)
      return false;
    for (guint i = 0; i < a->v.ts->len; i++) {
      if (!tensors_equal(g_ptr_array_index(a->v.ts, i), g_ptr_array_index(b->v.ts, i)))
        return false;
    }
    return true;
  case IR_ATTR_G: return a->v.g == b->v.g;
  case IR_ATTR_GS: return a->v.gs == b->v.gs;
  case IR_ATTR_RAW: return false; /* unknown values: two of them are not known to be equal */
  }
  return false;
}

bool pu_attrs_equal(const IrNode *a, const IrNode *b) {
  if (ir_n_attrs(a) != ir_n_attrs(b))
    return false;
  for (guint i = 0; i < ir_n_attrs(a); i++) {
    const IrAttr *x = ir_attr_at(a, i);
    const IrAttr *y = ir_node_attr(b, x->name);
    if (!y || !attr_equal(x, y))
      return false;
  }
  return true;
}

guint pu_attrs_hash(const IrNode *node) {
  guint h = 17;
  for (guint i = 0; i < ir_n_attrs(node); i++) {
    const IrAttr *a = ir_attr_at(node, i);
    guint x = g_str_hash(a->name) ^ (guint)a->kind;
    if (a->kind == IR_ATTR_I)
      x ^= (guint)((guint64)a->v.i * 2654435761u); /* unsigned: wraps, never overflows */
    else if (a->kind == IR_ATTR_S)
      x ^= g_str_hash(a->v.s);
    else if (a->kind == IR_ATTR_IS)
      x ^= a->v.is->len * 31u;
    h += x; /* order-independent: pu_attrs_equal does not depend on order either */
  }
  return h;
}

typedef struct {
  GHashTable *map; /* IrValue* (source) -> IrValue* (copy) */
} CopyCtx;

static IrValue *map_value(IrValue *src, gpointer user_data) {
  CopyCtx *ctx = user_data;
  IrValue *v = g_hash_table_lookup(ctx->map, src);
  return v ? v : src;
}

void pu_inline_block_copy(IrBlock *body, IrNode *anchor, IrValue *const *inputs,
                          IrValue **outputs) {
  CopyCtx ctx = {g_hash_table_new(g_direct_hash, g_direct_equal)};
  IrGraph *graph = ir_node_graph(anchor);
  for (guint i = 0; i < ir_block_inputs(body)->len; i++)
    g_hash_table_insert(ctx.map, g_ptr_array_index(ir_block_inputs(body), i), inputs[i]);
  IR_FOR_EACH_NODE(n, body) {
    IrNode *copy = ir_node_copy_into(graph, n, map_value, &ctx);
    ir_node_insert_before(copy, anchor);
    for (guint o = 0; o < ir_n_outputs(n); o++)
      g_hash_table_insert(ctx.map, ir_output(n, o), ir_output(copy, o));
  }
  for (guint i = 0; i < ir_block_outputs(body)->len; i++)
    outputs[i] = map_value(g_ptr_array_index(ir_block_outputs(body), i), &ctx);
  g_hash_table_destroy(ctx.map);
}

void pu_move_block_nodes_before(IrBlock *body, IrNode *anchor) {
  IR_FOR_EACH_NODE(n, body) {
    ir_node_move_before(n, anchor);
  }
}

void pu_loop_remove_carried(IrNode *loop, guint i) {
  IrBlock *body = ir_block(loop, 0);
  ir_block_erase_output(body, i + 1);
  ir_block_erase_input(body, i + 1);
  ir_node_remove_input(loop, i + 2);
  ir_node_erase_output(loop, i);
}

guint pu_block_count_nodes(const IrBlock *block) {
  guint count = 0;
  IR_FOR_EACH_NODE(n, block) {
    count++;
    for (guint b = 0; b < ir_n_blocks(n); b++)
      count += pu_block_count_nodes(ir_block(n, b));
  }
  return count;
}

static void snapshot_block(IrBlock *block, GArray *out) {
  for (guint i = 0; i < ir_block_inputs(block)->len; i++) {
    IrValue *v = g_ptr_array_index(ir_block_inputs(block), i);
    g_array_append_val(out, ((PuTypeSnapshot){v, v->type}));
  }
  IR_FOR_EACH_NODE(n, block) {
    for (guint i = 0; i < ir_n_outputs(n); i++) {
      IrValue *v = ir_output(n, i);
      g_array_append_val(out, ((PuTypeSnapshot){v, v->type}));
    }
    for (guint b = 0; b < ir_n_blocks(n); b++)
      snapshot_block(ir_block(n, b), out);
  }
}

GArray *pu_snapshot_block_types(IrBlock *block) {
  GArray *out = g_array_new(FALSE, FALSE, sizeof(PuTypeSnapshot));
  snapshot_block(block, out);
  return out;
}

bool pu_snapshot_changed_free(GArray *snapshot) {
  bool changed = false;
  for (guint i = 0; i < snapshot->len && !changed; i++) {
    PuTypeSnapshot *s = &g_array_index(snapshot, PuTypeSnapshot, i);
    changed = s->value->type != s->type;
  }
  g_array_unref(snapshot);
  return changed;
}
