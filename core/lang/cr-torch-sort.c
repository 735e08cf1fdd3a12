/* cr-torch-sort.c — torch.sort, argsort, msort, topk, median, kthvalue,
 * mode, cummax/cummin and
 * nonzero/argwhere (the functions that answer with positions), as functions
 * and Tensor methods. The ops are in core/ops/cr-ops-sort.c,
 * cr-ops-cummax.c and cr-ops-nonzero.c. */
#include "cr-torch-native.h"
#include "cr-grad-mode.h"

/* sort(input, dim=-1, descending=False, stable=False) -> (values, indices) */
NATIVE (native_sort)
{
  gint64 dim;
  gboolean descending, stable;
  CrTensor *indices = NULL;
  CrTensor *values;
  PARSE ("sort", "input | dim descending stable");
  TENSOR_ARG (x, 0);

  if (!cr_torch_args_int (&a, 1, -1, &dim, error)
      || !cr_torch_args_bool (&a, 2, FALSE, &descending, error)
      || !cr_torch_args_bool (&a, 3, FALSE, &stable, error))
    return NULL;
  /* PyTorch's CPU sort is stable either way. */
  values = cr_sort (x, (int) dim, descending, &indices, error);
  if (values == NULL)
    return NULL;
  return cr_torch_return_pair_new ("sort", values, indices);
}

/* argsort(input, dim=-1, descending=False, stable=False) */
NATIVE (native_argsort)
{
  gint64 dim;
  gboolean descending, stable;
  CrTensor *indices = NULL;
  g_autoptr(CrTensor) values = NULL;
  PARSE ("argsort", "input | dim descending stable");
  TENSOR_ARG (x, 0);

  if (!cr_torch_args_int (&a, 1, -1, &dim, error)
      || !cr_torch_args_bool (&a, 2, FALSE, &descending, error)
      || !cr_torch_args_bool (&a, 3, FALSE, &stable, error))
    return NULL;
  /* The indices only: no graph, as PyTorch's argsort has no grad_fn. */
  {
    gboolean was = cr_grad_mode_set_enabled (FALSE);
    values = cr_sort (x, (int) dim, descending, &indices, error);
    cr_grad_mode_set_enabled (was);
  }
  return values != NULL ? cr_value_new_tensor_take (indices) : NULL;
}

/* msort(input): sort along dim 0, the values only. */
NATIVE (native_msort)
{
  g_autoptr(CrTensor) indices = NULL;
  PARSE ("msort", "input");
  TENSOR_ARG (x, 0);

  return cr_torch_wrap (cr_sort (x, 0, FALSE, &indices, error));
}

/* topk(input, k, dim=-1, largest=True, sorted=True) -> (values, indices) */
NATIVE (native_topk)
{
  gint64 k, dim;
  gboolean largest, sorted;
  CrTensor *indices = NULL;
  CrTensor *values;
  PARSE ("topk", "input k | dim largest sorted");
  TENSOR_ARG (x, 0);

  if (!cr_torch_args_int (&a, 1, 0, &k, error)
      || !cr_torch_args_int (&a, 2, -1, &dim, error)
      || !cr_torch_args_bool (&a, 3, TRUE, &largest, error)
      || !cr_torch_args_bool (&a, 4, TRUE, &sorted, error))
    return NULL;
  values = cr_topk (x, k, (int) dim, largest, &indices, error);
  if (values == NULL)
    return NULL;
  return cr_torch_return_pair_new ("topk", values, indices);
}

/* cummax(input, dim) / cummin (data TRUE) -> (values, indices) */
NATIVE (native_cummax)
{
  gboolean is_min = GPOINTER_TO_INT (data);
  gint64 dim;
  CrTensor *indices = NULL;
  CrTensor *values;
  PARSE (is_min ? "cummin" : "cummax", "input dim");
  TENSOR_ARG (x, 0);

  if (!cr_torch_args_int (&a, 1, 0, &dim, error))
    return NULL;
  values = cr_cummaxmin (x, (int) dim, is_min, &indices, error);
  if (values == NULL)
    return NULL;
  return cr_torch_return_pair_new (is_min ? "cummin" : "cummax", values, indices);
}

/* median(input) -> the median; median(input, dim, keepdim=False) and
 * mode(input, dim=-1, keepdim=False) -> (values, indices); data: "median"
 * or "mode". */
NATIVE (native_median_mode)
{
  const char *name = data;
  gboolean is_mode = strcmp (name, "mode") == 0;
  gint64 dim;
  gboolean keepdim;
  CrTensor *indices = NULL;
  CrTensor *values;
  PARSE (name, "input | dim keepdim");
  TENSOR_ARG (x, 0);

  if (!is_mode && a.values[1] == NULL && a.values[2] == NULL)
    return cr_torch_wrap (cr_median_all (x, error));
  if (!cr_torch_args_int (&a, 1, -1, &dim, error)
      || !cr_torch_args_bool (&a, 2, FALSE, &keepdim, error))
    return NULL;
  dim = CLAMP (dim, G_MININT, G_MAXINT);
  values = is_mode ? cr_mode (x, (int) dim, keepdim, &indices, error)
                   : cr_median_dim (x, (int) dim, keepdim, &indices, error);
  if (values == NULL)
    return NULL;
  return cr_torch_return_pair_new (name, values, indices);
}

/* kthvalue(input, k, dim=-1, keepdim=False) -> (values, indices) */
NATIVE (native_kthvalue)
{
  gint64 k, dim;
  gboolean keepdim;
  CrTensor *indices = NULL;
  CrTensor *values;
  PARSE ("kthvalue", "input k | dim keepdim");
  TENSOR_ARG (x, 0);

  if (!cr_torch_args_int (&a, 1, 0, &k, error)
      || !cr_torch_args_int (&a, 2, -1, &dim, error)
      || !cr_torch_args_bool (&a, 3, FALSE, &keepdim, error))
    return NULL;
  dim = CLAMP (dim, G_MININT, G_MAXINT);
  values = cr_kthvalue (x, k, (int) dim, keepdim, &indices, error);
  if (values == NULL)
    return NULL;
  return cr_torch_return_pair_new ("kthvalue", values, indices);
}

/* nonzero(input, *, as_tuple=False); data: TRUE for argwhere (no as_tuple). */
NATIVE (native_nonzero)
{
  gboolean argwhere = GPOINTER_TO_INT (data);
  gboolean as_tuple = FALSE;
  CrTensor *coords;
  PARSE (argwhere ? "argwhere" : "nonzero", argwhere ? "input" : "input | * as_tuple");
  TENSOR_ARG (x, 0);

  if (!argwhere && !cr_torch_args_bool (&a, 1, FALSE, &as_tuple, error))
    return NULL;
  coords = cr_nonzero (x, error);
  if (coords == NULL || !as_tuple)
    return cr_torch_wrap (coords);
  {
    g_autoptr(CrTensor) owned = coords;
    g_autoptr(GPtrArray) items = g_ptr_array_new_with_free_func ((GDestroyNotify) cr_value_unref);

    for (int d = 0; d < MAX (x->ndim, 1); d++)
      {
        CrIndexItem at[2] = { { .kind = CR_INDEX_SLICE }, { .kind = CR_INDEX_INT, .value = d } };
        CrTensor *column = x->ndim > 0 ? cr_index_get (owned, at, 2, error)
                                       : cr_tensor_ref (owned);

        if (column == NULL)
          return NULL;
        g_ptr_array_add (items, cr_value_new_tensor_take (column));
      }
    return cr_value_new_tuple ((CrValue **) items->pdata, items->len);
  }
}

#define T CR_TORCH_IN_TORCH
#define M CR_TORCH_IN_TENSOR

const CrTorchFunc cr_torch_sort_funcs[] = {
  { "sort", native_sort, T | M, NULL },
  { "argsort", native_argsort, T | M, NULL },
  { "msort", native_msort, T | M, NULL },
  { "topk", native_topk, T | M, NULL },
  { "median", native_median_mode, T | M, (gpointer) "median" },
  { "mode", native_median_mode, T | M, (gpointer) "mode" },
  { "kthvalue", native_kthvalue, T | M, NULL },
  { "cummax", native_cummax, T | M, GINT_TO_POINTER (FALSE) },
  { "cummin", native_cummax, T | M, GINT_TO_POINTER (TRUE) },
  { "nonzero", native_nonzero, T | M, GINT_TO_POINTER (FALSE) },
  { "argwhere", native_nonzero, T | M, GINT_TO_POINTER (TRUE) },
};

const guint cr_torch_n_sort_funcs = G_N_ELEMENTS (cr_torch_sort_funcs);
