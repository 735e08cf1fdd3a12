/* cr-cpu-copy.c — copies between any two strided tensors with dtype
 * conversion: copy_into, fill and cast. */
#include "cr-cpu-private.h"

#include <math.h>

/* One row of dst[i] = convert(src[i]); src stride 0 is a fill. */
#define DEFINE_CONVERT_ROW(name, TO, TI, EXPR) CR_DEFINE_MAP_ROW (, name, TO, TI, EXPR)

DEFINE_CONVERT_ROW (b_from_b, guint8, guint8, v)
DEFINE_CONVERT_ROW (b_from_i, guint8, gint64, v != 0)
DEFINE_CONVERT_ROW (b_from_f, guint8, float, v != 0.0f)
DEFINE_CONVERT_ROW (b_from_d, guint8, double, v != 0.0)
DEFINE_CONVERT_ROW (b_from_i32, guint8, gint32, v != 0)
DEFINE_CONVERT_ROW (b_from_u8, guint8, guint8, v != 0)
DEFINE_CONVERT_ROW (i_from_b, gint64, guint8, (gint64) v)
DEFINE_CONVERT_ROW (i_from_i, gint64, gint64, v)
DEFINE_CONVERT_ROW (i_from_f, gint64, float, cr_double_to_int64 (v))
DEFINE_CONVERT_ROW (i_from_d, gint64, double, cr_double_to_int64 (v))
DEFINE_CONVERT_ROW (i_from_i32, gint64, gint32, (gint64) v)
DEFINE_CONVERT_ROW (i_from_u8, gint64, guint8, (gint64) v)
DEFINE_CONVERT_ROW (f_from_b, float, guint8, (float) v)
DEFINE_CONVERT_ROW (f_from_i, float, gint64, (float) v)
DEFINE_CONVERT_ROW (f_from_f, float, float, v)
DEFINE_CONVERT_ROW (f_from_d, float, double, (float) v)
DEFINE_CONVERT_ROW (f_from_i32, float, gint32, (float) v)
DEFINE_CONVERT_ROW (f_from_u8, float, guint8, (float) v)
DEFINE_CONVERT_ROW (d_from_b, double, guint8, (double) v)
DEFINE_CONVERT_ROW (d_from_i, double, gint64, (double) v)
DEFINE_CONVERT_ROW (d_from_f, double, float, (double) v)
DEFINE_CONVERT_ROW (d_from_d, double, double, v)
DEFINE_CONVERT_ROW (d_from_i32, double, gint32, (double) v)
DEFINE_CONVERT_ROW (d_from_u8, double, guint8, (double) v)
DEFINE_CONVERT_ROW (i32_from_b, gint32, guint8, (gint32) (guint32) (guint64) (gint64) v)
DEFINE_CONVERT_ROW (i32_from_i, gint32, gint64, (gint32) (guint32) (guint64) (gint64) v)
DEFINE_CONVERT_ROW (i32_from_f, gint32, float, cr_double_to_int32 (v))
DEFINE_CONVERT_ROW (i32_from_d, gint32, double, cr_double_to_int32 (v))
DEFINE_CONVERT_ROW (i32_from_i32, gint32, gint32, v)
DEFINE_CONVERT_ROW (i32_from_u8, gint32, guint8, (gint32) (guint32) (guint64) (gint64) v)
DEFINE_CONVERT_ROW (u8_from_b, guint8, guint8, (guint8) (guint64) (gint64) v)
DEFINE_CONVERT_ROW (u8_from_i, guint8, gint64, (guint8) (guint64) (gint64) v)
DEFINE_CONVERT_ROW (u8_from_f, guint8, float, cr_double_to_uint8 (v))
DEFINE_CONVERT_ROW (u8_from_d, guint8, double, cr_double_to_uint8 (v))
DEFINE_CONVERT_ROW (u8_from_i32, guint8, gint32, (guint8) (guint64) (gint64) v)
DEFINE_CONVERT_ROW (u8_from_u8, guint8, guint8, v)

/* [dst dtype][src dtype]; int32 and uint8 wrap as two's complement, as
 * PyTorch's casts (torch.tensor([300]).byte() is 44). */
static const CrRowFunc convert_rows[CR_DTYPE_COUNT][CR_DTYPE_COUNT] = {
  [CR_DTYPE_BOOL   ] = { b_from_b, b_from_i, b_from_f, b_from_d, b_from_i32, b_from_u8 },
  [CR_DTYPE_INT64  ] = { i_from_b, i_from_i, i_from_f, i_from_d, i_from_i32, i_from_u8 },
  [CR_DTYPE_FLOAT32] = { f_from_b, f_from_i, f_from_f, f_from_d, f_from_i32, f_from_u8 },
  [CR_DTYPE_FLOAT64] = { d_from_b, d_from_i, d_from_f, d_from_d, d_from_i32, d_from_u8 },
  [CR_DTYPE_INT32  ] = { i32_from_b, i32_from_i, i32_from_f, i32_from_d, i32_from_i32, i32_from_u8 },
  [CR_DTYPE_UINT8  ] = { u8_from_b, u8_from_i, u8_from_f, u8_from_d, u8_from_i32, u8_from_u8 },
};

gboolean
cr_cpu_overlaps_differently (const CrTensor *a,
                             const CrTensor *b)
{
  if (a->storage != b->storage)
    return FALSE;
  if (a->offset == b->offset && a->dtype == b->dtype
      && cr_shape_equal (a->shape, a->ndim, b->shape, b->ndim)
      && memcmp (a->strides, b->strides, sizeof (gint64) * a->ndim) == 0)
    return FALSE;
  return TRUE;
}

static gboolean
copy_into (CrTensor        *dst,
           const CrTensor  *src,
           GError         **error)
{
  g_autoptr(CrTensor) tmp = NULL;
  const CrTensor *operands[2];
  CrCpuIter iter;

  if (!cr_shape_equal (dst->shape, dst->ndim, src->shape, src->ndim))
    {
      gint64 shape[CR_MAX_DIMS];
      int ndim;

      if (!cr_shape_broadcast (dst->shape, dst->ndim, src->shape, src->ndim, shape, &ndim, error))
        return FALSE;
      if (!cr_shape_equal (shape, ndim, dst->shape, dst->ndim))
        {
          g_autofree char *s1 = cr_shape_to_string (dst->shape, dst->ndim);
          g_autofree char *s2 = cr_shape_to_string (shape, ndim);

          g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                       "output with shape %s doesn't match the broadcast shape %s", s1, s2);
          return FALSE;
        }
    }

  if (dst->ndim == 0 && src->ndim == 0)
    {
      cr_cpu_convert_scalar (cr_tensor_data (dst), dst->dtype, cr_tensor_data (src), src->dtype);
      return TRUE;
    }

  if (cr_cpu_overlaps_differently (dst, src))
    {
      tmp = cr_tensor_new_empty (src->shape, src->ndim, src->dtype, CR_DEVICE_CPU, error);
      if (tmp == NULL || !copy_into (tmp, src, error))
        return FALSE;
      src = tmp;
    }

  operands[0] = dst;
  operands[1] = src;
  cr_cpu_iter_init (&iter, dst->shape, dst->ndim, operands, 2);
  cr_cpu_iter_run (&iter, convert_rows[dst->dtype][src->dtype], NULL);
  return TRUE;
}

gboolean
cr_kernel_copy_into (CrTensor        *dst,
                     const CrTensor  *src,
                     GError         **error)
{
  CR_DISPATCH (cr_cpu_device2 (dst, src), copy_into, error, FALSE, dst, src, error);
  return copy_into (dst, src, error);
}

gboolean
cr_kernel_fill (CrTensor  *dst,
                double     value,
                GError   **error)
{
  const CrTensor *operands[2] = { dst, NULL };
  CrScalarBuf buf;
  CrCpuIter iter;

  CR_DISPATCH (dst->device, fill, error, FALSE, dst, value, error);

  cr_cpu_convert_scalar (&buf, dst->dtype, &value, CR_DTYPE_FLOAT64);
  if (dst->ndim == 0)
    {
      memcpy (cr_tensor_data (dst), &buf, cr_dtype_size (dst->dtype));
      return TRUE;
    }
  /* zero_grad() and zeros(): all-zero bits into a block are a memset. */
  if (value == 0.0 && !signbit (value) && cr_cpu_is_contiguous (dst))
    {
      memset (cr_cpu_data (dst), 0, (gsize) dst->numel * cr_cpu_itemsize (dst->dtype));
      return TRUE;
    }
  cr_cpu_iter_init (&iter, dst->shape, dst->ndim, operands, 2);
  cr_cpu_iter_set_scalar (&iter, 1, &buf, cr_dtype_size (dst->dtype));
  cr_cpu_iter_run (&iter, convert_rows[dst->dtype][dst->dtype], NULL);
  return TRUE;
}

CrTensor *
cr_cpu_cast (const CrTensor  *x,
             CrDType          dtype,
             GError         **error)
{
  CrTensor *out = cr_tensor_new_empty (x->shape, x->ndim, dtype, CR_DEVICE_CPU, error);

  if (out != NULL && !copy_into (out, x, error))
    g_clear_pointer (&out, cr_tensor_unref);
  return out;
}

CrTensor *
cr_kernel_cast (const CrTensor  *x,
                CrDType          dtype,
                GError         **error)
{
  CR_DISPATCH (x->device, cast, error, NULL, x, dtype, error);
  return cr_cpu_cast (x, dtype, error);
}
