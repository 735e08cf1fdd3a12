/* cr-ops-div-mode.c — x.div(other, rounding_mode='floor' | 'trunc'), as
 * PyTorch 1.13 records it: DivBackward2 over (self, other), whose gradient
 * is zeros for both (a rounded quotient is flat almost everywhere).
 *
 * Slots: 0 self, 1 other (_saved_self, _saved_other). args.ints[0]: TRUE
 * for floor, FALSE for trunc. */
#include "cr-ops-private.h"
#include "cr-grad-mode.h"
#include "cr-error.h"

static gboolean
div_mode_backward (CrNode          *node,
                   CrTensor *const *grad_outputs,
                   CrTensor       **grad_inputs,
                   GError         **error)
{
  for (guint i = 0; i < 2; i++)
    if (cr_ops_needs_grad (node, i))
      {
        const CrTensorMeta *m = &node->input_meta[i];
        SET_GRAD (i, cr_tensor_new_zeros (m->shape, m->ndim, m->dtype, m->device, error));
      }
  return TRUE;
}

const CrOpInfo cr_op_row_DIV_MODE = {
  CR_OP_DIV_MODE, "div", "DivBackward2", 2, "÷⌊⌋",
  "∂⌊a/b⌋/∂a = ∂⌊a/b⌋/∂b = 0 (flat between its steps)", div_mode_backward, NULL
};

/* trunc(q) = sign(q)·floor(|q|) */
static CrTensor *
trunc_quotient (CrTensor  *x,
                CrTensor  *other,
                GError   **error)
{
  g_autoptr(CrTensor) q = cr_kernel_binary (CR_BINARY_DIV, x, other, error);
  g_autoptr(CrTensor) s = q != NULL ? cr_kernel_unary (CR_UNARY_SIGN, q, error) : NULL;
  g_autoptr(CrTensor) m = s != NULL ? cr_kernel_unary (CR_UNARY_ABS, q, error) : NULL;
  g_autoptr(CrTensor) f = m != NULL ? cr_kernel_unary (CR_UNARY_FLOOR, m, error) : NULL;
  g_autoptr(CrTensor) t = f != NULL ? cr_kernel_binary (CR_BINARY_MUL, s, f, error) : NULL;
  CrDType want = cr_dtype_result_type (x, other);

  /* Integers divide to an integer, as floor division does. */
  if (t == NULL || t->dtype == want)
    return g_steal_pointer (&t);
  return cr_kernel_cast (t, want, error);
}

CrTensor *
cr_div_rounding (CrTensor  *x,
                 CrTensor  *other,
                 gboolean   floor,
                 GError   **error)
{
  CrTensor *inputs[2] = { x, other };
  CrTensor *out = floor ? cr_kernel_binary (CR_BINARY_FLOOR_DIVIDE, x, other, error)
                        : trunc_quotient (x, other, error);
  CrNode *node;

  if (out != NULL && (node = cr_ops_record (CR_OP_DIV_MODE, inputs, 2, out)) != NULL)
    {
      cr_node_args (node)->ints[0] = floor;
      cr_node_save (node, 0, x, FALSE);
      cr_node_save (node, 1, other, FALSE);
    }
  return out;
}
