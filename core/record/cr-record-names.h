/* cr-record-names.h — what to call a tensor the script never named, as the
 * script would write it, from the op that made it: x[:, 1]'s first step is
 * "x[:]", log_softmax's output inside cross_entropy "log_softmax(x)",
 * nn.Linear's weight.t() "lin.weight.T". The scalar view and the forward
 * step card both say these names. */
#pragma once

#include <glib.h>

#include "cr-run-record.h"

G_BEGIN_DECLS

/* t's own label when the script named it; else a name made from the op
 * that made it, that op's recorded arguments and its inputs' names; NULL
 * when no rule makes one short enough (40 characters). New string. */
char *cr_record_tensor_made_name (const CrRunRecord    *record,
                                  const CrRecordTensor *t);

/* "sum" of "SumBackward1", "masked_fill" of "MaskedFillBackward0": an op
 * as a function name, as the graph's pill says it. New string. */
char *cr_record_op_function_name (const char *grad_fn);

G_END_DECLS
