/* The script frontend: TorchScript source (a subset of Python) compiled to the graph IR as
 * PyTorch's `torch.jit.CompilationUnit` would, and printed as PyTorch prints `fn.graph`.
 *
 * Contracts:
 * - script_compile reads a file of one or more top-level `def`s and returns the graph of the
 *   one named `function` (NULL: the first). Errors are JITSCOPE_PARSE_ERROR messages
 *   "FILE:LINE:COL: error: MESSAGE" followed by the source line and a caret; no input
 *   crashes or aborts.
 * - The graph is what PyTorch 1.13 prints before optimization: constants pooled at the top,
 *   dead code removed, every node emitted from source carrying `file:line:col`.
 * - A call of another def of the file is prim::CallFunction of a `Function` constant, as
 *   PyTorch prints it; the graph's function table (IrGraph.functions) holds the callees'
 *   graphs, which pass_inline_calls inlines.
 * - A nested def that reads outer variables is a closure: prim::Function (its body in the
 *   `Subgraph` attribute, inputs (context, params...)) and
 *   prim::TupleConstruct(function, context tuple). */
#ifndef JITSCOPE_SCRIPT_SCRIPT_H
#define JITSCOPE_SCRIPT_SCRIPT_H

#include "ir/ir.h"

IrGraph *script_compile(const char *text, gsize length, const char *filename, const char *function,
                        GError **error);

/* Does this file name look like script source (ends in ".py")? */
bool script_is_source_file(const char *path);

#endif
