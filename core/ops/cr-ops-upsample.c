/* cr-ops-upsample.c — F.interpolate's resampling ops: nearest,
 * nearest-exact and (bi/tri)linear over the last 1, 2 or 3 dims, one node as
 * in PyTorch 1.13 (UpsampleNearest2DBackward1, UpsampleBilinear2DBackward1,
 * ...; the ".vec" overloads F.interpolate calls), and their backwards as
 * nodes of their own (UpsampleBilinear2DBackwardBackward1) whose backward
 * is the forward again: both maps are linear.
 *
 * Each is separable: along each spatial dim an output position reads one
 * input position (nearest) or two with weights λ₀ + λ₁ = 1 (linear). The
 * forward takes the last dim first: PyTorch's CPU kernel nests its sums the
 * same way, ((x₀₀λ₀ʷ + x₀₁λ₁ʷ)λ₀ʰ + (x₁₀λ₀ʷ + x₁₁λ₁ʷ)λ₁ʰ), so the digits
 * agree. Positions and weights are worked out on the host with PyTorch's
 * formulas (area_pixel_compute_source_index, nearest_idx in the float
 * arithmetic its kernels use); each pass is index_select, mul and add with
 * grad mode off, and each backward pass index_add, so every device runs
 * them with the kernels it has. On the CPU a linear pass is a loop that
 * rounds as PyTorch's FMA-built kernel does, so float32 results carry its
 * last digits (trilinear and float64 can still differ in the last bit).
 *
 * Args of both nodes: dims[0..n) the output's spatial sizes, dims[n..2n)
 * the input's, n_dims n; scalar[i] with has_scalar[i] the scale factors
 * when given; ints[0] 1 when the output size was given; ints[1]
 * align_corners. */
#include "cr-ops-private.h"

#include <math.h>
#include <string.h>

#include "cr-error.h"
#include "cr-grad-mode.h"
#include "cr-ops-nnf.h"

/* The rows, in the order row_of() counts them. */
G_STATIC_ASSERT (CR_OP_UPSAMPLE_TRILINEAR3D == CR_OP_UPSAMPLE_NEAREST1D + 8);
G_STATIC_ASSERT (CR_OP_UPSAMPLE_TRILINEAR3D_BACKWARD == CR_OP_UPSAMPLE_NEAREST1D_BACKWARD + 8);

static CrOpId
row_of (CrUpsampleMode mode,
        int            n,
        gboolean       backward)
{
  return (backward ? CR_OP_UPSAMPLE_NEAREST1D_BACKWARD : CR_OP_UPSAMPLE_NEAREST1D)
         + (int) mode * 3 + n - 1;
}

static void
params_of_node (const CrNode      *node,
                CrUpsampleParams  *p)
{
  CrOpId first = node->op->id >= CR_OP_UPSAMPLE_NEAREST1D_BACKWARD
                 ? CR_OP_UPSAMPLE_NEAREST1D_BACKWARD : CR_OP_UPSAMPLE_NEAREST1D;
  const CrOpArgs *args = node->args;

  memset (p, 0, sizeof *p);
  p->mode = (CrUpsampleMode) ((node->op->id - first) / 3);
  p->n = args->n_dims;
  p->has_output_size = args->ints[0] != 0;
  p->align_corners = args->ints[1] != 0;
  p->has_scales = args->has_scalar[0];
  for (int i = 0; i < p->n; i++)
    {
      p->output_size[i] = args->dims[i];
      p->scales[i] = args->scalar[i];
    }
}

static void
keep_params (CrNode                 *node,
             const CrUpsampleParams *p,
             const gint64           *in_sizes,
             const gint64           *out_sizes)
{
  CrOpArgs *args = cr_node_args (node);

  args->n_dims = p->n;
  args->ints[0] = p->has_output_size;
  args->ints[1] = p->align_corners;
  for (int i = 0; i < p->n; i++)
    {
      args->dims[i] = (int) out_sizes[i];
      args->dims[p->n + i] = (int) in_sizes[i];
      args->scalar[i] = p->scales[i];
      args->has_scalar[i] = p->has_scales;
    }
}

/* ---- positions and weights ------------------------------------------------ */

/* One spatial dim's plan: output position j reads input i0[j] with weight
 * l0[j] and i1[j] with l1[j] (nearest: i1 = i0, l0 = 1, l1 = 0). */
typedef struct {
  gint64 *i0, *i1;
  double *l0, *l1;
} DimPlan;

static void
dim_plan_clear (DimPlan *plan)
{
  g_free (plan->i0);
  g_free (plan->i1);
  g_free (plan->l0);
  g_free (plan->l1);
}

/* PyTorch's compute_scales_value: 1/scale when one was given, in/out else. */
#define SCALES_VALUE(T, has, scale, in, out) \
  ((has) && (scale) > 0.0 ? (T) (1.0 / (scale)) : (T) (in) / (T) (out))

static void
dim_plan_init (DimPlan                *plan,
               const CrUpsampleParams *p,
               int                     d,
               gint64                  in,
               gint64                  out,
               gboolean                is_double)
{
  plan->i0 = g_new (gint64, out);
  plan->i1 = g_new (gint64, out);
  plan->l0 = g_new (double, out);
  plan->l1 = g_new (double, out);
  for (gint64 j = 0; j < out; j++)
    {
      plan->l0[j] = 1.0;
      plan->l1[j] = 0.0;
      if (p->mode == CR_UPSAMPLE_NEAREST)
        {
          /* nearest_idx: float arithmetic whatever the dtype. */
          float scale = SCALES_VALUE (float, p->has_scales, p->scales[d], in, out);
          if (out == in)
            plan->i0[j] = j;
          else if (out == 2 * in)
            plan->i0[j] = j >> 1;
          else
            plan->i0[j] = MIN ((gint64) floorf ((float) j * scale), in - 1);
        }
      else if (p->mode == CR_UPSAMPLE_NEAREST_EXACT)
        {
          float scale = SCALES_VALUE (float, p->has_scales, p->scales[d], in, out);
          plan->i0[j] = MIN ((gint64) floorf ((float) (((double) j + 0.5) * scale)), in - 1);
        }
      else
        {
          /* area_pixel_compute_scale in the dtype, the source index in
           * double (its accscalar_t), the weights rounded to the dtype, as
           * PyTorch 1.13's compute_indices_weights_linear does. */
#define LINEAR_WEIGHTS(T)                                                          \
  G_STMT_START {                                                                  \
    T scale = p->align_corners ? (out > 1 ? (T) (in - 1) / (T) (out - 1) : (T) 0)   \
                               : SCALES_VALUE (T, p->has_scales, p->scales[d], in, out); \
    double src = p->align_corners ? (double) scale * (double) j                    \
                                  : (double) scale * ((double) j + 0.5) - 0.5;      \
    T lambda1;                                                                    \
    if (src < 0.0)                                                                \
      src = 0.0;                                                                  \
    plan->i0[j] = (gint64) src;                                                   \
    lambda1 = (T) MIN (MAX (src - (double) plan->i0[j], 0.0), 1.0);               \
    plan->l1[j] = lambda1;                                                        \
    plan->l0[j] = (T) 1 - lambda1;                                                \
  } G_STMT_END
          if (is_double)
            LINEAR_WEIGHTS (double);
          else
            LINEAR_WEIGHTS (float);
#undef LINEAR_WEIGHTS
        }
      plan->i1[j] = p->mode == CR_UPSAMPLE_LINEAR && plan->i0[j] < in - 1
                    ? plan->i0[j] + 1 : plan->i0[j];
    }
}

/* A host array as a tensor on device: int64 positions, or weights of dtype
 * shaped to broadcast along dim of an ndim-d tensor. */
static CrTensor *
positions_tensor (const gint64  *values,
                  gint64         n,
                  CrDeviceType   device,
                  GError       **error)
{
  CrTensor *t = cr_tensor_new_from_data (values, &n, 1, CR_DTYPE_INT64, error);
  return t != NULL ? cr_ops_positions_to (t, device, error) : NULL;
}

static CrTensor *
weights_tensor (const double  *values,
                gint64         n,
                int            dim,
                int            ndim,
                CrDType        dtype,
                CrDeviceType   device,
                GError       **error)
{
  gint64 shape[CR_MAX_DIMS];
  CrTensor *t;

  for (int i = 0; i < ndim; i++)
    shape[i] = i == dim ? n : 1;
  t = cr_tensor_new_from_data (values, shape, ndim, CR_DTYPE_FLOAT64, error);
  if (t != NULL && dtype != CR_DTYPE_FLOAT64)
    {
      CrTensor *cast = cr_kernel_cast (t, dtype, error);
      cr_tensor_unref (t);
      t = cast;
    }
  return t != NULL ? cr_ops_positions_to (t, device, error) : NULL;
}

/* ---- one pass along one dim (grad mode off) ------------------------------- */

/* The linear pass on the CPU with the rounding of PyTorch's kernel, built
 * with FMA contraction: x₀λ₀ + x₁λ₁ is fma(x₀, λ₀, x₁λ₁) along every dim
 * (checked bit for bit on 1-d and 2-d). x contiguous. */
static CrTensor *
linear_pass_cpu (CrTensor       *x,
                 int             dim,
                 const DimPlan  *plan,
                 gint64          out,
                 GError        **error)
{
  gint64 shape[CR_MAX_DIMS], outer = 1, in = x->shape[dim], inner = 1;
  CrTensor *result;

  memcpy (shape, x->shape, sizeof (gint64) * x->ndim);
  shape[dim] = out;
  for (int d = 0; d < dim; d++)
    outer *= x->shape[d];
  for (int d = dim + 1; d < x->ndim; d++)
    inner *= x->shape[d];
  result = cr_tensor_new_empty (shape, x->ndim, x->dtype, CR_DEVICE_CPU, error);
  if (result == NULL)
    return NULL;
#define LINEAR_PASS(type, fma_fn)                                                 \
  G_STMT_START {                                                                 \
    const type *src = cr_tensor_data (x);                                        \
    type *dst = cr_tensor_data (result);                                         \
    for (gint64 o = 0; o < outer; o++)                                           \
      for (gint64 j = 0; j < out; j++)                                           \
        {                                                                        \
          const type *r0 = src + (o * in + plan->i0[j]) * inner;                 \
          const type *r1 = src + (o * in + plan->i1[j]) * inner;                 \
          type l0 = (type) plan->l0[j], l1 = (type) plan->l1[j];                 \
          type *w = dst + (o * out + j) * inner;                                 \
          for (gint64 k = 0; k < inner; k++)                                     \
            {                                                                    \
              type second = r1[k] * l1;                                          \
              w[k] = fma_fn (r0[k], l0, second);                                 \
            }                                                                    \
        }                                                                        \
  } G_STMT_END
  if (x->dtype == CR_DTYPE_FLOAT64)
    LINEAR_PASS (double, fma);
  else
    LINEAR_PASS (float, fmaf);
#undef LINEAR_PASS
  return result;
}

/* Forward along dim: x[..., i0, ...]·λ₀ + x[..., i1, ...]·λ₁ (nearest: the
 * gathered slices alone), with kernels: any device. */
static CrTensor *
pass_forward_kernels (CrTensor       *x,
                      int             dim,
                      const DimPlan  *plan,
                      gint64          out,
                      gboolean        linear,
                      GError        **error)
{
  g_autoptr(CrTensor) i0 = positions_tensor (plan->i0, out, x->device, error);
  g_autoptr(CrTensor) i1 = NULL;
  g_autoptr(CrTensor) l0 = NULL;
  g_autoptr(CrTensor) l1 = NULL;
  g_autoptr(CrTensor) x0 = NULL;
  g_autoptr(CrTensor) x1 = NULL;
  g_autoptr(CrTensor) w0 = NULL;
  g_autoptr(CrTensor) w1 = NULL;

  if (i0 == NULL || (x0 = cr_index_select (x, dim, i0, error)) == NULL)
    return NULL;
  if (!linear)
    return g_steal_pointer (&x0);
  if ((i1 = positions_tensor (plan->i1, out, x->device, error)) == NULL
      || (l0 = weights_tensor (plan->l0, out, dim, x->ndim, x->dtype, x->device, error)) == NULL
      || (l1 = weights_tensor (plan->l1, out, dim, x->ndim, x->dtype, x->device, error)) == NULL
      || (x1 = cr_index_select (x, dim, i1, error)) == NULL
      || (w0 = cr_mul (x0, l0, error)) == NULL
      || (w1 = cr_mul (x1, l1, error)) == NULL)
    return NULL;
  return cr_add (w0, w1, error);
}

/* The forward pass along dim: on the CPU the linear one with PyTorch's
 * rounding, else the kernels'. */
static CrTensor *
pass_forward (CrTensor       *x,
              int             dim,
              const DimPlan  *plan,
              gint64          out,
              gboolean        linear,
              GError        **error)
{
  if (linear && x->device == CR_DEVICE_CPU
      && (x->dtype == CR_DTYPE_FLOAT32 || x->dtype == CR_DTYPE_FLOAT64))
    {
      g_autoptr(CrTensor) contiguous = cr_contiguous (x, error);
      return contiguous != NULL ? linear_pass_cpu (contiguous, dim, plan, out, error) : NULL;
    }
  return pass_forward_kernels (x, dim, plan, out, linear, error);
}

/* Backward along dim: g·λ₀ added at i0 and g·λ₁ at i1 into zeros of the
 * input's size along dim. */
static CrTensor *
pass_backward (CrTensor       *g,
               int             dim,
               const DimPlan  *plan,
               gint64          in,
               gboolean        linear,
               GError        **error)
{
  gint64 out = g->shape[dim];
  gint64 shape[CR_MAX_DIMS];
  g_autoptr(CrTensor) zeros = NULL;
  g_autoptr(CrTensor) i0 = positions_tensor (plan->i0, out, g->device, error);
  g_autoptr(CrTensor) i1 = NULL;
  g_autoptr(CrTensor) l0 = NULL;
  g_autoptr(CrTensor) l1 = NULL;
  g_autoptr(CrTensor) g0 = NULL;
  g_autoptr(CrTensor) g1 = NULL;
  g_autoptr(CrTensor) first = NULL;

  memcpy (shape, g->shape, sizeof (gint64) * g->ndim);
  shape[dim] = in;
  if (i0 == NULL
      || (zeros = cr_ops_zeros_meta (&(CrTensorMeta) { shape, g->ndim, g->dtype, g->device },
                                     error)) == NULL)
    return NULL;
  if (!linear)
    return cr_index_add_full (zeros, dim, i0, g, 1.0, FALSE, error);
  if ((i1 = positions_tensor (plan->i1, out, g->device, error)) == NULL
      || (l0 = weights_tensor (plan->l0, out, dim, g->ndim, g->dtype, g->device, error)) == NULL
      || (l1 = weights_tensor (plan->l1, out, dim, g->ndim, g->dtype, g->device, error)) == NULL
      || (g0 = cr_mul (g, l0, error)) == NULL
      || (g1 = cr_mul (g, l1, error)) == NULL
      || (first = cr_index_add_full (zeros, dim, i0, g0, 1.0, FALSE, error)) == NULL)
    return NULL;
  return cr_index_add_full (first, dim, i1, g1, 1.0, FALSE, error);
}

/* The map (or its transpose) over every spatial dim, grad mode off: x's
 * last n dims go from in_sizes to out_sizes. */
static CrTensor *
resample (CrTensor               *x,
          const CrUpsampleParams *p,
          const gint64           *in_sizes,
          const gint64           *out_sizes,
          gboolean                transpose,
          GError                **error)
{
  gboolean grad_was_enabled = cr_grad_mode_set_enabled (FALSE);
  gboolean is_double = x->dtype == CR_DTYPE_FLOAT64;
  gboolean linear = p->mode == CR_UPSAMPLE_LINEAR;
  CrTensor *t = cr_tensor_ref (x);

  /* Forward: the last dim first; its transpose the first dim first. */
  for (int k = 0; k < p->n && t != NULL; k++)
    {
      int d = transpose ? k : p->n - 1 - k;
      int dim = x->ndim - p->n + d;
      DimPlan plan;
      CrTensor *next;

      dim_plan_init (&plan, p, d, in_sizes[d], out_sizes[d], is_double);
      next = transpose ? pass_backward (t, dim, &plan, in_sizes[d], linear, error)
                       : pass_forward (t, dim, &plan, out_sizes[d], linear, error);
      dim_plan_clear (&plan);
      cr_tensor_unref (t);
      t = next;
    }
  cr_grad_mode_set_enabled (grad_was_enabled);
  return t;
}

/* ---- the nodes ----------------------------------------------------------- */

static CrTensor *upsample_backward_record (CrTensor               *grad,
                                           const CrUpsampleParams *p,
                                           const gint64           *in_sizes,
                                           const gint64           *out_sizes,
                                           GError                **error);

/* The spatial sizes of a node's input 0 (its last n dims) and args'. */
static void
node_sizes (const CrNode *node,
            int           n,
            gint64       *in_sizes,
            gint64       *out_sizes)
{
  for (int i = 0; i < n; i++)
    {
      out_sizes[i] = node->args->dims[i];
      in_sizes[i] = node->args->dims[n + i];
    }
}

static gboolean
upsample_backward (CrNode          *node,
                   CrTensor *const *grads,
                   CrTensor       **grad_inputs,
                   GError         **error)
{
  CrUpsampleParams p;
  gint64 in_sizes[3], out_sizes[3];

  params_of_node (node, &p);
  node_sizes (node, p.n, in_sizes, out_sizes);
  SET_GRAD (0, upsample_backward_record (grads[0], &p, in_sizes, out_sizes, error));
  return TRUE;
}

/* The backward's backward: the forward map of the incoming gradient. */
static gboolean
upsample_backward_backward (CrNode          *node,
                            CrTensor *const *grads,
                            CrTensor       **grad_inputs,
                            GError         **error)
{
  CrUpsampleParams p;

  params_of_node (node, &p);
  SET_GRAD (0, cr_upsample (grads[0], &p, error));
  return TRUE;
}

#define UPSAMPLE_ROWS(ID, NAME, GRAD_FN, TEXT)                                      \
  const CrOpInfo cr_op_row_UPSAMPLE_##ID = {                                        \
    CR_OP_UPSAMPLE_##ID, NAME, GRAD_FN "Backward1", 1, "⤢", TEXT,                   \
    upsample_backward, NULL                                                         \
  };                                                                                \
  const CrOpInfo cr_op_row_UPSAMPLE_##ID##_BACKWARD = {                             \
    CR_OP_UPSAMPLE_##ID##_BACKWARD, NAME "_backward", GRAD_FN "BackwardBackward1", 1, \
    "⤡", "the upsampling's transpose: its gradient is the upsampling",              \
    upsample_backward_backward, NULL                                                \
  };

#define NEAREST_TEXT "each output copies one input: ∂out/∂x sends G back to the input it copied, summed"
#define LINEAR_TEXT "each output blends its neighbours with weights λ: ∂out/∂x sends λ·G back to each"

UPSAMPLE_ROWS (NEAREST1D, "upsample_nearest1d", "UpsampleNearest1D", NEAREST_TEXT)
UPSAMPLE_ROWS (NEAREST2D, "upsample_nearest2d", "UpsampleNearest2D", NEAREST_TEXT)
UPSAMPLE_ROWS (NEAREST3D, "upsample_nearest3d", "UpsampleNearest3D", NEAREST_TEXT)
UPSAMPLE_ROWS (NEAREST_EXACT1D, "_upsample_nearest_exact1d", "UpsampleNearestExact1D", NEAREST_TEXT)
UPSAMPLE_ROWS (NEAREST_EXACT2D, "_upsample_nearest_exact2d", "UpsampleNearestExact2D", NEAREST_TEXT)
UPSAMPLE_ROWS (NEAREST_EXACT3D, "_upsample_nearest_exact3d", "UpsampleNearestExact3D", NEAREST_TEXT)
UPSAMPLE_ROWS (LINEAR1D, "upsample_linear1d", "UpsampleLinear1D", LINEAR_TEXT)
UPSAMPLE_ROWS (BILINEAR2D, "upsample_bilinear2d", "UpsampleBilinear2D", LINEAR_TEXT)
UPSAMPLE_ROWS (TRILINEAR3D, "upsample_trilinear3d", "UpsampleTrilinear3D", LINEAR_TEXT)

static CrTensor *
upsample_backward_record (CrTensor               *grad,
                          const CrUpsampleParams *p,
                          const gint64           *in_sizes,
                          const gint64           *out_sizes,
                          GError                **error)
{
  CrTensor *out = resample (grad, p, in_sizes, out_sizes, TRUE, error);
  CrNode *node;

  if (out != NULL && (node = cr_ops_record (row_of (p->mode, p->n, TRUE), &grad, 1, out)) != NULL)
    keep_params (node, p, in_sizes, out_sizes);
  return out;
}

/* PyTorch's upsample_*_compute_output_size and its checks. */
static gboolean
resolve_sizes (CrTensor               *x,
               const CrUpsampleParams *p,
               gint64                 *in_sizes,
               gint64                 *out_sizes,
               GError                **error)
{
  gboolean positive = TRUE;

  if (x->ndim != p->n + 2)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "Expected %dD input tensor, but got a tensor with %d dimensions",
                   p->n + 2, x->ndim);
      return FALSE;
    }
  if (p->has_output_size == p->has_scales)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "Must specify exactly one of output_size and scale_factors");
      return FALSE;
    }
  for (int i = 0; i < p->n; i++)
    {
      in_sizes[i] = x->shape[2 + i];
      out_sizes[i] = p->has_output_size ? p->output_size[i]
                                        : (gint64) ((double) in_sizes[i] * p->scales[i]);
      positive = positive && in_sizes[i] > 0 && out_sizes[i] > 0;
    }
  if (!positive)
    {
      g_autoptr(GString) msg = g_string_new ("Input and output sizes should be greater than 0, but got input (");
      static const char *const names[3][3] = { { "W" }, { "H", "W" }, { "D", "H", "W" } };

      for (int i = 0; i < p->n; i++)
        g_string_append_printf (msg, "%s%s: %" G_GINT64_FORMAT, i ? ", " : "", names[p->n - 1][i],
                                in_sizes[i]);
      g_string_append (msg, ") output (");
      for (int i = 0; i < p->n; i++)
        g_string_append_printf (msg, "%s%s: %" G_GINT64_FORMAT, i ? ", " : "", names[p->n - 1][i],
                                out_sizes[i]);
      g_string_append (msg, ")");
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR, msg->str);
      return FALSE;
    }
  return TRUE;
}

CrTensor *
cr_upsample (CrTensor               *x,
             const CrUpsampleParams *p,
             GError                **error)
{
  gint64 in_sizes[3], out_sizes[3];
  CrTensor *out;
  CrNode *node;

  g_return_val_if_fail (p->n >= 1 && p->n <= 3, NULL);
  if (!resolve_sizes (x, p, in_sizes, out_sizes, error))
    return NULL;
  if (!cr_dtype_is_floating (x->dtype))
    {
      static const char *const kernels[3][3] = {
        { "upsample_nearest1d_out_frame", "upsample_nearest2d_out_frame", "upsample_nearest3d_out_frame" },
        { "upsample_nearest1d_out_frame", "upsample_nearest2d_out_frame", "upsample_nearest3d_out_frame" },
        { "upsample_linear1d_out_frame", "upsample_bilinear2d_out_frame", "upsample_trilinear3d_out_frame" },
      };
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR, "\"%s\" not implemented for '%s'",
                   kernels[p->mode][p->n - 1], cr_dtype_scalar_name (x->dtype));
      return NULL;
    }
  out = resample (x, p, in_sizes, out_sizes, FALSE, error);
  if (out != NULL && (node = cr_ops_record (row_of (p->mode, p->n, FALSE), &x, 1, out)) != NULL)
    keep_params (node, p, in_sizes, out_sizes);
  return out;
}
