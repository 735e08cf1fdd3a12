/* cr-torch-einsum.c — torch.einsum (as torch/functional.py's wrapper calls
 * it: the operands as arguments or as one list) and torch.diagonal /
 * Tensor.diagonal. The ops are in core/ops/cr-ops-einsum.c. */
#include "cr-torch-native.h"
#include "cr-ops-nnf.h"

#include <string.h>

NATIVE (native_einsum)
{
  CrValue *const *items = args + 1;
  guint n_items = n_args > 0 ? n_args - 1 : 0;
  g_autoptr(GPtrArray) operands = g_ptr_array_new ();
  CrValue *equation;

  if (n_kwargs > 0)
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                   "einsum() got an unexpected keyword argument '%s'", kwargs[0].name);
      return NULL;
    }
  if (n_args < 2)
    {
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_VALUE_ERROR,
                           "einsum(): must specify the equation string and at least one "
                           "operand, or at least one operand and its subscripts list");
      return NULL;
    }
  equation = args[0];
  if (equation->kind == CR_VALUE_TENSOR)
    {
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_NOT_IMPLEMENTED_ERROR,
                           "einsum()'s sublist format is not supported by Chainrule yet: "
                           "use an equation string");
      return NULL;
    }
  if (equation->kind != CR_VALUE_STR)
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                   "einsum(): argument 'equation' (position 1) must be str, not %s",
                   cr_torch_type_name (equation));
      return NULL;
    }
  /* The old interface: the operands as one list or tuple. */
  if (n_items == 1 && (items[0]->kind == CR_VALUE_LIST || items[0]->kind == CR_VALUE_TUPLE))
    {
      CrValue *seq = items[0];

      for (guint i = 0; i < cr_seq_len (seq); i++)
        g_ptr_array_add (operands, cr_seq_get (seq, i));
    }
  else
    for (guint i = 0; i < n_items; i++)
      g_ptr_array_add (operands, items[i]);

  for (guint i = 0; i < operands->len; i++)
    {
      CrValue *v = g_ptr_array_index (operands, i);

      if (v->kind != CR_VALUE_TENSOR)
        {
          g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                       "einsum(): argument 'tensors' (position 2) must be tuple of Tensors, "
                       "but found element of type %s at pos %u", cr_torch_type_name (v), i + 1);
          return NULL;
        }
      operands->pdata[i] = v->u.tensor;
    }
  if (operands->len == 0)
    {
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                           "einsum(): must provide at least one operand");
      return NULL;
    }
  return cr_torch_wrap (cr_einsum (equation->u.str.data, (CrTensor *const *) operands->pdata,
                                   operands->len, error));
}

/* torch.diagonal(input, offset=0, dim1=0, dim2=1) */
NATIVE (native_diagonal)
{
  gint64 offset, dim1, dim2;
  PARSE ("diagonal", "input | offset dim1 dim2");
  TENSOR_ARG (x, 0);

  if (!cr_torch_args_int (&a, 1, 0, &offset, error)
      || !cr_torch_args_int (&a, 2, 0, &dim1, error)
      || !cr_torch_args_int (&a, 3, 1, &dim2, error))
    return NULL;
  return cr_torch_wrap (cr_diagonal (x, offset, (int) CLAMP (dim1, -CR_MAX_DIMS - 1, CR_MAX_DIMS),
                                     (int) CLAMP (dim2, -CR_MAX_DIMS - 1, CR_MAX_DIMS), error));
}

const CrTorchFunc cr_torch_einsum_funcs[] = {
  { "einsum", native_einsum, CR_TORCH_IN_TORCH, NULL },
  { "diagonal", native_diagonal, CR_TORCH_IN_TORCH | CR_TORCH_IN_TENSOR, NULL },
};

const guint cr_torch_n_einsum_funcs = G_N_ELEMENTS (cr_torch_einsum_funcs);
