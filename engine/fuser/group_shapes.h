/* The natural shape of every tensor value of a fusion group's kernel graph for given inputs:
 * the broadcast of its operands' shapes, chunk pieces divided along their dim, FusedConcat
 * multiplied along its dim. A group output that does not reach the map size (the broadcast of
 * all inputs) is written at its natural shape by every backend, as the unfused graph would
 * produce it: its size feeds `_size_if_not_equal` and the backward's sum-to-size.
 *
 * Contract: fuser_group_value_shapes reads the kernel graph's leading tensor inputs from
 * `inputs` and returns a table from const IrValue* to FuserShape* (owned by the table), or NULL
 * with *error set (shapes that do not broadcast, a chunk that does not divide). */
#ifndef JITSCOPE_FUSER_GROUP_SHAPES_H
#define JITSCOPE_FUSER_GROUP_SHAPES_H

#include "ir/ir.h"
#include "runtime/value.h"

typedef struct {
  int nd;
  int64_t sizes[RT_MAX_DIMS];
} FuserShape;

/* *acc becomes the broadcast of *acc and *s. */
bool fuser_shape_broadcast_into(FuserShape *acc, const FuserShape *s, GError **error);

GHashTable *fuser_group_value_shapes(const IrGraph *kernel_graph, const RtValue *inputs,
                                     GError **error);

/* The natural shape of group output o (from a table of fuser_group_value_shapes). */
const FuserShape *fuser_group_output_shape(GHashTable *shapes, const IrGraph *kernel_graph,
                                           guint o);

#endif
