/* cr-ops-not-implemented.c — backward formulas that PyTorch 1.13 cannot
 * differentiate again. Under create_graph their result still gets a node,
 * torch::autograd::NotImplemented, over the inputs that require grad, and a
 * backward through it fails with PyTorch's "derivative for
 * aten::hardsigmoid_backward is not implemented".
 *
 * hardsigmoid's backward: g/6 where −3 < x < 3, else 0. */
#include "cr-ops-private.h"

#include "cr-error.h"
#include "cr-grad-mode.h"
#include "cr-tensor.h"

/* args.ints[0]: the op whose backward this is (its name says which); or,
 * when args.ints[1] is set, the binary kernel that has no derivative. */
static gboolean
not_implemented_backward (CrNode          *node,
                          CrTensor *const *grads,
                          CrTensor       **grad_inputs,
                          GError         **error)
{
  if (node->args->ints[1])
    g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                 "derivative for aten::%s is not implemented",
                 cr_binary_op_name ((CrBinaryOp) node->args->ints[0]));
  else
    g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                 "derivative for aten::%s_backward is not implemented",
                 cr_op_info ((CrOpId) node->args->ints[0])->name);
  return FALSE;
}

const CrOpInfo cr_op_row_NOT_IMPLEMENTED = {
  CR_OP_NOT_IMPLEMENTED, "not_implemented", "NotImplemented", -1, "∄′",
  "PyTorch has no derivative of this backward formula", not_implemented_backward, NULL
};

/* result's node when grad mode is on and grad or self requires grad: a
 * NotImplemented node for op over those that do. Returns result. */
static CrTensor *
record_not_implemented (CrOpId     op,
                        CrTensor  *result,
                        CrTensor  *grad,
                        CrTensor  *self)
{
  CrTensor *inputs[2];
  guint n = 0;
  CrNode *node;

  if (grad->requires_grad)
    inputs[n++] = grad;
  if (self->requires_grad)
    inputs[n++] = self;
  if (result != NULL && n > 0 && (node = cr_ops_record (CR_OP_NOT_IMPLEMENTED, inputs, n, result)))
    cr_node_args (node)->ints[0] = op;
  return result;
}

CrTensor *
cr_hardsigmoid_backward (CrTensor  *grad,
                         CrTensor  *self,
                         GError   **error)
{
  gboolean was_enabled = cr_grad_mode_set_enabled (FALSE);
  g_autoptr(CrTensor) above = cr_ops_k_num (CR_BINARY_GT, self, -3.0, error);
  g_autoptr(CrTensor) below = above != NULL ? cr_ops_k_num (CR_BINARY_LT, self, 3.0, error) : NULL;
  g_autoptr(CrTensor) inside = below != NULL ? cr_kernel_binary (CR_BINARY_LOGICAL_AND, above,
                                                                 below, error)
                                             : NULL;
  g_autoptr(CrTensor) sixth = inside != NULL ? cr_binary_number (CR_OP_DIV, grad, 6.0, error)
                                             : NULL;
  g_autoptr(CrTensor) zero = sixth != NULL ? cr_tensor_new_zeros (sixth->shape, sixth->ndim,
                                                                  sixth->dtype, sixth->device,
                                                                  error)
                                           : NULL;
  CrTensor *result = zero != NULL ? cr_where (inside, sixth, zero, error) : NULL;

  cr_grad_mode_set_enabled (was_enabled);
  return record_not_implemented (CR_OP_HARDSIGMOID, result, grad, self);
}

/* floor_divide, and remainder of a number by a tensor: PyTorch 1.13 has no
 * derivative for them, yet their result gets a NotImplemented node over the
 * inputs that require grad (grad_fn=<NotImplemented>), whose backward fails
 * naming the op. */
CrTensor *
cr_binary_no_derivative (CrBinaryOp   op,
                         CrTensor    *a,
                         CrTensor    *b,
                         GError     **error)
{
  CrTensor *result = cr_kernel_binary (op, a, b, error);
  CrTensor *inputs[2];
  guint n = 0;
  CrNode *node;

  if (result == NULL)
    return NULL;
  if (a->requires_grad)
    inputs[n++] = a;
  if (b->requires_grad)
    inputs[n++] = b;
  if (n > 0 && (node = cr_ops_record (CR_OP_NOT_IMPLEMENTED, inputs, n, result)))
    {
      cr_node_args (node)->ints[0] = op;
      cr_node_args (node)->ints[1] = TRUE;
    }
  return result;
}
