/* FuseGraph (reference section 5): grows prim::FusionGroup nodes of pointwise ops (ops.def
 * rows with an expression, non-tensor inputs constant), _grad_sum_to_size and aten::cat (as
 * prim::FusedConcat) in every block, producer into consumer, to a fixpoint; moves chunks
 * below their producers (prim::BroadcastingChunk, then lowered) and into groups; replaces
 * outputs used only for their size by size expressions; removes _grad_sum_to_size from the
 * kernel graphs, recording per output the input holding its target size (fuser.h). Beyond the
 * reference, where its LSTM structures are not at stake: a chunked op's later users read it
 * from the group as a FusedConcat output, sums join the groups that compute or read their
 * tensor (group_sums.c, which holds every sum-to-size rule; fusible.c says what fuses), and
 * sibling groups reading one tensor become one (group_siblings.c).
 * Contract: returns whether the graph changed; leaves it valid. */
#include "autodiff/subgraph_utils.h"
#include "fuser/fuser.h"
#include "fuser/fusible.h"
#include "fuser/group_siblings.h"
#include "fuser/group_sums.h"
#include "passes/passes.h"

/* ---------------- growth ---------------- */

/* May the node producing `v` be merged into `consumer`'s group? A fusible producer may; so may
 * a group that sums, into a _grad_sum_to_size of one of its outputs that it does not sum:
 * that output is computed per map element like any other, and the kernel sums it too. */
static bool may_merge_producer(const IrNode *consumer, const IrValue *v) {
  const IrNode *p = v->node;
  if (fusible_producer(p))
    return true;
  return consumer->kind == IR_ATEN_GRAD_SUM_TO_SIZE && p->kind == IR_PRIM_FUSION_GROUP &&
         !fusible_body_has(p, IR_PRIM_FUSED_CONCAT) && !group_sums_is_summed_output(p, v);
}

static gint later_first(gconstpointer a, gconstpointer b) {
  const IrValue *x = *(IrValue *const *)a, *y = *(IrValue *const *)b;
  if (x->node == y->node)
    return (gint)y->offset - (gint)x->offset;
  return ir_node_is_before(x->node, y->node) ? 1 : -1;
}

/* Distinct inputs of `consumer` produced by nodes of its block, latest producer first. */
static GPtrArray *producers_reverse_topological(IrNode *consumer) {
  GPtrArray *out = g_ptr_array_new();
  for (guint i = 0; i < ir_n_inputs(consumer); i++) {
    IrValue *v = ir_input(consumer, i);
    if (v->node->owning_block != consumer->owning_block || v->node->kind == IR_PRIM_PARAM ||
        g_ptr_array_find(out, v, NULL))
      continue;
    g_ptr_array_add(out, v);
  }
  g_ptr_array_sort(out, later_first);
  return out;
}

static bool uses_any(const IrNode *n, GHashTable *defs) {
  for (guint i = 0; i < ir_n_inputs(n); i++)
    if (g_hash_table_contains(defs, ir_input(n, i)))
      return true;
  for (guint b = 0; b < ir_n_blocks(n); b++) {
    IrBlock *inner = ir_block(n, b);
    if (uses_any(inner->ret, defs))
      return true;
    IR_FOR_EACH_NODE(m, inner) {
      if (uses_any(m, defs))
        return true;
    }
  }
  return false;
}

/* Makes `p` movable to just before `consumer` (AliasDb's moveBeforeTopologicallyValid for
 * side-effect-free nodes): the nodes between them that depend on p (size bookkeeping,
 * typically) move to just after consumer, keeping their order. Fails when consumer itself
 * depends on one of them or one of them has blocks or side effects. */
static bool move_dependents_after(IrNode *p, IrNode *consumer) {
  if (p->owning_block != consumer->owning_block || !ir_node_is_before(p, consumer))
    return false;
  GHashTable *defs = g_hash_table_new(NULL, NULL);
  for (guint i = 0; i < ir_n_outputs(p); i++)
    g_hash_table_add(defs, ir_output(p, i));
  GPtrArray *dependents = g_ptr_array_new();
  bool ok = true;
  for (IrNode *n = p->next; n != consumer && ok; n = n->next) {
    if (!uses_any(n, defs))
      continue;
    if (ir_n_blocks(n) > 0 || n->kind == IR_PRIM_RAISE_EXCEPTION || n->kind == IR_PRIM_PRINT)
      ok = false;
    g_ptr_array_add(dependents, n);
    for (guint i = 0; i < ir_n_outputs(n); i++)
      g_hash_table_add(defs, ir_output(n, i));
  }
  for (guint i = 0; ok && i < ir_n_inputs(consumer); i++) {
    IrValue *v = ir_input(consumer, i);
    ok = v->node == p || !g_hash_table_contains(defs, v);
  }
  if (ok) {
    IrNode *anchor = consumer;
    for (guint i = 0; i < dependents->len; i++) {
      IrNode *n = g_ptr_array_index(dependents, i);
      ir_node_move_after(n, anchor);
      anchor = n;
    }
  }
  g_ptr_array_free(dependents, TRUE);
  g_hash_table_destroy(defs);
  return ok && ir_node_can_move_before(p, consumer);
}

/* Merges producer's node into consumer (made a group first); returns the group or NULL. */
static IrNode *try_fuse(IrNode *consumer, IrValue *producer) {
  IrNode *p = producer->node;
  if (p->owning_block != consumer->owning_block || !may_merge_producer(consumer, producer))
    return NULL;
  if (!ir_node_can_move_before(p, consumer) && !move_dependents_after(p, consumer))
    return NULL;
  if (p->kind == IR_ATEN_GRAD_SUM_TO_SIZE && !group_sums_merge_ok(consumer, p))
    return NULL;
  IrNode *group = consumer;
  if (consumer->kind != IR_PRIM_FUSION_GROUP)
    group = ad_subgraph_create_singleton(consumer, IR_PRIM_FUSION_GROUP);
  ad_subgraph_merge_node(p, group);
  return group;
}

static bool is_size_of(const IrNode *n) {
  return n->kind == IR_ATEN_SIZE && ir_n_inputs(n) == 1;
}

/* May the op making `v` move past `chunk` into `consumer`? When every other user of v reads
 * its size, or comes after the consumer in its block: those read the pieces concatenated back
 * (a FusedConcat that joins the group as an output; MiLSTM's alpha * Wx, saved for the
 * backward, is computed by the forward's group instead of by itself). */
static bool chunk_move_users_ok(const IrValue *v, const IrNode *chunk, const IrNode *consumer) {
  for (guint u = 0; u < v->uses->len; u++) {
    IrNode *user = g_array_index(v->uses, IrUse, u).user;
    bool later = user->owning_block == consumer->owning_block &&
                 (user == consumer->owning_block->ret || ir_node_is_after(user, consumer));
    if (user != chunk && !is_size_of(user) && !later)
      return false;
  }
  return true;
}

static IrValue *insert_size_of(IrGraph *graph, IrValue *v) {
  IrNode *n = ir_graph_insert_op(graph, IR_ATEN_SIZE, &v, 1, 1);
  ir_value_set_type(ir_output(n, 0), ir_type_list(ir_type_int()));
  return ir_output(n, 0);
}

static IrValue *insert_broadcast_sizes(IrGraph *graph, GPtrArray *sizes) {
  if (sizes->len == 1)
    return g_ptr_array_index(sizes, 0);
  IrNode *n = ir_node_create(graph, IR_PRIM_BROADCAST_SIZES, 1);
  for (guint i = 0; i < sizes->len; i++)
    ir_node_add_input(n, g_ptr_array_index(sizes, i));
  ir_value_set_type(ir_output(n, 0), ir_type_list(ir_type_int()));
  ir_graph_insert(graph, n);
  return ir_output(n, 0);
}

/* a, b = chunk(op(x, y)) feeding `consumer` becomes op(x0, y0), op(x1, y1) over a
 * BroadcastingChunk of x and y, so op can fuse into consumer; sizes of op's result become
 * BroadcastSizes of its tensor inputs' sizes. */
static bool try_move_chunk(IrNode *consumer, IrValue *producer) {
  IrNode *chunk = producer->node;
  if (chunk->kind != IR_PRIM_CONSTANT_CHUNK && chunk->kind != IR_PRIM_BROADCASTING_CHUNK)
    return false;
  IrGraph *graph = ir_node_graph(chunk);
  guint pi = 0;
  IrNode *op = NULL;
  for (; pi < ir_n_inputs(chunk); pi++) {
    IrNode *cand = ir_input(chunk, pi)->node;
    if (cand->owning_block == chunk->owning_block && fusible_pointwise(cand) &&
        chunk_move_users_ok(ir_input(chunk, pi), chunk, consumer)) {
      op = cand;
      break;
    }
  }
  if (!op)
    return false;
  for (guint i = 0; i < ir_n_outputs(chunk); i++) {
    IrValue *o = ir_output(chunk, i);
    for (guint u = 0; u < o->uses->len; u++)
      if (g_array_index(o->uses, IrUse, u).user != consumer)
        return false;
  }
  guint nchunks = (guint)ir_node_attr_i(chunk, IR_ATTR_CHUNKS);
  for (guint i = 0; i < ir_n_inputs(chunk); i++) /* an input chunked twice cannot be split */
    if (i != pi && ir_input(chunk, i) == ir_input(chunk, pi))
      return false;
  IrNode *bchunk = chunk;
  if (chunk->kind == IR_PRIM_CONSTANT_CHUNK) {
    bchunk = ir_node_create(graph, IR_PRIM_BROADCASTING_CHUNK, nchunks);
    ir_node_copy_attrs(bchunk, chunk);
    ir_node_add_input(bchunk, ir_input(chunk, 0));
    for (guint i = 0; i < nchunks; i++) {
      ir_value_set_type(ir_output(bchunk, i), ir_output(chunk, i)->type);
      ir_value_replace_all_uses_with(ir_output(chunk, i), ir_output(bchunk, i));
    }
    ir_node_insert_before(bchunk, chunk);
    ir_node_destroy(chunk);
  }
  GPtrArray *chunked = g_ptr_array_new(); /* per tensor input of op: first output index */
  for (guint i = 0; i < ir_n_inputs(op); i++) {
    IrValue *in = ir_input(op, i);
    if (!fusible_is_tensor(in))
      continue;
    guint j = 0;
    while (j < ir_n_inputs(bchunk) && ir_input(bchunk, j) != in)
      j++;
    if (j == ir_n_inputs(bchunk)) {
      ir_node_add_input(bchunk, in);
      for (guint k = 0; k < nchunks; k++) {
        IrValue *o = ir_node_add_output(bchunk, ir_output(bchunk, pi * nchunks + k)->type);
        (void)o;
      }
    }
    g_ptr_array_add(chunked, GUINT_TO_POINTER(j * nchunks));
  }
  IrNode *cursor = bchunk;
  g_autoptr(GPtrArray) copies = g_ptr_array_new();
  for (guint k = 0; k < nchunks; k++) {
    IrValue *piece = ir_output(bchunk, pi * nchunks + k);
    IrNode *copy = ir_node_create(graph, op->kind, 1);
    copy->schema = op->schema;
    copy->source = op->source;
    ir_node_copy_attrs(copy, op);
    guint t = 0;
    for (guint i = 0; i < ir_n_inputs(op); i++) {
      IrValue *in = ir_input(op, i);
      if (fusible_is_tensor(in))
        in = ir_output(bchunk, GPOINTER_TO_UINT(g_ptr_array_index(chunked, t++)) + k);
      ir_node_add_input(copy, in);
    }
    ir_value_set_type(ir_output(copy, 0), piece->type);
    ir_node_insert_after(copy, cursor);
    cursor = copy;
    ir_value_replace_all_uses_with(piece, ir_output(copy, 0));
    g_ptr_array_add(copies, ir_output(copy, 0));
  }
  g_ptr_array_free(chunked, TRUE);
  ir_node_remove_input(bchunk, pi);
  for (guint k = 0; k < nchunks; k++)
    ir_node_erase_output(bchunk, pi * nchunks);

  IrValue *result = ir_output(op, 0);
  bool rejoin = false;
  for (guint u = 0; u < result->uses->len; u++)
    rejoin |= !is_size_of(g_array_index(result->uses, IrUse, u).user);
  if (rejoin) {
    IrNode *fc = ir_node_create(graph, IR_PRIM_FUSED_CONCAT, 1);
    for (guint k = 0; k < copies->len; k++)
      ir_node_add_input(fc, g_ptr_array_index(copies, k));
    ir_node_set_attr_i(fc, IR_ATTR_DIM, ir_node_attr_i(bchunk, IR_ATTR_DIM));
    ir_value_set_type(ir_output(fc, 0), result->type);
    fc->source = op->source;
    ir_node_insert_after(fc, consumer);
    ir_value_replace_uses_after(result, ir_output(fc, 0), fc);
  }
  if (result->uses->len > 0) {
    IrNode *saved = graph->insert_before;
    ir_graph_set_insert_point(graph, op->next);
    GPtrArray *sizes = g_ptr_array_new();
    for (guint i = 0; i < ir_n_inputs(op); i++)
      if (fusible_is_tensor(ir_input(op, i)))
        g_ptr_array_add(sizes, insert_size_of(graph, ir_input(op, i)));
    IrValue *size = insert_broadcast_sizes(graph, sizes);
    g_ptr_array_free(sizes, TRUE);
    ir_graph_set_insert_point(graph, saved);
    while (result->uses->len > 0) {
      IrNode *user = g_array_index(result->uses, IrUse, 0).user;
      ir_value_replace_all_uses_with(ir_output(user, 0), size);
      ir_node_destroy(user);
    }
  }
  ir_node_destroy(op);
  return true;
}

/* One step of the reverse scan: fuses into `consumer` and returns where to continue. */
static IrNode *scan_node(IrNode *consumer, bool *changed) {
  if (fusible_consumer(consumer)) {
    g_autoptr(GPtrArray) producers = producers_reverse_topological(consumer);
    for (guint i = 0; i < producers->len; i++) {
      IrValue *v = g_ptr_array_index(producers, i);
      if (try_move_chunk(consumer, v)) {
        *changed = true;
        return consumer;
      }
      IrNode *group = try_fuse(consumer, v);
      if (group) {
        *changed = true;
        return group;
      }
    }
  }
  return consumer->prev;
}

/* ---------------- concats ---------------- */

/* A group around `fc`, its producers merged in. */
static IrNode *grow_concat_group(IrNode *fc) {
  IrNode *group = ad_subgraph_create_singleton(fc, IR_PRIM_FUSION_GROUP);
  bool grew = true;
  while (grew) {
    grew = false;
    g_autoptr(GPtrArray) producers = producers_reverse_topological(group);
    for (guint i = 0; i < producers->len && !grew; i++) {
      IrValue *v = g_ptr_array_index(producers, i);
      if (v->node->kind != IR_ATEN_GRAD_SUM_TO_SIZE && try_fuse(group, v))
        grew = true;
    }
  }
  return group;
}

/* May the pieces `pieces` (a ListConstruct or FusedConcat node's inputs) and the result be a
 * kernel's concatenation: one piece at least, every one a tensor of a dtype kernels take? */
static bool concat_operands_ok(const IrNode *pieces, const IrValue *result) {
  bool ok = ir_n_inputs(pieces) > 0 && fusible_kernel_dtype(result->type);
  for (guint i = 0; ok && i < ir_n_inputs(pieces); i++)
    ok = fusible_kernel_dtype(ir_input(pieces, i)->type);
  return ok;
}

/* aten::cat of a list construct with a fusible producer becomes a FusedConcat, and every
 * FusedConcat outside a group a kernel can compute (those made so, those try_move_chunk
 * makes, a graph's own) a group. */
static bool fuse_concats(IrBlock *block) {
  bool changed = false;
  IrGraph *graph = block->graph;
  for (IrNode *n = block->ret->prev; n != block->param;) {
    IrNode *prev = n->prev;
    if (n->kind == IR_PRIM_FUSED_CONCAT) {
      if (concat_operands_ok(n, ir_output(n, 0))) {
        prev = grow_concat_group(n)->prev;
        changed = true;
      }
      n = prev;
      continue;
    }
    IrValue *list = n->kind == IR_ATEN_CAT && ir_n_inputs(n) == 2 ? ir_input(n, 0) : NULL;
    IrValue *dim = list ? ir_input(n, 1) : NULL;
    if (!list || list->node->kind != IR_PRIM_LIST_CONSTRUCT || list->uses->len != 1 ||
        !fusible_is_constant(dim) || !ir_node_has_attr(dim->node, IR_ATTR_VALUE) ||
        ir_node_attr(dim->node, IR_ATTR_VALUE)->kind != IR_ATTR_I ||
        !concat_operands_ok(list->node, ir_output(n, 0))) {
      n = prev;
      continue;
    }
    IrNode *lc = list->node;
    bool any = false;
    for (guint i = 0; i < ir_n_inputs(lc); i++) {
      IrNode *p = ir_input(lc, i)->node;
      any |= p->owning_block == block && fusible_producer(p) &&
             p->kind != IR_ATEN_GRAD_SUM_TO_SIZE && ir_node_can_move_before(p, lc);
    }
    if (!any) {
      n = prev;
      continue;
    }
    IrNode *fc = ir_node_create(graph, IR_PRIM_FUSED_CONCAT, 1);
    for (guint i = 0; i < ir_n_inputs(lc); i++)
      ir_node_add_input(fc, ir_input(lc, i));
    ir_node_set_attr_i(fc, IR_ATTR_DIM, ir_node_attr_i(dim->node, IR_ATTR_VALUE));
    ir_value_set_type(ir_output(fc, 0), ir_output(n, 0)->type);
    fc->source = n->source;
    ir_node_insert_before(fc, lc);
    ir_value_replace_all_uses_with(ir_output(n, 0), ir_output(fc, 0));
    ir_node_destroy(n);
    ir_node_destroy(lc);
    changed = true;
    n = grow_concat_group(fc)->prev;
  }
  return changed;
}

/* ---------------- chunks ---------------- */

/* BroadcastingChunk(x, y) -> ConstantChunk(expand(x, s)), ConstantChunk(expand(y, s)) with
 * s the broadcast of their sizes (inputs of one tensor need no broadcast). */
static bool lower_broadcasting_chunks(IrBlock *block) {
  IrGraph *graph = block->graph;
  bool changed = false;
  IR_FOR_EACH_NODE(b, block) {
    if (b->kind != IR_PRIM_BROADCASTING_CHUNK)
      continue;
    changed = true;
    guint nchunks = (guint)ir_node_attr_i(b, IR_ATTR_CHUNKS);
    guint n_in = ir_n_inputs(b);
    IrNode *saved = graph->insert_before;
    ir_graph_set_insert_point(graph, b);
    IrValue *bsize = NULL;
    int rank = -1;
    if (n_in > 1) {
      GPtrArray *sizes = g_ptr_array_new();
      for (guint i = 0; i < n_in; i++) {
        g_ptr_array_add(sizes, insert_size_of(graph, ir_input(b, i)));
        rank = MAX(rank, ir_input(b, i)->type->rank);
      }
      bsize = insert_broadcast_sizes(graph, sizes);
      g_ptr_array_free(sizes, TRUE);
    }
    for (guint i = 0; i < n_in; i++) {
      IrValue *in = ir_input(b, i);
      if (bsize) {
        IrValue *args[2] = {in, bsize};
        IrNode *e = ir_graph_insert_op(graph, IR_ATEN_EXPAND, args, 2, 1);
        IrType proto = *in->type;
        proto.rank = rank;
        proto.sizes = NULL;
        proto.strides = NULL;
        ir_value_set_type(ir_output(e, 0), ir_type_tensor_from(&proto));
        in = ir_output(e, 0);
      }
      IrNode *c = ir_node_create(graph, IR_PRIM_CONSTANT_CHUNK, nchunks);
      ir_node_copy_attrs(c, b);
      ir_node_add_input(c, in);
      for (guint k = 0; k < nchunks; k++) {
        IrValue *old = ir_output(b, i * nchunks + k);
        ir_value_set_type(ir_output(c, k), old->type);
        ir_value_replace_all_uses_with(old, ir_output(c, k));
      }
      ir_graph_insert(graph, c);
    }
    ir_graph_set_insert_point(graph, saved);
    ir_node_destroy(b);
  }
  return changed;
}

/* Moves ConstantChunks whose outputs all feed one group into it (reusing a chunk of the same
 * input already inside). */
static bool fuse_chunks_into_groups(IrBlock *block) {
  bool changed = false;
  for (IrNode *g = block->ret->prev; g != block->param;) {
    if (g->kind != IR_PRIM_FUSION_GROUP) {
      g = g->prev;
      continue;
    }
    bool again = false;
    GPtrArray *producers = producers_reverse_topological(g);
    for (guint i = 0; i < producers->len && !again; i++) {
      IrNode *c = ((IrValue *)g_ptr_array_index(producers, i))->node;
      if (c->kind != IR_PRIM_CONSTANT_CHUNK || ir_node_attr_i(c, IR_ATTR_CHUNKS) == 1)
        continue;
      bool only_group = true;
      for (guint k = 0; k < ir_n_outputs(c); k++) {
        IrValue *o = ir_output(c, k);
        for (guint u = 0; u < o->uses->len; u++)
          only_group &= g_array_index(o->uses, IrUse, u).user == g;
      }
      if (!only_group)
        continue;
      IrGraph *body = ad_subgraph_body(g);
      IrNode *existing = NULL;
      for (guint p = 0; p < ir_n_inputs(g) && !existing; p++) {
        if (ir_input(g, p) != ir_input(c, 0))
          continue;
        IrValue *bin = g_ptr_array_index(ir_graph_inputs(body), p);
        for (guint u = 0; u < bin->uses->len; u++) {
          IrNode *user = g_array_index(bin->uses, IrUse, u).user;
          if (user->kind == IR_PRIM_CONSTANT_CHUNK) {
            if (ir_node_attr_i(user, IR_ATTR_CHUNKS) == ir_node_attr_i(c, IR_ATTR_CHUNKS) &&
                ir_node_attr_i(user, IR_ATTR_DIM) == ir_node_attr_i(c, IR_ATTR_DIM))
              existing = user;
            else
              only_group = false; /* two chunkings of one input: leave it outside */
          }
        }
      }
      if (!only_group)
        continue;
      if (existing) {
        for (guint k = 0; k < ir_n_outputs(c); k++)
          for (guint p = 0; p < ir_n_inputs(g);) {
            if (ir_input(g, p) != ir_output(c, k)) {
              p++;
              continue;
            }
            ir_value_replace_all_uses_with(g_ptr_array_index(ir_graph_inputs(body), p),
                                           ir_output(existing, k));
            ir_node_remove_input(g, p);
            ir_graph_erase_input(body, p);
          }
        ir_node_destroy(c);
      } else {
        ad_subgraph_merge_node(c, g);
      }
      again = changed = true;
    }
    g_ptr_array_free(producers, TRUE);
    if (!again)
      g = g->prev;
  }
  return changed;
}

/* ---------------- finishing a group ---------------- */

/* Non-tensor inputs (the sum-to sizes) move behind the tensors. */
static bool order_inputs(IrNode *group) {
  IrGraph *body = ad_subgraph_body(group);
  guint n = ir_n_inputs(group), moved = 0;
  for (guint i = 0; i + moved < n;) {
    IrValue *v = ir_input(group, i);
    if (fusible_is_tensor(v)) {
      i++;
      continue;
    }
    IrValue *old = g_ptr_array_index(ir_graph_inputs(body), i);
    const char *name = old->name;
    ir_value_set_name(old, NULL);
    IrValue *nb = ir_graph_add_input(body, old->type, name);
    ir_value_replace_all_uses_with(old, nb);
    ir_graph_erase_input(body, i);
    ir_node_remove_input(group, i);
    ir_node_add_input(group, v);
    moved++;
  }
  return moved > 0;
}

static bool used_only_in_size(const IrValue *v) {
  for (guint u = 0; u < v->uses->len; u++) {
    IrNode *user = g_array_index(v->uses, IrUse, u).user;
    if (user->kind != IR_ATEN_SIZE || ir_n_inputs(user) != 1)
      return false;
  }
  return true;
}

typedef struct {
  IrNode *group;
  IrGraph *graph;
  GHashTable *shape; /* body value -> outer int[] value */
} Shapes;

static IrValue *shape_of(Shapes *s, IrValue *v) {
  IrValue *known = g_hash_table_lookup(s->shape, v);
  if (known)
    return known;
  IrNode *n = v->node;
  IrValue *result = NULL;
  if (n->kind == IR_PRIM_PARAM) {
    result = insert_size_of(s->graph, ir_input(s->group, v->offset));
  } else if (n->kind == IR_PRIM_CONSTANT_CHUNK) {
    IrValue *whole = shape_of(s, ir_input(n, 0));
    if (!whole)
      return NULL;
    IrNode *cs = ir_node_create(s->graph, IR_PRIM_CHUNK_SIZES, 2);
    ir_node_copy_attrs(cs, n);
    ir_node_add_input(cs, whole);
    ir_value_set_type(ir_output(cs, 0), ir_type_list(ir_type_int()));
    ir_value_set_type(ir_output(cs, 1), ir_type_list(ir_type_int()));
    ir_graph_insert(s->graph, cs);
    for (guint k = 0; k < ir_n_outputs(n); k++)
      g_hash_table_insert(s->shape, ir_output(n, k), ir_output(cs, k + 1 == ir_n_outputs(n)));
    return g_hash_table_lookup(s->shape, v);
  } else if (n->kind == IR_PRIM_CONSTANT || n->kind == IR_PRIM_FUSED_CONCAT) {
    return NULL;
  } else {
    g_autoptr(GPtrArray) sizes = g_ptr_array_new();
    for (guint i = 0; i < ir_n_inputs(n); i++) {
      if (!fusible_is_tensor(ir_input(n, i)))
        continue;
      IrValue *sz = shape_of(s, ir_input(n, i));
      if (!sz)
        return NULL;
      g_ptr_array_add(sizes, sz);
    }
    if (sizes->len)
      result = insert_broadcast_sizes(s->graph, sizes);
  }
  if (result)
    g_hash_table_insert(s->shape, v, result);
  return result;
}

/* Outputs used only by aten::size (or not at all) leave the group; their sizes come from
 * expressions over the group's inputs. */
static bool remove_outputs_used_only_in_size(IrNode *group) {
  IrGraph *graph = ir_node_graph(group);
  IrGraph *body = ad_subgraph_body(group);
  const IrAttr *a = ir_node_attr(group, g_intern_static_string(FUSER_ATTR_SUM_TO_SIZE));
  GArray *sum_to = g_array_new(FALSE, FALSE, sizeof(gint64));
  for (guint i = 0; i < ir_n_outputs(group); i++) {
    gint64 v = a ? g_array_index(a->v.is, gint64, i) : -1;
    g_array_append_val(sum_to, v);
  }
  bool any_removable = false;
  for (guint i = 0; i < ir_n_outputs(group) && ir_n_outputs(group) > 1; i++)
    any_removable |= used_only_in_size(ir_output(group, i)) && g_array_index(sum_to, gint64, i) < 0;
  if (!any_removable) {
    /* The sizes below would be inserted for nothing (and left for dead code). */
    g_array_free(sum_to, TRUE);
    return false;
  }
  Shapes s = {group, graph, g_hash_table_new(NULL, NULL)};
  IrNode *saved = graph->insert_before, *after = group->next;
  ir_graph_set_insert_point(graph, after);
  for (guint i = 0; i < ir_n_outputs(group); i++)
    if (!used_only_in_size(ir_output(group, i)) && g_array_index(sum_to, gint64, i) < 0)
      g_hash_table_insert(s.shape, g_ptr_array_index(ir_graph_outputs(body), i),
                          insert_size_of(graph, ir_output(group, i)));
  bool changed = false;
  for (gint i = (gint)ir_n_outputs(group) - 1; i >= 0; i--) {
    IrValue *out = ir_output(group, i);
    if (!used_only_in_size(out) || g_array_index(sum_to, gint64, i) >= 0 ||
        ir_n_outputs(group) == 1)
      continue;
    IrValue *shape =
        out->uses->len ? shape_of(&s, g_ptr_array_index(ir_graph_outputs(body), i)) : NULL;
    if (out->uses->len && !shape)
      continue;
    while (out->uses->len) {
      IrNode *user = g_array_index(out->uses, IrUse, 0).user;
      ir_value_replace_all_uses_with(ir_output(user, 0), shape);
      ir_node_destroy(user);
    }
    ir_node_erase_output(group, (guint)i);
    ir_graph_erase_output(body, (guint)i);
    g_array_remove_index(sum_to, (guint)i);
    changed = true;
  }
  ir_graph_set_insert_point(graph, saved);
  /* Nothing removed (no output's shape was known): the sizes inserted for it go again, last
   * first, since each reads only those before it. */
  while (!changed && group->next != after)
    ir_node_destroy(after->prev);
  if (changed && a)
    ir_node_set_attr_is(group, FUSER_ATTR_SUM_TO_SIZE, (const gint64 *)sum_to->data, sum_to->len);
  g_array_free(sum_to, TRUE);
  g_hash_table_destroy(s.shape);
  return changed;
}
/* ---------------- the pass ---------------- */

static bool fuse_block(IrBlock *block) {
  bool changed = false, any = true;
  while (any) {
    any = false;
    for (IrNode *n = block->ret->prev; n != block->param;)
      n = scan_node(n, &any);
    changed |= any;
  }
  changed |= fuse_concats(block);
  IR_FOR_EACH_NODE(g, block) {
    if (g->kind != IR_PRIM_FUSION_GROUP)
      continue;
    IrGraph *body = ad_subgraph_body(g);
    changed |= pass_eliminate_dead_code(body);
    changed |= pass_eliminate_common_subexpression(body);
    changed |= pass_constant_pooling(body);
  }
  changed |= lower_broadcasting_chunks(block);
  changed |= fuse_chunks_into_groups(block);
  changed |= group_sums_join_readers(block);
  changed |= group_siblings_merge(block);
  GPtrArray *groups = g_ptr_array_new(); /* finishing destroys size nodes beside groups */
  IR_FOR_EACH_NODE(g, block) {
    if (g->kind == IR_PRIM_FUSION_GROUP)
      g_ptr_array_add(groups, g);
  }
  for (guint i = 0; i < groups->len; i++) {
    IrNode *g = g_ptr_array_index(groups, i);
    changed |= order_inputs(g);
    changed |= group_sums_finish(g);
    changed |= remove_outputs_used_only_in_size(g);
  }
  g_ptr_array_free(groups, TRUE);
  IR_FOR_EACH_NODE(n, block) {
    for (guint b = 0; b < ir_n_blocks(n); b++)
      changed |= fuse_block(ir_block(n, b));
  }
  return changed;
}

bool pass_fuse_graph(IrGraph *graph) {
  /* Dead users between a producer and its consumer would block moves. */
  bool changed = pass_eliminate_dead_code(graph);
  changed |= fuse_block(graph->block);
  if (changed) {
    pass_eliminate_common_subexpression(graph);
    pass_eliminate_dead_code(graph);
  }
  return changed;
}
