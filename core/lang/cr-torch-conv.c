/* cr-torch-conv.c — convolution and pooling as scripts call them:
 * torch.conv1d/conv2d, F.conv*, F.conv_transpose*, F.max_pool*, F.avg_pool*,
 * F.adaptive_*_pool*, and the blocks a kernel sees: F.unfold, F.fold.
 *
 * The spellings are handled here, as PyTorch's Python layer and argument
 * parser handle them: an int or a tuple for each size, padding='same' /
 * 'valid', unbatched inputs (unsqueezed and squeezed back, so the result's
 * grad_fn is SqueezeBackward1 as in PyTorch), 1-d pools as 2-d pools over
 * an unsqueezed input. The ops (ops/cr-ops-conv.h) check the rest. */
#include "cr-torch-native.h"
#include "cr-ops-conv.h"

#include <string.h>

/* ---- sizes: an int, or a tuple/list of 1 or n ints ---------------------- */

/* Parameter i as n values (an int or a 1-element list repeats); *given is
 * FALSE when absent, None or (allow_empty) an empty list. *bad_length is set
 * (and TRUE returned) for a list of another length, with its text in text. */
static gboolean
parse_sizes (CrTorchArgs *a,
             guint        i,
             int          n,
             gint64       fallback,
             gint64      *out,
             gboolean    *given,
             GString     *bad_text,
             GError     **error)
{
  int dims[CR_MAX_DIMS], count = 0;

  for (int k = 0; k < n; k++)
    out[k] = fallback;
  if (given != NULL)
    *given = FALSE;
  if (!cr_torch_args_dims (a, i, dims, &count, error))
    return FALSE;
  if (count == 0)
    {
      if (cr_torch_args_has (a, i) && bad_text != NULL && given == NULL)
        g_string_assign (bad_text, "[]");
      return TRUE;
    }
  if (count != 1 && count != n)
    {
      if (bad_text != NULL)
        {
          g_string_assign (bad_text, "[");
          for (int k = 0; k < count; k++)
            g_string_append_printf (bad_text, "%s%d", k ? ", " : "", dims[k]);
          g_string_append_c (bad_text, ']');
        }
      return TRUE;
    }
  for (int k = 0; k < n; k++)
    out[k] = dims[count == 1 ? 0 : k];
  if (given != NULL)
    *given = TRUE;
  return TRUE;
}

/* ---- convolution -------------------------------------------------------- */

typedef struct {
  const char *name;
  int         spatial;
  gboolean    transposed;
} ConvInfo;

static const ConvInfo conv1d_info = { "conv1d", 1, FALSE };
static const ConvInfo conv2d_info = { "conv2d", 2, FALSE };
static const ConvInfo conv_transpose1d_info = { "conv_transpose1d", 1, TRUE };
static const ConvInfo conv_transpose2d_info = { "conv_transpose2d", 2, TRUE };

static gboolean
conv_list_error (const char *what,
                 int         spatial,
                 GString    *text,
                 GError    **error)
{
  g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
               "expected %s to be a single integer value or a list of %d values to match the "
               "convolution dimensions, but got %s=%s", what, spatial, what, text->str);
  return FALSE;
}

/* One size argument of a convolution into p's array. */
static gboolean
conv_sizes (CrTorchArgs *a,
            guint        i,
            const char  *what,
            int          spatial,
            gint64       fallback,
            gint64      *out,
            GError     **error)
{
  g_autoptr(GString) bad = g_string_new (NULL);

  if (!parse_sizes (a, i, spatial, fallback, out, NULL, bad, error))
    return FALSE;
  if (bad->len > 0)
    return conv_list_error (what, spatial, bad, error);
  return TRUE;
}

/* padding='same': the total d·(k - 1) per dim, split with the odd one on the
 * right, which PyTorch pads explicitly (zeros concatenated here). */
static CrTensor *
pad_for_same (CrInterp           *interp,
              CrTensor           *x,
              CrTensor           *w,
              CrConvParams       *p,
              GError            **error)
{
  g_autoptr(CrTensor) padded = cr_tensor_ref (x);
  gboolean warned = FALSE;

  for (int i = 0; i < p->spatial; i++)
    {
      if (p->stride[i] != 1)
        {
          g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                               "padding='same' is not supported for strided convolutions");
          return NULL;
        }
    }
  for (int i = 0; i < p->spatial; i++)
    {
      int dim = x->ndim - p->spatial + i;
      gint64 kernel = w->ndim > dim ? w->shape[dim] : 1;
      gint64 total = p->dilation[i] * (kernel - 1);

      p->padding[i] = MAX (total, (gint64) 0) / 2;
      if (total > 0 && total % 2 == 1)
        {
          gint64 shape[CR_MAX_DIMS];
          g_autoptr(CrTensor) zeros = NULL;
          CrTensor *parts[2];
          CrTensor *next;

          if (!warned)
            cr_interp_warn (interp, "UserWarning",
                            "Using padding='same' with even kernel lengths and odd dilation may "
                            "require a zero-padded copy of the input be created");
          warned = TRUE;
          memcpy (shape, padded->shape, sizeof (gint64) * (gsize) padded->ndim);
          shape[dim] = 1;
          zeros = cr_tensor_new_zeros (shape, padded->ndim, padded->dtype, padded->device, error);
          if (zeros == NULL)
            return NULL;
          parts[0] = padded;
          parts[1] = zeros;
          next = cr_cat (parts, 2, dim, error);
          if (next == NULL)
            return NULL;
          cr_tensor_unref (padded);
          padded = next;
        }
    }
  return g_steal_pointer (&padded);
}

NATIVE (native_conv)
{
  const ConvInfo *info = data;
  CrConvParams p;
  CrTensor *bias = NULL;
  g_autoptr(CrTensor) input = NULL;
  g_autoptr(CrTensor) out = NULL;
  gboolean unbatched;
  gint64 groups;
  PARSE (info->name, info->transposed
                     ? "input weight | bias stride padding output_padding groups dilation"
                     : "input weight | bias stride padding dilation groups");
  TENSOR_ARG (x, 0);
  TENSOR_ARG (w, 1);

  if (cr_torch_args_has (&a, 2) && (bias = cr_torch_args_tensor (&a, 2, error)) == NULL)
    return NULL;
  if (x->ndim != info->spatial + 1 && x->ndim != info->spatial + 2)
    {
      g_autofree char *s = cr_shape_to_string (x->shape, x->ndim);

      g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                   "Expected %dD (unbatched) or %dD (batched) input to %s, but got input of "
                   "size: %s", info->spatial + 1, info->spatial + 2, info->name, s);
      return NULL;
    }

  memset (&p, 0, sizeof p);
  p.spatial = info->spatial;
  p.transposed = info->transposed;
  if (!conv_sizes (&a, 3, "stride", p.spatial, 1, p.stride, error))
    return NULL;
  if (info->transposed)
    {
      if (!conv_sizes (&a, 4, "padding", p.spatial, 0, p.padding, error)
          || !conv_sizes (&a, 5, "output_padding", p.spatial, 0, p.output_padding, error)
          || !cr_torch_args_int (&a, 6, 1, &groups, error)
          || !conv_sizes (&a, 7, "dilation", p.spatial, 1, p.dilation, error))
        return NULL;
    }
  else
    {
      if (!conv_sizes (&a, 5, "dilation", p.spatial, 1, p.dilation, error)
          || !cr_torch_args_int (&a, 6, 1, &groups, error))
        return NULL;
    }
  p.groups = groups;

  unbatched = x->ndim == info->spatial + 1;
  input = unbatched ? cr_unsqueeze (x, 0, error) : cr_tensor_ref (x);
  if (input == NULL)
    return NULL;

  if (!info->transposed && cr_torch_args_has (&a, 4) && a.values[4]->kind == CR_VALUE_STR)
    {
      const char *s = a.values[4]->u.str.data;

      if (strcmp (s, "same") == 0)
        {
          CrTensor *padded = pad_for_same (interp, input, w, &p, error);

          if (padded == NULL)
            return NULL;
          cr_tensor_unref (input);
          input = padded;
        }
      else if (strcmp (s, "valid") != 0)
        {
          g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                       "Invalid padding string: '%s'", s);
          return NULL;
        }
    }
  else if (!conv_sizes (&a, 4, "padding", p.spatial, 0, p.padding, error))
    return NULL;

  out = cr_convolution (input, w, bias, &p, error);
  if (out == NULL)
    return NULL;
  if (unbatched)
    return cr_torch_wrap (cr_squeeze_dim (out, 0, error));
  return cr_value_new_tensor_take (g_steal_pointer (&out));
}

/* ---- pooling ------------------------------------------------------------ */

typedef struct {
  const char *name;
  int         spatial;          /* 1: a 2-d pool over x.unsqueeze(-2) */
  gboolean    is_max;
  gboolean    indices_default;  /* max_pool2d_with_indices */
  gboolean    has_return_indices;
} PoolInfo;

static const PoolInfo max_pool2d_f = { "max_pool2d", 2, TRUE, FALSE, TRUE };
static const PoolInfo max_pool2d_t = { "max_pool2d", 2, TRUE, FALSE, FALSE };
static const PoolInfo max_pool2d_wi = { "max_pool2d_with_indices", 2, TRUE, TRUE, TRUE };
static const PoolInfo max_pool1d_f = { "max_pool1d", 1, TRUE, FALSE, TRUE };
static const PoolInfo max_pool1d_t = { "max_pool1d", 1, TRUE, FALSE, FALSE };
static const PoolInfo max_pool1d_wi = { "max_pool1d_with_indices", 1, TRUE, TRUE, TRUE };
static const PoolInfo avg_pool2d_f = { "avg_pool2d", 2, FALSE, FALSE, FALSE };
static const PoolInfo avg_pool1d_f = { "avg_pool1d", 1, FALSE, FALSE, FALSE };

/* A size of a pool: one or two ints for a 2-d pool (PyTorch's message
 * otherwise), one int for a 1-d pool, whose height axis gets unit. */
static gboolean
pool_sizes (CrTorchArgs    *a,
            guint           i,
            const PoolInfo *info,
            const char     *what,
            const char     *must,
            gint64          fallback,
            gint64          unit,
            gint64         *out,
            gboolean       *given,
            GError        **error)
{
  g_autoptr(GString) bad = g_string_new (NULL);
  gint64 values[2];

  if (!parse_sizes (a, i, info->spatial, fallback, values, given, bad, error))
    return FALSE;
  if (bad->len > 0)
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR, "%s: %s %s", info->name, what,
                   must);
      return FALSE;
    }
  if (info->spatial == 2)
    {
      out[0] = values[0];
      out[1] = values[1];
    }
  else
    {
      out[0] = unit;
      out[1] = values[0];
    }
  return TRUE;
}

/* values and indices as PyTorch returns them: a tuple when asked. Takes both. */
static CrValue *
pool_result (CrTensor *values,
             CrTensor *indices,
             gboolean  want_indices)
{
  CrValue *items[2];
  CrValue *tuple;

  if (values == NULL)
    {
      cr_tensor_unref (indices);
      return NULL;
    }
  if (!want_indices)
    {
      cr_tensor_unref (indices);
      return cr_value_new_tensor_take (values);
    }
  items[0] = cr_value_new_tensor_take (values);
  items[1] = cr_value_new_tensor_take (indices);
  tuple = cr_value_new_tuple (items, 2);
  cr_value_unref (items[0]);
  cr_value_unref (items[1]);
  return tuple;
}

/* A 1-d pool's input (N, C, L) or (C, L) as (..., 1, L); checks its dims. */
static CrTensor *
pool1d_input (const PoolInfo *info,
              CrTensor       *x,
              GError        **error)
{
  if (x->ndim != 2 && x->ndim != 3)
    {
      g_autofree char *s = cr_shape_to_string (x->shape, x->ndim);

      if (info->is_max)
        g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                     "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim "
                     "batch size for input, but got:%s", s);
      else
        g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                     "Expected 2 to 3 dimensions, but got %d-dimensional tensor for argument "
                     "#1 'self' (while checking arguments for avg_pool1d)", x->ndim);
      return NULL;
    }
  return cr_unsqueeze (x, -2, error);
}

/* A 1-d pool's result back: (..., 1, L') -> (..., L'). Takes t. */
static CrTensor *
pool1d_output (CrTensor  *t,
               GError   **error)
{
  CrTensor *out;

  if (t == NULL)
    return NULL;
  out = cr_squeeze_dim (t, -2, error);
  cr_tensor_unref (t);
  return out;
}

NATIVE (native_pool)
{
  const PoolInfo *info = data;
  CrPool2dParams p;
  gboolean stride_given, want_indices = info->indices_default;
  g_autoptr(CrTensor) input = NULL;
  CrTensor *values, *indices = NULL;
  PARSE (info->name, info->is_max
                     ? (info->has_return_indices
                        ? "input kernel_size | stride padding dilation ceil_mode return_indices"
                        : "input kernel_size | stride padding dilation ceil_mode")
                     : (info->spatial == 2
                        ? "input kernel_size | stride padding ceil_mode count_include_pad "
                          "divisor_override"
                        : "input kernel_size | stride padding ceil_mode count_include_pad"));
  TENSOR_ARG (x, 0);

  memset (&p, 0, sizeof p);
  if (!pool_sizes (&a, 1, info, "kernel_size", "must either be a single int, or a tuple of two ints",
                   1, 1, p.kernel, NULL, error)
      || !pool_sizes (&a, 2, info, "stride",
                      "must either be omitted, a single int, or a tuple of two ints",
                      1, 1, p.stride, &stride_given, error)
      || !pool_sizes (&a, 3, info, "padding", "must be either be a single int, or a tuple of two ints",
                      0, 0, p.padding, NULL, error))
    return NULL;
  if (!stride_given)
    memcpy (p.stride, p.kernel, sizeof p.stride);
  if (info->is_max)
    {
      if (!pool_sizes (&a, 4, info, "dilation", "must be either a single int, or a tuple of two ints",
                       1, 1, p.dilation, NULL, error)
          || !cr_torch_args_bool (&a, 5, FALSE, &p.ceil_mode, error)
          || (info->has_return_indices
              && !cr_torch_args_bool (&a, 6, info->indices_default, &want_indices, error)))
        return NULL;
    }
  else
    {
      p.dilation[0] = p.dilation[1] = 1;
      if (!cr_torch_args_bool (&a, 4, FALSE, &p.ceil_mode, error)
          || !cr_torch_args_bool (&a, 5, TRUE, &p.count_include_pad, error))
        return NULL;
      if (info->spatial == 2 && cr_torch_args_has (&a, 6))
        {
          if (!cr_torch_args_int (&a, 6, 0, &p.divisor_override, error))
            return NULL;
          if (p.divisor_override == 0)
            {
              g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                                   "divisor must be not zero");
              return NULL;
            }
        }
    }

  input = info->spatial == 1 ? pool1d_input (info, x, error) : cr_tensor_ref (x);
  if (input == NULL)
    return NULL;
  if (info->is_max)
    values = cr_max_pool2d (input, &p, &indices, error);
  else
    values = cr_avg_pool2d (input, &p, error);
  if (info->spatial == 1)
    {
      values = pool1d_output (values, error);
      if (indices != NULL)
        indices = values != NULL ? pool1d_output (indices, error) : (cr_tensor_unref (indices), NULL);
    }
  return pool_result (values, indices, want_indices);
}

/* ---- adaptive pooling --------------------------------------------------- */

typedef struct {
  const char *name;
  int         spatial;
  gboolean    is_max;
} AdaptiveInfo;

static const AdaptiveInfo adaptive_avg2d = { "adaptive_avg_pool2d", 2, FALSE };
static const AdaptiveInfo adaptive_max2d = { "adaptive_max_pool2d", 2, TRUE };
static const AdaptiveInfo adaptive_avg1d = { "adaptive_avg_pool1d", 1, FALSE };
static const AdaptiveInfo adaptive_max1d = { "adaptive_max_pool1d", 1, TRUE };

/* output_size: an int, or a tuple whose None entries keep the input's size. */
static gboolean
adaptive_size (CrTorchArgs        *a,
               const AdaptiveInfo *info,
               CrTensor           *x,
               gint64             *out,
               GError            **error)
{
  CrValue *v = a->values[1];
  gint64 n;

  out[0] = 1;
  if (v != NULL && cr_torch_value_is_int (v, &n))
    {
      out[info->spatial == 2 ? 0 : 1] = n;
      out[1] = n;
      return TRUE;
    }
  if (v == NULL || (v->kind != CR_VALUE_TUPLE && v->kind != CR_VALUE_LIST))
    {
      cr_torch_args_type_error (a, 1, "tuple of ints", error);
      return FALSE;
    }
  if ((int) cr_seq_len (v) != info->spatial)
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR, "%s: output_size must be %d",
                   info->name, info->spatial);
      return FALSE;
    }
  for (int k = 0; k < info->spatial; k++)
    {
      CrValue *item = cr_seq_get (v, (guint) k);
      int slot = 2 - info->spatial + k;

      if (item->kind == CR_VALUE_NONE && x->ndim >= 2)
        out[slot] = x->shape[x->ndim - info->spatial + k];
      else if (!cr_torch_value_is_int (item, &out[slot]))
        {
          cr_torch_args_type_error (a, 1, "tuple of ints", error);
          return FALSE;
        }
    }
  return TRUE;
}

NATIVE (native_adaptive_pool)
{
  const AdaptiveInfo *info = data;
  gint64 size[2];
  gboolean want_indices = FALSE;
  g_autoptr(CrTensor) input = NULL;
  CrTensor *values, *indices = NULL;
  PARSE (info->name, info->is_max ? "input output_size | return_indices" : "input output_size");
  TENSOR_ARG (x, 0);

  if (!adaptive_size (&a, info, x, size, error)
      || (info->is_max && !cr_torch_args_bool (&a, 2, FALSE, &want_indices, error)))
    return NULL;
  if (info->spatial == 1)
    {
      if (x->ndim != 2 && x->ndim != 3)
        {
          g_autofree char *s = cr_shape_to_string (x->shape, x->ndim);

          g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                       "%s(): Expected 2D or 3D tensor, but got %s", info->name, s);
          return NULL;
        }
      input = cr_unsqueeze (x, -2, error);
    }
  else
    input = cr_tensor_ref (x);
  if (input == NULL)
    return NULL;

  if (info->is_max)
    values = cr_adaptive_max_pool2d (input, size[0], size[1], &indices, error);
  else if (size[0] == 1 && size[1] == 1 && (input->ndim == 3 || input->ndim == 4))
    {
      /* PyTorch takes the mean for a 1x1 output (MeanBackward1). */
      int dims[2] = { input->ndim - 2, input->ndim - 1 };

      values = cr_mean_dim (input, dims, 2, TRUE, error);
    }
  else
    values = cr_adaptive_avg_pool2d (input, size[0], size[1], error);
  if (info->spatial == 1)
    {
      values = pool1d_output (values, error);
      if (indices != NULL)
        indices = values != NULL ? pool1d_output (indices, error) : (cr_tensor_unref (indices), NULL);
    }
  return pool_result (values, indices, want_indices);
}

/* ---- the table ---------------------------------------------------------- */

/* F.unfold(input, kernel_size, dilation=1, padding=0, stride=1) and
 * F.fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1);
 * data: "unfold" or "fold". Each size an int or a pair. */
NATIVE (native_unfold_fold)
{
  gboolean fold = strcmp ((const char *) data, "fold") == 0;
  guint first = fold ? 2 : 1;   /* kernel_size's parameter */
  gint64 geometry[8], out_size[2] = { 0, 0 };
  static const char *const names[] = { "kernel_size", "dilation", "padding", "stride" };
  static const gint64 fallbacks[] = { 1, 1, 0, 1 };
  PARSE (fold ? "fold" : "unfold", fold ? "input output_size kernel_size | dilation padding stride"
                                        : "input kernel_size | dilation padding stride");
  TENSOR_ARG (x, 0);

  for (guint k = 0; k < 4 + (fold ? 1 : 0); k++)
    {
      gboolean is_out = fold && k == 4;
      guint i = is_out ? 1 : first + k;
      gint64 *to = is_out ? out_size : geometry + 2 * k;
      g_autoptr(GString) bad = g_string_new (NULL);

      if (!parse_sizes (&a, i, 2, is_out ? 0 : fallbacks[k], to, NULL, bad, error))
        return NULL;
      if (bad->len > 0)
        {
          g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                       "%s must be an int or a pair of ints, got %s",
                       is_out ? "output_size" : names[k], bad->str);
          return NULL;
        }
    }
  if (fold)
    return cr_torch_wrap (cr_col2im (x, out_size[0], out_size[1], geometry, error));
  return cr_torch_wrap (cr_im2col (x, geometry, error));
}

#define T CR_TORCH_IN_TORCH
#define F CR_TORCH_IN_F

const CrTorchFunc cr_torch_conv_funcs[] = {
  { "conv1d", native_conv, T | F, (gpointer) &conv1d_info },
  { "conv2d", native_conv, T | F, (gpointer) &conv2d_info },
  { "conv_transpose1d", native_conv, T | F, (gpointer) &conv_transpose1d_info },
  { "conv_transpose2d", native_conv, T | F, (gpointer) &conv_transpose2d_info },
  { "max_pool2d", native_pool, F, (gpointer) &max_pool2d_f },
  { "max_pool2d", native_pool, T, (gpointer) &max_pool2d_t },
  { "max_pool2d_with_indices", native_pool, F, (gpointer) &max_pool2d_wi },
  { "max_pool1d", native_pool, F, (gpointer) &max_pool1d_f },
  { "max_pool1d", native_pool, T, (gpointer) &max_pool1d_t },
  { "max_pool1d_with_indices", native_pool, F, (gpointer) &max_pool1d_wi },
  { "avg_pool2d", native_pool, F, (gpointer) &avg_pool2d_f },
  { "avg_pool1d", native_pool, T | F, (gpointer) &avg_pool1d_f },
  { "adaptive_avg_pool2d", native_adaptive_pool, F, (gpointer) &adaptive_avg2d },
  { "adaptive_max_pool2d", native_adaptive_pool, F, (gpointer) &adaptive_max2d },
  { "adaptive_avg_pool1d", native_adaptive_pool, T | F, (gpointer) &adaptive_avg1d },
  { "adaptive_max_pool1d", native_adaptive_pool, T | F, (gpointer) &adaptive_max1d },
  { "unfold", native_unfold_fold, F, (gpointer) "unfold" },
  { "fold", native_unfold_fold, F, (gpointer) "fold" },
};

const guint cr_torch_n_conv_funcs = G_N_ELEMENTS (cr_torch_conv_funcs);
