/* cr-step-card.h — beside the graph: the chain rule at the current backward
 * step, with the script's names and real numbers. For the node that ran: the
 * incoming gradient ∂L/∂out, each input's local gradient ∂out/∂in (its rule
 * and values), the outgoing gradient written as the product; when a tensor
 * gets gradient from several paths, each contribution and the running sum;
 * for AccumulateGrad, the leaf's .grad before and after. */
#pragma once

#include <gtk/gtk.h>

#include "cr-graph-model.h"

G_BEGIN_DECLS

#define CR_TYPE_STEP_CARD (cr_step_card_get_type ())
G_DECLARE_FINAL_TYPE (CrStepCard, cr_step_card, CR, STEP_CARD, GtkWidget)

GtkWidget *cr_step_card_new      (void);
/* Shows step `step` of model (-1, or a NULL model: an explanation of what
 * stepping will show, or that the script made no backward call). Builds its
 * content at once and keeps no pointer to model. */
void       cr_step_card_set_step (CrStepCard         *self,
                                  const CrGraphModel *model,
                                  int                 step);

G_END_DECLS
