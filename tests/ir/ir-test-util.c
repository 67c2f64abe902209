#include "ir-test-util.h"

static guint
count_slot(const IrValue *v, const IrNode *user, guint index)
{
  guint n = 0;
  for (guint i = 0; i < v->uses->len; i++) {
    IrUse u = g_array_index(v->uses, IrUse, i);
    if (u.user == user && u.index == index)
      n++;
  }
  return n;
}

static void
check_value(const IrValue *v, const IrNode *producer, guint offset)
{
  g_assert_true(v->node == producer);
  g_assert_cmpuint(v->offset, ==, offset);
  g_assert_nonnull(v->type);
  for (guint i = 0; i < v->uses->len; i++) {
    IrUse u = g_array_index(v->uses, IrUse, i);
    g_assert_false(u.user->destroyed);
    g_assert_cmpuint(u.index, <, ir_n_inputs(u.user));
    g_assert_true(ir_input(u.user, u.index) == v);
    g_assert_cmpuint(count_slot(v, u.user, u.index), ==, 1);
  }
  if (v->name)
    g_assert_true(g_hash_table_lookup(producer->graph->names, v->name) == v);
}

static void
check_inputs(const IrNode *n)
{
  for (guint i = 0; i < ir_n_inputs(n); i++)
    g_assert_cmpuint(count_slot(ir_input(n, i), n, i), ==, 1);
}

static void
check_block(const IrBlock *b, const IrNode *owner)
{
  g_assert_true(b->owning_node == owner);
  g_assert_true(b->param->owning_block == b);
  g_assert_true(b->ret->owning_block == b);
  g_assert_true(b->param->next->prev == b->param);
  for (guint i = 0; i < ir_n_outputs(b->param); i++)
    check_value(ir_output(b->param, i), b->param, i);
  gint64 last = b->param->topo;
  IR_FOR_EACH_NODE(n, b)
  {
    g_assert_false(n->destroyed);
    g_assert_true(n->owning_block == b);
    g_assert_true(n->next->prev == n);
    g_assert_cmpint(n->topo, >, last);
    last = n->topo;
    check_inputs(n);
    for (guint i = 0; i < ir_n_outputs(n); i++)
      check_value(ir_output(n, i), n, i);
    for (guint i = 0; i < ir_n_blocks(n); i++)
      check_block(ir_block(n, i), n);
  }
  g_assert_cmpint(b->ret->topo, >, last);
  check_inputs(b->ret);
}

void
ir_test_check_graph(const IrGraph *graph)
{
  check_block(graph->block, NULL);
  /* Every named value in the table is live and carries that name. */
  GHashTableIter it;
  gpointer k, v;
  g_hash_table_iter_init(&it, graph->names);
  while (g_hash_table_iter_next(&it, &k, &v))
    g_assert_cmpstr(((IrValue *)v)->name, ==, k);
}

char *
ir_test_block_kinds(const IrBlock *block)
{
  GString *s = g_string_new(NULL);
  IR_FOR_EACH_NODE(n, block)
  {
    if (s->len)
      g_string_append_c(s, ' ');
    g_string_append(s, ir_kind_name(n->kind));
  }
  return g_string_free(s, FALSE);
}
