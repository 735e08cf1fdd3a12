/* cr-ops-nonzero.c — torch.nonzero / argwhere: where a tensor is nonzero,
 * as coordinates. The count decides the shape, so it is found on the host;
 * the result, an index, has no graph. */
#include "cr-ops-private.h"
#include "cr-cuda.h"

CrTensor *
cr_nonzero (CrTensor  *x,
            GError   **error)
{
  g_autoptr(CrTensor) host = NULL;
  g_autoptr(CrTensor) out = NULL;
  gint64 shape[2], coord[CR_MAX_DIMS] = { 0, };
  gint64 count = 0, row = 0, *o;

  host = x->device == CR_DEVICE_CPU ? cr_tensor_contiguous (x, error)
                                    : cr_tensor_to_device (x, CR_DEVICE_CPU, error);
  if (host == NULL)
    return NULL;
  for (gint64 i = 0; i < host->numel; i++)
    count += cr_tensor_get_flat (host, i) != 0.0;
  shape[0] = count;
  shape[1] = x->ndim;
  out = cr_tensor_new_empty (shape, 2, CR_DTYPE_INT64, CR_DEVICE_CPU, error);
  if (out == NULL)
    return NULL;
  o = cr_tensor_data (out);
  for (gint64 i = 0; i < host->numel; i++)
    {
      if (cr_tensor_get_flat (host, i) != 0.0)
        {
          for (int d = 0; d < x->ndim; d++)
            o[row * x->ndim + d] = coord[d];
          row++;
        }
      for (int d = x->ndim - 1; d >= 0; d--)
        {
          if (++coord[d] < x->shape[d])
            break;
          coord[d] = 0;
        }
    }
  if (x->device != CR_DEVICE_CPU)
    return cr_tensor_to_device (out, x->device, error);
  return g_steal_pointer (&out);
}
