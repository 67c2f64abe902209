/* symbolic_script (reference section 6, seed 003): gradient formulas written in script with
 * closures (resources/symbolic_script.py), compiled into forward/backward graph pairs keyed
 * by the op-table overload each def's parameters match.
 *
 * Contracts:
 * - A formula def `op(params...)` returns (result, backward) where backward is a closure
 *   `backward(grad_output)` returning one gradient per parameter (None where none). The
 *   closure's captured values become the saved values: the pair's forward takes the node's
 *   inputs and returns (result, saved...); the backward takes (grad_output, saved...) and
 *   returns the gradients (the AdGraphFormula contract of autodiff.h). Defs named AD_* are
 *   helpers, never formulas.
 * - script_formulas_builtin() compiles the bundled file once per process (an immutable
 *   table, safe to share between sessions and threads); an error in it aborts, since the
 *   file ships with the program and its test compiles it. */
#ifndef JITSCOPE_SCRIPT_SYMBOLIC_SCRIPT_H
#define JITSCOPE_SCRIPT_SYMBOLIC_SCRIPT_H

#include "autodiff/autodiff.h"

typedef struct ScriptFormulas ScriptFormulas;

ScriptFormulas *script_formulas_compile(const char *text, gsize length, const char *filename,
                                        GError **error);
void script_formulas_free(ScriptFormulas *formulas);
const ScriptFormulas *script_formulas_builtin(void);

/* The formula for node's overload when node's inputs have the formula's parameter types, or NULL
 * (an AdFormulaLookup; data is the table). */
const AdGraphFormula *script_formulas_lookup(const IrNode *node, gpointer formulas);
/* How many overloads have a script formula. */
guint script_formulas_count(const ScriptFormulas *formulas);

#endif
