/* cr-ops-hardtanh.c — F.hardtanh and F.relu6: the clamp kernel forward, with
 * PyTorch's own node (HardtanhBackward0) and gradient: grad where
 * min < x < max, else 0 (at the bounds too, unlike clamp's). Its two scalars
 * keep it out of the unary rows, whose kernels take none. */
#include "cr-ops-private.h"

#include "cr-error.h"
#include "cr-grad-mode.h"
#include "cr-tensor.h"

/* The mask min < x < max (bool; no graph). */
static CrTensor *
inside_mask (const CrNode    *node,
             const CrTensor  *x,
             GError         **error)
{
  g_autoptr(CrTensor) lo = cr_ops_k_num (CR_BINARY_GT, x, node->args->scalar[0], error);
  g_autoptr(CrTensor) hi = lo != NULL ? cr_ops_k_num (CR_BINARY_LT, x, node->args->scalar[1],
                                                      error) : NULL;

  return hi != NULL ? cr_kernel_binary (CR_BINARY_LOGICAL_AND, lo, hi, error) : NULL;
}

static gboolean
hardtanh_backward (CrNode          *node,
                   CrTensor *const *grads,
                   CrTensor       **grad_inputs,
                   GError         **error)
{
  SAVED (x, 0);
  g_autoptr(CrTensor) mask = inside_mask (node, x, error);
  g_autoptr(CrTensor) zero = cr_ops_zero_scalar_like (grads[0]);

  SET_GRAD (0, mask != NULL ? cr_where (mask, grads[0], zero, error) : NULL);
  return TRUE;
}

static CrTensor *
hardtanh_local_grad (CrNode  *node,
                     guint    input,
                     GError **error)
{
  SAVED_OR_NULL (x, 0);
  return cr_ops_take_to_output (node, inside_mask (node, x, error), error);
}

/* args.scalar[0]: min_val, scalar[1]: max_val; the input in slot 0. */
const CrOpInfo cr_op_row_HARDTANH = {
  CR_OP_HARDTANH, "hardtanh", "HardtanhBackward0", 1, "htanh",
  "∂hardtanh(x)/∂x = 1 where min < x < max, else 0",
  hardtanh_backward, hardtanh_local_grad
};

CrTensor *
cr_hardtanh (CrTensor  *x,
             double     min_val,
             double     max_val,
             GError   **error)
{
  CrTensor *out;
  CrNode *node;

  if (x->dtype == CR_DTYPE_BOOL)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "Bool inputs not supported for hardtanh");
      return NULL;
    }
  out = cr_kernel_clamp (x, TRUE, min_val, TRUE, max_val, error);
  if (out != NULL && (node = cr_ops_record (CR_OP_HARDTANH, &x, 1, out)) != NULL)
    {
      cr_node_args (node)->scalar[0] = min_val;
      cr_node_args (node)->scalar[1] = max_val;
      cr_node_save (node, 0, x, FALSE);
    }
  return out;
}
