/* cr-dtype.h — element types, their sizes and names, and PyTorch's type promotion. */
#pragma once

#include "cr-types.h"

G_BEGIN_DECLS

gsize        cr_dtype_size             (CrDType dtype);
/* "torch.float32", "torch.int64", ... as `print(t.dtype)` shows it. */
const char  *cr_dtype_name             (CrDType dtype);
/* "float", "double", "long", "int", "byte", "bool": the words of `.float()` etc. */
const char  *cr_dtype_short_name       (CrDType dtype);
/* "torch.FloatTensor", "torch.LongTensor", ... (t.type(), error messages). */
const char  *cr_dtype_legacy_name      (CrDType dtype);
gboolean     cr_dtype_is_floating      (CrDType dtype);
/* int64, int32 or uint8 (not bool). */
gboolean     cr_dtype_is_integral      (CrDType dtype);
/* int32 or uint8: the integer dtypes that most kernels compute in int64 and
 * store back (core/cpu/cr-cpu-narrow.c). */
gboolean     cr_dtype_is_narrow_integer (CrDType dtype);
/* "Float", "Long", "Int", "Byte", "Bool": PyTorch's ScalarType names in messages
 * ("expected scalar type Float but found Double"). */
const char  *cr_dtype_scalar_name      (CrDType dtype);
/* promote_types(a, b): the smallest dtype both convert to. */
CrDType      cr_dtype_promote          (CrDType a,
                                        CrDType b);

/* The result dtype of a binary op, following PyTorch: tensors with dimensions
 * outrank 0-d tensors, which outrank wrapped Python numbers; a lower-ranked
 * operand only matters when its category (bool < int < float) is higher, and a
 * wrapped float then gives the default dtype float32. */
CrDType      cr_dtype_result_type      (const CrTensor *a,
                                        const CrTensor *b);

/* A double converted to int64 without UB: in range it truncates as C does;
 * NaN and out-of-range values give int64's minimum, as x86's conversion (what
 * PyTorch's casts compile to) does: torch.tensor([1e300]).long(). */
static inline gint64
cr_double_to_int64 (double v)
{
  if (v >= -9223372036854775808.0 && v < 9223372036854775808.0)
    return (gint64) v;
  return G_MININT64;
}

/* A double to int32 as x86's cvttsd2si (PyTorch's float-to-int cast):
 * truncation in range, INT32_MIN for NaN and out-of-range values. */
static inline gint32
cr_double_to_int32 (double v)
{
  if (v > -2147483649.0 && v < 2147483648.0)
    return (gint32) v;
  return G_MININT32;
}

/* A double to uint8 as PyTorch's cast compiles: through int32, keeping the
 * low byte (300.0 -> 44, -1.0 -> 255, 1e10 -> 0). */
static inline guint8
cr_double_to_uint8 (double v)
{
  return (guint8) (guint32) cr_double_to_int32 (v);
}

G_END_DECLS
