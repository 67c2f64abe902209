/* The op table: every operator overload declared once in ops.def with its schema string,
 * its CPU kernel and, for elementwise ops, the scalar expression shared by the fused CPU loop
 * and the CUDA code generator. */
#ifndef JITSCOPE_IR_OPS_H
#define JITSCOPE_IR_OPS_H

#include "ir/ir.h"
#include "runtime/value.h"

/* A kernel reads `n_args` borrowed arguments (schema order; omitted trailing defaults already
 * filled in) and stores new references into outs[0..n_outs). Returns false with *error set for
 * bad shapes or values. `schema` says which overload runs (one kernel may serve many);
 * `node` gives attributes and output count; may be NULL when a kernel is
 * called directly (then only schema arguments are read). */
typedef bool (*RtKernelFn)(const IrSchema *schema, const IrNode *node, RtValue *args,
                           guint n_args, RtValue *outs, guint n_outs, GError **error);

typedef struct {
  const char *schema_text;
  RtKernelFn kernel;
  /* Elementwise formula over inputs %0 %1 ... (tensors and scalars in schema order), written
   * in C with float math functions spelled as double ones (exp, log, tanh); NULL when the op
   * is not elementwise. */
  const char *pointwise;
} IrOpDef;

/* All overloads in table order (stable: schema->index indexes it). */
guint ir_ops_count(void);
const IrSchema *ir_ops_schema(guint index);
const IrOpDef *ir_ops_def(guint index);
/* Overloads of one kind, in table order. */
const IrSchema *const *ir_ops_overloads(IrOpKind kind, guint *n);
RtKernelFn ir_ops_kernel(const IrSchema *schema);

#endif
