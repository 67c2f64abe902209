/* pass_check_inplace: verifies that no in-place op (a kind whose name ends in `_`) is present;
 * never changes the graph, so it always returns false. */
#include "passes/pass_util.h"
#include "passes/passes.h"

#include <string.h>

/* Reference: PyTorch's passes/check_inplace.cpp throws when an in-place op writes a value
 * that requires grad inside a differentiable graph. Our op table declares no in-place
 * kernels, so such a node can only come from a broken table or a pass bug: it aborts naming
 * the invariant. Underscore-prefixed names (aten::_grad_sum_to_size) and Python's dunder
 * names (aten::__getitem__) are not in-place; only one trailing underscore marks one. */

static void check_block(const IrBlock *block) {
  IR_FOR_EACH_NODE(n, block) {
    const char *name = ir_kind_name(n->kind);
    size_t len = strlen(name);
    bool dunder = len >= 2 && name[len - 2] == '_';
    PASS_INVARIANT(len == 0 || name[len - 1] != '_' || dunder, "pass_check_inplace",
                   "no in-place operator appears in a graph");
    for (guint b = 0; b < ir_n_blocks(n); b++)
      check_block(ir_block(n, b));
  }
}

bool pass_check_inplace(IrGraph *graph) {
  check_block(graph->block);
  return false;
}
