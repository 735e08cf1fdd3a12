/* test-ops-index.c — x[...] and x[...] = v against PyTorch 1.13: basic
 * indexing views, advanced (tensor and mask) indexing with NumPy's placement
 * rule and PyTorch's deviations from it, setitem's grad_fns (CopySlices,
 * IndexPutBackward0, AsStridedBackward0 on a view written through), leaf
 * rules, error texts, and finite-difference gradients (float64). */
#include "cr-ops.h"
#include "cr-node.h"
#include "cr-engine.h"
#include "cr-error.h"
#include "cr-grad-mode.h"
#include "gradcheck.h"
#include "test-util.h"

/* ---- helpers ------------------------------------------------------------- */

static CrTensor *
arange_x (gboolean requires_grad)
{
  /* torch.arange(24.).reshape(2, 3, 4), float64 */
  double v[24];
  for (int i = 0; i < 24; i++)
    v[i] = i;
  return cr_gradcheck_tensor (v, (gint64[]) { 2, 3, 4 }, 3, requires_grad);
}

/* Not inlined: GCC 12 at -O3 then warns that the callers' compound literals
 * "may be used uninitialized" (a false positive). */
static __attribute__ ((noinline)) CrTensor *
bool_tensor (const gboolean *values,
             const gint64   *shape,
             int             ndim)
{
  gint64 n = cr_shape_numel (shape, ndim);
  g_autofree guint8 *b = g_new (guint8, MAX (n, 1));
  for (gint64 i = 0; i < n; i++)
    b[i] = values[i] ? 1 : 0;
  return cr_tensor_new_from_data (b, shape, ndim, CR_DTYPE_BOOL, NULL);
}

static CrIndexItem
idx_int (gint64 v)
{
  CrIndexItem it = { 0, };
  it.kind = CR_INDEX_INT;
  it.value = v;
  return it;
}

static CrIndexItem
idx_all (void)
{
  CrIndexItem it = { 0, };
  it.kind = CR_INDEX_SLICE;
  return it;
}

static CrIndexItem
idx_slice (gboolean has_start, gint64 start,
           gboolean has_stop, gint64 stop,
           gboolean has_step, gint64 step)
{
  CrIndexItem it = { 0, };
  it.kind = CR_INDEX_SLICE;
  it.has_start = has_start;
  it.start = start;
  it.has_stop = has_stop;
  it.stop = stop;
  it.has_step = has_step;
  it.step = step;
  return it;
}

static CrIndexItem
idx_kind (CrIndexKind kind)
{
  CrIndexItem it = { 0, };
  it.kind = kind;
  return it;
}

static CrIndexItem
idx_tensor (CrTensor *t)
{
  CrIndexItem it = { 0, };
  it.kind = CR_INDEX_TENSOR;
  it.tensor = t;
  return it;
}

static CrTensor *
get (CrTensor          *x,
     const CrIndexItem *items,
     guint              n)
{
  g_autoptr(GError) error = NULL;
  CrTensor *out = cr_index_get (x, items, n, &error);
  g_assert_no_error (error);
  g_assert_nonnull (out);
  return out;
}

/* sum(t * weights) as a scalar root. */
static CrTensor *
weighted_sum (CrTensor     *t,
              const double *weights)
{
  g_autoptr(CrTensor) w = cr_gradcheck_tensor (weights, t->shape, t->ndim, FALSE);
  g_autoptr(CrTensor) p = cr_mul (t, w, NULL);
  return cr_sum (p, NULL);
}

/* ---- basic indexing ------------------------------------------------------- */

static void
test_basic (void)
{
  g_autoptr(CrTensor) x = arange_x (TRUE);
  g_autoptr(CrTensor) a = NULL;
  g_autoptr(CrTensor) b = NULL;
  g_autoptr(CrTensor) c = NULL;
  g_autoptr(CrTensor) d = NULL;
  g_autoptr(CrTensor) e = NULL;
  g_autoptr(CrTensor) f = NULL;
  g_autoptr(CrTensor) t1 = NULL;
  g_autoptr(CrTensor) i1 = cr_test_long_tensor ((gint64[]) { 1 }, NULL, 0);

  /* x[1]: a view at offset 12 */
  a = get (x, (CrIndexItem[]) { idx_int (1) }, 1);
  cr_test_assert_shape (a, (gint64[]) { 3, 4 }, 2);
  g_assert_true (a->storage == x->storage);
  g_assert_cmpint (a->offset, ==, 12);
  g_assert_true (a->view_base == x);
  g_assert_cmpstr (cr_test_fn_name (a), ==, "SelectBackward0");

  /* x[-1, -2] == [16, 17, 18, 19] */
  b = get (x, (CrIndexItem[]) { idx_int (-1), idx_int (-2) }, 2);
  cr_test_assert_values (b, (double[]) { 16, 17, 18, 19 }, 4);
  g_assert_cmpstr (cr_test_next_name (b->grad_fn, 0), ==, "SelectBackward0");

  /* x[:, ::2, 1::2]: strides (12, 8, 2), offset 1 */
  c = get (x, (CrIndexItem[]) { idx_all (), idx_slice (FALSE, 0, FALSE, 0, TRUE, 2),
                                idx_slice (TRUE, 1, FALSE, 0, TRUE, 2) }, 3);
  cr_test_assert_values (c, (double[]) { 1, 3, 9, 11, 13, 15, 21, 23 }, 8);
  g_assert_cmpint (c->strides[0], ==, 12);
  g_assert_cmpint (c->strides[1], ==, 8);
  g_assert_cmpint (c->strides[2], ==, 2);
  g_assert_cmpint (c->offset, ==, 1);
  g_assert_cmpstr (cr_test_fn_name (c), ==, "SliceBackward0");

  /* x[1, ..., 1:3] */
  d = get (x, (CrIndexItem[]) { idx_int (1), idx_kind (CR_INDEX_ELLIPSIS),
                                idx_slice (TRUE, 1, TRUE, 3, FALSE, 0) }, 3);
  cr_test_assert_values (d, (double[]) { 13, 14, 17, 18, 21, 22 }, 6);

  /* Clamped slices: x[-10:1] has 1 row, x[5:10] none. */
  e = get (x, (CrIndexItem[]) { idx_slice (TRUE, -10, TRUE, 1, FALSE, 0) }, 1);
  cr_test_assert_shape (e, (gint64[]) { 1, 3, 4 }, 3);
  f = get (x, (CrIndexItem[]) { idx_slice (TRUE, 5, TRUE, 10, FALSE, 0) }, 1);
  cr_test_assert_shape (f, (gint64[]) { 0, 3, 4 }, 3);

  /* A 0-d integer tensor selects. */
  t1 = get (x, (CrIndexItem[]) { idx_tensor (i1) }, 1);
  cr_test_assert_shape (t1, (gint64[]) { 3, 4 }, 2);
  g_assert_cmpstr (cr_test_fn_name (t1), ==, "SelectBackward0");
}

static void
test_none_ellipsis (void)
{
  g_autoptr(CrTensor) x = arange_x (TRUE);
  g_autoptr(CrTensor) n = NULL;
  g_autoptr(CrTensor) e = NULL;
  g_autoptr(CrTensor) full = NULL;

  n = get (x, (CrIndexItem[]) { idx_kind (CR_INDEX_NONE) }, 1);
  cr_test_assert_shape (n, (gint64[]) { 1, 2, 3, 4 }, 4);
  g_assert_cmpstr (cr_test_fn_name (n), ==, "UnsqueezeBackward0");

  /* x[...] is an alias (AliasBackward0); x[:] a full slice. */
  e = get (x, (CrIndexItem[]) { idx_kind (CR_INDEX_ELLIPSIS) }, 1);
  cr_test_assert_shape (e, x->shape, 3);
  g_assert_true (e != x && e->storage == x->storage);
  g_assert_cmpstr (cr_test_fn_name (e), ==, "AliasBackward0");
  full = get (x, (CrIndexItem[]) { idx_all () }, 1);
  g_assert_cmpstr (cr_test_fn_name (full), ==, "SliceBackward0");
}

static void
test_basic_errors (void)
{
  g_autoptr(CrTensor) x = arange_x (FALSE);
  g_autoptr(CrTensor) s = cr_tensor_new_scalar (3.0, CR_DTYPE_FLOAT32);
  g_autoptr(CrTensor) f = cr_tensor_new_from_data ((float[]) { 0.5f }, (gint64[]) { 1 }, 1,
                                                   CR_DTYPE_FLOAT32, NULL);
  g_autoptr(GError) error = NULL;

  g_assert_null (cr_index_get (x, (CrIndexItem[]) { idx_int (5) }, 1, &error));
  cr_test_assert_error (error, CR_EXC_INDEX_ERROR, "index 5 is out of bounds for dimension 0 with size 2");
  g_clear_error (&error);
  g_assert_null (cr_index_get (x, (CrIndexItem[]) { idx_int (-5) }, 1, &error));
  cr_test_assert_error (error, CR_EXC_INDEX_ERROR, "index -5 is out of bounds for dimension 0 with size 2");
  g_clear_error (&error);
  g_assert_null (cr_index_get (x, (CrIndexItem[]) { idx_slice (TRUE, 1, FALSE, 0, FALSE, 0),
                                                    idx_int (7) }, 2, &error));
  cr_test_assert_error (error, CR_EXC_INDEX_ERROR, "index 7 is out of bounds for dimension 1 with size 3");
  g_clear_error (&error);
  g_assert_null (cr_index_get (x, (CrIndexItem[]) { idx_int (0), idx_int (0), idx_int (0),
                                                    idx_int (0) }, 4, &error));
  cr_test_assert_error (error, CR_EXC_INDEX_ERROR, "too many indices for tensor of dimension 3");
  g_clear_error (&error);
  g_assert_null (cr_index_get (s, (CrIndexItem[]) { idx_int (0) }, 1, &error));
  cr_test_assert_error (error, CR_EXC_INDEX_ERROR,
                "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number");
  g_clear_error (&error);
  g_assert_null (cr_index_get (s, (CrIndexItem[]) { idx_all () }, 1, &error));
  cr_test_assert_error (error, CR_EXC_INDEX_ERROR, "slice() cannot be applied to a 0-dim tensor.");
  g_clear_error (&error);
  g_assert_null (cr_index_get (x, (CrIndexItem[]) { idx_slice (FALSE, 0, FALSE, 0, TRUE, -1) },
                               1, &error));
  cr_test_assert_error (error, CR_EXC_VALUE_ERROR, "step must be greater than zero");
  g_clear_error (&error);
  g_assert_null (cr_index_get (x, (CrIndexItem[]) { idx_tensor (f) }, 1, &error));
  cr_test_assert_error (error, CR_EXC_INDEX_ERROR,
                "tensors used as indices must be long, byte or bool tensors");
}

/* ---- advanced indexing ------------------------------------------------------ */

static void
test_advanced (void)
{
  g_autoptr(CrTensor) x = arange_x (TRUE);
  g_autoptr(CrTensor) i01 = cr_test_long_tensor ((gint64[]) { 0, 1 }, (gint64[]) { 2 }, 1);
  g_autoptr(CrTensor) i10 = cr_test_long_tensor ((gint64[]) { 1, 0 }, (gint64[]) { 2 }, 1);
  g_autoptr(CrTensor) i22 = cr_test_long_tensor ((gint64[]) { 0, 1, 1, 0 }, (gint64[]) { 2, 2 }, 2);
  g_autoptr(CrTensor) a = NULL;
  g_autoptr(CrTensor) b = NULL;
  g_autoptr(CrTensor) c = NULL;
  g_autoptr(CrTensor) d = NULL;
  g_autoptr(CrTensor) e = NULL;

  /* x[0, :, [0, 1]]: PyTorch selects first, so the result is (3, 2), not
   * NumPy's (2, 3). */
  a = get (x, (CrIndexItem[]) { idx_int (0), idx_all (), idx_tensor (i01) }, 3);
  cr_test_assert_shape (a, (gint64[]) { 3, 2 }, 2);
  cr_test_assert_values (a, (double[]) { 0, 1, 4, 5, 8, 9 }, 6);
  g_assert_cmpstr (cr_test_fn_name (a), ==, "IndexBackward0");
  g_assert_cmpstr (cr_test_next_name (a->grad_fn, 0), ==, "SliceBackward0");

  /* x[[0, 1], :, [1, 0]]: index dims not adjacent, so they go first: (2, 3). */
  b = get (x, (CrIndexItem[]) { idx_tensor (i01), idx_all (), idx_tensor (i10) }, 3);
  cr_test_assert_shape (b, (gint64[]) { 2, 3 }, 2);
  cr_test_assert_values (b, (double[]) { 1, 5, 9, 12, 16, 20 }, 6);

  /* x[:, [[0, 1], [1, 0]], 0] */
  c = get (x, (CrIndexItem[]) { idx_all (), idx_tensor (i22), idx_int (0) }, 3);
  cr_test_assert_shape (c, (gint64[]) { 2, 2, 2 }, 3);
  cr_test_assert_values (c, (double[]) { 0, 4, 4, 0, 12, 16, 16, 12 }, 8);

  /* x[None, :, [[0, 1], [1, 0]], None, 0] */
  d = get (x, (CrIndexItem[]) { idx_kind (CR_INDEX_NONE), idx_all (), idx_tensor (i22),
                                idx_kind (CR_INDEX_NONE), idx_int (0) }, 5);
  cr_test_assert_shape (d, (gint64[]) { 1, 2, 2, 2, 1 }, 5);
  cr_test_assert_values (d, (double[]) { 0, 4, 4, 0, 12, 16, 16, 12 }, 8);

  /* x[[0, 1], None, [1, 0]] */
  e = get (x, (CrIndexItem[]) { idx_tensor (i01), idx_kind (CR_INDEX_NONE), idx_tensor (i10) }, 3);
  cr_test_assert_shape (e, (gint64[]) { 2, 1, 4 }, 3);
}

static void
test_masks (void)
{
  g_autoptr(CrTensor) x = arange_x (TRUE);
  g_autoptr(CrTensor) seventeen = cr_tensor_new_scalar (17.0, CR_DTYPE_FLOAT64);
  g_autoptr(CrTensor) mask = cr_binary_nograd (CR_BINARY_GT, x, seventeen, NULL);
  g_autoptr(CrTensor) m3 = bool_tensor ((gboolean[]) { TRUE, FALSE, TRUE }, (gint64[]) { 3 }, 1);
  g_autoptr(CrTensor) t0 = bool_tensor ((gboolean[]) { TRUE }, NULL, 0);
  g_autoptr(CrTensor) f0 = bool_tensor ((gboolean[]) { FALSE }, NULL, 0);
  g_autoptr(CrTensor) a = NULL;
  g_autoptr(CrTensor) b = NULL;
  g_autoptr(CrTensor) c = NULL;
  g_autoptr(CrTensor) d = NULL;
  g_autoptr(GError) error = NULL;

  a = get (x, (CrIndexItem[]) { idx_tensor (mask) }, 1);
  cr_test_assert_values (a, (double[]) { 18, 19, 20, 21, 22, 23 }, 6);
  g_assert_cmpstr (cr_test_fn_name (a), ==, "IndexBackward0");
  g_assert_cmpstr (cr_test_next_name (a->grad_fn, 0), ==, "AccumulateGrad");

  b = get (x, (CrIndexItem[]) { idx_all (), idx_tensor (m3) }, 2);
  cr_test_assert_shape (b, (gint64[]) { 2, 2, 4 }, 3);
  cr_test_assert_values (b, (double[]) { 0, 1, 2, 3, 8, 9, 10, 11, 12, 13, 14, 15, 20, 21, 22, 23 }, 16);

  c = get (x, (CrIndexItem[]) { idx_tensor (t0) }, 1);
  cr_test_assert_shape (c, (gint64[]) { 1, 2, 3, 4 }, 4);
  d = get (x, (CrIndexItem[]) { idx_tensor (f0) }, 1);
  cr_test_assert_shape (d, (gint64[]) { 0, 2, 3, 4 }, 4);

  g_assert_null (cr_index_get (x, (CrIndexItem[]) { idx_tensor (m3) }, 1, &error));
  cr_test_assert_error (error, CR_EXC_INDEX_ERROR,
                "The shape of the mask [3] at index 0 does not match the shape of the indexed "
                "tensor [2, 3, 4] at index 0");
}

static void
test_advanced_errors (void)
{
  g_autoptr(CrTensor) x = arange_x (FALSE);
  g_autoptr(CrTensor) i0 = cr_test_long_tensor ((gint64[]) { 0 }, (gint64[]) { 1 }, 1);
  g_autoptr(CrTensor) i7 = cr_test_long_tensor ((gint64[]) { 7 }, (gint64[]) { 1 }, 1);
  g_autoptr(CrTensor) i5 = cr_test_long_tensor ((gint64[]) { 5 }, (gint64[]) { 1 }, 1);
  g_autoptr(CrTensor) i2 = cr_test_long_tensor ((gint64[]) { 0, 1 }, (gint64[]) { 2 }, 1);
  g_autoptr(CrTensor) i3 = cr_test_long_tensor ((gint64[]) { 0, 1, 2 }, (gint64[]) { 3 }, 1);
  g_autoptr(GError) error = NULL;

  /* PyTorch numbers the dimension among the index tensors. */
  g_assert_null (cr_index_get (x, (CrIndexItem[]) { idx_all (), idx_tensor (i0), idx_tensor (i7) },
                               3, &error));
  cr_test_assert_error (error, CR_EXC_INDEX_ERROR, "index 7 is out of bounds for dimension 1 with size 4");
  g_clear_error (&error);
  g_assert_null (cr_index_get (x, (CrIndexItem[]) { idx_all (), idx_tensor (i5) }, 2, &error));
  cr_test_assert_error (error, CR_EXC_INDEX_ERROR, "index 5 is out of bounds for dimension 0 with size 3");
  g_clear_error (&error);
  g_assert_null (cr_index_get (x, (CrIndexItem[]) { idx_tensor (i2), idx_tensor (i3) }, 2, &error));
  cr_test_assert_error (error, CR_EXC_INDEX_ERROR,
                "shape mismatch: indexing tensors could not be broadcast together with shapes "
                "[2], [3]");
}

/* Repeated indices add up in the gradient (torch: [[0, 0, 3], [3, 0, 0]]). */
static void
test_repeated_index_grad (void)
{
  g_autoptr(CrTensor) m = cr_gradcheck_tensor ((double[]) { 0, 1, 2, 3, 4, 5 },
                                               (gint64[]) { 2, 3 }, 2, TRUE);
  g_autoptr(CrTensor) r = cr_test_long_tensor ((gint64[]) { 0, 0, 1 }, (gint64[]) { 3 }, 1);
  g_autoptr(CrTensor) c = cr_test_long_tensor ((gint64[]) { 2, 2, 0 }, (gint64[]) { 3 }, 1);
  g_autoptr(CrTensor) out = get (m, (CrIndexItem[]) { idx_tensor (r), idx_tensor (c) }, 2);
  g_autoptr(CrTensor) s = weighted_sum (out, (double[]) { 1, 2, 3 });

  cr_test_assert_values (out, (double[]) { 2, 2, 3 }, 3);
  cr_test_backward (s);
  cr_test_assert_values (m->grad, (double[]) { 0, 0, 3, 3, 0, 0 }, 6);
}

/* ---- setitem ---------------------------------------------------------------------- */

static CrTensor *
scalar_number (double v)
{
  CrTensor *t = cr_tensor_new_scalar (v, CR_DTYPE_FLOAT64);
  t->is_wrapped_number = TRUE;
  return t;
}

static CrTensor *
times (CrTensor *a,
       double    k)
{
  g_autoptr(CrTensor) n = scalar_number (k);
  return cr_mul (a, n, NULL);
}

static void
test_set_basic (void)
{
  g_autoptr(CrTensor) a = cr_gradcheck_tensor ((double[]) { 1, 2, 3, 4, 5, 6 },
                                               (gint64[]) { 2, 3 }, 2, TRUE);
  g_autoptr(CrTensor) five = scalar_number (5);
  g_autoptr(CrTensor) y = times (a, 2);
  g_autoptr(CrTensor) s = NULL;
  g_autoptr(GError) error = NULL;
  guint32 version = cr_tensor_version (y);
  static const double w[] = { 1, 2, 3, 4, 5, 6 };

  /* y = a * 2; y[0] = 5 */
  g_assert_true (cr_index_set (y, (CrIndexItem[]) { idx_int (0) }, 1, five, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (cr_tensor_version (y), ==, version + 1);
  cr_test_assert_values (y, (double[]) { 5, 5, 5, 8, 10, 12 }, 6);
  g_assert_cmpstr (cr_test_fn_name (y), ==, "CopySlices");
  g_assert_cmpstr (cr_test_next_name (y->grad_fn, 0), ==, "MulBackward0");
  g_assert_cmpstr (cr_test_next_name (y->grad_fn, 1), ==, "None");
  s = weighted_sum (y, w);
  cr_test_backward (s);
  cr_test_assert_values (a->grad, (double[]) { 0, 0, 0, 8, 10, 12 }, 6);
}

static void
test_set_slice_tensor (void)
{
  g_autoptr(CrTensor) a = cr_gradcheck_tensor ((double[]) { 1, 2, 3, 4, 5, 6 },
                                               (gint64[]) { 2, 3 }, 2, TRUE);
  g_autoptr(CrTensor) t = cr_gradcheck_tensor ((double[]) { 10, 20 }, (gint64[]) { 2 }, 1, TRUE);
  g_autoptr(CrTensor) t12 = cr_gradcheck_tensor ((double[]) { 10, 20 }, (gint64[]) { 1, 2 }, 2, TRUE);
  g_autoptr(CrTensor) y = times (a, 2);
  g_autoptr(CrTensor) y2 = times (a, 2);
  g_autoptr(CrTensor) s = NULL;
  g_autoptr(GError) error = NULL;
  static const double w[] = { 1, 2, 3, 4, 5, 6 };

  /* y[:, 1] = t */
  g_assert_true (cr_index_set (y, (CrIndexItem[]) { idx_all (), idx_int (1) }, 2, t, &error));
  g_assert_no_error (error);
  cr_test_assert_values (y, (double[]) { 2, 10, 6, 8, 20, 12 }, 6);
  g_assert_cmpstr (cr_test_fn_name (y), ==, "CopySlices");
  g_assert_cmpstr (cr_test_next_name (y->grad_fn, 1), ==, "AccumulateGrad");
  s = weighted_sum (y, w);
  cr_test_backward (s);
  cr_test_assert_values (a->grad, (double[]) { 2, 0, 6, 8, 0, 12 }, 6);
  cr_test_assert_values (t->grad, (double[]) { 2, 5 }, 2);

  /* y[...] = value writes y itself: CopyBackwards, as in torch. */
  {
    g_autoptr(CrTensor) y3 = times (a, 2);
    g_autoptr(CrTensor) full = cr_gradcheck_tensor ((double[]) { 1, 2, 3 }, (gint64[]) { 3 }, 1,
                                                    TRUE);
    g_assert_true (cr_index_set (y3, (CrIndexItem[]) { idx_kind (CR_INDEX_ELLIPSIS) }, 1, full,
                                 &error));
    g_assert_no_error (error);
    cr_test_assert_values (y3, (double[]) { 1, 2, 3, 1, 2, 3 }, 6);
    g_assert_cmpstr (cr_test_fn_name (y3), ==, "CopyBackwards");
  }

  /* A (1, 2) value loses its leading 1 through a view (ViewBackward0). */
  g_assert_true (cr_index_set (y2, (CrIndexItem[]) { idx_all (), idx_int (1) }, 2, t12, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (cr_test_next_name (y2->grad_fn, 1), ==, "ViewBackward0");
}

static void
test_set_index_put (void)
{
  g_autoptr(CrTensor) w = cr_gradcheck_tensor ((double[]) { 1, 2, 3 }, (gint64[]) { 3 }, 1, TRUE);
  g_autoptr(CrTensor) xx = cr_gradcheck_tensor ((double[]) { 0, 0, 0 }, (gint64[]) { 3 }, 1, TRUE);
  g_autoptr(CrTensor) idx = cr_test_long_tensor ((gint64[]) { 0, 0, 1 }, (gint64[]) { 3 }, 1);
  g_autoptr(CrTensor) z = times (xx, 1);
  g_autoptr(CrTensor) s = NULL;
  g_autoptr(GError) error = NULL;

  /* z[[0, 0, 1]] = w: the last write wins; w's gradient is read at each
   * written position, repeats included (torch: x.grad [0, 0, 100],
   * w.grad [1, 1, 10]). */
  g_assert_true (cr_index_set (z, (CrIndexItem[]) { idx_tensor (idx) }, 1, w, &error));
  g_assert_no_error (error);
  cr_test_assert_values (z, (double[]) { 2, 3, 0 }, 3);
  g_assert_cmpstr (cr_test_fn_name (z), ==, "IndexPutBackward0");
  g_assert_cmpstr (cr_test_next_name (z->grad_fn, 0), ==, "MulBackward0");
  g_assert_cmpstr (cr_test_next_name (z->grad_fn, 1), ==, "AccumulateGrad");
  s = weighted_sum (z, (double[]) { 1, 10, 100 });
  cr_test_backward (s);
  cr_test_assert_values (xx->grad, (double[]) { 0, 0, 100 }, 3);
  cr_test_assert_values (w->grad, (double[]) { 1, 1, 10 }, 3);
}

static void
test_set_mask (void)
{
  g_autoptr(CrTensor) a = cr_gradcheck_tensor ((double[]) { 1, 2, 3, 4, 5, 6 },
                                               (gint64[]) { 2, 3 }, 2, TRUE);
  g_autoptr(CrTensor) y = times (a, 1);
  g_autoptr(CrTensor) three = scalar_number (3);
  g_autoptr(CrTensor) zero = scalar_number (0);
  g_autoptr(CrTensor) mask = cr_binary_nograd (CR_BINARY_GT, y, three, NULL);
  g_autoptr(CrTensor) s = NULL;
  g_autoptr(CrTensor) l = cr_tensor_new_from_data ((gint64[]) { 1, 2, 3 }, (gint64[]) { 3 }, 1,
                                                   CR_DTYPE_INT64, NULL);
  g_autoptr(CrTensor) lmask = bool_tensor ((gboolean[]) { TRUE, FALSE, TRUE }, (gint64[]) { 3 }, 1);
  g_autoptr(CrTensor) half = cr_tensor_new_from_data ((double[]) { 2.7 }, (gint64[]) { 1 }, 1,
                                                      CR_DTYPE_FLOAT64, NULL);
  g_autoptr(GError) error = NULL;

  /* y[y > 3] = 0 */
  g_assert_true (cr_index_set (y, (CrIndexItem[]) { idx_tensor (mask) }, 1, zero, &error));
  g_assert_no_error (error);
  cr_test_assert_values (y, (double[]) { 1, 2, 3, 0, 0, 0 }, 6);
  g_assert_cmpstr (cr_test_fn_name (y), ==, "IndexPutBackward0");
  s = cr_sum (y, NULL);
  cr_test_backward (s);
  cr_test_assert_values (a->grad, (double[]) { 1, 1, 1, 0, 0, 0 }, 6);

  /* A one-element value goes through masked_fill in PyTorch: cast allowed. */
  g_assert_true (cr_index_set (l, (CrIndexItem[]) { idx_tensor (lmask) }, 1, half, &error));
  g_assert_no_error (error);
  g_assert_cmpint (cr_tensor_get_flat_int (l, 0), ==, 2);
  g_assert_cmpint (cr_tensor_get_flat_int (l, 1), ==, 2);
  g_assert_cmpint (cr_tensor_get_flat_int (l, 2), ==, 2);
}

static void
test_set_through_view (void)
{
  g_autoptr(CrTensor) a = cr_gradcheck_tensor ((double[]) { 1, 2, 3, 4, 5, 6 },
                                               (gint64[]) { 2, 3 }, 2, TRUE);
  g_autoptr(CrTensor) y = times (a, 2);
  g_autoptr(CrTensor) v = get (y, (CrIndexItem[]) { idx_int (1) }, 1);
  g_autoptr(CrTensor) m1 = scalar_number (-1);
  g_autoptr(CrTensor) s = NULL;
  g_autoptr(GError) error = NULL;

  /* y = a * 2; v = y[1]; v[0] = -1 */
  g_assert_true (cr_index_set (v, (CrIndexItem[]) { idx_int (0) }, 1, m1, &error));
  g_assert_no_error (error);
  cr_test_assert_values (y, (double[]) { 2, 4, 6, -1, 10, 12 }, 6);
  cr_test_assert_values (v, (double[]) { -1, 10, 12 }, 3);
  g_assert_cmpstr (cr_test_fn_name (y), ==, "CopySlices");
  g_assert_cmpstr (cr_test_next_name (y->grad_fn, 0), ==, "MulBackward0");
  g_assert_cmpstr (cr_test_fn_name (v), ==, "AsStridedBackward0");
  g_assert_cmpstr (cr_test_next_name (v->grad_fn, 0), ==, "CopySlices");

  /* torch: (v * [7, 8, 9]).sum().backward() gives a.grad [[0, 0, 0], [0, 16, 18]] */
  s = weighted_sum (v, (double[]) { 7, 8, 9 });
  cr_test_backward (s);
  cr_test_assert_values (a->grad, (double[]) { 0, 0, 0, 0, 16, 18 }, 6);
}

static void
test_set_leaf_rules (void)
{
  g_autoptr(CrTensor) x = cr_gradcheck_tensor ((double[]) { 1, 2, 3, 4, 5, 6 },
                                               (gint64[]) { 2, 3 }, 2, TRUE);
  g_autoptr(CrTensor) one = scalar_number (1);
  g_autoptr(CrTensor) idx = cr_test_long_tensor ((gint64[]) { 0 }, (gint64[]) { 1 }, 1);
  g_autoptr(CrTensor) v = NULL;
  g_autoptr(CrTensor) z = cr_tensor_new_zeros ((gint64[]) { 2, 3 }, 2, CR_DTYPE_FLOAT64,
                                               CR_DEVICE_CPU, NULL);
  g_autoptr(CrTensor) w = cr_gradcheck_tensor ((double[]) { 7, 8, 9 }, (gint64[]) { 3 }, 1, TRUE);
  g_autoptr(GError) error = NULL;
  gboolean prev;
  guint32 version;

  g_assert_false (cr_index_set (x, (CrIndexItem[]) { idx_int (0) }, 1, one, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR,
                "a view of a leaf Variable that requires grad is being used in an in-place "
                "operation.");
  g_clear_error (&error);
  g_assert_false (cr_index_set (x, (CrIndexItem[]) { idx_tensor (idx) }, 1, one, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR,
                "a leaf Variable that requires grad is being used in an in-place operation.");
  g_clear_error (&error);
  v = get (x, (CrIndexItem[]) { idx_int (0) }, 1);
  g_assert_false (cr_index_set (v, (CrIndexItem[]) { idx_int (0) }, 1, one, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR,
                "a view of a leaf Variable that requires grad is being used in an in-place "
                "operation.");
  g_clear_error (&error);

  /* Under no_grad it is allowed, and bumps the version. */
  version = cr_tensor_version (x);
  prev = cr_grad_mode_set_enabled (FALSE);
  g_assert_true (cr_index_set (x, (CrIndexItem[]) { idx_int (0) }, 1, one, &error));
  cr_grad_mode_set_enabled (prev);
  g_assert_no_error (error);
  g_assert_cmpuint (cr_tensor_version (x), ==, version + 1);
  g_assert_null (x->grad_fn);
  cr_test_assert_values (x, (double[]) { 1, 1, 1, 4, 5, 6 }, 6);

  /* A plain tensor written with a value that requires grad gets history. */
  g_assert_true (cr_index_set (z, (CrIndexItem[]) { idx_int (1) }, 1, w, &error));
  g_assert_no_error (error);
  g_assert_true (z->requires_grad);
  g_assert_cmpstr (cr_test_fn_name (z), ==, "CopySlices");
  g_assert_cmpstr (cr_test_next_name (z->grad_fn, 0), ==, "None");
  g_assert_cmpstr (cr_test_next_name (z->grad_fn, 1), ==, "AccumulateGrad");
}

static void
test_set_errors (void)
{
  g_autoptr(CrTensor) x = cr_tensor_new_zeros ((gint64[]) { 2, 3 }, 2, CR_DTYPE_FLOAT32,
                                               CR_DEVICE_CPU, NULL);
  g_autoptr(CrTensor) l = cr_tensor_new_zeros ((gint64[]) { 2, 3 }, 2, CR_DTYPE_INT64,
                                               CR_DEVICE_CPU, NULL);
  g_autoptr(CrTensor) v2 = cr_tensor_new_zeros ((gint64[]) { 2 }, 1, CR_DTYPE_FLOAT32,
                                                CR_DEVICE_CPU, NULL);
  g_autoptr(CrTensor) v32 = cr_tensor_new_zeros ((gint64[]) { 3, 2 }, 2, CR_DTYPE_FLOAT32,
                                                 CR_DEVICE_CPU, NULL);
  g_autoptr(CrTensor) f = cr_tensor_new_scalar (2.7, CR_DTYPE_FLOAT32);
  g_autoptr(CrTensor) idx = cr_test_long_tensor ((gint64[]) { 0, 1 }, (gint64[]) { 2 }, 1);
  g_autoptr(CrTensor) five = scalar_number (1);
  g_autoptr(GError) error = NULL;

  g_assert_false (cr_index_set (x, (CrIndexItem[]) { idx_int (0) }, 1, v2, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR,
                "The expanded size of the tensor (3) must match the existing size (2) at "
                "non-singleton dimension 0.  Target sizes: [3].  Tensor sizes: [2]");
  g_clear_error (&error);
  g_assert_false (cr_index_set (x, (CrIndexItem[]) { idx_tensor (idx) }, 1, v32, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR,
                "shape mismatch: value tensor of shape [3, 2] cannot be broadcast to indexing "
                "result of shape [2, 3]");
  g_clear_error (&error);
  g_assert_false (cr_index_set (l, (CrIndexItem[]) { idx_tensor (idx) }, 1, f, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR,
                "Index put requires the source and destination dtypes match, got Long for the "
                "destination and Float for the source.");
  g_clear_error (&error);
  g_assert_false (cr_index_set (x, (CrIndexItem[]) { idx_int (5) }, 1, five, &error));
  cr_test_assert_error (error, CR_EXC_INDEX_ERROR, "index 5 is out of bounds for dimension 0 with size 2");
}

/* x[1:] = x[:-1] reads the value before writing (torch: [0, 0, 1, 2, 3, 4]). */
static void
test_set_overlap (void)
{
  g_autoptr(CrTensor) x = cr_gradcheck_tensor ((double[]) { 0, 1, 2, 3, 4, 5 },
                                               (gint64[]) { 6 }, 1, FALSE);
  g_autoptr(CrTensor) src = get (x, (CrIndexItem[]) { idx_slice (FALSE, 0, TRUE, -1, FALSE, 0) }, 1);
  g_autoptr(GError) error = NULL;

  g_assert_true (cr_index_set (x, (CrIndexItem[]) { idx_slice (TRUE, 1, FALSE, 0, FALSE, 0) },
                               1, src, &error));
  g_assert_no_error (error);
  cr_test_assert_values (x, (double[]) { 0, 0, 1, 2, 3, 4 }, 6);
}

static void
test_masked_fill (void)
{
  g_autoptr(CrTensor) x = cr_gradcheck_tensor ((double[]) { 1, 2 }, (gint64[]) { 2 }, 1, TRUE);
  g_autoptr(CrTensor) v = cr_gradcheck_tensor ((double[]) { 9 }, NULL, 0, TRUE);
  g_autoptr(CrTensor) mask = bool_tensor ((gboolean[]) { TRUE, FALSE }, (gint64[]) { 2 }, 1);
  g_autoptr(CrTensor) out = NULL;
  g_autoptr(CrTensor) s = NULL;
  g_autoptr(GError) error = NULL;

  out = cr_masked_fill (x, mask, v, &error);
  g_assert_no_error (error);
  cr_test_assert_values (out, (double[]) { 9, 2 }, 2);
  g_assert_cmpstr (cr_test_fn_name (out), ==, "MaskedFillBackward0");
  s = weighted_sum (out, (double[]) { 3, 4 });
  cr_test_backward (s);
  cr_test_assert_values (x->grad, (double[]) { 0, 4 }, 2);
  cr_test_assert_values (v->grad, (double[]) { 3 }, 1);

  g_assert_null (cr_masked_fill (x, mask, x, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR,
                "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with 1 "
                "dimension(s).");
}

/* ---- gradchecks ------------------------------------------------------------------ */

typedef enum {
  G_BASIC, G_ADVANCED, G_MIXED, G_MASK, G_SET_BASIC, G_SET_INDEX, G_SET_VIEW, G_SET_NONCONTIG,
  G_MASKED_FILL,
} IndexFunc;

static CrTensor *
index_func (CrTensor *const *in,
            guint            n,
            gpointer         user_data,
            GError         **error)
{
  CrTensor *x = in[0];

  (void) n;
  switch (GPOINTER_TO_INT (user_data))
    {
    case G_BASIC:
      {
        /* x[1:, None, ::2][..., 0] */
        g_autoptr(CrTensor) a = cr_index_get (x, (CrIndexItem[]) {
            idx_slice (TRUE, 1, FALSE, 0, FALSE, 0), idx_kind (CR_INDEX_NONE),
            idx_slice (FALSE, 0, FALSE, 0, TRUE, 2) }, 3, error);
        return a ? cr_index_get (a, (CrIndexItem[]) { idx_kind (CR_INDEX_ELLIPSIS), idx_int (0) },
                                 2, error) : NULL;
      }
    case G_ADVANCED:
      {
        /* x[[0, 0, 1], :, [2, 2, -1]]: repeated positions */
        g_autoptr(CrTensor) r = cr_test_long_tensor ((gint64[]) { 0, 0, 1 }, (gint64[]) { 3 }, 1);
        g_autoptr(CrTensor) c = cr_test_long_tensor ((gint64[]) { 2, 2, -1 }, (gint64[]) { 3 }, 1);
        return cr_index_get (x, (CrIndexItem[]) { idx_tensor (r), idx_all (), idx_tensor (c) },
                             3, error);
      }
    case G_MIXED:
      {
        /* x[:, [[1, 1], [0, 2]], 1:] */
        g_autoptr(CrTensor) i = cr_test_long_tensor ((gint64[]) { 1, 1, 0, 2 }, (gint64[]) { 2, 2 }, 2);
        return cr_index_get (x, (CrIndexItem[]) { idx_all (), idx_tensor (i),
                                                  idx_slice (TRUE, 1, FALSE, 0, FALSE, 0) },
                             3, error);
      }
    case G_MASK:
      {
        g_autoptr(CrTensor) m = bool_tensor ((gboolean[]) { TRUE, FALSE, TRUE, TRUE, FALSE, TRUE },
                                             (gint64[]) { 2, 3 }, 2);
        return cr_index_get (x, (CrIndexItem[]) { idx_tensor (m) }, 1, error);
      }
    case G_SET_BASIC:
      {
        /* y = x * 1; y[:, 1:3] = v (broadcast over rows); y */
        g_autoptr(CrTensor) y = times (x, 1);
        if (!cr_index_set (y, (CrIndexItem[]) { idx_all (), idx_all (),
                                                idx_slice (TRUE, 1, TRUE, 3, FALSE, 0) },
                           3, in[1], error))
          return NULL;
        return g_steal_pointer (&y);
      }
    case G_SET_INDEX:
      {
        /* y = x * 1; y[[2, 0], 2] = v (distinct positions: with repeats the
         * overwritten values get a gradient in PyTorch too, which finite
         * differences cannot see) */
        g_autoptr(CrTensor) y = times (x, 1);
        g_autoptr(CrTensor) i = cr_test_long_tensor ((gint64[]) { 2, 0 }, (gint64[]) { 2 }, 1);
        if (!cr_index_set (y, (CrIndexItem[]) { idx_tensor (i), idx_int (2) }, 2, in[1], error))
          return NULL;
        return g_steal_pointer (&y);
      }
    case G_SET_VIEW:
      {
        /* y = x * 1; v = y.t(); v[1] = w; return v * 1 + y.sum() */
        g_autoptr(CrTensor) y = times (x, 1);
        g_autoptr(CrTensor) v = cr_t (y, error);
        g_autoptr(CrTensor) s = NULL;
        g_autoptr(CrTensor) v1 = NULL;
        if (v == NULL || !cr_index_set (v, (CrIndexItem[]) { idx_int (1) }, 1, in[1], error))
          return NULL;
        s = cr_sum (y, error);
        v1 = s ? times (v, 3) : NULL;
        return v1 ? cr_add (v1, s, error) : NULL;
      }
    case G_SET_NONCONTIG:
      {
        /* b: a transposed tensor that is no view (its own base); v = b[1];
         * v[0:2] = w; b * 2. The write is recorded on b through positions
         * mapped back from its storage layout. */
        g_autoptr(CrTensor) b = cr_tensor_alias (in[1]);
        g_autoptr(CrTensor) v = cr_index_get (b, (CrIndexItem[]) { idx_int (1) }, 1, error);
        if (v == NULL || !cr_index_set (v, (CrIndexItem[]) {
                                          idx_slice (TRUE, 0, TRUE, 2, FALSE, 0) },
                                        1, in[0], error))
          return NULL;
        if (cr_grad_mode_is_enabled ())
          g_assert_cmpstr (cr_test_fn_name (b), ==, "CopySlices");
        return times (b, 2);
      }
    case G_MASKED_FILL:
      {
        g_autoptr(CrTensor) m = bool_tensor ((gboolean[]) { TRUE, FALSE, TRUE }, (gint64[]) { 3 }, 1);
        return cr_masked_fill (x, m, in[1], error);
      }
    default:
      g_assert_not_reached ();
    }
}

static void
test_gradcheck (void)
{
  g_autoptr(CrTensor) x = cr_gradcheck_rand ((gint64[]) { 3, 4, 5 }, 3, -1, 1, 21);
  g_autoptr(CrTensor) xt = cr_gradcheck_rand_transposed ((gint64[]) { 2, 3, 4 }, 3, -1, 1, 22);
  g_autoptr(CrTensor) m = cr_gradcheck_rand ((gint64[]) { 2, 3 }, 2, -1, 1, 23);
  g_autoptr(CrTensor) v3 = cr_gradcheck_rand ((gint64[]) { 2, 5 }, 2, -1, 1, 25);
  g_autoptr(CrTensor) w = cr_gradcheck_rand ((gint64[]) { 2 }, 1, -1, 1, 26);
  g_autoptr(CrTensor) s = cr_gradcheck_rand (NULL, 0, -1, 1, 27);
  g_autoptr(CrTensor) x23 = cr_gradcheck_rand ((gint64[]) { 2, 3, 4 }, 3, -1, 1, 28);
  g_autoptr(CrTensor) f3 = cr_gradcheck_rand ((gint64[]) { 2, 3 }, 2, -1, 1, 29);
  g_autoptr(CrTensor) f3v = cr_gradcheck_rand ((gint64[]) { 3 }, 1, -1, 1, 30);

  g_assert_true (cr_gradcheck (index_func, GINT_TO_POINTER (G_BASIC), &x, 1));
  g_assert_true (cr_gradcheck (index_func, GINT_TO_POINTER (G_BASIC), &xt, 1));
  g_assert_true (cr_gradcheck (index_func, GINT_TO_POINTER (G_ADVANCED), &x, 1));
  g_assert_true (cr_gradcheck (index_func, GINT_TO_POINTER (G_MIXED), &xt, 1));
  g_assert_true (cr_gradcheck (index_func, GINT_TO_POINTER (G_MASK), &m, 1));
  g_assert_true (cr_gradcheck (index_func, GINT_TO_POINTER (G_SET_BASIC),
                               (CrTensor *[]) { x23, w }, 2));
  g_assert_true (cr_gradcheck (index_func, GINT_TO_POINTER (G_SET_INDEX),
                               (CrTensor *[]) { x, v3 }, 2));
  g_assert_true (cr_gradcheck (index_func, GINT_TO_POINTER (G_SET_VIEW),
                               (CrTensor *[]) { f3, w }, 2));
  {
    g_autoptr(CrTensor) base = cr_gradcheck_rand_transposed ((gint64[]) { 3, 4 }, 2, -1, 1, 31);
    base->requires_grad = FALSE;
    g_assert_false (cr_tensor_is_contiguous (base));
    g_assert_true (cr_gradcheck (index_func, GINT_TO_POINTER (G_SET_NONCONTIG),
                                 (CrTensor *[]) { w, base }, 2));
  }
  g_assert_true (cr_gradcheck (index_func, GINT_TO_POINTER (G_MASKED_FILL),
                               (CrTensor *[]) { f3v, s }, 2));

  g_assert_true (cr_gradgradcheck (index_func, GINT_TO_POINTER (G_ADVANCED), &x, 1));
  g_assert_true (cr_gradgradcheck (index_func, GINT_TO_POINTER (G_BASIC), &xt, 1));
  g_assert_true (cr_gradgradcheck (index_func, GINT_TO_POINTER (G_SET_INDEX),
                                   (CrTensor *[]) { x, v3 }, 2));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/ops/index/basic", test_basic);
  g_test_add_func ("/ops/index/none-ellipsis", test_none_ellipsis);
  g_test_add_func ("/ops/index/basic-errors", test_basic_errors);
  g_test_add_func ("/ops/index/advanced", test_advanced);
  g_test_add_func ("/ops/index/masks", test_masks);
  g_test_add_func ("/ops/index/advanced-errors", test_advanced_errors);
  g_test_add_func ("/ops/index/repeated-index-grad", test_repeated_index_grad);
  g_test_add_func ("/ops/index/set-basic", test_set_basic);
  g_test_add_func ("/ops/index/set-slice-tensor", test_set_slice_tensor);
  g_test_add_func ("/ops/index/set-index-put", test_set_index_put);
  g_test_add_func ("/ops/index/set-mask", test_set_mask);
  g_test_add_func ("/ops/index/set-through-view", test_set_through_view);
  g_test_add_func ("/ops/index/set-leaf-rules", test_set_leaf_rules);
  g_test_add_func ("/ops/index/set-errors", test_set_errors);
  g_test_add_func ("/ops/index/set-overlap", test_set_overlap);
  g_test_add_func ("/ops/index/masked-fill", test_masked_fill);
  g_test_add_func ("/ops/index/gradcheck", test_gradcheck);

  return g_test_run ();
}
