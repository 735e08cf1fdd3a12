/* cr-ops-pointwise.c — addcmul and addcdiv: self + value * t1 * t2 and
 * self + value * t1 / t2 (torch.addcmul, x.addcmul_(), ...).
 *
 * With nothing to record, one pass of cr_kernel_addc, which rounds as
 * PyTorch's CPU kernel does (the optimizers' updates depend on it). With a
 * graph to record, or where that kernel does not fit (mixed dtypes, CUDA),
 * the same value made of differentiable ops: self + (value * t1) op t2, so
 * gradients and create_graph work; its grad_fn is then AddBackward0 where
 * PyTorch shows AddcmulBackward0 / AddcdivBackward0. */
#include "cr-ops-private.h"
#include "cr-error.h"

static gboolean
check_addcdiv_dtypes (const CrTensor *t1,
                      const CrTensor *t2,
                      gboolean        divide,
                      GError        **error)
{
  if (divide && !cr_dtype_is_floating (t1->dtype) && !cr_dtype_is_floating (t2->dtype))
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "Integer division with addcdiv is no longer supported, and in a "
                           "future  release addcdiv will perform a true division of tensor1 and "
                           "tensor2. The historic addcdiv behavior can be implemented as (input + "
                           "value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer "
                           "inputs and as (input + value * tensor1 / tensor2) for float inputs. "
                           "The future addcdiv behavior is just the latter implementation: (input "
                           "+ value * tensor1 / tensor2), for all dtypes.");
      return FALSE;
    }
  return TRUE;
}

/* (value * t1) * t2 or (value * t1) / t2 with differentiable ops. */
static CrTensor *
product_term (CrTensor  *t1,
              CrTensor  *t2,
              CrTensor  *value,
              gboolean   divide,
              GError   **error)
{
  g_autoptr(CrTensor) scaled = cr_mul (t1, value, error);

  if (scaled == NULL)
    return NULL;
  return divide ? cr_div (scaled, t2, error) : cr_mul (scaled, t2, error);
}

/* The broadcast shape of the three into shape/ndim; FALSE with PyTorch's error. */
static gboolean
broadcast3 (const CrTensor *self,
            const CrTensor *t1,
            const CrTensor *t2,
            gint64         *shape,
            int            *ndim,
            GError        **error)
{
  gint64 first[CR_MAX_DIMS];
  int first_ndim;

  return cr_shape_broadcast (t1->shape, t1->ndim, t2->shape, t2->ndim, first, &first_ndim, error)
         && cr_shape_broadcast (self->shape, self->ndim, first, first_ndim, shape, ndim, error);
}

CrTensor *
cr_addc (CrTensor  *self,
         CrTensor  *t1,
         CrTensor  *t2,
         CrTensor  *value,
         gboolean   divide,
         GError   **error)
{
  CrTensor *inputs[] = { self, t1, t2 };
  gint64 shape[CR_MAX_DIMS];
  int ndim;

  g_return_val_if_fail (value != NULL && value->numel == 1, NULL);

  if (!check_addcdiv_dtypes (t1, t2, divide, error)
      || !broadcast3 (self, t1, t2, shape, &ndim, error))
    return NULL;
  if (!cr_autograd_should_record (inputs, G_N_ELEMENTS (inputs))
      && self->dtype == t1->dtype && self->dtype == t2->dtype && cr_dtype_is_floating (self->dtype)
      && self->device == CR_DEVICE_CPU && t1->device == CR_DEVICE_CPU
      && t2->device == CR_DEVICE_CPU)
    {
      CrTensor *out = cr_tensor_new_empty (shape, ndim, self->dtype, CR_DEVICE_CPU, error);

      if (out == NULL)
        return NULL;
      if (cr_kernel_addc_fits (out, self, t1, t2))
        {
          cr_kernel_addc (out, self, t1, t2, cr_tensor_get_flat (value, 0), divide);
          return out;
        }
      cr_tensor_unref (out);
    }

  g_autoptr(CrTensor) term = product_term (t1, t2, value, divide, error);
  return term != NULL ? cr_add (self, term, error) : NULL;
}

gboolean
cr_addc_ (CrTensor  *self,
          CrTensor  *t1,
          CrTensor  *t2,
          CrTensor  *value,
          gboolean   divide,
          GError   **error)
{
  CrTensor *inputs[] = { self, t1, t2 };
  gint64 shape[CR_MAX_DIMS];
  int ndim;

  g_return_val_if_fail (value != NULL && value->numel == 1, FALSE);

  if (!check_addcdiv_dtypes (t1, t2, divide, error)
      || !broadcast3 (self, t1, t2, shape, &ndim, error))
    return FALSE;
  if (!cr_shape_equal (shape, ndim, self->shape, self->ndim))
    {
      g_autofree char *want = cr_shape_to_string (self->shape, self->ndim);
      g_autofree char *got = cr_shape_to_string (shape, ndim);
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "output with shape %s doesn't match the broadcast shape %s", want, got);
      return FALSE;
    }
  if (!cr_autograd_should_record (inputs, G_N_ELEMENTS (inputs))
      && cr_kernel_addc_fits (self, self, t1, t2))
    {
      if (!cr_autograd_check_inplace_rules (self, error))
        return FALSE;
      cr_kernel_addc (self, self, t1, t2, cr_tensor_get_flat (value, 0), divide);
      cr_tensor_bump_version (self);
      return TRUE;
    }

  g_autoptr(CrTensor) term = product_term (t1, t2, value, divide, error);
  return term != NULL && cr_inplace_binary (CR_OP_ADD, self, term, error);
}

gboolean
cr_add_alpha_ (CrTensor  *self,
               CrOpId     op,
               CrTensor  *other,
               double     alpha,
               GError   **error)
{
  CrTensor *inputs[] = { self, other };

  g_return_val_if_fail (op == CR_OP_ADD || op == CR_OP_SUB, FALSE);

  if (!cr_autograd_should_record (inputs, G_N_ELEMENTS (inputs)))
    {
      /* One rounding, as PyTorch's add kernel: what SGD's and Adam's
       * add_(grad, alpha=) need to give PyTorch's bits. */
      if (!cr_autograd_check_inplace_rules (self, error)
          || !cr_kernel_add_scaled_into (self, other, op == CR_OP_SUB ? -alpha : alpha, error))
        return FALSE;
      cr_tensor_bump_version (self);
      return TRUE;
    }

  g_autoptr(CrTensor) scale = cr_ops_wrap_number (alpha, FALSE);
  g_autoptr(CrTensor) scaled = cr_mul (other, scale, error);
  return scaled != NULL && cr_inplace_binary (op, self, scaled, error);
}
