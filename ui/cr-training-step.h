/* cr-training-step.h — one optimizer step (or manual update) of the
 * Training page, laid out as aligned rows that fit a narrow sidebar at any
 * type size: each rule as "name ← expression", its arithmetic and its
 * result under it, a long line broken as a person would
 * (cr-training-arithmetic.h), never inside a number. The text is the one
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

G_END_DECLS
