/* cr-ops-cross.c — the cross product of 3-vectors along a dim: torch.cross
 * and torch.linalg.cross, one LinalgCrossBackward0 node as in PyTorch 1.13.
 *
 * With a' = a rolled by one along dim ([a₁, a₂, a₀]) and a'' by two,
 * a × b = a'·b'' − a''·b', which the forward computes with grad mode off
 * from existing ops (so it runs on every device). The inputs broadcast.
 * Backward (derivatives.yaml): ∂self = other × grad, ∂other = grad × self,
 * each summed down to its input's shape. saved[0] self (when other needs
 * grad), saved[1] other (when self does); args.dims[0] the dim. */
#include "cr-ops-private.h"

#include "cr-error.h"
#include "cr-grad-mode.h"
#include "cr-ops-nnf.h"

static gboolean
cross_backward (CrNode          *node,
                CrTensor *const *grads,
                CrTensor       **grad_inputs,
                GError         **error)
{
  int dim = node->args->dims[0];

  for (int i = 0; i < 2; i++)
    {
      const CrTensorMeta *meta = &node->input_meta[i];
      g_autoptr(CrTensor) other = NULL;
      g_autoptr(CrTensor) full = NULL;

      if (!cr_ops_needs_grad (node, i))
        continue;
      if ((other = cr_node_get_saved (node, 1 - i, error)) == NULL)
        return FALSE;
      full = i == 0 ? cr_linalg_cross (other, grads[0], dim, error)
                    : cr_linalg_cross (grads[0], other, dim, error);
      if (full == NULL)
        return FALSE;
      SET_GRAD (i, cr_sum_to_shape (full, meta->shape, meta->ndim, error));
    }
  return TRUE;
}

const CrOpInfo cr_op_row_LINALG_CROSS = {
  CR_OP_LINALG_CROSS, "linalg_cross", "LinalgCrossBackward0", 2, "×",
  "∂(a×b)/∂a: G ↦ b×G,  ∂(a×b)/∂b: G ↦ G×a",
  cross_backward, NULL
};

/* a rolled by shift along dim (-1: [a₁, a₂, a₀]). */
static CrTensor *
rolled (CrTensor  *a,
        int        dim,
        gint64     shift,
        GError   **error)
{
  return cr_roll (a, &shift, 1, &dim, 1, error);
}

CrTensor *
cr_linalg_cross (CrTensor  *a,
                 CrTensor  *b,
                 int        dim,
                 GError   **error)
{
  gint64 shape[CR_MAX_DIMS];
  int ndim;
  CrTensor *inputs[2] = { a, b };
  CrTensor *out = NULL;
  CrNode *node;
  int given_dim = dim;

  if (a->ndim != b->ndim)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "linalg.cross: inputs must have the same number of dimensions.");
      return NULL;
    }
  if (!cr_ops_wrap_dim (&dim, a->ndim, error))
    return NULL;
  if (a->ndim == 0 || a->shape[dim] != 3 || b->shape[dim] != 3)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "linalg.cross: inputs dimension %d must have length 3. Got %" G_GINT64_FORMAT
                   " and %" G_GINT64_FORMAT, given_dim, a->ndim ? a->shape[dim] : 1,
                   b->ndim ? b->shape[dim] : 1);
      return NULL;
    }
  if (!cr_shape_broadcast (a->shape, a->ndim, b->shape, b->ndim, shape, &ndim, error))
    return NULL;
  if (a->dtype != b->dtype)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "expected scalar type %s but found %s",
                   cr_dtype_scalar_name (a->dtype), cr_dtype_scalar_name (b->dtype));
      return NULL;
    }
  {
    gboolean grad_was_enabled = cr_grad_mode_set_enabled (FALSE);
    g_autoptr(CrTensor) a1 = rolled (a, dim, -1, error);
    g_autoptr(CrTensor) a2 = a1 != NULL ? rolled (a, dim, -2, error) : NULL;
    g_autoptr(CrTensor) b1 = a2 != NULL ? rolled (b, dim, -1, error) : NULL;
    g_autoptr(CrTensor) b2 = b1 != NULL ? rolled (b, dim, -2, error) : NULL;
    g_autoptr(CrTensor) left = b2 != NULL ? cr_mul (a1, b2, error) : NULL;
    g_autoptr(CrTensor) right = left != NULL ? cr_mul (a2, b1, error) : NULL;

    if (right != NULL)
      out = cr_sub (left, right, error);
    cr_grad_mode_set_enabled (grad_was_enabled);
  }
  if (out == NULL || !cr_autograd_should_record (inputs, 2))
    return out;
  node = cr_node_new (CR_OP_LINALG_CROSS, inputs, 2, 1);
  cr_node_args (node)->dims[0] = dim;
  if (cr_ops_needs_grad (node, 1))
    cr_node_save (node, 0, a, FALSE);
  if (cr_ops_needs_grad (node, 0))
    cr_node_save (node, 1, b, FALSE);
  cr_ops_attach (out, node);
  return out;
}

CrTensor *
cr_cross (CrTensor  *a,
          CrTensor  *b,
          gboolean   has_dim,
          int        dim,
          GError   **error)
{
  if (!has_dim)
    {
      /* torch.cross without dim: the first dim of size 3 of the input. */
      for (dim = 0; dim < a->ndim && a->shape[dim] != 3; dim++)
        ;
      if (dim == a->ndim)
        {
          g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                               "no dimension of size 3 in input");
          return NULL;
        }
    }
  return cr_linalg_cross (a, b, dim, error);
}
