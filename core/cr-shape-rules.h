/* cr-shape-rules.h — PyTorch's argument checks and output shapes for ops
 * whose rules do not depend on the device: the CPU kernels, the CUDA backend
 * and the differentiable ops check with the same code and the same words. */
#pragma once

#include "cr-tensor.h"

G_BEGIN_DECLS

/* mm's shape checks (a and b matrices with matching inner sizes), with
 * PyTorch's RuntimeErrors; out_shape gets the result's 2 sizes. */
gboolean  cr_shape_check_mm   (const CrTensor  *a,
                                const CrTensor  *b,
                                gint64          *out_shape,
                                GError         **error);
/* bmm's (3-d a and b, same batch, matching inner sizes); out_shape gets
 * the result's 3 sizes. */
gboolean  cr_shape_check_bmm  (const CrTensor  *a,
                                const CrTensor  *b,
                                gint64          *out_shape,
                                GError         **error);

G_END_DECLS
