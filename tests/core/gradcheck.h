/* gradcheck.h — finite-difference gradient checks for the op tests (float64),
 * after torch.autograd.gradcheck / gradgradcheck.
 *
 * cr_gradcheck() compares, for every input that requires grad, the full
 * Jacobian from the engine (torch.autograd.grad mode, one one-hot grad_output
 * per output element) with central differences, (f(x + eps) - f(x - eps)) / 2eps,
 * element by element: |analytic - numerical| <= atol + rtol * |numerical|.
 * Mismatches are printed with g_test_message() and make it return FALSE, so a
 * test writes g_assert_true (cr_gradcheck (...)).
 *
 * cr_gradgradcheck() checks second derivatives: it gradchecks the function
 * (inputs..., v) -> ∂(v · f)/∂input_i computed with create_graph = TRUE, for
 * each input i, with v a random float64 tensor of f's output shape.
 *
 * The function under test gets borrowed inputs and returns a new ref (or NULL
 * with an error, which fails the check). It must be deterministic; inputs are
 * perturbed in place between calls (their storage, any strides). */
#pragma once

#include "cr-tensor.h"

G_BEGIN_DECLS

typedef CrTensor *(*CrGradcheckFunc) (CrTensor *const *inputs,
                                      guint            n_inputs,
                                      gpointer         user_data,
                                      GError         **error);

typedef struct {
  double eps;    /* 1e-6 */
  double atol;   /* 1e-5 */
  double rtol;   /* 1e-3 */
} CrGradcheckOptions;

/* With torch's defaults (eps 1e-6, atol 1e-5, rtol 1e-3). */
gboolean  cr_gradcheck             (CrGradcheckFunc           func,
                                    gpointer                  user_data,
                                    CrTensor *const          *inputs,
                                    guint                     n_inputs);
gboolean  cr_gradcheck_full        (CrGradcheckFunc           func,
                                    gpointer                  user_data,
                                    CrTensor *const          *inputs,
                                    guint                     n_inputs,
                                    const CrGradcheckOptions *options);
gboolean  cr_gradgradcheck         (CrGradcheckFunc           func,
                                    gpointer                  user_data,
                                    CrTensor *const          *inputs,
                                    guint                     n_inputs);

/* A float64 leaf of shape with deterministic values uniform in [lo, hi)
 * (from seed), requires_grad set. New ref. */
CrTensor *cr_gradcheck_rand        (const gint64             *shape,
                                    int                       ndim,
                                    double                    lo,
                                    double                    hi,
                                    guint32                   seed);
/* The same, but the leaf is a non-contiguous view: its storage is laid out
 * for the reversed shape and the leaf has transposed strides (like x.t() of a
 * contiguous matrix, made a leaf). */
CrTensor *cr_gradcheck_rand_transposed (const gint64         *shape,
                                    int                       ndim,
                                    double                    lo,
                                    double                    hi,
                                    guint32                   seed);
/* A float64 leaf from values (row-major), requires_grad as given. */
CrTensor *cr_gradcheck_tensor      (const double             *values,
                                    const gint64             *shape,
                                    int                       ndim,
                                    gboolean                  requires_grad);

G_END_DECLS
