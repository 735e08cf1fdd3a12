/* test-util.c — assertions and small constructors the op tests share. */
#include "test-util.h"

#include "cr-engine.h"

void
cr_test_assert_values_eps (const CrTensor *t,
                           const double   *expected,
                           gint64          n,
                           double          eps)
{
  g_assert_cmpint (t->numel, ==, n);
  for (gint64 i = 0; i < n; i++)
    g_assert_cmpfloat_with_epsilon (cr_tensor_get_flat (t, i), expected[i], eps);
}

void
cr_test_assert_values (const CrTensor *t,
                       const double   *expected,
                       gint64          n)
{
  cr_test_assert_values_eps (t, expected, n, 1e-9);
}

void
cr_test_assert_shape (const CrTensor *t,
                      const gint64   *shape,
                      int             ndim)
{
  g_assert_cmpint (t->ndim, ==, ndim);
  for (int d = 0; d < ndim; d++)
    g_assert_cmpint (t->shape[d], ==, shape[d]);
}

void
cr_test_assert_error (GError      *error,
                      CrException  code,
                      const char  *message)
{
  g_assert_nonnull (error);
  g_assert_true (error->domain == CR_CORE_ERROR);
  g_assert_cmpint (error->code, ==, code);
  g_assert_cmpstr (error->message, ==, message);
}

const char *
cr_test_fn_name (const CrTensor *t)
{
  return t->grad_fn != NULL ? cr_node_name (t->grad_fn) : "None";
}

const char *
cr_test_next_name (const CrNode *node,
                   guint         i)
{
  g_assert_cmpuint (i, <, node->n_inputs);
  return node->next[i].node != NULL ? cr_node_name (node->next[i].node) : "None";
}

CrTensor *
cr_test_long_tensor (const gint64 *values,
                     const gint64 *shape,
                     int           ndim)
{
  return cr_tensor_new_from_data (values, shape, ndim, CR_DTYPE_INT64, NULL);
}

void
cr_test_backward (CrTensor *t)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (cr_tensor_backward (t, NULL, FALSE, FALSE, NULL, NULL, &error));
  g_assert_no_error (error);
}
