/* cr-coach-report.h — `chainrule run --coach`: the mistakes coach's
 * findings (core/coach/cr-coach.h) on stderr after the script's own
 * output, one block a finding, then the corrected run: the script run
 * again with every fix applied, and what changed (the error gone, the loss
 * over the backward calls before and after, what the coach still finds). */
#pragma once

#include <stdio.h>

#include "cr-run-record.h"

G_BEGIN_DECLS

/* Writes record's findings to out; nothing when there are none. With
 * rerun, runs the fixed script (its output kept, not printed) under
 * cancel_flag and reports the difference. failed: the original run ended
 * with an uncaught error. */
void cr_coach_report (FILE              *out,
                      const CrRunRecord *record,
                      gboolean           failed,
                      gboolean           rerun,
                      const gint        *cancel_flag);

G_END_DECLS
