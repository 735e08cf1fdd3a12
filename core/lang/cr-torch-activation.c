/* cr-torch-activation.c — torch.nn.functional.smooth_l1_loss (its op is in
 * core/ops/cr-ops-smooth-l1.c), prelu (core/ops/cr-ops-prelu.c), whose
 * weight is a tensor, and glu (core/ops/cr-ops-glu.c). The activations that lived here (hardtanh,
 * relu6, leaky_relu, elu, softplus, gelu) are bound from their rows of
 * core/cr-unary-ops.def by cr-torch-unary.c. */
#include "cr-torch-native.h"

/* smooth_l1_loss(input, target, size_average=None, reduce=None, reduction='mean', beta=1.0) */
NATIVE (native_smooth_l1_loss)
{
  CrReduction reduction;
  double beta;
  PARSE ("smooth_l1_loss", "input target | size_average reduce reduction beta");
  TENSOR_ARG (x, 0);
  TENSOR_ARG (y, 1);

  if (cr_torch_args_has (&a, 2) || cr_torch_args_has (&a, 3))
    {
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_NOT_IMPLEMENTED_ERROR,
                           "size_average and reduce are deprecated and not supported by "
                           "Chainrule: use reduction");
      return NULL;
    }
  if (!cr_torch_parse_reduction (&a, 4, &reduction, error)
      || !cr_torch_args_double (&a, 5, 1.0, &beta, error))
    return NULL;
  return cr_torch_wrap (cr_smooth_l1_loss (x, y, reduction, beta, error));
}

/* prelu(input, weight) */
NATIVE (native_prelu)
{
  PARSE ("prelu", "input weight");
  TENSOR_ARG (x, 0);
  TENSOR_ARG (weight, 1);

  return cr_torch_wrap (cr_prelu (x, weight, error));
}

/* glu(input, dim=-1) */
NATIVE (native_glu)
{
  gint64 dim;
  PARSE ("glu", "input | dim");
  TENSOR_ARG (x, 0);

  if (!cr_torch_args_int (&a, 1, -1, &dim, error))
    return NULL;
  return cr_torch_wrap (cr_glu (x, (int) CLAMP (dim, G_MININT, G_MAXINT), error));
}

#define F CR_TORCH_IN_F

const CrTorchFunc cr_torch_activation_funcs[] = {
  { "smooth_l1_loss", native_smooth_l1_loss, F, NULL },
  { "prelu", native_prelu, F | CR_TORCH_IN_TORCH | CR_TORCH_IN_TENSOR, NULL },
  { "glu", native_glu, F, NULL },
};

const guint cr_torch_n_activation_funcs = G_N_ELEMENTS (cr_torch_activation_funcs);
