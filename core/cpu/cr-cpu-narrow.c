/* cr-cpu-narrow.c — int32 and uint8 in the kernels that have no loops of
 * their own for them.
 *
 * Such a kernel casts its int32/uint8 operands to int64 (on their device),
 * runs its int64 loops and casts the result back to the dtype PyTorch gives.
 * Two's-complement truncation keeps what int32/uint8 arithmetic computes
 * (add, sub, mul, pow and their wrap-around; int32 overflow wraps), and an
 * operand is first brought to the common dtype, so that `u8 > -1` compares
 * with 255 as PyTorch does. Only copies, fills, casts, take and put move
 * int32/uint8 elements natively. The CUDA backend gets the same treatment
 * (its module only converts these dtypes). */
#include "cr-cpu-private.h"

CrTensor *
cr_cpu_widen (const CrTensor  *x,
              CrDType          common,
              GError         **error)
{
  g_autoptr(CrTensor) narrowed = NULL;
  gboolean wrapped = x->is_wrapped_number;
  CrTensor *wide;

  if (cr_dtype_is_narrow_integer (common) && x->dtype != common && x->dtype != CR_DTYPE_BOOL
      && !cr_dtype_is_floating (x->dtype))
    {
      narrowed = cr_kernel_cast (x, common, error);
      if (narrowed == NULL)
        return NULL;
      x = narrowed;
    }
  if (!cr_dtype_is_narrow_integer (x->dtype))
    return cr_tensor_ref ((CrTensor *) x);
  wide = cr_kernel_cast (x, CR_DTYPE_INT64, error);
  /* A Python number keeps its rank (result types, `2 ** -1`'s check). */
  if (wide != NULL)
    wide->is_wrapped_number = wrapped;
  return wide;
}

CrTensor *
cr_cpu_narrow (CrTensor  *wide,
               CrDType    dtype,
               GError   **error)
{
  CrTensor *narrow;

  if (wide == NULL || wide->dtype == dtype || !cr_dtype_is_narrow_integer (dtype)
      || wide->dtype != CR_DTYPE_INT64)
    return wide;
  narrow = cr_kernel_cast (wide, dtype, error);
  cr_tensor_unref (wide);
  return narrow;
}

gboolean
cr_cpu_store_wide (CrTensor  *out,
                   CrTensor  *wide,
                   GError   **error)
{
  gboolean ok = wide != NULL && cr_kernel_copy_into (out, wide, error);

  g_clear_pointer (&wide, cr_tensor_unref);
  return ok;
}
