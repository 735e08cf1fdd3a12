/* cr-cuda-ops.c — the CrBackend members of CR_DEVICE_CUDA: PyTorch's dtype
 * rules and shape checks (as the CPU kernels apply them), output allocation,
 * then one call into the module's kernels (gpu/cr-cuda-abi.h says what each
 * kernel may assume). */
#include "cr-cuda-private.h"

#include <math.h>
#include <string.h>

#define api cr_cuda_api
#define CALL CR_CUDA_CALL

/* ---- unary ---------------------------------------------------------------------- */

static CrTensor *
cuda_unary (CrUnaryOp op, const CrTensor *x_in, const double *params, GError **error)
{
  g_autoptr(CrTensor) x = cr_cuda_operand (x_in, error);
  g_autoptr(CrTensor) xc = NULL;
  CrDType in_dtype, out_dtype;
  CrCudaTensor dout, dx;
  CrTensor *out;

  /* The row's dtype rule, as on the CPU, with CUDA's kernel names. */
  if (x == NULL || !cr_unary_op_dtypes (op, x->dtype, TRUE, &in_dtype, &out_dtype, error))
    return NULL;
  xc = cr_cuda_as_dtype (x, in_dtype, error);
  if (xc == NULL)
    return NULL;

  out = cr_cuda_new_out (x->shape, x->ndim, out_dtype, error);
  if (out == NULL)
    return NULL;
  cr_cuda_describe (out, &dout);
  cr_cuda_describe (xc, &dx);
  /* A row with parameters has its own member (rows without keep the
   * first ABI's). */
  if (out->numel > 0
      && !(cr_unary_op_has_params (op) ? CALL (unary_params, (int) op, &dout, &dx, params)
                                       : CALL (unary, (int) op, &dout, &dx)))
    g_clear_pointer (&out, cr_tensor_unref);
  return out;
}

/* ---- binary --------------------------------------------------------------------- */

/* Compute and result dtypes of op(a, b): the row's rule and the CPU's
 * checks, with CUDA's kernel names (bool pow, floor_divide and remainder are
 * "not implemented" as PyTorch's CUDA kernels say). */
static gboolean
plan_binary (CrBinaryOp op, const CrTensor *a, const CrTensor *b, CrDType *compute,
             CrDType *result, GError **error)
{
  return cr_cpu_binary_dtypes (op, a, b, TRUE, compute, result, error);
}

/* binary_run's op for out = a + alpha * b (the module's add_scaled). */
#define OP_ADD_SCALED CR_BINARY_COUNT

/* out = op(a, b) (a and b in compute first) where out already has the
 * broadcast shape and the result dtype and does not overlap a or b
 * partially. alpha only for OP_ADD_SCALED. */
static gboolean
binary_run (guint op, CrTensor *out, const CrTensor *a_in, const CrTensor *b_in,
            CrDType compute, double alpha, GError **error)
{
  g_autoptr(CrTensor) a = cr_cuda_as_dtype (a_in, compute, error);
  g_autoptr(CrTensor) b = a != NULL ? cr_cuda_as_dtype (b_in, compute, error) : NULL;
  CrCudaTensor dout, da, db;

  if (b == NULL)
    return FALSE;
  /* int64 division by zero fails as on the CPU (the kernel would write 0):
   * counting b's nonzero elements waits for the device. */
  if (compute == CR_DTYPE_INT64 && op != OP_ADD_SCALED && cr_binary_op_divides (op)
      && b->numel > 0)
    {
      CrCudaTensor dzero;
      gint64 nonzero = 0;

      cr_cuda_describe (b, &dzero);
      if (!CALL (count_nonzero, &dzero, &nonzero))
        return FALSE;
      if (nonzero < b->numel)
        {
          g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR, "ZeroDivisionError");
          return FALSE;
        }
    }
  if (out->numel == 0)
    return TRUE;
  cr_cuda_describe (out, &dout);
  cr_cuda_describe_expanded (a, out->shape, out->ndim, &da);
  cr_cuda_describe_expanded (b, out->shape, out->ndim, &db);
  if (op == OP_ADD_SCALED)
    return CALL (add_scaled, &dout, &da, &db, alpha);
  return CALL (binary, (int) op, &dout, &da, &db);
}

static CrTensor *
cuda_binary (CrBinaryOp op, const CrTensor *a_in, const CrTensor *b_in, GError **error)
{
  g_autoptr(CrTensor) a = NULL;
  g_autoptr(CrTensor) b = NULL;
  gint64 shape[CR_MAX_DIMS];
  CrDType compute, result;
  int ndim;
  CrTensor *out;

  /* Mixed devices are reported in operand order, as PyTorch. */
  if (a_in->device != b_in->device && a_in->ndim > 0 && b_in->ndim > 0)
    {
      cr_set_mixed_device_error (error, a_in->device, b_in->device);
      return NULL;
    }
  if (!plan_binary (op, a_in, b_in, &compute, &result, error))
    return NULL;
  a = cr_cuda_operand (a_in, error);
  b = a != NULL ? cr_cuda_operand (b_in, error) : NULL;
  if (b == NULL || !cr_shape_broadcast (a->shape, a->ndim, b->shape, b->ndim, shape, &ndim, error))
    return NULL;
  out = cr_cuda_new_out (shape, ndim, result, error);
  if (out != NULL && !binary_run (op, out, a, b, compute, 0.0, error))
    g_clear_pointer (&out, cr_tensor_unref);
  return out;
}

/* Writing out while reading t is safe when they share nothing or are the
 * very same view (the ABI's in-place case). */
static gboolean
safe_alias (const CrTensor *out, const CrTensor *t)
{
  if (out->storage != t->storage)
    return TRUE;
  return out->offset == t->offset && out->dtype == t->dtype
         && cr_shape_equal (out->shape, out->ndim, t->shape, t->ndim)
         && memcmp (out->strides, t->strides, sizeof (gint64) * out->ndim) == 0;
}

static gboolean
cuda_binary_into (CrBinaryOp op, CrTensor *out, const CrTensor *a_in, const CrTensor *b_in,
                  GError **error)
{
  g_autoptr(CrTensor) a = NULL;
  g_autoptr(CrTensor) b = NULL;
  gint64 shape[CR_MAX_DIMS];
  CrDType compute, result;
  int ndim;

  if (out->device != CR_DEVICE_CUDA)
    {
      cr_set_mixed_device_error (error, CR_DEVICE_CUDA, out->device);
      return FALSE;
    }
  if (!plan_binary (op, a_in, b_in, &compute, &result, error))
    return FALSE;
  a = cr_cuda_operand (a_in, error);
  b = a != NULL ? cr_cuda_operand (b_in, error) : NULL;
  if (b == NULL || !cr_cpu_check_into (out, a, b, result, shape, &ndim, error))
    return FALSE;
  if (result == out->dtype && safe_alias (out, a) && safe_alias (out, b)
      && (a->dtype == compute || out->storage != a->storage)
      && (b->dtype == compute || out->storage != b->storage))
    return binary_run (op, out, a, b, compute, 0.0, error);
  {
    /* Another dtype or an overlap the kernel cannot take: a temporary. */
    g_autoptr(CrTensor) tmp = cr_cuda_new_out (shape, ndim, result, error);
    return tmp != NULL && binary_run (op, tmp, a, b, compute, 0.0, error)
           && cr_cuda_copy_into (out, tmp, error);
  }
}

static CrTensor *
cuda_add_scaled (const CrTensor *a_in, const CrTensor *b_in, double alpha, GError **error)
{
  g_autoptr(CrTensor) a = NULL;
  g_autoptr(CrTensor) b = NULL;
  gint64 shape[CR_MAX_DIMS];
  CrDType ct = cr_dtype_result_type (a_in, b_in);
  int ndim;
  CrTensor *out;

  if (ct == CR_DTYPE_BOOL)
    ct = CR_DTYPE_INT64;   /* the kernel has no bool a + alpha * b */
  if (!cr_cpu_check_alpha (ct, alpha, error))
    return NULL;
  a = cr_cuda_operand (a_in, error);
  b = a != NULL ? cr_cuda_operand (b_in, error) : NULL;
  if (b == NULL || !cr_shape_broadcast (a->shape, a->ndim, b->shape, b->ndim, shape, &ndim, error))
    return NULL;
  out = cr_cuda_new_out (shape, ndim, ct, error);
  if (out != NULL && !binary_run (OP_ADD_SCALED, out, a, b, out->dtype, alpha, error))
    g_clear_pointer (&out, cr_tensor_unref);
  if (out != NULL && ct != cr_dtype_result_type (a_in, b_in))
    {
      CrTensor *cast = cr_cuda_as_dtype (out, CR_DTYPE_BOOL, error);
      cr_tensor_unref (out);
      out = cast;
    }
  return out;
}

static gboolean
cuda_add_scaled_into (CrTensor *out, const CrTensor *b_in, double alpha, GError **error)
{
  g_autoptr(CrTensor) b = NULL;
  gint64 shape[CR_MAX_DIMS];
  int ndim;

  if (out->device != CR_DEVICE_CUDA)
    {
      cr_set_mixed_device_error (error, CR_DEVICE_CUDA, out->device);
      return FALSE;
    }
  if (!cr_cpu_check_alpha (out->dtype, alpha, error))
    return FALSE;
  /* The CPU's checks for out += alpha * b: b broadcasts to out, and the
   * result type can be cast to out's dtype. */
  b = cr_cuda_operand (b_in, error);
  if (b == NULL
      || !cr_cpu_check_into (out, out, b, cr_dtype_result_type (out, b_in), shape, &ndim, error))
    return FALSE;
  if (out->dtype == CR_DTYPE_BOOL || !safe_alias (out, b) || b->dtype != out->dtype)
    {
      /* Through a temporary of the promoted result (the rare cases). */
      g_autoptr(CrTensor) tmp = cuda_add_scaled (out, b, alpha, error);
      return tmp != NULL && cr_cuda_copy_into (out, tmp, error);
    }
  return binary_run (OP_ADD_SCALED, out, out, b, out->dtype, alpha, error);
}

static CrTensor *
cuda_clamp (const CrTensor *x_in, gboolean has_min, double min, gboolean has_max, double max,
            GError **error)
{
  g_autoptr(CrTensor) x = NULL;
  CrCudaTensor dout, dx;
  CrDType ct;
  gboolean fill_nan;
  CrTensor *out;

  if (!has_min && !has_max)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "torch.clamp: At least one of 'min' or 'max' must not be None");
      return NULL;
    }
  x = cr_cuda_operand (x_in, error);
  if (x == NULL)
    return NULL;
  if (x->dtype == CR_DTYPE_BOOL)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "\"clamp_cuda\" not implemented for 'Bool'");
      return NULL;
    }
  /* The CPU's dtype and NaN rule; the kernel gets x in the compute dtype. */
  if (!cr_cpu_clamp_rule (x->dtype, has_min, min, has_max, max, &ct, &fill_nan, error))
    return NULL;
  if (fill_nan)
    return cr_tensor_new_full (x->shape, x->ndim, NAN, ct, CR_DEVICE_CUDA, error);
  if (ct != x->dtype)
    {
      CrTensor *cast = cr_cuda_as_dtype (x, ct, error);

      if (cast == NULL)
        return NULL;
      cr_tensor_unref (x);
      x = cast;
    }
  out = cr_cuda_new_out (x->shape, x->ndim, x->dtype, error);
  if (out == NULL || out->numel == 0)
    return out;
  cr_cuda_describe (out, &dout);
  cr_cuda_describe (x, &dx);
  if (!CALL (clamp, &dout, &dx, has_min, min, has_max, max))
    g_clear_pointer (&out, cr_tensor_unref);
  return out;
}

static CrTensor *
cuda_where (const CrTensor *cond_in, const CrTensor *a_in, const CrTensor *b_in, GError **error)
{
  g_autoptr(CrTensor) cond = NULL;
  g_autoptr(CrTensor) a = NULL;
  g_autoptr(CrTensor) b = NULL;
  g_autoptr(CrTensor) ac = NULL;
  g_autoptr(CrTensor) bc = NULL;
  gint64 s1[CR_MAX_DIMS], shape[CR_MAX_DIMS];
  int n1, ndim;
  CrCudaTensor dout, dc, da, db;
  CrDType dtype;
  CrTensor *out;

  if (cond_in->dtype != CR_DTYPE_BOOL)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "where expected condition to be a boolean tensor, but got a tensor with "
                   "dtype %s", cr_dtype_scalar_name (cond_in->dtype));
      return NULL;
    }
  dtype = cr_dtype_result_type (a_in, b_in);
  cond = cr_cuda_operand (cond_in, error);
  a = cond != NULL ? cr_cuda_operand (a_in, error) : NULL;
  b = a != NULL ? cr_cuda_operand (b_in, error) : NULL;
  if (b == NULL
      || !cr_shape_broadcast (cond->shape, cond->ndim, a->shape, a->ndim, s1, &n1, error)
      || !cr_shape_broadcast (s1, n1, b->shape, b->ndim, shape, &ndim, error))
    return NULL;
  ac = cr_cuda_as_dtype (a, dtype, error);
  bc = ac != NULL ? cr_cuda_as_dtype (b, dtype, error) : NULL;
  if (bc == NULL)
    return NULL;
  out = cr_cuda_new_out (shape, ndim, dtype, error);
  if (out == NULL || out->numel == 0)
    return out;
  cr_cuda_describe (out, &dout);
  cr_cuda_describe_expanded (cond, shape, ndim, &dc);
  cr_cuda_describe_expanded (ac, shape, ndim, &da);
  cr_cuda_describe_expanded (bc, shape, ndim, &db);
  if (!CALL (where, &dout, &dc, &da, &db))
    g_clear_pointer (&out, cr_tensor_unref);
  return out;
}

/* ---- reductions ------------------------------------------------------------------ */

/* op over mask into a new tensor of out_dtype (x cast to in_dtype first). */
static CrTensor *
reduce_new (CrCudaReduceOp op, const CrTensor *x_in, guint32 mask, gboolean keepdim,
            CrDType in_dtype, CrDType out_dtype, GError **error)
{
  g_autoptr(CrTensor) x = cr_cuda_operand (x_in, error);
  g_autoptr(CrTensor) xc = NULL;
  gint64 shape[CR_MAX_DIMS];
  int ndim = 0;
  CrCudaTensor dout, dx;
  CrTensor *out;

  if (x == NULL)
    return NULL;
  xc = cr_cuda_as_dtype (x, in_dtype, error);
  if (xc == NULL)
    return NULL;
  for (int d = 0; d < x->ndim; d++)
    if (!((mask >> d) & 1))
      shape[ndim++] = x->shape[d];
    else if (keepdim)
      shape[ndim++] = 1;
  out = cr_cuda_new_out (shape, ndim, out_dtype, error);
  if (out == NULL || out->numel == 0)
    return out;
  cr_cuda_describe_keepdim (out, xc, mask, &dout);
  cr_cuda_describe (xc, &dx);
  if (!CALL (reduce, (int) op, &dout, &dx, mask))
    g_clear_pointer (&out, cr_tensor_unref);
  return out;
}

/* sum and prod: int64 for integer and bool inputs, as on the CPU. */
static CrTensor *
sum_or_prod (CrCudaReduceOp op, const CrTensor *x, const int *dims, int n_dims, gboolean keepdim,
             GError **error)
{
  guint32 mask;
  CrDType dt = cr_dtype_is_floating (x->dtype) ? x->dtype : CR_DTYPE_INT64;

  if (!cr_cpu_reduce_dims (x, dims, n_dims, &mask, error))
    return NULL;
  return reduce_new (op, x, mask, keepdim, dt, dt, error);
}

static CrTensor *
cuda_sum (const CrTensor *x, const int *dims, int n_dims, gboolean keepdim, GError **error)
{
  return sum_or_prod (CR_CUDA_REDUCE_SUM, x, dims, n_dims, keepdim, error);
}

static CrTensor *
cuda_prod (const CrTensor *x, const int *dims, int n_dims, gboolean keepdim, GError **error)
{
  return sum_or_prod (CR_CUDA_REDUCE_PROD, x, dims, n_dims, keepdim, error);
}

static CrTensor *
cuda_mean (const CrTensor *x, const int *dims, int n_dims, gboolean keepdim, GError **error)
{
  guint32 mask;

  if (!cr_dtype_is_floating (x->dtype))
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "mean(): could not infer output dtype. Input dtype must be either a "
                   "floating point or complex dtype. Got: %s", cr_dtype_scalar_name (x->dtype));
      return NULL;
    }
  if (!cr_cpu_reduce_dims (x, dims, n_dims, &mask, error))
    return NULL;
  return reduce_new (CR_CUDA_REDUCE_MEAN, x, mask, keepdim, x->dtype, x->dtype, error);
}

static CrTensor *
cuda_sum_to_shape (const CrTensor *x_in, const gint64 *shape, int ndim, GError **error)
{
  g_autoptr(CrTensor) x = NULL;
  g_autoptr(CrTensor) xc = NULL;
  CrCudaTensor dout, dx;
  guint32 mask = 0;
  int lead = x_in->ndim - ndim;
  CrDType dt;
  CrTensor *out;

  if (cr_shape_equal (x_in->shape, x_in->ndim, shape, ndim))
    return cr_tensor_ref ((CrTensor *) x_in);
  if (lead < 0)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "sum_to_shape: the target has more dims than the tensor");
      return NULL;
    }
  for (int d = 0; d < x_in->ndim; d++)
    if (d < lead || (shape[d - lead] == 1 && x_in->shape[d] != 1))
      mask |= 1u << d;
  x = cr_cuda_operand (x_in, error);
  if (x == NULL)
    return NULL;
  dt = cr_dtype_is_floating (x->dtype) ? x->dtype : CR_DTYPE_INT64;
  xc = cr_cuda_as_dtype (x, dt, error);
  out = xc != NULL ? cr_cuda_new_out (shape, ndim, dt, error) : NULL;
  if (out == NULL || out->numel == 0)
    return out;
  cr_cuda_describe_keepdim (out, xc, mask, &dout);
  cr_cuda_describe (xc, &dx);
  if (!CALL (reduce, CR_CUDA_REDUCE_SUM, &dout, &dx, mask))
    g_clear_pointer (&out, cr_tensor_unref);
  /* The CPU keeps the input's dtype for bool/int (the gradient's dtype). */
  if (out != NULL && out->dtype != x->dtype)
    {
      CrTensor *cast = cr_cuda_as_dtype (out, x->dtype, error);
      cr_tensor_unref (out);
      out = cast;
    }
  return out;
}

static CrTensor *
cuda_max_all (const CrTensor *x, gboolean is_min, GError **error)
{
  guint32 mask = x->ndim > 0 ? (guint32) ((1u << x->ndim) - 1) : 0;
  CrCudaReduceOp op = is_min ? CR_CUDA_REDUCE_MIN : CR_CUDA_REDUCE_MAX;

  if (x->numel == 0)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "%s(): Expected reduction dim to be specified for input.numel() == 0. "
                   "Specify the reduction dim with the 'dim' argument.", is_min ? "min" : "max");
      return NULL;
    }
  if (x->dtype == CR_DTYPE_BOOL)
    /* max of bools is any, min is all. */
    return reduce_new (is_min ? CR_CUDA_REDUCE_ALL : CR_CUDA_REDUCE_ANY, x, mask, FALSE,
                       CR_DTYPE_BOOL, CR_DTYPE_BOOL, error);
  return reduce_new (op, x, mask, FALSE, x->dtype, x->dtype, error);
}

/* max/min along dim d (wrapped) of x (on the device, ndim >= 1); values may be skipped. */
static gboolean
max_dim_run (const CrTensor *x, int d, gboolean keepdim, gboolean is_min, CrTensor **out_values,
             CrTensor **out_indices, GError **error)
{
  gint64 shape[CR_MAX_DIMS];
  int ndim = 0;
  CrCudaTensor dv, di, dx;
  g_autoptr(CrTensor) values = NULL;
  g_autoptr(CrTensor) indices = NULL;

  for (int i = 0; i < x->ndim; i++)
    if (i != d)
      shape[ndim++] = x->shape[i];
    else if (keepdim)
      shape[ndim++] = 1;
  indices = cr_cuda_new_out (shape, ndim, CR_DTYPE_INT64, error);
  if (indices == NULL)
    return FALSE;
  if (out_values != NULL && (values = cr_cuda_new_out (shape, ndim, x->dtype, error)) == NULL)
    return FALSE;
  if (indices->numel > 0)
    {
      cr_cuda_describe (x, &dx);
      cr_cuda_describe_keepdim (indices, x, 1u << d, &di);
      if (values != NULL)
        cr_cuda_describe_keepdim (values, x, 1u << d, &dv);
      if (!CALL (max_dim, values != NULL ? &dv : NULL, &di, &dx, d, is_min))
        return FALSE;
    }
  if (out_values != NULL)
    *out_values = g_steal_pointer (&values);
  *out_indices = g_steal_pointer (&indices);
  return TRUE;
}

/* x on the device, viewed as [1] when 0-d. */
static CrTensor *
at_least_1d (const CrTensor *x_in, GError **error)
{
  g_autoptr(CrTensor) x = cr_cuda_operand (x_in, error);
  gint64 one = 1;

  if (x == NULL || x->ndim > 0)
    return g_steal_pointer (&x);
  return cr_tensor_new_view (x, &one, 1, &one, x->offset);
}

static gboolean
cuda_max_dim (const CrTensor *x_in, int dim, gboolean keepdim, gboolean is_min,
              CrTensor **out_values, CrTensor **out_indices, GError **error)
{
  g_autoptr(CrTensor) x = NULL;
  CrTensor *values = NULL, *indices = NULL;
  int d;

  if (!cr_cpu_wrap_dim (dim, x_in->ndim, &d, error))
    return FALSE;
  if (x_in->ndim > 0 && x_in->shape[d] == 0)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_INDEX_ERROR,
                   "%s(): Expected reduction dim %d to have non-zero size.",
                   is_min ? "min" : "max", d);
      return FALSE;
    }
  x = at_least_1d (x_in, error);
  if (x == NULL || !max_dim_run (x, d, keepdim || x_in->ndim == 0, is_min, &values, &indices, error))
    return FALSE;
  if (x_in->ndim == 0)
    {
      /* A 0-d input gives 0-d results. */
      CrTensor *v = cr_tensor_new_view (values, NULL, 0, NULL, values->offset);
      CrTensor *i = cr_tensor_new_view (indices, NULL, 0, NULL, indices->offset);
      cr_tensor_unref (values);
      cr_tensor_unref (indices);
      values = v;
      indices = i;
    }
  *out_values = values;
  *out_indices = indices;
  return TRUE;
}

static CrTensor *
cuda_argmax (const CrTensor *x_in, gboolean has_dim, int dim, gboolean keepdim, gboolean is_min,
             GError **error)
{
  const char *name = is_min ? "argmin" : "argmax";
  g_autoptr(CrTensor) x = NULL;
  g_autoptr(CrTensor) flat = NULL;
  CrTensor *indices = NULL;
  int d = 0;

  if (has_dim)
    {
      if (!cr_cpu_wrap_dim (dim, x_in->ndim, &d, error))
        return NULL;
      if (x_in->ndim > 0 && x_in->shape[d] == 0)
        {
          g_set_error (error, CR_CORE_ERROR, CR_EXC_INDEX_ERROR,
                       "%s(): Expected reduction dim %d to have non-zero size.", name, d);
          return NULL;
        }
      x = at_least_1d (x_in, error);
      if (x == NULL || !max_dim_run (x, d, keepdim || x_in->ndim == 0, is_min, NULL, &indices,
                                     error))
        return NULL;
      if (x_in->ndim == 0)
        {
          CrTensor *i = cr_tensor_new_view (indices, NULL, 0, NULL, indices->offset);
          cr_tensor_unref (indices);
          indices = i;
        }
      return indices;
    }
  if (x_in->numel == 0)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_INDEX_ERROR,
                   "%s(): Expected reduction dim to be specified for input.numel() == 0.", name);
      return NULL;
    }
  /* Over everything: the flattened tensor. */
  {
    g_autoptr(CrTensor) xo = cr_cuda_operand (x_in, error);
    g_autoptr(CrTensor) xc = xo != NULL ? cr_cuda_contiguous (xo, error) : NULL;
    gint64 n = x_in->numel, one = 1;
    gint64 ones[CR_MAX_DIMS], zeros[CR_MAX_DIMS] = { 0 };

    if (xc == NULL)
      return NULL;
    flat = cr_tensor_new_view (xc, &n, 1, &one, xc->offset);
    if (!max_dim_run (flat, 0, FALSE, is_min, NULL, &indices, error))
      return NULL;
    if (keepdim)
      {
        CrTensor *i;
        for (int k = 0; k < x_in->ndim; k++)
          ones[k] = 1;
        i = cr_tensor_new_view (indices, ones, x_in->ndim, zeros, indices->offset);
        cr_tensor_unref (indices);
        indices = i;
      }
    return indices;
  }
}

/* Reads one bool of a 0-d device tensor (synchronous). */
static gboolean
read_bool (const CrTensor *t, gboolean *out_result, GError **error)
{
  guint8 v = 0;
  char msg[CR_CUDA_MSG_SIZE] = "";

  if (!cr_cuda_check (api->copy_d2h (&v, cr_tensor_data (t), 1, msg, sizeof msg), msg, error))
    return FALSE;
  *out_result = v != 0;
  return TRUE;
}

static gboolean
any_all (const CrTensor *x, gboolean all, gboolean *out_result, GError **error)
{
  guint32 mask = x->ndim > 0 ? (guint32) ((1u << x->ndim) - 1) : 0;
  g_autoptr(CrTensor) r = NULL;

  if (x->numel == 0)
    {
      *out_result = all;
      return TRUE;
    }
  r = reduce_new (all ? CR_CUDA_REDUCE_ALL : CR_CUDA_REDUCE_ANY, x, mask, FALSE, x->dtype,
                  CR_DTYPE_BOOL, error);
  return r != NULL && read_bool (r, out_result, error);
}

static gboolean
cuda_any (const CrTensor *x, gboolean *out_result, GError **error)
{
  return any_all (x, FALSE, out_result, error);
}

static gboolean
cuda_all (const CrTensor *x, gboolean *out_result, GError **error)
{
  return any_all (x, TRUE, out_result, error);
}

static gboolean
cuda_allclose (const CrTensor *a_in, const CrTensor *b_in, double rtol, double atol,
               gboolean *out_result, GError **error)
{
  g_autoptr(CrTensor) a = NULL;
  g_autoptr(CrTensor) b = NULL;
  g_autoptr(CrTensor) ac = NULL;
  g_autoptr(CrTensor) bc = NULL;
  gint64 shape[CR_MAX_DIMS];
  int ndim, result = 0;
  CrCudaTensor da, db;
  CrDType dt = cr_dtype_promote (a_in->dtype, b_in->dtype);

  if (a_in->device != b_in->device && a_in->ndim > 0 && b_in->ndim > 0)
    {
      cr_set_mixed_device_error (error, a_in->device, b_in->device);
      return FALSE;
    }
  a = cr_cuda_operand (a_in, error);
  b = a != NULL ? cr_cuda_operand (b_in, error) : NULL;
  if (b == NULL || !cr_shape_broadcast (a->shape, a->ndim, b->shape, b->ndim, shape, &ndim, error))
    return FALSE;
  ac = cr_cuda_as_dtype (a, dt, error);
  bc = ac != NULL ? cr_cuda_as_dtype (b, dt, error) : NULL;
  if (bc == NULL)
    return FALSE;
  if (cr_shape_numel (shape, ndim) == 0)
    {
      *out_result = TRUE;
      return TRUE;
    }
  cr_cuda_describe_expanded (ac, shape, ndim, &da);
  cr_cuda_describe_expanded (bc, shape, ndim, &db);
  if (!CALL (allclose, &da, &db, rtol, atol, &result))
    return FALSE;
  *out_result = result != 0;
  return TRUE;
}

/* ---- softmax ------------------------------------------------------------------- */

static CrTensor *
cuda_softmax (const CrTensor *x_in, int dim, gboolean log, GError **error)
{
  g_autoptr(CrTensor) x = NULL;
  CrCudaTensor dout, dx;
  CrTensor *out;
  int d;

  if (!cr_cpu_wrap_dim (dim, x_in->ndim, &d, error))
    return NULL;
  if (!cr_dtype_is_floating (x_in->dtype))
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "\"host_softmax\" not implemented for '%s'", cr_dtype_scalar_name (x_in->dtype));
      return NULL;
    }
  x = at_least_1d (x_in, error);
  if (x == NULL)
    return NULL;
  out = cr_cuda_new_out (x_in->shape, x_in->ndim, x_in->dtype, error);
  if (out == NULL || out->numel == 0)
    return out;
  cr_cuda_describe (x, &dx);
  cr_cuda_describe_expanded (out, x->shape, x->ndim, &dout);
  if (!CALL (softmax, &dout, &dx, d, log))
    g_clear_pointer (&out, cr_tensor_unref);
  return out;
}

static CrTensor *
cuda_softmax_backward (const CrTensor *grad_in, const CrTensor *out_in, int dim, gboolean log,
                       GError **error)
{
  g_autoptr(CrTensor) grad = NULL;
  g_autoptr(CrTensor) out = NULL;
  g_autoptr(CrTensor) g1 = NULL;
  CrCudaTensor dgi, dg, dout;
  CrTensor *result;
  int d;

  if (!cr_cpu_wrap_dim (dim, out_in->ndim, &d, error))
    return NULL;
  if (!cr_dtype_is_floating (out_in->dtype))
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "\"host_softmax_backward\" not implemented for '%s'",
                   cr_dtype_scalar_name (out_in->dtype));
      return NULL;
    }
  out = at_least_1d (out_in, error);
  grad = out != NULL ? at_least_1d (grad_in, error) : NULL;
  g1 = grad != NULL ? cr_cuda_as_dtype (grad, out_in->dtype, error) : NULL;
  if (g1 == NULL)
    return NULL;
  if (!cr_shape_equal (g1->shape, g1->ndim, out->shape, out->ndim))
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "softmax backward: grad and output shapes differ");
      return NULL;
    }
  result = cr_cuda_new_out (out_in->shape, out_in->ndim, out_in->dtype, error);
  if (result == NULL || result->numel == 0)
    return result;
  cr_cuda_describe_expanded (result, out->shape, out->ndim, &dgi);
  cr_cuda_describe (g1, &dg);
  cr_cuda_describe (out, &dout);
  if (!CALL (softmax_backward, &dgi, &dg, &dout, d, log))
    g_clear_pointer (&result, cr_tensor_unref);
  return result;
}

/* ---- the table --------------------------------------------------------------------- */

const CrBackend cr_cuda_backend = {
  .name = "CUDA",
  .unary = cuda_unary,
  .binary = cuda_binary,
  .binary_into = cuda_binary_into,
  .add_scaled = cuda_add_scaled,
  .add_scaled_into = cuda_add_scaled_into,
  .clamp = cuda_clamp,
  .where = cuda_where,
  .copy_into = cr_cuda_copy_into,
  .fill = cr_cuda_fill,
  .cast = cr_cuda_cast,
  .sum = cuda_sum,
  .mean = cuda_mean,
  .prod = cuda_prod,
  .sum_to_shape = cuda_sum_to_shape,
  .max_all = cuda_max_all,
  .max_dim = cuda_max_dim,
  .argmax = cuda_argmax,
  .softmax = cuda_softmax,
  .softmax_backward = cuda_softmax_backward,
  .any = cuda_any,
  .all = cuda_all,
  .allclose = cuda_allclose,
  .mm = cr_cuda_mm,
  .bmm = cr_cuda_bmm,
  .cat = cr_cuda_cat,
  .take = cr_cuda_take,
  .put = cr_cuda_put,
  .nonzero_flat = cr_cuda_nonzero_flat,
  .conv2d = cr_cuda_conv2d,
  .conv2d_input_grad = cr_cuda_conv2d_input_grad,
  .conv2d_weight_grad = cr_cuda_conv2d_weight_grad,
  .max_pool2d = cr_cuda_max_pool2d,
  .max_pool2d_backward = cr_cuda_max_pool2d_backward,
  .max_pool2d_gather = cr_cuda_max_pool2d_gather,
  .avg_pool2d = cr_cuda_avg_pool2d,
  .avg_pool2d_backward = cr_cuda_avg_pool2d_backward,
};
