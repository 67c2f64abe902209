/* rt_tensor_randn: deterministic Normal(0, 1) samples.
 *
 * Generator (fixed, so numbers are reproducible across versions and machines):
 * - state: xoshiro256** (Blackman & Vigna), its four words seeded by four successive outputs
 *   of splitmix64 started at `seed`;
 * - uniforms: u = ((next() >> 11) + 1) * 2^-53, in (0, 1] so log(u) is finite;
 * - normals: Box-Muller on consecutive uniform pairs (u1, u2): r = sqrt(-2 ln u1),
 *   z0 = r cos(2 pi u2), z1 = r sin(2 pi u2); z0 then z1 fill the tensor in row-major order
 *   (an odd count drops the last z1). Values are computed in double, then converted. */
#include "tensor/tensor.h"

#include <math.h>

typedef struct {
  uint64_t s[4];
} Xoshiro;

static uint64_t splitmix64(uint64_t *x) {
  uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));
  z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
  return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k) {
  return (x << k) | (x >> (64 - k));
}

static uint64_t xoshiro_next(Xoshiro *g) {
  uint64_t *s = g->s;
  uint64_t result = rotl(s[1] * 5, 7) * 9;
  uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return result;
}

static double uniform_open0(Xoshiro *g) {
  return (double)((xoshiro_next(g) >> 11) + 1) * 0x1.0p-53;
}

RtTensor *rt_tensor_randn(IrDtype dtype, int ndim, const int64_t *sizes, guint64 seed) {
  RtTensor *t = rt_tensor_new(dtype, ndim, sizes);
  Xoshiro g;
  uint64_t sm = seed;
  for (int i = 0; i < 4; i++)
    g.s[i] = splitmix64(&sm);
  int64_t n = rt_tensor_numel(t);
  char *p = rt_tensor_data(t);
  int64_t es = (int64_t)rt_dtype_size(dtype);
  for (int64_t i = 0; i < n; i += 2) {
    double u1 = uniform_open0(&g), u2 = uniform_open0(&g);
    double r = sqrt(-2.0 * log(u1));
    double a = 2.0 * G_PI * u2;
    rt_store_element(p + i * es, dtype, r * cos(a));
    if (i + 1 < n)
      rt_store_element(p + (i + 1) * es, dtype, r * sin(a));
  }
  return t;
}
