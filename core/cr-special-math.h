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

/* The activations with parameters, as PyTorch 1.13's CPU kernels compute one
 * element (their scalar paths: the operations in the same order, in the
 * tensor's precision). */
#include <stdint.h>

#define CR_DEFINE_ACTIVATIONS(SUFFIX, T)                                        \
  /* hardtanh: std::min(std::max(v, lo), hi), as clamp (NaN stays) */           \
  CR_SPECIAL_MATH T                                                             \
  cr_math_hardtanh##SUFFIX (T v, T lo, T hi)                                    \
  {                                                                             \
    v = v < lo ? lo : v;                                                        \
    return hi < v ? hi : v;                                                     \
  }                                                                             \
  /* elu: (e^(v·input_scale) − 1)·(alpha·scale) for v ≤ 0, else v·scale */      \
  CR_SPECIAL_MATH T                                                             \
  cr_math_elu##SUFFIX (T v, T alpha, T scale, T input_scale)                    \
  {                                                                             \
    return v <= (T) 0 ? (exp##SUFFIX (v * input_scale) - (T) 1) * (alpha * scale) \
                      : v * scale;                                              \
  }                                                                             \
  /* softplus: v where v·beta > threshold, else log1p(e^(v·beta))/beta */       \
  CR_SPECIAL_MATH T                                                             \
  cr_math_softplus##SUFFIX (T v, T beta, T threshold)                           \
  {                                                                             \
    return v * beta > threshold ? v : log1p##SUFFIX (exp##SUFFIX (v * beta)) / beta; \
  }                                                                             \
  /* gelu, approximate='none': v·½·(1 + erf(v/√2)) */                           \
  CR_SPECIAL_MATH T                                                             \
  cr_math_gelu##SUFFIX (T v)                                                    \
  {                                                                             \
    return v * (T) 0.5 * ((T) 1 + erf##SUFFIX (v * (T) M_SQRT1_2));             \
  }                                                                             \
  /* gelu, approximate='tanh': ½·v·(1 + tanh(√(2/π)·(v + 0.044715·v³))) */      \
  CR_SPECIAL_MATH T                                                             \
  cr_math_gelu_tanh##SUFFIX (T v)                                               \
  {                                                                             \
    const T beta = (T) (M_SQRT2 * M_2_SQRTPI * 0.5), kappa = (T) 0.044715;      \
    T cube = v * v * v;                                                         \
    T inner = beta * (v + kappa * cube);                                        \
    return (T) 0.5 * v * ((T) 1 + tanh##SUFFIX (inner));                        \
  }

CR_DEFINE_ACTIVATIONS (f, float)
CR_DEFINE_ACTIVATIONS (, double)
#undef CR_DEFINE_ACTIVATIONS

CR_SPECIAL_MATH int64_t
cr_math_clamp_i64 (int64_t v, int64_t lo, int64_t hi)
{
  v = v < lo ? lo : v;
  return hi < v ? hi : v;
}
