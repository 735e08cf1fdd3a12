/* cr-dtype.c — element types, their names, and PyTorch's type promotion. */
#include "cr-dtype.h"
#include "cr-tensor.h"

typedef struct {
  gsize       size;
  const char *name;
  const char *short_name;
  const char *legacy_name;
} DTypeInfo;

static const DTypeInfo dtype_info[] = {
  [CR_DTYPE_BOOL]    = { 1, "torch.bool",    "bool",   "torch.BoolTensor"   },
  [CR_DTYPE_INT64]   = { 8, "torch.int64",   "long",   "torch.LongTensor"   },
  [CR_DTYPE_FLOAT32] = { 4, "torch.float32", "float",  "torch.FloatTensor"  },
  [CR_DTYPE_FLOAT64] = { 8, "torch.float64", "double", "torch.DoubleTensor" },
  [CR_DTYPE_INT32]   = { 4, "torch.int32",   "int",    "torch.IntTensor"    },
  [CR_DTYPE_UINT8]   = { 1, "torch.uint8",   "byte",   "torch.ByteTensor"   },
};
G_STATIC_ASSERT (G_N_ELEMENTS (dtype_info) == CR_DTYPE_COUNT);

gsize
cr_dtype_size (CrDType dtype)
{
  g_return_val_if_fail ((guint) dtype < CR_DTYPE_COUNT, 0);
  return dtype_info[dtype].size;
}

const char *
cr_dtype_name (CrDType dtype)
{
  g_return_val_if_fail ((guint) dtype < CR_DTYPE_COUNT, "torch.unknown");
  return dtype_info[dtype].name;
}

const char *
cr_dtype_short_name (CrDType dtype)
{
  g_return_val_if_fail ((guint) dtype < CR_DTYPE_COUNT, "unknown");
  return dtype_info[dtype].short_name;
}

const char *
cr_dtype_legacy_name (CrDType dtype)
{
  g_return_val_if_fail ((guint) dtype < CR_DTYPE_COUNT, "torch.Tensor");
  return dtype_info[dtype].legacy_name;
}

const char *
cr_dtype_scalar_name (CrDType dtype)
{
  static const char *const names[] = {
    [CR_DTYPE_BOOL]    = "Bool",
    [CR_DTYPE_INT64]   = "Long",
    [CR_DTYPE_FLOAT32] = "Float",
    [CR_DTYPE_FLOAT64] = "Double",
    [CR_DTYPE_INT32]   = "Int",
    [CR_DTYPE_UINT8]   = "Byte",
  };
  G_STATIC_ASSERT (G_N_ELEMENTS (names) == CR_DTYPE_COUNT);

  g_return_val_if_fail ((guint) dtype < CR_DTYPE_COUNT, "Undefined");
  return names[dtype];
}

gboolean
cr_dtype_is_floating (CrDType dtype)
{
  return dtype == CR_DTYPE_FLOAT32 || dtype == CR_DTYPE_FLOAT64;
}

gboolean
cr_dtype_is_integral (CrDType dtype)
{
  return dtype == CR_DTYPE_INT64 || dtype == CR_DTYPE_INT32 || dtype == CR_DTYPE_UINT8;
}

gboolean
cr_dtype_is_narrow_integer (CrDType dtype)
{
  return dtype == CR_DTYPE_INT32 || dtype == CR_DTYPE_UINT8;
}

/* "Undefined" while no operand of a priority level has been seen. */
#define DTYPE_UNDEFINED ((CrDType) -1)

/* Each dtype's place in PyTorch's promotion lattice for the types we have:
 * bool < uint8 < int32 < int64 < float32 < float64 is a chain (no int8, so
 * uint8 never meets a signed type it cannot fit in). */
static const guint8 promotion_rank[CR_DTYPE_COUNT] = {
  [CR_DTYPE_BOOL] = 0, [CR_DTYPE_UINT8] = 1, [CR_DTYPE_INT32] = 2,
  [CR_DTYPE_INT64] = 3, [CR_DTYPE_FLOAT32] = 4, [CR_DTYPE_FLOAT64] = 5,
};

CrDType
cr_dtype_promote (CrDType a,
                  CrDType b)
{
  return promotion_rank[a] >= promotion_rank[b] ? a : b;
}

static CrDType
promote_skip_undefined (CrDType a,
                        CrDType b)
{
  if (a == DTYPE_UNDEFINED)
    return b;
  if (b == DTYPE_UNDEFINED)
    return a;
  return cr_dtype_promote (a, b);
}

/* PyTorch's combine_categories(): a lower-priority operand only counts when
 * its category is higher than the higher-priority result's. */
static CrDType
combine_categories (CrDType higher,
                    CrDType lower)
{
  if (higher != DTYPE_UNDEFINED && cr_dtype_is_floating (higher))
    return higher;
  if (higher == CR_DTYPE_BOOL
      || (lower != DTYPE_UNDEFINED && cr_dtype_is_floating (lower)))
    return promote_skip_undefined (higher, lower);
  if (higher != DTYPE_UNDEFINED)
    return higher;
  return lower;
}

CrDType
cr_dtype_result_type (const CrTensor *a,
                      const CrTensor *b)
{
  CrDType dim_result = DTYPE_UNDEFINED;
  CrDType zero_result = DTYPE_UNDEFINED;
  CrDType wrapped_result = DTYPE_UNDEFINED;
  const CrTensor *operands[2] = { a, b };

  /* The common case, two operands of one dtype, needs none of the ranking. */
  if (a->dtype == b->dtype)
    {
      if (a->dtype != CR_DTYPE_FLOAT64 || !(a->is_wrapped_number && b->is_wrapped_number))
        return a->dtype;
    }

  for (guint i = 0; i < 2; i++)
    {
      const CrTensor *t = operands[i];
      CrDType current = t->dtype;

      if (t->is_wrapped_number)
        {
          /* A Python float counts as the default dtype. */
          if (cr_dtype_is_floating (current))
            current = CR_DTYPE_FLOAT32;
          wrapped_result = promote_skip_undefined (wrapped_result, current);
        }
      else if (t->ndim == 0)
        zero_result = promote_skip_undefined (zero_result, current);
      else
        dim_result = promote_skip_undefined (dim_result, current);
    }

  return combine_categories (dim_result, combine_categories (zero_result, wrapped_result));
}
