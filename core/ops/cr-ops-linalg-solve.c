/* cr-ops-linalg-solve.c — torch.linalg.inv (LinalgInvExBackward0),
 * linalg.det (LinalgDetBackward0) and linalg.solve (LinalgSolveExBackward0)
 * of small square matrices, batched.
 *
 * The forward factors each matrix on the host (LU with partial pivoting,
 * in double, as LAPACK's getrf pivots) and moves the result to the tensor's
 * device: these matrices are a few rows, where a device kernel would not
 * pay. The backward formulas are PyTorch 1.13's, written with matmul and
 * these ops themselves, so create_graph works:
 *   inv:   −A⁻ᵀ G A⁻ᵀ
 *   det:   solve(Aᵀ, G · det · I) = G · det · A⁻ᵀ (for an invertible A;
 *          PyTorch's SVD form for a singular one is not here: its backward
 *          raises the singular error)
 *   solve: G_B = solve(Aᵀ, G),  G_A = −G_B Xᵀ */
#include "cr-ops-private.h"
#include "cr-cuda.h"
#include "cr-error.h"
#include "cr-grad-mode.h"

#include <math.h>
#include <string.h>

/* ---- LU on the host ------------------------------------------------------ */

/* a (n × n, row-major) factored in place into L (unit, below) and U, rows
 * swapped as piv says; *sign the permutation's sign. Returns LAPACK's info:
 * 0, or i + 1 for the first U[i][i] that is exactly 0 (the factoring goes
 * on, as getrf's). */
static gint64
lu_factor (double *a,
           gint64  n,
           gint64 *piv,
           int    *sign)
{
  gint64 info = 0;

  *sign = 1;
  for (gint64 k = 0; k < n; k++)
    {
      gint64 p = k;

      for (gint64 i = k + 1; i < n; i++)
        if (fabs (a[i * n + k]) > fabs (a[p * n + k]))
          p = i;
      piv[k] = p;
      if (p != k)
        {
          for (gint64 j = 0; j < n; j++)
            {
              double t = a[k * n + j];
              a[k * n + j] = a[p * n + j];
              a[p * n + j] = t;
            }
          *sign = -*sign;
        }
      if (a[k * n + k] == 0.0)
        {
          if (info == 0)
            info = k + 1;
          continue;
        }
      for (gint64 i = k + 1; i < n; i++)
        {
          double f = a[i * n + k] / a[k * n + k];

          a[i * n + k] = f;
          for (gint64 j = k + 1; j < n; j++)
            a[i * n + j] -= f * a[k * n + j];
        }
    }
  return info;
}

/* b (n × m, row-major) overwritten with A⁻¹ b, from lu_factor's a and piv. */
static void
lu_solve (const double *a,
          const gint64 *piv,
          gint64        n,
          double       *b,
          gint64        m)
{
  for (gint64 k = 0; k < n; k++)
    if (piv[k] != k)
      for (gint64 j = 0; j < m; j++)
        {
          double t = b[k * m + j];
          b[k * m + j] = b[piv[k] * m + j];
          b[piv[k] * m + j] = t;
        }
  for (gint64 j = 0; j < m; j++)
    {
      for (gint64 i = 0; i < n; i++)
        for (gint64 k = 0; k < i; k++)
          b[i * m + j] -= a[i * n + k] * b[k * m + j];
      for (gint64 i = n - 1; i >= 0; i--)
        {
          for (gint64 k = i + 1; k < n; k++)
            b[i * m + j] -= a[i * n + k] * b[k * m + j];
          b[i * m + j] /= a[i * n + i];
        }
    }
}

/* ---- shapes and host copies ---------------------------------------------- */

/* PyTorch's checks of A: a floating batch of square matrices. */
static gboolean
check_square (const CrTensor  *a,
              const char      *fname,
              GError         **error)
{
  if (a->ndim < 2)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "%s: The input tensor A must have at least 2 dimensions.", fname);
      return FALSE;
    }
  if (a->shape[a->ndim - 1] != a->shape[a->ndim - 2])
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "%s: A must be batches of square matrices, but they are %" G_GINT64_FORMAT
                   " by %" G_GINT64_FORMAT " matrices", fname, a->shape[a->ndim - 2],
                   a->shape[a->ndim - 1]);
      return FALSE;
    }
  if (!cr_dtype_is_floating (a->dtype))
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "%s: Expected a floating point or complex tensor as input. Got %s", fname,
                   cr_dtype_scalar_name (a->dtype));
      return FALSE;
    }
  return TRUE;
}

/* x's elements in row-major order as doubles (a new array). */
static double *
host_values (CrTensor  *x,
             GError   **error)
{
  g_autoptr(CrTensor) host = x->device == CR_DEVICE_CPU ? cr_tensor_contiguous (x, error)
                                                       : cr_tensor_to_device (x, CR_DEVICE_CPU,
                                                                              error);
  double *values;

  if (host == NULL)
    return NULL;
  values = g_new (double, MAX (host->numel, 1));
  for (gint64 i = 0; i < host->numel; i++)
    values[i] = cr_tensor_get_flat (host, i);
  return values;
}

/* A new tensor of shape, dtype and device from row-major doubles. */
static CrTensor *
tensor_from_values (const double  *values,
                    const gint64  *shape,
                    int            ndim,
                    CrDType        dtype,
                    CrDeviceType   device,
                    GError       **error)
{
  g_autoptr(CrTensor) host = cr_tensor_new_empty (shape, ndim, dtype, CR_DEVICE_CPU, error);

  if (host == NULL)
    return NULL;
  for (gint64 i = 0; i < host->numel; i++)
    cr_tensor_set_flat (host, i, values[i]);
  if (device == CR_DEVICE_CPU)
    return g_steal_pointer (&host);
  return cr_tensor_to_device (host, device, error);
}

/* Every matrix of a (..., n, n) factored by lu_factor: lu (batch × n × n),
 * piv (batch × n), sign and info (batch each), all owned. */
typedef struct {
  double *lu;
  gint64 *piv;
  int    *sign;
  gint64 *info;
  gint64  n, batch;
} LuBatch;

static gboolean
lu_batch_factor (LuBatch   *f,
                 CrTensor  *a,
                 GError   **error)
{
  memset (f, 0, sizeof *f);
  if ((f->lu = host_values (a, error)) == NULL)
    return FALSE;
  f->n = a->shape[a->ndim - 1];
  f->batch = 1;
  for (int d = 0; d < a->ndim - 2; d++)
    f->batch *= a->shape[d];
  f->piv = g_new (gint64, MAX (f->batch * f->n, 1));
  f->sign = g_new (int, MAX (f->batch, 1));
  f->info = g_new (gint64, MAX (f->batch, 1));
  for (gint64 b = 0; b < f->batch; b++)
    f->info[b] = lu_factor (f->lu + b * f->n * f->n, f->n, f->piv + b * f->n, &f->sign[b]);
  return TRUE;
}

static void
lu_batch_clear (LuBatch *f)
{
  g_free (f->lu);
  g_free (f->piv);
  g_free (f->sign);
  g_free (f->info);
}

/* ---- inv ----------------------------------------------------------------- */

/* slot 0: the inverse (the output). */
static gboolean
inv_backward (CrNode          *node,
              CrTensor *const *grads,
              CrTensor       **grad_inputs,
              GError         **error)
{
  SAVED (inverse, 0);
  g_autoptr(CrTensor) inv_t = cr_transpose (inverse, -2, -1, error);
  g_autoptr(CrTensor) right = inv_t != NULL ? cr_matmul (grads[0], inv_t, error) : NULL;
  g_autoptr(CrTensor) both = right != NULL ? cr_matmul (inv_t, right, error) : NULL;

  SET_GRAD (0, both != NULL ? cr_neg (both, error) : NULL);
  return TRUE;
}

const CrOpInfo cr_op_row_LINALG_INV = {
  CR_OP_LINALG_INV, "linalg_inv", "LinalgInvExBackward0", 1, "A⁻¹",
  "∂L/∂A = −A⁻ᵀ G A⁻ᵀ",
  inv_backward, NULL
};

CrTensor *
cr_linalg_inv (CrTensor  *a,
               GError   **error)
{
  g_autofree double *out = NULL;
  CrTensor *result = NULL;
  CrNode *node;
  LuBatch f;

  if (!check_square (a, "linalg.inv", error) || !lu_batch_factor (&f, a, error))
    return NULL;
  out = g_new0 (double, MAX (a->numel, 1));
  for (gint64 b = 0; b < f.batch; b++)
    {
      double *x = out + b * f.n * f.n;

      if (f.info[b] != 0)
        {
          g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                       "linalg.inv: The diagonal element %" G_GINT64_FORMAT " is zero, the "
                       "inversion could not be completed because the input matrix is singular.",
                       f.info[b]);
          goto out;
        }
      for (gint64 i = 0; i < f.n; i++)
        x[i * f.n + i] = 1.0;
      lu_solve (f.lu + b * f.n * f.n, f.piv + b * f.n, f.n, x, f.n);
    }
  result = tensor_from_values (out, a->shape, a->ndim, a->dtype, a->device, error);
  if (result != NULL && (node = cr_ops_record (CR_OP_LINALG_INV, &a, 1, result)) != NULL)
    cr_node_save (node, 0, result, TRUE);
out:
  lu_batch_clear (&f);
  return result;
}

/* ---- det ----------------------------------------------------------------- */

/* slot 0: A; slot 1: det (the output). PyTorch's linalg_det_backward for
 * an invertible A: solve(Aᵀ, G·det·I), so a second order sees a solve. */
static gboolean
det_backward (CrNode          *node,
              CrTensor *const *grads,
              CrTensor       **grad_inputs,
              GError         **error)
{
  SAVED (a, 0);
  SAVED (det, 1);
  gint64 n = a->shape[a->ndim - 1];
  g_autoptr(CrTensor) scale = cr_mul (grads[0], det, error);
  g_autoptr(CrTensor) s1 = scale != NULL ? cr_unsqueeze (scale, -1, error) : NULL;
  g_autoptr(CrTensor) s2 = s1 != NULL ? cr_unsqueeze (s1, -1, error) : NULL;
  g_autoptr(CrTensor) eye_host = s2 != NULL ? cr_tensor_new_eye (n, n, a->dtype, error) : NULL;
  g_autoptr(CrTensor) eye = eye_host == NULL ? NULL
                            : a->device == CR_DEVICE_CPU ? cr_tensor_ref (eye_host)
                            : cr_tensor_to_device (eye_host, a->device, error);
  g_autoptr(CrTensor) rhs = eye != NULL ? cr_mul (s2, eye, error) : NULL;
  g_autoptr(CrTensor) a_t = rhs != NULL ? cr_transpose (a, -2, -1, error) : NULL;

  SET_GRAD (0, a_t != NULL ? cr_linalg_solve (a_t, rhs, error) : NULL);
  return TRUE;
}

const CrOpInfo cr_op_row_LINALG_DET = {
  CR_OP_LINALG_DET, "linalg_det", "LinalgDetBackward0", 1, "det",
  "∂det(A)/∂A = det(A) · A⁻ᵀ",
  det_backward, NULL
};

CrTensor *
cr_linalg_det (CrTensor  *a,
               GError   **error)
{
  g_autofree double *out = NULL;
  CrTensor *result;
  CrNode *node;
  LuBatch f;

  if (!check_square (a, "linalg.det", error) || !lu_batch_factor (&f, a, error))
    return NULL;
  out = g_new (double, MAX (f.batch, 1));
  for (gint64 b = 0; b < f.batch; b++)
    {
      double det = f.sign[b];

      for (gint64 i = 0; i < f.n; i++)
        det *= f.lu[b * f.n * f.n + i * f.n + i];
      out[b] = det;
    }
  lu_batch_clear (&f);
  result = tensor_from_values (out, a->shape, a->ndim - 2, a->dtype, a->device, error);
  if (result != NULL && (node = cr_ops_record (CR_OP_LINALG_DET, &a, 1, result)) != NULL)
    {
      cr_node_save (node, 0, a, FALSE);
      cr_node_save (node, 1, result, TRUE);
    }
  return result;
}

/* ---- solve --------------------------------------------------------------- */

/* slot 0: A; slot 1: X (the output); args.ints[0]: B was a vector (batch). */
static gboolean
solve_backward (CrNode          *node,
                CrTensor *const *grads,
                CrTensor       **grad_inputs,
                GError         **error)
{
  gboolean vector = node->args->ints[0];
  SAVED (a, 0);
  SAVED (x, 1);
  g_autoptr(CrTensor) a_t = cr_transpose (a, -2, -1, error);
  g_autoptr(CrTensor) grad_b = a_t != NULL ? cr_linalg_solve (a_t, grads[0], error) : NULL;

  if (grad_b == NULL)
    return FALSE;
  if (cr_ops_needs_grad (node, 0))
    {
      g_autoptr(CrTensor) gb = vector ? cr_unsqueeze (grad_b, -1, error) : cr_tensor_ref (grad_b);
      g_autoptr(CrTensor) xm = gb != NULL ? (vector ? cr_unsqueeze (x, -1, error)
                                                   : cr_tensor_ref (x))
                                          : NULL;
      g_autoptr(CrTensor) x_t = xm != NULL ? cr_transpose (xm, -2, -1, error) : NULL;
      g_autoptr(CrTensor) prod = x_t != NULL ? cr_matmul (gb, x_t, error) : NULL;

      SET_GRAD (0, prod != NULL ? cr_neg (prod, error) : NULL);
    }
  SET_GRAD (1, g_steal_pointer (&grad_b));
  return TRUE;
}

const CrOpInfo cr_op_row_LINALG_SOLVE = {
  CR_OP_LINALG_SOLVE, "linalg_solve", "LinalgSolveExBackward0", 2, "solve",
  "X = A⁻¹B:  ∂L/∂B = A⁻ᵀ G,  ∂L/∂A = −(A⁻ᵀ G) Xᵀ",
  solve_backward, NULL
};

/* b is a vector (or a batch of them) in PyTorch's sense: 1-d, or one dim
 * fewer than A with A's batch and row sizes. */
static gboolean
is_vector_rhs (const CrTensor *a,
               const CrTensor *b)
{
  return b->ndim == 1
         || (b->ndim == a->ndim - 1 && memcmp (b->shape, a->shape, sizeof (gint64) * b->ndim) == 0);
}

CrTensor *
cr_linalg_solve (CrTensor  *a,
                 CrTensor  *b,
                 GError   **error)
{
  gint64 n, m, batch = 1;
  gint64 bshape[CR_MAX_DIMS], ashape[CR_MAX_DIMS], xshape[CR_MAX_DIMS];
  int nbatch, bm_ndim;
  gboolean vector;
  g_autoptr(CrTensor) bm = NULL;
  g_autoptr(CrTensor) ae = NULL;
  g_autoptr(CrTensor) be = NULL;
  g_autofree double *bv = NULL;
  CrTensor *inputs[2] = { a, b };
  CrTensor *result;
  CrNode *node;
  gboolean was_enabled;
  LuBatch f;

  if (!check_square (a, "linalg.solve", error))
    return NULL;
  if (b->dtype != a->dtype)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "linalg.solve: Expected A and B to have the same dtype, but found A of type "
                   "%s and B of type %s instead", cr_dtype_scalar_name (a->dtype),
                   cr_dtype_scalar_name (b->dtype));
      return NULL;
    }
  n = a->shape[a->ndim - 1];
  vector = is_vector_rhs (a, b);
  /* B as matrices (..., n, m): a vector gets a column. */
  was_enabled = cr_grad_mode_set_enabled (FALSE);
  bm = vector ? cr_unsqueeze (b, -1, error) : cr_tensor_ref (b);
  cr_grad_mode_set_enabled (was_enabled);
  if (bm == NULL)
    return NULL;
  if (bm->ndim < 2 || bm->shape[bm->ndim - 2] != n)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "linalg.solve: Incompatible shapes of A and B for the equation AX = B "
                   "(%" G_GINT64_FORMAT "x%" G_GINT64_FORMAT " and %" G_GINT64_FORMAT "x%"
                   G_GINT64_FORMAT ")", n, n, bm->ndim >= 2 ? bm->shape[bm->ndim - 2] : bm->shape[0],
                   bm->shape[bm->ndim - 1]);
      return NULL;
    }
  m = bm->shape[bm->ndim - 1];
  if (!cr_shape_broadcast (a->shape, a->ndim - 2, bm->shape, bm->ndim - 2, bshape, &nbatch, error))
    return NULL;
  for (int d = 0; d < nbatch; d++)
    batch *= bshape[d];
  memcpy (ashape, bshape, sizeof (gint64) * nbatch);
  ashape[nbatch] = ashape[nbatch + 1] = n;
  memcpy (xshape, bshape, sizeof (gint64) * nbatch);
  xshape[nbatch] = n;
  xshape[nbatch + 1] = m;
  bm_ndim = nbatch + 2;

  was_enabled = cr_grad_mode_set_enabled (FALSE);
  ae = cr_expand (a, ashape, nbatch + 2, error);
  be = ae != NULL ? cr_expand (bm, xshape, bm_ndim, error) : NULL;
  cr_grad_mode_set_enabled (was_enabled);
  if (be == NULL || (bv = host_values (be, error)) == NULL || !lu_batch_factor (&f, ae, error))
    return NULL;
  for (gint64 k = 0; k < batch; k++)
    {
      if (f.info[k] != 0)
        {
          g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                               "torch.linalg.solve: The solver failed because the input matrix "
                               "is singular.");
          lu_batch_clear (&f);
          return NULL;
        }
      lu_solve (f.lu + k * n * n, f.piv + k * n, n, bv + k * n * m, m);
    }
  lu_batch_clear (&f);
  /* X has B's form: a vector's column goes again. */
  result = tensor_from_values (bv, xshape, vector ? nbatch + 1 : nbatch + 2, a->dtype, a->device,
                               error);
  if (result != NULL && (node = cr_ops_record (CR_OP_LINALG_SOLVE, inputs, 2, result)) != NULL)
    {
      cr_node_args (node)->ints[0] = vector;
      cr_node_save (node, 0, a, FALSE);
      cr_node_save (node, 1, result, TRUE);
    }
  return result;
}
