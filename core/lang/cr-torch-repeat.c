/* cr-torch-repeat.c — repeat_interleave and meshgrid, which PyTorch 1.13
 * builds from other ops, so they record those ops' nodes:
 * repeat_interleave is an index_select (IndexSelectBackward0, after a
 * flatten when no dim is given), each grid of meshgrid a view expanded
 * (ExpandBackward0 over ViewBackward0). */
#include "cr-torch-native.h"
#include "cr-error.h"
#include "cr-cuda.h"

#include <string.h>

/* The index that repeats each of n positions counts[i] times (counts NULL:
 * each `each` times), an int64 tensor on device. */
static CrTensor *
repeated_positions (gint64         n,
                    const gint64  *counts,
                    gint64         each,
                    CrDeviceType   device,
                    GError       **error)
{
  gint64 total = 0;
  CrTensor *idx;
  gint64 *p;

  for (gint64 i = 0; i < n; i++)
    total += counts != NULL ? counts[i] : each;
  idx = cr_tensor_new_empty (&total, 1, CR_DTYPE_INT64, CR_DEVICE_CPU, error);
  if (idx == NULL)
    return NULL;
  p = cr_tensor_data (idx);
  for (gint64 i = 0; i < n; i++)
    for (gint64 k = 0; k < (counts != NULL ? counts[i] : each); k++)
      *p++ = i;
  if (device != CR_DEVICE_CPU)
    {
      CrTensor *moved = cr_tensor_to_device (idx, device, error);

      cr_tensor_unref (idx);
      idx = moved;
    }
  return idx;
}

static gboolean
negative_repeats (GError **error)
{
  g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR, "repeats can not be negative");
  return FALSE;
}

/* The counts of a repeats tensor, read on the host (a new array), checked. */
static gint64 *
read_counts (CrTensor  *repeats,
             GError   **error)
{
  g_autoptr(CrTensor) host = NULL;
  g_autofree gint64 *counts = NULL;

  if (cr_dtype_is_floating (repeats->dtype) || repeats->dtype == CR_DTYPE_BOOL)
    {
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                           "repeats has to be Long tensor");
      return NULL;
    }
  if (repeats->ndim > 1)
    {
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                           "repeats has to be 1D tensor");
      return NULL;
    }
  host = repeats->device == CR_DEVICE_CPU ? cr_tensor_ref (repeats)
                                          : cr_tensor_to_device (repeats, CR_DEVICE_CPU, error);
  if (host == NULL)
    return NULL;
  counts = g_new (gint64, MAX (host->numel, 1));
  for (gint64 i = 0; i < host->numel; i++)
    if ((counts[i] = cr_tensor_get_flat_int (host, i)) < 0)
      {
        negative_repeats (error);
        return NULL;
      }
  return g_steal_pointer (&counts);
}

/* repeat_interleave(input, repeats=None, dim=None, *, output_size=None);
 * torch.repeat_interleave(repeats) alone gives the repeated positions. */
NATIVE (native_repeat_interleave)
{
  g_autoptr(CrTensor) flat = NULL;
  g_autofree gint64 *counts = NULL;
  g_autoptr(CrTensor) idx = NULL;
  gint64 each = 1, dim = 0;
  CrTensor *x;
  PARSE ("repeat_interleave", "input | repeats dim * output_size");

  x = cr_torch_args_tensor (&a, 0, error);
  if (x == NULL)
    return NULL;
  if (!cr_torch_args_has (&a, 1))
    {
      /* The input is the repeats: positions 0.. each repeated. */
      counts = read_counts (x, error);
      if (counts == NULL)
        return NULL;
      return cr_torch_wrap (repeated_positions (x->numel, counts, 1, x->device, error));
    }
  if (a.values[1]->kind == CR_VALUE_TENSOR)
    {
      CrTensor *repeats = cr_torch_args_tensor (&a, 1, error);

      if (repeats == NULL || (counts = read_counts (repeats, error)) == NULL)
        return NULL;
      if (repeats->numel == 1)
        {
          each = counts[0];
          g_clear_pointer (&counts, g_free);
        }
    }
  else if (!cr_torch_args_int (&a, 1, 1, &each, error))
    return NULL;
  else if (each < 0)
    {
      negative_repeats (error);
      return NULL;
    }

  if (cr_torch_args_has (&a, 2))
    {
      gint64 lo = -MAX (x->ndim, 1), hi = MAX (x->ndim, 1) - 1;

      if (!cr_torch_args_int (&a, 2, 0, &dim, error))
        return NULL;
      if (dim < lo || dim > hi)
        {
          g_set_error (error, CR_LANG_ERROR, CR_EXC_INDEX_ERROR,
                       "Dimension out of range (expected to be in range of [%" G_GINT64_FORMAT
                       ", %" G_GINT64_FORMAT "], but got %" G_GINT64_FORMAT ")", lo, hi, dim);
          return NULL;
        }
      if (dim < 0)
        dim += MAX (x->ndim, 1);
      flat = cr_tensor_ref (x);
    }
  else
    flat = x->ndim == 1 ? cr_tensor_ref (x) : cr_flatten (x, 0, -1, error);
  if (flat == NULL)
    return NULL;
  {
    gint64 size = flat->ndim > 0 ? flat->shape[dim] : 1;
    CrTensor *repeats = counts != NULL ? cr_torch_args_tensor (&a, 1, error) : NULL;

    if (repeats != NULL && repeats->numel != size)
      {
        g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                             "repeats must have the same size as input along dim");
        return NULL;
      }
    idx = repeated_positions (size, counts, each, flat->device, error);
  }
  if (idx == NULL)
    return NULL;
  return cr_torch_wrap (cr_index_select (flat, (int) dim, idx, error));
}

/* meshgrid(*tensors, indexing=None): a list or tuple of tensors works too. */
NATIVE (native_meshgrid)
{
  g_autoptr(GPtrArray) inputs = g_ptr_array_new ();
  g_autoptr(GPtrArray) grids = g_ptr_array_new_with_free_func ((GDestroyNotify) cr_value_unref);
  const char *indexing = "ij";
  gint64 sizes[CR_MAX_DIMS];
  gboolean swap;
  guint n;

  for (guint i = 0; i < n_kwargs; i++)
    {
      if (strcmp (kwargs[i].name, "indexing") != 0 || kwargs[i].value->kind != CR_VALUE_STR)
        {
          g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                       "meshgrid() got an unexpected keyword argument '%s'", kwargs[i].name);
          return NULL;
        }
      indexing = kwargs[i].value->u.str.data;
    }
  if (n_kwargs == 0)
    cr_interp_warn (interp, "UserWarning",
                    "torch.meshgrid: in an upcoming release, it will be required to pass the "
                    "indexing argument.");
  if (strcmp (indexing, "ij") != 0 && strcmp (indexing, "xy") != 0)
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                   "torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: %s",
                   indexing);
      return NULL;
    }
  if (n_args == 1 && (args[0]->kind == CR_VALUE_LIST || args[0]->kind == CR_VALUE_TUPLE))
    for (guint i = 0; i < args[0]->u.seq.items->len; i++)
      g_ptr_array_add (inputs, args[0]->u.seq.items->pdata[i]);
  else
    for (guint i = 0; i < n_args; i++)
      g_ptr_array_add (inputs, args[i]);
  n = inputs->len;
  if (n == 0 || n > CR_MAX_DIMS)
    {
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                           "meshgrid expects a non-empty TensorList");
      return NULL;
    }
  for (guint i = 0; i < n; i++)
    {
      CrValue *v = inputs->pdata[i];

      if (v->kind != CR_VALUE_TENSOR)
        {
          g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                       "meshgrid(): argument 'tensors' (position 1) must be tuple of Tensors, "
                       "not %s", cr_torch_type_name (v));
          return NULL;
        }
      if (v->u.tensor->ndim > 1)
        {
          g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                       "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: %s",
                       "a tensor of more dims");
          return NULL;
        }
    }
  /* xy: the first two swapped in, and the grids swapped back out. */
  swap = strcmp (indexing, "xy") == 0 && n >= 2;
  if (swap)
    {
      gpointer first = inputs->pdata[0];

      inputs->pdata[0] = inputs->pdata[1];
      inputs->pdata[1] = first;
    }
  for (guint i = 0; i < n; i++)
    sizes[i] = ((CrValue *) inputs->pdata[i])->u.tensor->numel;
  for (guint i = 0; i < n; i++)
    {
      CrTensor *t = ((CrValue *) inputs->pdata[i])->u.tensor;
      gint64 view_shape[CR_MAX_DIMS];
      g_autoptr(CrTensor) viewed = NULL;
      CrTensor *grid;

      for (guint d = 0; d < n; d++)
        view_shape[d] = d == i ? sizes[i] : 1;
      viewed = cr_view (t, view_shape, (int) n, error);
      grid = viewed != NULL ? cr_expand (viewed, sizes, (int) n, error) : NULL;
      if (grid == NULL)
        return NULL;
      g_ptr_array_add (grids, cr_value_new_tensor_take (grid));
    }
  if (swap)
    {
      gpointer first = grids->pdata[0];

      grids->pdata[0] = grids->pdata[1];
      grids->pdata[1] = first;
    }
  return cr_value_new_tuple ((CrValue *const *) grids->pdata, grids->len);
}

#define T CR_TORCH_IN_TORCH
#define M CR_TORCH_IN_TENSOR
const CrTorchFunc cr_torch_repeat_funcs[] = {
  { "repeat_interleave", native_repeat_interleave, T | M, NULL },
  { "meshgrid", native_meshgrid, T, NULL },
};
const guint cr_torch_n_repeat_funcs = G_N_ELEMENTS (cr_torch_repeat_funcs);
