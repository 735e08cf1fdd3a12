/* cr-torch-losses.c — softmax, log_softmax and the loss functions of
 * torch.nn.functional (mse_loss, l1_loss, binary_cross_entropy(_with_logits),
 * nll_loss, cross_entropy), with PyTorch's argument checks and warnings. */
#include "cr-torch-native.h"
#include "cr-kernels.h"

#include <string.h>

/* ---- softmax and losses ----------------------------------------------- */

/* torch.softmax(input, dim, dtype=None) and x.softmax(dim); F.softmax's dim
 * is optional (data: TRUE), picked as PyTorch's _get_softmax_dim does. */
typedef struct {
  const char *name;
  gboolean    log;
  gboolean    functional;
} SoftmaxInfo;

static const SoftmaxInfo softmax_plain = { "softmax", FALSE, FALSE };
static const SoftmaxInfo log_softmax_plain = { "log_softmax", TRUE, FALSE };
static const SoftmaxInfo softmax_f = { "softmax", FALSE, TRUE };
static const SoftmaxInfo log_softmax_f = { "log_softmax", TRUE, TRUE };

NATIVE (native_softmax)
{
  const SoftmaxInfo *info = data;
  gint64 dim;
  gboolean has_dtype;
  CrDType dtype;
  g_autoptr(CrTensor) input = NULL;
  PARSE (info->name, info->functional ? "input | dim _stacklevel dtype" : "input dim | dtype");
  TENSOR_ARG (x, 0);

  if (!cr_torch_args_dtype (&a, info->functional ? 3 : 2, &dtype, &has_dtype, error))
    return NULL;
  if (!cr_torch_args_has (&a, 1))
    {
      if (!info->functional)
        {
          cr_torch_args_type_error (&a, 1, "int", error);
          return NULL;
        }
      cr_interp_warn (interp, "UserWarning",
                      info->log
                      ? "Implicit dimension choice for log_softmax has been deprecated. "
                        "Change the call to include dim=X as an argument."
                      : "Implicit dimension choice for softmax has been deprecated. "
                        "Change the call to include dim=X as an argument.");
      dim = (x->ndim == 0 || x->ndim == 1 || x->ndim == 3) ? 0 : 1;
    }
  else if (!cr_torch_args_int (&a, 1, 0, &dim, error))
    return NULL;

  input = has_dtype ? cr_to_dtype (x, dtype, error) : cr_tensor_ref (x);
  if (input == NULL)
    return NULL;
  if (info->log)
    return cr_torch_wrap (cr_log_softmax (input, (int) dim, error));
  return cr_torch_wrap (cr_softmax (input, (int) dim, error));
}

gboolean
cr_torch_parse_reduction (CrTorchArgs *a,
                          guint        i,
                          CrReduction *out,
                          GError     **error)
{
  const char *s;

  *out = CR_REDUCTION_MEAN;
  if (!cr_torch_args_has (a, i))
    return TRUE;
  if (a->values[i]->kind != CR_VALUE_STR)
    {
      cr_torch_args_type_error (a, i, "str", error);
      return FALSE;
    }
  s = a->values[i]->u.str.data;
  if (strcmp (s, "mean") == 0)
    *out = CR_REDUCTION_MEAN;
  else if (strcmp (s, "sum") == 0)
    *out = CR_REDUCTION_SUM;
  else if (strcmp (s, "none") == 0)
    *out = CR_REDUCTION_NONE;
  else
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_VALUE_ERROR,
                   "%s is not a valid value for reduction", s);
      return FALSE;
    }
  return TRUE;
}

static gboolean
check_unsupported (CrTorchArgs *a,
                   guint        i,
                   GError     **error)
{
  int len;

  if (!cr_torch_args_has (a, i))
    return TRUE;
  len = (int) strcspn (a->names[i], " ");
  g_set_error (error, CR_LANG_ERROR, CR_EXC_NOT_IMPLEMENTED_ERROR,
               "%s(): the argument '%.*s' is not supported by Chainrule", a->fname, len,
               a->names[i]);
  return FALSE;
}

static void
warn_target_size (CrInterp *interp,
                  CrTensor *input,
                  CrTensor *target)
{
  g_autofree char *ts = NULL;
  g_autofree char *is = NULL;
  g_autofree char *message = NULL;

  if (cr_shape_equal (input->shape, input->ndim, target->shape, target->ndim))
    return;
  ts = cr_shape_to_string (target->shape, target->ndim);
  is = cr_shape_to_string (input->shape, input->ndim);
  message = g_strdup_printf ("Using a target size (torch.Size(%s)) that is different to the "
                             "input size (torch.Size(%s)). This will likely lead to incorrect "
                             "results due to broadcasting. Please ensure they have the same "
                             "size.", ts, is);
  cr_interp_warn (interp, "UserWarning", message);
}

NATIVE (native_mse_loss)
{
  CrReduction reduction;
  PARSE ("mse_loss", "input target | size_average reduce reduction");
  TENSOR_ARG (x, 0);
  TENSOR_ARG (y, 1);

  if (!check_unsupported (&a, 2, error) || !check_unsupported (&a, 3, error)
      || !cr_torch_parse_reduction (&a, 4, &reduction, error))
    return NULL;
  warn_target_size (interp, x, y);
  return cr_torch_wrap (cr_mse_loss (x, y, reduction, error));
}

/* huber_loss(input, target, reduction='mean', delta=1.0) */
NATIVE (native_huber_loss)
{
  CrReduction reduction;
  double delta;
  PARSE ("huber_loss", "input target | reduction delta");
  TENSOR_ARG (x, 0);
  TENSOR_ARG (y, 1);

  if (!cr_torch_parse_reduction (&a, 2, &reduction, error)
      || !cr_torch_args_double (&a, 3, 1.0, &delta, error))
    return NULL;
  warn_target_size (interp, x, y);
  return cr_torch_wrap (cr_huber_loss (x, y, reduction, delta, error));
}

/* l1_loss is composite in PyTorch 1.13: abs(input - target), then the
 * reduction (MeanBackward0, SumBackward0 or AbsBackward0 on top). */
NATIVE (native_l1_loss)
{
  CrReduction reduction;
  g_autoptr(CrTensor) diff = NULL;
  g_autoptr(CrTensor) loss = NULL;
  PARSE ("l1_loss", "input target | size_average reduce reduction");
  TENSOR_ARG (x, 0);
  TENSOR_ARG (y, 1);

  if (!check_unsupported (&a, 2, error) || !check_unsupported (&a, 3, error)
      || !cr_torch_parse_reduction (&a, 4, &reduction, error))
    return NULL;
  warn_target_size (interp, x, y);
  diff = cr_sub (x, y, error);
  loss = diff != NULL ? cr_unary (CR_OP_ABS, diff, error) : NULL;
  if (loss == NULL)
    return NULL;
  if (reduction == CR_REDUCTION_MEAN)
    return cr_torch_wrap (cr_mean (loss, error));
  if (reduction == CR_REDUCTION_SUM)
    return cr_torch_wrap (cr_sum (loss, error));
  return cr_value_new_tensor_take (g_steal_pointer (&loss));
}

/* weight= (parameter i): a tensor or None (*out NULL). */
static gboolean
optional_weight (CrTorchArgs *a,
                 guint        i,
                 CrTensor   **out,
                 GError     **error)
{
  *out = NULL;
  if (!cr_torch_args_has (a, i))
    return TRUE;
  if (a->values[i]->kind != CR_VALUE_TENSOR)
    {
      cr_torch_args_type_error (a, i, "Tensor", error);
      return FALSE;
    }
  *out = a->values[i]->u.tensor;
  return TRUE;
}

NATIVE (native_bce)
{
  CrReduction reduction;
  CrTensor *weight;
  PARSE ("binary_cross_entropy", "input target | weight size_average reduce reduction");
  TENSOR_ARG (x, 0);
  TENSOR_ARG (y, 1);

  if (!optional_weight (&a, 2, &weight, error) || !check_unsupported (&a, 3, error)
      || !check_unsupported (&a, 4, error)
      || !cr_torch_parse_reduction (&a, 5, &reduction, error))
    return NULL;
  if (!cr_shape_equal (x->shape, x->ndim, y->shape, y->ndim))
    {
      g_autofree char *ts = cr_shape_to_string (y->shape, y->ndim);
      g_autofree char *is = cr_shape_to_string (x->shape, x->ndim);
      g_set_error (error, CR_LANG_ERROR, CR_EXC_VALUE_ERROR,
                   "Using a target size (torch.Size(%s)) that is different to the input size "
                   "(torch.Size(%s)) is deprecated. Please ensure they have the same size.",
                   ts, is);
      return NULL;
    }
  return cr_torch_wrap (cr_binary_cross_entropy_weighted (x, y, weight, reduction, error));
}

NATIVE (native_bce_with_logits)
{
  CrReduction reduction;
  CrTensor *weight, *pos_weight;
  PARSE ("binary_cross_entropy_with_logits",
         "input target | weight size_average reduce reduction pos_weight");
  TENSOR_ARG (x, 0);
  TENSOR_ARG (y, 1);

  if (!optional_weight (&a, 2, &weight, error) || !check_unsupported (&a, 3, error)
      || !check_unsupported (&a, 4, error)
      || !cr_torch_parse_reduction (&a, 5, &reduction, error)
      || !optional_weight (&a, 6, &pos_weight, error))
    return NULL;
  if (!cr_shape_equal (x->shape, x->ndim, y->shape, y->ndim))
    {
      g_autofree char *ts = cr_shape_to_string (y->shape, y->ndim);
      g_autofree char *is = cr_shape_to_string (x->shape, x->ndim);
      g_set_error (error, CR_LANG_ERROR, CR_EXC_VALUE_ERROR,
                   "Target size (torch.Size(%s)) must be the same as input size (torch.Size(%s))",
                   ts, is);
      return NULL;
    }
  return cr_torch_wrap (cr_bce_with_logits_full (x, y, weight, pos_weight, reduction, error));
}


/* Class-index targets must be int64: PyTorch's message names the dtype it
 * found. cross_entropy also takes class probabilities: a floating target of
 * the input's shape. */
static gboolean
check_target (CrTensor *input,
              CrTensor *target,
              gboolean  soft_allowed,
              GError  **error)
{
  if (target->dtype == CR_DTYPE_INT64)
    return TRUE;
  if (soft_allowed && cr_dtype_is_floating (target->dtype)
      && cr_shape_equal (input->shape, input->ndim, target->shape, target->ndim))
    return TRUE;
  g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
               "expected scalar type Long but found %s", cr_dtype_scalar_name (target->dtype));
  return FALSE;
}

NATIVE (native_nll_loss)
{
  CrReduction reduction;
  CrTensor *weight;
  gint64 ignore_index;
  PARSE ("nll_loss", "input target | weight size_average ignore_index reduce reduction");
  TENSOR_ARG (x, 0);
  TENSOR_ARG (y, 1);

  if (!optional_weight (&a, 2, &weight, error) || !check_unsupported (&a, 3, error)
      || !cr_torch_args_int (&a, 4, -100, &ignore_index, error)
      || !check_unsupported (&a, 5, error)
      || !cr_torch_parse_reduction (&a, 6, &reduction, error)
      || !check_target (x, y, FALSE, error))
    return NULL;
  return cr_torch_wrap (cr_nll_loss_full (x, y, weight, ignore_index, reduction, error));
}

NATIVE (native_cross_entropy)
{
  CrReduction reduction;
  CrTensor *weight;
  gint64 ignore_index;
  double smoothing;
  PARSE ("cross_entropy",
         "input target | weight size_average ignore_index reduce reduction label_smoothing");
  TENSOR_ARG (x, 0);
  TENSOR_ARG (y, 1);

  if (!optional_weight (&a, 2, &weight, error) || !check_unsupported (&a, 3, error)
      || !cr_torch_args_int (&a, 4, -100, &ignore_index, error)
      || !check_unsupported (&a, 5, error)
      || !cr_torch_parse_reduction (&a, 6, &reduction, error)
      || !cr_torch_args_double (&a, 7, 0.0, &smoothing, error)
      || !check_target (x, y, TRUE, error))
    return NULL;
  /* label_smoothing is composed by torch.nn.functional's script. */
  if (smoothing != 0.0)
    {
      check_unsupported (&a, 7, error);
      return NULL;
    }
  return cr_torch_wrap (cr_cross_entropy_full (x, y, weight, ignore_index, reduction, error));
}

/* ---- the table -------------------------------------------------------- */

#define T CR_TORCH_IN_TORCH
#define M CR_TORCH_IN_TENSOR
#define F CR_TORCH_IN_F

const CrTorchFunc cr_torch_loss_funcs[] = {
  { "softmax", native_softmax, T | M, (gpointer) &softmax_plain },
  { "log_softmax", native_softmax, T | M, (gpointer) &log_softmax_plain },
  { "softmax", native_softmax, F, (gpointer) &softmax_f },
  { "log_softmax", native_softmax, F, (gpointer) &log_softmax_f },
  { "mse_loss", native_mse_loss, F, NULL },
  { "huber_loss", native_huber_loss, F, NULL },
  { "l1_loss", native_l1_loss, F, NULL },
  { "binary_cross_entropy", native_bce, F, NULL },
  { "binary_cross_entropy_with_logits", native_bce_with_logits, F, NULL },
  { "nll_loss", native_nll_loss, F, NULL },
  { "cross_entropy", native_cross_entropy, F, NULL },
};

const guint cr_torch_n_loss_funcs = G_N_ELEMENTS (cr_torch_loss_funcs);
