/* Private to the graph parser: its frames and the node-level functions (parse_node.c) that the
 * statement loop (parse.c) calls. See parse.c for the grammar and the contracts. */
#ifndef JITSCOPE_IR_TEXT_PARSE_H
#define JITSCOPE_IR_TEXT_PARSE_H

#include "ir/text_lexer.h"

typedef struct {
  IrValue *value;
  bool open;    /* false once the block that defines it has closed */
  bool pending; /* a node output while the node's blocks are being read: not yet visible */
  int line, col;
} NameEntry;

typedef struct {
  IrBlock *block;
  IrNode *owner;             /* NULL for a graph's top block */
  guint index;               /* which block of owner */
  bool braces;               /* early-2019 format: '}' closes the block */
  GPtrArray *defined;        /* NameEntry* defined in this block (not owned) */
  int owner_line, owner_col; /* the owner's kind token, for arity messages */
} BlockFrame;

typedef struct {
  IrGraph *graph;
  GHashTable *names;   /* canonical name -> NameEntry* (owned) */
  GPtrArray *groups;   /* nodes written KIND_N, in text order */
  GPtrArray *renumber; /* values with debug names: ids assigned when the graph is complete */
  guint64 max_id;      /* largest numeric name seen */
  bool early;          /* header ended with '{' */
  guint trailers_done;
  GArray *blocks;          /* of BlockFrame: the open blocks, innermost last */
  int with_line, with_col; /* where this graph's trailer named it (nested graphs) */
} GraphFrame;

typedef struct {
  Lexer lx;
  GPtrArray *graphs;   /* GraphFrame*: the outermost graph, then the trailers being read */
  int depth;           /* open graphs + open nested blocks */
  GPtrArray *warnings; /* char* "FILE:LINE:COL: warning: ..." (owned) */
  GHashTable *warned;  /* op names already warned about (owned keys) */
} Parser;

/* Binds the name of token `name` (TOK_VALUE) to v in the innermost block of gf. */
bool text_define_value(Parser *p, GraphFrame *gf, const Token *name, IrValue *v, GError **error);
/* The value named by `t`; `pending` (may be NULL) holds the output names of the node being
 * read, so that a node reading its own output gets a precise message. */
IrValue *text_lookup_value(Parser *p, GraphFrame *gf, const Token *t, GPtrArray *pending,
                           GError **error);
/* One statement `outs = kind[attrs](ins) # comment`, appended to the innermost block; opens
 * the node's first block when `block0` follows. */
bool text_parse_node(Parser *p, GraphFrame *gf, GError **error);
/* Reads `block0(params):` after `owner` and opens it (parse.c). */
bool text_open_block(Parser *p, GraphFrame *gf, IrNode *owner, int owner_line, int owner_col,
                     GError **error);
/* Makes a complete node's outputs visible (after its blocks, if any). */
void text_finish_node(GraphFrame *gf, IrNode *node);
/* Whether v is an integer an int64 holds exactly (NaN, infinities, fractions and values past
 * the range are not), stored in *out. */
static inline bool text_double_as_int(double v, gint64 *out) {
  if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0) || v != (double)(gint64)v)
    return false;
  *out = (gint64)v;
  return true;
}

/* A schema op with attributes (PyTorch until mid-2018 wrote arguments so): rewrites
 * `written` (the inputs as read) into the inputs of the first overload that takes every
 * attribute as an argument, building constants (and Tensor[] lists) at the end of `block`,
 * before the node, and drops the attributes. False, nothing changed, when no overload does
 * (parse_legacy_calls.c). */
bool text_attr_args_to_inputs(GraphFrame *gf, IrBlock *block, IrNode *node, GPtrArray *written);
/* A schema op that matches no overload as written, whose inputs include 2018's stand-ins (a
 * device list `[type, index]` where a Device goes, an int 0 or 1 where a bool goes): the first
 * overload they make match gets Device and bool constants in their place, built at the end of
 * `block`. Whether anything changed (parse_legacy_calls.c). */
bool text_legacy_values_to_inputs(GraphFrame *gf, IrBlock *block, IrNode *node,
                                  GPtrArray *written);
/* If / Loop / GradOf block counts and block input/output counts, once all blocks are read. */
bool text_check_block_arity(Parser *p, IrNode *node, int line, int col, GError **error);

#endif
