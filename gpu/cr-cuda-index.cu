/* cr-cuda-index.cu — gathers and scatters by flat position (take, put) and the
 * nonzero positions of a mask (count_nonzero, nonzero_flat): the kernels of
 * core/cpu/cr-cpu-index.c that the indexing ops are built on. (cat is core's:
 * one copy per input into a slice of the output.)
 *
 * A flat position counts a tensor's elements in row-major LOGICAL order,
 * through its strides, as torch.take does; negative positions wrap once.
 *
 * take and put must report a bad position as the CPU does ("index 5 is out of
 * bounds for dimension 0 with size 3", the first one in index order): a check
 * kernel keeps the smallest offending index position with an integer
 * atomicMin, and the host reads it back (one synchronisation, before the
 * gather/scatter is enqueued; a second small copy only when something was out
 * of range). put checks before it writes,
 * so a failing put leaves dst untouched. With accumulate, put adds with
 * atomicAdd (float32, float64, int64 as unsigned long long; the order of the
 * additions into one element is not fixed, so float sums into a repeated
 * position may differ in the last bits from run to run); bool accumulates
 * with | (a store of 1, which races harmlessly).
 *
 * nonzero_flat is a stream compaction with CUB (DeviceSelect::If over the
 * positions 0..n-1, keeping those whose element is nonzero), on the module's
 * stream with scratch from the caching allocator. */
#include "cr-cuda-strided.cuh"

#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

namespace crl {

/* Nonzero-ness of element off of data (NaN counts as nonzero). */
__device__ __forceinline__ bool
nonzero_at (const void *data, int dtype, int64_t off)
{
  switch (dtype)
    {
    case CR_CUDA_FLOAT32: return ((const float *) data)[off] != 0.0f;
    case CR_CUDA_FLOAT64: return ((const double *) data)[off] != 0.0;
    case CR_CUDA_INT64:   return ((const int64_t *) data)[off] != 0;
    default:              return ((const uint8_t *) data)[off] != 0;
    }
}

/* ---- index checks ------------------------------------------------------------------ */

/* *first_bad = min over i of positions i whose index is outside [-size, size). */
__global__ void
check_index_kernel (const int64_t *index, Dims<1> ig, int64_t n, int64_t size,
                    unsigned long long *first_bad)
{
  for (int64_t i = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (int64_t) gridDim.x * blockDim.x)
    {
      int64_t p = index[dims_offset (ig, i)];
      if (p < -size || p >= size)
        atomicMin (first_bad, (unsigned long long) i);
    }
}

/* Checks every position of index (n elements, geometry ig) against size;
 * synchronous. CR_CUDA_ERR_INDEX with PyTorch's text for the first bad one. */
static int
check_index (const int64_t *index, const Dims<1> &ig, int64_t n, int64_t size, char *msg,
             size_t msg_size)
{
  Scratch flag;
  unsigned long long first_bad = 0;

  CRL_TRY (flag.alloc (sizeof (unsigned long long), msg, msg_size));
  CRL_CHECK (cudaMemsetAsync (flag.ptr, 0xff, sizeof (unsigned long long), stream ()),
             "cudaMemsetAsync");
  check_index_kernel<<<blocks_for (n), kThreads, 0, stream ()>>>
    (index, ig, n, size, (unsigned long long *) flag.ptr);
  CRL_CHECK_LAUNCH ("index check kernel");
  CRL_CHECK (cudaMemcpyAsync (&first_bad, flag.ptr, sizeof first_bad, cudaMemcpyDeviceToHost,
                              stream ()),
             "cudaMemcpyAsync (device to host)");
  CRL_TRY (cr_cuda_stream_synchronize (msg, msg_size));
  if (first_bad == ~0ull)
    return CR_CUDA_OK;

  /* Read the offending value itself for the message. */
  int64_t value = 0;
  CRL_CHECK (cudaMemcpyAsync (&value, index + dims_offset (ig, (int64_t) first_bad), sizeof value,
                              cudaMemcpyDeviceToHost, stream ()),
             "cudaMemcpyAsync (device to host)");
  CRL_TRY (cr_cuda_stream_synchronize (msg, msg_size));
  return cr_cuda_set_msg (CR_CUDA_ERR_INDEX, msg, msg_size,
                          "index %lld is out of bounds for dimension 0 with size %lld",
                          (long long) value, (long long) size);
}

/* ---- take / put --------------------------------------------------------------------- */

/* out[i] = x[position index[i]]; positions already checked. g: (index, out)
 * over index's shape; xg: x's logical positions. */
template <typename T>
__global__ void
take_kernel (T *out, const T *x, const int64_t *index, Dims<2> g, Dims<1> xg, int64_t n,
             int64_t size)
{
  for (int64_t i = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (int64_t) gridDim.x * blockDim.x)
    {
      int64_t off[2];
      dims_offsets (g, i, off);
      int64_t p = index[off[0]];
      if (p < 0)
        p += size;
      out[off[1]] = x[dims_offset (xg, p)];
    }
}

__device__ __forceinline__ void
accumulate (float *dst, float v)
{
  atomicAdd (dst, v);
}
__device__ __forceinline__ void
accumulate (double *dst, double v)
{
  atomicAdd (dst, v);   /* sm_60 and later */
}
__device__ __forceinline__ void
accumulate (int64_t *dst, int64_t v)
{
  /* Two's complement: unsigned addition is int64 addition. */
  atomicAdd ((unsigned long long *) dst, (unsigned long long) v);
}
__device__ __forceinline__ void
accumulate (uint8_t *dst, uint8_t v)
{
  if (v)
    *dst = 1;   /* bool |= v: every writer writes 1 */
}

/* dst[position index[i]] = (or +=) values[i]. g: (index, values) over index's
 * shape; dg: dst's logical positions. */
template <typename T>
__global__ void
put_kernel (T *dst, const int64_t *index, const T *values, Dims<2> g, Dims<1> dg, int64_t n,
            int64_t size, bool acc)
{
  for (int64_t i = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (int64_t) gridDim.x * blockDim.x)
    {
      int64_t off[2];
      dims_offsets (g, i, off);
      int64_t p = index[off[0]];
      if (p < 0)
        p += size;
      T *d = dst + dims_offset (dg, p);
      if (acc)
        accumulate (d, values[off[1]]);
      else
        *d = values[off[1]];
    }
}

/* Index and a second operand walking index's shape together. */
static bool
pair_dims (const CrCudaTensor *index, const CrCudaTensor *other, Dims<2> *g)
{
  if (other->ndim != index->ndim)
    return false;
  dims_init (g);
  for (int d = 0; d < index->ndim; d++)
    {
      int64_t strides[2] = { index->strides[d], other->strides[d] };
      if (other->shape[d] != index->shape[d])
        return false;
      dims_push (g, index->shape[d], strides);
    }
  return true;
}

/* ---- nonzero ---------------------------------------------------------------------------- */

/* Per-block counts added with an integer atomic (exact in any order). */
__global__ void
count_nonzero_kernel (const void *x, int dtype, Dims<1> g, int64_t n, unsigned long long *count)
{
  __shared__ unsigned long long block_count;
  if (threadIdx.x == 0)
    block_count = 0;
  __syncthreads ();
  unsigned long long mine = 0;
  for (int64_t i = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (int64_t) gridDim.x * blockDim.x)
    mine += nonzero_at (x, dtype, dims_offset (g, i)) ? 1 : 0;
  if (mine != 0)
    atomicAdd (&block_count, mine);
  __syncthreads ();
  if (threadIdx.x == 0 && block_count != 0)
    atomicAdd (count, block_count);
}

/* The select predicate of nonzero_flat: is the element at position i nonzero? */
struct NonzeroAt {
  const void *x;
  int         dtype;
  Dims<1>     g;
  __device__ bool
  operator() (const int64_t &i) const
  {
    return nonzero_at (x, dtype, dims_offset (g, i));
  }
};

/* The checks and geometry of take and put: index (int64) and its partner
 * (take's out, put's values) walk index's shape together (g); base (take's x,
 * put's dst) is addressed by logical position (bg). Every position is checked
 * against base's size (synchronous). With n == 0 nothing else is filled in. */
struct Indexed {
  Dims<2>        g;
  Dims<1>        bg;
  const int64_t *index;
  int64_t        n, size;
};

static int
indexed_init (Indexed *ix, const char *what, const CrCudaTensor *base, const CrCudaTensor *index,
              const CrCudaTensor *partner, char *msg, size_t msg_size)
{
  Dims<1> ig;

  ix->n = tensor_numel (index);
  ix->size = tensor_numel (base);
  if (index->dtype != CR_CUDA_INT64 || partner->dtype != base->dtype || !dtype_valid (base->dtype)
      || base->ndim > kMaxDims || !pair_dims (index, partner, &ix->g))
    return cr_cuda_set_msg (CR_CUDA_ERR_INVALID, msg, msg_size,
                            "%s: operands of mismatched shapes or dtypes", what);
  if (ix->n == 0)
    return CR_CUDA_OK;
  dims_from_tensor (&ix->bg, base);
  dims_from_tensor (&ig, index);
  ix->index = (const int64_t *) element_ptr (index->data, index->dtype, index->offset);
  return check_index (ix->index, ig, ix->n, ix->size, msg, msg_size);
}

} /* namespace crl */

using namespace crl;

extern "C" int
cr_cuda_k_take (const CrCudaTensor *out, const CrCudaTensor *x, const CrCudaTensor *index,
                char *msg, size_t msg_size)
{
  Indexed ix;

  CRL_TRY (indexed_init (&ix, "take", x, index, out, msg, msg_size));
  if (ix.n == 0)
    return CR_CUDA_OK;

  CRL_DISPATCH (x->dtype, T,
    {
      take_kernel<T><<<blocks_for (ix.n), kThreads, 0, stream ()>>>
        ((T *) element_ptr (out->data, out->dtype, out->offset),
         (const T *) element_ptr (x->data, x->dtype, x->offset), ix.index, ix.g, ix.bg, ix.n,
         ix.size);
    });
  CRL_CHECK_LAUNCH ("take kernel");
  /* The check above waited (that is what makes take synchronous); the gather
   * itself is ordered on the stream like any kernel, and a fault in it shows
   * at the next synchronisation. */
  return CR_CUDA_OK;
}

extern "C" int
cr_cuda_k_put (const CrCudaTensor *dst, const CrCudaTensor *index, const CrCudaTensor *values,
               int accumulate, char *msg, size_t msg_size)
{
  Indexed ix;

  /* Checks everything before writing anything. */
  CRL_TRY (indexed_init (&ix, "put", dst, index, values, msg, msg_size));
  if (ix.n == 0)
    return CR_CUDA_OK;

  CRL_DISPATCH (dst->dtype, T,
    {
      put_kernel<T><<<blocks_for (ix.n), kThreads, 0, stream ()>>>
        ((T *) element_ptr (dst->data, dst->dtype, dst->offset), ix.index,
         (const T *) element_ptr (values->data, values->dtype, values->offset), ix.g, ix.bg,
         ix.n, ix.size, accumulate != 0);
    });
  CRL_CHECK_LAUNCH ("put kernel");
  return CR_CUDA_OK;   /* waited in the check; the scatter is stream-ordered */
}

extern "C" int
cr_cuda_k_count_nonzero (const CrCudaTensor *x, int64_t *out_count, char *msg, size_t msg_size)
{
  Dims<1> g;
  int64_t n = tensor_numel (x);
  unsigned long long count = 0;
  Scratch acc;

  if (!dtype_valid (x->dtype) || x->ndim > kMaxDims)
    return cr_cuda_set_msg (CR_CUDA_ERR_INVALID, msg, msg_size, "count_nonzero: bad operand");
  *out_count = 0;
  if (n == 0)
    return CR_CUDA_OK;
  dims_from_tensor (&g, x);
  CRL_TRY (acc.alloc (sizeof count, msg, msg_size));
  CRL_CHECK (cudaMemsetAsync (acc.ptr, 0, sizeof count, stream ()), "cudaMemsetAsync");
  count_nonzero_kernel<<<blocks_for (n), kThreads, 0, stream ()>>>
    (element_ptr (x->data, x->dtype, x->offset), x->dtype, g, n,
     (unsigned long long *) acc.ptr);
  CRL_CHECK_LAUNCH ("count_nonzero kernel");
  CRL_CHECK (cudaMemcpyAsync (&count, acc.ptr, sizeof count, cudaMemcpyDeviceToHost, stream ()),
             "cudaMemcpyAsync (device to host)");
  CRL_TRY (cr_cuda_stream_synchronize (msg, msg_size));
  *out_count = (int64_t) count;
  return CR_CUDA_OK;
}

extern "C" int
cr_cuda_k_nonzero_flat (const CrCudaTensor *out, const CrCudaTensor *mask, char *msg,
                        size_t msg_size)
{
  int64_t n = tensor_numel (mask);
  NonzeroAt pred;
  size_t temp_bytes = 0;
  Scratch temp, selected;

  if (out->dtype != CR_CUDA_INT64 || out->ndim != 1 || (out->shape[0] > 1 && out->strides[0] != 1)
      || !dtype_valid (mask->dtype) || mask->ndim > kMaxDims)
    return cr_cuda_set_msg (CR_CUDA_ERR_INVALID, msg, msg_size,
                            "nonzero_flat: out must be a contiguous int64 vector");
  if (n == 0 || out->shape[0] == 0)
    return CR_CUDA_OK;

  pred.x = element_ptr (mask->data, mask->dtype, mask->offset);
  pred.dtype = mask->dtype;
  dims_from_tensor (&pred.g, mask);
  thrust::counting_iterator<int64_t> positions (0);
  int64_t *op = (int64_t *) element_ptr (out->data, out->dtype, out->offset);

  /* Out has exactly count_nonzero (mask) elements (core asked first), which is
   * how many DeviceSelect writes. */
  CRL_CHECK (cub::DeviceSelect::If (nullptr, temp_bytes, positions, op, (int64_t *) nullptr, n,
                                    pred, stream ()),
             "cub::DeviceSelect::If (size query)");
  CRL_TRY (temp.alloc (temp_bytes > 0 ? temp_bytes : 1, msg, msg_size));
  CRL_TRY (selected.alloc (sizeof (int64_t), msg, msg_size));
  CRL_CHECK (cub::DeviceSelect::If (temp.ptr, temp_bytes, positions, op, (int64_t *) selected.ptr,
                                    n, pred, stream ()),
             "cub::DeviceSelect::If");
  CRL_CHECK_LAUNCH ("nonzero_flat (cub::DeviceSelect::If)");
  return CR_CUDA_OK;
}
