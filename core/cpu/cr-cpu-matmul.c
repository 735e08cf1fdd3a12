/* cr-cpu-matmul.c — mm and bmm: OpenBLAS for float32/float64, plain loops for
 * int64.
 *
 * A matrix operand goes to BLAS as it lies in memory when it is row-major with
 * unit column stride, or column-major (a transposed contiguous matrix: the
 * usual case in backward, where mm(grad, w.t()) is common), with a transpose
 * flag instead of a copy; any other layout is copied first. */
#include "cr-cpu-private.h"

#include <cblas.h>

/* How BLAS should read a (rows x cols) matrix with the given strides; FALSE
 * when it cannot without a copy. */
static gboolean
blas_layout (gint64           rows,
             gint64           cols,
             gint64           row_stride,
             gint64           col_stride,
             CBLAS_TRANSPOSE *trans,
             gint64          *ld)
{
  /* Strides of size-1 dims are arbitrary: normalise them. */
  if (cols == 1)
    col_stride = 1;
  if (rows == 1)
    row_stride = MAX (cols, 1);

  if (col_stride == 1 && row_stride >= MAX (cols, 1))
    {
      *trans = CblasNoTrans;
      *ld = row_stride;
      return TRUE;
    }
  if (rows == 1 && cols >= 1)
    {
      /* A single row with a non-unit column stride: a column-major 1 x cols
       * matrix with leading dimension col_stride. */
      if (col_stride >= 1)
        {
          *trans = CblasTrans;
          *ld = col_stride;
          return TRUE;
        }
    }
  if (row_stride == 1 && col_stride >= MAX (rows, 1))
    {
      *trans = CblasTrans;
      *ld = col_stride;
      return TRUE;
    }
  return FALSE;
}

/* One product c (n x m, contiguous) = a (n x k) @ b (k x m) of strided views. */
static void
gemm_one (CrDType       dtype,
          gint64        n,
          gint64        k,
          gint64        m,
          const void   *a,
          CBLAS_TRANSPOSE ta,
          gint64        lda,
          const void   *b,
          CBLAS_TRANSPOSE tb,
          gint64        ldb,
          void         *c,
          gboolean      accumulate)
{
  if (n == 0 || m == 0)
    return;
  if (k == 0)
    {
      if (!accumulate)
        memset (c, 0, (gsize) (n * m) * cr_dtype_size (dtype));
      return;
    }
  /* Makes sure OpenBLAS got the configured thread count before its first call. */
  (void) cr_threads_get ();
  if (dtype == CR_DTYPE_FLOAT32)
    cblas_sgemm (CblasRowMajor, ta, tb, (blasint) n, (blasint) m, (blasint) k,
                 1.0f, a, (blasint) lda, b, (blasint) ldb, accumulate ? 1.0f : 0.0f,
                 c, (blasint) m);
  else
    cblas_dgemm (CblasRowMajor, ta, tb, (blasint) n, (blasint) m, (blasint) k,
                 1.0, a, (blasint) lda, b, (blasint) ldb, accumulate ? 1.0 : 0.0,
                 c, (blasint) m);
}

/* int64: i-k-j order so that the inner loop runs along contiguous rows. */
static void
gemm_int (gint64        n,
          gint64        k,
          gint64        m,
          const gint64 *a,
          gint64        sa0,
          gint64        sa1,
          const gint64 *b,
          gint64        sb0,
          gint64        sb1,
          gint64       *c)
{
  memset (c, 0, sizeof (gint64) * (gsize) (n * m));
  for (gint64 i = 0; i < n; i++)
    for (gint64 p = 0; p < k; p++)
      {
        gint64 av = a[i * sa0 + p * sa1];
        const gint64 *brow = b + p * sb0;
        gint64 *crow = c + i * m;

        if (sb1 == 1)
          for (gint64 j = 0; j < m; j++)
            crow[j] += av * brow[j];
        else
          for (gint64 j = 0; j < m; j++)
            crow[j] += av * brow[j * sb1];
      }
}

static gboolean
check_dtypes (const CrTensor  *a,
              const CrTensor  *b,
              const char      *kernel,
              GError         **error)
{
  if (a->dtype == CR_DTYPE_BOOL)
    {
      cr_cpu_set_not_implemented (error, kernel, a->dtype);
      return FALSE;
    }
  if (a->dtype != b->dtype)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "expected scalar type %s but found %s",
                   cr_dtype_scalar_name (a->dtype), cr_dtype_scalar_name (b->dtype));
      return FALSE;
    }
  return TRUE;
}

/* A matrix operand ready for BLAS: the tensor (maybe a contiguous copy), its
 * transpose flag and leading dimension. */
typedef struct {
  const CrTensor  *t;
  CrTensor        *owned;
  CBLAS_TRANSPOSE  trans;
  gint64           ld;
} Matrix;

/* dims r, c of t are the matrix; for a batch, all batches share the layout. */
static gboolean
matrix_init (Matrix          *mat,
             const CrTensor  *t,
             int              r,
             int              c,
             GError         **error)
{
  mat->t = t;
  mat->owned = NULL;
  if (t->dtype == CR_DTYPE_INT64
      || blas_layout (t->shape[r], t->shape[c], t->strides[r], t->strides[c], &mat->trans, &mat->ld))
    return TRUE;

  mat->owned = cr_tensor_copy (t, error);
  if (mat->owned == NULL)
    return FALSE;
  mat->t = mat->owned;
  blas_layout (t->shape[r], t->shape[c], mat->owned->strides[r], mat->owned->strides[c],
               &mat->trans, &mat->ld);
  return TRUE;
}

CrTensor *
cr_kernel_mm (const CrTensor  *a,
              const CrTensor  *b,
              GError         **error)
{
  gint64 shape[2];
  Matrix ma, mb;
  CrTensor *out;

  if (G_UNLIKELY (cr_cpu_is_narrow (a) && a->dtype == b->dtype))
    {
      g_autoptr(CrTensor) wa = cr_cpu_widen (a, a->dtype, error);
      g_autoptr(CrTensor) wb = wa != NULL ? cr_cpu_widen (b, b->dtype, error) : NULL;

      return wb != NULL ? cr_cpu_narrow (cr_kernel_mm (wa, wb, error), a->dtype, error) : NULL;
    }
  CR_DISPATCH (cr_cpu_device2 (a, b), mm, error, NULL, a, b, error);

  if (!cr_shape_check_mm (a, b, shape, error))
    return NULL;
  if (!check_dtypes (a, b, "addmm_impl_cpu_", error))
    return NULL;

  out = cr_tensor_new_empty (shape, 2, a->dtype, CR_DEVICE_CPU, error);
  if (out == NULL)
    return NULL;

  if (a->dtype == CR_DTYPE_INT64)
    {
      gemm_int (shape[0], a->shape[1], shape[1],
                cr_tensor_data (a), a->strides[0], a->strides[1],
                cr_tensor_data (b), b->strides[0], b->strides[1],
                cr_tensor_data (out));
      return out;
    }

  if (!matrix_init (&ma, a, 0, 1, error))
    {
      cr_tensor_unref (out);
      return NULL;
    }
  if (!matrix_init (&mb, b, 0, 1, error))
    {
      g_clear_pointer (&ma.owned, cr_tensor_unref);
      cr_tensor_unref (out);
      return NULL;
    }
  gemm_one (a->dtype, shape[0], a->shape[1], shape[1],
            cr_tensor_data (ma.t), ma.trans, ma.ld,
            cr_tensor_data (mb.t), mb.trans, mb.ld,
            cr_tensor_data (out), FALSE);
  g_clear_pointer (&ma.owned, cr_tensor_unref);
  g_clear_pointer (&mb.owned, cr_tensor_unref);
  return out;
}

CrTensor *
cr_kernel_addmm (const CrTensor  *bias,
                 const CrTensor  *a,
                 const CrTensor  *b,
                 GError         **error)
{
  gint64 shape[2];
  Matrix ma, mb;
  CrTensor *out;

  g_return_val_if_fail (cr_dtype_is_floating (a->dtype) && a->device == CR_DEVICE_CPU, NULL);
  if (!cr_shape_check_mm (a, b, shape, error) || !check_dtypes (a, b, "addmm_impl_cpu_", error))
    return NULL;
  /* PyTorch's addmm_impl_cpu_: the bias copied into the result, then one
   * gemm with beta = 1, so each partial sum of BLAS's blocks lands on it. */
  out = cr_tensor_copy (bias, error);
  if (out == NULL)
    return NULL;
  if (!matrix_init (&ma, a, 0, 1, error))
    {
      cr_tensor_unref (out);
      return NULL;
    }
  if (!matrix_init (&mb, b, 0, 1, error))
    {
      g_clear_pointer (&ma.owned, cr_tensor_unref);
      cr_tensor_unref (out);
      return NULL;
    }
  gemm_one (a->dtype, shape[0], a->shape[1], shape[1],
            cr_tensor_data (ma.t), ma.trans, ma.ld,
            cr_tensor_data (mb.t), mb.trans, mb.ld,
            cr_tensor_data (out), TRUE);
  g_clear_pointer (&ma.owned, cr_tensor_unref);
  g_clear_pointer (&mb.owned, cr_tensor_unref);
  return out;
}

CrTensor *
cr_kernel_bmm (const CrTensor  *a,
               const CrTensor  *b,
               GError         **error)
{
  gint64 shape[3];
  gint64 batch, n, k, m;
  gsize isz;
  Matrix ma, mb;
  CrTensor *out;

  if (G_UNLIKELY (cr_cpu_is_narrow (a) && a->dtype == b->dtype))
    {
      g_autoptr(CrTensor) wa = cr_cpu_widen (a, a->dtype, error);
      g_autoptr(CrTensor) wb = wa != NULL ? cr_cpu_widen (b, b->dtype, error) : NULL;

      return wb != NULL ? cr_cpu_narrow (cr_kernel_bmm (wa, wb, error), a->dtype, error) : NULL;
    }
  CR_DISPATCH (cr_cpu_device2 (a, b), bmm, error, NULL, a, b, error);

  if (!cr_shape_check_bmm (a, b, shape, error))
    return NULL;
  if (!check_dtypes (a, b, "bmm", error))
    return NULL;

  batch = a->shape[0];
  n = a->shape[1];
  k = a->shape[2];
  m = b->shape[2];
  out = cr_tensor_new_empty (shape, 3, a->dtype, CR_DEVICE_CPU, error);
  if (out == NULL)
    return NULL;
  isz = cr_dtype_size (a->dtype);

  if (k * n * m < 400 && a->dtype != CR_DTYPE_INT64)
    {
      /* PyTorch 1.13 multiplies small batches (k·n·m < 400) with its own
       * loop, one running sum per element in the dtype, in k order, not
       * with BLAS: the same loop gives its last digits. */
#define SMALL_BMM(type)                                                        \
  G_STMT_START {                                                              \
    const type *pa = cr_tensor_data (a), *pb = cr_tensor_data (b);            \
    type *po = cr_tensor_data (out);                                          \
    for (gint64 bi = 0; bi < batch; bi++)                                     \
      for (gint64 i = 0; i < n; i++)                                          \
        for (gint64 j = 0; j < m; j++)                                        \
          {                                                                   \
            type acc = 0;                                                     \
            for (gint64 kk = 0; kk < k; kk++)                                 \
              acc += pa[bi * a->strides[0] + i * a->strides[1] + kk * a->strides[2]] \
                     * pb[bi * b->strides[0] + kk * b->strides[1] + j * b->strides[2]]; \
            po[(bi * n + i) * m + j] = acc;                                   \
          }                                                                   \
  } G_STMT_END
      if (a->dtype == CR_DTYPE_FLOAT32)
        SMALL_BMM (float);
      else
        SMALL_BMM (double);
#undef SMALL_BMM
      return out;
    }

  if (a->dtype == CR_DTYPE_INT64)
    {
      for (gint64 i = 0; i < batch; i++)
        gemm_int (n, k, m,
                  (const gint64 *) cr_tensor_data (a) + i * a->strides[0], a->strides[1], a->strides[2],
                  (const gint64 *) cr_tensor_data (b) + i * b->strides[0], b->strides[1], b->strides[2],
                  (gint64 *) cr_tensor_data (out) + i * n * m);
      return out;
    }

  if (!matrix_init (&ma, a, 1, 2, error))
    {
      cr_tensor_unref (out);
      return NULL;
    }
  if (!matrix_init (&mb, b, 1, 2, error))
    {
      g_clear_pointer (&ma.owned, cr_tensor_unref);
      cr_tensor_unref (out);
      return NULL;
    }
  for (gint64 i = 0; i < batch; i++)
    gemm_one (a->dtype, n, k, m,
              (const char *) cr_tensor_data (ma.t) + (gsize) (i * ma.t->strides[0]) * isz, ma.trans, ma.ld,
              (const char *) cr_tensor_data (mb.t) + (gsize) (i * mb.t->strides[0]) * isz, mb.trans, mb.ld,
              (char *) cr_tensor_data (out) + (gsize) (i * n * m) * isz, FALSE);
  g_clear_pointer (&ma.owned, cr_tensor_unref);
  g_clear_pointer (&mb.owned, cr_tensor_unref);
  return out;
}
