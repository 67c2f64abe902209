/* What FuseGraph fuses (contract in fusible.h). */
#include "fuser/fusible.h"

#include "autodiff/subgraph_utils.h"
#include "ir/ops.h"

bool fusible_is_tensor(const IrValue *v) {
  return ir_type_is_tensor(v->type);
}

bool fusible_kernel_dtype(const IrType *t) {
  return t->kind == IR_TYPE_TENSOR && t->has_dtype &&
         (ir_type_is_float_dtype(t->dtype) || t->dtype == IR_DTYPE_BOOL);
}

bool fusible_is_constant(const IrValue *v) {
  return v->node->kind == IR_PRIM_CONSTANT;
}

bool fusible_pointwise(const IrNode *n) {
  if (!ir_node_is_fusible(n) || ir_n_outputs(n) != 1 ||
      !fusible_kernel_dtype(ir_output(n, 0)->type))
    return false;
  for (guint i = 0; i < ir_n_inputs(n); i++) {
    IrValue *v = ir_input(n, i);
    if (fusible_is_tensor(v) ? (fusible_is_constant(v) || !fusible_kernel_dtype(v->type))
                             : !fusible_is_constant(v))
      return false;
  }
  return true;
}

bool fusible_sum_to_size(const IrNode *n) {
  if (n->kind != IR_ATEN_GRAD_SUM_TO_SIZE || ir_n_inputs(n) != 2)
    return false;
  IrValue *x = ir_input(n, 0), *size = ir_input(n, 1);
  return fusible_is_tensor(x) && fusible_kernel_dtype(x->type) && !fusible_is_constant(x) &&
         !fusible_is_constant(size) &&
         (size->type->kind == IR_TYPE_LIST || size->type->kind == IR_TYPE_OPTIONAL);
}

bool fusible_body_has(const IrNode *group, IrOpKind kind) {
  IR_FOR_EACH_NODE(n, ad_subgraph_body(group)->block) {
    if (n->kind == kind)
      return true;
  }
  return false;
}

bool fusible_producer(const IrNode *n) {
  if (n->kind == IR_PRIM_FUSION_GROUP)
    return !fusible_body_has(n, IR_ATEN_GRAD_SUM_TO_SIZE) &&
           !fusible_body_has(n, IR_PRIM_FUSED_CONCAT);
  return fusible_pointwise(n) || fusible_sum_to_size(n);
}

bool fusible_consumer(const IrNode *n) {
  return n->kind == IR_PRIM_FUSION_GROUP || fusible_pointwise(n) || fusible_sum_to_size(n);
}
