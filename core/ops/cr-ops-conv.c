/* cr-ops-conv.c — torch.convolution (conv1d, conv2d, conv_transpose2d) and
 * its backward.
 *
 * A convolution y = conv(x, w) is bilinear, and so are its two adjoints,
 * gx = convᵀ(gy, w) (a transposed convolution) and gw = conv(x, ·)ᵀ gy. Each
 * of the three is an op here (CONVOLUTION with its transposed flag covers the
 * first two, CONVOLUTION_WEIGHT the third), and the backward of each is
 * written with the other two, so create_graph works to any order:
 *   conv(x, w):    gx = convᵀ(gy, w),  gw = W(gy, x)
 *   convᵀ(x, w):   gx = conv(gy, w),   gw = W(x, gy)
 *   W(a, b):       ga = conv(b, gw),   gb = convᵀ(a, gw)
 * (W(a, b) is the weight gradient for output gradient a and input b).
 * 1-d convolutions are 2-d ones of height 1 for the kernels (views). */
#include "cr-ops-private.h"
#include "cr-ops-conv.h"
#include "cr-kernels-conv.h"
#include "cr-error.h"
#include "cr-grad-mode.h"

#include <string.h>

/* Node arguments (CONVOLUTION and CONVOLUTION_WEIGHT): dims[0..1] stride,
 * [2..3] padding, [4..5] dilation, [6..7] output_padding (CONVOLUTION) or
 * the kernel size (CONVOLUTION_WEIGHT); ints[0] groups, ints[1] transposed,
 * ints[2] spatial dims. Saved: 0 and 1, the two tensor inputs. */
static void
params_to_args (const CrConvParams *p,
                const gint64       *last_pair,
                CrOpArgs           *args)
{
  for (int i = 0; i < 2; i++)
    {
      args->dims[i] = (int) p->stride[i];
      args->dims[2 + i] = (int) p->padding[i];
      args->dims[4 + i] = (int) p->dilation[i];
      args->dims[6 + i] = (int) last_pair[i];
    }
  args->n_dims = 8;
  args->ints[0] = p->groups;
  args->ints[1] = p->transposed;
  args->ints[2] = p->spatial;
}

static void
params_from_args (const CrOpArgs *args,
                  CrConvParams   *p,
                  gint64         *last_pair)
{
  memset (p, 0, sizeof *p);
  for (int i = 0; i < 2; i++)
    {
      p->stride[i] = args->dims[i];
      p->padding[i] = args->dims[2 + i];
      p->dilation[i] = args->dims[4 + i];
      last_pair[i] = args->dims[6 + i];
    }
  p->groups = args->ints[0];
  p->transposed = args->ints[1] != 0;
  p->spatial = (int) args->ints[2];
}

/* The 2-d geometry of the kernels: a 1-d convolution is one of height 1
 * (the spatial values sit in slot 1). */
static void
kernel_geom (const CrConvParams *p,
             CrConvGeom         *g)
{
  int first = 2 - p->spatial;

  g->groups = p->groups;
  g->stride[0] = g->dilation[0] = 1;
  g->padding[0] = 0;
  for (int i = 0; i < p->spatial; i++)
    {
      g->stride[first + i] = p->stride[i];
      g->padding[first + i] = p->padding[i];
      g->dilation[first + i] = p->dilation[i];
    }
}

/* t (N, C, L) seen as (N, C, 1, L); a 4-d t as itself. New ref. */
static CrTensor *
as_4d (const CrTensor *t)
{
  gint64 shape[4], strides[4];

  if (t->ndim == 4)
    return cr_tensor_ref ((CrTensor *) t);
  shape[0] = t->shape[0];
  shape[1] = t->shape[1];
  shape[2] = 1;
  shape[3] = t->shape[2];
  strides[0] = t->strides[0];
  strides[1] = t->strides[1];
  strides[2] = t->strides[2] * t->shape[2];
  strides[3] = t->strides[2];
  return cr_tensor_new_view (t, shape, 4, strides, t->offset);
}

/* A kernel's 4-d result back to spatial dims (takes t). */
static CrTensor *
from_4d (CrTensor *t,
         int       spatial)
{
  gint64 shape[3], strides[3];
  CrTensor *v;

  if (t == NULL || spatial == 2)
    return t;
  shape[0] = t->shape[0];
  shape[1] = t->shape[1];
  shape[2] = t->shape[3];
  cr_shape_contiguous_strides (shape, 3, strides);
  v = cr_tensor_new_view (t, shape, 3, strides, t->offset);
  cr_tensor_unref (t);
  return v;
}

/* Spatial size i of t (the last p->spatial dims). */
static gint64
spatial_size (const gint64 *shape,
              int           ndim,
              int           spatial,
              int           i)
{
  return shape[ndim - spatial + i];
}

/* A transposed convolution's output size along spatial dim i. */
static gint64
transposed_size (const CrConvParams *p,
                 gint64              in,
                 gint64              kernel,
                 int                 i)
{
  return (in - 1) * p->stride[i] - 2 * p->padding[i] + p->dilation[i] * (kernel - 1)
         + p->output_padding[i] + 1;
}

/* The output_padding that makes convᵀ of an input of size `in` come out at
 * `want` (the input size of the forward convolution). */
static gint64
output_padding_for (const CrConvParams *p,
                    gint64              in,
                    gint64              kernel,
                    gint64              want,
                    int                 i)
{
  return want - ((in - 1) * p->stride[i] - 2 * p->padding[i] + p->dilation[i] * (kernel - 1) + 1);
}

/* ---- argument checks, with PyTorch's messages --------------------------- */

static char *
size_text (const CrTensor *t)
{
  return cr_shape_to_string (t->shape, t->ndim);
}

static const char *
type_text (const CrTensor *t,
           char           *buf,
           gsize           size)
{
  const char *legacy = cr_dtype_legacy_name (t->dtype);

  if (t->device == CR_DEVICE_CPU)
    return legacy;
  /* "torch.FloatTensor" -> "torch.cuda.FloatTensor" */
  g_snprintf (buf, size, "torch.cuda.%s", legacy + strlen ("torch."));
  return buf;
}

/* The weight decides how many spatial dims the convolution has; PyTorch
 * then finds the stride list of the wrong length. */
static gboolean
check_lengths (const CrConvParams *p,
               const CrTensor     *w,
               GError            **error)
{
  g_autoptr(GString) text = NULL;

  if (w->ndim - 2 == p->spatial)
    return TRUE;
  text = g_string_new ("[");
  for (int j = 0; j < p->spatial; j++)
    g_string_append_printf (text, "%s%" G_GINT64_FORMAT, j ? ", " : "", p->stride[j]);
  g_string_append_c (text, ']');
  g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
               "expected stride to be a single integer value or a list of %d values to match "
               "the convolution dimensions, but got stride=%s", MAX (w->ndim - 2, 0), text->str);
  return FALSE;
}

static gboolean
check_params (const CrConvParams *p,
              GError            **error)
{
  const char *message = NULL;

  for (int i = 0; i < p->spatial; i++)
    {
      if (p->padding[i] < 0)
        message = "negative padding is not supported";
      else if (p->output_padding[i] < 0)
        message = "negative output_padding is not supported";
      else if (p->stride[i] <= 0)
        message = "non-positive stride is not supported";
      else if (p->dilation[i] <= 0)
        message = "non-positive dilation is not supported";
      if (message != NULL)
        break;
    }
  if (message == NULL && p->groups <= 0)
    message = "non-positive groups is not supported";
  if (message != NULL)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR, message);
      return FALSE;
    }
  if (p->transposed)
    for (int i = 0; i < p->spatial; i++)
      if (p->output_padding[i] >= p->stride[i] && p->output_padding[i] >= p->dilation[i])
        {
          if (p->spatial == 2)
            g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                         "output padding must be smaller than either stride or dilation, but "
                         "got output_padding_height: %" G_GINT64_FORMAT " output_padding_width: %"
                         G_GINT64_FORMAT " stride_height: %" G_GINT64_FORMAT " stride_width: %"
                         G_GINT64_FORMAT " dilation_height: %" G_GINT64_FORMAT
                         " dilation_width: %" G_GINT64_FORMAT,
                         p->output_padding[0], p->output_padding[1], p->stride[0], p->stride[1],
                         p->dilation[0], p->dilation[1]);
          else
            g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                         "output padding must be smaller than either stride or dilation, but "
                         "got output_padding: %" G_GINT64_FORMAT " stride: %" G_GINT64_FORMAT
                         " dilation: %" G_GINT64_FORMAT,
                         p->output_padding[0], p->stride[0], p->dilation[0]);
          return FALSE;
        }
  return TRUE;
}

static gboolean
check_shapes (const CrTensor     *x,
              const CrTensor     *w,
              const CrTensor     *bias,
              const CrConvParams *p,
              GError            **error)
{
  g_autofree char *ws = size_text (w);
  g_autofree char *xs = size_text (x);
  gint64 channels = p->transposed ? w->shape[0] : w->shape[1] * p->groups;
  gint64 out_channels = p->transposed ? w->shape[1] * p->groups : w->shape[0];

  if (x->ndim != w->ndim)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "Expected %d-dimensional input for %d-dimensional weight %s, but got "
                   "%d-dimensional input of size %s instead", w->ndim, w->ndim, ws, x->ndim, xs);
      return FALSE;
    }
  if (w->shape[0] < p->groups)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "Given groups=%" G_GINT64_FORMAT ", expected weight to be at least %"
                   G_GINT64_FORMAT " at dimension 0, but got weight of size %s instead",
                   p->groups, p->groups, ws);
      return FALSE;
    }
  if (w->shape[0] % p->groups != 0)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "Given groups=%" G_GINT64_FORMAT ", expected weight to be divisible by %"
                   G_GINT64_FORMAT " at dimension 0, but got weight of size [%s] instead",
                   p->groups, p->groups, ws);
      return FALSE;
    }
  if (x->shape[1] != channels)
    {
      if (p->transposed)
        g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                     "Given transposed=1, weight of size %s, expected input%s to have %"
                     G_GINT64_FORMAT " channels, but got %" G_GINT64_FORMAT
                     " channels instead", ws, xs, channels, x->shape[1]);
      else
        g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                     "Given groups=%" G_GINT64_FORMAT ", weight of size %s, expected input%s "
                     "to have %" G_GINT64_FORMAT " channels, but got %" G_GINT64_FORMAT
                     " channels instead", p->groups, ws, xs, channels, x->shape[1]);
      return FALSE;
    }
  if (bias != NULL && (bias->ndim != 1 || bias->shape[0] != out_channels))
    {
      g_autofree char *bs = size_text (bias);

      if (p->transposed)
        g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                     "Given transposed=1, weight of size %s, expected bias to be 1-dimensional "
                     "with %" G_GINT64_FORMAT " elements, but got bias of size %s instead",
                     ws, out_channels, bs);
      else
        g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                     "Given weight of size %s, expected bias to be 1-dimensional with %"
                     G_GINT64_FORMAT " elements, but got bias of size %s instead",
                     ws, out_channels, bs);
      return FALSE;
    }
  if (!p->transposed)
    {
      gboolean too_big = FALSE;
      g_autoptr(GString) in = g_string_new (NULL);
      g_autoptr(GString) k = g_string_new (NULL);

      for (int i = 0; i < p->spatial; i++)
        {
          gint64 padded = spatial_size (x->shape, x->ndim, p->spatial, i) + 2 * p->padding[i];
          gint64 kernel = p->dilation[i] * (spatial_size (w->shape, w->ndim, p->spatial, i) - 1) + 1;

          g_string_append_printf (in, "%s%" G_GINT64_FORMAT, i ? " x " : "", padded);
          g_string_append_printf (k, "%s%" G_GINT64_FORMAT, i ? " x " : "", kernel);
          too_big |= padded < kernel;
        }
      if (too_big)
        {
          g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                       "Calculated padded input size per channel: (%s). Kernel size: (%s). "
                       "Kernel size can't be greater than actual input size", in->str, k->str);
          return FALSE;
        }
    }
  return TRUE;
}

static gboolean
check_types (const CrTensor  *x,
             const CrTensor  *w,
             const CrTensor  *bias,
             GError         **error)
{
  char xb[64], wb[64];

  /* PyTorch's CPU float32 path (mkldnn) checks the types with its own
   * message; the others find the weight's scalar type. */
  if (x->dtype != w->dtype && x->device == CR_DEVICE_CPU && w->device == CR_DEVICE_CPU
      && x->dtype != CR_DTYPE_FLOAT32)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "expected scalar type %s but found %s", cr_dtype_scalar_name (x->dtype),
                   cr_dtype_scalar_name (w->dtype));
      return FALSE;
    }
  if (x->dtype != w->dtype || x->device != w->device)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "Input type (%s) and weight type (%s) should be the same or input should be "
                   "a MKLDNN tensor and weight is a dense tensor",
                   type_text (x, xb, sizeof xb), type_text (w, wb, sizeof wb));
      return FALSE;
    }
  if (bias != NULL && (bias->dtype != x->dtype || bias->device != x->device))
    {
      if (bias->device != x->device)
        g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                     "Input type (%s) and bias type (%s) should be the same",
                     type_text (x, xb, sizeof xb), type_text (bias, wb, sizeof wb));
      else
        g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                     "Input type (%s) and bias type (%s) should be the same",
                     cr_dtype_short_name (x->dtype), cr_dtype_short_name (bias->dtype));
      return FALSE;
    }
  return TRUE;
}

/* ---- the ops ------------------------------------------------------------- */

static CrTensor *conv_weight_grad (CrTensor           *a,
                                   CrTensor           *b,
                                   const CrConvParams *p,
                                   const gint64       *kernel,
                                   GError            **error);

/* The forward of CONVOLUTION on checked arguments. */
static CrTensor *
convolution_forward (CrTensor           *x,
                     CrTensor           *w,
                     CrTensor           *bias,
                     const CrConvParams *p,
                     GError            **error)
{
  g_autoptr(CrTensor) x4 = as_4d (x);
  g_autoptr(CrTensor) w4 = as_4d (w);
  CrConvGeom geom;
  gint64 size[2] = { 1, 1 };
  int first = 2 - p->spatial;

  kernel_geom (p, &geom);
  if (!p->transposed)
    return from_4d (cr_kernel_conv2d (x4, w4, bias, &geom, error), p->spatial);
  for (int i = 0; i < p->spatial; i++)
    size[first + i] = transposed_size (p, spatial_size (x->shape, x->ndim, p->spatial, i),
                                       spatial_size (w->shape, w->ndim, p->spatial, i), i);
  if (size[0] < 0 || size[1] < 0)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "Output size is too small");
      return NULL;
    }
  return from_4d (cr_kernel_conv2d_input_grad (x4, w4, bias, &geom, size[0], size[1], error),
                  p->spatial);
}

/* A convolution recorded as op: CONVOLUTION, or CONVOLUTION_INPUT for the
 * input gradient of one (PyTorch names it ConvolutionBackwardBackward0). */
static CrTensor *
convolution_as (CrOpId              op,
                CrTensor           *x,
                CrTensor           *weight,
                CrTensor           *bias,
                const CrConvParams *p,
                GError            **error)
{
  CrTensor *inputs[3] = { x, weight, bias };
  CrTensor *out;
  CrNode *node;

  g_return_val_if_fail (p->spatial == 1 || p->spatial == 2, NULL);
  if (!check_lengths (p, weight, error) || !check_params (p, error)
      || !check_shapes (x, weight, bias, p, error) || !check_types (x, weight, bias, error))
    return NULL;

  out = convolution_forward (x, weight, bias, p, error);
  if (out == NULL)
    return NULL;
  if ((node = cr_ops_record (op, inputs, 3, out)) != NULL)
    {
      params_to_args (p, p->output_padding, cr_node_args (node));
      cr_node_save (node, 0, x, FALSE);
      cr_node_save (node, 1, weight, FALSE);
    }
  return out;
}

CrTensor *
cr_convolution (CrTensor           *x,
                CrTensor           *weight,
                CrTensor           *bias,
                const CrConvParams *p,
                GError            **error)
{
  return convolution_as (CR_OP_CONVOLUTION, x, weight, bias, p, error);
}

gboolean
cr_convolution_node_params (const CrNode *node,
                            CrConvParams *params)
{
  gint64 last_pair[2];

  if (node->op == NULL || (node->op->id != CR_OP_CONVOLUTION
                           && node->op->id != CR_OP_CONVOLUTION_INPUT))
    return FALSE;
  params_from_args (node->args, params, last_pair);
  memcpy (params->output_padding, last_pair, sizeof params->output_padding);
  return TRUE;
}

/* conv(x, w) or convᵀ(x, w) with p's geometry, the transposed one sized to
 * come out at `want`'s spatial size. */
static CrTensor *
conv_again (CrOpId              op,
            CrTensor           *x,
            CrTensor           *w,
            const CrConvParams *base,
            gboolean            transposed,
            const gint64       *want_shape,
            int                 want_ndim,
            GError            **error)
{
  CrConvParams p = *base;

  p.transposed = transposed;
  memset (p.output_padding, 0, sizeof p.output_padding);
  if (transposed)
    for (int i = 0; i < p.spatial; i++)
      p.output_padding[i] = output_padding_for (&p, spatial_size (x->shape, x->ndim, p.spatial, i),
                                                spatial_size (w->shape, w->ndim, p.spatial, i),
                                                spatial_size (want_shape, want_ndim, p.spatial, i),
                                                i);
  return convolution_as (op, x, w, NULL, &p, error);
}

/* The sum of g over every dim but 1, the bias gradient of a convolution
 * over x and w, recorded (under create_graph) as one of the outputs of
 * PyTorch's convolution_backward: a CONVOLUTION_BIAS node over (g, x, w),
 * so that it depends on x and w too (with a zero derivative). */
static CrTensor *
bias_grad (CrTensor  *g,
           CrTensor  *x,
           CrTensor  *w,
           GError   **error)
{
  CrTensor *inputs[3] = { g, x, w };
  int dims[CR_MAX_DIMS], n = 0;
  gboolean was_enabled;
  CrTensor *out;

  for (int d = 0; d < g->ndim; d++)
    if (d != 1)
      dims[n++] = d;
  was_enabled = cr_grad_mode_set_enabled (FALSE);
  out = cr_sum_dim (g, dims, n, FALSE, error);
  cr_grad_mode_set_enabled (was_enabled);
  if (out != NULL)
    cr_ops_record (CR_OP_CONVOLUTION_BIAS, inputs, 3, out);
  return out;
}

/* CONVOLUTION_BIAS: ∂/∂g is the gradient spread back over g's other dims;
 * x and w get zeros. */
static gboolean
convolution_bias_backward (CrNode          *node,
                           CrTensor *const *grad_outputs,
                           CrTensor       **grad_inputs,
                           GError         **error)
{
  const CrTensorMeta *gm = &node->input_meta[0];

  if (cr_ops_needs_grad (node, 0))
    {
      gint64 shape[CR_MAX_DIMS];
      g_autoptr(CrTensor) column = NULL;

      for (int d = 0; d < gm->ndim; d++)
        shape[d] = d == 1 ? gm->shape[1] : 1;
      column = cr_view (grad_outputs[0], shape, gm->ndim, error);
      SET_GRAD (0, column != NULL ? cr_expand (column, gm->shape, gm->ndim, error) : NULL);
    }
  for (guint i = 1; i < 3; i++)
    if (cr_ops_needs_grad (node, i))
      SET_GRAD (i, cr_ops_zeros_meta (&node->input_meta[i], error));
  return TRUE;
}

const CrOpInfo cr_op_row_CONVOLUTION_BIAS = {
  CR_OP_CONVOLUTION_BIAS, "convolution_backward_bias", "ConvolutionBackwardBackward0", 3,
  "conv∂b", "∂out/∂g: G spread over every dim but the channels,  ∂out/∂x = ∂out/∂w = 0",
  convolution_bias_backward, NULL
};

static gboolean
convolution_backward (CrNode          *node,
                      CrTensor *const *grad_outputs,
                      CrTensor       **grad_inputs,
                      GError         **error)
{
  CrConvParams p;
  gint64 unused[2], kernel[2] = { 1, 1 };
  CrTensor *gy = grad_outputs[0];
  SAVED (x, 0);
  SAVED (w, 1);

  if (gy == NULL)
    return TRUE;
  params_from_args (node->args, &p, unused);
  for (int i = 0; i < p.spatial; i++)
    kernel[i] = spatial_size (w->shape, w->ndim, p.spatial, i);
  if (cr_ops_needs_grad (node, 0))
    SET_GRAD (0, conv_again (CR_OP_CONVOLUTION_INPUT, gy, w, &p, !p.transposed, x->shape,
                             x->ndim, error));
  if (cr_ops_needs_grad (node, 1))
    SET_GRAD (1, p.transposed ? conv_weight_grad (x, gy, &p, kernel, error)
                              : conv_weight_grad (gy, x, &p, kernel, error));
  if (cr_ops_needs_grad (node, 2))
    SET_GRAD (2, bias_grad (gy, x, w, error));
  return TRUE;
}

/* W(a, b): the weight gradient of conv for output gradient a (N, OC, ...)
 * and input b (N, C, ...): (OC, C/groups, kernel...). */
static CrTensor *
conv_weight_grad (CrTensor           *a,
                  CrTensor           *b,
                  const CrConvParams *p,
                  const gint64       *kernel,
                  GError            **error)
{
  g_autoptr(CrTensor) a4 = as_4d (a);
  g_autoptr(CrTensor) b4 = as_4d (b);
  CrTensor *inputs[2] = { a, b };
  CrConvGeom geom;
  gint64 kh = p->spatial == 2 ? kernel[0] : 1, kw = p->spatial == 2 ? kernel[1] : kernel[0];
  CrTensor *out;
  CrNode *node;

  kernel_geom (p, &geom);
  out = cr_kernel_conv2d_weight_grad (a4, b4, &geom, kh, kw, error);
  if (out != NULL && p->spatial == 1)
    {
      gint64 shape[3] = { out->shape[0], out->shape[1], out->shape[3] }, strides[3];
      CrTensor *v;

      cr_shape_contiguous_strides (shape, 3, strides);
      v = cr_tensor_new_view (out, shape, 3, strides, out->offset);
      cr_tensor_unref (out);
      out = v;
    }
  if (out != NULL && (node = cr_ops_record (CR_OP_CONVOLUTION_WEIGHT, inputs, 2, out)) != NULL)
    {
      params_to_args (p, kernel, cr_node_args (node));
      cr_node_save (node, 0, a, FALSE);
      cr_node_save (node, 1, b, FALSE);
    }
  return out;
}

static gboolean
convolution_weight_backward (CrNode          *node,
                             CrTensor *const *grad_outputs,
                             CrTensor       **grad_inputs,
                             GError         **error)
{
  CrConvParams p;
  gint64 kernel[2];
  CrTensor *gw = grad_outputs[0];
  SAVED (a, 0);
  SAVED (b, 1);

  if (gw == NULL)
    return TRUE;
  params_from_args (node->args, &p, kernel);
  if (cr_ops_needs_grad (node, 0))
    SET_GRAD (0, conv_again (CR_OP_CONVOLUTION, b, gw, &p, FALSE, a->shape, a->ndim, error));
  if (cr_ops_needs_grad (node, 1))
    SET_GRAD (1, conv_again (CR_OP_CONVOLUTION, a, gw, &p, TRUE, b->shape, b->ndim, error));
  return TRUE;
}

const CrOpInfo cr_op_row_CONVOLUTION = {
  CR_OP_CONVOLUTION, "convolution", "ConvolutionBackward0", 3, "conv",
  "∂out/∂x = convᵀ(G, w),  ∂out/∂w = Σ G ⋆ x,  ∂out/∂b = Σ G",
  convolution_backward, NULL
};

/* The same convolution, as the input gradient of one under create_graph. */
const CrOpInfo cr_op_row_CONVOLUTION_INPUT = {
  CR_OP_CONVOLUTION_INPUT, "convolution_backward_input", "ConvolutionBackwardBackward0", 3,
  "conv∂x", "∂out/∂g = conv(G, w),  ∂out/∂w = Σ G ⋆ g",
  convolution_backward, NULL
};

const CrOpInfo cr_op_row_CONVOLUTION_WEIGHT = {
  CR_OP_CONVOLUTION_WEIGHT, "convolution_backward_weight", "ConvolutionBackwardBackward0", 2,
  "conv∂w", "∂out/∂g = conv(x, G),  ∂out/∂x = convᵀ(g, G)",
  convolution_weight_backward, NULL
};
