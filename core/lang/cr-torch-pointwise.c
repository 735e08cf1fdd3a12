/* cr-torch-pointwise.c — torch.addcmul / torch.addcdiv, x.addcmul(),
 * x.addcmul_(), x.addcdiv(), x.addcdiv_(): (input, tensor1, tensor2, *,
 * value=1), as the optimizers' updates call them; torch.lerp (a moving
 * average's update) and torch.nan_to_num, with their in-place forms. */
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

/* lerp(input, end, weight), input.lerp_(end, weight) (data: in place):
 * weight a tensor or a number (cr-ops-lerp.c). */
NATIVE (native_lerp)
{
  gboolean inplace = data != NULL;
  CrTensor *weight = NULL;
  double number = 0.0;
  PARSE (inplace ? "lerp_" : "lerp", "input end weight");
  TENSOR_ARG (x, 0);
  TENSOR_ARG (end, 1);

  if (a.values[2]->kind == CR_VALUE_TENSOR)
    weight = a.values[2]->u.tensor;
  else if (!cr_torch_value_is_number (a.values[2], &number))
    {
      cr_torch_args_type_error (&a, 2, "Tensor", error);
      return NULL;
    }
  if (inplace)
    {
      if (!cr_lerp_ (x, end, weight, number, error))
        return NULL;
    }
  else
    x = cr_lerp (x, end, weight, number, error);
  if (x == NULL)
    return NULL;
  /* _saved_weight shows a number as the script gave it. */
  if (weight == NULL && x->grad_fn != NULL && x->grad_fn->op->id == CR_OP_LERP_SCALAR
      && a.values[2]->kind == CR_VALUE_INT)
    cr_node_args (x->grad_fn)->scalar_int_mask |= 1u;
  return inplace ? cr_value_ref (a.values[0]) : cr_value_new_tensor_take (x);
}

/* nan_to_num(input, nan=0.0, posinf=None, neginf=None), nan_to_num_
 * (data: in place). */
NATIVE (native_nan_to_num)
{
  gboolean inplace = data != NULL;
  CrNanToNum with = { 0 };
  PARSE (inplace ? "nan_to_num_" : "nan_to_num", "input | nan posinf neginf");
  TENSOR_ARG (x, 0);

  if (!cr_torch_args_double (&a, 1, 0.0, &with.nan, error)
      || ((with.has_posinf = cr_torch_args_has (&a, 2))
          && !cr_torch_args_double (&a, 2, 0.0, &with.posinf, error))
      || ((with.has_neginf = cr_torch_args_has (&a, 3))
          && !cr_torch_args_double (&a, 3, 0.0, &with.neginf, error)))
    return NULL;
  if (!inplace)
    return cr_torch_wrap (cr_nan_to_num (x, &with, error));
  return cr_nan_to_num_ (x, &with, error) ? cr_value_ref (a.values[0]) : NULL;
}

#define T CR_TORCH_IN_TORCH
#define M CR_TORCH_IN_TENSOR
const CrTorchFunc cr_torch_pointwise_funcs[] = {
  { "addcmul", native_addc, T | M, (gpointer) &addcmul },
  { "addcdiv", native_addc, T | M, (gpointer) &addcdiv },
  { "addcmul_", native_addc, M, (gpointer) &addcmul_ },
  { "addcdiv_", native_addc, M, (gpointer) &addcdiv_ },
  { "lerp", native_lerp, T | M, NULL },
  { "lerp_", native_lerp, M, GINT_TO_POINTER (1) },
  { "nan_to_num", native_nan_to_num, T | M, NULL },
  { "nan_to_num_", native_nan_to_num, T | M, GINT_TO_POINTER (1) },
};
const guint cr_torch_n_pointwise_funcs = G_N_ELEMENTS (cr_torch_pointwise_funcs);
