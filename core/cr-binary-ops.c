/* cr-binary-ops.c — the dtype rule of each binary op, from its row in
 * cr-binary-ops.def: one rule for the CPU and CUDA. */
#include "cr-binary-ops.h"

#include "cr-dtype.h"
#include "cr-error.h"

typedef struct {
  const char   *name;
  CrBinaryRule  rule;
  /* The kernels in PyTorch's "\"<kernel>\" not implemented for '<dtype>'". */
  const char   *cpu_kernel;
  const char   *cuda_kernel;
  gboolean      divides;
} BinaryRow;

#define KERNELS(cpu, cuda)         cpu, cuda, FALSE
#define DIVIDES(cpu, cuda)         cpu, cuda, TRUE
#define CR_BINARY_OP(ID, name, alias, rule, errors, ...) \
  [CR_BINARY_##ID] = { name, CR_BINARY_RULE_##rule, errors },
#define CR_BINARY_KERNEL CR_BINARY_OP
static const BinaryRow binary_rows[] = {
#include "cr-binary-ops.def"
};
#undef KERNELS
#undef DIVIDES
G_STATIC_ASSERT (G_N_ELEMENTS (binary_rows) == CR_BINARY_COUNT);

CrBinaryRule
cr_binary_op_rule (CrBinaryOp op)
{
  g_return_val_if_fail ((guint) op < CR_BINARY_COUNT, CR_BINARY_RULE_ARITH);
  return binary_rows[op].rule;
}

const char *
cr_binary_op_name (CrBinaryOp op)
{
  g_return_val_if_fail ((guint) op < CR_BINARY_COUNT, NULL);
  return binary_rows[op].name;
}

gboolean
cr_binary_op_divides (CrBinaryOp op)
{
  g_return_val_if_fail ((guint) op < CR_BINARY_COUNT, FALSE);
  return binary_rows[op].divides;
}

gboolean
cr_binary_op_dtypes (CrBinaryOp  op,
                     CrDType     promoted,
                     gboolean    on_cuda,
                     CrDType    *out_compute,
                     CrDType    *out_result,
                     GError    **error)
{
  const BinaryRow *row;
  int compute;

  g_return_val_if_fail ((guint) op < CR_BINARY_COUNT, FALSE);
  row = &binary_rows[op];
  compute = cr_binary_rule_compute (row->rule, promoted);
  if (compute < 0)
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "\"%s\" not implemented for '%s'",
                   on_cuda ? row->cuda_kernel : row->cpu_kernel, cr_dtype_scalar_name (promoted));
      return FALSE;
    }
  *out_compute = (CrDType) compute;
  *out_result = (CrDType) cr_binary_rule_result (row->rule, compute);
  return TRUE;
}
