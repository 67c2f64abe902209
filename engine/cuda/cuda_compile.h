/* Compiling generated kernels with nvrtc, and the two-level kernel cache (reference
 * section 5): the first level is keyed by the group's canonical text (names and shapes erased),
 * the second by what the source depends on at run time: per tensor its dtype and the rank left
 * after merging contiguous dims (the contiguity vector's effect), plus the target arch.
 *
 * Contracts:
 * - nvrtc options: --std=c++14 --gpu-architecture=compute_XY -default-device.
 * - The cache is process-wide and thread-safe (one mutex); entries live until exit. A failed
 *   compilation is cached too (with its log), so a bad group is not recompiled on every run. */
#ifndef JITSCOPE_CUDA_COMPILE_H
#define JITSCOPE_CUDA_COMPILE_H

#include "cuda/cuda_loader.h"
#include "fuser/cuda_codegen.h"

typedef struct {
  bool ok;
  char *arch; /* "compute_90" */
  char *log;  /* nvrtc's program log ("" when empty) */
  char *ptx;  /* NULL unless ok */
  gsize ptx_bytes;
  double ms; /* wall time of nvrtcCompileProgram */
} CudaCompileResult;

/* The arch to compile for, as "compute_XY": `requested` ("sm_90", "compute_90" or "90") when
 * given, else the device's compute capability, else the lowest arch nvrtc supports (52 when
 * nvrtc cannot say). A requested arch nvrtc does not list is an error; a device newer than
 * nvrtc's newest arch compiles for the newest (the driver JIT-compiles PTX forward). */
char *cuda_compile_resolve_arch(const char *requested, GError **error);

/* Compiles; NULL with *error (CUDA_ERROR_UNAVAILABLE) only when nvrtc did not load or the
 * program could not be created. A source nvrtc rejects gives a result with ok = false and the
 * log. */
CudaCompileResult *cuda_compile_ptx(const char *source, const char *name, const char *arch,
                                    GError **error);
void cuda_compile_result_free(CudaCompileResult *result);

/* A second-level cache entry: one kernel of one group for one dtype/rank signature. */
typedef struct {
  char *key;
  CudaKernelSource *kernel;
  CudaCompileResult *compiled;
  /* Loaded lazily by the launcher (under the launcher's lock); NULL until then. */
  CudaModule module;
  CudaFunction function;
  int blocks_per_sm;
  /* Statistics of the most recent launch, for the workbench. */
  guint launches;
  guint last_grid, last_block;
  double last_ms;
} CudaKernelEntry;

/* The second-level key for a signature (exposed for tests): "float32/2 float32/1 -> float32/1
 * @compute_90". */
char *cuda_compile_signature_key(guint n_in, const IrDtype *in_dtypes, const guint *in_ndims,
                                 guint n_out, const guint *out_ndims, const char *arch);

/* The kernel name the cache gives: "jitscope_fused_<hash of canonical>_<hash of key>". */
char *cuda_compile_kernel_name(const char *canonical, const char *key);

/* Looks the kernel up, generating and compiling it on a miss. `input_ndims` per group tensor
 * input, `output_ndims` per group output (see cuda_codegen_kernel). Errors: codegen errors,
 * nvrtc unavailable. A failed compilation returns the entry (compiled->ok false). */
CudaKernelEntry *cuda_kernel_cache_get(const IrGraph *kernel_graph, const IrDtype *input_dtypes,
                                       const guint *input_ndims, const guint *output_ndims,
                                       const char *arch, GError **error);

/* Counters of the cache, for tests: groups (first level), kernels (second level), hits. */
void cuda_kernel_cache_stats(guint *groups, guint *kernels, guint *hits);

#endif
