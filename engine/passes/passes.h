/* Optimization passes, one per file; each returns whether it changed the graph. They recurse
 * into nested blocks; subgraph attributes (DifferentiableGraph, FusionGroup bodies) are left
 * alone unless the contract says otherwise. */
#ifndef JITSCOPE_PASSES_PASSES_H
#define JITSCOPE_PASSES_PASSES_H

#include "ir/ir.h"

typedef bool (*PassFn)(IrGraph *graph);

bool pass_eliminate_dead_code(IrGraph *graph);
bool pass_eliminate_common_subexpression(IrGraph *graph);
bool pass_constant_pooling(IrGraph *graph);
bool pass_constant_propagation(IrGraph *graph);
/* The same restricted to immutable types, as PyTorch's ConstantPropagationImmutableTypes (the
 * script frontend's cleanup after emission). */
bool pass_constant_propagation_immutable(IrGraph *graph);
/* If outputs and loop-carried values ordered by first use, as PyTorch's CanonicalizeOutputs
 * (the script frontend's last cleanup). */
bool pass_canonicalize_outputs(IrGraph *graph);
bool pass_peephole(IrGraph *graph);
bool pass_propagate_input_shapes(IrGraph *graph);
bool pass_propagate_requires_grad(IrGraph *graph);
bool pass_remove_expands(IrGraph *graph);
bool pass_canonicalize_ops(IrGraph *graph);
bool pass_lower_simple_tuples(IrGraph *graph);
bool pass_unroll_loops(IrGraph *graph);
bool pass_decompose_ops(IrGraph *graph);
bool pass_check_inplace(IrGraph *graph);

#endif
