/* cr-torch-activation.c — torch.nn.functional's leaky_relu, elu, softplus,
 * silu, gelu and smooth_l1_loss (the ops are in core/ops/cr-ops-activation.c). */
#include "cr-torch-native.h"

#include <string.h>

/* inplace=True would be PyTorch's ...Backward1 nodes, which Chainrule lacks. */
static gboolean
check_not_inplace (CrTorchArgs *a,
                   guint        i,
                   const char  *name,
                   GError     **error)
{
  gboolean inplace;

  if (!cr_torch_args_bool (a, i, FALSE, &inplace, error))
    return FALSE;
  if (inplace)
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_NOT_IMPLEMENTED_ERROR,
                   "%s(inplace=True) is not supported by Chainrule yet", name);
      return FALSE;
    }
  return TRUE;
}

NATIVE (native_leaky_relu)
{
  double slope;
  PARSE ("leaky_relu", "input | negative_slope inplace");
  TENSOR_ARG (x, 0);

  if (!cr_torch_args_double (&a, 1, 0.01, &slope, error)
      || !check_not_inplace (&a, 2, "leaky_relu", error))
    return NULL;
  return cr_torch_wrap (cr_leaky_relu (x, slope, error));
}

NATIVE (native_elu)
{
  double alpha;
  PARSE ("elu", "input | alpha inplace");
  TENSOR_ARG (x, 0);

  if (!cr_torch_args_double (&a, 1, 1.0, &alpha, error)
      || !check_not_inplace (&a, 2, "elu", error))
    return NULL;
  return cr_torch_wrap (cr_elu (x, alpha, error));
}

NATIVE (native_softplus)
{
  double beta, threshold;
  PARSE ("softplus", "input | beta threshold");
  TENSOR_ARG (x, 0);

  if (!cr_torch_args_double (&a, 1, 1.0, &beta, error)
      || !cr_torch_args_double (&a, 2, 20.0, &threshold, error))
    return NULL;
  return cr_torch_wrap (cr_softplus (x, beta, threshold, error));
}

NATIVE (native_gelu)
{
  PARSE ("gelu", "input | * approximate");
  TENSOR_ARG (x, 0);

  if (cr_torch_args_has (&a, 1))
    {
      CrValue *v = a.values[1];
      if (v->kind != CR_VALUE_STR || strcmp (v->u.str.data, "none") != 0)
        {
          g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_NOT_IMPLEMENTED_ERROR,
                               "gelu(approximate='tanh') is not supported by Chainrule yet");
          return NULL;
        }
    }
  return cr_torch_wrap (cr_gelu (x, error));
}

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

#define F CR_TORCH_IN_F

/* F.hardtanh(input, min_val=-1., max_val=1., inplace=False) and
 * F.relu6(input, inplace=False). */
static CrValue *
hardtanh_of (CrValue   *input,
             CrTensor  *x,
             double     min_val,
             double     max_val,
             gboolean   inplace,
             GError   **error)
{
  if (!inplace)
    return cr_torch_wrap (cr_hardtanh (x, min_val, max_val, error));
  if (!cr_hardtanh_ (x, min_val, max_val, error))
    return NULL;
  return cr_value_ref (input);
}

NATIVE (native_hardtanh)
{
  double min_val, max_val;
  gboolean inplace;
  PARSE ("hardtanh", "input | min_val max_val inplace");
  TENSOR_ARG (x, 0);

  if (!cr_torch_args_double (&a, 1, -1.0, &min_val, error)
      || !cr_torch_args_double (&a, 2, 1.0, &max_val, error)
      || !cr_torch_args_bool (&a, 3, FALSE, &inplace, error))
    return NULL;
  return hardtanh_of (a.values[0], x, min_val, max_val, inplace, error);
}

NATIVE (native_relu6)
{
  gboolean inplace;
  PARSE ("relu6", "input | inplace");
  TENSOR_ARG (x, 0);

  if (!cr_torch_args_bool (&a, 1, FALSE, &inplace, error))
    return NULL;
  return hardtanh_of (a.values[0], x, 0.0, 6.0, inplace, error);
}

const CrTorchFunc cr_torch_activation_funcs[] = {
  { "hardtanh", native_hardtanh, F, NULL },
  { "relu6", native_relu6, F, NULL },
  { "leaky_relu", native_leaky_relu, F, NULL },
  { "elu", native_elu, F, NULL },
  { "softplus", native_softplus, F, NULL },
  { "gelu", native_gelu, F, NULL },
  { "smooth_l1_loss", native_smooth_l1_loss, F, NULL },
};

const guint cr_torch_n_activation_funcs = G_N_ELEMENTS (cr_torch_activation_funcs);
