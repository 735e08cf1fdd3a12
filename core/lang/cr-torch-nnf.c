/* cr-torch-nnf.c — torch.nn.functional's layer functions with PyTorch 1.13's
 * signatures and defaults: embedding, layer_norm, batch_norm, group_norm,
 * instance_norm, dropout, dropout1d/2d, pad, normalize, cosine_similarity,
 * pairwise_distance and bilinear (the ops are in core/ops/cr-ops-norm.c,
 * cr-ops-embedding.c, cr-ops-dropout.c, cr-ops-pad.c, cr-ops-distance.c), and
 * their torch.NAME spellings; Tensor.index_copy(_) and unflatten. */
#include "cr-torch-native.h"
#include "cr-ops-nnf.h"

#include <string.h>

/* Parameter i as an optional tensor: *out NULL when absent or None. */
static gboolean
optional_tensor (CrTorchArgs  *a,
                 guint         i,
                 CrTensor    **out,
                 GError      **error)
{
  *out = NULL;
  if (!cr_torch_args_has (a, i))
    return TRUE;
  *out = cr_torch_args_tensor (a, i, error);
  return *out != NULL;
}

/* The result, or the argument itself when the op handed back its input (so
 * that `F.dropout(x, training=False) is x`). */
static CrValue *
wrap_or_same (CrTensor  *result,
              CrTensor  *input,
              CrValue   *input_value)
{
  if (result != NULL && result == input)
    {
      cr_tensor_unref (result);
      return cr_value_ref (input_value);
    }
  return cr_torch_wrap (result);
}

/* ---- embedding ---------------------------------------------------------- */

/* F.embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
 *             scale_grad_by_freq=False, sparse=False) */
NATIVE (native_f_embedding)
{
  gint64 padding_idx = -1;
  double max_norm = 0.0, norm_type;
  gboolean by_freq, sparse;
  PARSE ("embedding", "input weight | padding_idx max_norm norm_type scale_grad_by_freq sparse");
  TENSOR_ARG (indices, 0);
  TENSOR_ARG (weight, 1);

  if (cr_torch_args_has (&a, 2))
    {
      gint64 rows = weight->ndim > 0 ? weight->shape[0] : 0;

      if (!cr_torch_args_int (&a, 2, -1, &padding_idx, error))
        return NULL;
      if (padding_idx >= rows || padding_idx < -rows)
        {
          g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_ASSERTION_ERROR,
                               "Padding_idx must be within num_embeddings");
          return NULL;
        }
      if (padding_idx < 0)
        padding_idx += rows;
    }
  if (!cr_torch_args_double (&a, 3, 0.0, &max_norm, error)
      || !cr_torch_args_double (&a, 4, 2.0, &norm_type, error))
    return NULL;
  if (!cr_torch_args_bool (&a, 5, FALSE, &by_freq, error)
      || !cr_torch_args_bool (&a, 6, FALSE, &sparse, error))
    return NULL;
  if (sparse)
    {
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_NOT_IMPLEMENTED_ERROR,
                           "embedding(sparse=True) is not supported by Chainrule yet");
      return NULL;
    }
  return cr_torch_wrap (cr_embedding (weight, indices, cr_torch_args_has (&a, 2), padding_idx,
                                      by_freq, cr_torch_args_has (&a, 3), max_norm, norm_type,
                                      error));
}

/* torch.embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False,
 *                 sparse=False): padding_idx -1 (or any negative) is none. */
NATIVE (native_embedding)
{
  gint64 padding_idx;
  gboolean by_freq, sparse;
  PARSE ("embedding", "weight indices | padding_idx scale_grad_by_freq sparse");
  TENSOR_ARG (weight, 0);
  TENSOR_ARG (indices, 1);

  if (!cr_torch_args_int (&a, 2, -1, &padding_idx, error)
      || !cr_torch_args_bool (&a, 3, FALSE, &by_freq, error)
      || !cr_torch_args_bool (&a, 4, FALSE, &sparse, error))
    return NULL;
  if (sparse)
    {
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_NOT_IMPLEMENTED_ERROR,
                           "embedding(sparse=True) is not supported by Chainrule yet");
      return NULL;
    }
  return cr_torch_wrap (cr_embedding (weight, indices, padding_idx >= 0, padding_idx, by_freq,
                                      FALSE, 0.0, 2.0, error));
}

/* ---- normalization ------------------------------------------------------ */

/* normalized_shape: a tuple, list or torch.Size of ints (not an int). */
static gboolean
parse_shape (CrTorchArgs  *a,
             guint         i,
             gint64       *shape,
             int          *n,
             GError      **error)
{
  CrValue *v = a->values[i];
  guint len;

  if (v == NULL || (v->kind != CR_VALUE_TUPLE && v->kind != CR_VALUE_LIST))
    {
      cr_torch_args_type_error (a, i, "tuple of ints", error);
      return FALSE;
    }
  len = cr_seq_len (v);
  if (len > CR_MAX_DIMS)
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                   "%s(): too many dimensions (%u)", a->fname, len);
      return FALSE;
    }
  for (guint k = 0; k < len; k++)
    if (!cr_torch_value_is_int (cr_seq_get (v, k), &shape[k]))
      {
        g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                     "%s(): argument 'normalized_shape' must be tuple of ints, but found "
                     "element of type %s at pos %u",
                     a->fname, cr_torch_type_name (cr_seq_get (v, k)), k + 1);
        return FALSE;
      }
  *n = (int) len;
  return TRUE;
}

/* F.layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05)
 * torch.layer_norm(input, normalized_shape, weight=None, bias=None,
 *                  eps=1e-05, cudnn_enable=True) */
NATIVE (native_layer_norm)
{
  gint64 shape[CR_MAX_DIMS];
  int n;
  double eps;
  CrTensor *weight, *bias;
  PARSE ("layer_norm", "input normalized_shape | weight bias eps cudnn_enable");
  TENSOR_ARG (x, 0);

  if (!parse_shape (&a, 1, shape, &n, error)
      || !optional_tensor (&a, 2, &weight, error) || !optional_tensor (&a, 3, &bias, error)
      || !cr_torch_args_double (&a, 4, 1e-5, &eps, error))
    return NULL;
  return cr_torch_wrap (cr_layer_norm (x, shape, n, weight, bias, eps, error));
}

/* F.batch_norm(input, running_mean, running_var, weight=None, bias=None,
 *              training=False, momentum=0.1, eps=1e-05) */
NATIVE (native_batch_norm)
{
  CrTensor *rm, *rv, *weight, *bias;
  gboolean training;
  double momentum, eps;
  PARSE ("batch_norm", "input running_mean running_var | weight bias training momentum eps");
  TENSOR_ARG (x, 0);

  if (a.values[6] != NULL && a.values[6]->kind == CR_VALUE_NONE)
    {
      /* F.batch_norm passes it on to torch.batch_norm by position. */
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                           "batch_norm(): argument 'momentum' (position 7) must be float, not "
                           "NoneType");
      return NULL;
    }
  if (!optional_tensor (&a, 1, &rm, error) || !optional_tensor (&a, 2, &rv, error)
      || !optional_tensor (&a, 3, &weight, error) || !optional_tensor (&a, 4, &bias, error)
      || !cr_torch_args_bool (&a, 5, FALSE, &training, error)
      || !cr_torch_args_double (&a, 6, 0.1, &momentum, error)
      || !cr_torch_args_double (&a, 7, 1e-5, &eps, error))
    return NULL;
  return cr_torch_wrap (cr_batch_norm (x, rm, rv, weight, bias, training, momentum, eps, error));
}

/* F.group_norm(input, num_groups, weight=None, bias=None, eps=1e-05) */
NATIVE (native_group_norm)
{
  gint64 groups;
  CrTensor *weight, *bias;
  double eps;
  PARSE ("group_norm", "input num_groups | weight bias eps");
  TENSOR_ARG (x, 0);

  if (!cr_torch_args_int (&a, 1, 1, &groups, error)
      || !optional_tensor (&a, 2, &weight, error) || !optional_tensor (&a, 3, &bias, error)
      || !cr_torch_args_double (&a, 4, 1e-5, &eps, error))
    return NULL;
  if (groups == 0 && x->ndim > 1)
    {
      /* F.group_norm's own shape check divides by it first. */
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_ZERO_DIVISION_ERROR,
                           "integer division or modulo by zero");
      return NULL;
    }
  return cr_torch_wrap (cr_group_norm (x, groups, weight, bias, eps, error));
}

/* F.instance_norm(input, running_mean=None, running_var=None, weight=None,
 *                 bias=None, use_input_stats=True, momentum=0.1, eps=1e-05) */
NATIVE (native_instance_norm)
{
  CrTensor *rm, *rv, *weight, *bias;
  gboolean use_stats;
  double momentum, eps;
  PARSE ("instance_norm",
         "input | running_mean running_var weight bias use_input_stats momentum eps");
  TENSOR_ARG (x, 0);

  if (!optional_tensor (&a, 1, &rm, error) || !optional_tensor (&a, 2, &rv, error)
      || !optional_tensor (&a, 3, &weight, error) || !optional_tensor (&a, 4, &bias, error)
      || !cr_torch_args_bool (&a, 5, TRUE, &use_stats, error)
      || !cr_torch_args_double (&a, 6, 0.1, &momentum, error)
      || !cr_torch_args_double (&a, 7, 1e-5, &eps, error))
    return NULL;
  return cr_torch_wrap (cr_instance_norm (x, rm, rv, weight, bias, use_stats, momentum, eps,
                                          error));
}

/* ---- dropout ------------------------------------------------------------ */

/* F.dropout(input, p=0.5, training=True, inplace=False) and the feature
 * dropouts (data: TRUE); torch.dropout(input, p, train) parses the same. */
static CrValue *
dropout_common (CrInterp        *interp,
                CrTorchArgs     *a,
                gboolean         feature,
                GError         **error)
{
  double p;
  gboolean training, inplace;
  CrTensor *x = cr_torch_args_tensor (a, 0, error);

  if (x == NULL || !cr_torch_args_double (a, 1, 0.5, &p, error)
      || !cr_torch_args_bool (a, 2, TRUE, &training, error)
      || !cr_torch_args_bool (a, 3, FALSE, &inplace, error))
    return NULL;
  if (!(p >= 0.0 && p <= 1.0))
    {
      g_autofree char *repr = cr_value_repr (interp, a->values[1], NULL);

      g_set_error (error, CR_LANG_ERROR, CR_EXC_VALUE_ERROR,
                   "dropout probability has to be between 0 and 1, but got %s",
                   repr != NULL ? repr : "?");
      return NULL;
    }
  return wrap_or_same (cr_dropout (x, p, training, feature, inplace,
                                   cr_interp_get_generator (interp), error),
                       x, a->values[0]);
}

NATIVE (native_dropout)
{
  PARSE ("dropout", "input | p training inplace");
  return dropout_common (interp, &a, FALSE, error);
}

/* data: TRUE for torch.feature_dropout. */
NATIVE (native_torch_dropout)
{
  PARSE (GPOINTER_TO_INT (data) ? "feature_dropout" : "dropout", "input p train");
  return dropout_common (interp, &a, GPOINTER_TO_INT (data), error);
}

NATIVE (native_dropout2d)
{
  PARSE ("dropout2d", "input | p training inplace");
  TENSOR_ARG (x, 0);

  /* F.dropout2d's warnings about the input's rank, PyTorch 1.13's words. */
  if (x->ndim != 3 && x->ndim != 4)
    {
      g_autofree char *message =
        g_strdup_printf ("dropout2d: Received a %d-D input to dropout2d, which is deprecated and "
                         "will result in an error in a future release. To retain the behavior "
                         "and silence this warning, please use dropout instead. Note that "
                         "dropout2d exists to provide channel-wise dropout on inputs with 2 "
                         "spatial dimensions, a channel dimension, and an optional batch "
                         "dimension (i.e. 3D or 4D inputs).", x->ndim);
      cr_interp_warn (interp, "UserWarning", message);
    }
  if (x->ndim == 3)
    cr_interp_warn (interp, "UserWarning",
                    "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise "
                    "1D dropout behavior is desired - input is interpreted as shape (N, C, L), "
                    "where C is the channel dim. This behavior will change in a future release "
                    "to interpret the input as one without a batch dimension, i.e. shape (C, H, "
                    "W). To maintain the 1D channel-wise dropout behavior, please switch to "
                    "using dropout1d instead.");
  return dropout_common (interp, &a, TRUE, error);
}

NATIVE (native_dropout1d)
{
  PARSE ("dropout1d", "input | p training inplace");
  TENSOR_ARG (x, 0);

  if (x->ndim != 2 && x->ndim != 3)
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                   "dropout1d: Expected 2D or 3D input, but received a %dD input. Note that "
                   "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial "
                   "dimension, a channel dimension, and an optional batch dimension (i.e. 2D "
                   "or 3D inputs).", x->ndim);
      return NULL;
    }
  if (x->ndim == 2)
    {
      /* No batch dim: one value per channel, as unsqueeze(0) then squeeze(0). */
      g_autoptr(CrTensor) b = cr_unsqueeze (x, 0, error);
      g_autoptr(CrTensor) r = NULL;
      double p;
      gboolean training, inplace;

      if (b == NULL || !cr_torch_args_double (&a, 1, 0.5, &p, error)
          || !cr_torch_args_bool (&a, 2, TRUE, &training, error)
          || !cr_torch_args_bool (&a, 3, FALSE, &inplace, error))
        return NULL;
      if (p >= 0.0 && p <= 1.0 && !inplace)
        {
          r = cr_dropout (b, p, training, TRUE, FALSE, cr_interp_get_generator (interp), error);
          if (r == NULL)
            return NULL;
          return cr_torch_wrap (cr_squeeze_dim (r, 0, error));
        }
    }
  return dropout_common (interp, &a, TRUE, error);
}

/* ---- padding, distances, bilinear ---------------------------------------- */

/* F.pad(input, pad, mode='constant', value=None) */
NATIVE (native_pad)
{
  gint64 pad[2 * CR_MAX_DIMS];
  CrValue *seq;
  const char *mode = "constant";
  double value = 0.0;
  guint n;
  PARSE ("pad", "input pad | mode value");
  TENSOR_ARG (x, 0);

  seq = a.values[1];
  if (seq->kind != CR_VALUE_TUPLE && seq->kind != CR_VALUE_LIST)
    {
      cr_torch_args_type_error (&a, 1, "tuple of ints", error);
      return NULL;
    }
  n = cr_seq_len (seq);
  if (n > G_N_ELEMENTS (pad))
    {
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR, "Padding length too large");
      return NULL;
    }
  for (guint k = 0; k < n; k++)
    if (!cr_torch_value_is_int (cr_seq_get (seq, k), &pad[k]))
      {
        g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                     "pad(): argument 'pad' must be tuple of ints, but found element of type %s "
                     "at pos %u", cr_torch_type_name (cr_seq_get (seq, k)), k + 1);
        return NULL;
      }
  if (cr_torch_args_has (&a, 2))
    {
      if (a.values[2]->kind != CR_VALUE_STR)
        {
          cr_torch_args_type_error (&a, 2, "str", error);
          return NULL;
        }
      mode = a.values[2]->u.str.data;
    }
  if (!cr_torch_args_double (&a, 3, 0.0, &value, error))
    return NULL;
  return cr_torch_wrap (cr_pad (x, pad, (int) n, mode, cr_torch_args_has (&a, 3), value, error));
}

/* F.normalize(input, p=2.0, dim=1, eps=1e-12, out=None) */
NATIVE (native_normalize)
{
  double p, eps;
  gint64 dim;
  PARSE ("normalize", "input | p dim eps out");
  TENSOR_ARG (x, 0);

  if (!cr_torch_args_double (&a, 1, 2.0, &p, error)
      || !cr_torch_args_int (&a, 2, 1, &dim, error)
      || !cr_torch_args_double (&a, 3, 1e-12, &eps, error))
    return NULL;
  if (cr_torch_args_has (&a, 4))
    {
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_NOT_IMPLEMENTED_ERROR,
                           "normalize(out=) is not supported by Chainrule yet");
      return NULL;
    }
  return cr_torch_wrap (cr_normalize (x, p, (int) CLAMP (dim, G_MININT, G_MAXINT), eps, error));
}

/* F.cosine_similarity(x1, x2, dim=1, eps=1e-8) */
NATIVE (native_cosine_similarity)
{
  gint64 dim;
  double eps;
  PARSE ("cosine_similarity", "x1 x2 | dim eps");
  TENSOR_ARG (x1, 0);
  TENSOR_ARG (x2, 1);

  if (!cr_torch_args_int (&a, 2, 1, &dim, error)
      || !cr_torch_args_double (&a, 3, 1e-8, &eps, error))
    return NULL;
  return cr_torch_wrap (cr_cosine_similarity (x1, x2, (int) CLAMP (dim, G_MININT, G_MAXINT), eps,
                                              error));
}

/* F.pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False) */
NATIVE (native_pairwise_distance)
{
  double p, eps;
  gboolean keepdim;
  PARSE ("pairwise_distance", "x1 x2 | p eps keepdim");
  TENSOR_ARG (x1, 0);
  TENSOR_ARG (x2, 1);

  if (!cr_torch_args_double (&a, 2, 2.0, &p, error)
      || !cr_torch_args_double (&a, 3, 1e-6, &eps, error)
      || !cr_torch_args_bool (&a, 4, FALSE, &keepdim, error))
    return NULL;
  return cr_torch_wrap (cr_pairwise_distance (x1, x2, p, eps, keepdim, error));
}

/* F.bilinear(input1, input2, weight, bias=None) */
NATIVE (native_bilinear)
{
  CrTensor *bias;
  PARSE ("bilinear", "input1 input2 weight | bias");
  TENSOR_ARG (x1, 0);
  TENSOR_ARG (x2, 1);
  TENSOR_ARG (w, 2);

  if (!optional_tensor (&a, 3, &bias, error))
    return NULL;
  return cr_torch_wrap (cr_bilinear (x1, x2, w, bias, error));
}

/* torch.cdist(x1, x2, p=2.0, compute_mode=None): every mode computes the
 * differences directly (PyTorch's matrix-product path for p = 2 rounds
 * differently in the last bits). */
NATIVE (native_cdist)
{
  double p;
  PARSE ("cdist", "x1 x2 | p compute_mode");
  TENSOR_ARG (x1, 0);
  TENSOR_ARG (x2, 1);

  if (!cr_torch_args_double (&a, 2, 2.0, &p, error))
    return NULL;
  return cr_torch_wrap (cr_cdist (x1, x2, p, error));
}

/* ---- index_copy, unflatten --------------------------------------------- */

/* index_copy(input, dim, index, source); data: TRUE for index_copy_. */
NATIVE (native_index_copy)
{
  gboolean inplace = GPOINTER_TO_INT (data);
  gint64 dim;
  PARSE (inplace ? "index_copy_" : "index_copy", "input dim index source");
  TENSOR_ARG (x, 0);
  TENSOR_ARG (index, 2);
  TENSOR_ARG (source, 3);

  if (!cr_torch_args_int (&a, 1, 0, &dim, error))
    return NULL;
  dim = CLAMP (dim, G_MININT, G_MAXINT);
  if (!inplace)
    return cr_torch_wrap (cr_index_copy (x, (int) dim, index, source, error));
  if (!cr_index_copy_ (x, (int) dim, index, source, error))
    return NULL;
  return cr_value_ref (a.values[0]);
}

/* unflatten(input, dim, sizes) */
NATIVE (native_unflatten)
{
  gint64 sizes[CR_MAX_DIMS], dim;
  CrValue *seq;
  guint n;
  PARSE ("unflatten", "input dim sizes");
  TENSOR_ARG (x, 0);

  if (!cr_torch_args_int (&a, 1, 0, &dim, error))
    return NULL;
  seq = a.values[2];
  if (seq->kind != CR_VALUE_TUPLE && seq->kind != CR_VALUE_LIST)
    {
      cr_torch_args_type_error (&a, 2, "tuple of ints", error);
      return NULL;
    }
  n = cr_seq_len (seq);
  if (n > CR_MAX_DIMS)
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                   "tensors with more than %d dimensions are not supported", CR_MAX_DIMS);
      return NULL;
    }
  for (guint k = 0; k < n; k++)
    if (!cr_torch_value_is_int (cr_seq_get (seq, k), &sizes[k]))
      {
        g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                     "unflatten(): argument 'sizes' must be tuple of ints, but found element of "
                     "type %s at pos %u", cr_torch_type_name (cr_seq_get (seq, k)), k + 1);
        return NULL;
      }
  return cr_torch_wrap (cr_unflatten (x, (int) CLAMP (dim, G_MININT, G_MAXINT), sizes, (int) n,
                                      error));
}

/* roll(input, shifts, dims=None): shifts and dims an int or a tuple of ints */
NATIVE (native_roll)
{
  int shifts32[CR_MAX_DIMS], dims[CR_MAX_DIMS];
  gint64 shifts[CR_MAX_DIMS];
  int n_shifts, n_dims;
  PARSE ("roll", "input shifts | dims");
  TENSOR_ARG (x, 0);

  if (!cr_torch_args_dims (&a, 1, shifts32, &n_shifts, error)
      || !cr_torch_args_dims (&a, 2, dims, &n_dims, error))
    return NULL;
  for (int i = 0; i < n_shifts; i++)
    shifts[i] = shifts32[i];
  return cr_torch_wrap (cr_roll (x, shifts, n_shifts, dims, n_dims, error));
}

#define F CR_TORCH_IN_F
#define T CR_TORCH_IN_TORCH
#define M CR_TORCH_IN_TENSOR

const CrTorchFunc cr_torch_nnf_funcs[] = {
  { "embedding", native_f_embedding, F, NULL },
  { "embedding", native_embedding, T, NULL },
  { "layer_norm", native_layer_norm, F | T, NULL },
  { "batch_norm", native_batch_norm, F, NULL },
  { "group_norm", native_group_norm, F, NULL },
  { "instance_norm", native_instance_norm, F, NULL },
  { "dropout", native_dropout, F, NULL },
  { "dropout", native_torch_dropout, T, NULL },
  { "dropout2d", native_dropout2d, F, NULL },
  { "feature_dropout", native_torch_dropout, T, GINT_TO_POINTER (TRUE) },
  { "dropout1d", native_dropout1d, F, NULL },
  { "pad", native_pad, F, NULL },
  { "normalize", native_normalize, F, NULL },
  { "cosine_similarity", native_cosine_similarity, F | T, NULL },
  { "pairwise_distance", native_pairwise_distance, F | T, NULL },
  { "bilinear", native_bilinear, F | T, NULL },
  { "index_copy", native_index_copy, T | M, GINT_TO_POINTER (FALSE) },
  { "index_copy_", native_index_copy, M, GINT_TO_POINTER (TRUE) },
  { "unflatten", native_unflatten, T | M, NULL },
  { "cdist", native_cdist, T, NULL },
  { "roll", native_roll, T | M, NULL },
};

const guint cr_torch_n_nnf_funcs = G_N_ELEMENTS (cr_torch_nnf_funcs);
