/* What FuseGraph (graph_fuser.c) fuses: the predicates its growth and its sum-to-size
 * handling (group_sums.c) share. Pure functions of the graph; none changes it. */
#ifndef JITSCOPE_FUSER_FUSIBLE_H
#define JITSCOPE_FUSER_FUSIBLE_H

#include "ir/ir.h"

bool fusible_is_tensor(const IrValue *v);
/* A tensor type whose dtype the kernels take: known, floating or bool. */
bool fusible_kernel_dtype(const IrType *t);
bool fusible_is_constant(const IrValue *v);
/* A pointwise op every backend can run: one tensor output; tensor inputs computed (not
 * constant tensors) of float or bool dtype; every other input a constant (fact 7.8). */
bool fusible_pointwise(const IrNode *n);
/* A _grad_sum_to_size of a computed kernel-dtype tensor to a size list (or optional one). */
bool fusible_sum_to_size(const IrNode *n);
/* Does the body of the subgraph node `group` hold a node of `kind`? */
bool fusible_body_has(const IrNode *group, IrOpKind kind);
/* May `n` be merged into a consumer's group? A group is, unless it sums to size or
 * concatenates (their outputs cannot feed other kernel nodes). */
bool fusible_producer(const IrNode *n);
bool fusible_consumer(const IrNode *n);

#endif
