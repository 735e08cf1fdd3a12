/* cr-cpu-pool.c — max and average pooling over the last two dims, sliding
 * or adaptive windows (cr-kernels-conv.h), on the CPU.
 *
 * Every leading dim is a plane of its own; planes are split over the thread
 * pool, and each writes only its own output (the backward kernels scatter
 * within their plane), so no chunk touches another's memory. The windows of
 * each axis are worked out once per call. The comparisons are PyTorch's
 * (aten/src/ATen/native/cpu/MaxPoolKernel.cpp): the first maximum wins, and
 * every NaN replaces the maximum, so that a NaN in a window is the result. */
#include "cr-cpu-private.h"
#include "cr-kernels-conv.h"

#include <math.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* The taps of one output position along one axis: first, first + step, ...
 * below end; span is the window's size counted inside the padded range
 * (count_include_pad's divisor); base + j·step for j < taps (the axis's most
 * taps) are the window's places, inside it or not. */
typedef struct {
  gint64 first, end, step, span, base;
} Window;

static void
axis_windows (const CrPoolGeom *g,
              int               axis,
              Window           *w)
{
  gint64 size = g->in[axis];

  for (gint64 o = 0; o < g->out[axis]; o++)
    {
      if (g->adaptive)
        {
          w[o].first = o * size / g->out[axis];
          w[o].end = ((o + 1) * size + g->out[axis] - 1) / g->out[axis];
          w[o].step = 1;
          w[o].span = w[o].end - w[o].first;
          w[o].base = w[o].first;
          continue;
        }
      {
        gint64 d = g->dilation[axis];
        gint64 start = o * g->stride[axis] - g->padding[axis];
        gint64 last = start + (g->kernel[axis] - 1) * d;
        gint64 first = start;

        if (first < 0)
          first += (-first + d - 1) / d * d;
        w[o].first = first;
        w[o].end = MIN (last + 1, size);
        w[o].step = d;
        w[o].span = MIN (start + g->kernel[axis], size + g->padding[axis]) - start;
        w[o].base = start;
      }
    }
}

typedef struct {
  const CrPoolGeom *g;
  CrDType           dtype;
  const Window     *wy, *wx;
  gint64            x_taps;    /* the most taps of an x window */
  const char       *in;        /* planes of the input of this direction */
  char             *out;
  const gint64     *indices;   /* max: (planes, oh·ow) */
  gint64           *out_indices;
  gint64            in_plane, out_plane;
  gint64            quad_begin, quad_end;  /* max_plane_f32's four-wide outputs */
} PoolJob;

static double
divisor (const PoolJob *job,
         const Window  *y,
         const Window  *x)
{
  const CrPoolGeom *g = job->g;

  if (g->divisor_override != 0)
    return (double) g->divisor_override;
  if (g->count_include_pad && !g->adaptive)
    return (double) (y->span * x->span);
  return (double) (MAX (y->end - y->first, (gint64) 0) * MAX (x->end - x->first, (gint64) 0));
}

/* best, at = v, index when v > best or v is NaN, without a branch: on real
 * data the outcome is a coin toss, and gcc keeps the branch of a ?:. */
static inline void
take_f32 (float   v,
          gint64  index,
          float  *best,
          gint64 *at)
{
  guint32 t = (guint32) ((v > *best) | (v != v));
  guint32 m = 0u - t;
  gint64 m64 = -(gint64) t;
  union { float f; guint32 u; } a = { *best }, b = { v };

  a.u = (a.u & ~m) | (b.u & m);
  *best = a.f;
  *at = (*at & ~m64) | (index & m64);
}

static inline void
take_f64 (double  v,
          gint64  index,
          double *best,
          gint64 *at)
{
  guint64 t = (guint64) ((v > *best) | (v != v));
  guint64 m = 0u - t;
  union { double f; guint64 u; } a = { *best }, b = { v };

  a.u = (a.u & ~m) | (b.u & m);
  *best = a.f;
  *at = (gint64) (((guint64) *at & ~m) | ((guint64) index & m));
}

/* Outputs of a row that max_row works on together. */
#define POOL_BLOCK 64

/* max_row: outputs [ox_begin, ox_end) of output row oy of plane p, any
 * window. */
#define DEFINE_POOL_LOOPS(suffix, T)                                            \
static void                                                                     \
max_row_##suffix (const PoolJob *job, gint64 p, gint64 oy,                      \
                  gint64 ox_begin, gint64 ox_end)                               \
{                                                                               \
  const CrPoolGeom *g = job->g;                                                 \
  const T *src = (const T *) job->in + p * job->in_plane;                       \
  T *dst = (T *) job->out + p * job->out_plane;                                 \
  gint64 *idx = job->out_indices + p * job->out_plane;                          \
  gint64 W = g->in[1], OW = g->out[1];                                          \
  const Window *y = &job->wy[oy];                                               \
  T best[POOL_BLOCK];                                                           \
  gint64 at[POOL_BLOCK];                                                        \
                                                                                \
  /* A block of outputs of a row at a time, the outputs innermost: each       \
   * keeps its own running maximum, so the comparisons do not wait on each     \
   * other. Each output still sees its taps in PyTorch's order. */             \
  for (gint64 ox0 = ox_begin; ox0 < ox_end; ox0 += POOL_BLOCK)                  \
    {                                                                           \
      const Window *wx = job->wx + ox0;                                         \
      gint64 n = MIN ((gint64) POOL_BLOCK, ox_end - ox0);                       \
                                                                                \
      for (gint64 k = 0; k < n; k++)                                            \
        {                                                                       \
          best[k] = -INFINITY;                                                  \
          at[k] = y->first * W + wx[k].first;                                   \
        }                                                                       \
      for (gint64 iy = y->first; iy < y->end; iy += y->step)                    \
        for (gint64 j = 0; j < job->x_taps; j++)                                \
          for (gint64 k = 0; k < n; k++)                                        \
            {                                                                   \
              gint64 ix = wx[k].base + j * wx[k].step;                          \
                                                                                \
              if (ix >= wx[k].first && ix < wx[k].end)                          \
                take_##suffix (src[iy * W + ix], iy * W + ix, &best[k], &at[k]); \
            }                                                                   \
      memcpy (dst + oy * OW + ox0, best, sizeof (T) * (gsize) n);               \
      memcpy (idx + oy * OW + ox0, at, sizeof (gint64) * (gsize) n);            \
    }                                                                           \
}                                                                               \
                                                                                \
static void                                                                     \
max_scatter_##suffix (const PoolJob *job, gint64 p)                             \
{                                                                               \
  const T *src = (const T *) job->in + p * job->in_plane;                       \
  T *dst = (T *) job->out + p * job->out_plane;                                 \
  const gint64 *idx = job->indices + p * job->in_plane;                         \
                                                                                \
  for (gint64 o = 0; o < job->in_plane; o++)                                    \
    dst[idx[o]] += src[o];                                                      \
}                                                                               \
                                                                                \
static void                                                                     \
max_gather_##suffix (const PoolJob *job, gint64 p)                              \
{                                                                               \
  const T *src = (const T *) job->in + p * job->in_plane;                       \
  T *dst = (T *) job->out + p * job->out_plane;                                 \
  const gint64 *idx = job->indices + p * job->out_plane;                        \
                                                                                \
  for (gint64 o = 0; o < job->out_plane; o++)                                   \
    dst[o] = src[idx[o]];                                                       \
}

#define DEFINE_AVG_LOOPS(suffix, T)                                             \
static void                                                                     \
avg_plane_##suffix (const PoolJob *job, gint64 p)                               \
{                                                                               \
  const CrPoolGeom *g = job->g;                                                 \
  const T *src = (const T *) job->in + p * job->in_plane;                       \
  T *dst = (T *) job->out + p * job->out_plane;                                 \
  gint64 W = g->in[1];                                                          \
                                                                                \
  for (gint64 oy = 0; oy < g->out[0]; oy++)                                     \
    for (gint64 ox = 0; ox < g->out[1]; ox++)                                   \
      {                                                                         \
        const Window *y = &job->wy[oy], *x = &job->wx[ox];                      \
        T sum = 0;                                                              \
                                                                                \
        if (y->first >= y->end || x->first >= x->end)                           \
          {                                                                     \
            dst[oy * g->out[1] + ox] = 0;                                       \
            continue;                                                           \
          }                                                                     \
        for (gint64 iy = y->first; iy < y->end; iy += y->step)                  \
          for (gint64 ix = x->first; ix < x->end; ix += x->step)                \
            sum += src[iy * W + ix];                                            \
        dst[oy * g->out[1] + ox] = sum / (T) divisor (job, y, x);               \
      }                                                                         \
}                                                                               \
                                                                                \
static void                                                                     \
avg_scatter_##suffix (const PoolJob *job, gint64 p)                             \
{                                                                               \
  const CrPoolGeom *g = job->g;                                                 \
  const T *src = (const T *) job->in + p * job->in_plane;                       \
  T *dst = (T *) job->out + p * job->out_plane;                                 \
  gint64 W = g->in[1];                                                          \
                                                                                \
  for (gint64 oy = 0; oy < g->out[0]; oy++)                                     \
    for (gint64 ox = 0; ox < g->out[1]; ox++)                                   \
      {                                                                         \
        const Window *y = &job->wy[oy], *x = &job->wx[ox];                      \
        T share;                                                                \
                                                                                \
        if (y->first >= y->end || x->first >= x->end)                           \
          continue;                                                             \
        share = src[oy * g->out[1] + ox] / (T) divisor (job, y, x);             \
        for (gint64 iy = y->first; iy < y->end; iy += y->step)                  \
          for (gint64 ix = x->first; ix < x->end; ix += x->step)                \
            dst[iy * W + ix] += share;                                          \
      }                                                                         \
}

DEFINE_POOL_LOOPS (f32, float)
DEFINE_POOL_LOOPS (f64, double)
DEFINE_AVG_LOOPS (f32, float)
DEFINE_AVG_LOOPS (f64, double)
/* PyTorch averages int64 too, with C's division (toward zero). */
DEFINE_AVG_LOOPS (i64, gint64)

static void
max_plane_f64 (const PoolJob *job,
               gint64         p)
{
  for (gint64 oy = 0; oy < job->g->out[0]; oy++)
    max_row_f64 (job, p, oy, 0, job->g->out[1]);
}

#ifdef __SSE2__
/* Four outputs ox.. of row oy whose x windows lie inside the row (every tap
 * counts), four lanes at once with the same comparisons as take_f32. A lane
 * keeps its best tap as an offset from the window's first place. */
static void
max_quad_f32 (const PoolJob *job,
              const float   *src,
              float         *dst,
              gint64        *idx,
              gint64         oy,
              gint64         ox)
{
  const CrPoolGeom *g = job->g;
  const Window *y = &job->wy[oy], *wx = &job->wx[ox];
  gint64 W = g->in[1], sx = g->stride[1], dx = g->dilation[1];
  const float *plane_end = src + job->in_plane;
  __m128 best = _mm_set1_ps (-INFINITY);
  __m128i at = _mm_setzero_si128 ();

  for (gint64 iy = y->first; iy < y->end; iy += y->step)
    {
      const float *row = src + iy * W + wx->base;

      for (gint64 j = 0; j < job->x_taps; j++)
        {
          const float *q = row + j * dx;
          __m128 v, take;
          __m128i tap, take_i;

          if (sx == 1)
            v = _mm_loadu_ps (q);
          else if (sx == 2 && q + 8 <= plane_end)
            v = _mm_shuffle_ps (_mm_loadu_ps (q), _mm_loadu_ps (q + 4), _MM_SHUFFLE (2, 0, 2, 0));
          else
            v = _mm_setr_ps (q[0], q[sx], q[2 * sx], q[3 * sx]);
          take = _mm_or_ps (_mm_cmpgt_ps (v, best), _mm_cmpunord_ps (v, v));
          take_i = _mm_castps_si128 (take);
          tap = _mm_set1_epi32 ((gint32) ((iy - y->first) * W + j * dx));
          best = _mm_or_ps (_mm_and_ps (take, v), _mm_andnot_ps (take, best));
          at = _mm_or_si128 (_mm_and_si128 (take_i, tap), _mm_andnot_si128 (take_i, at));
        }
    }
  _mm_storeu_ps (dst + oy * g->out[1] + ox, best);
  /* index k = the first place of window k (base + k·sx) + its lane's offset,
   * widened to int64 (the offsets are not negative). */
  {
    gint64 base = y->first * W + wx->base;
    __m128i zero = _mm_setzero_si128 ();
    __m128i lo = _mm_add_epi64 (_mm_unpacklo_epi32 (at, zero), _mm_set_epi64x (base + sx, base));
    __m128i hi = _mm_add_epi64 (_mm_unpackhi_epi32 (at, zero),
                                _mm_set_epi64x (base + 3 * sx, base + 2 * sx));

    _mm_storeu_si128 ((__m128i *) (idx + oy * g->out[1] + ox), lo);
    _mm_storeu_si128 ((__m128i *) (idx + oy * g->out[1] + ox + 2), hi);
  }
}
#endif

static void
max_plane_f32 (const PoolJob *job,
               gint64         p)
{
  gint64 OW = job->g->out[1];

  for (gint64 oy = 0; oy < job->g->out[0]; oy++)
    {
      gint64 ox = 0;

#ifdef __SSE2__
      if (job->quad_end - job->quad_begin >= 4)
        {
          const float *src = (const float *) job->in + p * job->in_plane;
          float *dst = (float *) job->out + p * job->out_plane;
          gint64 *idx = job->out_indices + p * job->out_plane;

          max_row_f32 (job, p, oy, 0, job->quad_begin);
          for (ox = job->quad_begin; ox + 4 <= job->quad_end; ox += 4)
            max_quad_f32 (job, src, dst, idx, oy, ox);
        }
#endif
      max_row_f32 (job, p, oy, ox, OW);
    }
}

/* The outputs [*begin, *end) whose x windows have all their taps inside the
 * row, evenly spaced: where max_quad_f32 applies (none when the plane is too
 * big for its 32-bit tap offsets). */
static void
quad_range (const PoolJob *job,
            gint64        *begin,
            gint64        *end)
{
  const CrPoolGeom *g = job->g;
  gint64 o = 0;

  *begin = *end = 0;
  if (g->adaptive || job->in_plane > G_MAXINT32 || job->x_taps < 1)
    return;
  while (o < g->out[1] && job->wx[o].first != job->wx[o].base)
    o++;
  *begin = o;
  while (o < g->out[1] && job->wx[o].first == job->wx[o].base
         && job->wx[o].base + (job->x_taps - 1) * job->wx[o].step < job->wx[o].end)
    o++;
  *end = o;
}

typedef enum {
  POOL_MAX,
  POOL_MAX_SCATTER,
  POOL_MAX_GATHER,
  POOL_AVG,
  POOL_AVG_SCATTER,
} PoolKind;

typedef struct {
  PoolJob  job;
  PoolKind kind;
} PoolTask;

static void
pool_tasks (gint64   begin,
            gint64   end,
            gpointer data)
{
  const PoolTask *t = data;
  gboolean f32 = t->job.dtype == CR_DTYPE_FLOAT32;

  if (t->job.dtype == CR_DTYPE_INT64)
    {
      for (gint64 p = begin; p < end; p++)
        if (t->kind == POOL_AVG)
          avg_plane_i64 (&t->job, p);
        else if (t->kind == POOL_AVG_SCATTER)
          avg_scatter_i64 (&t->job, p);
      return;
    }

  for (gint64 p = begin; p < end; p++)
    switch (t->kind)
      {
      case POOL_MAX:         f32 ? max_plane_f32 (&t->job, p) : max_plane_f64 (&t->job, p); break;
      case POOL_MAX_SCATTER: f32 ? max_scatter_f32 (&t->job, p) : max_scatter_f64 (&t->job, p); break;
      case POOL_MAX_GATHER:  f32 ? max_gather_f32 (&t->job, p) : max_gather_f64 (&t->job, p); break;
      case POOL_AVG:         f32 ? avg_plane_f32 (&t->job, p) : avg_plane_f64 (&t->job, p); break;
      case POOL_AVG_SCATTER: f32 ? avg_scatter_f32 (&t->job, p) : avg_scatter_f64 (&t->job, p); break;
      default: break;
      }
}

static gboolean
check_float (CrDType      dtype,
             const char  *kernel,
             GError     **error)
{
  if (!cr_dtype_is_floating (dtype))
    {
      cr_cpu_set_not_implemented (error, kernel, dtype);
      return FALSE;
    }
  return TRUE;
}

/* t's shape with the last two sizes replaced. */
static void
plane_shape (const CrTensor *t,
             gint64          h,
             gint64          w,
             gint64         *shape)
{
  memcpy (shape, t->shape, sizeof (gint64) * (gsize) t->ndim);
  shape[t->ndim - 2] = h;
  shape[t->ndim - 1] = w;
}

/* Runs kind over every plane: in (planes of in_h x in_w, any strides) into
 * out (zeroed first for the scatters). */
static gboolean
run_planes (PoolKind          kind,
            const CrPoolGeom *g,
            const CrTensor   *in,
            const CrTensor   *indices,
            CrTensor         *out,
            CrTensor         *out_indices,
            GError          **error)
{
  g_autoptr(CrTensor) ic = cr_tensor_contiguous ((CrTensor *) in, error);
  g_autoptr(CrTensor) xc = NULL;
  g_autofree Window *wy = g_new (Window, MAX (g->out[0], (gint64) 1));
  g_autofree Window *wx = g_new (Window, MAX (g->out[1], (gint64) 1));
  gint64 in_plane = in->shape[in->ndim - 2] * in->shape[in->ndim - 1];
  gint64 out_plane = out->shape[out->ndim - 2] * out->shape[out->ndim - 1];
  gint64 planes = in_plane > 0 ? in->numel / in_plane : 0;
  PoolTask task;

  if (ic == NULL)
    return FALSE;
  if (indices != NULL && (xc = cr_tensor_contiguous ((CrTensor *) indices, error)) == NULL)
    return FALSE;
  axis_windows (g, 0, wy);
  axis_windows (g, 1, wx);
  task.job.x_taps = g->adaptive ? 0 : g->kernel[1];
  for (gint64 o = 0; g->adaptive && o < g->out[1]; o++)
    task.job.x_taps = MAX (task.job.x_taps, wx[o].end - wx[o].first);
  task.kind = kind;
  task.job.g = g;
  task.job.dtype = in->dtype;
  task.job.wy = wy;
  task.job.wx = wx;
  task.job.in = cr_cpu_data (ic);
  task.job.out = cr_cpu_data (out);
  task.job.indices = xc != NULL ? (const gint64 *) cr_cpu_data (xc) : NULL;
  task.job.out_indices = out_indices != NULL ? (gint64 *) cr_cpu_data (out_indices) : NULL;
  task.job.in_plane = in_plane;
  task.job.out_plane = out_plane;
  quad_range (&task.job, &task.job.quad_begin, &task.job.quad_end);
  cr_parallel_for (planes, MAX ((gint64) 1, CR_PARALLEL_GRAIN / MAX (in_plane + out_plane, (gint64) 1)),
                   pool_tasks, &task);
  return TRUE;
}

gboolean
cr_kernel_max_pool2d (const CrTensor   *x,
                      const CrPoolGeom *geom,
                      CrTensor        **out_values,
                      CrTensor        **out_indices,
                      GError          **error)
{
  gint64 shape[CR_MAX_DIMS];
  g_autoptr(CrTensor) values = NULL;
  g_autoptr(CrTensor) indices = NULL;

  CR_DISPATCH (x->device, max_pool2d, error, FALSE, x, geom, out_values, out_indices, error);
  if (!check_float (x->dtype, geom->adaptive ? "adaptive_max_pool2d" : "max_pool2d", error))
    return FALSE;
  plane_shape (x, geom->out[0], geom->out[1], shape);
  values = cr_tensor_new_empty (shape, x->ndim, x->dtype, CR_DEVICE_CPU, error);
  indices = values != NULL ? cr_tensor_new_empty (shape, x->ndim, CR_DTYPE_INT64, CR_DEVICE_CPU,
                                                  error) : NULL;
  if (indices == NULL || !run_planes (POOL_MAX, geom, x, NULL, values, indices, error))
    return FALSE;
  *out_values = g_steal_pointer (&values);
  *out_indices = g_steal_pointer (&indices);
  return TRUE;
}

CrTensor *
cr_kernel_max_pool2d_backward (const CrTensor   *gy,
                               const CrTensor   *indices,
                               const CrPoolGeom *geom,
                               GError          **error)
{
  gint64 shape[CR_MAX_DIMS];
  g_autoptr(CrTensor) out = NULL;

  CR_DISPATCH (cr_cpu_device2 (gy, indices), max_pool2d_backward, error, NULL,
               gy, indices, geom, error);
  if (!check_float (gy->dtype, "max_pool2d_backward", error))
    return NULL;
  plane_shape (gy, geom->in[0], geom->in[1], shape);
  out = cr_tensor_new_zeros (shape, gy->ndim, gy->dtype, CR_DEVICE_CPU, error);
  if (out == NULL || !run_planes (POOL_MAX_SCATTER, geom, gy, indices, out, NULL, error))
    return NULL;
  return g_steal_pointer (&out);
}

CrTensor *
cr_kernel_max_pool2d_gather (const CrTensor   *g,
                             const CrTensor   *indices,
                             const CrPoolGeom *geom,
                             GError          **error)
{
  gint64 shape[CR_MAX_DIMS];
  g_autoptr(CrTensor) out = NULL;

  CR_DISPATCH (cr_cpu_device2 (g, indices), max_pool2d_gather, error, NULL,
               g, indices, geom, error);
  if (!check_float (g->dtype, "max_pool2d_with_indices_backward", error))
    return NULL;
  plane_shape (g, geom->out[0], geom->out[1], shape);
  out = cr_tensor_new_empty (shape, g->ndim, g->dtype, CR_DEVICE_CPU, error);
  if (out == NULL || !run_planes (POOL_MAX_GATHER, geom, g, indices, out, NULL, error))
    return NULL;
  return g_steal_pointer (&out);
}

CrTensor *
cr_kernel_avg_pool2d (const CrTensor   *x,
                      const CrPoolGeom *geom,
                      GError          **error)
{
  gint64 shape[CR_MAX_DIMS];
  g_autoptr(CrTensor) out = NULL;

  CR_DISPATCH (x->device, avg_pool2d, error, NULL, x, geom, error);
  if ((geom->adaptive || x->dtype != CR_DTYPE_INT64)
      && !check_float (x->dtype, geom->adaptive ? "adaptive_avg_pool2d" : "avg_pool2d", error))
    return NULL;
  plane_shape (x, geom->out[0], geom->out[1], shape);
  out = cr_tensor_new_empty (shape, x->ndim, x->dtype, CR_DEVICE_CPU, error);
  if (out == NULL || !run_planes (POOL_AVG, geom, x, NULL, out, NULL, error))
    return NULL;
  return g_steal_pointer (&out);
}

CrTensor *
cr_kernel_avg_pool2d_backward (const CrTensor   *gy,
                               const CrPoolGeom *geom,
                               GError          **error)
{
  gint64 shape[CR_MAX_DIMS];
  g_autoptr(CrTensor) out = NULL;

  CR_DISPATCH (gy->device, avg_pool2d_backward, error, NULL, gy, geom, error);
  if (!check_float (gy->dtype, "avg_pool2d_backward", error))
    return NULL;
  plane_shape (gy, geom->in[0], geom->in[1], shape);
  out = cr_tensor_new_zeros (shape, gy->ndim, gy->dtype, CR_DEVICE_CPU, error);
  if (out == NULL || !run_planes (POOL_AVG_SCATTER, geom, gy, NULL, out, NULL, error))
    return NULL;
  return g_steal_pointer (&out);
}
