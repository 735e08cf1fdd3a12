/* cr-unary-ops.h — the elementwise functions of one tensor (cr-unary-ops.def)
 * as the kernels see them: their codes and their one dtype rule, shared by the
 * CPU kernels and the CUDA backend. */
#pragma once

#include "cr-types.h"
#include "cr-unary-rule.h"

G_BEGIN_DECLS

typedef enum {
#define CR_UNARY_OP(ID, ...) CR_UNARY_##ID,
#define CR_UNARY_KERNEL(ID, ...) CR_UNARY_##ID,
#include "cr-unary-ops.def"
  CR_UNARY_COUNT
} CrUnaryOp;


/* The most numbers a row takes besides its tensor (the params column). */
#define CR_UNARY_MAX_PARAMS 3

CrUnaryRule  cr_unary_op_rule    (CrUnaryOp op);
/* Whether op's row takes parameters (P0.. in its expressions). */
gboolean     cr_unary_op_has_params (CrUnaryOp op);
/* "expm1": the op's script name. */
const char  *cr_unary_op_name    (CrUnaryOp op);
/* Whether the rule has op compute in dtype itself (no cast first). */
gboolean     cr_unary_op_takes   (CrUnaryOp op,
                                  CrDType   dtype);

/* The dtype op computes in for an input of dtype in (the input is cast to it
 * first) and the dtype of its result; FALSE with PyTorch's RuntimeError for
 * a dtype the op refuses, naming the CPU's kernel or, when on_cuda, CUDA's. */
gboolean     cr_unary_op_dtypes  (CrUnaryOp  op,
                                  CrDType    in,
                                  gboolean   on_cuda,
                                  CrDType   *out_compute,
                                  CrDType   *out_result,
                                  GError   **error);

G_END_DECLS
