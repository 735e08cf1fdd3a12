/* cr-cuda-matmul.cu — batched matrix products (mm is the batch of one): cuBLAS
 * for float32/float64, a plain kernel for int64, as core/cpu/cr-cpu-matmul.c
 * does with OpenBLAS and loops.
 *
 * cuBLAS is column-major and our matrices are row-major: a row-major (r x c)
 * buffer with row stride ld IS the column-major (c x r) matrix X^T with
 * leading dimension ld. So C = A @ B (row-major, n x m) is computed as the
 * column-major C^T = B^T @ A^T: gemm (opB, opA, m, n, k, B, ldb, A, lda, C,
 * ldc). A row-major operand enters with CUBLAS_OP_N; a column-major one (a
 * transposed contiguous matrix, the usual mm(grad, w.t()) of backward) with
 * CUBLAS_OP_T and no copy. Any other layout is copied to a contiguous scratch
 * buffer first (core normally does that already; the copy here is a safety
 * net).
 *
 * One cuBLAS handle for the module, created on the first product, bound to
 * the module's stream, in CUBLAS_DEFAULT_MATH: no TF32 tensor-core math for
 * float32 (PyTorch 1.13's allow_tf32 = False), so float32 products match the
 * CPU's within float32 rounding. (NVIDIA_TF32_OVERRIDE=1 in the environment
 * would still force TF32; a GPU run should not set it.) The handle is never
 * destroyed: destroying it at exit could run after the CUDA context is gone. */
#include "cr-cuda-strided.cuh"

#include <cublas_v2.h>

#include <mutex>

namespace crl {

static std::mutex gemm_mutex;           /* guards the handle and its stream binding */
static cublasHandle_t gemm_handle = nullptr;

static int
cublas_fail (cublasStatus_t status, const char *call, char *msg, size_t msg_size)
{
  return cr_cuda_set_msg (CR_CUDA_ERR_CUBLAS, msg, msg_size, "%s when calling `%s`",
                          cublasGetStatusName (status), call);
}

#define CRL_CUBLAS(call, text)                                                   \
  do {                                                                           \
    cublasStatus_t st_ = (call);                                                 \
    if (st_ != CUBLAS_STATUS_SUCCESS)                                            \
      return cublas_fail (st_, (text), msg, msg_size);                           \
  } while (0)

/* Creates the handle once; binds it to the module's stream every time (cheap,
 * and right even if the stream were ever recreated). Call with the mutex held. */
static int
handle_get (cublasHandle_t *out, char *msg, size_t msg_size)
{
  if (gemm_handle == nullptr)
    {
      cublasHandle_t h = nullptr;
      CRL_CUBLAS (cublasCreate (&h), "cublasCreate(handle)");
      cublasStatus_t st = cublasSetMathMode (h, CUBLAS_DEFAULT_MATH);
      if (st != CUBLAS_STATUS_SUCCESS)
        {
          cublasDestroy (h);
          return cublas_fail (st, "cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH)", msg, msg_size);
        }
      gemm_handle = h;
    }
  CRL_CUBLAS (cublasSetStream (gemm_handle, stream ()), "cublasSetStream(handle, stream)");
  *out = gemm_handle;
  return CR_CUDA_OK;
}

/* How cuBLAS reads a (rows x cols) matrix with these strides: op and leading
 * dimension; false when it cannot without a copy. Mirrors blas_layout of the
 * CPU (strides of size-1 dims are arbitrary, so they are normalised first). */
static bool
blas_layout (int64_t rows, int64_t cols, int64_t row_stride, int64_t col_stride,
             cublasOperation_t *op, int64_t *ld)
{
  if (cols == 1)
    col_stride = 1;
  if (rows == 1)
    row_stride = cols > 1 ? cols : 1;

  if (col_stride == 1 && row_stride >= (cols > 1 ? cols : 1))
    {
      *op = CUBLAS_OP_N;   /* row-major: the buffer is X^T, column-major */
      *ld = row_stride;
      return true;
    }
  if (rows == 1 && col_stride >= 1)
    {
      /* One row with a non-unit column stride: a column-major 1 x cols matrix. */
      *op = CUBLAS_OP_T;
      *ld = col_stride;
      return true;
    }
  if (row_stride == 1 && col_stride >= (rows > 1 ? rows : 1))
    {
      *op = CUBLAS_OP_T;   /* column-major: the buffer is X itself */
      *ld = col_stride;
      return true;
    }
  return false;
}

/* dst (contiguous B x r x c) = src (any strides). */
template <typename T>
__global__ void
gather_kernel (T *dst, const T *src, Dims<1> g, int64_t n)
{
  for (int64_t i = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (int64_t) gridDim.x * blockDim.x)
    dst[i] = src[dims_offset (g, i)];
}

/* An operand as cuBLAS takes it: pointer, op, ld, batch stride; a contiguous
 * copy in scratch when its layout needs one. */
struct Operand {
  const void       *ptr;
  cublasOperation_t op;
  int64_t           ld;
  int64_t           batch_stride;
  Scratch           copy;
};

static int
operand_init (Operand *o, const CrCudaTensor *t, char *msg, size_t msg_size)
{
  int64_t B = t->shape[0], r = t->shape[1], c = t->shape[2];

  o->ptr = element_ptr (t->data, t->dtype, t->offset);
  o->batch_stride = B > 1 ? t->strides[0] : 0;
  if (blas_layout (r, c, t->strides[1], t->strides[2], &o->op, &o->ld))
    return CR_CUDA_OK;

  /* Copy to contiguous (B, r, c). */
  int64_t n = B * r * c;
  size_t isz = dtype_size (t->dtype);
  Dims<1> g;
  dims_from_tensor (&g, t);
  CRL_TRY (o->copy.alloc ((size_t) n * isz, msg, msg_size));
  CRL_DISPATCH_FLOATING (t->dtype, T,
    {
      gather_kernel<T><<<blocks_for (n), kThreads, 0, stream ()>>>
        ((T *) o->copy.ptr, (const T *) o->ptr, g, n);
    });
  CRL_CHECK_LAUNCH ("gemm operand copy");
  o->ptr = o->copy.ptr;
  o->batch_stride = r * c;
  blas_layout (r, c, c, 1, &o->op, &o->ld);
  return CR_CUDA_OK;
}

/* int64: one thread per output element, k in order (exact, wrapping as the
 * CPU's int64 arithmetic does). */
__global__ void
gemm_int64_kernel (int64_t *out, const int64_t *a, const int64_t *b, int64_t B, int64_t n,
                   int64_t k, int64_t m, int64_t sa0, int64_t sa1, int64_t sa2, int64_t sb0,
                   int64_t sb1, int64_t sb2, int64_t so0, int64_t so1, int64_t so2)
{
  int64_t total = B * n * m;
  for (int64_t idx = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; idx < total;
       idx += (int64_t) gridDim.x * blockDim.x)
    {
      int64_t j = idx % m;
      int64_t i = (idx / m) % n;
      int64_t bi = idx / (m * n);
      const int64_t *ar = a + bi * sa0 + i * sa1;
      const int64_t *bc = b + bi * sb0 + j * sb2;
      uint64_t acc = 0;   /* unsigned: wraps without undefined behaviour */
      for (int64_t p = 0; p < k; p++)
        acc += (uint64_t) ar[p * sa2] * (uint64_t) bc[p * sb1];
      out[bi * so0 + i * so1 + j * so2] = (int64_t) acc;
    }
}

} /* namespace crl */

using namespace crl;

extern "C" int
cr_cuda_k_gemm (const CrCudaTensor *out, const CrCudaTensor *a, const CrCudaTensor *b,
                char *msg, size_t msg_size)
{
  if (a->ndim != 3 || b->ndim != 3 || out->ndim != 3 || a->dtype != b->dtype
      || out->dtype != a->dtype || a->shape[0] != b->shape[0] || a->shape[2] != b->shape[1]
      || out->shape[0] != a->shape[0] || out->shape[1] != a->shape[1]
      || out->shape[2] != b->shape[2])
    return cr_cuda_set_msg (CR_CUDA_ERR_INVALID, msg, msg_size,
                            "gemm: operands of mismatched shapes or dtypes");

  int64_t B = a->shape[0], n = a->shape[1], k = a->shape[2], m = b->shape[2];
  if (B == 0 || n == 0 || m == 0)
    return CR_CUDA_OK;

  if (a->dtype == CR_CUDA_INT64)
    {
      gemm_int64_kernel<<<blocks_for (B * n * m), kThreads, 0, stream ()>>>
        ((int64_t *) element_ptr (out->data, out->dtype, out->offset),
         (const int64_t *) element_ptr (a->data, a->dtype, a->offset),
         (const int64_t *) element_ptr (b->data, b->dtype, b->offset),
         B, n, k, m, a->strides[0], a->strides[1], a->strides[2],
         b->strides[0], b->strides[1], b->strides[2],
         out->strides[0], out->strides[1], out->strides[2]);
      CRL_CHECK_LAUNCH ("gemm kernel (int64)");
      return CR_CUDA_OK;
    }
  if (!dtype_is_floating (a->dtype))
    return cr_cuda_set_msg (CR_CUDA_ERR_UNSUPPORTED, msg, msg_size,
                            "\"addmm_cuda\" not implemented for 'Bool'");

  /* out: row-major rows of m (contiguous in practice). */
  int64_t ldc = n > 1 ? out->strides[1] : m;
  if ((m > 1 && out->strides[2] != 1) || ldc < m || (B > 1 && out->strides[0] < n * ldc))
    return cr_cuda_set_msg (CR_CUDA_ERR_INVALID, msg, msg_size, "gemm: out must be contiguous");
  int64_t stride_c = B > 1 ? out->strides[0] : n * ldc;
  void *c = element_ptr (out->data, out->dtype, out->offset);

  if (k == 0)
    {
      /* A sum of nothing: zeros (out is contiguous, so one memset). */
      CRL_CHECK (cudaMemsetAsync (c, 0, (size_t) (B * n * m) * dtype_size (out->dtype), stream ()),
                 "cudaMemsetAsync");
      return CR_CUDA_OK;
    }
  if (B > INT32_MAX || n > INT32_MAX || m > INT32_MAX || k > INT32_MAX)
    return cr_cuda_set_msg (CR_CUDA_ERR_INVALID, msg, msg_size, "gemm: a size does not fit in int");

  Operand oa, ob;
  CRL_TRY (operand_init (&oa, a, msg, msg_size));
  CRL_TRY (operand_init (&ob, b, msg, msg_size));
  if (oa.ld > INT32_MAX || ob.ld > INT32_MAX || ldc > INT32_MAX)
    return cr_cuda_set_msg (CR_CUDA_ERR_INVALID, msg, msg_size,
                            "gemm: a leading dimension does not fit in int");

  std::lock_guard<std::mutex> lock (gemm_mutex);
  cublasHandle_t h = nullptr;
  CRL_TRY (handle_get (&h, msg, msg_size));

  /* Column-major C^T (m x n) = op(B) (m x k) @ op(A) (k x n). */
  if (a->dtype == CR_CUDA_FLOAT32)
    {
      const float one = 1.0f, zero = 0.0f;
      if (B == 1)
        CRL_CUBLAS (cublasSgemm (h, ob.op, oa.op, (int) m, (int) n, (int) k, &one,
                                 (const float *) ob.ptr, (int) ob.ld, (const float *) oa.ptr,
                                 (int) oa.ld, &zero, (float *) c, (int) ldc),
                    "cublasSgemm( handle, opa, opb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc)");
      else
        CRL_CUBLAS (cublasSgemmStridedBatched (h, ob.op, oa.op, (int) m, (int) n, (int) k, &one,
                                               (const float *) ob.ptr, (int) ob.ld, ob.batch_stride,
                                               (const float *) oa.ptr, (int) oa.ld, oa.batch_stride,
                                               &zero, (float *) c, (int) ldc, stride_c, (int) B),
                    "cublasSgemmStridedBatched( handle, opa, opb, m, n, k, &alpha, a, lda, stridea, "
                    "b, ldb, strideb, &beta, c, ldc, stridec, num_batches)");
    }
  else
    {
      const double one = 1.0, zero = 0.0;
      if (B == 1)
        CRL_CUBLAS (cublasDgemm (h, ob.op, oa.op, (int) m, (int) n, (int) k, &one,
                                 (const double *) ob.ptr, (int) ob.ld, (const double *) oa.ptr,
                                 (int) oa.ld, &zero, (double *) c, (int) ldc),
                    "cublasDgemm( handle, opa, opb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc)");
      else
        CRL_CUBLAS (cublasDgemmStridedBatched (h, ob.op, oa.op, (int) m, (int) n, (int) k, &one,
                                               (const double *) ob.ptr, (int) ob.ld, ob.batch_stride,
                                               (const double *) oa.ptr, (int) oa.ld, oa.batch_stride,
                                               &zero, (double *) c, (int) ldc, stride_c, (int) B),
                    "cublasDgemmStridedBatched( handle, opa, opb, m, n, k, &alpha, a, lda, stridea, "
                    "b, ldb, strideb, &beta, c, ldc, stridec, num_batches)");
    }
  /* cuBLAS launches asynchronously; a launch failure shows up here or at the
   * next synchronisation. */
  CRL_CHECK_LAUNCH ("cuBLAS gemm");
  return CR_CUDA_OK;   /* operand copies go back to the cache, stream-ordered */
}
