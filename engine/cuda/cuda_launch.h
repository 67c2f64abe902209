/* Running generated kernels: the CUDA FuserBackend (reference section 5, "CUDA backend").
 *
 * Contracts:
 * - Map size, expansion, chunk pieces (base pointer + offset) and FusedConcat pieces as
 *   fuser.h says; every TensorInfo gets its view's sizes and strides with contiguous
 *   neighbouring dims merged; 32-bit indexing (numel, sizes, strides and the furthest offset
 *   must fit), else the backend fails and the group falls back.
 * - Launch: cuModuleLoadData / cuModuleGetFunction once per cache entry, 128 threads per
 *   block, grid = min(occupancy x SMs, ceil(numel / 128)), on the CUDA runtime's stream
 *   (cuda_tensor.h); device memory with cuMemAllocAsync / cuMemFreeAsync on that stream.
 *   Device-resident runs do not wait for their kernels; sum-to-size outputs are summed on the
 *   device.
 * - Residency: inputs in host memory (storage device CPU) are copied to the device and the
 *   outputs copied back into fresh host tensors, when host offloading is on
 *   (cuda_launch_enable(true), or JITSCOPE_CUDA_OFFLOAD=1 in the environment). Inputs whose
 *   storage is device memory made by this backend (device CUDA, free_fn set) are read in place
 *   and, when any input is on the device, the host inputs are copied up and the outputs stay
 *   on the device. Anything else is declined with a reason, and the fuser
 *   falls back to the CPU fused loop or the interpreter, recording why. */
#ifndef JITSCOPE_CUDA_LAUNCH_H
#define JITSCOPE_CUDA_LAUNCH_H

#include "fuser/fuser.h"
#include "tensor/tensor.h"

/* One TensorInfo's geometry, in elements. */
typedef struct {
  guint ndim;
  int64_t sizes[RT_MAX_DIMS];
  int64_t strides[RT_MAX_DIMS];
} CudaLayout;

/* Merges neighbouring dims d, d+1 when strides[d] == sizes[d+1] * strides[d+1] (size-1 dims
 * merge with anything); at least one dim remains. */
void cuda_layout_merge(int ndim, const int64_t *sizes, const int64_t *strides, CudaLayout *out);

/* TensorInfo ranks a group's kernel has when every input is contiguous and already of the map
 * size (what `jitscope kernels` shows without running): 1 per input and output, except chunk
 * pieces and FusedConcat pieces split along a dim > 0, which keep 2. */
void cuda_group_assumed_ndims(const IrGraph *kernel_graph, guint *input_ndims, guint *output_ndims);

/* The backend; register it with cuda_launch_enable. */
const FuserBackend *cuda_launch_backend(void);
/* Registers the CUDA backend (once) ahead of the CPU fused loop, and sets host offloading. */
void cuda_launch_enable(bool offload_host);
/* Whether launches on device-resident inputs are timed with events (each then waits for its
 * kernel); default off, or JITSCOPE_CUDA_TIMING=1. */
void cuda_launch_set_timing(bool on);
/* The device time (events around the kernel alone) of the most recent timed launch in this
 * process, in ms; 0 before any. For benchmarks: the kernel without the host's work. */
double cuda_launch_last_kernel_ms(void);

#endif
