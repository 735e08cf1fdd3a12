/* cr-cuda-softmax.cu — softmax and log_softmax along a dim, and their backward:
 * the kernels of core/cpu/cr-cpu-softmax.c.
 *
 * A "row" is the set of elements along dim for fixed other indices. The rows
 * (every dim but dim, coalesced, the operands walking them together) and the
 * dim itself are two index spaces, as in the reductions of cr-cuda-reduce.cu,
 * and so is the block shape: (bx, by) threads, x across rows, y along dim.
 * When dim is the innermost (stride 1) every thread works along the row (a
 * block per row for long rows); otherwise 32 neighbouring rows sit side by
 * side so that loads coalesce.
 *
 * The arithmetic is the CPU's (and PyTorch's): m = max (NaN wins), e = exp(x -
 * m) in the dtype, sum of the e in double; softmax = e * (1 / sum) and
 * log_softmax = x - (m + log(sum)). Backward sums in double too:
 *   softmax:     gi = y * (g - sum(g * y))
 *   log_softmax: gi = g - exp(y) * sum(g)
 * Products that would feed an addition use __fmul_rn/__dmul_rn so that nvcc
 * does not contract them into FMAs the CPU does not do. The sums are a fixed
 * tree, so results are deterministic. */
#include "cr-cuda-strided.cuh"

#include <math.h>

namespace crl {

__device__ __forceinline__ float m_exp (float x) { return expf (x); }
__device__ __forceinline__ double m_exp (double x) { return exp (x); }
__device__ __forceinline__ float m_log (float x) { return logf (x); }
__device__ __forceinline__ double m_log (double x) { return log (x); }
__device__ __forceinline__ float mul_rn (float a, float b) { return __fmul_rn (a, b); }
__device__ __forceinline__ double mul_rn (double a, double b) { return __dmul_rn (a, b); }

/* max with NaN propagating (either NaN gives NaN). */
template <typename T>
__device__ __forceinline__ T
nan_max (T a, T b)
{
  if (a != a)
    return a;
  if (b != b)
    return b;
  return a > b ? a : b;
}

struct Layout {
  int     bx, by;
  int64_t row_blocks;
};

static Layout
make_layout (int64_t rows, int64_t D, bool contiguous_dim)
{
  RowBlock b = row_block (rows, D, contiguous_dim);
  Layout l = { b.bx, b.by, (rows + b.bx - 1) / b.bx };
  return l;
}

struct AddD {
  __device__ double operator() (double a, double b) const { return a + b; }
};
template <typename T>
struct MaxT {
  __device__ T operator() (T a, T b) const { return nan_max (a, b); }
};

/* Forward. rows: operands x (0) and out (1); x_step/o_step: strides along dim. */
template <typename T>
__global__ void
softmax_kernel (const T *x, T *out, Dims<2> rows, int64_t n_rows, int64_t D, int64_t x_step,
                int64_t o_step, Layout l, bool log_softmax)
{
  __shared__ T smem_t[kThreads];
  __shared__ double smem[kThreads];
  int tx = threadIdx.x, ty = threadIdx.y;

  /* The loop bound is the same for the whole block, so __syncthreads inside
   * is safe. */
  for (int64_t rb = blockIdx.x; rb < l.row_blocks; rb += gridDim.x)
    {
      int64_t row = rb * l.bx + tx;
      bool valid = row < n_rows;
      int64_t off[2] = { 0, 0 };

      if (valid)
        dims_offsets (rows, row, off);
      const T *xr = x + off[0];
      T *orow = out + off[1];

      T m = (T) -INFINITY;
      if (valid)
        for (int64_t d = ty; d < D; d += l.by)
          m = nan_max (m, xr[d * x_step]);
      m = block_rows_reduce<T> (m, smem_t, l.bx, l.by, MaxT<T> ());

      double sum = 0;
      if (valid)
        for (int64_t d = ty; d < D; d += l.by)
          sum += (double) m_exp (xr[d * x_step] - m);
      sum = block_rows_reduce<double> (sum, smem, l.bx, l.by, AddD ());

      if (valid)
        {
          if (log_softmax)
            {
              T shift = m + m_log ((T) sum);
              for (int64_t d = ty; d < D; d += l.by)
                orow[d * o_step] = xr[d * x_step] - shift;
            }
          else
            {
              T inv = (T) 1 / (T) sum;
              for (int64_t d = ty; d < D; d += l.by)
                orow[d * o_step] = m_exp (xr[d * x_step] - m) * inv;
            }
        }
    }
}

/* Backward. rows: operands grad (0), out (1), grad_in (2). */
template <typename T>
__global__ void
softmax_backward_kernel (const T *g, const T *y, T *gi, Dims<3> rows, int64_t n_rows, int64_t D,
                         int64_t g_step, int64_t y_step, int64_t gi_step, Layout l,
                         bool log_softmax)
{
  __shared__ double smem[kThreads];
  int tx = threadIdx.x, ty = threadIdx.y;

  for (int64_t rb = blockIdx.x; rb < l.row_blocks; rb += gridDim.x)
    {
      int64_t row = rb * l.bx + tx;
      bool valid = row < n_rows;
      int64_t off[3] = { 0, 0, 0 };

      if (valid)
        dims_offsets (rows, row, off);
      const T *gr = g + off[0];
      const T *yr = y + off[1];
      T *gir = gi + off[2];

      double sum = 0;
      if (valid)
        for (int64_t d = ty; d < D; d += l.by)
          sum += log_softmax ? (double) gr[d * g_step]
                             : (double) mul_rn (gr[d * g_step], yr[d * y_step]);
      sum = block_rows_reduce<double> (sum, smem, l.bx, l.by, AddD ());

      if (valid)
        {
          T s = (T) sum;
          if (log_softmax)
            for (int64_t d = ty; d < D; d += l.by)
              gir[d * gi_step] = gr[d * g_step] - mul_rn (m_exp (yr[d * y_step]), s);
          else
            for (int64_t d = ty; d < D; d += l.by)
              gir[d * gi_step] = yr[d * y_step] * (gr[d * g_step] - s);
        }
    }
}

static unsigned
grid_for (int64_t row_blocks)
{
  return (unsigned) (row_blocks > (1 << 20) ? (1 << 20) : (row_blocks < 1 ? 1 : row_blocks));
}

/* Checks that every operand has x's shape and dtype (float) and dim is valid. */
static int
check_operands (const char *what, const CrCudaTensor *const *ts, int n, int dim, char *msg,
                size_t msg_size)
{
  const CrCudaTensor *x = ts[0];

  if (x->ndim < 1 || x->ndim > kMaxDims || dim < 0 || dim >= x->ndim)
    return cr_cuda_set_msg (CR_CUDA_ERR_INVALID, msg, msg_size, "%s: bad dim %d for %d dims", what,
                            dim, x->ndim);
  if (!dtype_is_floating (x->dtype))
    return cr_cuda_set_msg (CR_CUDA_ERR_UNSUPPORTED, msg, msg_size,
                            "\"%s\" not implemented for '%s'", what,
                            x->dtype == CR_CUDA_INT64 ? "Long" : "Bool");
  for (int k = 1; k < n; k++)
    {
      if (ts[k]->dtype != x->dtype || ts[k]->ndim != x->ndim)
        return cr_cuda_set_msg (CR_CUDA_ERR_INVALID, msg, msg_size,
                                "%s: operands of different dtypes or shapes", what);
      for (int d = 0; d < x->ndim; d++)
        if (ts[k]->shape[d] != x->shape[d])
          return cr_cuda_set_msg (CR_CUDA_ERR_INVALID, msg, msg_size,
                                  "%s: operands of different shapes", what);
    }
  return CR_CUDA_OK;
}

/* The rows of ts (every dim but dim), the operands together. */
template <int N>
static void
row_dims (const CrCudaTensor *const *ts, int dim, Dims<N> *rows)
{
  dims_init (rows);
  for (int d = 0; d < ts[0]->ndim; d++)
    if (d != dim)
      {
        int64_t strides[N];
        for (int k = 0; k < N; k++)
          strides[k] = ts[k]->strides[d];
        dims_push (rows, ts[0]->shape[d], strides);
      }
}

/* A launch over the rows of ts along dim: the rows (every other dim, the
 * operands together), their count, the length D of each, and the blocks. */
template <int N>
struct RowLaunch {
  Dims<N> rows;
  int64_t n_rows;
  int64_t D;
  Layout  l;
  dim3    block;
};

/* Checks the operands (ts[0]'s shape and float dtype for all) and plans the
 * launch; the blocks suit ts[most_read]'s stride along dim. */
template <int N>
static int
plan_rows (const char *what, const CrCudaTensor *const *ts, int dim, int most_read,
           RowLaunch<N> *launch, char *msg, size_t msg_size)
{
  CRL_TRY (check_operands (what, ts, N, dim, msg, msg_size));
  row_dims (ts, dim, &launch->rows);
  launch->n_rows = dims_numel (launch->rows);
  launch->D = ts[0]->shape[dim];
  launch->l = make_layout (launch->n_rows, launch->D, ts[most_read]->strides[dim] == 1);
  launch->block = dim3 ((unsigned) launch->l.bx, (unsigned) launch->l.by);
  return CR_CUDA_OK;
}

} /* namespace crl */

using namespace crl;

extern "C" int
cr_cuda_k_softmax (const CrCudaTensor *out, const CrCudaTensor *x, int dim, int log,
                   char *msg, size_t msg_size)
{
  const CrCudaTensor *ts[2] = { x, out };
  RowLaunch<2> r;

  CRL_TRY (plan_rows (log ? "log_softmax_cuda" : "softmax_cuda", ts, dim, 0, &r, msg, msg_size));
  if (tensor_numel (x) == 0)
    return CR_CUDA_OK;
  CRL_DISPATCH_FLOATING (x->dtype, T,
    {
      softmax_kernel<T><<<grid_for (r.l.row_blocks), r.block, 0, stream ()>>>
        ((const T *) element_ptr (x->data, x->dtype, x->offset),
         (T *) element_ptr (out->data, out->dtype, out->offset),
         r.rows, r.n_rows, r.D, x->strides[dim], out->strides[dim], r.l, log != 0);
    });
  CRL_CHECK_LAUNCH (log ? "log_softmax kernel" : "softmax kernel");
  return CR_CUDA_OK;
}

extern "C" int
cr_cuda_k_softmax_backward (const CrCudaTensor *grad_in, const CrCudaTensor *grad,
                            const CrCudaTensor *out, int dim, int log, char *msg, size_t msg_size)
{
  const CrCudaTensor *ts[3] = { grad, out, grad_in };
  RowLaunch<3> r;

  CRL_TRY (plan_rows (log ? "log_softmax_backward_cuda" : "softmax_backward_cuda", ts, dim, 1, &r,
                      msg, msg_size));
  if (tensor_numel (grad) == 0)
    return CR_CUDA_OK;
  CRL_DISPATCH_FLOATING (grad->dtype, T,
    {
      softmax_backward_kernel<T><<<grid_for (r.l.row_blocks), r.block, 0, stream ()>>>
        ((const T *) element_ptr (grad->data, grad->dtype, grad->offset),
         (const T *) element_ptr (out->data, out->dtype, out->offset),
         (T *) element_ptr (grad_in->data, grad_in->dtype, grad_in->offset),
         r.rows, r.n_rows, r.D, grad->strides[dim], out->strides[dim], grad_in->strides[dim], r.l,
         log != 0);
    });
  CRL_CHECK_LAUNCH (log ? "log_softmax backward kernel" : "softmax backward kernel");
  return CR_CUDA_OK;
}
