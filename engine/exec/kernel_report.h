/* Every fusion group of a session's plans with its CUDA kernel (cuda_report.h): what
 * `jitscope kernels` prints and a bundle's kernels/ holds. */
#ifndef JITSCOPE_EXEC_KERNEL_REPORT_H
#define JITSCOPE_EXEC_KERNEL_REPORT_H

#include "cuda/cuda_report.h"
#include "exec/executor.h"

/* One CudaKernelReport per FusionGroup of every plan in session order (nested blocks and
 * DifferentiableGraph bodies included), with plan, plan_index and group set. With `compile`,
 * each source is compiled for `arch` (NULL: the device's or nvrtc's lowest); when nvrtc does
 * not load, attempted stays false. An arch nvrtc rejects is an error (NULL returned). */
GPtrArray *exec_session_kernel_reports(ExecSession *session, bool compile, const char *arch,
                                       GError **error);

#endif
