/* cr-cuda-strided.cuh — what the reduce, softmax, matmul and index kernels
 * share: dim sets with strides (coalesced on the host), dtype conversions and
 * dispatch, error reporting, the row blocks of reduce and softmax, and
 * temporary device buffers.
 *
 * Private to gpu/ (C++17, nvcc). Everything lives in namespace crl so that the
 * other kernel files (elementwise, copies) can have helpers of the same names. */
#pragma once

#include "cr-cuda-private.h"

#include <cuda_runtime.h>

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

namespace crl {

constexpr int kMaxDims = 8;
constexpr int kThreads = 256;   /* threads per block of every kernel here */

/* ---- errors ------------------------------------------------------------------- *
 * Every entry point takes (char *msg, size_t msg_size) last; these macros
 * return from it with the module's codes (cr_cuda_fail & co, cr-cuda-abi.h). */

#define CRL_CHECK_LAUNCH(what)                                                   \
  do {                                                                           \
    int rc_ = cr_cuda_check_launch ((what), msg, msg_size);                      \
    if (rc_ != CR_CUDA_OK)                                                       \
      return rc_;                                                                \
  } while (0)

#define CRL_CHECK(call, what)                                                    \
  do {                                                                           \
    cudaError_t err_ = (call);                                                   \
    if (err_ != cudaSuccess)                                                     \
      return cr_cuda_fail (err_, (what), msg, msg_size);                   \
  } while (0)

#define CRL_TRY(call)                                                            \
  do {                                                                           \
    int rc_ = (call);                                                            \
    if (rc_ != CR_CUDA_OK)                                                       \
      return rc_;                                                                \
  } while (0)

inline cudaStream_t
stream ()
{
  return cr_cuda_stream ();
}

/* ---- dim sets ------------------------------------------------------------------- */

/* Dims in row-major order (the last varies fastest) with the strides, in
 * elements, of N operands that walk them together. Size-1 dims are dropped
 * and neighbours that are one run in memory for EVERY operand merged, so the
 * common cases have n <= 1 and the kernels divide little. n == 0 is a single
 * element. */
template <int N>
struct Dims {
  int     n;
  int64_t shape[kMaxDims];
  int64_t stride[N][kMaxDims];
};

template <int N>
inline void
dims_init (Dims<N> *g)
{
  g->n = 0;
}

/* Appends a dim (the new innermost) with the operands' strides. */
template <int N>
inline void
dims_push (Dims<N> *g, int64_t size, const int64_t *strides)
{
  if (size == 1)
    return;
  if (g->n > 0)
    {
      bool merge = true;
      for (int k = 0; k < N; k++)
        if (g->stride[k][g->n - 1] != strides[k] * size)
          merge = false;
      if (merge)
        {
          g->shape[g->n - 1] *= size;
          for (int k = 0; k < N; k++)
            g->stride[k][g->n - 1] = strides[k];
          return;
        }
    }
  g->shape[g->n] = size;
  for (int k = 0; k < N; k++)
    g->stride[k][g->n] = strides[k];
  g->n++;
}

inline void
dims_push1 (Dims<1> *g, int64_t size, int64_t stride)
{
  dims_push (g, size, &stride);
}

/* int64 arithmetic in kernels wraps around as PyTorch's does, through
 * unsigned arithmetic: a signed overflow is undefined behaviour in device code
 * as on the host. */
__host__ __device__ __forceinline__ int64_t
wrap_add (int64_t a, int64_t b)
{
  return (int64_t) ((uint64_t) a + (uint64_t) b);
}

__host__ __device__ __forceinline__ int64_t
wrap_sub (int64_t a, int64_t b)
{
  return (int64_t) ((uint64_t) a - (uint64_t) b);
}

__host__ __device__ __forceinline__ int64_t
wrap_mul (int64_t a, int64_t b)
{
  return (int64_t) ((uint64_t) a * (uint64_t) b);
}

template <int N>
inline int64_t
dims_numel (const Dims<N> &g)
{
  int64_t n = 1;
  for (int d = 0; d < g.n; d++)
    n *= g.shape[d];
  return n;
}

/* Storage offsets (relative) of logical (row-major) position idx. */
template <int N>
__host__ __device__ __forceinline__ void
dims_offsets (const Dims<N> &g, int64_t idx, int64_t *off)
{
  for (int k = 0; k < N; k++)
    off[k] = 0;
  for (int d = g.n - 1; d > 0; d--)
    {
      int64_t s = g.shape[d];
      int64_t q = idx / s;
      int64_t i = idx - q * s;
      for (int k = 0; k < N; k++)
        off[k] += i * g.stride[k][d];
      idx = q;
    }
  if (g.n > 0)
    for (int k = 0; k < N; k++)
      off[k] += idx * g.stride[k][0];
}

/* The one-operand case, with the fast paths. */
__host__ __device__ __forceinline__ int64_t
dims_offset (const Dims<1> &g, int64_t idx)
{
  if (g.n == 0)
    return 0;
  if (g.n == 1)
    return idx * g.stride[0][0];
  int64_t off;
  dims_offsets<1> (g, idx, &off);
  return off;
}

/* A whole tensor as a Dims<1> (all dims, logical order). */
inline void
dims_from_tensor (Dims<1> *g, const CrCudaTensor *t)
{
  dims_init (g);
  for (int d = 0; d < t->ndim; d++)
    dims_push1 (g, t->shape[d], t->strides[d]);
}

inline int64_t
tensor_numel (const CrCudaTensor *t)
{
  int64_t n = 1;
  for (int d = 0; d < t->ndim; d++)
    n *= t->shape[d];
  return n;
}

/* ---- elements ------------------------------------------------------------------ */

/* Conversions as the CPU casts do them: to bool is "!= 0" (NaN is true). */
template <typename To, typename From>
__host__ __device__ __forceinline__ To
convert (From v)
{
  return (To) v;
}
template <>
__host__ __device__ __forceinline__ uint8_t
convert<uint8_t, float> (float v)
{
  return v != 0.0f;
}
template <>
__host__ __device__ __forceinline__ uint8_t
convert<uint8_t, double> (double v)
{
  return v != 0.0;
}
template <>
__host__ __device__ __forceinline__ uint8_t
convert<uint8_t, int64_t> (int64_t v)
{
  return v != 0;
}

inline size_t
dtype_size (int dtype)
{
  switch (dtype)
    {
    case CR_CUDA_FLOAT32: return 4;
    case CR_CUDA_FLOAT64: return 8;
    case CR_CUDA_INT64:   return 8;
    case CR_CUDA_INT32:   return 4;
    default:                    return 1;
    }
}

inline bool
dtype_valid (int dtype)
{
  return dtype == CR_CUDA_FLOAT32 || dtype == CR_CUDA_FLOAT64
         || dtype == CR_CUDA_INT64 || dtype == CR_CUDA_BOOL;
}

inline bool
dtype_is_floating (int dtype)
{
  return dtype == CR_CUDA_FLOAT32 || dtype == CR_CUDA_FLOAT64;
}

/* The element pointer of a tensor: data plus offset elements. */
inline const void *
element_ptr (const void *data, int dtype, int64_t offset)
{
  return (const char *) data + offset * (int64_t) dtype_size (dtype);
}
inline void *
element_ptr (void *data, int dtype, int64_t offset)
{
  return (char *) data + offset * (int64_t) dtype_size (dtype);
}

/* Runs BODY with T the C++ type of dtype. */
#define CRL_DISPATCH(dtype, T, ...)                                              \
  switch (dtype)                                                                 \
    {                                                                            \
    case CR_CUDA_FLOAT32: { typedef float T; __VA_ARGS__; } break;         \
    case CR_CUDA_FLOAT64: { typedef double T; __VA_ARGS__; } break;        \
    case CR_CUDA_INT64:   { typedef int64_t T; __VA_ARGS__; } break;       \
    default:                    { typedef uint8_t T; __VA_ARGS__; } break;       \
    }

/* Runs BODY with T float for float32, double otherwise (a floating dtype
 * already checked). */
#define CRL_DISPATCH_FLOATING(dtype, T, ...)                                     \
  do {                                                                           \
    if ((dtype) == CR_CUDA_FLOAT32)                                              \
      { typedef float T; __VA_ARGS__; }                                          \
    else                                                                         \
      { typedef double T; __VA_ARGS__; }                                         \
  } while (0)

/* ---- launches ------------------------------------------------------------------ */

inline unsigned
blocks_for (int64_t n, int threads = kThreads)
{
  int64_t b = (n + threads - 1) / threads;
  /* Grid-stride loops cover the rest. */
  return (unsigned) (b < 1 ? 1 : (b > (1 << 20) ? (1 << 20) : b));
}

inline int
pow2_ceil (int64_t n)
{
  int p = 1;
  while (p < n && p < (1 << 30))
    p <<= 1;
  return p;
}

/* ---- rows: the reduce and softmax kernels -------------------------------------------- *
 * Both have two index spaces: independent rows (reduce: outputs) and the
 * elements along each row (reduce: the reduced positions), walked by a block
 * of (bx, by) threads, bx * by = kThreads: x across rows, y along them. */

struct RowBlock {
  int bx, by;
};

/* The block shape for n_rows rows of n_along elements, from constants and the
 * shape only, so that the order of the additions is a function of the shape.
 * A contiguous row (stride 1 along it) puts every thread along it (a block
 * per row for long rows); otherwise 32 neighbouring rows sit side by side so
 * that loads coalesce. */
inline RowBlock
row_block (int64_t n_rows, int64_t n_along, bool contiguous)
{
  RowBlock b;
  int64_t along1 = n_along < 1 ? 1 : n_along;

  if (contiguous)
    {
      b.by = pow2_ceil (along1 < kThreads ? along1 : kThreads);
      b.bx = kThreads / b.by;
    }
  else
    {
      b.bx = pow2_ceil (n_rows < 32 ? (n_rows < 1 ? 1 : n_rows) : 32);
      b.by = kThreads / b.bx;
      if (b.by > pow2_ceil (along1))
        {
          b.by = pow2_ceil (along1);
          b.bx = kThreads / b.by;
        }
    }
  return b;
}

/* Combines v over threadIdx.y in a fixed tree order; every thread gets the
 * total of its row (threadIdx.x). smem holds bx * by values and may be reused
 * once this returns. Every thread of the block must call it. */
template <typename A, typename Combine>
__device__ __forceinline__ A
block_rows_reduce (A v, A *smem, int bx, int by, Combine combine)
{
  int tx = threadIdx.x, ty = threadIdx.y;

  smem[ty * bx + tx] = v;
  __syncthreads ();
  for (int half = by / 2; half > 0; half /= 2)
    {
      if (ty < half)
        smem[ty * bx + tx] = combine (smem[ty * bx + tx], smem[(ty + half) * bx + tx]);
      __syncthreads ();
    }
  A total = smem[tx];
  __syncthreads ();   /* before smem is written again */
  return total;
}

/* ---- temporary buffers ------------------------------------------------------------ */

/* Device scratch memory for the length of a call, from the module's caching
 * allocator. Freed when the object goes out of scope, right after the
 * kernels that use it are enqueued: with one stream, a later kernel that
 * reuses the block runs after them (cr-cuda-abi.h, "Streams"). */
struct Scratch {
  void *ptr = nullptr;
  Scratch () = default;
  Scratch (const Scratch &) = delete;
  Scratch &operator= (const Scratch &) = delete;
  ~Scratch ()
  {
    if (ptr != nullptr)
      cr_cuda_free (ptr, nullptr, 0);
  }
  int
  alloc (size_t bytes, char *msg, size_t msg_size)
  {
    return cr_cuda_malloc (bytes, &ptr, msg, msg_size);
  }
};

} /* namespace crl */
