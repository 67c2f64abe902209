// Included ahead of every CUDA source the emulated nvrtc compiles for the host (emu_nvrtc.c):
// CUDA's keywords, built-in variables and the device functions our generated sources call,
// spelled for a host C++ compiler, plus the launcher the emulated driver calls.
//
// Execution model: blocks run one after another; the threads of a block run one after another
// too, unless the kernel uses __syncthreads (CUDAEMU_CONCURRENT_BLOCKS, set by emu_nvrtc.c),
// in which case each thread of the block is an OS thread and __syncthreads a barrier, so that
// __shared__ arrays (static storage, one block at a time) behave as on a device.
#include <math.h>
#include <stdlib.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

struct cudaemu_dim3 {
  unsigned x, y, z;
};
// No thread_local: the dynamic TLS of dlopen-ed objects trips LeakSanitizer's scan at exit.
// Blocks run one at a time, so blockIdx is plain; threadIdx too unless the threads of a block
// run as OS threads, which then find theirs through a pthread key.
static cudaemu_dim3 blockIdx, blockDim, gridDim;
#ifdef CUDAEMU_CONCURRENT_BLOCKS
static pthread_key_t cudaemu_thread_key;
static pthread_once_t cudaemu_key_once = PTHREAD_ONCE_INIT;
static void cudaemu_make_key() { pthread_key_create(&cudaemu_thread_key, nullptr); }
#define threadIdx (*(const cudaemu_dim3 *)pthread_getspecific(cudaemu_thread_key))
#else
static cudaemu_dim3 threadIdx;
#endif

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __align__(n) alignas(n)
#define __shared__ static
#define __restrict__ __restrict

static pthread_barrier_t cudaemu_block_barrier;
static inline void __syncthreads() { pthread_barrier_wait(&cudaemu_block_barrier); }

template <typename T> static inline T __ldg(const T *p) { return *p; }

static inline float __int_as_float(int i) {
  float f;
  memcpy(&f, &i, sizeof f);
  return f;
}
static inline int __float_as_int(float f) {
  int i;
  memcpy(&i, &f, sizeof i);
  return i;
}
static inline double __longlong_as_double(long long i) {
  double d;
  memcpy(&d, &i, sizeof d);
  return d;
}
static inline float rsqrt(float x) { return 1.0f / sqrtf(x); }
static inline double rsqrt(double x) { return 1.0 / sqrt(x); }
static inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }

// IEEE binary16 <-> binary32, round to nearest even: what the device's cvt instructions do.
static inline unsigned short cudaemu_float_to_half_bits(float f) {
  uint32_t x;
  memcpy(&x, &f, sizeof x);
  uint32_t sign = (x >> 16) & 0x8000u, mag = x & 0x7fffffffu;
  if (mag > 0x7f800000u)
    return (unsigned short)(sign | 0x7e00u | ((mag >> 13) & 0x3ffu));
  if (mag >= 0x477ff000u) // rounds to 65520 or more: infinity
    return (unsigned short)(sign | 0x7c00u);
  if (mag < 0x38800000u) { // below the smallest normal half: denormal or zero
    if (mag < 0x33000000u)
      return (unsigned short)sign;
    uint32_t mant = (mag & 0x7fffffu) | 0x800000u;
    int shift = 126 - (int)(mag >> 23); // 14..24
    uint32_t half_mant = mant >> shift;
    uint32_t rest = mant & ((1u << shift) - 1), midway = 1u << (shift - 1);
    if (rest > midway || (rest == midway && (half_mant & 1u)))
      half_mant++;
    return (unsigned short)(sign | half_mant);
  }
  uint32_t h = ((mag - 0x38000000u) >> 13);
  uint32_t rest = mag & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u)))
    h++;
  return (unsigned short)(sign | h);
}
static inline float cudaemu_half_bits_to_float(unsigned short h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
  uint32_t x;
  if (exp == 0x1f) {
    x = sign | 0x7f800000u | (mant << 13);
  } else if (exp != 0) {
    x = sign | ((exp + 112u) << 23) | (mant << 13);
  } else if (mant == 0) {
    x = sign;
  } else { // denormal half: normalize
    int e = -1;
    do {
      mant <<= 1;
      e++;
    } while ((mant & 0x400u) == 0);
    x = sign | ((uint32_t)(112 - e) << 23) | ((mant & 0x3ffu) << 13);
  }
  float f;
  memcpy(&f, &x, sizeof f);
  return f;
}

// The half helpers our generated sources define with PTX for the device (cuda_codegen.c,
// cuda_kernels.c) and leave to host compilations.
struct alignas(2) __half {
  unsigned short x;
};
static inline __half __float2half(const float f) {
  __half h;
  h.x = cudaemu_float_to_half_bits(f);
  return h;
}
static inline float __half2float(const __half h) { return cudaemu_half_bits_to_float(h.x); }
static inline float h2f(unsigned short h) { return cudaemu_half_bits_to_float(h); }
static inline unsigned short f2h(float f) { return cudaemu_float_to_half_bits(f); }

// --- the launcher (called by the emulated cuLaunchKernel through dlsym) ---

typedef void (*cudaemu_kernel)(void **params);

#ifdef CUDAEMU_CONCURRENT_BLOCKS
struct cudaemu_thread_arg {
  cudaemu_kernel kernel;
  void **params;
  cudaemu_dim3 thread;
};

static void *cudaemu_thread_main(void *p) {
  cudaemu_thread_arg *a = (cudaemu_thread_arg *)p;
  pthread_setspecific(cudaemu_thread_key, &a->thread);
  a->kernel(a->params);
  return nullptr;
}
#endif

// Runs the whole grid before returning (the emulated stream is synchronous).
extern "C" void cudaemu_launch(cudaemu_kernel kernel, void **params, unsigned gx, unsigned gy,
                              unsigned gz, unsigned bx, unsigned by, unsigned bz) {
  gridDim = {gx, gy, gz};
  blockDim = {bx, by, bz};
  unsigned threads = bx * by * bz;
#ifdef CUDAEMU_CONCURRENT_BLOCKS
  pthread_once(&cudaemu_key_once, cudaemu_make_key);
  pthread_t *ids = new pthread_t[threads];
  cudaemu_thread_arg *args = new cudaemu_thread_arg[threads];
  pthread_barrier_init(&cudaemu_block_barrier, nullptr, threads);
#endif
  for (unsigned z = 0; z < gz; z++)
    for (unsigned y = 0; y < gy; y++)
      for (unsigned x = 0; x < gx; x++) {
        blockIdx = {x, y, z};
#ifdef CUDAEMU_CONCURRENT_BLOCKS
        for (unsigned t = 0; t < threads; t++) {
          args[t] = {kernel, params, {t % bx, t / bx % by, t / (bx * by)}};
          // Threads already started would wait at the barrier for ever: fatal.
          if (pthread_create(&ids[t], nullptr, cudaemu_thread_main, &args[t]) != 0)
            abort();
        }
        for (unsigned t = 0; t < threads; t++)
          pthread_join(ids[t], nullptr);
#else
        for (unsigned t = 0; t < threads; t++) {
          threadIdx = {t % bx, t / bx % by, t / (bx * by)};
          kernel(params);
        }
#endif
      }
#ifdef CUDAEMU_CONCURRENT_BLOCKS
  pthread_barrier_destroy(&cudaemu_block_barrier);
  delete[] ids;
  delete[] args;
#endif
}
