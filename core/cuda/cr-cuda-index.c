/* cr-cuda-index.c — matrix products (the module's cuBLAS gemm), cat (strided
 * copies into slices of the output, as the CPU does), take/put and
 * nonzero_flat on CUDA tensors. */
#include "cr-cuda-private.h"

#include <string.h>

#define api cr_cuda_api
#define CALL CR_CUDA_CALL

/* ---- matrix products -------------------------------------------------------------- */

static gboolean
check_mm_dtypes (const CrTensor *a, const CrTensor *b, const char *kernel, GError **error)
{
  if (a->dtype != b->dtype)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "expected scalar type %s but found %s",
                   cr_dtype_scalar_name (a->dtype), cr_dtype_scalar_name (b->dtype));
      return FALSE;
    }
  if (!cr_dtype_is_floating (a->dtype))
    {
      /* cuBLAS has no integer gemm; PyTorch 1.13 on CUDA says the same. */
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "\"%s\" not implemented for '%s'", kernel, cr_dtype_scalar_name (a->dtype));
      return FALSE;
    }
  return TRUE;
}

/* Whether dims (r, c) of t are a row-major (*out_row) or column-major
 * matrix cuBLAS can read as is; a size-1 dim's stride does not matter. */
static gboolean
gemm_layout (const CrTensor *t, int r, int c, gboolean *out_row)
{
  gint64 rows = t->shape[r], cols = t->shape[c];
  gint64 sr = t->strides[r], sc = t->strides[c];

  *out_row = TRUE;
  if ((sc == 1 || cols == 1) && (rows == 1 || sr >= MAX (1, cols)))
    return TRUE;
  *out_row = FALSE;
  return (sr == 1 || rows == 1) && (cols == 1 || sc >= MAX (1, rows));
}

static gboolean
gemm_ready (const CrTensor *t, int r, int c)
{
  gboolean row;
  return gemm_layout (t, r, c, &row);
}

/* The ABI's 3-d view of t: (B, rows, cols), batch stride 0 for a 2-d t, with
 * the strides of size-1 dims set so that the layout is the one the ABI's
 * row-/column-major test sees. t passed gemm_ready. */
static void
describe_matrix (const CrTensor *t, CrCudaTensor *d)
{
  int lead = t->ndim == 2 ? 1 : 0;
  gint64 rows, cols;
  gboolean row;

  memset (d, 0, sizeof *d);
  d->data = t->storage->data;
  d->dtype = t->dtype;
  d->ndim = 3;
  d->offset = t->offset;
  d->shape[0] = lead ? 1 : t->shape[0];
  d->strides[0] = lead || d->shape[0] == 1 ? 0 : t->strides[0];
  rows = d->shape[1] = t->shape[1 - lead];
  cols = d->shape[2] = t->shape[2 - lead];
  gemm_layout (t, 1 - lead, 2 - lead, &row);
  if (row)
    {
      d->strides[2] = 1;
      d->strides[1] = rows == 1 ? MAX (1, cols) : t->strides[1 - lead];
    }
  else
    {
      d->strides[1] = 1;
      d->strides[2] = cols == 1 ? MAX (1, rows) : t->strides[2 - lead];
    }
}

/* t as a gemm operand on the device: itself when cuBLAS can read dims
 * (r, r + 1) as they lie, else a contiguous copy. */
static CrTensor *
gemm_operand (const CrTensor *t_in, int r, GError **error)
{
  g_autoptr(CrTensor) t = cr_cuda_operand (t_in, error);

  if (t == NULL || gemm_ready (t, r, r + 1))
    return g_steal_pointer (&t);
  return cr_tensor_copy (t, error);
}

static CrTensor *
gemm (const CrTensor *a_in, const CrTensor *b_in, const gint64 *shape, int ndim, GError **error)
{
  g_autoptr(CrTensor) a = NULL;
  g_autoptr(CrTensor) b = NULL;
  int r = ndim == 3 ? 1 : 0;
  CrCudaTensor dout, da, db;
  CrTensor *out;

  /* The output's storage size first: a product no device could hold fails
   * with PyTorch's device-neutral error, not with cuBLAS's limit. */
  if (!cr_shape_check_storage (shape, ndim, a_in->dtype, error))
    return NULL;
  /* cuBLAS takes int sizes (the ABI's promise). */
  for (int i = 0; i < ndim; i++)
    if (a_in->shape[i] > G_MAXINT || b_in->shape[i] > G_MAXINT)
      {
        g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                             "CUDA matrix products take sizes below 2^31");
        return NULL;
      }
  a = gemm_operand (a_in, r, error);
  b = a != NULL ? gemm_operand (b_in, r, error) : NULL;
  if (b == NULL)
    return NULL;
  out = cr_cuda_new_out (shape, ndim, a->dtype, error);
  if (out == NULL || out->numel == 0)
    return out;
  describe_matrix (out, &dout);
  describe_matrix (a, &da);
  describe_matrix (b, &db);
  if (!CALL (gemm, &dout, &da, &db))
    g_clear_pointer (&out, cr_tensor_unref);
  return out;
}

/* mm or bmm: the shape checks shared with the CPU, then one gemm. */
static CrTensor *
product (const CrTensor *a, const CrTensor *b, gboolean batched, GError **error)
{
  gint64 shape[3];

  if (a->device != b->device)
    {
      cr_set_mixed_device_error (error, a->device, b->device);
      return NULL;
    }
  if (!(batched ? cr_shape_check_bmm (a, b, shape, error) : cr_shape_check_mm (a, b, shape, error))
      || !check_mm_dtypes (a, b, batched ? "bmm_cuda" : "addmm_cuda", error))
    return NULL;
  return gemm (a, b, shape, batched ? 3 : 2, error);
}

CrTensor *
cr_cuda_mm (const CrTensor *a, const CrTensor *b, GError **error)
{
  return product (a, b, FALSE, error);
}

CrTensor *
cr_cuda_bmm (const CrTensor *a, const CrTensor *b, GError **error)
{
  return product (a, b, TRUE, error);
}

/* ---- cat ------------------------------------------------------------------------------ */

CrTensor *
cr_cuda_cat (CrTensor *const *tensors, guint n, int dim, GError **error)
{
  for (guint i = 0; i < n; i++)
    if (tensors[i]->device != CR_DEVICE_CUDA)
      {
        /* PyTorch 1.13's wording for cat over devices. */
        g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                     "Expected all tensors to be on the same device, but found at least two "
                     "devices, cuda:0 and cpu! (when checking argument for argument tensors "
                     "in method wrapper_cat)");
        return NULL;
      }
  /* The shape rules and the slice copies are the CPU's. */
  return cr_cpu_cat_on (tensors, n, dim, CR_DEVICE_CUDA, error);
}

/* ---- take / put / nonzero ----------------------------------------------------------- */

CrTensor *
cr_cuda_take (const CrTensor *x_in, const CrTensor *index_in, GError **error)
{
  g_autoptr(CrTensor) x = NULL;
  g_autoptr(CrTensor) index = NULL;
  CrCudaTensor dout, dx, di;
  CrTensor *out;

  if (!cr_cpu_check_index_dtype (index_in, "take", error))
    return NULL;
  x = cr_cuda_operand (x_in, error);
  index = x != NULL ? cr_cuda_operand (index_in, error) : NULL;
  if (index == NULL)
    return NULL;
  out = cr_cuda_new_out (index->shape, index->ndim, x->dtype, error);
  if (out == NULL || out->numel == 0)
    return out;
  if (x->numel == 0)
    {
      /* Every index is out of range of an empty tensor; the CPU's message. */
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_INDEX_ERROR,
                           "take(): tried to take from an empty tensor");
      cr_tensor_unref (out);
      return NULL;
    }
  cr_cuda_describe (out, &dout);
  cr_cuda_describe (x, &dx);
  cr_cuda_describe (index, &di);
  if (!CALL (take, &dout, &dx, &di))
    g_clear_pointer (&out, cr_tensor_unref);
  return out;
}

gboolean
cr_cuda_put (CrTensor *dst, const CrTensor *index_in, const CrTensor *values_in,
             gboolean accumulate, GError **error)
{
  g_autoptr(CrTensor) index = NULL;
  g_autoptr(CrTensor) vals = NULL;
  CrCudaTensor dd, di, dv;

  if (dst->device != CR_DEVICE_CUDA)
    {
      cr_set_mixed_device_error (error, CR_DEVICE_CUDA, dst->device);
      return FALSE;
    }
  if (!cr_cpu_check_index_dtype (index_in, "put_", error))
    return FALSE;
  index = cr_cuda_operand (index_in, error);
  if (index == NULL)
    return FALSE;
  /* The values in dst's dtype with the index's shape, in a buffer of their
   * own (which also protects against values that alias dst). */
  vals = cr_cuda_new_out (index->shape, index->ndim, dst->dtype, error);
  if (vals == NULL || !cr_cuda_copy_into (vals, values_in, error))
    return FALSE;
  if (index->numel == 0)
    return TRUE;
  cr_cuda_describe (dst, &dd);
  cr_cuda_describe (index, &di);
  cr_cuda_describe (vals, &dv);
  return CALL (put, &dd, &di, &dv, accumulate);
}

CrTensor *
cr_cuda_nonzero_flat (const CrTensor *mask_in, GError **error)
{
  g_autoptr(CrTensor) mask = cr_cuda_operand (mask_in, error);
  CrCudaTensor dm, dout;
  gint64 count = 0;
  CrTensor *out;

  if (mask == NULL)
    return NULL;
  cr_cuda_describe (mask, &dm);
  if (mask->numel > 0 && !CALL (count_nonzero, &dm, &count))
    return NULL;
  out = cr_cuda_new_out (&count, 1, CR_DTYPE_INT64, error);
  if (out == NULL || count == 0)
    return out;
  cr_cuda_describe (out, &dout);
  if (!CALL (nonzero_flat, &dout, &dm))
    g_clear_pointer (&out, cr_tensor_unref);
  return out;
}
