/* pass_create_autodiff_subgraphs: groups differentiable nodes into prim::DifferentiableGraph
 * nodes (body in `Subgraph`): visit nodes in reverse, wrap a differentiable non-constant node
 * into a group, merge the producers of its inputs (reverse topological order) when they are
 * differentiable and can legally move just before it (a list's prim::ListConstruct is copied
 * in instead, so a Tensor[] is built where its gradient is unpacked), repeat to a
 * fixpoint, dissolve groups with fewer than `threshold` non-constant nodes or with a Tensor[]
 * input or output, recurse into blocks (reference section 4,
 * PyTorch's CreateAutodiffSubgraphs). */
#include "autodiff/autodiff.h"
#include "autodiff/subgraph_utils.h"
#include "passes/pass_util.h"
#include "passes/passes.h"

static bool should_consider(const IrNode *node) {
  if (node->kind == IR_PRIM_DIFFERENTIABLE_GRAPH)
    return true;
  if (node->kind == IR_PRIM_CONSTANT)
    return false;
  return ad_is_differentiable(node);
}

/* A group that takes or returns a Tensor[]: no gradient can cross it (autograd links
 * tensors), so the group would drop the gradient of whatever flows through the list. Such a
 * group is dissolved, and its nodes run under the eager tape. */
static bool has_tensor_list_boundary(const IrNode *group) {
  for (guint i = 0; i < ir_n_inputs(group); i++)
    if (ir_type_is_tensor_list(ir_input(group, i)->type))
      return true;
  for (guint i = 0; i < ir_n_outputs(group); i++)
    if (ir_type_is_tensor_list(ir_output(group, i)->type))
      return true;
  return false;
}

/* A list built by prim::ListConstruct and only read is copied into the group that reads it
 * (the original stays for users outside): cat, stack and broadcast_tensors differentiate a
 * Tensor[] only when it is built inside their group, and formulas that need constant ints
 * (sum's dims) see them only there. */
static bool is_list_to_copy(const IrValue *v) {
  return pu_list_is_constructed_and_read_only(v);
}

static gint later_first(gconstpointer a, gconstpointer b) {
  const IrNode *na = (*(IrValue *const *)a)->node, *nb = (*(IrValue *const *)b)->node;
  if (na == nb)
    return 0;
  return ir_node_is_after(na, nb) ? -1 : 1;
}

/* Tries to merge a producer of one of the group's inputs; true when one was merged. */
static bool merge_one_producer(IrBlock *block, IrNode *group) {
  GPtrArray *inputs = g_ptr_array_new();
  for (guint i = 0; i < ir_n_inputs(group); i++) {
    IrValue *v = ir_input(group, i);
    if (v->node->owning_block == block && v->node->kind != IR_PRIM_PARAM &&
        !g_ptr_array_find(inputs, v, NULL))
      g_ptr_array_add(inputs, v);
  }
  g_ptr_array_sort(inputs, later_first);
  bool merged = false;
  for (guint i = 0; i < inputs->len && !merged; i++) {
    IrValue *input = g_ptr_array_index(inputs, i);
    IrNode *producer = input->node;
    if (is_list_to_copy(input)) {
      ad_subgraph_merge_copy(producer, group);
    } else if (should_consider(producer) && ir_node_can_move_before(producer, group)) {
      ir_node_move_before(producer, group);
      ad_subgraph_merge_node(producer, group);
    } else {
      continue;
    }
    merged = true;
  }
  g_ptr_array_free(inputs, TRUE);
  return merged;
}

static bool slice_block(IrBlock *block, guint threshold) {
  bool changed = false;
  bool any = true;
  while (any) {
    any = false;
    for (IrNode *n = block->ret->prev; n != block->param;) {
      if (!should_consider(n)) {
        n = n->prev;
        continue;
      }
      IrNode *group = n;
      if (group->kind != IR_PRIM_DIFFERENTIABLE_GRAPH) {
        group = ad_subgraph_create_singleton(n, IR_PRIM_DIFFERENTIABLE_GRAPH);
        changed = true;
      }
      if (merge_one_producer(block, group)) {
        any = true;
        changed = true;
        n = group; /* rescan the grown group */
      } else {
        n = group->prev;
      }
    }
  }
  IR_FOR_EACH_NODE(n, block) {
    if (n->kind != IR_PRIM_DIFFERENTIABLE_GRAPH)
      continue;
    pass_eliminate_common_subexpression(ad_subgraph_body(n));
    if (ad_subgraph_size(n) < threshold || has_tensor_list_boundary(n)) {
      ad_subgraph_unmerge(n);
      changed = true;
    }
  }
  IR_FOR_EACH_NODE(n, block) {
    for (guint b = 0; b < ir_n_blocks(n); b++)
      changed |= slice_block(ir_block(n, b), threshold);
  }
  return changed;
}

bool pass_create_autodiff_subgraphs(IrGraph *graph, guint threshold) {
  return slice_block(graph->block, threshold);
}
