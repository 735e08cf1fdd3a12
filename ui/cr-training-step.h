/* cr-training-step.h — one optimizer step (or manual update) of the
 * Training page, laid out as aligned rows that fit a narrow sidebar at any
 * type size: each rule as "name ← expression", its arithmetic and its
 * result under it, a long line broken only between terms or at an operator
 * (cr_training_text_breaks), never inside a number. The text is the one
 * cr_training_explain_narrow tells (core/teach/cr-training.h). */
#pragma once

#include "cr-run-record.h"

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* A new widget showing update (borrowed for the call only) for element
 * `element` (row-major, clamped) of its parameter. */
GtkWidget *cr_training_step_new    (const CrRunRecord    *record,
                                    const CrRecordUpdate *update,
                                    gint64                element);

/* Where a line of text may break: the byte offsets at which a new line may
 * start, ascending (new GArray of guint). Arithmetic ("0.9 × 0.006 + 0.1 ×
 * 0.028") breaks between its terms (before a + or − outside brackets),
 * else also at its other operators outside brackets, else at any operator
 * with a space either side: the first of those that leaves no piece longer
 * than max_chars. A line may end with a '/' but not start with one (as
 * Unicode's line breaking has it). */
GArray    *cr_training_text_breaks (const char           *text,
                                    guint                 max_chars);

/* Lets label's text break only at breaks (cr_training_text_breaks'):
 * each run between two is kept whole. */
void       cr_training_label_set_breaks (GtkLabel        *label,
                                         GArray          *breaks);

G_END_DECLS
