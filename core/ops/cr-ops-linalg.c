/* cr-ops-linalg.c — mm, mv, dot, bmm and torch.matmul's dispatch among them.
 *
 * matmul follows PyTorch 1.13's _matmul_impl step by step (unsqueeze + mm +
 * squeeze_ for a vector on the left, folding a batch into mm rows, expand +
 * reshape + bmm + _unsafe_view otherwise) so that a script sees the same
 * grad_fn chain. Backward formulas are products with transposed views, which
 * the BLAS kernel takes without copying.
 */
#include "cr-ops-private.h"
#include "cr-error.h"
#include "cr-shape-rules.h"
#include "cr-grad-mode.h"

#include <string.h>

/* ---- helpers ------------------------------------------------------------ */

static gboolean
check_same_dtype (const CrTensor  *a,
                  const CrTensor  *b,
                  const char      *bool_kernel,
                  GError         **error)
{
  if (a->dtype != b->dtype)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "expected scalar type %s but found %s",
                   cr_dtype_scalar_name (a->dtype), cr_dtype_scalar_name (b->dtype));
      return FALSE;
    }
  if (a->dtype == CR_DTYPE_BOOL)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "\"%s\" not implemented for 'Bool'", bool_kernel);
      return FALSE;
    }
  return TRUE;
}

/* The BLAS kernels are floating point only; integer products (exact below
 * 2^53) go through float64. */
static CrTensor *
kernel_product (const CrTensor  *a,
                const CrTensor  *b,
                gboolean         batched,
                GError         **error)
{
  g_autoptr(CrTensor) da = NULL;
  g_autoptr(CrTensor) db = NULL;
  g_autoptr(CrTensor) prod = NULL;

  if (cr_dtype_is_floating (a->dtype))
    return batched ? cr_kernel_bmm (a, b, error) : cr_kernel_mm (a, b, error);

  da = cr_kernel_cast (a, CR_DTYPE_FLOAT64, error);
  db = da != NULL ? cr_kernel_cast (b, CR_DTYPE_FLOAT64, error) : NULL;
  if (db == NULL)
    return NULL;
  prod = batched ? cr_kernel_bmm (da, db, error) : cr_kernel_mm (da, db, error);
  if (prod == NULL)
    return NULL;
  return cr_kernel_cast (prod, a->dtype, error);
}

/* A plain (non-view) tensor over t's storage with another geometry: for
 * reshaping a fresh kernel result. */
static CrTensor *
regeometry (CrTensor     *t,
            const gint64 *shape,
            int           ndim)
{
  gint64 strides[CR_MAX_DIMS];

  cr_shape_contiguous_strides (shape, ndim, strides);
  return cr_tensor_new_view (t, shape, ndim, strides, t->offset);
}

/* Records op over (a, b) on out when needed: a product's gradient for one
 * operand needs only the other, so a is saved (slot 0) when b needs grad and
 * b (slot 1) when a does. */
static void
record_product (CrOpId    op,
                CrTensor *a,
                CrTensor *b,
                CrTensor *out)
{
  CrTensor *inputs[2] = { a, b };
  CrNode *node;

  if (!cr_autograd_should_record (inputs, 2))
    return;
  node = cr_node_new (op, inputs, 2, 1);
  if (cr_ops_needs_grad (node, 1))
    cr_node_save (node, 0, a, FALSE);
  if (cr_ops_needs_grad (node, 0))
    cr_node_save (node, 1, b, FALSE);
  cr_ops_attach (out, node);
}

/* ---- mm ------------------------------------------------------------------- */

/* Shared by mm and bmm (batched): inputs (a, b); saved[0] a (when b needs
 * grad), saved[1] b (when a does). The gradients are products with the other
 * operand transposed over its last two dims. */
static gboolean
product_backward (CrNode          *node,
                  CrTensor        *grad,
                  gboolean         batched,
                  CrTensor       **grad_inputs,
                  GError         **error)
{
  for (int i = 0; i < 2; i++)
    {
      g_autoptr(CrTensor) other = NULL;
      g_autoptr(CrTensor) other_t = NULL;
      CrTensor *lhs, *rhs;

      if (!cr_ops_needs_grad (node, i))
        continue;
      other = cr_node_get_saved (node, 1 - i, error);
      if (other == NULL)
        return FALSE;
      other_t = batched ? cr_transpose (other, 1, 2, error) : cr_t (other, error);
      if (other_t == NULL)
        return FALSE;
      lhs = i == 0 ? grad : other_t;
      rhs = i == 0 ? other_t : grad;
      grad_inputs[i] = batched ? cr_bmm (lhs, rhs, error) : cr_mm (lhs, rhs, error);
      if (grad_inputs[i] == NULL)
        return FALSE;
    }
  return TRUE;
}

/* Checks dtypes, multiplies and records: the part of mm and bmm after their
 * shape checks. */
static CrTensor *
product_forward (CrOpId      op,
                 CrTensor   *a,
                 CrTensor   *b,
                 const char *bool_kernel,
                 GError    **error)
{
  CrTensor *out;

  if (!check_same_dtype (a, b, bool_kernel, error))
    return NULL;
  out = kernel_product (a, b, op == CR_OP_BMM, error);
  if (out == NULL)
    return NULL;
  record_product (op, a, b, out);
  return out;
}

static gboolean
mm_backward (CrNode          *node,
             CrTensor *const *grad_outputs,
             CrTensor       **grad_inputs,
             GError         **error)
{
  return product_backward (node, grad_outputs[0], FALSE, grad_inputs, error);
}

const CrOpInfo cr_op_row_MM = {
  CR_OP_MM, "mm", "MmBackward0", 2, "@",
  "∂C/∂A = G·Bᵀ,  ∂C/∂B = Aᵀ·G", mm_backward, NULL
};

CrTensor *
cr_mm (CrTensor  *a,
       CrTensor  *b,
       GError   **error)
{
  gint64 shape[2];

  if (!cr_shape_check_mm (a, b, shape, error))
    return NULL;
  return product_forward (CR_OP_MM, a, b, "addmm_impl_cpu_", error);
}

/* ---- mv ------------------------------------------------------------------- */

/* MV: inputs (a, v); saved[0] a (when v needs grad), saved[1] v (when a does). */
static gboolean
mv_backward (CrNode          *node,
             CrTensor *const *grad_outputs,
             CrTensor       **grad_inputs,
             GError         **error)
{
  CrTensor *grad = grad_outputs[0];

  if (cr_ops_needs_grad (node, 0))
    {
      /* The outer product grad ⊗ v, as (n, 1) @ (1, k). */
      g_autoptr(CrTensor) v = cr_node_get_saved (node, 1, error);
      g_autoptr(CrTensor) col = NULL;
      g_autoptr(CrTensor) row = NULL;

      if (v == NULL
          || (col = cr_unsqueeze (grad, 1, error)) == NULL
          || (row = cr_unsqueeze (v, 0, error)) == NULL
          || (grad_inputs[0] = cr_mm (col, row, error)) == NULL)
        return FALSE;
    }
  if (cr_ops_needs_grad (node, 1))
    {
      g_autoptr(CrTensor) a = cr_node_get_saved (node, 0, error);
      g_autoptr(CrTensor) at = a != NULL ? cr_t (a, error) : NULL;

      if (at == NULL || (grad_inputs[1] = cr_mv (at, grad, error)) == NULL)
        return FALSE;
    }
  return TRUE;
}

const CrOpInfo cr_op_row_MV = {
  CR_OP_MV, "mv", "MvBackward0", 2, "@",
  "∂(A·v)/∂A = G ⊗ v,  ∂(A·v)/∂v = Aᵀ·G", mv_backward, NULL
};

CrTensor *
cr_mv (CrTensor  *a,
       CrTensor  *v,
       GError   **error)
{
  g_autoptr(CrTensor) col = NULL;
  g_autoptr(CrTensor) prod = NULL;
  gint64 col_shape[2], col_strides[2];
  CrTensor *out;

  if (a->ndim != 2 || v->ndim != 1)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "vector + matrix @ vector expected, got 1, %d, %d", a->ndim, v->ndim);
      return NULL;
    }
  if (a->shape[1] != v->shape[0])
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "size mismatch, got %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT "x%"
                   G_GINT64_FORMAT ",%" G_GINT64_FORMAT,
                   a->shape[0], a->shape[0], a->shape[1], v->shape[0]);
      return NULL;
    }
  if (!check_same_dtype (a, v, "addmv_impl_cpu", error))
    return NULL;

  col_shape[0] = v->shape[0];
  col_shape[1] = 1;
  col_strides[0] = v->strides[0];
  col_strides[1] = 1;
  col = cr_tensor_new_view (v, col_shape, 2, col_strides, v->offset);
  prod = kernel_product (a, col, FALSE, error);
  if (prod == NULL)
    return NULL;
  out = regeometry (prod, a->shape, 1);

  record_product (CR_OP_MV, a, v, out);
  return out;
}

/* ---- dot ------------------------------------------------------------------ */

/* DOT: inputs (a, b); saved[0] a (when b needs grad), saved[1] b (when a does). */
static gboolean
dot_backward (CrNode          *node,
              CrTensor *const *grad_outputs,
              CrTensor       **grad_inputs,
              GError         **error)
{
  CrTensor *grad = grad_outputs[0];

  if (cr_ops_needs_grad (node, 0))
    {
      g_autoptr(CrTensor) b = cr_node_get_saved (node, 1, error);
      if (b == NULL || (grad_inputs[0] = cr_mul (grad, b, error)) == NULL)
        return FALSE;
    }
  if (cr_ops_needs_grad (node, 1))
    {
      g_autoptr(CrTensor) a = cr_node_get_saved (node, 0, error);
      if (a == NULL || (grad_inputs[1] = cr_mul (grad, a, error)) == NULL)
        return FALSE;
    }
  return TRUE;
}

const CrOpInfo cr_op_row_DOT = {
  CR_OP_DOT, "dot", "DotBackward0", 2, "·",
  "∂(a·b)/∂a = G·b,  ∂(a·b)/∂b = G·a", dot_backward, NULL
};

CrTensor *
cr_dot (CrTensor  *a,
        CrTensor  *b,
        GError   **error)
{
  g_autoptr(CrTensor) row = NULL;
  g_autoptr(CrTensor) col = NULL;
  g_autoptr(CrTensor) prod = NULL;
  gint64 shape[2], strides[2];
  CrTensor *out;

  if (a->ndim != 1 || b->ndim != 1)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "1D tensors expected, but got %dD and %dD tensors", a->ndim, b->ndim);
      return NULL;
    }
  if (a->dtype != b->dtype)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "dot : expected both vectors to have same dtype, but found %s and %s",
                   cr_dtype_scalar_name (a->dtype), cr_dtype_scalar_name (b->dtype));
      return NULL;
    }
  if (a->shape[0] != b->shape[0])
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "inconsistent tensor size, expected tensor [%" G_GINT64_FORMAT "] and src [%"
                   G_GINT64_FORMAT "] to have the same number of elements, but got %"
                   G_GINT64_FORMAT " and %" G_GINT64_FORMAT " elements respectively",
                   a->shape[0], b->shape[0], a->shape[0], b->shape[0]);
      return NULL;
    }
  if (a->dtype == CR_DTYPE_BOOL)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "\"dot\" not implemented for 'Bool'");
      return NULL;
    }

  shape[0] = 1;
  shape[1] = a->shape[0];
  strides[0] = a->shape[0] * a->strides[0];
  strides[1] = a->strides[0];
  row = cr_tensor_new_view (a, shape, 2, strides, a->offset);
  shape[0] = b->shape[0];
  shape[1] = 1;
  strides[0] = b->strides[0];
  strides[1] = 1;
  col = cr_tensor_new_view (b, shape, 2, strides, b->offset);
  prod = kernel_product (row, col, FALSE, error);
  if (prod == NULL)
    return NULL;
  out = regeometry (prod, shape, 0);

  record_product (CR_OP_DOT, a, b, out);
  return out;
}

/* ---- bmm ------------------------------------------------------------------ */

/* BMM: as MM (product_backward), batched. */
static gboolean
bmm_backward (CrNode          *node,
              CrTensor *const *grad_outputs,
              CrTensor       **grad_inputs,
              GError         **error)
{
  return product_backward (node, grad_outputs[0], TRUE, grad_inputs, error);
}

const CrOpInfo cr_op_row_BMM = {
  CR_OP_BMM, "bmm", "BmmBackward0", 2, "@",
  "∂Cᵢ/∂Aᵢ = Gᵢ·Bᵢᵀ,  ∂Cᵢ/∂Bᵢ = Aᵢᵀ·Gᵢ", bmm_backward, NULL
};

CrTensor *
cr_bmm (CrTensor  *a,
        CrTensor  *b,
        GError   **error)
{
  gint64 shape[3];

  if (!cr_shape_check_bmm (a, b, shape, error))
    return NULL;
  return product_forward (CR_OP_BMM, a, b, "bmm", error);
}

/* ---- addmm ---------------------------------------------------------------- */

CrTensor *
cr_ops_maybe_multiply (CrNode    *node,
                       int        which,
                       CrTensor  *t,
                       GError   **error)
{
  if (!node->args->has_scalar[which] || node->args->scalar[which] == 1.0)
    return cr_tensor_ref (t);
  return cr_ops_mul_number (t, node->args->scalar[which], error);
}

/* ADDMM: inputs (bias, a, b); saved[0] a (when b needs grad), saved[1] b
 * (when a does); args scalar[0] beta and scalar[1] alpha when not 1. The
 * bias gets beta times the gradient summed down to its shape. */
static gboolean
addmm_backward (CrNode          *node,
                CrTensor *const *grad_outputs,
                CrTensor       **grad_inputs,
                GError         **error)
{
  CrTensor *grad = grad_outputs[0];

  if (cr_ops_needs_grad (node, 0))
    {
      const CrTensorMeta *meta = &node->input_meta[0];
      g_autoptr(CrTensor) scaled = cr_ops_maybe_multiply (node, 0, grad, error);

      if (scaled == NULL)
        return FALSE;
      grad_inputs[0] = cr_sum_to_shape (scaled, meta->shape, meta->ndim, error);
      if (grad_inputs[0] == NULL)
        return FALSE;
    }
  for (int i = 1; i < 3; i++)
    {
      g_autoptr(CrTensor) other = NULL;
      g_autoptr(CrTensor) other_t = NULL;
      g_autoptr(CrTensor) product = NULL;

      if (!cr_ops_needs_grad (node, i))
        continue;
      other = cr_node_get_saved (node, 2 - i, error);
      if (other == NULL || (other_t = cr_t (other, error)) == NULL)
        return FALSE;
      product = i == 1 ? cr_mm (grad, other_t, error) : cr_mm (other_t, grad, error);
      if (product == NULL)
        return FALSE;
      grad_inputs[i] = cr_ops_maybe_multiply (node, 1, product, error);
      if (grad_inputs[i] == NULL)
        return FALSE;
    }
  return TRUE;
}

const CrOpInfo cr_op_row_ADDMM = {
  CR_OP_ADDMM, "addmm", "AddmmBackward0", 3, "+@",
  "∂C/∂bias = Σ G,  ∂C/∂A = G·Bᵀ,  ∂C/∂B = Aᵀ·G", addmm_backward, NULL
};

CrTensor *
cr_addmm (CrTensor  *bias,
          CrTensor  *a,
          CrTensor  *b,
          GError   **error)
{
  return cr_addmm_scaled (bias, a, b, 1.0, 1.0, error);
}

/* beta * bias + alpha * (a @ b) outside the graph (beta 0 ignores the bias,
 * nan and inf included, as PyTorch's kernel does); a fresh tensor. */
static CrTensor *
addmm_scaled_forward (CrTensor  *expanded,
                      CrTensor  *a,
                      CrTensor  *b,
                      double     beta,
                      double     alpha,
                      GError   **error)
{
  gboolean grad_was_enabled = cr_grad_mode_set_enabled (FALSE);
  g_autoptr(CrTensor) beta_number = cr_ops_wrap_number (beta, FALSE);
  g_autoptr(CrTensor) alpha_number = cr_ops_wrap_number (alpha, FALSE);
  g_autoptr(CrTensor) prod = kernel_product (a, b, FALSE, error);
  g_autoptr(CrTensor) scaled_prod = prod != NULL ? cr_mul (prod, alpha_number, error) : NULL;
  g_autoptr(CrTensor) scaled_bias = NULL;
  CrTensor *out = NULL;

  if (scaled_prod != NULL && beta == 0.0)
    out = cr_tensor_ref (scaled_prod);
  else if (scaled_prod != NULL && (scaled_bias = cr_mul (expanded, beta_number, error)) != NULL)
    out = cr_add (scaled_bias, scaled_prod, error);
  cr_grad_mode_set_enabled (grad_was_enabled);
  return out;
}

CrTensor *
cr_addmm_scaled (CrTensor  *bias,
                 CrTensor  *a,
                 CrTensor  *b,
                 double     beta,
                 double     alpha,
                 GError   **error)
{
  gint64 shape[2];
  gboolean scaled = beta != 1.0 || alpha != 1.0;
  g_autoptr(CrTensor) prod = NULL;
  g_autoptr(CrTensor) expanded = NULL;
  CrTensor *inputs[3] = { bias, a, b };
  CrTensor *out;

  if (!cr_shape_check_mm (a, b, shape, error)
      || !check_same_dtype (a, b, "addmm_impl_cpu_", error)
      || !check_same_dtype (bias, a, "addmm_impl_cpu_", error))
    return NULL;
  /* The bias broadcast as PyTorch's expand checks it, outside the graph. */
  gboolean grad_was_enabled = cr_grad_mode_set_enabled (FALSE);
  expanded = cr_expand (bias, shape, 2, error);
  cr_grad_mode_set_enabled (grad_was_enabled);
  if (expanded == NULL)
    return NULL;
  if (scaled)
    out = addmm_scaled_forward (expanded, a, b, beta, alpha, error);
  else if (a->device == CR_DEVICE_CPU && b->device == CR_DEVICE_CPU
           && bias->device == CR_DEVICE_CPU && cr_dtype_is_floating (a->dtype))
    out = cr_kernel_addmm (expanded, a, b, error);
  else if ((prod = kernel_product (a, b, FALSE, error)) == NULL)
    return NULL;
  else
    out = cr_kernel_binary (CR_BINARY_ADD, expanded, prod, error);
  return cr_ops_record_scaled_product (CR_OP_ADDMM, inputs, beta, alpha, out);
}

/* ---- matmul --------------------------------------------------------------- */

/* at::_unsafe_view of a fresh result (UnsafeViewBackward0). */
static CrTensor *
unsafe_view (CrTensor     *x,
             const gint64 *shape,
             int           ndim)
{
  CrTensor *out;

  if (!cr_tensor_is_contiguous (x))
    {
      /* Never happens for kernel outputs; keep the data right regardless. */
      g_autoptr(CrTensor) c = cr_contiguous (x, NULL);
      if (c == NULL)
        return NULL;
      return cr_reshape (c, shape, ndim, NULL);
    }
  out = regeometry (x, shape, ndim);
  if (cr_autograd_should_record (&x, 1))
    cr_ops_attach (out, cr_node_new (CR_OP_UNSAFE_VIEW, &x, 1, 1));
  return out;
}

/* x.squeeze_(0) on a fresh mm result: SqueezeBackward3, no view. Takes x. */
static CrTensor *
squeeze0_inplace (CrTensor *x)
{
  CrNode *node = cr_autograd_should_record (&x, 1)
                 ? cr_node_new (CR_OP_SQUEEZE_INPLACE_DIM, &x, 1, 1) : NULL;

  if (x->ndim > 0 && x->shape[0] == 1)
    {
      for (int d = 1; d < x->ndim; d++)
        {
          x->shape[d - 1] = x->shape[d];
          x->strides[d - 1] = x->strides[d];
        }
      x->ndim--;
    }
  if (node != NULL)
    {
      cr_node_args (node)->dims[0] = 0;
      cr_node_args (node)->n_dims = 1;
      cr_ops_attach (x, node);
    }
  return x;
}

/* PyTorch's should_fold: a batch of matrices times a matrix or vector is one
 * mm (or mv) over the folded batch, unless the batch is laid out transposed. */
static gboolean
should_fold (const CrTensor *t1,
             int             dim2)
{
  if (t1->ndim >= 3 && (dim2 == 1 || dim2 == 2))
    {
      if (t1->ndim == 3 && dim2 == 2 && t1->strides[2] != 1
          && t1->strides[0] == t1->shape[1] * t1->shape[2])
        return FALSE;
      return TRUE;
    }
  return FALSE;
}

static CrTensor *
matmul_folded (CrTensor  *a,
               CrTensor  *b,
               GError   **error)
{
  gboolean transpose = b->ndim > a->ndim;
  g_autoptr(CrTensor) t1 = NULL;
  g_autoptr(CrTensor) t2 = NULL;
  g_autoptr(CrTensor) folded = NULL;
  g_autoptr(CrTensor) prod = NULL;
  gint64 out_shape[CR_MAX_DIMS], fold_shape[2];
  int out_ndim;
  gint64 folded_rows;

  t1 = transpose ? cr_transpose (b, -2, -1, error) : cr_tensor_ref (a);
  if (t1 == NULL)
    return NULL;
  if (!transpose)
    t2 = cr_tensor_ref (b);
  else if (a->ndim == 2)
    t2 = cr_t (a, error);
  else
    t2 = cr_tensor_ref (a);
  if (t2 == NULL)
    return NULL;

  out_ndim = t1->ndim - 1;
  memcpy (out_shape, t1->shape, sizeof (gint64) * out_ndim);
  folded_rows = cr_shape_numel (out_shape, out_ndim);
  if (t2->ndim == 2)
    out_shape[out_ndim++] = t2->shape[1];

  fold_shape[0] = folded_rows;
  fold_shape[1] = t1->shape[t1->ndim - 1];
  folded = cr_reshape (t1, fold_shape, 2, error);
  if (folded == NULL)
    return NULL;

  if (t2->ndim == 2)
    {
      g_autoptr(CrTensor) output = NULL;

      prod = cr_mm (folded, t2, error);
      if (prod == NULL)
        return NULL;
      output = unsafe_view (prod, out_shape, out_ndim);
      if (output == NULL || !transpose)
        return g_steal_pointer (&output);
      {
        g_autoptr(CrTensor) mt = cr_transpose (output, -2, -1, error);
        return mt != NULL ? cr_contiguous (mt, error) : NULL;
      }
    }
  prod = cr_mv (folded, t2, error);
  if (prod == NULL)
    return NULL;
  return unsafe_view (prod, out_shape, out_ndim);
}

static CrTensor *
matmul_batched (CrTensor  *a,
                CrTensor  *b,
                GError   **error)
{
  int da = a->ndim, db = b->ndim;
  gint64 n = da > 1 ? a->shape[da - 2] : 1;
  gint64 m1 = a->shape[da - 1];
  gint64 m2 = db > 1 ? b->shape[db - 2] : b->shape[0];
  gint64 p = db > 1 ? b->shape[db - 1] : 1;
  int nb1 = MAX (da - 2, 0), nb2 = MAX (db - 2, 0);
  gint64 batch[CR_MAX_DIMS], size[CR_MAX_DIMS], shape3[3];
  int nbatch;
  gint64 batch_numel;
  gboolean vector_rhs = db == 1;
  g_autoptr(CrTensor) e1 = NULL;
  g_autoptr(CrTensor) r1 = NULL;
  g_autoptr(CrTensor) e2 = NULL;
  g_autoptr(CrTensor) r2 = NULL;
  g_autoptr(CrTensor) prod = NULL;
  int out_ndim;

  if (!cr_shape_broadcast (a->shape, nb1, b->shape, nb2, batch, &nbatch, error))
    return NULL;
  if (nbatch + 2 > CR_MAX_DIMS)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "tensors with more than %d dimensions are not supported", CR_MAX_DIMS);
      return NULL;
    }
  batch_numel = cr_shape_numel (batch, nbatch);

  memcpy (size, batch, sizeof (gint64) * nbatch);
  size[nbatch] = n;
  size[nbatch + 1] = m1;
  shape3[0] = batch_numel;
  shape3[1] = n;
  shape3[2] = m1;
  if ((e1 = cr_expand (a, size, nbatch + 2, error)) == NULL
      || (r1 = cr_reshape (e1, shape3, 3, error)) == NULL)
    return NULL;

  if (vector_rhs)
    {
      g_autoptr(CrTensor) flat = NULL;

      size[nbatch] = m2;
      shape3[1] = m2;
      if ((e2 = cr_expand (b, size, nbatch + 1, error)) == NULL
          || (flat = cr_reshape (e2, shape3, 2, error)) == NULL
          || (r2 = cr_unsqueeze (flat, 2, error)) == NULL)
        return NULL;
    }
  else
    {
      size[nbatch] = m2;
      size[nbatch + 1] = p;
      shape3[1] = m2;
      shape3[2] = p;
      if ((e2 = cr_expand (b, size, nbatch + 2, error)) == NULL
          || (r2 = cr_reshape (e2, shape3, 3, error)) == NULL)
        return NULL;
    }

  out_ndim = nbatch;
  if (da > 1)
    batch[out_ndim++] = n;
  if (db > 1)
    batch[out_ndim++] = p;

  prod = cr_bmm (r1, r2, error);
  if (prod == NULL)
    return NULL;
  if (vector_rhs)
    {
      g_autoptr(CrTensor) sq = cr_squeeze_dim (prod, -1, error);
      if (sq == NULL)
        return NULL;
      return unsafe_view (sq, batch, out_ndim);
    }
  return unsafe_view (prod, batch, out_ndim);
}

CrTensor *
cr_matmul (CrTensor  *a,
           CrTensor  *b,
           GError   **error)
{
  int da = a->ndim, db = b->ndim;

  if (da <= 0 || db <= 0)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "both arguments to matmul need to be at least 1D, but they are %dD and %dD",
                   da, db);
      return NULL;
    }
  if (da == 1 && db == 1)
    return cr_dot (a, b, error);
  if (da == 2 && db == 1)
    return cr_mv (a, b, error);
  if (da == 1 && db == 2)
    {
      g_autoptr(CrTensor) row = cr_unsqueeze (a, 0, error);
      CrTensor *prod;

      if (row == NULL || (prod = cr_mm (row, b, error)) == NULL)
        return NULL;
      return squeeze0_inplace (prod);
    }
  if (da == 2 && db == 2)
    return cr_mm (a, b, error);
  if (should_fold (a, db) || should_fold (b, da))
    return matmul_folded (a, b, error);
  return matmul_batched (a, b, error);
}
