/* cr-ops-conv.h — the differentiable convolution and pooling ops (torch's
 * convolution, max_pool2d_with_indices, avg_pool2d, adaptive pools).
 *
 * The ops check their arguments with PyTorch's messages; the script's
 * spellings (ints or tuples, padding='same', unbatched inputs, the 1-d
 * versions that are 2-d pools on an unsqueezed input) are the binding's
 * (lang/cr-torch-conv.c). Inputs are borrowed, results new refs. */
#pragma once

#include "cr-ops.h"

G_BEGIN_DECLS

/* One convolution, as torch.convolution takes it: 1 or 2 spatial dims
 * (x (N, C, L) or (N, C, H, W), batched), groups, and for a transposed
 * convolution its output_padding. */
typedef struct {
  int      spatial;             /* 1 or 2 */
  gint64   stride[2];
  gint64   padding[2];
  gint64   dilation[2];
  gint64   output_padding[2];
  gint64   groups;
  gboolean transposed;
} CrConvParams;

/* x, weight (OC, C/groups, k...) or, transposed, (C, OC/groups, k...);
 * bias (OC) or NULL. ConvolutionBackward0 over (x, weight, bias). */
CrTensor *cr_convolution        (CrTensor           *x,
                                 CrTensor           *weight,
                                 CrTensor           *bias,
                                 const CrConvParams *params,
                                 GError            **error);
/* The geometry a CONVOLUTION node (or the input gradient of one) was made
 * with, for grad_fn._saved_*; FALSE for any other node. */
gboolean  cr_convolution_node_params (const CrNode *node,
                                      CrConvParams *params);

/* A 2-d pooling: kernel, stride (PyTorch's default is the kernel: the
 * binding fills it in), padding, dilation (max only), ceil_mode, and for
 * average pooling count_include_pad and divisor_override (0: none). */
typedef struct {
  gint64   kernel[2];
  gint64   stride[2];
  gint64   padding[2];
  gint64   dilation[2];
  gboolean ceil_mode;
  gboolean count_include_pad;
  gint64   divisor_override;
} CrPool2dParams;

/* x (C, H, W) or (N, C, H, W). Values (MaxPool2DWithIndicesBackward0) and
 * int64 indices (*out_indices, a new ref; may be NULL when not wanted). */
CrTensor *cr_max_pool2d         (CrTensor             *x,
                                 const CrPool2dParams *params,
                                 CrTensor            **out_indices,
                                 GError              **error);
/* AvgPool2DBackward0. */
CrTensor *cr_avg_pool2d         (CrTensor             *x,
                                 const CrPool2dParams *params,
                                 GError              **error);
/* x (C, H, W) or (N, C, H, W) to (..., out_h, out_w):
 * AdaptiveAvgPool2DBackward0, AdaptiveMaxPool2DBackward0 (+ indices). */
CrTensor *cr_adaptive_avg_pool2d(CrTensor             *x,
                                 gint64                out_h,
                                 gint64                out_w,
                                 GError              **error);
CrTensor *cr_adaptive_max_pool2d(CrTensor             *x,
                                 gint64                out_h,
                                 gint64                out_w,
                                 CrTensor            **out_indices,
                                 GError              **error);

G_END_DECLS
