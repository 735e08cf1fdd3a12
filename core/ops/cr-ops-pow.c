/* cr-ops-pow.c — powers: tensor ** number (PowBackward0), tensor ** tensor
 * (PowBackward1) and number ** tensor (PowBackward2), with PyTorch's masking
 * of the 0 ** x cases in their gradients. */
#include "cr-ops-private.h"
#include "cr-autograd-private.h"
#include "cr-error.h"
#include "cr-grad-mode.h"
#include "cr-tensor.h"

#include <math.h>

/* ---- pow --------------------------------------------------------------- */

/* grad * (n * x^(n-1)), PyTorch's pow_backward; zeros for n == 0. */
static gboolean
pow_scalar_backward (CrNode          *node,
                     CrTensor *const *grads,
                     CrTensor       **grad_inputs,
                     GError         **error)
{
  double n = node->args->scalar[0];
  SAVED (x, 0);

  if (n == 0.0)
    SET_GRAD (0, cr_tensor_new_zeros (x->shape, x->ndim, x->dtype, x->device, error));
  else
    {
      g_autoptr(CrTensor) p = cr_pow_scalar (x, n - 1.0, error);
      g_autoptr(CrTensor) np = p != NULL ? cr_ops_mul_number (p, n, error) : NULL;

      SET_GRAD (0, np != NULL ? cr_mul (grads[0], np, error) : NULL);
    }
  return TRUE;
}

static CrTensor *
pow_scalar_local_grad (CrNode  *node,
                       guint    input,
                       GError **error)
{
  double n = node->args->scalar[0];
  SAVED_OR_NULL (x, 0);
  g_autoptr(CrTensor) e = cr_ops_wrap_number (n - 1.0, TRUE);
  g_autoptr(CrTensor) p = NULL;

  if (n == 0.0)
    return cr_ops_full_output (node, 0.0, error);
  p = cr_kernel_binary (CR_BINARY_POW, x, e, error);
  return cr_ops_take_to_output (node, p != NULL ? cr_ops_k_num (CR_BINARY_MUL, p, n, error) : NULL, error);
}

/* args.scalar[0]: the exponent. */
const CrOpInfo cr_op_row_POW_SCALAR = {
  CR_OP_POW_SCALAR, "pow", "PowBackward0", 1, "xⁿ",
  "∂(xⁿ)/∂x = n·xⁿ⁻¹",
  pow_scalar_backward, pow_scalar_local_grad
};

CrTensor *
cr_pow_scalar (CrTensor  *a,
               double     exponent,
               GError   **error)
{
  g_autoptr(CrTensor) e = cr_ops_wrap_number (exponent, TRUE);
  CrTensor *out = cr_kernel_binary (CR_BINARY_POW, a, e, error);
  CrNode *node;

  if (out != NULL && (node = cr_ops_record (CR_OP_POW_SCALAR, &a, 1, out)) != NULL)
    {
      cr_node_args (node)->scalar[0] = exponent;
      cr_node_args (node)->has_scalar[0] = TRUE;
      cr_node_save (node, 0, a, FALSE);
    }
  return out;
}

/* The masks of PyTorch's pow_backward_self / pow_backward_exponent. */
static CrTensor *
pow_exponent_mask (const CrTensor *a,
                   const CrTensor *b,
                   GError        **error)
{
  /* (a == 0) & (b >= 0) */
  g_autoptr(CrTensor) a0 = cr_ops_k_num (CR_BINARY_EQ, a, 0.0, error);
  g_autoptr(CrTensor) bp = a0 != NULL ? cr_ops_k_num (CR_BINARY_GE, b, 0.0, error) : NULL;

  return bp != NULL ? cr_kernel_binary (CR_BINARY_LOGICAL_AND, a0, bp, error) : NULL;
}

static gboolean
pow_backward (CrNode          *node,
              CrTensor *const *grads,
              CrTensor       **grad_inputs,
              GError         **error)
{
  SAVED (a, 0);
  SAVED (b, 1);
  g_autoptr(CrTensor) zero = cr_ops_zero_scalar_like (grads[0]);

  if (cr_ops_needs_grad (node, 0))
    {
      /* where(b == 0, 0, grad * (b * a^(b-1))) */
      g_autoptr(CrTensor) one = cr_ops_wrap_number (1.0, TRUE);
      g_autoptr(CrTensor) cond = cr_ops_k_num (CR_BINARY_EQ, b, 0.0, error);
      g_autoptr(CrTensor) bm1 = cond != NULL ? cr_sub (b, one, error) : NULL;
      g_autoptr(CrTensor) p = bm1 != NULL ? cr_pow (a, bm1, error) : NULL;
      g_autoptr(CrTensor) bp = p != NULL ? cr_mul (b, p, error) : NULL;
      g_autoptr(CrTensor) gbp = bp != NULL ? cr_mul (grads[0], bp, error) : NULL;

      SET_GRAD (0, gbp != NULL ? cr_where (cond, zero, gbp, error) : NULL);
    }
  if (cr_ops_needs_grad (node, 1))
    {
      /* grad * where((a == 0) & (b >= 0), 0, out * log(a)) */
      SAVED (out, 2);
      g_autoptr(CrTensor) cond = pow_exponent_mask (a, b, error);
      g_autoptr(CrTensor) la = cond != NULL ? cr_log (a, error) : NULL;
      g_autoptr(CrTensor) ol = la != NULL ? cr_mul (out, la, error) : NULL;
      g_autoptr(CrTensor) w = ol != NULL ? cr_where (cond, zero, ol, error) : NULL;

      SET_GRAD (1, w != NULL ? cr_mul (grads[0], w, error) : NULL);
    }
  return TRUE;
}

static CrTensor *
pow_local_grad (CrNode  *node,
                guint    input,
                GError **error)
{
  SAVED_OR_NULL (a, 0);
  SAVED_OR_NULL (b, 1);
  g_autoptr(CrTensor) zero = cr_tensor_new_scalar (0.0, node->output_meta[0].dtype);
  g_autoptr(CrTensor) cond = NULL;
  g_autoptr(CrTensor) value = NULL;

  if (input == 0)
    {
      g_autoptr(CrTensor) bm1 = cr_ops_k_num (CR_BINARY_SUB, b, 1.0, error);
      g_autoptr(CrTensor) p = bm1 != NULL ? cr_kernel_binary (CR_BINARY_POW, a, bm1, error) : NULL;

      cond = cr_ops_k_num (CR_BINARY_EQ, b, 0.0, error);
      value = p != NULL ? cr_kernel_binary (CR_BINARY_MUL, b, p, error) : NULL;
    }
  else
    {
      SAVED_OR_NULL (out, 2);
      g_autoptr(CrTensor) la = cr_kernel_unary (CR_UNARY_LOG, a, error);

      cond = pow_exponent_mask (a, b, error);
      value = la != NULL ? cr_kernel_binary (CR_BINARY_MUL, out, la, error) : NULL;
    }
  if (cond == NULL || value == NULL)
    return NULL;
  return cr_ops_take_to_output (node, cr_kernel_where (cond, zero, value, error), error);
}

const CrOpInfo cr_op_row_POW = {
  CR_OP_POW, "pow", "PowBackward1", 2, "xʸ",
  "∂(aᵇ)/∂a = b·aᵇ⁻¹,  ∂(aᵇ)/∂b = aᵇ·ln a",
  pow_backward, pow_local_grad
};

CrTensor *
cr_pow (CrTensor  *a,
        CrTensor  *b,
        GError   **error)
{
  CrTensor *inputs[2] = { a, b };
  CrTensor *out = cr_kernel_binary (CR_BINARY_POW, a, b, error);
  CrNode *node;

  if (out != NULL && (node = cr_ops_record (CR_OP_POW, inputs, 2, out)) != NULL)
    {
      cr_node_save (node, 0, a, FALSE);
      cr_node_save (node, 1, b, FALSE);
      if (cr_ops_needs_grad (node, 1))
        cr_node_save (node, 2, out, TRUE);
    }
  return out;
}

/* PyTorch's pow_backward_exponent for a number base:
 * grad * (out * log(base)), with 0 where the exponent is >= 0 if base == 0. */
static gboolean
pow_number_base_backward (CrNode          *node,
                          CrTensor *const *grads,
                          CrTensor       **grad_inputs,
                          GError         **error)
{
  double base = node->args->scalar[0];
  SAVED (b, 0);
  SAVED (out, 1);
  g_autoptr(CrTensor) ol = cr_ops_mul_number (out, log (base), error);
  g_autoptr(CrTensor) w = NULL;

  if (ol != NULL && base == 0.0)
    {
      g_autoptr(CrTensor) zero = cr_ops_zero_scalar_like (grads[0]);
      g_autoptr(CrTensor) cond = cr_ops_k_num (CR_BINARY_GE, b, 0.0, error);

      w = cond != NULL ? cr_where (cond, zero, ol, error) : NULL;
    }
  else
    w = g_steal_pointer (&ol);
  SET_GRAD (0, w != NULL ? cr_mul (grads[0], w, error) : NULL);
  return TRUE;
}

static CrTensor *
pow_number_base_local_grad (CrNode  *node,
                            guint    input,
                            GError **error)
{
  double base = node->args->scalar[0];
  SAVED_OR_NULL (b, 0);
  SAVED_OR_NULL (out, 1);
  g_autoptr(CrTensor) zero = cr_tensor_new_scalar (0.0, node->output_meta[0].dtype);
  g_autoptr(CrTensor) value = cr_ops_k_num (CR_BINARY_MUL, out, log (base), error);
  g_autoptr(CrTensor) cond = NULL;

  if (value == NULL || base != 0.0)
    return cr_ops_take_to_output (node, g_steal_pointer (&value), error);
  cond = cr_ops_k_num (CR_BINARY_GE, b, 0.0, error);
  if (cond == NULL)
    return NULL;
  return cr_ops_take_to_output (node, cr_kernel_where (cond, zero, value, error), error);
}

/* args.scalar[0]: the base. */
const CrOpInfo cr_op_row_POW_NUMBER_BASE = {
  CR_OP_POW_NUMBER_BASE, "pow", "PowBackward2", 1, "cˣ",
  "∂(cˣ)/∂x = cˣ·ln c",
  pow_number_base_backward, pow_number_base_local_grad
};

CrTensor *
cr_pow_number_base (double     base,
                    gboolean   integral,
                    CrTensor  *a,
                    GError   **error)
{
  g_autoptr(CrTensor) n = cr_ops_wrap_number (base, integral);
  CrTensor *out = cr_kernel_binary (CR_BINARY_POW, n, a, error);
  CrNode *node;

  if (out != NULL && (node = cr_ops_record (CR_OP_POW_NUMBER_BASE, &a, 1, out)) != NULL)
    {
      cr_node_args (node)->scalar[0] = base;
      cr_node_args (node)->has_scalar[0] = TRUE;
      cr_ops_note_number (node, base, base == (double) (gint64) base && fabs (base) < 1e15);
      cr_node_save (node, 0, a, FALSE);
      cr_node_save (node, 1, out, TRUE);
    }
  return out;
}
