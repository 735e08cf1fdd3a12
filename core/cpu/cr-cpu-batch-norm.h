/* cr-cpu-batch-norm.h — batch norm on the CPU with PyTorch 1.13's own
 * arithmetic (cr-cpu-batch-norm.c): its statistics, its x·α + β and its
 * backward's per-channel sums, accumulated where and in the precision
 * PyTorch's CPU kernel accumulates them, so that a training loop's losses
 * follow PyTorch's to the last digits. The CUDA path composes ops instead.
 *
 * Every tensor is (C,) per channel except x, the gradient and the results
 * of x's shape (N, C, *). All are of x's dtype. */
#pragma once

#include "cr-tensor.h"

G_BEGIN_DECLS

/* Whether these functions take x (and the optional per-channel tensors):
 * on the CPU, float32 or float64, at least 2-d, all of one dtype. */
gboolean  cr_cpu_batch_norm_supported (const CrTensor  *x,
                                       const CrTensor  *const *per_channel,
                                       guint            n_per_channel);

/* Training statistics: each channel's mean, 1/sqrt(var + eps) (biased
 * variance) and sum of squared deviations (new (C,) tensors). */
gboolean  cr_cpu_batch_norm_stats     (const CrTensor  *x,
                                       double           eps,
                                       CrTensor       **out_mean,
                                       CrTensor       **out_invstd,
                                       CrTensor       **out_var_sum,
                                       GError         **error);

/* 1/sqrt(running_var + eps), as evaluation uses it (new (C,)): forward,
 * as the forward rounds it, else as the backward does. */
CrTensor *cr_cpu_batch_norm_invstd    (const CrTensor  *running_var,
                                       double           eps,
                                       gboolean         forward,
                                       GError         **error);

/* x·α + β with α = invstd·weight and β = bias − mean·α per channel (weight
 * and bias may be NULL); a new tensor of x's shape. */
CrTensor *cr_cpu_batch_norm_apply     (const CrTensor  *x,
                                       const CrTensor  *mean,
                                       const CrTensor  *invstd,
                                       const CrTensor  *weight,
                                       const CrTensor  *bias,
                                       GError         **error);

/* In place, as training leaves them: running_mean = momentum·mean +
 * (1 − momentum)·running_mean; running_var the same with the unbiased
 * variance var_sum / (count − 1), count = N·(spatial size). */
gboolean  cr_cpu_batch_norm_update_mean (CrTensor        *running_mean,
                                         const CrTensor  *mean,
                                         double           momentum,
                                         GError         **error);
gboolean  cr_cpu_batch_norm_update_var  (CrTensor        *running_var,
                                         const CrTensor  *var_sum,
                                         gint64           count,
                                         double           momentum,
                                         GError         **error);

/* The backward: for each of x, weight and bias whose want[] is set, its
 * gradient (new, NULL otherwise). train: mean and invstd are the batch's,
 * else the running statistics (the gradient of x is then G·invstd·weight). */
gboolean  cr_cpu_batch_norm_backward  (const CrTensor  *grad_out,
                                       const CrTensor  *x,
                                       const CrTensor  *weight,
                                       const CrTensor  *mean,
                                       const CrTensor  *invstd,
                                       gboolean         train,
                                       const gboolean  *want,
                                       CrTensor       **out_grads,
                                       GError         **error);

G_END_DECLS
