/* Helpers shared by the interpreter tests: building graphs with the IR API, making and checking
 * tensors, running a graph through compiled code. */
#ifndef JITSCOPE_TESTS_INTERP_TEST_UTIL_H
#define JITSCOPE_TESTS_INTERP_TEST_UTIL_H

#include "ir/ir.h"
#include "runtime/code.h"
#include "runtime/interpreter.h"

/* A prim node (no schema) with the given inputs and n_out outputs of type `out_type`, inserted
 * at the graph's insertion point. */
IrNode *it_prim(IrGraph *g, IrOpKind kind, IrValue *const *ins, guint n_in, guint n_out,
                const IrType *out_type);
/* A schema op (overload resolved by the IR) with one output. */
IrValue *it_op(IrGraph *g, IrOpKind kind, IrValue *const *ins, guint n_in);
/* A float32 tensor of the given shape holding `values` (row-major). */
RtTensor *it_tensor(int ndim, const int64_t *sizes, const double *values);
RtTensor *it_vector(guint n, const double *values);
/* Asserts dtype-independent equality of shape and values (absolute tolerance tol). */
void it_assert_tensor(const RtTensor *t, int ndim, const int64_t *sizes, const double *values,
                      double tol);
/* Compiles and runs; returns false with *error on failure. outputs: room for the graph's
 * outputs. Also checks that the inputs' reference counts are what they were. */
bool it_run(const IrGraph *g, const RtInterpreterHooks *hooks, RtValue *ins, guint n_in,
            RtValue *outs, GError **error);
/* The printed form of a value ("[1, 2]", "Float(2, 3)"), for assertions. */
char *it_print(RtValue v);

#endif
