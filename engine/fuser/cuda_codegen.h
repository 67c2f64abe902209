/* CUDA C source for a fusion group (reference section 5, "From a fusion group to a kernel").
 *
 * Contracts:
 * - The input is a FusionGroup's kernel graph (fuser.h conventions) plus, per group tensor
 *   input, its dtype and the number of dimensions its TensorInfo record has after contiguous
 *   neighbouring dims are merged (for a chunked input: each piece's), and per group output the
 *   merged rank of the record(s) written (1 for a fresh contiguous output; for a FusedConcat
 *   output, each piece's view).
 * - The source is a pure function of the kernel graph's structure (names, ids and shapes do not
 *   matter), the descriptors and the kernel name: the same group gives the same text, so
 *   sources can be diffed and cached.
 * - Kernel parameters, in order: `IndexType numel` (32-bit), then one TensorInfo per tensor
 *   input (per piece for a ConstantChunk-ed input), then one per output (per piece for a
 *   FusedConcat output). `args` describes them for the launcher.
 * - Arithmetic uses ops.def's `pointwise` expressions; float32 and float16 compute in float
 *   (expf, tanhf, ...), float64 in double, half loads through __half2float and stores through
 *   __float2half. */
#ifndef JITSCOPE_FUSER_CUDA_CODEGEN_H
#define JITSCOPE_FUSER_CUDA_CODEGEN_H

#include "fuser/kernel_expr.h"
#include "ir/ir.h"

typedef struct {
  bool is_output;
  guint index;   /* group input index (inputs) or group output index (outputs) */
  int piece;     /* which chunk (inputs) or which FusedConcat operand (outputs); -1 if none */
  int n_pieces;  /* chunks / concat operands; 0 if none */
  int dim;       /* chunk / concat dim, in the tensor's rank; -1 if none */
  IrDtype dtype; /* storage dtype */
  guint ndim;    /* TensorInfo rank */
} CudaKernelArg;

/* args of CudaKernelArg, in parameter order after numel; free with kernel_source_free */
typedef KernelSource CudaKernelSource;

/* Leading tensor inputs of a kernel graph (the rest are sum-to-size lists). */
guint cuda_codegen_n_tensor_inputs(const IrGraph *graph);

/* Generates the kernel; input_dtypes/input_ndims have cuda_codegen_n_tensor_inputs entries,
 * output_ndims one per graph output. Errors (JITSCOPE_CUDA_ERROR, CUDA_ERROR_CODEGEN): a node
 * that is not elementwise, a non-constant scalar operand, a chunked input used otherwise, a
 * FusedConcat result used inside the group, a rank of 0 or above IR_MAX_RANK. */
CudaKernelSource *cuda_codegen_kernel(const IrGraph *graph, const char *name,
                                      const IrDtype *input_dtypes, const guint *input_ndims,
                                      const guint *output_ndims, GError **error);

/* The group's structure as text, with names, value ids and shapes erased: the first-level
 * cache key (two groups with the same text compile to the same kernels). */
char *cuda_codegen_canonical_text(const IrGraph *graph);

/* Output dtypes of the kernel graph for these input dtypes (PyTorch's promotion; comparisons
 * give bool); false with *error for a graph the code generator does not take. */
bool cuda_codegen_output_dtypes(const IrGraph *graph, const IrDtype *input_dtypes, IrDtype *out,
                                GError **error);

/* The C spelling of a float constant for a computation in `dtype`'s compute type: "0.5f" for
 * float32/float16, "0.5" for float64, "INFINITY", "(-INFINITY)", "NAN". Exposed for tests. */
char *cuda_codegen_float_literal(double v, IrDtype dtype);

#endif
