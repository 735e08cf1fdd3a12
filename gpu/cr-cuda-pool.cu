/* cr-cuda-pool.cu — max and average pooling over planes (P, H, W), sliding
 * or adaptive windows, forward and backward, as core/cpu/cr-cpu-pool.c
 * computes them: the same windows, divisors, tap order and NaN rule, so a
 * forward gives the CPU's bits.
 *
 * Forward kernels: one thread per output. Backward kernels are gathers, one
 * thread per input element, which visits the outputs whose windows can hold
 * it in ascending order and adds their shares: that is the order in which
 * the CPU's scatter adds into that element, so the result is the CPU's to
 * the bit, with no atomics and no zeroing first. int64 indices throughout,
 * grid-stride loops. */
#include "cr-cuda-grid.cuh"

#include <math.h>
#include <type_traits>

namespace crl {

/* One output position's window along one axis (cr-cpu-pool.c's Window):
 * taps first, first + step, ... below end; span: the window's size inside
 * the padded range (count_include_pad's divisor). */
struct Win {
  int64_t first, end, step, span;
};

__device__ __forceinline__ Win
window (const CrCudaPoolGeom &g, int axis, int64_t o)
{
  Win w;
  int64_t size = g.in[axis];

  if (g.adaptive)
    {
      w.first = o * size / g.out[axis];
      w.end = ((o + 1) * size + g.out[axis] - 1) / g.out[axis];
      w.step = 1;
      w.span = w.end - w.first;
      return w;
    }
  int64_t d = g.dilation[axis];
  int64_t start = o * g.stride[axis] - g.padding[axis];
  int64_t last = start + (g.kernel[axis] - 1) * d;
  int64_t first = start;

  if (first < 0)
    first += (-first + d - 1) / d * d;
  w.first = first;
  w.end = last + 1 < size ? last + 1 : size;
  w.step = d;
  int64_t hi = start + g.kernel[axis];
  if (hi > size + g.padding[axis])
    hi = size + g.padding[axis];
  w.span = hi - start;
  return w;
}

/* The outputs along one axis whose windows may hold input position i:
 * [*lo, *hi] (empty when *lo > *hi). Exact for adaptive windows; for
 * sliding ones every window whose full extent covers i. */
__device__ __forceinline__ void
outputs_holding (const CrCudaPoolGeom &g, int axis, int64_t i, int64_t *lo, int64_t *hi)
{
  int64_t n_out = g.out[axis];

  if (g.adaptive)
    {
      *lo = i * n_out / g.in[axis];
      *hi = ((i + 1) * n_out + g.in[axis] - 1) / g.in[axis] - 1;
    }
  else
    {
      int64_t s = g.stride[axis];
      int64_t top = i + g.padding[axis];                       /* >= 0 */
      int64_t bottom = top - (g.kernel[axis] - 1) * g.dilation[axis];
      *lo = bottom <= 0 ? 0 : (bottom + s - 1) / s;
      *hi = top / s;
    }
  if (*lo < 0)
    *lo = 0;
  if (*hi > n_out - 1)
    *hi = n_out - 1;
}

__device__ __forceinline__ bool
holds (const Win &w, int64_t i)
{
  return i >= w.first && i < w.end && (i - w.first) % w.step == 0;
}

__device__ __forceinline__ double
divisor (const CrCudaPoolGeom &g, const Win &y, const Win &x)
{
  if (g.divisor_override != 0)
    return (double) g.divisor_override;
  if (g.count_include_pad && !g.adaptive)
    return (double) (y.span * x.span);
  int64_t ny = y.end - y.first, nx = x.end - x.first;
  return (double) ((ny > 0 ? ny : 0) * (nx > 0 ? nx : 0));
}

/* A (P, h, w) tensor through its strides. */
struct Planes {
  int64_t h, w;
  int64_t s[3];

  __device__ __forceinline__ int64_t
  at (int64_t p, int64_t y, int64_t x) const
  {
    return p * s[0] + y * s[1] + x * s[2];
  }
};

static Planes
planes_of (const CrCudaTensor *t)
{
  Planes p;
  p.h = t->shape[1];
  p.w = t->shape[2];
  for (int d = 0; d < 3; d++)
    p.s[d] = t->strides[d];
  return p;
}

template <typename T>
__global__ void
max_kernel (T *values, int64_t *indices, const T *x, Planes pv, Planes pi, Planes px,
            CrCudaPoolGeom g, int64_t total)
{
  for (int64_t idx = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; idx < total;
       idx += (int64_t) gridDim.x * blockDim.x)
    {
      int64_t ox = idx % g.out[1], t = idx / g.out[1];
      int64_t oy = t % g.out[0], p = t / g.out[0];
      Win y = window (g, 0, oy), xw = window (g, 1, ox);
      T best = (T) -INFINITY;
      int64_t at = y.first * g.in[1] + xw.first;

      for (int64_t iy = y.first; iy < y.end; iy += y.step)
        for (int64_t ix = xw.first; ix < xw.end; ix += xw.step)
          {
            T v = x[px.at (p, iy, ix)];
            if (v > best || isnan (v))
              {
                best = v;
                at = iy * g.in[1] + ix;
              }
          }
      values[pv.at (p, oy, ox)] = best;
      indices[pi.at (p, oy, ox)] = at;
    }
}

template <typename T>
__global__ void
max_backward_kernel (T *gx, const T *gy, const int64_t *indices, Planes pgx, Planes pgy,
                     Planes pi, CrCudaPoolGeom g, int64_t total)
{
  for (int64_t idx = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; idx < total;
       idx += (int64_t) gridDim.x * blockDim.x)
    {
      int64_t ix = idx % g.in[1], t = idx / g.in[1];
      int64_t iy = t % g.in[0], p = t / g.in[0];
      int64_t flat = iy * g.in[1] + ix;
      int64_t ylo, yhi, xlo, xhi;
      T sum = 0;

      outputs_holding (g, 0, iy, &ylo, &yhi);
      outputs_holding (g, 1, ix, &xlo, &xhi);
      for (int64_t oy = ylo; oy <= yhi; oy++)
        for (int64_t ox = xlo; ox <= xhi; ox++)
          if (indices[pi.at (p, oy, ox)] == flat)
            sum += gy[pgy.at (p, oy, ox)];
      gx[pgx.at (p, iy, ix)] = sum;
    }
}

template <typename T>
__global__ void
max_gather_kernel (T *out, const T *src, const int64_t *indices, Planes po, Planes ps,
                   Planes pi, CrCudaPoolGeom g, int64_t total)
{
  int64_t plane = g.in[0] * g.in[1];

  for (int64_t idx = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; idx < total;
       idx += (int64_t) gridDim.x * blockDim.x)
    {
      int64_t ox = idx % g.out[1], t = idx / g.out[1];
      int64_t oy = t % g.out[0], p = t / g.out[0];
      int64_t k = indices[pi.at (p, oy, ox)];

      out[po.at (p, oy, ox)] = k >= 0 && k < plane ? src[ps.at (p, k / g.in[1], k % g.in[1])]
                                                   : (T) 0;
    }
}

template <typename T>
__device__ __forceinline__ T
add (T a, T b)
{
  if constexpr (std::is_same<T, int64_t>::value)
    return wrap_add (a, b);   /* int64 wraps, as the CPU's */
  else
    return a + b;
}

template <typename T>
__global__ void
avg_kernel (T *out, const T *x, Planes po, Planes px, CrCudaPoolGeom g, int64_t total)
{
  for (int64_t idx = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; idx < total;
       idx += (int64_t) gridDim.x * blockDim.x)
    {
      int64_t ox = idx % g.out[1], t = idx / g.out[1];
      int64_t oy = t % g.out[0], p = t / g.out[0];
      Win y = window (g, 0, oy), xw = window (g, 1, ox);
      T sum = 0;

      if (y.first >= y.end || xw.first >= xw.end)
        {
          out[po.at (p, oy, ox)] = 0;
          continue;
        }
      for (int64_t iy = y.first; iy < y.end; iy += y.step)
        for (int64_t ix = xw.first; ix < xw.end; ix += xw.step)
          sum = add (sum, x[px.at (p, iy, ix)]);
      T div = (T) divisor (g, y, xw);
      if constexpr (std::is_same<T, int64_t>::value)
        out[po.at (p, oy, ox)] = div == 0 ? 0 : (div == -1 ? wrap_sub (0, sum) : sum / div);
      else
        out[po.at (p, oy, ox)] = sum / div;
    }
}

template <typename T>
__global__ void
avg_backward_kernel (T *gx, const T *gy, Planes pgx, Planes pgy, CrCudaPoolGeom g, int64_t total)
{
  for (int64_t idx = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; idx < total;
       idx += (int64_t) gridDim.x * blockDim.x)
    {
      int64_t ix = idx % g.in[1], t = idx / g.in[1];
      int64_t iy = t % g.in[0], p = t / g.in[0];
      int64_t ylo, yhi, xlo, xhi;
      T sum = 0;

      outputs_holding (g, 0, iy, &ylo, &yhi);
      outputs_holding (g, 1, ix, &xlo, &xhi);
      for (int64_t oy = ylo; oy <= yhi; oy++)
        {
          Win y = window (g, 0, oy);
          if (!holds (y, iy))
            continue;
          for (int64_t ox = xlo; ox <= xhi; ox++)
            {
              Win xw = window (g, 1, ox);
              if (holds (xw, ix))
                sum += gy[pgy.at (p, oy, ox)] / (T) divisor (g, y, xw);
            }
        }
      gx[pgx.at (p, iy, ix)] = sum;
    }
}

/* The checks every entry point shares: 3-d tensors, the planes' sizes the
 * geometry's, a sane geometry. */
static int
check_planes (const char *what, const CrCudaTensor *t, int64_t P, int64_t h, int64_t w,
              char *msg, size_t msg_size)
{
  if (t->ndim != 3 || t->shape[0] != P || t->shape[1] != h || t->shape[2] != w
      || t->offset < 0)
    return cr_cuda_set_msg (CR_CUDA_ERR_INVALID, msg, msg_size,
                            "%s: a tensor is not (P, h, w) as the geometry says", what);
  return CR_CUDA_OK;
}

static int
check_geom (const char *what, const CrCudaPoolGeom *g, char *msg, size_t msg_size)
{
  for (int a = 0; a < 2; a++)
    if (g->in[a] < 0 || g->out[a] < 0
        || (g->adaptive ? (g->out[a] == 0 && g->in[a] > 0) || (g->in[a] == 0 && g->out[a] > 0)
                        : g->kernel[a] < 1 || g->stride[a] < 1 || g->dilation[a] < 1
                            || g->padding[a] < 0))
      return cr_cuda_set_msg (CR_CUDA_ERR_INVALID, msg, msg_size, "%s: bad geometry", what);
  return CR_CUDA_OK;
}

static int
check_float (const char *what, int dtype, char *msg, size_t msg_size)
{
  if (!dtype_is_floating (dtype))
    return cr_cuda_set_msg (CR_CUDA_ERR_UNSUPPORTED, msg, msg_size,
                            "\"%s\" not implemented for this dtype", what);
  return CR_CUDA_OK;
}

} /* namespace crl */

using namespace crl;

extern "C" int
cr_cuda_k_max_pool2d (const CrCudaTensor *values, const CrCudaTensor *indices,
                      const CrCudaTensor *x, const CrCudaPoolGeom *geom, char *msg,
                      size_t msg_size)
{
  const char *what = "max_pool2d";
  CRL_TRY (check_geom (what, geom, msg, msg_size));
  CRL_TRY (check_float (what, x->dtype, msg, msg_size));
  int64_t P = x->ndim == 3 ? x->shape[0] : -1;
  CRL_TRY (check_planes (what, x, P, geom->in[0], geom->in[1], msg, msg_size));
  CRL_TRY (check_planes (what, values, P, geom->out[0], geom->out[1], msg, msg_size));
  CRL_TRY (check_planes (what, indices, P, geom->out[0], geom->out[1], msg, msg_size));
  if (values->dtype != x->dtype || indices->dtype != CR_CUDA_INT64)
    return cr_cuda_set_msg (CR_CUDA_ERR_INVALID, msg, msg_size, "%s: wrong output dtypes", what);
  int64_t total = P * geom->out[0] * geom->out[1];
  if (total == 0)
    return CR_CUDA_OK;
  CRL_DISPATCH_FLOATING (x->dtype, T,
    {
      max_kernel<T> CRL_GRID (total)
        ((T *) element_ptr (values->data, values->dtype, values->offset),
         (int64_t *) element_ptr (indices->data, indices->dtype, indices->offset),
         (const T *) element_ptr (x->data, x->dtype, x->offset),
         planes_of (values), planes_of (indices), planes_of (x), *geom, total);
    });
  CRL_CHECK_LAUNCH ("max_pool2d kernel");
  return CR_CUDA_OK;
}

extern "C" int
cr_cuda_k_max_pool2d_backward (const CrCudaTensor *gx, const CrCudaTensor *gy,
                               const CrCudaTensor *indices, const CrCudaPoolGeom *geom,
                               char *msg, size_t msg_size)
{
  const char *what = "max_pool2d_backward";
  CRL_TRY (check_geom (what, geom, msg, msg_size));
  CRL_TRY (check_float (what, gy->dtype, msg, msg_size));
  int64_t P = gy->ndim == 3 ? gy->shape[0] : -1;
  CRL_TRY (check_planes (what, gy, P, geom->out[0], geom->out[1], msg, msg_size));
  CRL_TRY (check_planes (what, indices, P, geom->out[0], geom->out[1], msg, msg_size));
  CRL_TRY (check_planes (what, gx, P, geom->in[0], geom->in[1], msg, msg_size));
  if (gx->dtype != gy->dtype || indices->dtype != CR_CUDA_INT64)
    return cr_cuda_set_msg (CR_CUDA_ERR_INVALID, msg, msg_size, "%s: wrong dtypes", what);
  int64_t total = P * geom->in[0] * geom->in[1];
  if (total == 0)
    return CR_CUDA_OK;
  CRL_DISPATCH_FLOATING (gy->dtype, T,
    {
      max_backward_kernel<T> CRL_GRID (total)
        ((T *) element_ptr (gx->data, gx->dtype, gx->offset),
         (const T *) element_ptr (gy->data, gy->dtype, gy->offset),
         (const int64_t *) element_ptr (indices->data, indices->dtype, indices->offset),
         planes_of (gx), planes_of (gy), planes_of (indices), *geom, total);
    });
  CRL_CHECK_LAUNCH ("max_pool2d_backward kernel");
  return CR_CUDA_OK;
}

extern "C" int
cr_cuda_k_max_pool2d_gather (const CrCudaTensor *out, const CrCudaTensor *g,
                             const CrCudaTensor *indices, const CrCudaPoolGeom *geom,
                             char *msg, size_t msg_size)
{
  const char *what = "max_pool2d_gather";
  CRL_TRY (check_geom (what, geom, msg, msg_size));
  CRL_TRY (check_float (what, g->dtype, msg, msg_size));
  int64_t P = g->ndim == 3 ? g->shape[0] : -1;
  CRL_TRY (check_planes (what, g, P, geom->in[0], geom->in[1], msg, msg_size));
  CRL_TRY (check_planes (what, indices, P, geom->out[0], geom->out[1], msg, msg_size));
  CRL_TRY (check_planes (what, out, P, geom->out[0], geom->out[1], msg, msg_size));
  if (out->dtype != g->dtype || indices->dtype != CR_CUDA_INT64)
    return cr_cuda_set_msg (CR_CUDA_ERR_INVALID, msg, msg_size, "%s: wrong dtypes", what);
  int64_t total = P * geom->out[0] * geom->out[1];
  if (total == 0)
    return CR_CUDA_OK;
  CRL_DISPATCH_FLOATING (g->dtype, T,
    {
      max_gather_kernel<T> CRL_GRID (total)
        ((T *) element_ptr (out->data, out->dtype, out->offset),
         (const T *) element_ptr (g->data, g->dtype, g->offset),
         (const int64_t *) element_ptr (indices->data, indices->dtype, indices->offset),
         planes_of (out), planes_of (g), planes_of (indices), *geom, total);
    });
  CRL_CHECK_LAUNCH ("max_pool2d_gather kernel");
  return CR_CUDA_OK;
}

extern "C" int
cr_cuda_k_avg_pool2d (const CrCudaTensor *out, const CrCudaTensor *x,
                      const CrCudaPoolGeom *geom, char *msg, size_t msg_size)
{
  const char *what = "avg_pool2d";
  CRL_TRY (check_geom (what, geom, msg, msg_size));
  if (geom->adaptive || x->dtype != CR_CUDA_INT64)
    CRL_TRY (check_float (what, x->dtype, msg, msg_size));
  int64_t P = x->ndim == 3 ? x->shape[0] : -1;
  CRL_TRY (check_planes (what, x, P, geom->in[0], geom->in[1], msg, msg_size));
  CRL_TRY (check_planes (what, out, P, geom->out[0], geom->out[1], msg, msg_size));
  if (out->dtype != x->dtype)
    return cr_cuda_set_msg (CR_CUDA_ERR_INVALID, msg, msg_size, "%s: wrong dtypes", what);
  int64_t total = P * geom->out[0] * geom->out[1];
  if (total == 0)
    return CR_CUDA_OK;
#define CRL_AVG_LAUNCH(T)                                                        \
  avg_kernel<T> CRL_GRID (total)                                                 \
    ((T *) element_ptr (out->data, out->dtype, out->offset),                     \
     (const T *) element_ptr (x->data, x->dtype, x->offset),                     \
     planes_of (out), planes_of (x), *geom, total)
  if (x->dtype == CR_CUDA_INT64)
    CRL_AVG_LAUNCH (int64_t);
  else if (x->dtype == CR_CUDA_FLOAT32)
    CRL_AVG_LAUNCH (float);
  else
    CRL_AVG_LAUNCH (double);
#undef CRL_AVG_LAUNCH
  CRL_CHECK_LAUNCH ("avg_pool2d kernel");
  return CR_CUDA_OK;
}

extern "C" int
cr_cuda_k_avg_pool2d_backward (const CrCudaTensor *gx, const CrCudaTensor *gy,
                               const CrCudaPoolGeom *geom, char *msg, size_t msg_size)
{
  const char *what = "avg_pool2d_backward";
  CRL_TRY (check_geom (what, geom, msg, msg_size));
  CRL_TRY (check_float (what, gy->dtype, msg, msg_size));
  int64_t P = gy->ndim == 3 ? gy->shape[0] : -1;
  CRL_TRY (check_planes (what, gy, P, geom->out[0], geom->out[1], msg, msg_size));
  CRL_TRY (check_planes (what, gx, P, geom->in[0], geom->in[1], msg, msg_size));
  if (gx->dtype != gy->dtype)
    return cr_cuda_set_msg (CR_CUDA_ERR_INVALID, msg, msg_size, "%s: wrong dtypes", what);
  int64_t total = P * geom->in[0] * geom->in[1];
  if (total == 0)
    return CR_CUDA_OK;
  CRL_DISPATCH_FLOATING (gy->dtype, T,
    {
      avg_backward_kernel<T> CRL_GRID (total)
        ((T *) element_ptr (gx->data, gx->dtype, gx->offset),
         (const T *) element_ptr (gy->data, gy->dtype, gy->offset),
         planes_of (gx), planes_of (gy), *geom, total);
    });
  CRL_CHECK_LAUNCH ("avg_pool2d_backward kernel");
  return CR_CUDA_OK;
}
