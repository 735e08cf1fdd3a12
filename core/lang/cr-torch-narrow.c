/* cr-torch-narrow.c — torch.narrow, torch.select and torch.diff and their
 * Tensor methods (the ops are in core/ops/cr-ops-narrow.c). */
#include "cr-torch-native.h"

/* narrow(input, dim, start, length) */
NATIVE (native_narrow)
{
  gint64 dim, start, length;
  PARSE ("narrow", "input dim start length");
  TENSOR_ARG (x, 0);

  if (!cr_torch_args_int (&a, 1, 0, &dim, error) || !cr_torch_args_int (&a, 2, 0, &start, error)
      || !cr_torch_args_int (&a, 3, 0, &length, error))
    return NULL;
  return cr_torch_wrap (cr_narrow (x, (int) CLAMP (dim, G_MININT, G_MAXINT), start, length, error));
}

/* select(input, dim, index) */
NATIVE (native_select)
{
  gint64 dim, index;
  PARSE ("select", "input dim index");
  TENSOR_ARG (x, 0);

  if (!cr_torch_args_int (&a, 1, 0, &dim, error) || !cr_torch_args_int (&a, 2, 0, &index, error))
    return NULL;
  return cr_torch_wrap (cr_select_index (x, (int) CLAMP (dim, G_MININT, G_MAXINT), index, error));
}

/* diff(input, n=1, dim=-1, prepend=None, append=None) */
NATIVE (native_diff)
{
  gint64 n, dim;
  CrTensor *prepend = NULL, *append = NULL;
  PARSE ("diff", "input | n dim prepend append");
  TENSOR_ARG (x, 0);

  if (!cr_torch_args_int (&a, 1, 1, &n, error) || !cr_torch_args_int (&a, 2, -1, &dim, error))
    return NULL;
  if (cr_torch_args_has (&a, 3) && (prepend = cr_torch_args_tensor (&a, 3, error)) == NULL)
    return NULL;
  if (cr_torch_args_has (&a, 4) && (append = cr_torch_args_tensor (&a, 4, error)) == NULL)
    return NULL;
  CrTensor *out = cr_diff (x, n, (int) CLAMP (dim, G_MININT, G_MAXINT), prepend, append, error);
  if (out == x)
    {
      /* n < 0 gives the input itself, as PyTorch's. */
      cr_tensor_unref (out);
      return cr_value_ref (a.values[0]);
    }
  return cr_torch_wrap (out);
}

#define T CR_TORCH_IN_TORCH
#define M CR_TORCH_IN_TENSOR

const CrTorchFunc cr_torch_narrow_funcs[] = {
  { "narrow", native_narrow, T | M, NULL },
  { "select", native_select, T | M, NULL },
  { "diff", native_diff, T | M, NULL },
};

const guint cr_torch_n_narrow_funcs = G_N_ELEMENTS (cr_torch_narrow_funcs);
