/* pass_inline_given_subgraphs: takes apart the prim::FusionGroup and prim::DifferentiableGraph
 * nodes a program arrives with (PyTorch prints them in optimized graphs: graph_for, the
 * fuser's and autodiff's test expectations), so that the plan makes its own.
 *
 * Requires: a verified graph, before any pass that creates such nodes (the pipeline's first
 * stage).
 * Guarantees: every such node whose body agrees with it (one body input per node input, at
 * least as many body outputs as node outputs) is replaced by its body's nodes, at any depth
 * (a group inside a DifferentiableGraph's body, a node inside a loop); a body's
 * prim::FusedConcat[dim=d](xs) becomes aten::cat([xs], d), its meaning outside a group. A
 * DifferentiableGraph's body may return more than the node (the values its backward saves):
 * only the node's outputs are rewired. A node whose body disagrees is left, and the run says
 * so where it reaches it. Why: a given group carries no gradient (its body is what autodiff
 * differentiates) and its state (a differentiated body, compiled kernels) is the plan's to
 * make; running it as given would give silently wrong gradients or no run at all. */
#include "autodiff/autodiff.h"
#include "autodiff/subgraph_utils.h"

static bool is_given_subgraph(const IrNode *node) {
  return node->kind == IR_PRIM_FUSION_GROUP || node->kind == IR_PRIM_DIFFERENTIABLE_GRAPH;
}

static bool body_agrees(const IrNode *node) {
  const IrAttr *attr = ir_node_attr(node, IR_ATTR_SUBGRAPH);
  if (attr == NULL || attr->kind != IR_ATTR_G)
    return false;
  const IrGraph *body = attr->v.g;
  return ir_graph_inputs(body)->len == ir_n_inputs(node) &&
         ir_graph_outputs(body)->len >= ir_n_outputs(node);
}

/* prim::FusedConcat[dim=d](xs...) -> aten::cat(prim::ListConstruct(xs...), d); false (and
 * nothing done) for a malformed one, which the run refuses. */
static bool lower_fused_concat(IrGraph *graph, IrNode *concat) {
  const IrAttr *dim = ir_node_attr(concat, IR_ATTR_DIM);
  if (dim == NULL || dim->kind != IR_ATTR_I || ir_n_outputs(concat) != 1 ||
      ir_n_inputs(concat) == 0)
    return false;
  for (guint i = 0; i < ir_n_inputs(concat); i++)
    if (!ir_type_is_tensor(ir_input(concat, i)->type))
      return false;
  ir_graph_set_insert_point(graph, concat);
  IrNode *list = ir_node_create(graph, IR_PRIM_LIST_CONSTRUCT, 1);
  for (guint i = 0; i < ir_n_inputs(concat); i++)
    ir_node_add_input(list, ir_input(concat, i));
  ir_value_set_type(ir_output(list, 0), ir_type_list(ir_type_tensor()));
  ir_graph_insert(graph, list);
  IrValue *args[2] = {ir_output(list, 0), ir_graph_insert_constant_int(graph, dim->v.i)};
  IrNode *cat = ir_graph_insert_op(graph, IR_ATEN_CAT, args, 2, 1);
  ir_value_set_type(ir_output(cat, 0), ir_output(concat, 0)->type);
  ir_value_replace_all_uses_with(ir_output(concat, 0), ir_output(cat, 0));
  ir_node_destroy(concat);
  return true;
}

static bool inline_block(IrGraph *graph, IrBlock *block) {
  bool changed = false;
  for (IrNode *node = block->param->next; node != block->ret;) {
    IrNode *next = node->next;
    for (guint b = 0; b < ir_n_blocks(node); b++)
      changed |= inline_block(graph, ir_block(node, b));
    if (node->kind == IR_PRIM_FUSED_CONCAT) {
      changed |= lower_fused_concat(graph, node);
    } else if (is_given_subgraph(node) && body_agrees(node)) {
      IrGraph *body = ad_subgraph_body(node);
      inline_block(body, body->block);
      /* The body's nodes land before `node`, which goes: go on after them. */
      ad_subgraph_unmerge(node);
      changed = true;
    }
    node = next;
  }
  return changed;
}

bool pass_inline_given_subgraphs(IrGraph *graph) {
  return inline_block(graph, graph->block);
}
