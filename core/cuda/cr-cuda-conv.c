/* cr-cuda-conv.c — the CUDA backend's convolution and pooling members.
 *
 * The module (gpu/) has no convolution or pooling kernels yet, so these run
 * the CPU kernels on host copies and upload the result: every script that
 * puts a CNN on "cuda" works and gives the CPU's numbers, at the price of
 * two copies per call (a synchronising one to the host). The ops above
 * (ops/cr-ops-conv.c, cr-ops-pool.c) have checked devices and shapes. */
#include "cr-cuda.h"
#include "cr-cuda-private.h"

/* t on the host (a new ref), or NULL when t is NULL or the copy fails
 * (*failed tells which). */
static CrTensor *
host_copy (const CrTensor  *t,
           gboolean        *failed,
           GError         **error)
{
  CrTensor *h;

  if (t == NULL || *failed)
    return NULL;
  h = cr_tensor_to_device (t, CR_DEVICE_CPU, error);
  *failed = h == NULL;
  return h;
}

/* Takes a host result and puts it on the device. */
static CrTensor *
upload (CrTensor  *host,
        GError   **error)
{
  CrTensor *out;

  if (host == NULL)
    return NULL;
  out = cr_tensor_to_device (host, CR_DEVICE_CUDA, error);
  cr_tensor_unref (host);
  return out;
}

CrTensor *
cr_cuda_conv2d (const CrTensor   *x,
                const CrTensor   *w,
                const CrTensor   *bias,
                const CrConvGeom *geom,
                GError          **error)
{
  gboolean failed = FALSE;
  g_autoptr(CrTensor) hx = host_copy (x, &failed, error);
  g_autoptr(CrTensor) hw = host_copy (w, &failed, error);
  g_autoptr(CrTensor) hb = host_copy (bias, &failed, error);

  if (failed)
    return NULL;
  return upload (cr_kernel_conv2d (hx, hw, hb, geom, error), error);
}

CrTensor *
cr_cuda_conv2d_input_grad (const CrTensor   *gy,
                           const CrTensor   *w,
                           const CrTensor   *bias,
                           const CrConvGeom *geom,
                           gint64            height,
                           gint64            width,
                           GError          **error)
{
  gboolean failed = FALSE;
  g_autoptr(CrTensor) hg = host_copy (gy, &failed, error);
  g_autoptr(CrTensor) hw = host_copy (w, &failed, error);
  g_autoptr(CrTensor) hb = host_copy (bias, &failed, error);

  if (failed)
    return NULL;
  return upload (cr_kernel_conv2d_input_grad (hg, hw, hb, geom, height, width, error), error);
}

CrTensor *
cr_cuda_conv2d_weight_grad (const CrTensor   *gy,
                            const CrTensor   *x,
                            const CrConvGeom *geom,
                            gint64            kernel_h,
                            gint64            kernel_w,
                            GError          **error)
{
  gboolean failed = FALSE;
  g_autoptr(CrTensor) hg = host_copy (gy, &failed, error);
  g_autoptr(CrTensor) hx = host_copy (x, &failed, error);

  if (failed)
    return NULL;
  return upload (cr_kernel_conv2d_weight_grad (hg, hx, geom, kernel_h, kernel_w, error), error);
}

gboolean
cr_cuda_max_pool2d (const CrTensor   *x,
                    const CrPoolGeom *geom,
                    CrTensor        **out_values,
                    CrTensor        **out_indices,
                    GError          **error)
{
  gboolean failed = FALSE;
  g_autoptr(CrTensor) hx = host_copy (x, &failed, error);
  CrTensor *values = NULL, *indices = NULL;

  if (failed || !cr_kernel_max_pool2d (hx, geom, &values, &indices, error))
    return FALSE;
  *out_values = upload (values, error);
  *out_indices = *out_values != NULL ? upload (indices, error) : (cr_tensor_unref (indices), NULL);
  if (*out_indices == NULL)
    {
      g_clear_pointer (out_values, cr_tensor_unref);
      return FALSE;
    }
  return TRUE;
}

CrTensor *
cr_cuda_max_pool2d_backward (const CrTensor   *gy,
                             const CrTensor   *indices,
                             const CrPoolGeom *geom,
                             GError          **error)
{
  gboolean failed = FALSE;
  g_autoptr(CrTensor) hg = host_copy (gy, &failed, error);
  g_autoptr(CrTensor) hi = host_copy (indices, &failed, error);

  if (failed)
    return NULL;
  return upload (cr_kernel_max_pool2d_backward (hg, hi, geom, error), error);
}

CrTensor *
cr_cuda_max_pool2d_gather (const CrTensor   *g,
                           const CrTensor   *indices,
                           const CrPoolGeom *geom,
                           GError          **error)
{
  gboolean failed = FALSE;
  g_autoptr(CrTensor) hg = host_copy (g, &failed, error);
  g_autoptr(CrTensor) hi = host_copy (indices, &failed, error);

  if (failed)
    return NULL;
  return upload (cr_kernel_max_pool2d_gather (hg, hi, geom, error), error);
}

CrTensor *
cr_cuda_avg_pool2d (const CrTensor   *x,
                    const CrPoolGeom *geom,
                    GError          **error)
{
  gboolean failed = FALSE;
  g_autoptr(CrTensor) hx = host_copy (x, &failed, error);

  if (failed)
    return NULL;
  return upload (cr_kernel_avg_pool2d (hx, geom, error), error);
}

CrTensor *
cr_cuda_avg_pool2d_backward (const CrTensor   *gy,
                             const CrPoolGeom *geom,
                             GError          **error)
{
  gboolean failed = FALSE;
  g_autoptr(CrTensor) hg = host_copy (gy, &failed, error);

  if (failed)
    return NULL;
  return upload (cr_kernel_avg_pool2d_backward (hg, geom, error), error);
}
