/* cr-tensor.c — tensor objects: creation, views, geometry, element access.
 *
 * A scalar script makes and drops a tensor per op, so the structs come from
 * cr-slab (see also cr-storage.c for the data). */
#include "cr-tensor.h"
#include "cr-error.h"
#include "cr-kernels.h"
#include "cr-node.h"
#include "cr-slab.h"
#include "cr-version-observer.h"

#include <math.h>
#include <string.h>

/* Element sizes (cr-dtype.c's), here so that hot paths make no call. */
static const guint8 dtype_sizes[CR_DTYPE_COUNT] = { 1, 8, 4, 8, 4, 1 };
G_STATIC_ASSERT (CR_DTYPE_COUNT == 6);

/* A tensor struct with one reference, every field zero but the sizes and
 * strides (only the first ndim of them are ever read). */
static inline CrTensor *
tensor_alloc (void)
{
  CrTensor *self = cr_slab_alloc (sizeof (CrTensor));

  memset (self, 0, G_STRUCT_OFFSET (CrTensor, shape));
  memset (&self->grad, 0, sizeof (CrTensor) - G_STRUCT_OFFSET (CrTensor, grad));
  self->ref_count = 1;
  return self;
}

struct _CrVersionCounter {
  gint     ref_count;
  guint32  version;
};

static CrVersionCounter *
version_counter_ref (CrVersionCounter *counter)
{
  if (counter != NULL)
    g_atomic_int_inc (&counter->ref_count);
  return counter;
}

static void
version_counter_unref (CrVersionCounter *counter)
{
  if (counter != NULL && g_atomic_int_dec_and_test (&counter->ref_count))
    g_free (counter);
}

static void
tensor_free (CrTensor *self)
{
  cr_slab_free (self, sizeof (CrTensor));
}

/* ---- shapes ------------------------------------------------------------- */

void
cr_shape_contiguous_strides (const gint64 *shape,
                             int           ndim,
                             gint64       *out_strides)
{
  /* Unsigned: a view of an expanded tensor may hold sizes whose product
   * passes int64 (PyTorch's strides wrap the same way); no UB. */
  guint64 stride = 1;

  for (int i = ndim - 1; i >= 0; i--)
    {
      out_strides[i] = (gint64) stride;
      stride *= shape[i] > 1 ? (guint64) shape[i] : 1;
    }
}

gint64
cr_shape_numel (const gint64 *shape,
                int           ndim)
{
  /* Unsigned so that a caller's unchecked shape cannot be UB; tensors hold
   * checked shapes (cr_shape_numel_checked), where this never wraps. */
  guint64 n = 1;

  for (int i = 0; i < ndim; i++)
    n *= (guint64) shape[i];
  return (gint64) n;
}

gboolean
cr_shape_numel_checked (const gint64  *shape,
                        int            ndim,
                        gint64        *out_numel,
                        GError       **error)
{
  guint64 n = 1;
  gboolean overflow = FALSE;

  /* PyTorch's safe_compute_numel: left to right, an overflow sticks even
   * when a later size is 0 ([2**62, 2**62, 0] fails, [0, 2**62, 2**62]
   * does not). */
  for (int i = 0; i < ndim; i++)
    overflow |= __builtin_mul_overflow (n, (guint64) shape[i], &n);
  if (overflow || n > (guint64) G_MAXINT64)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "numel: integer multiplication overflow");
      return FALSE;
    }
  if (out_numel != NULL)
    *out_numel = (gint64) n;
  return TRUE;
}

gboolean
cr_shape_equal (const gint64 *a,
                int           a_ndim,
                const gint64 *b,
                int           b_ndim)
{
  if (a_ndim != b_ndim)
    return FALSE;
  for (int i = 0; i < a_ndim; i++)
    if (a[i] != b[i])
      return FALSE;
  return TRUE;
}

gboolean
cr_shape_broadcast (const gint64 *a,
                    int           a_ndim,
                    const gint64 *b,
                    int           b_ndim,
                    gint64       *out_shape,
                    int          *out_ndim,
                    GError      **error)
{
  int ndim = MAX (a_ndim, b_ndim);
  gint64 result[CR_MAX_DIMS];

  for (int i = ndim - 1; i >= 0; i--)
    {
      int ia = i - (ndim - a_ndim);
      int ib = i - (ndim - b_ndim);
      gint64 sa = ia >= 0 ? a[ia] : 1;
      gint64 sb = ib >= 0 ? b[ib] : 1;

      if (sa == sb || sb == 1)
        result[i] = sa;
      else if (sa == 1)
        result[i] = sb;
      else
        {
          g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                       "The size of tensor a (%" G_GINT64_FORMAT ") must match the size of "
                       "tensor b (%" G_GINT64_FORMAT ") at non-singleton dimension %d",
                       sa, sb, i);
          return FALSE;
        }
    }
  memcpy (out_shape, result, sizeof (gint64) * ndim);
  *out_ndim = ndim;
  return TRUE;
}

char *
cr_shape_to_string (const gint64 *shape,
                    int           ndim)
{
  GString *s = g_string_new ("[");

  for (int i = 0; i < ndim; i++)
    g_string_append_printf (s, "%s%" G_GINT64_FORMAT, i ? ", " : "", shape[i]);
  g_string_append_c (s, ']');
  return g_string_free (s, FALSE);
}

/* Checks a shape for creation: no negative size, a byte size that fits. */
static gboolean
check_shape (const gint64 *shape,
             int           ndim,
             CrDType       dtype,
             gint64       *out_numel,
             GError      **error)
{
  guint64 numel = 1;
  gboolean overflow = FALSE;

  if (G_UNLIKELY (ndim < 0 || ndim > CR_MAX_DIMS))
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "Chainrule supports tensors of at most %d dimensions, got %d",
                   CR_MAX_DIMS, ndim);
      return FALSE;
    }
  for (int i = 0; i < ndim; i++)
    if (G_UNLIKELY (shape[i] < 0))
      {
        g_autofree char *s = cr_shape_to_string (shape, ndim);

        g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                     "Trying to create tensor with negative dimension %" G_GINT64_FORMAT ": %s",
                     shape[i], s);
        return FALSE;
      }
  /* PyTorch's computeStorageNbytesContiguous: the sizes left to right, an
   * overflow sticks even when a later size is 0 (as torch.zeros(2**62,
   * 2**62, 0) fails), then times the element size. */
  for (int i = 0; i < ndim; i++)
    overflow |= __builtin_mul_overflow (numel, (guint64) shape[i], &numel);
  if (!overflow)
    {
      guint64 nbytes;

      if (__builtin_mul_overflow (numel, (guint64) cr_dtype_size (dtype), &nbytes)
          || nbytes > (guint64) G_MAXINT64)
        overflow = TRUE;
    }
  if (overflow)
    {
      g_autofree char *s = cr_shape_to_string (shape, ndim);

      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "Storage size calculation overflowed with sizes=%s", s);
      return FALSE;
    }
  *out_numel = (gint64) numel;
  return TRUE;
}

gboolean
cr_shape_check_storage (const gint64  *shape,
                        int            ndim,
                        CrDType        dtype,
                        GError       **error)
{
  gint64 numel;

  return check_shape (shape, ndim, dtype, &numel, error);
}

/* ---- creation ----------------------------------------------------------- */

static CrTensor *
tensor_new (const gint64  *shape,
            int            ndim,
            CrDType        dtype,
            CrDeviceType   device,
            gboolean       zeroed,
            GError       **error)
{
  CrStorage *storage;
  CrTensor *self;
  gint64 numel;
  gsize nbytes;

  g_return_val_if_fail ((guint) dtype < CR_DTYPE_COUNT, NULL);

  if (ndim == 0)
    numel = 1;
  else
    {
      guint64 n = 1;
      gboolean bad = ndim < 0 || ndim > CR_MAX_DIMS;

      /* Only a bad or huge shape needs the careful checks and messages. */
      for (int i = 0; i < ndim && !bad; i++)
        bad = shape[i] < 0 || __builtin_mul_overflow (n, (guint64) shape[i], &n);
      if (G_LIKELY (!bad && n <= (guint64) G_MAXINT64 / 8))
        numel = (gint64) n;
      else if (!check_shape (shape, ndim, dtype, &numel, error))
        return NULL;
    }

  nbytes = (gsize) numel * dtype_sizes[dtype];
  storage = zeroed ? cr_storage_new_zeroed (device, nbytes, error)
                   : cr_storage_new (device, nbytes, error);
  if (storage == NULL)
    return NULL;

  self = tensor_alloc ();
  self->dtype = dtype;
  self->device = device;
  self->ndim = ndim;
  self->numel = numel;
  self->storage = storage;
  if (ndim > 0)
    {
      memcpy (self->shape, shape, sizeof (gint64) * ndim);
      cr_shape_contiguous_strides (shape, ndim, self->strides);
    }
  return self;
}

CrTensor *
cr_tensor_new_empty (const gint64  *shape,
                     int            ndim,
                     CrDType        dtype,
                     CrDeviceType   device,
                     GError       **error)
{
  return tensor_new (shape, ndim, dtype, device, FALSE, error);
}

CrTensor *
cr_tensor_new_zeros (const gint64  *shape,
                     int            ndim,
                     CrDType        dtype,
                     CrDeviceType   device,
                     GError       **error)
{
  if (device == CR_DEVICE_CPU)
    return tensor_new (shape, ndim, dtype, device, TRUE, error);
  return cr_tensor_new_full (shape, ndim, 0.0, dtype, device, error);
}

CrTensor *
cr_tensor_new_full (const gint64  *shape,
                    int            ndim,
                    double         value,
                    CrDType        dtype,
                    CrDeviceType   device,
                    GError       **error)
{
  CrTensor *self = tensor_new (shape, ndim, dtype, device, FALSE, error);

  if (self != NULL && !cr_kernel_fill (self, value, error))
    g_clear_pointer (&self, cr_tensor_unref);
  return self;
}

static inline void
store_scalar (gpointer data,
              CrDType  dtype,
              double   value)
{
  switch (dtype)
    {
    case CR_DTYPE_BOOL:    *(guint8 *) data = value != 0.0; break;
    case CR_DTYPE_INT64:   *(gint64 *) data = cr_double_to_int64 (value); break;
    case CR_DTYPE_FLOAT32: *(float *) data = (float) value; break;
    case CR_DTYPE_FLOAT64: *(double *) data = value; break;
    case CR_DTYPE_INT32:   *(gint32 *) data = (gint32) (guint32) (guint64) cr_double_to_int64 (value); break;
    case CR_DTYPE_UINT8:   *(guint8 *) data = (guint8) (guint64) cr_double_to_int64 (value); break;
    case CR_DTYPE_COUNT:
    default: break;
    }
}

CrTensor *
cr_tensor_new_scalar (double  value,
                      CrDType dtype)
{
  CrTensor *self = tensor_new (NULL, 0, dtype, CR_DEVICE_CPU, FALSE, NULL);

  store_scalar (self->storage->data, dtype, value);
  return self;
}

CrTensor *
cr_tensor_new_from_data (gconstpointer   data,
                         const gint64   *shape,
                         int             ndim,
                         CrDType         dtype,
                         GError        **error)
{
  CrTensor *self = tensor_new (shape, ndim, dtype, CR_DEVICE_CPU, FALSE, error);

  if (self != NULL && self->numel > 0)
    memcpy (self->storage->data, data, (gsize) self->numel * cr_dtype_size (dtype));
  return self;
}

/* A finite double to int64, saturating (no UB at 2**63). */
static gint64
saturate_to_int64 (double v)
{
  if (v >= 9223372036854775808.0)
    return G_MAXINT64;
  if (v < -9223372036854775808.0)
    return G_MININT64;
  return (gint64) v;
}

CrTensor *
cr_tensor_new_arange (double    start,
                      double    end,
                      double    step,
                      CrDType   dtype,
                      GError  **error)
{
  CrTensor *self;
  double size_d;
  gint64 n;

  /* int32/uint8 count in int64 and are cast: the same values in range. */
  if (cr_dtype_is_narrow_integer (dtype))
    {
      g_autoptr(CrTensor) wide = cr_tensor_new_arange (start, end, step, CR_DTYPE_INT64, error);

      return wide != NULL ? cr_kernel_cast (wide, dtype, error) : NULL;
    }
  if (dtype == CR_DTYPE_BOOL)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "\"arange_cpu\" not implemented for 'Bool'");
      return NULL;
    }
  if (!isfinite (start) || !isfinite (end))
    {
      g_autofree char *a = g_strdup_printf ("%g", start);
      g_autofree char *b = g_strdup_printf ("%g", end);

      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "unsupported range: %s -> %s", a, b);
      return NULL;
    }
  /* PyTorch casts the bounds to the integer type first (a bound from a
   * script int may have rounded up to 2**63 on its way through a double). */
  if (dtype == CR_DTYPE_INT64)
    {
      start = (double) saturate_to_int64 (start);
      end = (double) saturate_to_int64 (end);
      step = (double) saturate_to_int64 (step);
    }
  if (step == 0.0)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR, "step must be nonzero");
      return NULL;
    }
  if ((step > 0 && end < start) || (step < 0 && end > start))
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "upper bound and larger bound inconsistent with step sign");
      return NULL;
    }
  if (dtype == CR_DTYPE_INT64)
    {
      /* PyTorch subtracts in (wrapping) int64: arange(-2**62, 2**62) is
       * "invalid size". */
      guint64 span = (guint64) saturate_to_int64 (end) - (guint64) saturate_to_int64 (start);

      size_d = ceil ((double) (gint64) span / step);
    }
  else
    size_d = ceil ((end - start) / step);
  /* (double) G_MAXINT64 rounds up to 2**63, which no int64 holds. */
  if (!(size_d >= 0 && size_d < 9223372036854775808.0))
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "invalid size, possible overflow?");
      return NULL;
    }
  n = (gint64) size_d;
  self = cr_tensor_new_empty (&n, 1, dtype, CR_DEVICE_CPU, error);
  if (self == NULL)
    return NULL;

  switch (dtype)
    {
    case CR_DTYPE_INT64:
      {
        gint64 *d = self->storage->data;
        guint64 s = (guint64) saturate_to_int64 (start);
        guint64 st = (guint64) saturate_to_int64 (step);

        /* Wraps where PyTorch's int64 accumulation does, without UB. */
        for (gint64 i = 0; i < n; i++)
          d[i] = (gint64) (s + st * (guint64) i);
      }
      break;
    case CR_DTYPE_FLOAT32:
      {
        float *d = self->storage->data;
        gint64 i = 0;

        /* PyTorch's AVX2 loop, in double (its CPU accumulate type): pairs of
         * 8-lane vectors from a float base fused in double (GCC contracts
         * start + step * idx), lane k = base + k * step rounded to float; the
         * tail one by one, fused. */
        for (; i < n - n % 16; i += 8)
          {
            float base = (float) fma (step, (double) i, start);

            for (gint64 k = 0; k < 8; k++)
              d[i + k] = (float) ((double) base + (double) k * step);
          }
        for (; i < n; i++)
          d[i] = (float) fma (step, (double) i, start);
      }
      break;
    case CR_DTYPE_FLOAT64:
      {
        double *d = self->storage->data;
        gint64 i = 0;

        /* As for float32, with 4-lane vectors whose lanes are fused too. */
        for (; i < n - n % 8; i += 4)
          {
            double base = fma (step, (double) i, start);

            for (gint64 k = 0; k < 4; k++)
              d[i + k] = fma ((double) k, step, base);
          }
        for (; i < n; i++)
          d[i] = fma (step, (double) i, start);
      }
      break;
    case CR_DTYPE_BOOL:
    case CR_DTYPE_COUNT:
    default:
      break;
    }
  return self;
}

CrTensor *
cr_tensor_new_linspace (double    start,
                        double    end,
                        gint64    steps,
                        CrDType   dtype,
                        GError  **error)
{
  CrTensor *self;
  gint64 halfway = steps / 2;

  if (cr_dtype_is_narrow_integer (dtype))
    {
      g_autoptr(CrTensor) wide = cr_tensor_new_linspace (start, end, steps, CR_DTYPE_INT64, error);

      return wide != NULL ? cr_kernel_cast (wide, dtype, error) : NULL;
    }

  if (steps < 0)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "number of steps must be non-negative");
      return NULL;
    }
  self = cr_tensor_new_empty (&steps, 1, dtype, CR_DEVICE_CPU, error);
  if (self == NULL || steps == 0)
    return self;
  if (steps == 1)
    {
      store_scalar (self->storage->data, dtype, start);
      return self;
    }

  /* PyTorch's kernel: the first half counts up from start, the second half down
   * from end, so both ends are exact; the step is in the element type for
   * floats and in double for integers. */
  switch (dtype)
    {
    case CR_DTYPE_FLOAT32:
      {
        float *d = self->storage->data;
        float s = (float) start, e = (float) end;
        float step = (e - s) / (float) (steps - 1);
        gint64 i = 0;

        /* PyTorch's AVX2 loop (GCC fuses its a + b * c): pairs of 8-lane
         * vectors, lane k being base + k * step from a fused base; the tail
         * element by element, fused. */
        for (; i < steps - steps % 16; i += 8)
          {
            float base = i < halfway ? fmaf (step, (float) i, s)
                                     : fmaf (-step, (float) (steps - i - 1), e);

            for (gint64 k = 0; k < 8; k++)
              d[i + k] = base + (float) k * step;
          }
        for (; i < steps; i++)
          d[i] = i < halfway ? fmaf (step, (float) i, s) : fmaf (-step, (float) (steps - i - 1), e);
      }
      break;
    case CR_DTYPE_FLOAT64:
      {
        double *d = self->storage->data;
        double step = (end - start) / (double) (steps - 1);
        gint64 i = 0;

        /* As for float32, with 4-lane vectors. */
        for (; i < steps - steps % 8; i += 4)
          {
            double base = i < halfway ? fma (step, (double) i, start)
                                      : fma (-step, (double) (steps - i - 1), end);

            for (gint64 k = 0; k < 4; k++)
              d[i + k] = base + (double) k * step;
          }
        for (; i < steps; i++)
          d[i] = i < halfway ? fma (step, (double) i, start) : fma (-step, (double) (steps - i - 1), end);
      }
      break;
    case CR_DTYPE_INT64:
    case CR_DTYPE_BOOL:
      {
        double s = dtype == CR_DTYPE_INT64 ? (double) (gint64) start : (double) (start != 0);
        double e = dtype == CR_DTYPE_INT64 ? (double) (gint64) end : (double) (end != 0);
        double step = (e - s) / (double) (steps - 1);

        for (gint64 i = 0; i < steps; i++)
          {
            double v = i < halfway ? s + step * (double) i : e - step * (double) (steps - i - 1);

            if (dtype == CR_DTYPE_INT64)
              ((gint64 *) self->storage->data)[i] = (gint64) v;
            else
              ((guint8 *) self->storage->data)[i] = v != 0.0;
          }
      }
      break;
    case CR_DTYPE_COUNT:
    default:
      break;
    }
  return self;
}

CrTensor *
cr_tensor_new_eye (gint64    n,
                   gint64    m,
                   CrDType   dtype,
                   GError  **error)
{
  gint64 shape[2] = { n, m };
  CrTensor *self;
  gsize itemsize = cr_dtype_size (dtype);

  if (n < 0)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "n must be greater or equal to 0, got %" G_GINT64_FORMAT, n);
      return NULL;
    }
  if (m < 0)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "m must be greater or equal to 0, got %" G_GINT64_FORMAT, m);
      return NULL;
    }
  self = cr_tensor_new_zeros (shape, 2, dtype, CR_DEVICE_CPU, error);
  if (self == NULL)
    return NULL;
  for (gint64 i = 0; i < MIN (n, m); i++)
    store_scalar ((guint8 *) self->storage->data + (gsize) (i * m + i) * itemsize, dtype, 1.0);
  return self;
}

/* ---- references and views ------------------------------------------------ */

CrTensor *
cr_tensor_ref (CrTensor *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_atomic_int_inc (&self->ref_count);
  return self;
}

void
cr_tensor_unref (CrTensor *self)
{
  if (self == NULL)
    return;
  if (!g_atomic_int_dec_and_test (&self->ref_count))
    return;

  if (self->grad_fn != NULL || self->grad != NULL || self->hooks != NULL
      || self->view_base != NULL || self->retains_grad)
    cr_autograd_tensor_finalize (self);
  if (self->script_data != NULL)
    self->script_data_free (self->script_data);
  cr_storage_unref (self->storage);
  version_counter_unref (self->version_counter);
  tensor_free (self);
}

CrTensor *
cr_tensor_alias (const CrTensor *self)
{
  /* The atomic increment first: it would wait for the new struct's stores. */
  CrStorage *storage = cr_storage_ref (self->storage);
  CrTensor *alias = tensor_alloc ();

  alias->dtype = self->dtype;
  alias->device = self->device;
  alias->ndim = self->ndim;
  alias->numel = self->numel;
  memcpy (alias->shape, self->shape, sizeof (gint64) * self->ndim);
  memcpy (alias->strides, self->strides, sizeof (gint64) * self->ndim);
  alias->offset = self->offset;
  alias->storage = storage;
  alias->is_wrapped_number = self->is_wrapped_number;
  alias->version_counter = version_counter_ref (self->version_counter);
  return alias;
}

void
cr_tensor_set_source (CrTensor       *self,
                      const CrTensor *src)
{
  if (src == self)
    return;
  if (src->storage != self->storage)
    {
      CrStorage *old = self->storage;
      self->storage = cr_storage_ref (src->storage);
      cr_storage_unref (old);
    }
  self->dtype = src->dtype;
  self->device = src->device;
  self->ndim = src->ndim;
  self->numel = src->numel;
  memcpy (self->shape, src->shape, sizeof self->shape);
  memcpy (self->strides, src->strides, sizeof self->strides);
  self->offset = src->offset;
}

CrTensor *
cr_tensor_alias_unversioned (const CrTensor *self)
{
  CrTensor *alias = cr_tensor_alias (self);

  version_counter_unref (alias->version_counter);
  alias->version_counter = g_new0 (CrVersionCounter, 1);
  alias->version_counter->ref_count = 1;
  return alias;
}

CrTensor *
cr_tensor_new_view (const CrTensor *self,
                    const gint64   *shape,
                    int             ndim,
                    const gint64   *strides,
                    gint64          offset)
{
  CrTensor *view;

  g_return_val_if_fail (ndim >= 0 && ndim <= CR_MAX_DIMS, NULL);

  view = tensor_alloc ();
  view->dtype = self->dtype;
  view->device = self->device;
  view->ndim = ndim;
  view->numel = cr_shape_numel (shape, ndim);
  if (ndim > 0)
    {
      memcpy (view->shape, shape, sizeof (gint64) * ndim);
      memcpy (view->strides, strides, sizeof (gint64) * ndim);
    }
  view->offset = offset;
  view->storage = cr_storage_ref (self->storage);
  view->version_counter = version_counter_ref (self->version_counter);
  return view;
}

gboolean
cr_tensor_is_contiguous (const CrTensor *self)
{
  gint64 expected = 1;

  if (self->numel == 0)
    return TRUE;
  for (int i = self->ndim - 1; i >= 0; i--)
    {
      if (self->shape[i] == 1)
        continue;
      if (self->strides[i] != expected)
        return FALSE;
      expected *= self->shape[i];
    }
  return TRUE;
}

CrTensor *
cr_tensor_contiguous (CrTensor  *self,
                      GError   **error)
{
  if (cr_tensor_is_contiguous (self))
    return cr_tensor_ref (self);
  return cr_tensor_copy (self, error);
}

CrTensor *
cr_tensor_copy (const CrTensor  *self,
                GError         **error)
{
  CrTensor *copy = cr_tensor_new_empty (self->shape, self->ndim, self->dtype, self->device, error);

  if (copy != NULL && !cr_kernel_copy_into (copy, self, error))
    g_clear_pointer (&copy, cr_tensor_unref);
  return copy;
}

/* ---- elements ----------------------------------------------------------- */

/* Storage element offset of the logical row-major index. */
static gint64
flat_to_offset (const CrTensor *self,
                gint64          index)
{
  gint64 offset = self->offset;

  for (int i = self->ndim - 1; i >= 0; i--)
    {
      gint64 size = self->shape[i];

      offset += (index % size) * self->strides[i];
      index /= size;
    }
  return offset;
}

gpointer
cr_tensor_data (const CrTensor *self)
{
  return (guint8 *) self->storage->data + (gsize) self->offset * dtype_sizes[self->dtype];
}

double
cr_tensor_get_flat (const CrTensor *self,
                    gint64          index)
{
  gint64 offset;

  g_return_val_if_fail (self->device == CR_DEVICE_CPU, 0.0);
  g_return_val_if_fail (index >= 0 && index < self->numel, 0.0);

  offset = flat_to_offset (self, index);
  switch (self->dtype)
    {
    case CR_DTYPE_BOOL:    return ((const guint8 *) self->storage->data)[offset] != 0;
    case CR_DTYPE_INT64:   return (double) ((const gint64 *) self->storage->data)[offset];
    case CR_DTYPE_FLOAT32: return ((const float *) self->storage->data)[offset];
    case CR_DTYPE_FLOAT64: return ((const double *) self->storage->data)[offset];
    case CR_DTYPE_INT32:   return ((const gint32 *) self->storage->data)[offset];
    case CR_DTYPE_UINT8:   return ((const guint8 *) self->storage->data)[offset];
    case CR_DTYPE_COUNT:
    default:               return 0.0;
    }
}

gint64
cr_tensor_get_flat_int (const CrTensor *self,
                        gint64          index)
{
  g_return_val_if_fail (self->device == CR_DEVICE_CPU, 0);
  g_return_val_if_fail (index >= 0 && index < self->numel, 0);

  if (self->dtype == CR_DTYPE_INT64)
    return ((const gint64 *) self->storage->data)[flat_to_offset (self, index)];
  return (gint64) cr_tensor_get_flat (self, index);
}

void
cr_tensor_set_flat (CrTensor *self,
                    gint64    index,
                    double    value)
{
  gsize itemsize;

  g_return_if_fail (self->device == CR_DEVICE_CPU);
  g_return_if_fail (index >= 0 && index < self->numel);

  itemsize = cr_dtype_size (self->dtype);
  store_scalar ((guint8 *) self->storage->data + (gsize) flat_to_offset (self, index) * itemsize,
                self->dtype, value);
}

guint32
cr_tensor_version (const CrTensor *self)
{
  return G_LIKELY (self->version_counter == NULL) ? self->storage->version
                                                  : self->version_counter->version;
}

static __thread CrVersionObserverFunc version_observer;
static __thread gpointer version_observer_data;

void
cr_tensor_set_version_observer (CrVersionObserverFunc func,
                                gpointer              user_data)
{
  version_observer = func;
  version_observer_data = user_data;
}

void
cr_tensor_bump_version (CrTensor *self)
{
  if (G_LIKELY (self->version_counter == NULL))
    self->storage->version++;
  else
    self->version_counter->version++;
  if (G_UNLIKELY (version_observer != NULL))
    version_observer (self, version_observer_data);
}

const char *
cr_tensor_get_name (const CrTensor *self)
{
  return self->name;
}

void
cr_tensor_set_name (CrTensor   *self,
                    const char *name)
{
  /* Names repeat (a loop binds the same few variables), and interning takes
   * a global lock: the last few interned names are looked at first. */
  static __thread const char *recent[4];
  static __thread guint next;

  if (self->name != NULL || name == NULL)
    return;
  for (guint i = 0; i < G_N_ELEMENTS (recent); i++)
    if (recent[i] != NULL && strcmp (recent[i], name) == 0)
      {
        self->name = recent[i];
        return;
      }
  self->name = g_intern_string (name);
  recent[next++ % G_N_ELEMENTS (recent)] = self->name;
}
