/* cr-torch-missing.c — what a script gets for a name of PyTorch 1.13 that
 * Chainrule lacks: NotImplementedError "torch.fft is not supported by
 * Chainrule yet", not an AttributeError that reads like the user's typo. A
 * name PyTorch lacks too keeps Python's AttributeError. */
#include "cr-torch-native.h"
#include "cr-torch-names.h"

gboolean
cr_torch_is_unsupported_name (const char *module,
                              const char *name)
{
  return name[0] != '_' && cr_torch_names_has (module, name);
}

void
cr_torch_missing_attribute_error (const char  *module,
                                  const char  *name,
                                  GError     **error)
{
  if (cr_torch_is_unsupported_name (module, name))
    g_set_error (error, CR_LANG_ERROR, CR_EXC_NOT_IMPLEMENTED_ERROR,
                 "%s.%s is not supported by Chainrule yet",
                 g_str_equal (module, "torch.Tensor") ? "Tensor" : module, name);
  else
    g_set_error (error, CR_LANG_ERROR, CR_EXC_ATTRIBUTE_ERROR,
                 "module '%s' has no attribute '%s'", module, name);
}

/* A native module's __getattr__ (PEP 562); data is the module's dotted name. */
NATIVE (native_module_getattr)
{
  if (n_args != 1 || args[0]->kind != CR_VALUE_STR)
    {
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                           "__getattr__() takes one str argument");
      return NULL;
    }
  cr_torch_missing_attribute_error (data, args[0]->u.str.data, error);
  return NULL;
}

/* torch._C._missing_attribute(module, name): always raises; a prelude
 * module's `def __getattr__(name)` ends with it. */
NATIVE (native_missing_attribute)
{
  if (n_args != 2 || args[0]->kind != CR_VALUE_STR || args[1]->kind != CR_VALUE_STR)
    {
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                           "_missing_attribute() takes two str arguments");
      return NULL;
    }
  cr_torch_missing_attribute_error (args[0]->u.str.data, args[1]->u.str.data, error);
  return NULL;
}

void
cr_torch_install_missing_hook (CrValue    *module,
                               const char *dotted)
{
  CrValue *hook = cr_value_new_native ("__getattr__", native_module_getattr, NULL,
                                       (gpointer) g_intern_string (dotted));
  cr_value_set_member (module, "__getattr__", hook);
  cr_value_unref (hook);
}

void
cr_torch_install_missing_native (CrValue *c_module)
{
  CrValue *fn = cr_value_new_native ("_missing_attribute", native_missing_attribute, NULL, NULL);
  cr_value_set_member (c_module, "_missing_attribute", fn);
  cr_value_unref (fn);
}
