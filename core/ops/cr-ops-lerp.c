/* cr-ops-lerp.c — torch.lerp(self, end, weight): self + weight·(end − self),
 * with a number weight (LerpBackward0) or a tensor one (LerpBackward1), and
 * lerp_ in place (an exponential moving average's update).
 *
 * PyTorch 1.13 computes it as self + w·(end − self) where w < 0.5 and as
 * end − (end − self)·(1 − w) elsewhere, which keeps the ends exact; the
 * same float operations here, from binary kernels and where, so CUDA has
 * them too. */
#include "cr-ops-private.h"

#include "cr-error.h"

/* ---- the forward (kernels only) ----------------------------------------- */

/* The number weight as the kernel's dtype holds it, and 1 − weight computed
 * in that dtype, as PyTorch's opmath does. */
static void
number_weights (CrDType  dtype,
                double   weight,
                double  *w,
                double  *one_minus_w)
{
  if (dtype == CR_DTYPE_FLOAT32)
    {
      float wf = (float) weight;

      *w = wf;
      *one_minus_w = 1.0f - wf;
    }
  else
    {
      *w = weight;
      *one_minus_w = 1.0 - weight;
    }
}

static CrTensor *
lerp_number_kernel (const CrTensor  *self,
                    const CrTensor  *end,
                    double           weight,
                    GError         **error)
{
  double w, one_minus_w;
  g_autoptr(CrTensor) diff = cr_kernel_binary (CR_BINARY_SUB, end, self, error);
  g_autoptr(CrTensor) scaled = NULL;

  if (diff == NULL)
    return NULL;
  number_weights (diff->dtype, weight, &w, &one_minus_w);
  if (weight < 0.5)
    {
      scaled = cr_ops_k_num (CR_BINARY_MUL, diff, w, error);
      return scaled != NULL ? cr_kernel_binary (CR_BINARY_ADD, self, scaled, error) : NULL;
    }
  scaled = cr_ops_k_num (CR_BINARY_MUL, diff, one_minus_w, error);
  return scaled != NULL ? cr_kernel_binary (CR_BINARY_SUB, end, scaled, error) : NULL;
}

static CrTensor *
lerp_tensor_kernel (const CrTensor  *self,
                    const CrTensor  *end,
                    const CrTensor  *weight,
                    GError         **error)
{
  g_autoptr(CrTensor) diff = cr_kernel_binary (CR_BINARY_SUB, end, self, error);
  g_autoptr(CrTensor) to_self = NULL;
  g_autoptr(CrTensor) one_minus_w = NULL;
  g_autoptr(CrTensor) to_end = NULL;
  g_autoptr(CrTensor) low = NULL;
  g_autoptr(CrTensor) high = NULL;
  g_autoptr(CrTensor) first_half = NULL;

  if (diff == NULL
      || (to_self = cr_kernel_binary (CR_BINARY_MUL, weight, diff, error)) == NULL
      || (low = cr_kernel_binary (CR_BINARY_ADD, self, to_self, error)) == NULL
      || (one_minus_w = cr_ops_k_rnum (CR_BINARY_SUB, 1.0, weight, error)) == NULL
      || (to_end = cr_kernel_binary (CR_BINARY_MUL, diff, one_minus_w, error)) == NULL
      || (high = cr_kernel_binary (CR_BINARY_SUB, end, to_end, error)) == NULL
      || (first_half = cr_ops_k_num (CR_BINARY_LT, weight, 0.5, error)) == NULL)
    return NULL;
  return cr_kernel_where (first_half, low, high, error);
}

/* PyTorch's checks: floats only, end and weight of self's dtype. */
static gboolean
check_lerp (const CrTensor  *self,
            const CrTensor  *end,
            const CrTensor  *weight,
            GError         **error)
{
  const CrTensor *other = end->dtype != self->dtype ? end : weight;

  if (!cr_dtype_is_floating (self->dtype))
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "\"lerp_kernel_%s\" not implemented for '%s'", weight != NULL ? "tensor" : "scalar",
                   cr_dtype_scalar_name (self->dtype));
      return FALSE;
    }
  if (other != NULL && other->dtype != self->dtype)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "expected dtype %s for `%s` but got dtype %s", cr_dtype_short_name (self->dtype),
                   other == end ? "end" : "weight", cr_dtype_short_name (other->dtype));
      return FALSE;
    }
  return TRUE;
}

/* ---- the nodes ------------------------------------------------------------ */

/* LERP_SCALAR: inputs (self, end); args.scalar[0]: the weight. LERP:
 * inputs (self, end, weight), all three saved. */
static gboolean
lerp_backward (CrNode          *node,
               CrTensor *const *grads,
               CrTensor       **grad_inputs,
               GError         **error)
{
  if (node->op->id == CR_OP_LERP_SCALAR)
    {
      double weight = node->args->scalar[0];

      if (cr_ops_needs_grad (node, 0))
        SET_GRAD (0, cr_ops_mul_number (grads[0], 1.0 - weight, error));
      if (cr_ops_needs_grad (node, 1))
        SET_GRAD (1, cr_ops_mul_number (grads[0], weight, error));
      return TRUE;
    }
  {
    SAVED (self, 0);
    SAVED (end, 1);
    SAVED (weight, 2);

    if (cr_ops_needs_grad (node, 0))
      {
        g_autoptr(CrTensor) one_minus_w = cr_rsub_scalar (weight, 1.0, error);

        SET_GRAD (0, one_minus_w != NULL ? cr_mul (grads[0], one_minus_w, error) : NULL);
      }
    if (cr_ops_needs_grad (node, 1))
      SET_GRAD (1, cr_mul (grads[0], weight, error));
    if (cr_ops_needs_grad (node, 2))
      {
        g_autoptr(CrTensor) diff = cr_sub (end, self, error);

        SET_GRAD (2, diff != NULL ? cr_mul (grads[0], diff, error) : NULL);
      }
  }
  return TRUE;
}

const CrOpInfo cr_op_row_LERP_SCALAR = {
  CR_OP_LERP_SCALAR, "lerp", "LerpBackward0", 2, "lerp",
  "∂lerp(a, b, w)/∂a = 1 − w,  ∂/∂b = w", lerp_backward, NULL
};

const CrOpInfo cr_op_row_LERP = {
  CR_OP_LERP, "lerp", "LerpBackward1", 3, "lerp",
  "∂lerp(a, b, w)/∂a = 1 − w,  ∂/∂b = w,  ∂/∂w = b − a", lerp_backward, NULL
};

static void
keep (CrNode   *node,
      CrTensor *self,
      CrTensor *end,
      CrTensor *weight,
      double    number)
{
  if (weight == NULL)
    {
      cr_node_args (node)->scalar[0] = number;
      cr_node_args (node)->has_scalar[0] = TRUE;
      return;
    }
  cr_node_save (node, 0, self, FALSE);
  cr_node_save (node, 1, end, FALSE);
  cr_node_save (node, 2, weight, FALSE);
}

CrTensor *
cr_lerp (CrTensor  *self,
         CrTensor  *end,
         CrTensor  *weight,
         double     number,
         GError   **error)
{
  CrTensor *inputs[3] = { self, end, weight };
  CrTensor *out;
  CrNode *node;

  if (!check_lerp (self, end, weight, error))
    return NULL;
  out = weight != NULL ? lerp_tensor_kernel (self, end, weight, error)
                       : lerp_number_kernel (self, end, number, error);
  if (out != NULL
      && (node = cr_ops_record (weight != NULL ? CR_OP_LERP : CR_OP_LERP_SCALAR, inputs,
                                weight != NULL ? 3 : 2, out)) != NULL)
    keep (node, self, end, weight, number);
  return out;
}

gboolean
cr_lerp_ (CrTensor  *self,
          CrTensor  *end,
          CrTensor  *weight,
          double     number,
          GError   **error)
{
  CrTensor *inputs[3] = { self, end, weight };
  guint n_inputs = weight != NULL ? 3 : 2;
  g_autoptr(CrTensor) old_self = NULL;
  g_autoptr(CrTensor) out = NULL;
  CrNode *node;

  if (!check_lerp (self, end, weight, error) || !cr_autograd_check_inplace_rules (self, error))
    return FALSE;
  /* The tensor weight's gradient reads self as it was. */
  if (weight != NULL && cr_autograd_should_record (inputs, n_inputs)
      && (old_self = cr_clone (self, error)) == NULL)
    return FALSE;
  out = weight != NULL ? lerp_tensor_kernel (self, end, weight, error)
                       : lerp_number_kernel (self, end, number, error);
  if (out == NULL || !cr_kernel_copy_into (self, out, error))
    return FALSE;
  cr_tensor_bump_version (self);
  if ((node = cr_ops_rebase_history (weight != NULL ? CR_OP_LERP : CR_OP_LERP_SCALAR, inputs,
                                     n_inputs)) != NULL)
    keep (node, old_self, end, weight, number);
  return TRUE;
}
