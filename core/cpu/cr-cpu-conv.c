/* cr-cpu-conv.c — 2-d convolution on the CPU: im2col + GEMM, col2im.
 *
 * A chunk of the batch becomes one column matrix cols (C·kh·kw, nb·L), L =
 * oh·ow, row (c·kh + i)·kw + j, column b·L + l. Each group is then one GEMM
 * with long rows, which OpenBLAS threads well even for the few output
 * channels of a small CNN (one GEMM per sample would be 32 tiny ones).
 * im2col, col2im and the (OC, nb·L) <-> (nb, OC, L) layout changes are split
 * over (channel, sample) pairs on the thread pool; each pair writes its own
 * rows or its own plane, so no two chunks touch the same memory.
 *
 * The batch is cut into chunks so that the column matrix stays near
 * COLS_BUDGET elements: memory stays proportional to one chunk, not to the
 * batch. float32/float64 go to BLAS; int64 (PyTorch allows it) to a plain
 * loop. Tensors on another device go to its backend (cr-backend.h). */
#include "cr-cpu-private.h"
#include "cr-kernels-conv.h"

#include <cblas.h>

/* Elements of a chunk's column matrix (16 MiB of float32). */
#define COLS_BUDGET ((gint64) 4 << 20)

typedef struct {
  CrDType dtype;
  gint64  N, C, H, W;
  gint64  OC, kh, kw, oh, ow;
  gint64  groups, Cg, OCg;
  gint64  L;          /* oh·ow */
  gint64  K;          /* kh·kw */
  gint64  CgK;        /* rows of one group's columns */
  CrConvGeom g;
} ConvShape;

/* a·b for sizes (>= 0), G_MAXINT64 when it would overflow: a hostile
 * geometry then fails to allocate instead of wrapping. */
static gint64
mul_sat (gint64 a,
         gint64 b)
{
  if (a <= 0 || b <= 0)
    return 0;
  return a > G_MAXINT64 / b ? G_MAXINT64 : a * b;
}

static void
conv_shape_init (ConvShape        *s,
                 CrDType           dtype,
                 gint64            N,
                 gint64            C,
                 gint64            H,
                 gint64            W,
                 gint64            OC,
                 gint64            kh,
                 gint64            kw,
                 const CrConvGeom *geom)
{
  s->dtype = dtype;
  s->N = N;
  s->C = C;
  s->H = H;
  s->W = W;
  s->OC = OC;
  s->kh = kh;
  s->kw = kw;
  s->g = *geom;
  s->oh = (H + 2 * geom->padding[0] - geom->dilation[0] * (kh - 1) - 1) / geom->stride[0] + 1;
  s->ow = (W + 2 * geom->padding[1] - geom->dilation[1] * (kw - 1) - 1) / geom->stride[1] + 1;
  s->groups = geom->groups;
  s->Cg = C / geom->groups;
  s->OCg = OC / geom->groups;
  s->L = mul_sat (s->oh, s->ow);
  s->K = mul_sat (kh, kw);
  s->CgK = mul_sat (s->Cg, s->K);
}

/* Samples per chunk. */
static gint64
chunk_size (const ConvShape *s)
{
  gint64 per_sample = MAX (mul_sat (mul_sat (s->C, s->K), s->L), (gint64) 1);

  return CLAMP (COLS_BUDGET / per_sample, (gint64) 1, MAX (s->N, (gint64) 1));
}

/* Tasks per pool chunk so that each moves about CR_PARALLEL_GRAIN elements. */
static gint64
task_grain (gint64 elements_per_task)
{
  return MAX ((gint64) 1, CR_PARALLEL_GRAIN / MAX (elements_per_task, (gint64) 1));
}

/* The output columns ox whose input column ox·stride + offset lies in
 * [0, size): [*lo, *hi). */
static void
valid_range (gint64  n_out,
             gint64  stride,
             gint64  offset,
             gint64  size,
             gint64 *lo,
             gint64 *hi)
{
  gint64 a = offset >= 0 ? 0 : (-offset + stride - 1) / stride;
  gint64 b = size - 1 - offset < 0 ? 0 : (size - 1 - offset) / stride + 1;

  *lo = MIN (a, n_out);
  *hi = CLAMP (b, *lo, n_out);
}

/* ---- im2col and col2im, one (channel, sample) pair per task ------------- */

typedef struct {
  const ConvShape *s;
  const char      *x;       /* (N, C, H, W) contiguous: im2col's source, col2im's target */
  char            *xw;
  char            *cols;    /* (C·K, nb·L) */
  gint64           n0, nb;
  /* valid_range per kernel row i (y_lo[i], y_hi[i]: output rows) and column
   * j (x_lo[j], x_hi[j]: output columns), worked out once per call. */
  gint64          *y_lo, *y_hi, *x_lo, *x_hi;
} ColsJob;

/* Copies rows of `bytes` bytes from src (rows src_step bytes apart) to
 * dst (packed; no overlap). Rows are short (a LeNet's are 8 to 24
 * elements): 16-byte moves, the last one of a row overlapping the one
 * before, rather than a call to memcpy or a loop with an epilogue. */
static G_GNUC_NO_INLINE void
copy_rows (void       *restrict dst,
           const void *restrict src,
           gint64               rows,
           gsize                bytes,
           gsize                src_step)
{
  char *d = dst;
  const char *s = src;
  gsize full = bytes / 16, tail = bytes % 16;

  if (bytes < 16)
    {
      for (gint64 r = 0; r < rows; r++, d += bytes, s += src_step)
        memcpy (d, s, bytes);
      return;
    }
  for (gint64 r = 0; r < rows; r++, d += bytes, s += src_step)
    {
      /* A switch, not a loop: gcc would turn a loop into a memcpy call. */
      switch (full)
        {
        case 8: memcpy (d + 112, s + 112, 16); G_GNUC_FALLTHROUGH;
        case 7: memcpy (d + 96, s + 96, 16); G_GNUC_FALLTHROUGH;
        case 6: memcpy (d + 80, s + 80, 16); G_GNUC_FALLTHROUGH;
        case 5: memcpy (d + 64, s + 64, 16); G_GNUC_FALLTHROUGH;
        case 4: memcpy (d + 48, s + 48, 16); G_GNUC_FALLTHROUGH;
        case 3: memcpy (d + 32, s + 32, 16); G_GNUC_FALLTHROUGH;
        case 2: memcpy (d + 16, s + 16, 16); G_GNUC_FALLTHROUGH;
        case 1: memcpy (d, s, 16); break;
        default: memcpy (d, s, bytes); continue;
        }
      if (tail != 0)
        memcpy (d + bytes - 16, s + bytes - 16, 16);
    }
}

/* rows of n elements: dst (rows dst_step apart) += src (packed), two
 * buffers that do not overlap. Not inlined: inside col2im's loops gcc runs
 * out of registers. Four at a time written out, which gcc makes one vector
 * add without the prologue and epilogue of a vectorised loop (rows are
 * short). */
#define DEFINE_ADD_ROW(suffix, T)                                               \
static G_GNUC_NO_INLINE void                                                    \
add_rows_##suffix (T *restrict dst, gint64 dst_step, const T *restrict src,     \
                   gint64 rows, gint64 n)                                       \
{                                                                               \
  for (gint64 r = 0; r < rows; r++, dst += dst_step, src += n)                  \
    {                                                                           \
      gint64 k = 0;                                                             \
                                                                                \
      for (; k + 4 <= n; k += 4)                                                \
        {                                                                       \
          dst[k] += src[k];                                                     \
          dst[k + 1] += src[k + 1];                                             \
          dst[k + 2] += src[k + 2];                                             \
          dst[k + 3] += src[k + 3];                                             \
        }                                                                       \
      for (; k < n; k++)                                                        \
        dst[k] += src[k];                                                       \
    }                                                                           \
}
DEFINE_ADD_ROW (f32, float)
DEFINE_ADD_ROW (f64, double)
DEFINE_ADD_ROW (i64, gint64)

#define DEFINE_COLS_LOOPS(suffix, T)                                            \
static void                                                                     \
im2col_##suffix (const ColsJob *job, gint64 c, gint64 b)                        \
{                                                                               \
  const ConvShape *s = job->s;                                                  \
  const T *src = (const T *) job->x + ((job->n0 + b) * s->C + c) * s->H * s->W; \
  gint64 ld = job->nb * s->L, sy = s->g.stride[0], sx = s->g.stride[1];          \
                                                                                \
  for (gint64 i = 0; i < s->kh; i++)                                            \
    for (gint64 j = 0; j < s->kw; j++)                                          \
      {                                                                         \
        T *dst = (T *) job->cols + ((c * s->kh + i) * s->kw + j) * ld + b * s->L; \
        gint64 xoff = j * s->g.dilation[1] - s->g.padding[1];                   \
        gint64 yoff = i * s->g.dilation[0] - s->g.padding[0];                   \
                                                                                \
        gint64 lo = job->x_lo[j], hi = job->x_hi[j];                            \
        gint64 oy_lo = job->y_lo[i], oy_hi = job->y_hi[i];                      \
        /* Rows whose input row is padding are zeros. */                        \
        if (oy_lo > 0)                                                          \
          memset (dst, 0, sizeof (T) * (gsize) (oy_lo * s->ow));                \
        if (oy_hi < s->oh)                                                      \
          memset (dst + oy_hi * s->ow, 0, sizeof (T) * (gsize) ((s->oh - oy_hi) * s->ow)); \
        if (sx == 1 && lo == 0 && hi == s->ow)                                  \
          {                                                                     \
            copy_rows (dst + oy_lo * s->ow, src + (oy_lo * sy + yoff) * s->W + xoff, \
                       oy_hi - oy_lo, sizeof (T) * (gsize) s->ow,               \
                       sizeof (T) * (gsize) (sy * s->W));                       \
            continue;                                                           \
          }                                                                     \
        for (gint64 oy = oy_lo; oy < oy_hi; oy++)                               \
          {                                                                     \
            T *out = dst + oy * s->ow;                                          \
            const T *row = src + (oy * sy + yoff) * s->W + xoff;                \
                                                                                \
            for (gint64 ox = 0; ox < lo; ox++)                                  \
              out[ox] = 0;                                                      \
            for (gint64 ox = lo; ox < hi; ox++)                                 \
              out[ox] = row[ox * sx];                                           \
            for (gint64 ox = hi; ox < s->ow; ox++)                              \
              out[ox] = 0;                                                      \
          }                                                                     \
      }                                                                         \
}                                                                               \
                                                                                \
static void                                                                     \
col2im_##suffix (const ColsJob *job, gint64 c, gint64 b)                        \
{                                                                               \
  const ConvShape *s = job->s;                                                  \
  T *dst = (T *) job->xw + ((job->n0 + b) * s->C + c) * s->H * s->W;            \
  gint64 ld = job->nb * s->L, sy = s->g.stride[0], sx = s->g.stride[1];          \
                                                                                \
  for (gint64 i = 0; i < s->kh; i++)                                            \
    for (gint64 j = 0; j < s->kw; j++)                                          \
      {                                                                         \
        const T *src = (const T *) job->cols + ((c * s->kh + i) * s->kw + j) * ld \
                       + b * s->L;                                              \
        gint64 xoff = j * s->g.dilation[1] - s->g.padding[1];                   \
        gint64 yoff = i * s->g.dilation[0] - s->g.padding[0];                   \
                                                                                \
        gint64 lo = job->x_lo[j], hi = job->x_hi[j];                            \
        gint64 oy_lo = job->y_lo[i], oy_hi = job->y_hi[i];                      \
        if (sx == 1 && lo == 0 && hi == s->ow)                                  \
          {                                                                     \
            add_rows_##suffix (dst + (oy_lo * sy + yoff) * s->W + xoff, sy * s->W, \
                               src + oy_lo * s->ow, oy_hi - oy_lo, s->ow);      \
            continue;                                                           \
          }                                                                     \
        for (gint64 oy = oy_lo; oy < oy_hi; oy++)                               \
          {                                                                     \
            T *row = dst + (oy * sy + yoff) * s->W + xoff;                      \
            const T *in = src + oy * s->ow;                                     \
                                                                                \
            for (gint64 ox = lo; ox < hi; ox++)                                 \
              row[ox * sx] += in[ox];                                           \
          }                                                                     \
      }                                                                         \
}

DEFINE_COLS_LOOPS (f32, float)
DEFINE_COLS_LOOPS (f64, double)
DEFINE_COLS_LOOPS (i64, gint64)

static void
im2col_tasks (gint64   begin,
              gint64   end,
              gpointer data)
{
  const ColsJob *job = data;

  for (gint64 t = begin; t < end; t++)
    {
      gint64 c = t / job->nb, b = t % job->nb;

      switch (job->s->dtype)
        {
        case CR_DTYPE_FLOAT32: im2col_f32 (job, c, b); break;
        case CR_DTYPE_FLOAT64: im2col_f64 (job, c, b); break;
        default:               im2col_i64 (job, c, b); break;
        }
    }
}

static void
col2im_tasks (gint64   begin,
              gint64   end,
              gpointer data)
{
  const ColsJob *job = data;

  for (gint64 t = begin; t < end; t++)
    {
      gint64 c = t / job->nb, b = t % job->nb;

      switch (job->s->dtype)
        {
        case CR_DTYPE_FLOAT32: col2im_f32 (job, c, b); break;
        case CR_DTYPE_FLOAT64: col2im_f64 (job, c, b); break;
        default:               col2im_i64 (job, c, b); break;
        }
    }
}

/* job for im2col or col2im of samples [n0, n0 + nb); free its ranges with
 * g_free of job->y_lo. */
static void
cols_job_init (ColsJob         *job,
               const ConvShape *s,
               const void      *x,
               void            *xw,
               const void      *cols,
               gint64           n0,
               gint64           nb)
{
  job->s = s;
  job->x = x;
  job->xw = xw;
  job->cols = (char *) cols;
  job->n0 = n0;
  job->nb = nb;
  job->y_lo = g_new (gint64, 2 * (s->kh + s->kw));
  job->y_hi = job->y_lo + s->kh;
  job->x_lo = job->y_hi + s->kh;
  job->x_hi = job->x_lo + s->kw;
  for (gint64 i = 0; i < s->kh; i++)
    valid_range (s->oh, s->g.stride[0], i * s->g.dilation[0] - s->g.padding[0], s->H,
                 &job->y_lo[i], &job->y_hi[i]);
  for (gint64 j = 0; j < s->kw; j++)
    valid_range (s->ow, s->g.stride[1], j * s->g.dilation[1] - s->g.padding[1], s->W,
                 &job->x_lo[j], &job->x_hi[j]);
}

static void
im2col (const ConvShape *s,
        const void      *x,
        void            *cols,
        gint64           n0,
        gint64           nb)
{
  ColsJob job;

  cols_job_init (&job, s, x, NULL, cols, n0, nb);
  cr_parallel_for (s->C * nb, task_grain (s->K * s->L), im2col_tasks, &job);
  g_free (job.y_lo);
}

/* Adds the columns into x (which the caller has zeroed). */
static void
col2im (const ConvShape *s,
        void            *x,
        const void      *cols,
        gint64           n0,
        gint64           nb)
{
  ColsJob job;

  cols_job_init (&job, s, NULL, x, cols, n0, nb);
  cr_parallel_for (s->C * nb, task_grain (s->K * s->L), col2im_tasks, &job);
  g_free (job.y_lo);
}

/* ---- (OC, nb·L) <-> (nb, OC, L), with the bias ---------------------------- */

typedef struct {
  CrDType     dtype;
  gint64      rows, nb, L;
  char       *wide;       /* (rows, nb·L) */
  char       *batch;      /* (N, rows, L) at sample n0 */
  const char *bias;       /* (rows) or NULL */
  gboolean    to_batch;
} LayoutJob;

static void
layout_tasks (gint64   begin,
              gint64   end,
              gpointer data)
{
  const LayoutJob *job = data;
  gsize isz = cr_cpu_itemsize (job->dtype);

  for (gint64 t = begin; t < end; t++)
    {
      gint64 r = t / job->nb, b = t % job->nb;
      char *w = job->wide + (gsize) (r * job->nb * job->L + b * job->L) * isz;
      char *p = job->batch + (gsize) ((b * job->rows + r) * job->L) * isz;

      if (!job->to_batch)
        {
          memcpy (w, p, (gsize) job->L * isz);
          continue;
        }
      if (job->bias == NULL)
        {
          memcpy (p, w, (gsize) job->L * isz);
          continue;
        }
      /* The copy and the bias in one pass; the bias read once (p could
       * alias it for all gcc knows). */
      switch (job->dtype)
        {
        case CR_DTYPE_FLOAT32:
          {
            float *restrict row = (float *) p, b0 = ((const float *) job->bias)[r];
            const float *restrict from = (const float *) w;

            for (gint64 l = 0; l < job->L; l++)
              row[l] = from[l] + b0;
          }
          break;
        case CR_DTYPE_FLOAT64:
          {
            double *restrict row = (double *) p, b0 = ((const double *) job->bias)[r];
            const double *restrict from = (const double *) w;

            for (gint64 l = 0; l < job->L; l++)
              row[l] = from[l] + b0;
          }
          break;
        default:
          {
            gint64 *restrict row = (gint64 *) p, b0 = ((const gint64 *) job->bias)[r];
            const gint64 *restrict from = (const gint64 *) w;

            for (gint64 l = 0; l < job->L; l++)
              row[l] = from[l] + b0;
          }
          break;
        }
    }
}

static void
relayout (CrDType     dtype,
          gint64      rows,
          gint64      nb,
          gint64      L,
          void       *wide,
          void       *batch,
          const void *bias,
          gboolean    to_batch)
{
  LayoutJob job = { dtype, rows, nb, L, wide, batch, bias, to_batch };

  cr_parallel_for (rows * nb, task_grain (L), layout_tasks, &job);
}

/* Adds bias[c] to every element of plane c of the (N, C, HW) tensor at x. */
static void
add_bias_planes (CrDType     dtype,
                 void       *x,
                 const void *bias,
                 gint64      N,
                 gint64      C,
                 gint64      HW)
{
  for (gint64 n = 0; n < N; n++)
    for (gint64 c = 0; c < C; c++)
      {
        gint64 base = (n * C + c) * HW;

        switch (dtype)
          {
          case CR_DTYPE_FLOAT32:
            for (gint64 l = 0; l < HW; l++)
              ((float *) x)[base + l] += ((const float *) bias)[c];
            break;
          case CR_DTYPE_FLOAT64:
            for (gint64 l = 0; l < HW; l++)
              ((double *) x)[base + l] += ((const double *) bias)[c];
            break;
          default:
            for (gint64 l = 0; l < HW; l++)
              ((gint64 *) x)[base + l] += ((const gint64 *) bias)[c];
            break;
          }
      }
}

/* ---- GEMM --------------------------------------------------------------- */

/* c (m, n) = beta·c + op(a) (m, k) @ op(b) (k, n), row-major. */
static void
gemm (CrDType     dtype,
      gboolean    trans_a,
      gboolean    trans_b,
      gint64      m,
      gint64      n,
      gint64      k,
      const void *a,
      gint64      lda,
      const void *b,
      gint64      ldb,
      double      beta,
      void       *c,
      gint64      ldc)
{
  if (m == 0 || n == 0)
    return;
  if (dtype == CR_DTYPE_INT64)
    {
      const gint64 *ai = a, *bi = b;
      gint64 *ci = c;

      for (gint64 i = 0; i < m; i++)
        for (gint64 j = 0; j < n; j++)
          {
            gint64 sum = beta == 0.0 ? 0 : ci[i * ldc + j];

            for (gint64 p = 0; p < k; p++)
              sum += (trans_a ? ai[p * lda + i] : ai[i * lda + p])
                     * (trans_b ? bi[j * ldb + p] : bi[p * ldb + j]);
            ci[i * ldc + j] = sum;
          }
      return;
    }
  if (k == 0)
    {
      if (beta == 0.0)
        for (gint64 i = 0; i < m; i++)
          memset ((char *) c + (gsize) (i * ldc) * cr_cpu_itemsize (dtype), 0,
                  (gsize) n * cr_cpu_itemsize (dtype));
      return;
    }
  /* Makes sure OpenBLAS got the configured thread count before its first call. */
  (void) cr_threads_get ();
  if (dtype == CR_DTYPE_FLOAT32)
    cblas_sgemm (CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans,
                 trans_b ? CblasTrans : CblasNoTrans, (blasint) m, (blasint) n, (blasint) k,
                 1.0f, a, (blasint) lda, b, (blasint) ldb, (float) beta, c, (blasint) ldc);
  else
    cblas_dgemm (CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans,
                 trans_b ? CblasTrans : CblasNoTrans, (blasint) m, (blasint) n, (blasint) k,
                 1.0, a, (blasint) lda, b, (blasint) ldb, beta, c, (blasint) ldc);
}

/* ---- shared checks and buffers ------------------------------------------ */

static gboolean
check_dtype (CrDType      dtype,
             const char  *kernel,
             GError     **error)
{
  if (dtype == CR_DTYPE_BOOL)
    {
      cr_cpu_set_not_implemented (error, kernel, dtype);
      return FALSE;
    }
  return TRUE;
}

/* A scratch buffer of n elements (g_try_malloc: a huge convolution is a
 * RuntimeError, not an abort). */
static void *
scratch (gint64    n,
         CrDType   dtype,
         GError  **error)
{
  gsize bytes = (gsize) MAX (mul_sat (n, (gint64) cr_cpu_itemsize (dtype)), (gint64) 1);
  void *p = g_try_malloc (bytes);

  if (p == NULL)
    g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                 "[enforce fail at alloc_cpu.cpp:75] data. DefaultCPUAllocator: not enough "
                 "memory: you tried to allocate %" G_GSIZE_FORMAT " bytes.", bytes);
  return p;
}

/* The device of the first tensor not on the CPU. */
static CrDeviceType
device_of (const CrTensor *a,
           const CrTensor *b,
           const CrTensor *c)
{
  if (a->device != CR_DEVICE_CPU)
    return a->device;
  if (b->device != CR_DEVICE_CPU)
    return b->device;
  return c != NULL ? c->device : CR_DEVICE_CPU;
}

/* ---- the three kernels -------------------------------------------------- */

CrTensor *
cr_kernel_conv2d (const CrTensor   *x,
                  const CrTensor   *w,
                  const CrTensor   *bias,
                  const CrConvGeom *geom,
                  GError          **error)
{
  g_autoptr(CrTensor) xc = NULL;
  g_autoptr(CrTensor) wc = NULL;
  g_autoptr(CrTensor) bc = NULL;
  g_autofree void *cols = NULL;
  g_autofree void *wide = NULL;
  ConvShape s;
  gint64 shape[4], chunk;
  gsize isz;
  CrTensor *out;

  CR_DISPATCH (device_of (x, w, bias), conv2d, error, NULL, x, w, bias, geom, error);
  if (!check_dtype (x->dtype, "slow_conv2d_cpu", error))
    return NULL;

  conv_shape_init (&s, x->dtype, x->shape[0], x->shape[1], x->shape[2], x->shape[3],
                   w->shape[0], w->shape[2], w->shape[3], geom);
  shape[0] = s.N;
  shape[1] = s.OC;
  shape[2] = s.oh;
  shape[3] = s.ow;
  out = cr_tensor_new_empty (shape, 4, x->dtype, CR_DEVICE_CPU, error);
  if (out == NULL)
    return NULL;
  if (out->numel == 0)
    return out;

  xc = cr_tensor_contiguous ((CrTensor *) x, error);
  wc = xc != NULL ? cr_tensor_contiguous ((CrTensor *) w, error) : NULL;
  if (wc == NULL || (bias != NULL && (bc = cr_tensor_contiguous ((CrTensor *) bias, error)) == NULL))
    goto fail;

  isz = cr_cpu_itemsize (s.dtype);
  chunk = chunk_size (&s);
  cols = scratch (mul_sat (mul_sat (s.C, s.K), mul_sat (chunk, s.L)), s.dtype, error);
  wide = cols != NULL ? scratch (mul_sat (s.OC, mul_sat (chunk, s.L)), s.dtype, error) : NULL;
  if (wide == NULL)
    goto fail;

  for (gint64 n0 = 0; n0 < s.N; n0 += chunk)
    {
      gint64 nb = MIN (chunk, s.N - n0), ld = nb * s.L;

      im2col (&s, cr_cpu_data (xc), cols, n0, nb);
      for (gint64 g = 0; g < s.groups; g++)
        gemm (s.dtype, FALSE, FALSE, s.OCg, ld, s.CgK,
              cr_cpu_data (wc) + (gsize) (g * s.OCg * s.CgK) * isz, s.CgK,
              (char *) cols + (gsize) (g * s.CgK * ld) * isz, ld,
              0.0, (char *) wide + (gsize) (g * s.OCg * ld) * isz, ld);
      relayout (s.dtype, s.OC, nb, s.L, wide,
                cr_cpu_data (out) + (gsize) (n0 * s.OC * s.L) * isz,
                bc != NULL ? cr_cpu_data (bc) : NULL, TRUE);
    }
  return out;

fail:
  cr_tensor_unref (out);
  return NULL;
}

CrTensor *
cr_kernel_conv2d_input_grad (const CrTensor   *gy,
                             const CrTensor   *w,
                             const CrTensor   *bias,
                             const CrConvGeom *geom,
                             gint64            height,
                             gint64            width,
                             GError          **error)
{
  g_autoptr(CrTensor) gc = NULL;
  g_autoptr(CrTensor) wc = NULL;
  g_autoptr(CrTensor) bc = NULL;
  g_autofree void *cols = NULL;
  g_autofree void *wide = NULL;
  ConvShape s;
  gint64 shape[4], chunk;
  gsize isz;
  CrTensor *out;

  CR_DISPATCH (device_of (gy, w, bias), conv2d_input_grad, error, NULL,
               gy, w, bias, geom, height, width, error);
  if (!check_dtype (gy->dtype, "slow_conv_transpose2d_out_cpu", error))
    return NULL;

  conv_shape_init (&s, gy->dtype, gy->shape[0], w->shape[1] * geom->groups, height, width,
                   w->shape[0], w->shape[2], w->shape[3], geom);
  shape[0] = s.N;
  shape[1] = s.C;
  shape[2] = s.H;
  shape[3] = s.W;
  out = cr_tensor_new_zeros (shape, 4, gy->dtype, CR_DEVICE_CPU, error);
  if (out == NULL)
    return NULL;
  if (out->numel == 0)
    return out;

  gc = cr_tensor_contiguous ((CrTensor *) gy, error);
  wc = gc != NULL ? cr_tensor_contiguous ((CrTensor *) w, error) : NULL;
  if (wc == NULL || (bias != NULL && (bc = cr_tensor_contiguous ((CrTensor *) bias, error)) == NULL))
    goto fail;

  isz = cr_cpu_itemsize (s.dtype);
  chunk = chunk_size (&s);
  cols = scratch (mul_sat (mul_sat (s.C, s.K), mul_sat (chunk, s.L)), s.dtype, error);
  wide = cols != NULL ? scratch (mul_sat (s.OC, mul_sat (chunk, s.L)), s.dtype, error) : NULL;
  if (wide == NULL)
    goto fail;

  for (gint64 n0 = 0; n0 < s.N; n0 += chunk)
    {
      gint64 nb = MIN (chunk, s.N - n0), ld = nb * s.L;

      relayout (s.dtype, s.OC, nb, s.L, wide,
                cr_cpu_data (gc) + (gsize) (n0 * s.OC * s.L) * isz, NULL, FALSE);
      for (gint64 g = 0; g < s.groups; g++)
        gemm (s.dtype, TRUE, FALSE, s.CgK, ld, s.OCg,
              cr_cpu_data (wc) + (gsize) (g * s.OCg * s.CgK) * isz, s.CgK,
              (char *) wide + (gsize) (g * s.OCg * ld) * isz, ld,
              0.0, (char *) cols + (gsize) (g * s.CgK * ld) * isz, ld);
      col2im (&s, cr_cpu_data (out), cols, n0, nb);
    }
  if (bc != NULL)
    add_bias_planes (s.dtype, cr_cpu_data (out), cr_cpu_data (bc), s.N, s.C, s.H * s.W);
  return out;

fail:
  cr_tensor_unref (out);
  return NULL;
}

CrTensor *
cr_kernel_conv2d_weight_grad (const CrTensor   *gy,
                              const CrTensor   *x,
                              const CrConvGeom *geom,
                              gint64            kernel_h,
                              gint64            kernel_w,
                              GError          **error)
{
  g_autoptr(CrTensor) gc = NULL;
  g_autoptr(CrTensor) xc = NULL;
  g_autofree void *cols = NULL;
  g_autofree void *wide = NULL;
  ConvShape s;
  gint64 shape[4], chunk;
  gsize isz;
  CrTensor *out;

  CR_DISPATCH (device_of (gy, x, NULL), conv2d_weight_grad, error, NULL,
               gy, x, geom, kernel_h, kernel_w, error);
  if (!check_dtype (gy->dtype, "slow_conv2d_cpu", error))
    return NULL;

  conv_shape_init (&s, gy->dtype, x->shape[0], x->shape[1], x->shape[2], x->shape[3],
                   gy->shape[1], kernel_h, kernel_w, geom);
  shape[0] = s.OC;
  shape[1] = s.Cg;
  shape[2] = s.kh;
  shape[3] = s.kw;
  out = cr_tensor_new_zeros (shape, 4, gy->dtype, CR_DEVICE_CPU, error);
  if (out == NULL)
    return NULL;
  if (out->numel == 0 || s.N * s.L == 0)
    return out;

  gc = cr_tensor_contiguous ((CrTensor *) gy, error);
  xc = gc != NULL ? cr_tensor_contiguous ((CrTensor *) x, error) : NULL;
  if (xc == NULL)
    goto fail;

  isz = cr_cpu_itemsize (s.dtype);
  chunk = chunk_size (&s);
  cols = scratch (mul_sat (mul_sat (s.C, s.K), mul_sat (chunk, s.L)), s.dtype, error);
  wide = cols != NULL ? scratch (mul_sat (s.OC, mul_sat (chunk, s.L)), s.dtype, error) : NULL;
  if (wide == NULL)
    goto fail;

  for (gint64 n0 = 0; n0 < s.N; n0 += chunk)
    {
      gint64 nb = MIN (chunk, s.N - n0), ld = nb * s.L;

      im2col (&s, cr_cpu_data (xc), cols, n0, nb);
      relayout (s.dtype, s.OC, nb, s.L, wide,
                cr_cpu_data (gc) + (gsize) (n0 * s.OC * s.L) * isz, NULL, FALSE);
      for (gint64 g = 0; g < s.groups; g++)
        gemm (s.dtype, FALSE, TRUE, s.OCg, s.CgK, ld,
              (char *) wide + (gsize) (g * s.OCg * ld) * isz, ld,
              (char *) cols + (gsize) (g * s.CgK * ld) * isz, ld,
              1.0, cr_cpu_data (out) + (gsize) (g * s.OCg * s.CgK) * isz, s.CgK);
    }
  return out;

fail:
  cr_tensor_unref (out);
  return NULL;
}
