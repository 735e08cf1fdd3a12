/* cr-binary-ops.h — the elementwise functions of two tensors
 * (cr-binary-ops.def) as the kernels see them: their codes and their one
 * dtype rule, shared by the CPU kernels and the CUDA backend. */
#pragma once

#include "cr-types.h"
#include "cr-binary-rule.h"

G_BEGIN_DECLS

typedef enum {
#define CR_BINARY_OP(ID, ...) CR_BINARY_##ID,
#define CR_BINARY_KERNEL CR_BINARY_OP
#include "cr-binary-ops.def"
  CR_BINARY_COUNT
} CrBinaryOp;

CrBinaryRule cr_binary_op_rule      (CrBinaryOp op);
/* "atan2": the op's script name. */
const char  *cr_binary_op_name      (CrBinaryOp op);
/* Whether an int64 divisor of 0 is a ZeroDivisionError (floor_divide, %, fmod). */
gboolean     cr_binary_op_divides   (CrBinaryOp op);

/* The dtype op computes in when its operands promote to promoted (both are
 * cast to it first) and the dtype of its result; FALSE with PyTorch's
 * RuntimeError for a dtype the rule refuses, naming the CPU's kernel or,
 * when on_cuda, CUDA's. */
gboolean     cr_binary_op_dtypes    (CrBinaryOp  op,
                                     CrDType     promoted,
                                     gboolean    on_cuda,
                                     CrDType    *out_compute,
                                     CrDType    *out_result,
                                     GError    **error);

G_END_DECLS
