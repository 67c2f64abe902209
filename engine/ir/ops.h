/* The op table (ops.def) as the IR layer sees it: every operator overload's schema, its
 * flags, its scalar expression and what kind of gradient it has. The kernels, shape rules
 * and gradient builders named by the same rows belong to their layers (runtime/kernels.h,
 * passes/shape_rules.c, autodiff/formulas.c), which expand ops.def themselves. */
#ifndef JITSCOPE_IR_OPS_H
#define JITSCOPE_IR_OPS_H

#include "ir/ir.h"

/* ops.def `flags` column. */
typedef enum {
  IR_OPF_OPAQUE = 0,
  IR_OPF_PW = 1 << 0,                      /* pointwise */
  IR_OPF_PW_FUSIBLE = (1 << 0) | (1 << 1), /* pointwise, the fuser may take it */
  IR_OPF_RANDOM = 1 << 2, /* not pointwise; draws from the generator (nondeterministic) */
} IrOpFlags;
#define IR_OPF_FUSIBLE_BIT (1 << 1)

/* ops.def `grad` column. */
typedef enum {
  IR_GRAD_FORMULA,            /* AD(builder) */
  IR_GRAD_DERIV,              /* DERIV(...) */
  IR_GRAD_NONE,               /* AD_NONE: no gradient flows */
  IR_GRAD_NOT_DIFFERENTIABLE, /* NOT_DIFFERENTIABLE: asking for one is an error */
} IrGradKind;

/* Dtype rule of pointwise ops, given by their `shape` column; every backend follows it. */
typedef enum {
  IR_DTYPE_RULE_NONE,    /* not pointwise */
  IR_DTYPE_RULE_PROMOTE, /* pointwise: result_type of the operands */
  IR_DTYPE_RULE_FLOAT,   /* pointwise_float: result_type, integral -> float32 */
  IR_DTYPE_RULE_BOOL,    /* pointwise_bool: computed in result_type, result bool */
  /* pointwise_long: result_type, bool -> int64 (square, PyTorch's pow(self, 2)); its bool
   * inputs never fuse, since int64 results do not */
  IR_DTYPE_RULE_LONG,
} IrDtypeRule;

typedef struct {
  const char *schema_text;
  /* E(...) as text: "tanh(A0)"; NULL when the op is not pointwise. */
  const char *pointwise;
  IrOpFlags flags;
  IrGradKind grad;
  /* DERIV(...) as text, one derivative per Tensor argument separated by top-level commas;
   * NULL unless grad is IR_GRAD_DERIV. */
  const char *deriv;
  const char *shape_rule; /* the `shape` column: "pointwise_float" */
} IrOpDef;

/* The dtype rule of a pointwise row (from its shape rule); NONE for other rows. */
IrDtypeRule ir_op_def_dtype_rule(const IrOpDef *def);

/* All overloads in table order (stable: schema->index indexes it). */
guint ir_ops_count(void);
const IrSchema *ir_ops_schema(guint index);
const IrOpDef *ir_ops_def(guint index);
/* Overloads of one kind, in table order. */
const IrSchema *const *ir_ops_overloads(IrOpKind kind, guint *n);
/* The row of a resolved node, NULL for nodes without a schema. */
const IrOpDef *ir_node_op_def(const IrNode *node);
/* Is the node pointwise with the PW_FUSIBLE flag? */
bool ir_node_is_fusible(const IrNode *node);
/* Does running the node draw from the random generator (PyTorch's isNondeterministic)? A
 * RANDOM row does, except dropout and native_dropout whose train is a constant false. Passes
 * must not merge, fold or reorder such nodes; dead code may still remove one unused, as
 * PyTorch's does. */
bool ir_node_is_nondeterministic(const IrNode *node);

#endif
