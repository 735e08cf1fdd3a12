/* cr-ops-clamp-tensor.c — clamp with tensor bounds: torch.clamp(x, min=t,
 * max=t) (ClampBackward0), clamp_min(x, t) (ClampMinBackward1) and
 * clamp_max(x, t) (ClampMaxBackward1), and clamp_ with tensors.
 *
 * The forward is PyTorch 1.13's: maximum with min, then minimum with max
 * (a NaN bound gives NaN), over the bounds broadcast with x and the result
 * type of all three. The backward is clamp_backward and
 * clamp_backward_min_max: x gets the gradient where min ≤ x ≤ max; min where
 * x < min (and min < max when both are given); max where x > max (or
 * max < min). Masks are kernels, the gradient goes through where, so that a
 * double backward works. Every piece is a binary kernel that CUDA has. */
#include "cr-ops-private.h"
#include "cr-ops-nnf.h"
#include "cr-error.h"

/* Slots: 0 self (x), 1 min, 2 max; inputs in the same order. CLAMP_MIN_TENSOR
 * and CLAMP_MAX_TENSOR have two inputs, x and their bound in slot 1. */
/* The bounds the node saved (new refs; NULL where none was given). */
static void
bounds_of (CrNode    *node,
           CrTensor **lo,
           CrTensor **hi)
{
  CrOpId op = node->op->id;

  *lo = op != CR_OP_CLAMP_MAX_TENSOR ? cr_node_get_saved (node, 1, NULL) : NULL;
  *hi = op == CR_OP_CLAMP_MAX_TENSOR ? cr_node_get_saved (node, 1, NULL)
        : op == CR_OP_CLAMP_TENSOR ? cr_node_get_saved (node, 2, NULL) : NULL;
}

/* The mask (bool, of the broadcast shape) where input `which` of the clamp
 * gets the gradient: 0 x, 1 min, 2 max. */
static CrTensor *
gradient_mask (CrTensor  *x,
               CrTensor  *lo,
               CrTensor  *hi,
               guint      which,
               GError   **error)
{
  g_autoptr(CrTensor) a = NULL;
  g_autoptr(CrTensor) b = NULL;

  switch (which)
    {
    case 0:
      a = lo != NULL ? cr_kernel_binary (CR_BINARY_GE, x, lo, error) : NULL;
      b = hi != NULL ? cr_kernel_binary (CR_BINARY_LE, x, hi, error) : NULL;
      if ((lo != NULL && a == NULL) || (hi != NULL && b == NULL))
        return NULL;
      if (a != NULL && b != NULL)
        return cr_kernel_binary (CR_BINARY_LOGICAL_AND, a, b, error);
      if (a == NULL)
        return g_steal_pointer (&b);
      return g_steal_pointer (&a);
    case 1:
      if ((a = cr_kernel_binary (CR_BINARY_LT, x, lo, error)) == NULL)
        return NULL;
      if (hi == NULL)
        return g_steal_pointer (&a);
      if ((b = cr_kernel_binary (CR_BINARY_LT, lo, hi, error)) == NULL)
        return NULL;
      return cr_kernel_binary (CR_BINARY_LOGICAL_AND, a, b, error);
    default:
      if ((a = cr_kernel_binary (CR_BINARY_GT, x, hi, error)) == NULL)
        return NULL;
      if (lo == NULL)
        return g_steal_pointer (&a);
      if ((b = cr_kernel_binary (CR_BINARY_LT, hi, lo, error)) == NULL)
        return NULL;
      return cr_kernel_binary (CR_BINARY_LOGICAL_OR, a, b, error);
    }
}

/* The clamp input that node's edge i stands for (0 x, 1 min, 2 max). */
static guint
clamp_input (const CrNode *node,
             guint         edge)
{
  if (edge == 0)
    return 0;
  return node->op->id == CR_OP_CLAMP_MAX_TENSOR ? 2 : edge;
}

static gboolean
clamp_tensor_backward (CrNode          *node,
                       CrTensor *const *grads,
                       CrTensor       **grad_inputs,
                       GError         **error)
{
  g_autoptr(CrTensor) zero = cr_ops_zero_scalar_like (grads[0]);
  g_autoptr(CrTensor) lo = NULL;
  g_autoptr(CrTensor) hi = NULL;
  SAVED (x, 0);

  if (!cr_ops_check_saved_from (node, 1, error))
    return FALSE;
  bounds_of (node, &lo, &hi);
  for (guint i = 0; i < node->n_inputs; i++)
    {
      g_autoptr(CrTensor) mask = NULL;

      if (!cr_ops_needs_grad (node, i))
        continue;
      mask = gradient_mask (x, lo, hi, clamp_input (node, i), error);
      SET_GRAD (i, mask != NULL ? cr_where (mask, grads[0], zero, error) : NULL);
    }
  return TRUE;
}

static CrTensor *
clamp_tensor_local_grad (CrNode  *node,
                         guint    input,
                         GError **error)
{
  g_autoptr(CrTensor) lo = NULL;
  g_autoptr(CrTensor) hi = NULL;
  SAVED_OR_NULL (x, 0);

  bounds_of (node, &lo, &hi);
  if ((input == 1 && lo == NULL && node->op->id != CR_OP_CLAMP_MAX_TENSOR) || (input == 2 && hi == NULL))
    return NULL;
  return cr_ops_take_to_output (node, gradient_mask (x, lo, hi, clamp_input (node, input), error),
                                error);
}

const CrOpInfo cr_op_row_CLAMP_TENSOR = {
  CR_OP_CLAMP_TENSOR, "clamp", "ClampBackward0", 3, "clamp",
  "∂clamp(x, lo, hi)/∂x = 1 where lo ≤ x ≤ hi;  ∂/∂lo = 1 where x < lo < hi;  "
  "∂/∂hi = 1 where x > hi or hi < lo",
  clamp_tensor_backward, clamp_tensor_local_grad
};

const CrOpInfo cr_op_row_CLAMP_MIN_TENSOR = {
  CR_OP_CLAMP_MIN_TENSOR, "clamp_min", "ClampMinBackward1", 2, "max",
  "∂clamp_min(x, lo)/∂x = 1 where x ≥ lo;  ∂/∂lo = 1 where x < lo",
  clamp_tensor_backward, clamp_tensor_local_grad
};

const CrOpInfo cr_op_row_CLAMP_MAX_TENSOR = {
  CR_OP_CLAMP_MAX_TENSOR, "clamp_max", "ClampMaxBackward1", 2, "min",
  "∂clamp_max(x, hi)/∂x = 1 where x ≤ hi;  ∂/∂hi = 1 where x > hi",
  clamp_tensor_backward, clamp_tensor_local_grad
};

/* Fills inputs (x, then the bounds the op has edges for), n_inputs. */
static void
clamp_inputs (CrOpId     op,
              CrTensor  *x,
              CrTensor  *lo,
              CrTensor  *hi,
              CrTensor  *inputs[3],
              guint     *n_inputs)
{
  inputs[0] = x;
  inputs[1] = op == CR_OP_CLAMP_MAX_TENSOR ? hi : lo;
  inputs[2] = hi;
  *n_inputs = op == CR_OP_CLAMP_TENSOR ? 3 : 2;
}

static void
clamp_save (CrNode   *node,
            CrTensor *x,
            gboolean  x_is_output,
            CrTensor *lo,
            CrTensor *hi)
{
  cr_node_save (node, 0, x, x_is_output);
  if (node->op->id == CR_OP_CLAMP_MAX_TENSOR)
    cr_node_save (node, 1, hi, FALSE);
  else
    {
      cr_node_save (node, 1, lo, FALSE);
      if (node->op->id == CR_OP_CLAMP_TENSOR)
        cr_node_save (node, 2, hi, FALSE);
    }
}

CrTensor *
cr_clamp_tensor (CrOpId     op,
                 CrTensor  *x,
                 CrTensor  *lo,
                 CrTensor  *hi,
                 GError   **error)
{
  g_autoptr(CrTensor) raised = NULL;
  CrTensor *inputs[3];
  guint n_inputs;
  CrTensor *out;
  CrNode *node;

  g_return_val_if_fail (op == CR_OP_CLAMP_TENSOR || op == CR_OP_CLAMP_MIN_TENSOR
                        || op == CR_OP_CLAMP_MAX_TENSOR, NULL);
  if (!cr_ops_check_clamp_bounds (lo != NULL, hi != NULL, error))
    return NULL;
  if (lo != NULL && (raised = cr_kernel_binary (CR_BINARY_MAXIMUM, x, lo, error)) == NULL)
    return NULL;
  out = hi != NULL ? cr_kernel_binary (CR_BINARY_MINIMUM, raised != NULL ? raised : x, hi, error)
                   : g_steal_pointer (&raised);
  if (out == NULL)
    return NULL;
  clamp_inputs (op, x, lo, hi, inputs, &n_inputs);
  if ((node = cr_ops_record (op, inputs, n_inputs, out)) != NULL)
    clamp_save (node, x, FALSE, lo, hi);
  return out;
}

gboolean
cr_clamp_tensor_ (CrOpId     op,
                  CrTensor  *self,
                  CrTensor  *lo,
                  CrTensor  *hi,
                  GError   **error)
{
  g_autoptr(CrTensor) old_self = NULL;
  CrTensor *inputs[3];
  guint n_inputs;
  CrNode *node;

  g_return_val_if_fail (op == CR_OP_CLAMP_TENSOR || op == CR_OP_CLAMP_MIN_TENSOR
                        || op == CR_OP_CLAMP_MAX_TENSOR, FALSE);
  if (!cr_ops_check_clamp_bounds (lo != NULL, hi != NULL, error)
      || !cr_autograd_check_inplace_rules (self, error))
    return FALSE;
  clamp_inputs (op, self, lo, hi, inputs, &n_inputs);
  if (cr_autograd_should_record (inputs, n_inputs) && (old_self = cr_clone (self, error)) == NULL)
    return FALSE;
  if ((lo != NULL && !cr_kernel_binary_into (CR_BINARY_MAXIMUM, self, self, lo, error))
      || (hi != NULL && !cr_kernel_binary_into (CR_BINARY_MINIMUM, self, self, hi, error)))
    return FALSE;
  cr_tensor_bump_version (self);
  if ((node = cr_ops_rebase_history (op, inputs, n_inputs)) != NULL)
    clamp_save (node, old_self, FALSE, lo, hi);
  return TRUE;
}
