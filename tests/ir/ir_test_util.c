#include "ir_test_util.h"

/* Use-list exactness in linear time: every input slot of every live node is recorded once
 * in a set of (value, user, index); then every value's use list must be exactly its slots. */
typedef struct {
  const IrValue *value;
  const IrNode *user;
  guint index;
} Slot;

static guint slot_hash(gconstpointer p) {
  const Slot *s = p;
  return g_direct_hash(s->value) * 31u + g_direct_hash(s->user) * 17u + s->index;
}

static gboolean slot_equal(gconstpointer a, gconstpointer b) {
  const Slot *x = a, *y = b;
  return x->value == y->value && x->user == y->user && x->index == y->index;
}

typedef struct {
  GHashTable *slots; /* Slot* set: input slots of live nodes */
  GPtrArray *values; /* every value defined by a live node or block */
} Check;

static void record_inputs(Check *c, const IrNode *n) {
  for (guint i = 0; i < ir_n_inputs(n); i++) {
    Slot *s = g_new(Slot, 1);
    s->value = ir_input(n, i);
    s->user = n;
    s->index = i;
    g_assert_false(g_hash_table_contains(c->slots, s));
    g_hash_table_add(c->slots, s);
  }
}

static void check_value(Check *c, const IrValue *v, const IrNode *producer, guint offset) {
  g_assert_true(v->node == producer);
  g_assert_cmpuint(v->offset, ==, offset);
  g_assert_nonnull(v->type);
  if (v->name)
    g_assert_true(g_hash_table_lookup(producer->graph->names, v->name) == v);
  g_ptr_array_add(c->values, (gpointer)v);
}

static void check_block(Check *c, const IrBlock *b, const IrNode *owner) {
  g_assert_true(b->owning_node == owner);
  g_assert_true(b->param->owning_block == b);
  g_assert_true(b->ret->owning_block == b);
  g_assert_true(b->param->next->prev == b->param);
  for (guint i = 0; i < ir_n_outputs(b->param); i++)
    check_value(c, ir_output(b->param, i), b->param, i);
  gint64 last = b->param->topo;
  IR_FOR_EACH_NODE(n, b) {
    g_assert_false(n->destroyed);
    g_assert_true(n->owning_block == b);
    g_assert_true(n->next->prev == n);
    g_assert_cmpint(n->topo, >, last);
    last = n->topo;
    record_inputs(c, n);
    for (guint i = 0; i < ir_n_outputs(n); i++)
      check_value(c, ir_output(n, i), n, i);
    for (guint i = 0; i < ir_n_blocks(n); i++)
      check_block(c, ir_block(n, i), n);
  }
  g_assert_cmpint(b->ret->topo, >, last);
  record_inputs(c, b->ret);
}

void ir_test_check_graph(const IrGraph *graph) {
  Check c = {g_hash_table_new_full(slot_hash, slot_equal, g_free, NULL), g_ptr_array_new()};
  check_block(&c, graph->block, NULL);
  for (guint i = 0; i < c.values->len; i++) {
    const IrValue *v = g_ptr_array_index(c.values, i);
    for (guint u = 0; u < v->uses->len; u++) {
      IrUse use = g_array_index(v->uses, IrUse, u);
      g_assert_false(use.user->destroyed);
      g_assert_cmpuint(use.index, <, ir_n_inputs(use.user));
      g_assert_true(ir_input(use.user, use.index) == v);
      /* Removing the matched slot makes a duplicated use fail here. */
      Slot key = {v, use.user, use.index};
      g_assert_true(g_hash_table_remove(c.slots, &key));
    }
  }
  /* A slot left over is an input missing from its value's use list (or a value from
   * outside the graph). */
  g_assert_cmpuint(g_hash_table_size(c.slots), ==, 0);
  g_hash_table_destroy(c.slots);
  g_ptr_array_free(c.values, TRUE);

  /* Every named value in the table is live and carries that name. */
  GHashTableIter it;
  gpointer k, v;
  g_hash_table_iter_init(&it, graph->names);
  while (g_hash_table_iter_next(&it, &k, &v))
    g_assert_cmpstr(((IrValue *)v)->name, ==, k);
}

char *ir_test_block_kinds(const IrBlock *block) {
  GString *s = g_string_new(NULL);
  IR_FOR_EACH_NODE(n, block) {
    if (s->len)
      g_string_append_c(s, ' ');
    g_string_append(s, ir_kind_name(n->kind));
  }
  return g_string_free(s, FALSE);
}
