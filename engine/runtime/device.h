/* Tensors in device memory and the device dispatch of kernels.
 *
 * The runtime knows no device API: a device backend (the CUDA layer, engine/cuda/
 * cuda_ops.c) registers itself here with its copies and its per-schema device kernels.
 *
 * Contracts:
 * - A tensor is "on a device" when its storage's device is not IR_DEVICE_CPU and the storage
 *   has a free_fn (memory a backend made). Host memory tagged with another device (never made
 *   here) counts as host memory.
 * - rt_kernel_call is how the interpreter, prim ops and the autograd engine call an ops.def
 *   kernel. When no tensor argument (including tensors inside list arguments) is on a device it
 *   calls the CPU kernel as it is. Otherwise, with the device backend registered for that
 *   device: host tensor arguments are copied to the device, and the backend's kernel for the
 *   schema runs; when the backend has none, or declines these arguments (an error in the
 *   RT_DEVICE_DECLINED domain), every device argument is copied to the host, the CPU kernel
 *   runs, and tensor results are copied back to the device. Each such host round trip is
 *   recorded once per schema and reason as a note (rt_device_notes).
 * - Kernels that never read tensor data (size, __is__) may be registered as their own device
 *   kernel by the backend.
 * - Thread-safe: the registry and the notes have a lock; backends are never unregistered. */
#ifndef JITSCOPE_RUNTIME_DEVICE_H
#define JITSCOPE_RUNTIME_DEVICE_H

#include "runtime/kernels.h"
#include "runtime/value.h"

/* Errors a device kernel returns to ask for the host round trip instead (not a failure). */
#define RT_DEVICE_DECLINED (rt_device_declined_quark())
GQuark rt_device_declined_quark(void);

typedef struct RtDeviceBackend {
  int device;       /* IrDevice */
  const char *name; /* "cuda" */
  /* A new host tensor with t's values (contiguous; dtype and sizes kept). */
  RtTensor *(*to_host)(const RtTensor *t, GError **error);
  /* A new device tensor with t's values (t in host memory; contiguous result). */
  RtTensor *(*to_device)(const RtTensor *t, GError **error);
  /* The device kernel for one ops.def overload, or NULL (then the host round trip). */
  RtKernelFn (*kernel_for)(const IrSchema *schema);
  /* rt_tensor_sum_to for a device tensor (result on the device). */
  RtTensor *(*sum_to)(RtTensor *t, int ndim, const int64_t *sizes, GError **error);
} RtDeviceBackend;

/* Registers (or replaces) the backend of backend->device. Not copied. */
void rt_device_register(const RtDeviceBackend *backend);
/* The backend registered for `device`, or NULL. */
const RtDeviceBackend *rt_device_backend(int device);

bool rt_tensor_on_device(const RtTensor *t);
/* The device of a tensor's memory (IR_DEVICE_CPU for host memory). */
int rt_tensor_device(const RtTensor *t);

/* New references. to_host of a host tensor and to_device of a tensor already on `device`
 * return t itself (one more reference). Errors: no backend registered for the device (the
 * message says so), or the backend's copy failed. requires_grad is carried over. */
RtTensor *rt_tensor_to_host(RtTensor *t, GError **error);
RtTensor *rt_tensor_to_device(RtTensor *t, int device, GError **error);
/* The same for values: tensors (also inside lists and tuples) moved, others referenced. */
bool rt_value_to_host(RtValue v, RtValue *out, GError **error);

/* Calls `kernel` (the CPU kernel of schema) or its device counterpart (contract above). */
bool rt_kernel_call(RtKernelFn kernel, const IrSchema *schema, const IrNode *node, RtValue *args,
                    guint n_args, RtValue *outs, guint n_outs, GError **error);

/* rt_tensor_sum_to on the tensor's own device. */
RtTensor *rt_tensor_sum_to_any(RtTensor *t, int ndim, const int64_t *sizes, GError **error);
/* A tensor of `dtype` and `sizes` filled with `value`, on the device of `like` (host when
 * like is NULL or in host memory). */
RtTensor *rt_tensor_full_like_device(const RtTensor *like, IrDtype dtype, int ndim,
                                     const int64_t *sizes, double value, GError **error);

/* The notes recorded so far ("aten::mm on cuda: no device kernel; ran on the host"), oldest
 * first, as a new NULL-terminated array; and a counter of host round trips (for tests). */
char **rt_device_notes(void);
guint rt_device_round_trips(void);

#endif
