/* cr-cuda-elementwise.cuh — the launch engine of the elementwise kernels
 * (gpu/cr-cuda-elementwise.cu: unary, clamp, where, fill, copy;
 * gpu/cr-cuda-binary.cu: binary ops and a + alpha*b): device math, the cast
 * of the CPU, operand geometry, the kernels and their host-side planning.
 *
 * A launch is "out = f(in0, in1, ...)" over out's shape, f a functor.
 *  - The host coalesces the geometry as the CPU iterator does: dims of size 1
 *    dropped, neighbouring dims that every operand steps through as one run
 *    merged.
 *  - When one dim is left and every operand has stride 1 or 0 there (the
 *    contiguous case, a tensor against a one-element operand included), a
 *    grid-stride kernel moves 16 bytes per load and store when the pointers
 *    are aligned for it (float4, double2, 16 bools...): the memory-bound path
 *    that elementwise_big measures. A ragged tail or a misaligned view goes
 *    element by element in the same kernel.
 *  - Otherwise a generic kernel turns each linear index into per-operand
 *    offsets from shapes/strides in a small struct passed by value, in 32-bit
 *    arithmetic when every index and offset fits (divisions are much cheaper)
 *    and 64-bit otherwise.
 * No atomics, no shared memory; everything is enqueued on the module's stream
 * and nothing waits.
 *
 * Everything is in an anonymous namespace: each including file gets its own
 * copy of what it uses (no kernel template is shared between translation
 * units). Private to gpu/ (CUDA C++17). */
#pragma once

#include "cr-cuda-private.h"
#include "cr-cuda-strided.cuh"
#include "../core/cr-special-math.h"

#include <cuda_runtime.h>

#include <math.h>
#include <stdint.h>
#include <string.h>

#include <type_traits>
#include <utility>

namespace {

using crl::wrap_add;
using crl::wrap_mul;
using crl::wrap_sub;

constexpr int kMaxDims = CR_CUDA_MAX_DIMS;
constexpr int kThreads = 256;
constexpr int kMaxOperands = 4;    /* out + three inputs (where) */

/* ---- device math with one name for float and double ----------------------- */

#define CR_MATH1(name, fname, dname)                                            \
  __device__ __forceinline__ float name (float x) { return fname (x); }       \
  __device__ __forceinline__ double name (double x) { return dname (x); }

CR_MATH1 (m_exp, expf, exp)
CR_MATH1 (m_log, logf, log)
CR_MATH1 (m_sin, sinf, sin)
CR_MATH1 (m_cos, cosf, cos)
CR_MATH1 (m_tanh, tanhf, tanh)
CR_MATH1 (m_sqrt, sqrtf, sqrt)
CR_MATH1 (m_fabs, fabsf, fabs)
CR_MATH1 (m_log1p, log1pf, log1p)
CR_MATH1 (m_expm1, expm1f, expm1)
CR_MATH1 (m_floor, floorf, floor)
CR_MATH1 (m_ceil, ceilf, ceil)
CR_MATH1 (m_rint, rintf, rint)      /* the CPU's nearbyint: half to even */
#undef CR_MATH1

/* The CPU's vectorised functions (core/cpu/cr-cpu-vecmath.h) that rows of
 * core/cr-unary-ops.def call: here CUDA's precise functions, same formulas. */
__device__ __forceinline__ float cr_vexpf (float x) { return expf (x); }
__device__ __forceinline__ double cr_vexp (double x) { return exp (x); }
__device__ __forceinline__ float cr_vlogf (float x) { return logf (x); }
__device__ __forceinline__ double cr_vlog (double x) { return log (x); }
__device__ __forceinline__ float cr_vtanhf (float x) { return tanhf (x); }
__device__ __forceinline__ double cr_vtanh (double x) { return tanh (x); }
__device__ __forceinline__ float cr_vsinf (float x) { return sinf (x); }
__device__ __forceinline__ float cr_vcosf (float x) { return cosf (x); }
__device__ __forceinline__ float cr_torch_tanhf (float x) { return tanhf (x); }
__device__ __forceinline__ float cr_torch_sigmoidf (float x) { return 1.0f / (1.0f + expf (-x)); }
__device__ __forceinline__ float cr_torch_expf (float x) { return expf (x); }
__device__ __forceinline__ float cr_torch_logf (float x) { return logf (x); }
/* PyTorch's formula: below about -88.7 (float) e^-x is inf and the result
 * exactly 0, as on the CPU. */
__device__ __forceinline__ float cr_vsigmoidf (float x) { return 1.0f / (1.0f + expf (-x)); }
__device__ __forceinline__ double cr_vsigmoid (double x) { return 1.0 / (1.0 + exp (-x)); }

__device__ __forceinline__ float m_fmod (float a, float b) { return fmodf (a, b); }
__device__ __forceinline__ double m_fmod (double a, double b) { return fmod (a, b); }
__device__ __forceinline__ float m_pow (float a, float b) { return powf (a, b); }
__device__ __forceinline__ double m_pow (double a, double b) { return pow (a, b); }
__device__ __forceinline__ float m_copysign (float a, float b) { return copysignf (a, b); }
__device__ __forceinline__ double m_copysign (double a, double b) { return copysign (a, b); }

/* Products and sums rounded on their own (never contracted into an FMA). */
__device__ __forceinline__ float mul_rn (float a, float b) { return __fmul_rn (a, b); }
__device__ __forceinline__ double mul_rn (double a, double b) { return __dmul_rn (a, b); }
__device__ __forceinline__ int64_t mul_rn (int64_t a, int64_t b) { return wrap_mul (a, b); }
__device__ __forceinline__ float add_rn (float a, float b) { return __fadd_rn (a, b); }
__device__ __forceinline__ double add_rn (double a, double b) { return __dadd_rn (a, b); }
__device__ __forceinline__ int64_t add_rn (int64_t a, int64_t b) { return wrap_add (a, b); }
__device__ __forceinline__ float sub_rn (float a, float b) { return __fsub_rn (a, b); }
__device__ __forceinline__ double sub_rn (double a, double b) { return __dsub_rn (a, b); }

template <typename T>
constexpr bool is_float_v = std::is_same<T, float>::value || std::is_same<T, double>::value;
template <typename T>
constexpr bool is_bool_v = std::is_same<T, uint8_t>::value;

/* An element of uint8 (CR_CUDA_UINT8), a type of its own so that a
 * conversion to it wraps where one to bool (uint8_t) tests != 0. Only the
 * copy and fill kernels know it: core computes uint8 in int64. */
enum class byte_t : uint8_t {};

/* A .def row's expression for the element type T, as the row's result type
 * Out: F for float, D for double, I for int64, B for bool. The body of one
 * row in the unary and binary functors. */
#define CR_ROW_EXPRESSION(T, Out, F, D, I, B)                                   \
  {                                                                             \
    if constexpr (std::is_same<T, float>::value)                                \
      return (Out) (F);                                                         \
    else if constexpr (std::is_same<T, double>::value)                          \
      return (Out) (D);                                                         \
    else if constexpr (std::is_same<T, int64_t>::value)                         \
      return (Out) (I);                                                         \
    else                                                                        \
      return (Out) (B);                                                         \
  }

/* ---- dtypes ------------------------------------------------------------------ */

inline size_t
dtype_size (int dtype)
{
  switch (dtype)
    {
    case CR_CUDA_BOOL:    return 1;
    case CR_CUDA_INT64:   return 8;
    case CR_CUDA_FLOAT32: return 4;
    case CR_CUDA_FLOAT64: return 8;
    case CR_CUDA_INT32:   return 4;
    case CR_CUDA_UINT8:   return 1;
    default:              return 0;
    }
}

inline const char *
dtype_name (int dtype)
{
  switch (dtype)
    {
    case CR_CUDA_BOOL:    return "Bool";
    case CR_CUDA_INT64:   return "Long";
    case CR_CUDA_FLOAT32: return "Float";
    case CR_CUDA_FLOAT64: return "Double";
    case CR_CUDA_INT32:   return "Int";
    case CR_CUDA_UINT8:   return "Byte";
    default:              return "Unknown";
    }
}

/* The element types the rows of the .def lists compute in. Calls
 * body (std::integral_constant<int, DT> (), T ()) for dtype's DT and T, and
 * returns what it returns; for any other dtype, or when body returns
 * kRowDtypeRefused (the op does not take that dtype), the unary and binary
 * entries' "not implemented" error for the op named what. */
constexpr int kRowDtypeRefused = -1000;

template <typename Body>
int
with_row_dtype (int dtype, const char *what, char *msg, size_t msg_size, Body body)
{
  int status = kRowDtypeRefused;
  switch (dtype)
    {
    case CR_CUDA_BOOL:
      status = body (std::integral_constant<int, CR_CUDA_BOOL> (), uint8_t ());
      break;
    case CR_CUDA_INT64:
      status = body (std::integral_constant<int, CR_CUDA_INT64> (), int64_t ());
      break;
    case CR_CUDA_FLOAT32:
      status = body (std::integral_constant<int, CR_CUDA_FLOAT32> (), float ());
      break;
    case CR_CUDA_FLOAT64:
      status = body (std::integral_constant<int, CR_CUDA_FLOAT64> (), double ());
      break;
    default:
      break;
    }
  if (status != kRowDtypeRefused)
    return status;
  return cr_cuda_set_msg (CR_CUDA_ERR_UNSUPPORTED, msg, msg_size,
                          "\"%s_cuda\" not implemented for '%s'", what, dtype_name (dtype));
}

/* The cast of the CPU's cr_cpu_convert_scalar (a C cast on x86-64): to bool is
 * "!= 0" (NaN is true); float to int64 truncates, and NaN or a value out of
 * range gives INT64_MIN as cvttsd2si does there (CUDA's own conversion would
 * saturate and give 0 for NaN). */
template <typename To, typename From>
__host__ __device__ __forceinline__ To
convert (From v)
{
  if constexpr (std::is_same<To, From>::value)
    return v;
  else if constexpr (std::is_same<From, byte_t>::value)
    return convert<To, int32_t> ((int32_t) (uint8_t) v);
  else if constexpr (std::is_same<To, byte_t>::value)
    /* Through int32 as the CPU's cr_double_to_uint8 (300.0 -> 44). */
    return (byte_t) (uint8_t) (uint32_t) convert<int32_t, From> (v);
  else if constexpr (is_bool_v<To>)
    return (uint8_t) (v != From (0));
  else if constexpr (std::is_same<To, int32_t>::value && is_float_v<From>)
    {
      if (!(v > From (-2147483649.0) && v < From (2147483648.0)))
        return INT32_MIN;
      return (int32_t) v;
    }
  else if constexpr (std::is_same<To, int32_t>::value)
    /* Integers wrap as two's complement. */
    return (int32_t) (uint32_t) (uint64_t) v;
  else if constexpr (std::is_same<To, int64_t>::value && is_float_v<From>)
    {
      /* 2^63 is exact in float and double. */
      if (!(v >= From (-9223372036854775808.0) && v < From (9223372036854775808.0)))
        return INT64_MIN;
      return (int64_t) v;
    }
  else
    return (To) v;
}

/* ---- operands ------------------------------------------------------------------- */

/* An input of the kernels: a device pointer (data + offset already applied),
 * or, when p is NULL, one value held here (fill's value, clamp's bound). one:
 * the operand is a single value (stride 0 everywhere, Plan::one), which the
 * contiguous kernels read once (read_once). */
template <typename T>
struct Src
{
  const T *p;
  T        value;
  bool     one;

  __device__ __forceinline__ T at (int64_t off) const { return p != nullptr ? p[off] : value; }
};

/* The coalesced geometry of one launch, innermost dim FIRST so the offset
 * loop peels dims with one division each. I is int32_t or int64_t. */
template <int N, typename I>
struct Geom
{
  int      ndim;
  I        shape[kMaxDims];
  I        stride[N][kMaxDims];
  /* 32-bit index only: q = (umulhi (n, magic) + n) >> shift is n / shape
   * for every n < 2^31 (PyTorch's IntDivider), a few instructions instead
   * of a division's ~20. */
  uint32_t magic[kMaxDims];
  uint32_t shift[kMaxDims];
};

/* The multiplier and shift of division by d (1 <= d <= 2^31) for dividends
 * below 2^31. Checked exhaustively on edge cases and on 10^8 random pairs. */
inline void
div_magic (uint32_t d, uint32_t *magic, uint32_t *shift)
{
  uint32_t s = 0;

  while (s < 32 && ((uint64_t) 1 << s) < d)
    s++;
  *magic = (uint32_t) ((((uint64_t) 1 << 32) * (((uint64_t) 1 << s) - d)) / d + 1);
  *shift = s;
}

template <int N, typename I>
__device__ __forceinline__ void
geom_offsets (const Geom<N, I> &g, I linear, I off[N])
{
#pragma unroll
  for (int k = 0; k < N; k++)
    off[k] = 0;
  /* Inner dims take a division each; what is left is the outermost index.
   * (Constant indices only: a computed index into the by-value struct would
   * copy it to local memory.) */
#pragma unroll
  for (int d = 0; d < kMaxDims; d++)
    {
      if (d >= g.ndim)
        break;
      if (d == g.ndim - 1)
        {
#pragma unroll
          for (int k = 0; k < N; k++)
            off[k] += linear * g.stride[k][d];
          break;
        }
      I size = g.shape[d];
      I q;
      if constexpr (std::is_same<I, int32_t>::value)
        q = (I) ((__umulhi ((uint32_t) linear, g.magic[d]) + (uint32_t) linear) >> g.shift[d]);
      else
        q = linear / size;
      I c = linear - q * size;
#pragma unroll
      for (int k = 0; k < N; k++)
        off[k] += c * g.stride[k][d];
      linear = q;
    }
}

/* 16 bytes (or fewer for narrow types next to wide ones) moved as one access. */
template <typename T, int V>
struct alignas (sizeof (T) * V) Vec
{
  T v[V];
};

template <typename... Ts>
constexpr int
vec_width ()
{
  size_t widest = 1;
  for (size_t s : { sizeof (Ts)... })
    widest = s > widest ? s : widest;
  return (int) (16 / widest);
}

/* A single-value operand's value, read once (a held value stays). */
template <typename T>
__device__ __forceinline__ Src<T>
read_once (Src<T> s)
{
  if (s.one)
    s.value = s.at (0);
  return s;
}

/* Element i of a contiguous operand, after read_once. */
template <typename T>
__device__ __forceinline__ T
run_at (const Src<T> &s, int64_t i)
{
  return s.one ? s.value : s.p[i];
}

/* V elements as separate values (a Vec's lanes, or V copies of one). */
template <typename T, int V>
struct Lanes
{
  T v[V];
};

/* The V consecutive elements of chunk (V elements each), moved as one access,
 * or V copies of a single value; after read_once. */
template <int V, typename T>
__device__ __forceinline__ Lanes<T, V>
load_vec (const Src<T> &s, int64_t chunk)
{
  Lanes<T, V> l;

  if (s.one)
    {
#pragma unroll
      for (int j = 0; j < V; j++)
        l.v[j] = s.value;
    }
  else
    {
      Vec<T, V> v = reinterpret_cast<const Vec<T, V> *> (s.p)[chunk];
#pragma unroll
      for (int j = 0; j < V; j++)
        l.v[j] = v.v[j];
    }
  return l;
}

/* f applied lane by lane. */
template <int V, typename Out, typename F, typename... In>
__device__ __forceinline__ Vec<Out, V>
apply_vec (const F &f, const Lanes<In, V> &... in)
{
  Vec<Out, V> o;

#pragma unroll
  for (int j = 0; j < V; j++)
    o.v[j] = f (in.v[j]...);
  return o;
}

/* ---- kernels: contiguous ---------------------------------------------------------
 *
 * Every operand either walks the elements 0..n-1 (stride 1) or is one value
 * (Src::one: read once). With vec, chunks of V elements go as single accesses,
 * then the last n % V elements one by one. */

template <int V, typename F, typename Out, typename... In>
__global__ void __launch_bounds__ (kThreads)
contig_kernel (int64_t n, bool vec, Out *o, F f, Src<In>... in)
{
  const int64_t step = (int64_t) gridDim.x * blockDim.x;
  const int64_t tid = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;
  int64_t done = 0;

  ((in = read_once (in)), ...);
  if (vec)
    {
      const int64_t nv = n / V;
      for (int64_t k = tid; k < nv; k += step)
        reinterpret_cast<Vec<Out, V> *> (o)[k] = apply_vec<V, Out> (f, load_vec<V> (in, k)...);
      done = nv * V;
    }
  for (int64_t i = done + tid; i < n; i += step)
    o[i] = f (run_at (in, i)...);
}

/* ---- kernels: any strides --------------------------------------------------------- */

/* o[off[0]] = f (in_k at off[k + 1]...). */
template <typename I, typename F, typename Out, size_t... K, typename... In>
__device__ __forceinline__ void
store_at (Out *o, const I *off, const F &f, std::index_sequence<K...>, const Src<In> &... in)
{
  o[off[0]] = f (in.at (off[K + 1])...);
}

template <typename I, typename F, typename Out, int N, typename... In>
__global__ void __launch_bounds__ (kThreads)
strided_kernel (Geom<N, I> g, int64_t n, Out *o, F f, Src<In>... in)
{
  static_assert (N == 1 + (int) sizeof... (In), "a stride row per operand, out first");
  const int64_t step = (int64_t) gridDim.x * blockDim.x;
  for (int64_t i = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step)
    {
      I off[N];
      geom_offsets<N, I> (g, (I) i, off);
      store_at (o, off, f, std::index_sequence_for<In...> (), in...);
    }
}

/* ---- host side: planning a launch --------------------------------------------------- */

/* out's shape with every operand's strides, coalesced; dims outermost first
 * here (as the CPU iterator), reversed when copied into a Geom. */
struct Plan
{
  int     n_operands;             /* out included */
  int     ndim;
  int64_t numel;
  int64_t shape[kMaxDims];
  int64_t stride[kMaxOperands][kMaxDims];
  char   *ptr[kMaxOperands];      /* element 0 of each operand; NULL: a held value */
  bool    one[kMaxOperands];      /* operand is a single value (stride 0 everywhere) */
  bool    contiguous;             /* ndim <= 1 and strides 1 or 0 */
  bool    fits32;                 /* every linear index and offset fits int32_t */
};

/* Checks what the ABI promises (a broken promise is a bug in core, reported as
 * CR_CUDA_ERR_INVALID instead of a fault) and fills plan. operands[0] is out;
 * a NULL operand is a value the kernel holds (stride 0). */
inline int
plan_init (Plan *plan, const CrCudaTensor *const *operands, int n_operands, const char *what,
           char *msg, size_t msg_size)
{
  const CrCudaTensor *out = operands[0];
  int nd = 0;

  if (out == nullptr || out->ndim < 0 || out->ndim > kMaxDims)
    return cr_cuda_set_msg (CR_CUDA_ERR_INVALID, msg, msg_size, "%s: bad output tensor", what);

  plan->n_operands = n_operands;
  plan->numel = 1;
  for (int d = 0; d < out->ndim; d++)
    {
      if (out->shape[d] < 0)
        return cr_cuda_set_msg (CR_CUDA_ERR_INVALID, msg, msg_size, "%s: negative size", what);
      plan->numel *= out->shape[d];
    }

  for (int k = 0; k < n_operands; k++)
    {
      const CrCudaTensor *t = operands[k];

      plan->ptr[k] = nullptr;
      if (t == nullptr)
        continue;
      if (dtype_size (t->dtype) == 0 || !cr_cuda_operand_matches_output (t, out, plan->numel))
        return cr_cuda_set_msg (CR_CUDA_ERR_INVALID, msg, msg_size,
                                "%s: operand %d does not have the output's shape", what, k);
      plan->ptr[k] = (char *) t->data + t->offset * (int64_t) dtype_size (t->dtype);
    }

  /* Dims of size 1 never move a pointer: drop them. Then merge an outer dim
   * into the inner one after it when every operand steps through both as
   * through one. */
  for (int d = 0; d < out->ndim; d++)
    {
      int64_t size = out->shape[d];
      bool merge = nd > 0;

      if (size == 1)
        continue;
      for (int k = 0; merge && k < n_operands; k++)
        {
          int64_t s = operands[k] != nullptr ? operands[k]->strides[d] : 0;
          merge = plan->stride[k][nd - 1] == s * size;
        }
      if (merge)
        {
          plan->shape[nd - 1] *= size;
          for (int k = 0; k < n_operands; k++)
            plan->stride[k][nd - 1] = operands[k] != nullptr ? operands[k]->strides[d] : 0;
          continue;
        }
      plan->shape[nd] = size;
      for (int k = 0; k < n_operands; k++)
        plan->stride[k][nd] = operands[k] != nullptr ? operands[k]->strides[d] : 0;
      nd++;
    }
  plan->ndim = nd;

  plan->contiguous = nd <= 1;
  plan->fits32 = plan->numel <= INT32_MAX;
  for (int k = 0; k < n_operands; k++)
    {
      /* The largest distance from ptr[k] that the operand reaches forwards
       * and backwards: a flipped view (torch.flip) has negative strides. */
      int64_t ahead = 0, behind = 0;
      bool one = true;

      for (int d = 0; d < nd; d++)
        {
          int64_t s = plan->stride[k][d];
          int64_t step = s < 0 ? -s : s;
          int64_t *extent = s < 0 ? &behind : &ahead;

          if (s != 0)
            one = false;
          if (s != 0 && s != 1)
            plan->contiguous = false;
          if (step > 0 && (plan->shape[d] - 1) > (INT64_MAX - *extent) / step)
            *extent = INT64_MAX;
          else
            *extent += (plan->shape[d] - 1) * step;
        }
      plan->one[k] = one;
      if (ahead > INT32_MAX || behind > INT32_MAX)
        plan->fits32 = false;
    }
  /* The output's elements must be distinct to be written in parallel. */
  if (plan->numel > 1 && plan->one[0])
    return cr_cuda_set_msg (CR_CUDA_ERR_INVALID, msg, msg_size,
                            "%s: output has stride 0 on a dim of size > 1", what);
  if (plan->contiguous && nd == 1 && plan->stride[0][0] != 1)
    plan->contiguous = false;
  return CR_CUDA_OK;
}

template <int N, typename I>
Geom<N, I>
plan_geom (const Plan &plan)
{
  Geom<N, I> g;

  memset (&g, 0, sizeof g);
  g.ndim = plan.ndim;
  for (int d = 0; d < plan.ndim; d++)
    {
      int r = plan.ndim - 1 - d;      /* innermost first */
      g.shape[d] = (I) plan.shape[r];
      /* 1 < shape <= numel < 2^31 when I is int32_t (plan.fits32) */
      if constexpr (std::is_same<I, int32_t>::value)
        div_magic ((uint32_t) plan.shape[r], &g.magic[d], &g.shift[d]);
      for (int k = 0; k < N; k++)
        g.stride[k][d] = (I) plan.stride[k][r];
    }
  return g;
}

/* Enough blocks to fill the GPU a few times over; grid-stride loops do the
 * rest, so huge tensors need no huge grids. */
inline unsigned
grid_for (int64_t work)
{
  static int max_blocks = 0;

  if (max_blocks == 0)
    {
      int device = 0, sms = 0;

      if (cudaGetDevice (&device) != cudaSuccess
          || cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess
          || sms <= 0)
        {
          cudaGetLastError ();
          sms = 132;      /* an H100 SXM */
        }
      /* 2048 resident threads per SM on sm_90: 8 blocks of 256, times 4
       * waves' worth so that the tail of one block overlaps the next. */
      max_blocks = sms * 32;
    }
  int64_t blocks = (work + kThreads - 1) / kThreads;
  if (blocks < 1)
    blocks = 1;
  if (blocks > max_blocks)
    blocks = max_blocks;
  return (unsigned) blocks;
}

inline bool
aligned (const void *p, size_t bytes)
{
  return ((uintptr_t) p % bytes) == 0;
}

template <typename T>
Src<T>
src_of (const Plan &plan, int k, T value = T ())
{
  Src<T> s;

  s.p = (const T *) plan.ptr[k];
  s.value = value;
  s.one = plan.one[k];
  return s;
}

inline cudaStream_t
stream ()
{
  return cr_cuda_stream ();
}

/* Launches out = f(in...) over plan (operands: out, then in in order). */
template <typename Out, typename F, typename... In>
int
launch_srcs (const Plan &plan, F f, const char *what, char *msg, size_t msg_size,
             Src<In>... in)
{
  constexpr int N = 1 + (int) sizeof... (In);
  Out *o = (Out *) plan.ptr[0];

  if (plan.numel == 0)
    return CR_CUDA_OK;
  if (plan.contiguous)
    {
      constexpr int V = vec_width<Out, In...> ();
      bool vec = aligned (o, sizeof (Out) * V)
                 && (... && (in.one || aligned (in.p, sizeof (In) * V)));
      int64_t work = vec ? plan.numel / V + V : plan.numel;

      contig_kernel<V><<<grid_for (work), kThreads, 0, stream ()>>> (plan.numel, vec, o, f, in...);
    }
  else if (plan.fits32)
    strided_kernel<int32_t><<<grid_for (plan.numel), kThreads, 0, stream ()>>> (
      plan_geom<N, int32_t> (plan), plan.numel, o, f, in...);
  else
    strided_kernel<int64_t><<<grid_for (plan.numel), kThreads, 0, stream ()>>> (
      plan_geom<N, int64_t> (plan), plan.numel, o, f, in...);
  return cr_cuda_check_launch (what, msg, msg_size);
}

template <typename Out, typename... In, typename F, size_t... K>
int
launch_seq (const Plan &plan, F f, const char *what, char *msg, size_t msg_size,
            std::index_sequence<K...>)
{
  return launch_srcs<Out> (plan, f, what, msg, msg_size, src_of<In> (plan, (int) K + 1)...);
}

/* Launches out = f(a, ...) over plan, every input a device operand:
 * launch<Out, A, B...> (plan, f, ...). */
template <typename Out, typename... In, typename F>
int
launch (const Plan &plan, F f, const char *what, char *msg, size_t msg_size)
{
  return launch_seq<Out, In...> (plan, f, what, msg, msg_size, std::index_sequence_for<In...> ());
}

} // namespace
