/* test-ops-conv.c — convolution and pooling: first and second finite-
 * difference checks (float64) for each option family (stride, padding,
 * dilation, groups, bias, transposed, 1-d, non-contiguous inputs; max/avg
 * pooling with padding, dilation, ceil_mode, count_include_pad,
 * divisor_override; adaptive pools), values against PyTorch 1.13, grad_fn
 * names and error texts. */
#include <math.h>

#include "cr-ops.h"
#include "cr-ops-conv.h"
#include "cr-node.h"
#include "cr-engine.h"
#include "cr-error.h"
#include "gradcheck.h"
#include "test-util.h"

/* ---- convolution --------------------------------------------------------- */

static CrTensor *
call_conv (CrTensor *const *in,
           guint            n,
           gpointer         data,
           GError         **error)
{
  return cr_convolution (in[0], in[1], n > 2 ? in[2] : NULL, data, error);
}

static void
check_conv (const CrConvParams *p,
            const gint64       *x_shape,
            const gint64       *w_shape,
            gint64              bias_size,
            gboolean            second_order)
{
  int nd = p->spatial + 2;
  g_autoptr(CrTensor) x = cr_gradcheck_rand (x_shape, nd, -1.0, 1.0, 11);
  g_autoptr(CrTensor) w = cr_gradcheck_rand (w_shape, nd, -1.0, 1.0, 12);
  g_autoptr(CrTensor) b = bias_size > 0 ? cr_gradcheck_rand (&bias_size, 1, -1.0, 1.0, 13) : NULL;
  CrTensor *in[3] = { x, w, b };
  guint n = b != NULL ? 3 : 2;

  g_assert_true (cr_gradcheck (call_conv, (gpointer) p, in, n));
  if (second_order)
    g_assert_true (cr_gradgradcheck (call_conv, (gpointer) p, in, n));
}

static CrConvParams
conv_params (int      spatial,
             gint64   stride,
             gint64   padding,
             gint64   dilation,
             gint64   groups,
             gboolean transposed,
             gint64   output_padding)
{
  CrConvParams p = { 0, };

  p.spatial = spatial;
  for (int i = 0; i < 2; i++)
    {
      p.stride[i] = stride;
      p.padding[i] = padding;
      p.dilation[i] = dilation;
      p.output_padding[i] = output_padding;
    }
  p.groups = groups;
  p.transposed = transposed;
  return p;
}

static void
test_conv2d_gradcheck (void)
{
  CrConvParams plain = conv_params (2, 1, 0, 1, 1, FALSE, 0);
  CrConvParams strided = conv_params (2, 2, 1, 2, 1, FALSE, 0);
  CrConvParams grouped = conv_params (2, 1, 1, 1, 2, FALSE, 0);

  check_conv (&plain, (gint64[]) { 2, 3, 5, 4 }, (gint64[]) { 2, 3, 2, 3 }, 2, TRUE);
  check_conv (&strided, (gint64[]) { 2, 2, 7, 6 }, (gint64[]) { 3, 2, 3, 2 }, 0, TRUE);
  check_conv (&grouped, (gint64[]) { 1, 4, 4, 4 }, (gint64[]) { 6, 2, 3, 3 }, 6, TRUE);
  /* Unequal strides and paddings per axis. */
  strided.stride[1] = 1;
  strided.padding[0] = 0;
  check_conv (&strided, (gint64[]) { 1, 2, 7, 5 }, (gint64[]) { 2, 2, 2, 3 }, 2, FALSE);
}

static void
test_conv1d_gradcheck (void)
{
  CrConvParams p = conv_params (1, 2, 1, 2, 1, FALSE, 0);
  CrConvParams g = conv_params (1, 1, 2, 1, 3, FALSE, 0);

  check_conv (&p, (gint64[]) { 2, 3, 9 }, (gint64[]) { 4, 3, 3 }, 4, TRUE);
  check_conv (&g, (gint64[]) { 2, 3, 5 }, (gint64[]) { 3, 1, 2 }, 0, TRUE);
}

static void
test_conv_transpose_gradcheck (void)
{
  CrConvParams p = conv_params (2, 2, 1, 1, 1, TRUE, 1);
  CrConvParams g = conv_params (2, 1, 0, 2, 2, TRUE, 0);
  CrConvParams one = conv_params (1, 3, 1, 1, 1, TRUE, 2);

  check_conv (&p, (gint64[]) { 2, 3, 3, 4 }, (gint64[]) { 3, 2, 3, 3 }, 2, TRUE);
  check_conv (&g, (gint64[]) { 1, 4, 3, 3 }, (gint64[]) { 4, 1, 2, 2 }, 2, TRUE);
  check_conv (&one, (gint64[]) { 2, 2, 4 }, (gint64[]) { 2, 3, 3 }, 3, TRUE);
}

/* A transposed (non-contiguous) input and weight. */
static void
test_conv_strided_inputs (void)
{
  CrConvParams p = conv_params (2, 1, 1, 1, 1, FALSE, 0);
  g_autoptr(CrTensor) x = cr_gradcheck_rand_transposed ((gint64[]) { 2, 2, 4, 3 }, 4, -1, 1, 21);
  g_autoptr(CrTensor) w = cr_gradcheck_rand_transposed ((gint64[]) { 3, 2, 2, 2 }, 4, -1, 1, 22);
  CrTensor *in[2] = { x, w };

  g_assert_true (cr_gradcheck (call_conv, &p, in, 2));
}

/* Values against PyTorch 1.13 (float64): x = arange(2*2*3*3).reshape(...)
 * / 10, w = arange(2*1*2*2).reshape(2,1,2,2) / 4 - 0.5, groups=2, padding=1,
 * stride=2, bias [0.5, -1]. */
static void
test_conv_values (void)
{
  double xv[36], wv[8];
  g_autoptr(CrTensor) x = NULL, w = NULL, b = NULL, y = NULL, s = NULL;
  g_autoptr(GError) error = NULL;
  CrConvParams p = conv_params (2, 2, 1, 1, 2, FALSE, 0);

  for (int i = 0; i < 36; i++)
    xv[i] = i / 10.0;
  for (int i = 0; i < 8; i++)
    wv[i] = i / 4.0 - 0.5;
  x = cr_gradcheck_tensor (xv, (gint64[]) { 2, 2, 3, 3 }, 4, TRUE);
  w = cr_gradcheck_tensor (wv, (gint64[]) { 2, 1, 2, 2 }, 4, TRUE);
  b = cr_gradcheck_tensor ((double[]) { 0.5, -1.0 }, (gint64[]) { 2 }, 1, TRUE);
  y = cr_convolution (x, w, b, &p, &error);
  g_assert_no_error (error);
  cr_test_assert_shape (y, (gint64[]) { 2, 2, 2, 2 }, 4);
  cr_test_assert_values (y, (double[]) { 0.5, 0.55, 0.575, 0.375,
                                         0.125, 1.375, 1.775, 4.425,
                                         0.95, 1.0, 0.575, -0.525,
                                         2.375, 5.425, 5.375, 10.725 }, 16);
  g_assert_cmpstr (cr_test_fn_name (y), ==, "ConvolutionBackward0");
  g_assert_cmpstr (cr_test_next_name (y->grad_fn, 0), ==, "AccumulateGrad");
  s = cr_sum (y, &error);
  g_assert_no_error (error);
  cr_test_backward (s);
  cr_test_assert_values (w->grad, (double[]) { 2.6, 5.2, 5.2, 10.4, 4.4, 8.8, 8.8, 17.6 }, 8);
  cr_test_assert_values (b->grad, (double[]) { 8.0, 8.0 }, 2);
}

static void
test_conv_errors (void)
{
  g_autoptr(CrTensor) x = cr_gradcheck_rand ((gint64[]) { 2, 3, 7, 7 }, 4, -1, 1, 1);
  g_autoptr(CrTensor) w2 = cr_gradcheck_rand ((gint64[]) { 4, 2, 3, 3 }, 4, -1, 1, 2);
  g_autoptr(CrTensor) w9 = cr_gradcheck_rand ((gint64[]) { 4, 3, 9, 9 }, 4, -1, 1, 3);
  g_autoptr(CrTensor) w3 = cr_gradcheck_rand ((gint64[]) { 3, 3, 3, 3 }, 4, -1, 1, 4);
  g_autoptr(CrTensor) b3 = cr_gradcheck_rand ((gint64[]) { 3 }, 1, -1, 1, 5);
  CrConvParams p = conv_params (2, 1, 0, 1, 1, FALSE, 0);
  CrConvParams g2 = conv_params (2, 1, 0, 1, 2, FALSE, 0);
  CrConvParams bad = conv_params (2, 0, 0, 1, 1, FALSE, 0);
  CrConvParams t = conv_params (2, 1, 0, 1, 1, TRUE, 1);
  GError *error = NULL;

  g_assert_null (cr_convolution (x, w2, NULL, &p, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR,
                        "Given groups=1, weight of size [4, 2, 3, 3], expected input[2, 3, 7, 7] "
                        "to have 2 channels, but got 3 channels instead");
  g_clear_error (&error);
  g_assert_null (cr_convolution (x, w9, NULL, &p, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR,
                        "Calculated padded input size per channel: (7 x 7). Kernel size: (9 x 9). "
                        "Kernel size can't be greater than actual input size");
  g_clear_error (&error);
  g_assert_null (cr_convolution (x, w3, NULL, &g2, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR,
                        "Given groups=2, expected weight to be divisible by 2 at dimension 0, "
                        "but got weight of size [[3, 3, 3, 3]] instead");
  g_clear_error (&error);
  g_assert_null (cr_convolution (x, w3, b3, &bad, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR, "non-positive stride is not supported");
  g_clear_error (&error);
  {
    g_autoptr(CrTensor) xf = cr_kernel_cast (x, CR_DTYPE_FLOAT32, NULL);
    g_autoptr(CrTensor) xl = cr_kernel_cast (x, CR_DTYPE_INT64, NULL);
    g_autoptr(CrTensor) xb = cr_kernel_cast (x, CR_DTYPE_BOOL, NULL);
    g_autoptr(CrTensor) wf = cr_kernel_cast (w3, CR_DTYPE_FLOAT32, NULL);
    g_autoptr(CrTensor) wb = cr_kernel_cast (w3, CR_DTYPE_BOOL, NULL);

    g_assert_null (cr_convolution (xf, w3, NULL, &p, &error));
    cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR,
                          "Input type (torch.FloatTensor) and weight type (torch.DoubleTensor) "
                          "should be the same or input should be a MKLDNN tensor and weight is a "
                          "dense tensor");
    g_clear_error (&error);
    g_assert_null (cr_convolution (x, wf, NULL, &p, &error));
    cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR, "expected scalar type Double but found Float");
    g_clear_error (&error);
    g_assert_null (cr_convolution (xl, wf, NULL, &p, &error));
    cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR, "expected scalar type Long but found Float");
    g_clear_error (&error);
    g_assert_null (cr_convolution (xf, wf, b3, &p, &error));
    cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR,
                          "Input type (float) and bias type (double) should be the same");
    g_clear_error (&error);
    g_assert_null (cr_convolution (xb, wb, NULL, &p, &error));
    cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR,
                          "\"slow_conv2d_cpu\" not implemented for 'Bool'");
    g_clear_error (&error);
  }
  g_assert_null (cr_convolution (x, w3, NULL, &t, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR,
                        "output padding must be smaller than either stride or dilation, but got "
                        "output_padding_height: 1 output_padding_width: 1 stride_height: 1 "
                        "stride_width: 1 dilation_height: 1 dilation_width: 1");
  g_clear_error (&error);
}

/* ---- pooling ------------------------------------------------------------- */

typedef enum {
  POOL_MAX,
  POOL_AVG,
  POOL_ADAPTIVE_AVG,
  POOL_ADAPTIVE_MAX,
} PoolKind;

typedef struct {
  PoolKind        kind;
  CrPool2dParams  p;
  gint64          out[2];
} PoolCase;

static CrTensor *
call_pool (CrTensor *const *in,
           guint            n,
           gpointer         data,
           GError         **error)
{
  const PoolCase *c = data;

  switch (c->kind)
    {
    case POOL_MAX:          return cr_max_pool2d (in[0], &c->p, NULL, error);
    case POOL_AVG:          return cr_avg_pool2d (in[0], &c->p, error);
    case POOL_ADAPTIVE_AVG: return cr_adaptive_avg_pool2d (in[0], c->out[0], c->out[1], error);
    case POOL_ADAPTIVE_MAX: return cr_adaptive_max_pool2d (in[0], c->out[0], c->out[1], NULL, error);
    default:                return NULL;
    }
}

static PoolCase
pool_case (PoolKind kind,
           gint64   kernel,
           gint64   stride,
           gint64   padding,
           gint64   dilation,
           gboolean ceil_mode)
{
  PoolCase c = { 0, };

  c.kind = kind;
  for (int i = 0; i < 2; i++)
    {
      c.p.kernel[i] = kernel;
      c.p.stride[i] = stride;
      c.p.padding[i] = padding;
      c.p.dilation[i] = dilation;
    }
  c.p.ceil_mode = ceil_mode;
  c.p.count_include_pad = TRUE;
  return c;
}

static void
check_pool (const PoolCase *c,
            const gint64   *shape,
            int             ndim)
{
  /* Distinct values: a tie in a max window has no derivative. */
  g_autoptr(CrTensor) x = cr_gradcheck_rand (shape, ndim, -1.0, 1.0, 31);

  g_assert_true (cr_gradcheck (call_pool, (gpointer) c, &x, 1));
  g_assert_true (cr_gradgradcheck (call_pool, (gpointer) c, &x, 1));
}

static void
test_pool_gradcheck (void)
{
  PoolCase max = pool_case (POOL_MAX, 2, 2, 0, 1, FALSE);
  PoolCase max_pad = pool_case (POOL_MAX, 3, 2, 1, 2, TRUE);
  PoolCase avg = pool_case (POOL_AVG, 3, 2, 1, 1, TRUE);
  PoolCase avg_nopad = pool_case (POOL_AVG, 3, 2, 1, 1, TRUE);
  PoolCase avg_div = pool_case (POOL_AVG, 2, 1, 1, 1, FALSE);
  PoolCase aavg = pool_case (POOL_ADAPTIVE_AVG, 1, 1, 0, 1, FALSE);
  PoolCase amax = pool_case (POOL_ADAPTIVE_MAX, 1, 1, 0, 1, FALSE);

  avg_nopad.p.count_include_pad = FALSE;
  avg_div.p.divisor_override = 3;
  aavg.out[0] = amax.out[0] = 3;
  aavg.out[1] = amax.out[1] = 4;
  check_pool (&max, (gint64[]) { 2, 2, 4, 5 }, 4);
  check_pool (&max_pad, (gint64[]) { 2, 6, 7 }, 3);
  check_pool (&avg, (gint64[]) { 2, 2, 5, 6 }, 4);
  check_pool (&avg_nopad, (gint64[]) { 1, 2, 5, 6 }, 4);
  check_pool (&avg_div, (gint64[]) { 1, 2, 3, 4 }, 4);
  check_pool (&aavg, (gint64[]) { 2, 2, 5, 7 }, 4);
  check_pool (&amax, (gint64[]) { 1, 2, 5, 7 }, 4);
}

/* Values and indices against PyTorch 1.13 on x = sin(arange(1*1*4*5)). */
static void
test_pool_values (void)
{
  double xv[20];
  g_autoptr(CrTensor) x = NULL, m = NULL, idx = NULL, a = NULL, aa = NULL;
  g_autoptr(GError) error = NULL;
  PoolCase max = pool_case (POOL_MAX, 2, 2, 1, 1, TRUE);
  PoolCase avg = pool_case (POOL_AVG, 2, 2, 1, 1, TRUE);

  for (int i = 0; i < 20; i++)
    xv[i] = sin ((double) i);
  x = cr_gradcheck_tensor (xv, (gint64[]) { 1, 1, 4, 5 }, 4, TRUE);
  m = cr_max_pool2d (x, &max.p, &idx, &error);
  g_assert_no_error (error);
  cr_test_assert_shape (m, (gint64[]) { 1, 1, 3, 3 }, 4);
  g_assert_cmpstr (cr_test_fn_name (m), ==, "MaxPool2DWithIndicesBackward0");
  cr_test_assert_values (idx, (double[]) { 0, 2, 3, 10, 7, 14, 15, 16, 19 }, 9);
  avg.p.count_include_pad = FALSE;
  a = cr_avg_pool2d (x, &avg.p, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (cr_test_fn_name (a), ==, "AvgPool2DBackward0");
  cr_test_assert_values_eps (a, (double[]) { 0.0, 0.8753842058167891, -0.3078412436240305,
                                             -0.7514726927762541, -0.2897480060078188,
                                             0.7030627810966624, 0.6502878401571168,
                                             -0.6246504042723111, -0.30055501855436184 }, 9, 1e-12);
  aa = cr_adaptive_avg_pool2d (x, 3, 2, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (cr_test_fn_name (aa), ==, "AdaptiveAvgPool2DBackward0");
  cr_test_assert_shape (aa, (gint64[]) { 1, 1, 3, 2 }, 4);
}

static void
test_pool_errors (void)
{
  g_autoptr(CrTensor) x = cr_gradcheck_rand ((gint64[]) { 2, 3, 7, 7 }, 4, -1, 1, 1);
  PoolCase big = pool_case (POOL_MAX, 9, 9, 0, 1, FALSE);
  PoolCase pad = pool_case (POOL_AVG, 2, 2, 2, 1, FALSE);
  GError *error = NULL;

  g_assert_null (cr_max_pool2d (x, &big.p, NULL, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR,
                        "Given input size: (3x7x7). Calculated output size: (3x0x0). "
                        "Output size is too small");
  g_clear_error (&error);
  {
    g_autoptr(CrTensor) xl = cr_kernel_cast (x, CR_DTYPE_INT64, NULL);
    PoolCase two = pool_case (POOL_MAX, 2, 2, 0, 1, FALSE);

    g_assert_null (cr_max_pool2d (xl, &two.p, NULL, &error));
    cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR, "\"max_pool2d\" not implemented for 'Long'");
    g_clear_error (&error);
  }
  g_assert_null (cr_avg_pool2d (x, &pad.p, &error));
  cr_test_assert_error (error, CR_EXC_RUNTIME_ERROR,
                        "pad should be at most half of kernel size, but got pad=2 and "
                        "kernel_size=2");
  g_clear_error (&error);
}

/* The pool's chunks write disjoint memory: two threads give one thread's
 * results (float64, sizes large enough for the thread pool). */
static CrTensor *
conv_and_pool (CrTensor  *x,
               CrTensor  *w,
               CrTensor **gx,
               CrTensor **gw)
{
  CrConvParams p = conv_params (2, 1, 1, 1, 1, FALSE, 0);
  PoolCase max = pool_case (POOL_MAX, 2, 2, 0, 1, FALSE);
  CrTensor *inputs[2] = { x, w };
  g_autoptr(CrTensor) y = NULL, m = NULL, s = NULL;
  CrTensor **grads = NULL;
  g_autoptr(GError) error = NULL;
  CrBackwardOptions options = { 0, };

  options.inputs = inputs;
  options.n_inputs = 2;

  y = cr_convolution (x, w, NULL, &p, &error);
  g_assert_no_error (error);
  m = cr_max_pool2d (y, &max.p, NULL, &error);
  g_assert_no_error (error);
  s = cr_sum (m, &error);
  g_assert_no_error (error);
  g_assert_true (cr_autograd_run (&s, NULL, 1, &options, &grads, &error));
  g_assert_no_error (error);
  *gx = grads[0];
  *gw = grads[1];
  g_free (grads);
  return cr_tensor_ref (m);
}

static void
assert_same (const CrTensor *a,
             const CrTensor *b)
{
  g_assert_cmpint (a->numel, ==, b->numel);
  for (gint64 i = 0; i < a->numel; i++)
    g_assert_cmpfloat_with_epsilon (cr_tensor_get_flat (a, i), cr_tensor_get_flat (b, i), 1e-9);
}

static void
test_threads (void)
{
  g_autoptr(CrTensor) x = cr_gradcheck_rand ((gint64[]) { 16, 6, 40, 40 }, 4, -1, 1, 41);
  g_autoptr(CrTensor) w = cr_gradcheck_rand ((gint64[]) { 8, 6, 3, 3 }, 4, -1, 1, 42);
  g_autoptr(CrTensor) m1 = NULL, gx1 = NULL, gw1 = NULL, m2 = NULL, gx2 = NULL, gw2 = NULL;
  int before = cr_threads_get ();

  cr_threads_set (1);
  m1 = conv_and_pool (x, w, &gx1, &gw1);
  cr_threads_set (2);
  m2 = conv_and_pool (x, w, &gx2, &gw2);
  cr_threads_set (before);
  assert_same (m1, m2);
  assert_same (gx1, gx2);
  assert_same (gw1, gw2);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/ops/conv/conv2d-gradcheck", test_conv2d_gradcheck);
  g_test_add_func ("/ops/conv/conv1d-gradcheck", test_conv1d_gradcheck);
  g_test_add_func ("/ops/conv/transpose-gradcheck", test_conv_transpose_gradcheck);
  g_test_add_func ("/ops/conv/strided-inputs", test_conv_strided_inputs);
  g_test_add_func ("/ops/conv/values", test_conv_values);
  g_test_add_func ("/ops/conv/errors", test_conv_errors);
  g_test_add_func ("/ops/pool/gradcheck", test_pool_gradcheck);
  g_test_add_func ("/ops/pool/values", test_pool_values);
  g_test_add_func ("/ops/pool/errors", test_pool_errors);
  g_test_add_func ("/ops/conv/threads", test_threads);

  return g_test_run ();
}
