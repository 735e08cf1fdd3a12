/* cr-coach-compare.h — the corrected run beside the original: the series
 * that show what a fix changed, read from the two runs' records. The
 * coach's report on stderr (`run --coach`) and the window's comparison
 * (ui/cr-coach-compare.c) both use them. */
#pragma once

#include <glib.h>

#include "cr-run-record.h"

G_BEGIN_DECLS

/* The scalar each backward call of record started from (its loss), in
 * call order (new array of double); NULL when no call ran or one started
 * from anything but a one-element tensor. */
GArray     *cr_coach_losses          (const CrRunRecord *record);

/* The first entry of tensor's .grad as each backward call of record left
 * it (new array of double, NAN where .grad was None); NULL when tensor is
 * out of range or no call ran. */
GArray     *cr_coach_grad_history    (const CrRunRecord *record,
                                      int                tensor);

/* The tensor of other that is `tensor` of record in a run of an edited
 * script: the leaf of the same label (a parameter: its module path); -1
 * when other has none. */
int         cr_coach_same_leaf       (const CrRunRecord *record,
                                      int                tensor,
                                      const CrRunRecord *other);

/* "2.5, 1.9, 1.2, 0.94, …, 0.1 (12 calls)": at most 6 values, %.4g
 * (new string). */
char       *cr_coach_series_text     (const GArray      *values);

G_END_DECLS
