/* cr-torch-pointwise.c — torch.addcmul / torch.addcdiv, x.addcmul(),
 * x.addcmul_(), x.addcdiv(), x.addcdiv_(): (input, tensor1, tensor2, *,
 * value=1), as the optimizers' updates call them. */
#include "cr-torch-native.h"

typedef struct {
  const char *name;
  gboolean    divide;
  gboolean    inplace;
} AddcBinding;

static const AddcBinding addcmul = { "addcmul", FALSE, FALSE };
static const AddcBinding addcdiv = { "addcdiv", TRUE, FALSE };
static const AddcBinding addcmul_ = { "addcmul_", FALSE, TRUE };
static const AddcBinding addcdiv_ = { "addcdiv_", TRUE, TRUE };

NATIVE (native_addc)
{
  const AddcBinding *b = data;
  g_autoptr(CrTensor) value = NULL;
  PARSE (b->name, "input tensor1 tensor2 | * value");
  TENSOR_ARG (x, 0);
  TENSOR_ARG (t1, 1);
  TENSOR_ARG (t2, 2);

  if (cr_torch_args_has (&a, 3))
    {
      if (!cr_value_is_number (a.values[3]))
        {
          cr_torch_args_type_error (&a, 3, "Number", error);
          return NULL;
        }
      value = cr_value_to_tensor (a.values[3], error);
    }
  else
    {
      g_autoptr(CrValue) one = cr_value_new_int (1);
      value = cr_value_to_tensor (one, error);
    }
  if (value == NULL)
    return NULL;
  if (!b->inplace)
    return cr_torch_wrap (cr_addc (x, t1, t2, value, b->divide, error));
  if (!cr_addc_ (x, t1, t2, value, b->divide, error))
    return NULL;
  return cr_value_ref (a.values[0]);
}

#define T CR_TORCH_IN_TORCH
#define M CR_TORCH_IN_TENSOR
const CrTorchFunc cr_torch_pointwise_funcs[] = {
  { "addcmul", native_addc, T | M, (gpointer) &addcmul },
  { "addcdiv", native_addc, T | M, (gpointer) &addcdiv },
  { "addcmul_", native_addc, M, (gpointer) &addcmul_ },
  { "addcdiv_", native_addc, M, (gpointer) &addcdiv_ },
};
const guint cr_torch_n_pointwise_funcs = G_N_ELEMENTS (cr_torch_pointwise_funcs);
