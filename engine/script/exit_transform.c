/* script_transform_exits: removes the emitter's exits (prim::LoopContinuation for break and
 * continue, prim::ReturnStmt for return) from a graph, leaving only structured control flow.
 *
 * Requires: the emitter's graph: each exit node's inputs are the values it sends to its
 * target (a loop body's outputs: continue condition and carried values; a graph's outputs),
 * nodes after an exit in its block never run, a function's top block ends in an exit or a
 * raise on every path, and a closure's body is its own graph.
 * Guarantees: no exit nodes are left; each loop body's and the graph's outputs are the values
 * the exits sent; code that follows a possible exit runs only when none was taken (guarded by
 * a prim::If on a `has exited` flag, which loops carry out when a return leaves them);
 * prim::Uninitialized (one per type, at the top of the graph) stands for values on paths
 * that exited; consecutive ifs where the second tests a flag the first set are merged.
 *
 * Algorithm: PyTorch 1.13's exit_transforms.cpp, so that graphs print as PyTorch prints them:
 * first the loop continuations, then the returns, each walk tracking whether a block WILL,
 * MIGHT or WONT reach its exit, or THROWS. */
#include "passes/pass_util.h"
#include "script/emit.h"

typedef enum { EXIT_WILL, EXIT_MIGHT, EXIT_WONT, EXIT_THROWS } ExitStatus;

/* Whether the exit was taken (one of the transform's sentinels, or a flag computed in the
 * graph) and the values sent to the exit's target. */
typedef struct {
  IrValue *has_exited;
  GPtrArray *values; /* of IrValue*, owned */
} ExitPair;

typedef struct {
  IrGraph *graph;
  IrOpKind exit_kind;
  IrValue *true_value, *false_value;
  IrValue *throws_value;   /* a flag no path reads: the block raised */
  GHashTable *unit_values; /* IrType* -> its prim::Uninitialized */
  IrBlock *target;         /* the block the current exits leave to */
} ExitTransform;

static ExitPair pair_new(IrValue *has_exited, IrValue *const *values, guint n) {
  ExitPair p = {has_exited, g_ptr_array_sized_new(n)};
  for (guint i = 0; i < n; i++)
    g_ptr_array_add(p.values, values[i]);
  return p;
}

static ExitPair pair_wont(ExitTransform *t) {
  return pair_new(t->false_value, NULL, 0);
}

static void pair_set(ExitPair *into, ExitPair value) {
  g_ptr_array_unref(into->values);
  *into = value;
}

static ExitStatus status_of(const ExitTransform *t, const ExitPair *p) {
  if (p->has_exited == t->true_value)
    return EXIT_WILL;
  if (p->has_exited == t->false_value)
    return EXIT_WONT;
  if (p->has_exited == t->throws_value)
    return EXIT_THROWS;
  return EXIT_MIGHT;
}

/* One prim::Uninitialized per type, made right after the graph's inputs. */
static IrValue *unit_value(ExitTransform *t, const IrType *type) {
  IrValue *v = g_hash_table_lookup(t->unit_values, type);
  if (v)
    return v;
  IrNode *n = ir_node_create(t->graph, IR_PRIM_UNINITIALIZED, 1);
  ir_value_set_type(ir_output(n, 0), type);
  ir_node_insert_after(n, t->graph->block->param);
  g_hash_table_insert(t->unit_values, (gpointer)type, ir_output(n, 0));
  return ir_output(n, 0);
}

static GPtrArray *uninitialized_like(ExitTransform *t, GPtrArray *values) {
  GPtrArray *out = g_ptr_array_sized_new(values->len);
  for (guint i = 0; i < values->len; i++)
    g_ptr_array_add(out, unit_value(t, ((IrValue *)g_ptr_array_index(values, i))->type));
  return out;
}

static void replace_block_outputs(IrBlock *block, GPtrArray *values) {
  while (ir_block_outputs(block)->len)
    ir_block_erase_output(block, 0);
  for (guint i = 0; i < values->len; i++)
    ir_block_add_output(block, g_ptr_array_index(values, i));
}

static GPtrArray *block_outputs_copy(IrBlock *block) {
  GPtrArray *outs = ir_block_outputs(block);
  GPtrArray *copy = g_ptr_array_sized_new(outs->len);
  for (guint i = 0; i < outs->len; i++)
    g_ptr_array_add(copy, g_ptr_array_index(outs, i));
  return copy;
}

/* Adds then / else values as the If's next outputs. The emitter checked that
 * every two returns, and every two values a loop may carry, unify (emit_return, emit_loop);
 * the uninitialized values standing for exited paths take their partner's type. */
static void add_if_output(IrNode *node, IrValue *tv, IrValue *ev) {
  const IrType *type = emit_unify_types(tv->type, ev->type);
  if (type == NULL)
    g_error("script exit transform invariant: exit values of types that do not unify");
  ir_block_add_output(ir_block(node, 0), tv);
  ir_block_add_output(ir_block(node, 1), ev);
  ir_node_add_output(node, type);
}

static void add_if_outputs(IrNode *node, GPtrArray *then_values, GPtrArray *else_values) {
  for (guint i = 0; i < then_values->len; i++)
    add_if_output(node, g_ptr_array_index(then_values, i), g_ptr_array_index(else_values, i));
}

/* The last n outputs of a node. */
static ExitPair pair_of_last_outputs(IrValue *has_exited, IrNode *node, guint n) {
  return pair_new(has_exited, (IrValue *const *)node->outputs->pdata + ir_n_outputs(node) - n, n);
}

static ExitPair transform_block(ExitTransform *t, IrBlock *block);

static ExitStatus if_status(ExitStatus then_status, ExitStatus else_status) {
  if (then_status == EXIT_THROWS)
    return else_status;
  if (else_status == EXIT_THROWS)
    return then_status;
  if (then_status == EXIT_WONT && else_status == EXIT_WONT)
    return EXIT_WONT;
  if (then_status == EXIT_WILL && else_status == EXIT_WILL)
    return EXIT_WILL;
  return EXIT_MIGHT;
}

static ExitPair transform_if(ExitTransform *t, IrNode *node) {
  ExitPair then_pair = transform_block(t, ir_block(node, 0));
  ExitPair else_pair = transform_block(t, ir_block(node, 1));
  ExitStatus ts = status_of(t, &then_pair), es = status_of(t, &else_pair);
  ExitStatus status = if_status(ts, es);
  ExitPair result;
  if (status == EXIT_THROWS || status == EXIT_WONT) {
    result = pair_new(status == EXIT_THROWS ? t->throws_value : t->false_value, NULL, 0);
  } else {
    /* The values of a branch that does not exit are never read: uninitialized. */
    if (ts == EXIT_WONT || ts == EXIT_THROWS) {
      g_ptr_array_unref(then_pair.values);
      then_pair.values = uninitialized_like(t, else_pair.values);
    } else if (es == EXIT_WONT || es == EXIT_THROWS) {
      g_ptr_array_unref(else_pair.values);
      else_pair.values = uninitialized_like(t, then_pair.values);
    }
    IrValue *has_exited = t->true_value;
    if (status != EXIT_WILL) {
      add_if_output(node, then_pair.has_exited, else_pair.has_exited);
      has_exited = ir_output(node, ir_n_outputs(node) - 1);
    }
    add_if_outputs(node, then_pair.values, else_pair.values);
    result = pair_of_last_outputs(has_exited, node, then_pair.values->len);
  }
  g_ptr_array_unref(then_pair.values);
  g_ptr_array_unref(else_pair.values);
  return result;
}

/* A return inside a loop: the loop stops when it was taken, and carries out whether it was
 * and the values returned (initially false and uninitialized: the loop may not run). */
static ExitPair transform_loop(ExitTransform *t, IrNode *node) {
  IrBlock *body = ir_block(node, 0);
  ExitPair pair = transform_block(t, body);
  ExitStatus status = status_of(t, &pair);
  if (status == EXIT_WONT || status == EXIT_THROWS) {
    pair_set(&pair, pair_wont(t));
    return pair;
  }
  IrNode *stop = ir_node_create(t->graph, IR_PRIM_IF, 1);
  ir_value_set_type(ir_output(stop, 0), ir_type_bool());
  ir_node_add_input(stop, pair.has_exited);
  ir_block_add_output(ir_node_add_block(stop), t->false_value);
  ir_block_add_output(ir_node_add_block(stop), g_ptr_array_index(ir_block_outputs(body), 0));
  ir_node_append_to(stop, body);
  ir_node_replace_input(body->ret, 0, ir_output(stop, 0));

  ir_node_add_input(node, t->false_value);
  ir_block_add_input(body, ir_type_bool(), NULL);
  ir_block_add_output(body, pair.has_exited);
  IrValue *loop_has_exited = ir_node_add_output(node, ir_type_bool());
  for (guint i = 0; i < pair.values->len; i++) {
    IrValue *v = g_ptr_array_index(pair.values, i);
    ir_node_add_input(node, unit_value(t, v->type));
    ir_node_add_output(node, v->type);
    ir_block_add_input(body, v->type, NULL);
    ir_block_add_output(body, v);
  }
  ExitPair result = pair_of_last_outputs(loop_has_exited, node, pair.values->len);
  g_ptr_array_unref(pair.values);
  return result;
}

/* Nodes after an exit never run: their outputs' uses (block outputs, mostly) read
 * uninitialized values instead. */
static void delete_after_exit(ExitTransform *t, IrBlock *block, IrNode *first) {
  if (first == block->ret)
    return;
  IrNode *stop = first->prev;
  for (IrNode *n = block->ret->prev; n != stop;) {
    IrNode *prev = n->prev;
    for (guint i = 0; i < ir_n_outputs(n); i++)
      if (ir_value_has_uses(ir_output(n, i)))
        ir_value_replace_all_uses_with(ir_output(n, i), unit_value(t, ir_output(n, i)->type));
    ir_node_destroy(n);
    n = prev;
  }
}

/* The nodes from `first` on run only when the exit was not taken: they move into the else
 * branch of a new If on the flag, whose then branch exits with the pair's values. */
static ExitPair guard_block_nodes(ExitTransform *t, IrBlock *block, const ExitPair *pair,
                                  IrNode *first) {
  IrNode *guard = ir_node_create(t->graph, IR_PRIM_IF, 0);
  ir_node_add_input(guard, pair->has_exited);
  ir_node_insert_before(guard, first);
  IrBlock *exit_block = ir_node_add_block(guard);
  IrBlock *rest_block = ir_node_add_block(guard);
  for (IrNode *n = first; n != block->ret;) {
    IrNode *next = n->next;
    ir_node_move_before(n, rest_block->ret);
    n = next;
  }
  g_autoptr(GPtrArray) outputs = block_outputs_copy(block);
  g_autoptr(GPtrArray) unset = uninitialized_like(t, outputs);
  for (guint i = 0; i < outputs->len; i++) {
    IrValue *out = g_ptr_array_index(outputs, i);
    ir_block_add_output(exit_block, g_ptr_array_index(unset, i));
    ir_block_add_output(rest_block, out);
    ir_node_add_output(guard, out->type);
  }
  GPtrArray *guard_outputs = guard->outputs;
  replace_block_outputs(block, guard_outputs);
  IrNode *exit = ir_node_create(t->graph, t->exit_kind, 0);
  for (guint i = 0; i < pair->values->len; i++)
    ir_node_add_input(exit, g_ptr_array_index(pair->values, i));
  ir_node_append_to(exit, exit_block);
  return transform_if(t, guard);
}

static void update_target(ExitTransform *t, IrBlock *block) {
  IrNode *owner = block->owning_node;
  if (t->exit_kind == IR_PRIM_LOOP_CONTINUATION && owner && owner->kind == IR_PRIM_LOOP)
    t->target = block;
  else if (t->exit_kind == IR_PRIM_RETURN_STMT && owner == NULL)
    t->target = block;
}

static ExitPair transform_block(ExitTransform *t, IrBlock *block) {
  IrBlock *outer_target = t->target;
  update_target(t, block);
  ExitPair pair = pair_wont(t);
  for (IrNode *n = block->param->next; n != block->ret;) {
    IrNode *node = n;
    n = n->next;
    switch (node->kind) {
    case IR_PRIM_RAISE_EXCEPTION: pair_set(&pair, pair_new(t->throws_value, NULL, 0)); break;
    case IR_PRIM_RETURN_STMT:
    case IR_PRIM_LOOP_CONTINUATION:
      if (node->kind == t->exit_kind) {
        pair_set(&pair,
                 pair_new(t->true_value, (IrValue *const *)node->inputs->pdata, ir_n_inputs(node)));
        ir_node_destroy(node);
      }
      break;
    case IR_PRIM_IF: pair_set(&pair, transform_if(t, node)); break;
    case IR_PRIM_LOOP: pair_set(&pair, transform_loop(t, node)); break;
    default: break;
    }
    ExitStatus status = status_of(t, &pair);
    if (status == EXIT_WILL || status == EXIT_THROWS) {
      delete_after_exit(t, block, n);
      break;
    }
    if (status == EXIT_MIGHT) {
      if (n != block->ret)
        pair_set(&pair, guard_block_nodes(t, block, &pair, n));
      break;
    }
  }
  if (t->target == block) {
    /* The exits reach their target here: its outputs are the values sent. */
    ExitStatus status = status_of(t, &pair);
    if (status == EXIT_MIGHT) {
      IrNode *merge = ir_node_create(t->graph, IR_PRIM_IF, 0);
      ir_node_add_input(merge, pair.has_exited);
      ir_node_add_block(merge);
      ir_node_add_block(merge);
      ir_node_append_to(merge, block);
      g_autoptr(GPtrArray) outputs = block_outputs_copy(block);
      add_if_outputs(merge, pair.values, outputs);
      replace_block_outputs(block, merge->outputs);
    } else if (status == EXIT_WILL) {
      replace_block_outputs(block, pair.values);
    }
    pair_set(&pair, pair_wont(t));
  }
  t->target = outer_target;
  return pair;
}

static void transform_exits_of_kind(IrGraph *graph, IrOpKind kind) {
  ExitTransform t = {.graph = graph, .exit_kind = kind};
  /* true, false, then the graph's first node (PyTorch's insertion point for these) */
  IrNode *saved = graph->insert_before;
  ir_graph_set_insert_point(graph, graph->block->param->next);
  t.true_value = ir_graph_insert_constant_bool(graph, true);
  t.false_value = ir_graph_insert_constant_bool(graph, false);
  ir_graph_set_insert_point(graph, saved);
  t.unit_values = g_hash_table_new(g_direct_hash, g_direct_equal);
  t.throws_value = unit_value(&t, ir_type_bool());
  ExitPair pair = transform_block(&t, graph->block);
  g_ptr_array_unref(pair.values);
  g_hash_table_unref(t.unit_values);
}

static void remap_inputs_of(IrNode *n, const IrNode *of, GPtrArray *values) {
  for (guint i = 0; i < ir_n_inputs(n); i++)
    if (ir_input(n, i)->node == of)
      ir_node_replace_input(n, i, g_ptr_array_index(values, ir_input(n, i)->offset));
}

/* Inputs of the nodes of `block` and its block outputs (nested blocks included) that are
 * outputs of `of` read the matching value of `values` instead. */
static void remap_outputs_of(IrBlock *block, const IrNode *of, GPtrArray *values) {
  IR_FOR_EACH_NODE(n, block) {
    remap_inputs_of(n, of, values);
    for (guint b = 0; b < ir_n_blocks(n); b++)
      remap_outputs_of(ir_block(n, b), of, values);
  }
  /* A nested If's branch may yield the value itself (a break sending it). */
  remap_inputs_of(block->ret, of, values);
}

/* Merges `node` with the If after it when that If tests an output of `node` that is a
 * different constant in each branch: each branch of `node` gets a copy of the branch of the
 * second If it selects. True when merged. */
static bool merge_with_next_if(IrNode *node) {
  IrNode *second = node->next;
  if (node->kind != IR_PRIM_IF || second == node->owning_block->ret || second->kind != IR_PRIM_IF)
    return false;
  IrValue *cond = ir_input(second, 0);
  if (cond->node != node)
    return false;
  guint offset = 0;
  while (ir_output(node, offset) != cond)
    offset++;
  bool then_value, else_value;
  if (!pu_constant_bool(g_ptr_array_index(ir_block_outputs(ir_block(node, 0)), offset),
                        &then_value) ||
      !pu_constant_bool(g_ptr_array_index(ir_block_outputs(ir_block(node, 1)), offset),
                        &else_value) ||
      then_value == else_value)
    return false;
  /* Each branch of the second If is taken after exactly one branch of the first: its nodes
   * move there (PyTorch copies them, then deletes the second If). */
  for (guint b = 0; b < 2; b++) {
    IrBlock *into = ir_block(node, b);
    IrBlock *from = ir_block(second, (b == 0 ? then_value : else_value) ? 0 : 1);
    g_autoptr(GPtrArray) into_outputs = block_outputs_copy(into);
    pu_move_block_nodes_before(from, into->ret);
    remap_outputs_of(into, node, into_outputs);
    GPtrArray *from_outputs = ir_block_outputs(from);
    for (guint i = 0; i < from_outputs->len; i++) {
      IrValue *v = g_ptr_array_index(from_outputs, i);
      ir_block_add_output(into, v->node == node ? g_ptr_array_index(into_outputs, v->offset) : v);
    }
  }
  for (guint i = 0; i < ir_n_outputs(second); i++) {
    IrValue *old = ir_output(second, i);
    IrValue *merged = ir_node_add_output(node, old->type);
    const char *name = old->name;
    if (name) {
      ir_value_set_name(old, NULL);
      ir_value_set_name(merged, name);
    }
    ir_value_replace_all_uses_with(old, merged);
  }
  ir_node_destroy(second);
  return true;
}

static void merge_consecutive_ifs(IrBlock *block) {
  for (IrNode *n = block->param->next; n != block->ret;) {
    for (guint b = 0; b < ir_n_blocks(n); b++)
      merge_consecutive_ifs(ir_block(n, b));
    if (!merge_with_next_if(n))
      n = n->next;
  }
}

void script_transform_exits(IrGraph *graph) {
  transform_exits_of_kind(graph, IR_PRIM_LOOP_CONTINUATION);
  transform_exits_of_kind(graph, IR_PRIM_RETURN_STMT);
  merge_consecutive_ifs(graph->block);
}
