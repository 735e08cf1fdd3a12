/* cr-tensor-snapshot.c — a tensor's numbers and metadata copied out as plain
 * data (CrTensorSnapshot), for the step card
 * and the inspector.
 *
 * Statistics are torch's: mean, std with Bessel's correction (NaN for one
 * element), min and max propagating NaN; all NaN for an empty tensor. */
#include "cr-tensor-snapshot.h"

#include "cr-device.h"
#include "cr-dtype.h"
#include "cr-kernels.h"
#include "cr-tensor.h"
#include "cr-tensor-format.h"

#include <math.h>
#include <string.h>

/* Tensors above this many elements get no text: the card draws a heat map. */
#define SNAPSHOT_TEXT_MAX_NUMEL 64

/* Formatting a tensor's text is most of what a snapshot costs, and a run
 * record snapshots the same small data again and again (a step's incoming
 * gradient is the step before's outgoing one, a product is often the
 * gradient sent on): each thread keeps the texts of the last few, keyed by
 * dtype, shape and the bytes themselves (-0. is not 0.). */
#define TEXT_CACHE_SIZE 32

typedef struct {
  char    *text;        /* NULL: an empty entry */
  CrDType  dtype;
  int      ndim;
  gint64   shape[CR_MAX_DIMS];
  gsize    n_bytes;
  guint8   bytes[SNAPSHOT_TEXT_MAX_NUMEL * sizeof (gint64)];
} TextEntry;

typedef struct {
  TextEntry entries[TEXT_CACHE_SIZE];
  guint     next;       /* the entry a miss replaces */
} TextCache;

static void
text_cache_free (gpointer data)
{
  TextCache *cache = data;
  for (guint i = 0; i < TEXT_CACHE_SIZE; i++)
    g_free (cache->entries[i].text);
  g_free (cache);
}

static GPrivate text_cache_key = G_PRIVATE_INIT (text_cache_free);

/* tensor's values as print() shows them (new string); host is its
 * contiguous host copy, or NULL when there is none. */
static char *
snapshot_text (const CrTensor *tensor,
               const CrTensor *host)
{
  CrPrintOptions options;
  cr_print_options_init_default (&options);
  if (!host)
    return cr_tensor_format_data (tensor, &options, 0);
  gsize n_bytes = (gsize) host->numel * cr_dtype_size (host->dtype);
  gconstpointer data = cr_tensor_data (host);
  if (n_bytes > sizeof ((TextEntry *) NULL)->bytes)
    return cr_tensor_format_data (tensor, &options, 0);
  TextCache *cache = g_private_get (&text_cache_key);
  if (!cache)
    {
      cache = g_new0 (TextCache, 1);
      g_private_set (&text_cache_key, cache);
    }
  gsize shape_bytes = sizeof (gint64) * (gsize) MAX (host->ndim, 0);
  for (guint i = 0; i < TEXT_CACHE_SIZE; i++)
    {
      const TextEntry *e = &cache->entries[i];
      if (e->text && e->dtype == host->dtype && e->ndim == host->ndim && e->n_bytes == n_bytes
          && memcmp (e->shape, host->shape, shape_bytes) == 0
          && memcmp (e->bytes, data, n_bytes) == 0)
        return g_strdup (e->text);
    }
  char *text = cr_tensor_format_data (tensor, &options, 0);
  TextEntry *e = &cache->entries[cache->next];
  cache->next = (cache->next + 1) % TEXT_CACHE_SIZE;
  g_free (e->text);
  e->text = g_strdup (text);
  e->dtype = host->dtype;
  e->ndim = host->ndim;
  memcpy (e->shape, host->shape, shape_bytes);
  e->n_bytes = n_bytes;
  memcpy (e->bytes, data, n_bytes);
  return text;
}

/* A contiguous host tensor with t's values (a new ref), or NULL when the
 * device could not be read. */
static CrTensor *
host_contiguous (const CrTensor *t)
{
  if (t->device == CR_DEVICE_CPU)
    return cr_tensor_contiguous ((CrTensor *) t, NULL);
  g_autoptr (CrTensor) copy = cr_tensor_new_empty (t->shape, t->ndim, t->dtype, CR_DEVICE_CPU, NULL);
  if (!copy || !cr_kernel_copy_into (copy, t, NULL))
    return NULL;
  return g_steal_pointer (&copy);
}

static inline double
read_element (gconstpointer data,
              CrDType       dtype,
              gint64        i)
{
  switch (dtype)
    {
    case CR_DTYPE_BOOL:    return ((const guint8 *) data)[i] != 0;
    case CR_DTYPE_INT64:   return (double) ((const gint64 *) data)[i];
    case CR_DTYPE_FLOAT32: return ((const float *) data)[i];
    case CR_DTYPE_FLOAT64: return ((const double *) data)[i];
    case CR_DTYPE_INT32:   return ((const gint32 *) data)[i];
    case CR_DTYPE_UINT8:   return ((const guint8 *) data)[i];
    case CR_DTYPE_COUNT:
    default:               return 0.0;
    }
}

/* Whether the values kept give back the tensor's exactly, as its text
 * needs: all of them, and no int64 beyond a double's 53 bits. */
static gboolean
values_exact (const CrTensorSnapshot *s,
              const CrTensor         *host)
{
  if (!host || s->n_values < s->numel)
    return FALSE;
  if (host->dtype != CR_DTYPE_INT64)
    return TRUE;
  const gint64 *data = cr_tensor_data (host);
  for (gint64 i = 0; i < host->numel; i++)
    if (data[i] > (G_GINT64_CONSTANT (1) << 53) || data[i] < -(G_GINT64_CONSTANT (1) << 53))
      return FALSE;
  return TRUE;
}

static CrTensorSnapshot *
snapshot_new (const CrTensor *tensor,
              gint64          max_values,
              gboolean        defer_text)
{
  if (!tensor)
    return NULL;
  CrTensorSnapshot *s = g_new0 (CrTensorSnapshot, 1);
  s->ndim = tensor->ndim;
  memcpy (s->shape, tensor->shape, sizeof (gint64) * (gsize) MAX (tensor->ndim, 0));
  s->numel = tensor->numel;
  s->dtype = g_strdup (cr_dtype_name (tensor->dtype));
  s->device = g_strdup (cr_device_name (tensor->device));
  s->min = s->max = s->mean = s->std = NAN;

  g_autoptr (CrTensor) host = tensor->numel > 0 ? host_contiguous (tensor) : NULL;
  if (host)
    {
      gconstpointer data = cr_tensor_data (host);
      s->n_values = CLAMP (max_values, 0, MIN (host->numel, (gint64) CR_SNAPSHOT_MAX_VALUES));
      s->values = s->n_values > 0 ? g_new (double, s->n_values) : NULL;
      /* Two passes: the mean first, then the squared deviations, which
       * keeps the std accurate where sum-of-squares would cancel. */
      double sum = 0, lo = INFINITY, hi = -INFINITY;
      gboolean any_nan = FALSE;
      for (gint64 i = 0; i < host->numel; i++)
        {
          double v = read_element (data, host->dtype, i);
          if (i < s->n_values)
            s->values[i] = v;
          sum += v;
          if (isnan (v))
            any_nan = TRUE;
          else
            {
              lo = MIN (lo, v);
              hi = MAX (hi, v);
            }
        }
      s->mean = sum / (double) host->numel;
      double sq = 0;
      for (gint64 i = 0; i < host->numel; i++)
        {
          double d = read_element (data, host->dtype, i) - s->mean;
          sq += d * d;
        }
      /* torch.std: Bessel's correction, NaN for a single element. */
      s->std = host->numel > 1 ? sqrt (sq / (double) (host->numel - 1)) : NAN;
      /* torch.min/max propagate NaN. */
      s->min = any_nan ? NAN : lo;
      s->max = any_nan ? NAN : hi;
    }
  if (tensor->numel <= SNAPSHOT_TEXT_MAX_NUMEL)
    {
      if (defer_text && tensor->numel > 0 && values_exact (s, host))
        s->text_deferred = TRUE;
      else
        s->text = snapshot_text (tensor, host);
    }
  return s;
}

CrTensorSnapshot *
cr_tensor_snapshot_new_limited (const CrTensor *tensor,
                                gint64          max_values)
{
  return snapshot_new (tensor, max_values, FALSE);
}

CrTensorSnapshot *
cr_tensor_snapshot_new_deferred (const CrTensor *tensor,
                                 gint64          max_values)
{
  return snapshot_new (tensor, max_values, TRUE);
}

CrTensorSnapshot *
cr_tensor_snapshot_new (const CrTensor *tensor)
{
  return cr_tensor_snapshot_new_limited (tensor, CR_SNAPSHOT_MAX_VALUES);
}

CrTensorSnapshot *
cr_tensor_snapshot_copy (const CrTensorSnapshot *self)
{
  if (!self)
    return NULL;
  CrTensorSnapshot *s = g_memdup2 (self, sizeof *self);
  s->shares = 0;
  s->dtype = g_strdup (self->dtype);
  s->device = g_strdup (self->device);
  s->values = self->values ? g_memdup2 (self->values, sizeof (double) * (gsize) self->n_values) : NULL;
  s->text = g_strdup (self->text);
  return s;
}

CrTensorSnapshot *
cr_tensor_snapshot_share (CrTensorSnapshot *self)
{
  if (self)
    g_atomic_int_inc (&self->shares);
  return self;
}

void
cr_tensor_snapshot_free (CrTensorSnapshot *self)
{
  if (!self)
    return;
  /* Another owner holds it still: one hold less. */
  for (gint shares = g_atomic_int_get (&self->shares); shares > 0;
       shares = g_atomic_int_get (&self->shares))
    if (g_atomic_int_compare_and_exchange (&self->shares, shares, shares - 1))
      return;
  g_free (self->dtype);
  g_free (self->device);
  g_free (self->values);
  g_free (self->text);
  g_free (self);
}

/* The inverse of read_element. Values read from another process's record
 * may not fit an integer dtype: converted without UB, as casts do. */
static inline void
write_element (gpointer data,
               CrDType  dtype,
               gint64   i,
               double   v)
{
  switch (dtype)
    {
    case CR_DTYPE_BOOL:    ((guint8 *) data)[i] = v != 0; break;
    case CR_DTYPE_INT64:   ((gint64 *) data)[i] = cr_double_to_int64 (v); break;
    case CR_DTYPE_FLOAT32: ((float *) data)[i] = (float) v; break;
    case CR_DTYPE_FLOAT64: ((double *) data)[i] = v; break;
    case CR_DTYPE_INT32:   ((gint32 *) data)[i] = (gint32) cr_double_to_int64 (v); break;
    case CR_DTYPE_UINT8:   ((guint8 *) data)[i] = (guint8) cr_double_to_int64 (v); break;
    case CR_DTYPE_COUNT:
    default:               break;
    }
}

/* A host tensor holding the snapshot's values (a new ref), or NULL when it
 * does not keep them all. */
static CrTensor *
values_tensor (const CrTensorSnapshot *self)
{
  if (!self || self->numel == 0 || self->n_values < self->numel)
    return NULL;
  CrDType dtype = CR_DTYPE_FLOAT32;
  for (int d = 0; d < CR_DTYPE_COUNT; d++)
    if (g_strcmp0 (self->dtype, cr_dtype_name ((CrDType) d)) == 0)
      dtype = (CrDType) d;
  CrTensor *t = cr_tensor_new_empty (self->shape, self->ndim, dtype, CR_DEVICE_CPU, NULL);
  if (!t)
    return NULL;
  gpointer data = cr_tensor_data (t);
  for (gint64 i = 0; i < self->numel; i++)
    write_element (data, dtype, i, self->values[i]);
  return t;
}

const char *
cr_tensor_snapshot_get_text (const CrTensorSnapshot *self)
{
  if (!self)
    return NULL;
  /* Filling the deferred text changes nothing a reader can see, so a
   * const (and shared) snapshot may do it: the first to finish wins. */
  CrTensorSnapshot *s = (CrTensorSnapshot *) self;
  char *text = g_atomic_pointer_get (&s->text);
  if (text || !s->text_deferred)
    return text;
  g_autoptr (CrTensor) t = values_tensor (s);
  char *made = t ? snapshot_text (t, t) : NULL;
  if (g_atomic_pointer_compare_and_exchange (&s->text, NULL, made))
    return made;
  g_free (made);
  return g_atomic_pointer_get (&s->text);
}

char *
cr_tensor_snapshot_format (const CrTensorSnapshot *self,
                           const CrPrintOptions   *options)
{
  g_autoptr (CrTensor) t = values_tensor (self);
  if (!t)
    return NULL;
  CrPrintOptions defaults;
  cr_print_options_init_default (&defaults);
  return cr_tensor_format_data (t, options ? options : &defaults, 0);
}

double
cr_tensor_snapshot_norm (const CrTensorSnapshot *self)
{
  g_return_val_if_fail (self != NULL, NAN);
  if (self->numel == 0)
    return NAN;
  double n = (double) self->numel;
  double spread = self->numel > 1 ? (n - 1) * self->std * self->std : 0;
  return sqrt (n * self->mean * self->mean + spread);
}
