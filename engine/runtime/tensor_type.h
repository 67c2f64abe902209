/* The IR type of a runtime tensor: where tensors (below the IR) meet IR types. */
#ifndef JITSCOPE_RUNTIME_TENSOR_TYPE_H
#define JITSCOPE_RUNTIME_TENSOR_TYPE_H

#include "ir/type.h"
#include "tensor/tensor.h"

/* The IR type that exactly describes t (complete: sizes and strides). */
const IrType *rt_tensor_type(const RtTensor *t);

#endif
