/* Blocks: a node list closed by the prim::Param and prim::Return sentinels; block inputs are
 * the Param node's outputs, block outputs the Return node's inputs. */
#include "ir/ir-internal.h"

IrBlock *ir_internal_block_new(IrGraph *graph, IrNode *owning_node) {
  IrBlock *b = ir_internal_alloc0(graph, sizeof(IrBlock));
  b->graph = graph;
  b->owning_node = owning_node;
  b->param = ir_internal_node_new(graph, IR_PRIM_PARAM);
  b->ret = ir_internal_node_new(graph, IR_PRIM_RETURN);
  b->param->owning_block = b;
  b->ret->owning_block = b;
  b->param->topo = IR_TOPO_LOWER;
  b->ret->topo = IR_TOPO_UPPER;
  /* Circular through the sentinels, so that next/prev are never NULL inside a block. */
  b->param->next = b->ret;
  b->param->prev = b->ret;
  b->ret->prev = b->param;
  b->ret->next = b->param;
  return b;
}

/* Destroys every node of the block (reverse order) and drops the block outputs' uses. */
static void ir_internal_block_clear(IrBlock *block) {
  ir_node_remove_all_inputs(block->ret);
  IR_FOR_EACH_NODE_REVERSE(n, block) {
    ir_node_destroy(n);
  }
}

IrValue *ir_block_add_input(IrBlock *block, const IrType *type, const char *name) {
  IrValue *v = ir_node_add_output(block->param, type);
  if (name)
    ir_value_set_name(v, name);
  return v;
}

void ir_block_erase_input(IrBlock *block, guint index) {
  ir_node_erase_output(block->param, index);
}

guint ir_block_add_output(IrBlock *block, IrValue *value) {
  ir_node_add_input(block->ret, value);
  return ir_n_inputs(block->ret) - 1;
}

void ir_block_erase_output(IrBlock *block, guint index) {
  ir_node_remove_input(block->ret, index);
}

IrBlock *ir_node_add_block(IrNode *node) {
  IrBlock *b = ir_internal_block_new(node->graph, node);
  if (!node->blocks)
    node->blocks = g_ptr_array_new();
  g_ptr_array_add(node->blocks, b);
  return b;
}

void ir_node_erase_block(IrNode *node, guint index) {
  if (index >= ir_n_blocks(node))
    g_error("ir invariant: erase_block index %u out of range (%u blocks)", index,
            ir_n_blocks(node));
  IrBlock *b = ir_block(node, index);
  ir_internal_block_clear(b);
  for (guint i = 0; i < ir_n_outputs(b->param); i++)
    if (ir_value_has_uses(ir_output(b->param, i)))
      g_error("ir invariant: erased block's inputs still have uses");
  for (guint i = 0; i < ir_n_outputs(b->param); i++)
    ir_internal_value_forget_name(ir_output(b->param, i));
  if (node->graph->insert_before == b->ret)
    node->graph->insert_before = node->graph->block->ret;
  b->param->destroyed = true;
  b->ret->destroyed = true;
  b->owning_node = NULL;
  g_ptr_array_remove_index(node->blocks, index);
}
