/* pass_inline_autodiff_subgraphs: dissolves every prim::DifferentiableGraph whose body has
 * fewer than `threshold` non-constant nodes and holds no FusionGroup (at any depth); its
 * nodes then run under the eager autograd tape. Recurses into blocks (reference section 4,
 * PyTorch's InlineAutodiffSubgraphs). */
#include "autodiff/autodiff.h"
#include "autodiff/subgraph_utils.h"

static bool block_can_run_with_autograd(const IrBlock *block) {
  IR_FOR_EACH_NODE(n, block) {
    if (n->kind == IR_PRIM_FUSION_GROUP)
      return false;
    for (guint b = 0; b < ir_n_blocks(n); b++)
      if (!block_can_run_with_autograd(ir_block(n, b)))
        return false;
  }
  return true;
}

static bool inline_block(IrBlock *block, guint threshold) {
  bool changed = false;
  IR_FOR_EACH_NODE(n, block) {
    for (guint b = 0; b < ir_n_blocks(n); b++)
      changed |= inline_block(ir_block(n, b), threshold);
    if (n->kind != IR_PRIM_DIFFERENTIABLE_GRAPH)
      continue;
    if (ad_subgraph_size(n) >= threshold)
      continue;
    if (!block_can_run_with_autograd(ad_subgraph_body(n)->block))
      continue;
    ad_subgraph_unmerge(n);
    changed = true;
  }
  return changed;
}

bool pass_inline_autodiff_subgraphs(IrGraph *graph, guint threshold) {
  return inline_block(graph->block, threshold);
}
