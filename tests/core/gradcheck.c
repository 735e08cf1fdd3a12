/* gradcheck.c — finite differences against the engine's gradients (see gradcheck.h). */
#include "gradcheck.h"

#include <math.h>

#include "cr-engine.h"
#include "cr-grad-mode.h"
#include "cr-node.h"

static const CrGradcheckOptions default_options = { 1e-6, 1e-5, 1e-3 };

static CrTensor *
call_func (CrGradcheckFunc   func,
           gpointer          user_data,
           CrTensor *const  *inputs,
           guint             n_inputs,
           gboolean          grad_mode)
{
  g_autoptr(GError) error = NULL;
  gboolean prev = cr_grad_mode_set_enabled (grad_mode);
  CrTensor *out = func (inputs, n_inputs, user_data, &error);

  cr_grad_mode_set_enabled (prev);
  if (out == NULL)
    g_test_message ("gradcheck: the function failed: %s",
                    error ? error->message : "(no error set)");
  return out;
}

/* The numerical Jacobian of input i: n_out rows by numel(input) columns,
 * column-major in the sense that jac[k * n_out + j] = ∂out_j/∂in_k. */
static double *
numerical_jacobian (CrGradcheckFunc           func,
                    gpointer                  user_data,
                    CrTensor *const          *inputs,
                    guint                     n_inputs,
                    guint                     i,
                    gint64                    n_out,
                    const CrGradcheckOptions *options)
{
  CrTensor *x = inputs[i];
  double *jac = g_new0 (double, MAX (1, n_out * x->numel));

  g_autofree double *plus_values = g_new0 (double, MAX (1, n_out));

  for (gint64 k = 0; k < x->numel; k++)
    {
      double orig = cr_tensor_get_flat (x, k);
      g_autoptr(CrTensor) plus = NULL;
      g_autoptr(CrTensor) minus = NULL;

      /* The output may be a view of the input: read it before the next
       * perturbation changes it. */
      cr_tensor_set_flat (x, k, orig + options->eps);
      plus = call_func (func, user_data, inputs, n_inputs, FALSE);
      if (plus != NULL)
        for (gint64 j = 0; j < n_out; j++)
          plus_values[j] = cr_tensor_get_flat (plus, j);
      cr_tensor_set_flat (x, k, orig - options->eps);
      minus = call_func (func, user_data, inputs, n_inputs, FALSE);
      if (plus == NULL || minus == NULL)
        {
          cr_tensor_set_flat (x, k, orig);
          g_free (jac);
          return NULL;
        }
      for (gint64 j = 0; j < n_out; j++)
        jac[k * n_out + j] = (plus_values[j] - cr_tensor_get_flat (minus, j))
                             / (2 * options->eps);
      cr_tensor_set_flat (x, k, orig);
    }
  return jac;
}

gboolean
cr_gradcheck_full (CrGradcheckFunc           func,
                   gpointer                  user_data,
                   CrTensor *const          *inputs,
                   guint                     n_inputs,
                   const CrGradcheckOptions *options)
{
  g_autoptr(CrTensor) out = NULL;
  g_autoptr(GPtrArray) diff_inputs = g_ptr_array_new ();
  g_autofree guint *diff_index = g_new0 (guint, MAX (1, n_inputs));
  double **analytic = NULL;
  gboolean ok = TRUE;
  gint64 n_out;

  if (options == NULL)
    options = &default_options;

  for (guint i = 0; i < n_inputs; i++)
    if (inputs[i] != NULL && inputs[i]->requires_grad)
      {
        if (inputs[i]->dtype != CR_DTYPE_FLOAT64)
          {
            g_test_message ("gradcheck: input %u is not float64", i);
            return FALSE;
          }
        diff_index[diff_inputs->len] = i;
        g_ptr_array_add (diff_inputs, inputs[i]);
      }
  if (diff_inputs->len == 0)
    {
      g_test_message ("gradcheck: no input requires grad");
      return FALSE;
    }

  out = call_func (func, user_data, inputs, n_inputs, TRUE);
  if (out == NULL)
    return FALSE;
  n_out = out->numel;

  /* Analytic rows: one backward per output element with a one-hot grad_output. */
  analytic = g_new0 (double *, diff_inputs->len);
  for (guint d = 0; d < diff_inputs->len; d++)
    analytic[d] = g_new0 (double, MAX (1, n_out * ((CrTensor *) diff_inputs->pdata[d])->numel));

  if (out->requires_grad)
    {
      for (gint64 j = 0; j < n_out && ok; j++)
        {
          g_autoptr(CrTensor) v = cr_tensor_new_zeros (out->shape, out->ndim, out->dtype,
                                                       out->device, NULL);
          g_autoptr(GError) error = NULL;
          CrTensor **grads = NULL;
          CrBackwardOptions bo = { 0 };

          cr_tensor_set_flat (v, j, 1.0);
          bo.retain_graph = TRUE;
          bo.inputs = (CrTensor *const *) diff_inputs->pdata;
          bo.n_inputs = diff_inputs->len;
          bo.allow_unused = TRUE;
          if (!cr_autograd_run (&out, (CrTensor *const *) &v, 1, &bo, &grads, &error))
            {
              g_test_message ("gradcheck: backward failed: %s", error->message);
              ok = FALSE;
              break;
            }
          for (guint d = 0; d < diff_inputs->len; d++)
            {
              CrTensor *x = diff_inputs->pdata[d];
              CrTensor *g = grads[d];

              if (g == NULL)
                continue;   /* unused: a zero row */
              if (!cr_shape_equal (g->shape, g->ndim, x->shape, x->ndim) || g->dtype != x->dtype)
                {
                  g_autofree char *gs = cr_shape_to_string (g->shape, g->ndim);
                  g_autofree char *xs = cr_shape_to_string (x->shape, x->ndim);

                  g_test_message ("gradcheck: gradient of input %u has shape [%s] dtype %s, "
                                  "the input has [%s] %s", diff_index[d], gs,
                                  cr_dtype_name (g->dtype), xs, cr_dtype_name (x->dtype));
                  ok = FALSE;
                }
              else
                for (gint64 k = 0; k < x->numel; k++)
                  analytic[d][k * n_out + j] = cr_tensor_get_flat (g, k);
            }
          for (guint d = 0; d < diff_inputs->len; d++)
            cr_tensor_unref (grads[d]);
          g_free (grads);
        }
    }

  for (guint d = 0; d < diff_inputs->len && ok; d++)
    {
      CrTensor *x = diff_inputs->pdata[d];
      g_autofree double *numerical = NULL;
      guint n_bad = 0;

      if (x->grad != NULL)
        {
          g_test_message ("gradcheck: autograd.grad mode wrote .grad of input %u", diff_index[d]);
          ok = FALSE;
        }
      numerical = numerical_jacobian (func, user_data, inputs, n_inputs, diff_index[d],
                                      n_out, options);
      if (numerical == NULL)
        {
          ok = FALSE;
          break;
        }
      for (gint64 k = 0; k < x->numel; k++)
        for (gint64 j = 0; j < n_out; j++)
          {
            double a = analytic[d][k * n_out + j];
            double n = numerical[k * n_out + j];

            if (!(fabs (a - n) <= options->atol + options->rtol * fabs (n)))
              {
                if (n_bad++ < 8)
                  g_test_message ("gradcheck: input %u element %" G_GINT64_FORMAT
                                  ", output element %" G_GINT64_FORMAT
                                  ": analytic %.10g, numerical %.10g",
                                  diff_index[d], k, j, a, n);
                ok = FALSE;
              }
          }
    }

  for (guint d = 0; d < diff_inputs->len; d++)
    g_free (analytic[d]);
  g_free (analytic);
  return ok;
}

gboolean
cr_gradcheck (CrGradcheckFunc  func,
              gpointer         user_data,
              CrTensor *const *inputs,
              guint            n_inputs)
{
  return cr_gradcheck_full (func, user_data, inputs, n_inputs, NULL);
}

/* ---- second order ------------------------------------------------------ */

typedef struct {
  CrGradcheckFunc  func;
  gpointer         user_data;
  guint            n_inputs;     /* of func; the last input of the wrapper is v */
  guint            which;        /* the input whose gradient is returned */
} GradGradData;

/* (inputs..., v) -> ∂(v · func(inputs))/∂inputs[which], with create_graph. */
static CrTensor *
first_derivative (CrTensor *const *inputs,
                  guint            n_inputs,
                  gpointer         user_data,
                  GError         **error)
{
  GradGradData *data = user_data;
  gboolean prev = cr_grad_mode_set_enabled (TRUE);
  g_autoptr(CrTensor) out = NULL;
  CrTensor *v = inputs[data->n_inputs];
  CrTensor **grads = NULL;
  CrBackwardOptions bo = { 0 };
  CrTensor *result = NULL;

  out = data->func (inputs, data->n_inputs, data->user_data, error);
  if (out == NULL)
    goto out;
  if (!out->requires_grad)
    {
      result = cr_tensor_new_zeros (inputs[data->which]->shape, inputs[data->which]->ndim,
                                    CR_DTYPE_FLOAT64, CR_DEVICE_CPU, error);
      goto out;
    }
  bo.create_graph = TRUE;
  /* torch.autograd.grad: retain_graph defaults to create_graph (a backward
   * formula that uses a saved output goes through its node again). */
  bo.retain_graph = TRUE;
  bo.inputs = &inputs[data->which];
  bo.n_inputs = 1;
  bo.allow_unused = TRUE;
  if (!cr_autograd_run (&out, &v, 1, &bo, &grads, error))
    goto out;
  result = grads[0];
  g_free (grads);
  if (result == NULL)
    result = cr_tensor_new_zeros (inputs[data->which]->shape, inputs[data->which]->ndim,
                                  CR_DTYPE_FLOAT64, CR_DEVICE_CPU, error);
out:
  cr_grad_mode_set_enabled (prev);
  return result;
}

gboolean
cr_gradgradcheck (CrGradcheckFunc  func,
                  gpointer         user_data,
                  CrTensor *const *inputs,
                  guint            n_inputs)
{
  g_autoptr(CrTensor) out = NULL;
  g_autoptr(CrTensor) v = NULL;
  g_autofree CrTensor **all = NULL;
  gboolean ok = TRUE;

  out = call_func (func, user_data, inputs, n_inputs, TRUE);
  if (out == NULL)
    return FALSE;
  v = cr_gradcheck_rand (out->shape, out->ndim, -1.0, 1.0, 4242);
  all = g_new0 (CrTensor *, n_inputs + 1);
  for (guint i = 0; i < n_inputs; i++)
    all[i] = inputs[i];
  all[n_inputs] = v;

  for (guint i = 0; i < n_inputs; i++)
    {
      GradGradData data = { func, user_data, n_inputs, i };

      if (inputs[i] == NULL || !inputs[i]->requires_grad)
        continue;
      if (!cr_gradcheck (first_derivative, &data, all, n_inputs + 1))
        {
          g_test_message ("gradgradcheck: second derivatives through input %u differ", i);
          ok = FALSE;
        }
    }
  return ok;
}

/* ---- inputs ------------------------------------------------------------ */

static void
fill_uniform (CrTensor *t,
              double    lo,
              double    hi,
              guint32   seed)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (seed);

  for (gint64 k = 0; k < t->numel; k++)
    cr_tensor_set_flat (t, k, g_rand_double_range (rand, lo, hi));
}

CrTensor *
cr_gradcheck_rand (const gint64 *shape,
                   int           ndim,
                   double        lo,
                   double        hi,
                   guint32       seed)
{
  CrTensor *t = cr_tensor_new_zeros (shape, ndim, CR_DTYPE_FLOAT64, CR_DEVICE_CPU, NULL);

  g_assert_nonnull (t);
  fill_uniform (t, lo, hi, seed);
  g_assert_true (cr_tensor_set_requires_grad (t, TRUE, NULL));
  return t;
}

CrTensor *
cr_gradcheck_rand_transposed (const gint64 *shape,
                              int           ndim,
                              double        lo,
                              double        hi,
                              guint32       seed)
{
  gint64 rshape[CR_MAX_DIMS] = { 0 };
  gint64 rstrides[CR_MAX_DIMS];
  gint64 strides[CR_MAX_DIMS];
  g_autoptr(CrTensor) base = NULL;
  CrTensor *t;

  for (int d = 0; d < ndim; d++)
    rshape[d] = shape[ndim - 1 - d];
  base = cr_tensor_new_zeros (rshape, ndim, CR_DTYPE_FLOAT64, CR_DEVICE_CPU, NULL);
  g_assert_nonnull (base);
  cr_shape_contiguous_strides (rshape, ndim, rstrides);
  for (int d = 0; d < ndim; d++)
    strides[d] = rstrides[ndim - 1 - d];
  t = cr_tensor_new_view (base, shape, ndim, strides, base->offset);
  fill_uniform (t, lo, hi, seed);
  g_assert_true (cr_tensor_set_requires_grad (t, TRUE, NULL));
  return t;
}

CrTensor *
cr_gradcheck_tensor (const double *values,
                     const gint64 *shape,
                     int           ndim,
                     gboolean      requires_grad)
{
  CrTensor *t = cr_tensor_new_from_data (values, shape, ndim, CR_DTYPE_FLOAT64, NULL);

  g_assert_nonnull (t);
  if (requires_grad)
    g_assert_true (cr_tensor_set_requires_grad (t, TRUE, NULL));
  return t;
}
