/* Module graphs into plain functions, as PyTorch's inliner (torch/csrc/jit/passes/inliner.cpp)
 * and lower_graph (passes/lower_graph.cpp) do: calls of functions and methods we have
 * definitions for are inlined, then attribute reads on `%self` become graph inputs named by
 * their path. The command line and the window run this on a program before binding inputs,
 * so that `--input self.fc.weight=w.npy` can name them. */
#ifndef JITSCOPE_PASSES_MODULE_LOWERING_H
#define JITSCOPE_PASSES_MODULE_LOWERING_H

#include "ir/ir.h"

/* Definition `index` (graph text) of a function called through a `Function` constant
 * (`prim::Constant[name="silu"]`, torch.nn.functional), or NULL past the last. A function
 * whose parameter types differ between calls (an Optional given or None) has one definition
 * per form; the first whose parameters the call's arguments fit is inlined. */
const char *functional_definition(const char *name, guint index);
/* The definition of method `method` of module class `class_name` (a printed type name such as
 * `__torch__.torch.nn.modules.linear.___torch_mangle_1.Linear`; mangling ignored), or NULL.
 * Its first parameter is the module. */
const char *module_method_definition(const char *class_name, const char *method);

/* Inlines every prim::CallFunction on a Function constant and every prim::CallMethod on a
 * module-typed value whose definition is known (the graph's own function table first, where
 * the script frontend puts a file's other defs) and whose arguments fit its parameter types,
 * repeatedly (definitions may call others), up to a fixed depth. Inlined nodes take the call's
 * source comment and, as scope, the call's name (`F.silu`, `fc.forward`), which the drawing
 * groups by. Requires: a verified graph. Guarantees: a verified graph; *n_inlined counts the
 * calls replaced. Calls left (unknown callee, misfit arguments) stay as they were. */
bool pass_inline_calls(IrGraph *graph, guint *n_inlined);

/* When input 0 has a class type (`%self`): every chain of prim::GetAttr from it that ends in
 * a non-module value becomes one graph input, appended after the others and named by its path
 * (`self.fc.weight`; the same path read twice is one input); module-typed reads left without
 * users are removed, then `%self` itself. A constant whose value the text does not give
 * (frozen modules' `value=<Tensor>`) becomes an input too, named as its value. `added` (may be
 * NULL) receives the new inputs' names. Returns false with *error when `%self` keeps a user
 * (a method call without a definition), naming that user; the graph is then unchanged in its
 * inputs but may have gained some (callers drop it). Returns true otherwise (also when there
 * is nothing to do). */
bool pass_lower_module_attributes(IrGraph *graph, GPtrArray *added, GError **error);

#endif
