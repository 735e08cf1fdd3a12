/* cr-cpu-cascade-sum.c — float sums added in PyTorch 1.13's order, so that
 * x.sum(), x.mean() and a loss print the last digits PyTorch prints.
 *
 * PyTorch's CPU sum (aten/src/ATen/native/cpu/SumKernel.cpp, cascade_sum)
 * accumulates in the tensor's own float type, in AVX2 vectors (8 floats, 4
 * doubles), four vectors side by side, each of them a "cascade": sums of
 * 16 or more items are added into a second level, those into a third ...,
 * so that only numbers of a like size meet. The lanes here are plain arrays
 * that the compiler vectorises; each lane sees the additions of PyTorch's
 * lane in the same order, which is all that fixes the bits.
 *
 * Two layouts, as PyTorch's reduction loop sees them:
 *  inner: the reduced elements are contiguous (x.sum(), x.sum(-1));
 *  outer: rows of `inner` kept elements, summed over `reduce` rows (x.sum(0)).
 * Large sums that PyTorch splits among threads (32768 elements or more with
 * more than one thread) are added here as with one thread. */
#include "cr-cpu-private.h"

#define LEVELS 4       /* cascade levels */
#define GROUPS 4       /* vectors side by side (PyTorch's nrows/ilp_factor) */
#define MAX_W  8       /* lanes of the widest vector (AVX2 float) */

static gint64
ceil_log2 (gint64 x)
{
  if (x <= 2)
    return 1;
  return 64 - __builtin_clzll ((guint64) x - 1);
}

/* multi_row_sum: GROUPS groups of W lanes, group g at in + g * gap; item i
 * of every lane at + i * row_stride. out gets GROUPS * W sums. */
#define DEFINE_MULTI_ROW_SUM(name, T)                                          \
  static void                                                                  \
  name (const T *in,                                                           \
        gint64   row_stride,                                                   \
        gint64   gap,                                                          \
        int      W,                                                            \
        gint64   size,                                                         \
        T        out[GROUPS][MAX_W])                                           \
  {                                                                            \
    const gint64 level_power = MAX (4, ceil_log2 (size) / LEVELS);             \
    const gint64 level_step = (gint64) 1 << level_power;                       \
    const gint64 level_mask = level_step - 1;                                  \
    T acc[LEVELS][GROUPS][MAX_W] = { { { 0 } } };                              \
    gint64 i = 0;                                                              \
                                                                               \
    while (i + level_step <= size)                                             \
      {                                                                        \
        for (gint64 j = 0; j < level_step; j++, i++)                           \
          for (int g = 0; g < GROUPS; g++)                                     \
            {                                                                  \
              const T *item = in + i * row_stride + g * gap;                   \
              for (int l = 0; l < W; l++)                                      \
                acc[0][g][l] += item[l];                                       \
            }                                                                  \
        for (int j = 1; j < LEVELS; j++)                                       \
          {                                                                    \
            for (int g = 0; g < GROUPS; g++)                                   \
              for (int l = 0; l < W; l++)                                      \
                {                                                              \
                  acc[j][g][l] += acc[j - 1][g][l];                            \
                  acc[j - 1][g][l] = 0;                                        \
                }                                                              \
            if ((i & (level_mask << (j * level_power))) != 0)                  \
              break;                                                           \
          }                                                                    \
      }                                                                        \
    for (; i < size; i++)                                                      \
      for (int g = 0; g < GROUPS; g++)                                         \
        {                                                                      \
          const T *item = in + i * row_stride + g * gap;                       \
          for (int l = 0; l < W; l++)                                          \
            acc[0][g][l] += item[l];                                           \
        }                                                                      \
    for (int j = 1; j < LEVELS; j++)                                           \
      for (int g = 0; g < GROUPS; g++)                                         \
        for (int l = 0; l < W; l++)                                            \
          acc[0][g][l] += acc[j][g][l];                                        \
    for (int g = 0; g < GROUPS; g++)                                           \
      for (int l = 0; l < W; l++)                                              \
        out[g][l] = acc[0][g][l];                                              \
  }

DEFINE_MULTI_ROW_SUM (multi_row_sum_f, float)
DEFINE_MULTI_ROW_SUM (multi_row_sum_d, double)

/* row_sum: `size` items of W lanes, item i at in + i * stride, taken four
 * at a time (item i into group i % 4), the rest into group 0, then the
 * groups added in order. out gets W sums. */
#define DEFINE_ROW_SUM(name, T, MULTI)                                         \
  static void                                                                  \
  name (const T *in,                                                           \
        gint64   stride,                                                       \
        int      W,                                                            \
        gint64   size,                                                         \
        T       *out)                                                          \
  {                                                                            \
    T partial[GROUPS][MAX_W];                                                  \
    gint64 size_ilp = size / GROUPS;                                           \
                                                                               \
    MULTI (in, stride * GROUPS, stride, W, size_ilp, partial);                 \
    for (gint64 i = size_ilp * GROUPS; i < size; i++)                          \
      for (int l = 0; l < W; l++)                                              \
        partial[0][l] += in[i * stride + l];                                   \
    for (int g = 1; g < GROUPS; g++)                                           \
      for (int l = 0; l < W; l++)                                              \
        partial[0][l] += partial[g][l];                                        \
    for (int l = 0; l < W; l++)                                                \
      out[l] = partial[0][l];                                                  \
  }

DEFINE_ROW_SUM (row_sum_f, float, multi_row_sum_f)
DEFINE_ROW_SUM (row_sum_d, double, multi_row_sum_d)

/* vectorized_inner_sum / scalar_inner_sum of one row of n elements. */
#define DEFINE_INNER(name, T, W, ROW_SUM)                                      \
  T                                                                            \
  name (const T *x,                                                            \
        gint64   n)                                                            \
  {                                                                            \
    T lanes[MAX_W];                                                            \
    T total = 0;                                                               \
    gint64 n_vec;                                                              \
                                                                               \
    if (n < W)                                                                 \
      {                                                                        \
        ROW_SUM (x, 1, 1, n, lanes);                                           \
        return (T) 0 + lanes[0];                                               \
      }                                                                        \
    n_vec = n / W;                                                             \
    ROW_SUM (x, W, W, n_vec, lanes);                                           \
    for (gint64 k = n_vec * W; k < n; k++)                                     \
      total += x[k];                                                           \
    for (int l = 0; l < W; l++)                                                \
      total += lanes[l];                                                       \
    return (T) 0 + total;   /* PyTorch adds into a zeroed output: no -0 */     \
  }

DEFINE_INNER (cr_cpu_cascade_sum_f, float, 8, row_sum_f)
DEFINE_INNER (cr_cpu_cascade_sum_d, double, 4, row_sum_d)

/* vectorized_outer_sum / scalar_outer_sum: out[c] = sum over r of
 * x[r * inner + c]. */
#define DEFINE_OUTER(name, T, W, MULTI, ROW_SUM)                               \
  void                                                                         \
  name (const T *x,                                                            \
        gint64   reduce,                                                       \
        gint64   inner,                                                        \
        T       *out)                                                          \
  {                                                                            \
    T sums[GROUPS][MAX_W];                                                     \
    gint64 j = 0;                                                              \
                                                                               \
    if (inner >= W)                                                            \
      {                                                                        \
        for (; j + GROUPS * W <= inner; j += GROUPS * W)                       \
          {                                                                    \
            MULTI (x + j, inner, W, W, reduce, sums);                          \
            for (int g = 0; g < GROUPS; g++)                                   \
              for (int l = 0; l < W; l++)                                      \
                out[j + g * W + l] = (T) 0 + sums[g][l];                       \
          }                                                                    \
        for (; j + W <= inner; j += W)                                         \
          {                                                                    \
            ROW_SUM (x + j, inner, W, reduce, out + j);                        \
            for (int l = 0; l < W; l++)                                        \
              out[j + l] = (T) 0 + out[j + l];                                 \
          }                                                                    \
      }                                                                        \
    else                                                                       \
      for (; j + GROUPS <= inner; j += GROUPS)                                 \
        {                                                                      \
          MULTI (x + j, inner, 1, 1, reduce, sums);                            \
          for (int g = 0; g < GROUPS; g++)                                     \
            out[j + g] = (T) 0 + sums[g][0];                                   \
        }                                                                      \
    for (; j < inner; j++)                                                     \
      {                                                                        \
        ROW_SUM (x + j, inner, 1, reduce, out + j);                            \
        out[j] = (T) 0 + out[j];                                               \
      }                                                                        \
  }

DEFINE_OUTER (cr_cpu_cascade_sum_cols_f, float, 8, multi_row_sum_f, row_sum_f)
DEFINE_OUTER (cr_cpu_cascade_sum_cols_d, double, 4, multi_row_sum_d, row_sum_d)

/* x.sum() of a non-contiguous x as PyTorch's TensorIterator walks it: the
 * dims sorted by stride (the smallest innermost; equal strides, the smaller
 * size first), merged where one runs on into the next, then each innermost
 * run summed (the vectorised cascade when it is contiguous, else the scalar
 * four-way row sum) and the runs added one after another into the zeroed
 * output. Returns FALSE (nothing done) for an expanded x (a stride of 0),
 * whose order PyTorch leaves to its dims. */
#define DEFINE_STRIDED(name, T, INNER, ROW_SUM)                                \
  gboolean                                                                     \
  name (const T       *x,                                                      \
        const gint64  *shape,                                                  \
        const gint64  *strides,                                                \
        int            ndim,                                                   \
        T             *out)                                                    \
  {                                                                            \
    gint64 size[CR_MAX_DIMS], stride[CR_MAX_DIMS], at[CR_MAX_DIMS] = { 0 };    \
    int n = 0, m = 0;                                                          \
    T total = 0;                                                               \
                                                                               \
    for (int d = 0; d < ndim; d++)                                             \
      {                                                                        \
        int i;                                                                 \
                                                                               \
        if (shape[d] == 1)                                                     \
          continue;                                                            \
        if (strides[d] <= 0)                                                   \
          return FALSE;                                                        \
        for (i = n; i > 0 && (stride[i - 1] > strides[d]                       \
                              || (stride[i - 1] == strides[d]                  \
                                  && size[i - 1] > shape[d])); i--)            \
          {                                                                    \
            size[i] = size[i - 1];                                             \
            stride[i] = stride[i - 1];                                         \
          }                                                                    \
        size[i] = shape[d];                                                    \
        stride[i] = strides[d];                                                \
        n++;                                                                   \
      }                                                                        \
    for (int i = 0; i < n; i++)                                                \
      if (m > 0 && stride[i] == size[m - 1] * stride[m - 1])                   \
        size[m - 1] *= size[i];                                                \
      else                                                                     \
        {                                                                      \
          size[m] = size[i];                                                   \
          stride[m] = stride[i];                                               \
          m++;                                                                 \
        }                                                                      \
    if (m == 0)                                                                \
      {                                                                        \
        *out = (T) 0 + x[0];                                                   \
        return TRUE;                                                           \
      }                                                                        \
    for (;;)                                                                   \
      {                                                                        \
        const T *row = x;                                                      \
        T r;                                                                   \
        int d;                                                                 \
                                                                               \
        for (d = 1; d < m; d++)                                                \
          row += at[d] * stride[d];                                            \
        if (stride[0] == 1)                                                    \
          r = INNER (row, size[0]);                                            \
        else                                                                   \
          ROW_SUM (row, stride[0], 1, size[0], &r);                            \
        total += r;                                                            \
        for (d = 1; d < m; d++)                                                \
          {                                                                    \
            if (++at[d] < size[d])                                             \
              break;                                                           \
            at[d] = 0;                                                         \
          }                                                                    \
        if (d == m)                                                            \
          break;                                                               \
      }                                                                        \
    *out = (T) 0 + total;                                                      \
    return TRUE;                                                               \
  }

DEFINE_STRIDED (cr_cpu_cascade_sum_strided_f, float, cr_cpu_cascade_sum_f, row_sum_f)
DEFINE_STRIDED (cr_cpu_cascade_sum_strided_d, double, cr_cpu_cascade_sum_d, row_sum_d)
