/* Every fusion group of a session's plans with its generated CUDA source, compiled by nvrtc
 * where it loads: what `jitscope kernels` prints and the workbench shows next to a group.
 *
 * Kernels are generated for the layout a group has when every input is contiguous and of the
 * map size (cuda_group_assumed_ndims): plans are inspected without running them, so actual
 * strides and broadcasts are unknown. Dtypes come from the group inputs' types (float32 when a
 * type does not say). */
#ifndef JITSCOPE_FUSER_CUDA_REPORT_H
#define JITSCOPE_FUSER_CUDA_REPORT_H

#include "exec/executor.h"

typedef struct {
  char *plan;       /* the plan's graph name and spec: "main (Float(*, *), ...)" */
  guint plan_index; /* position in session->plans */
  char *group;      /* "FusionGroup_0", "DifferentiableGraph_0/FusionGroup_1" */
  char *kernel;     /* the kernel's name; NULL when generation failed */
  char *source;     /* NULL when generation failed */
  char *error;      /* why generation failed, else NULL */
  bool attempted;   /* nvrtc ran */
  bool compiled;
  char *arch;       /* "compute_90" when attempted */
  char *log;        /* nvrtc's log ("" when empty) */
  gsize ptx_bytes;
  double ms;
} CudaKernelReport;

/* One entry per FusionGroup of every plan in session order (nested blocks and
 * DifferentiableGraph bodies included). With `compile`, each source is compiled for `arch`
 * (NULL: the device's or nvrtc's lowest); when nvrtc does not load, attempted stays false.
 * An arch nvrtc rejects is an error (NULL returned). */
GPtrArray *cuda_report_session(ExecSession *session, bool compile, const char *arch,
                               GError **error);
void cuda_kernel_report_free(CudaKernelReport *report);

#endif
