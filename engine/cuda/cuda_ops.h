/* The CUDA device backend of the runtime (runtime/device.h): every ops.def op on CUDA tensors.
 *
 * Contracts:
 * - Elementwise ops (a `pointwise` expression in ops.def) run as single-op generated kernels:
 *   a one-node fusion group built from the schema with the call's non-tensor arguments as
 *   constants (cached per schema and constant values), run by the CUDA fusion backend, whose
 *   kernel cache keys the compiled kernel by dtypes and merged ranks. The result dtype is
 *   checked once per signature against the CPU kernel's (run on one-element host tensors);
 *   where they would differ, or the generator does not take the op, the kernel declines and
 *   the call takes the host round trip with the reason noted.
 * - sum, sum.dim_IntList, _grad_sum_to_size: the runtime's sum kernel (cuda_kernels.h).
 * - mm, addmm, matmul: cuBLAS (cuda_blas.h); other dtypes than float32/float64 decline.
 * - chunk, expand, expand_as, transpose, t, unsqueeze, squeeze, view, size: the CPU kernels
 *   run on a host-tagged alias of the device tensor (they only compute views and read
 *   metadata; the alias' storage is never read) and the views are put back on the device
 *   storage: no data moves. reshape is a view when strides allow, else a device copy first.
 * - cat: one copy kernel per piece into a fresh device tensor. ones_like/zeros_like: a device
 *   fill. Bool/Int/Float of a tensor: the one element is copied to the host.
 * - __is__ / __isnot__ compare identities as on the host. Everything else (scalar ops never
 *   see tensors) has no device kernel. */
#ifndef JITSCOPE_CUDA_OPS_H
#define JITSCOPE_CUDA_OPS_H

#include "runtime/kernels.h"

/* Registers the backend for IR_DEVICE_CUDA (idempotent; done by cuda_runtime_begin). */
void cuda_ops_register(void);
/* Checks that CUDA can run (driver, nvrtc, a device with memory pools) and registers the
 * device backend and the CUDA fusion backend (fuser_register_backend; host offloading stays as
 * it is); false with the reason otherwise. */
bool cuda_runtime_enable(GError **error);

/* The text of the one-node fusion group for an elementwise call (a graph whose only node
 * is prim::FusionGroup_0 over the tensor arguments), or NULL with *error (domain
 * RT_DEVICE_DECLINED) when a non-tensor argument cannot be a constant. Exposed for tests. */
char *cuda_elementwise_group_text(const IrSchema *schema, const RtValue *args, guint n_args,
                                  GError **error);

#endif
