/* C source for a fusion group, for the system C compiler (reference section 5, "CPU backend
 * ... wrote C++ to a temp file, compiled with the system compiler, dlopen-ed it").
 *
 * Contracts:
 * - The input is a FusionGroup's kernel graph (fuser.h conventions), the dtype of each group
 *   tensor input, and a layout: the rank R left after the runner merged the map's dims jointly
 *   over every operand, and per operand how its innermost merged dim is laid out
 *   (contiguous, broadcast or strided). Arithmetic comes from ops.def's `pointwise`
 *   expressions through kernel_expr.h (the CUDA generator's expansion): float32 computes in
 *   float with expf/tanhf/..., float64 in double. float16 is not generated.
 * - Operands, in order: one per tensor input (per piece for a ConstantChunk-ed input), then one
 *   per output (per piece for a FusedConcat output).
 * - The generated function has the signature of CpuKernelFn and computes the linear indices
 *   [start, end) of the merged map: `sizes[R]`, `data[k]` the first element of operand k
 *   (chunk and concat pieces already offset), `strides[k * R + d]` in elements. R == 1 with
 *   every operand contiguous or broadcast is the fast path: one plain `for (i = 0; i < n; i++)`
 *   over restrict pointers that the compiler vectorises. Otherwise an N-d index walks the rows
 *   of the innermost dim, each row such a loop.
 * - An output operand may accumulate instead of store: it is then a `double` buffer that the
 *   kernel adds each value to (`+=`), for outputs summed to a smaller size (fuser.h's
 *   sum_to_size_inputs) whose strides are 0 along the summed dims; a row whose innermost
 *   stride is 0 sums into a local first. The caller zeroes the buffer and gives each parallel
 *   part its own (accumulating floats is done in double, as rt_tensor_sum_to does).
 * - With -DJITSCOPE_NO_MVEC unset, math functions that glibc's libmvec vectorises are declared
 *   with `__attribute__((__simd__("notinbranch")))` so that loops calling them vectorise
 *   (link with -lmvec); the scalar semantics (NaN, Inf) are libm's.
 * - The source is a pure function of the graph's structure, dtypes, layout and name. */
#ifndef JITSCOPE_FUSER_CPU_CODEGEN_H
#define JITSCOPE_FUSER_CPU_CODEGEN_H

#include <stdint.h>

#include "fuser/fuser.h"
#include "fuser/kernel_expr.h"
#include "ir/ir.h"

typedef void (*CpuKernelFn)(int64_t start, int64_t end, const int64_t *sizes, char *const *data,
                            const int64_t *strides);

typedef enum {
  CPU_INNER_CONTIGUOUS = 'c', /* innermost stride 1 */
  CPU_INNER_BROADCAST = 'b',  /* innermost stride 0: one element per row */
  CPU_INNER_STRIDED = 's',    /* any other stride */
} CpuInner;

typedef struct {
  bool is_output;
  guint index;   /* group input index (inputs) or group output index (outputs) */
  int piece;     /* which chunk / FusedConcat operand; -1 if none */
  int n_pieces;  /* chunks / concat operands; 0 if none */
  int dim;       /* chunk / concat dim as written in the graph; -1 if none */
  IrDtype dtype; /* storage dtype */
  bool used;     /* inputs: read by the kernel (an unused chunk piece is not) */
} CpuKernelArg;

typedef KernelSource CpuKernelSource; /* args of CpuKernelArg; free with kernel_source_free */

/* The operands of a kernel graph for these input dtypes, and its output dtypes; NULL with
 * *error for a graph the generator does not take (float16, a non-elementwise node ...). */
CpuKernelSource *cpu_codegen_operands(const IrGraph *graph, const IrDtype *input_dtypes,
                                      GError **error);
/* Generates the function `name`; `inner` and `accumulate` (NULL: none; true only for
 * float32/float64 outputs) have one entry per operand (cpu_codegen_operands' order), rank >= 1. */
CpuKernelSource *cpu_codegen_kernel(const IrGraph *graph, const char *name,
                                    const IrDtype *input_dtypes, const CpuInner *inner,
                                    const bool *accumulate, guint rank, GError **error);

/* The layout part of a kernel's cache key: "f32c f32s f32b -> f32c f32c+ @2" ('+': accumulates). */
char *cpu_codegen_signature_key(const GArray *args, const CpuInner *inner, const bool *accumulate,
                                guint rank);

/* The C backend (cpu_backend.c): tried before the interpreting CPU loop. */
const FuserBackend *fuser_cpu_codegen_backend(void);

#endif
