/* cr-cpu-reduce.c — sum, mean, prod, sum_to_shape, max/min/argmax, any/all,
 * allclose.
 *
 * Every reduction is brought to one geometry: a contiguous (outer, reduce,
 * inner) block, with the reduced dims in the middle (a permuted copy when
 * they are not adjacent or the input is strided). inner == 1 sums contiguous
 * runs; inner > 1 adds whole rows, which vectorises across the kept dims.
 *
 * float32 sums accumulate in double in fixed blocks of BLOCK elements, added
 * in order, so the result does not depend on the number of threads and
 * means of millions of elements print the digits PyTorch prints. */
#include "cr-cpu-private.h"

#include <math.h>

#define BLOCK     32768     /* elements per partial sum */
#define COL_BLOCK 256       /* kept elements accumulated at once (inner > 1) */

typedef enum {
  RED_SUM,
  RED_PROD,
} ReduceOp;

/* ---- dims --------------------------------------------------------------- */

gboolean
cr_cpu_reduce_dims (const CrTensor  *x,
                    const int       *dims,
                    int              n_dims,
                    guint32         *out_mask,
                    GError         **error)
{
  guint32 mask = 0;

  if (n_dims == 0)
    {
      *out_mask = x->ndim > 0 ? (guint32) ((1u << x->ndim) - 1) : 0;
      return TRUE;
    }
  for (int i = 0; i < n_dims; i++)
    {
      int d;

      if (!cr_cpu_wrap_dim (dims[i], x->ndim, &d, error))
        return FALSE;
      if (x->ndim == 0)
        continue;
      if (mask & (1u << d))
        {
          g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                       "dim %d appears multiple times in the list of dims", d);
          return FALSE;
        }
      mask |= 1u << d;
    }
  *out_mask = mask;
  return TRUE;
}

/* Fills mask[d] for the dims to reduce (all of them when n_dims == 0). */
static gboolean
dims_to_mask (const CrTensor  *x,
              const int       *dims,
              int              n_dims,
              gboolean        *mask,
              GError         **error)
{
  guint32 bits;

  if (!cr_cpu_reduce_dims (x, dims, n_dims, &bits, error))
    return FALSE;
  for (int d = 0; d < CR_MAX_DIMS; d++)
    mask[d] = (bits >> d) & 1;
  return TRUE;
}

static int
reduced_shape (const CrTensor *x,
               const gboolean *mask,
               gboolean        keepdim,
               gint64         *out_shape)
{
  int nd = 0;

  for (int d = 0; d < x->ndim; d++)
    {
      if (!mask[d])
        out_shape[nd++] = x->shape[d];
      else if (keepdim)
        out_shape[nd++] = 1;
    }
  return nd;
}

/* ---- geometry ----------------------------------------------------------- */

typedef struct {
  gint64          outer;
  gint64          reduce;
  gint64          inner;
  const CrTensor *src;     /* contiguous */
  CrTensor       *owned;   /* the copy src points to, if one was made */
} Geometry;

static gboolean
geometry_init (Geometry        *g,
               const CrTensor  *x,
               const gboolean  *mask,
               GError         **error)
{
  int first = -1, last = -1;
  gboolean adjacent = TRUE;

  g->owned = NULL;
  g->src = x;
  g->outer = 1;
  g->reduce = 1;
  g->inner = 1;

  for (int d = 0; d < x->ndim; d++)
    if (mask[d] && x->shape[d] != 1)
      {
        if (first < 0)
          first = d;
        last = d;
      }
  for (int d = first; first >= 0 && d <= last; d++)
    if (!mask[d] && x->shape[d] != 1)
      adjacent = FALSE;

  if (first < 0)
    {
      g->outer = x->numel;
      if (!cr_tensor_is_contiguous (x))
        {
          g->owned = cr_tensor_copy (x, error);
          g->src = g->owned;
        }
      return g->src != NULL;
    }

  if (adjacent && cr_tensor_is_contiguous (x))
    {
      for (int d = 0; d < first; d++)
        g->outer *= x->shape[d];
      for (int d = first; d <= last; d++)
        g->reduce *= x->shape[d];
      for (int d = last + 1; d < x->ndim; d++)
        g->inner *= x->shape[d];
      return TRUE;
    }

  /* Kept dims first, reduced dims last, then a contiguous copy. */
  {
    gint64 shape[CR_MAX_DIMS], strides[CR_MAX_DIMS];
    g_autoptr(CrTensor) view = NULL;
    int nd = 0;

    for (int pass = 0; pass < 2; pass++)
      for (int d = 0; d < x->ndim; d++)
        if ((pass == 0) != (mask[d] != FALSE))
          {
            shape[nd] = x->shape[d];
            strides[nd] = x->strides[d];
            if (pass == 0)
              g->outer *= x->shape[d];
            else
              g->reduce *= x->shape[d];
            nd++;
          }
    view = cr_tensor_new_view (x, shape, nd, strides, x->offset);
    g->owned = cr_tensor_copy (view, error);
    g->src = g->owned;
  }
  return g->src != NULL;
}

static void
geometry_clear (Geometry *g)
{
  g_clear_pointer (&g->owned, cr_tensor_unref);
}

/* ---- contiguous sums ------------------------------------------------------ */

/* Eight independent accumulators: gcc vectorises them without reordering the
 * additions, so every vector width gives the same bits. */
#define DEFINE_BLOCK_SUM(name, T, ACC)                                         \
  static ACC                                                                   \
  name (const T *x,                                                            \
        gint64   n)                                                            \
  {                                                                            \
    ACC acc[8] = { 0 };                                                        \
    gint64 i = 0;                                                              \
                                                                               \
    for (; i + 8 <= n; i += 8)                                                 \
      for (int j = 0; j < 8; j++)                                              \
        acc[j] += (ACC) x[i + j];                                              \
    for (; i < n; i++)                                                         \
      acc[0] += (ACC) x[i];                                                    \
    return ((acc[0] + acc[1]) + (acc[2] + acc[3]))                             \
           + ((acc[4] + acc[5]) + (acc[6] + acc[7]));                          \
  }

DEFINE_BLOCK_SUM (block_sum_f, float, double)
DEFINE_BLOCK_SUM (block_sum_d, double, double)
/* Integer sums wrap as PyTorch's do: in unsigned arithmetic, where it is not UB. */
DEFINE_BLOCK_SUM (block_sum_i, gint64, guint64)
DEFINE_BLOCK_SUM (block_sum_b, guint8, guint64)

typedef struct {
  const void *x;
  CrDType     dtype;
  gint64      n;
  double     *partial_d;
  gint64     *partial_i;
} BlockJob;

static void
block_job_run (gint64   begin,
               gint64   end,
               gpointer data)
{
  BlockJob *job = data;

  for (gint64 blk = begin; blk < end; blk++)
    {
      gint64 start = blk * BLOCK;
      gint64 len = MIN (BLOCK, job->n - start);

      switch (job->dtype)
        {
        case CR_DTYPE_FLOAT32:
          job->partial_d[blk] = block_sum_f ((const float *) job->x + start, len);
          break;
        case CR_DTYPE_FLOAT64:
          job->partial_d[blk] = block_sum_d ((const double *) job->x + start, len);
          break;
        case CR_DTYPE_INT64:
          job->partial_i[blk] = block_sum_i ((const gint64 *) job->x + start, len);
          break;
        case CR_DTYPE_BOOL:
          job->partial_i[blk] = block_sum_b ((const guint8 *) job->x + start, len);
          break;
        case CR_DTYPE_COUNT:
        default:
          break;
        }
    }
}

/* Sum of n contiguous elements: double for floats (*out_d), int64 otherwise. */
static void
contiguous_sum (const void *x,
                CrDType     dtype,
                gint64      n,
                gboolean    parallel,
                double     *out_d,
                gint64     *out_i)
{
  gint64 n_blocks = (n + BLOCK - 1) / BLOCK;
  double stack_d[64];
  gint64 stack_i[64];
  g_autofree double *heap_d = NULL;
  g_autofree gint64 *heap_i = NULL;
  BlockJob job = { x, dtype, n, stack_d, stack_i };
  double total_d = 0;
  guint64 total_i = 0;   /* wraps, as PyTorch's int64 sum */

  if (n_blocks > 64)
    {
      job.partial_d = heap_d = g_new (double, n_blocks);
      job.partial_i = heap_i = g_new (gint64, n_blocks);
    }
  if (parallel)
    cr_parallel_for (n_blocks, 2, block_job_run, &job);
  else
    block_job_run (0, n_blocks, &job);

  for (gint64 b = 0; b < n_blocks; b++)
    {
      if (cr_dtype_is_floating (dtype))
        total_d += job.partial_d[b];
      else
        total_i += (guint64) job.partial_i[b];
    }
  *out_d = total_d;
  *out_i = (gint64) total_i;
}

/* ---- the (outer, reduce, inner) loops -------------------------------------- */

typedef struct {
  ReduceOp  op;
  Geometry *g;
  CrTensor *out;      /* contiguous, outer * inner elements */
} ReduceJob;

/* One output row (fixed o): all inner positions, accumulated over reduce. */
#define DEFINE_COLUMNS(name, T, ACC, TO, OP, INIT)                             \
  static void                                                                  \
  name (const T *x,                                                            \
        gint64   reduce,                                                       \
        gint64   inner,                                                        \
        TO      *out)                                                          \
  {                                                                            \
    ACC acc[COL_BLOCK];                                                        \
                                                                               \
    for (gint64 i0 = 0; i0 < inner; i0 += COL_BLOCK)                           \
      {                                                                        \
        gint64 len = MIN (COL_BLOCK, inner - i0);                              \
                                                                               \
        for (gint64 i = 0; i < len; i++)                                       \
          acc[i] = INIT;                                                       \
        for (gint64 r = 0; r < reduce; r++)                                    \
          {                                                                    \
            const T *row = x + r * inner + i0;                                 \
            for (gint64 i = 0; i < len; i++)                                   \
              acc[i] = acc[i] OP (ACC) row[i];                                 \
          }                                                                    \
        for (gint64 i = 0; i < len; i++)                                       \
          out[i0 + i] = (TO) acc[i];                                           \
      }                                                                        \
  }

DEFINE_COLUMNS (sum_cols_f, float, double, float, +, 0)
DEFINE_COLUMNS (sum_cols_d, double, double, double, +, 0)
/* Integer accumulators are unsigned: int64 sums and products wrap (as in
 * PyTorch) without UB. */
DEFINE_COLUMNS (sum_cols_i, gint64, guint64, gint64, +, 0)
DEFINE_COLUMNS (sum_cols_b, guint8, guint64, gint64, +, 0)
DEFINE_COLUMNS (prod_cols_f, float, double, float, *, 1)
DEFINE_COLUMNS (prod_cols_d, double, double, double, *, 1)
DEFINE_COLUMNS (prod_cols_i, gint64, guint64, gint64, *, 1)
DEFINE_COLUMNS (prod_cols_b, guint8, guint64, gint64, *, 1)

static void
reduce_rows (gint64   begin,
             gint64   end,
             gpointer data)
{
  ReduceJob *job = data;
  const Geometry *g = job->g;
  const char *base = cr_tensor_data (g->src);
  char *out = cr_tensor_data (job->out);
  CrDType dtype = g->src->dtype;
  gsize isz = cr_dtype_size (dtype);
  gsize osz = cr_dtype_size (job->out->dtype);
  gint64 row_elems = g->reduce * g->inner;

  for (gint64 o = begin; o < end; o++)
    {
      const char *x = base + (gsize) (o * row_elems) * isz;
      char *dst = out + (gsize) (o * g->inner) * osz;

      if (job->op == RED_SUM && dtype == CR_DTYPE_FLOAT32)
        {
          if (g->inner == 1)
            *(float *) dst = cr_cpu_cascade_sum_f ((const float *) x, g->reduce);
          else
            cr_cpu_cascade_sum_cols_f ((const float *) x, g->reduce, g->inner, (float *) dst);
          continue;
        }
      if (job->op == RED_SUM && dtype == CR_DTYPE_FLOAT64)
        {
          if (g->inner == 1)
            *(double *) dst = cr_cpu_cascade_sum_d ((const double *) x, g->reduce);
          else
            cr_cpu_cascade_sum_cols_d ((const double *) x, g->reduce, g->inner, (double *) dst);
          continue;
        }
      if (job->op == RED_SUM && g->inner == 1)
        {
          double sd;
          gint64 si;

          contiguous_sum (x, dtype, g->reduce, FALSE, &sd, &si);
          switch (dtype)
            {
            case CR_DTYPE_FLOAT32: *(float *) dst = (float) sd; break;
            case CR_DTYPE_FLOAT64: *(double *) dst = sd; break;
            case CR_DTYPE_INT64:
            case CR_DTYPE_BOOL:    *(gint64 *) dst = si; break;
            case CR_DTYPE_COUNT:
            default: break;
            }
          continue;
        }

      switch (dtype)
        {
        case CR_DTYPE_FLOAT32:
          (job->op == RED_SUM ? sum_cols_f : prod_cols_f) ((const float *) x, g->reduce, g->inner, (float *) dst);
          break;
        case CR_DTYPE_FLOAT64:
          (job->op == RED_SUM ? sum_cols_d : prod_cols_d) ((const double *) x, g->reduce, g->inner, (double *) dst);
          break;
        case CR_DTYPE_INT64:
          (job->op == RED_SUM ? sum_cols_i : prod_cols_i) ((const gint64 *) x, g->reduce, g->inner, (gint64 *) dst);
          break;
        case CR_DTYPE_BOOL:
          (job->op == RED_SUM ? sum_cols_b : prod_cols_b) ((const guint8 *) x, g->reduce, g->inner, (gint64 *) dst);
          break;
        case CR_DTYPE_COUNT:
        default:
          break;
        }
    }
}

/* Whether mask takes every dim of x bigger than 1. */
static gboolean
reduces_everything (const CrTensor *x,
                    const gboolean *mask)
{
  for (int d = 0; d < x->ndim; d++)
    if (!mask[d] && x->shape[d] != 1)
      return FALSE;
  return x->numel > 0;
}

/* Reduces x over mask into a new tensor of out_shape (its numel is
 * outer * inner of the geometry). */
static CrTensor *
reduce (ReduceOp         op,
        const CrTensor  *x,
        const gboolean  *mask,
        const gint64    *out_shape,
        int              out_ndim,
        GError         **error)
{
  CrDType out_dtype = cr_dtype_is_floating (x->dtype) ? x->dtype : CR_DTYPE_INT64;
  Geometry g;
  CrTensor *out;

  /* A float sum of every element of a strided tensor (x[:, 0].sum(),
   * w.t().sum()): in PyTorch's walk of the strides, not of a copy. */
  if (op == RED_SUM && cr_dtype_is_floating (x->dtype) && !cr_tensor_is_contiguous (x)
      && reduces_everything (x, mask))
    {
      out = cr_tensor_new_empty (out_shape, out_ndim, out_dtype, CR_DEVICE_CPU, error);
      if (out == NULL)
        return NULL;
      if (x->dtype == CR_DTYPE_FLOAT32
          ? cr_cpu_cascade_sum_strided_f (cr_tensor_data (x), x->shape, x->strides, x->ndim,
                                          cr_tensor_data (out))
          : cr_cpu_cascade_sum_strided_d (cr_tensor_data (x), x->shape, x->strides, x->ndim,
                                          cr_tensor_data (out)))
        return out;
      cr_tensor_unref (out);
    }

  if (!geometry_init (&g, x, mask, error))
    return NULL;
  out = cr_tensor_new_empty (out_shape, out_ndim, out_dtype, CR_DEVICE_CPU, error);
  if (out == NULL)
    {
      geometry_clear (&g);
      return NULL;
    }

  if (op == RED_SUM && g.outer == 1 && g.inner == 1 && g.src->dtype == CR_DTYPE_FLOAT32)
    *(float *) cr_tensor_data (out) = cr_cpu_cascade_sum_f (cr_tensor_data (g.src), g.reduce);
  else if (op == RED_SUM && g.outer == 1 && g.inner == 1 && g.src->dtype == CR_DTYPE_FLOAT64)
    *(double *) cr_tensor_data (out) = cr_cpu_cascade_sum_d (cr_tensor_data (g.src), g.reduce);
  else if (op == RED_SUM && g.outer == 1 && g.inner == 1)
    {
      /* Everything into one value: blocks in parallel. */
      double sd;
      gint64 si;

      contiguous_sum (cr_tensor_data (g.src), g.src->dtype, g.reduce,
                      g.reduce >= 2 * CR_PARALLEL_GRAIN, &sd, &si);
      cr_cpu_convert_scalar (cr_tensor_data (out), out_dtype,
                             cr_dtype_is_floating (out_dtype) ? (const void *) &sd : (const void *) &si,
                             cr_dtype_is_floating (out_dtype) ? CR_DTYPE_FLOAT64 : CR_DTYPE_INT64);
    }
  else if (g.outer > 0)
    {
      ReduceJob job = { op, &g, out };
      gint64 per_row = MAX (1, g.reduce * g.inner);

      cr_parallel_for (g.outer, MAX (1, CR_PARALLEL_GRAIN / per_row), reduce_rows, &job);
    }
  geometry_clear (&g);
  return out;
}

/* ---- public reductions ------------------------------------------------------ */

/* Reduces x over dims (all of them when n_dims == 0), keeping them as size 1
 * when keepdim; mask gets the reduced dims. */
static CrTensor *
reduce_dims (ReduceOp         op,
             const CrTensor  *x,
             const int       *dims,
             int              n_dims,
             gboolean         keepdim,
             gboolean        *mask,
             GError         **error)
{
  gint64 shape[CR_MAX_DIMS];
  int nd;

  if (!dims_to_mask (x, dims, n_dims, mask, error))
    return NULL;
  nd = reduced_shape (x, mask, keepdim, shape);
  return reduce (op, x, mask, shape, nd, error);
}

CrTensor *
cr_kernel_sum (const CrTensor  *x,
               const int       *dims,
               int              n_dims,
               gboolean         keepdim,
               GError         **error)
{
  gboolean mask[CR_MAX_DIMS];

  /* int32/uint8 sum to int64, as in PyTorch: computed from an int64 copy. */
  if (G_UNLIKELY (cr_cpu_is_narrow (x)))
    {
      g_autoptr(CrTensor) wide = cr_cpu_widen (x, x->dtype, error);

      return wide != NULL ? cr_kernel_sum (wide, dims, n_dims, keepdim, error) : NULL;
    }
  CR_DISPATCH (x->device, sum, error, NULL, x, dims, n_dims, keepdim, error);
  return reduce_dims (RED_SUM, x, dims, n_dims, keepdim, mask, error);
}

CrTensor *
cr_kernel_prod (const CrTensor  *x,
                const int       *dims,
                int              n_dims,
                gboolean         keepdim,
                GError         **error)
{
  gboolean mask[CR_MAX_DIMS];

  if (G_UNLIKELY (cr_cpu_is_narrow (x)))
    {
      g_autoptr(CrTensor) wide = cr_cpu_widen (x, x->dtype, error);

      return wide != NULL ? cr_kernel_prod (wide, dims, n_dims, keepdim, error) : NULL;
    }
  CR_DISPATCH (x->device, prod, error, NULL, x, dims, n_dims, keepdim, error);
  return reduce_dims (RED_PROD, x, dims, n_dims, keepdim, mask, error);
}

CrTensor *
cr_kernel_mean (const CrTensor  *x,
                const int       *dims,
                int              n_dims,
                gboolean         keepdim,
                GError         **error)
{
  gboolean mask[CR_MAX_DIMS];
  gint64 count = 1;
  CrTensor *out;

  if (!cr_dtype_is_floating (x->dtype))
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "mean(): could not infer output dtype. Input dtype must be either a "
                   "floating point or complex dtype. Got: %s", cr_dtype_scalar_name (x->dtype));
      return NULL;
    }
  CR_DISPATCH (x->device, mean, error, NULL, x, dims, n_dims, keepdim, error);
  out = reduce_dims (RED_SUM, x, dims, n_dims, keepdim, mask, error);
  if (out == NULL)
    return NULL;

  for (int d = 0; d < x->ndim; d++)
    if (mask[d])
      count *= x->shape[d];

  /* PyTorch divides the sum (in the tensor's dtype) by the count. */
  if (out->dtype == CR_DTYPE_FLOAT32)
    {
      float *o = cr_tensor_data (out);
      float c = (float) count;

      for (gint64 i = 0; i < out->numel; i++)
        o[i] = o[i] / c;
    }
  else
    {
      double *o = cr_tensor_data (out);
      double c = (double) count;

      for (gint64 i = 0; i < out->numel; i++)
        o[i] = o[i] / c;
    }
  return out;
}

CrTensor *
cr_kernel_sum_to_shape (const CrTensor  *x,
                        const gint64    *shape,
                        int              ndim,
                        GError         **error)
{
  gboolean mask[CR_MAX_DIMS] = { FALSE };
  int lead = x->ndim - ndim;

  if (G_UNLIKELY (cr_cpu_is_narrow (x)))
    {
      g_autoptr(CrTensor) wide = cr_cpu_widen (x, x->dtype, error);

      return wide != NULL ? cr_cpu_narrow (cr_kernel_sum_to_shape (wide, shape, ndim, error),
                                           x->dtype, error)
                          : NULL;
    }
  CR_DISPATCH (x->device, sum_to_shape, error, NULL, x, shape, ndim, error);

  if (lead < 0)
    goto mismatch;
  for (int d = 0; d < x->ndim; d++)
    {
      if (d < lead)
        mask[d] = TRUE;
      else if (shape[d - lead] == 1 && x->shape[d] != 1)
        mask[d] = TRUE;
      else if (shape[d - lead] != x->shape[d])
        goto mismatch;
    }
  if (cr_shape_equal (x->shape, x->ndim, shape, ndim))
    return cr_tensor_copy (x, error);
  return reduce (RED_SUM, x, mask, shape, ndim, error);

mismatch:
  {
    g_autofree char *s1 = cr_shape_to_string (shape, ndim);
    g_autofree char *s2 = cr_shape_to_string (x->shape, x->ndim);

    g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                 "size {%s} is not expandable to size {%s}.", s1, s2);
    return NULL;
  }
}

/* ---- max / min / argmax ------------------------------------------------------ */

/* TRUE when v should replace best: larger (smaller), or the first NaN. */
#define BETTER(v, best, is_min) \
  ((v) != (v) ? (best) == (best) : ((is_min) ? (v) < (best) : (v) > (best)))

/* For each o and i: the best value over reduce and its first index. */
#define DEFINE_ARG_REDUCE(name, T)                                             \
  static void                                                                  \
  name (const T  *x,                                                           \
        gint64    outer,                                                       \
        gint64    reduce,                                                      \
        gint64    inner,                                                       \
        gboolean  is_min,                                                      \
        T        *values,                                                      \
        gint64   *indices)                                                     \
  {                                                                            \
    for (gint64 o = 0; o < outer; o++)                                         \
      for (gint64 i = 0; i < inner; i++)                                       \
        {                                                                      \
          const T *p = x + o * reduce * inner + i;                             \
          T best = p[0];                                                       \
          gint64 at = 0;                                                       \
                                                                               \
          for (gint64 r = 1; r < reduce; r++)                                  \
            {                                                                  \
              T v = p[r * inner];                                              \
              if (BETTER (v, best, is_min))                                    \
                {                                                              \
                  best = v;                                                    \
                  at = r;                                                      \
                }                                                              \
            }                                                                  \
          if (values != NULL)                                                  \
            values[o * inner + i] = best;                                      \
          if (indices != NULL)                                                 \
            indices[o * inner + i] = at;                                       \
        }                                                                      \
  }

DEFINE_ARG_REDUCE (arg_reduce_b, guint8)
DEFINE_ARG_REDUCE (arg_reduce_i, gint64)
DEFINE_ARG_REDUCE (arg_reduce_f, float)
DEFINE_ARG_REDUCE (arg_reduce_d, double)

static void
arg_reduce (const Geometry *g,
            gboolean        is_min,
            void           *values,
            gint64         *indices)
{
  const void *x = cr_tensor_data (g->src);

  switch (g->src->dtype)
    {
    case CR_DTYPE_BOOL:    arg_reduce_b (x, g->outer, g->reduce, g->inner, is_min, values, indices); break;
    case CR_DTYPE_INT64:   arg_reduce_i (x, g->outer, g->reduce, g->inner, is_min, values, indices); break;
    case CR_DTYPE_FLOAT32: arg_reduce_f (x, g->outer, g->reduce, g->inner, is_min, values, indices); break;
    case CR_DTYPE_FLOAT64: arg_reduce_d (x, g->outer, g->reduce, g->inner, is_min, values, indices); break;
    case CR_DTYPE_COUNT:
    default: break;
    }
}

CrTensor *
cr_kernel_max_all (const CrTensor  *x,
                   gboolean         is_min,
                   GError         **error)
{
  gboolean mask[CR_MAX_DIMS];
  Geometry g;
  CrTensor *out;

  if (G_UNLIKELY (cr_cpu_is_narrow (x)))
    {
      g_autoptr(CrTensor) wide = cr_cpu_widen (x, x->dtype, error);

      return wide != NULL ? cr_cpu_narrow (cr_kernel_max_all (wide, is_min, error), x->dtype, error)
                          : NULL;
    }
  CR_DISPATCH (x->device, max_all, error, NULL, x, is_min, error);
  if (x->numel == 0)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "%s(): Expected reduction dim to be specified for input.numel() == 0. "
                   "Specify the reduction dim with the 'dim' argument.", is_min ? "min" : "max");
      return NULL;
    }
  dims_to_mask (x, NULL, 0, mask, NULL);
  if (!geometry_init (&g, x, mask, error))
    return NULL;
  out = cr_tensor_new_empty (NULL, 0, x->dtype, CR_DEVICE_CPU, error);
  if (out != NULL)
    {
      Geometry flat = g;

      flat.outer = 1;
      flat.reduce = x->numel;
      flat.inner = 1;
      arg_reduce (&flat, is_min, cr_tensor_data (out), NULL);
    }
  geometry_clear (&g);
  return out;
}

gboolean
cr_kernel_max_dim (const CrTensor  *x,
                   int              dim,
                   gboolean         keepdim,
                   gboolean         is_min,
                   CrTensor       **out_values,
                   CrTensor       **out_indices,
                   GError         **error)
{
  gboolean mask[CR_MAX_DIMS] = { FALSE };
  gint64 shape[CR_MAX_DIMS];
  CrTensor *values, *indices;
  Geometry g;
  int d, nd;

  if (G_UNLIKELY (cr_cpu_is_narrow (x)))
    {
      g_autoptr(CrTensor) wide = cr_cpu_widen (x, x->dtype, error);

      if (wide == NULL || !cr_kernel_max_dim (wide, dim, keepdim, is_min, &values, &indices, error))
        return FALSE;
      values = cr_cpu_narrow (values, x->dtype, error);
      if (values == NULL)
        {
          cr_tensor_unref (indices);
          return FALSE;
        }
      *out_values = values;
      *out_indices = indices;
      return TRUE;
    }
  CR_DISPATCH (x->device, max_dim, error, FALSE, x, dim, keepdim, is_min, out_values, out_indices, error);
  if (!cr_cpu_wrap_dim (dim, x->ndim, &d, error))
    return FALSE;
  if (x->ndim > 0)
    {
      if (x->shape[d] == 0)
        {
          g_set_error (error, CR_CORE_ERROR, CR_EXC_INDEX_ERROR,
                       "%s(): Expected reduction dim %d to have non-zero size.",
                       is_min ? "min" : "max", d);
          return FALSE;
        }
      mask[d] = TRUE;
    }
  nd = reduced_shape (x, mask, keepdim, shape);
  if (!geometry_init (&g, x, mask, error))
    return FALSE;
  values = cr_tensor_new_empty (shape, nd, x->dtype, CR_DEVICE_CPU, error);
  indices = values != NULL ? cr_tensor_new_empty (shape, nd, CR_DTYPE_INT64, CR_DEVICE_CPU, error) : NULL;
  if (indices == NULL)
    {
      cr_tensor_unref (values);
      geometry_clear (&g);
      return FALSE;
    }
  if (g.reduce > 0)
    arg_reduce (&g, is_min, cr_tensor_data (values), cr_tensor_data (indices));
  geometry_clear (&g);
  *out_values = values;
  *out_indices = indices;
  return TRUE;
}

CrTensor *
cr_kernel_argmax (const CrTensor  *x,
                  gboolean         has_dim,
                  int              dim,
                  gboolean         keepdim,
                  gboolean         is_min,
                  GError         **error)
{
  if (G_UNLIKELY (cr_cpu_is_narrow (x)))
    {
      g_autoptr(CrTensor) wide = cr_cpu_widen (x, x->dtype, error);

      return wide != NULL ? cr_kernel_argmax (wide, has_dim, dim, keepdim, is_min, error) : NULL;
    }
  CR_DISPATCH (x->device, argmax, error, NULL, x, has_dim, dim, keepdim, is_min, error);

  if (has_dim)
    {
      CrTensor *values = NULL, *indices = NULL;

      if (x->ndim > 0 && x->numel == 0)
        {
          int d;

          if (!cr_cpu_wrap_dim (dim, x->ndim, &d, error))
            return NULL;
          if (x->shape[d] == 0)
            {
              g_set_error (error, CR_CORE_ERROR, CR_EXC_INDEX_ERROR,
                           "%s(): Expected reduction dim %d to have non-zero size.",
                           is_min ? "argmin" : "argmax", d);
              return NULL;
            }
        }
      if (!cr_kernel_max_dim (x, dim, keepdim, is_min, &values, &indices, error))
        return NULL;
      cr_tensor_unref (values);
      return indices;
    }

  if (x->numel == 0)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_INDEX_ERROR,
                   "%s(): Expected reduction dim to be specified for input.numel() == 0.",
                   is_min ? "argmin" : "argmax");
      return NULL;
    }
  {
    gboolean mask[CR_MAX_DIMS];
    gint64 shape[CR_MAX_DIMS];
    Geometry g;
    CrTensor *out;
    int nd = 0;

    /* keepdim without a dim keeps every dim as 1, like PyTorch. */
    if (keepdim)
      for (nd = 0; nd < x->ndim; nd++)
        shape[nd] = 1;
    dims_to_mask (x, NULL, 0, mask, NULL);
    if (!geometry_init (&g, x, mask, error))
      return NULL;
    out = cr_tensor_new_empty (shape, nd, CR_DTYPE_INT64, CR_DEVICE_CPU, error);
    if (out != NULL)
      {
        Geometry flat = g;

        flat.outer = 1;
        flat.reduce = x->numel;
        flat.inner = 1;
        arg_reduce (&flat, is_min, NULL, cr_tensor_data (out));
      }
    geometry_clear (&g);
    return out;
  }
}

/* ---- any / all / allclose ------------------------------------------------------ */

typedef struct {
  gboolean want_any;
  gboolean found;     /* any: a nonzero; all: a zero */
} TruthCtx;

static void
truth_row (gint64        n,
           char *const  *p,
           const gint64 *s,
           gpointer      ctx)
{
  TruthCtx *t = ctx;
  const guint8 *x = (const guint8 *) p[0];

  for (gint64 i = 0; i < n && !t->found; i++)
    if ((x[i * s[0]] != 0) == t->want_any)
      t->found = TRUE;
}

static gboolean
truth (const CrTensor *x,
       gboolean        want_any)
{
  g_autoptr(CrTensor) b = NULL;
  TruthCtx ctx = { want_any, FALSE };
  CrCpuIter iter;

  /* Nonzero-ness as bool first (NaN counts as true). */
  if (x->dtype != CR_DTYPE_BOOL)
    {
      b = cr_cpu_cast (x, CR_DTYPE_BOOL, NULL);
      if (b == NULL)
        return FALSE;
      x = b;
    }
  cr_cpu_iter_init (&iter, x->shape, x->ndim, &x, 1);
  /* Serial: the row function stops looking once it found its answer. */
  cr_cpu_iter_run_serial (&iter, truth_row, &ctx);
  return want_any ? ctx.found : !ctx.found;
}

gboolean
cr_kernel_any (const CrTensor *x)
{
  if (x->device != CR_DEVICE_CPU && cr_cpu_is_narrow (x))
    {
      g_autoptr(CrTensor) wide = cr_cpu_widen (x, x->dtype, NULL);

      return wide != NULL && cr_kernel_any (wide);
    }
  if (x->device != CR_DEVICE_CPU)
    {
      const CrBackend *be = cr_backend_get (x->device, NULL);
      gboolean result = FALSE;

      if (be != NULL && be->any != NULL)
        be->any (x, &result, NULL);
      return result;
    }
  return truth (x, TRUE);
}

gboolean
cr_kernel_all (const CrTensor *x)
{
  if (x->device != CR_DEVICE_CPU && cr_cpu_is_narrow (x))
    {
      g_autoptr(CrTensor) wide = cr_cpu_widen (x, x->dtype, NULL);

      return wide != NULL && cr_kernel_all (wide);
    }
  if (x->device != CR_DEVICE_CPU)
    {
      const CrBackend *be = cr_backend_get (x->device, NULL);
      gboolean result = FALSE;

      if (be != NULL && be->all != NULL)
        be->all (x, &result, NULL);
      return result;
    }
  return truth (x, FALSE);
}

typedef struct {
  double   rtol;
  double   atol;
  gboolean close;
} CloseCtx;

static void
close_row (gint64        n,
           char *const  *p,
           const gint64 *s,
           gpointer      ctx)
{
  CloseCtx *c = ctx;
  const double *a = (const double *) p[1];
  const double *b = (const double *) p[2];

  for (gint64 i = 0; i < n && c->close; i++)
    {
      double x = a[i * s[1]], y = b[i * s[2]];

      if (x == y)
        continue;
      if (!isfinite (x) || !isfinite (y) || !(fabs (x - y) <= c->atol + c->rtol * fabs (y)))
        c->close = FALSE;
    }
}

gboolean
cr_kernel_allclose (const CrTensor  *a,
                    const CrTensor  *b,
                    double           rtol,
                    double           atol,
                    gboolean        *out_result,
                    GError         **error)
{
  g_autoptr(CrTensor) da = NULL;
  g_autoptr(CrTensor) db = NULL;
  gint64 shape[CR_MAX_DIMS];
  int ndim;
  const CrTensor *operands[3];
  CloseCtx ctx = { rtol, atol, TRUE };
  CrCpuIter iter;

  if (cr_cpu_device2 (a, b) != CR_DEVICE_CPU && (cr_cpu_is_narrow (a) || cr_cpu_is_narrow (b)))
    {
      g_autoptr(CrTensor) wa = cr_cpu_widen (a, a->dtype, error);
      g_autoptr(CrTensor) wb = wa != NULL ? cr_cpu_widen (b, b->dtype, error) : NULL;

      return wb != NULL && cr_kernel_allclose (wa, wb, rtol, atol, out_result, error);
    }
  CR_DISPATCH (cr_cpu_device2 (a, b), allclose, error, FALSE, a, b, rtol, atol, out_result, error);
  if (!cr_shape_broadcast (a->shape, a->ndim, b->shape, b->ndim, shape, &ndim, error))
    return FALSE;
  da = cr_cpu_cast (a, CR_DTYPE_FLOAT64, error);
  db = da != NULL ? cr_cpu_cast (b, CR_DTYPE_FLOAT64, error) : NULL;
  if (db == NULL)
    return FALSE;

  /* Operand 0 (the output) is unused: iterate with a's data in its place. */
  operands[0] = NULL;
  operands[1] = da;
  operands[2] = db;
  cr_cpu_iter_init (&iter, shape, ndim, operands, 3);
  cr_cpu_iter_run_serial (&iter, close_row, &ctx);
  *out_result = ctx.close;
  return TRUE;
}
