/* cr-ops-products.c — addmm's relatives: addmv, addr, baddbmm and addbmm,
 * beta * self + alpha * (a product), each one node as in PyTorch 1.13
 * (AddmvBackward0, AddrBackward0, BaddbmmBackward0, AddbmmBackward0).
 *
 * The forward runs the ops with grad mode off, so it works on every device;
 * self is broadcast to the product's shape as PyTorch's expand checks it.
 * Args: scalar[0] beta, scalar[1] alpha (set only when not 1: the backward
 * multiplies by them as PyTorch's maybe_multiply does, recording nothing
 * for a factor 1). Saved: slot 0 the left factor (when the right one needs
 * grad), slot 1 the right factor (when the left one does). */
#include "cr-ops-private.h"
#include "cr-error.h"
#include "cr-grad-mode.h"

typedef enum {
  PRODUCT_ADDMV,
  PRODUCT_ADDR,
  PRODUCT_BADDBMM,
  PRODUCT_ADDBMM,
} ProductKind;

/* ---- backward ------------------------------------------------------------ */

/* self's gradient: beta times grad, summed down to self's shape. */
static gboolean
self_gradient (CrNode     *node,
               CrTensor   *grad,
               CrTensor  **grad_input,
               GError    **error)
{
  const CrTensorMeta *meta = &node->input_meta[0];
  g_autoptr(CrTensor) scaled = cr_ops_maybe_multiply (node, 0, grad, error);

  if (scaled == NULL)
    return FALSE;
  *grad_input = cr_sum_to_shape (scaled, meta->shape, meta->ndim, error);
  return *grad_input != NULL;
}

/* The gradient of the left (which 1) or right (which 2) factor before alpha:
 *   addmv   mat: grad ⊗ vec            vec: matᵀ · grad
 *   addr    vec1: grad · vec2          vec2: gradᵀ · vec1
 *   baddbmm batch1: grad @ batch2ᵀ     batch2: batch1ᵀ @ grad
 *   addbmm  the same, grad first expanded over the batch. */
static CrTensor *
factor_gradient (ProductKind  kind,
                 CrNode      *node,
                 int          which,
                 CrTensor    *grad,
                 GError     **error)
{
  g_autoptr(CrTensor) other = cr_node_get_saved (node, 2 - which, error);
  g_autoptr(CrTensor) other_t = NULL;
  g_autoptr(CrTensor) grad_b = NULL;

  if (other == NULL)
    return NULL;
  switch (kind)
    {
    case PRODUCT_ADDMV:
      if (which == 1)
        {
          gint64 col[2] = { grad->ndim > 0 ? grad->shape[0] : 1, 1 };
          g_autoptr(CrTensor) grad_col = cr_reshape (grad, col, 2, error);
          return grad_col != NULL ? cr_mul (grad_col, other, error) : NULL;
        }
      other_t = cr_t (other, error);
      return other_t != NULL ? cr_mv (other_t, grad, error) : NULL;
    case PRODUCT_ADDR:
      if (which == 1)
        return cr_mv (grad, other, error);
      other_t = cr_t (grad, error);
      return other_t != NULL ? cr_mv (other_t, other, error) : NULL;
    case PRODUCT_BADDBMM:
    case PRODUCT_ADDBMM:
      if (kind == PRODUCT_ADDBMM)
        {
          const gint64 *b1 = node->input_meta[1].shape, *b2 = node->input_meta[2].shape;
          gint64 shape[3] = { b1[0], b1[1], b2[2] };
          g_autoptr(CrTensor) row = cr_unsqueeze (grad, 0, error);

          if (row == NULL || (grad_b = cr_expand (row, shape, 3, error)) == NULL)
            return NULL;
        }
      else
        grad_b = cr_tensor_ref (grad);
      if ((other_t = cr_transpose (other, 1, 2, error)) == NULL)
        return NULL;
      return which == 1 ? cr_bmm (grad_b, other_t, error) : cr_bmm (other_t, grad_b, error);
    }
  g_return_val_if_reached (NULL);
}

static gboolean
product_backward (ProductKind      kind,
                  CrNode          *node,
                  CrTensor *const *grads,
                  CrTensor       **grad_inputs,
                  GError         **error)
{
  if (cr_ops_needs_grad (node, 0) && !self_gradient (node, grads[0], &grad_inputs[0], error))
    return FALSE;
  for (int i = 1; i < 3; i++)
    {
      g_autoptr(CrTensor) g = NULL;

      if (!cr_ops_needs_grad (node, i))
        continue;
      if ((g = factor_gradient (kind, node, i, grads[0], error)) == NULL)
        return FALSE;
      SET_GRAD (i, cr_ops_maybe_multiply (node, 1, g, error));
    }
  return TRUE;
}

#define PRODUCT_ROW(ID, KIND, NAME, GRAD_FN, TEXT)                               \
  static gboolean                                                               \
  NAME##_backward (CrNode *node, CrTensor *const *grads, CrTensor **grad_inputs,\
                   GError **error)                                              \
  {                                                                             \
    return product_backward (KIND, node, grads, grad_inputs, error);            \
  }                                                                             \
  const CrOpInfo cr_op_row_##ID = {                                             \
    CR_OP_##ID, #NAME, GRAD_FN, 3, "+@", TEXT, NAME##_backward, NULL            \
  };

PRODUCT_ROW (ADDMV, PRODUCT_ADDMV, addmv, "AddmvBackward0",
             "∂C/∂self = β,  ∂C/∂A = α·G·vᵀ,  ∂C/∂v = α·Aᵀ·G")
PRODUCT_ROW (ADDR, PRODUCT_ADDR, addr, "AddrBackward0",
             "∂C/∂self = β,  ∂C/∂u = α·G·v,  ∂C/∂v = α·Gᵀ·u")
PRODUCT_ROW (BADDBMM, PRODUCT_BADDBMM, baddbmm, "BaddbmmBackward0",
             "∂C/∂self = β,  ∂C/∂A = α·G·Bᵀ,  ∂C/∂B = α·Aᵀ·G (per batch)")
PRODUCT_ROW (ADDBMM, PRODUCT_ADDBMM, addbmm, "AddbmmBackward0",
             "∂C/∂self = β,  ∂C/∂Aᵢ = α·G·Bᵢᵀ,  ∂C/∂Bᵢ = α·Aᵢᵀ·G")

/* ---- forward -------------------------------------------------------------- */

static gboolean
fail (GError     **error,
      const char  *format,
      ...) G_GNUC_PRINTF (2, 3);

static gboolean
fail (GError     **error,
      const char  *format,
      ...)
{
  va_list args;

  va_start (args, format);
  g_propagate_error (error, g_error_new_valist (CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                                                format, args));
  va_end (args);
  return FALSE;
}

/* PyTorch's shape checks of each op, in its order and words. */
static gboolean
check_shapes (ProductKind  kind,
              CrTensor    *self,
              CrTensor    *a,
              CrTensor    *b,
              GError     **error)
{
  switch (kind)
    {
    case PRODUCT_ADDMV:
      if (a->ndim != 2 || b->ndim != 1 || self->ndim > 1)
        return fail (error, "vector + matrix @ vector expected, got %d, %d, %d",
                     self->ndim, a->ndim, b->ndim);
      if (a->shape[1] != b->shape[0]
          || (self->ndim == 1 && self->shape[0] != a->shape[0] && self->shape[0] != 1))
        return fail (error, "size mismatch, got %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT "x%"
                     G_GINT64_FORMAT ",%" G_GINT64_FORMAT,
                     self->ndim == 1 ? self->shape[0] : 1, a->shape[0], a->shape[1], b->shape[0]);
      return TRUE;
    case PRODUCT_ADDR:
      if (a->ndim != 1 || b->ndim != 1)
        return fail (error, "addr: Expected 1-D argument %s, but got %d-D",
                     a->ndim != 1 ? "vec1" : "vec2", a->ndim != 1 ? a->ndim : b->ndim);
      return TRUE;
    case PRODUCT_BADDBMM:
    case PRODUCT_ADDBMM:
      if (a->ndim != 3)
        return fail (error, "batch1 must be a 3D tensor");
      if (b->ndim != 3)
        return fail (error, "batch2 must be a 3D tensor");
      if (kind == PRODUCT_ADDBMM && a->shape[0] != b->shape[0])
        return fail (error, "batch1 and batch2 must have same number of batches, got %"
                     G_GINT64_FORMAT " and %" G_GINT64_FORMAT, a->shape[0], b->shape[0]);
      if (kind == PRODUCT_ADDBMM && a->shape[2] != b->shape[1])
        return fail (error, "Incompatible matrix sizes for bmm (%" G_GINT64_FORMAT "x%"
                     G_GINT64_FORMAT " and %" G_GINT64_FORMAT "x%" G_GINT64_FORMAT ")",
                     a->shape[1], a->shape[2], b->shape[1], b->shape[2]);
      if (a->shape[0] != b->shape[0] || a->shape[2] != b->shape[1])
        return fail (error, "Expected size for first two dimensions of batch2 tensor to be: [%"
                     G_GINT64_FORMAT ", %" G_GINT64_FORMAT "] but got: [%" G_GINT64_FORMAT
                     ", %" G_GINT64_FORMAT "].", a->shape[0], a->shape[2],
                     b->shape[0], b->shape[1]);
      return TRUE;
    }
  g_return_val_if_reached (FALSE);
}

/* The product without self, outside the graph: mat @ vec, vec1 ⊗ vec2,
 * batch1 @ batch2; addbmm is done in product_with_self. */
static CrTensor *
plain_product (ProductKind  kind,
               CrTensor    *a,
               CrTensor    *b,
               GError     **error)
{
  switch (kind)
    {
    case PRODUCT_ADDMV:
      return cr_mv (a, b, error);
    case PRODUCT_ADDR:
      {
        gint64 col[2] = { a->shape[0], 1 };
        g_autoptr(CrTensor) a_col = cr_reshape (a, col, 2, error);
        return a_col != NULL ? cr_mul (a_col, b, error) : NULL;
      }
    case PRODUCT_BADDBMM:
      return cr_bmm (a, b, error);
    case PRODUCT_ADDBMM:
      break;
    }
  g_return_val_if_reached (NULL);
}

/* beta * self + alpha * product, as PyTorch's kernels weigh them: beta 0
 * ignores self (nan and inf included), a factor 1 multiplies nothing. */
static CrTensor *
combine (CrTensor  *expanded,
         CrTensor  *product,
         double     beta,
         double     alpha,
         GError   **error)
{
  g_autoptr(CrTensor) scaled = alpha == 1.0 ? cr_tensor_ref (product)
                                            : cr_ops_mul_number (product, alpha, error);
  g_autoptr(CrTensor) weighted = NULL;

  if (scaled == NULL)
    return NULL;
  if (beta == 0.0)
    return cr_tensor_ref (scaled);
  weighted = beta == 1.0 ? cr_tensor_ref (expanded) : cr_ops_mul_number (expanded, beta, error);
  return weighted != NULL ? cr_add (weighted, scaled, error) : NULL;
}

/* addbmm as PyTorch's addbmm_impl_ runs it: self once weighed by beta,
 * then one addmm per batch, each adding alpha * batch1[i] @ batch2[i]. */
static CrTensor *
addbmm_forward (CrTensor  *expanded,
                CrTensor  *a,
                CrTensor  *b,
                double     beta,
                double     alpha,
                GError   **error)
{
  g_autoptr(CrTensor) out = NULL;

  if (a->shape[0] == 0)
    {
      g_autoptr(CrTensor) zero = cr_ops_zeros_meta (&(CrTensorMeta) {
        expanded->shape, expanded->ndim, expanded->dtype, expanded->device }, error);
      return zero != NULL ? combine (expanded, zero, beta, 1.0, error) : NULL;
    }
  out = cr_tensor_ref (expanded);
  for (gint64 i = 0; i < a->shape[0]; i++)
    {
      CrIndexItem item = { .kind = CR_INDEX_INT, .value = i };
      g_autoptr(CrTensor) ai = cr_index_get (a, &item, 1, error);
      g_autoptr(CrTensor) bi = ai != NULL ? cr_index_get (b, &item, 1, error) : NULL;
      CrTensor *next;

      if (bi == NULL)
        return NULL;
      next = cr_addmm_scaled (out, ai, bi, i == 0 ? beta : 1.0, alpha, error);
      if (next == NULL)
        return NULL;
      cr_tensor_unref (out);
      out = next;
    }
  return g_steal_pointer (&out);
}

/* Does PyTorch 1.13's CPU baddbmm take its own loop (k·n·m < 400)? */
static gboolean
baddbmm_is_small_cpu (CrTensor *expanded,
                      CrTensor *a,
                      CrTensor *b)
{
  return a->device == CR_DEVICE_CPU && b->device == CR_DEVICE_CPU
         && expanded->device == CR_DEVICE_CPU
         && a->shape[2] * a->shape[1] * b->shape[2] < 400
         && (a->dtype == CR_DTYPE_FLOAT32 || a->dtype == CR_DTYPE_FLOAT64)
         && b->dtype == a->dtype && expanded->dtype == a->dtype;
}

/* baddbmm as that loop computes it, so the digits are its: each element's
 * running value starts at beta·self (0 when beta is 0) and adds alpha·a·b
 * term by term in k order. A fresh tensor. */
static CrTensor *
baddbmm_small_cpu (CrTensor  *expanded,
                   CrTensor  *a,
                   CrTensor  *b,
                   double     beta,
                   double     alpha,
                   GError   **error)
{
  gint64 batch = a->shape[0], n = a->shape[1], k = a->shape[2], m = b->shape[2];
  CrTensor *out;

  out = cr_tensor_new_empty (expanded->shape, 3, a->dtype, CR_DEVICE_CPU, error);
  if (out == NULL)
    return NULL;
#define SMALL_BADDBMM(type)                                                        \
  G_STMT_START {                                                                  \
    const type *pa = cr_tensor_data (a), *pb = cr_tensor_data (b);                \
    const type *ps = cr_tensor_data (expanded);                                   \
    type *po = cr_tensor_data (out);                                              \
    type beta_t = (type) beta, alpha_t = (type) alpha;                            \
    for (gint64 bi = 0; bi < batch; bi++)                                         \
      for (gint64 i = 0; i < n; i++)                                              \
        for (gint64 j = 0; j < m; j++)                                            \
          {                                                                       \
            type acc = beta == 0.0 ? 0                                            \
              : ps[bi * expanded->strides[0] + i * expanded->strides[1]           \
                   + j * expanded->strides[2]] * beta_t;                          \
            for (gint64 kk = 0; kk < k; kk++)                                     \
              acc += alpha_t * pa[bi * a->strides[0] + i * a->strides[1] + kk * a->strides[2]] \
                     * pb[bi * b->strides[0] + kk * b->strides[1] + j * b->strides[2]]; \
            po[(bi * n + i) * m + j] = acc;                                       \
          }                                                                       \
  } G_STMT_END
  if (a->dtype == CR_DTYPE_FLOAT32)
    SMALL_BADDBMM (float);
  else
    SMALL_BADDBMM (double);
#undef SMALL_BADDBMM
  return out;
}

/* The result's shape: the product's. */
static void
result_shape (ProductKind  kind,
              CrTensor    *a,
              CrTensor    *b,
              gint64      *shape,
              int         *ndim)
{
  switch (kind)
    {
    case PRODUCT_ADDMV:
      shape[0] = a->shape[0];
      *ndim = 1;
      return;
    case PRODUCT_ADDR:
      shape[0] = a->shape[0];
      shape[1] = b->shape[0];
      *ndim = 2;
      return;
    case PRODUCT_BADDBMM:
      shape[0] = a->shape[0];
      shape[1] = a->shape[1];
      shape[2] = b->shape[2];
      *ndim = 3;
      return;
    case PRODUCT_ADDBMM:
      shape[0] = a->shape[1];
      shape[1] = b->shape[2];
      *ndim = 2;
      return;
    }
}

static const CrOpId product_ops[] = {
  [PRODUCT_ADDMV] = CR_OP_ADDMV,
  [PRODUCT_ADDR] = CR_OP_ADDR,
  [PRODUCT_BADDBMM] = CR_OP_BADDBMM,
  [PRODUCT_ADDBMM] = CR_OP_ADDBMM,
};

static CrTensor *
scaled_product (ProductKind  kind,
                CrTensor    *self,
                CrTensor    *a,
                CrTensor    *b,
                double       beta,
                double       alpha,
                GError     **error)
{
  CrTensor *inputs[3] = { self, a, b };
  gint64 shape[3];
  int ndim = 0;
  g_autoptr(CrTensor) expanded = NULL;
  g_autoptr(CrTensor) product = NULL;
  CrTensor *out = NULL;
  gboolean grad_was_enabled;

  if (!check_shapes (kind, self, a, b, error))
    return NULL;
  result_shape (kind, a, b, shape, &ndim);
  grad_was_enabled = cr_grad_mode_set_enabled (FALSE);
  expanded = cr_expand (self, shape, ndim, error);
  if (expanded != NULL && kind == PRODUCT_ADDBMM)
    out = addbmm_forward (expanded, a, b, beta, alpha, error);
  else if (expanded != NULL && kind == PRODUCT_BADDBMM && baddbmm_is_small_cpu (expanded, a, b))
    out = baddbmm_small_cpu (expanded, a, b, beta, alpha, error);
  else if (expanded != NULL && (product = plain_product (kind, a, b, error)) != NULL)
    {
      /* The dtypes PyTorch's kernels demand alike: self's and the product's. */
      if (self->dtype != product->dtype)
        fail (error, "expected scalar type %s but found %s",
              cr_dtype_scalar_name (product->dtype), cr_dtype_scalar_name (self->dtype));
      else
        out = combine (expanded, product, beta, alpha, error);
    }
  cr_grad_mode_set_enabled (grad_was_enabled);
  return cr_ops_record_scaled_product (product_ops[kind], inputs, beta, alpha, out);
}

CrTensor *
cr_ops_record_scaled_product (CrOpId    op,
                              CrTensor *inputs[3],
                              double    beta,
                              double    alpha,
                              CrTensor *out)
{
  if (out == NULL || !cr_autograd_should_record (inputs, 3))
    return out;
  CrNode *node = cr_node_new (op, inputs, 3, 1);
  cr_ops_keep_scaled_product (node, inputs, beta, alpha);
  cr_ops_attach (out, node);
  return out;
}

void
cr_ops_keep_scaled_product (CrNode   *node,
                            CrTensor *inputs[3],
                            double    beta,
                            double    alpha)
{
  if (beta != 1.0 || alpha != 1.0)
    {
      CrOpArgs *args = cr_node_args (node);
      args->scalar[0] = beta;
      args->scalar[1] = alpha;
      args->has_scalar[0] = args->has_scalar[1] = TRUE;
    }
  if (cr_ops_needs_grad (node, 2))
    cr_node_save (node, 0, inputs[1], FALSE);
  if (cr_ops_needs_grad (node, 1))
    cr_node_save (node, 1, inputs[2], FALSE);
}

CrTensor *
cr_addmv (CrTensor  *self,
          CrTensor  *mat,
          CrTensor  *vec,
          double     beta,
          double     alpha,
          GError   **error)
{
  return scaled_product (PRODUCT_ADDMV, self, mat, vec, beta, alpha, error);
}

CrTensor *
cr_addr (CrTensor  *self,
         CrTensor  *vec1,
         CrTensor  *vec2,
         double     beta,
         double     alpha,
         GError   **error)
{
  return scaled_product (PRODUCT_ADDR, self, vec1, vec2, beta, alpha, error);
}

CrTensor *
cr_baddbmm (CrTensor  *self,
            CrTensor  *batch1,
            CrTensor  *batch2,
            double     beta,
            double     alpha,
            GError   **error)
{
  return scaled_product (PRODUCT_BADDBMM, self, batch1, batch2, beta, alpha, error);
}

CrTensor *
cr_addbmm (CrTensor  *self,
           CrTensor  *batch1,
           CrTensor  *batch2,
           double     beta,
           double     alpha,
           GError   **error)
{
  return scaled_product (PRODUCT_ADDBMM, self, batch1, batch2, beta, alpha, error);
}

/* ---- tensordot ----------------------------------------------------------- */

/* PyTorch 1.13's at::tensordot, a composite: a dim of size 1 against a
 * wider one is summed first (keepdim), then each side is permuted (its free
 * dims, then the contracted ones in the order given), reshaped to a matrix,
 * multiplied, and the product reshaped to the free sizes. So the graph is
 * the one PyTorch records (SumBackward1, PermuteBackward0, a reshape,
 * MmBackward0 and the final reshape). dims may be negative. */
CrTensor *
cr_tensordot (CrTensor     *a,
              CrTensor     *b,
              const gint64 *dims_a,
              const gint64 *dims_b,
              int           n_dims,
              GError      **error)
{
  int wrapped_a[CR_MAX_DIMS], wrapped_b[CR_MAX_DIMS];
  gboolean contracted_a[CR_MAX_DIMS] = { FALSE, }, contracted_b[CR_MAX_DIMS] = { FALSE, };
  int perm_a[CR_MAX_DIMS], perm_b[CR_MAX_DIMS], n_perm_a = 0, n_perm_b = 0;
  gint64 result_sizes[2 * CR_MAX_DIMS], n_result = 0;
  gint64 csize = 1, size_a = 1, size_b = 1;
  g_autoptr(CrTensor) ta = cr_tensor_ref (a);
  g_autoptr(CrTensor) tb = cr_tensor_ref (b);
  g_autoptr(CrTensor) pa = NULL;
  g_autoptr(CrTensor) pb = NULL;
  g_autoptr(CrTensor) ma = NULL;
  g_autoptr(CrTensor) mb = NULL;
  g_autoptr(CrTensor) product = NULL;

  if (n_dims > CR_MAX_DIMS)
    n_dims = CR_MAX_DIMS + 1;   /* fails the dim checks below */
  for (int i = 0; i < n_dims; i++)
    {
      gint64 sa, sb;

      wrapped_a[i] = (int) CLAMP (dims_a[i], G_MININT, G_MAXINT);
      wrapped_b[i] = (int) CLAMP (dims_b[i], G_MININT, G_MAXINT);
      if (!cr_ops_wrap_dim (&wrapped_a[i], a->ndim, error)
          || !cr_ops_wrap_dim (&wrapped_b[i], b->ndim, error))
        return NULL;
      sa = a->shape[wrapped_a[i]];
      sb = b->shape[wrapped_b[i]];
      if (sb == 1 || sa == 1)
        {
          /* A broadcast dim is summed right away. */
          CrTensor **t = sb == 1 ? &ta : &tb;
          int dim = sb == 1 ? wrapped_a[i] : wrapped_b[i];
          CrTensor *summed = cr_sum_dim (*t, &dim, 1, TRUE, error);

          if (summed == NULL)
            return NULL;
          cr_tensor_unref (*t);
          *t = summed;
        }
      else if (sa != sb)
        {
          fail (error, "contracted dimensions need to match, but first has size %" G_GINT64_FORMAT
                " in dim %" G_GINT64_FORMAT " and second has size %" G_GINT64_FORMAT " in dim %"
                G_GINT64_FORMAT, sa, dims_a[i], sb, dims_b[i]);
          return NULL;
        }
      else
        csize *= sa;
    }
  for (int i = 0; i < n_dims; i++)
    {
      const char *which = contracted_a[wrapped_a[i]] ? "a" : contracted_b[wrapped_b[i]] ? "b" : NULL;
      if (which != NULL)
        {
          g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                       "dim %d appears multiple times in the list of dims",
                       which[0] == 'a' ? wrapped_a[i] : wrapped_b[i]);
          return NULL;
        }
      contracted_a[wrapped_a[i]] = contracted_b[wrapped_b[i]] = TRUE;
    }
  for (int i = 0; i < a->ndim; i++)
    if (!contracted_a[i])
      {
        perm_a[n_perm_a++] = i;
        size_a *= ta->shape[i];
        result_sizes[n_result++] = ta->shape[i];
      }
  for (int i = 0; i < n_dims; i++)
    {
      perm_a[n_perm_a++] = wrapped_a[i];
      perm_b[n_perm_b++] = wrapped_b[i];
    }
  for (int i = 0; i < b->ndim; i++)
    if (!contracted_b[i])
      {
        perm_b[n_perm_b++] = i;
        size_b *= tb->shape[i];
        result_sizes[n_result++] = tb->shape[i];
      }
  if (n_result > CR_MAX_DIMS)
    {
      fail (error, "tensordot: the result would have %" G_GINT64_FORMAT " dims (at most %d)",
            n_result, CR_MAX_DIMS);
      return NULL;
    }
  if ((pa = cr_permute (ta, perm_a, n_perm_a, error)) == NULL
      || (ma = cr_reshape (pa, (gint64[]) { size_a, csize }, 2, error)) == NULL
      || (pb = cr_permute (tb, perm_b, n_perm_b, error)) == NULL
      || (mb = cr_reshape (pb, (gint64[]) { csize, size_b }, 2, error)) == NULL
      || (product = cr_mm (ma, mb, error)) == NULL)
    return NULL;
  return cr_reshape (product, result_sizes, (int) n_result, error);
}
