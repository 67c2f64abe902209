/* IEEE 754 binary16 <-> binary64/binary32 conversions, bit-exact.
 * double -> half rounds once, to nearest even, straight from the double's bits (going through
 * float would round twice). float -> half widens to double first, which is exact. */
#include "tensor/tensor.h"

#include <string.h>

uint16_t rt_double_to_half(double x) {
  uint64_t bits;
  memcpy(&bits, &x, sizeof bits);
  uint16_t sign = (uint16_t)((bits >> 48) & 0x8000u);
  int exp = (int)((bits >> 52) & 0x7ff);
  uint64_t mant = bits & ((UINT64_C(1) << 52) - 1);
  if (exp == 0x7ff)
    return mant != 0 ? (uint16_t)(sign | 0x7e00u) : (uint16_t)(sign | 0x7c00u);
  if (exp == 0)
    return sign; /* double zero or subnormal (< 2^-1022): far below half's smallest subnormal */
  int e = exp - 1023;
  if (e > 15)
    return (uint16_t)(sign | 0x7c00u);
  if (e >= -14) {
    /* Normal half: keep 10 of the 52 mantissa bits. A carry out of the mantissa correctly
     * bumps the exponent (and turns 65520 and above into infinity). */
    uint64_t m = mant >> 42;
    uint64_t rem = mant & ((UINT64_C(1) << 42) - 1);
    uint64_t halfway = UINT64_C(1) << 41;
    if (rem > halfway || (rem == halfway && (m & 1)))
      m++;
    return (uint16_t)(sign | (((uint64_t)(e + 15) << 10) + m));
  }
  /* Subnormal half: units of 2^-24. value = full * 2^(e-52), so units = full >> (28 - e). */
  uint64_t full = mant | (UINT64_C(1) << 52);
  int shift = 28 - e; /* >= 43 */
  if (shift >= 54)
    return sign; /* below 2^-25 (half the smallest subnormal) or exactly it: ties to even 0 */
  uint64_t m = full >> shift;
  uint64_t rem = full & ((UINT64_C(1) << shift) - 1);
  uint64_t halfway = UINT64_C(1) << (shift - 1);
  if (rem > halfway || (rem == halfway && (m & 1)))
    m++;
  return (uint16_t)(sign | m); /* m == 0x400 encodes the smallest normal, as it should */
}

uint16_t rt_float_to_half(float x) {
  return rt_double_to_half((double)x);
}

float rt_half_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1f;
  uint32_t mant = h & 0x3ffu;
  uint32_t bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (mant << 13);
  } else if (mant == 0) {
    bits = sign;
  } else {
    /* Subnormal half: normalize. value = mant * 2^-24. */
    int e = -14;
    while ((mant & 0x400u) == 0) {
      mant <<= 1;
      e--;
    }
    mant &= 0x3ffu;
    bits = sign | ((uint32_t)(e + 127) << 23) | (mant << 13);
  }
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}
