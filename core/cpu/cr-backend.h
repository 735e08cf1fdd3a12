/* cr-backend.h — how a device backend (gpu/) plugs into the kernels.
 *
 * Every cr_kernel_* function runs the CPU loops when its tensors live on the
 * CPU and otherwise calls the registered backend of the tensors' device through
 * this table, with the same arguments. A NULL entry (or no backend at all) is a
 * RuntimeError, never a crash. Adding a kernel: one member here, one dispatch
 * line at the top of the cr_kernel_* function. */
#pragma once

#include "cr-kernels.h"
#include "cr-kernels-conv.h"

G_BEGIN_DECLS

typedef struct {
  const char *name;   /* "cuda" */

  CrTensor *(*unary)          (CrUnaryOp op, const CrTensor *x, const double *params,
                               GError **error);
  CrTensor *(*binary)         (CrBinaryOp op, const CrTensor *a, const CrTensor *b, GError **error);
  gboolean  (*binary_into)    (CrBinaryOp op, CrTensor *out, const CrTensor *a, const CrTensor *b,
                               GError **error);
  CrTensor *(*add_scaled)     (const CrTensor *a, const CrTensor *b, double alpha, GError **error);
  gboolean  (*add_scaled_into)(CrTensor *out, const CrTensor *b, double alpha, GError **error);
  CrTensor *(*clamp)          (const CrTensor *x, gboolean has_min, double min,
                               gboolean has_max, double max, GError **error);
  CrTensor *(*where)          (const CrTensor *cond, const CrTensor *a, const CrTensor *b,
                               GError **error);
  gboolean  (*copy_into)      (CrTensor *dst, const CrTensor *src, GError **error);
  gboolean  (*fill)           (CrTensor *dst, double value, GError **error);
  CrTensor *(*cast)           (const CrTensor *x, CrDType dtype, GError **error);

  CrTensor *(*sum)            (const CrTensor *x, const int *dims, int n_dims, gboolean keepdim,
                               GError **error);
  CrTensor *(*mean)           (const CrTensor *x, const int *dims, int n_dims, gboolean keepdim,
                               GError **error);
  CrTensor *(*prod)           (const CrTensor *x, const int *dims, int n_dims, gboolean keepdim,
                               GError **error);
  CrTensor *(*sum_to_shape)   (const CrTensor *x, const gint64 *shape, int ndim, GError **error);
  CrTensor *(*max_all)        (const CrTensor *x, gboolean is_min, GError **error);
  gboolean  (*max_dim)        (const CrTensor *x, int dim, gboolean keepdim, gboolean is_min,
                               CrTensor **out_values, CrTensor **out_indices, GError **error);
  CrTensor *(*argmax)         (const CrTensor *x, gboolean has_dim, int dim, gboolean keepdim,
                               gboolean is_min, GError **error);
  CrTensor *(*softmax)        (const CrTensor *x, int dim, gboolean log, GError **error);
  CrTensor *(*softmax_backward)(const CrTensor *grad, const CrTensor *out, int dim, gboolean log,
                               GError **error);
  gboolean  (*any)            (const CrTensor *x, gboolean *out_result, GError **error);
  gboolean  (*all)            (const CrTensor *x, gboolean *out_result, GError **error);
  gboolean  (*allclose)       (const CrTensor *a, const CrTensor *b, double rtol, double atol,
                               gboolean *out_result, GError **error);

  CrTensor *(*mm)             (const CrTensor *a, const CrTensor *b, GError **error);
  CrTensor *(*bmm)            (const CrTensor *a, const CrTensor *b, GError **error);

  CrTensor *(*cat)            (CrTensor *const *tensors, guint n, int dim, GError **error);
  CrTensor *(*take)           (const CrTensor *x, const CrTensor *flat_index, GError **error);
  gboolean  (*put)            (CrTensor *dst, const CrTensor *flat_index, const CrTensor *values,
                               gboolean accumulate, GError **error);
  CrTensor *(*nonzero_flat)   (const CrTensor *mask, GError **error);

  /* Convolution and pooling (cr-kernels-conv.h). */
  CrTensor *(*conv2d)         (const CrTensor *x, const CrTensor *w, const CrTensor *bias,
                               const CrConvGeom *geom, GError **error);
  CrTensor *(*conv2d_input_grad) (const CrTensor *gy, const CrTensor *w, const CrTensor *bias,
                               const CrConvGeom *geom, gint64 height, gint64 width,
                               GError **error);
  CrTensor *(*conv2d_weight_grad) (const CrTensor *gy, const CrTensor *x, const CrConvGeom *geom,
                               gint64 kernel_h, gint64 kernel_w, GError **error);
  gboolean  (*max_pool2d)     (const CrTensor *x, const CrPoolGeom *geom, CrTensor **out_values,
                               CrTensor **out_indices, GError **error);
  CrTensor *(*max_pool2d_backward) (const CrTensor *gy, const CrTensor *indices,
                               const CrPoolGeom *geom, GError **error);
  CrTensor *(*max_pool2d_gather) (const CrTensor *g, const CrTensor *indices,
                               const CrPoolGeom *geom, GError **error);
  CrTensor *(*avg_pool2d)     (const CrTensor *x, const CrPoolGeom *geom, GError **error);
  CrTensor *(*avg_pool2d_backward) (const CrTensor *gy, const CrPoolGeom *geom, GError **error);

  /* Random numbers are made on the CPU and copied: one stream for every device. */
} CrBackend;

/* Registers the backend of device (not the CPU); NULL unregisters. The table
 * must outlive every call. */
void             cr_backend_register (CrDeviceType      device,
                                      const CrBackend  *backend);
/* The backend of device, or NULL (and a RuntimeError) when there is none. */
const CrBackend *cr_backend_get      (CrDeviceType      device,
                                      GError          **error);

G_END_DECLS
