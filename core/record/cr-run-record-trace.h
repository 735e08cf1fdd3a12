/* cr-run-record-trace.h — one backward call of a run record as the text of
 * `chainrule run --trace-backward`: each step as the step card tells it
 * (cr_step_text_plain), with the script's own names, for a student reading
 * top to bottom:
 *
 *   backward #1: z.backward() at line 7
 *
 *     +
 *     Backward 1 of 3
 *     AddBackward0
 *     z = y + x · line 6
 *
 *     Incoming gradient
 *       ∂z/∂z = 1
 *     ...
 *
 * Hooks, a custom Function's own backward, the sum back to an input's shape
 * after a broadcast, gradients added into one already there and an error
 * are told as the card tells them. */
#pragma once

#include <glib.h>

#include "cr-run-record.h"

G_BEGIN_DECLS

/* The trace of record->backwards[backward] (new string; "" when there is no
 * such call). Values are written as the card writes them (cr-record-text.h's
 * briefs). */
char *cr_run_record_trace_backward (const CrRunRecord *record,
                                    guint              backward);

G_END_DECLS
