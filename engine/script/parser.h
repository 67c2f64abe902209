/* The script parser: tokens to a ScriptTree (ast.h), Python's grammar for the TorchScript
 * subset (reference: Python's Grammar/Grammar, PyTorch's torch/csrc/jit/script/parser.cpp).
 *
 * Contracts:
 * - A file holds top-level `def`s; `import ...`/`from ... import ...` lines and decorator lines
 *   (`@torch.jit.script`) are accepted and ignored, so a pasted Python file reads as is.
 * - Errors are located (script_error_at) at the offending token; no input crashes the parser:
 *   nesting deeper than the lexer's limit is reported, never recursed into. */
#ifndef JITSCOPE_SCRIPT_PARSER_H
#define JITSCOPE_SCRIPT_PARSER_H

#include "ir/ir.h"
#include "script/ast.h"
#include "script/lexer.h"

ScriptTree *script_parse(const ScriptSource *src, GError **error);
/* The graph of `def`, one of tree's top-level defs (script_compile's contract; the tree is
 * parsed once for all the defs of a file). */
IrGraph *script_compile_def(const ScriptSource *src, const ScriptTree *tree, const ScriptDef *def,
                            GError **error);

#endif
