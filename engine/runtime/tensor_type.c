/* rt_tensor_type (contract in tensor_type.h): in the runtime, above the IR, because the
 * tensor layer has no IR types. */
#include "runtime/tensor_type.h"

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
