/* cr-ops-distance.c — F.normalize, F.cosine_similarity,
 * F.pairwise_distance and F.bilinear composed as PyTorch 1.13 composes them,
 * with the small ops they need: clamp_min / clamp_max (ClampMinBackward0,
 * ClampMaxBackward0), tensor + C++ scalar (AddBackward1) and _trilinear
 * (TrilinearBackward0); torch.cdist (CdistBackward0). */
#include "cr-ops-private.h"
#include "cr-ops-nnf.h"
#include "cr-grad-mode.h"
#include "cr-error.h"

#include <math.h>
#include <string.h>

/* ---- clamp_min, clamp_max ---------------------------------------------- */

/* CLAMP_MIN, CLAMP_MAX: saved[0] the input; args.scalar[0] the bound. */
static gboolean
clamp_bound_backward (CrNode          *node,
                      CrTensor *const *grad_outputs,
                      CrTensor       **grad_inputs,
                      GError         **error)
{
  gboolean is_max = node->op->id == CR_OP_CLAMP_MAX;
  g_autoptr(CrTensor) zero = cr_ops_zero_scalar_like (grad_outputs[0]);
  g_autoptr(CrTensor) mask = NULL;
  SAVED (x, 0);

  mask = cr_ops_k_num (is_max ? CR_BINARY_LE : CR_BINARY_GE, x, node->args->scalar[0], error);
  SET_GRAD (0, mask != NULL ? cr_where (mask, grad_outputs[0], zero, error) : NULL);
  return TRUE;
}

static CrTensor *
clamp_bound_local_grad (CrNode  *node,
                        guint    input,
                        GError **error)
{
  gboolean is_max = node->op->id == CR_OP_CLAMP_MAX;
  SAVED_OR_NULL (x, 0);

  return cr_ops_take_to_output (node, cr_ops_k_num (is_max ? CR_BINARY_LE : CR_BINARY_GE, x,
                                                    node->args->scalar[0], error), error);
}

const CrOpInfo cr_op_row_CLAMP_MIN = {
  CR_OP_CLAMP_MIN, "clamp_min", "ClampMinBackward0", 1, "max",
  "∂clamp_min(x)/∂x = 1 where x ≥ min, else 0", clamp_bound_backward, clamp_bound_local_grad
};

const CrOpInfo cr_op_row_CLAMP_MAX = {
  CR_OP_CLAMP_MAX, "clamp_max", "ClampMaxBackward0", 1, "min",
  "∂clamp_max(x)/∂x = 1 where x ≤ max, else 0", clamp_bound_backward, clamp_bound_local_grad
};

static CrTensor *
clamp_bound (CrOpId     op,
             CrTensor  *x,
             double     bound,
             GError   **error)
{
  gboolean is_max = op == CR_OP_CLAMP_MAX;
  CrTensor *out = cr_kernel_clamp (x, !is_max, bound, is_max, bound, error);
  CrNode *node;

  if (out != NULL && (node = cr_ops_record (op, &x, 1, out)) != NULL)
    {
      cr_node_args (node)->scalar[0] = bound;
      cr_node_args (node)->has_scalar[0] = TRUE;
      cr_node_save (node, 0, x, FALSE);
    }
  return out;
}

CrTensor *
cr_clamp_min (CrTensor  *x,
              double     min,
              GError   **error)
{
  return clamp_bound (CR_OP_CLAMP_MIN, x, min, error);
}

CrTensor *
cr_clamp_max (CrTensor  *x,
              double     max,
              GError   **error)
{
  return clamp_bound (CR_OP_CLAMP_MAX, x, max, error);
}

/* ---- tensor + scalar (C++'s at::add(Tensor, Scalar)) ---------------------- */

/* ADD_SCALAR: the gradient passes through. */
static gboolean
add_scalar_backward (CrNode          *node,
                     CrTensor *const *grad_outputs,
                     CrTensor       **grad_inputs,
                     GError         **error)
{
  grad_inputs[0] = cr_tensor_ref (grad_outputs[0]);
  return TRUE;
}

static CrTensor *
add_scalar_local_grad (CrNode  *node,
                       guint    input,
                       GError **error)
{
  return cr_ops_full_output (node, 1.0, error);
}

const CrOpInfo cr_op_row_ADD_SCALAR = {
  CR_OP_ADD_SCALAR, "add", "AddBackward1", 1, "+",
  "∂(x + c)/∂x = 1", add_scalar_backward, add_scalar_local_grad
};

CrTensor *
cr_add_scalar (CrTensor  *x,
               double     value,
               GError   **error)
{
  g_autoptr(CrTensor) c = cr_ops_wrap_number (value, FALSE);
  CrTensor *out = cr_kernel_binary (CR_BINARY_ADD, x, c, error);

  if (out != NULL)
    cr_ops_record (CR_OP_ADD_SCALAR, &x, 1, out);
  return out;
}

/* ---- normalize, cosine_similarity, pairwise_distance --------------------- */

CrTensor *
cr_normalize (CrTensor  *x,
              double     p,
              int        dim,
              double     eps,
              GError   **error)
{
  /* input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input) */
  g_autoptr(CrTensor) norm = cr_norm_dim (x, p, &dim, 1, TRUE, error);
  g_autoptr(CrTensor) clamped = norm != NULL ? cr_clamp_min (norm, eps, error) : NULL;
  g_autoptr(CrTensor) denom = clamped != NULL ? cr_expand (clamped, x->shape, x->ndim, error)
                                              : NULL;

  return denom != NULL ? cr_div (x, denom, error) : NULL;
}

CrTensor *
cr_cosine_similarity (CrTensor  *x1_in,
                      CrTensor  *x2_in,
                      int        dim,
                      double     eps,
                      GError   **error)
{
  CrDType common = cr_dtype_result_type (x1_in, x2_in);
  gint64 shape[CR_MAX_DIMS];
  int ndim;
  g_autoptr(CrTensor) a = NULL, b = NULL, x1 = NULL, x2 = NULL;
  g_autoptr(CrTensor) n1 = NULL, n2 = NULL, s1 = NULL, s2 = NULL, q1 = NULL, q2 = NULL;
  g_autoptr(CrTensor) prod = NULL;
  CrTensor *pair[2];

  if (!cr_dtype_is_floating (common))
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "expected common dtype to be floating point, yet common dtype is %s",
                   cr_dtype_scalar_name (common));
      return NULL;
    }
  if (!cr_shape_broadcast (x1_in->shape, x1_in->ndim, x2_in->shape, x2_in->ndim, shape, &ndim,
                           error))
    return NULL;
  if ((a = cr_to_dtype (x1_in, common, error)) == NULL
      || (b = cr_to_dtype (x2_in, common, error)) == NULL
      || (x1 = cr_expand (a, shape, ndim, error)) == NULL
      || (x2 = cr_expand (b, shape, ndim, error)) == NULL
      || (s1 = cr_pow_scalar (x1, 2.0, error)) == NULL
      || (n1 = cr_sum_dim (s1, &dim, 1, TRUE, error)) == NULL
      || (s2 = cr_pow_scalar (x2, 2.0, error)) == NULL
      || (n2 = cr_sum_dim (s2, &dim, 1, TRUE, error)) == NULL)
    return NULL;

  /* Under no_grad, in place: no node, and no saved tensor sees it. */
  pair[0] = n1;
  pair[1] = n2;
  for (int i = 0; i < 2; i++)
    {
      g_autoptr(CrTensor) c = cr_kernel_clamp (pair[i], TRUE, eps * eps, FALSE, 0.0, error);

      if (c == NULL || !cr_kernel_copy_into (pair[i], c, error))
        return NULL;
      cr_tensor_bump_version (pair[i]);
    }
  g_clear_pointer (&s1, cr_tensor_unref);
  g_clear_pointer (&s2, cr_tensor_unref);
  if ((s1 = cr_sqrt (n1, error)) == NULL || (s2 = cr_sqrt (n2, error)) == NULL
      || (q1 = cr_div (x1, s1, error)) == NULL || (q2 = cr_div (x2, s2, error)) == NULL
      || (prod = cr_mul (q1, q2, error)) == NULL)
    return NULL;
  return cr_sum_dim (prod, &dim, 1, FALSE, error);
}

CrTensor *
cr_pairwise_distance (CrTensor  *x1,
                      CrTensor  *x2,
                      double     p,
                      double     eps,
                      gboolean   keepdim,
                      GError   **error)
{
  int dim = MAX (x1->ndim, x2->ndim) - 1;
  g_autoptr(CrTensor) diff = cr_sub (x1, x2, error);
  g_autoptr(CrTensor) shifted = diff != NULL ? cr_add_scalar (diff, eps, error) : NULL;

  return shifted != NULL ? cr_norm_dim (shifted, p, &dim, 1, keepdim, error) : NULL;
}

/* ---- bilinear ------------------------------------------------------------ */

/* TRILINEAR: inputs i1 (N, I), weight (O, I, J), i3 (N, J); out (N, O) =
 * Σ_ij i1[n,i] w[o,i,j] i3[n,j]. Everything below is differentiable ops. */

/* (N, I, J): Σ_o g[n,o] w[o,i,j] */
static CrTensor *
grad_times_weight (CrTensor  *g,
                   CrTensor  *w,
                   GError   **error)
{
  gint64 flat[2] = { w->shape[0], w->shape[1] * w->shape[2] };
  gint64 back[3] = { g->shape[0], w->shape[1], w->shape[2] };
  g_autoptr(CrTensor) wf = cr_reshape (w, flat, 2, error);
  g_autoptr(CrTensor) m = wf != NULL ? cr_mm (g, wf, error) : NULL;

  return m != NULL ? cr_view (m, back, 3, error) : NULL;
}

static gboolean
trilinear_backward (CrNode          *node,
                    CrTensor *const *grad_outputs,
                    CrTensor       **grad_inputs,
                    GError         **error)
{
  CrTensor *g = grad_outputs[0];
  int one = 1, two = 2;
  g_autoptr(CrTensor) gw = NULL;
  SAVED (i1, 0);
  SAVED (w, 1);
  SAVED (i3, 2);

  if (cr_ops_needs_grad (node, 0) || cr_ops_needs_grad (node, 2))
    {
      gw = grad_times_weight (g, w, error);
      if (gw == NULL)
        return FALSE;
    }
  if (cr_ops_needs_grad (node, 0))
    {
      g_autoptr(CrTensor) r = cr_unsqueeze (i3, 1, error);
      g_autoptr(CrTensor) prod = r != NULL ? cr_mul (gw, r, error) : NULL;

      SET_GRAD (0, prod != NULL ? cr_sum_dim (prod, &two, 1, FALSE, error) : NULL);
    }
  if (cr_ops_needs_grad (node, 1))
    {
      gint64 flat[2] = { i1->shape[0], i1->shape[1] * i3->shape[1] };
      gint64 back[3] = { w->shape[0], w->shape[1], w->shape[2] };
      g_autoptr(CrTensor) l = cr_unsqueeze (i1, 2, error);
      g_autoptr(CrTensor) r = l != NULL ? cr_unsqueeze (i3, 1, error) : NULL;
      g_autoptr(CrTensor) outer = r != NULL ? cr_mul (l, r, error) : NULL;
      g_autoptr(CrTensor) of = outer != NULL ? cr_reshape (outer, flat, 2, error) : NULL;
      g_autoptr(CrTensor) gt = of != NULL ? cr_t (g, error) : NULL;
      g_autoptr(CrTensor) m = gt != NULL ? cr_mm (gt, of, error) : NULL;

      SET_GRAD (1, m != NULL ? cr_view (m, back, 3, error) : NULL);
    }
  if (cr_ops_needs_grad (node, 2))
    {
      g_autoptr(CrTensor) l = cr_unsqueeze (i1, 2, error);
      g_autoptr(CrTensor) prod = l != NULL ? cr_mul (gw, l, error) : NULL;

      SET_GRAD (2, prod != NULL ? cr_sum_dim (prod, &one, 1, FALSE, error) : NULL);
    }
  return TRUE;
}

const CrOpInfo cr_op_row_TRILINEAR = {
  CR_OP_TRILINEAR, "_trilinear", "TrilinearBackward0", 3, "bilinear",
  "y = x₁ᵀ A x₂:  ∂/∂x₁ = Σ G·A x₂,  ∂/∂A = Σₙ G x₁ x₂ᵀ,  ∂/∂x₂ = Σ G·x₁ᵀA",
  trilinear_backward, NULL
};

/* out (N, O) from i1 (N, I), w (O, I, J), i3 (N, J), recorded as one node. */
static CrTensor *
trilinear (CrTensor  *i1,
           CrTensor  *w,
           CrTensor  *i3,
           GError   **error)
{
  CrTensor *inputs[3] = { i1, w, i3 };
  gint64 flat[2] = { w->shape[1], w->shape[0] * w->shape[2] };
  gint64 back[3] = { i1->shape[0], w->shape[0], w->shape[2] };
  int perm[3] = { 1, 0, 2 }, two = 2;
  gboolean was_enabled = cr_grad_mode_set_enabled (FALSE);
  CrTensor *out = NULL;
  CrNode *node;

  {
    /* (i1 @ w.permute(1, 0, 2).reshape(I, O*J)).view(N, O, J) * i3[:, None] summed over J */
    g_autoptr(CrTensor) wp = cr_permute (w, perm, 3, error);
    g_autoptr(CrTensor) wf = wp != NULL ? cr_reshape (wp, flat, 2, error) : NULL;
    g_autoptr(CrTensor) m = wf != NULL ? cr_mm (i1, wf, error) : NULL;
    g_autoptr(CrTensor) mv = m != NULL ? cr_view (m, back, 3, error) : NULL;
    g_autoptr(CrTensor) r = mv != NULL ? cr_unsqueeze (i3, 1, error) : NULL;
    g_autoptr(CrTensor) prod = r != NULL ? cr_mul (mv, r, error) : NULL;

    out = prod != NULL ? cr_sum_dim (prod, &two, 1, FALSE, error) : NULL;
  }
  cr_grad_mode_set_enabled (was_enabled);
  if (out != NULL && (node = cr_ops_record (CR_OP_TRILINEAR, inputs, 3, out)) != NULL)
    {
      cr_node_save (node, 0, i1, FALSE);
      cr_node_save (node, 1, w, FALSE);
      cr_node_save (node, 2, i3, FALSE);
    }
  return out;
}

CrTensor *
cr_bilinear (CrTensor  *input1,
             CrTensor  *input2,
             CrTensor  *weight,
             CrTensor  *bias,
             GError   **error)
{
  gint64 out_shape[CR_MAX_DIMS], flat1[2], flat2[2];
  g_autoptr(CrTensor) f1 = NULL, f2 = NULL, t = NULL, out = NULL;
  int n = input1->ndim;

  if (input1->ndim != input2->ndim)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "bilinear(): input dimensions do not match: got %d and %d",
                   input1->ndim, input2->ndim);
      return NULL;
    }
  for (int i = 0; i < n - 1; i++)
    if (input1->shape[i] != input2->shape[i])
      {
        g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                     "bilinear(): input batch dimensions do not match at dim %d: got %"
                     G_GINT64_FORMAT " and %" G_GINT64_FORMAT, i, input1->shape[i],
                     input2->shape[i]);
        return NULL;
      }
  if (n < 1 || weight->ndim != 3)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "bilinear(): Chainrule expects inputs of at least 1 dim and a "
                           "3-dim weight");
      return NULL;
    }
  if (input1->shape[n - 1] != weight->shape[1] || input2->shape[n - 1] != weight->shape[2])
    {
      gboolean first = input1->shape[n - 1] != weight->shape[1];

      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "bilinear(): input%d size does not match weight size: got %" G_GINT64_FORMAT
                   " but expected %" G_GINT64_FORMAT, first ? 1 : 2,
                   first ? input1->shape[n - 1] : input2->shape[n - 1],
                   weight->shape[first ? 1 : 2]);
      return NULL;
    }
  if (bias != NULL && (bias->ndim < 1 || bias->shape[0] != weight->shape[0]))
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "bilinear(): bias size does not match weight size: got %" G_GINT64_FORMAT
                   " but expected %" G_GINT64_FORMAT, bias->ndim > 0 ? bias->shape[0] : 1,
                   weight->shape[0]);
      return NULL;
    }

  memcpy (out_shape, input1->shape, sizeof (gint64) * (n - 1));
  out_shape[n - 1] = weight->shape[0];
  flat1[0] = -1;
  flat1[1] = input1->shape[n - 1];
  flat2[0] = -1;
  flat2[1] = input2->shape[n - 1];
  if ((f1 = cr_reshape (input1, flat1, 2, error)) == NULL
      || (f2 = cr_reshape (input2, flat2, 2, error)) == NULL
      || (t = trilinear (f1, weight, f2, error)) == NULL
      || (out = cr_reshape (t, out_shape, n, error)) == NULL)
    return NULL;
  if (bias == NULL)
    return g_steal_pointer (&out);
  return cr_add (out, bias, error);
}

/* ---- cdist --------------------------------------------------------------- */

/* diff (..., P, R, M) = x1[..., :, None, :] - x2[..., None, :, :], recorded
 * when grad mode is on. */
static CrTensor *
pair_differences (CrTensor  *x1,
                  CrTensor  *x2,
                  GError   **error)
{
  g_autoptr(CrTensor) a = cr_unsqueeze (x1, -2, error);
  g_autoptr(CrTensor) b = a != NULL ? cr_unsqueeze (x2, -3, error) : NULL;

  return b != NULL ? cr_sub (a, b, error) : NULL;
}

/* The p-distances over the last dim of diff (p = 0 counts, p = inf the
 * largest), recorded when grad mode is on. */
static CrTensor *
p_distances (CrTensor  *diff,
             double     p,
             GError   **error)
{
  int last = -1;

  if (p == 0.0)
    {
      g_autoptr(CrTensor) zero = cr_ops_wrap_number (0.0, FALSE);
      g_autoptr(CrTensor) nz = cr_binary_nograd (CR_BINARY_NE, diff, zero, error);
      g_autoptr(CrTensor) n = nz != NULL ? cr_kernel_sum (nz, &last, 1, FALSE, error) : NULL;

      return n != NULL ? cr_kernel_cast (n, diff->dtype, error) : NULL;
    }
  if (isinf (p))
    {
      g_autoptr(CrTensor) mag = cr_unary (CR_OP_ABS, diff, error);

      return mag != NULL ? cr_amax (mag, &last, 1, FALSE, error) : NULL;
    }
  return cr_norm_dim (diff, p, &last, 1, FALSE, error);
}

/* The gradient of cdist(xa, xb, p) for xa, given g (..., A, B):
 * Σ_b g · ∂d/∂diff with diff = xa[a] − xb[b] and
 * ∂d/∂diff = sign(diff)·|diff|^(p-1) / d^(p-1) (0 where d = 0), all in
 * differentiable ops, the distances recomputed. PyTorch computes x2's
 * gradient the same way with the roles swapped (so a zero is +0, not −0). */
static CrTensor *
cdist_grad_first (CrTensor  *xa,
                  CrTensor  *xb,
                  CrTensor  *grad,
                  double     p,
                  GError   **error)
{
  g_autoptr(CrTensor) diff = NULL, dist = NULL, local = NULL, g = NULL, gd = NULL;
  g_autoptr(CrTensor) zero = cr_ops_zero_scalar_like (grad);
  int b_dim = -2;

  if ((diff = pair_differences (xa, xb, error)) == NULL
      || (dist = p_distances (diff, p, error)) == NULL
      || (g = cr_unsqueeze (grad, -1, error)) == NULL)
    return NULL;
  if (p == 0.0)
    local = cr_mul (diff, zero, error);
  else if (isinf (p))
    {
      /* sign(diff) where |diff| is the largest */
      g_autoptr(CrTensor) mag = cr_unary (CR_OP_ABS, diff, error);
      g_autoptr(CrTensor) d = mag != NULL ? cr_unsqueeze (dist, -1, error) : NULL;
      g_autoptr(CrTensor) top = d != NULL ? cr_binary_nograd (CR_BINARY_EQ, mag, d, error) : NULL;
      g_autoptr(CrTensor) sign = top != NULL ? cr_unary (CR_OP_SIGN, diff, error) : NULL;

      local = sign != NULL ? cr_where (top, sign, zero, error) : NULL;
    }
  else
    {
      g_autoptr(CrTensor) d = cr_unsqueeze (dist, -1, error);
      g_autoptr(CrTensor) positive = d != NULL ? cr_ops_k_num (CR_BINARY_GT, d, 0.0, error) : NULL;
      g_autoptr(CrTensor) one = cr_ops_wrap_number (1.0, FALSE);
      /* d where positive, 1 elsewhere: no division by zero, even in the branch not taken */
      g_autoptr(CrTensor) safe = positive != NULL ? cr_where (positive, d, one, error) : NULL;
      g_autoptr(CrTensor) num = NULL, den = NULL, ratio = NULL;

      if (safe == NULL)
        return NULL;
      if (p == 1.0)
        num = cr_unary (CR_OP_SIGN, diff, error);
      else if (p == 2.0)
        num = cr_tensor_ref (diff);
      else
        {
          /* |diff| with 1 where diff = 0, whose sign then zeroes the term: no
           * 0 ** (p - 1) = inf for p < 1, in this or a second derivative */
          g_autoptr(CrTensor) mag = cr_unary (CR_OP_ABS, diff, error);
          g_autoptr(CrTensor) nonzero = mag != NULL ? cr_ops_k_num (CR_BINARY_GT, mag, 0.0, error)
                                                    : NULL;
          g_autoptr(CrTensor) mag_safe = nonzero != NULL ? cr_where (nonzero, mag, one, error)
                                                         : NULL;
          g_autoptr(CrTensor) powed = mag_safe != NULL ? cr_pow_scalar (mag_safe, p - 1.0, error)
                                                       : NULL;
          g_autoptr(CrTensor) sign = powed != NULL ? cr_unary (CR_OP_SIGN, diff, error) : NULL;

          num = sign != NULL ? cr_mul (sign, powed, error) : NULL;
        }
      if (num == NULL)
        return NULL;
      if (p == 1.0)
        ratio = cr_tensor_ref (num);
      else
        {
          den = p == 2.0 ? cr_tensor_ref (safe) : cr_pow_scalar (safe, p - 1.0, error);
          ratio = den != NULL ? cr_div (num, den, error) : NULL;
        }
      local = ratio != NULL ? cr_where (positive, ratio, zero, error) : NULL;
    }
  if (local == NULL || (gd = cr_mul (g, local, error)) == NULL)
    return NULL;
  return cr_sum_dim (gd, &b_dim, 1, FALSE, error);
}

/* CDIST: inputs (x1, x2); args.scalar[0] p. */
static gboolean
cdist_backward (CrNode          *node,
                CrTensor *const *grad_outputs,
                CrTensor       **grad_inputs,
                GError         **error)
{
  double p = node->args->scalar[0];
  SAVED (x1, 0);
  SAVED (x2, 1);

  if (cr_ops_needs_grad (node, 0))
    {
      g_autoptr(CrTensor) s = cdist_grad_first (x1, x2, grad_outputs[0], p, error);

      SET_GRAD (0, s != NULL ? cr_sum_to_shape (s, node->input_meta[0].shape,
                                                node->input_meta[0].ndim, error) : NULL);
    }
  if (cr_ops_needs_grad (node, 1))
    {
      g_autoptr(CrTensor) gt = cr_transpose (grad_outputs[0], -1, -2, error);
      g_autoptr(CrTensor) s = gt != NULL ? cdist_grad_first (x2, x1, gt, p, error) : NULL;

      SET_GRAD (1, s != NULL ? cr_sum_to_shape (s, node->input_meta[1].shape,
                                                node->input_meta[1].ndim, error) : NULL);
    }
  return TRUE;
}

const CrOpInfo cr_op_row_CDIST = {
  CR_OP_CDIST, "cdist", "CdistBackward0", 2, "cdist",
  "d = ‖x₁ᵢ − x₂ⱼ‖ₚ:  ∂d/∂x₁ᵢ = sign(δ)|δ|ᵖ⁻¹ / dᵖ⁻¹,  ∂d/∂x₂ⱼ = −(the same)",
  cdist_backward, NULL
};

CrTensor *
cr_cdist (CrTensor  *x1,
          CrTensor  *x2,
          double     p,
          GError   **error)
{
  CrTensor *inputs[2] = { x1, x2 };
  CrTensor *out = NULL;
  gboolean was_enabled;
  CrNode *node;

  if (x1->ndim < 2 || x2->ndim < 2)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "cdist only supports at least 2D tensors, X%d got: %dD",
                   x1->ndim < 2 ? 1 : 2, x1->ndim < 2 ? x1->ndim : x2->ndim);
      return NULL;
    }
  if (x1->shape[x1->ndim - 1] != x2->shape[x2->ndim - 1])
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "X1 and X2 must have the same number of columns. X1: %" G_GINT64_FORMAT
                   " X2: %" G_GINT64_FORMAT, x1->shape[x1->ndim - 1], x2->shape[x2->ndim - 1]);
      return NULL;
    }
  if (!cr_dtype_is_floating (x1->dtype) || !cr_dtype_is_floating (x2->dtype))
    {
      gboolean first = !cr_dtype_is_floating (x1->dtype);

      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "cdist only supports floating-point dtypes, X%d got: %s", first ? 1 : 2,
                   cr_dtype_scalar_name ((first ? x1 : x2)->dtype));
      return NULL;
    }
  if (!(p >= 0.0))
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "cdist only supports non-negative p values");
      return NULL;
    }
  if (x1->ndim + 1 > CR_MAX_DIMS || x2->ndim + 1 > CR_MAX_DIMS)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "cdist: tensors of more than %d dims are not supported by Chainrule",
                   CR_MAX_DIMS - 1);
      return NULL;
    }
  was_enabled = cr_grad_mode_set_enabled (FALSE);
  {
    g_autoptr(CrTensor) diff = pair_differences (x1, x2, error);

    out = diff != NULL ? p_distances (diff, p, error) : NULL;
  }
  cr_grad_mode_set_enabled (was_enabled);
  if (out != NULL && (node = cr_ops_record (CR_OP_CDIST, inputs, 2, out)) != NULL)
    {
      cr_node_args (node)->scalar[0] = p;
      cr_node_save (node, 0, x1, FALSE);
      cr_node_save (node, 1, x2, FALSE);
      /* Not read: kept as PyTorch's node keeps it (_saved_result). */
      cr_node_save (node, 2, out, TRUE);
    }
  return out;
}
