/* Horizontal merges of sibling fusion groups: two groups of a block that read one tensor whole
 * and do not depend on each other become one kernel, which reads the tensor (and every other
 * input they share) once instead of twice. The MiLSTM backward's three groups over the gates'
 * gradient read it, and the saved Wx, in one pass so (issue 13). Beyond the reference's
 * FuseGraph, which only merges producers into consumers.
 *
 * Contract: group_siblings_merge requires `block`'s groups still to hold their sums
 * (before group_sums_finish) and merges only groups whose map is the broadcast of their
 * inputs (no chunk, no concatenation inside: those make the map a piece), whose every tensor
 * input has a rank no higher than the shared tensor's, and which hold up to 256 nodes
 * together (the C backend compiles groups of up to 512). Then both maps are the shared
 * tensor's shape whenever it has no dimension of size 1. Otherwise the merged map may be
 * larger than a sibling's (its outputs keep their natural shape in every backend,
 * group_shapes.h, written more than once) or not exist (the siblings broadcast a size-1
 * dimension to different sizes: the backends decline and the group is interpreted, with the
 * reason recorded). No value changes. Returns whether any merged. */
#ifndef JITSCOPE_FUSER_GROUP_SIBLINGS_H
#define JITSCOPE_FUSER_GROUP_SIBLINGS_H

#include "ir/ir.h"

bool group_siblings_merge(IrBlock *block);

#endif
