/* cr-compare-window.h — the corrected run shown beside the original, after
 * the coach's Fix: the two graphs side by side (the mistake ringed on the
 * original), the loss at each backward call of both runs on one chart,
 * the finding's tensor's .grad over the calls of both (gradients that add
 * up), and what changed in words. */
#pragma once

#include <gtk/gtk.h>

#include "cr-run-record.h"

G_BEGIN_DECLS

/* A window transient for parent comparing before (the run a fix was applied
 * to; its finding `finding` is the one fixed) and after (the run of the
 * fixed text). Both records are referenced. Returns the window, shown. */
GtkWindow *cr_coach_compare_present (GtkWindow   *parent,
                                     CrRunRecord *before,
                                     guint        finding,
                                     CrRunRecord *after);

/* What changed, in one paragraph: "Fixed line 12. The error is gone. The
 * last loss 38.03 → 0.6084. The coach finds nothing more." (new string). */
char      *cr_coach_compare_summary (const CrRunRecord *before,
                                     guint              finding,
                                     const CrRunRecord *after);

G_END_DECLS
