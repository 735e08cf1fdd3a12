/* cr-optim.c — torch.optim.SGD, PyTorch 1.13's update rule:
 *
 *   d_p = grad (+ weight_decay * param)
 *   buf = clone(d_p) the first time, else buf * momentum + (1 - dampening) * d_p
 *   d_p = d_p + momentum * buf (nesterov) or buf
 *   param -= lr * d_p
 *
 * with the kernels directly, so nothing is recorded (PyTorch runs step()
 * under no_grad). Parameters whose .grad is None are skipped. */
#include "cr-optim.h"

#include "cr-error.h"
#include "cr-kernels.h"
#include "cr-node.h"
#include "cr-pyformat.h"
#include "cr-tensor.h"

struct _CrSgd {
  GPtrArray *params;      /* of CrTensor*, owned */
  GPtrArray *momentum;    /* of CrTensor* or NULL (no buffer yet), owned */
  double     lr;
  double     momentum_factor;
  double     dampening;
  double     weight_decay;
  gboolean   nesterov;
};

static gboolean
check_non_negative (double       value,
                    const char  *what,
                    GError     **error)
{
  g_autofree char *repr = NULL;

  if (value >= 0.0)
    return TRUE;
  repr = cr_py_float_repr (value);
  g_set_error (error, CR_CORE_ERROR, CR_EXC_VALUE_ERROR, "Invalid %s: %s", what, repr);
  return FALSE;
}

CrSgd *
cr_sgd_new (CrTensor *const  *params,
            guint             n_params,
            double            lr,
            double            momentum,
            double            dampening,
            double            weight_decay,
            gboolean          nesterov,
            GError          **error)
{
  CrSgd *self;

  if (!check_non_negative (lr, "learning rate", error)
      || !check_non_negative (momentum, "momentum value", error)
      || !check_non_negative (weight_decay, "weight_decay value", error))
    return NULL;
  if (nesterov && (momentum <= 0.0 || dampening != 0.0))
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_VALUE_ERROR,
                           "Nesterov momentum requires a momentum and zero dampening");
      return NULL;
    }
  if (n_params == 0)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_VALUE_ERROR,
                           "optimizer got an empty parameter list");
      return NULL;
    }

  self = g_new0 (CrSgd, 1);
  self->params = g_ptr_array_new_full (n_params, (GDestroyNotify) cr_tensor_unref);
  self->momentum = g_ptr_array_new_full (n_params, (GDestroyNotify) cr_tensor_unref);
  for (guint i = 0; i < n_params; i++)
    {
      g_ptr_array_add (self->params, cr_tensor_ref (params[i]));
      g_ptr_array_add (self->momentum, NULL);
    }
  self->lr = lr;
  self->momentum_factor = momentum;
  self->dampening = dampening;
  self->weight_decay = weight_decay;
  self->nesterov = nesterov;
  return self;
}

void
cr_sgd_free (CrSgd *self)
{
  if (self == NULL)
    return;
  g_ptr_array_unref (self->params);
  g_ptr_array_unref (self->momentum);
  g_free (self);
}

static CrTensor *
wrapped (double value)
{
  CrTensor *t = cr_tensor_new_scalar (value, CR_DTYPE_FLOAT64);

  t->is_wrapped_number = TRUE;
  return t;
}

static gboolean
step_param (CrSgd     *self,
            guint      i,
            GError   **error)
{
  CrTensor *param = self->params->pdata[i];
  g_autoptr(CrTensor) d_p = NULL;

  if (param->grad == NULL)
    return TRUE;

  if (self->weight_decay != 0.0)
    d_p = cr_kernel_add_scaled (param->grad, param, self->weight_decay, error);
  else
    d_p = cr_tensor_ref (param->grad);
  if (d_p == NULL)
    return FALSE;

  if (self->momentum_factor != 0.0)
    {
      CrTensor *buf = self->momentum->pdata[i];

      if (buf == NULL)
        {
          buf = cr_tensor_copy (d_p, error);
          if (buf == NULL)
            return FALSE;
          self->momentum->pdata[i] = buf;
        }
      else
        {
          g_autoptr(CrTensor) m = wrapped (self->momentum_factor);

          if (!cr_kernel_binary_into (CR_BINARY_MUL, buf, buf, m, error)
              || !cr_kernel_add_scaled_into (buf, d_p, 1.0 - self->dampening, error))
            return FALSE;
          cr_tensor_bump_version (buf);
        }

      if (self->nesterov)
        {
          CrTensor *next = cr_kernel_add_scaled (d_p, buf, self->momentum_factor, error);

          if (next == NULL)
            return FALSE;
          cr_tensor_unref (d_p);
          d_p = next;
        }
      else
        {
          cr_tensor_unref (d_p);
          d_p = cr_tensor_ref (buf);
        }
    }

  if (!cr_kernel_add_scaled_into (param, d_p, -self->lr, error))
    return FALSE;
  cr_tensor_bump_version (param);
  return TRUE;
}

gboolean
cr_sgd_step (CrSgd   *self,
             GError **error)
{
  g_return_val_if_fail (self != NULL, FALSE);

  for (guint i = 0; i < self->params->len; i++)
    if (!step_param (self, i, error))
      return FALSE;
  return TRUE;
}

void
cr_sgd_zero_grad (CrSgd    *self,
                  gboolean  set_to_none)
{
  g_return_if_fail (self != NULL);

  for (guint i = 0; i < self->params->len; i++)
    {
      CrTensor *param = self->params->pdata[i];
      CrTensor *grad = param->grad;

      if (grad == NULL)
        continue;
      if (set_to_none)
        {
          g_clear_pointer (&param->grad, cr_tensor_unref);
          continue;
        }
      /* PyTorch: grad.detach_() (or requires_grad_(False)), then zero_(). */
      g_clear_pointer (&grad->grad_fn, cr_node_unref);
      grad->output_nr = 0;
      grad->requires_grad = FALSE;
      if (cr_kernel_fill (grad, 0.0, NULL))
        cr_tensor_bump_version (grad);
    }
}

double
cr_sgd_get_lr (const CrSgd *self)
{
  g_return_val_if_fail (self != NULL, 0.0);
  return self->lr;
}

void
cr_sgd_set_lr (CrSgd  *self,
               double  lr)
{
  g_return_if_fail (self != NULL);
  self->lr = lr;
}

guint
cr_sgd_get_n_params (const CrSgd *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->params->len;
}

CrTensor *
cr_sgd_get_param (const CrSgd *self,
                  guint        i)
{
  g_return_val_if_fail (self != NULL && i < self->params->len, NULL);
  return self->params->pdata[i];
}
