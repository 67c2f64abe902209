/* rt_tensor_type: the complete IR tensor type of a runtime tensor. Kept apart from tensor.c
 * so that code using tensors without IR types does not link the type interner. */
#include "runtime/tensor.h"

const IrType *rt_tensor_type(const RtTensor *t) {
  IrType proto = {0};
  proto.kind = IR_TYPE_TENSOR;
  proto.undefined = false;
  proto.has_dtype = true;
  proto.dtype = t->dtype;
  proto.rank = t->ndim;
  proto.sizes = t->sizes;
  proto.strides = t->strides;
  proto.requires_grad = t->requires_grad ? IR_YES : IR_NO;
  proto.device = t->storage->device;
  return ir_type_tensor_from(&proto);
}
