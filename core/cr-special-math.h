/* cr-special-math.h — scalar functions that libm lacks, for the rows of
 * cr-unary-ops.def. Plain C (and CUDA device code: gpu/ and the tests' mock
 * include this too), so that every backend computes them alike. */
#pragma once

#include <math.h>

#ifdef __CUDACC__
#define CR_SPECIAL_MATH static inline __host__ __device__
#else
#define CR_SPECIAL_MATH static inline
#endif

/* erf⁻¹ as PyTorch 1.13's calc_erfinv: a rational first guess (G. Pavlis'
 * erfinv, central range |y| ≤ 0.7 and the tails) and two Newton steps, in the
 * argument's own precision. NaN outside [-1, 1], ±inf at ±1. */
#define CR_DEFINE_ERFINV(name, T, SUFFIX)                                       \
  CR_SPECIAL_MATH T                                                             \
  name (T y)                                                                    \
  {                                                                             \
    const T two_over_sqrt_pi = (T) 2 / (T) 1.77245385090551602730;              \
    T y_abs = fabs##SUFFIX (y), x, z, num, dem;                                 \
                                                                                \
    if (!(y_abs <= (T) 1))                                                      \
      return (T) NAN;                                                           \
    if (y_abs == (T) 1)                                                         \
      return copysign##SUFFIX ((T) INFINITY, y);                                \
    if (y_abs <= (T) 0.7)                                                       \
      {                                                                         \
        z = y * y;                                                              \
        num = ((((T) -0.140543331 * z + (T) 0.914624893) * z + (T) -1.645349621) \
               * z + (T) 0.886226899);                                          \
        dem = (((((T) 0.012229801 * z + (T) -0.329097515) * z + (T) 1.442710462) \
                * z + (T) -2.118377725) * z + (T) 1);                           \
        x = y * num / dem;                                                      \
      }                                                                         \
    else                                                                        \
      {                                                                         \
        z = sqrt##SUFFIX (-log##SUFFIX (((T) 1 - y_abs) / (T) 2));              \
        num = (((T) 1.641345311 * z + (T) 3.429567803) * z + (T) -1.624906493)  \
              * z + (T) -1.970840454;                                           \
        dem = ((T) 1.637067800 * z + (T) 3.543889200) * z + (T) 1;              \
        x = copysign##SUFFIX (num, y) / dem;                                    \
      }                                                                         \
    x = x - (erf##SUFFIX (x) - y) / (two_over_sqrt_pi * exp##SUFFIX (-x * x));  \
    x = x - (erf##SUFFIX (x) - y) / (two_over_sqrt_pi * exp##SUFFIX (-x * x));  \
    return x;                                                                   \
  }

CR_DEFINE_ERFINV (cr_erfinvf, float, f)
CR_DEFINE_ERFINV (cr_erfinv, double, )
#undef CR_DEFINE_ERFINV
