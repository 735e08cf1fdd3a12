/* test-gpu.c — the CUDA backend against the CPU kernels (suite `gpu`).
 *
 * Exits 77 (skipped) where torch.cuda is not available (no module, driver or
 * device). Elsewhere every kernel of the backend table runs on the same
 * inputs on both devices: broadcast shapes, transposed and sliced views,
 * float32 and float64; results must agree within a tolerance (float32 sums
 * may add in another order). Scripts run with each device as the default
 * must print the same (forward values and gradients through the engine).
 * Also: out of memory and mixed devices are RuntimeErrors, and copies
 * between the devices round-trip. */
#include "cr-kernels.h"
#include "cr-kernels-conv.h"
#include "cr-cuda.h"
#include "cr-device.h"
#include "cr-error.h"
#include "cr-interp.h"
#include "cr-ast.h"

#include <math.h>
#include <string.h>

static CrGenerator *gen;

/* ---- helpers ----------------------------------------------------------------- */

static CrTensor *
randn (const gint64 *shape, int ndim, CrDType dtype)
{
  g_autoptr(GError) error = NULL;
  CrTensor *t = cr_kernel_randn (gen, shape, ndim, dtype, &error);
  g_assert_no_error (error);
  return t;
}

static CrTensor *
to (const CrTensor *t, CrDeviceType device)
{
  g_autoptr(GError) error = NULL;
  CrTensor *r = cr_tensor_to_device (t, device, &error);
  g_assert_no_error (error);
  g_assert_nonnull (r);
  g_assert_cmpint (r->device, ==, device);
  return r;
}

/* The same view geometry over a device copy of t's whole storage. */
static CrTensor *
same_view_on_cuda (const CrTensor *t)
{
  g_autoptr(GError) error = NULL;
  gint64 n = (gint64) (t->storage->nbytes / cr_dtype_size (t->dtype)), one = 1;
  g_autoptr(CrTensor) flat_cpu = cr_tensor_new_view (t, &n, 1, &one, 0);
  g_autoptr(CrTensor) flat_cuda = to (flat_cpu, CR_DEVICE_CUDA);
  CrTensor *v = cr_tensor_new_view (flat_cuda, t->shape, t->ndim, t->strides, t->offset);
  g_assert_no_error (error);
  return v;
}

/* cuda (brought back) equals cpu: dtype, shape, values within tolerance. */
static void
assert_close (const CrTensor *cpu, const CrTensor *cuda, double rtol, double atol,
              const char *what)
{
  g_autoptr(CrTensor) back = to (cuda, CR_DEVICE_CPU);

  if (cpu->dtype != back->dtype || !cr_shape_equal (cpu->shape, cpu->ndim, back->shape, back->ndim))
    g_error ("%s: dtype/shape differ (%s %s vs %s %s)", what, cr_dtype_name (cpu->dtype),
             cr_shape_to_string (cpu->shape, cpu->ndim), cr_dtype_name (back->dtype),
             cr_shape_to_string (back->shape, back->ndim));
  for (gint64 i = 0; i < cpu->numel; i++)
    {
      double e = cr_tensor_get_flat (cpu, i), a = cr_tensor_get_flat (back, i);
      if (isnan (e) && isnan (a))
        continue;
      if (isinf (e) && e == a)
        continue;
      if (!(fabs (e - a) <= atol + rtol * fabs (e)))
        g_error ("%s: element %" G_GINT64_FORMAT ": cpu %.9g, cuda %.9g", what, i, e, a);
    }
}

static double
rtol_of (CrDType dtype)
{
  return dtype == CR_DTYPE_FLOAT32 ? 2e-5 : 1e-12;
}

static double
atol_of (CrDType dtype)
{
  return dtype == CR_DTYPE_FLOAT32 ? 1e-5 : 1e-12;
}

/* Inputs of one case: a contiguous tensor, a transposed view, a sliced view. */
typedef struct {
  const char *name;
  CrTensor   *cpu;
  CrTensor   *cuda;
} Input;

static void
inputs_for (CrDType dtype, Input out[3])
{
  gint64 s34[2] = { 3, 4 }, s45[2] = { 4, 5 };
  gint64 t_shape[2] = { 4, 3 }, t_strides[2] = { 1, 4 };
  gint64 sl_shape[2] = { 3, 2 }, sl_strides[2] = { 5, 2 };
  g_autoptr(CrTensor) base = randn (s34, 2, dtype);
  g_autoptr(CrTensor) base2 = randn (s45, 2, dtype);

  out[0].name = "contiguous";
  out[0].cpu = randn (s34, 2, dtype);
  out[1].name = "transposed";
  out[1].cpu = cr_tensor_new_view (base, t_shape, 2, t_strides, 0);
  out[2].name = "sliced";
  out[2].cpu = cr_tensor_new_view (base2, sl_shape, 2, sl_strides, 1);
  for (int i = 0; i < 3; i++)
    out[i].cuda = same_view_on_cuda (out[i].cpu);
}

static void
inputs_free (Input in[3])
{
  for (int i = 0; i < 3; i++)
    {
      cr_tensor_unref (in[i].cpu);
      cr_tensor_unref (in[i].cuda);
    }
}

static const CrDType float_dtypes[] = { CR_DTYPE_FLOAT32, CR_DTYPE_FLOAT64 };

/* P0 P1 P2 for the rows with parameters (ignored by the others): inside
 * every row's domain, away from 0 (celu divides by alpha); gelu's nonzero P0
 * is its tanh form. */
static const double row_params[CR_UNARY_MAX_PARAMS] = { 0.5, 1.5, 1.0 };

/* ---- elementwise ---------------------------------------------------------------- */

static void
test_unary (void)
{
  for (guint d = 0; d < G_N_ELEMENTS (float_dtypes); d++)
    {
      Input in[3];
      inputs_for (float_dtypes[d], in);
      for (int op = 0; op < CR_UNARY_COUNT; op++)
        for (int i = 0; i < 3; i++)
          {
            g_autoptr(GError) error = NULL;
            g_autofree char *what = g_strdup_printf ("unary %d %s %s", op, in[i].name,
                                                     cr_dtype_name (float_dtypes[d]));
            g_autoptr(CrTensor) e = cr_kernel_unary_p (op, in[i].cpu, row_params, &error);
            g_autoptr(CrTensor) a = NULL;
            g_assert_no_error (error);
            a = cr_kernel_unary_p (op, in[i].cuda, row_params, &error);
            g_assert_no_error (error);
            /* Transcendental functions: CUDA's ulp bounds, not the CPU's bits. */
            assert_close (e, a, float_dtypes[d] == CR_DTYPE_FLOAT32 ? 1e-5 : 1e-12,
                          float_dtypes[d] == CR_DTYPE_FLOAT32 ? 1e-6 : 1e-13, what);
          }
      inputs_free (in);
    }
}

/* One dtype rule: every unary op on every dtype, and relu's backward on
 * int64, give the same dtype (or both fail) on both devices. */
static void
test_dtype_rules (void)
{
  const double values[] = { 1, -2, 3, 0 };
  gint64 shape = 4;

  for (int dt = 0; dt < CR_DTYPE_COUNT; dt++)
    {
      g_autoptr(CrTensor) x = cr_tensor_new_from_data (values, &shape, 1, dt, NULL);
      g_autoptr(CrTensor) gx = NULL;

      if (dt == CR_DTYPE_BOOL)
        for (int i = 0; i < 4; i++)
          cr_tensor_set_flat (x, i, i % 2 == 0);
      gx = to (x, CR_DEVICE_CUDA);
      for (int op = 0; op < CR_UNARY_COUNT; op++)
        {
          g_autoptr(GError) cpu_error = NULL;
          g_autoptr(GError) cuda_error = NULL;
          g_autofree char *what = g_strdup_printf ("unary %s of %s", cr_unary_op_name (op),
                                                   cr_dtype_name (dt));
          g_autoptr(CrTensor) e = cr_kernel_unary_p (op, x, row_params, &cpu_error);
          g_autoptr(CrTensor) a = cr_kernel_unary_p (op, gx, row_params, &cuda_error);

          if (e == NULL)
            {
              g_assert_null (a);
              g_assert_nonnull (cuda_error);
              g_assert_cmpint (cpu_error->code, ==, cuda_error->code);
              continue;
            }
          g_assert_no_error (cuda_error);
          assert_close (e, a, 1e-5, 1e-6, what);
        }
    }
  {
    g_autoptr(CrTensor) g = cr_tensor_new_from_data (values, &shape, 1, CR_DTYPE_INT64, NULL);
    g_autoptr(CrTensor) gg = to (g, CR_DEVICE_CUDA);
    g_autoptr(CrTensor) e = cr_kernel_binary (CR_BINARY_RELU_BACKWARD, g, g, NULL);
    g_autoptr(CrTensor) a = cr_kernel_binary (CR_BINARY_RELU_BACKWARD, gg, gg, NULL);

    g_assert_cmpint (e->dtype, ==, CR_DTYPE_INT64);
    assert_close (e, a, 0, 0, "threshold_backward of int64");
  }
}

/* The rows of integers alone (&, |, ^, <<, >>) on int64 and bool, broadcast. */
static void
test_binary_integers (void)
{
  gint64 sa[2] = { 3, 4 }, sb[1] = { 4 };
  const CrDType dtypes[2] = { CR_DTYPE_INT64, CR_DTYPE_BOOL };

  for (guint d = 0; d < G_N_ELEMENTS (dtypes); d++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(CrTensor) fa = randn (sa, 2, CR_DTYPE_FLOAT64);
      g_autoptr(CrTensor) fb = randn (sb, 1, CR_DTYPE_FLOAT64);
      g_autoptr(CrTensor) k = cr_tensor_new_scalar (37.0, CR_DTYPE_FLOAT64);
      g_autoptr(CrTensor) sa_ = cr_kernel_binary (CR_BINARY_MUL, fa, k, &error);
      g_autoptr(CrTensor) sb_ = cr_kernel_binary (CR_BINARY_MUL, fb, k, &error);
      g_autoptr(CrTensor) a = NULL;
      g_autoptr(CrTensor) b = NULL;
      g_autoptr(CrTensor) ga = NULL;
      g_autoptr(CrTensor) gb = NULL;

      g_assert_no_error (error);
      /* Signed values of several bits, so &, | and ^ all change something. */
      a = cr_kernel_cast (sa_, dtypes[d], &error);
      g_assert_no_error (error);
      b = cr_kernel_cast (sb_, dtypes[d], &error);
      g_assert_no_error (error);
      ga = to (a, CR_DEVICE_CUDA);
      gb = to (b, CR_DEVICE_CUDA);
      for (int op = 0; op < CR_BINARY_COUNT; op++)
        {
          g_autoptr(CrTensor) e = NULL;
          g_autoptr(CrTensor) got = NULL;
          g_autofree char *what = NULL;

          if (cr_binary_op_rule (op) != CR_BINARY_RULE_INTEGERS
              && (cr_binary_op_rule (op) != CR_BINARY_RULE_INT64 || dtypes[d] != CR_DTYPE_INT64))
            continue;
          what = g_strdup_printf ("binary %d %s", op, cr_dtype_name (dtypes[d]));
          e = cr_kernel_binary (op, a, b, &error);
          g_assert_no_error (error);
          got = cr_kernel_binary (op, ga, gb, &error);
          g_assert_no_error (error);
          assert_close (e, got, 0.0, 0.0, what);
        }
    }
}

static void
test_binary_broadcast (void)
{
  /* (2, 3, 4) with (3, 1), (4,) and a 0-d CPU scalar (a Python number). */
  gint64 sa[3] = { 2, 3, 4 }, sb[2] = { 3, 1 }, sc[1] = { 4 };

  for (guint d = 0; d < G_N_ELEMENTS (float_dtypes); d++)
    {
      CrDType dt = float_dtypes[d];
      g_autoptr(CrTensor) a = randn (sa, 3, dt);
      g_autoptr(CrTensor) b = randn (sb, 2, dt);
      g_autoptr(CrTensor) c = randn (sc, 1, dt);
      g_autoptr(CrTensor) s = cr_tensor_new_scalar (1.5, CR_DTYPE_FLOAT64);
      g_autoptr(CrTensor) ga = to (a, CR_DEVICE_CUDA);
      g_autoptr(CrTensor) gb = to (b, CR_DEVICE_CUDA);
      g_autoptr(CrTensor) gc = to (c, CR_DEVICE_CUDA);
      const CrTensor *rhs_cpu[3] = { b, c, s };
      const CrTensor *rhs_cuda[3] = { gb, gc, s };

      s->is_wrapped_number = TRUE;
      for (int op = 0; op < CR_BINARY_COUNT; op++)
        for (int r = 0; r < 3 && cr_binary_op_rule (op) != CR_BINARY_RULE_INTEGERS
                        && cr_binary_op_rule (op) != CR_BINARY_RULE_INT64; r++)
          {
            g_autoptr(GError) error = NULL;
            g_autofree char *what = g_strdup_printf ("binary %d rhs %d %s", op, r,
                                                     cr_dtype_name (dt));
            g_autoptr(CrTensor) e = cr_kernel_binary (op, a, rhs_cpu[r], &error);
            g_autoptr(CrTensor) got = NULL;
            g_assert_no_error (error);
            got = cr_kernel_binary (op, ga, rhs_cuda[r], &error);
            g_assert_no_error (error);
            assert_close (e, got, op == CR_BINARY_POW ? 1e-5 : rtol_of (dt), atol_of (dt), what);
          }

      /* In place, the optimizer's a += alpha * b, and clamp / where. */
      {
        g_autoptr(GError) error = NULL;
        g_autoptr(CrTensor) e = cr_kernel_add_scaled (a, b, -0.5, &error);
        g_autoptr(CrTensor) got = cr_kernel_add_scaled (ga, gb, -0.5, &error);
        g_autoptr(CrTensor) cond = cr_kernel_binary (CR_BINARY_GT, a, b, &error);
        g_autoptr(CrTensor) gcond = cr_kernel_binary (CR_BINARY_GT, ga, gb, &error);
        g_autoptr(CrTensor) w = cr_kernel_where (cond, a, c, &error);
        g_autoptr(CrTensor) gw = cr_kernel_where (gcond, ga, gc, &error);
        g_autoptr(CrTensor) cl = cr_kernel_clamp (a, TRUE, -0.5, TRUE, 0.5, &error);
        g_autoptr(CrTensor) gcl = cr_kernel_clamp (ga, TRUE, -0.5, TRUE, 0.5, &error);
        g_assert_no_error (error);
        assert_close (e, got, rtol_of (dt), atol_of (dt), "add_scaled");
        assert_close (cond, gcond, 0, 0, "gt");
        assert_close (w, gw, 0, 0, "where");
        assert_close (cl, gcl, 0, 0, "clamp");
        g_assert_true (cr_kernel_binary_into (CR_BINARY_MUL, a, a, b, &error));
        g_assert_true (cr_kernel_binary_into (CR_BINARY_MUL, ga, ga, gb, &error));
        g_assert_true (cr_kernel_add_scaled_into (a, c, 2.0, &error));
        g_assert_true (cr_kernel_add_scaled_into (ga, gc, 2.0, &error));
        g_assert_no_error (error);
        assert_close (a, ga, rtol_of (dt), atol_of (dt), "in place");
      }
    }
}

static void
test_copy_cast_fill (void)
{
  Input in[3];

  inputs_for (CR_DTYPE_FLOAT64, in);
  for (int i = 0; i < 3; i++)
    for (int dt = 0; dt < CR_DTYPE_COUNT; dt++)
      {
        g_autoptr(GError) error = NULL;
        g_autoptr(CrTensor) e = cr_kernel_cast (in[i].cpu, dt, &error);
        g_autoptr(CrTensor) a = cr_kernel_cast (in[i].cuda, dt, &error);
        g_autoptr(CrTensor) c = cr_tensor_copy (in[i].cuda, &error);
        g_assert_no_error (error);
        assert_close (e, a, 0, 0, "cast");
        assert_close (in[i].cpu, c, 0, 0, "contiguous copy");
      }
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(CrTensor) e = cr_tensor_new_full (in[0].cpu->shape, 2, 2.5, CR_DTYPE_FLOAT32,
                                                CR_DEVICE_CPU, &error);
    g_autoptr(CrTensor) a = cr_tensor_new_full (in[0].cpu->shape, 2, 2.5, CR_DTYPE_FLOAT32,
                                                CR_DEVICE_CUDA, &error);
    g_assert_no_error (error);
    assert_close (e, a, 0, 0, "fill");
  }
  inputs_free (in);
}

/* ---- reductions, softmax ---------------------------------------------------------- */

static void
test_reductions (void)
{
  for (guint d = 0; d < G_N_ELEMENTS (float_dtypes); d++)
    {
      CrDType dt = float_dtypes[d];
      Input in[3];
      static const int dim_sets[][2] = { { 0, 0 }, { 1, 0 }, { 0, 1 } };
      static const int n_dim_sets[] = { 0, 1, 2 };

      inputs_for (dt, in);
      for (int i = 0; i < 3; i++)
        {
          for (int s = 0; s < 3; s++)
            for (int keep = 0; keep < 2; keep++)
              {
                g_autoptr(GError) error = NULL;
                g_autoptr(CrTensor) e1 = cr_kernel_sum (in[i].cpu, dim_sets[s], n_dim_sets[s], keep, &error);
                g_autoptr(CrTensor) a1 = cr_kernel_sum (in[i].cuda, dim_sets[s], n_dim_sets[s], keep, &error);
                g_autoptr(CrTensor) e2 = cr_kernel_mean (in[i].cpu, dim_sets[s], n_dim_sets[s], keep, &error);
                g_autoptr(CrTensor) a2 = cr_kernel_mean (in[i].cuda, dim_sets[s], n_dim_sets[s], keep, &error);
                g_autoptr(CrTensor) e3 = cr_kernel_prod (in[i].cpu, dim_sets[s], n_dim_sets[s], keep, &error);
                g_autoptr(CrTensor) a3 = cr_kernel_prod (in[i].cuda, dim_sets[s], n_dim_sets[s], keep, &error);
                g_assert_no_error (error);
                assert_close (e1, a1, 1e-5, 1e-5, "sum");
                assert_close (e2, a2, 1e-5, 1e-5, "mean");
                assert_close (e3, a3, 1e-5, 1e-6, "prod");
              }
          for (int dim = -2; dim < 2; dim++)
            for (int is_min = 0; is_min < 2; is_min++)
              {
                g_autoptr(GError) error = NULL;
                CrTensor *ev = NULL, *ei = NULL, *av = NULL, *ai = NULL;
                g_autoptr(CrTensor) eam = NULL;
                g_autoptr(CrTensor) aam = NULL;
                g_assert_true (cr_kernel_max_dim (in[i].cpu, dim, FALSE, is_min, &ev, &ei, &error));
                g_assert_true (cr_kernel_max_dim (in[i].cuda, dim, FALSE, is_min, &av, &ai, &error));
                eam = cr_kernel_argmax (in[i].cpu, FALSE, 0, FALSE, is_min, &error);
                aam = cr_kernel_argmax (in[i].cuda, FALSE, 0, FALSE, is_min, &error);
                g_assert_no_error (error);
                assert_close (ev, av, 0, 0, "max_dim values");
                assert_close (ei, ai, 0, 0, "max_dim indices");
                assert_close (eam, aam, 0, 0, "argmax");
                cr_tensor_unref (ev);
                cr_tensor_unref (ei);
                cr_tensor_unref (av);
                cr_tensor_unref (ai);
              }
          for (int dim = 0; dim < 2; dim++)
            for (int log = 0; log < 2; log++)
              {
                g_autoptr(GError) error = NULL;
                g_autoptr(CrTensor) e = cr_kernel_softmax (in[i].cpu, dim, log, &error);
                g_autoptr(CrTensor) a = cr_kernel_softmax (in[i].cuda, dim, log, &error);
                g_autoptr(CrTensor) eb = cr_kernel_softmax_backward (in[i].cpu, e, dim, log, &error);
                g_autoptr(CrTensor) ab = cr_kernel_softmax_backward (in[i].cuda, a, dim, log, &error);
                g_assert_no_error (error);
                assert_close (e, a, 1e-5, 1e-6, "softmax");
                assert_close (eb, ab, 1e-5, 1e-6, "softmax backward");
              }
          {
            g_autoptr(GError) error = NULL;
            gint64 to_shape[2] = { 1, in[i].cpu->shape[1] };
            g_autoptr(CrTensor) e = cr_kernel_sum_to_shape (in[i].cpu, to_shape, 2, &error);
            g_autoptr(CrTensor) a = cr_kernel_sum_to_shape (in[i].cuda, to_shape, 2, &error);
            g_autoptr(CrTensor) em = cr_kernel_max_all (in[i].cpu, FALSE, &error);
            g_autoptr(CrTensor) am = cr_kernel_max_all (in[i].cuda, FALSE, &error);
            gboolean ok = FALSE;
            g_assert_no_error (error);
            assert_close (e, a, 1e-5, 1e-5, "sum_to_shape");
            assert_close (em, am, 0, 0, "max_all");
            g_assert_true (cr_kernel_allclose (in[i].cpu, in[i].cuda, 1e-5, 1e-8, &ok, &error)
                           || error != NULL);
            /* allclose over devices is the mixed-device error, as in PyTorch. */
            g_clear_error (&error);
            g_assert_true (cr_kernel_allclose (in[i].cuda, in[i].cuda, 1e-5, 1e-8, &ok, &error));
            g_assert_no_error (error);
            g_assert_true (ok);
            g_assert_true (cr_kernel_any (in[i].cuda) == cr_kernel_any (in[i].cpu));
            g_assert_true (cr_kernel_all (in[i].cuda) == cr_kernel_all (in[i].cpu));
          }
        }
      inputs_free (in);
    }
}

/* ---- matrix products, indexing ------------------------------------------------------ */

static void
test_matmul (void)
{
  for (guint d = 0; d < G_N_ELEMENTS (float_dtypes); d++)
    {
      CrDType dt = float_dtypes[d];
      gint64 sa[2] = { 5, 7 }, sb[2] = { 7, 3 }, sbt[2] = { 3, 7 };
      gint64 ba[3] = { 4, 5, 7 }, bb[3] = { 4, 7, 3 };
      gint64 t_shape[2] = { 7, 3 }, t_strides[2] = { 1, 7 };
      g_autoptr(CrTensor) a = randn (sa, 2, dt);
      g_autoptr(CrTensor) b = randn (sb, 2, dt);
      g_autoptr(CrTensor) bt_base = randn (sbt, 2, dt);
      g_autoptr(CrTensor) bt = cr_tensor_new_view (bt_base, t_shape, 2, t_strides, 0);
      g_autoptr(CrTensor) x = randn (ba, 3, dt);
      g_autoptr(CrTensor) y = randn (bb, 3, dt);
      g_autoptr(CrTensor) ga = to (a, CR_DEVICE_CUDA);
      g_autoptr(CrTensor) gb = to (b, CR_DEVICE_CUDA);
      g_autoptr(CrTensor) gbt = same_view_on_cuda (bt);
      g_autoptr(CrTensor) gx = to (x, CR_DEVICE_CUDA);
      g_autoptr(CrTensor) gy = to (y, CR_DEVICE_CUDA);
      g_autoptr(GError) error = NULL;
      g_autoptr(CrTensor) e1 = cr_kernel_mm (a, b, &error);
      g_autoptr(CrTensor) a1 = cr_kernel_mm (ga, gb, &error);
      g_autoptr(CrTensor) e2 = cr_kernel_mm (a, bt, &error);
      g_autoptr(CrTensor) a2 = cr_kernel_mm (ga, gbt, &error);
      g_autoptr(CrTensor) e3 = cr_kernel_bmm (x, y, &error);
      g_autoptr(CrTensor) a3 = cr_kernel_bmm (gx, gy, &error);
      g_assert_no_error (error);
      assert_close (e1, a1, 1e-5, 1e-5, "mm");
      assert_close (e2, a2, 1e-5, 1e-5, "mm transposed");
      assert_close (e3, a3, 1e-5, 1e-5, "bmm");
    }
}

static void
test_indexing (void)
{
  gint64 s[2] = { 3, 4 }, n = 5;
  gint64 idx_data[5] = { 0, 11, -1, 5, 5 };
  g_autoptr(GError) error = NULL;
  g_autoptr(CrTensor) x = randn (s, 2, CR_DTYPE_FLOAT32);
  g_autoptr(CrTensor) gx = to (x, CR_DEVICE_CUDA);
  g_autoptr(CrTensor) idx = cr_tensor_new_from_data (idx_data, &n, 1, CR_DTYPE_INT64, &error);
  g_autoptr(CrTensor) gidx = to (idx, CR_DEVICE_CUDA);
  g_autoptr(CrTensor) e = cr_kernel_take (x, idx, &error);
  g_autoptr(CrTensor) a = cr_kernel_take (gx, gidx, &error);
  g_autoptr(CrTensor) vals = randn (&n, 1, CR_DTYPE_FLOAT32);
  g_autoptr(CrTensor) gvals = to (vals, CR_DEVICE_CUDA);
  g_autoptr(CrTensor) zero = cr_tensor_new_scalar (0.0, CR_DTYPE_FLOAT32);
  g_autoptr(CrTensor) mask = cr_kernel_binary (CR_BINARY_GT, x, zero, &error);
  g_autoptr(CrTensor) gmask = NULL;
  g_autoptr(CrTensor) enz = NULL;
  g_autoptr(CrTensor) anz = NULL;
  CrTensor *cat_cpu[2], *cat_cuda[2];
  g_autoptr(CrTensor) ecat = NULL;
  g_autoptr(CrTensor) acat = NULL;

  g_assert_no_error (error);
  gmask = to (mask, CR_DEVICE_CUDA);
  assert_close (e, a, 0, 0, "take");

  for (int acc = 0; acc < 2; acc++)
    {
      g_autoptr(CrTensor) dst = cr_tensor_copy (x, &error);
      g_autoptr(CrTensor) gdst = cr_tensor_copy (gx, &error);
      g_assert_true (cr_kernel_put (dst, idx, vals, acc, &error));
      g_assert_true (cr_kernel_put (gdst, gidx, gvals, acc, &error));
      g_assert_no_error (error);
      /* Without accumulate the duplicate index 5 keeps one of two values. */
      if (acc)
        assert_close (dst, gdst, 1e-6, 1e-6, "put accumulate");
    }
  enz = cr_kernel_nonzero_flat (mask, &error);
  anz = cr_kernel_nonzero_flat (gmask, &error);
  g_assert_no_error (error);
  assert_close (enz, anz, 0, 0, "nonzero_flat");

  cat_cpu[0] = x;
  cat_cpu[1] = x;
  cat_cuda[0] = gx;
  cat_cuda[1] = gx;
  ecat = cr_kernel_cat (cat_cpu, 2, 1, &error);
  acat = cr_kernel_cat (cat_cuda, 2, 1, &error);
  g_assert_no_error (error);
  assert_close (ecat, acat, 0, 0, "cat");

  /* A bad index is PyTorch's IndexError, not a device fault. */
  {
    gint64 bad = 12, one = 1;
    g_autoptr(CrTensor) bidx = cr_tensor_new_from_data (&bad, &one, 1, CR_DTYPE_INT64, &error);
    g_autoptr(CrTensor) gbidx = to (bidx, CR_DEVICE_CUDA);
    g_autoptr(CrTensor) r = cr_kernel_take (gx, gbidx, &error);
    g_assert_null (r);
    g_assert_error (error, CR_CORE_ERROR, CR_EXC_INDEX_ERROR);
  }
}

/* ---- errors and transfers ------------------------------------------------------------- */

static void
test_errors (void)
{
  gint64 huge[2] = { (gint64) 1 << 22, (gint64) 1 << 22 };   /* 64 TiB of float32 */
  gint64 s[1] = { 3 };
  g_autoptr(GError) error = NULL;
  g_autoptr(CrTensor) big = cr_tensor_new_empty (huge, 2, CR_DTYPE_FLOAT32, CR_DEVICE_CUDA, &error);
  g_autoptr(CrTensor) a = randn (s, 1, CR_DTYPE_FLOAT32);
  g_autoptr(CrTensor) ga = to (a, CR_DEVICE_CUDA);
  g_autoptr(CrTensor) r = NULL;

  g_assert_null (big);
  g_assert_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR);
  g_assert_true (g_str_has_prefix (error->message, "CUDA out of memory. Tried to allocate "));
  g_clear_error (&error);

  r = cr_kernel_binary (CR_BINARY_ADD, ga, a, &error);
  g_assert_null (r);
  g_assert_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR);
  g_assert_cmpstr (error->message, ==,
                   "Expected all tensors to be on the same device, but found at least two "
                   "devices, cuda:0 and cpu!");
  g_clear_error (&error);

  /* The device still works after both. */
  r = cr_kernel_binary (CR_BINARY_ADD, ga, ga, &error);
  g_assert_no_error (error);
  g_assert_nonnull (r);
}

static void
test_round_trip (void)
{
  for (int dt = 0; dt < CR_DTYPE_COUNT; dt++)
    {
      Input in[3];
      inputs_for (CR_DTYPE_FLOAT64, in);
      for (int i = 0; i < 3; i++)
        {
          g_autoptr(GError) error = NULL;
          g_autoptr(CrTensor) c = cr_kernel_cast (in[i].cpu, dt, &error);
          g_autoptr(CrTensor) up = to (c, CR_DEVICE_CUDA);
          g_autoptr(CrTensor) down = to (up, CR_DEVICE_CPU);
          /* A strided CUDA view to a strided CPU destination. */
          g_autoptr(CrTensor) dst = cr_tensor_new_zeros (in[i].cpu->shape, 2, dt, CR_DEVICE_CPU, &error);
          g_assert_true (cr_kernel_copy_into (dst, in[i].cuda, &error));
          g_assert_no_error (error);
          assert_close (c, up, 0, 0, "round trip");
          g_assert_true (cr_tensor_read_flat (up, 1) == cr_tensor_get_flat (c, 1));
          (void) down;
        }
      inputs_free (in);
    }
}

/* ---- scripts: forward and backward through the engine ------------------------------- */

static void
output_cb (const char *text, gboolean is_stderr, gpointer data)
{
  if (!is_stderr)
    g_string_append (data, text);
}

static char *
run_script (const char *source, CrDeviceType device)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CrAstModule) module = cr_parse (source, -1, "<gpu>", NULL, &error);
  GString *out = g_string_new (NULL);
  CrInterpOptions options = { 0 };
  CrScriptError *script_error = NULL;
  CrInterp *interp;

  g_assert_no_error (error);
  options.output = output_cb;
  options.output_data = out;
  options.default_device = device;
  interp = cr_interp_new (&options);
  if (!cr_interp_run (interp, module, &script_error))
    g_string_append_printf (out, "ERROR %s\n", script_error->message);
  cr_script_error_free (script_error);
  cr_interp_free (interp);
  return g_string_free (out, FALSE);
}

static void
test_scripts (void)
{
  static const char *scripts[] = {
    "import torch\ntorch.manual_seed(0)\n"
    "w = torch.randn(3, 4, requires_grad=True)\nx = torch.randn(5, 3)\n"
    "y = torch.tanh(x @ w).sigmoid().log_softmax(dim=1)\nloss = (y * y).mean()\nloss.backward()\n"
    "print(round(loss.item(), 4))\nprint(w.grad.sum().item() * 1000 // 1)\n",
    "import torch\na = torch.tensor([[1., -2., 3.], [0.5, 4., -1.]], requires_grad=True)\n"
    "b = torch.tensor([2., 1., 0.5], requires_grad=True)\n"
    "c = (a * b + b / (a.abs() + 1)).relu().sum(dim=0)\nc.sum().backward()\n"
    "print(c.tolist())\nprint(a.grad.tolist(), b.grad.tolist())\n",
    "import torch\nx = torch.arange(6.).reshape(2, 3).requires_grad_()\n"
    "y = x.t().max(dim=0)\nprint(y.values.tolist(), y.indices.tolist())\n"
    "z = torch.cat([x, x * 2], dim=1)[:, 1:].pow(2).sum()\nz.backward()\nprint(x.grad.tolist())\n",
  };

  for (guint i = 0; i < G_N_ELEMENTS (scripts); i++)
    {
      g_autofree char *cpu = run_script (scripts[i], CR_DEVICE_CPU);
      g_autofree char *gpu = run_script (scripts[i], CR_DEVICE_CUDA);
      if (g_test_verbose ())
        g_printerr ("---- cpu\n%s---- cuda\n%s", cpu, gpu);
      g_assert_null (strstr (cpu, "ERROR"));
      g_assert_cmpstr (gpu, ==, cpu);
    }
}

/* ---- convolution and pooling ----------------------------------------------------- */

/* A case of conv2d and its two adjoints on both devices. x_nhwc: x is a
 * permuted view of an (N, H, W, C) tensor (channels last). */
typedef struct {
  gint64     N, C, H, W, OC, kh, kw;
  CrConvGeom g;
  gboolean   bias, x_nhwc;
} ConvCase;

/* randn, or small integers (-2..2) for int64. */
static CrTensor *
conv_randn (const gint64 *shape, int ndim, CrDType dtype)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CrTensor) r = randn (shape, ndim, dtype == CR_DTYPE_INT64 ? CR_DTYPE_FLOAT64 : dtype);
  CrTensor *t = dtype == CR_DTYPE_INT64 ? cr_kernel_cast (r, dtype, &error) : cr_tensor_ref (r);

  g_assert_no_error (error);
  return t;
}

static void
check_conv (CrDType dt, const ConvCase *c, const char *label)
{
  gint64 xs[4] = { c->N, c->C, c->H, c->W }, xs_nhwc[4] = { c->N, c->H, c->W, c->C };
  gint64 x_strides[4] = { c->H * c->W * c->C, 1, c->W * c->C, c->C };
  gint64 ws[4] = { c->OC, c->C / c->g.groups, c->kh, c->kw };
  gint64 oh = (c->H + 2 * c->g.padding[0] - c->g.dilation[0] * (c->kh - 1) - 1) / c->g.stride[0] + 1;
  gint64 ow = (c->W + 2 * c->g.padding[1] - c->g.dilation[1] * (c->kw - 1) - 1) / c->g.stride[1] + 1;
  gint64 ys[4] = { c->N, c->OC, oh, ow };
  g_autoptr(CrTensor) x_base = conv_randn (c->x_nhwc ? xs_nhwc : xs, 4, dt);
  g_autoptr(CrTensor) x = c->x_nhwc ? cr_tensor_new_view (x_base, xs, 4, x_strides, 0)
                                    : cr_tensor_ref (x_base);
  g_autoptr(CrTensor) w = conv_randn (ws, 4, dt);
  g_autoptr(CrTensor) b = conv_randn (&c->OC, 1, dt);
  g_autoptr(CrTensor) bc = conv_randn (&c->C, 1, dt);
  g_autoptr(CrTensor) gy = conv_randn (ys, 4, dt);
  g_autoptr(CrTensor) dx = same_view_on_cuda (x);
  g_autoptr(CrTensor) dw = to (w, CR_DEVICE_CUDA);
  g_autoptr(CrTensor) db = to (b, CR_DEVICE_CUDA);
  g_autoptr(CrTensor) dbc = to (bc, CR_DEVICE_CUDA);
  g_autoptr(CrTensor) dgy = to (gy, CR_DEVICE_CUDA);
  g_autoptr(GError) error = NULL;
  g_autoptr(CrTensor) e1 = cr_kernel_conv2d (x, w, c->bias ? b : NULL, &c->g, &error);
  g_autoptr(CrTensor) a1 = cr_kernel_conv2d (dx, dw, c->bias ? db : NULL, &c->g, &error);
  g_autoptr(CrTensor) e2 = cr_kernel_conv2d_input_grad (gy, w, c->bias ? bc : NULL, &c->g,
                                                        c->H, c->W, &error);
  g_autoptr(CrTensor) a2 = cr_kernel_conv2d_input_grad (dgy, dw, c->bias ? dbc : NULL, &c->g,
                                                        c->H, c->W, &error);
  g_autoptr(CrTensor) e3 = cr_kernel_conv2d_weight_grad (gy, x, &c->g, c->kh, c->kw, &error);
  g_autoptr(CrTensor) a3 = cr_kernel_conv2d_weight_grad (dgy, dx, &c->g, c->kh, c->kw, &error);
  double tol = dt == CR_DTYPE_FLOAT32 ? 1e-4 : dt == CR_DTYPE_FLOAT64 ? 1e-11 : 0;
  g_autofree char *w1 = g_strdup_printf ("conv2d %s %s", label, cr_dtype_name (dt));
  g_autofree char *w2 = g_strdup_printf ("conv2d_input_grad %s %s", label, cr_dtype_name (dt));
  g_autofree char *w3 = g_strdup_printf ("conv2d_weight_grad %s %s", label, cr_dtype_name (dt));

  g_assert_no_error (error);
  assert_close (e1, a1, tol, tol, w1);
  assert_close (e2, a2, tol, tol, w2);
  assert_close (e3, a3, tol, tol, w3);
}

static void
test_conv (void)
{
  /* int64: the module's int64 gemm with the transposed operands. */
  static const CrDType conv_dtypes[] = { CR_DTYPE_FLOAT32, CR_DTYPE_FLOAT64, CR_DTYPE_INT64 };
  static const ConvCase cases[] = {
    /* N C H W OC kh kw  stride pad dil groups  bias nhwc */
    { 2, 3, 7, 6, 4, 3, 3, { { 1, 1 }, { 1, 1 }, { 1, 1 }, 1 }, TRUE, FALSE },
    { 3, 4, 9, 8, 6, 3, 2, { { 2, 1 }, { 1, 0 }, { 2, 1 }, 2 }, TRUE, FALSE },
    { 2, 4, 6, 7, 4, 3, 3, { { 2, 2 }, { 2, 1 }, { 1, 1 }, 4 }, FALSE, TRUE },
    { 4, 2, 1, 12, 3, 1, 5, { { 1, 3 }, { 0, 2 }, { 1, 2 }, 1 }, TRUE, FALSE },   /* conv1d */
    { 5, 3, 5, 5, 2, 5, 5, { { 1, 1 }, { 0, 0 }, { 1, 1 }, 1 }, FALSE, TRUE },    /* 1x1 out */
    { 1, 2, 4, 4, 3, 2, 2, { { 3, 3 }, { 0, 0 }, { 1, 1 }, 1 }, TRUE, FALSE },    /* unread rows */
  };

  /* Each case with the batch in one chunk, then with small chunks (several
   * samples per chunk and one), which the module sees in other layouts. */
  for (int budget = 0; budget < 3; budget++)
    {
      cr_cuda_set_conv_chunk_elements (budget == 0 ? 0 : budget == 1 ? 400 : 1);
      for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
        for (guint d = 0; d < G_N_ELEMENTS (conv_dtypes); d++)
          {
            g_autofree char *label = g_strdup_printf ("case %u budget %d", i, budget);
            check_conv (conv_dtypes[d], &cases[i], label);
          }
    }
  cr_cuda_set_conv_chunk_elements (0);
}

/* The output size of a sliding window (ceil_mode: PyTorch's rule, the last
 * window starts inside the input or the left padding). */
static gint64
pool_out (gint64 size, gint64 k, gint64 s, gint64 p, gint64 d, gboolean ceil_mode)
{
  gint64 span = size + 2 * p - d * (k - 1) - 1;
  gint64 o = (ceil_mode ? (span + s - 1) / s : span / s) + 1;

  if (ceil_mode && (o - 1) * s >= size + p)
    o--;
  return o;
}

static void
check_pool (CrDType dt, const CrPoolGeom *g, gboolean transposed, gboolean with_nan,
            const char *label)
{
  gint64 H = g->in[0], W = g->in[1];
  gint64 xs[4] = { 2, 3, H, W };
  /* transposed: x is the transpose of a contiguous (2, 3, W, H) tensor. */
  gint64 xt_shape[4] = { 2, 3, W, H };
  gint64 xt_strides[4] = { 3 * H * W, H * W, 1, H };
  gint64 ys[4] = { 2, 3, g->out[0], g->out[1] };
  g_autoptr(CrTensor) base = conv_randn (transposed ? xt_shape : xs, 4, dt);
  g_autoptr(CrTensor) x = NULL;
  g_autoptr(CrTensor) gy = conv_randn (ys, 4, dt);
  g_autoptr(CrTensor) gin = conv_randn (xs, 4, dt);
  g_autoptr(GError) error = NULL;
  CrTensor *ev = NULL, *ei = NULL, *av = NULL, *ai = NULL;
  double tol = dt == CR_DTYPE_FLOAT32 ? 1e-5 : 1e-12;
  g_autofree char *what = g_strdup_printf ("pool %s %s", label, cr_dtype_name (dt));

  if (with_nan)
    cr_tensor_set_flat (base, 5, NAN);
  x = transposed ? cr_tensor_new_view (base, xs, 4, xt_strides, 0) : cr_tensor_ref (base);
  {
    g_autoptr(CrTensor) dx = same_view_on_cuda (x);
    g_autoptr(CrTensor) dgy = to (gy, CR_DEVICE_CUDA);
    g_autoptr(CrTensor) dgin = to (gin, CR_DEVICE_CUDA);
    g_autoptr(CrTensor) e_avg = NULL;
    g_autoptr(CrTensor) a_avg = NULL;
    g_autoptr(CrTensor) e_avgb = NULL;
    g_autoptr(CrTensor) a_avgb = NULL;

    g_assert_true (cr_kernel_max_pool2d (x, g, &ev, &ei, &error));
    g_assert_true (cr_kernel_max_pool2d (dx, g, &av, &ai, &error));
    g_assert_no_error (error);
    assert_close (ev, av, 0, 0, what);
    assert_close (ei, ai, 0, 0, what);
    {
      /* Backward and gather with the CPU's indices on both devices. */
      g_autoptr(CrTensor) dei = to (ei, CR_DEVICE_CUDA);
      g_autoptr(CrTensor) eb = cr_kernel_max_pool2d_backward (gy, ei, g, &error);
      g_autoptr(CrTensor) ab = cr_kernel_max_pool2d_backward (dgy, dei, g, &error);
      g_autoptr(CrTensor) eg = cr_kernel_max_pool2d_gather (gin, ei, g, &error);
      g_autoptr(CrTensor) ag = cr_kernel_max_pool2d_gather (dgin, dei, g, &error);
      g_assert_no_error (error);
      assert_close (eb, ab, tol, tol, what);
      assert_close (eg, ag, 0, 0, what);
    }
    e_avg = cr_kernel_avg_pool2d (x, g, &error);
    a_avg = cr_kernel_avg_pool2d (dx, g, &error);
    e_avgb = cr_kernel_avg_pool2d_backward (gy, g, &error);
    a_avgb = cr_kernel_avg_pool2d_backward (dgy, g, &error);
    g_assert_no_error (error);
    assert_close (e_avg, a_avg, tol, tol, what);
    assert_close (e_avgb, a_avgb, tol, tol, what);
  }
  cr_tensor_unref (ev);
  cr_tensor_unref (ei);
  cr_tensor_unref (av);
  cr_tensor_unref (ai);
}

static void
test_pool (void)
{
  for (guint d = 0; d < G_N_ELEMENTS (float_dtypes); d++)
    {
      CrDType dt = float_dtypes[d];
      CrPoolGeom g;

      for (int ceil_mode = 0; ceil_mode < 2; ceil_mode++)
        for (int include_pad = 0; include_pad < 2; include_pad++)
          {
            g_autofree char *label = g_strdup_printf ("sliding ceil %d pad %d", ceil_mode,
                                                      include_pad);
            memset (&g, 0, sizeof g);
            g.kernel[0] = 3; g.kernel[1] = 2;
            g.stride[0] = 2; g.stride[1] = 3;
            g.padding[0] = 1; g.padding[1] = 1;
            g.dilation[0] = 1; g.dilation[1] = 1;
            g.in[0] = 9; g.in[1] = 8;
            g.count_include_pad = include_pad;
            g.divisor_override = include_pad && ceil_mode ? 5 : 0;
            for (int a = 0; a < 2; a++)
              g.out[a] = pool_out (g.in[a], g.kernel[a], g.stride[a], g.padding[a], 1, ceil_mode);
            check_pool (dt, &g, ceil_mode, include_pad, label);
          }
      /* Overlapping dilated windows (max pool's dilation; avg reads the
       * same taps). */
      memset (&g, 0, sizeof g);
      g.kernel[0] = 3; g.kernel[1] = 3;
      g.stride[0] = 1; g.stride[1] = 2;
      g.padding[0] = 1; g.padding[1] = 0;
      g.dilation[0] = 2; g.dilation[1] = 1;
      g.in[0] = 7; g.in[1] = 9;
      for (int a = 0; a < 2; a++)
        g.out[a] = pool_out (g.in[a], g.kernel[a], g.stride[a], g.padding[a], g.dilation[a], FALSE);
      check_pool (dt, &g, FALSE, TRUE, "dilated");
      /* Adaptive: uneven windows that overlap (9 -> 4) and that do not (8 -> 3). */
      memset (&g, 0, sizeof g);
      g.adaptive = TRUE;
      g.in[0] = 9; g.in[1] = 8;
      g.out[0] = 4; g.out[1] = 3;
      check_pool (dt, &g, FALSE, FALSE, "adaptive");
      check_pool (dt, &g, TRUE, TRUE, "adaptive strided");
      g.out[0] = 1; g.out[1] = 1;
      check_pool (dt, &g, FALSE, FALSE, "adaptive global");
    }
  {
    /* avg_pool2d of int64 (C's division), padded windows. */
    gint64 xs[3] = { 2, 5, 6 };
    g_autoptr(CrTensor) x = conv_randn (xs, 3, CR_DTYPE_INT64);
    g_autoptr(CrTensor) dx = to (x, CR_DEVICE_CUDA);
    g_autoptr(GError) error = NULL;
    g_autoptr(CrTensor) e = NULL;
    g_autoptr(CrTensor) a = NULL;
    CrPoolGeom g;

    memset (&g, 0, sizeof g);
    g.kernel[0] = 2; g.kernel[1] = 3;
    g.stride[0] = 2; g.stride[1] = 2;
    g.padding[0] = 1; g.padding[1] = 1;
    g.dilation[0] = 1; g.dilation[1] = 1;
    g.in[0] = 5; g.in[1] = 6;
    g.count_include_pad = TRUE;
    for (int a_ = 0; a_ < 2; a_++)
      g.out[a_] = pool_out (g.in[a_], g.kernel[a_], g.stride[a_], g.padding[a_], 1, FALSE);
    e = cr_kernel_avg_pool2d (x, &g, &error);
    a = cr_kernel_avg_pool2d (dx, &g, &error);
    g_assert_no_error (error);
    assert_close (e, a, 0, 0, "avg_pool2d int64");
  }
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  if (!cr_cuda_is_available ())
    {
      g_print ("1..0 # SKIP torch.cuda is not available here: %s\n",
               cr_cuda_unavailable_reason ());
      return 77;
    }
  gen = cr_generator_new (42);

  g_test_add_func ("/gpu/unary", test_unary);
  g_test_add_func ("/gpu/dtype-rules", test_dtype_rules);
  g_test_add_func ("/gpu/binary-broadcast", test_binary_broadcast);
  g_test_add_func ("/gpu/binary-integers", test_binary_integers);
  g_test_add_func ("/gpu/copy-cast-fill", test_copy_cast_fill);
  g_test_add_func ("/gpu/reductions-softmax", test_reductions);
  g_test_add_func ("/gpu/matmul", test_matmul);
  g_test_add_func ("/gpu/indexing", test_indexing);
  g_test_add_func ("/gpu/errors", test_errors);
  g_test_add_func ("/gpu/round-trip", test_round_trip);
  g_test_add_func ("/gpu/scripts", test_scripts);
  g_test_add_func ("/gpu/conv", test_conv);
  g_test_add_func ("/gpu/pool", test_pool);
  return g_test_run ();
}
