/* cr-ops-dropout.c — F.dropout and the feature (channel) dropouts as
 * PyTorch 1.13 composes them on the CPU: a bernoulli mask drawn from the
 * script's generator (so the same seed drops the same elements), scaled by
 * 1 / (1 - p), multiplied in (MulBackward0). */
#include "cr-ops-private.h"
#include "cr-ops-nnf.h"
#include "cr-grad-mode.h"
#include "cr-random.h"
#include "cr-cuda.h"
#include "cr-error.h"

/* x * factor, or x *= factor (x itself returned) in place. */
static CrTensor *
multiply (CrTensor  *x,
          CrTensor  *factor,
          gboolean   inplace,
          GError   **error)
{
  if (!inplace)
    return cr_mul (x, factor, error);
  if (!cr_inplace_binary (CR_OP_MUL, x, factor, error))
    return NULL;
  return cr_tensor_ref (x);
}

CrTensor *
cr_dropout (CrTensor     *x,
            double        p,
            gboolean      training,
            gboolean      feature,
            gboolean      inplace,
            CrGenerator  *gen,
            GError      **error)
{
  g_autoptr(CrTensor) noise = NULL;
  g_autoptr(CrTensor) scale = NULL;
  gint64 shape[CR_MAX_DIMS];
  gboolean was_enabled, ok;

  if (!(p >= 0.0 && p <= 1.0))
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "dropout probability has to be between 0 and 1, but got %g", p);
      return NULL;
    }
  /* PyTorch hands back the input itself. */
  if (p == 0.0 || !training || x->numel == 0)
    return cr_tensor_ref (x);
  if (feature && x->ndim < 2)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "Feature dropout requires at least 2 dimensions in the input");
      return NULL;
    }
  if (p == 1.0)
    {
      g_autoptr(CrTensor) zero = cr_tensor_new_scalar (0.0, x->dtype);
      return multiply (x, zero, inplace, error);
    }
  if (!cr_dtype_is_floating (x->dtype))
    {
      /* bernoulli_ of an integer noise tensor, then div_ into it. */
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "result type Float can't be cast to the desired output type %s",
                   cr_dtype_scalar_name (x->dtype));
      return NULL;
    }

  /* noise = empty_like(x).bernoulli_(1 - p).div_(1 - p); x * noise. A
   * feature dropout draws one value per (N, C). */
  memcpy (shape, x->shape, sizeof (gint64) * x->ndim);
  for (int d = 2; feature && d < x->ndim; d++)
    shape[d] = 1;
  noise = cr_tensor_new_empty (shape, x->ndim, x->dtype, CR_DEVICE_CPU, error);
  if (noise == NULL || !cr_random_bernoulli_ (gen, noise, 1.0 - p, error))
    return NULL;
  was_enabled = cr_grad_mode_set_enabled (FALSE);
  scale = cr_tensor_new_scalar (1.0 - p, CR_DTYPE_FLOAT64);
  scale->is_wrapped_number = TRUE;
  ok = cr_kernel_binary_into (CR_BINARY_DIV, noise, noise, scale, error);
  cr_grad_mode_set_enabled (was_enabled);
  if (!ok)
    return NULL;
  if (x->device != CR_DEVICE_CPU)
    {
      CrTensor *moved = cr_tensor_to_device (noise, x->device, error);

      cr_tensor_unref (noise);
      if ((noise = moved) == NULL)
        return NULL;
    }
  return multiply (x, noise, inplace, error);
}
