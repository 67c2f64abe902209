/* The script frontend's syntax tree: what the parser builds and the emitter reads.
 *
 * Contracts:
 * - Every node lives in the ScriptTree that made it and is freed with it (script_tree_free);
 *   strings point into the tree's string chunk.
 * - Every node carries the 1-based line and column where its source text starts (for binary
 *   operators, the start of the left operand, as PyTorch's source ranges do). */
#ifndef JITSCOPE_SCRIPT_AST_H
#define JITSCOPE_SCRIPT_AST_H

#include <glib.h>
#include <stdbool.h>

typedef struct {
  int line, col;
} ScriptLoc;

typedef enum {
  SE_NAME,   /* name */
  SE_INT,    /* int_value */
  SE_FLOAT,  /* float_value */
  SE_STRING, /* name holds the text */
  SE_BOOL,   /* int_value 0/1 */
  SE_NONE,
  SE_BINARY,  /* op, args[0] op args[1] */
  SE_UNARY,   /* op ("-", "+", "not", "~") args[0] */
  SE_COMPARE, /* args[0] op args[1]; chains are nested ANDs built by the parser */
  SE_AND,     /* args[0] and args[1] */
  SE_OR,
  SE_TERNARY,   /* args[0] if args[1] else args[2] */
  SE_CALL,      /* args[0] is the callee; args[1..] positional; keywords/kwargs */
  SE_ATTRIBUTE, /* args[0].name */
  SE_SUBSCRIPT, /* args[0][args[1]] */
  SE_SLICE,     /* args[0]:args[1]:args[2], each may be NULL */
  SE_TUPLE,     /* args */
  SE_LIST,      /* args */
  SE_DICT,      /* args: key, value, key, value, ... */
  SE_ELLIPSIS,  /* ... (a tensor subscript's item) */
} ScriptExprKind;

typedef struct ScriptExpr ScriptExpr;
struct ScriptExpr {
  ScriptExprKind kind;
  ScriptLoc loc;
  const char *name; /* SE_NAME, SE_ATTRIBUTE, SE_STRING */
  const char *op;   /* SE_BINARY, SE_UNARY, SE_COMPARE: the operator's spelling */
  gint64 int_value;
  double float_value;
  GPtrArray *args;     /* of ScriptExpr* (NULL entries only in SE_SLICE) */
  GPtrArray *keywords; /* SE_CALL: of const char* names, parallel to kwargs */
  GPtrArray *kwargs;   /* SE_CALL: of ScriptExpr* */
};

/* A parameter, return or assignment annotation: Tensor, int, float, bool, str, List[T],
 * Optional[T], Tuple[T, ...], Dict[K, V]; `name` is the head ("List"), `args` the bracketed types. */
typedef struct ScriptTypeExpr ScriptTypeExpr;
struct ScriptTypeExpr {
  ScriptLoc loc;
  const char *name;
  GPtrArray *args; /* of ScriptTypeExpr*, or NULL without brackets */
};

typedef struct {
  ScriptLoc loc;
  const char *name;
  ScriptTypeExpr *type;      /* NULL: Tensor */
  ScriptExpr *default_value; /* NULL: none */
} ScriptParam;

typedef enum {
  SS_EXPR,       /* value */
  SS_ASSIGN,     /* targets (one or a tuple expression) = value */
  SS_AUG_ASSIGN, /* target op= value */
  SS_IF,         /* cond, body, orelse (elif is an orelse holding one SS_IF) */
  SS_FOR,        /* for target in value: body */
  SS_WHILE,      /* while cond: body */
  SS_BREAK,
  SS_CONTINUE,
  SS_RETURN, /* value (NULL: return None) */
  SS_PASS,
  SS_RAISE,  /* value (NULL: bare raise) */
  SS_ASSERT, /* cond, value (message or NULL) */
  SS_DEF,    /* def */
} ScriptStmtKind;

typedef struct ScriptDef ScriptDef;
typedef struct ScriptStmt ScriptStmt;
struct ScriptStmt {
  ScriptStmtKind kind;
  ScriptLoc loc;
  ScriptExpr *target;         /* SS_ASSIGN (name, tuple, ...), SS_AUG_ASSIGN, SS_FOR */
  ScriptTypeExpr *annotation; /* SS_ASSIGN `x: T = value`, or NULL */
  const char *op;             /* SS_AUG_ASSIGN: "+" for "+=" */
  ScriptExpr *value;
  ScriptExpr *cond;
  GPtrArray *body;   /* of ScriptStmt* */
  GPtrArray *orelse; /* of ScriptStmt*, or NULL */
  ScriptDef *def;
};

struct ScriptDef {
  ScriptLoc loc;      /* of the `def` keyword */
  ScriptLoc name_loc; /* of its name: PyTorch's source range of the def */
  const char *name;
  GPtrArray *params;       /* of ScriptParam* */
  ScriptTypeExpr *returns; /* NULL when not annotated */
  GPtrArray *body;         /* of ScriptStmt* */
};

typedef struct {
  GPtrArray *defs;      /* of ScriptDef*: the file's top-level functions in order */
  GPtrArray *allocated; /* every node, freed with the tree */
  GPtrArray *arrays;    /* every array, unreferenced with the tree */
  GStringChunk *strings;
} ScriptTree;

ScriptTree *script_tree_new(void);
void script_tree_free(ScriptTree *tree);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(ScriptTree, script_tree_free)
/* Zeroed memory owned by the tree. */
gpointer script_tree_alloc(ScriptTree *tree, gsize size);
/* A pointer array freed with the tree. */
GPtrArray *script_tree_array(ScriptTree *tree);
const char *script_tree_intern(ScriptTree *tree, const char *text);

#endif
