/* cr-unary-ops.c — the dtype rule of each unary op, from its row in
 * cr-unary-ops.def: one rule for the CPU and CUDA. */
#include "cr-unary-ops.h"

#include "cr-dtype.h"
#include "cr-error.h"

typedef struct {
  const char  *name;
  CrUnaryRule  rule;
  /* PyTorch's error for a dtype the rule refuses: message, or else
   * "\"<kernel>\" not implemented for '<dtype>'" with the device's kernel. */
  const char  *message;
  const char  *cpu_kernel;
  const char  *cuda_kernel;
  gboolean     has_params;
} UnaryRow;

#define NO_ERROR                   NULL, NULL, NULL
#define MESSAGE(text)              text, NULL, NULL
#define KERNELS(cpu, cuda)         NULL, cpu, cuda
#define NO_PARAMS                  FALSE
#define PARAMS(...)                TRUE
#define CR_UNARY_OP(ID, name, alias, rule, errors, vec, F, D, I, B, grad_fn, symbol, save, \
                    formula, text, bind, expr, params)                                     \
  [CR_UNARY_##ID] = { name, CR_UNARY_RULE_##rule, errors, params },
#define CR_UNARY_KERNEL CR_UNARY_OP
static const UnaryRow unary_rows[] = {
#include "cr-unary-ops.def"
};
#undef NO_ERROR
#undef MESSAGE
#undef KERNELS
#undef NO_PARAMS
#undef PARAMS
G_STATIC_ASSERT (G_N_ELEMENTS (unary_rows) == CR_UNARY_COUNT);

CrUnaryRule
cr_unary_op_rule (CrUnaryOp op)
{
  g_return_val_if_fail ((guint) op < CR_UNARY_COUNT, CR_UNARY_RULE_FLOAT);
  return unary_rows[op].rule;
}

gboolean
cr_unary_op_has_params (CrUnaryOp op)
{
  g_return_val_if_fail ((guint) op < CR_UNARY_COUNT, FALSE);
  return unary_rows[op].has_params;
}

const char *
cr_unary_op_name (CrUnaryOp op)
{
  g_return_val_if_fail ((guint) op < CR_UNARY_COUNT, NULL);
  return unary_rows[op].name;
}

gboolean
cr_unary_op_takes (CrUnaryOp op,
                   CrDType   dtype)
{
  g_return_val_if_fail ((guint) op < CR_UNARY_COUNT, FALSE);
  return cr_unary_rule_takes (unary_rows[op].rule, dtype);
}

gboolean
cr_unary_op_dtypes (CrUnaryOp  op,
                    CrDType    in,
                    gboolean   on_cuda,
                    CrDType   *out_compute,
                    CrDType   *out_result,
                    GError   **error)
{
  const UnaryRow *row;
  CrDType compute = in;

  g_return_val_if_fail ((guint) op < CR_UNARY_COUNT, FALSE);
  row = &unary_rows[op];
  /* int32 and uint8 follow int64's rule (the kernels compute them in int64). */
  if (!cr_unary_op_takes (op, cr_dtype_is_narrow_integer (in) ? CR_DTYPE_INT64 : in))
    {
      if (row->rule == CR_UNARY_RULE_FLOAT)
        compute = CR_DTYPE_FLOAT32;
      else if (row->rule == CR_UNARY_RULE_SAME_BOOL_INT64)
        compute = CR_DTYPE_INT64;
      else
        {
          if (row->message != NULL)
            g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR, row->message);
          else
            g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                         "\"%s\" not implemented for '%s'",
                         on_cuda ? row->cuda_kernel : row->cpu_kernel,
                         cr_dtype_scalar_name (in));
          return FALSE;
        }
    }
  *out_compute = compute;
  *out_result = row->rule == CR_UNARY_RULE_LOGICAL ? CR_DTYPE_BOOL : compute;
  return TRUE;
}
