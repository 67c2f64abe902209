/* ad_is_differentiable: which nodes may go into a DifferentiableGraph (reference section 4):
 * nodes with a gradient formula, nodes whose outputs never need one (constants, sizes,
 * tensor comparisons), AutogradZero / AutogradAdd, and GradOf blocks made of such nodes. */
#include <string.h>

#include "autodiff/autodiff.h"
#include "autodiff/formulas.h"
#include "passes/pass_util.h"

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
  case IR_ATEN_CAT:
  case IR_ATEN_STACK:
  case IR_ATEN_BROADCAST_TENSORS:
    /* A Tensor[] gradient reaches the list's elements only through the prim::ListConstruct
     * that built it (create_autodiff_subgraphs copies it into the subgraph); a list made
     * elsewhere (a slice, a dict's values, a loop) or changed after it was built is the
     * eager tape's. */
    return pu_list_is_constructed_and_read_only(ir_input(node, 0)) && ad_formula_exists(node);
  case IR_PRIM_LIST_UNPACK: {
    /* The pieces of a Tensor[] made in the same block by a differentiable op (split, chunk,
     * unbind) or a prim::ListConstruct, read by this unpack alone: their gradients become
     * the list's one gradient (missing ones as zeros like the piece, so every piece must be
     * typed as a tensor, not as a Tensor? the verifier lets through). */
    const IrValue *list = ir_input(node, 0);
    const IrNode *producer = list->node;
    if (!ir_type_is_tensor_list(list->type) || list->uses->len != 1 ||
        producer->owning_block != node->owning_block)
      return false;
    for (guint i = 0; i < ir_n_outputs(node); i++)
      if (!ir_type_is_tensor(ir_output(node, i)->type))
        return false;
    if (producer->kind == IR_PRIM_LIST_CONSTRUCT) /* a wrong count is the run's error */
      return ir_n_inputs(producer) == ir_n_outputs(node);
    return ad_is_differentiable(producer);
  }
  case IR_ATEN_DROPOUT: /* train known only at run time: the eager tape's */
    return ad_dropout_train_is_constant(node) && ad_formula_exists(node);
  default: return is_tensor_comparison(node) || ad_formula_exists(node);
  }
}
