/* digamma as PyTorch 1.13's calc_digamma (aten/src/ATen/native/Math.h): ±inf at ±0, NaN at
 * negative integers, reflection for negative x, recurrence up to x >= 10 and the asymptotic
 * series there. */
#include "runtime/scalar_math.h"

#include <math.h>

static const double PSI_10 = 2.25175258906672110764;

double digamma(double x) {
  if (x == 0)
    return copysign(INFINITY, -x);
  if (x < 0) {
    if (x == trunc(x))
      return NAN;
    double q;
    double r = modf(x, &q);
    return digamma(1 - x) - M_PI / tan(M_PI * r);
  }
  double result = 0;
  while (x < 10) {
    result -= 1 / x;
    x += 1;
  }
  if (x == 10)
    return result + PSI_10;
  static const double A[] = {
      8.33333333333333333333E-2,  -2.10927960927960927961E-2, 7.57575757575757575758E-3,
      -4.16666666666666666667E-3, 3.96825396825396825397E-3,  -8.33333333333333333333E-3,
      8.33333333333333333333E-2,
  };
  double y = 0;
  if (x < 1.0e17) {
    double z = 1.0 / (x * x);
    double p = 0;
    for (int i = 0; i < 7; i++)
      p = p * z + A[i];
    y = z * p;
  }
  return result + log(x) - (0.5 / x) - y;
}

/* PyTorch's float version computes in float with the same constants (the reflection term in
 * double). */
float digammaf(float x) {
  if (x == 0)
    return copysignf(INFINITY, -x);
  if (x < 0) {
    if (x == truncf(x))
      return NAN;
    double q;
    double r = modf(x, &q); /* PyTorch takes pi / tan(pi r) in double */
    return digammaf(1 - x) - (float)(M_PI / tan(M_PI * r));
  }
  float result = 0;
  while (x < 10) {
    result -= 1 / x;
    x += 1;
  }
  if (x == 10)
    return result + (float)PSI_10;
  static const float A[] = {
      8.33333333333333333333E-2f,  -2.10927960927960927961E-2f, 7.57575757575757575758E-3f,
      -4.16666666666666666667E-3f, 3.96825396825396825397E-3f,  -8.33333333333333333333E-3f,
      8.33333333333333333333E-2f,
  };
  float y = 0;
  if (x < 1.0e17f) {
    float z = 1 / (x * x);
    float p = 0;
    for (int i = 0; i < 7; i++)
      p = p * z + A[i];
    y = z * p;
  }
  return result + logf(x) - (0.5f / x) - y;
}
