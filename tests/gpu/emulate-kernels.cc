/* emulate-kernels.cc — the CUDA kernels of gpu/cr-cuda-conv.cu and
 * gpu/cr-cuda-pool.cu, compiled for the host, against the mock module's
 * loops (tests/gpu/mock-cuda-module.c), on random strided cases.
 *
 * The kernel files are included here with CR_CUDA_HOST_EMULATION and the
 * stand-in cuda_runtime.h of tests/gpu/emulate/: every launch becomes a
 * call by a single thread whose grid-stride loop covers every index. So
 * the kernels' own index arithmetic, windows, bounds, tap order and NaN
 * rules run on a machine without a GPU (what the mock alone cannot show:
 * it is a second implementation). Outputs start as garbage, so an element
 * a kernel forgets to write shows. Launch geometry and the GPU's floating
 * point are for suite gpu on a device.
 *
 * Usage: emulate-kernels MOCK_MODULE.so; prints "N checks, M failed" and
 * one line per failure; exit status 1 on a failure. */
#define CR_CUDA_HOST_EMULATION 1

#include "cr-cuda-conv.cu"
#include "cr-cuda-pool.cu"

#include <dlfcn.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

/* ---- the module services the kernel files call ---------------------------------- */

extern "C" int
cr_cuda_set_msg (int code, char *msg, size_t msg_size, const char *format, ...)
{
  if (msg != nullptr && msg_size > 0)
    {
      va_list args;
      va_start (args, format);
      vsnprintf (msg, msg_size, format, args);
      va_end (args);
    }
  return code;
}

extern "C" int
cr_cuda_check_launch (const char *, char *, size_t)
{
  return CR_CUDA_OK;
}

extern "C" int
cr_cuda_fail (cudaError_t, const char *what, char *msg, size_t msg_size)
{
  return cr_cuda_set_msg (CR_CUDA_ERR_RUNTIME, msg, msg_size, "%s failed", what);
}

extern "C" cudaStream_t
cr_cuda_stream (void)
{
  return nullptr;
}

extern "C" int
cr_cuda_malloc (size_t nbytes, void **out_ptr, char *, size_t)
{
  *out_ptr = malloc (nbytes > 0 ? nbytes : 1);
  return *out_ptr != nullptr ? CR_CUDA_OK : CR_CUDA_ERR_OUT_OF_MEMORY;
}

extern "C" int
cr_cuda_free (void *ptr, char *, size_t)
{
  free (ptr);
  return CR_CUDA_OK;
}

/* ---- cases ----------------------------------------------------------------------- */

namespace {

CrCudaApi mock;
std::mt19937_64 rng (12345);
int n_checks, n_failed;
char msg[512];

int64_t
uniform (int64_t lo, int64_t hi)
{
  return std::uniform_int_distribution<int64_t> (lo, hi) (rng);
}

/* A host tensor whose dims lie in memory in a random order, at a random
 * offset. */
struct Tensor {
  std::vector<double> mem;   /* 8-byte cells: room for any dtype */
  CrCudaTensor t;

  Tensor (int dtype, int ndim, const int64_t *shape, bool fill, bool garbage = true)
  {
    int order[CR_CUDA_MAX_DIMS];
    int64_t n = 1;

    memset (&t, 0, sizeof t);
    for (int d = 0; d < ndim; d++)
      order[d] = d;
    std::shuffle (order, order + ndim, rng);
    for (int k = ndim - 1; k >= 0; k--)
      {
        t.strides[order[k]] = n;
        n *= shape[order[k]];
      }
    t.offset = uniform (0, 3);
    mem.assign ((size_t) (n + t.offset + 1), 0.0);
    if (garbage)
      memset (mem.data (), 0x5a, mem.size () * sizeof (double));
    t.data = mem.data ();
    t.dtype = dtype;
    t.ndim = ndim;
    for (int d = 0; d < ndim; d++)
      t.shape[d] = shape[d];
    for (size_t i = 0; fill && i < mem.size (); i++)
      {
        double v = std::normal_distribution<double> (0, 1) (rng);
        if (dtype == CR_CUDA_FLOAT32)
          ((float *) t.data)[i] = (float) v;
        else if (dtype == CR_CUDA_FLOAT64)
          ((double *) t.data)[i] = v;
        else
          ((int64_t *) t.data)[i] = (int64_t) (v * 3);
      }
  }

  /* Another tensor of this layout, garbage inside. */
  Tensor (const Tensor &like) : mem (like.mem.size ()), t (like.t)
  {
    memset (mem.data (), 0x5a, mem.size () * sizeof (double));
    t.data = mem.data ();
  }

  int64_t
  numel () const
  {
    int64_t n = 1;
    for (int d = 0; d < t.ndim; d++)
      n *= t.shape[d];
    return n;
  }

  double
  at (int64_t i) const
  {
    int64_t off = t.offset;
    for (int d = t.ndim - 1; d >= 0; d--)
      {
        off += (i % t.shape[d]) * t.strides[d];
        i /= t.shape[d];
      }
    if (t.dtype == CR_CUDA_FLOAT32)
      return ((const float *) t.data)[off];
    if (t.dtype == CR_CUDA_FLOAT64)
      return ((const double *) t.data)[off];
    return (double) ((const int64_t *) t.data)[off];
  }

  void
  poke_nan (int64_t cell)
  {
    if (t.dtype == CR_CUDA_FLOAT32)
      ((float *) t.data)[cell] = NAN;
    else
      ((double *) t.data)[cell] = NAN;
  }
};

double
tolerance (int dtype)
{
  /* The mock adds in double, the kernels in the dtype. */
  return dtype == CR_CUDA_FLOAT32 ? 2e-5 : dtype == CR_CUDA_FLOAT64 ? 1e-12 : 0;
}

void
expect_ok (int code, const std::string &what)
{
  if (code != CR_CUDA_OK)
    {
      n_failed++;
      printf ("FAIL %s: status %d: %s\n", what.c_str (), code, msg);
    }
}

void
compare (const std::string &what, const Tensor &want, const Tensor &got, double tol)
{
  n_checks++;
  for (int64_t i = 0; i < want.numel (); i++)
    {
      double a = want.at (i), b = got.at (i);

      if (a == b || (std::isnan (a) && std::isnan (b)) || std::fabs (a - b) <= tol * (1 + std::fabs (a)))
        continue;
      n_failed++;
      printf ("FAIL %s: element %lld: mock %.9g, kernel %.9g\n", what.c_str (), (long long) i, a,
              b);
      return;
    }
}

void
conv_case (int dtype)
{
  CrCudaConvGeom g;
  int64_t nb = uniform (1, 3), C = uniform (1, 4), H = uniform (1, 9), W = uniform (1, 9);
  int64_t size[2] = { H, W };
  char what[200];

  for (int a = 0; a < 2; a++)
    {
      g.kernel[a] = uniform (1, 4);
      g.stride[a] = uniform (1, 3);
      g.padding[a] = uniform (0, 2);
      g.dilation[a] = uniform (1, 3);
      int64_t span = size[a] + 2 * g.padding[a] - g.dilation[a] * (g.kernel[a] - 1) - 1;
      if (span < 0)
        return;
      g.out[a] = span / g.stride[a] + 1;
    }
  snprintf (what, sizeof what, "dtype %d x %lldx%lldx%lldx%lld k %lldx%lld s %lldx%lld p %lldx%lld d %lldx%lld",
            dtype, (long long) nb, (long long) C, (long long) H, (long long) W,
            (long long) g.kernel[0], (long long) g.kernel[1], (long long) g.stride[0],
            (long long) g.stride[1], (long long) g.padding[0], (long long) g.padding[1],
            (long long) g.dilation[0], (long long) g.dilation[1]);

  int64_t xs[4] = { nb, C, H, W };
  int64_t cs[2] = { C * g.kernel[0] * g.kernel[1], nb * g.out[0] * g.out[1] };
  Tensor x (dtype, 4, xs, true), cols_mock (dtype, 2, cs, false), cols_kernel (cols_mock);
  expect_ok (mock.im2col (&cols_mock.t, &x.t, &g, msg, sizeof msg), "mock im2col");
  expect_ok (cr_cuda_k_im2col (&cols_kernel.t, &x.t, &g, msg, sizeof msg), "im2col");
  compare (std::string ("im2col ") + what, cols_mock, cols_kernel, 0);

  Tensor cols (dtype, 2, cs, true), x_mock (dtype, 4, xs, false), x_kernel (x_mock);
  expect_ok (mock.col2im (&x_mock.t, &cols.t, &g, msg, sizeof msg), "mock col2im");
  expect_ok (cr_cuda_k_col2im (&x_kernel.t, &cols.t, &g, msg, sizeof msg), "col2im");
  compare (std::string ("col2im ") + what, x_mock, x_kernel, tolerance (dtype));
}

/* PyTorch's output size (ceil_mode: the last window starts inside the
 * input or the left padding). */
int64_t
pool_out (int64_t size, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode)
{
  int64_t span = size + 2 * p - d * (k - 1) - 1;
  int64_t o = (ceil_mode ? (span + s - 1) / s : span / s) + 1;

  if (ceil_mode && (o - 1) * s >= size + p)
    o--;
  return o;
}

void
pool_case (int dtype)
{
  CrCudaPoolGeom g;
  bool ceil_mode = uniform (0, 1);
  int64_t P = uniform (1, 4);
  char what[300];

  memset (&g, 0, sizeof g);
  g.adaptive = uniform (0, 3) == 0;
  for (int a = 0; a < 2; a++)
    {
      g.in[a] = uniform (1, 10);
      if (g.adaptive)
        {
          g.out[a] = uniform (1, g.in[a] + 2);
          continue;
        }
      g.kernel[a] = uniform (1, std::min<int64_t> (4, g.in[a] + 1));
      g.stride[a] = uniform (1, 3);
      g.padding[a] = uniform (0, g.kernel[a] / 2);
      g.dilation[a] = uniform (1, 2);
      if (g.in[a] + 2 * g.padding[a] - g.dilation[a] * (g.kernel[a] - 1) - 1 < 0)
        return;
      g.out[a] = pool_out (g.in[a], g.kernel[a], g.stride[a], g.padding[a], g.dilation[a],
                           ceil_mode);
      /* A window wholly in the padding (dilation can make one) has no
       * maximum; PyTorch's index for it lies outside the plane. Not a case. */
      for (int64_t o = 0; o < g.out[a]; o++)
        {
          int64_t start = o * g.stride[a] - g.padding[a], first = start;
          if (first < 0)
            first += (-first + g.dilation[a] - 1) / g.dilation[a] * g.dilation[a];
          if (first >= std::min (start + (g.kernel[a] - 1) * g.dilation[a] + 1, g.in[a]))
            return;
        }
    }
  g.count_include_pad = uniform (0, 1);
  g.divisor_override = uniform (0, 2) == 0 ? uniform (1, 5) : 0;
  snprintf (what, sizeof what,
            "dtype %d adaptive %d in %lldx%lld out %lldx%lld k %lldx%lld s %lldx%lld p %lldx%lld "
            "d %lldx%lld include_pad %d divisor %lld",
            dtype, g.adaptive, (long long) g.in[0], (long long) g.in[1], (long long) g.out[0],
            (long long) g.out[1], (long long) g.kernel[0], (long long) g.kernel[1],
            (long long) g.stride[0], (long long) g.stride[1], (long long) g.padding[0],
            (long long) g.padding[1], (long long) g.dilation[0], (long long) g.dilation[1],
            g.count_include_pad, (long long) g.divisor_override);

  int64_t xs[3] = { P, g.in[0], g.in[1] }, ys[3] = { P, g.out[0], g.out[1] };
  Tensor x (dtype, 3, xs, true);
  if (dtype != CR_CUDA_INT64)
    {
      if (uniform (0, 2) == 0)
        for (int k = 0; k < 3; k++)
          x.poke_nan (uniform (0, (int64_t) x.mem.size () - 1));
      Tensor v_mock (dtype, 3, ys, false), v_kernel (v_mock);
      Tensor i_mock (CR_CUDA_INT64, 3, ys, false), i_kernel (i_mock);
      expect_ok (mock.max_pool2d (&v_mock.t, &i_mock.t, &x.t, &g, msg, sizeof msg), "mock max_pool2d");
      expect_ok (cr_cuda_k_max_pool2d (&v_kernel.t, &i_kernel.t, &x.t, &g, msg, sizeof msg),
                 "max_pool2d");
      compare (std::string ("max_pool2d values ") + what, v_mock, v_kernel, 0);
      compare (std::string ("max_pool2d indices ") + what, i_mock, i_kernel, 0);

      Tensor gy (dtype, 3, ys, true), gx_mock (dtype, 3, xs, false), gx_kernel (gx_mock);
      expect_ok (mock.max_pool2d_backward (&gx_mock.t, &gy.t, &i_mock.t, &g, msg, sizeof msg),
                 "mock max_pool2d_backward");
      expect_ok (cr_cuda_k_max_pool2d_backward (&gx_kernel.t, &gy.t, &i_mock.t, &g, msg, sizeof msg),
                 "max_pool2d_backward");
      compare (std::string ("max_pool2d_backward ") + what, gx_mock, gx_kernel, tolerance (dtype));

      Tensor o_mock (dtype, 3, ys, false), o_kernel (o_mock);
      expect_ok (mock.max_pool2d_gather (&o_mock.t, &x.t, &i_mock.t, &g, msg, sizeof msg),
                 "mock max_pool2d_gather");
      expect_ok (cr_cuda_k_max_pool2d_gather (&o_kernel.t, &x.t, &i_mock.t, &g, msg, sizeof msg),
                 "max_pool2d_gather");
      compare (std::string ("max_pool2d_gather ") + what, o_mock, o_kernel, 0);

      Tensor a_mock (dtype, 3, xs, false), a_kernel (a_mock);
      expect_ok (mock.avg_pool2d_backward (&a_mock.t, &gy.t, &g, msg, sizeof msg),
                 "mock avg_pool2d_backward");
      expect_ok (cr_cuda_k_avg_pool2d_backward (&a_kernel.t, &gy.t, &g, msg, sizeof msg),
                 "avg_pool2d_backward");
      compare (std::string ("avg_pool2d_backward ") + what, a_mock, a_kernel, tolerance (dtype));
    }
  if (dtype != CR_CUDA_INT64 || !g.adaptive)
    {
      Tensor y_mock (dtype, 3, ys, false), y_kernel (y_mock);
      expect_ok (mock.avg_pool2d (&y_mock.t, &x.t, &g, msg, sizeof msg), "mock avg_pool2d");
      expect_ok (cr_cuda_k_avg_pool2d (&y_kernel.t, &x.t, &g, msg, sizeof msg), "avg_pool2d");
      compare (std::string ("avg_pool2d ") + what, y_mock, y_kernel, tolerance (dtype));
    }
}

} /* namespace */

int
main (int argc, char **argv)
{
  static const int dtypes[] = { CR_CUDA_FLOAT32, CR_CUDA_FLOAT64, CR_CUDA_INT64 };
  void *module;
  CrCudaGetApiFunc get_api;

  if (argc != 2)
    {
      fprintf (stderr, "usage: emulate-kernels MOCK_MODULE.so\n");
      return 2;
    }
  module = dlopen (argv[1], RTLD_NOW | RTLD_LOCAL);
  get_api = module != nullptr ? (CrCudaGetApiFunc) dlsym (module, CR_CUDA_GET_API_SYMBOL)
                              : nullptr;
  if (get_api == nullptr || get_api (CR_CUDA_ABI_VERSION, &mock) != CR_CUDA_OK
      || mock.im2col == nullptr || mock.avg_pool2d_backward == nullptr)
    {
      fprintf (stderr, "emulate-kernels: cannot use %s: %s\n", argv[1],
               module == nullptr ? dlerror () : "no convolution/pooling members");
      return 1;
    }
  for (int i = 0; i < 3000; i++)
    {
      conv_case (dtypes[i % 3]);
      pool_case (dtypes[i % 3]);
    }
  printf ("%d checks, %d failed\n", n_checks, n_failed);
  return n_failed != 0;
}
