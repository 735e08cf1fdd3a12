/* cr-torch-tensor-class.c — what the class torch.Tensor itself offers a
 * script that subclasses it: Tensor._make_subclass, with which
 * nn.Parameter's __new__ makes its tensors, and Tensor.__repr__, which a
 * subclass's own __repr__ reaches through super(). The objects such a
 * subclass makes are tensors that remember their class (cr-object.c).
 * (The type slots through which the runtime works with tensors are in
 * cr-torch-value.c.) */
#include "cr-torch-private.h"
#include "cr-native.h"
#include "cr-object.h"
#include "cr-node.h"
#include "cr-cuda.h"
#include "cr-tensor-format.h"

/* torch.Tensor._make_subclass(cls, data, require_grad=False): a leaf over
 * data's storage (and version counter) whose class is cls. */
NATIVE (tensor_make_subclass)
{
  CrValue *cls = NULL, *data_arg = NULL, *require_grad = NULL;
  if (!cr_args_parse ("_make_subclass", args, n_args, kwargs, n_kwargs, error,
                      "cls", &cls, "data", &data_arg, "|require_grad", &require_grad, NULL))
    return NULL;
  if (cls->kind != CR_VALUE_CLASS)
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR, "cls must be a type (got %s)",
                   cr_value_type_name (cls));
      return NULL;
    }
  if (data_arg->kind != CR_VALUE_TENSOR)
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                   "_make_subclass(): argument 'data' (position 2) must be Tensor, not %s",
                   cr_value_type_name (data_arg));
      return NULL;
    }
  gboolean grad = FALSE;
  if (require_grad && !cr_value_to_bool (require_grad, &grad, error))
    return NULL;
  CrTensor *t = cr_tensor_alias (data_arg->u.tensor);
  if (grad && !cr_tensor_set_requires_grad (t, TRUE, error))
    {
      cr_tensor_unref (t);
      return NULL;
    }
  CrValue *v = cr_value_new_tensor_take (t);
  cr_object_set_class (v, cls);
  return v;
}

/* Tensor.__repr__(t): the tensor's printed form, whatever its class. */
NATIVE (tensor_repr)
{
  CrValue *t = self;
  if (t == NULL || t->kind == CR_VALUE_CLASS)
    t = n_args > 0 ? args[0] : NULL;
  else if (n_args > 0)
    t = NULL;
  if (t == NULL || t->kind != CR_VALUE_TENSOR)
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                   "descriptor '__repr__' of 'torch._C._TensorBase' object needs an argument");
      return NULL;
    }
  return cr_value_new_str_take (cr_tensor_format_named (t->u.tensor,
                                                       cr_interp_get_print_options (interp),
                                                       cr_torch_tensor_print_name (t)));
}

/* x in t: (t == x).any(), as Tensor.__contains__. */
int
cr_torch_tensor_contains (CrInterp  *interp,
                          CrValue   *t,
                          CrValue   *item,
                          GError   **error)
{
  CrValue *eq = cr_torch_compare (interp, CR_CMP_EQ, t, item, error);
  if (!eq)
    return -1;
  int found = 0;
  if (eq->kind == CR_VALUE_TENSOR)
    {
      CrTensor *x = eq->u.tensor;
      for (gint64 i = 0; i < x->numel && !found; i++)
        found = cr_tensor_read_flat (x, i) != 0.0;
    }
  cr_value_unref (eq);
  return found;
}

void
cr_torch_tensor_class_install (CrValue *cls)
{
  static const struct { const char *name; CrNativeFunc fn; } natives[] = {
    { "_make_subclass", tensor_make_subclass },
    { "__repr__", tensor_repr },
  };
  for (guint i = 0; i < G_N_ELEMENTS (natives); i++)
    {
      CrValue *fn = cr_value_new_native (natives[i].name, natives[i].fn, NULL, NULL);
      cr_value_set_member (cls, natives[i].name, fn);
      cr_value_unref (fn);
    }
}
