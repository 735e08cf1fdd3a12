/* cr-op-table.c — the table of every differentiable op's row; each row lives
 * next to its forward in ops/, this file only gathers them. */
#include "cr-op-table.h"

static const CrOpInfo *const op_rows[] = {
#define CR_OP_ROW_PTR(name) [CR_OP_##name] = &cr_op_row_##name,
  CR_OP_LIST (CR_OP_ROW_PTR)
#undef CR_OP_ROW_PTR
#define CR_UNARY_OP(ID, ...) [CR_OP_##ID] = &cr_op_row_##ID,
#define CR_UNARY_INPLACE CR_UNARY_OP
#include "cr-unary-ops.def"
#define CR_BINARY_OP(ID, ...) \
  [CR_OP_##ID] = &cr_op_row_##ID, [CR_OP_##ID##_SCALAR] = &cr_op_row_##ID##_SCALAR,
#include "cr-binary-ops.def"
};
G_STATIC_ASSERT (G_N_ELEMENTS (op_rows) == CR_OP_COUNT);

const CrOpInfo *
cr_op_info (CrOpId op)
{
  g_return_val_if_fail ((guint) op < CR_OP_COUNT, NULL);
  return op_rows[op];
}
