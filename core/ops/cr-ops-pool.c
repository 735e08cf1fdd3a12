/* cr-ops-pool.c — max_pool2d (with indices), avg_pool2d and the adaptive
 * pools, with PyTorch's argument checks and output sizes.
 *
 * Each pool is linear in its input once the windows (and, for max, the
 * indices) are fixed, so its backward is its adjoint and the adjoint's
 * backward is the pool again: AVG_POOL2D <-> AVG_POOL2D_BACKWARD (and the
 * adaptive pair), MAX_POOL2D (or ADAPTIVE_MAX_POOL2D) -> MAX_POOL2D_BACKWARD
 * (a scatter at the saved indices) -> a gather at the same indices, recorded
 * as the pool it came from. create_graph works to any order. */
#include "cr-ops-private.h"
#include "cr-ops-conv.h"
#include "cr-kernels-conv.h"
#include "cr-error.h"

#include <string.h>

/* Node arguments of every pooling row: dims[0..1] kernel, [2..3] stride,
 * [4..5] padding, [6..7] dilation; ints[0] adaptive, ints[1]
 * count_include_pad, ints[2] divisor_override. The spatial sizes come from
 * the node's input and output metadata. MAX rows save the indices (slot 0)
 * and the input (slot 1), AVG rows the input (slot 0): the adjoints take it
 * as a second input with a zero derivative, as PyTorch's *_backward ops take
 * self. */
static void
geom_to_args (const CrPoolGeom *g,
              CrOpArgs         *args)
{
  for (int i = 0; i < 2; i++)
    {
      args->dims[i] = (int) g->kernel[i];
      args->dims[2 + i] = (int) g->stride[i];
      args->dims[4 + i] = (int) g->padding[i];
      args->dims[6 + i] = (int) g->dilation[i];
    }
  args->n_dims = 8;
  args->ints[0] = g->adaptive;
  args->ints[1] = g->count_include_pad;
  args->ints[2] = g->divisor_override;
}

/* The geometry of a node: a pool's input is the big side (in) and its output
 * the small one (out); an adjoint's the other way round. */
static void
geom_from_node (const CrNode *node,
                gboolean      adjoint,
                CrPoolGeom   *g)
{
  const CrTensorMeta *big = adjoint ? &node->output_meta[0] : &node->input_meta[0];
  const CrTensorMeta *small = adjoint ? &node->input_meta[0] : &node->output_meta[0];
  const CrOpArgs *args = node->args;

  memset (g, 0, sizeof *g);
  for (int i = 0; i < 2; i++)
    {
      g->kernel[i] = args->dims[i];
      g->stride[i] = args->dims[2 + i];
      g->padding[i] = args->dims[4 + i];
      g->dilation[i] = args->dims[6 + i];
      g->in[i] = big->shape[big->ndim - 2 + i];
      g->out[i] = small->shape[small->ndim - 2 + i];
    }
  g->adaptive = args->ints[0] != 0;
  g->count_include_pad = args->ints[1] != 0;
  g->divisor_override = args->ints[2];
}

/* ---- the recorded pieces ------------------------------------------------ */

static CrTensor *
avg_forward (CrOpId            op,
             CrTensor         *x,
             const CrPoolGeom *g,
             GError          **error)
{
  CrTensor *out = cr_kernel_avg_pool2d (x, g, error);
  CrNode *node;

  if (out != NULL && (node = cr_ops_record (op, &x, 1, out)) != NULL)
    {
      geom_to_args (g, cr_node_args (node));
      cr_node_save (node, 0, x, FALSE);
    }
  return out;
}

/* The adjoint of a pool over x: its node's inputs are (gy, x), as PyTorch's
 * *_backward ops take self, so that a gradient taken with create_graph
 * depends on x (with a zero derivative) even when gy needs no gradient. */
static CrTensor *
avg_adjoint (CrOpId            op,
             CrTensor         *gy,
             CrTensor         *x,
             const CrPoolGeom *g,
             GError          **error)
{
  CrTensor *out = cr_kernel_avg_pool2d_backward (gy, g, error);
  CrTensor *inputs[2] = { gy, x };
  CrNode *node;

  if (out != NULL && (node = cr_ops_record (op, inputs, 2, out)) != NULL)
    geom_to_args (g, cr_node_args (node));
  return out;
}

/* g read at indices, recorded as op (MAX_POOL2D or ADAPTIVE_MAX_POOL2D). */
static CrTensor *
max_gather (CrOpId            op,
            CrTensor         *g,
            CrTensor         *indices,
            const CrPoolGeom *geom,
            GError          **error)
{
  CrTensor *out = cr_kernel_max_pool2d_gather (g, indices, geom, error);
  CrNode *node;

  if (out != NULL && (node = cr_ops_record (op, &g, 1, out)) != NULL)
    {
      geom_to_args (geom, cr_node_args (node));
      cr_node_save (node, 0, indices, FALSE);
      cr_node_save (node, 1, g, FALSE);
    }
  return out;
}

/* gy scattered at indices: MAX_POOL2D_BACKWARD; ints[3] remembers which
 * pool it undoes, for its own backward. */
static CrTensor *
max_scatter (CrOpId            pool_op,
             CrTensor         *gy,
             CrTensor         *x,
             CrTensor         *indices,
             const CrPoolGeom *geom,
             GError          **error)
{
  CrTensor *out = cr_kernel_max_pool2d_backward (gy, indices, geom, error);
  CrTensor *inputs[2] = { gy, x };
  CrNode *node;

  if (out != NULL && (node = cr_ops_record (pool_op == CR_OP_ADAPTIVE_MAX_POOL2D
                                            ? CR_OP_ADAPTIVE_MAX_POOL2D_BACKWARD
                                            : CR_OP_MAX_POOL2D_BACKWARD, inputs, 2, out)) != NULL)
    {
      CrOpArgs *args = cr_node_args (node);

      geom_to_args (geom, args);
      args->ints[3] = pool_op;
      cr_node_save (node, 0, indices, FALSE);
    }
  return out;
}

static gboolean
max_pool_backward (CrNode          *node,
                   CrTensor *const *grad_outputs,
                   CrTensor       **grad_inputs,
                   GError         **error)
{
  CrPoolGeom g;
  SAVED (indices, 0);
  SAVED (x, 1);

  geom_from_node (node, FALSE, &g);
  SET_GRAD (0, max_scatter (node->op->id, grad_outputs[0], x, indices, &g, error));
  return TRUE;
}

static gboolean
max_pool_adjoint_backward (CrNode          *node,
                           CrTensor *const *grad_outputs,
                           CrTensor       **grad_inputs,
                           GError         **error)
{
  CrPoolGeom g;
  SAVED (indices, 0);

  geom_from_node (node, TRUE, &g);
  if (cr_ops_needs_grad (node, 0))
    SET_GRAD (0, max_gather ((CrOpId) node->args->ints[3], grad_outputs[0], indices, &g, error));
  if (cr_ops_needs_grad (node, 1))
    SET_GRAD (1, cr_ops_zeros_meta (&node->input_meta[1], error));
  return TRUE;
}

static gboolean
avg_pool_backward (CrNode          *node,
                   CrTensor *const *grad_outputs,
                   CrTensor       **grad_inputs,
                   GError         **error)
{
  CrPoolGeom g;
  SAVED (x, 0);

  geom_from_node (node, FALSE, &g);
  SET_GRAD (0, avg_adjoint (g.adaptive ? CR_OP_ADAPTIVE_AVG_POOL2D_BACKWARD
                                       : CR_OP_AVG_POOL2D_BACKWARD,
                            grad_outputs[0], x, &g, error));
  return TRUE;
}

static gboolean
avg_pool_adjoint_backward (CrNode          *node,
                           CrTensor *const *grad_outputs,
                           CrTensor       **grad_inputs,
                           GError         **error)
{
  CrPoolGeom g;

  geom_from_node (node, TRUE, &g);
  if (cr_ops_needs_grad (node, 0))
    SET_GRAD (0, avg_forward (g.adaptive ? CR_OP_ADAPTIVE_AVG_POOL2D : CR_OP_AVG_POOL2D,
                              grad_outputs[0], &g, error));
  if (cr_ops_needs_grad (node, 1))
    SET_GRAD (1, cr_ops_zeros_meta (&node->input_meta[1], error));
  return TRUE;
}

const CrOpInfo cr_op_row_MAX_POOL2D = {
  CR_OP_MAX_POOL2D, "max_pool2d", "MaxPool2DWithIndicesBackward0", 1, "maxpool",
  "∂out/∂x: G routed to the position of each window's maximum",
  max_pool_backward, NULL
};

const CrOpInfo cr_op_row_ADAPTIVE_MAX_POOL2D = {
  CR_OP_ADAPTIVE_MAX_POOL2D, "adaptive_max_pool2d", "AdaptiveMaxPool2DBackward0", 1, "maxpool",
  "∂out/∂x: G routed to the position of each window's maximum",
  max_pool_backward, NULL
};

const CrOpInfo cr_op_row_MAX_POOL2D_BACKWARD = {
  CR_OP_MAX_POOL2D_BACKWARD, "max_pool2d_backward", "MaxPool2DWithIndicesBackwardBackward0", 2,
  "maxpool∂", "∂out/∂g: G read at the saved maximum positions,  ∂out/∂x = 0",
  max_pool_adjoint_backward, NULL
};

const CrOpInfo cr_op_row_ADAPTIVE_MAX_POOL2D_BACKWARD = {
  CR_OP_ADAPTIVE_MAX_POOL2D_BACKWARD, "adaptive_max_pool2d_backward",
  "AdaptiveMaxPool2DBackwardBackward0", 2, "maxpool∂",
  "∂out/∂g: G read at the saved maximum positions,  ∂out/∂x = 0",
  max_pool_adjoint_backward, NULL
};

const CrOpInfo cr_op_row_AVG_POOL2D = {
  CR_OP_AVG_POOL2D, "avg_pool2d", "AvgPool2DBackward0", 1, "avgpool",
  "∂out/∂x: G / window size, spread over each window",
  avg_pool_backward, NULL
};

const CrOpInfo cr_op_row_AVG_POOL2D_BACKWARD = {
  CR_OP_AVG_POOL2D_BACKWARD, "avg_pool2d_backward", "AvgPool2DBackwardBackward0", 2,
  "avgpool∂", "∂out/∂g = avg_pool2d(G),  ∂out/∂x = 0",
  avg_pool_adjoint_backward, NULL
};

const CrOpInfo cr_op_row_ADAPTIVE_AVG_POOL2D = {
  CR_OP_ADAPTIVE_AVG_POOL2D, "adaptive_avg_pool2d", "AdaptiveAvgPool2DBackward0", 1, "avgpool",
  "∂out/∂x: G / window size, spread over each window",
  avg_pool_backward, NULL
};

const CrOpInfo cr_op_row_ADAPTIVE_AVG_POOL2D_BACKWARD = {
  CR_OP_ADAPTIVE_AVG_POOL2D_BACKWARD, "adaptive_avg_pool2d_backward",
  "AdaptiveAvgPool2DBackwardBackward0", 2, "avgpool∂",
  "∂out/∂g = adaptive_avg_pool2d(G),  ∂out/∂x = 0",
  avg_pool_adjoint_backward, NULL
};

/* ---- checks and output sizes (PyTorch's pooling_output_shape) ----------- */

static gint64
pooled_size (gint64   in,
             gint64   kernel,
             gint64   pad,
             gint64   stride,
             gint64   dilation,
             gboolean ceil_mode)
{
  gint64 num = in + 2 * pad - dilation * (kernel - 1) - 1 + (ceil_mode ? stride - 1 : 0);
  /* Division rounding toward -inf, as PyTorch's div_rtn. */
  gint64 q = num / stride - ((num % stride != 0) && ((num < 0) != (stride < 0)));
  gint64 out = q + 1;

  if (ceil_mode && (out - 1) * stride >= in + pad)
    out--;
  return out;
}

static gboolean
check_input (const CrTensor *x,
             const char     *name,
             gboolean        allow_empty_batch,
             GError        **error)
{
  gboolean ok = x->ndim == 3 || x->ndim == 4;

  for (int d = x->ndim == 4 ? 1 : 0; ok && d < x->ndim; d++)
    ok = x->shape[d] > 0;
  if (ok && !allow_empty_batch && x->numel == 0)
    ok = FALSE;
  if (ok)
    return TRUE;
  {
    g_autofree char *s = cr_shape_to_string (x->shape, x->ndim);

    if (x->ndim == 3 || x->ndim == 4)
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for "
                   "input, but got:%s", s);
    else if (strcmp (name, "max_pool2d") == 0)
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "non-empty 3D or 4D (batch mode) tensor expected for input");
    else
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "%s(): Expected 3D or 4D tensor, but got %s", name, s);
  }
  return FALSE;
}

/* In PyTorch's order: the output-size checks of each axis (stride zero,
 * padding), then pool2d_shape_check's (kernel, stride, dilation, input,
 * output size). */
static gboolean
sliding_geom (CrTensor             *x,
              const CrPool2dParams *p,
              gboolean              is_max,
              CrPoolGeom           *g,
              GError              **error)
{
  memset (g, 0, sizeof *g);
  if (x->ndim < 2)
    return check_input (x, is_max ? "max_pool2d" : "avg_pool2d", TRUE, error);
  for (int i = 0; i < 2; i++)
    {
      if (p->stride[i] == 0)
        {
          g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                               "stride should not be zero");
          return FALSE;
        }
      if (p->padding[i] < 0)
        {
          g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                       "pad must be non-negative, but got pad: %" G_GINT64_FORMAT, p->padding[i]);
          return FALSE;
        }
      if (p->padding[i] > p->kernel[i] / 2)
        {
          g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                       "pad should be at most half of kernel size, but got pad=%" G_GINT64_FORMAT
                       " and kernel_size=%" G_GINT64_FORMAT, p->padding[i], p->kernel[i]);
          return FALSE;
        }
    }
  if (p->kernel[0] <= 0 || p->kernel[1] <= 0)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "kernel size should be greater than zero, but got kH: %" G_GINT64_FORMAT
                   " kW: %" G_GINT64_FORMAT, p->kernel[0], p->kernel[1]);
      return FALSE;
    }
  if (p->stride[0] <= 0 || p->stride[1] <= 0)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "stride should be greater than zero, but got dH: %" G_GINT64_FORMAT
                   " dW: %" G_GINT64_FORMAT, p->stride[0], p->stride[1]);
      return FALSE;
    }
  if (p->dilation[0] <= 0 || p->dilation[1] <= 0)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "dilation should be greater than zero, but got dilationH: %" G_GINT64_FORMAT
                   " dilationW: %" G_GINT64_FORMAT, p->dilation[0], p->dilation[1]);
      return FALSE;
    }
  if (!check_input (x, is_max ? "max_pool2d" : "avg_pool2d", TRUE, error))
    return FALSE;
  for (int i = 0; i < 2; i++)
    {
      g->kernel[i] = p->kernel[i];
      g->stride[i] = p->stride[i];
      g->padding[i] = p->padding[i];
      g->dilation[i] = p->dilation[i];
      g->in[i] = x->shape[x->ndim - 2 + i];
      g->out[i] = pooled_size (g->in[i], p->kernel[i], p->padding[i], p->stride[i],
                               p->dilation[i], p->ceil_mode);
    }
  if (g->out[0] < 1 || g->out[1] < 1)
    {
      gint64 planes = x->shape[x->ndim - 3];

      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "Given input size: (%" G_GINT64_FORMAT "x%" G_GINT64_FORMAT "x%"
                   G_GINT64_FORMAT "). Calculated output size: (%" G_GINT64_FORMAT "x%"
                   G_GINT64_FORMAT "x%" G_GINT64_FORMAT "). Output size is too small",
                   planes, g->in[0], g->in[1], planes, g->out[0], g->out[1]);
      return FALSE;
    }
  g->count_include_pad = p->count_include_pad;
  g->divisor_override = p->divisor_override;
  return TRUE;
}

static gboolean
adaptive_geom (CrTensor    *x,
               const char  *name,
               gint64       out_h,
               gint64       out_w,
               CrPoolGeom  *g,
               GError     **error)
{
  memset (g, 0, sizeof *g);
  if (out_h < 0 || out_w < 0)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "%s: elements of output_size must be greater than or equal to 0 but "
                   "received {%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT "}", name, out_h, out_w);
      return FALSE;
    }
  if (!check_input (x, name, TRUE, error))
    return FALSE;
  g->adaptive = TRUE;
  g->in[0] = x->shape[x->ndim - 2];
  g->in[1] = x->shape[x->ndim - 1];
  g->out[0] = out_h;
  g->out[1] = out_w;
  g->kernel[0] = g->kernel[1] = g->stride[0] = g->stride[1] = 1;
  g->dilation[0] = g->dilation[1] = 1;
  return TRUE;
}

/* ---- the ops ------------------------------------------------------------- */

static CrTensor *
max_pool (CrOpId            op,
          CrTensor         *x,
          const CrPoolGeom *g,
          CrTensor        **out_indices,
          GError          **error)
{
  CrTensor *values = NULL, *indices = NULL;
  CrNode *node;

  if (!cr_kernel_max_pool2d (x, g, &values, &indices, error))
    return NULL;
  if ((node = cr_ops_record (op, &x, 1, values)) != NULL)
    {
      /* The input too, as PyTorch saves self: its adjoint's second edge. */
      geom_to_args (g, cr_node_args (node));
      cr_node_save (node, 0, indices, FALSE);
      cr_node_save (node, 1, x, FALSE);
    }
  if (out_indices != NULL)
    *out_indices = indices;
  else
    cr_tensor_unref (indices);
  return values;
}

CrTensor *
cr_max_pool2d (CrTensor             *x,
               const CrPool2dParams *params,
               CrTensor            **out_indices,
               GError              **error)
{
  CrPoolGeom g;

  if (!sliding_geom (x, params, TRUE, &g, error))
    return NULL;
  return max_pool (CR_OP_MAX_POOL2D, x, &g, out_indices, error);
}

CrTensor *
cr_adaptive_max_pool2d (CrTensor  *x,
                        gint64     out_h,
                        gint64     out_w,
                        CrTensor **out_indices,
                        GError   **error)
{
  CrPoolGeom g;

  if (!adaptive_geom (x, "adaptive_max_pool2d", out_h, out_w, &g, error))
    return NULL;
  return max_pool (CR_OP_ADAPTIVE_MAX_POOL2D, x, &g, out_indices, error);
}

CrTensor *
cr_avg_pool2d (CrTensor             *x,
               const CrPool2dParams *params,
               GError              **error)
{
  CrPoolGeom g;

  if (!sliding_geom (x, params, FALSE, &g, error))
    return NULL;
  return avg_forward (CR_OP_AVG_POOL2D, x, &g, error);
}

CrTensor *
cr_adaptive_avg_pool2d (CrTensor  *x,
                        gint64     out_h,
                        gint64     out_w,
                        GError   **error)
{
  CrPoolGeom g;

  if (!adaptive_geom (x, "adaptive_avg_pool2d", out_h, out_w, &g, error))
    return NULL;
  return avg_forward (CR_OP_ADAPTIVE_AVG_POOL2D, x, &g, error);
}
