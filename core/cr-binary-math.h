/* cr-binary-math.h — the scalar functions that the rows of cr-binary-ops.def
 * call, with PyTorch 1.13's CPU formulas. Plain C (and CUDA device code: gpu/
 * and the tests' mock include this too), so that every backend computes them
 * alike. */
#pragma once

#include <math.h>
#include <stdint.h>

#ifdef __CUDACC__
#define CR_BINARY_MATH static inline __host__ __device__
#else
#define CR_BINARY_MATH static inline
#endif

/* A product or sum rounded on its own: CUDA would otherwise contract a*b + c
 * into one FMA (one rounding), and a row would give other bits than the CPU's. */
#ifdef __CUDACC__
static __device__ __forceinline__ float cr_mul_rn (float a, float b) { return __fmul_rn (a, b); }
static __device__ __forceinline__ double cr_mul_rn (double a, double b) { return __dmul_rn (a, b); }
static __device__ __forceinline__ float cr_sub_rn (float a, float b) { return __fsub_rn (a, b); }
static __device__ __forceinline__ double cr_sub_rn (double a, double b) { return __dsub_rn (a, b); }
#else
#define cr_mul_rn(a, b) ((a) * (b))
#define cr_sub_rn(a, b) ((a) - (b))
#endif

/* int64 pow, wrapping as PyTorch's (unsigned arithmetic, no UB); a negative
 * exponent gives 1 for 1, ±1 for -1 and 0 otherwise. */
CR_BINARY_MATH int64_t
cr_ipow (int64_t base,
         int64_t exp)
{
  uint64_t result = 1, b = (uint64_t) base;

  if (exp < 0)
    {
      if (base == 1)
        return 1;
      if (base == -1)
        return (exp & 1) ? -1 : 1;
      return 0;
    }
  while (exp)
    {
      if (exp & 1)
        result *= b;
      exp >>= 1;
      b *= b;
    }
  return (int64_t) result;
}

/* int64 division rounding down, remainder with the divisor's sign, and the
 * truncated remainder (fmod). The CPU raises ZeroDivisionError before a zero
 * divisor gets here; a GPU writes 0 rather than fault. int64's minimum over
 * -1 wraps to itself and leaves 0, as NumPy gives (PyTorch 1.13 dies of
 * SIGFPE on x86). */
CR_BINARY_MATH int64_t
cr_floordiv_i (int64_t a,
               int64_t b)
{
  int64_t q;

  if (b == 0)
    return 0;
  if (b == -1)
    return (int64_t) (0 - (uint64_t) a);
  q = a / b;
  return ((a % b) != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

CR_BINARY_MATH int64_t
cr_remainder_i (int64_t a,
                int64_t b)
{
  int64_t r;

  if (b == 0 || b == -1)
    return 0;
  r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

CR_BINARY_MATH int64_t
cr_fmod_i (int64_t a,
           int64_t b)
{
  return b == 0 || b == -1 ? 0 : a % b;
}

/* << and >> as PyTorch's CPU kernels give them on x86: the shift count
 * taken modulo 64, a left shift done unsigned. */
CR_BINARY_MATH int64_t
cr_shift_left_i (int64_t a,
                 int64_t b)
{
  return (int64_t) ((uint64_t) a << (b & 63));
}

CR_BINARY_MATH int64_t
cr_shift_right_i (int64_t a,
                  int64_t b)
{
  return a >> (b & 63);
}

/* The same functions for float (SUFFIX f) and double. */
#define CR_DEFINE_BINARY_FLOAT_MATH(T, S)                                      \
  /* PyTorch's div_floor */                                                   \
  CR_BINARY_MATH T                                                            \
  cr_floordiv##S (T a, T b)                                                   \
  {                                                                           \
    T mod, div, floordiv;                                                     \
                                                                              \
    if (b == 0)                                                               \
      return a / b;                                                           \
    mod = fmod##S (a, b);                                                     \
    div = (a - mod) / b;                                                      \
    if (mod != 0 && (b < 0) != (mod < 0))                                     \
      div -= 1;                                                               \
    if (div != 0)                                                             \
      {                                                                       \
        floordiv = floor##S (div);                                            \
        if (div - floordiv > (T) 0.5)                                         \
          floordiv += 1;                                                      \
      }                                                                       \
    else                                                                      \
      floordiv = copysign##S ((T) 0, a / b);                                  \
    return floordiv;                                                          \
  }                                                                           \
                                                                              \
  /* Python's %: the result has b's sign */                                   \
  CR_BINARY_MATH T                                                            \
  cr_remainder##S (T a, T b)                                                  \
  {                                                                           \
    T mod = fmod##S (a, b);                                                   \
                                                                              \
    return (mod != 0 && (b < 0) != (mod < 0)) ? mod + b : mod;                \
  }                                                                           \
                                                                              \
  /* 0 where x is 0 (also for y 0 or inf), NaN where y is NaN */              \
  CR_BINARY_MATH T                                                            \
  cr_xlogy##S (T x, T y)                                                      \
  {                                                                           \
    if (y != y)                                                               \
      return y;                                                               \
    if (x == 0)                                                               \
      return 0;                                                               \
    return x * log##S (y);                                                    \
  }                                                                           \
                                                                              \
  /* log(eᵃ + eᵇ) = max + log1p(e^−|a−b|); equal infinities give themselves */ \
  CR_BINARY_MATH T                                                            \
  cr_logaddexp##S (T a, T b)                                                  \
  {                                                                           \
    T m = a < b ? b : a;                                                      \
                                                                              \
    if (isinf (a) && a == b)                                                  \
      return a;                                                               \
    return m + log1p##S (exp##S (-fabs##S (a - b)));                          \
  }                                                                           \
                                                                              \
  /* log₂(2ᵃ + 2ᵇ) = max + log1p(2^−|a−b|)/ln 2 */                           \
  CR_BINARY_MATH T                                                            \
  cr_logaddexp2##S (T a, T b)                                                 \
  {                                                                           \
    T m = a < b ? b : a;                                                      \
                                                                              \
    if (isinf (a) && a == b)                                                  \
      return a;                                                               \
    return m + log1p##S (exp2##S (-fabs##S (a - b))) * (T) 1.4426950408889634; \
  }                                                                           \
                                                                              \
  /* PyTorch's scalar maximum/minimum (NaN propagates, else std::max,        \
   * which keeps a on a tie: max(-0, 0) is -0) and fmax/fmin (NaN only       \
   * where both are; a tie keeps a) */                                        \
  CR_BINARY_MATH T                                                            \
  cr_max_nan##S (T a, T b)                                                    \
  {                                                                           \
    return a != a ? a : b != b ? b : a < b ? b : a;                           \
  }                                                                           \
                                                                              \
  CR_BINARY_MATH T                                                            \
  cr_min_nan##S (T a, T b)                                                    \
  {                                                                           \
    return a != a ? a : b != b ? b : b < a ? b : a;                           \
  }                                                                           \
                                                                              \
  CR_BINARY_MATH T                                                            \
  cr_fmax##S (T a, T b)                                                       \
  {                                                                           \
    return a >= b || b != b ? a : b;                                          \
  }                                                                           \
                                                                              \
  CR_BINARY_MATH T                                                            \
  cr_fmin##S (T a, T b)                                                       \
  {                                                                           \
    return a <= b || b != b ? a : b;                                          \
  }

CR_DEFINE_BINARY_FLOAT_MATH (float, f)
CR_DEFINE_BINARY_FLOAT_MATH (double, )
#undef CR_DEFINE_BINARY_FLOAT_MATH
