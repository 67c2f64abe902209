/* CPU kernels named by ops.def (signature: RtKernelFn in ir/ops.h). One function may serve
 * several overloads; it dispatches on schema->kind and schema->overload. */
#ifndef JITSCOPE_RUNTIME_KERNELS_H
#define JITSCOPE_RUNTIME_KERNELS_H

#include "ir/ops.h"

#define OP(schema, kernel, pointwise)                                                          \
  bool kernel(const IrSchema *, const IrNode *, RtValue *, guint, RtValue *, guint, GError **);
#include "ir/ops.def"
#undef OP

#endif
