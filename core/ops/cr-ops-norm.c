/* cr-ops-norm.c — layer_norm, batch_norm, group_norm (and instance_norm on
 * top of batch_norm), each one node over (input, weight, bias) as in PyTorch
 * 1.13: NativeLayerNormBackward0, NativeBatchNormBackward0,
 * NativeGroupNormBackward0.
 *
 * The three share one computation. The input is seen in a "stat layout"
 * where the statistics are a mean and a reciprocal standard deviation over
 * some dims (layer norm: the last dims; batch norm: every dim but 1; group
 * norm: the input viewed as (N, G, -1), over dim 2); the normalized input is
 * then scaled and shifted by weight and bias viewed in an "affine shape" that
 * broadcasts against the input. The forward is composed of ops run with grad
 * mode off (so it runs on every backend), then one node is recorded. The
 * backward is written in differentiable ops; under create_graph it recomputes
 * the statistics from the input, so second derivatives see how they depend
 * on it. */
#include "cr-ops-private.h"
#include "cr-ops-nnf.h"
#include "cr-grad-mode.h"
#include "cr-error.h"
#include "cr-cpu-batch-norm.h"

#include <math.h>

typedef struct {
  gint64 stat_shape[CR_MAX_DIMS];    /* the input viewed for its statistics */
  int    stat_ndim;
  int    dims[CR_MAX_DIMS];          /* the reduced dims of that view */
  int    n_dims;
  gint64 affine_shape[CR_MAX_DIMS];  /* weight and bias, broadcastable to the input */
  int    affine_ndim;
} NormLayout;

/* param: layer norm, the number of normalized dims; group norm, the groups. */
static void
layout_for (CrOpId         op,
            const gint64  *shape,
            int            ndim,
            gint64         param,
            NormLayout    *l)
{
  l->n_dims = 0;
  if (op == CR_OP_NATIVE_LAYER_NORM)
    {
      l->stat_ndim = ndim;
      memcpy (l->stat_shape, shape, sizeof (gint64) * ndim);
      l->affine_ndim = (int) param;
      for (int d = ndim - (int) param; d < ndim; d++)
        {
          l->dims[l->n_dims++] = d;
          l->affine_shape[d - (ndim - (int) param)] = shape[d];
        }
      return;
    }

  /* Batch and group norm: the weight is per channel, dim 1. */
  l->affine_ndim = ndim - 1;
  l->affine_shape[0] = shape[1];
  for (int d = 1; d < ndim - 1; d++)
    l->affine_shape[d] = 1;

  if (op == CR_OP_NATIVE_BATCH_NORM)
    {
      l->stat_ndim = ndim;
      memcpy (l->stat_shape, shape, sizeof (gint64) * ndim);
      for (int d = 0; d < ndim; d++)
        if (d != 1)
          l->dims[l->n_dims++] = d;
      return;
    }

  /* Group norm: (N, G, C / G * spatial). */
  l->stat_ndim = 3;
  l->stat_shape[0] = shape[0];
  l->stat_shape[1] = param;
  l->stat_shape[2] = shape[0] * param > 0 ? cr_shape_numel (shape, ndim) / (shape[0] * param) : 0;
  l->dims[l->n_dims++] = 2;
}

/* mean and 1/sqrt(var + eps) (biased variance) of xv over the layout's dims,
 * kept as size 1; recorded when grad mode is on. */
static gboolean
input_stats (CrTensor          *xv,
             const NormLayout  *l,
             double             eps,
             CrTensor         **out_mean,
             CrTensor         **out_rstd,
             GError           **error)
{
  g_autoptr(CrTensor) mean = cr_mean_dim (xv, l->dims, l->n_dims, TRUE, error);
  g_autoptr(CrTensor) var = mean != NULL ? cr_var (xv, l->dims, l->n_dims, 0, TRUE, error)
                                         : NULL;
  g_autoptr(CrTensor) shifted = var != NULL ? cr_ops_add_number (var, eps, error) : NULL;
  CrTensor *rstd = shifted != NULL ? cr_unary (CR_OP_RSQRT, shifted, error) : NULL;

  if (rstd == NULL)
    return FALSE;
  *out_mean = g_steal_pointer (&mean);
  *out_rstd = rstd;
  return TRUE;
}

/* t viewed in shape (a reshape: views when it can). */
static CrTensor *
reshaped (CrTensor      *t,
          const gint64  *shape,
          int            ndim,
          GError       **error)
{
  if (t->ndim == ndim && memcmp (t->shape, shape, sizeof (gint64) * ndim) == 0)
    return cr_tensor_ref (t);
  return cr_reshape (t, shape, ndim, error);
}

/* (x - mean) * rstd in x's shape, mean and rstd in the stat layout. */
static CrTensor *
normalized (CrTensor          *x,
            const NormLayout  *l,
            CrTensor          *mean,
            CrTensor          *rstd,
            GError           **error)
{
  g_autoptr(CrTensor) xv = reshaped (x, l->stat_shape, l->stat_ndim, error);
  g_autoptr(CrTensor) centered = xv != NULL ? cr_sub (xv, mean, error) : NULL;
  g_autoptr(CrTensor) scaled = centered != NULL ? cr_mul (centered, rstd, error) : NULL;

  if (scaled == NULL)
    return NULL;
  return reshaped (scaled, x->shape, x->ndim, error);
}

/* xhat * weight + bias, each optional, weight and bias in the affine shape. */
static CrTensor *
affine (CrTensor          *xhat,
        const NormLayout  *l,
        CrTensor          *weight,
        CrTensor          *bias,
        GError           **error)
{
  g_autoptr(CrTensor) out = cr_tensor_ref (xhat);

  if (weight != NULL)
    {
      g_autoptr(CrTensor) w = reshaped (weight, l->affine_shape, l->affine_ndim, error);
      CrTensor *next = w != NULL ? cr_mul (out, w, error) : NULL;

      cr_tensor_unref (out);
      out = next;
      if (out == NULL)
        return NULL;
    }
  if (bias != NULL)
    {
      g_autoptr(CrTensor) b = reshaped (bias, l->affine_shape, l->affine_ndim, error);
      CrTensor *next = b != NULL ? cr_add (out, b, error) : NULL;

      cr_tensor_unref (out);
      out = next;
    }
  return g_steal_pointer (&out);
}

/* ---- backward ----------------------------------------------------------- */

/* A slot that may have been left empty (no weight): *out NULL then. */
static gboolean
optional_saved (CrNode     *node,
                guint       slot,
                CrTensor  **out,
                GError    **error)
{
  *out = NULL;
  if (slot >= node->n_saved || !node->saved[slot].was_saved)
    return TRUE;
  *out = cr_node_get_saved (node, slot, error);
  return *out != NULL;
}

/* The sum of t down to the affine shape, viewed as the weight's shape. */
static CrTensor *
affine_grad (CrTensor            *t,
             const NormLayout    *l,
             const CrTensorMeta  *meta,
             GError             **error)
{
  g_autoptr(CrTensor) s = cr_sum_to_shape (t, l->affine_shape, l->affine_ndim, error);

  if (s == NULL)
    return NULL;
  return reshaped (s, meta->shape, meta->ndim, error);
}

/* The layout's statistic shape with its reduced dims kept as size 1. */
static void
stat_keepdim_shape (const NormLayout *l,
                    gint64           *shape)
{
  memcpy (shape, l->stat_shape, sizeof (gint64) * l->stat_ndim);
  for (int i = 0; i < l->n_dims; i++)
    shape[l->dims[i]] = 1;
}

/* Batch norm in eval: the running buffers the node keeps (slots 4, 5) as
 * the mean and 1/sqrt(var + eps) in the affine shape. Unpacking them fails
 * when they were changed in place since, as in PyTorch. */
static gboolean
running_stats (CrNode            *node,
               const NormLayout  *l,
               CrTensor         **out_mean,
               CrTensor         **out_rstd,
               GError           **error)
{
  g_autoptr(CrTensor) rm = cr_node_get_saved (node, 4, error);
  g_autoptr(CrTensor) rv = rm != NULL ? cr_node_get_saved (node, 5, error) : NULL;
  g_autoptr(CrTensor) v = rv != NULL ? reshaped (rv, l->affine_shape, l->affine_ndim, error)
                                     : NULL;
  g_autoptr(CrTensor) shifted = v != NULL ? cr_ops_add_number (v, node->args->scalar[0], error)
                                          : NULL;

  *out_rstd = shifted != NULL ? cr_unary (CR_OP_RSQRT, shifted, error) : NULL;
  *out_mean = *out_rstd != NULL ? reshaped (rm, l->affine_shape, l->affine_ndim, error) : NULL;
  return *out_mean != NULL;
}

/* Batch norm's plain backward on the CPU with PyTorch's own loops
 * (cr-cpu-batch-norm.c): the batch's statistics (slots 2, 3) in training,
 * the running buffers (4, 5) in evaluation. */
static gboolean
batch_norm_backward_cpu (CrNode          *node,
                         CrTensor        *g,
                         CrTensor        *x,
                         CrTensor        *weight,
                         CrTensor       **grad_inputs,
                         GError         **error)
{
  gboolean train = node->args->ints[1];
  gboolean want[3];
  CrTensor *grads[3] = { NULL, NULL, NULL };
  g_autoptr(CrTensor) mean = NULL;
  g_autoptr(CrTensor) invstd = NULL;

  for (guint i = 0; i < 3; i++)
    want[i] = cr_ops_needs_grad (node, i);
  if (train)
    {
      if ((mean = cr_node_get_saved (node, 2, error)) == NULL
          || (invstd = cr_node_get_saved (node, 3, error)) == NULL
          || !cr_ops_check_saved_from (node, 4, error))
        return FALSE;
    }
  else
    {
      g_autoptr(CrTensor) running_var = NULL;

      if ((mean = cr_node_get_saved (node, 4, error)) == NULL
          || (running_var = cr_node_get_saved (node, 5, error)) == NULL
          || (invstd = cr_cpu_batch_norm_invstd (running_var, node->args->scalar[0], FALSE,
                                                 error)) == NULL)
        return FALSE;
    }
  if (!cr_cpu_batch_norm_backward (g, x, weight, mean, invstd, train, want, grads, error))
    return FALSE;
  for (guint i = 0; i < 3; i++)
    grad_inputs[i] = grads[i];
  return TRUE;
}

/* NATIVE_LAYER_NORM, NATIVE_BATCH_NORM, NATIVE_GROUP_NORM: inputs (x,
 * weight, bias); saved[0] x, [1] weight (when given), [2] mean, [3] rstd, as
 * PyTorch's node shows them (result1, result2: layer norm's in the stat
 * layout, batch norm's (C,), group norm's (N, G); batch norm in eval: empty,
 * the backward reads the running buffers); batch norm's [4] running_mean,
 * [5] running_var; layer norm's [4] bias (kept only to show it).
 * args.scalar[0] eps; args.ints[0] the layout's parameter; args.ints[1]
 * TRUE when the input's own statistics were used. */
static gboolean
norm_backward (CrNode          *node,
               CrTensor *const *grad_outputs,
               CrTensor       **grad_inputs,
               GError         **error)
{
  CrTensor *g = grad_outputs[0];
  const CrTensorMeta *xm = &node->input_meta[0];
  gboolean use_stats = node->args->ints[1];
  g_autoptr(CrTensor) weight = NULL;
  g_autoptr(CrTensor) mean = NULL;
  g_autoptr(CrTensor) rstd = NULL;
  g_autoptr(CrTensor) xhat = NULL;
  g_autoptr(CrTensor) gxhat = NULL;
  NormLayout l;
  SAVED (x, 0);

  layout_for (node->op->id, xm->shape, xm->ndim, node->args->ints[0], &l);
  if (!optional_saved (node, 1, &weight, error))
    return FALSE;
  if (node->op->id == CR_OP_NATIVE_BATCH_NORM && !cr_grad_mode_is_enabled ())
    {
      const CrTensor *per_channel[1] = { weight };
      if (cr_cpu_batch_norm_supported (x, per_channel, 1) && g->dtype == x->dtype
          && g->device == CR_DEVICE_CPU)
        return batch_norm_backward_cpu (node, g, x, weight, grad_inputs, error);
    }
  if (!use_stats)
    {
      if (!running_stats (node, &l, &mean, &rstd, error))
        return FALSE;
    }
  else if (cr_grad_mode_is_enabled ())
    {
      /* create_graph: statistics that know they depend on x. */
      g_autoptr(CrTensor) xv = reshaped (x, l.stat_shape, l.stat_ndim, error);

      if (xv == NULL || !input_stats (xv, &l, node->args->scalar[0], &mean, &rstd, error)
          || !cr_ops_check_saved_from (node, 4, error))
        return FALSE;
    }
  else
    {
      gint64 keepdim[CR_MAX_DIMS];
      g_autoptr(CrTensor) m = cr_node_get_saved (node, 2, error);
      g_autoptr(CrTensor) r = m != NULL ? cr_node_get_saved (node, 3, error) : NULL;

      stat_keepdim_shape (&l, keepdim);
      if (r == NULL || !cr_ops_check_saved_from (node, 4, error)
          || (mean = reshaped (m, keepdim, l.stat_ndim, error)) == NULL
          || (rstd = reshaped (r, keepdim, l.stat_ndim, error)) == NULL)
        return FALSE;
    }

  if (use_stats)
    xhat = normalized (x, &l, mean, rstd, error);
  else
    {
      /* Running statistics, in the affine shape. */
      g_autoptr(CrTensor) centered = cr_sub (x, mean, error);

      xhat = centered != NULL ? cr_mul (centered, rstd, error) : NULL;
    }
  if (xhat == NULL)
    return FALSE;
  gxhat = affine (g, &l, weight, NULL, error);
  if (gxhat == NULL)
    return FALSE;

  if (cr_ops_needs_grad (node, 0))
    {
      if (use_stats)
        {
          g_autoptr(CrTensor) gv = reshaped (gxhat, l.stat_shape, l.stat_ndim, error);
          g_autoptr(CrTensor) xv = gv != NULL ? reshaped (xhat, l.stat_shape, l.stat_ndim, error)
                                              : NULL;
          g_autoptr(CrTensor) a = xv != NULL ? cr_mean_dim (gv, l.dims, l.n_dims, TRUE, error)
                                             : NULL;
          g_autoptr(CrTensor) gx_ = a != NULL ? cr_mul (gv, xv, error) : NULL;
          g_autoptr(CrTensor) b = gx_ != NULL ? cr_mean_dim (gx_, l.dims, l.n_dims, TRUE, error)
                                              : NULL;
          g_autoptr(CrTensor) xb = b != NULL ? cr_mul (xv, b, error) : NULL;
          g_autoptr(CrTensor) d1 = xb != NULL ? cr_sub (gv, a, error) : NULL;
          g_autoptr(CrTensor) d2 = d1 != NULL ? cr_sub (d1, xb, error) : NULL;
          g_autoptr(CrTensor) gxv = d2 != NULL ? cr_mul (d2, rstd, error) : NULL;

          if (gxv == NULL)
            return FALSE;
          SET_GRAD (0, reshaped (gxv, xm->shape, xm->ndim, error));
        }
      else
        SET_GRAD (0, cr_mul (gxhat, rstd, error));
    }
  if (cr_ops_needs_grad (node, 1))
    {
      g_autoptr(CrTensor) gw = cr_mul (g, xhat, error);

      if (gw == NULL)
        return FALSE;
      SET_GRAD (1, affine_grad (gw, &l, &node->input_meta[1], error));
    }
  if (cr_ops_needs_grad (node, 2))
    SET_GRAD (2, affine_grad (g, &l, &node->input_meta[2], error));
  return TRUE;
}

/* Layer norm: under create_graph, PyTorch's one native_layer_norm_backward
 * op (NativeLayerNormBackwardBackward0, cr-ops-layer-norm-backward.c) over
 * the values the plain backward gives. */
static gboolean
layer_norm_backward (CrNode          *node,
                     CrTensor *const *grad_outputs,
                     CrTensor       **grad_inputs,
                     GError         **error)
{
  g_autoptr(CrTensor) x = NULL;
  g_autoptr(CrTensor) weight = NULL;
  g_autoptr(CrTensor) mean = NULL;
  g_autoptr(CrTensor) rstd = NULL;
  g_autoptr(CrTensor) bias = NULL;
  gboolean was_enabled;
  gboolean ok;

  if (!cr_grad_mode_is_enabled ())
    return norm_backward (node, grad_outputs, grad_inputs, error);
  was_enabled = cr_grad_mode_set_enabled (FALSE);
  ok = norm_backward (node, grad_outputs, grad_inputs, error);
  cr_grad_mode_set_enabled (was_enabled);
  if (!ok || (x = cr_node_get_saved (node, 0, error)) == NULL
      || !optional_saved (node, 1, &weight, error)
      || (mean = cr_node_get_saved (node, 2, error)) == NULL
      || (rstd = cr_node_get_saved (node, 3, error)) == NULL
      || !optional_saved (node, 4, &bias, error))
    return FALSE;
  cr_ops_layer_norm_backward_record (grad_outputs[0], x, mean, rstd, weight, bias,
                                     (int) node->args->ints[0], node->args->scalar[0],
                                     grad_inputs);
  return TRUE;
}

const CrOpInfo cr_op_row_NATIVE_LAYER_NORM = {
  CR_OP_NATIVE_LAYER_NORM, "layer_norm", "NativeLayerNormBackward0", 3, "LN",
  "x̂ = (x − μ)·σ⁻¹ over the last dims:  ∂/∂x = σ⁻¹(Ĝ − mean Ĝ − x̂·mean(Ĝ·x̂)),  "
  "Ĝ = G·w;  ∂/∂w = Σ G·x̂;  ∂/∂b = Σ G",
  layer_norm_backward, NULL
};

const CrOpInfo cr_op_row_NATIVE_BATCH_NORM = {
  CR_OP_NATIVE_BATCH_NORM, "batch_norm", "NativeBatchNormBackward0", 3, "BN",
  "x̂ = (x − μ)·σ⁻¹ per channel:  ∂/∂x = σ⁻¹(Ĝ − mean Ĝ − x̂·mean(Ĝ·x̂)),  "
  "Ĝ = G·w (eval: σ⁻¹Ĝ);  ∂/∂w = Σ G·x̂;  ∂/∂b = Σ G",
  norm_backward, NULL
};

const CrOpInfo cr_op_row_NATIVE_GROUP_NORM = {
  CR_OP_NATIVE_GROUP_NORM, "group_norm", "NativeGroupNormBackward0", 3, "GN",
  "x̂ = (x − μ)·σ⁻¹ per group:  ∂/∂x = σ⁻¹(Ĝ − mean Ĝ − x̂·mean(Ĝ·x̂)),  "
  "Ĝ = G·w;  ∂/∂w = Σ G·x̂;  ∂/∂b = Σ G",
  norm_backward, NULL
};

/* ---- forward ------------------------------------------------------------ */

/* The one node over (x, weight, bias) that out gets when one is recorded:
 * saved mean and rstd as the node shows them (see norm_backward). */
static void
record_norm (CrOpId     op,
             CrTensor  *x,
             CrTensor  *weight,
             CrTensor  *bias,
             gint64     param,
             double     eps,
             gboolean   use_stats,
             CrTensor  *saved_mean,
             CrTensor  *saved_rstd,
             CrTensor  *out)
{
  CrTensor *inputs[3] = { x, weight, bias };
  CrNode *node = cr_ops_record (op, inputs, 3, out);

  if (node == NULL)
    return;
  CrOpArgs *args = cr_node_args (node);
  args->scalar[0] = eps;
  args->ints[0] = param;
  args->ints[1] = use_stats;
  cr_node_save (node, 0, x, FALSE);
  cr_node_save (node, 1, weight, FALSE);
  cr_node_save (node, 2, saved_mean, FALSE);
  cr_node_save (node, 3, saved_rstd, FALSE);
  if (op == CR_OP_NATIVE_LAYER_NORM)
    cr_node_save (node, 4, bias, FALSE);
}

/* Runs the forward without recording and records one node over (x, weight,
 * bias). mean_in/rstd_in: the statistics to use (batch norm in eval), NULL to
 * compute the input's own. *out_mean / *out_rstd (may be NULL) get the
 * statistics used. */
static CrTensor *
norm_forward (CrOpId      op,
              CrTensor   *x,
              CrTensor   *weight,
              CrTensor   *bias,
              gint64      param,
              double      eps,
              CrTensor   *mean_in,
              CrTensor   *rstd_in,
              CrTensor  **out_mean,
              GError    **error)
{
  g_autoptr(CrTensor) mean = NULL;
  g_autoptr(CrTensor) rstd = NULL;
  g_autoptr(CrTensor) kept_mean = NULL;
  g_autoptr(CrTensor) kept_rstd = NULL;
  gint64 kept_shape[2];
  int kept_ndim = 0;
  g_autoptr(CrTensor) xhat = NULL;
  g_autoptr(CrTensor) out = NULL;
  gboolean was_enabled;
  NormLayout l;

  layout_for (op, x->shape, x->ndim, param, &l);
  /* PyTorch's node keeps batch norm's statistics per channel (C,) and
   * group norm's per sample and group (N, G); layer norm's keep their dims. */
  if (op == CR_OP_NATIVE_BATCH_NORM)
    {
      kept_shape[0] = mean_in != NULL ? 0 : x->shape[1];
      kept_ndim = 1;
    }
  else if (op == CR_OP_NATIVE_GROUP_NORM)
    {
      kept_shape[0] = x->shape[0];
      kept_shape[1] = param;
      kept_ndim = 2;
    }
  was_enabled = cr_grad_mode_set_enabled (FALSE);
  if (mean_in != NULL)
    {
      mean = cr_tensor_ref (mean_in);
      rstd = cr_tensor_ref (rstd_in);
      {
        g_autoptr(CrTensor) centered = cr_sub (x, mean, error);
        xhat = centered != NULL ? cr_mul (centered, rstd, error) : NULL;
      }
    }
  else
    {
      g_autoptr(CrTensor) xv = reshaped (x, l.stat_shape, l.stat_ndim, error);

      if (xv != NULL && input_stats (xv, &l, eps, &mean, &rstd, error))
        xhat = normalized (x, &l, mean, rstd, error);
    }
  out = xhat != NULL ? affine (xhat, &l, weight, bias, error) : NULL;
  if (out != NULL && kept_ndim > 0)
    {
      /* Batch norm in eval keeps empty statistics, as PyTorch's node. */
      kept_mean = mean_in != NULL ? cr_tensor_new_empty (kept_shape, 1, x->dtype, x->device, error)
                                  : cr_reshape (mean, kept_shape, kept_ndim, error);
      kept_rstd = kept_mean == NULL ? NULL
                  : mean_in != NULL ? cr_tensor_new_empty (kept_shape, 1, x->dtype, x->device, error)
                  : cr_reshape (rstd, kept_shape, kept_ndim, error);
      if (kept_rstd == NULL)
        g_clear_pointer (&out, cr_tensor_unref);
    }
  cr_grad_mode_set_enabled (was_enabled);
  if (out == NULL)
    return NULL;
  record_norm (op, x, weight, bias, param, eps, mean_in == NULL,
               kept_ndim > 0 ? kept_mean : mean, kept_ndim > 0 ? kept_rstd : rstd, out);
  if (out_mean != NULL)
    *out_mean = g_steal_pointer (&mean);
  return g_steal_pointer (&out);
}

static gboolean
check_floating (const CrTensor  *x,
                const char      *kernel,
                GError         **error)
{
  if (cr_dtype_is_floating (x->dtype))
    return TRUE;
  g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR, "\"%s\" not implemented for '%s'",
               kernel, cr_dtype_scalar_name (x->dtype));
  return FALSE;
}

/* PyTorch's "expected scalar type Double but found Float" of a parameter
 * whose dtype differs from the input's. */
static gboolean
check_same_dtype (const CrTensor  *x,
                  const CrTensor  *t,
                  GError         **error)
{
  if (t == NULL || t->dtype == x->dtype)
    return TRUE;
  g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
               "expected scalar type %s but found %s",
               cr_dtype_scalar_name (x->dtype), cr_dtype_scalar_name (t->dtype));
  return FALSE;
}

CrTensor *
cr_layer_norm (CrTensor      *x,
               const gint64  *normalized_shape,
               int            n,
               CrTensor      *weight,
               CrTensor      *bias,
               double         eps,
               GError       **error)
{
  g_autofree char *ns = cr_shape_to_string (normalized_shape, n);
  CrTensor *params[2] = { weight, bias };
  const char *names[2] = { "weight", "bias" };
  gboolean fits = n <= x->ndim;

  if (n < 1)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "Expected normalized_shape to be at least 1-dimensional, i.e., containing "
                   "at least one element, but got normalized_shape = %s", ns);
      return NULL;
    }
  for (int i = 0; i < 2; i++)
    if (params[i] != NULL
        && (params[i]->ndim != n
            || memcmp (params[i]->shape, normalized_shape, sizeof (gint64) * n) != 0))
      {
        g_autofree char *ps = cr_shape_to_string (params[i]->shape, params[i]->ndim);

        g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                     "Expected %s to be of same shape as normalized_shape, but got %s of "
                     "shape %s and normalized_shape = %s", names[i], names[i], ps, ns);
        return NULL;
      }
  for (int i = 0; i < n && fits; i++)
    fits = x->shape[x->ndim - n + i] == normalized_shape[i];
  if (!fits)
    {
      g_autofree char *xs = cr_shape_to_string (x->shape, x->ndim);
      g_autofree char *inner = g_strndup (ns + 1, strlen (ns) - 2);

      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "Given normalized_shape=%s, expected input with shape [*, %s], but got "
                   "input of size%s", ns, inner, xs);
      return NULL;
    }
  if (!check_floating (x, "LayerNormKernelImpl", error)
      || !check_same_dtype (x, weight, error) || !check_same_dtype (x, bias, error))
    return NULL;
  return norm_forward (CR_OP_NATIVE_LAYER_NORM, x, weight, bias, n, eps, NULL, NULL, NULL,
                       error);
}

static gboolean
check_features (const char      *name,
                const CrTensor  *t,
                gint64           n,
                GError         **error)
{
  if (t == NULL || t->numel == n)
    return TRUE;
  g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
               "%s should contain %" G_GINT64_FORMAT " elements not %" G_GINT64_FORMAT,
               name, n, t->numel);
  return FALSE;
}

/* The CPU batch norm's dtype rule: the given parameters and running
 * statistics share one dtype, the input's, with 1.13's messages (which
 * speak of the bfloat16 mixed mode Chainrule lacks). */
static gboolean
check_batch_norm_dtypes (const CrTensor   *x,
                         CrTensor *const  *params,
                         GError          **error)
{
  const CrTensor *first = NULL;
  gboolean agree = TRUE;

  for (int i = 0; i < 4; i++)
    if (params[i] != NULL)
      {
        if (first == NULL)
          first = params[i];
        else if (params[i]->dtype != first->dtype)
          agree = FALSE;
      }
  if (first == NULL || (agree && first->dtype == x->dtype))
    return TRUE;
  g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                       !agree || first->dtype != CR_DTYPE_FLOAT32
                       ? "mixed dtype (CPU): expect parameter to have scalar type of Float"
                       : "mixed dtype (CPU): expect input to have scalar type of BFloat16");
  return FALSE;
}

/* running = (1 - momentum) * running + momentum * value, in place. PyTorch's
 * kernel writes the buffer without moving its version on (a node that kept
 * it from an earlier call still backwards), and so does this. */
static gboolean
update_running (CrTensor  *running,
                CrTensor  *value,
                double     momentum,
                GError   **error)
{
  g_autoptr(CrTensor) flat = cr_reshape (value, running->shape, running->ndim, error);
  g_autoptr(CrTensor) kept = flat != NULL ? cr_ops_mul_number (running, 1.0 - momentum, error)
                                          : NULL;
  g_autoptr(CrTensor) added = kept != NULL ? cr_ops_mul_number (flat, momentum, error) : NULL;
  g_autoptr(CrTensor) sum = added != NULL ? cr_add (kept, added, error) : NULL;

  return sum != NULL && cr_kernel_copy_into (running, sum, error);
}

/* Batch norm's node keeps the running buffers in slots 4 and 5 as they are
 * left (updated, in training), as PyTorch's does (_saved_running_mean): in
 * eval its formula reads them, in training they are only unpacked (a change
 * in place since fails the backward either way). */
static void
save_running (CrTensor *out,
              CrTensor *running_mean,
              CrTensor *running_var)
{
  CrNode *node = out != NULL ? out->grad_fn : NULL;

  if (node == NULL || node->op == NULL || node->op->id != CR_OP_NATIVE_BATCH_NORM)
    return;
  cr_node_save (node, 4, running_mean, FALSE);
  cr_node_save (node, 5, running_var, FALSE);
}

/* Batch norm on the CPU with PyTorch's own loops (cr-cpu-batch-norm.c); the
 * node is the one norm_forward records, its statistics per channel. */
static CrTensor *
batch_norm_cpu (CrTensor      *x,
                CrTensor      *running_mean,
                CrTensor      *running_var,
                CrTensor      *weight,
                CrTensor      *bias,
                gboolean       training,
                double         momentum,
                double         eps,
                GError       **error)
{
  g_autoptr(CrTensor) mean = NULL;
  g_autoptr(CrTensor) invstd = NULL;
  g_autoptr(CrTensor) var_sum = NULL;
  g_autoptr(CrTensor) out = NULL;

  if (training)
    {
      if (!cr_cpu_batch_norm_stats (x, eps, &mean, &invstd, &var_sum, error))
        return NULL;
    }
  else if ((invstd = cr_cpu_batch_norm_invstd (running_var, eps, TRUE, error)) == NULL)
    return NULL;
  out = cr_cpu_batch_norm_apply (x, training ? mean : running_mean, invstd, weight, bias, error);
  if (out == NULL)
    return NULL;
  if (training)
    {
      gint64 count = x->numel / x->shape[1];

      record_norm (CR_OP_NATIVE_BATCH_NORM, x, weight, bias, 0, eps, TRUE, mean, invstd, out);
      if ((running_mean != NULL
           && !cr_cpu_batch_norm_update_mean (running_mean, mean, momentum, error))
          || (running_var != NULL
              && !cr_cpu_batch_norm_update_var (running_var, var_sum, count, momentum, error)))
        return NULL;
    }
  else
    {
      /* Evaluation keeps empty statistics, as PyTorch's node. */
      gint64 none = 0;
      g_autoptr(CrTensor) empty_mean = cr_tensor_new_empty (&none, 1, x->dtype, x->device,
                                                            error);
      g_autoptr(CrTensor) empty_rstd = empty_mean != NULL
                                         ? cr_tensor_new_empty (&none, 1, x->dtype, x->device,
                                                                error)
                                         : NULL;
      if (empty_rstd == NULL)
        return NULL;
      record_norm (CR_OP_NATIVE_BATCH_NORM, x, weight, bias, 0, eps, FALSE, empty_mean,
                   empty_rstd, out);
    }
  save_running (out, running_mean, running_var);
  return g_steal_pointer (&out);
}

CrTensor *
cr_batch_norm (CrTensor      *x,
               CrTensor      *running_mean,
               CrTensor      *running_var,
               CrTensor      *weight,
               CrTensor      *bias,
               gboolean       training,
               double         momentum,
               double         eps,
               GError       **error)
{
  gint64 features = x->ndim > 1 ? x->shape[1] : 0;
  CrTensor *params[4] = { weight, bias, running_mean, running_var };
  g_autoptr(CrTensor) mean = NULL;
  g_autoptr(CrTensor) out = NULL;
  NormLayout l;

  if (x->ndim < 2)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "running_mean should contain 0 elements not %" G_GINT64_FORMAT,
                   running_mean != NULL ? running_mean->numel : 0);
      return NULL;
    }
  if (training)
    {
      gint64 per_channel = x->shape[0];

      for (int d = 2; d < x->ndim; d++)
        per_channel *= x->shape[d];
      if (per_channel == 1)
        {
          g_autofree char *xs = cr_shape_to_string (x->shape, x->ndim);

          g_set_error (error, CR_CORE_ERROR, CR_EXC_VALUE_ERROR,
                       "Expected more than 1 value per channel when training, got input "
                       "size torch.Size(%s)", xs);
          return NULL;
        }
    }
  if (!check_features ("running_mean", running_mean, features, error)
      || !check_features ("running_var", running_var, features, error)
      || !check_features ("weight", weight, features, error)
      || !check_features ("bias", bias, features, error))
    return NULL;
  if (!training && (running_mean == NULL || running_var == NULL))
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "%s must be defined in evaluation mode",
                   running_mean == NULL ? "running_mean" : "running_var");
      return NULL;
    }
  if (!check_floating (x, "batch_norm", error) || !check_batch_norm_dtypes (x, params, error))
    return NULL;

  layout_for (CR_OP_NATIVE_BATCH_NORM, x->shape, x->ndim, 0, &l);
  if (cr_cpu_batch_norm_supported (x, (const CrTensor *const *) params, 4)
      && (training || (running_mean != NULL && running_var != NULL)))
    return batch_norm_cpu (x, running_mean, running_var, weight, bias, training, momentum, eps,
                           error);
  if (!training)
    {
      /* The running statistics, as constants in the affine shape. */
      gboolean was_enabled = cr_grad_mode_set_enabled (FALSE);
      g_autoptr(CrTensor) m = cr_reshape (running_mean, l.affine_shape, l.affine_ndim, error);
      g_autoptr(CrTensor) v = m != NULL ? cr_reshape (running_var, l.affine_shape,
                                                      l.affine_ndim, error) : NULL;
      g_autoptr(CrTensor) m_cast = v != NULL ? cr_to_dtype (m, x->dtype, error) : NULL;
      g_autoptr(CrTensor) shifted = m_cast != NULL ? cr_ops_add_number (v, eps, error) : NULL;
      g_autoptr(CrTensor) r = shifted != NULL ? cr_unary (CR_OP_RSQRT, shifted, error) : NULL;
      g_autoptr(CrTensor) r_cast = r != NULL ? cr_to_dtype (r, x->dtype, error) : NULL;

      cr_grad_mode_set_enabled (was_enabled);
      if (r_cast == NULL)
        return NULL;
      out = norm_forward (CR_OP_NATIVE_BATCH_NORM, x, weight, bias, 0, eps, m_cast, r_cast,
                          NULL, error);
      save_running (out, running_mean, running_var);
      return g_steal_pointer (&out);
    }

  out = norm_forward (CR_OP_NATIVE_BATCH_NORM, x, weight, bias, 0, eps, NULL, NULL, &mean,
                      error);
  if (out == NULL)
    return NULL;
  if (running_mean != NULL || running_var != NULL)
    {
      gboolean was_enabled = cr_grad_mode_set_enabled (FALSE);
      gboolean ok = running_mean == NULL || update_running (running_mean, mean, momentum, error);

      if (ok && running_var != NULL)
        {
          /* The unbiased variance, as PyTorch keeps it. */
          g_autoptr(CrTensor) var = cr_var (x, l.dims, l.n_dims, 1, TRUE, error);

          ok = var != NULL && update_running (running_var, var, momentum, error);
        }
      cr_grad_mode_set_enabled (was_enabled);
      if (!ok)
        return NULL;
    }
  save_running (out, running_mean, running_var);
  return g_steal_pointer (&out);
}

CrTensor *
cr_group_norm (CrTensor      *x,
               gint64         num_groups,
               CrTensor      *weight,
               CrTensor      *bias,
               double         eps,
               GError       **error)
{
  CrTensor *params[2] = { weight, bias };
  const char *names[2] = { "weight", "bias" };
  gint64 channels;

  if (x->ndim < 2)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_INDEX_ERROR,
                   "Dimension out of range (expected to be in range of [-%d, %d], but got 1)",
                   MAX (x->ndim, 1), MAX (x->ndim, 1) - 1);
      return NULL;
    }
  channels = x->shape[1];
  if (num_groups <= 0 || channels % num_groups != 0)
    {
      g_autofree char *xs = cr_shape_to_string (x->shape, x->ndim);

      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "Expected number of channels in input to be divisible by num_groups, but "
                   "got input of shape %s and num_groups=%" G_GINT64_FORMAT, xs, num_groups);
      return NULL;
    }
  for (int i = 0; i < 2; i++)
    if (params[i] != NULL && (params[i]->ndim != 1 || params[i]->numel != channels))
      {
        /* 1.13 prints the weight's shape for either ([0] without one). */
        g_autofree char *ps = weight != NULL ? cr_shape_to_string (weight->shape, weight->ndim)
                                             : g_strdup ("[0]");
        g_autofree char *xs = cr_shape_to_string (x->shape, x->ndim);

        g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                     "Expected %s to be a vector of size equal to the number of channels in "
                     "input, but got %s of shape %s and input of shape %s",
                     names[i], names[i], ps, xs);
        return NULL;
      }
  if (!check_floating (x, "GroupNormKernelImpl", error)
      || !check_same_dtype (x, weight, error) || !check_same_dtype (x, bias, error))
    return NULL;
  return norm_forward (CR_OP_NATIVE_GROUP_NORM, x, weight, bias, num_groups, eps, NULL, NULL,
                       NULL, error);
}

/* param repeated n times (NULL stays NULL). */
static gboolean
repeated (CrTensor   *param,
          gint64      n,
          CrTensor  **out,
          GError    **error)
{
  *out = NULL;
  if (param == NULL)
    return TRUE;
  *out = cr_repeat (param, &n, 1, error);
  return *out != NULL;
}

CrTensor *
cr_instance_norm (CrTensor      *x,
                  CrTensor      *running_mean,
                  CrTensor      *running_var,
                  CrTensor      *weight,
                  CrTensor      *bias,
                  gboolean       use_input_stats,
                  double         momentum,
                  double         eps,
                  GError       **error)
{
  g_autoptr(CrTensor) w = NULL, b = NULL, rm = NULL, rv = NULL;
  g_autoptr(CrTensor) xc = NULL, xv = NULL, out = NULL;
  gint64 shape[CR_MAX_DIMS], n, c;

  if (x->ndim < 2)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_INDEX_ERROR,
                   "Dimension out of range (expected to be in range of [-%d, %d], but got 1)",
                   MAX (x->ndim, 1), MAX (x->ndim, 1) - 1);
      return NULL;
    }
  if (!use_input_stats && (running_mean == NULL || running_var == NULL))
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "Expected running_mean and running_var to be defined when "
                           "use_input_stats is false");
      return NULL;
    }
  n = x->shape[0];
  c = x->shape[1];
  if (use_input_stats && x->numel / MAX (n * c, 1) <= 1)
    {
      g_autofree char *xs = cr_shape_to_string (x->shape, x->ndim);

      g_set_error (error, CR_CORE_ERROR, CR_EXC_VALUE_ERROR,
                   "Expected more than 1 spatial element when training, got input size "
                   "torch.Size(%s)", xs);
      return NULL;
    }
  memcpy (shape, x->shape, sizeof (gint64) * x->ndim);
  shape[0] = 1;
  shape[1] = n * c;
  if (!repeated (weight, n, &w, error) || !repeated (bias, n, &b, error)
      || !repeated (running_mean, n, &rm, error) || !repeated (running_var, n, &rv, error)
      || (xc = cr_contiguous (x, error)) == NULL
      || (xv = cr_view (xc, shape, x->ndim, error)) == NULL
      || (out = cr_batch_norm (xv, rm, rv, w, b, use_input_stats, momentum, eps, error)) == NULL)
    return NULL;

  /* The repeated running statistics, averaged back over the batch. */
  for (int i = 0; i < 2; i++)
    {
      CrTensor *running = i == 0 ? running_mean : running_var;
      CrTensor *rep = i == 0 ? rm : rv;
      gint64 bc[2] = { n, c };
      int dim0 = 0;
      gboolean was_enabled;
      gboolean ok;

      if (running == NULL)
        continue;
      was_enabled = cr_grad_mode_set_enabled (FALSE);
      {
        g_autoptr(CrTensor) v = cr_view (rep, bc, 2, error);
        g_autoptr(CrTensor) m = v != NULL ? cr_mean_dim (v, &dim0, 1, FALSE, error) : NULL;

        ok = m != NULL && cr_autograd_check_inplace_rules (running, error)
             && cr_kernel_copy_into (running, m, error);
      }
      /* Bumped after the write: the version observer (the run record)
       * sees the new statistics. */
      if (ok)
        cr_tensor_bump_version (running);
      cr_grad_mode_set_enabled (was_enabled);
      if (!ok)
        return NULL;
    }
  return cr_view (out, x->shape, x->ndim, error);
}
