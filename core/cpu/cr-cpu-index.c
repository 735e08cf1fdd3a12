/* cr-cpu-index.c — cat, and gathers/scatters by flat position (take, put,
 * nonzero_flat) that the indexing ops are built on.
 *
 * Flat positions are logical row-major positions of the (possibly strided)
 * tensor, as torch.take counts them. */
#include "cr-cpu-private.h"

static void
set_out_of_bounds (GError **error,
                   gint64   index,
                   gint64   size)
{
  g_set_error (error, CR_CORE_ERROR, CR_EXC_INDEX_ERROR,
               "index %" G_GINT64_FORMAT " is out of bounds for dimension 0 with size %" G_GINT64_FORMAT,
               index, size);
}

/* Storage offset (in elements) of logical position index of t. */
static inline gint64
flat_offset (const CrTensor *t,
             gint64          index)
{
  gint64 offset = t->offset;

  for (int d = t->ndim - 1; d >= 0; d--)
    {
      offset += (index % t->shape[d]) * t->strides[d];
      index /= t->shape[d];
    }
  return offset;
}

/* ---- cat ------------------------------------------------------------------ */

/* PyTorch still accepts (and skips) 1-d empty tensors next to tensors of
 * other ranks. */
static gboolean
skipped_in_cat (const CrTensor *t)
{
  return t->ndim == 1 && t->shape[0] == 0;
}

CrTensor *
cr_kernel_cat (CrTensor *const *tensors,
               guint            n,
               int              dim,
               GError         **error)
{
  if (n == 0)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "torch.cat(): expected a non-empty list of Tensors");
      return NULL;
    }
  for (guint i = 0; i < n; i++)
    if (tensors[i]->device != CR_DEVICE_CPU)
      CR_DISPATCH (tensors[i]->device, cat, error, NULL, tensors, n, dim, error);
  return cr_cpu_cat_on (tensors, n, dim, CR_DEVICE_CPU, error);
}

CrTensor *
cr_cpu_cat_on (CrTensor *const *tensors,
               guint            n,
               int              dim,
               CrDeviceType     device,
               GError         **error)
{
  const CrTensor *ref = NULL;
  CrDType dtype;
  gint64 shape[CR_MAX_DIMS];
  gint64 offset = 0;
  guint64 total;
  gboolean overflow = FALSE;
  CrTensor *out;
  int d;

  dtype = tensors[0]->dtype;
  for (guint i = 0; i < n; i++)
    {
      if (tensors[i]->ndim == 0)
        {
          g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                       "zero-dimensional tensor (at position %u) cannot be concatenated", i);
          return NULL;
        }
      dtype = cr_dtype_promote (dtype, tensors[i]->dtype);
      if (ref == NULL && !skipped_in_cat (tensors[i]))
        ref = tensors[i];
    }
  if (ref == NULL)
    ref = tensors[0];

  if (!cr_cpu_wrap_dim (dim, ref->ndim, &d, error))
    return NULL;

  memcpy (shape, ref->shape, sizeof (gint64) * ref->ndim);
  total = 0;
  for (guint i = 0; i < n; i++)
    {
      const CrTensor *t = tensors[i];

      if (skipped_in_cat (t) && t != ref)
        continue;
      if (t->ndim != ref->ndim)
        {
          g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                       "Tensors must have same number of dimensions: got %d and %d",
                       ref->ndim, t->ndim);
          return NULL;
        }
      for (int k = 0; k < ref->ndim; k++)
        if (k != d && t->shape[k] != ref->shape[k])
          {
            g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                         "Sizes of tensors must match except in dimension %d. Expected size %"
                         G_GINT64_FORMAT " but got size %" G_GINT64_FORMAT
                         " for tensor number %u in the list.",
                         d, ref->shape[k], t->shape[k], i);
            return NULL;
          }
      /* PyTorch adds in wrapping int64: the same wrap, unsigned. */
      total += (guint64) t->shape[d];
      overflow |= total > (guint64) G_MAXINT64;
    }
  shape[d] = (gint64) total;

  /* A negative total fails in the creation (PyTorch's negative dimension);
   * one that wrapped past 0 would make a short out that the slices below
   * overrun: PyTorch's narrow error for the first slice that does not fit. */
  if (overflow && shape[d] >= 0)
    {
      guint64 start = 0;

      for (guint i = 0; i < n; i++)
        {
          const CrTensor *t = tensors[i];

          if (skipped_in_cat (t) && t != ref)
            continue;
          if (start > (guint64) shape[d] || (guint64) t->shape[d] > (guint64) shape[d] - start)
            {
              g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "start (%" G_GINT64_FORMAT ") + length (%" G_GINT64_FORMAT
                           ") exceeds dimension size (%" G_GINT64_FORMAT ").",
                           (gint64) start, t->shape[d], shape[d]);
              return NULL;
            }
          start += (guint64) t->shape[d];
        }
    }

  out = cr_tensor_new_empty (shape, ref->ndim, dtype, device, error);
  if (out == NULL)
    return NULL;

  /* Each input into its slice of out; cr_kernel_copy_into goes to out's
   * backend (and casts to the promoted dtype). */
  for (guint i = 0; i < n; i++)
    {
      const CrTensor *t = tensors[i];
      g_autoptr(CrTensor) slice = NULL;
      gint64 slice_shape[CR_MAX_DIMS];

      if ((skipped_in_cat (t) && t != ref) || t->shape[d] == 0)
        continue;
      memcpy (slice_shape, shape, sizeof (gint64) * ref->ndim);
      slice_shape[d] = t->shape[d];
      slice = cr_tensor_new_view (out, slice_shape, ref->ndim, out->strides,
                                  offset * out->strides[d]);
      if (!cr_kernel_copy_into (slice, t, error))
        {
          cr_tensor_unref (out);
          return NULL;
        }
      offset += t->shape[d];
    }
  return out;
}

/* ---- take / put --------------------------------------------------------------- */

gboolean
cr_cpu_check_index_dtype (const CrTensor  *index,
                          const char      *what,
                          GError         **error)
{
  if (index->dtype == CR_DTYPE_INT64)
    return TRUE;
  g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
               "%s(): Expected a long tensor for index, but got %s",
               what, cr_dtype_scalar_name (index->dtype));
  return FALSE;
}

CrTensor *
cr_kernel_take (const CrTensor  *x,
                const CrTensor  *flat_index,
                GError         **error)
{
  g_autoptr(CrTensor) idx = NULL;
  g_autoptr(CrTensor) src = NULL;
  const gint64 *ip;
  const char *sp;
  char *op;
  gsize isz;
  gint64 n = x->numel;
  CrTensor *out;

  /* The CPU moves int32/uint8 elements as they are; another device's
   * module takes them in int64. */
  if (G_UNLIKELY (cr_cpu_is_narrow (x) && cr_cpu_device2 (x, flat_index) != CR_DEVICE_CPU))
    {
      g_autoptr(CrTensor) wide = cr_cpu_widen (x, x->dtype, error);

      return wide != NULL ? cr_cpu_narrow (cr_kernel_take (wide, flat_index, error), x->dtype, error)
                          : NULL;
    }
  CR_DISPATCH (cr_cpu_device2 (x, flat_index), take, error, NULL, x, flat_index, error);
  if (!cr_cpu_check_index_dtype (flat_index, "take", error))
    return NULL;

  idx = cr_tensor_contiguous ((CrTensor *) flat_index, error);
  src = idx != NULL ? cr_tensor_contiguous ((CrTensor *) x, error) : NULL;
  if (src == NULL)
    return NULL;
  ip = cr_tensor_data (idx);
  for (gint64 i = 0; i < idx->numel; i++)
    if (ip[i] < -n || ip[i] >= n)
      {
        set_out_of_bounds (error, ip[i], n);
        return NULL;
      }

  out = cr_tensor_new_empty (flat_index->shape, flat_index->ndim, x->dtype, CR_DEVICE_CPU, error);
  if (out == NULL)
    return NULL;
  isz = cr_dtype_size (x->dtype);
  sp = cr_tensor_data (src);
  op = cr_tensor_data (out);
  switch (isz)
    {
    case 8:
      for (gint64 i = 0; i < idx->numel; i++)
        ((gint64 *) op)[i] = ((const gint64 *) sp)[ip[i] < 0 ? ip[i] + n : ip[i]];
      break;
    case 4:
      for (gint64 i = 0; i < idx->numel; i++)
        ((guint32 *) op)[i] = ((const guint32 *) sp)[ip[i] < 0 ? ip[i] + n : ip[i]];
      break;
    default:
      for (gint64 i = 0; i < idx->numel; i++)
        op[i] = sp[ip[i] < 0 ? ip[i] + n : ip[i]];
      break;
    }
  return out;
}

#define DEFINE_PUT(name, T, ADD)                                               \
  static void                                                                  \
  name (CrTensor     *dst,                                                     \
        const gint64 *ip,                                                      \
        const T      *vp,                                                      \
        gint64        count,                                                   \
        gboolean      accumulate)                                              \
  {                                                                            \
    T *base = (T *) dst->storage->data;                                        \
    gboolean contiguous = cr_tensor_is_contiguous (dst);                       \
    gint64 n = dst->numel;                                                     \
                                                                               \
    for (gint64 i = 0; i < count; i++)                                         \
      {                                                                        \
        gint64 pos = ip[i] < 0 ? ip[i] + n : ip[i];                            \
        gint64 off = contiguous ? dst->offset + pos : flat_offset (dst, pos);  \
                                                                               \
        if (accumulate)                                                        \
          base[off] = ADD (base[off], vp[i]);                                  \
        else                                                                   \
          base[off] = vp[i];                                                   \
      }                                                                        \
  }

#define PUT_ADD(x, y) ((x) + (y))
/* Integers wrap, computed unsigned (no UB). */
#define PUT_ADD_I64(x, y) ((gint64) ((guint64) (x) + (guint64) (y)))
#define PUT_ADD_I32(x, y) ((gint32) ((guint32) (x) + (guint32) (y)))
#define PUT_ADD_U8(x, y) ((guint8) ((x) + (y)))

DEFINE_PUT (put_i, gint64, PUT_ADD_I64)
DEFINE_PUT (put_f, float, PUT_ADD)
DEFINE_PUT (put_d, double, PUT_ADD)
DEFINE_PUT (put_i32, gint32, PUT_ADD_I32)
DEFINE_PUT (put_u8, guint8, PUT_ADD_U8)

static void
put_b (CrTensor     *dst,
       const gint64 *ip,
       const guint8 *vp,
       gint64        count,
       gboolean      accumulate)
{
  guint8 *base = dst->storage->data;
  gint64 n = dst->numel;

  for (gint64 i = 0; i < count; i++)
    {
      gint64 pos = ip[i] < 0 ? ip[i] + n : ip[i];
      gint64 off = flat_offset (dst, pos);

      base[off] = accumulate ? (base[off] | vp[i]) : vp[i];
    }
}

gboolean
cr_kernel_put (CrTensor        *dst,
               const CrTensor  *flat_index,
               const CrTensor  *values,
               gboolean         accumulate,
               GError         **error)
{
  g_autoptr(CrTensor) idx = NULL;
  g_autoptr(CrTensor) vals = NULL;
  const gint64 *ip;
  gint64 n = dst->numel;
  CrDeviceType device = dst->device != CR_DEVICE_CPU ? dst->device : cr_cpu_device2 (flat_index, values);

  if (G_UNLIKELY (device != CR_DEVICE_CPU && (cr_cpu_is_narrow (dst) || cr_cpu_is_narrow (values))))
    {
      /* The module puts int64: a wide copy of dst, written back. */
      g_autoptr(CrTensor) wide = cr_cpu_widen (dst, dst->dtype, error);
      g_autoptr(CrTensor) wide_values = wide != NULL ? cr_cpu_widen (values, values->dtype, error) : NULL;

      return wide_values != NULL && cr_kernel_put (wide, flat_index, wide_values, accumulate, error)
             && cr_kernel_copy_into (dst, wide, error);
    }
  CR_DISPATCH (device, put, error, FALSE, dst, flat_index, values, accumulate, error);
  if (!cr_cpu_check_index_dtype (flat_index, "put_", error))
    return FALSE;

  idx = cr_tensor_contiguous ((CrTensor *) flat_index, error);
  if (idx == NULL)
    return FALSE;
  ip = cr_tensor_data (idx);
  for (gint64 i = 0; i < idx->numel; i++)
    if (ip[i] < -n || ip[i] >= n)
      {
        set_out_of_bounds (error, ip[i], n);
        return FALSE;
      }

  /* The values, broadcast to the index's shape, in dst's dtype, contiguous
   * (a copy also protects against values that alias dst). */
  vals = cr_tensor_new_empty (flat_index->shape, flat_index->ndim, dst->dtype, CR_DEVICE_CPU, error);
  if (vals == NULL || !cr_kernel_copy_into (vals, values, error))
    return FALSE;

  switch (dst->dtype)
    {
    case CR_DTYPE_BOOL:    put_b (dst, ip, cr_tensor_data (vals), idx->numel, accumulate); break;
    case CR_DTYPE_INT64:   put_i (dst, ip, cr_tensor_data (vals), idx->numel, accumulate); break;
    case CR_DTYPE_FLOAT32: put_f (dst, ip, cr_tensor_data (vals), idx->numel, accumulate); break;
    case CR_DTYPE_FLOAT64: put_d (dst, ip, cr_tensor_data (vals), idx->numel, accumulate); break;
    case CR_DTYPE_INT32:   put_i32 (dst, ip, cr_tensor_data (vals), idx->numel, accumulate); break;
    case CR_DTYPE_UINT8:   put_u8 (dst, ip, cr_tensor_data (vals), idx->numel, accumulate); break;
    case CR_DTYPE_COUNT:
    default: break;
    }
  return TRUE;
}

CrTensor *
cr_kernel_nonzero_flat (const CrTensor  *mask,
                        GError         **error)
{
  g_autoptr(CrTensor) b = NULL;
  const guint8 *mp;
  gint64 count = 0;
  gint64 *op;
  CrTensor *out;

  if (G_UNLIKELY (cr_cpu_is_narrow (mask) && mask->device != CR_DEVICE_CPU))
    {
      g_autoptr(CrTensor) wide = cr_cpu_widen (mask, mask->dtype, error);

      return wide != NULL ? cr_kernel_nonzero_flat (wide, error) : NULL;
    }
  CR_DISPATCH (mask->device, nonzero_flat, error, NULL, mask, error);

  /* A contiguous bool copy: logical order, nonzero-ness (NaN counts). */
  if (mask->dtype == CR_DTYPE_BOOL)
    b = cr_tensor_contiguous ((CrTensor *) mask, error);
  else
    b = cr_cpu_cast (mask, CR_DTYPE_BOOL, error);
  if (b == NULL)
    return NULL;
  mp = cr_tensor_data (b);
  for (gint64 i = 0; i < b->numel; i++)
    count += mp[i] != 0;

  out = cr_tensor_new_empty (&count, 1, CR_DTYPE_INT64, CR_DEVICE_CPU, error);
  if (out == NULL)
    return NULL;
  op = cr_tensor_data (out);
  for (gint64 i = 0, j = 0; i < b->numel; i++)
    if (mp[i])
      op[j++] = i;
  return out;
}
