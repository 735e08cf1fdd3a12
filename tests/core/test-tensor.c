/* test-tensor.c — tensor objects: creation, views, geometry, element access,
 * names, the version counter, the memory limit and the object pools.
 *
 * Expected values and messages come from PyTorch 1.13 (/usr/bin/python3), as
 * noted next to each. */
#include <math.h>
#include <string.h>

#include "cr-tensor.h"
#include "cr-error.h"
#include "cr-kernels.h"

static void
assert_shape (const CrTensor *t,
              int             ndim,
              const gint64   *shape)
{
  g_assert_cmpint (t->ndim, ==, ndim);
  for (int i = 0; i < ndim; i++)
    g_assert_cmpint (t->shape[i], ==, shape[i]);
}

static void
assert_values (const CrTensor *t,
               const double   *expected,
               gint64          n,
               double          tol)
{
  g_assert_cmpint (t->numel, ==, n);
  for (gint64 i = 0; i < n; i++)
    g_assert_cmpfloat (fabs (cr_tensor_get_flat (t, i) - expected[i]), <=, tol);
}

static void
test_creation (void)
{
  const gint64 shape[] = { 2, 3 };
  const float data[] = { 1, 2, 3, 4, 5, 6 };
  g_autoptr(GError) error = NULL;
  g_autoptr(CrTensor) e = cr_tensor_new_empty (shape, 2, CR_DTYPE_FLOAT32, CR_DEVICE_CPU, &error);
  g_autoptr(CrTensor) z = cr_tensor_new_zeros (shape, 2, CR_DTYPE_INT64, CR_DEVICE_CPU, &error);
  g_autoptr(CrTensor) f = cr_tensor_new_full (shape, 2, 2.5, CR_DTYPE_FLOAT64, CR_DEVICE_CPU, &error);
  g_autoptr(CrTensor) s = cr_tensor_new_scalar (7.9, CR_DTYPE_INT64);
  g_autoptr(CrTensor) b = cr_tensor_new_scalar (0.5, CR_DTYPE_BOOL);
  g_autoptr(CrTensor) d = cr_tensor_new_from_data (data, shape, 2, CR_DTYPE_FLOAT32, &error);

  g_assert_no_error (error);
  assert_shape (e, 2, shape);
  g_assert_cmpint (e->numel, ==, 6);
  g_assert_cmpint (e->strides[0], ==, 3);
  g_assert_cmpint (e->strides[1], ==, 1);
  g_assert_true (e->dtype == CR_DTYPE_FLOAT32);
  g_assert_true (cr_tensor_is_contiguous (e));
  g_assert_null (e->grad_fn);
  g_assert_false (e->requires_grad);

  for (int i = 0; i < 6; i++)
    {
      g_assert_cmpint (cr_tensor_get_flat_int (z, i), ==, 0);
      g_assert_cmpfloat (cr_tensor_get_flat (f, i), ==, 2.5);
      g_assert_cmpfloat (cr_tensor_get_flat (d, i), ==, data[i]);
    }
  /* int64(7.9) truncates as torch.tensor(7.9).long() does: 7. */
  g_assert_cmpint (s->ndim, ==, 0);
  g_assert_cmpint (s->numel, ==, 1);
  g_assert_cmpint (cr_tensor_get_flat_int (s, 0), ==, 7);
  g_assert_cmpfloat (cr_tensor_get_flat (b, 0), ==, 1.0);
}

static void
test_zero_size (void)
{
  const gint64 shape[] = { 3, 0, 2 };
  g_autoptr(GError) error = NULL;
  g_autoptr(CrTensor) t = cr_tensor_new_zeros (shape, 3, CR_DTYPE_FLOAT32, CR_DEVICE_CPU, &error);

  g_assert_no_error (error);
  g_assert_cmpint (t->numel, ==, 0);
  g_assert_true (cr_tensor_is_contiguous (t));
}

static void
test_bad_shapes (void)
{
  g_autoptr(GError) error = NULL;
  CrTensor *t;

  /* torch.empty(-1, 2) */
  t = cr_tensor_new_empty ((const gint64[]) { -1, 2 }, 2, CR_DTYPE_FLOAT32, CR_DEVICE_CPU, &error);
  g_assert_null (t);
  g_assert_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR);
  g_assert_cmpstr (error->message, ==, "Trying to create tensor with negative dimension -1: [-1, 2]");
  g_clear_error (&error);

  /* torch.zeros(2, -3) */
  t = cr_tensor_new_zeros ((const gint64[]) { 2, -3 }, 2, CR_DTYPE_FLOAT32, CR_DEVICE_CPU, &error);
  g_assert_null (t);
  g_assert_cmpstr (error->message, ==, "Trying to create tensor with negative dimension -3: [2, -3]");
  g_clear_error (&error);

  /* torch.empty(2**31, 2**31, 8): the byte size overflows, an error, no crash. */
  t = cr_tensor_new_empty ((const gint64[]) { G_GINT64_CONSTANT (2147483648), G_GINT64_CONSTANT (2147483648), 8 },
                           3, CR_DTYPE_FLOAT32, CR_DEVICE_CPU, &error);
  g_assert_null (t);
  g_assert_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR);
  g_assert_cmpstr (error->message, ==,
                   "Storage size calculation overflowed with sizes=[2147483648, 2147483648, 8]");
  g_clear_error (&error);

  /* torch.empty(2**62, 4) */
  t = cr_tensor_new_empty ((const gint64[]) { G_GINT64_CONSTANT (4611686018427387904), 4 },
                           2, CR_DTYPE_FLOAT32, CR_DEVICE_CPU, &error);
  g_assert_null (t);
  g_assert_cmpstr (error->message, ==,
                   "Storage size calculation overflowed with sizes=[4611686018427387904, 4]");
}

static void
test_memory_limit (void)
{
  gsize old_limit = cr_memory_get_limit ();
  gsize before = cr_memory_in_use ();
  g_autoptr(GError) error = NULL;
  CrTensor *t;
  const gint64 big[] = { G_GINT64_CONSTANT (4294967296) };
  const gint64 ok[] = { 1000 };

  /* The default is 4 GiB; 2^32 floats are 16 GiB. */
  g_assert_cmpuint (old_limit, ==, (gsize) 4 << 30);
  t = cr_tensor_new_empty (big, 1, CR_DTYPE_FLOAT32, CR_DEVICE_CPU, &error);
  g_assert_null (t);
  g_assert_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR);
  /* PyTorch 1.13's allocator text (torch.empty(2**40) printed it with its size). */
  g_assert_cmpstr (error->message, ==,
                   "[enforce fail at alloc_cpu.cpp:75] err == 0. DefaultCPUAllocator: can't allocate "
                   "memory: you tried to allocate 17179869184 bytes. Error code 12 (Cannot allocate memory)");
  g_clear_error (&error);
  g_assert_cmpuint (cr_memory_in_use (), ==, before);

  /* Accounting: a 4000-byte tensor counts while alive. */
  t = cr_tensor_new_empty (ok, 1, CR_DTYPE_FLOAT32, CR_DEVICE_CPU, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (cr_memory_in_use (), ==, before + 4000);

  /* A lower limit refuses what no longer fits. */
  cr_memory_set_limit (before + 6000);
  {
    CrTensor *t2 = cr_tensor_new_empty (ok, 1, CR_DTYPE_FLOAT32, CR_DEVICE_CPU, &error);

    g_assert_null (t2);
    g_assert_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR);
    g_assert_true (strstr (error->message, "you tried to allocate 4000 bytes") != NULL);
    g_clear_error (&error);
  }
  cr_tensor_unref (t);
  g_assert_cmpuint (cr_memory_in_use (), ==, before);
  cr_memory_set_limit (old_limit);
}

static void
test_arange (void)
{
  g_autoptr(GError) error = NULL;
  CrTensor *t;

  /* torch.arange(0, 1, 0.1): 10 elements; .tolist() shows float32(i * 0.1). */
  t = cr_tensor_new_arange (0, 1, 0.1, CR_DTYPE_FLOAT32, &error);
  g_assert_no_error (error);
  g_assert_cmpint (t->numel, ==, 10);
  g_assert_cmpfloat (cr_tensor_get_flat (t, 3), ==, 0.30000001192092896);
  g_assert_cmpfloat (cr_tensor_get_flat (t, 9), ==, 0.8999999761581421);
  cr_tensor_unref (t);

  /* torch.arange(0.0, 3.0, 0.3).tolist()[9] == 2.700000047683716 (10 elements). */
  t = cr_tensor_new_arange (0, 3, 0.3, CR_DTYPE_FLOAT32, &error);
  g_assert_cmpint (t->numel, ==, 10);
  g_assert_cmpfloat (cr_tensor_get_flat (t, 9), ==, 2.700000047683716);
  g_assert_cmpfloat (cr_tensor_get_flat (t, 7), ==, 2.0999999046325684);
  cr_tensor_unref (t);

  /* torch.arange(0, 10, 3) -> [0, 3, 6, 9] */
  t = cr_tensor_new_arange (0, 10, 3, CR_DTYPE_INT64, &error);
  assert_values (t, (const double[]) { 0, 3, 6, 9 }, 4, 0);
  cr_tensor_unref (t);

  /* torch.arange(-2.5, 3, 1.5, dtype=torch.int64) -> [-2, -1, 0, 1, 2] */
  t = cr_tensor_new_arange (-2.5, 3, 1.5, CR_DTYPE_INT64, &error);
  assert_values (t, (const double[]) { -2, -1, 0, 1, 2 }, 5, 0);
  cr_tensor_unref (t);

  /* torch.arange(-1.0, 1.0, 0.5) -> [-1, -0.5, 0, 0.5] */
  t = cr_tensor_new_arange (-1, 1, 0.5, CR_DTYPE_FLOAT64, &error);
  assert_values (t, (const double[]) { -1, -0.5, 0, 0.5 }, 4, 0);
  cr_tensor_unref (t);

  t = cr_tensor_new_arange (0, 1, 0, CR_DTYPE_FLOAT32, &error);
  g_assert_null (t);
  g_assert_cmpstr (error->message, ==, "step must be nonzero");
  g_clear_error (&error);

  /* torch.arange(0.5, 3.7, 0.9, dtype=torch.int64): the step truncates to 0. */
  t = cr_tensor_new_arange (0.5, 3.7, 0.9, CR_DTYPE_INT64, &error);
  g_assert_null (t);
  g_assert_cmpstr (error->message, ==, "step must be nonzero");
  g_clear_error (&error);

  t = cr_tensor_new_arange (1, 0, 0.3, CR_DTYPE_FLOAT32, &error);
  g_assert_null (t);
  g_assert_cmpstr (error->message, ==, "upper bound and larger bound inconsistent with step sign");
  g_clear_error (&error);

  t = cr_tensor_new_arange (0, INFINITY, 1, CR_DTYPE_FLOAT32, &error);
  g_assert_null (t);
  g_assert_cmpstr (error->message, ==, "unsupported range: 0 -> inf");
  g_clear_error (&error);

  t = cr_tensor_new_arange (0, 1e30, 1, CR_DTYPE_FLOAT32, &error);
  g_assert_null (t);
  g_assert_cmpstr (error->message, ==, "invalid size, possible overflow?");
}

static void
test_linspace_eye (void)
{
  g_autoptr(GError) error = NULL;
  CrTensor *t;

  /* torch.linspace(0, 1, 7).tolist() */
  t = cr_tensor_new_linspace (0, 1, 7, CR_DTYPE_FLOAT32, &error);
  g_assert_no_error (error);
  assert_values (t, (const double[]) { 0.0, 0.1666666716337204, 0.3333333432674408, 0.5,
                                       0.6666666269302368, 0.8333333134651184, 1.0 }, 7, 0);
  cr_tensor_unref (t);

  /* torch.linspace(0, 10, 4, dtype=torch.int64) -> [0, 3, 6, 10] */
  t = cr_tensor_new_linspace (0, 10, 4, CR_DTYPE_INT64, &error);
  assert_values (t, (const double[]) { 0, 3, 6, 10 }, 4, 0);
  cr_tensor_unref (t);

  /* torch.linspace(0, 1, 4, dtype=torch.float64).tolist() */
  t = cr_tensor_new_linspace (0, 1, 4, CR_DTYPE_FLOAT64, &error);
  assert_values (t, (const double[]) { 0.0, 0.3333333333333333, 0.6666666666666667, 1.0 }, 4, 0);
  cr_tensor_unref (t);

  t = cr_tensor_new_linspace (0, 1, 1, CR_DTYPE_FLOAT32, &error);
  assert_values (t, (const double[]) { 0.0 }, 1, 0);
  cr_tensor_unref (t);

  t = cr_tensor_new_linspace (0, 1, -1, CR_DTYPE_FLOAT32, &error);
  g_assert_null (t);
  g_assert_cmpstr (error->message, ==, "number of steps must be non-negative");
  g_clear_error (&error);

  /* torch.eye(2, 3) */
  t = cr_tensor_new_eye (2, 3, CR_DTYPE_FLOAT32, &error);
  g_assert_no_error (error);
  assert_values (t, (const double[]) { 1, 0, 0, 0, 1, 0 }, 6, 0);
  cr_tensor_unref (t);

  t = cr_tensor_new_eye (-1, 2, CR_DTYPE_FLOAT32, &error);
  g_assert_null (t);
  g_assert_cmpstr (error->message, ==, "n must be greater or equal to 0, got -1");
  g_clear_error (&error);
  t = cr_tensor_new_eye (2, -1, CR_DTYPE_FLOAT32, &error);
  g_assert_cmpstr (error->message, ==, "m must be greater or equal to 0, got -1");
}

static void
test_views (void)
{
  const gint64 shape[] = { 2, 3 };
  const float data[] = { 0, 1, 2, 3, 4, 5 };
  g_autoptr(GError) error = NULL;
  g_autoptr(CrTensor) x = cr_tensor_new_from_data (data, shape, 2, CR_DTYPE_FLOAT32, &error);
  g_autoptr(CrTensor) t = NULL;
  g_autoptr(CrTensor) c = NULL;
  g_autoptr(CrTensor) row = NULL;
  g_autoptr(CrTensor) alias = NULL;
  g_autoptr(CrTensor) same = NULL;

  /* x.t(): shape (3, 2), strides (1, 3), same storage. */
  t = cr_tensor_new_view (x, (const gint64[]) { 3, 2 }, 2, (const gint64[]) { 1, 3 }, 0);
  g_assert_true (t->storage == x->storage);
  g_assert_cmpint (x->storage->ref_count, ==, 2);
  g_assert_false (cr_tensor_is_contiguous (t));
  /* x.t().flatten() == [0, 3, 1, 4, 2, 5] */
  assert_values (t, (const double[]) { 0, 3, 1, 4, 2, 5 }, 6, 0);

  c = cr_tensor_contiguous (t, &error);
  g_assert_no_error (error);
  g_assert_true (cr_tensor_is_contiguous (c));
  g_assert_true (c->storage != x->storage);
  g_assert_cmpint (c->strides[0], ==, 2);
  assert_values (c, (const double[]) { 0, 3, 1, 4, 2, 5 }, 6, 0);

  same = cr_tensor_contiguous (x, &error);
  g_assert_true (same == x);

  /* x[1]: offset 3; writing through the view writes x. */
  row = cr_tensor_new_view (x, (const gint64[]) { 3 }, 1, (const gint64[]) { 1 }, 3);
  g_assert_true (cr_tensor_is_contiguous (row));
  cr_tensor_set_flat (row, 2, 50);
  g_assert_cmpfloat (cr_tensor_get_flat (x, 5), ==, 50);
  g_assert_cmpfloat (*(float *) cr_tensor_data (row), ==, 3);

  /* A size-1 dim's stride does not matter for contiguity (x[:, None]-like). */
  {
    g_autoptr(CrTensor) v = cr_tensor_new_view (x, (const gint64[]) { 2, 1, 3 }, 3,
                                                (const gint64[]) { 3, 77, 1 }, 0);
    g_assert_true (cr_tensor_is_contiguous (v));
  }

  /* detach()-like alias: shares storage and the version counter. */
  alias = cr_tensor_alias (t);
  g_assert_true (alias->storage == x->storage);
  g_assert_cmpint (alias->strides[0], ==, 1);
  g_assert_cmpuint (cr_tensor_version (x), ==, 0);
  cr_tensor_bump_version (alias);
  g_assert_cmpuint (cr_tensor_version (x), ==, 1);
  g_assert_cmpuint (cr_tensor_version (row), ==, 1);
  g_assert_cmpuint (cr_tensor_version (c), ==, 0);
}

static void
test_copy (void)
{
  const gint64 shape[] = { 2, 2 };
  const gint64 data[] = { 1, -2, 3, 4 };
  g_autoptr(GError) error = NULL;
  g_autoptr(CrTensor) x = cr_tensor_new_from_data (data, shape, 2, CR_DTYPE_INT64, &error);
  g_autoptr(CrTensor) y = cr_tensor_copy (x, &error);

  g_assert_no_error (error);
  g_assert_true (y->storage != x->storage);
  cr_tensor_set_flat (y, 0, 100);
  g_assert_cmpint (cr_tensor_get_flat_int (x, 0), ==, 1);
  g_assert_cmpint (cr_tensor_get_flat_int (y, 0), ==, 100);
  g_assert_cmpint (cr_tensor_get_flat_int (y, 1), ==, -2);
}

static void
test_broadcast_shapes (void)
{
  gint64 out[CR_MAX_DIMS];
  int nd;
  g_autoptr(GError) error = NULL;

  g_assert_true (cr_shape_broadcast ((const gint64[]) { 2, 1, 3 }, 3, (const gint64[]) { 4, 1 }, 2,
                                     out, &nd, &error));
  g_assert_cmpint (nd, ==, 3);
  g_assert_cmpint (out[0], ==, 2);
  g_assert_cmpint (out[1], ==, 4);
  g_assert_cmpint (out[2], ==, 3);

  g_assert_true (cr_shape_broadcast (NULL, 0, (const gint64[]) { 0, 5 }, 2, out, &nd, &error));
  g_assert_cmpint (nd, ==, 2);
  g_assert_cmpint (out[0], ==, 0);

  /* torch.ones(2, 3) + torch.ones(3, 2) */
  g_assert_false (cr_shape_broadcast ((const gint64[]) { 2, 3 }, 2, (const gint64[]) { 3, 2 }, 2,
                                      out, &nd, &error));
  g_assert_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR);
  g_assert_cmpstr (error->message, ==,
                   "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1");
  g_clear_error (&error);

  /* torch.ones(2, 3, 4) + torch.ones(5, 1) */
  g_assert_false (cr_shape_broadcast ((const gint64[]) { 2, 3, 4 }, 3, (const gint64[]) { 5, 1 }, 2,
                                      out, &nd, &error));
  g_assert_cmpstr (error->message, ==,
                   "The size of tensor a (3) must match the size of tensor b (5) at non-singleton dimension 1");
}

static void
test_shape_helpers (void)
{
  gint64 strides[3];
  g_autofree char *s = cr_shape_to_string ((const gint64[]) { 2, 3 }, 2);
  g_autofree char *e = cr_shape_to_string (NULL, 0);

  g_assert_cmpstr (s, ==, "[2, 3]");
  g_assert_cmpstr (e, ==, "[]");
  cr_shape_contiguous_strides ((const gint64[]) { 4, 1, 5 }, 3, strides);
  /* torch.empty(4, 1, 5).stride() == (5, 5, 1) */
  g_assert_cmpint (strides[0], ==, 5);
  g_assert_cmpint (strides[1], ==, 5);
  g_assert_cmpint (strides[2], ==, 1);
  g_assert_cmpint (cr_shape_numel ((const gint64[]) { 4, 1, 5 }, 3), ==, 20);
  g_assert_cmpint (cr_shape_numel (NULL, 0), ==, 1);
  g_assert_true (cr_shape_equal ((const gint64[]) { 4, 5 }, 2, (const gint64[]) { 4, 5 }, 2));
  g_assert_false (cr_shape_equal ((const gint64[]) { 4, 5 }, 2, (const gint64[]) { 4 }, 1));
}

/* PyTorch's numel rule for views: torch.ones(1).expand(2**62, 2) fails with
 * "numel: integer multiplication overflow", as does (2**62, 2**62, 0), while
 * (0, 2**62, 2**62) and (2**62, 0, 2**62) are empty tensors. */
static void
test_numel_checked (void)
{
  const gint64 big = G_GINT64_CONSTANT (4611686018427387904);
  g_autoptr(GError) error = NULL;
  gint64 n = -1;

  g_assert_true (cr_shape_numel_checked ((const gint64[]) { 4, 1, 5 }, 3, &n, &error));
  g_assert_cmpint (n, ==, 20);
  g_assert_true (cr_shape_numel_checked (NULL, 0, &n, &error));
  g_assert_cmpint (n, ==, 1);
  g_assert_true (cr_shape_numel_checked ((const gint64[]) { 0, big, big }, 3, &n, &error));
  g_assert_cmpint (n, ==, 0);
  g_assert_true (cr_shape_numel_checked ((const gint64[]) { big, 0, big }, 3, NULL, &error));
  g_assert_no_error (error);
  g_assert_false (cr_shape_numel_checked ((const gint64[]) { big, 2 }, 2, &n, &error));
  g_assert_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR);
  g_assert_cmpstr (error->message, ==, "numel: integer multiplication overflow");
  g_clear_error (&error);
  g_assert_false (cr_shape_numel_checked ((const gint64[]) { big, big, 0 }, 3, &n, &error));
  g_assert_cmpstr (error->message, ==, "numel: integer multiplication overflow");
  g_clear_error (&error);
  /* A negative size reads as a huge unsigned one: torch.ones(1).expand(-2). */
  g_assert_false (cr_shape_numel_checked ((const gint64[]) { -2 }, 1, &n, &error));
  g_clear_error (&error);

  /* torch.zeros(2**62, 2**62, 0) fails: the overflow comes before the 0. */
  g_assert_null (cr_tensor_new_zeros ((const gint64[]) { big, big, 0 }, 3, CR_DTYPE_FLOAT32,
                                      CR_DEVICE_CPU, &error));
  g_assert_cmpstr (error->message, ==,
                   "Storage size calculation overflowed with sizes=[4611686018427387904, "
                   "4611686018427387904, 0]");
}

static void
test_get_set_flat (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CrTensor) b = cr_tensor_new_zeros ((const gint64[]) { 3 }, 1, CR_DTYPE_BOOL, CR_DEVICE_CPU, &error);
  g_autoptr(CrTensor) i = cr_tensor_new_zeros ((const gint64[]) { 2 }, 1, CR_DTYPE_INT64, CR_DEVICE_CPU, &error);
  g_autoptr(CrTensor) d = cr_tensor_new_zeros (NULL, 0, CR_DTYPE_FLOAT64, CR_DEVICE_CPU, &error);

  cr_tensor_set_flat (b, 1, -3.0);
  g_assert_cmpfloat (cr_tensor_get_flat (b, 0), ==, 0.0);
  g_assert_cmpfloat (cr_tensor_get_flat (b, 1), ==, 1.0);

  /* Exact past 2^53. */
  *(gint64 *) cr_tensor_data (i) = G_GINT64_CONSTANT (9007199254740993);
  g_assert_cmpint (cr_tensor_get_flat_int (i, 0), ==, G_GINT64_CONSTANT (9007199254740993));
  cr_tensor_set_flat (i, 1, -2.7);
  g_assert_cmpint (cr_tensor_get_flat_int (i, 1), ==, -2);

  cr_tensor_set_flat (d, 0, 0.1);
  g_assert_cmpfloat (cr_tensor_get_flat (d, 0), ==, 0.1);
}

static void
test_names (void)
{
  g_autoptr(CrTensor) t = cr_tensor_new_scalar (1, CR_DTYPE_FLOAT32);

  g_assert_null (cr_tensor_get_name (t));
  cr_tensor_set_name (t, "x");
  g_assert_cmpstr (cr_tensor_get_name (t), ==, "x");
  /* Only the first binding names a tensor. */
  cr_tensor_set_name (t, "y");
  g_assert_cmpstr (cr_tensor_get_name (t), ==, "x");
}

static void
test_pool_reuse (void)
{
#if defined(__SANITIZE_ADDRESS__)
  /* Under AddressSanitizer the structs are plain heap blocks (cr-slab.h). */
  g_test_skip ("no pooling under AddressSanitizer");
  return;
#else
  CrTensor *a = cr_tensor_new_scalar (1, CR_DTYPE_FLOAT32);
  CrTensor *a_addr = a;
  CrStorage *a_storage = a->storage;
  CrTensor *b;

  g_assert_true (cr_storage_is_inline (a->storage));
  cr_tensor_set_name (a, "pooled");
  cr_tensor_unref (a);

  /* The struct and the storage come back from the free lists, clean. */
  b = cr_tensor_new_scalar (2, CR_DTYPE_FLOAT64);
  g_assert_true (b == a_addr);
  g_assert_true (b->storage == a_storage);
  g_assert_null (b->name);
  g_assert_cmpint (b->ref_count, ==, 1);
  g_assert_cmpint (b->storage->ref_count, ==, 1);
  g_assert_cmpuint (b->storage->version, ==, 0);
  g_assert_null (b->grad);
  g_assert_false (b->is_wrapped_number);
  g_assert_cmpfloat (cr_tensor_get_flat (b, 0), ==, 2.0);
  cr_tensor_unref (b);

  /* Larger data is not inline. */
  {
    g_autoptr(CrTensor) big = cr_tensor_new_zeros ((const gint64[]) { 100 }, 1, CR_DTYPE_FLOAT32,
                                                   CR_DEVICE_CPU, NULL);
    g_assert_false (cr_storage_is_inline (big->storage));
    g_assert_cmpuint (GPOINTER_TO_SIZE (big->storage->data) % 64, ==, 0);
  }
#endif
}

static void
test_cuda_without_backend (void)
{
  g_autoptr(GError) error = NULL;
  CrTensor *t = cr_tensor_new_empty ((const gint64[]) { 2 }, 1, CR_DTYPE_FLOAT32, CR_DEVICE_CUDA, &error);

  g_assert_null (t);
  g_assert_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR);
  g_assert_cmpstr (error->message, ==, "Torch not compiled with CUDA enabled");
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/tensor/creation", test_creation);
  g_test_add_func ("/core/tensor/zero-size", test_zero_size);
  g_test_add_func ("/core/tensor/bad-shapes", test_bad_shapes);
  g_test_add_func ("/core/tensor/memory-limit", test_memory_limit);
  g_test_add_func ("/core/tensor/arange", test_arange);
  g_test_add_func ("/core/tensor/linspace-eye", test_linspace_eye);
  g_test_add_func ("/core/tensor/views", test_views);
  g_test_add_func ("/core/tensor/copy", test_copy);
  g_test_add_func ("/core/tensor/broadcast-shapes", test_broadcast_shapes);
  g_test_add_func ("/core/tensor/shape-helpers", test_shape_helpers);
  g_test_add_func ("/core/tensor/numel-checked", test_numel_checked);
  g_test_add_func ("/core/tensor/get-set-flat", test_get_set_flat);
  g_test_add_func ("/core/tensor/names", test_names);
  g_test_add_func ("/core/tensor/pool-reuse", test_pool_reuse);
  g_test_add_func ("/core/tensor/cuda-without-backend", test_cuda_without_backend);
  return g_test_run ();
}
