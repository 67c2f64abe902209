/* Helpers shared by the passes (and autodiff above them): constants as values, None facts, side
 * effects, schema argument lookup, attribute equality and hashing, block copying. */
#ifndef JITSCOPE_PASSES_PASS_UTIL_H
#define JITSCOPE_PASSES_PASS_UTIL_H

#include "ir/ir.h"
#include "runtime/value.h"

/* Aborts naming the broken invariant (house rule for internal failures). */
#define PASS_INVARIANT(cond, pass, what)                     \
  do {                                                       \
    if (!(cond))                                             \
      g_error("%s: invariant violated: %s", (pass), (what)); \
  } while (0)

/* Nodes that must not be removed, reordered or merged: prim::RaiseException, opaque and call
 * nodes, list and dict mutations (pu_node_mutates), and nodes whose blocks contain one. */
bool pu_node_has_side_effects(const IrNode *node);
/* aten::append, _set_item, extend, insert, pop, reverse, clear and update: they change their
 * list or dict argument in place. */
bool pu_node_mutates(const IrNode *node);
/* Whether any node of the graph (nested blocks included) mutates a list or a dict. When one
 * does, every list or dict value may be the mutated one (they alias through If, Loop and
 * append's result), so passes treat nodes with such an input or output as
 * pu_node_touches_list says. */
bool pu_graph_mutates_lists(const IrGraph *graph);
/* A node with a list- or dict-typed input or output: in a graph that mutates lists or dicts,
 * such a node must not be merged with another (CSE) or folded to a constant, since the value
 * may change between two of them (len before and after an append). */
bool pu_node_touches_list(const IrNode *node);
/* A list value that keeps the elements it was made with: every use is an operator (with a
 * schema, no blocks) that only reads it, a prim::ListUnpack or a DifferentiableGraph, so no
 * append, no block output or loop-carried alias and no container holding it can change it. */
bool pu_list_is_read_only(const IrValue *list);
/* A read-only list built by prim::ListConstruct: its elements are known statically. */
bool pu_list_is_constructed_and_read_only(const IrValue *list);

bool pu_is_constant(const IrValue *value);
/* Typed readers of prim::Constant outputs; false when not a constant of that kind. */
bool pu_constant_int(const IrValue *value, gint64 *out); /* type int */
bool pu_constant_bool(const IrValue *value, bool *out);  /* type bool */
bool pu_constant_int_list(const IrValue *value, const gint64 **items, guint *n);

/* PyTorch's Value::mustBeNone / mustNotBeNone. */
bool pu_must_be_none(const IrValue *value);
bool pu_must_not_be_none(const IrValue *value);

/* The constant's value as an interpreter value (new reference); false for constants that
 * are not representable (none in practice) or for non-constants. */
bool pu_constant_to_rt(const IrValue *value, RtValue *out);
/* Inserts a prim::Constant holding `v` just before `anchor` and returns its output. Types:
 * int, float, bool, str, int list, None (given `none_type`, e.g. int[]?, or NoneType when
 * NULL). Returns NULL for values with no constant form (tensors, tuples, other lists). */
IrValue *pu_insert_constant_before(IrNode *anchor, RtValue v, const IrType *none_type);
/* Convenience inserters at a position. */
IrValue *pu_insert_int_before(IrNode *anchor, gint64 v);
IrValue *pu_insert_bool_before(IrNode *anchor, bool v);
IrValue *pu_insert_int_list_before(IrNode *anchor, const gint64 *v, guint n);

/* Index of the schema argument called `name` in node->schema, or -1. */
int pu_arg_index(const IrNode *node, const char *name);
/* Input bound to argument `name`: the node's input, or NULL when omitted (default applies)
 * or the node has no schema / no such argument. */
IrValue *pu_named_input(const IrNode *node, const char *name);
/* Argument `name` as a number: the constant input, else its numeric default. False when the
 * value is not known statically. */
bool pu_arg_number(const IrNode *node, const char *name, double *out);
bool pu_arg_int(const IrNode *node, const char *name, gint64 *out);
bool pu_arg_bool(const IrNode *node, const char *name, bool *out);
/* Matches the resolved overload: kind and overload name ("Tensor", "Scalar", "" ...). */
bool pu_node_is(const IrNode *node, IrOpKind kind, const char *overload);

/* Attribute lists equal (names, kinds, values; tensors by dtype, shape and elements; graphs
 * only when the same pointer). */
bool pu_attrs_equal(const IrNode *a, const IrNode *b);
guint pu_attrs_hash(const IrNode *node);

/* Copies the nodes of `body` before `anchor`; block inputs read `inputs[i]`; values defined
 * outside the body map to themselves. Returns (in `outputs`, n = number of block outputs)
 * what the copied block returns. */
void pu_inline_block_copy(IrBlock *body, IrNode *anchor, IrValue *const *inputs, IrValue **outputs);
/* Moves the nodes of `body` before `anchor` (the body is left empty). */
void pu_move_block_nodes_before(IrBlock *body, IrNode *anchor);
/* Removes carried value i of a prim::Loop: its input, output, body input and body output
 * (the output and the body input must have no uses left). */
void pu_loop_remove_carried(IrNode *loop, guint i);

/* Types of every value a block defines (its inputs and its nodes' outputs, nested blocks
 * included), to tell a real change from a transient one during a fixpoint iteration. */
typedef struct {
  IrValue *value;
  const IrType *type;
} PuTypeSnapshot;
GArray *pu_snapshot_block_types(IrBlock *block); /* of PuTypeSnapshot */
/* True when some value's type differs from the snapshot; frees the snapshot. */
bool pu_snapshot_changed_free(GArray *snapshot);

/* Nodes of a block, nested blocks included. */
guint pu_block_count_nodes(const IrBlock *block);

#endif
