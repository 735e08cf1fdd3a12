/* cr-cpu-unary.c — elementwise functions of one tensor (cr_kernel_unary). */
#include "cr-cpu-private.h"
#include "cr-cpu-vecmath.h"

#include <math.h>

#define F_ROW(name, EXPR)      CR_DEFINE_MAP_ROW (, name, float, float, EXPR)
#define F_ROW_VEC(name, EXPR)  CR_DEFINE_MAP_ROW (CR_VEC_CLONES, name, float, float, EXPR)
#define D_ROW(name, EXPR)      CR_DEFINE_MAP_ROW (, name, double, double, EXPR)
#define D_ROW_VEC(name, EXPR)  CR_DEFINE_MAP_ROW (CR_VEC_CLONES, name, double, double, EXPR)
#define I_ROW(name, EXPR)      CR_DEFINE_MAP_ROW (, name, gint64, gint64, EXPR)
#define B_ROW(name, EXPR)      CR_DEFINE_MAP_ROW (, name, guint8, guint8, EXPR)

/* float32 */
F_ROW     (f_neg,        -v)
F_ROW_VEC (f_exp,        cr_vexpf (v))
F_ROW_VEC (f_log,        cr_vlogf (v))
F_ROW     (f_sin,        sinf (v))
F_ROW     (f_cos,        cosf (v))
F_ROW_VEC (f_tanh,       cr_vtanhf (v))
F_ROW_VEC (f_sigmoid,    cr_vsigmoidf (v))
F_ROW     (f_relu,       v < 0.0f ? 0.0f : v)
F_ROW     (f_sqrt,       sqrtf (v))
F_ROW     (f_rsqrt,      1.0f / sqrtf (v))
F_ROW     (f_abs,        fabsf (v))
F_ROW     (f_sign,       (float) ((v > 0.0f) - (v < 0.0f)))
F_ROW     (f_reciprocal, 1.0f / v)
F_ROW     (f_square,     v * v)
F_ROW     (f_log1p,      log1pf (v))
F_ROW     (f_expm1,      expm1f (v))
F_ROW     (f_floor,      floorf (v))
F_ROW     (f_ceil,       ceilf (v))
F_ROW     (f_round,      nearbyintf (v))
CR_DEFINE_MAP_ROW (, f_not, guint8, float, v == 0.0f)

/* float64 */
D_ROW     (d_neg,        -v)
D_ROW_VEC (d_exp,        cr_vexp (v))
D_ROW_VEC (d_log,        cr_vlog (v))
D_ROW     (d_sin,        sin (v))
D_ROW     (d_cos,        cos (v))
D_ROW_VEC (d_tanh,       cr_vtanh (v))
D_ROW_VEC (d_sigmoid,    cr_vsigmoid (v))
D_ROW     (d_relu,       v < 0.0 ? 0.0 : v)
D_ROW     (d_sqrt,       sqrt (v))
D_ROW     (d_rsqrt,      1.0 / sqrt (v))
D_ROW     (d_abs,        fabs (v))
D_ROW     (d_sign,       (double) ((v > 0.0) - (v < 0.0)))
D_ROW     (d_reciprocal, 1.0 / v)
D_ROW     (d_square,     v * v)
D_ROW     (d_log1p,      log1p (v))
D_ROW     (d_expm1,      expm1 (v))
D_ROW     (d_floor,      floor (v))
D_ROW     (d_ceil,       ceil (v))
D_ROW     (d_round,      nearbyint (v))
CR_DEFINE_MAP_ROW (, d_not, guint8, double, v == 0.0)

/* int64: negation and products wrap as in PyTorch (abs and neg of int64's
 * minimum are itself), computed unsigned where that is not UB. */
I_ROW     (i_neg,        (gint64) (0 - (guint64) v))
I_ROW     (i_relu,       v < 0 ? 0 : v)
I_ROW     (i_abs,        v < 0 ? (gint64) (0 - (guint64) v) : v)
I_ROW     (i_sign,       (gint64) ((v > 0) - (v < 0)))
I_ROW     (i_square,     (gint64) ((guint64) v * (guint64) v))
I_ROW     (i_copy,       v)
CR_DEFINE_MAP_ROW (, i_not, guint8, gint64, v == 0)

/* bool */
B_ROW     (b_copy,       v)
B_ROW     (b_not,        !v)

typedef enum {
  KIND_FLOAT,      /* integers and bool compute in float32 */
  KIND_SAME,       /* keeps the dtype */
  KIND_LOGICAL,    /* gives bool */
} UnaryKind;

typedef struct {
  UnaryKind   kind;
  CrRowFunc   rows[CR_DTYPE_COUNT];
  /* When the bool row is NULL: PyTorch's message for a bool input. */
  const char *bool_error;
} UnaryInfo;

static const UnaryInfo unary_info[] = {
  [CR_UNARY_NEG]         = { KIND_SAME,  { NULL, i_neg, f_neg, d_neg },
                             "Negation, the `-` operator, on a bool tensor is not supported. "
                             "If you are trying to invert a mask, use the `~` or `logical_not()` "
                             "operator instead." },
  [CR_UNARY_EXP]         = { KIND_FLOAT, { NULL, NULL, f_exp, d_exp }, NULL },
  [CR_UNARY_LOG]         = { KIND_FLOAT, { NULL, NULL, f_log, d_log }, NULL },
  [CR_UNARY_SIN]         = { KIND_FLOAT, { NULL, NULL, f_sin, d_sin }, NULL },
  [CR_UNARY_COS]         = { KIND_FLOAT, { NULL, NULL, f_cos, d_cos }, NULL },
  [CR_UNARY_TANH]        = { KIND_FLOAT, { NULL, NULL, f_tanh, d_tanh }, NULL },
  [CR_UNARY_SIGMOID]     = { KIND_FLOAT, { NULL, NULL, f_sigmoid, d_sigmoid }, NULL },
  [CR_UNARY_RELU]        = { KIND_SAME,  { NULL, i_relu, f_relu, d_relu },
                             "Boolean inputs not supported for relu" },
  [CR_UNARY_SQRT]        = { KIND_FLOAT, { NULL, NULL, f_sqrt, d_sqrt }, NULL },
  [CR_UNARY_RSQRT]       = { KIND_FLOAT, { NULL, NULL, f_rsqrt, d_rsqrt }, NULL },
  [CR_UNARY_ABS]         = { KIND_SAME,  { NULL, i_abs, f_abs, d_abs },
                             "\"abs_cpu\" not implemented for 'Bool'" },
  [CR_UNARY_SIGN]        = { KIND_SAME,  { b_copy, i_sign, f_sign, d_sign }, NULL },
  [CR_UNARY_RECIPROCAL]  = { KIND_FLOAT, { NULL, NULL, f_reciprocal, d_reciprocal }, NULL },
  /* square(bool) is pow(bool, 2): int64 (handled below). */
  [CR_UNARY_SQUARE]      = { KIND_SAME,  { NULL, i_square, f_square, d_square }, NULL },
  [CR_UNARY_LOG1P]       = { KIND_FLOAT, { NULL, NULL, f_log1p, d_log1p }, NULL },
  [CR_UNARY_EXPM1]       = { KIND_FLOAT, { NULL, NULL, f_expm1, d_expm1 }, NULL },
  [CR_UNARY_FLOOR]       = { KIND_SAME,  { NULL, i_copy, f_floor, d_floor },
                             "\"floor_vml_cpu\" not implemented for 'Bool'" },
  [CR_UNARY_CEIL]        = { KIND_SAME,  { NULL, i_copy, f_ceil, d_ceil },
                             "\"ceil_vml_cpu\" not implemented for 'Bool'" },
  [CR_UNARY_ROUND]       = { KIND_SAME,  { NULL, i_copy, f_round, d_round },
                             "\"round_vml_cpu\" not implemented for 'Bool'" },
  [CR_UNARY_LOGICAL_NOT] = { KIND_LOGICAL, { b_not, i_not, f_not, d_not }, NULL },
};
G_STATIC_ASSERT (G_N_ELEMENTS (unary_info) == CR_UNARY_COUNT);

CrTensor *
cr_kernel_unary (CrUnaryOp        op,
                 const CrTensor  *x,
                 GError         **error)
{
  const UnaryInfo *info;
  g_autoptr(CrTensor) converted = NULL;
  CrDType in_dtype, out_dtype;
  CrTensor *out;
  CrScalarBuf scalar;
  const void *x_data;

  g_return_val_if_fail ((guint) op < CR_UNARY_COUNT, NULL);
  CR_DISPATCH (x->device, unary, error, NULL, op, x, error);

  info = &unary_info[op];
  in_dtype = x->dtype;
  if (info->kind == KIND_FLOAT && !cr_dtype_is_floating (in_dtype))
    in_dtype = CR_DTYPE_FLOAT32;
  else if (op == CR_UNARY_SQUARE && in_dtype == CR_DTYPE_BOOL)
    in_dtype = CR_DTYPE_INT64;
  else if (in_dtype == CR_DTYPE_BOOL && info->rows[CR_DTYPE_BOOL] == NULL)
    {
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR, info->bool_error);
      return NULL;
    }
  out_dtype = info->kind == KIND_LOGICAL ? CR_DTYPE_BOOL : in_dtype;

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
        info->rows[in_dtype] (x->numel, ptrs, unit_strides, NULL);
    }
  else
    {
      const CrTensor *operands[2] = { out, x };
      CrCpuIter iter;

      cr_cpu_iter_init (&iter, out->shape, out->ndim, operands, 2);
      cr_cpu_iter_run (&iter, info->rows[in_dtype], NULL);
    }
  return out;
}
