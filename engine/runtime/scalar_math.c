/* digamma and digammaf for the eager kernels and the fused evaluator, compiled from the one
 * definition that generated CUDA pastes too (scalar_math_source.h). */
#include "runtime/scalar_math.h"

#include <math.h>

#include "runtime/scalar_math_source.h"

JITSCOPE_SCALAR_MATH()
