/* CPU kernels named by ops.def's `family` column (rt_kernel_<family>, signature RtKernelFn).
 * One function serves every overload of its family; it dispatches on schema->kind and
 * schema->overload. */
#ifndef JITSCOPE_RUNTIME_KERNELS_H
#define JITSCOPE_RUNTIME_KERNELS_H

#include "ir/ops.h"
#include "runtime/value.h"

/* A kernel reads `n_args` borrowed arguments (schema order; omitted trailing defaults already
 * filled in) and stores new references into outs[0..n_outs). Returns false with *error set for
 * bad shapes or values. `schema` says which overload runs (one kernel may serve many);
 * `node` gives attributes and output count; may be NULL when a kernel is
 * called directly (then only schema arguments are read). */
typedef bool (*RtKernelFn)(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                           RtValue *outs, guint n_outs, GError **error);

#define OP(kind, schema, family, shape, grad, flags, expr)                                      \
  bool rt_kernel_##family(const IrSchema *, const IrNode *, RtValue *, guint, RtValue *, guint, \
                          GError **);
#define OVERLOAD OP
#include "ir/ops.def"
#undef OP
#undef OVERLOAD

/* The CPU kernel of one op-table row. */
RtKernelFn rt_op_kernel(const IrSchema *schema);

#endif
