/* cr-cuda-private.h — what the files of core/cuda share: the module's table,
 * tensor descriptors for the ABI, operand preparation and error mapping.
 * Private to core/cuda/. */
#pragma once

#include "cr-cuda.h"
#include "cr-cpu-private.h"
#include "cr-device.h"
#include "cr-dtype.h"
#include "cr-storage.h"

#include "gpu/cr-cuda-abi.h"

G_BEGIN_DECLS

/* The module's table (set once by cr_cuda_backend_install). */
extern const CrCudaApi *cr_cuda_api;

#define CR_CUDA_MSG_SIZE 512

/* A failed ABI call (code, message) as a GError with PyTorch's wording; FALSE. */
gboolean  cr_cuda_check             (int              code,
                                     const char      *msg,
                                     GError         **error);
/* "<what> is not implemented on CUDA yet" (a kernel the module lacks); FALSE. */
gboolean  cr_cuda_not_implemented   (const char      *what,
                                     GError         **error);

/* Calls cr_cuda_api->member (args..., msg, msg_size); FALSE with the GError
 * in `error` (which must be in scope) on failure or a missing kernel. */
#define CR_CUDA_CALL(member, ...)                                              \
  (cr_cuda_api->member == NULL                                                 \
     ? cr_cuda_not_implemented (#member, error)                                \
     : ({ char msg_[CR_CUDA_MSG_SIZE] = "";                                    \
          cr_cuda_check (cr_cuda_api->member (__VA_ARGS__, msg_, sizeof msg_), \
                         msg_, error); }))

/* t's geometry for the ABI (a size-1 dim gets stride 0). */
void      cr_cuda_describe          (const CrTensor  *t,
                                     CrCudaTensor    *d);
/* t broadcast to shape (trailing dims aligned, stride 0 where expanded). */
void      cr_cuda_describe_expanded (const CrTensor  *t,
                                     const gint64    *shape,
                                     int              ndim,
                                     CrCudaTensor    *d);
/* A contiguous reduction output seen with x's ndim: size 1 at the dims of mask. */
void      cr_cuda_describe_keepdim  (const CrTensor  *out,
                                     const CrTensor  *x,
                                     guint32          mask,
                                     CrCudaTensor    *d);
/* A new contiguous, uninitialised CUDA tensor. */
CrTensor *cr_cuda_new_out           (const gint64    *shape,
                                     int              ndim,
                                     CrDType          dtype,
                                     GError         **error);
/* t as an operand of a CUDA op: itself (new ref), an upload of a 0-d CPU
 * tensor, or the mixed-device RuntimeError. */
CrTensor *cr_cuda_operand           (const CrTensor  *t,
                                     GError         **error);
/* t (on the device) in dtype: a new ref when it already is. */
CrTensor *cr_cuda_as_dtype          (const CrTensor  *t,
                                     CrDType          dtype,
                                     GError         **error);
CrTensor *cr_cuda_contiguous        (const CrTensor  *t,
                                     GError         **error);

/* Members of the table defined in cr-cuda-backend.c. */
gboolean  cr_cuda_copy_into         (CrTensor        *dst,
                                     const CrTensor  *src,
                                     GError         **error);
gboolean  cr_cuda_fill              (CrTensor        *dst,
                                     double           value,
                                     GError         **error);
CrTensor *cr_cuda_cast              (const CrTensor  *x,
                                     CrDType          dtype,
                                     GError         **error);

/* Members defined in cr-cuda-index.c (matrix products and indexing). */
CrTensor *cr_cuda_mm                (const CrTensor  *a,
                                     const CrTensor  *b,
                                     GError         **error);
CrTensor *cr_cuda_bmm               (const CrTensor  *a,
                                     const CrTensor  *b,
                                     GError         **error);
CrTensor *cr_cuda_cat               (CrTensor *const *tensors,
                                     guint            n,
                                     int              dim,
                                     GError         **error);
CrTensor *cr_cuda_take              (const CrTensor  *x,
                                     const CrTensor  *flat_index,
                                     GError         **error);
gboolean  cr_cuda_put               (CrTensor        *dst,
                                     const CrTensor  *flat_index,
                                     const CrTensor  *values,
                                     gboolean         accumulate,
                                     GError         **error);
CrTensor *cr_cuda_nonzero_flat      (const CrTensor  *mask,
                                     GError         **error);

/* Convolution and pooling (cr-cuda-conv.c): im2col/col2im + gemm and the
 * module's pooling kernels. */
CrTensor *cr_cuda_conv2d            (const CrTensor *x, const CrTensor *w, const CrTensor *bias,
                                     const CrConvGeom *geom, GError **error);
CrTensor *cr_cuda_conv2d_input_grad (const CrTensor *gy, const CrTensor *w, const CrTensor *bias,
                                     const CrConvGeom *geom, gint64 height, gint64 width,
                                     GError **error);
CrTensor *cr_cuda_conv2d_weight_grad(const CrTensor *gy, const CrTensor *x, const CrConvGeom *geom,
                                     gint64 kernel_h, gint64 kernel_w, GError **error);
gboolean  cr_cuda_max_pool2d        (const CrTensor *x, const CrPoolGeom *geom,
                                     CrTensor **out_values, CrTensor **out_indices,
                                     GError **error);
CrTensor *cr_cuda_max_pool2d_backward (const CrTensor *gy, const CrTensor *indices,
                                     const CrPoolGeom *geom, GError **error);
CrTensor *cr_cuda_max_pool2d_gather (const CrTensor *g, const CrTensor *indices,
                                     const CrPoolGeom *geom, GError **error);
CrTensor *cr_cuda_avg_pool2d        (const CrTensor *x, const CrPoolGeom *geom, GError **error);
CrTensor *cr_cuda_avg_pool2d_backward (const CrTensor *gy, const CrPoolGeom *geom,
                                     GError **error);

/* The table (cr-cuda-ops.c). */
extern const CrBackend cr_cuda_backend;

G_END_DECLS
