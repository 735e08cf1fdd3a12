/* test-optim.c — torch.optim.SGD against PyTorch 1.13.
 *
 * Each case runs three steps of
 *   w = [1, -2, 3], b = 0.5 (float32, requires_grad)
 *   opt.zero_grad(); loss = (w * w).sum() * b + b * b; loss.backward(); opt.step()
 * and compares w, b and w.grad with what /usr/bin/python3 + torch printed. */
#include <math.h>

#include "cr-engine.h"
#include "cr-error.h"
#include "cr-optim.h"
#include "cr-ops.h"
#include "cr-tensor.h"

typedef struct {
  double lr, momentum, dampening, weight_decay;
  gboolean nesterov;
  double w[3], b, wgrad[3];
} SgdCase;

static const SgdCase cases[] = {
  /* SGD(lr=0.1) */
  { 0.1, 0, 0, 0, FALSE,
    { 1.497743844985962, -2.995487689971924, 4.493232250213623 }, -3.1801600456237793,
    { -4.1774396896362305, 8.354879379272461, -12.532320022583008 } },
  /* SGD(lr=0.1, momentum=0.9) */
  { 0.1, 0.9, 0, 0, FALSE,
    { 1.7212319374084473, -3.4424638748168945, 5.1636962890625 }, -6.054940223693848,
    { -6.502319812774658, 13.004639625549316, -19.506961822509766 } },
  /* SGD(lr=0.05, momentum=0.9, dampening=0.1, weight_decay=0.01) */
  { 0.05, 0.9, 0.1, 0.01, FALSE,
    { 1.02499520778656, -2.04999041557312, 3.0749855041503906 }, -2.975343942642212,
    { -2.721033811569214, 5.442067623138428, -8.163101196289062 } },
  /* SGD(lr=0.05, momentum=0.5, nesterov=True, weight_decay=0.1) */
  { 0.05, 0.5, 0, 0.1, TRUE,
    { 1.2186983823776245, -2.437396764755249, 3.656095027923584 }, -2.589773178100586,
    { -3.150310754776001, 6.300621509552002, -9.450931549072266 } },
};

static CrTensor *
param (const double *values,
       int           n)
{
  gint64 shape = n;
  CrTensor *t = n > 0 ? cr_tensor_new_zeros (&shape, 1, CR_DTYPE_FLOAT32, CR_DEVICE_CPU, NULL)
                      : cr_tensor_new_scalar (values[0], CR_DTYPE_FLOAT32);

  for (int i = 0; i < n; i++)
    cr_tensor_set_flat (t, i, values[i]);
  g_assert_true (cr_tensor_set_requires_grad (t, TRUE, NULL));
  return t;
}

static void
assert_close (double value,
              double expected)
{
  if (fabs (value - expected) > 1e-5 * MAX (1.0, fabs (expected)))
    g_error ("%.9g, expected %.9g", value, expected);
}

static void
test_sgd_cases (void)
{
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      const SgdCase *k = &cases[c];
      g_autoptr(CrTensor) w = param ((const double[]) { 1, -2, 3 }, 3);
      g_autoptr(CrTensor) b = param ((const double[]) { 0.5 }, 0);
      CrTensor *params[] = { w, b };
      g_autoptr(GError) error = NULL;
      CrSgd *opt = cr_sgd_new (params, 2, k->lr, k->momentum, k->dampening, k->weight_decay,
                               k->nesterov, &error);

      g_assert_no_error (error);
      g_assert_cmpuint (cr_sgd_get_n_params (opt), ==, 2);
      g_assert_true (cr_sgd_get_param (opt, 1) == b);
      for (int step = 0; step < 3; step++)
        {
          g_autoptr(CrTensor) ww = NULL;
          g_autoptr(CrTensor) s = NULL;
          g_autoptr(CrTensor) sb = NULL;
          g_autoptr(CrTensor) bb = NULL;
          g_autoptr(CrTensor) loss = NULL;

          cr_sgd_zero_grad (opt, FALSE);
          ww = cr_mul (w, w, &error);
          s = cr_sum (ww, &error);
          sb = cr_mul (s, b, &error);
          bb = cr_mul (b, b, &error);
          loss = cr_add (sb, bb, &error);
          g_assert_no_error (error);
          g_assert_true (cr_tensor_backward (loss, NULL, FALSE, FALSE, NULL, NULL, &error));
          g_assert_true (cr_sgd_step (opt, &error));
          g_assert_no_error (error);
        }
      for (int i = 0; i < 3; i++)
        {
          assert_close (cr_tensor_get_flat (w, i), k->w[i]);
          assert_close (cr_tensor_get_flat (w->grad, i), k->wgrad[i]);
        }
      assert_close (cr_tensor_get_flat (b, 0), k->b);
      /* step() records nothing and leaves the parameters leaves */
      g_assert_null (w->grad_fn);
      g_assert_true (w->requires_grad);
      cr_sgd_free (opt);
    }
}

/* zero_grad() zeroes .grad in place (the same tensor, PyTorch 1.13's default);
 * set_to_none drops it; a parameter without .grad is skipped by step(). */
static void
test_zero_grad_and_skip (void)
{
  g_autoptr(CrTensor) w = param ((const double[]) { 1, 2 }, 2);
  g_autoptr(CrTensor) u = param ((const double[]) { 1, 2 }, 2);
  g_autoptr(CrTensor) three = cr_tensor_new_scalar (3, CR_DTYPE_INT64);
  CrTensor *params[] = { w, u };
  g_autoptr(GError) error = NULL;
  CrSgd *opt = cr_sgd_new (params, 2, 0.1, 0.9, 0, 0, FALSE, &error);
  CrTensor *grad;

  three->is_wrapped_number = TRUE;
  {
    g_autoptr(CrTensor) w3 = cr_mul (w, three, &error);
    g_autoptr(CrTensor) s = cr_sum (w3, &error);

    g_assert_true (cr_tensor_backward (s, NULL, FALSE, FALSE, NULL, NULL, &error));
  }
  g_assert_true (cr_sgd_step (opt, &error));
  assert_close (cr_tensor_get_flat (w, 0), 0.699999988079071);
  assert_close (cr_tensor_get_flat (w, 1), 1.7000000476837158);
  assert_close (cr_tensor_get_flat (u, 0), 1.0);
  assert_close (cr_tensor_get_flat (u, 1), 2.0);

  grad = w->grad;
  cr_sgd_zero_grad (opt, FALSE);
  g_assert_true (w->grad == grad);
  assert_close (cr_tensor_get_flat (w->grad, 0), 0.0);
  cr_sgd_zero_grad (opt, TRUE);
  g_assert_null (w->grad);

  g_assert_cmpfloat (cr_sgd_get_lr (opt), ==, 0.1);
  cr_sgd_set_lr (opt, 0.5);
  g_assert_cmpfloat (cr_sgd_get_lr (opt), ==, 0.5);
  cr_sgd_free (opt);
  cr_sgd_free (NULL);
}

static void
test_errors (void)
{
  g_autoptr(CrTensor) w = param ((const double[]) { 1, 2 }, 2);
  g_autoptr(GError) error = NULL;
  struct { double lr, momentum, dampening, wd; gboolean nesterov; const char *message; } bad[] = {
    { -0.1, 0, 0, 0, FALSE, "Invalid learning rate: -0.1" },
    { 0.1, -0.5, 0, 0, FALSE, "Invalid momentum value: -0.5" },
    { 0.1, 0, 0, -1e-05, FALSE, "Invalid weight_decay value: -1e-05" },
    { 0.1, 0, 0, 0, TRUE, "Nesterov momentum requires a momentum and zero dampening" },
    { 0.1, 0.9, 0.1, 0, TRUE, "Nesterov momentum requires a momentum and zero dampening" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_assert_null (cr_sgd_new (&w, 1, bad[i].lr, bad[i].momentum, bad[i].dampening, bad[i].wd,
                                 bad[i].nesterov, &error));
      g_assert_error (error, CR_CORE_ERROR, CR_EXC_VALUE_ERROR);
      g_assert_cmpstr (error->message, ==, bad[i].message);
      g_clear_error (&error);
    }
  g_assert_null (cr_sgd_new (NULL, 0, 0.1, 0, 0, 0, FALSE, &error));
  g_assert_cmpstr (error->message, ==, "optimizer got an empty parameter list");
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/core/optim/sgd", test_sgd_cases);
  g_test_add_func ("/core/optim/zero-grad", test_zero_grad_and_skip);
  g_test_add_func ("/core/optim/errors", test_errors);

  return g_test_run ();
}
