/* The op table's kernels and elementwise expressions, indexed like the schemas (ops.c). */
#include "ir/ops.h"
#include "runtime/kernels.h"

static const IrOpDef op_defs[] = {
#define OP(schema, kernel, pointwise) {schema, kernel, pointwise},
#include "ir/ops.def"
#undef OP
};

const IrOpDef *
ir_ops_def(guint index)
{
  if (index >= G_N_ELEMENTS(op_defs))
    g_error("op table invariant: op index %u past %u entries", index,
            (guint)G_N_ELEMENTS(op_defs));
  return &op_defs[index];
}

RtKernelFn
ir_ops_kernel(const IrSchema *schema)
{
  return ir_ops_def(schema->index)->kernel;
}
