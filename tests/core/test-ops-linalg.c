/* test-ops-linalg.c — mm, mv, dot, bmm and torch.matmul's dispatch: values
 * from PyTorch 1.13, the grad_fn chains its _matmul_impl builds, its error
 * texts, and finite-difference gradients (float64) for every dispatch path,
 * transposed inputs and broadcast batches included. */
#include "cr-ops.h"
#include "cr-node.h"
#include "cr-engine.h"
#include "cr-error.h"
#include "gradcheck.h"
#include "test-util.h"

/* ---- helpers ------------------------------------------------------------- */

static CrTensor *
ranged (gint64        n,
        const gint64 *shape,
        int           ndim,
        double        scale,
        double        shift,
        gboolean      requires_grad)
{
  g_autofree double *v = g_new (double, n);
  for (gint64 i = 0; i < n; i++)
    v[i] = i * scale + shift;
  return cr_gradcheck_tensor (v, shape, ndim, requires_grad);
}

/* The names along the first-input edges from t's grad_fn, "A<-B<-C". */
static char *
chain (const CrTensor *t,
       int             depth)
{
  GString *s = g_string_new (NULL);
  const CrNode *node = t->grad_fn;

  for (int i = 0; i < depth && node != NULL; i++)
    {
      g_string_append_printf (s, "%s%s", i > 0 ? "<-" : "", cr_node_name (node));
      node = node->n_inputs > 0 ? node->next[0].node : NULL;
    }
  return g_string_free (s, FALSE);
}

static CrTensor *
matmul_ok (CrTensor *a,
           CrTensor *b)
{
  g_autoptr(GError) error = NULL;
  CrTensor *out = cr_matmul (a, b, &error);
  g_assert_no_error (error);
  g_assert_nonnull (out);
  return out;
}

/* ---- values and names ------------------------------------------------------ */

/* The grad_fn_shape conformance case's products and gradients. */
static void
test_products (void)
{
  g_autoptr(CrTensor) m = cr_gradcheck_tensor ((double[]) { 1, 2, 3, 4, 5, 6 },
                                               (gint64[]) { 2, 3 }, 2, TRUE);
  g_autoptr(CrTensor) v = cr_gradcheck_tensor ((double[]) { 1, -1 }, (gint64[]) { 2 }, 1, TRUE);
  g_autoptr(CrTensor) u = cr_gradcheck_tensor ((double[]) { 0.5, 1, 2 }, (gint64[]) { 3 }, 1, TRUE);
  g_autoptr(CrTensor) vm = matmul_ok (v, m);
  g_autoptr(CrTensor) mu = matmul_ok (m, u);
  g_autoptr(CrTensor) uu = matmul_ok (u, u);
  g_autoptr(CrTensor) mt = cr_t (m, NULL);
  g_autoptr(CrTensor) mmt = NULL;
  g_autoptr(CrTensor) s1 = NULL, s2 = NULL, s3 = NULL, t1 = NULL, t2 = NULL, total = NULL;
  g_autoptr(GError) error = NULL;

  cr_test_assert_values (vm, (double[]) { -3, -3, -3 }, 3);
  g_assert_cmpstr (cr_test_fn_name (vm), ==, "SqueezeBackward3");
  g_assert_null (vm->view_base);
  cr_test_assert_values (mu, (double[]) { 8.5, 19 }, 2);
  g_assert_cmpstr (cr_test_fn_name (mu), ==, "MvBackward0");
  cr_test_assert_values (uu, (double[]) { 5.25 }, 1);
  g_assert_cmpint (uu->ndim, ==, 0);
  g_assert_cmpstr (cr_test_fn_name (uu), ==, "DotBackward0");
  mmt = cr_mm (m, mt, &error);
  g_assert_no_error (error);
  cr_test_assert_values (mmt, (double[]) { 14, 32, 32, 77 }, 4);
  g_assert_cmpstr (cr_test_fn_name (mmt), ==, "MmBackward0");
  g_assert_cmpstr (cr_test_next_name (mmt->grad_fn, 1), ==, "TBackward0");

  /* (v@M).sum() + (M@u).sum() + u@u + mm(M, M.t()).sum() */
  s1 = cr_sum (vm, NULL);
  s2 = cr_sum (mu, NULL);
  s3 = cr_sum (mmt, NULL);
  t1 = cr_add (s1, s2, NULL);
  t2 = cr_add (t1, uu, NULL);
  total = cr_add (t2, s3, NULL);
  g_assert_true (cr_tensor_backward (total, NULL, FALSE, FALSE, NULL, NULL, &error));
  g_assert_no_error (error);
  /* torch (the conformance case without its + M.T.reshape(6).sum()) */
  cr_test_assert_values (m->grad, (double[]) { 11.5, 16, 21, 9.5, 14, 19 }, 6);
  cr_test_assert_values (v->grad, (double[]) { 6, 15 }, 2);
  cr_test_assert_values (u->grad, (double[]) { 6, 9, 13 }, 3);
}

static void
test_batched_values (void)
{
  g_autoptr(CrTensor) a = ranged (12, (gint64[]) { 2, 2, 3 }, 3, 1, 0, FALSE);
  g_autoptr(CrTensor) b = ranged (6, (gint64[]) { 3, 2 }, 2, 1, -2, FALSE);
  g_autoptr(CrTensor) c = ranged (12, (gint64[]) { 2, 3, 2 }, 3, 0.25, 0, FALSE);
  g_autoptr(CrTensor) v = cr_gradcheck_tensor ((double[]) { 1, -1, 2 }, (gint64[]) { 3 }, 1, FALSE);
  g_autoptr(CrTensor) e = ranged (4, (gint64[]) { 1, 2, 2 }, 3, 1, 0, FALSE);
  g_autoptr(CrTensor) f = ranged (12, (gint64[]) { 3, 2, 2 }, 3, 1, 0, FALSE);
  g_autoptr(CrTensor) ab = matmul_ok (a, b);
  g_autoptr(CrTensor) ac = NULL;
  g_autoptr(CrTensor) av = matmul_ok (a, v);
  g_autoptr(CrTensor) vc = matmul_ok (v, c);
  g_autoptr(CrTensor) ef = matmul_ok (e, f);
  g_autoptr(GError) error = NULL;

  /* Values from torch 1.13. */
  cr_test_assert_shape (ab, (gint64[]) { 2, 2, 2 }, 3);
  cr_test_assert_values (ab, (double[]) { 4, 7, 4, 16, 4, 25, 4, 34 }, 8);
  ac = cr_bmm (a, c, &error);
  g_assert_no_error (error);
  cr_test_assert_values (ac, (double[]) { 2.5, 3.25, 7, 10, 43, 48.25, 61, 68.5 }, 8);
  cr_test_assert_shape (av, (gint64[]) { 2, 2 }, 2);
  cr_test_assert_values (av, (double[]) { 3, 9, 15, 21 }, 4);
  cr_test_assert_shape (vc, (gint64[]) { 2, 2 }, 2);
  cr_test_assert_values (vc, (double[]) { 1.5, 2, 4.5, 5 }, 4);
  cr_test_assert_shape (ef, (gint64[]) { 3, 2, 2 }, 3);
  cr_test_assert_values (ef, (double[]) { 2, 3, 6, 11, 6, 7, 26, 31, 10, 11, 46, 51 }, 12);
}

/* The grad_fn chains torch 1.13 prints for each matmul path. */
static void
test_matmul_chains (void)
{
  g_autoptr(CrTensor) x3 = cr_gradcheck_rand ((gint64[]) { 2, 3, 4 }, 3, -1, 1, 1);
  g_autoptr(CrTensor) w = cr_gradcheck_rand ((gint64[]) { 4, 5 }, 2, -1, 1, 2);
  g_autoptr(CrTensor) y3 = cr_gradcheck_rand ((gint64[]) { 2, 4, 5 }, 3, -1, 1, 3);
  g_autoptr(CrTensor) v4 = cr_gradcheck_rand ((gint64[]) { 4 }, 1, -1, 1, 4);
  g_autoptr(CrTensor) v3 = cr_gradcheck_rand ((gint64[]) { 3 }, 1, -1, 1, 5);
  g_autoptr(CrTensor) a53 = cr_gradcheck_rand ((gint64[]) { 5, 3 }, 2, -1, 1, 6);
  g_autoptr(CrTensor) b4 = cr_gradcheck_rand ((gint64[]) { 3, 1, 2, 3 }, 4, -1, 1, 7);
  g_autoptr(CrTensor) c3 = cr_gradcheck_rand ((gint64[]) { 5, 3, 4 }, 3, -1, 1, 8);
  g_autoptr(CrTensor) p = cr_gradcheck_rand ((gint64[]) { 2, 4, 3 }, 3, -1, 1, 9);
  g_autoptr(CrTensor) pp = cr_permute (p, (int[]) { 0, 2, 1 }, 3, NULL);
  g_autoptr(CrTensor) w43 = cr_gradcheck_rand ((gint64[]) { 4, 3 }, 2, -1, 1, 10);
  g_autoptr(CrTensor) m34 = cr_gradcheck_rand ((gint64[]) { 3, 4 }, 2, -1, 1, 11);
  struct {
    CrTensor   *a, *b;
    const char *expected;
    gint64      shape[4];
    int         ndim;
  } cases[] = {
    { x3, w, "UnsafeViewBackward0<-MmBackward0<-ReshapeAliasBackward0<-AccumulateGrad",
      { 2, 3, 5 }, 3 },
    { x3, y3, "UnsafeViewBackward0<-BmmBackward0<-ReshapeAliasBackward0<-ExpandBackward0"
      "<-AccumulateGrad", { 2, 3, 5 }, 3 },
    { x3, v4, "UnsafeViewBackward0<-MvBackward0<-ReshapeAliasBackward0<-AccumulateGrad",
      { 2, 3 }, 2 },
    { v3, x3, "UnsafeViewBackward0<-MvBackward0<-UnsafeViewBackward0<-CloneBackward0"
      "<-TransposeBackward0<-AccumulateGrad", { 2, 4 }, 2 },
    { a53, x3, "CloneBackward0<-TransposeBackward0<-UnsafeViewBackward0<-MmBackward0"
      "<-UnsafeViewBackward0<-CloneBackward0<-TransposeBackward0", { 2, 5, 4 }, 3 },
    { b4, c3, "UnsafeViewBackward0<-BmmBackward0<-UnsafeViewBackward0<-CloneBackward0"
      "<-ExpandBackward0<-AccumulateGrad", { 3, 5, 2, 4 }, 4 },
    { pp, w43, "UnsafeViewBackward0<-BmmBackward0<-ReshapeAliasBackward0<-ExpandBackward0"
      "<-PermuteBackward0<-AccumulateGrad", { 2, 3, 3 }, 3 },
    { v3, m34, "SqueezeBackward3<-MmBackward0<-UnsqueezeBackward0<-AccumulateGrad", { 4 }, 1 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(CrTensor) out = matmul_ok (cases[i].a, cases[i].b);
      g_autofree char *c = chain (out, 7);

      g_test_message ("case %u: %s", i, c);
      g_assert_cmpstr (c, ==, cases[i].expected);
      cr_test_assert_shape (out, cases[i].shape, cases[i].ndim);
    }
}

static void
test_errors (void)
{
  g_autoptr(CrTensor) a23 = cr_tensor_new_zeros ((gint64[]) { 2, 3 }, 2, CR_DTYPE_FLOAT32,
                                                 CR_DEVICE_CPU, NULL);
  g_autoptr(CrTensor) d23 = cr_tensor_new_zeros ((gint64[]) { 2, 3 }, 2, CR_DTYPE_FLOAT64,
                                                 CR_DEVICE_CPU, NULL);
  g_autoptr(CrTensor) l22 = cr_tensor_new_zeros ((gint64[]) { 2, 2 }, 2, CR_DTYPE_INT64,
                                                 CR_DEVICE_CPU, NULL);
  g_autoptr(CrTensor) f22 = cr_tensor_new_zeros ((gint64[]) { 2, 2 }, 2, CR_DTYPE_FLOAT32,
                                                 CR_DEVICE_CPU, NULL);
  g_autoptr(CrTensor) v2 = cr_tensor_new_zeros ((gint64[]) { 2 }, 1, CR_DTYPE_FLOAT32,
                                                CR_DEVICE_CPU, NULL);
  g_autoptr(CrTensor) v3 = cr_tensor_new_zeros ((gint64[]) { 3 }, 1, CR_DTYPE_FLOAT32,
                                                CR_DEVICE_CPU, NULL);
  g_autoptr(CrTensor) dv3 = cr_tensor_new_zeros ((gint64[]) { 3 }, 1, CR_DTYPE_FLOAT64,
                                                 CR_DEVICE_CPU, NULL);
  g_autoptr(CrTensor) s = cr_tensor_new_scalar (2.0, CR_DTYPE_FLOAT32);
  g_autoptr(CrTensor) b234 = cr_tensor_new_zeros ((gint64[]) { 2, 3, 4 }, 3, CR_DTYPE_FLOAT32,
                                                  CR_DEVICE_CPU, NULL);
  g_autoptr(CrTensor) b252 = cr_tensor_new_zeros ((gint64[]) { 2, 5, 2 }, 3, CR_DTYPE_FLOAT32,
                                                  CR_DEVICE_CPU, NULL);
  g_autoptr(CrTensor) b352 = cr_tensor_new_zeros ((gint64[]) { 3, 5, 2 }, 3, CR_DTYPE_FLOAT32,
                                                  CR_DEVICE_CPU, NULL);
  g_autoptr(CrTensor) v5 = cr_tensor_new_zeros ((gint64[]) { 5 }, 1, CR_DTYPE_FLOAT32,
                                                CR_DEVICE_CPU, NULL);
  g_autoptr(GError) error = NULL;

  g_assert_null (cr_matmul (a23, a23, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR, "mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)");
  g_clear_error (&error);
  g_assert_null (cr_matmul (v3, f22, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR, "mat1 and mat2 shapes cannot be multiplied (1x3 and 2x2)");
  g_clear_error (&error);
  g_assert_null (cr_matmul (v3, v2, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR,
                "inconsistent tensor size, expected tensor [3] and src [2] to have the same number "
                "of elements, but got 3 and 2 elements respectively");
  g_clear_error (&error);
  g_assert_null (cr_matmul (a23, v2, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR, "size mismatch, got 2, 2x3,2");
  g_clear_error (&error);
  g_assert_null (cr_matmul (s, v3, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR,
                "both arguments to matmul need to be at least 1D, but they are 0D and 1D");
  g_clear_error (&error);
  g_assert_null (cr_dot (a23, a23, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR, "1D tensors expected, but got 2D and 2D tensors");
  g_clear_error (&error);
  g_assert_null (cr_dot (v3, dv3, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR,
                "dot : expected both vectors to have same dtype, but found Float and Double");
  g_clear_error (&error);
  g_assert_null (cr_mm (v2, f22, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR, "self must be a matrix");
  g_clear_error (&error);
  g_assert_null (cr_mm (f22, v2, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR, "mat2 must be a matrix");
  g_clear_error (&error);
  g_assert_null (cr_mm (l22, f22, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR, "expected scalar type Long but found Float");
  g_clear_error (&error);
  g_assert_null (cr_matmul (a23, d23, &error));
  g_assert_nonnull (error);
  g_clear_error (&error);
  g_assert_null (cr_mv (f22, f22, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR, "vector + matrix @ vector expected, got 1, 2, 2");
  g_clear_error (&error);
  g_assert_null (cr_bmm (f22, f22, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR, "batch1 must be a 3D tensor");
  g_clear_error (&error);
  g_assert_null (cr_matmul (b234, b252, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR,
                "Expected size for first two dimensions of batch2 tensor to be: [2, 4] but got: "
                "[2, 5].");
  g_clear_error (&error);
  g_assert_null (cr_matmul (b234, b352, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR,
                "The size of tensor a (2) must match the size of tensor b (3) at non-singleton "
                "dimension 0");
  g_clear_error (&error);
  g_assert_null (cr_matmul (b234, v5, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR, "size mismatch, got 6, 6x4,5");
}

static void
test_integer_mm (void)
{
  g_autoptr(CrTensor) l = cr_tensor_new_full ((gint64[]) { 2, 2 }, 2, 1, CR_DTYPE_INT64,
                                              CR_DEVICE_CPU, NULL);
  g_autoptr(CrTensor) p = NULL;
  g_autoptr(GError) error = NULL;

  p = cr_mm (l, l, &error);
  g_assert_no_error (error);
  g_assert_cmpint (p->dtype, ==, CR_DTYPE_INT64);
  g_assert_cmpint (cr_tensor_get_flat_int (p, 3), ==, 2);
}

/* mm saves only what the other input's gradient needs, as PyTorch does: an
 * operand changed in place afterwards does not break backward when nobody
 * needed it saved. */
static void
test_mm_saves_needed_only (void)
{
  g_autoptr(CrTensor) a = cr_gradcheck_tensor ((double[]) { 1, 2, 3, 4, 5, 6 },
                                               (gint64[]) { 2, 3 }, 2, TRUE);
  g_autoptr(CrTensor) w = cr_gradcheck_tensor ((double[]) { 1, 2, 3, 4, 5, 6 },
                                               (gint64[]) { 3, 2 }, 2, FALSE);
  g_autoptr(CrTensor) one = cr_tensor_new_scalar (1.0, CR_DTYPE_FLOAT64);
  g_autoptr(CrTensor) x = cr_mul (a, one, NULL);
  g_autoptr(CrTensor) y = NULL;
  g_autoptr(CrTensor) s = NULL;
  g_autoptr(GError) error = NULL;

  y = cr_mm (x, w, &error);
  g_assert_no_error (error);
  s = cr_sum (y, NULL);
  cr_tensor_bump_version (x);
  g_assert_true (cr_tensor_backward (s, NULL, FALSE, FALSE, NULL, NULL, &error));
  g_assert_no_error (error);
  /* d(sum(x @ w))/dx = ones @ w.t(): the row sums of w */
  cr_test_assert_values (a->grad, (double[]) { 3, 7, 11, 3, 7, 11 }, 6);
}

/* ---- gradchecks ------------------------------------------------------------------ */

static CrTensor *
matmul_func (CrTensor *const *in,
             guint            n,
             gpointer         user_data,
             GError         **error)
{
  (void) n;
  switch (GPOINTER_TO_INT (user_data))
    {
    case 0: return cr_matmul (in[0], in[1], error);
    case 1: return cr_mm (in[0], in[1], error);
    case 2: return cr_mv (in[0], in[1], error);
    case 3: return cr_dot (in[0], in[1], error);
    case 4: return cr_bmm (in[0], in[1], error);
    default: g_assert_not_reached ();
    }
}

static void
check_matmul (const gint64 *sa, int na, gboolean ta,
              const gint64 *sb, int nb, gboolean tb,
              guint32       seed)
{
  g_autoptr(CrTensor) a = ta ? cr_gradcheck_rand_transposed (sa, na, -1, 1, seed)
                             : cr_gradcheck_rand (sa, na, -1, 1, seed);
  g_autoptr(CrTensor) b = tb ? cr_gradcheck_rand_transposed (sb, nb, -1, 1, seed + 1)
                             : cr_gradcheck_rand (sb, nb, -1, 1, seed + 1);

  g_assert_true (cr_gradcheck (matmul_func, GINT_TO_POINTER (0), (CrTensor *[]) { a, b }, 2));
}

static void
test_gradcheck_matmul (void)
{
  check_matmul ((gint64[]) { 3 }, 1, FALSE, (gint64[]) { 3 }, 1, FALSE, 100);
  check_matmul ((gint64[]) { 2, 3 }, 2, FALSE, (gint64[]) { 3 }, 1, FALSE, 102);
  check_matmul ((gint64[]) { 2, 3 }, 2, TRUE, (gint64[]) { 3 }, 1, FALSE, 104);
  check_matmul ((gint64[]) { 3 }, 1, FALSE, (gint64[]) { 3, 4 }, 2, TRUE, 106);
  check_matmul ((gint64[]) { 2, 3 }, 2, FALSE, (gint64[]) { 3, 4 }, 2, FALSE, 108);
  check_matmul ((gint64[]) { 2, 3 }, 2, TRUE, (gint64[]) { 3, 4 }, 2, TRUE, 110);
  check_matmul ((gint64[]) { 2, 3, 4 }, 3, FALSE, (gint64[]) { 4, 2 }, 2, FALSE, 112);
  check_matmul ((gint64[]) { 2, 3, 4 }, 3, TRUE, (gint64[]) { 4, 2 }, 2, FALSE, 114);
  check_matmul ((gint64[]) { 5, 3 }, 2, FALSE, (gint64[]) { 2, 3, 4 }, 3, FALSE, 116);
  check_matmul ((gint64[]) { 2, 3, 4 }, 3, FALSE, (gint64[]) { 4 }, 1, FALSE, 118);
  check_matmul ((gint64[]) { 3 }, 1, FALSE, (gint64[]) { 2, 3, 4 }, 3, TRUE, 120);
  check_matmul ((gint64[]) { 2, 3, 4 }, 3, FALSE, (gint64[]) { 2, 4, 2 }, 3, FALSE, 122);
  /* Broadcast batches: (3, 1, 2, 3) @ (5, 3, 4) -> (3, 5, 2, 4) */
  check_matmul ((gint64[]) { 3, 1, 2, 3 }, 4, FALSE, (gint64[]) { 5, 3, 4 }, 3, FALSE, 124);
  check_matmul ((gint64[]) { 1, 2, 2 }, 3, TRUE, (gint64[]) { 3, 2, 2 }, 3, FALSE, 126);
}

static void
test_gradcheck_products (void)
{
  g_autoptr(CrTensor) a = cr_gradcheck_rand_transposed ((gint64[]) { 3, 4 }, 2, -1, 1, 200);
  g_autoptr(CrTensor) b = cr_gradcheck_rand ((gint64[]) { 4, 2 }, 2, -1, 1, 201);
  g_autoptr(CrTensor) v = cr_gradcheck_rand ((gint64[]) { 4 }, 1, -1, 1, 202);
  g_autoptr(CrTensor) u = cr_gradcheck_rand ((gint64[]) { 4 }, 1, -1, 1, 203);
  g_autoptr(CrTensor) ba = cr_gradcheck_rand_transposed ((gint64[]) { 2, 3, 4 }, 3, -1, 1, 204);
  g_autoptr(CrTensor) bb = cr_gradcheck_rand ((gint64[]) { 2, 4, 2 }, 3, -1, 1, 205);

  g_assert_true (cr_gradcheck (matmul_func, GINT_TO_POINTER (1), (CrTensor *[]) { a, b }, 2));
  g_assert_true (cr_gradcheck (matmul_func, GINT_TO_POINTER (2), (CrTensor *[]) { a, v }, 2));
  g_assert_true (cr_gradcheck (matmul_func, GINT_TO_POINTER (3), (CrTensor *[]) { u, v }, 2));
  g_assert_true (cr_gradcheck (matmul_func, GINT_TO_POINTER (4), (CrTensor *[]) { ba, bb }, 2));

  /* Second derivatives (create_graph through transposed views). */
  g_assert_true (cr_gradgradcheck (matmul_func, GINT_TO_POINTER (1), (CrTensor *[]) { a, b }, 2));
  g_assert_true (cr_gradgradcheck (matmul_func, GINT_TO_POINTER (2), (CrTensor *[]) { a, v }, 2));
  g_assert_true (cr_gradgradcheck (matmul_func, GINT_TO_POINTER (3), (CrTensor *[]) { u, v }, 2));
  g_assert_true (cr_gradgradcheck (matmul_func, GINT_TO_POINTER (4), (CrTensor *[]) { ba, bb }, 2));
  g_assert_true (cr_gradgradcheck (matmul_func, GINT_TO_POINTER (0), (CrTensor *[]) { u, b }, 2));
}

static CrTensor *
addmm_func (CrTensor *const *inputs,
            guint            n_inputs,
            gpointer         user_data,
            GError         **error)
{
  return cr_addmm (inputs[0], inputs[1], inputs[2], error);
}

/* torch.addmm (nn.Linear): a bias of (m,), (1, m), (n, m) and a 0-d one,
 * first and second derivatives, and the grad_fn PyTorch names. */
static void
test_gradcheck_addmm (void)
{
  g_autoptr(CrTensor) a = cr_gradcheck_rand ((gint64[]) { 3, 4 }, 2, -1, 1, 300);
  g_autoptr(CrTensor) bt = cr_gradcheck_rand_transposed ((gint64[]) { 4, 2 }, 2, -1, 1, 301);
  CrTensor *biases[] = {
    cr_gradcheck_rand ((gint64[]) { 2 }, 1, -1, 1, 302),
    cr_gradcheck_rand ((gint64[]) { 1, 2 }, 2, -1, 1, 303),
    cr_gradcheck_rand ((gint64[]) { 3, 2 }, 2, -1, 1, 304),
    cr_gradcheck_rand (NULL, 0, -1, 1, 305),
  };
  g_autoptr(GError) error = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (biases); i++)
    {
      CrTensor *inputs[3] = { biases[i], a, bt };
      g_assert_true (cr_gradcheck (addmm_func, NULL, inputs, 3));
      g_assert_true (cr_gradgradcheck (addmm_func, NULL, inputs, 3));
    }
  {
    g_autoptr(CrTensor) out = cr_addmm (biases[0], a, bt, &error);
    g_assert_no_error (error);
    g_assert_cmpstr (cr_node_name (out->grad_fn), ==, "AddmmBackward0");
    cr_test_assert_shape (out, (gint64[]) { 3, 2 }, 2);
  }
  g_assert_null (cr_addmm (a, a, bt, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR,
                        "The expanded size of the tensor (2) must match the existing size (4) at "
                        "non-singleton dimension 1.  Target sizes: [3, 2].  Tensor sizes: [3, 4]");
  for (guint i = 0; i < G_N_ELEMENTS (biases); i++)
    cr_tensor_unref (biases[i]);
}

typedef CrTensor *(*ScaledProduct) (CrTensor *self, CrTensor *a, CrTensor *b, double beta,
                                    double alpha, GError **error);

static const struct {
  ScaledProduct func;
  gint64        shapes[3][3];
  int           ndims[3];
} scaled_product_cases[] = {
  { cr_addmv, { { 1 }, { 3, 4 }, { 4 } }, { 1, 2, 1 } },
  { cr_addr, { { 4 }, { 3 }, { 4 } }, { 1, 1, 1 } },
  { cr_baddbmm, { { 3, 5 }, { 2, 3, 4 }, { 2, 4, 5 } }, { 2, 3, 3 } },
  { cr_addbmm, { { 5 }, { 2, 3, 4 }, { 2, 4, 5 } }, { 1, 3, 3 } },
};

static CrTensor *
scaled_product_func (CrTensor *const *inputs,
                     guint            n_inputs,
                     gpointer         user_data,
                     GError         **error)
{
  ScaledProduct func = scaled_product_cases[GPOINTER_TO_UINT (user_data)].func;

  return func (inputs[0], inputs[1], inputs[2], 0.5, 2.0, error);
}

/* addmv, addr, baddbmm and addbmm with beta and alpha, self broadcast:
 * first and second derivatives. */
static void
test_gradcheck_scaled_products (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (scaled_product_cases); i++)
    {
      CrTensor *inputs[3];

      for (int j = 0; j < 3; j++)
        inputs[j] = cr_gradcheck_rand (scaled_product_cases[i].shapes[j],
                                       scaled_product_cases[i].ndims[j], -1, 1, 400 + 3 * i + j);
      g_test_message ("case %u", i);
      g_assert_true (cr_gradcheck (scaled_product_func, GUINT_TO_POINTER (i), inputs, 3));
      g_assert_true (cr_gradgradcheck (scaled_product_func, GUINT_TO_POINTER (i), inputs, 3));
      for (int j = 0; j < 3; j++)
        cr_tensor_unref (inputs[j]);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/ops/linalg/products", test_products);
  g_test_add_func ("/ops/linalg/batched-values", test_batched_values);
  g_test_add_func ("/ops/linalg/matmul-chains", test_matmul_chains);
  g_test_add_func ("/ops/linalg/errors", test_errors);
  g_test_add_func ("/ops/linalg/integer-mm", test_integer_mm);
  g_test_add_func ("/ops/linalg/mm-saves-needed-only", test_mm_saves_needed_only);
  g_test_add_func ("/ops/linalg/gradcheck-matmul", test_gradcheck_matmul);
  g_test_add_func ("/ops/linalg/gradcheck-products", test_gradcheck_products);
  g_test_add_func ("/ops/linalg/gradcheck-scaled-products", test_gradcheck_scaled_products);
  g_test_add_func ("/ops/linalg/gradcheck-addmm", test_gradcheck_addmm);

  return g_test_run ();
}
