/* cr-torch-counting.c — torch.unique and torch.bincount: counting the values
 * of a tensor, which data preparation does (class counts, label sets). No
 * gradient flows through either (PyTorch's unique has none to give), so
 * both work on the host: values read there, results made there and moved
 * to the input's device. */
#include "cr-torch-native.h"
#include "cr-error.h"
#include "cr-cuda.h"

#include <math.h>
#include <stdlib.h>

/* t on the host (a new ref). */
static CrTensor *
on_host (CrTensor  *t,
         GError   **error)
{
  if (t->device == CR_DEVICE_CPU)
    return cr_tensor_ref (t);
  return cr_tensor_to_device (t, CR_DEVICE_CPU, error);
}

/* Takes t (on the host) and gives it on device. */
static CrTensor *
to_device_take (CrTensor      *t,
                CrDeviceType   device,
                GError       **error)
{
  CrTensor *moved;

  if (t == NULL || device == CR_DEVICE_CPU)
    return t;
  moved = cr_tensor_to_device (t, device, error);
  cr_tensor_unref (t);
  return moved;
}

/* Ascending, NaN last as in a sort (PyTorch's unique puts it first: see
 * native_unique). */
static int
compare_doubles (const void *pa,
                 const void *pb)
{
  double a = *(const double *) pa, b = *(const double *) pb;

  if (isnan (a) || isnan (b))
    return isnan (a) - isnan (b);
  return (a > b) - (a < b);
}

/* unique(input, sorted=True, return_inverse=False, return_counts=False,
 * dim=None): sorted either way, as PyTorch's CPU kernel gives it. */
NATIVE (native_unique)
{
  g_autoptr(CrTensor) host = NULL;
  g_autofree double *values = NULL;
  g_autofree double *sorted = NULL;
  g_autoptr(CrTensor) out = NULL;
  g_autoptr(CrTensor) inverse = NULL;
  g_autoptr(CrTensor) counts = NULL;
  gboolean want_inverse, want_counts, unused;
  gint64 n_unique = 0;
  CrTensor *x;
  PARSE ("unique", "input | sorted return_inverse return_counts dim");

  x = cr_torch_args_tensor (&a, 0, error);
  if (x == NULL || !cr_torch_args_bool (&a, 1, TRUE, &unused, error)
      || !cr_torch_args_bool (&a, 2, FALSE, &want_inverse, error)
      || !cr_torch_args_bool (&a, 3, FALSE, &want_counts, error))
    return NULL;
  if (cr_torch_args_has (&a, 4))
    {
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_NOT_IMPLEMENTED_ERROR,
                           "torch.unique(dim=...) is not supported by Chainrule yet");
      return NULL;
    }
  host = on_host (x, error);
  if (host == NULL)
    return NULL;
  values = g_new (double, MAX (host->numel, 1));
  sorted = g_new (double, MAX (host->numel, 1));
  for (gint64 i = 0; i < host->numel; i++)
    sorted[i] = values[i] = cr_tensor_get_flat (host, i);
  qsort (sorted, host->numel, sizeof (double), compare_doubles);
  for (gint64 i = 0; i < host->numel; i++)
    if (n_unique == 0 || compare_doubles (&sorted[i], &sorted[n_unique - 1]) != 0
        || isnan (sorted[i]))
      sorted[n_unique++] = sorted[i];

  out = cr_tensor_new_empty (&n_unique, 1, x->dtype, CR_DEVICE_CPU, error);
  if (out == NULL)
    return NULL;
  for (gint64 i = 0; i < n_unique; i++)
    cr_tensor_set_flat (out, i, sorted[i]);
  if (want_inverse || want_counts)
    {
      inverse = cr_tensor_new_empty (x->shape, x->ndim, CR_DTYPE_INT64, CR_DEVICE_CPU, error);
      counts = inverse != NULL ? cr_tensor_new_zeros (&n_unique, 1, CR_DTYPE_INT64,
                                                      CR_DEVICE_CPU, error) : NULL;
      if (counts == NULL)
        return NULL;
      for (gint64 i = 0; i < host->numel; i++)
        {
          const double *at = isnan (values[i]) ? NULL
                             : bsearch (&values[i], sorted, n_unique, sizeof (double),
                                        compare_doubles);
          gint64 k = at != NULL ? at - sorted : n_unique - 1;

          cr_tensor_set_flat (inverse, i, (double) k);
          cr_tensor_set_flat (counts, k, cr_tensor_get_flat (counts, k) + 1);
        }
    }
  {
    CrValue *items[3];
    guint n = 0;
    CrValue *result;

    out = to_device_take (g_steal_pointer (&out), x->device, error);
    if (out == NULL)
      return NULL;
    if (!want_inverse && !want_counts)
      return cr_torch_wrap (g_steal_pointer (&out));
    items[n++] = cr_torch_wrap (g_steal_pointer (&out));
    if (want_inverse)
      items[n++] = cr_torch_wrap (to_device_take (g_steal_pointer (&inverse), x->device, error));
    if (want_counts)
      items[n++] = cr_torch_wrap (to_device_take (g_steal_pointer (&counts), x->device, error));
    for (guint i = 0; i < n; i++)
      if (items[i] == NULL)
        {
          for (guint j = 0; j < n; j++)
            if (items[j] != NULL)
              cr_value_unref (items[j]);
          return NULL;
        }
    result = cr_value_new_tuple (items, n);
    for (guint i = 0; i < n; i++)
      cr_value_unref (items[i]);
    return result;
  }
}

/* bincount(input, weights=None, minlength=0) */
NATIVE (native_bincount)
{
  g_autoptr(CrTensor) host = NULL;
  g_autoptr(CrTensor) host_weights = NULL;
  g_autoptr(CrTensor) out = NULL;
  CrTensor *weights = NULL;
  gint64 minlength, length;
  gboolean negative = FALSE;
  CrTensor *x;
  PARSE ("bincount", "input | weights minlength");

  x = cr_torch_args_tensor (&a, 0, error);
  if (x == NULL || !cr_torch_args_int (&a, 2, 0, &minlength, error))
    return NULL;
  if (cr_torch_args_has (&a, 1) && (weights = cr_torch_args_tensor (&a, 1, error)) == NULL)
    return NULL;
  if (cr_dtype_is_floating (x->dtype))
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                   "\"bincount_cpu\" not implemented for '%s'", cr_dtype_scalar_name (x->dtype));
      return NULL;
    }
  if (minlength < 0)
    {
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                           "minlength should be >= 0");
      return NULL;
    }
  host = on_host (x, error);
  if (host == NULL)
    return NULL;
  length = minlength;
  for (gint64 i = 0; i < host->numel; i++)
    {
      gint64 v = cr_tensor_get_flat_int (host, i);

      negative |= v < 0;
      length = MAX (length, v + 1);
    }
  if (host->ndim != 1 || negative)
    {
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                           "bincount only supports 1-d non-negative integral inputs.");
      return NULL;
    }
  if (weights != NULL && (weights->ndim != 1 || weights->numel != host->numel))
    {
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                           "weights should be 1-d and have the same length as input");
      return NULL;
    }
  if (weights != NULL && (host_weights = on_host (weights, error)) == NULL)
    return NULL;
  out = cr_tensor_new_zeros (&length, 1,
                             weights == NULL ? CR_DTYPE_INT64
                             : cr_dtype_is_floating (weights->dtype) ? weights->dtype
                             : CR_DTYPE_FLOAT64,
                             CR_DEVICE_CPU, error);
  if (out == NULL)
    return NULL;
  for (gint64 i = 0; i < host->numel; i++)
    {
      gint64 v = cr_tensor_get_flat_int (host, i);

      cr_tensor_set_flat (out, v, cr_tensor_get_flat (out, v)
                                  + (host_weights != NULL ? cr_tensor_get_flat (host_weights, i)
                                                          : 1.0));
    }
  return cr_torch_wrap (to_device_take (g_steal_pointer (&out), x->device, error));
}

#define T CR_TORCH_IN_TORCH
#define M CR_TORCH_IN_TENSOR
/* count_nonzero(input, dim=None): how many elements are not zero, int64. */
NATIVE (native_count_nonzero)
{
  int dims[CR_MAX_DIMS];
  int n_dims = 0;
  g_autoptr(CrTensor) zero = cr_tensor_new_scalar (0.0, CR_DTYPE_INT64);
  g_autoptr(CrTensor) nonzero = NULL;
  PARSE ("count_nonzero", "input | dim");
  TENSOR_ARG (x, 0);

  if (!cr_torch_args_dims (&a, 1, dims, &n_dims, error))
    return NULL;
  zero->is_wrapped_number = TRUE;
  if ((nonzero = cr_kernel_binary (CR_BINARY_NE, x, zero, error)) == NULL)
    return NULL;
  return cr_torch_wrap (cr_kernel_sum (nonzero, dims, n_dims, FALSE, error));
}

const CrTorchFunc cr_torch_counting_funcs[] = {
  { "unique", native_unique, T | M, NULL },
  { "bincount", native_bincount, T | M, NULL },
  { "count_nonzero", native_count_nonzero, T | M, NULL },
};
const guint cr_torch_n_counting_funcs = G_N_ELEMENTS (cr_torch_counting_funcs);
