/* PyTorch 1.13's CPU random generator and its CPU distributions, number for number: what
 * torch.manual_seed(N) followed by torch.rand / randn / bernoulli_ / dropout gives.
 *
 * Contracts:
 * - RtGenerator is PyTorch's CPUGeneratorImpl: an mt19937 engine seeded with the seed's low
 *   32 bits, random() = the engine's next 32-bit word, random64() = two words, the first
 *   one high; plus the cached second normal of normal_distribution<double> (reset by a seed).
 * - The fill functions write every element of a contiguous tensor in row-major order:
 *   uniform: float32 from random()'s low 24 bits * 2^-24, float64 from random64()'s low 53
 *   bits * 2^-53, then x * (to - from) + from in the dtype;
 *   normal: 16 or more elements: all uniforms first, then Box-Muller over blocks of 16
 *   (u1 = 1 - d[j], u2 = d[j + 8]) with the last block redone over the last 16 elements
 *   when the count is not a multiple of 16 (normal_fill); fewer: normal_distribution<double>
 *   per element (two 53-bit uniforms, r = sqrt(-2 log(1 - u2)), cos for this element and
 *   the sin cached for the next);
 *   bernoulli: per element a 53-bit uniform (a 24-bit one when p comes from a float32
 *   tensor) compared u < p, stored as 1 or 0 in any dtype.
 *   Only float32 and float64 are filled by uniform and normal.
 * - rt_generator_default is the process's generator (PyTorch's default CPU generator): ops
 *   draw from it in execution order; callers hold rt_generator_lock around a draw and
 *   rt_generator_manual_seed seeds it before a run. */
#ifndef JITSCOPE_TENSOR_RNG_H
#define JITSCOPE_TENSOR_RNG_H

#include "tensor/tensor.h"

#define RT_MT19937_N 624

typedef struct {
  guint32 state[RT_MT19937_N];
  int next;
  bool have_normal; /* normal_distribution<double>'s cached sample */
  double next_normal;
} RtGenerator;

void rt_generator_seed(RtGenerator *g, guint64 seed);
guint32 rt_generator_random(RtGenerator *g);
guint64 rt_generator_random64(RtGenerator *g);

/* t: contiguous float32 or float64. */
void rt_generator_uniform(RtGenerator *g, RtTensor *t, double from, double to);
void rt_generator_normal(RtGenerator *g, RtTensor *t, double mean, double std);
/* t: contiguous, any dtype. p: a contiguous tensor of t's shape (NULL: the number p_value);
 * a float32 p draws 24-bit uniforms, any other dtype 53-bit ones. */
void rt_generator_bernoulli(RtGenerator *g, RtTensor *t, double p_value, const RtTensor *p);

/* The process's generator, locked for one op's draws. */
RtGenerator *rt_generator_lock(void);
void rt_generator_unlock(RtGenerator *g);
void rt_generator_manual_seed(guint64 seed);
/* A copy of the process's generator, and setting it back (re-running what a run drew). */
void rt_generator_get(RtGenerator *out);
void rt_generator_set(const RtGenerator *state);

#endif
