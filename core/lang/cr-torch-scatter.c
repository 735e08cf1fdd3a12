/* cr-torch-scatter.c — torch.scatter / scatter_add / index_add and their
 * Tensor methods, in place or not. The ops are in core/ops/cr-ops-scatter.c. */
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

#define T CR_TORCH_IN_TORCH
#define M CR_TORCH_IN_TENSOR

const CrTorchFunc cr_torch_scatter_funcs[] = {
  { "scatter", native_scatter, T | M, (gpointer) &scatter },
  { "scatter_", native_scatter, M, (gpointer) &scatter_ },
  { "scatter_add", native_scatter, T | M, (gpointer) &scatter_add },
  { "scatter_add_", native_scatter, M, (gpointer) &scatter_add_ },
  { "index_add", native_index_add, T | M, GINT_TO_POINTER (FALSE) },
  { "index_add_", native_index_add, M, GINT_TO_POINTER (TRUE) },
};

const guint cr_torch_n_scatter_funcs = G_N_ELEMENTS (cr_torch_scatter_funcs);
