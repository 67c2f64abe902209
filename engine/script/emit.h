/* Private to the script frontend: the emitter's state shared by its statement half (emit.c),
 * its expression half (emit_expr.c), operator calls (emit_call.c) and closures
 * (emit_closure.c).
 *
 * Model (PyTorch's script/compiler.cpp of 2019): an environment Frame per block being
 * emitted, mapping variable names to SSA values; an assignment rebinds a name in the current
 * frame; prim::If and prim::Loop export the names their blocks rebound as node outputs. */
#ifndef JITSCOPE_SCRIPT_EMIT_H
#define JITSCOPE_SCRIPT_EMIT_H

#include "ir/ir.h"
#include "script/ast.h"
#include "script/lexer.h"

typedef struct Frame Frame;
struct Frame {
  Frame *parent; /* enclosing block of the same graph, or NULL at a graph's top */
  IrBlock *block;
  GHashTable *vars;           /* name -> IrValue* bound in this frame */
  GHashTable *undefined_here; /* name -> const char* why: defined on some paths only */
  bool exited;                /* a raise ended the block: later statements are unreachable */
  /* At a closure's top frame: the function frame it reads captured names from, and the
   * prim::TupleUnpack of the closure's context whose outputs are the captured values. */
  Frame *capture_from;
  IrNode *capture_unpack;
  GPtrArray *captured; /* of IrValue* in the outer graph, in first-use order */
};

/* The innermost loop being emitted: what its break and continue statements send to the end
 * of its body (PyTorch's prim::LoopContinuation: the continue condition, then the carried
 * values). */
typedef struct EmitLoop EmitLoop;
struct EmitLoop {
  EmitLoop *outer;
  GPtrArray *names;       /* the carried names, in the body's output order */
  const ScriptExpr *cond; /* a while loop's condition, evaluated again by continue */
  IrValue *always;        /* a for loop's condition: the constant true */
  GArray *exits;          /* of EmitExit: its break and continue statements */
  bool unrolled;          /* a loop over a tuple, whose body is copied per element */
};

typedef struct {
  IrNode *node; /* the prim::LoopContinuation */
  ScriptLoc loc;
} EmitExit;

/* The file's defs compiled so far, shared by the emitters of one script_compile: a def
 * another calls is compiled once, on its first call. */
typedef struct {
  GHashTable *compiled;  /* def name -> IrGraph* (owned) */
  GHashTable *compiling; /* names being compiled: a call to one is recursion */
} EmitUnit;

typedef struct {
  const ScriptSource *src;
  const ScriptTree *tree;
  IrGraph *graph; /* the graph being emitted (a closure's own graph while in one) */
  Frame *frame;   /* innermost */
  /* Constants written as literals in the source, one per type and value in the graph (key
   * "type=value"), each inserted at the front of the graph when first met. */
  GHashTable *literals;
  /* name -> 1 + the order in which the function first bound it (parameters first): the
   * order of prim::If outputs and loop-carried values. PyTorch 1.13 lists them in the
   * iteration order of a std::unordered_map, which this approximates. */
  GHashTable *definition_order;
  /* name -> the IrType a `name: T = value` statement declared: the type the variable keeps
   * where control flow joins or a loop carries it (PyTorch's type table), whatever value it
   * holds (`y: Optional[int] = None` stays int? through ifs and loops). */
  GHashTable *declared_types;
  EmitLoop *loop;      /* innermost loop of the function being emitted, or NULL */
  IrNode *break_false; /* the `false` breaks send (detached until the body is done) */
  EmitUnit *unit;
  guint n_exits;   /* returns, breaks and continues of the function so far */
  GArray *returns; /* of EmitExit: the function's return statements so far */
  GError **error;
} Emitter;

/* Frames */
Frame *emit_frame_push(Emitter *em, IrBlock *block);
void emit_frame_pop(Emitter *em);
/* The value a name has here (captured into a closure if need be), or NULL with no error. */
IrValue *emit_lookup(Emitter *em, const char *name);
/* Why `name` is unbound here ("'z' is not defined in the false branch ..."), or NULL. */
const char *emit_why_undefined(Emitter *em, const char *name);
void emit_bind(Emitter *em, const char *name, IrValue *value);

/* Binds, in the current frame, every name `cond` proves not None where it holds (true_branch)
 * or fails to a prim::unchecked_cast of its Optional value (PyTorch's refinement): an
 * assignment, which an if's outputs carry where the name is read after it. */
void emit_refine(Emitter *em, const ScriptExpr *cond, bool true_branch);

/* "file:line:col" for a node's source comment (column from 0, as PyTorch prints). */
void emit_set_source(Emitter *em, IrNode *node, ScriptLoc loc);
/* Sets *error at loc; returns NULL/false for the caller. */
gpointer emit_fail(Emitter *em, ScriptLoc loc, const char *fmt, ...) G_GNUC_PRINTF(3, 4);

/* Appends `node` at the end of the current frame's block. */
IrNode *emit_append(Emitter *em, IrNode *node);
/* Constants the emitter makes (defaults, loop conditions), inserted where they are used; a
 * NULL loc prints no source comment, as PyTorch prints defaults. */
IrValue *emit_constant_int(Emitter *em, gint64 v, const ScriptLoc *loc);
IrValue *emit_constant_float(Emitter *em, double v, const ScriptLoc *loc);
IrValue *emit_constant_bool(Emitter *em, bool v, const ScriptLoc *loc);
IrValue *emit_constant_none(Emitter *em, const ScriptLoc *loc);
IrValue *emit_constant_str(Emitter *em, const char *v, const ScriptLoc *loc);
/* A literal of the source (`e` is SE_INT, SE_FLOAT, SE_BOOL, SE_NONE or SE_STRING, or a
 * negated number at `loc`). Numbers are made once per value and put at the front of the
 * graph, as PyTorch's emitter materializes them; other literals are inserted where used.
 * Together with constant pooling this gives PyTorch's order of constants. */
IrValue *emit_literal(Emitter *em, const ScriptExpr *e, bool negate, ScriptLoc loc);

/* Expressions: the value of `e`, or NULL with *error set. */
IrValue *emit_expr(Emitter *em, const ScriptExpr *e);
/* A condition: bool as is, a Tensor through aten::Bool (as PyTorch does). */
IrValue *emit_condition(Emitter *em, const ScriptExpr *e);
/* The common supertype of two branch values' types, or NULL when there is none. */
const IrType *emit_unify_types(const IrType *a, const IrType *b);

/* Calls `ns::name` with positional `args` and keyword arguments, resolving the overload
 * through the op table as PyTorch's schema matching does (defaults become constants). */
/* Lists and dicts (emit_container.c). `list[index] = value` / `dict[key] = value` as
 * aten::_set_item (in place; only list items and dict entries can be assigned). */
bool emit_set_item(Emitter *em, const ScriptExpr *target, IrValue *value, ScriptLoc loc);
/* aten::__getitem__(list, index) typed as the list's element (or a dict's value by key). */
IrValue *emit_list_item(Emitter *em, IrValue *list, IrValue *index, ScriptLoc loc);
/* base[index] of a list or dict base (e is the SE_SUBSCRIPT): an item, an entry or a list
 * slice. */
IrValue *emit_container_subscript(Emitter *em, IrValue *base, const ScriptExpr *e);
/* x[i], x[a:b:c], x[i, a:b], x[t] of a tensor (e is SE_SUBSCRIPT), as PyTorch's emitter:
 * item by item, an int selects (aten::select(x, dim, i); that dim goes away), a slice slices
 * (aten::slice(x, dim, start, end, step), None for a missing bound, step 1; the next dim) and
 * a tensor indexes its dim, by one aten::index(x, [None, ..., t, ...]) after the others. */
IrValue *emit_tensor_subscript(Emitter *em, IrValue *tensor, const ScriptExpr *e);
/* A dict display `{k: v, ...}` (e is SE_DICT). */
IrValue *emit_dict_display(Emitter *em, const ScriptExpr *e);
/* `x in c` (`not in` when negate) of e, an SE_COMPARE. */
IrValue *emit_contains(Emitter *em, const ScriptExpr *e, bool negate);
/* e, where an empty list or dict display takes the annotated type `hint`. */
IrValue *emit_expr_hinted(Emitter *em, const ScriptExpr *e, const IrType *hint);
IrValue *emit_builtin_call(Emitter *em, const char *qualified_name, ScriptLoc loc,
                           IrValue *const *args, guint n_args, GPtrArray *kw_names,
                           IrValue *const *kw_values);

/* A call of a torch.nn.functional function PyTorch compiles as a call (F.cross_entropy):
 * prim::CallFunction of a `Function` constant with every argument of the Python signature.
 * False when `name` is no such function; else true with *out the call's result, or NULL
 * with *error when the arguments do not fit. */
bool emit_function_call(Emitter *em, const char *name, ScriptLoc loc, IrValue *const *args,
                        guint n_args, GPtrArray *kw_names, IrValue *const *kw_values,
                        IrValue **out);

/* The graph of the file's def `def` (compiled on first use; recursion is an error at loc). */
const IrGraph *emit_callee(Emitter *em, const ScriptDef *def, ScriptLoc loc);
/* A call of another def of the file: prim::CallFunction of a `Function` constant named after
 * it, arguments matched to its parameters (literal defaults filled in), as PyTorch's
 * CompilationUnit emits it; the def's graph (and those it calls) go into the graph's
 * function table for the inliner. NULL with *error when the arguments do not fit. */
IrValue *emit_def_call(Emitter *em, const ScriptDef *def, ScriptLoc loc, IrValue *const *args,
                       guint n_args, GPtrArray *kw_names, IrValue *const *kw_values);

/* Binds a name or a tuple of names (unpacking a tuple or list value). */
bool emit_assign_target(Emitter *em, const ScriptExpr *target, IrValue *value, ScriptLoc loc);
/* Control-flow statements (emit_control.c). */
bool emit_if(Emitter *em, const ScriptStmt *s);
bool emit_for(Emitter *em, const ScriptStmt *s);
bool emit_while(Emitter *em, const ScriptStmt *s);

/* Statements of a block, in the current frame. */
bool emit_statements(Emitter *em, GPtrArray *stmts);
/* A function's body into the current graph (the frame holds its parameters), then its exits
 * made structured control flow: the graph's outputs are what its returns return. */
bool emit_function_body(Emitter *em, const ScriptDef *def);

/* Exits (exit_transform.c, modified_loops.c; contracts there): the emitter's
 * prim::LoopContinuation and prim::ReturnStmt nodes removed, then counted loops whose
 * condition changed made while loops, as PyTorch's compiler does after emitting. */
void script_transform_exits(IrGraph *graph);
void script_canonicalize_modified_loops(IrGraph *graph);

/* A nested def: binds its name to TupleConstruct(prim::Function[Subgraph], context). */
bool emit_closure(Emitter *em, const ScriptDef *def);

/* A def's parameter type: Tensor unless annotated. NULL with *error on an unknown type. */
const IrType *emit_param_type(Emitter *em, const ScriptTypeExpr *type);

#endif
