/* cr-step-card.h — beside the graph: the chain rule at the current backward
 * step, with the script's names and real numbers, read from the run record
 * (CrRecordStep). For the node that ran: the hooks that changed its incoming
 * gradient (and retain_grad writes), the incoming gradient ∂L/∂out, each
 * input's local gradient ∂out/∂in (its rule and values), the outgoing
 * gradient written as the product and, for a broadcast input, the sum back
 * to its shape on a line of its own; a custom Function's own backward; when
 * a tensor gets gradient from several paths, each contribution and the
 * running sum; for AccumulateGrad, the leaf's .grad before and after. */
#pragma once

#include <gtk/gtk.h>

#include "cr-graph-model.h"

G_BEGIN_DECLS

#define CR_TYPE_STEP_CARD (cr_step_card_get_type ())
G_DECLARE_FINAL_TYPE (CrStepCard, cr_step_card, CR, STEP_CARD, GtkWidget)

GtkWidget *cr_step_card_new      (void);
/* Shows step `step` of model's backward call, from model->record (-1, or a
 * NULL model: an explanation of what stepping will show, or that the script
 * made no backward call). Builds its content at once and keeps no pointer to
 * model. */
void       cr_step_card_set_step (CrStepCard         *self,
                                  const CrGraphModel *model,
                                  int                 step);
/* The same from a record: step `step` of backward call `backward` (index in
 * record->backwards; -1 or out of range: no backward pass; NULL record: no
 * graph). Keeps no pointer to record. */
void       cr_step_card_show_record_step (CrStepCard        *self,
                                          const CrRunRecord *record,
                                          int                backward,
                                          int                step);

/* Shows forward step `index` of n of model's forward pass: record op `op`
 * computing (cr-step-card-forward.c). Keeps no pointer to model. */
void       cr_step_card_set_forward (CrStepCard         *self,
                                     const CrGraphModel *model,
                                     int                 op,
                                     guint               index,
                                     guint               n);

G_END_DECLS
