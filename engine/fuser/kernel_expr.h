/* What every source-generating fuser backend (CUDA, C) shares: the analysis of a fusion
 * group's kernel graph (fuser.h conventions) into typed values, and the expansion of a node's
 * ops.def `pointwise` expression into source text.
 *
 * Contracts:
 * - Analysis gives every value of the kernel graph a KernelValue: tensors (group inputs, chunk
 *   pieces, node results) get a dtype (PyTorch's promotion; comparisons give bool; div of
 *   integers is float32) and a variable number n<var> in node order; constants their number.
 * - Expansion substitutes %N by the operand's text as the node's compute dtype sees it (a cast
 *   when the spellings differ, literals in that dtype's precision) and, for float32/float16
 *   computation, renames ops.def's double math functions to their float variants (expf,
 *   tanhf, ...). C and CUDA accept the same expression text.
 * - Errors are set in the domain and code the caller gives. */
#ifndef JITSCOPE_FUSER_KERNEL_EXPR_H
#define JITSCOPE_FUSER_KERNEL_EXPR_H

#include "ir/ir.h"

typedef enum { KV_TENSOR, KV_INT, KV_FLOAT, KV_BOOL, KV_NONE, KV_OTHER } KernelValueKind;

typedef struct {
  KernelValueKind kind;
  IrDtype dtype; /* KV_TENSOR: dtype of the value */
  guint var;     /* KV_TENSOR: the n<var> holding it */
  double num;    /* KV_INT, KV_FLOAT, KV_BOOL */
  gint64 inum;   /* KV_INT, KV_BOOL */
} KernelValue;

typedef struct {
  const IrGraph *graph;
  guint n_tensor;              /* leading tensor inputs */
  const IrDtype *input_dtypes; /* n_tensor entries */
  GHashTable *info;            /* const IrValue* -> KernelValue* */
  guint next_var;
  GQuark domain;
  int code;
  GError **error;
} KernelAnalysis;

/* A generated kernel's source and what its launcher needs to know. CpuKernelSource and
 * CudaKernelSource are this, `args` holding each backend's own argument records. */
typedef struct {
  char *name;
  char *source;
  GArray *args;
  GArray *output_dtypes; /* of IrDtype, one per group output */
} KernelSource;

/* An empty kernel named `name` whose args are records of `arg_size` bytes. */
KernelSource *kernel_source_new(const char *name, guint arg_size);
void kernel_source_free(KernelSource *kernel);

/* Leading tensor inputs of a kernel graph (the rest are sum-to-size lists). */
guint kernel_graph_n_tensor_inputs(const IrGraph *graph);
/* The prim::ConstantChunk reading group input `i`, or NULL. */
const IrNode *kernel_graph_chunk_of(const IrGraph *graph, guint i);

/* Analyses `graph`; on failure sets *error (domain, code) and returns false. Release with
 * kernel_analysis_clear either way. */
bool kernel_analysis_run(KernelAnalysis *ka, const IrGraph *graph, const IrDtype *input_dtypes,
                         GQuark domain, int code, GError **error);
void kernel_analysis_clear(KernelAnalysis *ka);
const KernelValue *kernel_analysis_value(const KernelAnalysis *ka, const IrValue *v);
/* Sets the analysis' error and returns false. */
bool kernel_analysis_fail(KernelAnalysis *ka, const char *format, ...) G_GNUC_PRINTF(2, 3);

/* The dtype pointwise node `n` computes in (operands converted to it) and its result dtype. */
bool kernel_node_dtypes(KernelAnalysis *ka, const IrNode *n, IrDtype *operand, IrDtype *result);
/* Which compiler reads the expanded text: C (generated C) or CUDA C++ (nvrtc), whose math
 * overloads need a few spellings of their own (kernel_expr.c). */
typedef enum { KERNEL_SPELL_C, KERNEL_SPELL_CUDA } KernelSpelling;
/* Appends n's expression, as computed in `operand`, to `out`. */
bool kernel_expand_expression(KernelAnalysis *ka, const IrNode *n, IrDtype operand,
                              KernelSpelling spelling, GString *out);

/* The type a value of `dtype` is held in while computing: "double" (float64), "long long"
 * (int64), "bool", else "float". */
const char *kernel_compute_spelling(IrDtype dtype);
/* "0.5f" for float32/float16, "0.5" for float64, "INFINITY", "(-INFINITY)", "NAN". */
char *kernel_float_literal(double v, IrDtype dtype);

#endif
