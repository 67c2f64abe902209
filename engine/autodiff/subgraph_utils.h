/* Subgraph nodes (prim::DifferentiableGraph, prim::FusionGroup): a node whose body is the
 * graph in its `Subgraph` attribute, its inputs wired to the body's inputs one to one and its
 * outputs to the body's first outputs (PyTorch's SubgraphUtils). Shared by autodiff subgraph
 * creation and the fuser. */
#ifndef JITSCOPE_AUTODIFF_SUBGRAPH_UTILS_H
#define JITSCOPE_AUTODIFF_SUBGRAPH_UTILS_H

#include "ir/ir.h"

/* The body of a subgraph node (aborts if it has none). */
IrGraph *ad_subgraph_body(const IrNode *subgraph_node);

/* Wraps `node` into a new subgraph node of `kind`, inserted where node was; node is
 * destroyed. Returns the new node. */
IrNode *ad_subgraph_create_singleton(IrNode *node, IrOpKind kind);

/* Moves `to_merge` (which must come just before subgraph_node in the same block, or at least
 * have no users between them) into subgraph_node's body, at the body's start: its inputs
 * become new group inputs unless already there (constants are copied in instead); group
 * inputs it produced become internal; its outputs used after the group become new group
 * outputs. A to_merge that is itself a subgraph node is unmerged first and its nodes merged
 * one by one. to_merge is destroyed. */
void ad_subgraph_merge_node(IrNode *to_merge, IrNode *subgraph_node);

/* Copies `to_copy` (a plain node defined before subgraph_node in its block) into
 * subgraph_node's body as ad_subgraph_merge_node would, but leaves it in place for its
 * other users, destroying it only when the group was its last; none of its outputs becomes a
 * group output. For values that must be built inside the group (a Tensor[] whose gradient
 * reaches its elements only through the prim::ListConstruct that made it). */
void ad_subgraph_merge_copy(IrNode *to_copy, IrNode *subgraph_node);

/* Inlines the body back into the enclosing block in place of the node and destroys it. The
 * body may have more outputs than the node (only the node's are rewired). */
void ad_subgraph_unmerge(IrNode *subgraph_node);

/* Copies every node of `body` to `graph`'s insertion point, body inputs bound to `inputs`;
 * returns what the body returns, in `graph` (a new array). */
GPtrArray *ad_insert_graph(IrGraph *graph, const IrGraph *body, IrValue *const *inputs);

/* Nodes of the body, constants not counted. */
guint ad_subgraph_size(const IrNode *subgraph_node);

#endif
