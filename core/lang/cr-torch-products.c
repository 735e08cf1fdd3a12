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
};

const guint cr_torch_n_products_funcs = G_N_ELEMENTS (cr_torch_products_funcs);
