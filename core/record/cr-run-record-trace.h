/* cr-run-record-trace.h — one backward call of a run record as the text of
 * `chainrule run --trace-backward`: the chain rule spelled out step by step
 * with the script's own names, for a student reading top to bottom.
 *
 *   backward #1: z.backward() at line 7
 *     step 1  AddBackward0  (z = y + x, line 6)
 *       ∂z/∂z = tensor(1.)
 *       ∂z/∂y = ∂z/∂z × ∂z/∂y = tensor(1.) × tensor(1.) = tensor(1.)
 *     ...
 *     step 3  AccumulateGrad  x
 *       ∂z/∂x = tensor(7.)
 *       x.grad: None -> tensor(7.)
 *
 * Besides the chain rule a step shows the hooks that ran on its gradient
 * (and what they returned), a custom Function's own backward, the sum back
 * to an input's shape after a broadcast, and every gradient added into one
 * already there ("∂L/∂a += ... (sum so far ...)"). */
#pragma once

#include <glib.h>

#include "cr-run-record.h"
#include "cr-tensor-format.h"

G_BEGIN_DECLS

/* The trace of record->backwards[backward] (new string; "" when there is no
 * such call). Values print with options (NULL: PyTorch's defaults), as
 * print() would show them; a value whose numbers the record did not keep
 * prints as its shape and statistics. */
char *cr_run_record_trace_backward (const CrRunRecord    *record,
                                    guint                 backward,
                                    const CrPrintOptions *options);

G_END_DECLS
