/* cr-ops-nan-to-num.c — torch.nan_to_num(x, nan=0.0, posinf=None,
 * neginf=None) (NanToNumBackward0) and nan_to_num_: NaN, +inf and -inf
 * replaced (the infinities by the dtype's largest and lowest numbers unless
 * given); the gradient passes where x was finite. Built from comparisons
 * and where, which every backend has. */
#include "cr-ops-private.h"

#include <float.h>
#include <math.h>

#include "cr-error.h"

/* saved[0]: the input. */
static gboolean
nan_to_num_backward (CrNode          *node,
                     CrTensor *const *grads,
                     CrTensor       **grad_inputs,
                     GError         **error)
{
  g_autoptr(CrTensor) finite = NULL;
  g_autoptr(CrTensor) magnitude = NULL;
  g_autoptr(CrTensor) not_inf = NULL;
  g_autoptr(CrTensor) not_nan = NULL;
  SAVED (x, 0);

  if ((magnitude = cr_kernel_unary (CR_UNARY_ABS, x, error)) == NULL
      || (not_inf = cr_ops_k_num (CR_BINARY_NE, magnitude, INFINITY, error)) == NULL
      || (not_nan = cr_kernel_binary (CR_BINARY_EQ, x, x, error)) == NULL
      || (finite = cr_kernel_binary (CR_BINARY_LOGICAL_AND, not_inf, not_nan, error)) == NULL)
    return FALSE;
  SET_GRAD (0, cr_mul (grads[0], finite, error));
  return TRUE;
}

const CrOpInfo cr_op_row_NAN_TO_NUM = {
  CR_OP_NAN_TO_NUM, "nan_to_num", "NanToNumBackward0", 1, "nan→num",
  "∂nan_to_num(x)/∂x = 1 where x is finite, else 0", nan_to_num_backward, NULL
};

/* x with each kind of non-finite value replaced; a copy for integers. */
static CrTensor *
replace_non_finite (const CrTensor      *x,
                    const CrNanToNum    *with,
                    GError             **error)
{
  double largest = x->dtype == CR_DTYPE_FLOAT64 ? DBL_MAX : FLT_MAX;
  const struct { CrBinaryOp test; double at; double value; } steps[] = {
    { CR_BINARY_NE, NAN, with->nan },
    { CR_BINARY_EQ, INFINITY, with->has_posinf ? with->posinf : largest },
    { CR_BINARY_EQ, -INFINITY, with->has_neginf ? with->neginf : -largest },
  };
  CrTensor *out = cr_tensor_copy (x, error);

  if (out == NULL || !cr_dtype_is_floating (x->dtype))
    return out;
  for (guint i = 0; i < G_N_ELEMENTS (steps); i++)
    {
      /* x != x finds NaN; the infinities compare equal to themselves. */
      g_autoptr(CrTensor) mask = i == 0 ? cr_kernel_binary (CR_BINARY_NE, x, x, error)
                                        : cr_ops_k_num (steps[i].test, x, steps[i].at, error);
      g_autoptr(CrTensor) value = cr_tensor_new_scalar (steps[i].value, x->dtype);
      g_autoptr(CrTensor) replaced = mask != NULL ? cr_kernel_where (mask, value, out, error) : NULL;

      if (replaced == NULL)
        {
          cr_tensor_unref (out);
          return NULL;
        }
      cr_tensor_unref (out);
      out = g_steal_pointer (&replaced);
    }
  return out;
}

CrTensor *
cr_nan_to_num (CrTensor          *x,
               const CrNanToNum  *with,
               GError           **error)
{
  CrTensor *out = replace_non_finite (x, with, error);
  CrNode *node;

  if (out != NULL && (node = cr_ops_record (CR_OP_NAN_TO_NUM, &x, 1, out)) != NULL)
    cr_node_save (node, 0, x, FALSE);
  return out;
}

gboolean
cr_nan_to_num_ (CrTensor          *self,
                const CrNanToNum  *with,
                GError           **error)
{
  g_autoptr(CrTensor) old_self = NULL;
  g_autoptr(CrTensor) out = NULL;
  CrNode *node;

  if (!cr_autograd_check_inplace_rules (self, error))
    return FALSE;
  if (cr_autograd_should_record (&self, 1) && (old_self = cr_clone (self, error)) == NULL)
    return FALSE;
  out = replace_non_finite (self, with, error);
  if (out == NULL || !cr_kernel_copy_into (self, out, error))
    return FALSE;
  cr_tensor_bump_version (self);
  if ((node = cr_ops_rebase_history (CR_OP_NAN_TO_NUM, &self, 1)) != NULL)
    cr_node_save (node, 0, old_self, FALSE);
  return TRUE;
}
