/* cr-torch-scatter.c — torch.scatter / scatter_add / index_add / index_put
 * and their Tensor methods, in place or not. The ops are in
 * core/ops/cr-ops-scatter.c and cr-ops-index.c. */
#include "cr-torch-native.h"

typedef struct {
  const char *name;
  gboolean    add;
  gboolean    inplace;
} ScatterKind;

static const ScatterKind scatter = { "scatter", FALSE, FALSE };
static const ScatterKind scatter_ = { "scatter_", FALSE, TRUE };
static const ScatterKind scatter_add = { "scatter_add", TRUE, FALSE };
static const ScatterKind scatter_add_ = { "scatter_add_", TRUE, TRUE };

/* scatter(input, dim, index, src | value, *, reduce=None);
 * scatter_add(input, dim, index, src) */
NATIVE (native_scatter)
{
  const ScatterKind *kind = data;
  gint64 dim;
  double value = 0.0;
  CrTensor *src = NULL;
  CrTensor *out;
  PARSE (kind->name, kind->add ? "input dim index src" : "input dim index src | * reduce");
  TENSOR_ARG (x, 0);
  TENSOR_ARG (index, 2);

  if (!cr_torch_args_int (&a, 1, 0, &dim, error))
    return NULL;
  if (!kind->add && cr_torch_args_has (&a, 4))
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_NOT_IMPLEMENTED_ERROR,
                   "%s(reduce=...) is not supported by Chainrule yet", kind->name);
      return NULL;
    }
  if (a.values[3]->kind == CR_VALUE_TENSOR)
    src = a.values[3]->u.tensor;
  else if (kind->add || !cr_torch_args_double (&a, 3, 0.0, &value, error))
    {
      if (kind->add)
        cr_torch_args_type_error (&a, 3, "Tensor", error);
      return NULL;
    }
  dim = CLAMP (dim, G_MININT, G_MAXINT);
  out = cr_scatter_full (x, (int) dim, index, src, value, kind->add, kind->inplace, error);
  if (out == NULL)
    return NULL;
  if (kind->inplace)
    {
      cr_tensor_unref (out);
      return cr_value_ref (a.values[0]);
    }
  return cr_torch_wrap (out);
}

/* index_add(input, dim, index, source, *, alpha=1); data: TRUE for
 * index_add_. */
NATIVE (native_index_add)
{
  gboolean inplace = GPOINTER_TO_INT (data);
  gint64 dim;
  double alpha;
  CrTensor *out;
  PARSE (inplace ? "index_add_" : "index_add", "input dim index source | * alpha");
  TENSOR_ARG (x, 0);
  TENSOR_ARG (index, 2);
  TENSOR_ARG (source, 3);

  if (!cr_torch_args_int (&a, 1, 0, &dim, error)
      || !cr_torch_args_double (&a, 4, 1.0, &alpha, error))
    return NULL;
  dim = CLAMP (dim, G_MININT, G_MAXINT);
  out = cr_index_add_full (x, (int) dim, index, source, alpha, inplace, error);
  if (out == NULL)
    return NULL;
  if (inplace)
    {
      cr_tensor_unref (out);
      return cr_value_ref (a.values[0]);
    }
  return cr_torch_wrap (out);
}

/* index_put(input, indices, values, accumulate=False): indices a tuple (or
 * list) of tensors, as x[i0, i1, ...] = values; data: TRUE for index_put_. */
NATIVE (native_index_put)
{
  gboolean inplace = GPOINTER_TO_INT (data);
  const char *name = inplace ? "index_put_" : "index_put";
  CrIndexItem items[CR_MAX_DIMS];
  gboolean accumulate;
  CrValue *indices;
  guint n;
  PARSE (name, "input indices values | accumulate");
  TENSOR_ARG (x, 0);

  indices = a.values[1];
  if (indices->kind != CR_VALUE_TUPLE && indices->kind != CR_VALUE_LIST)
    {
      cr_torch_args_type_error (&a, 1, "tuple of Tensors", error);
      return NULL;
    }
  TENSOR_ARG (values, 2);
  if (!cr_torch_args_bool (&a, 3, FALSE, &accumulate, error))
    return NULL;
  n = cr_seq_len (indices);
  if (n > CR_MAX_DIMS)
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_INDEX_ERROR,
                   "too many indices for tensor of dimension %d", x->ndim);
      return NULL;
    }
  for (guint i = 0; i < n; i++)
    {
      CrValue *item = cr_seq_get (indices, i);

      /* PyTorch's message counts from the tuple, "argument 0". */
      if (item->kind != CR_VALUE_TENSOR)
        {
          g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                       "expected Tensor as element %u in argument 0, but got %s", i,
                       cr_torch_type_name (item));
          return NULL;
        }
      items[i] = (CrIndexItem) { .kind = CR_INDEX_TENSOR, .tensor = item->u.tensor };
    }
  if (inplace)
    return cr_index_put_ (x, items, n, values, accumulate, error) ? cr_value_ref (a.values[0])
                                                                   : NULL;
  return cr_torch_wrap (cr_index_put (x, items, n, values, accumulate, error));
}

#define T CR_TORCH_IN_TORCH
#define M CR_TORCH_IN_TENSOR

const CrTorchFunc cr_torch_scatter_funcs[] = {
  { "scatter", native_scatter, T | M, (gpointer) &scatter },
  { "scatter_", native_scatter, M, (gpointer) &scatter_ },
  { "scatter_add", native_scatter, T | M, (gpointer) &scatter_add },
  { "scatter_add_", native_scatter, M, (gpointer) &scatter_add_ },
  { "index_add", native_index_add, T | M, GINT_TO_POINTER (FALSE) },
  { "index_add_", native_index_add, M, GINT_TO_POINTER (TRUE) },
  { "index_put", native_index_put, T | M, GINT_TO_POINTER (FALSE) },
  { "index_put_", native_index_put, T | M, GINT_TO_POINTER (TRUE) },
};

const guint cr_torch_n_scatter_funcs = G_N_ELEMENTS (cr_torch_scatter_funcs);
