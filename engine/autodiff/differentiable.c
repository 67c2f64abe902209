/* ad_is_differentiable: which nodes may go into a DifferentiableGraph (reference section 4):
 * nodes with a gradient formula, nodes whose outputs never need one (constants, sizes,
 * tensor comparisons), AutogradZero / AutogradAdd, and GradOf blocks made of such nodes. */
#include <string.h>

#include "autodiff/autodiff.h"
#include "autodiff/formulas.h"

static bool is_tensor_comparison(const IrNode *node) {
  switch (node->kind) {
  case IR_ATEN_GT:
  case IR_ATEN_LT:
  case IR_ATEN_GE:
  case IR_ATEN_LE:
  case IR_ATEN_EQ:
  case IR_ATEN_NE:
    return node->schema && (strcmp(node->schema->overload, "Tensor") == 0 ||
                            strcmp(node->schema->overload, "Scalar") == 0);
  default: return false;
  }
}

bool ad_is_differentiable(const IrNode *node) {
  switch (node->kind) {
  case IR_PRIM_CONSTANT:
  case IR_PRIM_AUTOGRAD_ZERO:
  case IR_PRIM_AUTOGRAD_ADD:
  case IR_ATEN_SIZE_IF_NOT_EQUAL: return true;
  case IR_ATEN_SIZE: return node->schema != NULL;
  case IR_PRIM_GRAD_OF: {
    IrBlock *body = ir_block(node, 0);
    IR_FOR_EACH_NODE(m, body) {
      if (!ad_is_differentiable(m))
        return false;
    }
    return true;
  }
  case IR_ATEN_CAT: /* Tensor[] gradients: the eager tape's (symbolic autodiff has no lists) */
    return false;
  case IR_ATEN_STACK: /* a list made elsewhere (a slice, a dict's values): the eager tape's */
    return ir_input(node, 0)->node->kind == IR_PRIM_LIST_CONSTRUCT && ad_formula_exists(node);
  case IR_ATEN_DROPOUT: /* train known only at run time: the eager tape's */
    return ad_dropout_train_is_constant(node) && ad_formula_exists(node);
  default: return is_tensor_comparison(node) || ad_formula_exists(node);
  }
}
