/* cr-kernels-conv.h — convolution and pooling kernels, without autograd.
 *
 * Everything here works on 2-d spatial data: a 1-d convolution or pooling is
 * a 2-d one with height 1 (ops/ makes the views). Inputs may be any strided
 * views; outputs are new contiguous tensors the caller owns. Shapes and
 * arguments are checked by the ops (ops/cr-ops-conv.c, cr-ops-pool.c) with
 * PyTorch's messages; the kernels trust them.
 *
 * Convolution is im2col + GEMM: the columns of a chunk of the batch are one
 * (C·kh·kw, batch·oh·ow) matrix, so that each group is one large OpenBLAS
 * GEMM (threaded by OpenBLAS), while im2col, col2im and the layout changes
 * run on the thread pool. The three kernels are the three bilinear maps of
 * one convolution y = conv(x, w), and each one's derivatives are the other
 * two, so backward formulas (and double backward) need nothing else:
 *   conv2d              y  = conv(x, w)
 *   conv2d_input_grad   gx = conv(·, w)ᵀ gy         (= conv_transpose2d)
 *   conv2d_weight_grad  gw = conv(x, ·)ᵀ gy */
#pragma once

#include "cr-kernels.h"

G_BEGIN_DECLS

/* The geometry shared by the three convolution kernels. */
typedef struct {
  gint64 stride[2];
  gint64 padding[2];
  gint64 dilation[2];
  gint64 groups;
} CrConvGeom;

/* x (N, C, H, W), w (OC, C/groups, kh, kw), bias (OC) or NULL ->
 * y (N, OC, oh, ow) with oh = (H + 2p - d(kh - 1) - 1) / s + 1. */
CrTensor *cr_kernel_conv2d             (const CrTensor   *x,
                                        const CrTensor   *w,
                                        const CrTensor   *bias,
                                        const CrConvGeom *geom,
                                        GError          **error);
/* gy (N, OC, oh, ow), w (OC, C/groups, kh, kw) -> gx (N, C, H, W), the
 * adjoint of conv2d in x; plus bias (C) when not NULL (conv_transpose2d's
 * bias). H, W are given: several input sizes have the same output size. */
CrTensor *cr_kernel_conv2d_input_grad  (const CrTensor   *gy,
                                        const CrTensor   *w,
                                        const CrTensor   *bias,
                                        const CrConvGeom *geom,
                                        gint64            height,
                                        gint64            width,
                                        GError          **error);
/* gy (N, OC, oh, ow), x (N, C, H, W) -> gw (OC, C/groups, kh, kw), the
 * adjoint of conv2d in w. */
CrTensor *cr_kernel_conv2d_weight_grad (const CrTensor   *gy,
                                        const CrTensor   *x,
                                        const CrConvGeom *geom,
                                        gint64            kernel_h,
                                        gint64            kernel_w,
                                        GError          **error);

/* Pooling windows along one axis, output position o:
 *   sliding:  start = o·stride - padding, taps start + i·dilation for
 *             i < kernel that lie inside [0, size)
 *   adaptive: [floor(o·size/out), ceil((o+1)·size/out))
 * avg_pool's divisor is divisor_override when nonzero, else the window's
 * taps inside [0, size) (count_include_pad FALSE) or inside the padded
 * range [-padding, size + padding) clipped to the kernel (TRUE). */
typedef struct {
  gboolean adaptive;
  gint64   kernel[2];
  gint64   stride[2];
  gint64   padding[2];
  gint64   dilation[2];
  gint64   in[2];                 /* H, W */
  gint64   out[2];                /* oh, ow */
  gboolean count_include_pad;
  gint64   divisor_override;      /* 0: none */
} CrPoolGeom;

/* x (..., H, W) -> values (..., oh, ow) and int64 indices (flat h·W + w in
 * each plane, PyTorch's), the first maximum winning and NaN counting as the
 * maximum. */
gboolean  cr_kernel_max_pool2d         (const CrTensor   *x,
                                        const CrPoolGeom *geom,
                                        CrTensor        **out_values,
                                        CrTensor        **out_indices,
                                        GError          **error);
/* gy (..., oh, ow) summed into zeros (..., H, W) at indices. */
CrTensor *cr_kernel_max_pool2d_backward(const CrTensor   *gy,
                                        const CrTensor   *indices,
                                        const CrPoolGeom *geom,
                                        GError          **error);
/* The inverse direction, for double backward: g (..., H, W) read at
 * indices -> (..., oh, ow). */
CrTensor *cr_kernel_max_pool2d_gather  (const CrTensor   *g,
                                        const CrTensor   *indices,
                                        const CrPoolGeom *geom,
                                        GError          **error);
/* x (..., H, W) -> (..., oh, ow) window means. */
CrTensor *cr_kernel_avg_pool2d         (const CrTensor   *x,
                                        const CrPoolGeom *geom,
                                        GError          **error);
/* The adjoint of avg_pool2d: gy (..., oh, ow) -> (..., H, W). */
CrTensor *cr_kernel_avg_pool2d_backward(const CrTensor   *gy,
                                        const CrPoolGeom *geom,
                                        GError          **error);

G_END_DECLS
