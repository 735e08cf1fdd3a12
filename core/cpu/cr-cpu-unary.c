/* cr-cpu-unary.c — elementwise functions of one tensor (cr_kernel_unary). */
#include "cr-cpu-private.h"
#include "cr-cpu-vecmath.h"
#include "cr-cpu-torch-math.h"
#include "cr-special-math.h"

#include <math.h>
#include <stdint.h>

/* The row functions of every op of cr-unary-ops.def, one per dtype; the
 * table below refers to all four, cr_kernel_unary calls only those of the
 * dtypes its rule computes in (the others compute NONE, a 0). A row's
 * parameters come in the row function's ctx (CR_UNARY_MAX_PARAMS doubles):
 * each expression is a function of v and P0..P2, called with all three read
 * from ctx, so that the reads are unconditional (hoisted out of the loop)
 * and a select such as leaky_relu's still vectorises. */
#define NONE ((void) v, 0)
#define P0 p0_
#define P1 p1_
#define P2 p2_
#define PARAMS_OF_CTX ((const double *) ctx)[0], ((const double *) ctx)[1], \
                      ((const double *) ctx)[2]
#define EXPR_FUNC(name, TO, TI, EXPR)                                           \
  static inline __attribute__ ((always_inline)) TO                             \
  name (TI v, double p0_, double p1_, double p2_)                              \
  {                                                                            \
    return (EXPR);                                                             \
  }
#define ROW_ATTRS_VEC      CR_VEC_CLONES
#define ROW_ATTRS_SCALAR
#define ROW_ATTRS_CPU_ONLY
/* The result's C type: bool for LOGICAL, else the computing type. */
#define OUT_FLOAT(T)           T
#define OUT_SAME(T)            T
#define OUT_SAME_BOOL_ROW(T)   T
#define OUT_SAME_BOOL_INT64(T) T
#define OUT_FLOATS_ONLY(T)     T
#define OUT_LOGICAL(T)         guint8

#define CR_UNARY_OP(ID, name, alias, rule, errors, vec, F, D, I, B, ...)                \
  EXPR_FUNC (fx_##ID, OUT_##rule (float), float, F)                                     \
  EXPR_FUNC (dx_##ID, OUT_##rule (double), double, D)                                   \
  EXPR_FUNC (ix_##ID, OUT_##rule (int64_t), int64_t, I)                                 \
  EXPR_FUNC (bx_##ID, OUT_##rule (uint8_t), uint8_t, B)                                 \
  CR_DEFINE_MAP_ROW (ROW_ATTRS_##vec, f_##ID, OUT_##rule (float), float,                \
                     fx_##ID (v, PARAMS_OF_CTX))                                        \
  CR_DEFINE_MAP_ROW (ROW_ATTRS_##vec, d_##ID, OUT_##rule (double), double,              \
                     dx_##ID (v, PARAMS_OF_CTX))                                        \
  CR_DEFINE_MAP_ROW (ROW_ATTRS_SCALAR, i_##ID, OUT_##rule (int64_t), int64_t,           \
                     ix_##ID (v, PARAMS_OF_CTX))                                        \
  CR_DEFINE_MAP_ROW (ROW_ATTRS_SCALAR, b_##ID, OUT_##rule (uint8_t), uint8_t,           \
                     bx_##ID (v, PARAMS_OF_CTX))
#define CR_UNARY_KERNEL CR_UNARY_OP
#include "cr-unary-ops.def"

typedef struct {
  CrRowFunc rows[CR_DTYPE_COUNT];
} UnaryInfo;

#define CR_UNARY_OP(ID, ...)                                                            \
  [CR_UNARY_##ID] = { { b_##ID, i_##ID, f_##ID, d_##ID } },
#define CR_UNARY_KERNEL CR_UNARY_OP
static const UnaryInfo unary_info[] = {
#include "cr-unary-ops.def"
};
G_STATIC_ASSERT (G_N_ELEMENTS (unary_info) == CR_UNARY_COUNT);
G_STATIC_ASSERT (CR_DTYPE_BOOL == 0 && CR_DTYPE_INT64 == 1 && CR_DTYPE_FLOAT32 == 2
                 && CR_DTYPE_FLOAT64 == 3);
#undef NONE
#undef P0
#undef P1
#undef P2
#undef PARAMS_OF_CTX
#undef EXPR_FUNC

CrTensor *
cr_kernel_unary (CrUnaryOp        op,
                 const CrTensor  *x,
                 GError         **error)
{
  static const double no_params[CR_UNARY_MAX_PARAMS];

  return cr_kernel_unary_p (op, x, no_params, error);
}

CrTensor *
cr_kernel_unary_p (CrUnaryOp        op,
                   const CrTensor  *x,
                   const double    *params,
                   GError         **error)
{
  const UnaryInfo *info;
  g_autoptr(CrTensor) converted = NULL;
  CrDType in_dtype, out_dtype;
  CrTensor *out;
  CrScalarBuf scalar;
  const void *x_data;
  gpointer ctx = (gpointer) params;

  g_return_val_if_fail ((guint) op < CR_UNARY_COUNT, NULL);
  g_return_val_if_fail (params != NULL, NULL);
  if (G_UNLIKELY (cr_cpu_is_narrow (x)))
    {
      g_autoptr(CrTensor) wide = NULL;

      /* int32/uint8 follow int64's rule; the result keeps their dtype. */
      if (!cr_unary_op_dtypes (op, x->dtype, x->device != CR_DEVICE_CPU, &in_dtype, &out_dtype, error))
        return NULL;
      wide = cr_cpu_widen (x, x->dtype, error);
      return wide != NULL ? cr_cpu_narrow (cr_kernel_unary_p (op, wide, params, error), out_dtype,
                                           error) : NULL;
    }
  CR_DISPATCH (x->device, unary, error, NULL, op, x, params, error);

  info = &unary_info[op];
  if (!cr_unary_op_dtypes (op, x->dtype, FALSE, &in_dtype, &out_dtype, error))
    return NULL;

  out = cr_tensor_new_empty (x->shape, x->ndim, out_dtype, CR_DEVICE_CPU, error);
  if (out == NULL)
    return NULL;

  /* An operand of another dtype is converted first: one value on the stack
   * for a 0-d tensor, else a temporary copy. */
  x_data = cr_cpu_data (x);
  if (in_dtype != x->dtype)
    {
      if (x->numel == 1)
        {
          cr_cpu_convert_scalar (&scalar, in_dtype, x_data, x->dtype);
          x_data = &scalar;
        }
      else
        {
          converted = cr_cpu_cast (x, in_dtype, error);
          if (converted == NULL)
            {
              cr_tensor_unref (out);
              return NULL;
            }
          x = converted;
          x_data = cr_cpu_data (x);
        }
    }

  if (x->numel == 1
      || (x->numel < 2 * CR_PARALLEL_GRAIN && cr_cpu_is_contiguous (x)))
    {
      /* One value, or a small contiguous block: one row, no iterator. */
      static const gint64 unit_strides[2] = { 1, 1 };
      char *ptrs[2] = { cr_cpu_data (out), (char *) x_data };

      if (x->numel > 0)
        info->rows[in_dtype] (x->numel, ptrs, unit_strides, ctx);
    }
  else
    {
      const CrTensor *operands[2] = { out, x };
      CrCpuIter iter;

      cr_cpu_iter_init (&iter, out->shape, out->ndim, operands, 2);
      cr_cpu_iter_run (&iter, info->rows[in_dtype], ctx);
    }
  return out;
}
