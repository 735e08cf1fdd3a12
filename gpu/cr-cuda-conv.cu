/* cr-cuda-conv.cu — im2col and col2im, the data movement of a convolution
 * on the GPU. core/cuda/cr-cuda-conv.c builds conv2d, its input gradient
 * (= conv_transpose2d) and its weight gradient from these two and the
 * module's cuBLAS gemm, with the CPU's column layout (core/cpu/
 * cr-cpu-conv.c): cols (C*kh*kw, nb*oh*ow), row (c*kh + i)*kw + j, column
 * b*oh*ow + oy*ow + ox.
 *
 * im2col: one thread per column entry; neighbouring threads take
 * neighbouring output columns, so reads of x are near each other and the
 * writes coalesce. col2im is written as a gather, one thread per element
 * of x that sums the at most kh*kw entries that read it (in (i, j) order,
 * the CPU's order for that element): no atomics, no zeroing first, and the
 * same bits on every run. Indices are int64 and loops grid-stride, so a
 * tensor of more than 2^31 elements is fine. */
#include "cr-cuda-grid.cuh"

#include <type_traits>

namespace crl {

/* x (nb, C, H, W) through its strides. */
struct Image {
  int64_t nb, C, H, W;
  int64_t s[4];
};

/* cols (rows, ncols) through its strides. */
struct Columns {
  int64_t rows, ncols;
  int64_t s[2];
};

template <typename T>
__global__ void
im2col_kernel (T *cols, const T *x, Image im, Columns cl, CrCudaConvGeom g, int64_t total)
{
  int64_t kh = g.kernel[0], kw = g.kernel[1], oh = g.out[0], ow = g.out[1];
  int64_t L = oh * ow;

  for (int64_t idx = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; idx < total;
       idx += (int64_t) gridDim.x * blockDim.x)
    {
      int64_t r = idx / cl.ncols, q = idx - r * cl.ncols;
      int64_t b = q / L, l = q - b * L;
      int64_t oy = l / ow, ox = l - oy * ow;
      int64_t c = r / (kh * kw), k = r - c * (kh * kw);
      int64_t i = k / kw, j = k - i * kw;
      int64_t iy = oy * g.stride[0] - g.padding[0] + i * g.dilation[0];
      int64_t ix = ox * g.stride[1] - g.padding[1] + j * g.dilation[1];
      T v = 0;

      if (iy >= 0 && iy < im.H && ix >= 0 && ix < im.W)
        v = x[b * im.s[0] + c * im.s[1] + iy * im.s[2] + ix * im.s[3]];
      cols[r * cl.s[0] + q * cl.s[1]] = v;
    }
}

template <typename T>
__global__ void
col2im_kernel (T *x, const T *cols, Image im, Columns cl, CrCudaConvGeom g, int64_t total)
{
  int64_t kh = g.kernel[0], kw = g.kernel[1], oh = g.out[0], ow = g.out[1];
  int64_t L = oh * ow;

  for (int64_t idx = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; idx < total;
       idx += (int64_t) gridDim.x * blockDim.x)
    {
      int64_t ix = idx % im.W;
      int64_t t = idx / im.W;
      int64_t iy = t % im.H;
      t /= im.H;
      int64_t c = t % im.C;
      int64_t b = t / im.C;
      T sum = 0;

      for (int64_t i = 0; i < kh; i++)
        {
          int64_t ty = iy + g.padding[0] - i * g.dilation[0];
          if (ty < 0 || ty % g.stride[0] != 0 || ty / g.stride[0] >= oh)
            continue;
          int64_t oy = ty / g.stride[0];
          for (int64_t j = 0; j < kw; j++)
            {
              int64_t tx = ix + g.padding[1] - j * g.dilation[1];
              if (tx < 0 || tx % g.stride[1] != 0 || tx / g.stride[1] >= ow)
                continue;
              int64_t ox = tx / g.stride[1];
              int64_t r = (c * kh + i) * kw + j;
              int64_t q = b * L + oy * ow + ox;
              T v = cols[r * cl.s[0] + q * cl.s[1]];
              if constexpr (std::is_same<T, int64_t>::value)
                sum = (T) wrap_add ((int64_t) sum, (int64_t) v);   /* int64 wraps */
              else
                sum += v;
            }
        }
      x[b * im.s[0] + c * im.s[1] + iy * im.s[2] + ix * im.s[3]] = sum;
    }
}

/* Checks the shapes and the geometry that both kernels trust. */
static int
check_args (const char *what, const CrCudaTensor *cols, const CrCudaTensor *x,
            const CrCudaConvGeom *g, Image *im, Columns *cl, char *msg, size_t msg_size)
{
  if (cols->ndim != 2 || x->ndim != 4 || cols->dtype != x->dtype || cols->offset < 0
      || x->offset < 0)
    return cr_cuda_set_msg (CR_CUDA_ERR_INVALID, msg, msg_size,
                            "%s: cols must be 2-d and x 4-d, of one dtype", what);
  if (x->dtype != CR_CUDA_FLOAT32 && x->dtype != CR_CUDA_FLOAT64 && x->dtype != CR_CUDA_INT64)
    return cr_cuda_set_msg (CR_CUDA_ERR_UNSUPPORTED, msg, msg_size,
                            "\"%s\" not implemented for this dtype", what);
  for (int a = 0; a < 2; a++)
    if (g->kernel[a] < 1 || g->stride[a] < 1 || g->dilation[a] < 1 || g->padding[a] < 0
        || g->out[a] < 0)
      return cr_cuda_set_msg (CR_CUDA_ERR_INVALID, msg, msg_size, "%s: bad geometry", what);
  im->nb = x->shape[0];
  im->C = x->shape[1];
  im->H = x->shape[2];
  im->W = x->shape[3];
  for (int d = 0; d < 4; d++)
    im->s[d] = x->strides[d];
  cl->rows = cols->shape[0];
  cl->ncols = cols->shape[1];
  cl->s[0] = cols->strides[0];
  cl->s[1] = cols->strides[1];
  if (cl->rows != im->C * g->kernel[0] * g->kernel[1]
      || cl->ncols != im->nb * g->out[0] * g->out[1])
    return cr_cuda_set_msg (CR_CUDA_ERR_INVALID, msg, msg_size,
                            "%s: cols is not (C*kh*kw, nb*oh*ow)", what);
  return CR_CUDA_OK;
}

/* The two directions of one gather: im2col copies x's windows into cols;
 * col2im sums cols back into x (one thread per element of the output). */
template <bool TO_COLS>
static int
move_columns (const char *what, const CrCudaTensor *cols, const CrCudaTensor *x,
              const CrCudaConvGeom *geom, char *msg, size_t msg_size)
{
  Image im;
  Columns cl;

  CRL_TRY (check_args (what, cols, x, geom, &im, &cl, msg, msg_size));
  int64_t total = TO_COLS ? cl.rows * cl.ncols : im.nb * im.C * im.H * im.W;
  if (total == 0)
    return CR_CUDA_OK;
  CRL_DISPATCH (x->dtype, T,
    {
      T *xs = (T *) element_ptr (x->data, x->dtype, x->offset);
      T *cs = (T *) element_ptr (cols->data, cols->dtype, cols->offset);
      if constexpr (TO_COLS)
        im2col_kernel<T> CRL_GRID (total) (cs, xs, im, cl, *geom, total);
      else
        col2im_kernel<T> CRL_GRID (total) (xs, cs, im, cl, *geom, total);
    });
  CRL_CHECK_LAUNCH (TO_COLS ? "im2col kernel" : "col2im kernel");
  return CR_CUDA_OK;
}

} /* namespace crl */

using namespace crl;

extern "C" int
cr_cuda_k_im2col (const CrCudaTensor *cols, const CrCudaTensor *x, const CrCudaConvGeom *geom,
                  char *msg, size_t msg_size)
{
  return move_columns<true> ("im2col", cols, x, geom, msg, msg_size);
}

extern "C" int
cr_cuda_k_col2im (const CrCudaTensor *x, const CrCudaTensor *cols, const CrCudaConvGeom *geom,
                  char *msg, size_t msg_size)
{
  return move_columns<false> ("col2im", cols, x, geom, msg, msg_size);
}
