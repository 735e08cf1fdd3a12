/* bench-elementwise.cu — a first check of the elementwise kernels on a GPU
 * and their speed: a few results against host-computed values through
 * every launch path (contiguous+vectorised, misaligned tail, scalar operand,
 * strided 2-d, fill, cast, where, in place), then the bandwidth of a float32
 * add / mul-by-scalar / exp on 2048x2048 and 64M elements against
 * cudaMemcpyAsync D2D (the issue's goal: elementwise at >= 70 % of it).
 * Built by meson where nvcc is (a tool run by hand on a GPU, not a test):
 *   build/tests/gpu/bench-elementwise */
#include "cr-cuda-private.h"

#include <cuda_runtime.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

static char msg[512];
static int failures;

#define OK(call)                                                                \
  do {                                                                          \
    int st_ = (call);                                                           \
    if (st_ != 0) { printf ("FAIL %s: %d %s\n", #call, st_, msg); exit (1); }   \
  } while (0)

static CrCudaTensor
tensor (void *data, int dtype, int ndim, const int64_t *shape, const int64_t *strides, int64_t off)
{
  CrCudaTensor t;
  memset (&t, 0, sizeof t);
  t.data = data; t.dtype = dtype; t.ndim = ndim; t.offset = off;
  for (int d = 0; d < ndim; d++) { t.shape[d] = shape[d]; t.strides[d] = strides[d]; }
  return t;
}

static void
expect (const char *what, double got, double want, double tol)
{
  bool ok = (isnan (want) && isnan (got)) || fabs (got - want) <= tol * (1 + fabs (want));
  if (!ok) { printf ("MISMATCH %s: got %.9g want %.9g\n", what, got, want); failures++; }
}

int
main ()
{
  OK (cr_cuda_memory_init (msg, sizeof msg));
  const int64_t n = 1000003;                 /* odd: exercises the tail */
  std::vector<float> ha (n + 1), hb (n + 1), hr (n + 1);
  for (int64_t i = 0; i <= n; i++) { ha[i] = (float) ((i % 1000) - 500) / 37.0f; hb[i] = 1.0f + (float) (i % 7); }
  float *a, *b, *o;
  OK (cr_cuda_malloc ((n + 1) * 4, (void **) &a, msg, sizeof msg));
  OK (cr_cuda_malloc ((n + 1) * 4, (void **) &b, msg, sizeof msg));
  OK (cr_cuda_malloc ((n + 1) * 4, (void **) &o, msg, sizeof msg));
  OK (cr_cuda_copy_h2d (a, ha.data (), (n + 1) * 4, msg, sizeof msg));
  OK (cr_cuda_copy_h2d (b, hb.data (), (n + 1) * 4, msg, sizeof msg));
  int64_t sh[1] = { n }, st1[1] = { 1 }, st0[1] = { 0 };

  /* contiguous, vectorised + tail */
  CrCudaTensor to = tensor (o, CR_CUDA_FLOAT32, 1, sh, st1, 0), ta = tensor (a, CR_CUDA_FLOAT32, 1, sh, st1, 0),
               tb = tensor (b, CR_CUDA_FLOAT32, 1, sh, st1, 0);
  OK (cr_cuda_k_binary (CR_CUDA_BINARY_ADD, &to, &ta, &tb, msg, sizeof msg));
  OK (cr_cuda_copy_d2h (hr.data (), o, n * 4, msg, sizeof msg));
  for (int64_t i = 0; i < n; i += 9973) expect ("add", hr[i], ha[i] + hb[i], 0);
  expect ("add last", hr[n - 1], ha[n - 1] + hb[n - 1], 0);

  /* misaligned views (offset 1): the element-by-element path */
  CrCudaTensor ta1 = tensor (a, CR_CUDA_FLOAT32, 1, sh, st1, 1);
  OK (cr_cuda_k_unary (CR_CUDA_UNARY_EXP, &to, &ta1, msg, sizeof msg));
  OK (cr_cuda_copy_d2h (hr.data (), o, n * 4, msg, sizeof msg));
  for (int64_t i = 0; i < n; i += 9973) expect ("exp off1", hr[i], expf (ha[i + 1]), 4e-7);

  /* scalar operand (stride 0) and pow's short cut */
  CrCudaTensor ts = tensor (b + 3, CR_CUDA_FLOAT32, 1, sh, st0, 0);   /* hb[3] = 4 */
  OK (cr_cuda_k_binary (CR_CUDA_BINARY_MUL, &to, &ta, &ts, msg, sizeof msg));
  OK (cr_cuda_copy_d2h (hr.data (), o, n * 4, msg, sizeof msg));
  for (int64_t i = 0; i < n; i += 9973) expect ("mul scalar", hr[i], ha[i] * 4.0f, 0);

  /* in place add_scaled: a += 0.5 * b */
  OK (cr_cuda_k_add_scaled (&ta, &ta, &tb, 0.5, msg, sizeof msg));
  OK (cr_cuda_copy_d2h (hr.data (), a, n * 4, msg, sizeof msg));
  for (int64_t i = 0; i < n; i += 9973) expect ("add_scaled", hr[i], ha[i] + 0.5f * hb[i], 0);
  OK (cr_cuda_copy_h2d (a, ha.data (), (n + 1) * 4, msg, sizeof msg));

  /* strided 2-d: out (1000, 1000) = a^T (transposed view) + bias row (stride 0, 1) */
  int64_t sh2[2] = { 1000, 1000 }, c2[2] = { 1000, 1 }, t2[2] = { 1, 1000 }, bias[2] = { 0, 1 };
  CrCudaTensor o2 = tensor (o, CR_CUDA_FLOAT32, 2, sh2, c2, 0), a2 = tensor (a, CR_CUDA_FLOAT32, 2, sh2, t2, 0),
               b2 = tensor (b, CR_CUDA_FLOAT32, 2, sh2, bias, 0);
  OK (cr_cuda_k_binary (CR_CUDA_BINARY_SUB, &o2, &a2, &b2, msg, sizeof msg));
  OK (cr_cuda_copy_d2h (hr.data (), o, 1000000 * 4, msg, sizeof msg));
  for (int i = 0; i < 1000; i += 37)
    for (int j = 0; j < 1000; j += 41)
      expect ("strided sub", hr[i * 1000 + j], ha[j * 1000 + i] - hb[j], 0);

  /* compare -> bool, where, cast to int64, fill */
  uint8_t *m; int64_t *li; std::vector<uint8_t> hm (n); std::vector<int64_t> hl (n);
  OK (cr_cuda_malloc (n, (void **) &m, msg, sizeof msg));
  OK (cr_cuda_malloc (n * 8, (void **) &li, msg, sizeof msg));
  CrCudaTensor tm = tensor (m, CR_CUDA_BOOL, 1, sh, st1, 0), tl = tensor (li, CR_CUDA_INT64, 1, sh, st1, 0);
  OK (cr_cuda_k_binary (CR_CUDA_BINARY_GT, &tm, &ta, &tb, msg, sizeof msg));
  OK (cr_cuda_k_where (&to, &tm, &ta, &tb, msg, sizeof msg));
  OK (cr_cuda_k_copy (&tl, &to, msg, sizeof msg));
  OK (cr_cuda_copy_d2h (hm.data (), m, n, msg, sizeof msg));
  OK (cr_cuda_copy_d2h (hl.data (), li, n * 8, msg, sizeof msg));
  for (int64_t i = 0; i < n; i += 9973)
    {
      expect ("gt", hm[i], ha[i] > hb[i], 0);
      expect ("where+cast", (double) hl[i], (double) (int64_t) (ha[i] > hb[i] ? ha[i] : hb[i]), 0);
    }
  OK (cr_cuda_k_fill (&tl, -7.9, msg, sizeof msg));
  OK (cr_cuda_copy_d2h (hl.data (), li, n * 8, msg, sizeof msg));
  expect ("fill", (double) hl[n - 1], -7.0, 0);
  printf ("checks: %d failures\n", failures);

  /* bandwidth */
  const int64_t sizes[2] = { 2048 * 2048, 64ll << 20 };
  for (int s = 0; s < 2; s++)
    {
      int64_t N = sizes[s];
      float *x, *y, *z;
      OK (cr_cuda_malloc (N * 4, (void **) &x, msg, sizeof msg));
      OK (cr_cuda_malloc (N * 4, (void **) &y, msg, sizeof msg));
      OK (cr_cuda_malloc (N * 4, (void **) &z, msg, sizeof msg));
      OK (cr_cuda_k_fill (&(to = tensor (x, CR_CUDA_FLOAT32, 1, &N, st1, 0)), 0.25, msg, sizeof msg));
      CrCudaTensor tx = tensor (x, CR_CUDA_FLOAT32, 1, &N, st1, 0), ty = tensor (y, CR_CUDA_FLOAT32, 1, &N, st1, 0),
                   tz = tensor (z, CR_CUDA_FLOAT32, 1, &N, st1, 0), tk = tensor (b, CR_CUDA_FLOAT32, 1, &N, st0, 0);
      OK (cr_cuda_k_copy (&ty, &tx, msg, sizeof msg));
      cudaEvent_t e0, e1; cudaEventCreate (&e0); cudaEventCreate (&e1);
      const int reps = 50;
      const char *names[4] = { "memcpy d2d", "add (3 streams)", "mul scalar (2)", "exp (2)" };
      double bytes[4] = { 2.0 * N * 4, 3.0 * N * 4, 2.0 * N * 4, 2.0 * N * 4 };
      for (int k = 0; k < 4; k++)
        {
          for (int r = -3; r < reps; r++)
            {
              if (r == 0) cudaEventRecord (e0, cr_cuda_stream ());
              if (k == 0) OK (cr_cuda_copy_d2d (z, x, N * 4, msg, sizeof msg));
              if (k == 1) OK (cr_cuda_k_binary (CR_CUDA_BINARY_ADD, &tz, &tx, &ty, msg, sizeof msg));
              if (k == 2) OK (cr_cuda_k_binary (CR_CUDA_BINARY_MUL, &tz, &tx, &tk, msg, sizeof msg));
              if (k == 3) OK (cr_cuda_k_unary (CR_CUDA_UNARY_EXP, &tz, &tx, msg, sizeof msg));
            }
          cudaEventRecord (e1, cr_cuda_stream ());
          OK (cr_cuda_stream_synchronize (msg, sizeof msg));
          float ms = 0; cudaEventElapsedTime (&ms, e0, e1);
          printf ("N=%-9lld %-16s %8.1f us  %7.1f GB/s\n", (long long) N, names[k], 1000.0 * ms / reps,
                  bytes[k] * reps / (ms * 1e-3) / 1e9);
        }
    }
  return failures != 0;
}
