/* test-ops-shape.c — transposes, views, reshapes, squeezes, expand, cat, stack:
 * values and geometry, storage sharing, grad_fn names as PyTorch 1.13 prints
 * them, its error texts, and finite-difference gradients (float64). */
#include "cr-ops.h"
#include "cr-node.h"
#include "cr-engine.h"
#include "cr-error.h"
#include "gradcheck.h"
#include "test-util.h"

/* ---- helpers ------------------------------------------------------------- */

static CrTensor *
make (const double *values,
      const gint64 *shape,
      int           ndim,
      gboolean      requires_grad)
{
  return cr_gradcheck_tensor (values, shape, ndim, requires_grad);
}

/* M = [[1, 2, 3], [4, 5, 6]] requiring grad (float64). */
static CrTensor *
make_m (void)
{
  static const double v[] = { 1, 2, 3, 4, 5, 6 };
  static const gint64 shape[] = { 2, 3 };
  return make (v, shape, 2, TRUE);
}

static void
assert_strides (const CrTensor *t,
                const gint64   *strides)
{
  for (int d = 0; d < t->ndim; d++)
    g_assert_cmpint (t->strides[d], ==, strides[d]);
}

static gboolean
same_storage (const CrTensor *a,
              const CrTensor *b)
{
  return a->storage == b->storage;
}

/* ---- t, .T, transpose, permute ------------------------------------------- */

static void
test_t (void)
{
  g_autoptr(CrTensor) m = make_m ();
  g_autoptr(CrTensor) t = NULL;
  g_autoptr(CrTensor) x3 = NULL;
  g_autoptr(GError) error = NULL;
  static const double tv[] = { 1, 4, 2, 5, 3, 6 };
  static const gint64 shape[] = { 3, 2 }, strides[] = { 1, 3 };
  static const gint64 s3[] = { 2, 3, 4 };

  t = cr_t (m, &error);
  g_assert_no_error (error);
  cr_test_assert_shape (t, shape, 2);
  assert_strides (t, strides);
  cr_test_assert_values (t, tv, 6);
  g_assert_true (same_storage (t, m));
  g_assert_true (t->view_base == m);
  g_assert_cmpstr (cr_test_fn_name (t), ==, "TBackward0");
  g_assert_cmpstr (cr_test_next_name (t->grad_fn, 0), ==, "AccumulateGrad");

  /* A view of a view still points at the tensor owning the memory. */
  {
    g_autoptr(CrTensor) tt = cr_t (t, &error);
    g_assert_no_error (error);
    g_assert_true (tt->view_base == m);
    g_assert_cmpstr (cr_test_next_name (tt->grad_fn, 0), ==, "TBackward0");
  }

  x3 = cr_tensor_new_zeros (s3, 3, CR_DTYPE_FLOAT32, CR_DEVICE_CPU, NULL);
  g_assert_null (cr_t (x3, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR,
                "t() expects a tensor with <= 2 dimensions, but self is 3D");
}

static void
test_mT_permute (void)
{
  g_autoptr(CrTensor) m = make_m ();
  g_autoptr(CrTensor) x = cr_gradcheck_rand ((gint64[]) { 2, 3, 4 }, 3, -1, 1, 7);
  g_autoptr(CrTensor) T = NULL;
  g_autoptr(CrTensor) T3 = NULL;
  g_autoptr(CrTensor) p = NULL;
  g_autoptr(CrTensor) tr = NULL;
  g_autoptr(GError) error = NULL;
  static const gint64 rev[] = { 4, 3, 2 }, rev_strides[] = { 1, 4, 12 };

  T = cr_mT (m, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (cr_test_fn_name (T), ==, "PermuteBackward0");
  g_assert_true (same_storage (T, m));

  T3 = cr_mT (x, &error);
  g_assert_no_error (error);
  cr_test_assert_shape (T3, rev, 3);
  assert_strides (T3, rev_strides);

  p = cr_permute (x, (int[]) { 1, -1, 0 }, 3, &error);
  g_assert_no_error (error);
  cr_test_assert_shape (p, (gint64[]) { 3, 4, 2 }, 3);
  assert_strides (p, (gint64[]) { 4, 1, 12 });
  g_assert_cmpstr (cr_test_fn_name (p), ==, "PermuteBackward0");
  g_assert_cmpfloat (cr_tensor_get_flat (p, 1 * 8 + 2 * 2 + 1),
                     ==, cr_tensor_get_flat (x, 1 * 12 + 1 * 4 + 2));

  tr = cr_transpose (x, 0, -1, &error);
  g_assert_no_error (error);
  cr_test_assert_shape (tr, (gint64[]) { 4, 3, 2 }, 3);
  g_assert_cmpstr (cr_test_fn_name (tr), ==, "TransposeBackward0");

  g_assert_null (cr_permute (m, (int[]) { 0 }, 1, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR,
                "permute(sparse_coo): number of dimensions in the tensor input does not match "
                "the length of the desired ordering of dimensions i.e. input.dim() = 2 is not "
                "equal to len(dims) = 1");
  g_clear_error (&error);
  g_assert_null (cr_permute (m, (int[]) { 0, 0 }, 2, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR, "permute(): duplicate dims are not allowed.");
  g_clear_error (&error);
  g_assert_null (cr_transpose (m, 0, 2, &error));
  cr_test_assert_error (error, CR_EXC_INDEX_ERROR,
                "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  g_clear_error (&error);
  g_assert_null (cr_transpose (m, -3, 0, &error));
  cr_test_assert_error (error, CR_EXC_INDEX_ERROR,
                "Dimension out of range (expected to be in range of [-2, 1], but got -3)");
}

/* ---- view, reshape, flatten ------------------------------------------------ */

static void
test_view (void)
{
  g_autoptr(CrTensor) m = make_m ();
  g_autoptr(CrTensor) v = NULL;
  g_autoptr(CrTensor) t = NULL;
  g_autoptr(CrTensor) flat = NULL;
  g_autoptr(GError) error = NULL;
  static const double mv[] = { 1, 2, 3, 4, 5, 6 };

  v = cr_view (m, (gint64[]) { 3, -1 }, 2, &error);
  g_assert_no_error (error);
  cr_test_assert_shape (v, (gint64[]) { 3, 2 }, 2);
  cr_test_assert_values (v, mv, 6);
  g_assert_true (same_storage (v, m));
  g_assert_true (v->view_base == m);
  g_assert_cmpstr (cr_test_fn_name (v), ==, "ViewBackward0");

  /* A transposed view can be viewed only where its strides allow it. */
  t = cr_t (m, NULL);
  flat = cr_view (t, (gint64[]) { 3, 2, 1 }, 3, &error);
  g_assert_no_error (error);
  assert_strides (flat, (gint64[]) { 1, 3, 3 });
  g_clear_pointer (&flat, cr_tensor_unref);

  g_assert_null (cr_view (t, (gint64[]) { 6 }, 1, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR,
                "view size is not compatible with input tensor's size and stride (at least one "
                "dimension spans across two contiguous subspaces). Use .reshape(...) instead.");
  g_clear_error (&error);
  g_assert_null (cr_view (m, (gint64[]) { 4, 4 }, 2, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR, "shape '[4, 4]' is invalid for input of size 6");
  g_clear_error (&error);
  g_assert_null (cr_view (m, (gint64[]) { -1, -1 }, 2, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR, "only one dimension can be inferred");
  g_clear_error (&error);
  g_assert_null (cr_view (m, (gint64[]) { -1, 4 }, 2, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR, "shape '[-1, 4]' is invalid for input of size 6");
  g_clear_error (&error);
  g_assert_null (cr_reshape (m, (gint64[]) { -2, 3 }, 2, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR, "invalid shape dimension -2");
}

static void
test_reshape (void)
{
  g_autoptr(CrTensor) m = make_m ();
  g_autoptr(CrTensor) r = NULL;
  g_autoptr(CrTensor) t = NULL;
  g_autoptr(CrTensor) tr = NULL;
  g_autoptr(CrTensor) same = NULL;
  g_autoptr(GError) error = NULL;
  static const double tv[] = { 1, 4, 2, 5, 3, 6 };

  r = cr_reshape (m, (gint64[]) { 6 }, 1, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (cr_test_fn_name (r), ==, "ReshapeAliasBackward0");
  g_assert_true (same_storage (r, m));
  g_assert_true (r->view_base == m);

  /* Not viewable: a copy (CloneBackward0) under _unsafe_view. */
  t = cr_t (m, NULL);
  tr = cr_reshape (t, (gint64[]) { 6 }, 1, &error);
  g_assert_no_error (error);
  cr_test_assert_values (tr, tv, 6);
  g_assert_false (same_storage (tr, m));
  g_assert_cmpstr (cr_test_fn_name (tr), ==, "UnsafeViewBackward0");
  g_assert_cmpstr (cr_test_next_name (tr->grad_fn, 0), ==, "CloneBackward0");
  g_assert_null (tr->view_base);

  /* Same shape: still an alias, keeping the strides (torch: is_contiguous False). */
  same = cr_reshape (t, (gint64[]) { 3, 2 }, 2, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (cr_test_fn_name (same), ==, "ReshapeAliasBackward0");
  g_assert_cmpstr (cr_test_next_name (same->grad_fn, 0), ==, "TBackward0");
  g_assert_false (cr_tensor_is_contiguous (same));

  g_assert_null (cr_reshape (m, (gint64[]) { 4, 4 }, 2, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR, "shape '[4, 4]' is invalid for input of size 6");
}

static void
test_flatten (void)
{
  g_autoptr(CrTensor) m = make_m ();
  g_autoptr(CrTensor) f = NULL;
  g_autoptr(CrTensor) f1 = NULL;
  g_autoptr(CrTensor) s = cr_gradcheck_tensor ((double[]) { 2.0 }, NULL, 0, TRUE);
  g_autoptr(CrTensor) fs = NULL;
  g_autoptr(GError) error = NULL;

  f = cr_flatten (m, 0, -1, &error);
  g_assert_no_error (error);
  cr_test_assert_shape (f, (gint64[]) { 6 }, 1);
  g_assert_cmpstr (cr_test_fn_name (f), ==, "ReshapeAliasBackward0");

  /* start == end gives the tensor itself (torch: grad_fn None for a leaf). */
  f1 = cr_flatten (m, 1, 1, &error);
  g_assert_no_error (error);
  g_assert_true (f1 == m);

  fs = cr_flatten (s, 0, -1, &error);
  g_assert_no_error (error);
  cr_test_assert_shape (fs, (gint64[]) { 1 }, 1);
  g_assert_cmpstr (cr_test_fn_name (fs), ==, "ReshapeAliasBackward0");

  g_assert_null (cr_flatten (m, 1, 0, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR,
                "flatten() has invalid args: start_dim cannot come after end_dim");
}

static void
test_squeeze (void)
{
  g_autoptr(CrTensor) x = cr_gradcheck_rand ((gint64[]) { 2, 1, 3 }, 3, -1, 1, 3);
  g_autoptr(CrTensor) s = cr_gradcheck_tensor ((double[]) { 2.0 }, NULL, 0, TRUE);
  g_autoptr(CrTensor) u = NULL;
  g_autoptr(CrTensor) q = NULL;
  g_autoptr(CrTensor) q1 = NULL;
  g_autoptr(CrTensor) q2 = NULL;
  g_autoptr(CrTensor) us = NULL;
  g_autoptr(CrTensor) m = make_m ();
  g_autoptr(CrTensor) t = cr_t (m, NULL);
  g_autoptr(CrTensor) ut = NULL;
  g_autoptr(GError) error = NULL;

  u = cr_unsqueeze (x, 3, &error);
  g_assert_no_error (error);
  cr_test_assert_shape (u, (gint64[]) { 2, 1, 3, 1 }, 4);
  assert_strides (u, (gint64[]) { 3, 3, 1, 1 });
  g_assert_cmpstr (cr_test_fn_name (u), ==, "UnsqueezeBackward0");
  g_assert_true (same_storage (u, x));

  /* torch: randn(2,3).t().unsqueeze(1).stride() == (1, 6, 3) */
  ut = cr_unsqueeze (t, 1, &error);
  g_assert_no_error (error);
  assert_strides (ut, (gint64[]) { 1, 6, 3 });

  q = cr_squeeze (x, &error);
  g_assert_no_error (error);
  cr_test_assert_shape (q, (gint64[]) { 2, 3 }, 2);
  g_assert_cmpstr (cr_test_fn_name (q), ==, "SqueezeBackward0");

  q1 = cr_squeeze_dim (x, -2, &error);
  g_assert_no_error (error);
  cr_test_assert_shape (q1, (gint64[]) { 2, 3 }, 2);
  g_assert_cmpstr (cr_test_fn_name (q1), ==, "SqueezeBackward1");

  /* A dim that is not 1 is kept, still a SqueezeBackward1 view. */
  q2 = cr_squeeze_dim (x, 0, &error);
  g_assert_no_error (error);
  cr_test_assert_shape (q2, (gint64[]) { 2, 1, 3 }, 3);
  g_assert_cmpstr (cr_test_fn_name (q2), ==, "SqueezeBackward1");

  us = cr_unsqueeze (s, -1, &error);
  g_assert_no_error (error);
  cr_test_assert_shape (us, (gint64[]) { 1 }, 1);

  g_assert_null (cr_squeeze_dim (s, 1, &error));
  cr_test_assert_error (error, CR_EXC_INDEX_ERROR,
                "Dimension out of range (expected to be in range of [-1, 0], but got 1)");
  g_clear_error (&error);
  g_assert_null (cr_unsqueeze (x, 4, &error));
  cr_test_assert_error (error, CR_EXC_INDEX_ERROR,
                "Dimension out of range (expected to be in range of [-4, 3], but got 4)");
}

static void
test_expand (void)
{
  g_autoptr(CrTensor) v = cr_gradcheck_tensor ((double[]) { 1, 2, 3 }, (gint64[]) { 3 }, 1, TRUE);
  g_autoptr(CrTensor) m = make_m ();
  g_autoptr(CrTensor) e = NULL;
  g_autoptr(CrTensor) same = NULL;
  g_autoptr(GError) error = NULL;
  static const double ev[] = { 1, 2, 3, 1, 2, 3 };

  e = cr_expand (v, (gint64[]) { 2, -1 }, 2, &error);
  g_assert_no_error (error);
  cr_test_assert_shape (e, (gint64[]) { 2, 3 }, 2);
  assert_strides (e, (gint64[]) { 0, 1 });
  cr_test_assert_values (e, ev, 6);
  g_assert_true (same_storage (e, v));
  g_assert_cmpstr (cr_test_fn_name (e), ==, "ExpandBackward0");

  /* Expanding to the same shape is still recorded. */
  same = cr_expand (m, (gint64[]) { 2, 3 }, 2, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (cr_test_fn_name (same), ==, "ExpandBackward0");

  g_assert_null (cr_expand (v, (gint64[]) { 2, 4 }, 2, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR,
                "The expanded size of the tensor (4) must match the existing size (3) at "
                "non-singleton dimension 1.  Target sizes: [2, 4].  Tensor sizes: [3]");
  g_clear_error (&error);
  g_assert_null (cr_expand (m, (gint64[]) { 3 }, 1, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR,
                "expand(torch.DoubleTensor{[2, 3]}, size=[3]): the number of sizes provided (1) "
                "must be greater or equal to the number of dimensions in the tensor (2)");
  g_clear_error (&error);
  g_assert_null (cr_expand (v, (gint64[]) { -1, 3 }, 2, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR,
                "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing "
                "dimension 0");
}

static void
test_contiguous (void)
{
  g_autoptr(CrTensor) m = make_m ();
  g_autoptr(CrTensor) c = NULL;
  g_autoptr(CrTensor) t = cr_t (m, NULL);
  g_autoptr(CrTensor) tc = NULL;
  g_autoptr(GError) error = NULL;
  static const double tv[] = { 1, 4, 2, 5, 3, 6 };

  c = cr_contiguous (m, &error);
  g_assert_true (c == m);
  tc = cr_contiguous (t, &error);
  g_assert_no_error (error);
  g_assert_true (cr_tensor_is_contiguous (tc));
  cr_test_assert_values (tc, tv, 6);
  g_assert_cmpstr (cr_test_fn_name (tc), ==, "CloneBackward0");
}

/* ---- cat, stack ------------------------------------------------------------- */

static void
test_cat (void)
{
  g_autoptr(CrTensor) m = make_m ();
  g_autoptr(CrTensor) b = cr_gradcheck_tensor ((double[]) { 7, 8 }, (gint64[]) { 2, 1 }, 2, FALSE);
  g_autoptr(CrTensor) c = NULL;
  g_autoptr(CrTensor) c0 = NULL;
  g_autoptr(CrTensor) empty = cr_tensor_new_zeros ((gint64[]) { 0 }, 1, CR_DTYPE_FLOAT64,
                                                   CR_DEVICE_CPU, NULL);
  g_autoptr(CrTensor) wrong = cr_tensor_new_zeros ((gint64[]) { 3, 3 }, 2, CR_DTYPE_FLOAT64,
                                                   CR_DEVICE_CPU, NULL);
  g_autoptr(CrTensor) s = cr_tensor_new_scalar (1.0, CR_DTYPE_FLOAT32);
  g_autoptr(GError) error = NULL;
  static const double cv[] = { 1, 2, 3, 7, 4, 5, 6, 8 };

  c = cr_cat ((CrTensor *[]) { m, b }, 2, -1, &error);
  g_assert_no_error (error);
  cr_test_assert_shape (c, (gint64[]) { 2, 4 }, 2);
  cr_test_assert_values (c, cv, 8);
  g_assert_cmpstr (cr_test_fn_name (c), ==, "CatBackward0");
  g_assert_cmpstr (cr_test_next_name (c->grad_fn, 0), ==, "AccumulateGrad");
  g_assert_cmpstr (cr_test_next_name (c->grad_fn, 1), ==, "None");

  /* A 1-d empty tensor is skipped (legacy), but keeps its edge. */
  c0 = cr_cat ((CrTensor *[]) { empty, m }, 2, 0, &error);
  g_assert_no_error (error);
  cr_test_assert_shape (c0, (gint64[]) { 2, 3 }, 2);
  g_assert_cmpuint (c0->grad_fn->n_inputs, ==, 2);

  g_assert_null (cr_cat ((CrTensor *[]) { m, wrong }, 2, 1, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR,
                "Sizes of tensors must match except in dimension 1. Expected size 2 but got "
                "size 3 for tensor number 1 in the list.");
  g_clear_error (&error);
  g_assert_null (cr_cat (NULL, 0, 0, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR, "torch.cat(): expected a non-empty list of Tensors");
  g_clear_error (&error);
  g_assert_null (cr_cat ((CrTensor *[]) { m, m }, 2, 2, &error));
  cr_test_assert_error (error, CR_EXC_INDEX_ERROR,
                "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  g_clear_error (&error);
  g_assert_null (cr_cat ((CrTensor *[]) { s, s }, 2, 0, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR,
                "zero-dimensional tensor (at position 0) cannot be concatenated");
}

static void
test_stack (void)
{
  g_autoptr(CrTensor) m = make_m ();
  g_autoptr(CrTensor) n = cr_gradcheck_tensor ((double[]) { 7, 8, 9, 10, 11, 12 },
                                               (gint64[]) { 2, 3 }, 2, FALSE);
  g_autoptr(CrTensor) wrong = cr_tensor_new_zeros ((gint64[]) { 3, 2 }, 2, CR_DTYPE_FLOAT64,
                                                   CR_DEVICE_CPU, NULL);
  g_autoptr(CrTensor) s = NULL;
  g_autoptr(CrTensor) a = cr_tensor_new_scalar (1.0, CR_DTYPE_FLOAT32);
  g_autoptr(CrTensor) b = cr_tensor_new_scalar (2.0, CR_DTYPE_FLOAT32);
  g_autoptr(CrTensor) ab = NULL;
  g_autoptr(GError) error = NULL;
  static const double sv[] = { 1, 7, 2, 8, 3, 9, 4, 10, 5, 11, 6, 12 };

  s = cr_stack ((CrTensor *[]) { m, n }, 2, 2, &error);
  g_assert_no_error (error);
  cr_test_assert_shape (s, (gint64[]) { 2, 3, 2 }, 3);
  cr_test_assert_values (s, sv, 12);
  g_assert_cmpstr (cr_test_fn_name (s), ==, "StackBackward0");
  g_assert_cmpstr (cr_test_next_name (s->grad_fn, 0), ==, "AccumulateGrad");

  ab = cr_stack ((CrTensor *[]) { a, b }, 2, -1, &error);
  g_assert_no_error (error);
  cr_test_assert_values (ab, (double[]) { 1, 2 }, 2);

  g_assert_null (cr_stack ((CrTensor *[]) { m, wrong }, 2, 0, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR,
                "stack expects each tensor to be equal size, but got [2, 3] at entry 0 and "
                "[3, 2] at entry 1");
  g_clear_error (&error);
  g_assert_null (cr_stack (NULL, 0, 0, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR, "stack expects a non-empty TensorList");
  g_clear_error (&error);
  g_assert_null (cr_stack ((CrTensor *[]) { m, m }, 2, 3, &error));
  cr_test_assert_error (error, CR_EXC_INDEX_ERROR,
                "Dimension out of range (expected to be in range of [-3, 2], but got 3)");
}

/* ---- gradients ---------------------------------------------------------------- */

/* The grad_fn_shape conformance case: M.t().reshape(6) gets the gradient back
 * through UnsafeView, Clone and T. */
static void
test_backward_through_views (void)
{
  g_autoptr(CrTensor) m = make_m ();
  g_autoptr(CrTensor) t = cr_t (m, NULL);
  g_autoptr(CrTensor) r = cr_reshape (t, (gint64[]) { 6 }, 1, NULL);
  g_autoptr(CrTensor) w = cr_gradcheck_tensor ((double[]) { 1, 2, 3, 4, 5, 6 },
                                               (gint64[]) { 6 }, 1, FALSE);
  g_autoptr(CrTensor) p = cr_mul (r, w, NULL);
  g_autoptr(CrTensor) s = cr_sum (p, NULL);
  g_autoptr(GError) error = NULL;
  /* torch: M.grad after (M.t().reshape(6) * arange(1, 7)).sum().backward() */
  static const double expected[] = { 1, 3, 5, 2, 4, 6 };

  g_assert_true (cr_tensor_backward (s, NULL, FALSE, FALSE, NULL, NULL, &error));
  g_assert_no_error (error);
  g_assert_nonnull (m->grad);
  cr_test_assert_values (m->grad, expected, 6);
}

typedef enum {
  F_T, F_MT, F_TRANSPOSE, F_PERMUTE, F_VIEW_OF_VIEWS, F_RESHAPE_COPY, F_FLATTEN,
  F_SQUEEZE, F_UNSQUEEZE, F_EXPAND, F_CAT, F_STACK, F_CONTIGUOUS,
} ShapeFunc;

static CrTensor *
shape_func (CrTensor *const *in,
            guint            n,
            gpointer         user_data,
            GError         **error)
{
  CrTensor *x = in[0];

  (void) n;
  switch (GPOINTER_TO_INT (user_data))
    {
    case F_T:
      return cr_t (x, error);
    case F_MT:
      return cr_mT (x, error);
    case F_TRANSPOSE:
      return cr_transpose (x, 0, 2, error);
    case F_PERMUTE:
      return cr_permute (x, (int[]) { 2, 0, 1 }, 3, error);
    case F_VIEW_OF_VIEWS:
      {
        /* x (2,3,4) -> permute -> slice-free view chain: view(6,4) of a
         * transposed-back tensor, then t, then unsqueeze. */
        g_autoptr(CrTensor) a = cr_view (x, (gint64[]) { 6, 4 }, 2, error);
        g_autoptr(CrTensor) b = a ? cr_t (a, error) : NULL;
        g_autoptr(CrTensor) c = b ? cr_unsqueeze (b, 0, error) : NULL;
        return c ? cr_view (c, (gint64[]) { 4, 3, 2 }, 3, error) : NULL;
      }
    case F_RESHAPE_COPY:
      {
        g_autoptr(CrTensor) p = cr_permute (x, (int[]) { 1, 0, 2 }, 3, error);
        return p ? cr_reshape (p, (gint64[]) { 6, 4 }, 2, error) : NULL;
      }
    case F_FLATTEN:
      return cr_flatten (x, 1, 2, error);
    case F_SQUEEZE:
      {
        g_autoptr(CrTensor) u = cr_unsqueeze (x, 1, error);
        g_autoptr(CrTensor) s = u ? cr_squeeze (u, error) : NULL;
        return s ? cr_squeeze_dim (s, 0, error) : NULL;
      }
    case F_UNSQUEEZE:
      return cr_unsqueeze (x, -1, error);
    case F_EXPAND:
      {
        g_autoptr(CrTensor) v = cr_view (x, (gint64[]) { 2, 1, 3, 4 }, 4, error);
        return v ? cr_expand (v, (gint64[]) { 5, 2, 3, 3, 4 }, 5, error) : NULL;
      }
    case F_CAT:
      {
        g_autoptr(CrTensor) t = cr_transpose (x, 0, 1, error);
        return t ? cr_cat ((CrTensor *[]) { in[1], t, in[1] }, 3, 1, error) : NULL;
      }
    case F_STACK:
      {
        g_autoptr(CrTensor) t = cr_transpose (x, 1, 2, error);
        g_autoptr(CrTensor) v = t ? cr_reshape (in[1], (gint64[]) { 2, 4, 3 }, 3, error) : NULL;
        return v ? cr_stack ((CrTensor *[]) { t, v }, 2, 1, error) : NULL;
      }
    case F_CONTIGUOUS:
      {
        g_autoptr(CrTensor) t = cr_transpose (x, 0, 1, error);
        return t ? cr_contiguous (t, error) : NULL;
      }
    default:
      g_assert_not_reached ();
    }
}

static void
test_gradcheck (void)
{
  g_autoptr(CrTensor) m = cr_gradcheck_rand ((gint64[]) { 2, 3 }, 2, -1, 1, 11);
  g_autoptr(CrTensor) mt = cr_gradcheck_rand_transposed ((gint64[]) { 2, 3 }, 2, -1, 1, 12);
  g_autoptr(CrTensor) x = cr_gradcheck_rand ((gint64[]) { 2, 3, 4 }, 3, -1, 1, 13);
  g_autoptr(CrTensor) xt = cr_gradcheck_rand_transposed ((gint64[]) { 2, 3, 4 }, 3, -1, 1, 14);
  g_autoptr(CrTensor) y = cr_gradcheck_rand ((gint64[]) { 3, 2, 4 }, 3, -1, 1, 15);
  g_autoptr(CrTensor) z = cr_gradcheck_rand ((gint64[]) { 2, 3, 4 }, 3, -1, 1, 16);

  g_assert_true (cr_gradcheck (shape_func, GINT_TO_POINTER (F_T), &m, 1));
  g_assert_true (cr_gradcheck (shape_func, GINT_TO_POINTER (F_T), &mt, 1));
  g_assert_true (cr_gradcheck (shape_func, GINT_TO_POINTER (F_MT), &x, 1));
  g_assert_true (cr_gradcheck (shape_func, GINT_TO_POINTER (F_TRANSPOSE), &xt, 1));
  g_assert_true (cr_gradcheck (shape_func, GINT_TO_POINTER (F_PERMUTE), &x, 1));
  g_assert_true (cr_gradcheck (shape_func, GINT_TO_POINTER (F_VIEW_OF_VIEWS), &x, 1));
  g_assert_true (cr_gradcheck (shape_func, GINT_TO_POINTER (F_RESHAPE_COPY), &x, 1));
  g_assert_true (cr_gradcheck (shape_func, GINT_TO_POINTER (F_RESHAPE_COPY), &xt, 1));
  g_assert_true (cr_gradcheck (shape_func, GINT_TO_POINTER (F_FLATTEN), &xt, 1));
  g_assert_true (cr_gradcheck (shape_func, GINT_TO_POINTER (F_SQUEEZE), &x, 1));
  g_assert_true (cr_gradcheck (shape_func, GINT_TO_POINTER (F_UNSQUEEZE), &xt, 1));
  g_assert_true (cr_gradcheck (shape_func, GINT_TO_POINTER (F_EXPAND), &x, 1));
  g_assert_true (cr_gradcheck (shape_func, GINT_TO_POINTER (F_CAT), (CrTensor *[]) { x, y }, 2));
  g_assert_true (cr_gradcheck (shape_func, GINT_TO_POINTER (F_STACK), (CrTensor *[]) { xt, z }, 2));
  g_assert_true (cr_gradcheck (shape_func, GINT_TO_POINTER (F_CONTIGUOUS), &x, 1));

  /* Second derivatives go through the same ops. */
  g_assert_true (cr_gradgradcheck (shape_func, GINT_TO_POINTER (F_EXPAND), &x, 1));
  g_assert_true (cr_gradgradcheck (shape_func, GINT_TO_POINTER (F_CAT), (CrTensor *[]) { x, y }, 2));
  g_assert_true (cr_gradgradcheck (shape_func, GINT_TO_POINTER (F_RESHAPE_COPY), &xt, 1));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/ops/shape/t", test_t);
  g_test_add_func ("/ops/shape/mT-permute-transpose", test_mT_permute);
  g_test_add_func ("/ops/shape/view", test_view);
  g_test_add_func ("/ops/shape/reshape", test_reshape);
  g_test_add_func ("/ops/shape/flatten", test_flatten);
  g_test_add_func ("/ops/shape/squeeze", test_squeeze);
  g_test_add_func ("/ops/shape/expand", test_expand);
  g_test_add_func ("/ops/shape/contiguous", test_contiguous);
  g_test_add_func ("/ops/shape/cat", test_cat);
  g_test_add_func ("/ops/shape/stack", test_stack);
  g_test_add_func ("/ops/shape/backward-through-views", test_backward_through_views);
  g_test_add_func ("/ops/shape/gradcheck", test_gradcheck);

  return g_test_run ();
}
