/* The CUDA error domain. Code generation (cuda_codegen.c, here in the fuser) and the device
 * runtime above it (engine/cuda) report in one domain, so that a caller tells "this group has
 * no kernel" from "the driver failed" by the code alone. */
#ifndef JITSCOPE_FUSER_CUDA_ERROR_H
#define JITSCOPE_FUSER_CUDA_ERROR_H

#include <glib.h>

#define JITSCOPE_CUDA_ERROR (jitscope_cuda_error_quark())
GQuark jitscope_cuda_error_quark(void);
typedef enum {
  CUDA_ERROR_UNAVAILABLE, /* a library or the device is missing */
  CUDA_ERROR_COMPILE,     /* nvrtc rejected the source */
  CUDA_ERROR_CODEGEN,     /* the group cannot be turned into a kernel */
  CUDA_ERROR_DRIVER,      /* a driver call failed */
  CUDA_ERROR_ARGUMENT,    /* inputs the kernel cannot take (sizes, dtypes, 32-bit limits) */
} CudaErrorCode;

#endif
