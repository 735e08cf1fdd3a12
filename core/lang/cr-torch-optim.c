/* cr-torch-optim.c — torch.optim.SGD as a script object: step(),
 * zero_grad(set_to_none=False), param_groups (a list of one dict whose 'lr'
 * the script may change between steps) and PyTorch's printed form. */
#include "cr-torch-private.h"
#include "cr-optim.h"

#include <string.h>

#define NATIVE(fn) \
  static CrValue *fn (CrInterp *interp, CrValue *self, CrValue *const *args, guint n_args, \
                      const CrKwarg *kwargs, guint n_kwargs, gpointer data, GError **error)

typedef struct {
  CrSgd   *sgd;
  CrValue *param_groups;   /* [ {'params': [...], 'lr': ..., ...} ] */
} Optimizer;

/* The group's keys in PyTorch 1.13's order (param_groups prints them so;
 * the repr sorts them). */
static const char *group_keys[] = {
  "lr", "momentum", "dampening", "weight_decay", "nesterov", "maximize", "foreach",
  "differentiable",
};

static void
optimizer_free (gpointer data)
{
  Optimizer *opt = data;
  cr_sgd_free (opt->sgd);
  cr_value_unref (opt->param_groups);
  g_free (opt);
}

static CrValue *
group_get (Optimizer  *opt,
           const char *key)
{
  CrValue *group = cr_seq_get (opt->param_groups, 0);
  g_autoptr(CrValue) k = cr_value_new_str (key);
  return cr_dict_get (group, k, NULL);
}

static char *
optimizer_repr (CrValue *self)
{
  Optimizer *opt = self->u.object.data;
  GString *s = g_string_new ("SGD (\nParameter Group 0\n");
  static const char *sorted[] = {
    "dampening", "differentiable", "foreach", "lr", "maximize", "momentum", "nesterov",
    "weight_decay",
  };

  for (guint i = 0; i < G_N_ELEMENTS (sorted); i++)
    {
      CrValue *v = group_get (opt, sorted[i]);
      g_autofree char *r = v != NULL ? cr_value_repr (NULL, v, NULL) : g_strdup ("None");
      g_string_append_printf (s, "    %s: %s\n", sorted[i], r);
    }
  g_string_append (s, ")");
  return g_string_free (s, FALSE);
}

/* The script may have changed param_groups[0]['lr']. */
static gboolean
sync_lr (Optimizer  *opt,
         GError    **error)
{
  CrValue *lr = group_get (opt, "lr");
  double value;

  if (lr == NULL)
    return TRUE;
  if (!cr_value_to_double (lr, &value, error))
    return FALSE;
  cr_sgd_set_lr (opt->sgd, value);
  return TRUE;
}

NATIVE (native_step)
{
  Optimizer *opt = self->u.object.data;
  CrTorchArgs a;
  g_autoptr(CrValue) loss = NULL;

  if (!cr_torch_args_parse (&a, "step", "self | closure", self, args, n_args, kwargs, n_kwargs,
                            error))
    return NULL;
  if (cr_torch_args_has (&a, 1))
    {
      /* step(closure): re-evaluates the loss with grad enabled, as PyTorch. */
      loss = cr_interp_call (interp, a.values[1], NULL, 0, NULL, 0, error);
      if (loss == NULL)
        return NULL;
    }
  if (!sync_lr (opt, error) || !cr_sgd_step (opt->sgd, error))
    return NULL;
  return loss != NULL ? g_steal_pointer (&loss) : cr_value_none ();
}

NATIVE (native_zero_grad)
{
  Optimizer *opt = self->u.object.data;
  CrTorchArgs a;
  gboolean set_to_none;

  if (!cr_torch_args_parse (&a, "zero_grad", "self | set_to_none", self, args, n_args, kwargs,
                            n_kwargs, error)
      || !cr_torch_args_bool (&a, 1, FALSE, &set_to_none, error))
    return NULL;
  cr_sgd_zero_grad (opt->sgd, set_to_none);
  return cr_value_none ();
}

static CrValue *
optimizer_get_attr (CrInterp    *interp,
                    CrValue     *self,
                    const char  *name,
                    GError     **error)
{
  Optimizer *opt = self->u.object.data;

  if (strcmp (name, "step") == 0)
    return cr_value_new_native ("step", native_step, self, NULL);
  if (strcmp (name, "zero_grad") == 0)
    return cr_value_new_native ("zero_grad", native_zero_grad, self, NULL);
  if (strcmp (name, "param_groups") == 0)
    return cr_value_ref (opt->param_groups);
  if (strcmp (name, "defaults") == 0)
    {
      CrValue *d = cr_value_new_dict ();
      for (guint i = 0; i < G_N_ELEMENTS (group_keys); i++)
        {
          g_autoptr(CrValue) k = cr_value_new_str (group_keys[i]);
          cr_dict_set (d, k, group_get (opt, group_keys[i]), NULL);
        }
      return d;
    }
  return NULL;
}

static const CrObjectType optimizer_type = {
  .name = "torch.optim.sgd.SGD",
  .destroy = optimizer_free,
  .get_attr = optimizer_get_attr,
  .repr = optimizer_repr,
};

static gboolean
number_option (CrTorchArgs *a,
               guint        i,
               const char  *what,
               double      *out,
               GError     **error)
{
  if (!cr_torch_args_double (a, i, 0.0, out, error))
    return FALSE;
  if (*out < 0.0)
    {
      g_autofree char *r = cr_value_repr (NULL, a->values[i], NULL);
      g_set_error (error, CR_LANG_ERROR, CR_EXC_VALUE_ERROR, "Invalid %s: %s", what, r);
      return FALSE;
    }
  return TRUE;
}

/* SGD(params, lr, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
 * maximize=False, foreach=None, differentiable=False) */
NATIVE (native_sgd)
{
  CrTorchArgs a;
  double lr, momentum, dampening, weight_decay;
  gboolean nesterov, maximize;
  g_autoptr(GPtrArray) params = g_ptr_array_new ();
  g_autoptr(CrValue) param_list = cr_value_new_list ();
  g_autoptr(CrValue) group = cr_value_new_dict ();
  CrValue *defaults[G_N_ELEMENTS (group_keys)];
  CrValue *pv;
  Optimizer *opt;
  CrSgd *sgd;

  if (!cr_torch_args_parse (&a, "SGD", "params | lr momentum dampening weight_decay nesterov "
                            "* maximize foreach differentiable", NULL, args, n_args, kwargs,
                            n_kwargs, error))
    return NULL;

  pv = a.values[0];
  if (pv->kind != CR_VALUE_LIST && pv->kind != CR_VALUE_TUPLE)
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                   "params argument given to the optimizer should be an iterable of Tensors "
                   "or dicts, but got %s",
                   pv->kind == CR_VALUE_TENSOR ? cr_dtype_legacy_name (pv->u.tensor->dtype)
                                               : cr_torch_type_name (pv));
      return NULL;
    }
  for (guint i = 0; i < cr_seq_len (pv); i++)
    {
      CrValue *p = cr_seq_get (pv, i);
      if (p->kind != CR_VALUE_TENSOR)
        {
          g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                       p->kind == CR_VALUE_DICT
                       ? "parameter groups given as dicts are not supported by Chainrule (%s)"
                       : "optimizer can only optimize Tensors, but one of the params is %s",
                       cr_torch_type_name (p));
          return NULL;
        }
      if (p->u.tensor->grad_fn != NULL)
        {
          g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_VALUE_ERROR,
                               "can't optimize a non-leaf Tensor");
          return NULL;
        }
      g_ptr_array_add (params, p->u.tensor);
      cr_list_append (param_list, p);
    }
  if (params->len == 0)
    {
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_VALUE_ERROR,
                           "optimizer got an empty parameter list");
      return NULL;
    }
  if (!cr_torch_args_has (&a, 1))
    {
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_VALUE_ERROR,
                           "parameter group didn't specify a value of required optimization "
                           "parameter lr");
      return NULL;
    }
  if (!number_option (&a, 1, "learning rate", &lr, error)
      || !number_option (&a, 2, "momentum value", &momentum, error)
      || !cr_torch_args_double (&a, 3, 0.0, &dampening, error)
      || !number_option (&a, 4, "weight_decay value", &weight_decay, error)
      || !cr_torch_args_bool (&a, 5, FALSE, &nesterov, error)
      || !cr_torch_args_bool (&a, 6, FALSE, &maximize, error))
    return NULL;
  if (nesterov && (momentum <= 0.0 || dampening != 0.0))
    {
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_VALUE_ERROR,
                           "Nesterov momentum requires a momentum and zero dampening");
      return NULL;
    }
  if (maximize)
    {
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_NOT_IMPLEMENTED_ERROR,
                           "SGD(maximize=True) is not supported by Chainrule");
      return NULL;
    }

  sgd = cr_sgd_new ((CrTensor *const *) params->pdata, params->len, lr, momentum, dampening,
                    weight_decay, nesterov, error);
  if (sgd == NULL)
    return NULL;

  /* param_groups[0] keeps the values as given (0 stays an int in reprs). */
  defaults[0] = cr_value_ref (a.values[1]);
  defaults[1] = cr_torch_args_has (&a, 2) ? cr_value_ref (a.values[2]) : cr_value_new_int (0);
  defaults[2] = cr_torch_args_has (&a, 3) ? cr_value_ref (a.values[3]) : cr_value_new_int (0);
  defaults[3] = cr_torch_args_has (&a, 4) ? cr_value_ref (a.values[4]) : cr_value_new_int (0);
  defaults[4] = cr_value_new_bool (nesterov);
  defaults[5] = cr_value_new_bool (FALSE);
  defaults[6] = cr_value_none ();
  defaults[7] = cr_value_new_bool (FALSE);
  {
    g_autoptr(CrValue) k = cr_value_new_str ("params");
    cr_dict_set (group, k, param_list, NULL);
  }
  for (guint i = 0; i < G_N_ELEMENTS (group_keys); i++)
    {
      g_autoptr(CrValue) k = cr_value_new_str (group_keys[i]);
      cr_dict_set (group, k, defaults[i], NULL);
      cr_value_unref (defaults[i]);
    }

  opt = g_new0 (Optimizer, 1);
  opt->sgd = sgd;
  opt->param_groups = cr_value_new_list ();
  cr_list_append (opt->param_groups, group);
  return cr_value_new_object (&optimizer_type, opt);
}

CrValue *
cr_torch_optim_module_new (void)
{
  CrValue *m = cr_value_new_module ("torch.optim");
  g_autoptr(CrValue) sgd = cr_value_new_native ("SGD", native_sgd, NULL, NULL);

  cr_value_set_member (m, "SGD", sgd);
  return m;
}
