/* cr-torch-products.c — torch.addmv, addr, baddbmm and addbmm and their
 * Tensor methods, beta= and alpha= keyword-only as in PyTorch 1.13 (the ops
 * are in core/ops/cr-ops-products.c); torch.cross, Tensor.cross and the
 * module torch.linalg with linalg.cross (core/ops/cr-ops-cross.c). */
#include "cr-torch-native.h"

typedef CrTensor *(*ScaledProductFunc) (CrTensor *self, CrTensor *a, CrTensor *b,
                                        double beta, double alpha, GError **error);

typedef struct {
  const char        *name;
  const char        *spec;
  ScaledProductFunc  func;
} ScaledProductInfo;

static const ScaledProductInfo product_addmv =
  { "addmv", "input mat vec | * beta alpha", cr_addmv };
static const ScaledProductInfo product_addr =
  { "addr", "input vec1 vec2 | * beta alpha", cr_addr };
static const ScaledProductInfo product_baddbmm =
  { "baddbmm", "input batch1 batch2 | * beta alpha", cr_baddbmm };
static const ScaledProductInfo product_addbmm =
  { "addbmm", "input batch1 batch2 | * beta alpha", cr_addbmm };

/* beta * input + alpha * (a product): one node whose _saved_beta and
 * _saved_alpha show the numbers as the script wrote them. */
NATIVE (native_scaled_product)
{
  const ScaledProductInfo *info = data;
  double beta = 1.0, alpha = 1.0;
  PARSE (info->name, info->spec);
  TENSOR_ARG (self_tensor, 0);
  TENSOR_ARG (left, 1);
  TENSOR_ARG (right, 2);

  if ((cr_torch_args_has (&a, 3) && !cr_torch_args_double (&a, 3, 1.0, &beta, error))
      || (cr_torch_args_has (&a, 4) && !cr_torch_args_double (&a, 4, 1.0, &alpha, error)))
    return NULL;
  CrTensor *out = info->func (self_tensor, left, right, beta, alpha, error);
  cr_torch_mark_float_scalar (out, &a, 3, 0);   /* _saved_beta */
  cr_torch_mark_float_scalar (out, &a, 4, 1);   /* _saved_alpha */
  return cr_torch_wrap (out);
}

/* torch.cross(input, other, dim=None): without dim, the input's first dim
 * of size 3. */
NATIVE (native_cross)
{
  gint64 dim = -1;
  PARSE ("cross", "input other | dim");
  TENSOR_ARG (x, 0);
  TENSOR_ARG (y, 1);

  if (cr_torch_args_has (&a, 2) && !cr_torch_args_int (&a, 2, -1, &dim, error))
    return NULL;
  return cr_torch_wrap (cr_cross (x, y, cr_torch_args_has (&a, 2), (int) dim, error));
}

/* torch.linalg.cross(input, other, *, dim=-1) */
NATIVE (native_linalg_cross)
{
  gint64 dim = -1;
  PARSE ("linalg_cross", "input other | * dim");
  TENSOR_ARG (x, 0);
  TENSOR_ARG (y, 1);

  if (!cr_torch_args_int (&a, 2, -1, &dim, error))
    return NULL;
  return cr_torch_wrap (cr_linalg_cross (x, y, (int) dim, error));
}

/* One of tensordot's dims lists: an int or a list/tuple of ints. */
static gboolean
read_dims_list (CrValue    *v,
                gint64     *out,
                int        *n,
                GError    **error)
{
  if (cr_torch_value_is_int (v, &out[0]))
    {
      *n = 1;
      return TRUE;
    }
  if (v->kind == CR_VALUE_LIST || v->kind == CR_VALUE_TUPLE)
    {
      GPtrArray *items = v->u.seq.items;

      *n = (int) MIN (items->len, CR_MAX_DIMS + 1);
      for (int i = 0; i < *n; i++)
        if (!cr_torch_value_is_int (items->pdata[i], &out[i]))
          break;
        else if (i == *n - 1)
          return TRUE;
      if (*n == 0)
        return TRUE;
    }
  g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
               "tensordot(): argument 'dims_self' must be tuple of ints, not %s",
               cr_torch_type_name (v));
  return FALSE;
}

/* torch.tensordot(a, b, dims=2): dims an int n (a's last n dims against
 * b's first n) or a pair of dim lists, as torch/functional.py reads it. */
NATIVE (native_tensordot)
{
  gint64 dims_a[CR_MAX_DIMS + 1], dims_b[CR_MAX_DIMS + 1], count = 2;
  int n_a = 0, n_b = 0;
  PARSE ("tensordot", "a b | dims out");
  TENSOR_ARG (x, 0);
  TENSOR_ARG (y, 1);
  CrValue *dims = cr_torch_args_has (&a, 2) ? a.values[2] : NULL;

  if (cr_torch_args_has (&a, 3))
    {
      cr_torch_args_type_error (&a, 3, "None", error);
      return NULL;
    }
  if (dims == NULL || cr_torch_value_is_int (dims, &count))
    {
      if (count < 0)
        {
          g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                       "tensordot expects dims >= 0, but got dims=%" G_GINT64_FORMAT, count);
          return NULL;
        }
      if (count > CR_MAX_DIMS)
        count = CR_MAX_DIMS + 1;   /* more dims than any tensor: fails as PyTorch's */
      for (gint64 i = 0; i < count; i++)
        {
          dims_a[i] = i - count;
          dims_b[i] = i;
        }
      n_a = n_b = (int) count;
    }
  else if ((dims->kind == CR_VALUE_LIST || dims->kind == CR_VALUE_TUPLE)
           && dims->u.seq.items->len == 2)
    {
      if (!read_dims_list (dims->u.seq.items->pdata[0], dims_a, &n_a, error)
          || !read_dims_list (dims->u.seq.items->pdata[1], dims_b, &n_b, error))
        return NULL;
    }
  else
    {
      g_autofree char *text = cr_value_str (interp, dims, error);
      if (text == NULL)
        return NULL;
      g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                   "tensordot expects dims to be int or Tuple[List[int], List[int]] or "
                   "List[List[int]] containing two lists, but got dims=%s", text);
      return NULL;
    }
  if (n_a != n_b)
    {
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                           "both dimension lists should have same length");
      return NULL;
    }
  return cr_torch_wrap (cr_tensordot (x, y, dims_a, dims_b, n_a, error));
}

CrValue *
cr_torch_linalg_module_new (void)
{
  CrValue *m = cr_value_new_module ("torch.linalg");
  g_autoptr(CrValue) cross = cr_value_new_native ("cross", native_linalg_cross, NULL, NULL);

  cr_value_set_member (m, "cross", cross);
  cr_torch_install_missing_hook (m, "torch.linalg");
  return m;
}

#define T CR_TORCH_IN_TORCH
#define M CR_TORCH_IN_TENSOR

const CrTorchFunc cr_torch_products_funcs[] = {
  { "addmv", native_scaled_product, T | M, (gpointer) &product_addmv },
  { "addr", native_scaled_product, T | M, (gpointer) &product_addr },
  { "baddbmm", native_scaled_product, T | M, (gpointer) &product_baddbmm },
  { "addbmm", native_scaled_product, T | M, (gpointer) &product_addbmm },
  { "cross", native_cross, T | M, NULL },
  { "tensordot", native_tensordot, T, NULL },
};

const guint cr_torch_n_products_funcs = G_N_ELEMENTS (cr_torch_products_funcs);
