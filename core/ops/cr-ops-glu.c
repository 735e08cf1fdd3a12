/* cr-ops-glu.c — F.glu / nn.GLU, the gated linear unit: x split in two
 * halves a, b along dim, a · σ(b) (GluBackward0). The backward is PyTorch's
 * glu_backward written with differentiable ops, so create_graph works (its
 * second-order node is not GluBackwardBackward0 but the ops'). */
#include "cr-ops-private.h"
#include "cr-error.h"
#include "cr-grad-mode.h"

/* The halves of x along dim (views, recorded when grad mode is on). */
static gboolean
halves (CrTensor  *x,
        int        dim,
        CrTensor **out_a,
        CrTensor **out_b,
        GError   **error)
{
  gint64 h = x->shape[dim] / 2;

  *out_a = cr_narrow (x, dim, 0, h, error);
  *out_b = *out_a != NULL ? cr_narrow (x, dim, h, h, error) : NULL;
  if (*out_b == NULL)
    {
      g_clear_pointer (out_a, cr_tensor_unref);
      return FALSE;
    }
  return TRUE;
}

/* ∂/∂a = G σ(b), ∂/∂b = G a σ(b) (1 − σ(b)), joined along dim. */
static gboolean
glu_backward (CrNode          *node,
              CrTensor *const *grads,
              CrTensor       **grad_inputs,
              GError         **error)
{
  int dim = node->args->dims[0];
  SAVED (x, 0);
  g_autoptr(CrTensor) a = NULL;
  g_autoptr(CrTensor) b = NULL;
  g_autoptr(CrTensor) s = NULL;
  g_autoptr(CrTensor) one_minus = NULL;
  g_autoptr(CrTensor) grad_a = NULL;
  g_autoptr(CrTensor) ga = NULL;
  g_autoptr(CrTensor) gas = NULL;
  g_autoptr(CrTensor) grad_b = NULL;
  CrTensor *parts[2];

  if (!halves (x, dim, &a, &b, error)
      || (s = cr_unary (CR_OP_SIGMOID, b, error)) == NULL
      || (one_minus = cr_rsub_scalar (s, 1.0, error)) == NULL
      || (grad_a = cr_mul (grads[0], s, error)) == NULL
      || (ga = cr_mul (grads[0], a, error)) == NULL
      || (gas = cr_mul (ga, s, error)) == NULL
      || (grad_b = cr_mul (gas, one_minus, error)) == NULL)
    return FALSE;
  parts[0] = grad_a;
  parts[1] = grad_b;
  SET_GRAD (0, cr_cat (parts, 2, dim, error));
  return TRUE;
}

/* args.dims[0]: the dim; the input in slot 0. */
const CrOpInfo cr_op_row_GLU = {
  CR_OP_GLU, "glu", "GluBackward0", 1, "glu",
  "x = [a, b]:  ∂(a·σ(b))/∂a = σ(b),  ∂/∂b = a·σ(b)(1 − σ(b))",
  glu_backward, NULL
};

CrTensor *
cr_glu (CrTensor  *x,
        int        dim,
        GError   **error)
{
  g_autoptr(CrTensor) a = NULL;
  g_autoptr(CrTensor) b = NULL;
  g_autoptr(CrTensor) s = NULL;
  CrTensor *out = NULL;
  CrNode *node;
  gboolean was_enabled;

  if (x->ndim == 0)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "glu does not support scalars because halving size must be even");
      return NULL;
    }
  if (!cr_ops_wrap_dim (&dim, x->ndim, error))
    return NULL;
  if (x->shape[dim] % 2 != 0)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "Halving dimension must be even, but dimension %d is size %" G_GINT64_FORMAT,
                   dim, x->shape[dim]);
      return NULL;
    }
  if (!cr_dtype_is_floating (x->dtype))
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "\"glu_%s\" not implemented for '%s'",
                   x->device == CR_DEVICE_CPU ? "cpu" : "cuda", cr_dtype_scalar_name (x->dtype));
      return NULL;
    }

  was_enabled = cr_grad_mode_set_enabled (FALSE);
  if (halves (x, dim, &a, &b, error) && (s = cr_unary (CR_OP_SIGMOID, b, error)) != NULL)
    out = cr_mul (a, s, error);
  cr_grad_mode_set_enabled (was_enabled);
  if (out == NULL)
    return NULL;
  if ((node = cr_ops_record (CR_OP_GLU, &x, 1, out)) != NULL)
    {
      cr_node_args (node)->dims[0] = dim;
      cr_node_args (node)->n_dims = 1;
      cr_node_save (node, 0, x, FALSE);
    }
  return out;
}
