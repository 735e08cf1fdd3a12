/* cr-ops-unflatten.c — Tensor.unflatten(dim, sizes): a view
 * (ViewBackward0) with one size inferred from -1, and PyTorch 1.13's
 * messages. */
#include "cr-ops-private.h"
#include "cr-ops-nnf.h"
#include "cr-error.h"

CrTensor *
cr_unflatten (CrTensor      *x,
              int            dim,
              const gint64  *sizes,
              int            n,
              GError       **error)
{
  gint64 shape[CR_MAX_DIMS + CR_MAX_DIMS], inferred[CR_MAX_DIMS], known = 1;
  int infer = -1, k = 0;

  if (!cr_ops_wrap_dim (&dim, x->ndim, error))
    return NULL;
  if (n == 0)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "unflatten: sizes must be non-empty");
      return NULL;
    }
  if (x->ndim - 1 + n > CR_MAX_DIMS)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "tensors with more than %d dimensions are not supported", CR_MAX_DIMS);
      return NULL;
    }
  for (int i = 0; i < n; i++)
    {
      inferred[i] = sizes[i];
      if (sizes[i] == -1 && infer == -1)
        infer = i;
      else if (sizes[i] == -1)
        {
          g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                               "unflatten got an unexpected error:");
          return NULL;
        }
      else
        known *= sizes[i];
    }
  if (infer >= 0 && known != 0 && x->ndim > 0 && x->shape[dim] % known == 0)
    inferred[infer] = x->shape[dim] / known;
  if (x->ndim == 0 || cr_shape_numel (inferred, n) != x->shape[dim] || inferred[MAX (infer, 0)] < 0)
    {
      g_autofree char *s = cr_shape_to_string (sizes, n);

      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "unflatten: Provided sizes %s don't multiply up to the size of dim %d (%"
                   G_GINT64_FORMAT ") in the input tensor", s, dim,
                   x->ndim > 0 ? x->shape[dim] : 1);
      return NULL;
    }
  for (int d = 0; d < x->ndim; d++)
    if (d == dim)
      for (int i = 0; i < n; i++)
        shape[k++] = inferred[i];
    else
      shape[k++] = x->shape[d];
  return cr_view (x, shape, k, error);
}
