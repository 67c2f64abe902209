/* Graphs: the arena that owns every node, value and block, the top block, the insertion
 * point, and the convenience creators for ops and constants. */
#include <stddef.h>
#include <string.h>

#include "ir/ir-internal.h"
#include "ir/ops.h"

/* The arena: chunks that double from 4 KiB up to 64 KiB, newest first. */
struct IrArenaChunk {
  struct IrArenaChunk *next;
  gsize used, size;
  max_align_t data[];
};

#define ARENA_FIRST_CHUNK 4096
#define ARENA_LARGEST_CHUNK 65536

gpointer ir_internal_alloc0(IrGraph *graph, gsize size) {
  size = (size + sizeof(max_align_t) - 1) & ~(sizeof(max_align_t) - 1);
  struct IrArenaChunk *chunk = graph->arena;
  if (chunk == NULL || chunk->size - chunk->used < size) {
    gsize capacity = chunk ? MIN(chunk->size * 2, ARENA_LARGEST_CHUNK) : ARENA_FIRST_CHUNK;
    capacity = MAX(capacity, size);
    struct IrArenaChunk *fresh = g_malloc(sizeof *fresh + capacity);
    fresh->next = chunk;
    fresh->used = 0;
    fresh->size = capacity;
    graph->arena = chunk = fresh;
  }
  gpointer p = (char *)chunk->data + chunk->used;
  chunk->used += size;
  return memset(p, 0, size);
}

IrGraph *ir_graph_new(void) {
  IrGraph *g = g_new0(IrGraph, 1);
  g->next_value_id = 0;
  g->next_origin = 1;
  g->origin_nodes = g_hash_table_new(g_direct_hash, g_direct_equal);
  g->names = g_hash_table_new(g_str_hash, g_str_equal);
  g->name_suffix = g_hash_table_new(g_str_hash, g_str_equal);
  g->strings = g_string_chunk_new(4096);
  g->all_nodes = g_ptr_array_new();
  g->all_values = g_ptr_array_new();
  g->block = ir_internal_block_new(g, NULL);
  g->insert_before = g->block->ret;
  return g;
}

void ir_graph_free(IrGraph *graph) {
  if (!graph)
    return;
  for (guint i = 0; i < graph->all_nodes->len; i++) {
    IrNode *n = g_ptr_array_index(graph->all_nodes, i);
    ir_internal_node_free_attrs(n);
    if (n->attrs)
      g_array_free(n->attrs, TRUE);
    g_ptr_array_free(n->inputs, TRUE);
    g_ptr_array_free(n->outputs, TRUE);
    if (n->blocks)
      g_ptr_array_free(n->blocks, TRUE);
  }
  for (guint i = 0; i < graph->all_values->len; i++) {
    IrValue *v = g_ptr_array_index(graph->all_values, i);
    g_array_free(v->uses, TRUE);
  }
  while (graph->arena) {
    struct IrArenaChunk *next = graph->arena->next;
    g_free(graph->arena);
    graph->arena = next;
  }
  g_ptr_array_free(graph->all_nodes, TRUE);
  g_hash_table_destroy(graph->origin_nodes);
  g_ptr_array_free(graph->all_values, TRUE);
  g_hash_table_destroy(graph->names);
  g_hash_table_destroy(graph->name_suffix);
  g_string_chunk_free(graph->strings);
  if (graph->functions)
    g_hash_table_destroy(graph->functions);
  g_free(graph);
}

void ir_graph_set_function(IrGraph *graph, const char *name, IrGraph *definition) {
  if (graph->functions == NULL)
    graph->functions =
        g_hash_table_new_full(g_str_hash, g_str_equal, g_free, (GDestroyNotify)ir_graph_free);
  g_hash_table_replace(graph->functions, g_strdup(name), definition);
}

const IrGraph *ir_graph_function(const IrGraph *graph, const char *name) {
  return graph->functions ? g_hash_table_lookup(graph->functions, name) : NULL;
}

static guint count_block(const IrBlock *block) {
  guint n = 0;
  IR_FOR_EACH_NODE(node, block) {
    n++;
    for (guint i = 0; i < ir_n_blocks(node); i++)
      n += count_block(ir_block(node, i));
  }
  return n;
}

guint ir_graph_count_nodes(const IrGraph *graph) {
  return count_block(graph->block);
}

IrValue *ir_graph_add_input(IrGraph *graph, const IrType *type, const char *name) {
  return ir_block_add_input(graph->block, type, name);
}

void ir_graph_erase_input(IrGraph *graph, guint index) {
  ir_block_erase_input(graph->block, index);
}

guint ir_graph_add_output(IrGraph *graph, IrValue *value) {
  return ir_block_add_output(graph->block, value);
}

void ir_graph_erase_output(IrGraph *graph, guint index) {
  ir_block_erase_output(graph->block, index);
}

void ir_graph_set_insert_point(IrGraph *graph, IrNode *before) {
  if (!before)
    before = graph->block->ret;
  if (before->graph != graph || !before->owning_block || before->destroyed)
    g_error("ir invariant: insertion point must be a live node inserted in this graph");
  if (before->kind == IR_PRIM_PARAM)
    g_error("ir invariant: cannot insert before a block's prim::Param sentinel");
  graph->insert_before = before;
}

IrNode *ir_graph_insert(IrGraph *graph, IrNode *node) {
  ir_node_insert_before(node, graph->insert_before);
  return node;
}

IrNode *ir_graph_insert_op(IrGraph *graph, IrOpKind kind, IrValue *const *inputs, guint n_inputs,
                           guint n_outputs) {
  IrNode *node = ir_node_create(graph, kind, n_outputs);
  for (guint i = 0; i < n_inputs; i++)
    ir_node_add_input(node, inputs[i]);
  guint n_overloads = 0;
  ir_ops_overloads(kind, &n_overloads);
  if (n_overloads > 0) {
    const IrSchema *schema = ir_node_resolve_schema(node);
    if (!schema) {
      GString *msg = g_string_new(NULL);
      for (guint i = 0; i < n_inputs; i++) {
        if (i)
          g_string_append(msg, ", ");
        ir_type_print(msg, inputs[i]->type);
      }
      g_error("ir invariant: ir_graph_insert_op built %s(%s), which matches no overload",
              ir_kind_name(kind), msg->str);
    }
    if (schema->n_returns != n_outputs)
      g_error("ir invariant: ir_graph_insert_op asked %u outputs of %s, whose schema returns %u",
              n_outputs, schema->text, schema->n_returns);
    for (guint i = 0; i < n_outputs; i++)
      ir_value_set_type(ir_output(node, i), schema->returns[i]);
  }
  return ir_graph_insert(graph, node);
}

static IrValue *insert_constant(IrGraph *graph, const IrType *type, IrNode **node_out) {
  IrNode *node = ir_node_create(graph, IR_PRIM_CONSTANT, 1);
  ir_value_set_type(ir_output(node, 0), type);
  ir_graph_insert(graph, node);
  *node_out = node;
  return ir_output(node, 0);
}

IrValue *ir_graph_insert_constant_int(IrGraph *graph, gint64 v) {
  IrNode *node;
  IrValue *out = insert_constant(graph, ir_type_int(), &node);
  ir_node_set_attr_i(node, IR_ATTR_VALUE, v);
  return out;
}

IrValue *ir_graph_insert_constant_float(IrGraph *graph, double v) {
  IrNode *node;
  IrValue *out = insert_constant(graph, ir_type_float(), &node);
  ir_node_set_attr_f(node, IR_ATTR_VALUE, v);
  return out;
}

IrValue *ir_graph_insert_constant_bool(IrGraph *graph, bool v) {
  IrNode *node;
  IrValue *out = insert_constant(graph, ir_type_bool(), &node);
  ir_node_set_attr_i(node, IR_ATTR_VALUE, v ? 1 : 0);
  return out;
}

IrValue *ir_graph_insert_constant_none(IrGraph *graph) {
  IrNode *node;
  return insert_constant(graph, ir_type_none(), &node);
}

IrValue *ir_graph_insert_constant_int_list(IrGraph *graph, const gint64 *v, guint n) {
  IrNode *node;
  IrValue *out = insert_constant(graph, ir_type_list(ir_type_int()), &node);
  ir_node_set_attr_is(node, IR_ATTR_VALUE, v, n);
  return out;
}

IrNode *ir_default_constant_new(IrGraph *graph, const IrArgument *arg) {
  if (arg->def.kind == IR_DEFAULT_NONE_GIVEN)
    return NULL;
  const IrType *type = arg->type->kind == IR_TYPE_OPTIONAL && arg->def.kind != IR_DEFAULT_NONE
                           ? arg->type->elem
                           : arg->type;
  IrNode *c = ir_node_create(graph, IR_PRIM_CONSTANT, 1);
  IrValue *out = ir_output(c, 0);
  switch (arg->def.kind) {
  case IR_DEFAULT_NONE: ir_value_set_type(out, ir_type_none()); break;
  case IR_DEFAULT_INT:
    if (type->kind == IR_TYPE_FLOAT) {
      ir_value_set_type(out, ir_type_float());
      ir_node_set_attr_f(c, IR_ATTR_VALUE, (double)arg->def.i);
    } else {
      ir_value_set_type(out, type->kind == IR_TYPE_BOOL ? ir_type_bool() : ir_type_int());
      ir_node_set_attr_i(c, IR_ATTR_VALUE, arg->def.i);
    }
    break;
  case IR_DEFAULT_FLOAT:
    ir_value_set_type(out, ir_type_float());
    ir_node_set_attr_f(c, IR_ATTR_VALUE, arg->def.f);
    break;
  case IR_DEFAULT_INT_LIST:
    ir_value_set_type(out, ir_type_list(ir_type_int()));
    ir_node_set_attr_is(c, IR_ATTR_VALUE, (const gint64 *)arg->def.ints, arg->def.n_ints);
    break;
  case IR_DEFAULT_STR:
    ir_value_set_type(out, ir_type_str());
    ir_node_set_attr_s(c, IR_ATTR_VALUE, arg->def.s ? arg->def.s : "");
    break;
  case IR_DEFAULT_NONE_GIVEN: break;
  }
  return c;
}
