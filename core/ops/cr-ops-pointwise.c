/* cr-ops-pointwise.c — addcmul and addcdiv: self + value * t1 * t2 and
 * self + value * t1 / t2 (torch.addcmul, x.addcmul_(), ...).
 *
 * The value is one pass of cr_kernel_addc, which rounds as PyTorch's CPU
 * kernel does (the optimizers' updates depend on it), or, where that kernel
 * does not fit (mixed dtypes, CUDA), the same value made of ops run without
 * recording. A recorded call gets PyTorch's AddcmulBackward0 /
 * AddcdivBackward0, whose formulas are differentiable ops (create_graph).
 * The in-place forms with a graph to extend add the product term with add_
 * (AddBackward0 where PyTorch shows AddcmulBackward0). */
#include "cr-ops-private.h"
#include "cr-error.h"
#include "cr-grad-mode.h"

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

/* ADDCMUL / ADDCDIV: saved[0] t1, saved[1] t2, saved[2] value (0-d). */
static gboolean
addc_backward (CrNode          *node,
               CrTensor *const *grads,
               CrTensor       **grad_inputs,
               GError         **error)
{
  gboolean divide = node->op->id == CR_OP_ADDCDIV;

  if (cr_ops_needs_grad (node, 0))
    grad_inputs[0] = cr_tensor_ref (grads[0]);
  if (cr_ops_needs_grad (node, 1))
    {
      /* addcmul: grad * (t2 * value); addcdiv: grad * (value / t2) */
      SAVED (t2, 1);
      SAVED (value, 2);
      g_autoptr(CrTensor) factor = divide ? cr_div (value, t2, error) : cr_mul (t2, value, error);
      if (factor == NULL)
        return FALSE;
      SET_GRAD (1, cr_mul (grads[0], factor, error));
    }
  if (cr_ops_needs_grad (node, 2))
    {
      /* addcmul: grad * (t1 * value); addcdiv: -grad * (value * t1 / (t2 * t2)) */
      SAVED (t1, 0);
      SAVED (value, 2);
      g_autoptr(CrTensor) scaled = cr_mul (value, t1, error);
      if (scaled == NULL)
        return FALSE;
      if (!divide)
        SET_GRAD (2, cr_mul (grads[0], scaled, error));
      else
        {
          SAVED (t2, 1);
          g_autoptr(CrTensor) square = cr_mul (t2, t2, error);
          g_autoptr(CrTensor) factor = square ? cr_div (scaled, square, error) : NULL;
          g_autoptr(CrTensor) minus = factor ? cr_neg (grads[0], error) : NULL;
          if (minus == NULL)
            return FALSE;
          SET_GRAD (2, cr_mul (minus, factor, error));
        }
    }
  return TRUE;
}

const CrOpInfo cr_op_row_ADDCMUL = {
  CR_OP_ADDCMUL, "addcmul", "AddcmulBackward0", 3, "addcmul",
  "∂/∂self = 1,  ∂/∂t1 = value·t2,  ∂/∂t2 = value·t1", addc_backward, NULL
};

const CrOpInfo cr_op_row_ADDCDIV = {
  CR_OP_ADDCDIV, "addcdiv", "AddcdivBackward0", 3, "addcdiv",
  "∂/∂self = 1,  ∂/∂t1 = value/t2,  ∂/∂t2 = -value·t1/t2²", addc_backward, NULL
};

/* The value of addcmul / addcdiv, nothing recorded. */
static CrTensor *
addc_value (CrTensor       *self,
            CrTensor       *t1,
            CrTensor       *t2,
            CrTensor       *value,
            gboolean        divide,
            const gint64   *shape,
            int             ndim,
            GError        **error)
{
  if (self->dtype == t1->dtype && self->dtype == t2->dtype && cr_dtype_is_floating (self->dtype)
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

  gboolean was_enabled = cr_grad_mode_set_enabled (FALSE);
  g_autoptr(CrTensor) term = product_term (t1, t2, value, divide, error);
  CrTensor *out = term != NULL ? cr_add (self, term, error) : NULL;
  cr_grad_mode_set_enabled (was_enabled);
  return out;
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
  CrTensor *out;
  CrNode *node;

  g_return_val_if_fail (value != NULL && value->numel == 1, NULL);

  if (!check_addcdiv_dtypes (t1, t2, divide, error)
      || !broadcast3 (self, t1, t2, shape, &ndim, error))
    return NULL;
  out = addc_value (self, t1, t2, value, divide, shape, ndim, error);
  if (out != NULL && cr_dtype_is_floating (out->dtype)
      && (node = cr_ops_record (divide ? CR_OP_ADDCDIV : CR_OP_ADDCMUL, inputs, 3, out)) != NULL)
    {
      if (cr_ops_needs_grad (node, 2) || (divide && cr_ops_needs_grad (node, 1)))
        cr_node_save (node, 0, t1, FALSE);
      if (cr_ops_needs_grad (node, 1) || cr_ops_needs_grad (node, 2))
        cr_node_save (node, 1, t2, FALSE);
      cr_node_save (node, 2, value, FALSE);
    }
  return out;
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
