/* PyTorch 1.13's CPU generator and distributions; contracts in rng.h.
 *
 * Written from PyTorch's documented algorithms (CPUGeneratorImpl, at::mt19937,
 * DistributionsHelper.h, TransformationHelper.h, cpu/DistributionTemplates.h), not copied:
 * - mt19937 is Matsumoto and Nishimura's generator with the standard constants
 *   (std::mt19937 gives the same words);
 * - normal_fill's blocks of 16: float64 with libm's log, sqrt, cos, sin (normal_fill_16);
 *   float32 as normal_fill_16_AVX2, the path of x86-64 CPUs with AVX2 (Debian's build
 *   dispatches to it), whose log and sincos are avx_mathfun.h's Cephes polynomials: they are
 *   evaluated here lane by lane with the same float operations in the same order. */
#include "tensor/rng.h"

#include <float.h>
#include <math.h>
#include <string.h>

#define MT_M 397
#define MT_MATRIX_A 0x9908b0dfu
#define MT_UPPER 0x80000000u
#define MT_LOWER 0x7fffffffu

void rt_generator_seed(RtGenerator *g, guint64 seed) {
  g->state[0] = (guint32)(seed & 0xffffffffu);
  for (int j = 1; j < RT_MT19937_N; j++)
    g->state[j] = 1812433253u * (g->state[j - 1] ^ (g->state[j - 1] >> 30)) + (guint32)j;
  g->next = RT_MT19937_N;
  g->have_normal = false;
  g->next_normal = 0;
}

static void twist(RtGenerator *g) {
  guint32 *s = g->state;
  for (int i = 0; i < RT_MT19937_N; i++) {
    guint32 y = (s[i] & MT_UPPER) | (s[(i + 1) % RT_MT19937_N] & MT_LOWER);
    s[i] = s[(i + MT_M) % RT_MT19937_N] ^ (y >> 1) ^ ((y & 1u) ? MT_MATRIX_A : 0u);
  }
  g->next = 0;
}

guint32 rt_generator_random(RtGenerator *g) {
  if (g->next >= RT_MT19937_N)
    twist(g);
  guint32 y = g->state[g->next++];
  y ^= y >> 11;
  y ^= (y << 7) & 0x9d2c5680u;
  y ^= (y << 15) & 0xefc60000u;
  y ^= y >> 18;
  return y;
}

guint64 rt_generator_random64(RtGenerator *g) {
  guint64 hi = rt_generator_random(g);
  guint64 lo = rt_generator_random(g);
  return (hi << 32) | lo;
}

/* uniform_real_distribution<float> / <double> over [0, 1). */
static float uniform01_float(RtGenerator *g) {
  return (float)(rt_generator_random(g) & ((1u << 24) - 1)) * 0x1.0p-24f;
}

static double uniform01_double(RtGenerator *g) {
  return (double)(rt_generator_random64(g) & ((G_GUINT64_CONSTANT(1) << 53) - 1)) * 0x1.0p-53;
}

void rt_generator_uniform(RtGenerator *g, RtTensor *t, double from, double to) {
  int64_t n = rt_tensor_numel(t);
  if (t->dtype == IR_DTYPE_FLOAT32) {
    float *d = rt_tensor_data(t), f = (float)from, span = (float)to - f;
    for (int64_t i = 0; i < n; i++)
      d[i] = uniform01_float(g) * span + f;
  } else {
    g_return_if_fail(t->dtype == IR_DTYPE_FLOAT64);
    double *d = rt_tensor_data(t), span = to - from;
    for (int64_t i = 0; i < n; i++)
      d[i] = uniform01_double(g) * span + from;
  }
}

/* normal_distribution<double>: one sample, the pair's second one cached. */
static double normal_double(RtGenerator *g, double mean, double std) {
  if (g->have_normal) {
    g->have_normal = false;
    return g->next_normal * std + mean;
  }
  double u1 = uniform01_double(g);
  double u2 = uniform01_double(g);
  double r = sqrt(-2.0 * log(1.0 - u2));
  double theta = 2.0 * G_PI * u1;
  g->have_normal = true;
  g->next_normal = r * sin(theta);
  return r * cos(theta) * std + mean;
}

/* avx_mathfun.h's log256_ps (Cephes' logf), one lane: float operations in its order, each
 * multiply that feeds an add or subtract fused into one fma, as GCC compiled the intrinsics
 * with -mfma for Debian's build; where two products meet in one add, the fused one is the
 * one PyTorch's numbers show (checked on 64000 normals). The same holds for cephes_sincosf. */
static float cephes_logf(float x) {
  if (!(x > 0))
    return NAN;
  if (x < FLT_MIN)
    x = FLT_MIN;
  guint32 bits;
  memcpy(&bits, &x, sizeof bits);
  int exponent = (int)(bits >> 23) - 0x7f;
  bits = (bits & ~0x7f800000u) | 0x3f000000u; /* the mantissa as a number in [0.5, 1) */
  memcpy(&x, &bits, sizeof bits);
  float e = (float)exponent + 1.0f;
  bool low = x < 0.707106781186547524f;
  float tmp = low ? x : 0.0f;
  x = x - 1.0f;
  e = e - (low ? 1.0f : 0.0f);
  x = x + tmp;
  float z = x * x;
  static const float p[] = {7.0376836292E-2f,  -1.1514610310E-1f, 1.1676998740E-1f,
                            -1.2420140846E-1f, 1.4249322787E-1f,  -1.6668057665E-1f,
                            2.0000714765E-1f,  -2.4999993993E-1f, 3.3333331174E-1f};
  float y = p[0];
  for (int i = 1; i < 9; i++)
    y = fmaf(y, x, p[i]);
  y = y * x;
  y = fmaf(y, z, e * -2.12194440e-4f);
  y = fmaf(-z, 0.5f, y);
  x = x + y;
  return fmaf(e, 0.693359375f, x);
}

/* avx_mathfun.h's sincos256_ps (Cephes' sinf / cosf), one lane. */
static void cephes_sincosf(float x, float *s, float *c) {
  guint32 sign_sin = signbit(x) ? 0x80000000u : 0;
  x = fabsf(x);
  guint32 j = (guint32)(gint32)(x * 1.27323954473516f);
  j = (j + 1) & ~1u;
  float y = (float)(gint32)j;
  sign_sin ^= (j & 4u) << 29;
  bool sine_poly = (j & 2u) == 0;
  x = fmaf(y, -0.78515625f, x);
  x = fmaf(y, -2.4187564849853515625e-4f, x);
  x = fmaf(y, -3.77489497744594108e-8f, x);
  guint32 sign_cos = (~(j - 2) & 4u) << 29;
  float z = x * x;
  float yc = 2.443315711809948E-005f;
  yc = fmaf(yc, z, -1.388731625493765E-003f);
  yc = fmaf(yc, z, 4.166664568298827E-002f);
  yc = yc * z;
  yc = fmaf(yc, z, -(z * 0.5f));
  yc = yc + 1.0f;
  float ys = -1.9515295891E-4f;
  ys = fmaf(ys, z, 8.3321608736E-3f);
  ys = fmaf(ys, z, -1.6666654611E-1f);
  ys = ys * z;
  ys = fmaf(ys, x, x);
  /* The lanes' selection adds a zero to the chosen polynomial, as the vector code does. */
  float sin_part = sine_poly ? 0.0f + ys : yc + 0.0f;
  float cos_part = sine_poly ? yc + 0.0f : 0.0f + ys;
  guint32 bits;
  memcpy(&bits, &sin_part, sizeof bits);
  bits ^= sign_sin;
  memcpy(s, &bits, sizeof bits);
  memcpy(&bits, &cos_part, sizeof bits);
  bits ^= sign_cos;
  memcpy(c, &bits, sizeof bits);
}

/* normal_fill_16_AVX2, what PyTorch 1.13 runs for float32 on x86-64 CPUs with AVX2. */
static void normal_block_float(float *d, float mean, float std) {
  const float two_pi = (float)(2.0 * G_PI);
  for (int j = 0; j < 8; j++) {
    float u1 = 1.0f - d[j], u2 = d[j + 8];
    float radius = sqrtf(-2.0f * cephes_logf(u1));
    float sine, cosine;
    cephes_sincosf(two_pi * u2, &sine, &cosine);
    d[j] = fmaf(radius * cosine, std, mean);
    d[j + 8] = fmaf(radius * sine, std, mean);
  }
}

static void normal_block_double(double *d, double mean, double std) {
  for (int j = 0; j < 8; j++) {
    double u1 = 1 - d[j], u2 = d[j + 8];
    double radius = sqrt(-2 * log(u1));
    double theta = 2.0 * G_PI * u2;
    d[j] = radius * cos(theta) * std + mean;
    d[j + 8] = radius * sin(theta) * std + mean;
  }
}

static void normal_fill(RtGenerator *g, RtTensor *t, double mean, double std) {
  int64_t n = rt_tensor_numel(t);
  bool f32 = t->dtype == IR_DTYPE_FLOAT32;
  size_t es = f32 ? sizeof(float) : sizeof(double);
  char *base = rt_tensor_data(t);
  rt_generator_uniform(g, t, 0, 1);
  for (int64_t i = 0; i + 16 <= n; i += 16) {
    if (f32)
      normal_block_float((float *)base + i, (float)mean, (float)std);
    else
      normal_block_double((double *)base + i, mean, std);
  }
  if (n % 16 != 0) {
    char *last = base + (size_t)(n - 16) * es;
    if (f32) {
      for (int j = 0; j < 16; j++)
        ((float *)last)[j] = uniform01_float(g);
      normal_block_float((float *)last, (float)mean, (float)std);
    } else {
      for (int j = 0; j < 16; j++)
        ((double *)last)[j] = uniform01_double(g);
      normal_block_double((double *)last, mean, std);
    }
  }
}

void rt_generator_normal(RtGenerator *g, RtTensor *t, double mean, double std) {
  g_return_if_fail(t->dtype == IR_DTYPE_FLOAT32 || t->dtype == IR_DTYPE_FLOAT64);
  int64_t n = rt_tensor_numel(t);
  if (n >= 16) {
    normal_fill(g, t, mean, std);
    return;
  }
  char *d = rt_tensor_data(t);
  for (int64_t i = 0; i < n; i++) {
    double v = normal_double(g, mean, std);
    if (t->dtype == IR_DTYPE_FLOAT32)
      ((float *)d)[i] = (float)v;
    else
      ((double *)d)[i] = v;
  }
}

void rt_generator_bernoulli(RtGenerator *g, RtTensor *t, double p_value, const RtTensor *p) {
  int64_t n = rt_tensor_numel(t);
  char *d = rt_tensor_data(t);
  size_t es = rt_dtype_size(t->dtype);
  const char *pd = p ? rt_tensor_data((RtTensor *)p) : NULL;
  for (int64_t i = 0; i < n; i++) {
    bool one;
    if (p && p->dtype == IR_DTYPE_FLOAT32)
      one = uniform01_float(g) < ((const float *)pd)[i];
    else
      one = uniform01_double(g) <
            (p ? rt_load_element(pd + i * rt_dtype_size(p->dtype), p->dtype) : p_value);
    rt_store_element(d + (size_t)i * es, t->dtype, one ? 1 : 0);
  }
}

static GMutex default_lock;
static RtGenerator default_generator;
static bool default_seeded;

RtGenerator *rt_generator_lock(void) {
  g_mutex_lock(&default_lock);
  if (!default_seeded) {
    rt_generator_seed(&default_generator,
                      G_GUINT64_CONSTANT(67280421310721)); /* PyTorch's default seed */
    default_seeded = true;
  }
  return &default_generator;
}

void rt_generator_unlock(RtGenerator *g) {
  g_return_if_fail(g == &default_generator);
  g_mutex_unlock(&default_lock);
}

void rt_generator_manual_seed(guint64 seed) {
  RtGenerator *g = rt_generator_lock();
  rt_generator_seed(g, seed);
  rt_generator_unlock(g);
}

void rt_generator_get(RtGenerator *out) {
  RtGenerator *g = rt_generator_lock();
  *out = *g;
  rt_generator_unlock(g);
}

void rt_generator_set(const RtGenerator *state) {
  RtGenerator *g = rt_generator_lock();
  *g = *state;
  rt_generator_unlock(g);
}
