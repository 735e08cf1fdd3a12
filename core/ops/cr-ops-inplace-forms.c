/* cr-ops-inplace-forms.c — in-place forms of ops that compute out of place:
 * addmm_, addmv_, addr_, baddbmm_, addbmm_ (their own grad_fn, AddmmBackward0
 * ...) and cumsum_, cumprod_ (CumsumBackward0, CumprodBackward0).
 *
 * Each computes the op's result without a graph, writes it into self and
 * then records the op's node over self's history before the write, as
 * PyTorch's in-place kernels with rebase_history do (through CopySlices when
 * self is a view). */
#include "cr-ops-private.h"

#include "cr-error.h"
#include "cr-grad-mode.h"

/* out written into self: PyTorch's check that the shapes agree, then the
 * copy and the version bump. Takes out. */
static gboolean
write_result (CrTensor  *self,
              CrTensor  *out,
              GError   **error)
{
  g_autoptr(CrTensor) owned = out;

  if (owned == NULL)
    return FALSE;
  if (!cr_shape_equal (self->shape, self->ndim, owned->shape, owned->ndim))
    {
      g_autofree char *in = cr_shape_to_string (self->shape, self->ndim);
      g_autofree char *res = cr_shape_to_string (owned->shape, owned->ndim);

      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "Bad in-place call: input tensor size %s and output tensor size %s should match",
                   in, res);
      return FALSE;
    }
  if (!cr_kernel_copy_into (self, owned, error))
    return FALSE;
  cr_tensor_bump_version (self);
  return TRUE;
}

gboolean
cr_scaled_product_ (CrOpId            op,
                    CrScaledProductFn product,
                    CrTensor         *self,
                    CrTensor         *a,
                    CrTensor         *b,
                    double            beta,
                    double            alpha,
                    GError          **error)
{
  CrTensor *inputs[3] = { self, a, b };
  CrTensor *out;
  gboolean was;
  CrNode *node;

  if (!cr_autograd_check_inplace_rules (self, error))
    return FALSE;
  was = cr_grad_mode_set_enabled (FALSE);
  out = product (self, a, b, beta, alpha, error);
  cr_grad_mode_set_enabled (was);
  if (!write_result (self, out, error))
    return FALSE;
  if ((node = cr_ops_rebase_history (op, inputs, 3)) != NULL)
    cr_ops_keep_scaled_product (node, inputs, beta, alpha);
  return TRUE;
}

gboolean
cr_cumulative_ (CrTensor  *self,
                int        dim,
                gboolean   product,
                GError   **error)
{
  g_autoptr(CrTensor) old_self = NULL;
  CrTensor *out;
  gboolean was;
  CrNode *node;

  if (!cr_autograd_check_inplace_rules (self, error) || !cr_ops_wrap_dim (&dim, self->ndim, error))
    return FALSE;
  /* cumprod's formula reads self as it was: PyTorch's original_self =
   * self.clone(), recorded. */
  if (product && cr_autograd_should_record (&self, 1) && (old_self = cr_clone (self, error)) == NULL)
    return FALSE;
  was = cr_grad_mode_set_enabled (FALSE);
  out = product ? cr_cumprod (self, dim, error) : cr_cumsum (self, dim, error);
  cr_grad_mode_set_enabled (was);
  if (!write_result (self, out, error))
    return FALSE;
  if ((node = cr_ops_rebase_history (product ? CR_OP_CUMPROD : CR_OP_CUMSUM, &self, 1)) != NULL)
    {
      cr_node_args (node)->dims[0] = dim;
      if (product)
        {
          g_autoptr(CrTensor) value = cr_tensor_alias (self);

          cr_node_save (node, 0, old_self, FALSE);
          cr_node_save (node, 1, self->grad_fn == node ? self : value, self->grad_fn == node);
        }
    }
  return TRUE;
}
