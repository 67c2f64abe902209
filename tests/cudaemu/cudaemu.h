/* What the emulated nvrtc (emu_nvrtc.c) and driver (emu_driver.c) agree on: the "PTX" image of
 * a module is this magic line's text followed by the path of the host shared object, and every
 * kernel NAME of it has a host entry cudaemu_kernel_NAME(void **params) beside the launcher
 * cudaemu_launch of emu_prelude.hpp. */
#ifndef JITSCOPE_TESTS_CUDAEMU_H
#define JITSCOPE_TESTS_CUDAEMU_H

#define CUDAEMU_IMAGE_MAGIC "// jitscope cudaemu host module: "
#define CUDAEMU_NVRTC_MAJOR 13
#define CUDAEMU_NVRTC_MINOR 0
#define CUDAEMU_DRIVER_VERSION 13000

#endif
