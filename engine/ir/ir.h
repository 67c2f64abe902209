/* The graph IR (reference section 1): Graph / Block / Node / Value / Use.
 *
 * Contracts:
 * - A Graph owns every node, value and block made for it; they live in the graph's arena
 *   and are released only by ir_graph_free. Destroying a node unlinks it; its memory stays.
 * - A Block is a doubly linked list closed by two sentinels: `param` (kind prim::Param, its
 *   outputs are the block inputs) and `ret` (kind prim::Return, its inputs are the block
 *   outputs). Iterate with IR_FOR_EACH_NODE.
 * - Nodes carry a 64-bit topological position within their block, so ir_node_is_before is
 *   O(1) for nodes of one block.
 * - Use lists are exact at all times: every mutation below keeps them so.
 * - `origin` is a stable id a node keeps when a pass moves or copies it (ir_graph_copy keeps
 *   origins; ir_node_clone_into keeps the source's origin). New nodes get a fresh origin. */
#ifndef JITSCOPE_IR_IR_H
#define JITSCOPE_IR_IR_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "ir/schema.h"
#include "ir/type.h"

/* Kinds without schemas (opkinds.def), then one per OP row of ops.def. */
typedef enum {
#define K(id, name) IR_##id,
#include "ir/opkinds.def"
#undef K
#define OP(kind, schema, family, shape, grad, flags, expr) IR_##kind,
#define OVERLOAD(kind, schema, family, shape, grad, flags, expr)
#include "ir/ops.def"
#undef OP
#undef OVERLOAD
  IR_KIND_COUNT
} IrOpKind;

const char *ir_kind_name(IrOpKind kind); /* "aten::add" */
bool ir_kind_from_name(const char *name, IrOpKind *out);

typedef struct IrGraph IrGraph;
typedef struct IrBlock IrBlock;
typedef struct IrNode IrNode;
typedef struct IrValue IrValue;
typedef struct RtTensor RtTensor;

typedef struct {
  IrNode *user;
  guint index; /* which input of user */
} IrUse;

struct IrValue {
  IrNode *node; /* producer (prim::Param for block inputs) */
  guint offset; /* which output of node */
  guint64 id;   /* unique within the graph; printed when there is no debug name */
  const IrType *type;
  const char *name; /* debug name or NULL; interned in the graph */
  GArray *uses;     /* of IrUse */
};

typedef enum {
  IR_ATTR_F,  /* double */
  IR_ATTR_FS, /* double[] */
  IR_ATTR_I,  /* int64 (bools stored as ints) */
  IR_ATTR_IS, /* int64[] */
  IR_ATTR_S,  /* string */
  IR_ATTR_SS, /* string[] */
  IR_ATTR_T,  /* tensor */
  IR_ATTR_TS, /* tensor[] */
  IR_ATTR_G,  /* graph (owned by the node) */
  IR_ATTR_GS, /* graph[] */
  /* Text kept as it was read because it cannot be read as data (a tensor printed as
   * `<Tensor>` or by its rounded contents, a type-valued `profiled_type=Float(3)`): printed
   * back verbatim, never run. */
  IR_ATTR_RAW,
} IrAttrKind;

typedef struct {
  const char *name; /* in the owning graph's string chunk: compare with strcmp */
  IrAttrKind kind;
  union {
    double f;
    gint64 i;
    char *s; /* IR_ATTR_S and IR_ATTR_RAW */
    RtTensor *t;
    IrGraph *g;
    GArray *fs;    /* of double */
    GArray *is;    /* of gint64 */
    GPtrArray *ss; /* of char* */
    GPtrArray *ts; /* of RtTensor* (referenced) */
    GPtrArray *gs; /* of IrGraph* (owned) */
  } v;
} IrAttr;

struct IrNode {
  IrOpKind kind;
  const IrSchema *schema; /* resolved overload; NULL for prim nodes without one */
  IrNode *prev, *next;
  IrBlock *owning_block; /* NULL while detached */
  gint64 topo;
  guint64 origin;
  GPtrArray *inputs;  /* of IrValue* */
  GPtrArray *outputs; /* of IrValue* */
  GPtrArray *blocks;  /* of IrBlock*, NULL until the first (use ir_n_blocks) */
  GArray *attrs;      /* of IrAttr, NULL until the first (use ir_n_attrs) */
  const char *source; /* "gen_corpus.py:49:21" (printed as a comment) or NULL; kept in the
                       * graph's string chunk, so text read from input never grows a
                       * process-wide table */
  const char *scope;  /* early traces' `, scope: Model/Linear[fc]`, or NULL (graph strings) */
  /* prim::Opaque only: the op as the text wrote it ("aten::foo", "^MyFn()") and where
   * ("FILE:LINE:COL"), both in the graph's strings. */
  const char *opaque_name;
  const char *opaque_at;
  bool destroyed;
  IrGraph *graph; /* the graph that made the node (set also while detached) */
};

struct IrBlock {
  IrGraph *graph;
  IrNode *owning_node; /* NULL for the top block */
  IrNode *param;       /* outputs = block inputs */
  IrNode *ret;         /* inputs = block outputs; also the list's closing sentinel */
};

struct IrGraph {
  IrBlock *block;
  IrNode *insert_before; /* insertion point for ir_graph_insert */
  guint64 next_value_id;
  guint64 next_origin;      /* origin ids; ir_graph_copy carries the counter over */
  GHashTable *origin_nodes; /* origin -> the node that last took it (maybe destroyed since) */
  GHashTable *names;        /* debug name -> IrValue* */
  GHashTable *name_suffix;  /* base name -> next .N suffix */
  GStringChunk *strings;
  /* Definitions of the functions the graph calls through `Function` constants
   * (prim::Constant[name="g"]), such as the other defs of a script file: name -> IrGraph*,
   * owned; NULL until the first. Copied with the graph, not printed. */
  GHashTable *functions;
  GPtrArray *all_nodes;       /* every node ever made, for freeing */
  GPtrArray *all_values;      /* every value ever made, for freeing their use lists */
  struct IrArenaChunk *arena; /* where nodes, values and blocks live (ir_internal_alloc0) */
};

/* Iterates the nodes of a block in order, excluding the sentinels. Safe against destroying
 * the current node. */
#define IR_FOR_EACH_NODE(n, block)                                                \
  for (IrNode *n = (block)->param->next, *n##_next_ = n->next; n != (block)->ret; \
       n = n##_next_, n##_next_ = n->next)
/* Reverse order, also safe against destroying the current node. */
#define IR_FOR_EACH_NODE_REVERSE(n, block)                                        \
  for (IrNode *n = (block)->ret->prev, *n##_prev_ = n->prev; n != (block)->param; \
       n = n##_prev_, n##_prev_ = n->prev)

#define ir_input(node, i) ((IrValue *)g_ptr_array_index((node)->inputs, (i)))
#define ir_output(node, i) ((IrValue *)g_ptr_array_index((node)->outputs, (i)))
#define ir_block(node, i) ((IrBlock *)g_ptr_array_index((node)->blocks, (i)))
#define ir_n_inputs(node) ((node)->inputs->len)
#define ir_n_outputs(node) ((node)->outputs->len)
/* Most nodes have neither blocks nor attributes: their arrays are made by the first add. */
#define ir_n_blocks(node) ((node)->blocks ? (node)->blocks->len : 0u)
#define ir_n_attrs(node) ((node)->attrs ? (node)->attrs->len : 0u)
#define ir_attr_at(node, i) (&g_array_index((node)->attrs, IrAttr, (i)))
#define ir_block_inputs(block) ((block)->param->outputs)
#define ir_block_outputs(block) ((block)->ret->inputs)

/* --- graphs --- */
IrGraph *ir_graph_new(void);
void ir_graph_free(IrGraph *graph);
/* Deep copy (subgraph attributes included); names, ids and origins are kept. */
IrGraph *ir_graph_copy(const IrGraph *graph);
/* The definition of function `name` the graph calls (see IrGraph.functions); set takes
 * ownership of `definition` (replacing one of the same name). */
void ir_graph_set_function(IrGraph *graph, const char *name, IrGraph *definition);
const IrGraph *ir_graph_function(const IrGraph *graph, const char *name);
/* Counts nodes recursively (blocks included, subgraph attributes excluded). */
guint ir_graph_count_nodes(const IrGraph *graph);

/* --- values --- */
IrValue *ir_graph_add_input(IrGraph *graph, const IrType *type, const char *name);
void ir_graph_erase_input(IrGraph *graph, guint index);    /* the input must have no uses */
guint ir_graph_add_output(IrGraph *graph, IrValue *value); /* returns its index */
void ir_graph_erase_output(IrGraph *graph, guint index);
IrValue *ir_block_add_input(IrBlock *block, const IrType *type, const char *name);
void ir_block_erase_input(IrBlock *block, guint index);
guint ir_block_add_output(IrBlock *block, IrValue *value);
void ir_block_erase_output(IrBlock *block, guint index);
#define ir_graph_inputs(graph) ir_block_inputs((graph)->block)
#define ir_graph_outputs(graph) ir_block_outputs((graph)->block)

/* Sets the debug name; a name already taken in the graph moves the old owner to "name.N"
 * (PyTorch's rule). NULL clears it. Names that are all digits are not kept as debug names:
 * the parser keeps those as value ids instead. */
void ir_value_set_name(IrValue *value, const char *name);
void ir_value_set_type(IrValue *value, const IrType *type);
/* Gives the value a chosen id (the parser keeps numeric names `%12` as ids) and moves
 * graph->next_value_id past it. The caller keeps ids unique among unnamed values. */
void ir_value_set_id(IrValue *value, guint64 id);
/* Every use of `value` now reads `replacement`. */
void ir_value_replace_all_uses_with(IrValue *value, IrValue *replacement);
/* Uses of `value` at or after `after` (in topological order, nested blocks included). */
void ir_value_replace_uses_after(IrValue *value, IrValue *replacement, const IrNode *after);
bool ir_value_has_uses(const IrValue *value);
/* For printing: the debug name, or the id as digits written into buf (the result then points
 * into buf, not necessarily at its start). */
const char *ir_value_display_name(const IrValue *value, char buf[32]);

/* --- nodes --- */
/* A detached node with n_outputs outputs of type Tensor; insert it with one of the
 * ir_node_insert_* calls. */
IrNode *ir_node_create(IrGraph *graph, IrOpKind kind, guint n_outputs);
IrGraph *ir_node_graph(const IrNode *node);
/* The node's kind as text: ir_kind_name, or for prim::Opaque the op the text wrote. */
const char *ir_node_kind_name(const IrNode *node);
void ir_node_add_input(IrNode *node, IrValue *value);
void ir_node_insert_input(IrNode *node, guint index, IrValue *value);
void ir_node_replace_input(IrNode *node, guint index, IrValue *value);
void ir_node_remove_input(IrNode *node, guint index);
void ir_node_remove_all_inputs(IrNode *node);
IrValue *ir_node_add_output(IrNode *node, const IrType *type);
void ir_node_erase_output(IrNode *node, guint index); /* the output must have no uses */
/* Output i becomes what output order[i] was (order: a permutation of 0..n-1); uses follow
 * their values. On a block's prim::Param, permutes the block's inputs. */
void ir_node_permute_outputs(IrNode *node, const guint *order);
IrBlock *ir_node_add_block(IrNode *node);
void ir_node_erase_block(IrNode *node, guint index);

void ir_node_insert_before(IrNode *node, IrNode *anchor);
void ir_node_insert_after(IrNode *node, IrNode *anchor);
void ir_node_append_to(IrNode *node, IrBlock *block); /* before block->ret */
void ir_node_move_before(IrNode *node, IrNode *anchor);
void ir_node_move_after(IrNode *node, IrNode *anchor);
/* Unlinks and marks destroyed; the outputs must have no uses. Inputs' use lists drop it.
 * Nested blocks are destroyed too. */
void ir_node_destroy(IrNode *node);
/* Replaces each output's uses with the matching output of `other`. */
void ir_node_replace_all_uses_with(IrNode *node, IrNode *other);

/* Topological order inside one block (O(1)); for nodes in different blocks, compares the
 * ancestors that share a block. */
bool ir_node_is_before(const IrNode *a, const IrNode *b);
bool ir_node_is_after(const IrNode *a, const IrNode *b);
/* Same block, `node` could move to just before `anchor` without breaking def-use order
 * (PyTorch's couldMoveBeforeTopologically for side-effect-free nodes). */
bool ir_node_can_move_before(const IrNode *node, const IrNode *anchor);
/* Node in `block` that contains `node` (itself if already there), or NULL. */
IrNode *ir_node_ancestor_in(IrNode *node, const IrBlock *block);

/* Copies `src` (from any graph) into `graph` as a detached node; inputs are mapped through
 * `value_map` (a function from source values to this graph's values), nested blocks and
 * attributes copied deeply, outputs get the source's types and names (renamed if taken),
 * origin kept unless a live node of `graph` holds it already (then a fresh one: origins stay
 * unique in a graph). */
typedef IrValue *(*IrValueMap)(IrValue *src, gpointer user_data);
IrNode *ir_node_clone_into(IrGraph *graph, const IrNode *src, IrValueMap value_map,
                           gpointer user_data);
/* As ir_node_clone_into, but the copy (nested blocks included) gets fresh origins: for copies
 * that live beside their source (an unrolled loop body, a duplicated constant) or come from
 * another program (an inlined definition, a formula's graph), whose origins would collide
 * with nodes of this graph (the [origins] rule of verify.c). */
IrNode *ir_node_copy_into(IrGraph *graph, const IrNode *src, IrValueMap value_map,
                          gpointer user_data);

/* Insertion point: nodes created with ir_graph_insert go before graph->insert_before. */
void ir_graph_set_insert_point(IrGraph *graph, IrNode *before);
IrNode *ir_graph_insert(IrGraph *graph, IrNode *node);

/* Convenience creators: inserted at the graph's insertion point, schema resolved for schema
 * ops (abort when none matches: passes only build well-typed nodes). */
IrNode *ir_graph_insert_op(IrGraph *graph, IrOpKind kind, IrValue *const *inputs, guint n_inputs,
                           guint n_outputs);
IrValue *ir_graph_insert_constant_int(IrGraph *graph, gint64 v);
IrValue *ir_graph_insert_constant_float(IrGraph *graph, double v);
IrValue *ir_graph_insert_constant_bool(IrGraph *graph, bool v);
IrValue *ir_graph_insert_constant_none(IrGraph *graph);
IrValue *ir_graph_insert_constant_int_list(IrGraph *graph, const gint64 *v, guint n);
/* A detached prim::Constant holding a schema argument's default (int defaults of float and
 * bool arguments as those), or NULL for an argument without one. */
IrNode *ir_default_constant_new(IrGraph *graph, const IrArgument *arg);

/* --- attributes --- */
const IrAttr *ir_node_attr(const IrNode *node, const char *name); /* NULL if absent */
bool ir_node_has_attr(const IrNode *node, const char *name);
gint64 ir_node_attr_i(const IrNode *node, const char *name); /* aborts if absent */
double ir_node_attr_f(const IrNode *node, const char *name);
const char *ir_node_attr_s(const IrNode *node, const char *name);
IrGraph *ir_node_attr_g(const IrNode *node, const char *name);
/* Setters replace an attribute of the same name; the node takes ownership of graphs and a
 * reference to tensors; strings and arrays are copied. */
void ir_node_set_attr_i(IrNode *node, const char *name, gint64 v);
void ir_node_set_attr_f(IrNode *node, const char *name, double v);
void ir_node_set_attr_s(IrNode *node, const char *name, const char *v);
void ir_node_set_attr_is(IrNode *node, const char *name, const gint64 *v, guint n);
void ir_node_set_attr_fs(IrNode *node, const char *name, const double *v, guint n);
void ir_node_set_attr_ss(IrNode *node, const char *name, const char *const *v, guint n);
void ir_node_set_attr_t(IrNode *node, const char *name, RtTensor *v);
void ir_node_set_attr_ts(IrNode *node, const char *name, RtTensor *const *v, guint n);
void ir_node_set_attr_g(IrNode *node, const char *name, IrGraph *v);
void ir_node_set_attr_gs(IrNode *node, const char *name, IrGraph *const *v, guint n);
void ir_node_set_attr_raw(IrNode *node, const char *name, const char *text);
void ir_node_remove_attr(IrNode *node, const char *name);
/* Removes a graph attribute and hands its graph to the caller (NULL when there is none), so
 * that a pass that rewrites a subgraph wholesale need not copy it. */
IrGraph *ir_node_take_attr_g(IrNode *node, const char *name);
void ir_node_copy_attrs(IrNode *dst, const IrNode *src);

/* Interned attribute names used across the engine. */
#define IR_ATTR_VALUE "value"
#define IR_ATTR_NAME "name"
#define IR_ATTR_CHUNKS "chunks"
#define IR_ATTR_DIM "dim"
#define IR_ATTR_SUBGRAPH "Subgraph"

/* --- schema resolution --- */
/* Picks the overload of node->kind that matches the node's input types (first match in
 * table order, as PyTorch); sets node->schema and returns it, or NULL when none matches. */
const IrSchema *ir_node_resolve_schema(IrNode *node);

#endif
