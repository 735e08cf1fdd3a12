/* cr-ops-xlogy-number.c — torch.xlogy(number, y): the number times log y,
 * 0 where the number is 0, with PyTorch's own node for a number first
 * (xlogy.Scalar_Self, XlogyBackward1). A tensor first is a row of
 * core/cr-binary-ops.def (XlogyBackward0, XlogyBackward2). */
#include "cr-ops-private.h"

/* derivatives.yaml: other: grad * self / other. */
static gboolean
xlogy_number_self_backward (CrNode          *node,
                            CrTensor *const *grads,
                            CrTensor       **grad_inputs,
                            GError         **error)
{
  SAVED (other, 0);
  g_autoptr(CrTensor) scaled = cr_ops_mul_number (grads[0], node->args->scalar[0], error);

  SET_GRAD (0, scaled != NULL ? cr_div (scaled, other, error) : NULL);
  return TRUE;
}

static CrTensor *
xlogy_number_self_local_grad (CrNode  *node,
                              guint    input,
                              GError **error)
{
  SAVED_OR_NULL (other, 0);
  g_autoptr(CrTensor) n = cr_tensor_new_scalar (node->args->scalar[0], CR_DTYPE_FLOAT64);

  n->is_wrapped_number = TRUE;
  return cr_ops_take_to_output (node, cr_kernel_binary (CR_BINARY_DIV, n, other, error), error);
}

/* args.scalar[0]: the number (scalar_int_mask bit 0 when the script gave an
 * int); the tensor in slot 0. */
const CrOpInfo cr_op_row_XLOGY_NUMBER_SELF = {
  CR_OP_XLOGY_NUMBER_SELF, "xlogy", "XlogyBackward1", 1, "xlogy",
  "∂(c·log y)/∂y = c/y",
  xlogy_number_self_backward, xlogy_number_self_local_grad
};

CrTensor *
cr_xlogy_number_self (double     number,
                      gboolean   integral,
                      CrTensor  *other,
                      GError   **error)
{
  g_autoptr(CrTensor) n = cr_ops_wrap_number (number, integral);
  CrTensor *out = cr_kernel_binary (CR_BINARY_XLOGY, n, other, error);
  CrNode *node;

  if (out != NULL && (node = cr_ops_record (CR_OP_XLOGY_NUMBER_SELF, &other, 1, out)) != NULL)
    {
      CrOpArgs *args = cr_node_args (node);

      args->scalar[0] = number;
      args->has_scalar[0] = TRUE;
      args->scalar_int_mask = n->dtype == CR_DTYPE_INT64 ? 1u : 0u;
      cr_ops_note_number (node, number, n->dtype == CR_DTYPE_INT64);
      cr_node_save (node, 0, other, FALSE);
    }
  return out;
}
