/* cr-shape-rules.c — device-neutral argument checks (see the header). */
#include "cr-shape-rules.h"
#include "cr-error.h"

gboolean
cr_shape_check_mm (const CrTensor  *a,
                   const CrTensor  *b,
                   gint64          *out_shape,
                   GError         **error)
{
  if (a->ndim != 2)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR, "self must be a matrix");
      return FALSE;
    }
  if (b->ndim != 2)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR, "mat2 must be a matrix");
      return FALSE;
    }
  if (a->shape[1] != b->shape[0])
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "mat1 and mat2 shapes cannot be multiplied (%" G_GINT64_FORMAT "x%" G_GINT64_FORMAT
                   " and %" G_GINT64_FORMAT "x%" G_GINT64_FORMAT ")",
                   a->shape[0], a->shape[1], b->shape[0], b->shape[1]);
      return FALSE;
    }
  out_shape[0] = a->shape[0];
  out_shape[1] = b->shape[1];
  return TRUE;
}

gboolean
cr_shape_check_bmm (const CrTensor  *a,
                    const CrTensor  *b,
                    gint64          *out_shape,
                    GError         **error)
{
  if (a->ndim != 3)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR, "batch1 must be a 3D tensor");
      return FALSE;
    }
  if (b->ndim != 3)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR, "batch2 must be a 3D tensor");
      return FALSE;
    }
  if (b->shape[0] != a->shape[0] || b->shape[1] != a->shape[2])
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "Expected size for first two dimensions of batch2 tensor to be: [%" G_GINT64_FORMAT
                   ", %" G_GINT64_FORMAT "] but got: [%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT "].",
                   a->shape[0], a->shape[2], b->shape[0], b->shape[1]);
      return FALSE;
    }
  out_shape[0] = a->shape[0];
  out_shape[1] = a->shape[1];
  out_shape[2] = b->shape[2];
  return TRUE;
}
