/* cr-training-element.h — the Training page's element picker: which
 * element of which parameter the charts and the update rules follow. The
 * parameter from a drop-down (when there are several), its element by an
 * index per dimension (as the inspector's Walk takes a leaf's) or, for a
 * small tensor, by clicking its cell in a grid of the parameter's values
 * at the chosen iteration. Each parameter keeps its own element, also
 * across a re-run where the parameter comes back with the same name and
 * shape. Hidden when every parameter is one number. Emits "changed" when
 * the parameter or its element changes. */
#pragma once

#include <gtk/gtk.h>

#include "cr-run-record.h"

G_BEGIN_DECLS

#define CR_TYPE_TRAINING_ELEMENT (cr_training_element_get_type ())
G_DECLARE_FINAL_TYPE (CrTrainingElement, cr_training_element, CR, TRAINING_ELEMENT, GtkBox)

GtkWidget *cr_training_element_new          (void);
/* params: GPtrArray of CrTrainingParam* (cr-training.h) of record; both
 * held (refs) until the next call. NULL: nothing to pick. */
void       cr_training_element_set_params   (CrTrainingElement *self,
                                             CrRunRecord       *record,
                                             GPtrArray         *params);
/* The cells show the values after the update that followed backward call
 * `backward` (the last one before it where the parameter had none). */
void       cr_training_element_set_chosen   (CrTrainingElement *self,
                                             int                backward);
/* The parameter picked (index in params), 0 when there is none. */
guint      cr_training_element_get_param    (CrTrainingElement *self);
/* Parameter `param`'s element (row-major); 0 for one never picked. */
gint64     cr_training_element_get_element  (CrTrainingElement *self,
                                             guint              param);
/* Picks parameter `param` and its element (clamped), as the drop-down,
 * the index spins and the cells do. */
void       cr_training_element_pick         (CrTrainingElement *self,
                                             guint              param,
                                             gint64             element);
/* The grid's cell of element `element` of the picked parameter; NULL when
 * it has no grid (a scalar, more than 2 dimensions, or too many elements). */
GtkWidget *cr_training_element_get_cell     (CrTrainingElement *self,
                                             gint64             element);

G_END_DECLS
