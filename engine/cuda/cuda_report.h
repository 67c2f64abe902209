/* The generated CUDA kernel of a fusion group, compiled by nvrtc where it loads: the one
 * account of a group's kernel that `jitscope kernels`, bundles (kernels/) and the workbench
 * (next to a group) all show.
 *
 * Kernels are generated for the layout a group has when every input is contiguous and of the
 * map size (cuda_group_assumed_ndims): plans are inspected without running them, so actual
 * strides and broadcasts are unknown. Dtypes come from the group inputs' types (float32 when a
 * type does not say). */
#ifndef JITSCOPE_CUDA_REPORT_H
#define JITSCOPE_CUDA_REPORT_H

#include "ir/ir.h"

typedef struct {
  /* Where the group is; set by exec_session_kernel_reports, NULL/0 for a lone group. */
  char *plan;       /* the plan's graph name and spec: "main (Float(*, *), ...)" */
  guint plan_index; /* position in session->plans */
  char *group;      /* "FusionGroup_0", "DifferentiableGraph_0/FusionGroup_1" */

  char *kernel;   /* the kernel's name; NULL when generation failed */
  char *source;   /* NULL when generation failed */
  char *error;    /* why generation failed, else NULL */
  bool attempted; /* nvrtc ran */
  bool compiled;
  char *arch; /* "compute_90" when attempted */
  char *log;  /* nvrtc's log ("" when empty); when not attempted, why ("" when not asked) */
  gsize ptx_bytes;
  double ms;
} CudaKernelReport;

/* The kernel of one FusionGroup node; a node that is not one with a kernel graph gets `error`.
 * With `arch` (as cuda_compile_resolve_arch returns it) the source is compiled by nvrtc; with
 * NULL it is not. Never fails: reasons are in the fields. */
CudaKernelReport *cuda_report_group(const IrNode *group, const char *arch);
void cuda_kernel_report_free(CudaKernelReport *report);

#endif
