/* cr-cuda-conv.c — the CUDA backend's convolution and pooling members.
 *
 * Convolution is the CPU's im2col + GEMM (core/cpu/cr-cpu-conv.c), on the
 * device: a chunk of the batch becomes the column matrix cols (C·kh·kw,
 * nb·L), L = oh·ow (the module's im2col), and each group is one matrix of a
 * single batched cuBLAS gemm (batch = groups). The (OC, nb·L) <-> (nb, OC,
 * L) layout changes are strided copies (none for a chunk of one sample),
 * the bias an in-place add_scaled, and the input gradient's columns go back
 * to the image with col2im. Pooling is one module kernel per member. The
 * ops above (ops/cr-ops-conv.c, cr-ops-pool.c) have checked devices and
 * shapes; everything stays on the device. */
#include "cr-cuda.h"
#include "cr-cuda-private.h"

#include <string.h>

#define CALL CR_CUDA_CALL

/* Elements of a chunk's column matrix (64 MiB of float32): memory stays
 * proportional to a chunk, not to the batch. Tests make it small. */
#define COLS_BUDGET ((gint64) 16 << 20)

static gint64 cols_budget = COLS_BUDGET;

void
cr_cuda_set_conv_chunk_elements (gint64 elements)
{
  cols_budget = elements > 0 ? elements : COLS_BUDGET;
}

typedef struct {
  gint64 N, C, H, W;
  gint64 OC, kh, kw, oh, ow;
  gint64 groups, Cg, OCg;
  gint64 L, K, CgK;
  gint64 chunk;            /* samples per chunk */
  CrCudaConvGeom g;
} ConvShape;

/* a·b for sizes (>= 0), G_MAXINT64 when it would overflow. */
static gint64
mul_sat (gint64 a, gint64 b)
{
  if (a <= 0 || b <= 0)
    return 0;
  return a > G_MAXINT64 / b ? G_MAXINT64 : a * b;
}

/* The shape of one convolution, or FALSE with a RuntimeError when a matrix
 * of it would not fit cuBLAS's int sizes. */
static gboolean
conv_shape_init (ConvShape *s, gint64 N, gint64 C, gint64 H, gint64 W, gint64 OC, gint64 kh,
                 gint64 kw, const CrConvGeom *geom, GError **error)
{
  gint64 per_sample;

  s->N = N;
  s->C = C;
  s->H = H;
  s->W = W;
  s->OC = OC;
  s->kh = kh;
  s->kw = kw;
  s->oh = (H + 2 * geom->padding[0] - geom->dilation[0] * (kh - 1) - 1) / geom->stride[0] + 1;
  s->ow = (W + 2 * geom->padding[1] - geom->dilation[1] * (kw - 1) - 1) / geom->stride[1] + 1;
  s->groups = geom->groups;
  s->Cg = C / geom->groups;
  s->OCg = OC / geom->groups;
  s->L = mul_sat (s->oh, s->ow);
  s->K = mul_sat (kh, kw);
  s->CgK = mul_sat (s->Cg, s->K);
  per_sample = MAX (mul_sat (mul_sat (C, s->K), s->L), (gint64) 1);
  s->chunk = CLAMP (cols_budget / per_sample, (gint64) 1, MAX (N, (gint64) 1));
  for (int a = 0; a < 2; a++)
    {
      s->g.kernel[a] = a == 0 ? kh : kw;
      s->g.stride[a] = geom->stride[a];
      s->g.padding[a] = geom->padding[a];
      s->g.dilation[a] = geom->dilation[a];
    }
  s->g.out[0] = s->oh;
  s->g.out[1] = s->ow;
  if (mul_sat (s->chunk, s->L) > G_MAXINT || s->CgK > G_MAXINT || s->OCg > G_MAXINT
      || s->groups > G_MAXINT)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "CUDA convolutions take matrices with sizes below 2^31");
      return FALSE;
    }
  return TRUE;
}

/* A descriptor of ndim dims over t's storage at offset (elements). */
static void
describe_raw (const CrTensor *t, gint64 offset, int ndim, const gint64 *shape,
              const gint64 *strides, CrCudaTensor *d)
{
  memset (d, 0, sizeof *d);
  d->data = t->storage->data;
  d->dtype = t->dtype;
  d->ndim = ndim;
  d->offset = offset;
  memcpy (d->shape, shape, sizeof (gint64) * (gsize) ndim);
  memcpy (d->strides, strides, sizeof (gint64) * (gsize) ndim);
}

/* Samples n0 .. n0 + nb - 1 of a 4-d tensor t (through its strides). */
static void
describe_samples (const CrTensor *t, gint64 n0, gint64 nb, CrCudaTensor *d)
{
  gint64 shape[4] = { nb, t->shape[1], t->shape[2], t->shape[3] };

  describe_raw (t, t->offset + n0 * t->strides[0], 4, shape, t->strides, d);
}

/* The column matrix (C·K, nb·L) in cols' storage. */
static void
describe_cols (const ConvShape *s, const CrTensor *cols, gint64 nb, CrCudaTensor *d)
{
  gint64 shape[2] = { s->C * s->K, nb * s->L };
  gint64 strides[2] = { MAX (nb * s->L, (gint64) 1), 1 };

  describe_raw (cols, 0, 2, shape, strides, d);
}

/* A (groups, rows, cols) matrix batch, row-major (transposed: the batch of
 * the transposes, column-major) over t's storage at offset. */
static void
describe_batch (const CrTensor *t, gint64 offset, gint64 groups, gint64 rows, gint64 cols,
                gboolean transposed, CrCudaTensor *d)
{
  gint64 shape[3], strides[3];

  strides[0] = rows * cols;
  if (!transposed)
    {
      shape[1] = rows;
      shape[2] = cols;
      strides[1] = MAX (cols, (gint64) 1);
      strides[2] = 1;
    }
  else
    {
      shape[1] = cols;
      shape[2] = rows;
      strides[1] = 1;
      strides[2] = MAX (cols, (gint64) 1);
    }
  shape[0] = groups;
  describe_raw (t, offset, 3, shape, strides, d);
}

/* (nb, OC, L) of a contiguous (N, OC, L) batch at sample n0 <-> the wide
 * matrix (OC, nb·L): a strided copy either way. */
static gboolean
relayout (const ConvShape *s, const CrTensor *batch, gint64 n0, gint64 nb, const CrTensor *wide,
          gboolean to_batch, GError **error)
{
  gint64 shape[3] = { nb, s->OC, s->L };
  gint64 batch_strides[3] = { s->OC * s->L, s->L, 1 };
  gint64 wide_strides[3] = { s->L, nb * s->L, 1 };
  CrCudaTensor db, dw;

  describe_raw (batch, batch->offset + n0 * s->OC * s->L, 3, shape, batch_strides, &db);
  describe_raw (wide, 0, 3, shape, wide_strides, &dw);
  return to_batch ? CALL (copy, &db, &dw) : CALL (copy, &dw, &db);
}

/* out (N, C, HW) += bias[c], in place. */
static gboolean
add_bias (CrTensor *out, const CrTensor *bias_in, gint64 C, GError **error)
{
  g_autoptr(CrTensor) bias = cr_cuda_as_dtype (bias_in, out->dtype, error);
  gint64 shape[3] = { out->shape[0], C, out->numel / MAX (out->shape[0] * C, (gint64) 1) };
  gint64 strides[3] = { C * shape[2], shape[2], 1 };
  gint64 bias_strides[3] = { 0, bias_in->ndim > 0 ? bias_in->strides[0] : 0, 0 };
  CrCudaTensor dout, db;

  if (bias == NULL)
    return FALSE;
  bias_strides[1] = bias->ndim > 0 ? bias->strides[0] : 0;
  describe_raw (out, out->offset, 3, shape, strides, &dout);
  describe_raw (bias, bias->offset, 3, shape, bias_strides, &db);
  return CALL (add_scaled, &dout, &dout, &db, 1.0);
}

/* Checks the dtype as the CPU kernels do, with their messages (the CUDA
 * run of a script prints what the CPU run does). */
static gboolean
check_conv_dtype (CrDType dtype, const char *kernel, GError **error)
{
  if (dtype != CR_DTYPE_FLOAT32 && dtype != CR_DTYPE_FLOAT64 && dtype != CR_DTYPE_INT64)
    {
      cr_cpu_set_not_implemented (error, kernel, dtype);
      return FALSE;
    }
  return TRUE;
}

CrTensor *
cr_cuda_conv2d (const CrTensor   *x,
                const CrTensor   *w_in,
                const CrTensor   *bias,
                const CrConvGeom *geom,
                GError          **error)
{
  g_autoptr(CrTensor) out = NULL;
  g_autoptr(CrTensor) w = NULL;
  g_autoptr(CrTensor) cols = NULL;
  g_autoptr(CrTensor) wide = NULL;
  ConvShape s;
  gint64 shape[4];

  if (!check_conv_dtype (x->dtype, "slow_conv2d_cpu", error)
      || !conv_shape_init (&s, x->shape[0], x->shape[1], x->shape[2], x->shape[3],
                           w_in->shape[0], w_in->shape[2], w_in->shape[3], geom, error))
    return NULL;
  shape[0] = s.N;
  shape[1] = s.OC;
  shape[2] = s.oh;
  shape[3] = s.ow;
  out = cr_cuda_new_out (shape, 4, x->dtype, error);
  if (out == NULL || out->numel == 0)
    return g_steal_pointer (&out);

  w = cr_cuda_contiguous (w_in, error);
  if (w == NULL)
    return NULL;
  {
    gint64 cshape[2] = { s.C * s.K, s.chunk * s.L };
    gint64 wshape[2] = { s.OC, s.chunk * s.L };

    cols = cr_cuda_new_out (cshape, 2, x->dtype, error);
    wide = cols != NULL && s.chunk > 1 ? cr_cuda_new_out (wshape, 2, x->dtype, error) : NULL;
    if (cols == NULL || (s.chunk > 1 && wide == NULL))
      return NULL;
  }

  for (gint64 n0 = 0; n0 < s.N; n0 += s.chunk)
    {
      gint64 nb = MIN (s.chunk, s.N - n0), ld = nb * s.L;
      CrCudaTensor dx, dcols, dw, db, dc;
      /* One sample: the gemm writes the output's (OC, L) plane itself. */
      const CrTensor *target = nb == 1 ? out : wide;
      gint64 target_offset = nb == 1 ? out->offset + n0 * s.OC * s.L : 0;

      describe_samples (x, n0, nb, &dx);
      describe_cols (&s, cols, nb, &dcols);
      if (!CALL (im2col, &dcols, &dx, &s.g))
        return NULL;
      /* wide (groups, OCg, ld) = w (groups, OCg, CgK) @ cols (groups, CgK, ld) */
      describe_batch (w, w->offset, s.groups, s.OCg, s.CgK, FALSE, &dw);
      describe_batch (cols, 0, s.groups, s.CgK, ld, FALSE, &db);
      describe_batch (target, target_offset, s.groups, s.OCg, ld, FALSE, &dc);
      if (!CALL (gemm, &dc, &dw, &db))
        return NULL;
      if (nb > 1 && !relayout (&s, out, n0, nb, wide, TRUE, error))
        return NULL;
    }
  if (bias != NULL && !add_bias (out, bias, s.OC, error))
    return NULL;
  return g_steal_pointer (&out);
}

CrTensor *
cr_cuda_conv2d_input_grad (const CrTensor   *gy_in,
                           const CrTensor   *w_in,
                           const CrTensor   *bias,
                           const CrConvGeom *geom,
                           gint64            height,
                           gint64            width,
                           GError          **error)
{
  g_autoptr(CrTensor) out = NULL;
  g_autoptr(CrTensor) gy = NULL;
  g_autoptr(CrTensor) w = NULL;
  g_autoptr(CrTensor) cols = NULL;
  g_autoptr(CrTensor) wide = NULL;
  ConvShape s;
  gint64 shape[4];

  if (!check_conv_dtype (gy_in->dtype, "slow_conv_transpose2d_out_cpu", error)
      || !conv_shape_init (&s, gy_in->shape[0], w_in->shape[1] * geom->groups, height, width,
                           w_in->shape[0], w_in->shape[2], w_in->shape[3], geom, error))
    return NULL;
  shape[0] = s.N;
  shape[1] = s.C;
  shape[2] = s.H;
  shape[3] = s.W;
  out = cr_cuda_new_out (shape, 4, gy_in->dtype, error);
  if (out == NULL || out->numel == 0)
    return g_steal_pointer (&out);

  gy = cr_cuda_contiguous (gy_in, error);
  w = gy != NULL ? cr_cuda_contiguous (w_in, error) : NULL;
  if (w == NULL)
    return NULL;
  {
    gint64 cshape[2] = { s.C * s.K, s.chunk * s.L };
    gint64 wshape[2] = { s.OC, s.chunk * s.L };

    cols = cr_cuda_new_out (cshape, 2, gy->dtype, error);
    wide = cols != NULL && s.chunk > 1 ? cr_cuda_new_out (wshape, 2, gy->dtype, error) : NULL;
    if (cols == NULL || (s.chunk > 1 && wide == NULL))
      return NULL;
  }

  for (gint64 n0 = 0; n0 < s.N; n0 += s.chunk)
    {
      gint64 nb = MIN (s.chunk, s.N - n0), ld = nb * s.L;
      CrCudaTensor dx, dcols, dw, da, dc;
      const CrTensor *source = nb == 1 ? gy : wide;
      gint64 source_offset = nb == 1 ? gy->offset + n0 * s.OC * s.L : 0;

      if (nb > 1 && !relayout (&s, gy, n0, nb, wide, FALSE, error))
        return NULL;
      /* cols (groups, CgK, ld) = wᵀ (groups, CgK, OCg) @ wide (groups, OCg, ld) */
      describe_batch (w, w->offset, s.groups, s.OCg, s.CgK, TRUE, &dw);
      describe_batch (source, source_offset, s.groups, s.OCg, ld, FALSE, &da);
      describe_batch (cols, 0, s.groups, s.CgK, ld, FALSE, &dc);
      if (!CALL (gemm, &dc, &dw, &da))
        return NULL;
      describe_samples (out, n0, nb, &dx);
      describe_cols (&s, cols, nb, &dcols);
      if (!CALL (col2im, &dx, &dcols, &s.g))
        return NULL;
    }
  if (bias != NULL && !add_bias (out, bias, s.C, error))
    return NULL;
  return g_steal_pointer (&out);
}

CrTensor *
cr_cuda_conv2d_weight_grad (const CrTensor   *gy_in,
                            const CrTensor   *x,
                            const CrConvGeom *geom,
                            gint64            kernel_h,
                            gint64            kernel_w,
                            GError          **error)
{
  g_autoptr(CrTensor) out = NULL;
  g_autoptr(CrTensor) gy = NULL;
  g_autoptr(CrTensor) cols = NULL;
  g_autoptr(CrTensor) wide = NULL;
  g_autoptr(CrTensor) partial = NULL;
  ConvShape s;
  gint64 shape[4];

  if (!check_conv_dtype (gy_in->dtype, "slow_conv2d_cpu", error)
      || !conv_shape_init (&s, x->shape[0], x->shape[1], x->shape[2], x->shape[3],
                           gy_in->shape[1], kernel_h, kernel_w, geom, error))
    return NULL;
  shape[0] = s.OC;
  shape[1] = s.Cg;
  shape[2] = s.kh;
  shape[3] = s.kw;
  out = cr_cuda_new_out (shape, 4, gy_in->dtype, error);
  if (out == NULL || out->numel == 0)
    return g_steal_pointer (&out);
  if (s.N * s.L == 0)
    return cr_cuda_fill (out, 0.0, error) ? g_steal_pointer (&out) : NULL;

  gy = cr_cuda_contiguous (gy_in, error);
  if (gy == NULL)
    return NULL;
  {
    gint64 cshape[2] = { s.C * s.K, s.chunk * s.L };
    gint64 wshape[2] = { s.OC, s.chunk * s.L };

    cols = cr_cuda_new_out (cshape, 2, gy->dtype, error);
    wide = cols != NULL && s.chunk > 1 ? cr_cuda_new_out (wshape, 2, gy->dtype, error) : NULL;
    if (cols == NULL || (s.chunk > 1 && wide == NULL))
      return NULL;
    /* Chunks after the first are summed into out. */
    partial = s.chunk < s.N ? cr_cuda_new_out (shape, 4, gy->dtype, error) : NULL;
    if (s.chunk < s.N && partial == NULL)
      return NULL;
  }

  for (gint64 n0 = 0; n0 < s.N; n0 += s.chunk)
    {
      gint64 nb = MIN (s.chunk, s.N - n0), ld = nb * s.L;
      CrCudaTensor dx, dcols, da, db, dc;
      const CrTensor *source = nb == 1 ? gy : wide;
      gint64 source_offset = nb == 1 ? gy->offset + n0 * s.OC * s.L : 0;
      const CrTensor *target = n0 == 0 ? out : partial;

      describe_samples (x, n0, nb, &dx);
      describe_cols (&s, cols, nb, &dcols);
      if (!CALL (im2col, &dcols, &dx, &s.g))
        return NULL;
      if (nb > 1 && !relayout (&s, gy, n0, nb, wide, FALSE, error))
        return NULL;
      /* gw (groups, OCg, CgK) = wide (groups, OCg, ld) @ colsᵀ (groups, ld, CgK) */
      describe_batch (source, source_offset, s.groups, s.OCg, ld, FALSE, &da);
      describe_batch (cols, 0, s.groups, s.CgK, ld, TRUE, &db);
      describe_batch (target, target->offset, s.groups, s.OCg, s.CgK, FALSE, &dc);
      if (!CALL (gemm, &dc, &da, &db))
        return NULL;
      if (n0 > 0)
        {
          CrCudaTensor dout, dp;

          cr_cuda_describe (out, &dout);
          cr_cuda_describe (partial, &dp);
          if (!CALL (add_scaled, &dout, &dout, &dp, 1.0))
            return NULL;
        }
    }
  return g_steal_pointer (&out);
}

/* ---- pooling ----------------------------------------------------------------------- */

static void
pool_geom (const CrPoolGeom *g, CrCudaPoolGeom *d)
{
  memset (d, 0, sizeof *d);
  d->adaptive = g->adaptive != FALSE;
  d->count_include_pad = g->count_include_pad != FALSE;
  for (int a = 0; a < 2; a++)
    {
      d->kernel[a] = g->kernel[a];
      d->stride[a] = g->stride[a];
      d->padding[a] = g->padding[a];
      d->dilation[a] = g->dilation[a];
      d->in[a] = g->in[a];
      d->out[a] = g->out[a];
    }
  d->divisor_override = g->divisor_override;
}

/* t (..., h, w) as planes (P, h, w) in *d: the leading dims merged into
 * one when, walked in row-major order, they step by one stride (always so
 * for a contiguous tensor), else those of a contiguous copy. Returns what
 * d points into (t itself or the copy, a new ref), or NULL with error. */
static CrTensor *
planes_of (const CrTensor *t_in, CrCudaTensor *d, GError **error)
{
  g_autoptr(CrTensor) t = cr_tensor_ref ((CrTensor *) t_in);
  int n = t->ndim;
  gint64 P = 1, stride = 0;
  gboolean merges = TRUE;
  gint64 shape[3], strides[3];

  for (int i = n - 3; i >= 0; i--)
    {
      if (t->shape[i] == 1)
        continue;
      if (P == 1)
        stride = t->strides[i];
      else if (t->strides[i] != stride * P)
        merges = FALSE;
      P *= t->shape[i];
    }
  if (!merges)
    {
      CrTensor *c = cr_cuda_contiguous (t, error);

      if (c == NULL)
        return NULL;
      cr_tensor_unref (t);
      t = c;
      stride = t->shape[n - 2] * t->shape[n - 1];
    }
  shape[0] = P;
  shape[1] = t->shape[n - 2];
  shape[2] = t->shape[n - 1];
  strides[0] = P > 1 ? stride : 0;
  strides[1] = t->strides[n - 2];
  strides[2] = t->strides[n - 1];
  describe_raw (t, t->offset, 3, shape, strides, d);
  return g_steal_pointer (&t);
}

/* A new contiguous tensor of t's shape with the last two sizes h, w. */
static CrTensor *
new_planes (const CrTensor *t, gint64 h, gint64 w, CrDType dtype, GError **error)
{
  gint64 shape[CR_MAX_DIMS];

  memcpy (shape, t->shape, sizeof (gint64) * (gsize) t->ndim);
  shape[t->ndim - 2] = h;
  shape[t->ndim - 1] = w;
  return cr_cuda_new_out (shape, t->ndim, dtype, error);
}

static gboolean
check_float (CrDType dtype, const char *kernel, GError **error)
{
  if (!cr_dtype_is_floating (dtype))
    {
      cr_cpu_set_not_implemented (error, kernel, dtype);
      return FALSE;
    }
  return TRUE;
}

gboolean
cr_cuda_max_pool2d (const CrTensor   *x,
                    const CrPoolGeom *geom,
                    CrTensor        **out_values,
                    CrTensor        **out_indices,
                    GError          **error)
{
  g_autoptr(CrTensor) values = NULL;
  g_autoptr(CrTensor) indices = NULL;
  g_autoptr(CrTensor) xk = NULL;
  g_autoptr(CrTensor) vk = NULL;
  g_autoptr(CrTensor) ik = NULL;
  CrCudaTensor dx, dv, di;
  CrCudaPoolGeom g;

  if (!check_float (x->dtype, geom->adaptive ? "adaptive_max_pool2d" : "max_pool2d",
                    error))
    return FALSE;
  values = new_planes (x, geom->out[0], geom->out[1], x->dtype, error);
  indices = values != NULL ? new_planes (x, geom->out[0], geom->out[1], CR_DTYPE_INT64, error)
                           : NULL;
  if (indices == NULL)
    return FALSE;
  if (values->numel > 0)
    {
      pool_geom (geom, &g);
      if ((xk = planes_of (x, &dx, error)) == NULL || (vk = planes_of (values, &dv, error)) == NULL
          || (ik = planes_of (indices, &di, error)) == NULL || !CALL (max_pool2d, &dv, &di, &dx, &g))
        return FALSE;
    }
  *out_values = g_steal_pointer (&values);
  *out_indices = g_steal_pointer (&indices);
  return TRUE;
}

CrTensor *
cr_cuda_max_pool2d_backward (const CrTensor   *gy,
                             const CrTensor   *indices,
                             const CrPoolGeom *geom,
                             GError          **error)
{
  g_autoptr(CrTensor) out = NULL;
  g_autoptr(CrTensor) ok = NULL;
  g_autoptr(CrTensor) gk = NULL;
  g_autoptr(CrTensor) ik = NULL;
  CrCudaTensor dout, dg, di;
  CrCudaPoolGeom g;

  if (!check_float (gy->dtype, "max_pool2d_backward", error))
    return NULL;
  out = new_planes (gy, geom->in[0], geom->in[1], gy->dtype, error);
  if (out == NULL || out->numel == 0)
    return g_steal_pointer (&out);
  pool_geom (geom, &g);
  if ((ok = planes_of (out, &dout, error)) == NULL || (gk = planes_of (gy, &dg, error)) == NULL
      || (ik = planes_of (indices, &di, error)) == NULL
      || !CALL (max_pool2d_backward, &dout, &dg, &di, &g))
    return NULL;
  return g_steal_pointer (&out);
}

CrTensor *
cr_cuda_max_pool2d_gather (const CrTensor   *src,
                           const CrTensor   *indices,
                           const CrPoolGeom *geom,
                           GError          **error)
{
  g_autoptr(CrTensor) out = NULL;
  g_autoptr(CrTensor) ok = NULL;
  g_autoptr(CrTensor) sk = NULL;
  g_autoptr(CrTensor) ik = NULL;
  CrCudaTensor dout, ds, di;
  CrCudaPoolGeom g;

  if (!check_float (src->dtype, "max_pool2d_with_indices_backward", error))
    return NULL;
  out = new_planes (src, geom->out[0], geom->out[1], src->dtype, error);
  if (out == NULL || out->numel == 0)
    return g_steal_pointer (&out);
  pool_geom (geom, &g);
  if ((ok = planes_of (out, &dout, error)) == NULL || (sk = planes_of (src, &ds, error)) == NULL
      || (ik = planes_of (indices, &di, error)) == NULL
      || !CALL (max_pool2d_gather, &dout, &ds, &di, &g))
    return NULL;
  return g_steal_pointer (&out);
}

CrTensor *
cr_cuda_avg_pool2d (const CrTensor   *x,
                    const CrPoolGeom *geom,
                    GError          **error)
{
  g_autoptr(CrTensor) out = NULL;
  g_autoptr(CrTensor) ok = NULL;
  g_autoptr(CrTensor) xk = NULL;
  CrCudaTensor dout, dx;
  CrCudaPoolGeom g;

  if ((geom->adaptive || x->dtype != CR_DTYPE_INT64)
      && !check_float (x->dtype, geom->adaptive ? "adaptive_avg_pool2d" : "avg_pool2d",
                       error))
    return NULL;
  out = new_planes (x, geom->out[0], geom->out[1], x->dtype, error);
  if (out == NULL || out->numel == 0)
    return g_steal_pointer (&out);
  pool_geom (geom, &g);
  if ((ok = planes_of (out, &dout, error)) == NULL || (xk = planes_of (x, &dx, error)) == NULL
      || !CALL (avg_pool2d, &dout, &dx, &g))
    return NULL;
  return g_steal_pointer (&out);
}

CrTensor *
cr_cuda_avg_pool2d_backward (const CrTensor   *gy,
                             const CrPoolGeom *geom,
                             GError          **error)
{
  g_autoptr(CrTensor) out = NULL;
  g_autoptr(CrTensor) ok = NULL;
  g_autoptr(CrTensor) gk = NULL;
  CrCudaTensor dout, dg;
  CrCudaPoolGeom g;

  if (!check_float (gy->dtype, "avg_pool2d_backward", error))
    return NULL;
  out = new_planes (gy, geom->in[0], geom->in[1], gy->dtype, error);
  if (out == NULL || out->numel == 0)
    return g_steal_pointer (&out);
  pool_geom (geom, &g);
  if ((ok = planes_of (out, &dout, error)) == NULL || (gk = planes_of (gy, &dg, error)) == NULL
      || !CALL (avg_pool2d_backward, &dout, &dg, &g))
    return NULL;
  return g_steal_pointer (&out);
}
