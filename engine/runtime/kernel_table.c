/* The op table's `family` column: the CPU kernel of every ops.def row. */
#include "runtime/kernels.h"

static const RtKernelFn kernels[] = {
#define OP(kind, schema, family, shape, grad, flags, expr) rt_kernel_##family,
#define OVERLOAD OP
#include "ir/ops.def"
#undef OP
#undef OVERLOAD
};

RtKernelFn rt_op_kernel(const IrSchema *schema) {
  if (schema->index >= G_N_ELEMENTS(kernels))
    g_error("op table invariant: op index %u past %u entries", schema->index,
            (guint)G_N_ELEMENTS(kernels));
  return kernels[schema->index];
}
