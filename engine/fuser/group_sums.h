/* _grad_sum_to_size in fusion groups (reference section 5: a sum may sit in a group only where
 * its result reaches an output through ops that commute with summing; the output then records
 * the input holding its size, fuser.h's "sum_to_size_inputs", and the kernel graph loses the
 * node). FuseGraph (graph_fuser.c) asks these while it grows groups and calls them to finish
 * them. Groups are subgraph nodes whose bodies still hold their sums until
 * group_sums_finish. */
#ifndef JITSCOPE_FUSER_GROUP_SUMS_H
#define JITSCOPE_FUSER_GROUP_SUMS_H

#include "ir/ir.h"

/* Follows every _grad_sum_to_size result of `group`'s body (and `extra`, a body value treated
 * as one, keyed by `extra_key`) forward through users that commute with summing. Keys are the
 * outer values holding the sizes. False when a sum would not reach an output so; on success
 * keys_out (when given) receives per body output its key or NULL. */
bool group_sums_track(const IrNode *group, IrValue *extra, IrValue *extra_key, GPtrArray *keys_out);
/* Is `v`, an output of `group`, one of its sums (or may it be)? */
bool group_sums_is_summed_output(const IrNode *group, const IrValue *v);
/* Would merging the _grad_sum_to_size `producer` into `consumer` keep sums at outputs? */
bool group_sums_merge_ok(IrNode *consumer, IrNode *producer);
/* Horizontal merges of the sums left outside groups in `block` (not nested blocks): a sum
 * whose tensor a group reads whole becomes an output of that group. Returns whether any
 * did. */
bool group_sums_join_readers(IrBlock *block);
/* Deletes the body's _grad_sum_to_size nodes and sets the group's "sum_to_size_inputs", when
 * every sum reaches an output (always in groups FuseGraph made); otherwise the body keeps its
 * sums (a group the program came with). Returns whether it changed the group. */
bool group_sums_finish(IrNode *group);

#endif
