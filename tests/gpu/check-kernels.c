/* check-kernels.c — a first GPU check of the reduce, softmax, matmul and
 * index kernels (gpu/cr-cuda-{reduce,softmax,matmul,index}.cu) through the
 * module's ABI table alone, without core: each case runs a kernel on small
 * strided inputs and compares with a plain double-precision loop here.
 *
 * Meson test `kernels` (suite gpu) runs it as
 *   build/tests/gpu/check-kernels build/gpu/libchainrule-cuda.so
 * It prints one line per failed check and "N checks, M failed"; exit status 1
 * on a failure, 77 without a device. */
#include "cr-cuda-abi.h"

#include <dlfcn.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static CrCudaApi api;
static char msg[512];
static int n_checks, n_failed;

#define CALL(expr)                                                              \
  do {                                                                          \
    int rc_ = (expr);                                                           \
    if (rc_ != CR_CUDA_OK)                                                      \
      {                                                                         \
        fprintf (stderr, "%s:%d: %s -> %d: %s\n", __FILE__, __LINE__, #expr,    \
                 rc_, msg);                                                     \
        exit (1);                                                               \
      }                                                                         \
  } while (0)

static void
check (int ok, const char *what)
{
  n_checks++;
  if (!ok)
    {
      n_failed++;
      printf ("FAIL: %s\n", what);
    }
}

static int
close_to (double got, double want, double tol)
{
  if (isnan (want))
    return isnan (got);
  if (isinf (want))
    return got == want;
  return fabs (got - want) <= tol * (1 + fabs (want));
}

static size_t
dsize (int dtype)
{
  return dtype == CR_CUDA_BOOL ? 1 : dtype == CR_CUDA_FLOAT32 ? 4 : 8;
}

/* A contiguous device tensor of shape filled from vals (doubles, converted). */
static CrCudaTensor
upload (int dtype, int ndim, const int64_t *shape, const double *vals)
{
  CrCudaTensor t;
  int64_t n = 1;

  memset (&t, 0, sizeof t);
  t.dtype = dtype;
  t.ndim = ndim;
  for (int d = ndim - 1; d >= 0; d--)
    {
      t.shape[d] = shape[d];
      t.strides[d] = n;
      n *= shape[d];
    }
  void *host = calloc ((size_t) (n > 0 ? n : 1), 8);
  for (int64_t i = 0; vals != NULL && i < n; i++)
    switch (dtype)
      {
      case CR_CUDA_FLOAT32: ((float *) host)[i] = (float) vals[i]; break;
      case CR_CUDA_FLOAT64: ((double *) host)[i] = vals[i]; break;
      case CR_CUDA_INT64:   ((int64_t *) host)[i] = (int64_t) vals[i]; break;
      default:              ((uint8_t *) host)[i] = vals[i] != 0; break;
      }
  CALL (api.malloc ((size_t) n * dsize (dtype), &t.data, msg, sizeof msg));
  if (n > 0)
    CALL (api.copy_h2d (t.data, host, (size_t) n * dsize (dtype), msg, sizeof msg));
  free (host);
  return t;
}

static int64_t
numel (const CrCudaTensor *t)
{
  int64_t n = 1;
  for (int d = 0; d < t->ndim; d++)
    n *= t->shape[d];
  return n;
}

/* Element at logical position i (through strides) as double. */
static double
element (const CrCudaTensor *t, const void *host_storage, int64_t i)
{
  int64_t off = t->offset;
  for (int d = t->ndim - 1; d >= 0; d--)
    {
      off += (i % t->shape[d]) * t->strides[d];
      i /= t->shape[d];
    }
  switch (t->dtype)
    {
    case CR_CUDA_FLOAT32: return ((const float *) host_storage)[off];
    case CR_CUDA_FLOAT64: return ((const double *) host_storage)[off];
    case CR_CUDA_INT64:   return (double) ((const int64_t *) host_storage)[off];
    default:              return ((const uint8_t *) host_storage)[off];
    }
}

/* The logical elements of t, as doubles (storage_elems: how much to fetch). */
static double *
download (const CrCudaTensor *t, int64_t storage_elems)
{
  int64_t n = numel (t);
  void *host = calloc ((size_t) (storage_elems > 0 ? storage_elems : 1), 8);
  double *out = calloc ((size_t) (n > 0 ? n : 1), sizeof (double));
  if (storage_elems > 0)
    CALL (api.copy_d2h (host, t->data, (size_t) storage_elems * dsize (t->dtype), msg, sizeof msg));
  for (int64_t i = 0; i < n; i++)
    out[i] = element (t, host, i);
  free (host);
  return out;
}

static double
rnd (void)
{
  return (double) rand () / RAND_MAX * 4 - 2;
}

/* A view of t with dims a and b swapped. */
static CrCudaTensor
transposed (CrCudaTensor t, int a, int b)
{
  int64_t s = t.shape[a], st = t.strides[a];
  t.shape[a] = t.shape[b];
  t.strides[a] = t.strides[b];
  t.shape[b] = s;
  t.strides[b] = st;
  return t;
}

/* ---- reductions -------------------------------------------------------------- */

static void
check_reduce (int dtype, int op, int64_t s0, int64_t s1, int64_t s2, uint32_t mask, int transpose)
{
  int64_t shape[3] = { s0, s1, s2 }, n = s0 * s1 * s2;
  double *vals = malloc (sizeof (double) * (size_t) (n > 0 ? n : 1));
  char what[200];

  for (int64_t i = 0; i < n; i++)
    vals[i] = dtype == CR_CUDA_INT64 ? (double) (rand () % 7 - 3)
              : op == CR_CUDA_REDUCE_PROD ? 1 + rnd () / 8 : rnd ();
  CrCudaTensor x = upload (dtype, 3, shape, vals);
  if (transpose)
    x = transposed (x, 0, 2);    /* logical shape (s2, s1, s0) */
  int64_t oshape[3];
  for (int d = 0; d < 3; d++)
    oshape[d] = (mask & (1u << d)) ? 1 : x.shape[d];
  int odtype = (op == CR_CUDA_REDUCE_ANY || op == CR_CUDA_REDUCE_ALL) ? CR_CUDA_BOOL : dtype;
  CrCudaTensor out = upload (odtype, 3, oshape, NULL);
  CALL (api.reduce (op, &out, &x, mask, msg, sizeof msg));
  double *xv = download (&x, n);
  double *ov = download (&out, numel (&out));

  int64_t no = numel (&out);
  for (int64_t o = 0; o < no; o++)
    {
      int64_t oi[3] = { o / (oshape[1] * oshape[2]), (o / oshape[2]) % oshape[1], o % oshape[2] };
      double acc = op == CR_CUDA_REDUCE_PROD || op == CR_CUDA_REDUCE_ALL ? 1
                   : op == CR_CUDA_REDUCE_MAX ? -INFINITY : op == CR_CUDA_REDUCE_MIN ? INFINITY : 0;
      int64_t count = 0;
      for (int64_t i = 0; i < x.shape[0]; i++)
        for (int64_t j = 0; j < x.shape[1]; j++)
          for (int64_t k = 0; k < x.shape[2]; k++)
            {
              int64_t ii[3] = { i, j, k };
              int in = 1;
              for (int d = 0; d < 3; d++)
                if (!(mask & (1u << d)) && ii[d] != oi[d])
                  in = 0;
              if (!in)
                continue;
              double v = xv[(i * x.shape[1] + j) * x.shape[2] + k];
              count++;
              switch (op)
                {
                case CR_CUDA_REDUCE_SUM: case CR_CUDA_REDUCE_MEAN: acc += v; break;
                case CR_CUDA_REDUCE_PROD: acc *= v; break;
                case CR_CUDA_REDUCE_MAX: acc = v > acc ? v : acc; break;
                case CR_CUDA_REDUCE_MIN: acc = v < acc ? v : acc; break;
                case CR_CUDA_REDUCE_ANY: acc = acc || v != 0; break;
                case CR_CUDA_REDUCE_ALL: acc = acc && v != 0; break;
                default: break;
                }
            }
      if (op == CR_CUDA_REDUCE_MEAN)
        acc = count ? acc / count : NAN;
      snprintf (what, sizeof what, "reduce op %d dtype %d (%lld,%lld,%lld)%s mask %u: out[%lld] = %g, want %g",
                op, dtype, (long long) s0, (long long) s1, (long long) s2, transpose ? "^T" : "",
                mask, (long long) o, ov[o], acc);
      check (close_to (ov[o], acc, dtype == CR_CUDA_FLOAT32 ? 1e-5 : 1e-12), what);
      if (!close_to (ov[o], acc, dtype == CR_CUDA_FLOAT32 ? 1e-5 : 1e-12))
        break;
    }
  free (vals);
  free (xv);
  free (ov);
  api.free (x.data, NULL, 0);
  api.free (out.data, NULL, 0);
}

static void
check_max_dim (void)
{
  /* Ties keep the first index; a NaN wins (the first one). */
  double vals[12] = { 1, 3, 3, 0,   NAN, 2, NAN, 5,   -1, -1, -2, -2 };
  int64_t shape[2] = { 3, 4 }, oshape[2] = { 3, 1 };
  CrCudaTensor x = upload (CR_CUDA_FLOAT32, 2, shape, vals);
  CrCudaTensor v = upload (CR_CUDA_FLOAT32, 2, oshape, NULL);
  CrCudaTensor ix = upload (CR_CUDA_INT64, 2, oshape, NULL);

  CALL (api.max_dim (&v, &ix, &x, 1, 0, msg, sizeof msg));
  double *vv = download (&v, 3), *iv = download (&ix, 3);
  check (vv[0] == 3 && iv[0] == 1, "max_dim: tie keeps the first index");
  check (isnan (vv[1]) && iv[1] == 0, "max_dim: the first NaN wins");
  check (vv[2] == -1 && iv[2] == 0, "max_dim: negative tie");
  free (vv);
  free (iv);
  CALL (api.max_dim (&v, &ix, &x, 1, 1, msg, sizeof msg));
  vv = download (&v, 3);
  iv = download (&ix, 3);
  check (vv[0] == 0 && iv[0] == 3, "min_dim: minimum");
  check (isnan (vv[1]) && iv[1] == 0, "min_dim: the first NaN wins");
  check (vv[2] == -2 && iv[2] == 2, "min_dim: tie keeps the first index");
  free (vv);
  free (iv);
  /* argmax over everything of a long tensor: the flat index, split blocks. */
  {
    int64_t n = 3000000, s1[1] = { n }, one[1] = { 1 };
    double *big = malloc (sizeof (double) * (size_t) n);
    for (int64_t i = 0; i < n; i++)
      big[i] = (double) (i % 1000);
    big[2345678] = 5000;
    big[2999999] = 5000;
    CrCudaTensor bx = upload (CR_CUDA_FLOAT64, 1, s1, big);
    CrCudaTensor bi = upload (CR_CUDA_INT64, 1, one, NULL);
    CALL (api.max_dim (NULL, &bi, &bx, 0, 0, msg, sizeof msg));
    double *r = download (&bi, 1);
    check (r[0] == 2345678, "argmax of 3e6 elements: first of two maxima");
    free (r);
    free (big);
    api.free (bx.data, NULL, 0);
    api.free (bi.data, NULL, 0);
  }
  api.free (x.data, NULL, 0);
  api.free (v.data, NULL, 0);
  api.free (ix.data, NULL, 0);
}

/* ---- softmax ------------------------------------------------------------------ */

static void
check_softmax (int dtype, int64_t s0, int64_t s1, int dim, int is_log, int transpose)
{
  int64_t shape[2] = { s0, s1 }, n = s0 * s1;
  double *vals = malloc (sizeof (double) * (size_t) n), *gvals = malloc (sizeof (double) * (size_t) n);
  char what[200];
  double tol = dtype == CR_CUDA_FLOAT32 ? 2e-5 : 1e-12;

  for (int64_t i = 0; i < n; i++)
    {
      vals[i] = rnd () * 5;
      gvals[i] = rnd ();
    }
  CrCudaTensor x = upload (dtype, 2, shape, vals);
  CrCudaTensor g = upload (dtype, 2, shape, gvals);
  if (transpose)
    {
      x = transposed (x, 0, 1);
      g = transposed (g, 0, 1);
    }
  int64_t lshape[2] = { x.shape[0], x.shape[1] };
  CrCudaTensor y = upload (dtype, 2, lshape, NULL);
  CrCudaTensor gi = upload (dtype, 2, lshape, NULL);
  CALL (api.softmax (&y, &x, dim, is_log, msg, sizeof msg));
  CALL (api.softmax_backward (&gi, &g, &y, dim, is_log, msg, sizeof msg));
  double *xv = download (&x, n), *gv = download (&g, n), *yv = download (&y, n), *giv = download (&gi, n);

  int64_t R = lshape[1 - dim], D = lshape[dim];
  for (int64_t r = 0; r < R; r++)
    {
#define AT(arr, d) arr[dim == 1 ? r * D + (d) : (d) * R + r]
      double m = -INFINITY, sum = 0, sg = 0, sgy = 0;
      for (int64_t d = 0; d < D; d++)
        m = fmax (m, AT (xv, d));
      for (int64_t d = 0; d < D; d++)
        sum += exp (AT (xv, d) - m);
      for (int64_t d = 0; d < D; d++)
        {
          double sm = exp (AT (xv, d) - m) / sum;
          double want = is_log ? AT (xv, d) - m - log (sum) : sm;
          snprintf (what, sizeof what, "%s dtype %d (%lld,%lld)%s dim %d: [%lld,%lld] = %g, want %g",
                    is_log ? "log_softmax" : "softmax", dtype, (long long) s0, (long long) s1,
                    transpose ? "^T" : "", dim, (long long) r, (long long) d, AT (yv, d), want);
          check (close_to (AT (yv, d), want, tol), what);
          sg += AT (gv, d);
          sgy += AT (gv, d) * sm;
        }
      for (int64_t d = 0; d < D; d++)
        {
          double sm = exp (AT (xv, d) - m) / sum;
          double want = is_log ? AT (gv, d) - sm * sg : sm * (AT (gv, d) - sgy);
          snprintf (what, sizeof what, "%s backward dtype %d dim %d: [%lld,%lld] = %g, want %g",
                    is_log ? "log_softmax" : "softmax", dtype, dim, (long long) r, (long long) d,
                    AT (giv, d), want);
          check (close_to (AT (giv, d), want, tol * 10), what);
        }
#undef AT
    }
  free (vals); free (gvals); free (xv); free (gv); free (yv); free (giv);
  api.free (x.data, NULL, 0); api.free (g.data, NULL, 0);
  api.free (y.data, NULL, 0); api.free (gi.data, NULL, 0);
}

/* ---- gemm ----------------------------------------------------------------------- */

/* out (B,n,m) = a (B,n,k) @ b (B,k,m); ta/tb: the operand is stored
 * transposed (column-major); a_bcast: a's batch stride is 0. */
static void
check_gemm (int dtype, int64_t B, int64_t n, int64_t k, int64_t m, int ta, int tb, int a_bcast)
{
  int64_t ash[3] = { a_bcast ? 1 : B, ta ? k : n, ta ? n : k };
  int64_t bsh[3] = { B, tb ? m : k, tb ? k : m };
  int64_t osh[3] = { B, n, m };
  int64_t na = ash[0] * ash[1] * ash[2], nb = bsh[0] * bsh[1] * bsh[2];
  double *av = malloc (sizeof (double) * (size_t) (na + 1)), *bv = malloc (sizeof (double) * (size_t) (nb + 1));
  char what[200];

  for (int64_t i = 0; i < na; i++)
    av[i] = dtype == CR_CUDA_INT64 ? rand () % 5 - 2 : rnd ();
  for (int64_t i = 0; i < nb; i++)
    bv[i] = dtype == CR_CUDA_INT64 ? rand () % 5 - 2 : rnd ();
  CrCudaTensor a = upload (dtype, 3, ash, av), b = upload (dtype, 3, bsh, bv);
  if (ta)
    a = transposed (a, 1, 2);
  if (tb)
    b = transposed (b, 1, 2);
  if (a_bcast)
    {
      a.shape[0] = B;
      a.strides[0] = 0;
    }
  CrCudaTensor out = upload (dtype, 3, osh, NULL);
  CALL (api.gemm (&out, &a, &b, msg, sizeof msg));
  double *A = download (&a, na), *Bm = download (&b, nb), *O = download (&out, B * n * m);
  for (int64_t bi = 0; bi < B; bi++)
    for (int64_t i = 0; i < n; i++)
      for (int64_t j = 0; j < m; j++)
        {
          double want = 0;
          for (int64_t p = 0; p < k; p++)
            want += A[(bi * n + i) * k + p] * Bm[(bi * k + p) * m + j];
          double got = O[(bi * n + i) * m + j];
          snprintf (what, sizeof what, "gemm dtype %d B%lld %lldx%lldx%lld ta%d tb%d bc%d: [%lld,%lld,%lld] = %g, want %g",
                    dtype, (long long) B, (long long) n, (long long) k, (long long) m, ta, tb, a_bcast,
                    (long long) bi, (long long) i, (long long) j, got, want);
          check (close_to (got, want, dtype == CR_CUDA_FLOAT32 ? 1e-5 * (k + 1) : 1e-12 * (k + 1)), what);
        }
  free (av); free (bv); free (A); free (Bm); free (O);
  api.free (a.data, NULL, 0); api.free (b.data, NULL, 0); api.free (out.data, NULL, 0);
}

/* ---- index ---------------------------------------------------------------------- */

static void
check_index (void)
{
  double xv[6] = { 10, 11, 12, 13, 14, 15 };
  int64_t sh[2] = { 2, 3 }, ish[1] = { 4 };
  double idx[4] = { 0, 5, -1, 1 };
  CrCudaTensor x = upload (CR_CUDA_FLOAT32, 2, sh, xv);
  CrCudaTensor xt = transposed (x, 0, 1);      /* (3, 2): logical 10 13 11 14 12 15 */
  CrCudaTensor ix = upload (CR_CUDA_INT64, 1, ish, idx);
  CrCudaTensor out = upload (CR_CUDA_FLOAT32, 1, ish, NULL);

  CALL (api.take (&out, &xt, &ix, msg, sizeof msg));
  double *o = download (&out, 4);
  check (o[0] == 10 && o[1] == 15 && o[2] == 15 && o[3] == 13, "take through a transposed view");
  free (o);

  double bad[4] = { 0, 1, 7, -9 };
  CrCudaTensor ib = upload (CR_CUDA_INT64, 1, ish, bad);
  int rc = api.take (&out, &x, &ib, msg, sizeof msg);
  check (rc == CR_CUDA_ERR_INDEX && strcmp (msg, "index 7 is out of bounds for dimension 0 with size 6") == 0,
         "take: the first bad index in PyTorch's words");

  /* put with accumulate and a repeated position; values broadcast (stride 0). */
  double one = 1.5;
  int64_t one_shape[1] = { 1 };
  double pidx[4] = { 1, 1, -6, 4 };
  CrCudaTensor pi = upload (CR_CUDA_INT64, 1, ish, pidx);
  CrCudaTensor val = upload (CR_CUDA_FLOAT32, 1, one_shape, &one);
  val.shape[0] = 4;
  val.strides[0] = 0;
  CALL (api.put (&x, &pi, &val, 1, msg, sizeof msg));
  o = download (&x, 6);
  check (o[0] == 11.5 && o[1] == 14 && o[4] == 15.5 && o[2] == 12, "put with accumulate");
  free (o);
  rc = api.put (&x, &ib, &val, 0, msg, sizeof msg);
  o = download (&x, 6);
  check (rc == CR_CUDA_ERR_INDEX && o[0] == 11.5, "put: a bad index writes nothing");
  free (o);

  /* count_nonzero / nonzero_flat through a transposed view; NaN counts. */
  double mv[6] = { 0, 1, NAN, 0, 0, 2 };
  CrCudaTensor m = upload (CR_CUDA_FLOAT64, 2, sh, mv);
  CrCudaTensor mt = transposed (m, 0, 1);     /* logical 0 0 1 0 nan 2 */
  int64_t count = -1;
  CALL (api.count_nonzero (&mt, &count, msg, sizeof msg));
  check (count == 3, "count_nonzero");
  int64_t csh[1] = { count };
  CrCudaTensor pos = upload (CR_CUDA_INT64, 1, csh, NULL);
  CALL (api.nonzero_flat (&pos, &mt, msg, sizeof msg));
  o = download (&pos, count);
  check (o[0] == 2 && o[1] == 4 && o[2] == 5, "nonzero_flat in logical order");
  free (o);
  {
    int64_t n = 5000000, s1[1] = { n };
    double *big = calloc ((size_t) n, sizeof (double));
    for (int64_t i = 0; i < n; i += 7)
      big[i] = 1;
    CrCudaTensor bm = upload (CR_CUDA_BOOL, 1, s1, big);
    CALL (api.count_nonzero (&bm, &count, msg, sizeof msg));
    check (count == (n + 6) / 7, "count_nonzero of 5e6 bools");
    csh[0] = count;
    CrCudaTensor bp = upload (CR_CUDA_INT64, 1, csh, NULL);
    CALL (api.nonzero_flat (&bp, &bm, msg, sizeof msg));
    double *r = download (&bp, count);
    int ok = 1;
    for (int64_t i = 0; i < count; i++)
      ok &= r[i] == (double) (i * 7);
    check (ok, "nonzero_flat of 5e6 bools");
    free (r);
    free (big);
  }
}

static void
check_allclose (void)
{
  double a[3] = { 1, 2, INFINITY }, b[3] = { 1, 2.0000001, INFINITY }, c[3] = { 1, NAN, 3 };
  int64_t sh[1] = { 3 };
  CrCudaTensor ta = upload (CR_CUDA_FLOAT64, 1, sh, a), tb = upload (CR_CUDA_FLOAT64, 1, sh, b),
               tc = upload (CR_CUDA_FLOAT64, 1, sh, c);
  int r = -1;
  CALL (api.allclose (&ta, &tb, 1e-5, 1e-8, &r, msg, sizeof msg));
  check (r == 1, "allclose: close, equal infinities");
  CALL (api.allclose (&ta, &tc, 1e-5, 1e-8, &r, msg, sizeof msg));
  check (r == 0, "allclose: NaN is never close");
}

/* copy from a flipped view (negative strides, as torch.flip makes) of a
 * rows x cols tensor into a contiguous one, along dim 0, dim 1 or both. */
static void
check_flipped_copy (int dtype, int64_t rows, int64_t cols, int flip_rows, int flip_cols)
{
  int64_t shape[2] = { rows, cols };
  int64_t n = rows * cols;
  double *vals = calloc ((size_t) n, sizeof (double));
  char what[128];

  for (int64_t i = 0; i < n; i++)
    vals[i] = dtype == CR_CUDA_INT64 ? (double) (i % 1000) : rnd ();
  CrCudaTensor src = upload (dtype, 2, shape, vals);
  CrCudaTensor out = upload (dtype, 2, shape, NULL);
  CrCudaTensor view = src;
  if (flip_rows)
    {
      view.offset += (rows - 1) * view.strides[0];
      view.strides[0] = -view.strides[0];
    }
  if (flip_cols)
    {
      view.offset += (cols - 1) * view.strides[1];
      view.strides[1] = -view.strides[1];
    }
  CALL (api.copy (&out, &view, msg, sizeof msg));
  double *got = download (&out, n);
  int ok = 1;
  for (int64_t r = 0; r < rows && ok; r++)
    for (int64_t c = 0; c < cols && ok; c++)
      {
        int64_t from = (flip_rows ? rows - 1 - r : r) * cols + (flip_cols ? cols - 1 - c : c);
        double want = dtype == CR_CUDA_FLOAT32 ? (double) (float) vals[from] : vals[from];
        ok = got[r * cols + c] == want;
      }
  snprintf (what, sizeof what, "copy of a flipped view: dtype %d, %" PRId64 "x%" PRId64 ", flip %d%d",
            dtype, rows, cols, flip_rows, flip_cols);
  check (ok, what);
  free (got);
  free (vals);
  CALL (api.free (src.data, msg, sizeof msg));
  CALL (api.free (out.data, msg, sizeof msg));
}

int
main (int argc, char **argv)
{
  const char *path = argc > 1 ? argv[1] : "build/gpu/libchainrule-cuda.so";
  void *lib = dlopen (path, RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL)
    {
      fprintf (stderr, "dlopen %s: %s\n", path, dlerror ());
      return 1;
    }
  CrCudaGetApiFunc get_api = (CrCudaGetApiFunc) dlsym (lib, CR_CUDA_GET_API_SYMBOL);
  if (get_api == NULL || get_api (CR_CUDA_ABI_VERSION, &api) != CR_CUDA_OK)
    {
      fprintf (stderr, "no usable %s in %s\n", CR_CUDA_GET_API_SYMBOL, path);
      return 1;
    }
  int count = 0;
  if (api.device_count (&count, msg, sizeof msg) != CR_CUDA_OK || count == 0)
    {
      printf ("no CUDA device: %s\n", msg);
      return 77;
    }
  CALL (api.init (msg, sizeof msg));
  srand (1);

  int dtypes[2] = { CR_CUDA_FLOAT32, CR_CUDA_FLOAT64 };
  for (int t = 0; t < 2; t++)
    for (int op = CR_CUDA_REDUCE_SUM; op <= CR_CUDA_REDUCE_ALL; op++)
      for (uint32_t mask = 0; mask < 8; mask++)
        {
          check_reduce (dtypes[t], op, 3, 5, 7, mask, 0);
          check_reduce (dtypes[t], op, 3, 5, 7, mask, 1);
          check_reduce (dtypes[t], op, 2, 300, 40, mask, mask & 1);
        }
  /* Long rows and columns: the split (two-pass) path. */
  check_reduce (CR_CUDA_FLOAT32, CR_CUDA_REDUCE_SUM, 1, 1, 3000000, 4, 0);
  check_reduce (CR_CUDA_FLOAT32, CR_CUDA_REDUCE_MEAN, 1, 1, 3000000, 7, 0);
  check_reduce (CR_CUDA_FLOAT64, CR_CUDA_REDUCE_SUM, 200000, 3, 1, 1, 0);
  check_reduce (CR_CUDA_FLOAT32, CR_CUDA_REDUCE_MAX, 7, 1, 400000, 5, 1);
  check_reduce (CR_CUDA_INT64, CR_CUDA_REDUCE_SUM, 30, 20, 10, 5, 1);
  check_reduce (CR_CUDA_INT64, CR_CUDA_REDUCE_PROD, 3, 4, 2, 2, 0);
  check_reduce (CR_CUDA_FLOAT32, CR_CUDA_REDUCE_MEAN, 3, 0, 2, 2, 0);   /* empty: NaN */
  check_reduce (CR_CUDA_FLOAT32, CR_CUDA_REDUCE_SUM, 3, 0, 2, 2, 0);    /* empty: 0 */
  check_max_dim ();
  check_allclose ();

  for (int t = 0; t < 2; t++)
    for (int is_log = 0; is_log < 2; is_log++)
      for (int dim = 0; dim < 2; dim++)
        {
          check_softmax (dtypes[t], 4, 10, dim, is_log, 0);
          check_softmax (dtypes[t], 4, 10, dim, is_log, 1);
          check_softmax (dtypes[t], 3, 3000, dim, is_log, dim);
        }

  for (int t = 0; t < 3; t++)
    {
      int dt = t < 2 ? dtypes[t] : CR_CUDA_INT64;
      for (int ta = 0; ta < 2; ta++)
        for (int tb = 0; tb < 2; tb++)
          {
            check_gemm (dt, 1, 5, 7, 3, ta, tb, 0);
            check_gemm (dt, 4, 6, 33, 9, ta, tb, 0);
            check_gemm (dt, 3, 1, 8, 1, ta, tb, 0);
            check_gemm (dt, 3, 4, 5, 6, ta, tb, 1);
          }
      check_gemm (dt, 2, 3, 0, 4, 0, 0, 0);   /* k == 0: zeros */
    }
  check_gemm (CR_CUDA_FLOAT32, 1, 64, 784, 256, 0, 0, 0);
  check_gemm (CR_CUDA_FLOAT32, 1, 784, 64, 256, 1, 0, 0);

  check_index ();
  for (int flips = 1; flips < 4; flips++)
    {
      check_flipped_copy (CR_CUDA_FLOAT32, 3, 4, flips & 1, flips >> 1);
      check_flipped_copy (CR_CUDA_FLOAT64, 37, 1000, flips & 1, flips >> 1);
      check_flipped_copy (CR_CUDA_INT64, 1, 5, flips & 1, flips >> 1);
    }
  CALL (api.synchronize (msg, sizeof msg));

  printf ("%d checks, %d failed\n", n_checks, n_failed);
  return n_failed ? 1 : 0;
}
