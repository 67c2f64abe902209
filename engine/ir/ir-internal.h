/* Helpers shared by the IR core's files (graph.c, block.c, node.c, value.c, attr.c, copy.c);
 * not part of the engine's interface. */
#ifndef JITSCOPE_IR_INTERNAL_H
#define JITSCOPE_IR_INTERNAL_H

#include "ir/ir.h"

/* Topological positions as the reference: sentinels at the extremes, appends 2^40 apart. */
#define IR_TOPO_LOWER G_MININT64
#define IR_TOPO_UPPER G_MAXINT64
#define IR_TOPO_MID 0
#define IR_TOPO_INTERVAL (((gint64)1) << 40)

/* Zeroed memory that lives as long as the graph: its nodes, values and blocks, freed
 * together by ir_graph_free (a compile makes thousands, and a malloc and a free each cost as
 * much as the rest of making one). */
gpointer ir_internal_alloc0(IrGraph *graph, gsize size);

/* A node with no inputs/outputs/blocks, a fresh origin and no block; registered in the
 * graph's arena. */
IrNode *ir_internal_node_new(IrGraph *graph, IrOpKind kind);
/* A value owned by `node` at `offset` with a fresh id; registered in the arena. */
IrValue *ir_internal_value_new(IrGraph *graph, IrNode *node, guint offset, const IrType *type);
/* Takes a node out of its block's list (no-op while detached); the insertion point moves to
 * the following node when it was this one. */
void ir_internal_node_unlink(IrNode *node);
IrBlock *ir_internal_block_new(IrGraph *graph, IrNode *owning_node);
/* Drops the value's debug name from the graph's name table. */
void ir_internal_value_forget_name(IrValue *value);
/* Stores `name` (already unique in the graph) without the renaming rule: for copies. */
void ir_internal_value_set_unique_name(IrValue *value, const char *name);
/* Frees the heap parts of all of a node's attributes. */
void ir_internal_node_free_attrs(IrNode *node);

#endif
