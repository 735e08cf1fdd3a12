/* cr-training-view.h — the window's Training page: a training loop read
 * off the run record (core/teach/cr-training.h). The loss of each backward
 * call as a curve whose points pick that call ("backward-picked"), each
 * parameter's values and gradients over its updates (one line an element
 * for small tensors, the norm for big ones) with one element followed,
 * and the chosen iteration's updates told as their rules with that
 * element's numbers. The curve is a focusable slider: Left/Right/Home/End
 * move the chosen call, Enter explores it ("backward-picked"). */
#pragma once

#include <gtk/gtk.h>

#include "cr-run-record.h"

G_BEGIN_DECLS

#define CR_TYPE_TRAINING_VIEW (cr_training_view_get_type ())
G_DECLARE_FINAL_TYPE (CrTrainingView, cr_training_view, CR, TRAINING_VIEW, GtkBox)

GtkWidget *cr_training_view_new                (void);
/* Shows record's loop (a hold of its own; NULL: nothing) with backward call
 * `chosen` (index in record->backwards) marked and its updates told. */
void       cr_training_view_set_record         (CrTrainingView *self,
                                                CrRunRecord    *record,
                                                int             chosen);
void       cr_training_view_set_chosen         (CrTrainingView *self,
                                                int             backward);
int        cr_training_view_get_chosen         (CrTrainingView *self);
/* The loss curve's points: one per backward call with a one-element loss. */
guint      cr_training_view_get_n_points       (CrTrainingView *self);
/* Where point i is drawn, in the curve's coordinates (its drawing area:
 * cr_training_view_get_curve); FALSE before it is laid out. */
gboolean   cr_training_view_get_point_position (CrTrainingView *self,
                                                guint           i,
                                                double         *x,
                                                double         *y);
GtkWidget *cr_training_view_get_curve          (CrTrainingView *self);
/* A click at (x, y) on the curve: the nearest point within reach picks its
 * backward call (emits "backward-picked" with it and marks it). Returns
 * the call, -1 when no point is near. What the curve's click gesture does. */
int        cr_training_view_click              (CrTrainingView *self,
                                                double          x,
                                                double          y);
/* The element picker (cr-training-element.h), borrowed: which element of
 * which parameter the charts and the rules follow. */
GtkWidget *cr_training_view_get_element_picker (CrTrainingView *self);
/* The chosen iteration's text (borrowed), for tests. */
const char *cr_training_view_get_text          (CrTrainingView *self);

G_END_DECLS
