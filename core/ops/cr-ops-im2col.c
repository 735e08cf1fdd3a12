/* cr-ops-im2col.c — F.unfold (Im2ColBackward0) and F.fold
 * (Col2ImBackward0): the sliding blocks of an image as columns, and columns
 * added back into an image, each the other's backward.
 *
 * Both go through one map worked out on the host: for every element of the
 * columns (N, C·kh·kw, L), the flat position in the image (N, C, H, W) it
 * reads, and a mask that is 0 where the block hangs into the padding. unfold
 * takes at the positions (times the mask); fold adds into zeros there. The
 * take and the put are kernels every backend has; the backwards are the
 * differentiable take and scatter-add over flat positions. */
#include "cr-ops-private.h"
#include "cr-cuda.h"
#include "cr-error.h"

/* The geometry: kernel, dilation, padding, stride (height, width). */
typedef struct {
  gint64 kh, kw, dh, dw, ph, pw, sh, sw;
} Geometry;

static void
geometry_to_args (const Geometry *g,
                  CrOpArgs       *args)
{
  const gint64 all[8] = { g->kh, g->kw, g->dh, g->dw, g->ph, g->pw, g->sh, g->sw };

  for (int i = 0; i < 8; i++)
    args->dims[i] = (int) all[i];
  args->n_dims = 8;
}

/* The blocks along one side of size n. */
static gint64
blocks_along (gint64 n,
              gint64 k,
              gint64 d,
              gint64 p,
              gint64 s)
{
  return (n + 2 * p - d * (k - 1) - 1) / s + 1;
}

/* The map for an image (batch, channels, h, w): positions (int64) and mask
 * (dtype), both (batch, channels·kh·kw, L), on device. */
static gboolean
block_map (gint64           batch,
           gint64           channels,
           gint64           h,
           gint64           w,
           const Geometry  *g,
           CrDType          dtype,
           CrDeviceType     device,
           CrTensor       **out_pos,
           CrTensor       **out_mask,
           GError         **error)
{
  gint64 bh = blocks_along (h, g->kh, g->dh, g->ph, g->sh);
  gint64 bw = blocks_along (w, g->kw, g->dw, g->pw, g->sw);
  gint64 shape[3] = { batch, channels * g->kh * g->kw, bh * bw };
  g_autoptr(CrTensor) pos = cr_tensor_new_empty (shape, 3, CR_DTYPE_INT64, CR_DEVICE_CPU, error);
  g_autoptr(CrTensor) mask = pos != NULL ? cr_tensor_new_empty (shape, 3, dtype, CR_DEVICE_CPU,
                                                                error)
                                         : NULL;
  gint64 *pv, at = 0;

  if (mask == NULL)
    return FALSE;
  pv = cr_tensor_data (pos);
  for (gint64 n = 0; n < batch; n++)
    for (gint64 c = 0; c < channels; c++)
      for (gint64 i = 0; i < g->kh; i++)
        for (gint64 j = 0; j < g->kw; j++)
          for (gint64 oy = 0; oy < bh; oy++)
            for (gint64 ox = 0; ox < bw; ox++, at++)
              {
                gint64 y = oy * g->sh - g->ph + i * g->dh;
                gint64 x = ox * g->sw - g->pw + j * g->dw;
                gboolean inside = y >= 0 && y < h && x >= 0 && x < w;

                pv[at] = inside ? ((n * channels + c) * h + y) * w + x : 0;
                cr_tensor_set_flat (mask, at, inside ? 1.0 : 0.0);
              }
  *out_pos = cr_ops_positions_to (g_steal_pointer (&pos), device, error);
  if (*out_pos == NULL)
    return FALSE;
  *out_mask = device == CR_DEVICE_CPU ? g_steal_pointer (&mask)
                                      : cr_tensor_to_device (mask, device, error);
  if (*out_mask == NULL)
    {
      g_clear_pointer (out_pos, cr_tensor_unref);
      return FALSE;
    }
  return TRUE;
}

/* t (1, ...) seen without its leading dim, for an unbatched image. */
static void
drop_batch (CrTensor **t)
{
  CrTensor *view = cr_tensor_new_view (*t, (*t)->shape + 1, (*t)->ndim - 1, (*t)->strides + 1,
                                       (*t)->offset);

  cr_tensor_unref (*t);
  *t = view;
}

/* IM2COL: saved[0] the positions, saved[1] the mask; the image's geometry
 * is the input's. COL2IM: the same, the image the output's. */
static gboolean
im2col_backward (CrNode          *node,
                 CrTensor *const *grads,
                 CrTensor       **grad_inputs,
                 GError         **error)
{
  SAVED (pos, 0);
  SAVED (mask, 1);
  g_autoptr(CrTensor) masked = cr_mul (grads[0], mask, error);

  SET_GRAD (0, masked != NULL ? cr_ops_scatter_add_flat (masked, pos, &node->input_meta[0], error)
                              : NULL);
  return TRUE;
}

static gboolean
col2im_backward (CrNode          *node,
                 CrTensor *const *grads,
                 CrTensor       **grad_inputs,
                 GError         **error)
{
  SAVED (pos, 0);
  SAVED (mask, 1);
  g_autoptr(CrTensor) taken = cr_ops_take_flat (grads[0], pos, error);

  SET_GRAD (0, taken != NULL ? cr_mul (taken, mask, error) : NULL);
  return TRUE;
}

/* args.dims[0..8): kernel, dilation, padding, stride (height, width). */
const CrOpInfo cr_op_row_IM2COL = {
  CR_OP_IM2COL, "im2col", "Im2ColBackward0", 1, "unfold",
  "∂cols/∂x: each column element's gradient added back where its block read the image",
  im2col_backward, NULL
};

const CrOpInfo cr_op_row_COL2IM = {
  CR_OP_COL2IM, "col2im", "Col2ImBackward0", 1, "fold",
  "∂image/∂cols: each column element takes the gradient of the place it was added to",
  col2im_backward, NULL
};

static gboolean
check_geometry (const Geometry  *g,
                GError         **error)
{
  if (g->kh <= 0 || g->kw <= 0 || g->dh <= 0 || g->dw <= 0 || g->sh <= 0 || g->sw <= 0
      || g->ph < 0 || g->pw < 0)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "kernel size, dilation and stride should be greater than zero, and "
                           "padding non-negative");
      return FALSE;
    }
  return TRUE;
}

CrTensor *
cr_im2col (CrTensor        *x,
           const gint64    *geometry,
           GError         **error)
{
  Geometry g = { geometry[0], geometry[1], geometry[2], geometry[3], geometry[4], geometry[5],
                 geometry[6], geometry[7] };
  gboolean batched = x->ndim == 4;
  gint64 batch, channels, h, w, bh, bw;
  g_autoptr(CrTensor) pos = NULL;
  g_autoptr(CrTensor) mask = NULL;
  g_autoptr(CrTensor) taken = NULL;
  CrTensor *out;
  CrNode *node;

  if (x->ndim < 3)
    {
      /* PyTorch reads a dim past the input's last first. */
      int dim = x->ndim;

      cr_ops_wrap_dim (&dim, x->ndim, error);
      return NULL;
    }
  if (x->ndim != 3 && x->ndim != 4)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "Input Error: Only 3D or 4D input Tensors are supported (got %dD)", x->ndim);
      return NULL;
    }
  if (!check_geometry (&g, error))
    return NULL;
  batch = batched ? x->shape[0] : 1;
  channels = x->shape[x->ndim - 3];
  h = x->shape[x->ndim - 2];
  w = x->shape[x->ndim - 1];
  bh = blocks_along (h, g.kh, g.dh, g.ph, g.sh);
  bw = blocks_along (w, g.kw, g.dw, g.pw, g.sw);
  if (bh < 1 || bw < 1)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "Given input with spatial size (%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT
                   "), kernel_size=(%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT "), dilation=(%"
                   G_GINT64_FORMAT ", %" G_GINT64_FORMAT "), padding=(%" G_GINT64_FORMAT ", %"
                   G_GINT64_FORMAT "), calculated shape of the array of sliding blocks as (%"
                   G_GINT64_FORMAT ", %" G_GINT64_FORMAT "), but its components must be at "
                   "least one.", h, w, g.kh, g.kw, g.dh, g.dw, g.ph, g.pw, bh, bw);
      return NULL;
    }
  if (!block_map (batch, channels, h, w, &g, x->dtype, x->device, &pos, &mask, error))
    return NULL;
  if (!batched)
    {
      drop_batch (&pos);
      drop_batch (&mask);
    }
  if ((taken = cr_kernel_take (x, pos, error)) == NULL
      || (out = cr_kernel_binary (CR_BINARY_MUL, taken, mask, error)) == NULL)
    return NULL;
  if ((node = cr_ops_record (CR_OP_IM2COL, &x, 1, out)) != NULL)
    {
      geometry_to_args (&g, cr_node_args (node));
      cr_node_save (node, 0, pos, FALSE);
      cr_node_save (node, 1, mask, FALSE);
    }
  return out;
}

CrTensor *
cr_col2im (CrTensor        *cols,
           gint64           out_h,
           gint64           out_w,
           const gint64    *geometry,
           GError         **error)
{
  Geometry g = { geometry[0], geometry[1], geometry[2], geometry[3], geometry[4], geometry[5],
                 geometry[6], geometry[7] };
  gboolean batched = cols->ndim == 3;
  gint64 batch, channels, bh, bw, blocks;
  gint64 shape[4];
  g_autoptr(CrTensor) pos = NULL;
  g_autoptr(CrTensor) mask = NULL;
  g_autoptr(CrTensor) masked = NULL;
  g_autoptr(CrTensor) image = NULL;
  CrNode *node;

  if (cols->ndim != 2 && cols->ndim != 3)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "Input Error: Only unbatched (2D) or batched (3D) input Tensors are supported "
                   "(got %dD)", cols->ndim);
      return NULL;
    }
  if (!check_geometry (&g, error))
    return NULL;
  batch = batched ? cols->shape[0] : 1;
  bh = blocks_along (out_h, g.kh, g.dh, g.ph, g.sh);
  bw = blocks_along (out_w, g.kw, g.dw, g.pw, g.sw);
  blocks = cols->shape[cols->ndim - 1];
  if (cols->shape[cols->ndim - 2] % (g.kh * g.kw) != 0)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "Expected size of input's dimension 1 to be divisible by the product of "
                   "kernel_size, but got input.size(1)=%" G_GINT64_FORMAT " and kernel_size=(%"
                   G_GINT64_FORMAT ", %" G_GINT64_FORMAT ").", cols->shape[cols->ndim - 2],
                   g.kh, g.kw);
      return NULL;
    }
  if (bh * bw != blocks)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "Given output_size=(%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT "), kernel_size=(%"
                   G_GINT64_FORMAT ", %" G_GINT64_FORMAT "), dilation=(%" G_GINT64_FORMAT ", %"
                   G_GINT64_FORMAT "), padding=(%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT
                   "), stride=(%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT "), expected size of "
                   "input's dimension %d to match the calculated number of sliding blocks %"
                   G_GINT64_FORMAT " * %" G_GINT64_FORMAT " = %" G_GINT64_FORMAT ", but got "
                   "input.size(%d)=%" G_GINT64_FORMAT ".", out_h, out_w, g.kh, g.kw, g.dh, g.dw,
                   g.ph, g.pw, g.sh, g.sw, cols->ndim - 1, bh, bw, bh * bw, cols->ndim - 1,
                   blocks);
      return NULL;
    }
  channels = cols->shape[cols->ndim - 2] / (g.kh * g.kw);
  shape[0] = batch;
  shape[1] = channels;
  shape[2] = out_h;
  shape[3] = out_w;
  if (!block_map (batch, channels, out_h, out_w, &g, cols->dtype, cols->device, &pos, &mask,
                  error))
    return NULL;
  if (!batched)
    {
      drop_batch (&pos);
      drop_batch (&mask);
    }
  if ((masked = cr_kernel_binary (CR_BINARY_MUL, cols, mask, error)) == NULL
      || (image = cr_tensor_new_zeros (batched ? shape : shape + 1, batched ? 4 : 3, cols->dtype,
                                       cols->device, error)) == NULL
      || !cr_kernel_put (image, pos, masked, TRUE, error))
    return NULL;
  if ((node = cr_ops_record (CR_OP_COL2IM, &cols, 1, image)) != NULL)
    {
      geometry_to_args (&g, cr_node_args (node));
      cr_node_save (node, 0, pos, FALSE);
      cr_node_save (node, 1, mask, FALSE);
    }
  return g_steal_pointer (&image);
}
