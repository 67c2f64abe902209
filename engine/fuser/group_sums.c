/* _grad_sum_to_size in fusion groups (contract in group_sums.h). */
#include "fuser/group_sums.h"

#include <string.h>

#include "autodiff/subgraph_utils.h"
#include "fuser/fuser.h"
#include "fuser/fusible.h"

static bool overload_is(const IrNode *n, const char *overload) {
  return n->schema && strcmp(n->schema->overload, overload) == 0;
}

/* Follows every _grad_sum_to_size result of `group`'s body (and `extra`, a body value
 * treated as one, keyed by `extra_key`) forward through users that commute with summing:
 * neg, mul/div by a constant, type_as (as self), add/sub of two values summed to the same
 * size. Keys are the outer values holding the sizes. On success, keys_out (when given)
 * receives per body output its key or NULL. */
bool group_sums_track(const IrNode *group, IrValue *extra, IrValue *extra_key,
                      GPtrArray *keys_out) {
  IrGraph *body = ad_subgraph_body(group);
  GHashTable *mark = g_hash_table_new(NULL, NULL);
  if (extra)
    g_hash_table_insert(mark, extra, extra_key);
  GPtrArray *bin = ir_graph_inputs(body);
  bool ok = true;
  IR_FOR_EACH_NODE(n, body->block) {
    if (!ok)
      break;
    if (n->kind == IR_ATEN_GRAD_SUM_TO_SIZE) {
      if (g_hash_table_contains(mark, ir_input(n, 0))) {
        ok = false; /* a sum of a sum: the outer size wins; keep both outside */
        break;
      }
      guint p = 0;
      while (p < bin->len && g_ptr_array_index(bin, p) != ir_input(n, 1))
        p++;
      if (p == bin->len) {
        ok = false;
        break;
      }
      g_hash_table_insert(mark, ir_output(n, 0), ir_input(group, p));
      continue;
    }
    IrValue *key = NULL;
    guint n_marked = 0, n_tensors = 0;
    for (guint i = 0; i < ir_n_inputs(n); i++) {
      IrValue *v = ir_input(n, i);
      n_tensors += fusible_is_tensor(v);
      if (g_hash_table_contains(mark, v)) {
        IrValue *k = g_hash_table_lookup(mark, v);
        if (n_marked++ && k != key)
          ok = false;
        key = k;
      }
    }
    if (!n_marked || !ok)
      continue;
    bool marked0 = g_hash_table_contains(mark, ir_input(n, 0));
    bool commutes = false;
    if (n->kind == IR_ATEN_NEG)
      commutes = true;
    else if ((n->kind == IR_ATEN_MUL || n->kind == IR_ATEN_DIV) && overload_is(n, "Scalar"))
      commutes = marked0;
    else if (n->kind == IR_ATEN_TYPE_AS)
      commutes = marked0 && !g_hash_table_contains(mark, ir_input(n, 1));
    else if ((n->kind == IR_ATEN_ADD || n->kind == IR_ATEN_SUB) && overload_is(n, "Tensor"))
      commutes = n_marked == 2 && n_tensors == 2;
    if (!commutes) {
      ok = false;
      break;
    }
    g_hash_table_insert(mark, ir_output(n, 0), key);
  }
  if (ok && keys_out) {
    GPtrArray *outs = ir_graph_outputs(body);
    for (guint i = 0; i < outs->len; i++)
      g_ptr_array_add(keys_out, g_hash_table_lookup(mark, g_ptr_array_index(outs, i)));
  }
  g_hash_table_destroy(mark);
  return ok;
}

/* Is `v`, an output of `group`, one of the sums it computes (or may it be: a group whose sums
 * cannot be followed counts as summing everything)? */
bool group_sums_is_summed_output(const IrNode *group, const IrValue *v) {
  g_autoptr(GPtrArray) keys = g_ptr_array_new();
  if (!group_sums_track(group, NULL, NULL, keys))
    return true;
  for (guint i = 0; i < ir_n_outputs(group); i++)
    if (ir_output(group, i) == v)
      return i < keys->len && g_ptr_array_index(keys, i) != NULL;
  return true;
}

/* Would merging the _grad_sum_to_size `producer` into `consumer` keep sums at outputs? */
bool group_sums_merge_ok(IrNode *consumer, IrNode *producer) {
  IrValue *v = ir_output(producer, 0);
  IrValue *key = ir_input(producer, 1);
  if (consumer->kind == IR_PRIM_FUSION_GROUP) {
    IrValue *body_in = NULL;
    for (guint p = 0; p < ir_n_inputs(consumer); p++)
      if (ir_input(consumer, p) == v)
        body_in = g_ptr_array_index(ir_graph_inputs(ad_subgraph_body(consumer)), p);
    return body_in && group_sums_track(consumer, body_in, key, NULL);
  }
  if (consumer->kind == IR_ATEN_GRAD_SUM_TO_SIZE)
    return false;
  bool at0 = ir_input(consumer, 0) == v;
  guint uses = 0;
  for (guint i = 0; i < ir_n_inputs(consumer); i++)
    uses += ir_input(consumer, i) == v;
  if (consumer->kind == IR_ATEN_NEG)
    return true;
  if ((consumer->kind == IR_ATEN_MUL || consumer->kind == IR_ATEN_DIV) &&
      overload_is(consumer, "Scalar"))
    return at0;
  if (consumer->kind == IR_ATEN_TYPE_AS)
    return at0 && uses == 1;
  if ((consumer->kind == IR_ATEN_ADD || consumer->kind == IR_ATEN_SUB) &&
      overload_is(consumer, "Tensor"))
    return uses == 2;
  return false;
}

static gint group_input_index(const IrNode *group, const IrValue *v) {
  for (guint i = 0; i < ir_n_inputs(group); i++)
    if (ir_input(group, i) == v)
      return (gint)i;
  return -1;
}

/* Does `group` read `x` whole, element for element over its map? Not when it chunks x, nor
 * when it concatenates (its map is then a piece). */
static bool reads_whole(const IrNode *group, const IrValue *x) {
  gint i = group_input_index(group, x);
  if (i < 0 || fusible_body_has(group, IR_PRIM_FUSED_CONCAT))
    return false;
  const IrValue *bx = g_ptr_array_index(ir_graph_inputs(ad_subgraph_body(group)), (guint)i);
  for (guint u = 0; u < bx->uses->len; u++)
    if (g_array_index(bx->uses, IrUse, u).user->kind == IR_PRIM_CONSTANT_CHUNK)
      return false;
  return true;
}

/* May the sum `sum` become an output of `group`: is its size known before the group, and is
 * its result used only after it? */
static bool sum_fits_at(const IrNode *sum, const IrNode *group) {
  const IrNode *def = ir_input(sum, 1)->node;
  if (def->owning_block == group->owning_block && def != group->owning_block->param &&
      !ir_node_is_before(def, group))
    return false;
  const IrValue *out = ir_output(sum, 0);
  for (guint u = 0; u < out->uses->len; u++) {
    const IrNode *user = g_array_index(out->uses, IrUse, u).user;
    if (user->owning_block != group->owning_block ||
        (user != group->owning_block->ret && !ir_node_is_after(user, group)))
      return false;
  }
  return true;
}

/* `sum` becomes one more output of `group`, a _grad_sum_to_size of the body input it sums. */
static void add_sum_output(IrNode *group, IrNode *sum) {
  IrGraph *body = ad_subgraph_body(group);
  IrValue *x = ir_input(sum, 0), *size = ir_input(sum, 1);
  gint si = group_input_index(group, size);
  IrValue *body_size;
  if (si < 0) {
    ir_node_add_input(group, size);
    body_size = ir_graph_add_input(body, size->type, NULL);
  } else {
    body_size = g_ptr_array_index(ir_graph_inputs(body), (guint)si);
  }
  IrValue *args[2] = {g_ptr_array_index(ir_graph_inputs(body), (guint)group_input_index(group, x)),
                      body_size};
  IrNode *saved = body->insert_before;
  ir_graph_set_insert_point(body, body->block->ret);
  IrNode *inner = ir_graph_insert_op(body, IR_ATEN_GRAD_SUM_TO_SIZE, args, 2, 1);
  ir_graph_set_insert_point(body, saved);
  inner->source = sum->source;
  ir_value_set_type(ir_output(inner, 0), ir_output(sum, 0)->type);
  ir_graph_add_output(body, ir_output(inner, 0));
  ir_value_replace_all_uses_with(ir_output(sum, 0),
                                 ir_node_add_output(group, ir_output(sum, 0)->type));
  ir_node_destroy(sum);
}

/* A _grad_sum_to_size left outside every group whose tensor a group reads whole joins that
 * group as one more output (a horizontal merge): the kernel reads the tensor anyway and sums
 * it in its loop, instead of a pass of its own over it (the MiLSTM's bias gradient, a sum of
 * the gates' gradient that three groups read). Where the group's map turns out larger than
 * the tensor, backends sum the output after the kernel, as any other. */
bool group_sums_join_readers(IrBlock *block) {
  bool changed = false;
  for (IrNode *n = block->param->next; n != block->ret;) {
    IrNode *next = n->next;
    IrValue *x = fusible_sum_to_size(n) ? ir_input(n, 0) : NULL;
    for (guint u = 0; x && u < x->uses->len; u++) {
      IrNode *group = g_array_index(x->uses, IrUse, u).user;
      if (group->kind == IR_PRIM_FUSION_GROUP && group->owning_block == block &&
          reads_whole(group, x) && sum_fits_at(n, group)) {
        add_sum_output(group, n);
        changed = true;
        break;
      }
    }
    n = next;
  }
  return changed;
}

/* Deletes the kernel graph's _grad_sum_to_size nodes and records the sums per output. A group
 * the program came with may hold sums that reach no output (FuseGraph never makes one): it
 * keeps them, and the backends leave it to the interpreter. */
bool group_sums_finish(IrNode *group) {
  IrGraph *body = ad_subgraph_body(group);
  if (!fusible_body_has(group, IR_ATEN_GRAD_SUM_TO_SIZE))
    return false;
  GPtrArray *keys = g_ptr_array_new();
  if (!group_sums_track(group, NULL, NULL, keys)) {
    g_ptr_array_free(keys, TRUE);
    return false;
  }
  gint64 *idx = g_new(gint64, keys->len);
  for (guint i = 0; i < keys->len; i++) {
    idx[i] = -1;
    for (guint p = 0; p < ir_n_inputs(group) && g_ptr_array_index(keys, i); p++)
      if (ir_input(group, p) == g_ptr_array_index(keys, i))
        idx[i] = p;
  }
  IR_FOR_EACH_NODE(n, body->block) {
    if (n->kind != IR_ATEN_GRAD_SUM_TO_SIZE)
      continue;
    ir_value_replace_all_uses_with(ir_output(n, 0), ir_input(n, 0));
    ir_node_destroy(n);
  }
  ir_node_set_attr_is(group, FUSER_ATTR_SUM_TO_SIZE, idx, keys->len);
  g_free(idx);
  g_ptr_array_free(keys, TRUE);
  return true;
}
