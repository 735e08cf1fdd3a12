/* cr-compare-window.h — the corrected run shown beside the original, after
 * the coach's Fix or before it (Compare): the two graphs side by side (the
 * mistake ringed on the original), the loss at each backward call of both runs on one chart,
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

/* The same before Fix: after is the run of the fixed text, which is not in
 * the editor yet. The header bar's Fix button activates fix_action, an
 * action of parent (a "win." name; NULL: no button), and closes this
 * window. */
GtkWindow *cr_coach_compare_present_preview (GtkWindow   *parent,
                                             CrRunRecord *before,
                                             guint        finding,
                                             CrRunRecord *after,
                                             const char  *fix_action);

/* What changed, in one paragraph: "Fixed line 12. The error is gone. The
 * last loss 38.03 → 0.6084. The coach finds nothing more." (new string). */
char      *cr_coach_compare_summary (const CrRunRecord *before,
                                     guint              finding,
                                     const CrRunRecord *after);
/* What the fix would change, before Fix: "If line 12 were fixed, the last
 * loss would go from 38.03 to 0.6084 and the coach would find nothing
 * more." (new string). */
char      *cr_coach_compare_preview_summary (const CrRunRecord *before,
                                             guint              finding,
                                             const CrRunRecord *after);

/* The zoom the comparison's graph `graph` (one of its drawing areas) is
 * drawn at, at its size now: 1.0 = 100 %; presenting, large enough that
 * its smallest type reads from the back of the room. 0: not one of its
 * graphs, or not laid out (yet). */
double     cr_coach_compare_graph_scale (GtkWidget *graph);

G_END_DECLS
