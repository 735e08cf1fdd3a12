/* cr-ops-nnf.h — the layer ops of torch.nn.functional beyond activations and
 * losses: normalization, embedding, dropout, padding, bilinear and the
 * distance functions. Same conventions as cr-ops.h: inputs borrowed (an
 * optional tensor may be NULL), the result a new ref or NULL with a GError
 * carrying PyTorch's exception type and message. */
#pragma once

#include "cr-ops.h"

G_BEGIN_DECLS

/* ---- normalization (cr-ops-norm.c) ------------------------------------- */

/* F.layer_norm over the last n dims (normalized_shape): one
 * NativeLayerNormBackward0 node over (x, weight, bias). */
CrTensor *cr_layer_norm     (CrTensor      *x,
                             const gint64  *normalized_shape,
                             int            n,
                             CrTensor      *weight,
                             CrTensor      *bias,
                             double         eps,
                             GError       **error);
/* F.batch_norm over dim 1 of (N, C, ...): NativeBatchNormBackward0. In
 * training the batch's statistics are used and running_mean/running_var
 * (when given) are updated in place with momentum and the unbiased
 * variance; otherwise the running statistics are used. */
CrTensor *cr_batch_norm     (CrTensor      *x,
                             CrTensor      *running_mean,
                             CrTensor      *running_var,
                             CrTensor      *weight,
                             CrTensor      *bias,
                             gboolean       training,
                             double         momentum,
                             double         eps,
                             GError       **error);
/* F.group_norm of (N, C, ...): NativeGroupNormBackward0. */
CrTensor *cr_group_norm     (CrTensor      *x,
                             gint64         num_groups,
                             CrTensor      *weight,
                             CrTensor      *bias,
                             double         eps,
                             GError       **error);
/* F.instance_norm, composed as PyTorch does: batch_norm of x viewed as
 * (1, N*C, ...) with weight, bias and running stats repeated N times. */
CrTensor *cr_instance_norm  (CrTensor      *x,
                             CrTensor      *running_mean,
                             CrTensor      *running_var,
                             CrTensor      *weight,
                             CrTensor      *bias,
                             gboolean       use_input_stats,
                             double         momentum,
                             double         eps,
                             GError       **error);

/* ---- embedding (cr-ops-embedding.c), dropout (cr-ops-dropout.c) ------- */

/* F.embedding: weight (num, dim) read at int64 indices of any shape, giving
 * (*indices.shape, dim); EmbeddingBackward0. Rows read at padding_idx get no
 * gradient; with scale_grad_by_freq a row's gradient is divided by how often
 * the indices read it. With max_norm, the rows read are first renormalized
 * in place (embedding_renorm_, norm_type the p of the norm). padding_idx is
 * already wrapped and checked by the caller. */
CrTensor *cr_embedding      (CrTensor      *weight,
                             CrTensor      *indices,
                             gboolean       has_padding_idx,
                             gint64         padding_idx,
                             gboolean       scale_grad_by_freq,
                             gboolean       has_max_norm,
                             double         max_norm,
                             double         norm_type,
                             GError       **error);
/* F.dropout (feature FALSE) and F.dropout2d/feature_dropout (TRUE) as 1.13
 * composes them on the CPU: x itself when not training or p == 0; x * 0 when
 * p == 1; else x * noise with noise = bernoulli(1 - p) / (1 - p) drawn from
 * gen in x's shape (feature: (N, C, 1, ...)): MulBackward0. inplace: x *=
 * instead, x itself (a new ref) returned. */
CrTensor *cr_dropout        (CrTensor      *x,
                             double         p,
                             gboolean       training,
                             gboolean       feature,
                             gboolean       inplace,
                             CrGenerator   *gen,
                             GError       **error);

/* ---- einsum and diagonal (cr-ops-einsum.c) ---------------------------- */

/* torch.einsum(equation, *operands), composed as PyTorch 1.13 composes it
 * (permute, reshape, bmm, sum, diagonal), with its error messages. */
CrTensor *cr_einsum         (const char        *equation,
                             CrTensor *const   *operands,
                             guint              n_operands,
                             GError           **error);
/* torch.diagonal(x, offset, dim1, dim2): a view, DiagonalBackward0. */
CrTensor *cr_diagonal       (CrTensor      *x,
                             gint64         offset,
                             int            dim1,
                             int            dim2,
                             GError       **error);

/* ---- padding (cr-ops-pad.c) -------------------------------------------- */

/* F.pad(x, pad, mode, value): pad holds n (even) sizes, (left, right) pairs
 * from the last dim backwards; mode "constant" (ConstantPadNdBackward0;
 * negative sizes cut), "reflect", "replicate" (ReflectionPad1DBackward0 ...
 * ReplicationPad3DBackward0) or "circular". */
CrTensor *cr_pad            (CrTensor      *x,
                             const gint64  *pad,
                             int            n,
                             const char    *mode,
                             gboolean       has_value,
                             double         value,
                             GError       **error);
/* torch.constant_pad_nd(x, pad, value). */
CrTensor *cr_constant_pad   (CrTensor      *x,
                             const gint64  *pad,
                             int            n,
                             double         value,
                             GError       **error);

/* ---- distances and bilinear (cr-ops-distance.c) -------------------------- */

/* x.clamp_min(min) / x.clamp_max(max): ClampMinBackward0 / ClampMaxBackward0. */
CrTensor *cr_clamp_min      (CrTensor      *x,
                             double         min,
                             GError       **error);
CrTensor *cr_clamp_max      (CrTensor      *x,
                             double         max,
                             GError       **error);
/* x + value as C++'s at::add(Tensor, Scalar) records it: AddBackward1. */
CrTensor *cr_add_scalar     (CrTensor      *x,
                             double         value,
                             GError       **error);
/* F.normalize(x, p, dim, eps). */
CrTensor *cr_normalize      (CrTensor      *x,
                             double         p,
                             int            dim,
                             double         eps,
                             GError       **error);
/* F.cosine_similarity(x1, x2, dim, eps). */
CrTensor *cr_cosine_similarity (CrTensor   *x1,
                             CrTensor      *x2,
                             int            dim,
                             double         eps,
                             GError       **error);
/* F.pairwise_distance(x1, x2, p, eps, keepdim). */
CrTensor *cr_pairwise_distance (CrTensor   *x1,
                             CrTensor      *x2,
                             double         p,
                             double         eps,
                             gboolean       keepdim,
                             GError       **error);
/* F.bilinear(x1, x2, weight, bias): TrilinearBackward0 under the reshapes. */
CrTensor *cr_bilinear       (CrTensor      *input1,
                             CrTensor      *input2,
                             CrTensor      *weight,
                             CrTensor      *bias,
                             GError       **error);

/* torch.cdist(x1, x2, p): (..., P, M) and (..., R, M) to (..., P, R) with
 * broadcast batch dims; CdistBackward0 (cr-ops-distance.c). */
CrTensor *cr_cdist          (CrTensor      *x1,
                             CrTensor      *x2,
                             double         p,
                             GError       **error);

/* ---- index_copy (cr-ops-index-copy.c), unflatten (cr-ops-unflatten.c) -- */

/* self.index_copy(dim, index, source): IndexCopyBackward0 over (self,
 * source); index_copy_ writes self in place (PyTorch's leaf rules, the
 * version bumped, self's history extended). */
CrTensor *cr_index_copy     (CrTensor      *self,
                             int            dim,
                             CrTensor      *index,
                             CrTensor      *source,
                             GError       **error);
gboolean  cr_index_copy_    (CrTensor      *self,
                             int            dim,
                             CrTensor      *index,
                             CrTensor      *source,
                             GError       **error);
/* x.unflatten(dim, sizes): a view, one size may be -1. */
CrTensor *cr_unflatten      (CrTensor      *x,
                             int            dim,
                             const gint64  *sizes,
                             int            n,
                             GError       **error);

/* torch.roll(x, shifts, dims): RollBackward0 (cr-ops-roll.c); without dims
 * (n_dims 0, one shift) x rolls as if flattened. */
CrTensor *cr_roll           (CrTensor      *x,
                             const gint64  *shifts,
                             int            n_shifts,
                             const int     *dims,
                             int            n_dims,
                             GError       **error);

/* F.interpolate's resampling over the last n (1 to 3) dims of an
 * (N, C, ...) tensor (cr-ops-upsample.c): UpsampleNearest2DBackward1,
 * UpsampleBilinear2DBackward1, ... Exactly one of output_size and scales is
 * given (has_output_size, has_scales), as F.interpolate passes them. */
typedef enum {
  CR_UPSAMPLE_NEAREST,
  CR_UPSAMPLE_NEAREST_EXACT,
  CR_UPSAMPLE_LINEAR,        /* linear, bilinear, trilinear by n */
} CrUpsampleMode;

typedef struct {
  CrUpsampleMode mode;
  int            n;
  gint64         output_size[3];
  gboolean       has_output_size;
  double         scales[3];
  gboolean       has_scales;
  gboolean       align_corners;
} CrUpsampleParams;

CrTensor *cr_upsample       (CrTensor               *x,
                             const CrUpsampleParams *params,
                             GError                **error);

G_END_DECLS
